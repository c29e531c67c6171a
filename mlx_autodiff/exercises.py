"""Exercises: fork a chapter into a notebook the reader owns, and grade it offline.

The exercises live only in the chapters (the convention: `workbook/convention.py`);
everything else is derived from them:

    .venv/bin/python -m mlx_autodiff.exercises list          # every exercise in the book
    .venv/bin/python -m mlx_autodiff.exercises fork 04       # -> exercises/04-step-0.ipynb, solutions stubbed
    .venv/bin/python -m mlx_autodiff.exercises check 04      # PASS / FAIL per exercise, in a fresh kernel

The parts live in `mlx_autodiff/workbook/`; this module is their public face.
"""

from __future__ import annotations

import sys

from .workbook import *  # noqa: F403 (this module is the workbook's public face)
from .workbook import __all__ as _workbook_names
from .workbook.cli import main

__all__ = [*_workbook_names, "main"]

if __name__ == "__main__":
    sys.exit(main())
