"""How fast is the engine, next to MLX doing the same work? `python -m mlx_autodiff.bench`.

Every timing is a median over repeated runs in this one process, and each
workload runs side by side with its reference, interleaved round by round, so
a busy machine slows both alike. A training step is what the book's loop does:
forward, `into_scalar()` on the loss, backward, `GradientsParams.from_grads`,
an Adam step, and an `mx.eval` of the new parameters, so that no lazy work is
left for the next step to pay for. The reference is MLX's own `mlx.nn`,
`nn.value_and_grad` and `optimizers.Adam` (with Burn's epsilon), on the same
MLX device and starting from the same weights.

Flags: `--markdown` prints a markdown table (for the README and the book's
appendix), `--json PATH` also writes the results to a file, `--book` adds the
book build timings (slow: it removes `_build` and builds twice), `--quick`
runs fewer repeats (for tests) and leaves out the live-cell rows, which
`tools/live_bench.py` measures in a browser against `make live`'s servers. Three
rows read the last book build instead of measuring: its largest chapter page,
the relocation explorer's page before a choice, and the stepper's frame change
in Chromium as the browser tests last timed it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as mnn
import mlx.optimizers as moptim

from . import explorer
from .device import Device, accelerator_backend
from .editions import Editions
from .explained import phrased
from .graph import Graph, snapshot
from .module import Module
from .nn import Linear, LinearConfig, MseLoss, Reduction
from .node import Node
from .optim import AdamConfig, GradientsParams
from .table import Table
from .tensor import Distribution, Tensor
from .words import spoken

ROOT = Path(__file__).resolve().parents[1]
EPSILON = AdamConfig().epsilon  # Burn's Adam epsilon, given to every reference too
Step = Callable[[], None]


@dataclass
class Row:
    """One line of the table; times in seconds, memory in bytes, `None` where there is nothing."""

    name: str
    engine: float | None
    reference: float | None = None
    reference_name: str = ""
    unit: str = "s"
    target: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.engine is None or not self.reference:
            return None
        return self.engine / self.reference

    @property
    def met(self) -> bool | None:
        ratio = self.ratio
        return None if self.target is None or ratio is None else ratio <= self.target


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
    Workload("Train step: Linear(4->1), batch 32, MSE, Adam", linear_data, 1e-1, 1.5, 3000),
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


# ----- the built book: page sizes and the stepper in Chromium (read from the last build) -------

PAGE_LIMIT_BYTES = 1.5e6
"""Issue 13: a chapter page stays under 1.5 MB of HTML."""
FRAME_SECONDS = 1 / 60
"""Issue 13: a stepper frame change fits in one frame at 60 Hz."""
STEPPER_TIMING = ROOT / "_build" / "stepper-timing.json"
"""Written by tests/test_stepper_browser.py, which times frame changes with performance.now()."""
EXPLORER_PAGE = ROOT / "_build" / "html" / "en" / "book" / "08a-explorer.html"
EXPLORER_LIMIT_BYTES = 1e6
"""Issue 13: the relocation explorer's page stays under 1 MB before a choice is made."""
CLEAN_BUILD_SECONDS, REBUILD_SECONDS = 120.0, 20.0
"""Issue 15: a clean build of both editions (English, then Chinese from the same execution) takes at
most 120 s on 2 cores, an unchanged rebuild of both at most 20 s (issue 13's 90 s was English alone)."""


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
                    note="not timed yet: run `make test` (tests/test_stepper_browser.py times it)")
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
    """Live cells in the browser (tools/live_bench.py, in its own process: it drives Chromium)."""
    command = [sys.executable, "-m", "tools.live_bench"] + (["--quick"] if quick else [])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [Row("Live cells", None, note=f"failed (exit {done.returncode}: {last})")]
    return [Row(**row) for row in json.loads(done.stdout)]


def book_rows() -> list[Row]:
    """A clean book build (after removing _build), then an unchanged rebuild."""
    rows = []
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    builds = (("Book build, en + zh_CN: clean (one run)", CLEAN_BUILD_SECONDS),
              ("Book build, en + zh_CN: unchanged rebuild (one run)", REBUILD_SECONDS))
    for name, limit in builds:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "tools.build_book", "en", "zh_CN"], cwd=ROOT,
                              capture_output=True)
        note = "" if done.returncode == 0 else f"failed (exit {done.returncode})"
        rows.append(Row(name, time.perf_counter() - start, limit, f"{limit:g} s", target=1.0, note=note))
    return rows


