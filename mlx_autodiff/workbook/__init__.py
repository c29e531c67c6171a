"""The parts of `mlx_autodiff.exercises`: a reader's workbook forked from the book's chapters.

`chapters` finds the chapters, `convention` reads their exercises, `fork`
writes a reader's copy (`markdown` makes its text plain, `names` finds what
each stub must define), `grade` runs one in a fresh kernel, `inspection`
lets a check read a solution's code, `cli` is the command line. (Not a
package named `exercises`: the repository git-ignores every `exercises/`
folder, where readers' copies live.)
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
from .fork import GRADER, ForkResult, check_command, default_output, fork, forked_notebook, stub_message
from .grade import DEFAULT_TIMEOUT, Report, Result, check, execute
from .inspection import calls, cell_source, counting, reaches
from .markdown import SITE, page_url


def book_exercises(root: Path = ROOT) -> list[Exercise]:
    """Every exercise in the chapters of the book's _toc.yml, in the book's order."""
    return [ex for chapter in chapters(root) for ex in exercises(chapter.read(), chapter.name)]


__all__ = [
    "DEFAULT_TIMEOUT",
    "GRADER",
    "ROOT",
    "SITE",
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
    "calls",
    "cell_source",
    "chapters",
    "check",
    "check_command",
    "counting",
    "default_output",
    "execute",
    "exercises",
    "fork",
    "forked_notebook",
    "page_url",
    "reaches",
    "read_notebook",
    "resolve",
    "stub_message",
]
