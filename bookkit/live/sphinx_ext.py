"""Sphinx extension: what a page's live cells need (`bookkit/live/live.js`), and no sphinx-thebe.

Jupyter Book 1 always loads sphinx-thebe (jupyter_book/config.py, its default
extensions; pinned `sphinx-thebe~=0.3`, 0.3.1 is the last release). sphinx-thebe
0.3.1 knows only Binder and thebe 0.8.2 from a CDN, and registers its inline
`const THEBE_JS_URL = ...` script in `env-before-read-docs`, after the HTML
builder has collected its scripts; under Sphinx 7.4 the builder then adds it a
second time, so every page threw `SyntaxError: Identifier 'THEBE_JS_URL' has
already been declared`. Live cells here use thebe 0.9 served with the site
instead, so this extension unhooks sphinx-thebe before it writes anything
(no inline script, no Binder page config, no CDN URL, no unused stylesheet).

On each page built from a notebook it then

- marks every rendered code cell with its index in the notebook
  (class `live-cell-<index>`), and
- appends one `<script type="application/json" id="live-cells">`: the notebook
  path the kernel starts in (so a cell's relative paths work as in the build),
  every code cell's index, tags, exercise label and the names it binds at its
  top level (so a NameError can say which cell above defines the name), the
  source of each cell the page does not show (`remove-cell`, `remove-input`:
  "Run all above" runs them too), and, for each exercise that has a check, the
  starting stub (derived by `bookkit.workbook.fork`, as a forked
  notebook's stubs are);
- for each cell the page hides, the names it reads (so a cell the reader
  edited that no longer defines one of them can be named when the hidden
  cell fails);
- where "Download my notebook" starts from (`notebook`, relative to the page):
  the reader's notebook in the page's language, with no solution and plain
  Markdown. A chapter with exercises has one already, the notebook
  `mlx-autodiff-exercises get --language` writes (bookkit/site/exercise_downloads.py);
  for a page with code and no exercises this extension writes one
  (`<edition>/notebooks/<page>.ipynb`: its text translated and made plain as
  that notebook's is, its code cells as they are). Each code cell kept there as
  the book has it carries that cell's id (`nb`), matched by its code in order,
  so the reader's edits land in the right cells whatever else the notebook holds;
- on a page not in English, the words of `bookkit/words/explained.py` (English and
  the page's), which live outputs' error explanations are rewritten with.

A check must judge only what the reader wrote: "Run check" sends the answer to
the Jupyter server's grader (bookkit/workbook/server.py), which grades it
with the book's set-up and checks in a process of its own, so nothing here is
what a check reads. The book's solutions never reach the reader's kernel: a
solution cell's source is never in the JSON, and live.js neither runs nor edits
one (nor a check cell, which only the grader runs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

from bookkit.site import layout as site_layout
from bookkit.site.assets import add_assets
from bookkit.words import words
from bookkit.workbook.chapters import Chapter
from bookkit.workbook.convention import CHECK, LABEL_KEY, SOLUTION, exercises
from bookkit.workbook.fork import KERNELSPEC, forked_notebook
from bookkit.workbook.markdown import Site, glued_values, plain
from bookkit.workbook.names import bound_names, free_names
from bookkit.workbook.translation import catalog, translate

logger = logging.getLogger(__name__)
SPHINX_THEBE = "sphinx_thebe"
DATA_ID = "live-cells"


def unhook_sphinx_thebe(app: Sphinx, config: Config) -> None:
    """Disconnect sphinx-thebe's event handlers and drop its stylesheet (see the module docstring)."""
    for listeners in app.events.listeners.values():
        for listener in list(listeners):
            if getattr(listener.handler, "__module__", "") == SPHINX_THEBE:
                app.disconnect(listener.id)
    # sphinx-thebe's setup() registered "sphinx-thebe.css" directly; nothing on the page uses it.
    app.registry.css_files = [(name, attrs) for name, attrs in app.registry.css_files
                              if name != "sphinx-thebe.css"]


def executed_notebook(app: Sphinx, docname: str) -> nbformat.NotebookNode | None:
    """The notebook myst-nb wrote for `docname` (every cell, outputs merged), if the page is one."""
    path = Path(app.env.mystnb_config.output_folder) / f"{docname}.ipynb"
    return nbformat.read(path, as_version=4) if path.exists() else None


def page_chapter(app: Sphinx, docname: str) -> Chapter:
    source = Path(app.env.doc2path(docname))
    return Chapter(source.stem, source, Path(app.srcdir))


def plain_notebook(chapter: Chapter, language: str) -> nbformat.NotebookNode:
    """A page without exercises as the reader's notebook: its text in `language`, made plain Markdown
    as an exercise notebook's is (bookkit/workbook/markdown.py), its code cells as they are."""
    messages, glued = catalog(chapter, language), glued_values(chapter)
    site = Site(language, site_layout.base_url(chapter.root))
    cells = []
    for cell in chapter.read().cells:
        if cell.cell_type == "markdown":
            text = plain(translate(cell.source, messages), chapter, glued, site).strip()
            if text:
                cells.append(nbformat.v4.new_markdown_cell(text))
        elif cell.cell_type == "code":
            cells.append(nbformat.v4.new_code_cell(cell.source, metadata=dict(cell.metadata)))
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC,
                                                           "language_info": {"name": "python"}})


def reader_notebook(app: Sphinx, docname: str, graded: bool) -> tuple[nbformat.NotebookNode, str]:
    """The notebook "Download my notebook" starts from, and its path in the site (see the module
    docstring): a chapter's exercise notebook, or the page made plain."""
    chapter, language = page_chapter(app, docname), app.config.language or "en"
    if graded:
        root = Path(app.srcdir)
        notebook = forked_notebook(chapter, root / "exercises", language=language)
        return notebook, site_layout.notebook_path(chapter.name, language)
    return plain_notebook(chapter, language), site_layout.page_notebook_path(chapter.name, language)


