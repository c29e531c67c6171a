"""The grading process: a reader's answer and the book's checks, in a process of their own.

`python -m bookkit.grader.judge` is started by `bookkit.workbook.grade` (the command
line's `check`, a notebook's check cell, live mode's "Run check") with a job on its stdin: the
chapter's set-up cells, the exercise's checks and the names its answer must define, all read
from the book, never from the reader's copy. It runs the set-up, then the answer, then the
checks, and writes one verdict per answer to a pipe its parent gave it.

The parts: `probes` counts the engine's own calls (how a value was made), `monitor` sees what
an answer changes in the interpreter (tampering, refused with what was found), `checking` is
what the book's check cells use (`expect`, `answer`), `judge` puts them together. Nothing here
imports Jupyter, so the process starts quickly.
"""
