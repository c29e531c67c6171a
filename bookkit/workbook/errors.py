"""Every way to misuse the exercise tool has its own exception type.

Each message says what happened and what to do; the command line prints it as
one line (no traceback) and exits with status 2. Each class also derives from
the closest built-in type so ordinary `except` clauses still work.
"""

from __future__ import annotations


class ExerciseError(Exception):
    """Base class of every error the exercise tool raises on purpose."""


class UnknownChapterError(ExerciseError, LookupError):
    """A chapter name or path that matches no chapter in _toc.yml (or more than one)."""


class NoExercisesError(ExerciseError, LookupError):
    """A chapter, or a notebook, with no exercise in it."""


class NotANotebookError(ExerciseError, ValueError):
    """A file that is not a Jupyter notebook (.ipynb) or cannot be read as one."""


class ForkExistsError(ExerciseError, FileExistsError):
    """`fork` would overwrite a copy the reader has changed."""


class SolutionsOfACopyError(ExerciseError, ValueError):
    """`check FILE --solutions`: a copy has no solutions to grade, only the reader's answers."""


class NoCopyError(ExerciseError, FileNotFoundError):
    """`check` of a chapter whose exercises the reader has not forked yet."""


class UnknownNotebookError(ExerciseError, LookupError):
    """A check cell run in a kernel that does not say which notebook it runs in, with none named."""


class ExerciseFormatError(ExerciseError, ValueError):
    """A chapter breaks the exercise convention (a tagged cell with no exercise label above it, ...)."""
