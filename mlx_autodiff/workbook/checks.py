"""A check cell's messages in another edition's language.

gettext sees no code, so the messages a check cell's `assert` and `raise` give a reader
are translated in `mlx_autodiff/words/checks/<language>.json`: for each exercise's label,
each English message (as written in the chapter, its whitespace collapsed) and the
Python literal that replaces it, with the same `{fields}` when it is an f-string. Only
those literals change, so a translated check checks exactly what the English one does;
tests/test_exercises.py requires a translation of every message of every check.
"""

from __future__ import annotations

import ast
import functools
import json

from ..words import FOLDER

CHECKS = FOLDER / "checks"


@functools.cache
def check_messages(language: str) -> dict[str, dict[str, str]]:
    """Each exercise's message translations in `language` (none for English or an untranslated one)."""
    path = CHECKS / f"{language}.json"
    return json.loads(path.read_text(encoding="utf8")) if path.is_file() else {}


def messages(source: str) -> list[tuple[int, int, str]]:
    """The message literals in a check cell's `source`: (start, end, text) of each string or f-string
    an `assert` gives as its message or a `raise` gives its exception, in order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    lines = source.splitlines(keepends=True)

    def offset(line: int, column: int) -> int:  # ast counts columns in UTF-8 bytes
        return starts[line - 1] + len(lines[line - 1].encode("utf8")[:column].decode("utf8"))

    found: dict[int, tuple[int, int, str]] = {}
    for node in ast.walk(tree):
        given = [node.msg] if isinstance(node, ast.Assert) and node.msg is not None else []
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            given = list(node.exc.args)
        for part in given:
            for literal in _literals(part):
                start = offset(literal.lineno, literal.col_offset)
                end = offset(literal.end_lineno, literal.end_col_offset)
                found[start] = (start, end, source[start:end])
    return [found[start] for start in sorted(found)]


def _literals(node: ast.AST) -> list[ast.AST]:
    """The outermost string literals in an expression (an f-string's own parts are not separate)."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return [node]
    return [literal for child in ast.iter_child_nodes(node) for literal in _literals(child)]


def key(text: str) -> str:
    """How a message is looked up: as written, its whitespace collapsed."""
    return " ".join(text.split())


def translated_check(source: str, label: str, language: str) -> str:
    """`source` with each message that has a translation in `language` replaced by it."""
    table = check_messages(language).get(label, {})
    if not table:
        return source
    for start, end, text in reversed(messages(source)):
        if key(text) in table:
            source = source[:start] + table[key(text)] + source[end:]
    return source
