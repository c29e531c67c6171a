"""Each relocation method ends as tests/helpers/article.py expects, in one process and in one process each."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from article import ARTICLE, EXPECTED

from bookkit.runs import scenarios
from bookkit.runs.methods import EXTRA_SCENARIOS, SCENARIOS, Layered, Mixed, Scenario, article_methods
from bookkit.runs.scenarios import (
    OUTCOMES,
    TARGET,
    RunError,
    RunRecord,
    StepRecord,
    UnknownScenarioError,
    main,
    run,
    run_all,
)
from mlx_autodiff import Requirement

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def records() -> dict[str, RunRecord]:
    return {r.name: r for r in run_all()}


@pytest.fixture(scope="module")
def isolated_records() -> dict[str, RunRecord]:
    return {r.name: r for r in run_all(isolated=True)}


def check_against_expected(record: RunRecord) -> None:
    expected = EXPECTED[record.name]
    assert record.label == expected.label
    assert record.require_grad is expected.require_grad
    assert [s.grads for s in record.steps] == list(expected.grads)
    assert [s.step for s in record.steps] == list(range(len(expected.grads)))
    if expected.error is None:
        assert record.error is None, record.error
    else:
        assert record.error is not None, "the run should have raised"
        assert (record.error.type, record.error.step) == (expected.error.__name__, expected.error_step)
    assert record.outcome == expected.outcome


def test_every_method_has_its_expected_outcome_in_order() -> None:
    assert list(SCENARIOS) == list(EXPECTED), "add the method's expected outcome to tests/helpers/article.py"
    assert {name: s.label for name, s in SCENARIOS.items()} == {n: e.label for n, e in EXPECTED.items()}
    assert not set(EXTRA_SCENARIOS) & set(SCENARIOS)


def test_the_methods_from_the_article_are_the_seven_its_output_gives() -> None:
    """`from_article` is what the pages call the article's; tests/helpers/article.py says which those are."""
    assert [method.name for method in article_methods()] == list(ARTICLE)
    assert len(ARTICLE) == 7
    assert not any(method.from_article for method in EXTRA_SCENARIOS.values())


@pytest.mark.parametrize("name", list(EXPECTED))
def test_in_process_run_matches_its_expected_outcome(records: dict[str, RunRecord], name: str) -> None:
    check_against_expected(records[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXPECTED))
def test_isolated_run_matches_its_expected_outcome(isolated_records: dict[str, RunRecord], name: str) -> None:
    check_against_expected(isolated_records[name])


@pytest.mark.slow
def test_isolated_tape_consumed_at_the_articles_node(isolated_records: dict[str, RunRecord]) -> None:
    """In a fresh process node ids start at 0, so the bias's to_device output is NodeId(3)."""
    error = isolated_records["ad-to_device"].error
    assert error is not None and "NodeId(3)" in error.message.splitlines()[0]


@pytest.mark.slow
def test_isolated_losses_equal_in_process_ones(
    records: dict[str, RunRecord], isolated_records: dict[str, RunRecord]
) -> None:
    for name in EXPECTED:
        assert [s.loss for s in isolated_records[name].steps] == [s.loss for s in records[name].steps]


def test_training_lowers_the_loss(records: dict[str, RunRecord]) -> None:
    for record in records.values():
        if record.outcome == "trains":
            losses = [s.loss for s in record.steps]
            assert losses == sorted(losses, reverse=True), f"{record.name}: {losses}"
            assert all(math.isfinite(v) and v > 0 for v in losses)


def test_same_run_twice_gives_the_same_numbers() -> None:
    for name in ("direct", "ad-to_device", "ad-fork"):
        first, second = run(name), run(name)
        assert [s.loss for s in first.steps] == [s.loss for s in second.steps]


