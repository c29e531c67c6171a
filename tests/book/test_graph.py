"""Graph pictures: what the DOT text says about each outcome, goldens, and rendering.

The article's scenarios are built here, inline, with fixed seeds. Golden files
hold the DOT of one graph per kind of outcome, generated in a fresh process so
node ids start at 0. After an intended change to the pictures, regenerate them:

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/book/test_graph.py -k golden

or print one with `python tests/book/test_graph.py ad-to_device step1`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bookkit.pictures import palette, render
from bookkit.pictures.flowchart import flowchart
from bookkit.pictures.graph import MAX_NODES, Graph, RendererNotFoundError, snapshot
from bookkit.runs.methods import initialized
from mlx_autodiff import (
    AdamConfig,
    AutodiffError,
    Device,
    Distribution,
    GradientsParams,
    LinearConfig,
    Module,
    MseLoss,
    Reduction,
    TapeConsumedError,
    Tensor,
    UntrackedBackwardError,
    accelerator_backend,
)

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
CHAPTERS = [
    "01-initialized.html",
    "02-to_device-or-fork.html",
    "03-not-a-leaf.html",
    "04-step-0.html",
    "05-step-1.html",
    "06-fork.html",
    "07-training-works.html",
]


# ----- the article's scenarios, inline ------------------------------------------------


RELOCATIONS = {
    "direct": lambda flex, metal: LinearConfig(4, 1).init(metal),
    "ad-to_device": lambda flex, metal: initialized(flex.autodiff()).to_device(metal),
    "plain-to_device": lambda flex, metal: initialized(flex).to_device(metal),
    "ad-fork": lambda flex, metal: initialized(flex.autodiff()).fork(metal),
}


@dataclass
class Story:
    """Snapshots of a short training run: "before", then one per step ("step0", ...)."""

    graphs: dict[str, Graph]
    models: list[Module]
    error: AutodiffError | None = None


def story(name: str, steps: int = 2) -> Story:
    flex, metal = Device.flex(), Device.metal().autodiff()
    flex.seed(0)
    model = RELOCATIONS[name](flex, metal)
    metal.seed(1)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), metal)
    y = x.sum_dim(1)
    optim = AdamConfig().init()
    told = Story({"before": snapshot(f"{name}: before training", module=model)}, [model])
    for step in range(steps):
        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
        named = {"loss": loss}
        try:
            grads = loss.backward()
        except AutodiffError as error:
            title = f"{name}: step {step} fails"
            told.graphs[f"step{step}"] = snapshot(title, module=model, tensors=named, error=error)
            told.error = error
            return told
        title = f"{name}: step {step} after backward"
        told.graphs[f"step{step}"] = snapshot(title, module=model, tensors=named, grads=grads)
        model = optim.step(1e-1, model, GradientsParams.from_grads(grads, model))
        told.models.append(model)
    return told


# ----- reading DOT ---------------------------------------------------------------------


def statement(dot: str, key: str) -> str:
    """The one statement that declares node `key`."""
    found = [line.strip() for line in dot.splitlines() if line.strip().startswith(f"{key} [")]
    assert len(found) == 1, f"expected one declaration of {key}, found {len(found)}"
    return found[0]


def node_keys(dot: str) -> list[str]:
    return re.findall(r"^\s*(n\d+|plain\d+) \[", dot, re.MULTILINE)


def fold_keys(dot: str) -> list[str]:
    return re.findall(r"^\s*(fold_\w+) \[", dot, re.MULTILINE)


def clusters_of(dot: str, key: str) -> list[str]:
    """The clusters around node `key`, outermost first (["metal", "metal_fc1"])."""
    open_clusters: list[str] = []
    for line in dot.splitlines():
        opened = re.match(r"\s*subgraph cluster_(\w+) \{", line)
        if opened:
            open_clusters.append(opened.group(1))
        elif line.strip() == "}" and open_clusters:
            open_clusters.pop()
        elif line.strip().startswith(f"{key} ["):
            return open_clusters
    raise AssertionError(f"{key} is not declared")


def cluster_of(dot: str, key: str) -> str | None:
    """The innermost cluster around node `key`."""
    return (clusters_of(dot, key) or [None])[-1]


def edges(dot: str) -> list[tuple[str, str, str]]:
    return re.findall(r"^\s*(\w+) -> (\w+)(.*);$", dot, re.MULTILINE)


def param_node(model: Module, name: str):
    node = getattr(model, name).val().node
    assert node is not None
    return node


# ----- what the graphs say ---------------------------------------------------------------


def test_direct_model_is_leaves_and_ops_on_metal_only() -> None:
    told = story("direct", steps=1)
    dot = told.graphs["step0"].dot
    weight = param_node(told.models[0], "weight")
    assert weight.requirement.value == "Grad"
    assert f'fillcolor="{palette.LEAF_FILL}"' in statement(dot, f"n{weight.id}"), "a GRAD leaf is drawn green"
    assert "<b>weight</b>" in statement(dot, f"n{weight.id}")
    assert "cluster_metal" in dot and "cluster_flex" not in dot
    assert "to_device" not in "".join(statement(dot, key) for key in node_keys(dot))
    ops = re.findall(r"label=<<b>(\w+)</b>", dot)
    for op in ("matmul", "add", "sub", "square", "mean"):
        assert op in ops, f"op node {op} missing"


def test_ad_to_device_parameters_are_to_device_outputs_crossing_devices() -> None:
    told = story("ad-to_device", steps=0)
    dot = told.graphs["before"].dot
    for name in ("weight", "bias"):
        moved = param_node(told.models[0], name)
        (original,) = moved.parents
        line = statement(dot, f"n{moved.id}")
        assert "to_device" in line and f'color="{palette.MOVED}"' in line and "bold" in line
        assert f"{name} · NodeId({moved.id})" in line
        assert cluster_of(dot, f"n{moved.id}") == "metal"
        assert cluster_of(dot, f"n{original.id}") == "flex"
        assert (f"n{original.id}", f"n{moved.id}") in [(a, b) for a, b, _ in edges(dot)]
    assert 'label="flex (CPU)"' in dot
    assert re.search(r'label="metal \((GPU|CPU stand-in)\)"', dot)


def test_ad_to_device_step0_consumes_the_moved_nodes_and_grads_land_on_cpu_originals() -> None:
    told = story("ad-to_device", steps=1)
    dot = told.graphs["step0"].dot
    for name in ("weight", "bias"):
        moved = param_node(told.models[0], name)
        (original,) = moved.parents
        moved_line = statement(dot, f"n{moved.id}")
        assert "consumed in backward #" in moved_line and "dashed" in moved_line
        assert "no gradient" in moved_line
        original_line = statement(dot, f"n{original.id}")
        assert "&#8711; on flex" in original_line and "peripheries" in original_line
        assert "no parameter holds it" in original_line
        assert "gradient: [" in original_line, "the landed gradient's values are in the tooltip"
        assert "consumed" not in original_line.split("tooltip=")[0], "a leaf is never drawn as consumed"


def test_ad_to_device_step1_marks_the_failed_node() -> None:
    told = story("ad-to_device", steps=2)
    assert isinstance(told.error, TapeConsumedError)
    failed = told.error.node
    assert failed is param_node(told.models[-1], "bias")
    dot = told.graphs["step1"].dot
    line = statement(dot, f"n{failed.id}")
    assert "backward failed here" in line and f'color="{palette.FAILED}"' in line and 'penwidth="3.5"' in line
    note = statement(dot, "error")
    assert "graph tape has already" in note and "consumed at" in note and f"NodeId({failed.id})" in note
    assert ("error", f"n{failed.id}") in [(a, b) for a, b, _ in edges(dot)]


def test_plain_to_device_notes_the_untracked_error_on_the_loss() -> None:
    told = story("plain-to_device", steps=1)
    assert isinstance(told.error, UntrackedBackwardError)
    dot = told.graphs["step0"].dot
    note = statement(dot, "error")
    assert "UntrackedBackwardError" in note and "requires a tracked autodiff tensor" in note
    (loss_key,) = [key for key in node_keys(dot) if "loss" in statement(dot, key).split("tooltip=")[0]]
    assert ("error", loss_key) in [(a, b) for a, b, _ in edges(dot)]
    plain = [key for key in node_keys(dot) if key.startswith("plain")]
    assert len(plain) == 2, "the plain weight and bias are drawn, with no node"
    assert all("plain tensor" in statement(dot, key) and "dashed" in statement(dot, key) for key in plain)


def test_ad_fork_parameters_are_fresh_leaves_and_get_gradients() -> None:
    told = story("ad-fork", steps=1)
    dot = told.graphs["step0"].dot
    assert "cluster_flex" not in dot, "fork cuts the CPU originals out of the graph"
    for name in ("weight", "bias"):
        line = statement(dot, f"n{param_node(told.models[0], name).id}")
        assert f'fillcolor="{palette.LEAF_FILL}"' in line and "&#8711; on metal" in line
        assert "no gradient" not in line


def test_untracked_autodiff_tensor_is_grey_dashed() -> None:
    x = Tensor.random([2, 2], Distribution.default(), Device.flex().autodiff())
    dot = snapshot("x", tensors={"x": x}).dot
    line = statement(dot, f"n{x.node.id}")
    assert f'color="{palette.UNTRACKED}"' in line and "dashed" in line and "<b>x</b>" in line


def test_snapshot_does_not_change_after_backward_and_changes_nothing() -> None:
    flex = Device.flex().autodiff()
    model = initialized(flex).to_device(Device.metal().autodiff())
    lazy = LinearConfig(4, 1).init(flex)
    loss = model.forward(Tensor.ones([2, 4], Device.metal().autodiff())).mean()
    before = snapshot("before", module=model, tensors={"loss": loss})
    assert snapshot("before", module=model, tensors={"loss": loss}).dot == before.dot, "deterministic"
    snapshot("lazy", module=lazy)
    assert not lazy.weight.is_initialized(), "a snapshot must not initialize lazy parameters"
    loss.backward()
    assert "consumed" not in before.dot
    assert "consumed in backward" in snapshot("after", module=model, tensors={"loss": loss}).dot


def test_tooltips_hold_values_device_and_requirement() -> None:
    flex = Device.flex().autodiff()
    w = Tensor.from_data([[0.5, -0.25], [1.0, 2.0], [3.0, 4.0]], flex).require_grad()
    line = statement(snapshot("w", tensors={"w": w}).dot, f"n{w.node.id}")
    tooltip = line.split('tooltip="')[1]
    assert "values: [0.5000, -0.2500, 1.0000, 2.0000, ...]" in tooltip
    assert "device: flex.autodiff" in tooltip and "(Grad)" in tooltip


def test_every_graph_has_a_legend() -> None:
    told = story("ad-to_device", steps=2)
    for graph in told.graphs.values():
        assert "Legend" in statement(graph.dot, "legend")
    assert "node where backward stopped" in told.graphs["step1"].dot
    assert "gradient landed here" in told.graphs["step0"].dot


def test_big_graphs_are_cut_to_max_nodes_with_a_summary() -> None:
    x = Tensor.ones([1], Device.flex().autodiff()).require_grad()
    y = x
    for _ in range(1000):
        y = y.add(1.0)
    dot = snapshot("chain", tensors={"y": y}, max_nodes=50).dot
    assert len(node_keys(dot)) == 50
    assert "951 more nodes" in statement(dot, "more") and "add_scalar x951" in dot
    assert {f"n{y.node.id}", f"n{x.node.id}"} <= set(node_keys(dot)), "the root and the leaf are kept"
    assert (f"n{x.node.id}", "more") in [(a, b) for a, b, _ in edges(dot)]
    assert "<svg" in Graph("chain", dot).svg()


# ----- models with submodules -------------------------------------------------------------


class Mlp(Module):
    """Linear layers `fc1`, `fc2`, ... with a relu after each; the layers' outputs are kept."""

    def __init__(self, *devices: Device) -> None:
        """One layer per device given: 4 -> 8 -> ... -> 8 -> 1."""
        sizes = [4] + [8] * (len(devices) - 1) + [1]
        for index, device in enumerate(devices):
            setattr(self, f"fc{index + 1}", LinearConfig(sizes[index], sizes[index + 1]).init(device))
        self.outputs: list[Tensor] = []

    def layers(self) -> list[Module]:
        return [layer for layer in vars(self).values() if isinstance(layer, Module)]

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers():
            device = layer.weight.device
            x = layer.forward(x if x.device == device else x.to_device(device)).relu()
            self.outputs.append(x)
        return x


