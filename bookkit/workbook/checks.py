"""A check's messages, by exercise and name: the part "checks" of `bookkit/words/<language>.json`.

A check cell fails with `expect(condition, "name", field=value)` (bookkit/grader/checking.py): its words
are the part "checks"'s `[<exercise label>][name]` in the reader's language, their {placeholders} filled
with the fields; a name starting with "_common." is one of the messages every check may use ("not a
function", ...). The field `case` names one of the cases a check tries: its words are the exercise's
`cases[<case>]`; the field `outcome` is a run's outcome (bookkit/runs/scenarios.py's OUTCOMES), shown by
its name in the reader's language (the part "outcome_names"). An engine error quoted in a field is
explained in the reader's language as a printed one is (`bookkit/words/explained.py`), Burn's own words
left as they are. The check's code is the same in every language, so a translated check checks exactly
what the English one does; tests/book/test_exercises.py requires every name a check uses in every
language, with the same placeholders.
"""

from __future__ import annotations

import re
from typing import Any

from bookkit.words import PLACEHOLDER, SOURCE_LANGUAGE, words
from bookkit.words.explained import explained

PART = "checks"
COMMON = "_common"


def table(language: str) -> dict[str, dict[str, str]]:
    """Every exercise's messages in `language` ({label: {name: text}}, and COMMON's)."""
    return words(language, PART)


def where(label: str, key: str) -> tuple[str, str]:
    """The (section, name) a message key is kept under: the exercise's own, or COMMON's."""
    return (COMMON, key.removeprefix(COMMON + ".")) if key.startswith(COMMON + ".") else (label, key)


def _text(section: str, name: str, language: str) -> str | None:
    found = table(language).get(section, {})
    english = table(SOURCE_LANGUAGE).get(section, {})
    if "." in name:  # "cases.fresh"
        outer, inner = name.split(".", 1)
        return found.get(outer, {}).get(inner) or english.get(outer, {}).get(inner)
    return found.get(name) or english.get(name)


def case(label: str, key: str, language: str) -> str:
    """How a reader knows one of the cases a check of `label` tries (the key itself if it has no words)."""
    return _text(label, f"cases.{key}", language) or key


def message(label: str, key: str, fields: dict[str, Any], language: str) -> str:
    """The message `key` of exercise `label` in `language` (English if it has none), filled in."""
    section, name = where(label, key)
    text = _text(section, name, language)
    if text is None:
        return f"{key} {fields}"  # a check that names no message: say at least which
    shown = {name: explained(str(value), language) for name, value in fields.items()}
    if "case" in fields:
        shown["case"] = case(label, str(fields["case"]), language)
    if "outcome" in fields:
        outcome = str(fields["outcome"])
        shown["outcome"] = words(language, "outcome_names").get(outcome, outcome)
    text = PLURAL.sub(lambda match: _counted(fields.get(match[1], match[0]), match[2], match[3]), text)
    return PLACEHOLDER.sub(lambda match: shown.get(match[1], match[0]), text)


PLURAL = re.compile(r"\{(\w+):([^|{}]*)\|([^|{}]*)\}")
"""`{count:time|times}` in a message: the number, then the noun's form for it ("1 time", "2 times"), each
language's forms in its own words (Chinese needs one: `{count:次|次}`, or `{count} 次`)."""


def _counted(value: object, one: str, many: str) -> str:
    """`value` (a number, as a check's field holds it: text) with the form of the noun it takes."""
    return f"{value} {one if str(value).strip() in ('1', '-1') else many}"
