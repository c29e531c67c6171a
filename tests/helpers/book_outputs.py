"""Read what the built book computed, so tests can assert each chapter's claims.

Chapters are executed while the book is built (`python -m bookkit.site.build`, every
edition: English, then Chinese from the same execution);
myst-nb writes each executed notebook to `_build/jupyter_execute/book/<name>.ipynb`
and the values a chapter glues (`myst_nb.glue`, shown or not) to
`<name>.glue.json` next to it. A test file uses them like this:

    from book_outputs import book_build, glued, stream_text  # noqa: F401 (book_build is a fixture)

    @pytest.mark.slow
    @pytest.mark.usefixtures("book_build")
    def test_step_1_names_the_bias():
        assert glued("05-step-1")["failing_node"] == 3
        assert "TapeConsumedError" in stream_text("05")

A chapter is named by its file stem ("05-step-1"), its docname ("book/05-step-1")
or a unique prefix ("05").
"""

from __future__ import annotations

import ast
import fcntl
import functools
import html.parser
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from bookkit.site import layout as site_layout
from bookkit.site.build import SUMMARY
from bookkit.words.language import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
"""The site `make book` serves: `index.html` and one folder per edition (`en/`, `zh_CN/`), laid out
as bookkit/site/layout.py says."""
HTML = SITE / site_layout.in_edition("", "en")
"""The English edition."""
EDITIONS = list(LANGUAGES)
"""Every edition's language, English first (bookkit/site/book_languages.py)."""
EXECUTED = ROOT / "_build" / "jupyter_execute"


WITHOUT_CJK = ROOT / "_build" / ".matplotlib-without-cjk"
"""The matplotlib configuration folder the tests' build runs with: its font list holds only the fonts
matplotlib ships, as on a fresh Linux machine, or one whose font cache predates its CJK fonts."""


def matplotlib_without_cjk() -> dict[str, str]:
    """The environment of a process whose matplotlib sees no font but its own (`WITHOUT_CJK`)."""
    environment = {**os.environ, "MPLCONFIGDIR": str(WITHOUT_CJK)}
    script = ("import matplotlib; from matplotlib import font_manager as fm; m = fm.fontManager; "
              "m.ttflist = [f for f in m.ttflist if f.fname.startswith(matplotlib.get_data_path())]; "
              "m.afmlist = [f for f in m.afmlist if f.fname.startswith(matplotlib.get_data_path())]; "
              "fm.json_dump(m, f'{matplotlib.get_cachedir()}/fontlist-v{fm.FontManager.__version__}.json')")
    subprocess.run([sys.executable, "-c", script], env=environment, check=True)
    return environment


@functools.cache
def build_book() -> subprocess.CompletedProcess[str]:
    """Run the strict build of every edition (an unchanged one is not built again), as on a machine
    whose matplotlib sees no CJK font."""
    command = [sys.executable, "-m", "bookkit.site.build", *EDITIONS]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace",
                          env=matplotlib_without_cjk())


