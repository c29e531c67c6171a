"""The parts of `bookkit.exercises`: a reader's workbook forked from the book's chapters.

`chapters` finds the chapters, `convention` reads their exercises, `numbering`
numbers them as the pages do ("Exercise 4.1"), `fork` writes a reader's copy
(`markdown` makes its text plain, `names` finds what each stub must define),
`answers` reads a copy's answers by exercise label, `grade` grades them with the
book's checks in a grading process (`bookkit.grader`), `checks` says a
check's messages in the reader's language, `server` is live mode's "Run check"
on a Jupyter server, `cli` is the command line. (Not a package named
`exercises`: the repository git-ignores every `exercises/` folder, where readers'
copies live.)
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bookkit.workbook.answers import answers_in
from bookkit.workbook.chapters import ROOT, Chapter, chapter_of_copy, chapters, read_notebook, resolve
from bookkit.workbook.convention import Exercise, exercises
from bookkit.workbook.errors import (
    ExerciseError,
    ExerciseFormatError,
    ForkExistsError,
    NoCopyError,
    NoExercisesError,
    NotANotebookError,
    SolutionsOfACopyError,
    UnknownChapterError,
    UnknownNotebookError,
)
from bookkit.workbook.fork import (
    GRADER,
    ForkResult,
    check_command,
    default_output,
    fork,
    forked_notebook,
    stub_message,
)
from bookkit.workbook.grade import (
    DEFAULT_TIMEOUT,
    Report,
    Result,
    check,
    check_saved,
    grade_answers,
    judge_answers,
    result_of,
)
from bookkit.workbook.markdown import Site, page_url
from bookkit.workbook.numbering import chapter_numbers, exercise_numbers, numbered


def book_exercises(root: Path = ROOT) -> list[Exercise]:
    """Every exercise in the chapters of the book's _toc.yml, in the book's order, numbered as the pages
    number them ("Exercise 4.1")."""
    found = {chapter.name: exercises(chapter.read(), chapter.name) for chapter in chapters(root)}
    numbers = exercise_numbers({name: [ex.label for ex in listed] for name, listed in found.items()}, root)
    return [replace(ex, number=numbers[ex.label]) for listed in found.values() for ex in listed]


__all__ = [
    "DEFAULT_TIMEOUT",
    "GRADER",
    "ROOT",
    "Site",
    "Chapter",
    "Exercise",
    "ExerciseError",
    "ExerciseFormatError",
    "ForkExistsError",
    "ForkResult",
    "NoCopyError",
    "SolutionsOfACopyError",
    "NoExercisesError",
    "NotANotebookError",
    "Report",
    "Result",
    "UnknownChapterError",
    "UnknownNotebookError",
    "answers_in",
    "book_exercises",
    "chapter_of_copy",
    "chapters",
    "check",
    "check_saved",
    "chapter_numbers",
    "check_command",
    "default_output",
    "exercise_numbers",
    "exercises",
    "fork",
    "forked_notebook",
    "grade_answers",
    "judge_answers",
    "numbered",
    "page_url",
    "read_notebook",
    "resolve",
    "result_of",
    "stub_message",
]
