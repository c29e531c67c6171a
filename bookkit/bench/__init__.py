"""How fast is the engine, next to MLX doing the same work? `python -m bookkit.bench`.

`run` gathers every row of the table, in its order: the engine's
microbenchmarks (`bench_engine`: training steps side by side with MLX's own,
memory over many steps, graph drawing), then the book's rows (`bench_book`:
what the last build left, page sizes and the stepper's frame change, read
after `make test` when the test tiers are timed, since it builds the book
again; burn-check's, `bench_checker`; live cells; when asked, the build's time
and the test tiers');
`bench_rows` prints
the table and keeps it as JSON for the book.

Flags: `--markdown` prints a markdown table (for the README and the book's
appendix), `--json PATH` also writes the results to a file, `--book` adds the
book build timings (slow: it removes `_build`, then runs the build three times:
clean, unchanged, `--force`), `--tests` adds the two test tiers' timings (slower:
`_build` is removed before the whole suite, which builds the book from nothing,
as on a fresh clone), `--quick`
runs fewer repeats (for tests) and leaves out the live-cell rows, which
`bookkit/bench/live.py` measures in a browser against `make live`'s servers.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import mlx.core as mx

from bookkit.bench.book import book_rows, built_book_rows, live_rows, test_rows
from bookkit.bench.checker import checker_rows
from bookkit.bench.engine import WORKLOADS, graph_rows, memory_rows, training_rows
from bookkit.bench.rows import Row, load, render, save, table
from mlx_autodiff.device import Device, accelerator_backend

__all__ = ["load", "main", "machine", "run", "table"]  # the book's appendix imports load and table from here


def machine() -> dict[str, str]:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": str(os.cpu_count()),
        "mlx": mx.__version__,
        "backend": accelerator_backend() or "cpu only",
        "metal device": Device.metal().describe(),
        "measured": time.strftime("%Y-%m-%d"),
    }


def run(quick: bool = False, book: bool = False, tests: bool = False) -> tuple[list[Row], dict[str, str]]:
    """Every measurement, in table order."""
    scale = 0.05 if quick else 1.0
    rows: list[Row] = []
    for workload in WORKLOADS:
        rows += training_rows(workload, scale)
    rows += training_rows(WORKLOADS[0], scale, loss_first=True)
    rows += memory_rows(100, 1_000 if quick else 10_000)
    rows += graph_rows(3 if quick else 10)
    # burn-check's rows read the page's timing from _build too: the command, the page, Burn's own code
    built = [] if tests else built_book_rows() + checker_rows(quick)  # before book_rows, which removes _build
    timed_builds = (book_rows() if book else []) + (test_rows() if tests else [])
    if tests:  # make test's build (and its stepper's and checker's timings) is the last one
        built = built_book_rows() + checker_rows(quick)
    live = [] if quick else live_rows()  # after every build above: it serves the built book
    return rows + built + live + timed_builds, machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--book", action="store_true", help="also time the book build (slow; removes _build)")
    parser.add_argument("--tests", action="store_true",
                        help="also time `make test-fast` and `make test` (slowest; removes _build)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for a smoke test")
    args = parser.parse_args(argv)
    rows, info = run(quick=args.quick, book=args.book, tests=args.tests)
    print(render(rows, info, args.markdown))
    if args.json:
        save(Path(args.json), rows, info)
    return 0
