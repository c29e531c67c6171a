"""Sphinx extension: every chapter with exercises offers them as a notebook of the reader's own.

The notebook is the very file `.venv/bin/python -m mlx_autodiff.exercises fork <chapter>`
writes (`mlx_autodiff.workbook.forked_notebook`: the chapter's cells, each solution a
stub that raises NotImplementedError, each check kept, glued values filled in from
this build's executed chapter), written to `exercises/<chapter>.ipynb` in the built
site when the chapter's page is written. A "Download as exercise" link to it opens
the chapter's "Exercises" section, with the one command that grades it. The page's
own download menu offers the executed chapter instead (tools/executed_notebooks.py).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import nbformat
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from mlx_autodiff.workbook import Chapter, chapters, check_command, default_output, exercises, forked_notebook

logger = logging.getLogger(__name__)
FOLDER = "exercises"
"""Where the notebooks go in the built site, as in a reader's book folder."""


@dataclass(frozen=True)
class DownloadWords:
    """The link's words in one edition (generated HTML: gettext does not see it). `{path}` and
    `{command}` become inline code. The notebook itself is the English chapter in every edition."""

    link: str
    colon: str  # after the link
    what: str
    save: str


DOWNLOAD_WORDS = {
    "en": DownloadWords(
        link="Download as exercise",
        colon=": ",
        what="this chapter as a notebook of your own, each solution left for you to write.",
        save="Save it as {path} in the book's folder and check it there with {command}.",
    ),
    "zh_CN": DownloadWords(
        link="下载为练习",
        colon="：",
        what="把这一章下载成你自己的 notebook，每个参考答案都留给你来写（notebook 的文字是英文的）。",
        save="把它存为书的文件夹里的 {path}，然后在那里用 {command} 检查。",
    ),
}
"""Each edition's words, by Sphinx's `language` code."""


def exercise_chapters(root: Path) -> dict[str, Chapter]:
    """Each chapter of the table of contents that has exercises, by its docname (`book/04-step-0`)."""
    return {
        chapter.path.relative_to(root).with_suffix("").as_posix(): chapter
        for chapter in chapters(root)
        if exercises(chapter.read(), chapter.name)
    }


def download_html(docname: str, chapter: Chapter, language: str | None = "en") -> str:
    """The link to the chapter's notebook, from its page, and how to grade the notebook."""
    words = DOWNLOAD_WORDS.get(language or "en")
    if words is None:
        raise LookupError(f"no words for the exercise download link in language {language!r} (there are "
                          f"{', '.join(DOWNLOAD_WORDS)}): add them to DOWNLOAD_WORDS in "
                          "tools/exercise_downloads.py")
    file = f"{chapter.name}.ipynb"
    href = posixpath.relpath(f"{FOLDER}/{file}", posixpath.dirname(docname) or ".")
    command = check_command(default_output(chapter), chapter.root)
    code = '<code class="docutils literal notranslate"><span class="pre">{}</span></code>'
    return (
        '<p class="exercise-download">'
        f'<a class="reference download" href="{escape(href)}" download="{escape(file)}">'
        f"{escape(words.link)}</a>"
        f"{words.colon}{escape(words.what)} "
        + escape(words.save).format(path=code.format(escape(f"{FOLDER}/{file}")),
                                    command=code.format(escape(command)))
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
    notebook = forked_notebook(chapter)  # for exercises/<chapter>.ipynb, the path `fork` writes to
    nbformat.validate(notebook)
    target = Path(app.outdir) / FOLDER / f"{chapter.name}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(notebook), encoding="utf-8")


def find_chapters(app: Sphinx) -> None:
    app.exercise_chapters = exercise_chapters(Path(app.srcdir))  # type: ignore[attr-defined]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", find_chapters)
    app.connect("doctree-resolved", add_link)
    # After tools/executed_notebooks.py (priority 450) put the cached outputs back into the
    # executed chapter, whose glued values the notebook's text fills in.
    app.connect("html-page-context", write_notebook, priority=460)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
