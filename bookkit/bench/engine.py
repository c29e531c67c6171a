"""The engine's microbenchmarks, each next to MLX doing the same work: training steps, memory, graphs.

Every timing is a median over repeated runs in this one process, and each
workload runs side by side with its reference, interleaved round by round, so
a busy machine slows both alike. A training step is what the book's loop does:
forward, `into_scalar()` on the loss, backward, `GradientsParams.from_grads`,
an Adam step, and an `mx.eval` of the new parameters, so that no lazy work is
left for the next step to pay for. The reference is MLX's own `mlx.nn`,
`nn.value_and_grad` and `optimizers.Adam` (with Burn's epsilon), on the same
MLX device and starting from the same weights.
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as mnn
import mlx.optimizers as moptim

from bookkit.bench.rows import Row
from bookkit.pictures.graph import Graph, snapshot
from mlx_autodiff.device import Device
from mlx_autodiff.module import Module
from mlx_autodiff.nn import Linear, LinearConfig, MseLoss, Reduction
from mlx_autodiff.node import Node
from mlx_autodiff.optim import AdamConfig, GradientsParams
from mlx_autodiff.tensor import Distribution, Tensor

EPSILON = AdamConfig().epsilon  # Burn's Adam epsilon, given to every reference too
Step = Callable[[], None]


# ----- the workloads -------------------------------------------------------------------


class Mlp(Module):
    """Three Linear layers with ReLU between them, as plain as the book's Linear."""

    def __init__(self, sizes: tuple[int, int, int, int], device: Device) -> None:
        self.layer0 = LinearConfig(sizes[0], sizes[1]).init(device)
        self.layer1 = LinearConfig(sizes[1], sizes[2]).init(device)
        self.layer2 = LinearConfig(sizes[2], sizes[3]).init(device)

    def forward(self, x: Tensor) -> Tensor:
        x = self.layer0.forward(x).relu()
        x = self.layer1.forward(x).relu()
        return self.layer2.forward(x)

    def linears(self) -> list[Linear]:
        return [self.layer0, self.layer1, self.layer2]


@dataclass
class Workload:
    """A model and its data, built once per side so both sides start equal."""

    name: str
    make: Callable[[Device], tuple[Module, Tensor, Tensor]]
    lr: float
    target: float
    repeats: int


def linear_data(device: Device) -> tuple[Module, Tensor, Tensor]:
    """The article's workload: Linear(4 -> 1), 32 samples, the target is the row sum."""
    device.seed(1)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), device)
    return LinearConfig(4, 1).init(device), x, x.sum_dim(1)


def mlp_data(device: Device) -> tuple[Module, Tensor, Tensor]:
    device.seed(2)
    x = Tensor.random([256, 64], Distribution.uniform(-1.0, 1.0), device)
    y = Tensor.random([256, 10], Distribution.uniform(-1.0, 1.0), device)
    return Mlp((64, 256, 256, 10), device), x, y


WORKLOADS = [
    Workload("Train step: Linear(4->1), batch 32, MSE, Adam", linear_data, 1e-1, 1.0, 3000),
    Workload("Train step: MLP 64-256-256-10 ReLU, batch 256, MSE, Adam", mlp_data, 1e-3, 1.2, 60),
]


def engine_step(model: Module, x: Tensor, y: Tensor, lr: float, loss_first: bool = False) -> Step:
    """One training step per call (the model is carried between calls).

    By default the loss and the new parameters are evaluated together at the
    end, one sync per step, as the MLX reference does. `loss_first` reads the
    loss with `into_scalar()` before backward, as the book's loop does: a second
    sync per step, which costs the same whatever the engine.
    """
    state = {"model": model}
    optim = AdamConfig().init()
    mse = MseLoss()

    def step() -> None:
        model = state["model"]
        loss = mse.forward(model.forward(x), y, Reduction.MEAN)
        if loss_first:
            loss.into_scalar()
        grads = GradientsParams.from_grads(loss.backward(), model)
        model = optim.step(lr, model, grads)
        mx.eval(loss.array, [param.val().array for param in model.params()])
        loss.into_scalar()
        state["model"] = model

    return step


def _linears(model: Module) -> list[Linear]:
    return model.linears() if isinstance(model, Mlp) else [model]  # type: ignore[list-item]


def mlx_step(model: Module, x: Tensor, y: Tensor, lr: float) -> Step:
    """The same model, data and update, written with MLX's own nn, value_and_grad and Adam."""
    layers: list[mnn.Module] = []
    for i, linear in enumerate(_linears(model)):
        d_in, d_out = linear.weight.shape
        layer = mnn.Linear(d_in, d_out)
        layer.weight = mx.array(linear.weight.val().array.T)  # MLX keeps weights as [out, in]
        layer.bias = mx.array(linear.bias.val().array)  # type: ignore[union-attr]
        layers += [layer] if i == 0 else [mnn.ReLU(), layer]
    net = mnn.Sequential(*layers)
    optimizer = moptim.Adam(learning_rate=lr, eps=EPSILON, bias_correction=True)
    xs, ys = x.array, y.array

    def loss_fn(net: mnn.Module) -> mx.array:
        return mnn.losses.mse_loss(net(xs), ys)

    value_and_grad = mnn.value_and_grad(net, loss_fn)

    def step() -> None:
        loss, grads = value_and_grad(net)
        optimizer.update(net, grads)
        mx.eval(loss, net.parameters(), optimizer.state)

    return step


