"""The situations the book's questions ask about, each run with mlx_autodiff: the source of every key.

A question on a page (bookkit/questions/sphinx_ext.py, the `{question}` directive) names one of these
cases and the field of its result that holds the right answer; a value printed in a
question's text (`{case}` role) names a field too. A case returns plain JSON data:
numbers, strings, lists. Node ids come from one counter per process, so each case runs
in a fresh Python process, as the article runs each method, and a NodeId in a question
is the one a fresh program gets.

Command line: `python -m bookkit.runs.question_cases NAME` prints one case's result as JSON
(`--list` names them all); `results()` runs every case, a process each, for the build.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bookkit.runs.methods import EXTRA_SCENARIOS, SCENARIOS, Move, Scenario, initialized
from bookkit.runs.scenarios import run
from mlx_autodiff import (
    AdamConfig,
    AutodiffError,
    Device,
    Distribution,
    GradientsParams,
    Linear,
    LinearConfig,
    Module,
    MseLoss,
    Reduction,
    Tensor,
)
from mlx_autodiff.node import Node
from mlx_autodiff.tape import record_backward

ROOT = Path(__file__).resolve().parents[2]
Result = dict[str, Any]
CASES: dict[str, Callable[[], Result]] = {}


class UnknownCaseError(LookupError):
    """A question names a case or a field this module does not have."""


def case(function: Callable[[], Result]) -> Callable[[], Result]:
    """Register a case under its function's name."""
    CASES[function.__name__] = function
    return function


# ----- helpers ----------------------------------------------------------------------------------


def _devices() -> tuple[Device, Device]:
    flex, metal = Device.flex(), Device.metal().autodiff()
    flex.seed(0)
    metal.seed(0)
    return flex, metal


def _data(metal: Device, d_input: int = 4) -> tuple[Tensor, Tensor]:
    metal.seed(1)
    x = Tensor.random([32, d_input], Distribution.uniform(-1.0, 1.0), metal)
    return x, x.sum_dim(1)


class TwoLayers(Module):
    """Two Linear layers, one after the other: `second(first(x))`."""

    def __init__(self, first: Linear, second: Linear) -> None:
        self.first = first
        self.second = second

    def forward(self, x: Tensor) -> Tensor:
        return self.second.forward(self.first.forward(x))


def _train(model: Any, x: Tensor, y: Tensor, steps: int) -> Result:
    """The article's loop (Adam, lr 0.1, MSE) with each backward traced: the gradients each completed
    step collected, and the error that stopped it, with its step and the node its walk failed at."""
    optim = AdamConfig().init()
    grads: list[int] = []
    for step in range(steps):
        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
        with record_backward() as traces:
            try:
                params = GradientsParams.from_grads(loss.backward(), model)
            except AutodiffError as error:
                failure = traces[-1].failure if traces else None
                return {"grads": grads, "error": type(error).__name__, "error_step": step,
                        "failed_id": None if failure is None else failure.node}
        grads.append(len(params))
        model = optim.step(1e-1, model, params)
    return {"grads": grads, "error": None, "error_step": None, "failed_id": None}


def _node(param: Any) -> Node:
    return param.val().node


def _scenario(moves: tuple[Move, ...], built_on: str = "flex.autodiff", read_first: bool = True) -> Result:
    """A relocation the article does not list, run as chapter 8 runs its seven."""
    label = " -> ".join(moves)
    scenario = Scenario(label, label, built_on, read_first, moves)  # type: ignore[arg-type]
    record = run(scenario, steps=3, drawn=False)
    return {"outcome": record.outcome, "grads": [s.grads for s in record.steps],
            "grads_step0": record.steps[0].grads if record.steps else None,
            "error": None if record.error is None else record.error.type,
            "error_step": None if record.error is None else record.error.step}


# ----- chapter 1: lazy parameters and node ids ------------------------------------------------------


@case
def linear_3_2_counts() -> Result:
    """num_params and the parameter tensors of a lazy Linear(3, 2), and what counting initialized."""
    flex, _ = _devices()
    model = LinearConfig(3, 2).init(flex.autodiff())
    before = [p.is_initialized() for p in model.params()]
    numbers = model.num_params()
    return {"num_params": numbers, "tensors": model.num_param_tensors(),
            "initialized_before": sum(before),
            "initialized_after": sum(p.is_initialized() for p in model.params())}


