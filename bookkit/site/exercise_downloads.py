"""Sphinx extension: every chapter with exercises offers them as a notebook of the reader's own.

The notebook is the very file `mlx-autodiff-exercises get <chapter> --language <edition>`
writes (`bookkit.workbook.forked_notebook`: the chapter's cells in the page's language, each
solution a stub that raises NotImplementedError, each check kept, glued values filled in from this
build's executed chapter, links to this edition of the site), written to
`<edition>/exercises/<chapter>.ipynb` in the built site (bookkit/site/layout.py) when the
chapter's page is written. A "Download as exercise" link to it opens the chapter's "Exercises"
section, with the one command that grades it; the link's words are the part "download" of
bookkit/words/<language>.json. The page's own download menu offers the executed chapter
instead (bookkit/site/executed_notebooks.py).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import nbformat
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from bookkit.site import layout as site_layout
from bookkit.words import say, words
from bookkit.workbook import Chapter, chapters, check_command, exercises, forked_notebook

logger = logging.getLogger(__name__)
FOLDER = site_layout.EXERCISES
"""Where the notebooks go in each edition of the built site, as in a reader's book folder."""


def exercise_chapters(root: Path) -> dict[str, Chapter]:
    """Each chapter of the table of contents that has exercises, by its docname (`book/04-step-0`)."""
    return {
        chapter.path.relative_to(root).with_suffix("").as_posix(): chapter
        for chapter in chapters(root)
        if exercises(chapter.read(), chapter.name)
    }


def download_html(docname: str, chapter: Chapter, language: str | None = "en") -> str:
    """The link to the chapter's notebook, from its page, and how to grade the notebook."""
    said = words(language, "download")
    language = language or "en"
    file = f"{chapter.name}.ipynb"
    href = site_layout.relative(site_layout.page_path(docname, language),
                                site_layout.notebook_path(chapter.name, language))
    command = check_command(Path(file))  # run where the reader saved it
    code = '<code class="docutils literal notranslate"><span class="pre">{}</span></code>'
    return (
        '<p class="exercise-download">'
        f'<a class="reference download" href="{escape(href)}" download="{escape(file)}">'
        f"{escape(said['link'])}</a>"
        f"{said['colon']}{escape(said['what'])}"  # "save" starts with the space English wants
        + say(escape(said["save"]), command=code.format(escape(command)))
        + "</p>"
    )


def add_link(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    chapter = app.exercise_chapters.get(docname)  # type: ignore[attr-defined]
    if chapter is None:
        return
    section = next((s for s in doctree.findall(nodes.section) if "exercises" in s["ids"]), None)
    if section is None:
        logger.warning(f"{docname} has exercises but no 'Exercises' section to put its download link in",
                       location=docname)
        return
    html = download_html(docname, chapter, app.config.language)
    section.insert(1, nodes.raw("", html, format="html"))  # after the title


def write_notebook(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    chapter = app.exercise_chapters.get(pagename)  # type: ignore[attr-defined]
    if chapter is None:
        return
    # for exercises/<chapter>.ipynb, the path `get` writes to, in the page's language
    notebook = forked_notebook(chapter, language=app.config.language or "en")
    nbformat.validate(notebook)
    target = Path(app.outdir) / FOLDER / f"{chapter.name}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(notebook), encoding="utf-8")


def find_chapters(app: Sphinx) -> None:
    app.exercise_chapters = exercise_chapters(Path(app.srcdir))  # type: ignore[attr-defined]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", find_chapters)
    app.connect("doctree-resolved", add_link)
    # After bookkit/site/executed_notebooks.py (priority 450) put the cached outputs back into the
    # executed chapter, whose glued values the notebook's text fills in.
    app.connect("html-page-context", write_notebook, priority=460)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