def mlp_loss(model: Mlp, device: Device) -> Tensor:
    device.seed(1)
    x = Tensor.random([8, 4], Distribution.uniform(-1.0, 1.0), device)
    return model.forward(x).mean()


def test_submodule_parameters_are_drawn_in_a_cluster_inside_their_device() -> None:
    metal = Device.metal().autodiff()
    model = Mlp(metal, metal)
    loss = mlp_loss(model, metal)
    dot = snapshot("mlp", module=model, tensors={"loss": loss}, grads=loss.backward()).dot
    for layer in ("fc1", "fc2"):
        for name in ("weight", "bias"):
            node = getattr(getattr(model, layer), name).val().node
            key = f"n{node.id}"
            assert clusters_of(dot, key) == ["metal", f"metal_{layer}"], f"{layer}.{name}"
            assert f"<b>{layer}.{name}</b>" in statement(dot, key)
        assert f'label="{layer}"' in dot
    assert clusters_of(dot, f"n{model.outputs[0].node.id}") == ["metal"], "ops stay outside the box"
    assert fold_keys(dot) == [], "a small graph folds nothing"


def test_split_model_has_each_submodule_inside_the_device_it_lives_on() -> None:
    flex, metal = Device.flex().autodiff(), Device.metal().autodiff()
    model = Mlp(flex, metal)
    dot = snapshot("split", module=model, tensors={"loss": mlp_loss(model, flex)}).dot
    assert clusters_of(dot, f"n{model.fc1.weight.val().node.id}") == ["flex", "flex_fc1"]
    assert clusters_of(dot, f"n{model.fc1.bias.val().node.id}") == ["flex", "flex_fc1"]
    assert clusters_of(dot, f"n{model.fc2.weight.val().node.id}") == ["metal", "metal_fc2"]
    moved = [key for key in node_keys(dot) if "to_device (flex to metal)" in statement(dot, key)]
    assert len(moved) == 1 and clusters_of(dot, moved[0]) == ["metal"]


