"""The benchmark rows about the book rather than the engine: the last build's pages, the stepper's
frame change as the browser tests last timed it, live cells (bookkit/bench/live.py), the build's time,
and the test tiers' time.

Three rows read the last book build instead of measuring: its largest chapter
page, the relocation explorer's page before a choice, and the stepper's frame
change in Chromium. `book_rows` times a clean build, an unchanged rebuild and a
forced one (it removes `_build` first); `test_rows` times the two test tiers (it
removes `_build` before the whole suite).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bookkit.bench.rows import Row
from bookkit.explorer import explorer

ROOT = Path(__file__).resolve().parents[2]


# ----- the built book: page sizes and the stepper in Chromium (read from the last build) -------

PAGE_LIMIT_BYTES = 1.5e6
"""Issue 13: a chapter page stays under 1.5 MB of HTML."""
FRAME_SECONDS = 1 / 60
"""Issue 13: a stepper frame change fits in one frame at 60 Hz."""
STEPPER_TIMING = ROOT / "_build" / "stepper-timing.json"
"""Written by tests/site/test_stepper_browser.py, which times frame changes with performance.now()."""
EXPLORER_PAGE = ROOT / "_build" / "html" / "en" / "book" / "08a-explorer.html"
EXPLORER_LIMIT_BYTES = 1e6
"""Issue 13: the relocation explorer's page stays under 1 MB before a choice is made."""
FAST_TESTS_SECONDS, ALL_TESTS_SECONDS = 60.0, 600.0
"""Issue 21, both on 2 cores: `make test-fast` takes at most 60 s, and `make test` on a fresh clone (the
book built from nothing) at most 600 s."""
CLEAN_BUILD_SECONDS, REBUILD_SECONDS = 90.0, 20.0
"""Issue 21: a clean build of both editions (English, then Chinese from the same execution) takes at
most 90 s on 2 cores, an unchanged rebuild of both at most 20 s (issue 15 allowed 120 s)."""


def built_book_rows() -> list[Row]:
    """The largest chapter page of the last build, and the stepper's frame change as last timed."""
    pages = sorted((ROOT / "_build" / "html" / "en" / "book").glob("[0-9][0-9]-*.html"))
    if pages:
        largest = max(pages, key=lambda page: page.stat().st_size)
        name = f"Largest chapter page (HTML, of {len(pages)}): {largest.stem}"
        size = Row(name, largest.stat().st_size, PAGE_LIMIT_BYTES, "1.5 MB", "B", 1.0)
    else:
        size = Row("Largest chapter page (HTML)", None, note="no built book: run `make build-book` first")
    if STEPPER_TIMING.exists():
        timing = json.loads(STEPPER_TIMING.read_text())
        name = (f"Stepper frame change in Chromium {timing['chromium']} (median of {timing['frames']}, "
                f"max {timing['max_ms']:.1f} ms; browser tests of {timing['measured']})")
        frame = Row(name, timing["median_ms"] / 1e3, FRAME_SECONDS, "one frame at 60 Hz", target=1.0)
    else:
        frame = Row("Stepper frame change in Chromium", None,
                    note="not timed yet: run `make test` (tests/site/test_stepper_browser.py times it)")
    return [size, frame, explorer_row()]


def explorer_row() -> Row:
    """The explorer's page before a choice: its HTML; the name adds the pictures the page shows first."""
    if not EXPLORER_PAGE.exists():
        return Row("Explorer page (HTML)", None, note="no built book: run `make build-book` first")
    folder = EXPLORER_PAGE.parent / "explorer"
    first = next(found for found in explorer.load(folder) if found.key == explorer.key(explorer.DEFAULT))
    shown = sum((folder / name).stat().st_size for name in (first.graph, first.curve) if name)
    pictures = list(folder.glob("*.svg"))
    every = sum(path.stat().st_size for path in pictures)
    name = (f"Explorer page before a choice (HTML; then {shown / 2**10:.0f} KiB for the first combination's "
            f"two pictures, of {len(pictures)} in {every / 2**20:.1f} MiB)")
    return Row(name, EXPLORER_PAGE.stat().st_size, EXPLORER_LIMIT_BYTES, "1 MB", "B", 1.0)


def live_rows(quick: bool = False) -> list[Row]:
    """Live cells in the browser (bookkit/bench/live.py, in its own process: it drives Chromium)."""
    command = [sys.executable, "-m", "bookkit.bench.live"] + (["--quick"] if quick else [])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [Row("Live cells", None, note=f"failed (exit {done.returncode}: {last})")]
    return [Row(**row) for row in json.loads(done.stdout)]


def timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Seconds a command takes, run in the repository, and how it ended (its output kept as text)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace")
    return time.perf_counter() - start, done


def pytest_counted(output: str) -> str:
    """What pytest's last line counted, without its time: "1792 passed, 3 skipped, 2 warnings"."""
    last = (output.strip().splitlines() or ["no output"])[-1]
    return re.sub(r" in [\d.]+s\b.*$", "", last.strip("= "))


def book_rows() -> list[Row]:
    """A clean book build (after removing _build), an unchanged rebuild (which finds nothing to do:
    bookkit/site/stamp.py), and a forced one, which re-reads every page as an edited page's does."""
    rows = []
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    builds = (("Book build, en + zh_CN: clean (one run)", CLEAN_BUILD_SECONDS, []),
              ("Book build, en + zh_CN: unchanged rebuild (one run)", REBUILD_SECONDS, []),
              ("Book build, en + zh_CN: every page read again, nothing executed (`--force`, one run)",
               None, ["--force"]))
    for name, limit, flags in builds:
        seconds, done = timed([sys.executable, "-m", "bookkit.site.build", "en", "zh_CN", *flags])
        note = "" if done.returncode == 0 else f"failed (exit {done.returncode})"
        rows.append(Row(name, seconds, limit, f"{limit:g} s", target=1.0, note=note) if limit else
                    Row(name, seconds, note=note or "no target: what a one-page edit costs"))
    return rows


def test_rows() -> list[Row]:
    """`make test-fast`'s pytest command, then `make test`'s after removing _build, so that the book is
    built from nothing, as on a fresh clone; the set-up (.venv, node_modules, _live) is this checkout's,
    not timed. Each row's note says what pytest counted (a run with every browser test skipped shows)."""
    workers = os.environ.get("TEST_WORKERS", "logical")  # as the Makefile passes it
    suites = (("Tests: `make test-fast` (no book, no browser, nothing executed)", FAST_TESTS_SECONDS,
               ["-m", "not slow"], False),
              ("Tests: `make test`, every test, the book built from nothing", ALL_TESTS_SECONDS,
               ["-n", workers, "--dist", "loadgroup"], True))
    rows = []
    for name, limit, flags, from_nothing in suites:
        if from_nothing:
            shutil.rmtree(ROOT / "_build", ignore_errors=True)
        seconds, done = timed([sys.executable, "-m", "pytest", "-q", *flags])
        counted = pytest_counted(done.stdout)
        note = counted if done.returncode == 0 else f"failed (exit {done.returncode}): {counted}"
        rows.append(Row(name, seconds, limit, f"{limit:g} s", target=1.0, note=note))
    return rows