@pytest.mark.parametrize("name", ["ad-fork", "ad-to_device", "plain-fork"])
def test_a_run_without_its_graphs_has_the_same_steps_and_ending(
    records: dict[str, RunRecord], name: str
) -> None:
    """`drawn=False` (what a check asks for) leaves out only the snapshots: the same losses, gradient
    counts, error (its node ids aside: they count on) and outcome as the drawn run."""
    bare, drawn = run(name, drawn=False), records[name]
    assert bare.snapshots == [] and drawn.snapshots
    assert (bare.steps, bare.outcome) == (drawn.steps, drawn.outcome)
    ended = [(record.error.type, record.error.step) if record.error else None for record in (bare, drawn)]
    assert ended[0] == ended[1]


def test_seeding_is_per_device() -> None:
    """Built on flex then moved, and built on metal: different first losses, same seeds."""
    assert run("ad-fork").steps[0].loss != run("direct").steps[0].loss


def test_snapshots_before_and_after_each_step(records: dict[str, RunRecord]) -> None:
    for name, record in records.items():
        attempted = len(record.steps) + (record.error is not None)
        expected = [(k, phase) for k in range(attempted) for phase in ("before", "after")]
        assert [(s.step, s.phase) for s in record.snapshots] == expected, name
        for s in record.snapshots:
            assert s.graph.title == f"{name}: step {s.step}, {s.phase} backward"
            assert s.graph.dot.startswith("digraph")


def test_snapshot_of_a_failed_backward_names_the_error(records: dict[str, RunRecord]) -> None:
    for name in ("ad-to_device", "plain-to_device"):
        record = records[name]
        assert record.error is not None
        last = record.snapshots[-1]
        assert (last.step, last.phase) == (record.error.step, "after")
        assert record.error.type in last.graph.dot


def test_snapshots_are_taken_at_the_time(records: dict[str, RunRecord]) -> None:
    """Before backward nothing is consumed; after it the graph says so (the DOT is frozen)."""
    before, after = records["direct"].snapshots[:2]
    assert "consumed" not in before.graph.dot
    assert "consumed" in after.graph.dot


def test_json_round_trip(records: dict[str, RunRecord]) -> None:
    for record in records.values():
        again = RunRecord.from_json(record.to_json())
        for attr in ("name", "label", "require_grad", "steps", "error", "planned_steps"):
            assert getattr(again, attr) == getattr(record, attr)
        assert [(s.step, s.phase, s.graph.title, s.graph.dot) for s in again.snapshots] == [
            (s.step, s.phase, s.graph.title, s.graph.dot) for s in record.snapshots
        ]
        assert again.outcome == record.outcome
        assert "\n" not in record.to_json()


def test_the_extra_scenario_is_one_entry_and_trains() -> None:
    scenario = EXTRA_SCENARIOS["ad-valid-to_device-train"]
    assert scenario.moves == ("valid", "to_device", "train")
    record = run("ad-valid-to_device-train")
    assert record.require_grad is True
    assert [s.grads for s in record.steps] == [2] * 5
    assert record.outcome == "trains"


def test_a_scenario_defined_on_the_spot_runs() -> None:
    """Scenarios are data: any build, read and moves, here train() on an autodiff model."""
    record = run(Scenario("ad-train", "flex.autodiff -> train()", "flex.autodiff", True, ("train",)), steps=2)
    assert record.error is not None
    assert (record.error.type, record.error.step) == ("AlreadyAutodiffError", None)
    assert record.require_grad is None and record.steps == []
    assert record.outcome == "crash-before-training"


def test_a_mixed_model_runs_each_parameter_as_its_own_method_left_it() -> None:
    """One method's weight beside another's bias: each parameter's kind decides its own part. A Grad weight
    gets its gradient at step 0, the bias's to_device step is consumed there, and step 1 stops."""
    mixed = Mixed(SCENARIOS["ad-fork"], SCENARIOS["ad-to_device"])
    model = mixed.build()
    assert [name for name, _ in model.named_params()] == ["weight", "bias"]
    assert model.weight.is_require_grad() and model.bias.val().node.op == "to_device"
    assert {p.val().device for p in model.params()} == {TARGET}
    record = run(mixed)
    assert record.name == "ad-fork.weight + ad-to_device.bias"
    assert [s.grads for s in record.steps] == [1]
    assert record.error is not None and (record.error.type, record.error.step) == ("TapeConsumedError", 1)
    assert record.outcome == "crash-later"
    graph = record.snapshots[0].graph
    assert graph.title.startswith(mixed.name) and graph.translations["zh_CN"].title.startswith(mixed.name)


