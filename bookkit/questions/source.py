"""A question's choices as a writer writes them: each bullet starts with its key.

    - {key}`bias_move` The bias's `to_device` node, NodeId({case}`step1_fresh.bias_move_id`).

      Feedback: why this choice is right or wrong.

The `{question}` directive (sphinx_ext.py) takes each key off its bullet's first line before MyST
reads the body, so the choice's words, which gettext extracts and a translator translates, never
hold the key: a translation cannot change or drop one, every edition gets the keys of the English
source, and a bullet moved elsewhere takes its key with it. Everything here reads plain text, so
the tests check every question of the book without a build.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KEY = re.compile(r"^(?P<bullet>[-*+][ \t]+)\{key\}`(?P<key>[^`]*)`[ \t]?")
BULLET = re.compile(r"^[-*+](?:[ \t]|$)")
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})")
NAME = re.compile(r"^[A-Za-z0-9][\w-]*$")  # it becomes part of an HTML id and a data attribute
QUESTION = re.compile(r"^```\{question\}[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
OPTION = re.compile(r"^:(?P<name>[\w-]+):[ \t]*(?P<value>.*)$")
WRITE_IT = "start each choice's bullet with its key: - {key}`name` The choice's words"


class QuestionSourceError(ValueError):
    """A question's choices or answer, as written, cannot say which choice is right."""


@dataclass(frozen=True)
class SourceQuestion:
    """One `{question}` block of a page: its options, its choices' keys in order, the body without them."""

    options: dict[str, str]
    keys: list[str]
    body: list[str]

    @property
    def qid(self) -> str:
        return self.options.get("id", "?")


def take_keys(qid: str, lines: Sequence[str]) -> tuple[list[str], list[str]]:
    """The body's lines with each choice's key taken off, and the keys in the bullets' order.

    A choice is a bullet at the start of a line, outside a fenced block; each must carry a key, a name
    no other choice of the question has."""
    body, keys, fence = [], [], ""
    for number, line in enumerate(lines, 1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened["fence"].startswith(fence) and not line[opened.end():].strip():
                fence = ""
        elif opened:
            fence = opened["fence"]
        elif BULLET.match(line):
            found, choice = KEY.match(line), len(keys) + 1
            if not found:
                raise QuestionSourceError(f"question {qid!r}: its choice {choice} (body line {number}: "
                                          f"{line.strip()[:60]!r}) has no key; {WRITE_IT}")
            key = found["key"].strip()
            if not NAME.match(key):
                raise QuestionSourceError(f"question {qid!r}: the key {key!r} of its choice {choice} is not "
                                          "a name (letters, digits, _ and -, a letter or digit first)")
            if key in keys:
                raise QuestionSourceError(f"question {qid!r}: choices {keys.index(key) + 1} and {choice} "
                                          f"both carry the key {key!r}; each choice needs its own")
            keys.append(key)
            line = found["bullet"] + line[found.end():]
        body.append(line)
    return body, keys


def checked_answer(qid: str, kind: str, keys: Sequence[str], value: Any) -> str | list[str]:
    """The right key (for `order`, every key in the right order), checked against the choices' keys."""
    if kind == "order":
        if not isinstance(value, list) or sorted(map(str, value)) != sorted(keys):
            raise QuestionSourceError(f"question {qid!r}: the right order is {value!r}, which is not an "
                                      f"order of the items' keys {list(keys)}")
        return [str(key) for key in value]
    shown = str(value)
    if shown not in keys:
        raise QuestionSourceError(f"question {qid!r}: the answer is {shown!r}, which no choice carries "
                                  f"(its keys: {' '.join(keys)}); the engine or the text changed: fix "
                                  "the choices or the answer")
    return shown


def page_questions(path: Path) -> list[SourceQuestion]:
    """Every `{question}` block of a MyST page, its keys read as the directive reads them."""
    found = []
    for block in QUESTION.finditer(path.read_text(encoding="utf8")):
        lines = block["body"].splitlines()
        options: dict[str, str] = {}
        while lines and (option := OPTION.match(lines[0])):
            options[option["name"]] = option["value"].strip()
            lines.pop(0)
        body, keys = take_keys(options.get("id", "?"), lines)
        found.append(SourceQuestion(options, keys, body))
    return found
