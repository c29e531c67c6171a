"""The benchmark rows of burn-check (bookkit/burn_check/, chapter 12's checker): the command on a 10,000-line
crate, a pasted 500-line file on the page as the browser tests last timed it, and a run on Burn's own
examples and book, whose findings of rules 1-4 would each be a false positive.

The Burn run needs a clone of tracel-ai/burn named by BURN_SOURCE (a checkout or a bare git folder);
without one the row says so. Only counts, the commit and the findings' places are kept.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from bookkit.bench.rows import Row

ROOT = Path(__file__).resolve().parents[2]
CRATE_LINES, CRATE_SECONDS = 10_000, 2.0
"""Issue 44: a 10,000-line crate checked in under 2 s by the command."""
PAGE_SECONDS = 0.1
"""Issue 44: a pasted 500-line file checked in under 100 ms on the page."""
PAGE_TIMING = ROOT / "_build" / "burn-check-timing.json"
"""Written by tests/site/test_burn_check_page.py, which times the page's checks with performance.now()."""
BURN_SOURCE = "BURN_SOURCE"


def crate_row(runs: int = 3) -> Row:
    from bookkit.burn_check.measure import crate_seconds

    seconds, cpu, lines, files = crate_seconds(CRATE_LINES, runs)
    name = (f"burn-check, the command, on a {lines}-line crate ({files} files; median of {runs}, "
            f"starting Python and node included; CPU time {cpu:.2f} s)")
    return Row(name, seconds, CRATE_SECONDS, "2 s", target=1.0)


def page_row() -> Row:
    if not PAGE_TIMING.exists():
        return Row("burn-check on chapter 12's page", None,
                   note="not timed yet: run `make test` (tests/site/test_burn_check_page.py times it)")
    timing = json.loads(PAGE_TIMING.read_text())
    name = (f"burn-check on chapter 12's page in Chromium {timing['chromium']}: a pasted "
            f"{timing['lines']}-line file checked (median of {timing['runs']}, "
            f"max {timing['max_ms']:.1f} ms; browser tests of {timing['measured']})")
    return Row(name, timing["median_ms"] / 1e3, PAGE_SECONDS, "100 ms", target=1.0)


def burn_row() -> Row:
    source = os.environ.get(BURN_SOURCE)
    if not source:
        return Row("burn-check on Burn's examples and book", None,
                   note="not run: set BURN_SOURCE to a clone of tracel-ai/burn")
    from bookkit.burn_check.measure import burn_run

    found = burn_run(Path(source))
    examples, book = found["examples"], found["book"]
    wrong = examples["errors"] + book["errors"]
    name = (f"burn-check on Burn {found['commit']}: {examples['files']} files of examples/ "
            f"({examples['lines']} lines, {found['crates']} crates) and {found['blocks']} Rust blocks of its "
            f"book; findings of rules 1-4 (each one would be a false positive; target 0), with "
            f"{len(examples['infos']) + len(book['infos'])} of rule 5 and {book['unread']} blocks not Rust")
    return Row(name, len(wrong), unit="", note="; ".join(wrong))


def checker_rows(quick: bool = False) -> list[Row]:
    """The three rows, in the table's order."""
    return [crate_row(1 if quick else 3), page_row(), burn_row()]
