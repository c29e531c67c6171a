"""The parts of `mlx_autodiff.exercises`: a reader's workbook forked from the book's chapters.

`chapters` finds the chapters, `convention` reads their exercises, `fork`
writes a reader's copy, `grade` runs one in a fresh kernel, `cli` is the
command line. (Not a package named `exercises`: the repository git-ignores
every `exercises/` folder, where readers' copies live.)
"""

from __future__ import annotations

from pathlib import Path

from .chapters import ROOT, Chapter, chapters, read_notebook, resolve
from .convention import Exercise, exercises
from .errors import (
    ExerciseError,
    ExerciseFormatError,
    ForkExistsError,
    NoCopyError,
    NoExercisesError,
    NotANotebookError,
    UnknownChapterError,
)
from .fork import ForkResult, default_output, fork, forked_notebook, stub_message
from .grade import DEFAULT_TIMEOUT, Report, Result, check, execute


def book_exercises(root: Path = ROOT) -> list[Exercise]:
    """Every exercise in the chapters of the book's _toc.yml, in the book's order."""
    return [ex for chapter in chapters(root) for ex in exercises(chapter.read(), chapter.name)]


__all__ = [
    "DEFAULT_TIMEOUT",
    "ROOT",
    "Chapter",
    "Exercise",
    "ExerciseError",
    "ExerciseFormatError",
    "ForkExistsError",
    "ForkResult",
    "NoCopyError",
    "NoExercisesError",
    "NotANotebookError",
    "Report",
    "Result",
    "UnknownChapterError",
    "book_exercises",
    "chapters",
    "check",
    "default_output",
    "execute",
    "exercises",
    "fork",
    "forked_notebook",
    "read_notebook",
    "resolve",
    "stub_message",
]
