"""Exercises: get a chapter as a notebook the reader owns, and grade it offline.

The exercises live only in the chapters (the convention: `workbook/convention.py`);
everything else is derived from them. With the book's environment active
(`source .venv/bin/activate`; pyproject.toml installs the command):

    mlx-autodiff-exercises list                                 # every exercise, "Exercise 4.1" first
    mlx-autodiff-exercises get 04                               # exercises/04-step-0.ipynb, solutions stubbed
    mlx-autodiff-exercises check exercises/04-step-0.ipynb      # PASS / FAIL per exercise, the book's checks

`get` was called `fork` (still an alias); `python -m bookkit.exercises` is the same command.

The parts live in `bookkit/workbook/`; this module is their public face.
"""

from __future__ import annotations

import sys

from bookkit.workbook import *  # noqa: F403 (this module is the workbook's public face)
from bookkit.workbook import __all__ as _workbook_names
from bookkit.workbook.cli import main

__all__ = [*_workbook_names, "main"]

if __name__ == "__main__":
    sys.exit(main())
