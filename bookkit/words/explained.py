"""The engine's explanation of an error, in an edition's language; Burn's own words stay as they are.

An engine error starts with Burn's message, verbatim, then says what happened and how to fix it
(errors.py). A chapter prints it as a stream, which the book executes once for every edition, so
the Chinese page cannot get its words from `editions.Editions`: the Chinese build rewrites the
engine's sentences in a printed message instead (bookkit/site/book_languages.py), and so does the
explorer's page. Each sentence is a template of the words files' part "explained" (the English
exactly as the engine writes it, `{name}` for what varies); a phrase inside a value (`backward
pass #1`, `nothing`) is translated by the part's "phrases". A message with no known sentence is
unchanged.
"""

from __future__ import annotations

import functools
import re

from bookkit.words import PLACEHOLDER, SOURCE_LANGUAGE, say, words

PHRASE_VALUES = frozenset({"what", "detail", "consumed", "where", "names", "shape", "left_shape",
                           "right_shape", "target_shape", "missing", "unknown"})
"""The placeholders of the part "explained" whose values are phrases (`parameter 'bias'`, `flex.autodiff
to metal.autodiff`); every other one holds one word (a number, a node, a device, an op)."""


@functools.cache
def _pattern(template: str, within: bool = False) -> re.Pattern[str]:
    """A template as a regular expression, each {name} a group that matches as little as it can, each
    space any run of white space (a chapter may print a message wrapped: `textwrap.fill`). Found
    `within` a longer text, a {name} not in `PHRASE_VALUES` matches one word (`NodeId(2)`, `2`), so a
    sentence is not found across two messages (`{n} of {total} ...` from a word before it)."""
    parts = PLACEHOLDER.split(template)  # literal, name, literal, name, ...
    word = r"\S+?"
    pattern = "".join(r"\s+".join(map(re.escape, part.split(" "))) if at % 2 == 0
                      else f"(?P<{part}>{word if within and part not in PHRASE_VALUES else '.+?'})"
                      for at, part in enumerate(parts))
    return re.compile(pattern, re.S)


def _phrase(value: str, english: dict[str, str], other: dict[str, str]) -> str:
    """A value written as `other`'s phrase of the `english` phrase it is as a whole, else as it is."""
    for key, template in english.items():
        match = _pattern(template).fullmatch(value)
        if match is not None:
            parts = match.groupdict().items()
            return say(other[key], **{name: _phrase(part, english, other) for name, part in parts})
    return value


def _translate(text: str, english: dict[str, str], other: dict[str, str],
               phrases: tuple[dict[str, str], dict[str, str]]) -> str:
    """`text` with each sentence of `english` written as `other`'s of the same key, its values
    written as the `phrases` (English, other) say."""
    for key, template in english.items():
        def replace(match: re.Match[str], key: str = key) -> str:
            values = match.groupdict().items()
            return say(other[key], **{name: _phrase(value, *phrases) for name, value in values})

        text = _pattern(template, within=True).sub(replace, text)
    return text


def phrased(value: str, part: str, language: str | None) -> str:
    """`value` in `language` if it is, as a whole, one of the phrases of the words' `part` (a table of
    templates by key, English as the engine writes it); unchanged otherwise (English included)."""
    if (language or SOURCE_LANGUAGE) == SOURCE_LANGUAGE:
        return value
    return _phrase(value, words(SOURCE_LANGUAGE, part), words(language, part))


def explained(message: str, language: str | None) -> str:
    """`message` with the engine's sentences in `language` (English: unchanged)."""
    if (language or SOURCE_LANGUAGE) == SOURCE_LANGUAGE:
        return message
    english, other = words(SOURCE_LANGUAGE, "explained"), words(language, "explained")
    phrases = (english["phrases"], other["phrases"])
    return _translate(message, english["sentences"], other["sentences"], phrases)