def build_once_per_run(run: str) -> subprocess.CompletedProcess[str]:
    """`build_book()` once per run (`run`: pytest-xdist's id of it), shared by every worker of the run
    (`make test`): the first worker builds, the others wait for it and read its result. So a file saved
    while the tests run never starts a second build under pages other workers are reading; in one
    process the book is built once a run too."""
    (ROOT / "_build").mkdir(exist_ok=True)
    kept = ROOT / "_build" / f".tests-build-{run}.json"
    with open(ROOT / "_build" / ".tests-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if kept.exists():
            return subprocess.CompletedProcess(**json.loads(kept.read_text(encoding="utf8")))
        for earlier in (ROOT / "_build").glob(".tests-build-*.json"):
            earlier.unlink()
        result = build_book()
        kept.write_text(json.dumps({"args": result.args, "returncode": result.returncode,
                                    "stdout": result.stdout, "stderr": result.stderr}), encoding="utf8")
        return result


@pytest.fixture(scope="session")
def book_build(request: pytest.FixtureRequest) -> subprocess.CompletedProcess[str]:
    """The strict book build, once a run; fails every test that needs it when the build fails."""
    worker = getattr(request.config, "workerinput", None)  # set in a pytest-xdist worker
    result = build_once_per_run(worker["testrunuid"]) if worker else build_book()
    assert result.returncode == 0, f"the strict book build failed:\n{build_problems(result.stdout)}"
    return result


def build_problems(log: str) -> str:
    """The lines of a build log that say what went wrong: Sphinx's warnings and errors, and
    bookkit/site/build.py's closing summary (which names chapters that failed to execute)."""
    lines = re.sub(r"\x1b\[[0-9;]*m", "", log).splitlines()
    problems = [line[:400] for line in lines
                if re.search(r"\b(WARNING|ERROR|CRITICAL): ", line)]
    ends = [i for i, line in enumerate(lines) if line.startswith(f"{SUMMARY}, ") and "exited" in line]
    summary = ends[0] if ends else len(lines)
    return "\n".join(problems + lines[summary:]) or "\n".join(lines[-25:])


def _toc() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf8"))


def _files(entry: Any) -> list[str]:
    """The docnames an entry of `_toc.yml` and the entries under it name, in reading order."""
    if isinstance(entry, dict):
        own = [entry[key] for key in ("root", "file") if key in entry]
        return [re.sub(r"\.(md|ipynb)$", "", name) for name in own] + [
            name for value in entry.values() for name in _files(value)]
    if isinstance(entry, list):
        return [name for item in entry for name in _files(item)]
    return []


def toc_pages() -> list[str]:
    """Docnames of every page in `_toc.yml`, in reading order (root first)."""
    return _files(_toc())


def toc_parts() -> list[list[str]]:
    """The docnames of each part of `_toc.yml`, in reading order."""
    return [_files(part) for part in _toc()["parts"]]


def edition_pages() -> list[str]:
    """Every page of every edition, as its path in the site without `.html`: "en/book/index", ...,
    "zh_CN/book/index", ... (the browser tests open each)."""
    return [site_layout.page_path(page, language).removesuffix(".html")
            for language in EDITIONS for page in toc_pages()]


def split_edition(page: str) -> tuple[str, str]:
    """"zh_CN/book/04-step-0" -> ("zh_CN", "book/04-step-0")."""
    language, _, docname = page.partition("/")
    return language, docname


def docname(chapter: str) -> str:
    """"05", "05-step-1", "book/05-step-1" or "book/05-step-1.md" -> "book/05-step-1"."""
    name = re.sub(r"\.(md|ipynb|html)$", "", chapter).removeprefix("book/")
    pages = [page for page in toc_pages() if page.startswith("book/")]
    exact = [page for page in pages if page == f"book/{name}"]
    matches = exact or [page for page in pages if page.startswith(f"book/{name}-")]
    if len(matches) != 1:
        raise LookupError(f"{chapter!r} names {len(matches)} pages of _toc.yml: {matches or pages}")
    return matches[0]


def executed(chapter: str) -> nbformat.NotebookNode:
    """The chapter's notebook as executed by the last book build."""
    path = EXECUTED / f"{docname(chapter)}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: build the book first (the `book_build` fixture does)")
    return nbformat.read(path, as_version=4)


@pytest.fixture(scope="session")
def executed_again(book_build) -> Callable[[str], nbformat.NotebookNode]:  # noqa: F811 (the fixture)
    """`executed_again(chapter)`: the chapter run once more, in a fresh kernel, after the build (cells
    may fail: the notebook keeps their errors). A worker runs each chapter once, for every test that
    compares it (tests/site/test_book_determinism.py, tests/book/test_stepper.py), however the test
    names it."""
    import jupytext
    from nbclient import NotebookClient

    @functools.cache
    def run(page: str) -> nbformat.NotebookNode:
        source = ROOT / f"{page}.md"
        notebook = jupytext.read(source)
        NotebookClient(notebook, timeout=300, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(source.parent)}}).execute()
        return notebook

    return lambda chapter: run(docname(chapter))