def exercise_stubs(reader: nbformat.NotebookNode) -> dict[str, str]:
    """{exercise label: the stub a forked copy starts from} for the page's graded exercises, in the
    page's language (its heading, what to do, and the NotImplementedError's message)."""
    stubs = {}
    for cell in reader.cells:
        label = cell.metadata.get(LABEL_KEY)
        if cell.cell_type == "code" and label and CHECK not in cell.metadata.get("tags", []):
            stubs.setdefault(label, cell.source)
    return stubs


def same_cells(notebook: nbformat.NotebookNode, reader: nbformat.NotebookNode,
               skip: set[int]) -> dict[int, str]:
    """{index of a code cell of `notebook`: the id of the same cell in `reader`}, for the cells `reader`
    keeps as the book has them (no exercise's: `skip`, and no cell labelled with one), matched in
    order by their code; a cell `reader` leaves out gets no id."""
    kept = [cell for cell in reader.cells if cell.cell_type == "code" and LABEL_KEY not in cell.metadata]
    ids: dict[int, str] = {}
    at = 0
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or index in skip:
            continue
        found = next((j for j in range(at, len(kept)) if kept[j].source == cell.source), None)
        if found is not None:
            ids[index], at = kept[found].id, found + 1
    return ids


def page_data(app: Sphinx, docname: str, notebook: nbformat.NotebookNode,
              rendered: dict[int, bool]) -> dict[str, Any]:
    """The JSON live.js reads: see the module docstring. `rendered`: {cell index: source shown}."""
    found = exercises(notebook, docname)
    owner = {index: ex.label for ex in found for index in ex.solution_cells + ex.check_cells}
    graded = [ex for ex in found if ex.check_cells]
    reader, reader_path = reader_notebook(app, docname, bool(found))
    ids = same_cells(notebook, reader, set(owner))
    cells = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        entry: dict[str, Any] = {"index": index, "tags": list(cell.metadata.get("tags", []))}
        if index in owner:
            entry["exercise"] = owner[index]
        elif binds := bound_names(cell.source):
            entry["binds"] = binds
        if not rendered.get(index, False) and SOLUTION not in entry["tags"]:
            entry["source"] = cell.source  # not on the page: "Run all above" still runs it
            entry["reads"] = free_names(cell.source)
        if index in ids:
            entry["nb"] = ids[index]
        cells.append(entry)
    stubs = exercise_stubs(reader) if graded else {}
    language = app.config.language or "en"
    data = {
        "path": f"{docname}.ipynb",
        "notebook": site_layout.relative(site_layout.page_path(docname, language), reader_path),
        "cells": cells,
        "exercises": [{"label": ex.label, "title": ex.title, "stub": stubs[ex.label]}
                      for ex in graded if ex.label in stubs],
    }
    if language != "en":
        data["explained"] = {"en": words("en", "explained"), "page": words(language, "explained")}
    return data


def write_plain_notebook(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                         doctree: Any) -> None:
    """A page with code and no exercises: its reader's notebook (`plain_notebook`), beside the page."""
    if doctree is None or app.builder.format != "html" or executed_notebook(app, pagename) is None:
        return
    chapter = page_chapter(app, pagename)
    read = chapter.read()
    if exercises(read, chapter.name) or not any(cell.cell_type == "code" for cell in read.cells):
        return
    notebook = plain_notebook(chapter, app.config.language or "en")
    nbformat.validate(notebook)
    target = Path(app.outdir) / site_layout.NOTEBOOKS / f"{chapter.name}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(notebook), encoding="utf-8")


def add_live_data(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    notebook = executed_notebook(app, docname)
    if notebook is None or app.builder.format != "html":
        return
    rendered: dict[int, bool] = {}
    for container in doctree.findall(nodes.container):
        if container.get("nb_element") != "cell_code":
            continue
        index = container["cell_index"]
        container["classes"].append(f"live-cell-{index}")
        shown = [child for child in container.findall(nodes.container)
                 if child.get("nb_element") == "cell_code_source"]
        rendered[index] = bool(shown)
        if shown and _code(shown[0]) != notebook.cells[index].source.rstrip():
            logger.warning(f"live cells: cell {index} of {docname} renders other code than the notebook "
                           "holds; live.js would run the wrong code", location=docname)
    data = json.dumps(page_data(app, docname, notebook, rendered), ensure_ascii=False)
    safe = data.replace("<", "\\u003c")  # no "</script>" can end the block early
    doctree.append(nodes.raw("", f'<script type="application/json" id="{DATA_ID}">{safe}</script>',
                             format="html"))


def _code(source_container: nodes.Element) -> str:
    blocks = list(source_container.findall(nodes.literal_block))
    return blocks[0].astext().rstrip() if blocks else ""


FOLDER = Path(__file__).resolve().parent
PAGE_FILES = ["live.js", "live.css", *sorted(path.name for path in FOLDER.glob("live-*.js"))]
"""Live mode's page side: live.js and its parts, and its style."""


def setup(app: Sphinx) -> dict[str, Any]:
    add_assets(app, FOLDER, PAGE_FILES)
    app.connect("config-inited", unhook_sphinx_thebe)
    app.connect("doctree-resolved", add_live_data)
    # after bookkit/site/executed_notebooks.py (priority 450) put the cached outputs back, which glued
    # values read
    app.connect("html-page-context", write_plain_notebook, priority=460)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
