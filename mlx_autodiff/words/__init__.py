"""The words of everything the book generates, one file per edition: `en.json`, `zh_CN.json`.

Prose goes through gettext's catalogs (locale/); what code writes (pictures, tables, the
page scripts' buttons and messages) never reaches them, so its words live here, one JSON file
per language with the same keys in each (tests/test_words.py checks keys and placeholders).
A third language is one more file here plus its catalogs.

Each file is an object of parts, one per component ("stepper", "live", ...). The part "page"
holds what the page scripts in _static/ show; tools/book_languages.py writes it into every
page as `<script type="application/json" id="tds-words">`, so a script reads
`JSON.parse(document.getElementById("tds-words").textContent).stepper`. A text may hold
placeholders in braces ("Step {k} of {n}"), filled by `say` here or by the script.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent
SOURCE_LANGUAGE = "en"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


class NoWordsError(LookupError):
    """The book is built in a language, or asks for a part, that has no words here."""


def languages() -> list[str]:
    """Every language with a words file (Sphinx's `language` codes), the source language first."""
    found = sorted(path.stem for path in FOLDER.glob("*.json"))
    return [SOURCE_LANGUAGE] + [code for code in found if code != SOURCE_LANGUAGE]


@functools.cache
def _load(language: str) -> dict[str, Any]:
    path = FOLDER / f"{language}.json"
    if not path.is_file():
        raise NoWordsError(f"no words for language {language!r} (there are: {', '.join(languages())}): "
                           f"add mlx_autodiff/words/{language}.json with the keys of en.json")
    return json.loads(path.read_text(encoding="utf8"))


def words(language: str | None, part: str) -> dict[str, Any]:
    """The words of one part (`"stepper"`, `"page"`, ...) in `language` (None is English)."""
    table = _load(language or SOURCE_LANGUAGE)
    if part not in table:
        raise NoWordsError(f"mlx_autodiff/words/{language or SOURCE_LANGUAGE}.json has no part {part!r}")
    return table[part]


def say(text: str, **values: object) -> str:
    """`text` with each {name} replaced by `values[name]`."""
    return PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), text)