def stepper_data_texts(page: str) -> list[str]:
    """The JSON text each stepper on a page (a built page, or a cell's HTML output) carries, in order."""
    return re.findall(r'class="stepper-data">(.*?)</script>', page, re.S)


def plain_value(data: dict[str, Any]) -> Any:
    """A glued value: its `text/plain` repr as a Python literal when it is one, else the text.

    Values with no `text/plain` (rare) come back as their whole mime bundle.
    """
    if "text/plain" not in data:
        return data
    text = "".join(data["text/plain"])
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def glued(chapter: str) -> dict[str, Any]:
    """Every value the chapter glued, by name, including `glue(..., display=False)` ones.

    myst-nb removes hidden glue outputs from the executed notebook but keeps them all
    in `<name>.glue.json`, which it writes right after the notebook; one older than the
    notebook is left over from an earlier build and is ignored.
    """
    notebook_path = EXECUTED / f"{docname(chapter)}.ipynb"
    glue_path = notebook_path.with_suffix(".glue.json")
    outputs = [output for cell in executed(chapter).cells for output in cell.get("outputs", [])
               if "scrapbook" in output.get("metadata", {})]
    found = {output.metadata["scrapbook"]["name"]: output.data for output in outputs}
    if glue_path.exists() and glue_path.stat().st_mtime >= notebook_path.stat().st_mtime:
        found |= {name: output["data"] for name, output in json.loads(glue_path.read_text("utf8")).items()}
    return {name: plain_value(data) for name, data in found.items()}


def stream_text(chapter: str, name: str = "stdout") -> str:
    """Everything the chapter's cells printed to `name` ("stdout" or "stderr"), in order."""
    return "".join("".join(output.text) for cell in executed(chapter).cells
                   for output in cell.get("outputs", [])
                   if output.output_type == "stream" and output.name == name)


def cell_outputs_with_tag(chapter: str, tag: str) -> list[list[nbformat.NotebookNode]]:
    """The outputs of each code cell tagged `tag`, one list per cell, in order."""
    return [cell.outputs for cell in executed(chapter).cells
            if cell.cell_type == "code" and tag in cell.metadata.get("tags", [])]


def output_text(outputs: list[nbformat.NotebookNode]) -> str:
    """The readable text of some outputs: streams, `text/plain` reprs, and `Error: message` lines."""
    parts = []
    for output in outputs:
        if output.output_type == "stream":
            parts.append("".join(output.text))
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}\n")
        elif "text/plain" in output.get("data", {}):
            parts.append("".join(output.data["text/plain"]) + "\n")
    return "".join(parts)


class _Tables(html.parser.HTMLParser):
    """The tables of an HTML text: rows of cells' text, with `<code>` written back as `backticks`."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "code" and self.cell is not None:
            self.cell.append("`")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "code" and self.cell is not None:
            self.cell.append("`")

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def page_tables(path: Path) -> list[list[list[str]]]:
    """Every table of a built page (`HTML / "book/a1-engine-tour.html"`), as `html_tables` gives them."""
    parser = _Tables()
    parser.feed(path.read_text(encoding="utf8"))
    return parser.tables


def html_tables(chapter: str) -> list[list[list[str]]]:
    """Every table the chapter's cells show as HTML (`bookkit.pictures.table.Table`), in order: each a list
    of rows, the header row first, each row its cells' text (`code` in backticks, as in Markdown)."""
    parser = _Tables()
    for cell in executed(chapter).cells:
        for output in cell.get("outputs", []):
            parser.feed("".join(output.get("data", {}).get("text/html", "")))
    return parser.tables
