"""`make lab`: the chapters in JupyterLab, opened as notebooks every time, their MyST rendered.

    python -m bookkit.workbook.lab [CHAPTER] [extra `jupyter lab` options...]    (CHAPTER: 04, 04-step-0, ...)

Chapters are MyST Markdown files. Two settings make JupyterLab show one as the
book does: jupytext's "Jupytext Notebook" as the default viewer of Markdown
and MyST files (written to this environment's `overrides.json`, so it needs no
change to the reader's own JupyterLab), and jupyterlab-myst, which renders the
directives of markdown cells (admonitions, exercises, solutions).

A workspace JupyterLab saved earlier remembers each open file with the viewer
it had; one saved before the jupytext viewer was the default reopens a chapter
as plain text. So JupyterLab runs with a fresh workspace folder each time and
the chapter is opened by its path, with the default viewer.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bookkit.workbook.chapters import resolve
from bookkit.workbook.errors import UnknownChapterError

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
OVERRIDES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
SETTINGS = {
    "@jupyterlab/docmanager-extension:plugin": {
        "defaultViewers": {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}},
    # JupyterLab asks to fetch news from the internet on first start; the book works offline.
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false"},
}


def write_overrides(path: Path = OVERRIDES) -> None:
    """Make jupytext's notebook view the default for .md files, keeping any other override there."""
    settings = json.loads(path.read_text(encoding="utf8")) if path.exists() else {}
    for plugin, values in SETTINGS.items():
        settings.setdefault(plugin, {}).update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf8")


def lab_command(chapter: str, workspaces: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "jupyterlab", chapter, f"--LabApp.workspaces_dir={workspaces}",
            "--ServerApp.ip=127.0.0.1", *extra]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    name = args.pop(0) if args and not args[0].startswith("-") else "index"
    try:
        chapter = resolve(name, ROOT).path.relative_to(BOOK).as_posix()
    except UnknownChapterError as error:
        print(f"make lab: {error}", file=sys.stderr)
        return 2
    write_overrides()
    with tempfile.TemporaryDirectory(prefix="lab-workspaces-") as workspaces:
        try:
            return subprocess.call(lab_command(chapter, Path(workspaces), args), cwd=BOOK)
        except KeyboardInterrupt:  # Ctrl-C: JupyterLab stops itself; nothing to add
            return 130


if __name__ == "__main__":
    sys.exit(main())