@case
def bias_read_first() -> Result:
    """A fresh process reads the bias, then the weight: which ids do they take?"""
    flex, _ = _devices()
    model = LinearConfig(4, 1).init(flex.autodiff())
    bias = _node(model.bias).id
    weight = _node(model.weight).id
    return {"bias_id": bias, "weight_id": weight}


@case
def lazy_moved() -> Result:
    """A lazy Linear on flex.autodiff moved with to_device, then read: where and what is the weight?"""
    flex, metal = _devices()
    moved = LinearConfig(4, 1).init(flex.autodiff()).to_device(metal)
    node = _node(moved.weight)
    device = moved.weight.val().device.inner().name
    return {"device": device, "is_leaf": node.is_leaf, "op": node.op,
            "requires_grad": moved.weight.is_require_grad(),
            "kind": f"{'leaf' if node.is_leaf else 'move'}_{device}"}


# ----- chapters 2 and 3: what each move makes of one parameter ----------------------------------------


@case
def one_parameter() -> Result:
    """One read parameter after to_device and after fork: leaf or not, its op, its requirement."""
    flex, metal = _devices()
    model = initialized(flex.autodiff())
    moved, forked = model.to_device(metal), model.fork(metal)
    m, f = _node(moved.weight), _node(forked.weight)
    try:
        moved.weight.val().require_grad()
        refused = "none"
    except AutodiffError as error:
        refused = type(error).__name__
    return {"moved_require_grad": refused, "moved_requires_grad": moved.weight.is_require_grad(),
            "param_id_kept": {(True, True): "both", (True, False): "to_device", (False, True): "fork",
                              (False, False): "neither"}[(moved.weight.id == model.weight.id,
                                                          forked.weight.id == model.weight.id)],
            "moved_is_leaf": m.is_leaf, "moved_op": m.op, "moved_requirement": m.requirement.value,
            "forked_is_leaf": f.is_leaf, "forked_op": f.op, "forked_requirement": f.requirement.value,
            "moved_parents": len(m.parents), "forked_parents": len(f.parents)}


@case
def moved_twice() -> Result:
    """to_device twice: how many to_device nodes stand between the parameter and its CPU leaf?"""
    flex, metal = _devices()
    twice = initialized(flex.autodiff()).to_device(metal).to_device(flex.autodiff())
    node, moves = _node(twice.weight), 0
    while node.parents:
        moves += node.op == "to_device"
        node = node.parents[0]
    return {"moves": moves, "leaf_device": node.device.inner().name}


@case
def fork_after_to_device() -> Result:
    """to_device, then fork: the parameter and the run."""
    flex, metal = _devices()
    model = initialized(flex.autodiff()).to_device(metal).fork(metal)
    node = _node(model.weight)
    return {"is_leaf": node.is_leaf, "requirement": node.requirement.value,
            **_scenario(("to_device", "fork"))}


@case
def fork_twice() -> Result:
    """fork, then fork again."""
    flex, metal = _devices()
    model = initialized(flex.autodiff()).fork(metal).fork(metal)
    node = _node(model.weight)
    return {"is_leaf": node.is_leaf, "requirement": node.requirement.value, **_scenario(("fork", "fork"))}


@case
def to_device_after_fork() -> Result:
    """fork, then to_device to the same device."""
    return _scenario(("fork", "to_device"))


# ----- chapters 4 and 5: step 0 and step 1 -----------------------------------------------------------


def _step0_model() -> tuple[Linear, Linear, Tensor, Tensor]:
    flex, metal = _devices()
    model = initialized(flex.autodiff())
    x, y = _data(metal)
    return model, model.to_device(metal), x, y


@case
def step0() -> Result:
    """ad-to_device's step 0: how many gradients backward keeps, on which device, and how many reach
    the optimizer; whether the optimizer changed the parameters."""
    model, moved, x, y = _step0_model()
    loss = MseLoss().forward(moved.forward(x), y, Reduction.MEAN)
    grads = loss.backward()
    devices = sorted({grads.device_of(i).name for i in grads.node_ids()})
    kept = len(grads)
    on_leaf = grads.array_of(_node(model.weight).id) is not None
    params = GradientsParams.from_grads(grads, moved)
    stepped = AdamConfig().init().step(1e-1, moved, params)
    same = _node(stepped.weight).id == _node(moved.weight).id
    landed = "cpu_leaves" if on_leaf else "elsewhere"  # chapter 4 asks where they went
    return {"landed": landed, "kept": kept, "devices": devices[0] if len(devices) == 1 else ",".join(devices),
            "on_cpu_leaf": on_leaf, "collected": len(params), "same_parameters": same}


