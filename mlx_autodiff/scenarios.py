"""The article's seven ways to put a model on the GPU, as data, and a runner for them.

A `Scenario` says where the model is built, whether its parameters are read
before moving (initialized, as after loading a file), and which relocation
methods are applied in order. `run` trains it the way the article's `train`
function does (Adam, lr 1e-1, MSE on y = sum of x) and records, per step, the
loss and how many gradients `GradientsParams.from_grads` collected, plus a graph
snapshot before and after each backward pass.

Command line: `python -m mlx_autodiff.scenarios [--isolated] [--json] [NAME ...]`.
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
from typing import Literal, get_args

from .device import Device
from .errors import AutodiffError
from .graph import Graph, snapshot
from .guard import check_loss
from .module import Module
from .nn import Linear, LinearConfig, MseLoss, Reduction
from .optim import AdamConfig, GradientsParams, Optimizer
from .render import Drawing
from .tensor import Distribution, Tensor
from .words import languages, say, words

Move = Literal["to_device", "fork", "train", "valid", "no_grad"]
BuiltOn = Literal["metal.autodiff", "flex.autodiff", "flex"]
Phase = Literal["before", "after"]

TARGET = Device.metal().autodiff()
"""Where every scenario moves its model and draws its data (the article's `device`)."""

_BUILD_DEVICES: dict[str, Device] = {
    "metal.autodiff": Device.metal().autodiff(),
    "flex.autodiff": Device.flex().autodiff(),
    "flex": Device.flex(),
}


@dataclass(frozen=True)
class Scenario:
    """One way to get a model onto the GPU: build it, maybe read it, then relocate it.

    `explanation` says what the method does to the parameters and how the run
    ends, in Markdown with `code` and links to chapters only; chapter 8 shows it
    above the method's graphs (`tabs.snapshot_tabs`).
    """

    name: str
    label: str
    built_on: BuiltOn
    read_first: bool
    moves: tuple[Move, ...]
    explanation: str = ""

    def build(self) -> Module:
        """The model as the article's `main` hands it to `train`."""
        device = _BUILD_DEVICES[self.built_on]
        model: Module = initialized(device) if self.read_first else LinearConfig(4, 1).init(device)
        for move in self.moves:
            model = _apply(model, move)
        return model


def initialized(device: Device, d_input: int = 4, d_output: int = 1) -> Linear:
    """The article's `initialized(device)`: a Linear built on `device` whose parameters were read once.

    Reading is what loading from a file, printing, or one inference does: the
    lazy parameters are built then, on `device`, so a later move has tensors to
    move (`Linear(4, 1)` as in the article, unless other sizes are given).
    """
    model = LinearConfig(d_input, d_output).init(device)
    for param in model.params():
        param.val()
    return model


def _apply(model: Module, move: Move) -> Module:
    if move == "to_device":
        return model.to_device(TARGET)
    if move == "fork":
        return model.fork(TARGET)
    if move == "train":
        return model.train()
    if move == "valid":
        return model.valid()
    if move == "no_grad":
        return model.no_grad()
    raise ValueError(f"Unknown move {move!r}; use one of to_device, fork, train, valid, no_grad.")


def _scenarios(*entries: Scenario) -> dict[str, Scenario]:
    return {s.name: s for s in entries}


SCENARIOS: dict[str, Scenario] = _scenarios(
    Scenario(
        "direct", "built on the GPU", "metal.autodiff", False, (),
        explanation=(
            "Built directly on `metal.autodiff` and never moved: both parameters are leaves "
            "on the target from the start. Each optimizer step replaces them with fresh "
            "leaves, so each forward pass builds a new graph."
        ),
    ),
    Scenario(
        "ad-to_device", "flex.autodiff -> to_device", "flex.autodiff", True, ("to_device",),
        explanation=(
            "Initialized on `flex.autodiff`, then `to_device`: the parameters are the "
            "outputs of two `to_device` nodes. Step 0's backward consumes their steps and "
            "leaves the gradients on the `flex` leaves; the optimizer gets none and hands "
            "the model back untouched; step 1's backward reaches a consumed node and stops."
        ),
    ),
    Scenario(
        "plain-to_device", "flex -> to_device", "flex", True, ("to_device",),
        explanation=(
            "Initialized on plain `flex`, then `to_device`: the parameters stay plain, so "
            "the whole forward pass is untracked, and backward refuses at step 0."
        ),
    ),
    Scenario(
        "lazy-to_device", "lazy -> to_device", "flex.autodiff", False, ("to_device",),
        explanation=(
            "Built on `flex.autodiff` but never read, then `to_device`: the move only "
            "changed where the parameters will be built, and the first forward pass builds "
            "them as leaves on `metal.autodiff`."
        ),
    ),
    Scenario(
        "ad-fork", "flex.autodiff -> fork", "flex.autodiff", True, ("fork",),
        explanation=(
            "Initialized on `flex.autodiff`, then `fork`: moved, detached, made to require "
            "grad. The parameters are fresh leaves on `metal.autodiff`; the `to_device` "
            "nodes that `fork` passed through are not in the model's graph at all."
        ),
    ),
    Scenario(
        "plain-fork", "flex -> fork", "flex", True, ("fork",),
        explanation=(
            "Initialized on plain `flex`, then `fork`: `fork` only asks for gradients if "
            "the original did, and a plain tensor does not. Same end as plain-to_device."
        ),
    ),
    Scenario(
        "plain-to_device-train", "flex -> to_device.train()", "flex", True, ("to_device", "train"),
        explanation=(
            "Initialized on plain `flex`, moved with `to_device`, then `.train()`: `train` "
            "wraps each plain tensor as an autodiff leaf and asks for gradients, because the "
            "parameter's stored flag still says so after the move "
            "([chapter 10](10-fixes.md) says what the article and Burn's source say about "
            "that flag)."
        ),
    ),
)
"""The methods chapter 8 runs: the article's seven, in the article's order.

A method added here is run, tabulated, plotted and drawn by chapter 8 as it is;
its expected outcome belongs in the table the tests read (tests/article.py).
"""

EXTRA_SCENARIOS: dict[str, Scenario] = _scenarios(
    Scenario(
        "ad-valid-to_device-train",
        "valid -> to_device.train()",
        "flex.autodiff",
        True,
        ("valid", "to_device", "train"),
    ),
)
"""Not in the article: an autodiff model made plain, moved, and made autodiff again."""


# ----- every combination, for the explorer --------------------------------------------


@dataclass(frozen=True)
class Relocation:
    """One answer to "how is it moved": the words a reader picks, and the moves they stand for."""

    choice: str
    moves: tuple[Move, ...]
    written: str
    """The moves as a label writes them, after the arrow: `to_device.train()`; empty when not moved."""


BUILT_ON: tuple[BuiltOn, ...] = get_args(BuiltOn)
"""Where a model can be built, in the order the explorer offers them."""

RELOCATIONS: tuple[Relocation, ...] = (
    Relocation("to_device", ("to_device",), "to_device"),
    Relocation("fork", ("fork",), "fork"),
    Relocation("to_device then train()", ("to_device", "train"), "to_device.train()"),
    Relocation("fork then train()", ("fork", "train"), "fork.train()"),
    Relocation("not moved", (), ""),
)
"""The explorer's ways to move a model; every one ends on `TARGET` unless it is not moved."""


def _combination(built_on: BuiltOn, read_first: bool, relocation: Relocation) -> Scenario:
    """The scenario those three choices make: one of the article's seven, by its name, or a new one."""
    for scenario in SCENARIOS.values():
        chosen = (built_on, read_first, relocation.moves)
        if (scenario.built_on, scenario.read_first, scenario.moves) == chosen:
            return scenario
    read = "read" if read_first else "lazy"
    name = "-".join([built_on, read, *relocation.moves]) if relocation.moves else f"{built_on}-{read}-unmoved"
    origin = built_on if read_first else f"lazy {built_on}"
    label = f"{origin} -> {relocation.written}" if relocation.moves else f"{origin}, not moved"
    return Scenario(name, label, built_on, read_first, relocation.moves)


COMBINATIONS: dict[tuple[BuiltOn, bool, str], Scenario] = {
    (built_on, read_first, relocation.choice): _combination(built_on, read_first, relocation)
    for built_on in BUILT_ON
    for read_first in (True, False)
    for relocation in RELOCATIONS
}
"""Every (built on, read before moving, `Relocation.choice`) the explorer offers, and its scenario.

The article's seven are among them, as themselves (`name in SCENARIOS`)."""


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


def run(name_or_scenario: str | Scenario, steps: int = 5) -> RunRecord:
    """Build, relocate and train one scenario; engine errors end the run and are recorded.

    Only `AutodiffError`s are caught: any other exception is a bug and propagates.
    """
    scenario = name_or_scenario if isinstance(name_or_scenario, Scenario) else _lookup(name_or_scenario)
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
    record = RunRecord(scenario.name, scenario.label, model.weight.is_require_grad(), planned_steps=steps)

    TARGET.seed(1)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), TARGET)
    y = x.sum_dim(1)
    optim = AdamConfig().init()
    for k in range(steps):
        try:
            model = _step(scenario.name, k, model, x, y, optim, record)
        except AutodiffError as err:
            record.error = _run_error(err, k)
            break
    return record


