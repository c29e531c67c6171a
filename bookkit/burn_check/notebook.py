"""`check(path)`: burn-check in a notebook cell, its report as the command prints it, in every edition.

Chapter 12 calls it on the article's program, and a reader's copy of the chapter (the exercise
notebook) on a file or crate of their own. The book executes the chapter once, so the report is run
in each language and shown as one `Editions` output: the page of each edition keeps its own.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from bookkit.burn_check.command import run
from bookkit.words import languages
from bookkit.words.multilingual import Editions


def check(path: str | os.PathLike[str]) -> Editions:
    """The report of `burn-check PATH` (a .rs file or a crate's folder), shown as the command prints it."""
    shown = os.path.relpath(Path(path))
    reports = {}
    for language in languages():
        result = run(["--language", language, shown])
        text = result.stdout + result.stderr
        reports[language] = f'<pre class="burn-check-report">{html.escape(text.rstrip())}</pre>'
    return Editions(reports)