@case
def step0_walk() -> Result:
    """The order in which step 0's backward runs the steps of the model's side of the graph."""
    model, moved, x, y = _step0_model()
    loss = MseLoss().forward(moved.forward(x), y, Reduction.MEAN)
    names = {_node(moved.weight).id: "weight_move", _node(moved.bias).id: "bias_move",
             _node(model.weight).id: "weight_leaf", _node(model.bias).id: "bias_leaf"}
    with record_backward() as traces:
        loss.backward()
    trace = traces[0]
    for node_id, node in trace.nodes.items():
        if node.op in ("matmul", "reshape") and node_id not in names:
            names[node_id] = node.op
    popped: list[str] = []  # each named node once, in the order the walk popped it off its stack
    for event in trace.events:
        if event.kind == "popped" and event.node in names and names[event.node] not in popped:
            popped.append(names[event.node])
    return {"order": popped}


@case
def two_layers_walk() -> Result:
    """A two-layer model moved with fork: the order in which step 0's walk reaches its four parameters."""
    flex, metal = _devices()
    forked = _two_layers(flex.autodiff(), read_second=True).fork(metal)
    x, y = _data(metal)
    names = {_node(p).id: name.replace(".", "_") for name, p in forked.named_params()}
    with record_backward() as traces:
        MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()
    order = [names[event.node] for event in traces[0].events
             if event.kind == "popped" and event.node in names]
    return {"order": list(dict.fromkeys(order))}


@case
def step1_fresh() -> Result:
    """The article's program in a fresh process: the ids and the node step 1 fails at."""
    flex, metal = _devices()
    model = initialized(flex.autodiff())
    moved = model.to_device(metal)
    ids = {"weight_leaf": _node(model.weight).id, "bias_leaf": _node(model.bias).id,
           "weight_move": _node(moved.weight).id, "bias_move": _node(moved.bias).id}
    x, y = _data(metal)
    failed = _train(moved, x, y, 2)["failed_id"]
    named = {value: key for key, value in ids.items()}
    return {**{f"{key}_id": value for key, value in ids.items()}, "failed_id": failed,
            "failed": named.get(failed, "other")}


@case
def step1_no_bias() -> Result:
    """The same with a Linear without a bias."""
    flex, metal = _devices()
    model = LinearConfig(4, 1, bias=False).init(flex.autodiff())
    model.weight.val()
    moved = model.to_device(metal)
    x, y = _data(metal)
    failed = _train(moved, x, y, 2)["failed_id"]
    names = {_node(moved.weight).id: "weight_move", _node(model.weight).id: "weight_leaf", None: "none"}
    return {"weight_move_id": _node(moved.weight).id, "failed_id": failed,
            "failed": names.get(failed, "other")}


def _two_layers(device: Device, read_second: bool) -> TwoLayers:
    first = initialized(device, 4, 3)
    second = LinearConfig(3, 1).init(device)
    if read_second:
        for param in second.params():
            param.val()
    return TwoLayers(first, second)


@case
def two_layers_read() -> Result:
    """A two-layer model, both layers read, moved with to_device: step 1's failing node."""
    flex, metal = _devices()
    moved = _two_layers(flex.autodiff(), read_second=True).to_device(metal)
    x, y = _data(metal)
    names = {_node(p).id: name.replace(".", "_") for name, p in moved.named_params()}
    failed = _train(moved, x, y, 2)["failed_id"]
    return {"failed": names.get(failed, "other"), "failed_id": failed}


