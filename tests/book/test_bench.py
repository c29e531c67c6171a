"""`make bench` runs, prints its table, and writes the JSON the book's appendix renders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bookkit.bench import load, main
from bookkit.bench.rows import Row


def test_a_quick_run_prints_the_table_and_its_json_loads_back(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["--quick", "--markdown", "--json", str(path)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Machine: ") and "| Measurement (median unless said) |" in printed

    rows, machine = load(path)
    names = [row.name for row in rows]
    assert any(name.startswith("Train step: Linear(4->1)") for name in names)
    assert any(name.startswith("Train step: MLP 64-256-256-10") for name in names)
    assert any(name.startswith("Process RSS") for name in names)
    assert {"platform", "mlx", "measured"} <= set(machine)
    training = [row for row in rows if row.name.startswith("Train step") and row.target is not None]
    assert training
    assert all(row.engine > 0 and row.reference > 0 and row.ratio is not None for row in training)


def test_make_bench_s_command_runs_the_package():
    """`make bench` runs `python -m bookkit.bench`: a package needs its own __main__.py for that (issue 43's
    move made the module a package, and `make bench` stopped with "cannot be directly executed")."""
    done = subprocess.run([sys.executable, "-m", "bookkit.bench", "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m bookkit.bench")


def test_the_committed_results_the_appendix_renders_still_load():
    rows, machine = load(Path(__file__).resolve().parents[2] / "book" / "_data" / "bench.json")
    assert rows and "measured" in machine


def test_the_test_rows_note_what_pytest_counted_without_its_time():
    from bookkit.bench.book import pytest_counted

    quiet = "....\n=========== 1792 passed, 3 skipped, 2 warnings in 948.04s (0:15:48) ============\n"
    assert pytest_counted(quiet) == "1792 passed, 3 skipped, 2 warnings"
    assert pytest_counted("..\n540 passed, 1251 deselected in 34.92s\n") == "540 passed, 1251 deselected"
    assert pytest_counted("FAILED tests/x.py::y\n1 failed, 9 passed in 2.00s\n") == "1 failed, 9 passed"
    assert pytest_counted("") == "no output"


def test_with_the_tests_timed_the_built_book_rows_come_from_make_tests_build(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`make bench-tests` removes _build (the clean build) before `make test` builds it again and times
    the stepper: the rows read off the built book are read after it, not from the build it removed."""
    from bookkit import bench

    tests_ran: list[bool] = []

    def built_book_rows() -> list[Row]:
        return [Row(f"built book, {'after' if tests_ran else 'before'} the tests", None)]

    def test_rows() -> list[Row]:
        tests_ran.append(True)
        return [Row("make test", None)]

    not_tested_here = ("training_rows", "memory_rows", "graph_rows", "book_rows", "checker_rows")
    for timed in not_tested_here:
        monkeypatch.setattr(bench, timed, lambda *args, **kwargs: [])
    monkeypatch.setattr(bench, "built_book_rows", built_book_rows)
    monkeypatch.setattr(bench, "test_rows", test_rows)
    names = [row.name for row in bench.run(quick=True, book=True, tests=True)[0]]
    assert names == ["built book, after the tests", "make test"]


def test_live_cells_are_measured_after_every_build_the_run_makes(monkeypatch: pytest.MonkeyPatch) -> None:
    """`bookkit/bench/live.py` serves the built book, and `--book` removes `_build` before building it
    again: measured before that build, a checkout without a built book got "n/a" for every live row."""
    from bookkit import bench

    built: list[str] = []
    not_tested_here = ("training_rows", "memory_rows", "graph_rows", "built_book_rows", "checker_rows")
    for timed in not_tested_here:
        monkeypatch.setattr(bench, timed, lambda *args, **kwargs: [])
    monkeypatch.setattr(bench, "book_rows", lambda: built.append("book") or [Row("book build", None)])
    monkeypatch.setattr(bench, "test_rows", lambda: built.append("tests") or [Row("make test", None)])
    monkeypatch.setattr(bench, "live_rows", lambda: [Row(f"live cells, after {' and '.join(built)}", None)])
    names = [row.name for row in bench.run(book=True, tests=True)[0]]
    assert names == ["live cells, after book and tests", "book build", "make test"]