def test_a_mixed_model_with_a_plain_bias_trains_only_its_weight() -> None:
    record = run(Mixed(SCENARIOS["ad-fork"], SCENARIOS["plain-fork"]))
    assert record.error is None and [s.grads for s in record.steps] == [1] * 5


def test_a_frozen_model_moved_with_to_device_is_untracked_and_crashes_at_step_0() -> None:
    """to_device of an untracked leaf is an op output with requirement None (Requirement.from_parents), not a
    step backward consumes: step 0 has nothing tracked; beside a Grad leaf it only gets no gradient."""
    frozen = Scenario("ad-no_grad-to_device", "no_grad", "flex.autodiff", True, ("no_grad", "to_device"))
    bias = frozen.build().bias.val()
    assert bias.node.op == "to_device" and bias.node.requirement is Requirement.NONE
    assert run(frozen).outcome == "crash-at-step-0"
    record = run(Mixed(SCENARIOS["ad-fork"], frozen))
    assert record.error is None and [s.grads for s in record.steps] == [1] * 5


def test_layered_models_have_other_shapes_and_each_layer_moves_its_own_way() -> None:
    alone = Layered((SCENARIOS["ad-fork"],), bias=False)
    assert alone.name == "[ad-fork](bias=False)"
    assert [name for name, _ in alone.build().named_params()] == ["weight"]
    assert [s.grads for s in run(alone).steps] == [1] * 5
    layers = Layered((SCENARIOS["ad-fork"], SCENARIOS["ad-to_device"]))
    model = layers.build()
    assert [name for name, _ in model.named_params()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert {p.val().device for p in model.params()} == {TARGET}
    record = run(layers)
    assert record.name == "[ad-fork, ad-to_device]" and record.require_grad is True
    assert [s.grads for s in record.steps] == [2]
    assert record.error is not None and (record.error.type, record.error.step) == ("TapeConsumedError", 1)


def test_no_grad_move_crashes_at_step_0() -> None:
    record = run(Scenario("no-grad", "no_grad", "metal.autodiff", True, ("no_grad",)))
    assert record.require_grad is False
    assert record.outcome == "crash-at-step-0"


def test_one_step_of_ad_to_device_looks_fine_but_trains_nothing() -> None:
    """The article's point: a single-step smoke test sees no error, only 0 gradients."""
    record = run("ad-to_device", steps=1)
    assert record.error is None
    assert [s.grads for s in record.steps] == [0]
    assert record.outcome == "no-gradients"


def test_outcome_names_cover_every_case() -> None:
    def rec(grads: list[int], error_step: int | None | str = "none") -> RunRecord:
        steps = [StepRecord(k, 1.0, g) for k, g in enumerate(grads)]
        error = None if error_step == "none" else RunError("E", "m", error_step)  # type: ignore[arg-type]
        return RunRecord("x", "x", True, steps, error)

    cases = {
        "trains": rec([2, 2]),
        "no-gradients": rec([0, 0]),
        "silent-then-crash": rec([0], 1),
        "crash-at-step-0": rec([], 0),
        "crash-later": rec([2, 2], 2),
        "crash-before-training": rec([], None),
    }
    assert {name: r.outcome for name, r in cases.items()} == {name: name for name in cases}
    assert set(cases) == set(OUTCOMES)


def test_only_engine_errors_are_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        @staticmethod
        def from_grads(grads, module):  # type: ignore[no-untyped-def]
            raise ZeroDivisionError("a bug, not an engine error")

    monkeypatch.setattr(scenarios, "GradientsParams", Broken)
    with pytest.raises(ZeroDivisionError):
        run("direct")


def test_unknown_names_are_refused() -> None:
    with pytest.raises(UnknownScenarioError, match="valid names: direct, ad-to_device"):
        run("to_gpu")
    with pytest.raises(UnknownScenarioError):
        scenarios.run_isolated("to_gpu")
    with pytest.raises(ValueError, match="steps"):
        run("direct", steps=-1)


def test_article_line_has_the_articles_format() -> None:
    """Lines copied from the article's output, rebuilt from the numbers it printed."""
    direct = RunRecord(
        "direct",
        "built on the GPU",
        True,
        [StepRecord(k, v, 2) for k, v in enumerate([2.0250, 1.6701, 1.3634, 1.1043, 0.8904])],
    )
    assert direct.article_line() == (
        "built on the GPU           require_grad true  loss(grads): "
        "2.0250(2) 1.6701(2) 1.3634(2) 1.1043(2) 0.8904(2)"
    )
    crashed = RunRecord(
        "plain-fork",
        "flex -> fork",
        False,
        [],
        RunError("UntrackedBackwardError", "Tensor::backward requires a tracked autodiff tensor\nmore", 0),
    )
    assert crashed.article_line() == (
        "flex -> fork               require_grad false loss(grads):\n"
        "UntrackedBackwardError: Tensor::backward requires a tracked autodiff tensor"
    )


# ----- command line ----------------------------------------------------------------


def test_cli_prints_every_method_and_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for name, expected in EXPECTED.items():
        line = next(line for line in lines if line.startswith(expected.label + " "))
        assert f"require_grad {str(expected.require_grad).lower()}" in line
        assert [int(c) for c in re.findall(r" [0-9.]+\((\d+)\)", line)] == list(expected.grads)
        row = next(line for line in lines if line.split() and line.split()[0] == name)
        assert expected.outcome in row.split()
        if expected.error is not None:
            assert f"{expected.error.__name__}@step {expected.error_step}" in row
            assert f"{expected.error.__name__}: " in out
    assert "outcome" in out and "silent-then-crash" in out


def test_cli_selects_methods_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ad-fork", "ad-valid-to_device-train"]) == 0
    out = capsys.readouterr().out
    assert "flex.autodiff -> fork " in out and "valid -> to_device.train()" in out
    assert "built on the GPU" not in out


def test_cli_json_prints_records(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "--steps", "2", "ad-to_device", "direct"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["name"] for line in lines] == ["ad-to_device", "direct"]
    assert [s.grads for s in RunRecord.from_json(lines[1]).steps] == [2, 2]


def test_cli_unknown_name_exits_2_listing_valid_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["direct", "to_gpu"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "to_gpu" in err
    assert all(name in err for name in [*SCENARIOS, *EXTRA_SCENARIOS])


@pytest.mark.slow
def test_cli_as_a_module_isolated() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bookkit.runs.scenarios", "--isolated", "ad-to_device", "ad-fork"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    assert "flex.autodiff -> to_device require_grad false loss(grads):" in done.stdout
    assert (
        "TapeConsumedError: Cannot run backward: graph tape has already been consumed at NodeId(3)"
        in done.stdout
    )
    assert "flex.autodiff -> fork      require_grad true " in done.stdout


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_non_finite_loss_stops_the_run_at_its_step(monkeypatch: pytest.MonkeyPatch, value: float) -> None:
    class DivergedLoss(scenarios.MseLoss):
        def forward(self, pred, target, reduction=scenarios.Reduction.MEAN):  # type: ignore[no-untyped-def]
            return super().forward(pred, target, reduction) * value

    monkeypatch.setattr(scenarios, "MseLoss", DivergedLoss)
    record = run("direct")
    assert record.steps == []
    assert record.error is not None
    assert (record.error.type, record.error.step) == ("NonFiniteLossError", 0)
    assert f"step 0: the loss is {value}: training diverged" in record.error.message