@case
def two_layers_read_halfway() -> Result:
    """Only the first layer read (say a forward pass of it alone), then to_device, then training."""
    flex, metal = _devices()
    moved = _two_layers(flex.autodiff(), read_second=False).to_device(metal)
    x, y = _data(metal)
    leaves = sorted(name for name, p in moved.named_params() if _node(p).is_leaf)
    names = {_node(p).id: name.replace(".", "_") for name, p in moved.named_params()}
    trained = _train(moved, x, y, steps=3)
    return {"leaves": leaves, "n_leaves": len(leaves), "grads": trained["grads"],
            "grads_step0": trained["grads"][0] if trained["grads"] else None,
            "error": trained["error"], "error_step": trained["error_step"],
            "failed": names.get(trained["failed_id"], "other")}


@case
def accumulate() -> Result:
    """Gradient accumulation: two batches, a backward each, then one optimizer step.
    With to_device, and with fork."""
    flex, metal = _devices()
    out: Result = {}
    for method in ("to_device", "fork"):
        model = initialized(flex.autodiff())
        model = model.to_device(metal) if method == "to_device" else model.fork(metal)
        x, y = _data(metal)
        halves = [(x, y), (x.mul(0.5), y.mul(0.5))]
        failed_at = None
        collected = []
        for at, (xs, ys) in enumerate(halves):
            loss = MseLoss().forward(model.forward(xs), ys, Reduction.MEAN)
            try:
                collected.append(len(GradientsParams.from_grads(loss.backward(), model)))
            except AutodiffError as error:
                failed_at = f"backward_{at + 1}"
                out[f"{method}_error"] = type(error).__name__
                break
        out[f"{method}_failed_at"] = failed_at or "none"
        out[f"{method}_collected"] = collected
    return out


# ----- chapters 6 and 7: fork, training --------------------------------------------------------------


@case
def fork_steps() -> Result:
    """ad-fork for five steps: the gradients per step, and whether the parameters are new leaves each step."""
    flex, metal = _devices()
    model = initialized(flex.autodiff()).fork(metal)
    x, y = _data(metal)
    ids = [_node(model.weight).id]
    optim = AdamConfig().init()
    grads = []
    for _ in range(5):
        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
        params = GradientsParams.from_grads(loss.backward(), model)
        grads.append(len(params))
        model = optim.step(1e-1, model, params)
        ids.append(_node(model.weight).id)
    return {"grads": grads, "steps_with_two": sum(g == 2 for g in grads),
            "parameter_node": "new" if len(set(ids)) == len(ids) else "same",
            "still_leaf": _node(model.weight).is_leaf}


@case
def fork_orphan() -> Result:
    """After fork, does the model's graph reach the to_device node fork passed through?"""
    flex, metal = _devices()
    forked = initialized(flex.autodiff()).fork(metal)
    node = _node(forked.weight)
    return {"parents": len(node.parents), "reaches_cpu": bool(node.parents)}


# ----- part two: the methods, the kinds, the fixes, the checks ---------------------------------------


@case
def methods() -> Result:
    """Every method of chapter 8 (the article's seven and the extra ones): outcome, step-0 gradients,
    the error."""
    out: Result = {}
    for name in [*SCENARIOS, *EXTRA_SCENARIOS]:
        record = run(name, steps=3, drawn=False)
        out[name.replace("-", "_")] = record.outcome
        out[f"{name.replace('-', '_')}_error"] = None if record.error is None else record.error.type
        out[f"{name.replace('-', '_')}_grads0"] = record.steps[0].grads if record.steps else None
    return out


@case
def more_methods() -> Result:
    """Relocations the article does not run."""
    out: Result = {}
    runs: list[tuple[str, tuple[Move, ...], str, bool]] = [
        ("fork_no_grad", ("fork", "no_grad"), "flex.autodiff", True),
        ("to_device_train", ("to_device", "train"), "flex.autodiff", True),
        ("plain_fork_train", ("fork", "train"), "flex", True),
        ("valid_fork", ("valid", "fork"), "flex.autodiff", True),
        ("metal_to_device", ("to_device",), "metal.autodiff", True),
        ("lazy_fork", ("fork",), "flex.autodiff", False),
    ]
    for key, moves, built_on, read_first in runs:
        result = _scenario(moves, built_on, read_first)  # type: ignore[arg-type]
        out[key] = result["outcome"]
        out[f"{key}_error"] = result["error"]
        out[f"{key}_grads0"] = result["grads_step0"]
    return out


