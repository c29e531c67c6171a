"""The runner of the relocation methods: train a scenario and record what it did.

The methods themselves are data in `methods` (`SCENARIOS`, the article's seven),
the explorer's combinations in `combinations`; chapters import all three jobs'
names from here (`SCENARIOS`, `Scenario`, `initialized`, `run`, `run_all`).
`run` trains a scenario the way the article's `train` function does (Adam,
lr 1e-1, MSE on y = sum of x) and records, per step, the loss and how many
gradients `GradientsParams.from_grads` collected, plus a graph snapshot before
and after each backward pass.

Command line: `python -m bookkit.runs.scenarios [--isolated] [--json] [NAME ...]`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bookkit.explorer.words import WORDS
from bookkit.pictures.graph import Graph, snapshot
from bookkit.pictures.render import Drawing
from bookkit.runs.combinations import COMBINATIONS, Relocation
from bookkit.runs.methods import EXTRA_SCENARIOS, SCENARIOS, TARGET, Layered, Mixed, Scenario, initialized
from bookkit.words import languages, say, words
from mlx_autodiff.device import Device
from mlx_autodiff.errors import AutodiffError
from mlx_autodiff.guard import check_loss
from mlx_autodiff.module import Module
from mlx_autodiff.nn import MseLoss, Reduction
from mlx_autodiff.optim import AdamConfig, GradientsParams, Optimizer
from mlx_autodiff.tensor import Distribution, Tensor

__all__ = [  # the methods' names too: chapters import every job's names from this one module
    "COMBINATIONS", "EXTRA_SCENARIOS", "OUTCOMES", "SCENARIOS", "TARGET", "Layered", "Mixed", "Outcome",
    "RunError", "RunRecord", "Scenario", "Snapshot", "StepRecord", "UnknownScenarioError", "initialized",
    "main", "run", "run_all", "run_isolated", "summary_table",
]


Phase = Literal["before", "after"]


class UnknownScenarioError(AutodiffError, ValueError):
    """A scenario name that is neither one of the article's seven, an extra, nor a combination."""


def _lookup(name: str) -> Scenario:
    known = {**SCENARIOS, **EXTRA_SCENARIOS, **{s.name: s for s in COMBINATIONS.values()}}
    if name not in known:
        raise UnknownScenarioError(f"Unknown scenario {name!r}; valid names: {', '.join(known)}.")
    return known[name]


# ----- records ---------------------------------------------------------------------


@dataclass(frozen=True)
class StepRecord:
    """One completed training step: its loss and `len(GradientsParams)`."""

    step: int
    loss: float
    grads: int


@dataclass(frozen=True)
class RunError:
    """An engine error that stopped a run; `step` is None when it came before step 0."""

    type: str
    message: str
    step: int | None


@dataclass(frozen=True)
class Snapshot:
    """The graph just before (after the forward pass) or just after a step's backward."""

    step: int
    phase: Phase
    graph: Graph


Outcome = Literal[
    "trains", "no-gradients", "silent-then-crash", "crash-at-step-0", "crash-later", "crash-before-training"
]

OUTCOMES: dict[str, str] = {
    "trains": "every step collects gradients, no error",
    "no-gradients": "no error, but some step collected 0 gradients (nothing was trained)",
    "silent-then-crash": "steps with 0 gradients, then an error",
    "crash-at-step-0": "step 0 raises, in its forward or its backward pass",
    "crash-later": "steps with gradients, then an error",
    "crash-before-training": "building or relocating the model raises",
}
"""Every outcome and what it means. The article's seven only reach the first, third and fourth
at 5 steps; the others exist so that any scenario and step count gets an honest name."""


