"""Prose that quotes the page's interface quotes it as that edition shows it.

Appendix 2 tells a reader to press "Run live" and wait for `ready`; the Chinese page's button says
实时运行 and its status 就绪. A label the prose quotes (in bold, in italics, in code, or between
quotation marks) that is a label of some edition's interface must be one of this edition's: the
English prose keeps step with the English interface, the Chinese with the Chinese.

The labels are the short words of the interface: the page scripts' buttons and states
(bookkit/words, part "page"), the explorer's form, myst-nb's hidden-cell button and the
exercise download link (part "download").
"""

from __future__ import annotations

import html.parser
import re

import pytest
from book_outputs import ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

from bookkit.burn_check.sphinx_ext import words as checker_words
from bookkit.words import PLACEHOLDER, languages, words

MAX_LABEL_WORDS = 4
"""A label is short: a button, a status, a form's field (a sentence is a message, not a label)."""


def short_texts(table: object) -> set[str]:
    """Every text of a words table short enough to be a label, without placeholders."""
    if isinstance(table, dict):
        return set().union(*(short_texts(value) for value in table.values())) if table else set()
    if isinstance(table, (list, tuple)):
        return set().union(*(short_texts(value) for value in table)) if table else set()
    if not isinstance(table, str) or PLACEHOLDER.search(table) or len(table.split()) > MAX_LABEL_WORDS:
        return set()
    text = table.strip().rstrip(":：")
    return {text} if text and not text.endswith((".", "。")) else set()


def labels(language: str) -> set[str]:
    explorer = words(language, "explorer")
    form = [explorer[key] for key in ("built_on", "read_first", "relocation", "plain", "yes", "no",
                                      "whole_message")] + list(explorer["relocations"].values())
    found = short_texts(words(language, "page")) | short_texts(form)
    found |= short_texts(words(language, "notebook"))
    found |= short_texts(words(language, "download")["link"])
    found |= short_texts(checker_words(language)["page"]) | short_texts(checker_words(language)["examples"])
    return found


LABELS = {language: labels(language) for language in languages()}
EVERY_LABEL = set().union(*LABELS.values())

QUOTES = re.compile(r"「([^」]{1,40})」|“([^”]{1,40})”|\"([^\"]{1,40})\"")


class QuotedText(html.parser.HTMLParser):
    """The text a page's prose quotes: bold, italics, inline code and quotation marks, outside code
    cells, outputs and the interface itself."""

    SKIPPED = {"pre", "script", "style", "template", "svg", "form", "nav", "button", "select", "header",
               "footer", "label"}
    SKIPPED_CLASSES = {"cell_output", "highlight", "explorer", "stepper", "headerlink", "toctree-wrapper"}
    MARKED = {"strong", "em", "code", "b", "i"}
    VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "source"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped here)
        self.marks: list[list[str]] = []
        self.quoted: list[str] = []
        self.text: list[str] = []
        self.inside_article = 0

    def skipping(self) -> bool:
        return any(skipped for _, skipped in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skipped = tag in self.SKIPPED or any(c.startswith(tuple(self.SKIPPED_CLASSES)) for c in classes)
        self.stack.append((tag, skipped))
        if tag in self.MARKED:
            self.marks.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag in self.MARKED and self.marks:
                text = "".join(self.marks.pop()).strip()
                if text and not self.skipping():
                    self.quoted.append(text)
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.skipping():
            return
        for mark in self.marks:
            mark.append(data)
        self.text.append(data)

    def everything(self) -> list[str]:
        joined = "".join(self.text)
        return self.quoted + [next(g for g in match.groups() if g) for match in QUOTES.finditer(joined)]


def quoted(language: str, docname: str) -> list[str]:
    page = (SITE / language / f"{docname}.html").read_text(encoding="utf8")
    article = re.search(r'<article class="bd-article">.*?</article>', page, re.S)
    parser = QuotedText()
    parser.feed(article[0] if article else page)
    return [text.strip().rstrip(":：") for text in parser.everything() if text.strip() not in ENGINE_NAMES]


def engine_names() -> set[str]:
    """The classes and functions the engine defines (`Step`, `Tensor`): code that names them quotes the
    engine, not a label of the interface, even where a label has the same word ("Step")."""
    import ast

    names = set()
    for path in [*(ROOT / "mlx_autodiff").rglob("*.py"), *(ROOT / "bookkit").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf8"))
        names |= {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    return names


ENGINE_NAMES = engine_names()


def test_the_labels_differ_between_the_editions() -> None:
    """The test has something to find: labels of one edition that the other does not show."""
    assert {"Run live", "ready", "Next step", "Built on"} <= LABELS["en"] - LABELS["zh_CN"]
    assert {"实时运行", "就绪", "下一帧", "建在哪里"} <= LABELS["zh_CN"] - LABELS["en"]


def test_the_page_reader_finds_quoted_labels() -> None:
    parser = QuotedText()
    parser.feed('<p>Press <strong>Run live</strong>, wait for <code>ready</code>, then 「下一步」.</p>'
                '<div class="cell_output"><p><strong>Run cell</strong></p></div>')
    assert parser.everything() == ["Run live", "ready", "下一步"]


@pytest.mark.slow
@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("docname", toc_pages())
def test_prose_quotes_the_interface_as_this_edition_shows_it(book_build, language: str, docname: str) -> None:  # noqa: F811
    foreign = sorted({text for text in quoted(language, docname)
                      if text in EVERY_LABEL and text not in LABELS[language]})
    assert foreign == [], (
        f"{language}/{docname}.html quotes interface labels its edition does not show: {foreign} "
        f"(this edition's labels include {sorted(LABELS[language])[:8]}...)")
