"""`make bench` runs, prints its table, and writes the JSON the book's appendix renders."""

from __future__ import annotations

from pathlib import Path

from mlx_autodiff.bench import load, main


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


def test_the_committed_results_the_appendix_renders_still_load():
    rows, machine = load(Path(__file__).resolve().parents[1] / "book" / "_data" / "bench.json")
    assert rows and "measured" in machine
