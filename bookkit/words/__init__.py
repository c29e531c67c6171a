"""The words of everything the book generates, one file per edition: `en.json`, `zh_CN.json`.

Prose goes through gettext's catalogs (locale/); what code writes (pictures, tables, the
page scripts' buttons and messages) never reaches them, so its words live here, one JSON file
per language with the same keys in each (tests/book/test_words.py checks keys and placeholders).
This is the one home of a language's generated words: the check cells' messages are its part
"checks" (by exercise label and message name, bookkit/workbook/checks.py), appendix 1's map of
the code its part "code_map" (README's map is the English; another language's file has its
"header" and "rows" by README's module cell, bookkit/site/code_map.py). burn-check, a separate
tool run by node, keeps its own words in bookkit/burn_check/words/. A third language is its
entry in `LANGUAGES` (language.py), one more file here and there, plus its catalogs.

Each file is an object of parts, one per component ("stepper", "live", ...). The part "page"
holds what the page scripts in _static/ show; bookkit/site/book_languages.py writes it into every
page as `<script type="application/json" id="tds-words">`, so a script reads
`JSON.parse(document.getElementById("tds-words").textContent).stepper`. A text may hold
placeholders in braces ("Step {k} of {n}"), filled by `say` here or by the script.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent
SOURCE_LANGUAGE = "en"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
_SPOKEN: ContextVar[str] = ContextVar("spoken", default=SOURCE_LANGUAGE)


class NoWordsError(LookupError):
    """The book is built in a language, or asks for a part, that has no words here."""


def languages() -> list[str]:
    """Every language the book is written in (Sphinx's `language` codes), the source language first:
    the one list, `LANGUAGES` in bookkit/words/language.py (each has its words file here)."""
    from bookkit.words.language import LANGUAGES  # that module reads words: imported when asked

    return list(LANGUAGES)


@functools.cache
def _load(language: str) -> dict[str, Any]:
    path = FOLDER / f"{language}.json"
    if language not in languages() or not path.is_file():
        raise NoWordsError(f"no words for language {language!r} (there are: {', '.join(languages())}): "
                           f"add bookkit/words/{language}.json with the keys of en.json")
    return json.loads(path.read_text(encoding="utf8"))


def words(language: str | None, part: str) -> dict[str, Any]:
    """The words of one part (`"stepper"`, `"page"`, ...) in `language` (None is English)."""
    table = _load(language or SOURCE_LANGUAGE)
    if part not in table:
        raise NoWordsError(f"bookkit/words/{language or SOURCE_LANGUAGE}.json has no part {part!r}")
    return table[part]


def say(text: str, **values: object) -> str:
    """`text` with each {name} replaced by `values[name]`."""
    return PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), text)


@contextmanager
def speaking(language: str | None) -> Iterator[None]:
    """Within the block, `spoken()` is `language`: a picture drawn once per edition (graph_dot,
    curves) asks for its words without every helper passing the language on."""
    token = _SPOKEN.set(language or SOURCE_LANGUAGE)
    try:
        yield
    finally:
        _SPOKEN.reset(token)


def spoken() -> str:
    """The language `speaking` set (English outside any `speaking` block)."""
    return _SPOKEN.get()


def word(part: str, key: str, **values: object) -> str:
    """One text of `part` in the spoken language, its placeholders filled; a dotted key reads nested
    tables (`"legend.leaf"`)."""
    table: Any = words(spoken(), part)
    for name in key.split("."):
        table = table[name]
    return say(table, **values)


def in_every_language(text: str | Mapping[str, str], part: str) -> dict[str, str]:
    """`text` in every language, English first: a text per language as given (English where one
    lacks it), or an English text looked up in the table `part` of each words file (English where
    a file lacks it, so a reader's own title stays as written)."""
    if isinstance(text, Mapping):
        english = text[SOURCE_LANGUAGE]
        return {code: text.get(code, english) for code in languages()}
    return {code: words(code, part).get(text, text) if part in _load(code) else text for code in languages()}