def _step(
    name: str, k: int, model: Module, x: Tensor, y: Tensor, optim: Optimizer, record: RunRecord
) -> Module:
    """One iteration of the article's loop; appends to `record` only if it completes."""
    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
    record.snapshots.append(
        Snapshot(
            k, "before", snapshot(_run_title("before", name, k), module=model, tensors={"loss": loss})
        )
    )
    value = loss.into_scalar()
    check_loss(k, value)
    after = _run_title("after", name, k)
    try:
        grads = loss.backward()
    except AutodiffError as err:
        graph = snapshot(after, module=model, tensors={"loss": loss}, error=err)
        record.snapshots.append(Snapshot(k, "after", graph))
        raise
    # Snapshot before from_grads: it removes the entries it collects.
    graph = snapshot(after, module=model, tensors={"loss": loss}, grads=grads)
    record.snapshots.append(Snapshot(k, "after", graph))
    params = GradientsParams.from_grads(grads, model)
    model = optim.step(1e-1, model, params)
    record.steps.append(StepRecord(k, value, len(params)))
    return model


def _run_title(phase: str, name: str, k: int) -> dict[str, str]:
    """A snapshot's title in every language: "ad-fork: step 1, after backward"."""
    return {code: say(words(code, "run_titles")[phase], name=name, k=k) for code in languages()}


def _run_error(err: AutodiffError, step: int | None) -> RunError:
    return RunError(type(err).__name__, str(err), step)


def run_isolated(name: str, steps: int = 5) -> RunRecord:
    """Run one scenario in a fresh Python process, as the article does (one process each).

    Node ids then start at 0, so the failing node has the article's number.
    """
    _lookup(name)
    package_root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "mlx_autodiff.scenarios", "--json", "--steps", str(steps), name]
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
        prog="python -m mlx_autodiff.scenarios",
        description="Train the article's relocation methods and print what each did.",
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME",
        help=f"methods to run (default: the seven): {', '.join(named)}, or any of the explorer's "
        f"{len(COMBINATIONS)} combinations (mlx_autodiff.scenarios.COMBINATIONS)",
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