def deep(layers: int) -> tuple[Mlp, Tensor]:
    metal = Device.metal().autodiff()
    model = Mlp(*[metal] * layers)
    return model, mlp_loss(model, metal)


def test_deep_model_folds_each_layer_into_one_box() -> None:
    model, loss = deep(60)
    graph = snapshot("deep", module=model, tensors={"loss": loss})
    dot = graph.dot
    assert fold_keys(dot) == [f"fold_fc{i}" for i in range(1, 61)]
    assert "more [" not in dot, "folding alone brings this graph under the budget"
    assert len(node_keys(dot)) + len(fold_keys(dot)) <= MAX_NODES
    pairs = [(a, b) for a, b, _ in edges(dot)]
    for i, output in enumerate(model.outputs, start=1):
        fold = statement(dot, f"fold_fc{i}")
        assert f"fc{i}: 4 ops, collapsed" in fold and "matmul x1" in fold and "relu x1" in fold
        assert f"NodeId({output.node.id})" in fold, "the layer's output is one of the folded ops"
        assert clusters_of(dot, f"fold_fc{i}") == ["metal"]
        assert (f"n{getattr(model, f'fc{i}').weight.val().node.id}", f"fold_fc{i}") in pairs
        if i > 1:
            assert (f"fold_fc{i - 1}", f"fold_fc{i}") in pairs, "edges between folded layers are kept"
    assert ("fold_fc60", f"n{loss.node.id}") in pairs, "the named loss is never folded"
    assert "a submodule's ops, collapsed" in statement(dot, "legend")
    assert "fc60: 4 ops, collapsed" in graph.svg()