@dataclass
class RunRecord:
    """What one scenario did: the flag before training, the completed steps, the error."""

    name: str
    label: str
    require_grad: bool | None
    steps: list[StepRecord] = field(default_factory=list)
    error: RunError | None = None
    snapshots: list[Snapshot] = field(default_factory=list)
    planned_steps: int = 5  # how many steps the run was asked for

    @property
    def outcome(self) -> Outcome:
        """A one-word verdict; see OUTCOMES."""
        silent = any(s.grads == 0 for s in self.steps)
        if self.error is None:
            return "no-gradients" if silent else "trains"
        if self.error.step is None:
            return "crash-before-training"
        if not self.steps:
            return "crash-at-step-0"
        return "silent-then-crash" if all(s.grads == 0 for s in self.steps) else "crash-later"

    def article_line(self) -> str:
        """The article's output line; the error's type and first line below it, if any."""
        flag = str(self.require_grad).lower()
        line = f"{self.label:<26} require_grad {flag:<5} loss(grads):"
        line += "".join(f" {s.loss:.4f}({s.grads})" for s in self.steps)
        if self.error is not None:
            first = self.error.message.splitlines()[0] if self.error.message else ""
            line += f"\n{self.error.type}: {first}"
        return line

    def to_json(self) -> str:
        """One line of JSON; graphs travel as their title, DOT text and description."""
        return json.dumps(
            {
                "name": self.name,
                "label": self.label,
                "require_grad": self.require_grad,
                "planned_steps": self.planned_steps,
                "steps": [vars(s) for s in self.steps],
                "error": None if self.error is None else vars(self.error),
                "snapshots": [
                    {"step": s.step, "phase": s.phase, "title": s.graph.title, "dot": s.graph.dot,
                     "description": s.graph.description,
                     "translations": {code: vars(d) for code, d in s.graph.translations.items()}}
                    for s in self.snapshots
                ],
            }
        )

    @staticmethod
    def from_json(text: str) -> RunRecord:
        data = json.loads(text)
        return RunRecord(
            name=data["name"],
            label=data["label"],
            require_grad=data["require_grad"],
            planned_steps=data["planned_steps"],
            steps=[StepRecord(**s) for s in data["steps"]],
            error=None if data["error"] is None else RunError(**data["error"]),
            snapshots=[
                Snapshot(s["step"], s["phase"], Graph(s["title"], s["dot"], s["description"], translations={
                    code: Drawing(**d) for code, d in s.get("translations", {}).items()}))
                for s in data["snapshots"]
            ],
        )


# ----- running ---------------------------------------------------------------------


def run(name_or_scenario: str | Scenario | Mixed | Layered, steps: int = 5, drawn: bool = True) -> RunRecord:
    """Build, relocate and train one scenario (or a `Mixed` or `Layered` model); engine errors end the run
    and are recorded.

    `drawn=False` records no graphs (`snapshots` stays empty): a check or a count that reads only the
    outcome and the steps then runs about forty times faster, since drawing each step's graphs in every
    language is most of a run's time. Only `AutodiffError`s are caught: any other exception is a bug and
    propagates.
    """
    scenario = _lookup(name_or_scenario) if isinstance(name_or_scenario, str) else name_or_scenario
    if steps < 0:
        raise ValueError(f"run(..., steps={steps}): the number of steps must be 0 or more.")
    Device.flex().seed(0)
    Device.metal().seed(0)
    try:
        model = scenario.build()
    except AutodiffError as err:
        return RunRecord(
            scenario.name, scenario.label, None, error=_run_error(err, None), planned_steps=steps
        )
    # The flag the article prints: a Linear's weight's, the first parameter's.
    flag = model.params()[0].is_require_grad()
    record = RunRecord(scenario.name, scenario.label, flag, planned_steps=steps)

    TARGET.seed(1)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), TARGET)
    y = x.sum_dim(1)
    optim = AdamConfig().init()
    for k in range(steps):
        try:
            model = _step(scenario, k, model, x, y, optim, record, drawn)
        except AutodiffError as err:
            record.error = _run_error(err, k)
            break
    return record


def _step(
    scenario: Scenario | Mixed | Layered, k: int, model: Module, x: Tensor, y: Tensor, optim: Optimizer,
    record: RunRecord, drawn: bool,
) -> Module:
    """One iteration of the article's loop; appends to `record` only if it completes (graphs if `drawn`)."""
    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
    if drawn:
        before = snapshot(_run_title("before", scenario, k), module=model, tensors={"loss": loss})
        record.snapshots.append(Snapshot(k, "before", before))
    value = loss.into_scalar()
    check_loss(k, value)
    try:
        grads = loss.backward()
    except AutodiffError as err:
        if drawn:
            title = _run_title("after", scenario, k)
            graph = snapshot(title, module=model, tensors={"loss": loss}, error=err)
            record.snapshots.append(Snapshot(k, "after", graph))
        raise
    if drawn:  # before from_grads, which removes the entries it collects
        graph = snapshot(_run_title("after", scenario, k), module=model, tensors={"loss": loss}, grads=grads)
        record.snapshots.append(Snapshot(k, "after", graph))
    params = GradientsParams.from_grads(grads, model)
    model = optim.step(1e-1, model, params)
    record.steps.append(StepRecord(k, value, len(params)))
    return model