def torch_step(model: Module, x: Tensor, y: Tensor, lr: float) -> Step | None:
    """The same step in PyTorch on the CPU, if PyTorch is installed (it is never a dependency)."""
    try:
        import torch
    except ImportError:
        return None
    layers: list[torch.nn.Module] = []
    for i, linear in enumerate(_linears(model)):
        d_in, d_out = linear.weight.shape
        layer = torch.nn.Linear(d_in, d_out)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(linear.weight.val().array.T.tolist()))
            layer.bias.copy_(torch.tensor(linear.bias.val().array.tolist()))  # type: ignore[union-attr]
        layers += [layer] if i == 0 else [torch.nn.ReLU(), layer]
    net = torch.nn.Sequential(*layers)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, eps=EPSILON)
    xs, ys = torch.tensor(x.array.tolist()), torch.tensor(y.array.tolist())

    def step() -> None:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(net(xs), ys)
        loss.item()
        loss.backward()
        optimizer.step()

    return step


def side_by_side(steps: list[Step], repeats: int, rounds: int = 10) -> list[float]:
    """Median seconds per call of each step, run in interleaved rounds after a warm-up."""
    for step in steps:
        for _ in range(max(5, repeats // 20)):
            step()
    times: list[list[float]] = [[] for _ in steps]
    per_round = max(1, repeats // rounds)
    for _ in range(rounds):
        for step, samples in zip(steps, times, strict=True):
            for _ in range(per_round):
                start = time.perf_counter()
                step()
                samples.append(time.perf_counter() - start)
    return [statistics.median(samples) for samples in times]


def training_rows(workload: Workload, scale: float, loss_first: bool = False) -> list[Row]:
    device = Device.metal().autodiff()
    repeats = max(10, int(workload.repeats * scale))
    model, x, y = workload.make(device)
    engine = engine_step(model, x, y, workload.lr, loss_first)
    reference = mlx_step(model, x, y, workload.lr)
    torch = torch_step(model, x, y, workload.lr)
    steps = [engine, reference] + ([torch] if torch else [])
    medians = side_by_side(steps, repeats)
    if loss_first:
        name, target = f"{workload.name}, loss read before backward (book's loop)", None
    else:
        name, target = workload.name, workload.target
    rows = [Row(name, medians[0], medians[1], "MLX nn + value_and_grad + Adam", target=target)]
    if torch:
        rows.append(Row(name, medians[0], medians[2], "PyTorch (CPU)"))
    return rows


# ----- memory ------------------------------------------------------------------------


def rss_bytes() -> tuple[int, str]:
    """Resident memory now (Linux), else the peak (macOS has no /proc)."""
    statm = Path("/proc/self/statm")
    if statm.exists():
        return int(statm.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE"), "RSS"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024, "peak RSS"


def live_nodes() -> int:
    """Graph nodes still alive: consumed steps and dead nodes must be freed, not piled up."""
    gc.collect()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, Node))


def memory_rows(short: int, long: int) -> list[Row]:
    """Memory after `short` and after `long` training steps of the article's workload."""
    model, x, y = linear_data(Device.metal().autodiff())
    step = engine_step(model, x, y, 1e-1)
    readings = []
    for goal in (short, long):
        for _ in range(goal - (short if readings else 0)):
            step()
        gc.collect()
        readings.append((mx.get_active_memory(), *rss_bytes(), live_nodes()))
    (active0, rss0, rss_kind, nodes0), (active1, rss1, _, nodes1) = readings
    what = f"Linear(4->1) training, after {short:,} vs {long:,} steps"
    return [
        Row(f"MLX active memory: {what}", active1, active0, f"after {short:,} steps", "B", 1.1),
        Row(f"Process {rss_kind}: {what}", rss1, rss0, f"after {short:,} steps", "B", 1.1),
        Row(f"Live graph nodes: {what}", nodes1, nodes0, f"after {short:,} steps", "", 1.0),
    ]


# ----- graphs and the book -----------------------------------------------------------


def timed(fn: Callable[[], object], repeats: int) -> float:
    """Median seconds of `fn` over `repeats` calls."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def scenario_graph_inputs() -> dict[str, object]:
    """The article's ad-to_device case after step 0: the graph the book draws most."""
    flex, metal = Device.flex().autodiff(), Device.metal().autodiff()
    model, x, y = linear_data(flex)
    model.weight.val()
    model.bias.val()  # type: ignore[union-attr]
    model = model.to_device(metal)
    x, y = x.to_device(metal), y.to_device(metal)
    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
    grads = loss.backward()
    return {"module": model, "tensors": {"loss": loss}, "grads": grads}


def chain_graph_inputs(length: int) -> dict[str, object]:
    """A chain of `length` nodes, one GRAD leaf and `length - 1` ops, all of them drawn."""
    out = Tensor.ones([1], Device.flex().autodiff()).require_grad()
    for _ in range(length - 1):
        out = out.mul(1.0)
    return {"tensors": {"out": out}, "max_nodes": length}


def graph_rows(repeats: int) -> list[Row]:
    """Time a snapshot (the DOT text), and a snapshot rendered to SVG (no cached SVG reused)."""
    rows = []
    for name, kwargs in (
        ("ad-to_device after step 0", scenario_graph_inputs()),
        ("1,000-node chain", chain_graph_inputs(1000)),
    ):

        def draw(name: str = name, kwargs: dict[str, object] = kwargs) -> Graph:
            return snapshot(name, **kwargs)  # type: ignore[arg-type]

        rows.append(Row(f"Graph DOT (snapshot): {name}", timed(draw, repeats)))
        svg = timed(lambda draw=draw: draw().svg(), max(3, repeats // 3))
        rows.append(Row(f"Graph SVG (snapshot + render): {name}", svg))
    return rows
