"""A reader's answers, read from their copy by exercise label.

In a copy `get` wrote, each exercise's answer cell is the stub, a code cell tagged `solution`
whose metadata names the exercise (`"exercise": label`): the label, not the cell's place, says
whose it is, so a copy whose cells moved, or a notebook another tool filled in by label, grades
alike. Code cells the reader added right under it (cells whose id is not one `get` gave, up to the
next cell of the book or of another exercise) belong to the answer too; a stub left as it was
above them is not. A notebook with no labelled cells (a chapter, or the page's own notebook) is
read by the book's convention instead: each exercise's solution cells.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import replace
from typing import Any

import nbformat

from bookkit.workbook.chapters import Chapter
from bookkit.workbook.convention import LABEL_KEY, SOLUTION, Exercise, exercises
from bookkit.workbook.fork import stub_cell
from bookkit.workbook.numbering import numbered

BOOK_CELL_ID = re.compile(r"cell-\d+")
"""The ids `get` gives every cell it writes; JupyterLab gives a cell the reader adds another."""


def source(cell: Any) -> str:
    """A cell's code, from a notebook however it was written (a list of lines, or no source at all)."""
    text = cell.get("source", "") if isinstance(cell, dict) else ""
    return "".join(text) if isinstance(text, list) else str(text or "")


def _labelled(cell: Any) -> str | None:
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    label = metadata.get(LABEL_KEY) if isinstance(metadata, dict) else None
    return label if isinstance(label, str) else None


def _tags(cell: Any) -> list[str]:
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    found = metadata.get("tags", []) if isinstance(metadata, dict) else []
    return [tag for tag in found if isinstance(tag, str)] if isinstance(found, list) else []


def answers_in(nb: nbformat.NotebookNode, chapter: Chapter) -> dict[str, str]:
    """{label: the answer's code} for every exercise whose answer cell the notebook has."""
    cells = [cell for cell in nb.get("cells", []) if isinstance(cell, dict)]
    if not any(_labelled(cell) for cell in cells):
        found = exercises(nbformat.from_dict({**nb, "cells": cells}), chapter.name)
        return {ex.label: "\n".join(source(cells[index]) for index in ex.solution_cells)
                for ex in found if ex.solution_cells}
    stubs = {ex.label: stubs_of(chapter, ex) for ex in numbered(chapter)}
    parts: dict[str, list[str]] = {}
    for index, cell in enumerate(cells):
        label = _labelled(cell)
        if label is None or SOLUTION not in _tags(cell):
            continue
        own = [source(cell)]
        for later in cells[index + 1:]:
            if _labelled(later) or BOOK_CELL_ID.fullmatch(str(later.get("id", ""))):
                break
            if later.get("cell_type") == "code" and not is_blank(source(later)):
                own.append(source(later))
        if len(own) > 1 and own[0].strip() in stubs.get(label, set()):
            own = own[1:]  # the stub left above the answer the reader wrote under it
        parts.setdefault(label, []).extend(own)
    return {label: "\n".join(found) for label, found in parts.items()}


def stubs_of(chapter: Chapter, exercise: Exercise) -> set[str]:
    """The stub of `exercise` as `get` writes it in every language (its code, stripped)."""
    from bookkit.words import languages
    from bookkit.workbook.translation import catalog

    nb = chapter.read()
    number = {ex.label: ex.number for ex in numbered(chapter)}.get(exercise.label, exercise.number)
    found = set()
    for language in languages():
        title = catalog(chapter, language).get(" ".join(exercise.title.split()), exercise.title)
        shown = replace(exercise, number=number, title=title)
        found |= {stub_cell(shown, nb.cells[index], nb, language).source.strip()
                  for index in exercise.solution_cells}
    return found


def is_blank(code: str) -> bool:
    """Whether `code` holds nothing but comments and white space."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return False
    ignored = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
               tokenize.ENDMARKER}
    return all(token.type in ignored for token in tokens) and _parses(code)


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True