def _run_title(phase: str, scenario: Scenario | Mixed | Layered, k: int) -> dict[str, str]:
    """A snapshot's title in every language: "ad-fork: step 1, after backward". A method is named as
    the book names it (the article's names), a `Mixed` or `Layered` model by its methods' names; a
    combination only the explorer runs is named by its choices in each language ("flex（懒参数） ->
    fork"), its own name being a key (`flex-lazy-fork`)."""
    named = scenario.name in SCENARIOS or scenario.name in EXTRA_SCENARIOS
    if isinstance(scenario, (Mixed, Layered)) or named:
        names = dict.fromkeys(languages(), scenario.name)
    else:
        written = Relocation.of(scenario.moves).written
        names = {code: WORDS[code].combination_label(scenario.built_on, scenario.read_first, written)
                 for code in languages()}
    return {code: say(words(code, "run_titles")[phase], k=k, name=names[code]) for code in languages()}


def _run_error(err: AutodiffError, step: int | None) -> RunError:
    return RunError(type(err).__name__, str(err), step)


def run_isolated(name: str, steps: int = 5) -> RunRecord:
    """Run one scenario in a fresh Python process, as the article does (one process each).

    Node ids then start at 0, so the failing node has the article's number.
    """
    _lookup(name)
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "bookkit.runs.scenarios", "--json", "--steps", str(steps), name]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"`{' '.join(command[1:])}` exited with status {done.returncode}:\n{done.stderr}")
    return RunRecord.from_json(done.stdout)


def run_all(isolated: bool = False, steps: int = 5) -> list[RunRecord]:
    """Every method of SCENARIOS, in order, in this process or one process each."""
    runner = run_isolated if isolated else run
    return [runner(name, steps) for name in SCENARIOS]


# ----- command line ----------------------------------------------------------------


def summary_table(records: Sequence[RunRecord]) -> str:
    """Method, flag, gradient counts per step, outcome, and where the error came."""
    rows = [("method", "require_grad", "grads per step", "outcome", "error")]
    for r in records:
        grads = " ".join(str(s.grads) for s in r.steps) or "-"
        if r.error is None:
            error = "-"
        else:
            error = f"{r.error.type}@{'setup' if r.error.step is None else f'step {r.error.step}'}"
        rows.append((r.name, str(r.require_grad).lower(), grads, r.outcome, error))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    named = {**SCENARIOS, **EXTRA_SCENARIOS}
    known = {**named, **{s.name: s for s in COMBINATIONS.values()}}
    parser = argparse.ArgumentParser(
        prog="python -m bookkit.runs.scenarios",
        description="Train the article's relocation methods and print what each did.",
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME",
        help=f"methods to run (default: the seven): {', '.join(named)}, or any of the explorer's "
        f"{len(COMBINATIONS)} combinations (bookkit.runs.combinations.COMBINATIONS)",
    )
    parser.add_argument("--isolated", action="store_true", help="run each method in a fresh process")
    parser.add_argument("--json", action="store_true", help="print each record as one line of JSON")
    parser.add_argument("--steps", type=int, default=5, help="training steps (default 5)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in known]
    if args.steps < 0:
        parser.error(f"--steps must be 0 or more, got {args.steps}")
    if unknown:
        parser.error(f"unknown method(s) {', '.join(unknown)}; valid names: {', '.join(known)}")

    names = args.names or list(SCENARIOS)
    runner = run_isolated if args.isolated else run
    records = [runner(name, args.steps) for name in names]
    if args.json:
        for record in records:
            print(record.to_json())
        return 0
    for record in records:
        print(record.article_line())
    print()
    print(summary_table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
