"""Sphinx extension: the relocation explorer, from runs the engine makes while the book is built.

A page that says

    ```{relocation-explorer}
    ```

gets the explorer (`bookkit.explorer.explorer.page`: its form, its data, the
table of every combination), and the pictures it loads are copied into
`explorer/` beside that page when the page is written. The runs take one
fresh process per combination, several seconds in all, so their files are
kept in `_build/.explorer/<key>/`, the key a hash of the engine's sources as
for the execution cache (bookkit/site/build.py's `engine_key`): an unchanged
rebuild copies them, an engine change runs them again.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective

from bookkit.explorer.explorer import explore, load, page, write
from bookkit.explorer.words import words_for
from bookkit.site.assets import add_assets
from bookkit.site.build import engine_key

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "explorer"
"""The pictures' folder, beside the explorer's page."""


FRESH = ".fresh-"  # a folder being written, renamed to its key when whole
FRESH_FOR_S = 3600  # a fresh folder older than this was left by a killed build


def cached_folder(root: Path = ROOT) -> Path:
    """The folder of this engine's explorer files, written first if the engine changed since.

    Two builds may write it at once (a test beside `make book`): each writes a fresh folder of its
    own and renames it whole, the second keeps the first's, and neither removes the other's."""
    cache = root / "_build" / ".explorer"
    folder = cache / engine_key(root)
    if not folder.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(dir=cache, prefix=FRESH))
        write(explore(), fresh)
        try:
            fresh.rename(folder)
        except OSError:  # another build renamed its folder there first
            shutil.rmtree(fresh)
        for stale in cache.iterdir():  # an older engine's files, or a fresh folder a killed build left
            if stale != folder and not writing(stale):
                shutil.rmtree(stale, ignore_errors=True)
    return folder


def writing(path: Path) -> bool:
    """Is `path` a fresh folder another build may still be writing?"""
    try:
        return path.name.startswith(FRESH) and time.time() - path.stat().st_mtime < FRESH_FOR_S
    except FileNotFoundError:  # it was renamed or removed meanwhile
        return True


def explorer_pages(env: BuildEnvironment) -> set[str]:
    """The docnames whose page holds the explorer (kept in the environment, as Sphinx keeps its own)."""
    if not hasattr(env, "relocation_explorer_pages"):
        env.relocation_explorer_pages = set()  # type: ignore[attr-defined]
    return env.relocation_explorer_pages  # type: ignore[attr-defined]


class RelocationExplorer(SphinxDirective):
    """`{relocation-explorer}`: the explorer's HTML, with every combination's answer, in the words of
    the edition being built (bookkit/explorer/words.py: gettext does not see generated HTML)."""

    def run(self) -> list[nodes.Node]:
        explorer_pages(self.env).add(self.env.docname)
        answers = load(cached_folder())
        words = words_for(self.config.language)
        return [nodes.raw("", page(answers, FOLDER, words, self.config.language), format="html")]


def copy_pictures(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if pagename not in explorer_pages(app.env):
        return
    target = Path(app.outdir) / PurePosixPath(pagename).parent / FOLDER
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(cached_folder(), target)


def purge_page(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    explorer_pages(env).discard(docname)


def setup(app: Sphinx) -> dict[str, Any]:
    add_assets(app, Path(__file__).resolve().parent, ["explorer.js", "explorer.css"])
    app.add_directive("relocation-explorer", RelocationExplorer)
    app.connect("env-purge-doc", purge_page)
    app.connect("html-page-context", copy_pictures)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