def test_a_graph_still_too_big_after_folding_is_cut_with_a_summary() -> None:
    model, loss = deep(60)
    dot = snapshot("deep", module=model, tensors={"loss": loss}, max_nodes=150).dot
    pinned = 2 * 60 + 1  # the parameters and the loss
    kept = [f"fold_fc{i}" for i in range(60 - (150 - pinned) + 1, 61)]
    assert fold_keys(dot) == kept, "the folds nearest the loss are kept"
    hidden = 60 - len(kept)
    assert f"{4 * hidden} more nodes" in statement(dot, "more") and f"matmul x{hidden}" in dot
    assert ("more", kept[0]) in [(a, b) for a, b, _ in edges(dot)]


# ----- goldens: one per kind of outcome, in a fresh process -----------------------------

GOLDENS = {
    "ad-fork-step0": ("ad-fork", "step0"),  # trains
    "ad-to_device-step0": ("ad-to_device", "step0"),  # silent (0 gradients) ...
    "ad-to_device-step1": ("ad-to_device", "step1"),  # ... then crash
    "plain-to_device-step0": ("plain-to_device", "step0"),  # crash at step 0
}


# Each colour of the palette replaced by its own name before any picture module reads it: a
# golden then says which meaning each colour shows (`color="MOVED"`), not its value, so changing a
# colour is one line of palette.py, while drawing a node in another meaning's colour still fails.
BY_MEANING = """import runpy, sys
from bookkit.pictures import palette
for name in [name for name in vars(palette) if name.isupper()]:
    setattr(palette, name, name)
sys.argv = sys.argv[1:]  # as if the file were run: its arguments follow it
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def fresh_dot(scenario: str, phase: str) -> str:
    """One graph's DOT from a fresh process (node ids from 0), its colours named by meaning."""
    done = subprocess.run(
        [sys.executable, "-c", BY_MEANING, str(Path(__file__).resolve()), scenario, phase],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def portable(dot: str) -> str:
    """The metal cluster's words depend on the machine; on a GPU the last digits may too."""
    dot = re.sub(r'label="metal \([^)]*\)"', 'label="metal (...)"', dot)
    dot = re.sub(r'tooltip="metal: [^"]*"', 'tooltip="metal: ..."', dot)
    dot = re.sub(r'id="g[0-9a-f]{10}-', 'id="g<hash of the drawing>-', dot)  # the words above are hashed in
    if accelerator_backend() is not None:
        dot = re.sub(r"-?\d+\.\d{4}", "#.####", dot)
    return dot


@pytest.mark.slow
@pytest.mark.parametrize("golden", sorted(GOLDENS))
def test_golden_dot(golden: str) -> None:
    dot = fresh_dot(*GOLDENS[golden])
    path = GOLDEN / f"{golden}.dot"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(dot)
    assert path.exists(), f"{path.name} is missing: run with UPDATE_GOLDEN=1 to create it"
    assert portable(dot) == portable(path.read_text()), (
        f"{golden}: the DOT changed. If the change is intended, run UPDATE_GOLDEN=1 pytest -k golden "
        "and review the diff of tests/book/golden/."
    )


@pytest.mark.slow
def test_dot_is_the_same_in_two_fresh_processes() -> None:
    assert fresh_dot("ad-to_device", "step1") == fresh_dot("ad-to_device", "step1")


# ----- rendering ----------------------------------------------------------------------


def test_svg_renders_inline_with_ids_and_tooltips() -> None:
    told = story("ad-to_device", steps=1)
    graph = told.graphs["step0"]
    svg = graph.svg()
    bias = param_node(told.models[0], "bias")
    assert "<svg" in svg and f"NodeId({bias.id})" in svg and f"NodeId({bias.parents[0].id})" in svg
    assert "xlink:title=" in svg, "tooltips survive rendering"
    assert graph.svg() is svg, "the SVG is cached"
    page = graph._repr_html_()
    assert page.lstrip().startswith("<svg") and "<img" not in page
    assert 'style="max-width:100%;height:auto"' in page and "<?xml" not in page
    assert not hasattr(graph, "_repr_svg_") and not hasattr(graph, "_repr_mimebundle_")


def test_flowchart_links_every_chapter() -> None:
    chart = flowchart()
    for page in CHAPTERS:
        assert f'URL="{page}"' in chart.dot
    assert chart.dot.count('target="_top"') == len(CHAPTERS)
    assert chart.dot.count("tooltip=") >= len(CHAPTERS)
    svg = chart.svg()
    assert "<a" in svg and 'xlink:href="03-not-a-leaf.html"' in svg
    assert 'URL="../book/06-fork.html"' in flowchart(link_prefix="../book/").dot


def test_missing_renderer_is_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render.shutil, "which", lambda *args, **kwargs: None)
    with pytest.raises(RendererNotFoundError, match="pip install graphviz-pure"):
        Graph("g", "digraph { a }").svg()
    assert issubclass(RendererNotFoundError, AutodiffError)


if __name__ == "__main__":
    # Print one graph's DOT: python tests/book/test_graph.py ad-to_device step1
    print(story(sys.argv[1]).graphs[sys.argv[2]].dot, end="")