@case
def plain_tensor() -> Result:
    """A plain tensor moved with to_device and with fork: tracked? requires grad?"""
    flex, metal = _devices()
    plain = initialized(flex)
    moved, forked = plain.to_device(metal), plain.fork(metal)
    return {"moved_tracked": _node(moved.weight) is not None,
            "forked_tracked": _node(forked.weight) is not None,
            "moved_requires_grad": moved.weight.is_require_grad(),
            "forked_requires_grad": forked.weight.is_require_grad()}


@case
def valid_inference() -> Result:
    """valid() then to_device, then one forward pass: does the output have a node in the graph?"""
    flex, metal = _devices()
    model = initialized(flex.autodiff()).valid().to_device(metal.inner())
    x, _ = _data(metal)
    out = model.forward(x.inner())
    return {"tracked": out.node is not None, "device": out.device.name,
            "param_leaf_count": sum(1 for p in model.params() if p.val().node is not None)}


@case
def cross_device() -> Result:
    """ad-to_device's step 0: on which device does the CPU weight's gradient sit?"""
    model, moved, x, y = _step0_model()
    grads = MseLoss().forward(moved.forward(x), y, Reduction.MEAN).backward()
    original = model.weight.val().grad(grads) is not None
    moved_has = moved.weight.val().grad(grads) is not None
    return {"landed": {(True, False): "original", (False, True): "moved", (True, True): "both"}.get(
                (original, moved_has), "neither"),
            "device": grads.device_of(_node(model.weight).id).name,
            "found_by_original": model.weight.val().grad(grads) is not None,
            "found_by_moved": moved.weight.val().grad(grads) is not None}


@case
def checks() -> Result:
    """The three checks of chapter 12 on ad-to_device, ad-fork and a model with one frozen parameter."""
    from mlx_autodiff.guard import why_not_trainable

    flex, metal = _devices()
    moved = initialized(flex.autodiff()).to_device(metal)
    forked = initialized(flex.autodiff()).fork(metal)
    frozen = initialized(flex.autodiff()).fork(metal)
    frozen.bias = frozen.bias.no_grad()
    x, y = _data(metal)
    return {"moved_flagged": len(why_not_trainable(moved)), "forked_flagged": len(why_not_trainable(forked)),
            "moved_flag_kept": all(p.lazy_is_require_grad() for p in moved.params()),
            "moved_grads0": _train(moved, x, y, 1)["grads"][0],
            "frozen_grads0": _train(frozen, x, y, 1)["grads"][0],
            "frozen_trainable": frozen.num_trainable_param_tensors()}


# ----- running every case -------------------------------------------------------------------------


def field(results: dict[str, Result], reference: str) -> Any:
    """`results["case"]["field"]` for the reference "case.field", with an error that says what exists."""
    name, _, key = reference.partition(".")
    if name not in results:
        raise UnknownCaseError(f"no question case {name!r}; bookkit/runs/question_cases.py has: "
                               f"{', '.join(results)}")
    if not key or key not in results[name]:
        raise UnknownCaseError(f"question case {name!r} has no field {key!r}; it has: "
                               f"{', '.join(results[name])}")
    return results[name][key]


def run_isolated(name: str) -> Result:
    """One case in a fresh Python process (node ids from 0)."""
    if name not in CASES:
        raise UnknownCaseError(f"no question case {name!r}; bookkit/runs/question_cases.py has: "
                               f"{', '.join(CASES)}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "bookkit.runs.question_cases", name]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"`{' '.join(command[1:])}` exited with status {done.returncode}:\n{done.stderr}")
    return json.loads(done.stdout)


def results(workers: int = 4) -> dict[str, Result]:
    """Every case's result, each from its own fresh process."""
    with ThreadPoolExecutor(workers) as pool:
        return dict(zip(CASES, pool.map(run_isolated, CASES), strict=True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit.runs.question_cases",
                                     description="Run one of the questions' cases and print its result "
                                                 "as JSON.")
    parser.add_argument("name", nargs="?", help="the case; --list names them")
    parser.add_argument("--list", action="store_true", help="name every case")
    args = parser.parse_args(argv)
    if args.list or not args.name:
        print("\n".join(CASES))
        return 0
    if args.name not in CASES:
        parser.error(f"no case {args.name!r}; there are: {', '.join(CASES)}")
    print(json.dumps(CASES[args.name](), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
