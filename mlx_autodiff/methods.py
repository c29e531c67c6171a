"""The relocation methods chapter 8 runs, as data: the article's seven ways to put a model on the GPU.

A `Scenario` says where the model is built, whether its parameters are read
before moving (initialized, as after loading a file), and which relocation
methods are applied in order; `build` hands back the model as the article's
`main` gives it to `train`. Running and recording them is `scenarios`; every
combination the explorer offers is `combinations`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .device import Device
from .module import Module
from .nn import Linear, LinearConfig

Move = Literal["to_device", "fork", "train", "valid", "no_grad"]
BuiltOn = Literal["metal.autodiff", "flex.autodiff", "flex"]
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
    above the method's graphs (`tabs.snapshot_tabs`). `from_article` marks the
    article's seven: only those are shown as the article's (the explorer's
    "The article's seven", its answers' "the article's method"); a method added
    by this book leaves it False.
    """

    name: str
    label: str
    built_on: BuiltOn
    read_first: bool
    moves: tuple[Move, ...]
    explanation: str = ""
    from_article: bool = False

    def build(self) -> Module:
        """The model as the article's `main` hands it to `train`."""
        device = _BUILD_DEVICES[self.built_on]
        model: Module = initialized(device) if self.read_first else LinearConfig(4, 1).init(device)
        for move in self.moves:
            model = _apply(model, move)
        return model


@dataclass(frozen=True)
class Mixed:
    """A `Linear` holding one scenario's weight and another's bias, each relocated its own way.

    No relocation method makes one: each moves the whole model one way, so both
    parameters are of the same kind. This book builds it (chapter 13's exercise)
    to show that each parameter's kind decides its own part of the outcome:
    `run` trains it like any scenario. Both parameters end on `TARGET`.
    """

    weight_from: Scenario
    bias_from: Scenario

    @property
    def name(self) -> str:
        """`ad-fork.weight + ad-to_device.bias`: whose weight, whose bias."""
        return f"{self.weight_from.name}.weight + {self.bias_from.name}.bias"

    @property
    def label(self) -> str:
        return self.name

    def build(self) -> Linear:
        """Both scenarios' models, built as `run` builds one; the new Linear keeps their parameters."""
        weight = self.weight_from.build()
        bias = self.bias_from.build()
        assert isinstance(weight, Linear) and isinstance(bias, Linear)
        return Linear(weight.weight, bias.bias)


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
        from_article=True,
    ),
    Scenario(
        "ad-to_device", "flex.autodiff -> to_device", "flex.autodiff", True, ("to_device",),
        explanation=(
            "Initialized on `flex.autodiff`, then `to_device`: the parameters are the "
            "outputs of two `to_device` nodes. Step 0's backward consumes their steps and "
            "leaves the gradients on the `flex` leaves; the optimizer gets none and hands "
            "the model back untouched; step 1's backward reaches a consumed node and stops."
        ),
        from_article=True,
    ),
    Scenario(
        "plain-to_device", "flex -> to_device", "flex", True, ("to_device",),
        explanation=(
            "Initialized on plain `flex`, then `to_device`: the parameters stay plain, so "
            "the whole forward pass is untracked, and backward refuses at step 0."
        ),
        from_article=True,
    ),
    Scenario(
        "lazy-to_device", "lazy -> to_device", "flex.autodiff", False, ("to_device",),
        explanation=(
            "Built on `flex.autodiff` but never read, then `to_device`: the move only "
            "changed where the parameters will be built, and the first forward pass builds "
            "them as leaves on `metal.autodiff`."
        ),
        from_article=True,
    ),
    Scenario(
        "ad-fork", "flex.autodiff -> fork", "flex.autodiff", True, ("fork",),
        explanation=(
            "Initialized on `flex.autodiff`, then `fork`: moved, detached, made to require "
            "grad. The parameters are fresh leaves on `metal.autodiff`; the `to_device` "
            "nodes that `fork` passed through are not in the model's graph at all."
        ),
        from_article=True,
    ),
    Scenario(
        "plain-fork", "flex -> fork", "flex", True, ("fork",),
        explanation=(
            "Initialized on plain `flex`, then `fork`: `fork` only asks for gradients if "
            "the original did, and a plain tensor does not. Same end as plain-to_device."
        ),
        from_article=True,
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
        from_article=True,
    ),
)
"""The methods chapter 8 runs: the article's seven (`from_article`), in the article's order.

A method added here is run, tabulated, plotted and drawn by chapter 8 as it is,
and the explorer offers it among its combinations, under its name; it is the
article's only if it says `from_article=True`. Its expected outcome belongs in
the table the tests read (tests/article.py).
"""


def article_methods() -> list[Scenario]:
    """The article's seven, in the article's order: the methods of `SCENARIOS` that are `from_article`."""
    return [scenario for scenario in SCENARIOS.values() if scenario.from_article]

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
