"""The book's exercise convention, read from a chapter's cells.

In a chapter's MyST source an exercise is a `{exercise}` directive with a
`:label:`, its revealed solution sits between `{solution-start} <label>` and
`{solution-end}`, and code cells tagged `solution` or `check` belong to the
most recent label seen above them. A forked copy has no directives left, so
there the label travels in each stub's and check's cell metadata instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import nbformat

from bookkit.words import say, words
from bookkit.workbook.errors import ExerciseFormatError

SOLUTION, CHECK = "solution", "check"
LABEL_KEY = "exercise"
"""Cell metadata key that names a cell's exercise in a forked copy."""
FORK_KEY = "exercise_fork"
"""Notebook metadata key of a forked copy: its chapter, source, language and exercises."""

_OPENING = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*?)\s*$")
_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<arg>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*?)\s*$")
OURS = ("exercise", "exercise-start", "solution", "solution-start", "solution-end")


@dataclass(frozen=True)
class Directive:
    """One of OURS at the top level of a markdown cell, with its place in the text."""

    name: str
    arg: str
    options: dict[str, str]
    body: str
    start: int
    end: int


def directives(text: str) -> list[Directive]:
    """The exercise directives in markdown `text`, skipping over every other fenced block."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found: list[Directive] = []
    i = 0
    while i < len(lines):
        opening = _OPENING.match(lines[i].rstrip("\n"))
        if not opening:
            i += 1
            continue
        fence = opening["fence"]
        close = next((j for j in range(i + 1, len(lines)) if _is_closing(lines[j], fence)), len(lines) - 1)
        directive = _DIRECTIVE.match(opening["info"].strip())
        if directive and directive["name"] in OURS:
            options, body = _options_and_body(lines[i + 1 : close])
            found.append(
                Directive(
                    directive["name"], directive["arg"].strip(), options, body, offsets[i], offsets[close + 1]
                )
            )
        i = close + 1
    return found


def _is_closing(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _options_and_body(lines: list[str]) -> tuple[dict[str, str], str]:
    """A directive's `:key: value` options (the lines that open it) and the text after them."""
    options: dict[str, str] = {}
    count = 0
    while count < len(lines) and (option := _OPTION.match(lines[count].strip())):
        options[option["key"]] = option["value"]
        count += 1
    return options, "".join(lines[count:]).strip()


@dataclass
class Exercise:
    """An exercise of a chapter: its label, title, and the indices of its tagged code cells."""

    chapter: str
    label: str
    title: str
    solution_cells: list[int] = field(default_factory=list)
    check_cells: list[int] = field(default_factory=list)
    number: str = ""
    """As the page numbers it ("4.1"; `numbering.py`); "" when not known (a notebook from elsewhere)."""

    def name(self, language: str | None = "en") -> str:
        """How a reader knows it: "Exercise 4.1" ("练习 4.1"), or its label when it has no number."""
        if not self.number:
            return self.label
        return say(words(language, "exercises")["exercise"], number=self.number)

    @property
    def graded(self) -> bool:
        """Whether a check cell can tell a right solution from a wrong one."""
        return bool(self.check_cells)


def tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def exercises(nb: nbformat.NotebookNode, chapter: str) -> list[Exercise]:
    """Every exercise in a notebook (a chapter or a forked copy), in order of appearance."""
    found: dict[str, Exercise] = {}
    for entry in nb.metadata.get(FORK_KEY, {}).get("exercises", []):
        label = entry["label"]
        found[label] = Exercise(chapter, label, entry["title"], number=entry.get("number", ""))
    current: str | None = None
    declared: set[str] = set()  # labels an {exercise} directive gave (a chapter may list them above too)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for directive in directives(cell.source):
                current = _label_of(directive, current, found, chapter, declared)
            continue
        kinds = [tag for tag in (SOLUTION, CHECK) if tag in tags(cell)]
        if cell.cell_type != "code" or not kinds:
            continue
        label = cell.metadata.get(LABEL_KEY, current)
        if label is None:
            raise ExerciseFormatError(
                f"{chapter}: code cell {index} is tagged '{kinds[0]}' but no exercise label comes "
                "before it; put it after an {exercise} directive that has a :label:."
            )
        exercise = found.setdefault(label, Exercise(chapter, label, ""))
        (exercise.solution_cells if SOLUTION in kinds else exercise.check_cells).append(index)
    return list(found.values())


def _label_of(
    directive: Directive, current: str | None, found: dict[str, Exercise], chapter: str, declared: set[str]
) -> str | None:
    """The label that cells after `directive` belong to; registers new exercises in `found` (one the
    notebook's metadata listed already, with its number, stays as listed)."""
    if directive.name in ("exercise", "exercise-start"):
        label = directive.options.get("label")
        if label is None:
            return None  # an unlabelled exercise can own no cells
        if label in declared:
            raise ExerciseFormatError(
                f"{chapter}: two exercises have the label '{label}'; labels must be unique."
            )
        declared.add(label)
        found.setdefault(label, Exercise(chapter, label, directive.arg))
        return label
    if directive.name in ("solution", "solution-start"):
        if not directive.arg:
            raise ExerciseFormatError(
                f"{chapter}: a {{{directive.name}}} directive names no exercise; write "
                f"{{{directive.name}}} <label> with the exercise's :label:."
            )
        found.setdefault(directive.arg, Exercise(chapter, directive.arg, ""))
        return directive.arg
    return current
