"""One output that reads in every edition of the book: English HTML, and each other language's beside it.

The book executes each chapter once and builds it in every language from that one execution
(bookkit/site/sphinx_build.py), so an output written by code (a picture, a stepper, a table) has to carry
every language's words. `Editions` writes the English HTML as it is, then each other language's
inside an inert `<template data-tds-edition="zh_CN">`: anything that shows the output unprocessed
(JupyterLab, a live cell before the page script picks) shows English only, never two languages or
duplicate element ids. The book's build keeps the page's language alone (`pick`, called by
bookkit/site/book_languages.py for every raw HTML output); `_static/` scripts that insert live outputs do
the same with the page's language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bookkit.words import SOURCE_LANGUAGE

_CLOSE = "</template><!--/tds-edition-->"
_EDITION = re.compile(r'<template data-tds-edition="(?P<code>[A-Za-z_]+)">(?P<html>.*?)'
                      + re.escape(_CLOSE), re.S)


class EditionsError(ValueError):
    """An `Editions` without the source language's HTML, which every reader may be shown."""


@dataclass(frozen=True)
class Editions:
    """HTML per language code ("en", "zh_CN"); English is required, as the default rendering."""

    html: Mapping[str, str]

    def __post_init__(self) -> None:
        if SOURCE_LANGUAGE not in self.html:
            raise EditionsError(f"Editions needs the {SOURCE_LANGUAGE!r} HTML, which is shown wherever "
                                f"no language is picked; it got {sorted(self.html)}")

    def _repr_html_(self) -> str:
        return join(self.html)


def join(html: Mapping[str, str]) -> str:
    """English first, then each other language in its inert template."""
    others = "".join(f'<template data-tds-edition="{code}">{text}{_CLOSE}'
                     for code, text in html.items() if code != SOURCE_LANGUAGE)
    return html[SOURCE_LANGUAGE] + others


def pick(html: str, language: str | None) -> str:
    """The HTML of one language out of `join`'s output (English where the language has none);
    HTML without editions comes back unchanged."""
    editions = {match["code"]: match["html"] for match in _EDITION.finditer(html)}
    if not editions:
        return html
    source = _EDITION.sub("", html)
    return editions.get(language or SOURCE_LANGUAGE, source)