# ----- the table ---------------------------------------------------------------------


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


def _amount(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit == "s":
        return f"{value * 1e3:.3f} ms" if value < 1 else f"{value:.2f} s"
    if unit == "B":
        return f"{value / 2**20:.1f} MiB" if value >= 2**20 else f"{value / 2**10:.1f} KiB"
    return f"{value:,.0f}"


def _cells(row: Row, language: str | None = None) -> list[str]:
    """A row's cells; in another language than English, its words as the part "bench" says."""
    ratio = "" if row.ratio is None else f"{row.ratio:.2f}x"
    target = "" if row.target is None else f"<= {row.target:g}x"
    verdict = {True: "met", False: "missed", None: ""}[row.met]
    verdict = phrased(verdict, "bench", language) if verdict else ""
    said = phrased(row.reference_name, "bench", language)
    reference = f"{_amount(row.reference, row.unit)} ({said})" if row.reference_name else ""
    engine = _amount(row.engine, row.unit) or phrased(row.note, "bench", language)
    verdicts = " ".join(filter(None, [target, verdict]))
    return [phrased(row.name, "bench", language), engine, reference, ratio, verdicts]


HEADER = ["Measurement (median unless said)", "mlx_autodiff", "Reference", "Ratio", "Target"]


def _about(info: dict[str, str]) -> str:
    return ", ".join(f"{key}: {value}" for key, value in info.items())


def render(rows: list[Row], info: dict[str, str], markdown: bool) -> str:
    table = [HEADER] + [_cells(row) for row in rows]
    about = _about(info)
    if markdown:
        lines = [f"Machine: {about}", "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(cells) + " |" for cells in table[1:]]
        return "\n".join(lines)
    widths = [max(len(cells[i]) for cells in table) for i in range(len(HEADER))]
    lines = [f"Machine: {about}", ""]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()
              for cells in table]
    return "\n".join(lines)


def table(rows: list[Row], info: dict[str, str]) -> Editions:
    """The results as the book's appendix shows them (an HTML table, captioned with the machine), in
    every edition's words."""

    def make() -> Table:
        language = spoken()
        header = [phrased(cell, "bench", language) for cell in HEADER]
        about = ", ".join(f"{phrased(key, 'bench', language)}: {phrased(value, 'bench', language)}"
                          for key, value in info.items())
        return Table(header, [_cells(row, language) for row in rows],
                     caption=phrased(f"Machine: {about}", "bench", language))

    return Table.in_every_language(make)


def run(quick: bool = False, book: bool = False) -> tuple[list[Row], dict[str, str]]:
    """Every measurement, in table order."""
    scale = 0.05 if quick else 1.0
    rows: list[Row] = []
    for workload in WORKLOADS:
        rows += training_rows(workload, scale)
    rows += training_rows(WORKLOADS[0], scale, loss_first=True)
    rows += memory_rows(100, 1_000 if quick else 10_000)
    rows += graph_rows(3 if quick else 10)
    rows += built_book_rows()  # before book_rows, which removes _build
    if not quick:
        rows += live_rows()
    if book:
        rows += book_rows()
    return rows, machine()


def save(path: Path, rows: list[Row], info: dict[str, str]) -> None:
    """Write the results as JSON: the book's benchmark appendix renders this file."""
    results = [asdict(row) | {"ratio": row.ratio, "met": row.met} for row in rows]
    path.write_text(json.dumps({"machine": info, "rows": results}, indent=2) + "\n")


def load(path: Path) -> tuple[list[Row], dict[str, str]]:
    """Read results written by `save` (derived fields are recomputed, not trusted)."""
    data = json.loads(path.read_text())
    names = Row.__dataclass_fields__
    rows = [Row(**{key: value for key, value in row.items() if key in names}) for row in data["rows"]]
    return rows, data["machine"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mlx_autodiff.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--book", action="store_true", help="also time the book build (slow; removes _build)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for a smoke test")
    args = parser.parse_args(argv)
    rows, info = run(quick=args.quick, book=args.book)
    print(render(rows, info, args.markdown))
    if args.json:
        save(Path(args.json), rows, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
