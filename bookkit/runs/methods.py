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

from mlx_autodiff.device import Device
from mlx_autodiff.module import Module
from mlx_autodiff.nn import Linear, LinearConfig
from mlx_autodiff.tensor import Tensor

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

    What the method does to the parameters and how the run ends is said in the
    words files, by the method's name (`tabs.explanations` of bookkit/words/en.json
    and of every other language's file): chapter 8 shows it above the method's
    graphs (`tabs.snapshot_tabs`). `from_article` marks the
    article's seven: only those are shown as the article's (the explorer's
    "The article's seven", its answers' "the article's method"); a method added
    by this book leaves it False.
    """

    name: str
    label: str
    built_on: BuiltOn
    read_first: bool
    moves: tuple[Move, ...]
    from_article: bool = False

    def build(self, d_input: int = 4, d_output: int = 1, bias: bool = True) -> Module:
        """The model as the article's `main` hands it to `train` (a `Linear` of other sizes, or without a
        bias, for `Layered`)."""
        device = _BUILD_DEVICES[self.built_on]
        config = LinearConfig(d_input, d_output, bias=bias)
        model: Module = read_all(config.init(device)) if self.read_first else config.init(device)
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


class Layers(Module):
    """Linear layers run one after the other (a `Layered` model's layers, in a list as Burn's `Vec`)."""

    def __init__(self, layers: list[Linear]) -> None:
        self.layers = layers

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = layer.forward(x)
        return x


@dataclass(frozen=True)
class Layered:
    """A model of another shape than the chapters' `Linear(4, 1)`: layers 4 -> 4 -> ... -> 1, with or
    without biases, each built and relocated as one scenario builds and relocates its model.

    Chapter 13's check tries these so that an answer hard-wired to a `weight` and a `bias` fails: one
    layer is a `Linear` without a bias; two or more are a `Layers` whose layers may be of different
    kinds. `run` trains it like any scenario; every layer ends on `TARGET`.
    """

    layers_from: tuple[Scenario, ...]
    bias: bool = True

    @property
    def name(self) -> str:
        """`[ad-fork, ad-to_device]`, or `[ad-fork](bias=False)`: each layer's method, in order."""
        layers = "[" + ", ".join(scenario.name for scenario in self.layers_from) + "]"
        return layers if self.bias else f"{layers}(bias=False)"

    @property
    def label(self) -> str:
        return self.name

    def build(self) -> Module:
        """Each layer built as `run` builds its scenario's model; one layer is that `Linear` itself."""
        sizes = [4] * len(self.layers_from) + [1]
        layers = [scenario.build(sizes[k], sizes[k + 1], self.bias)
                  for k, scenario in enumerate(self.layers_from)]
        assert all(isinstance(layer, Linear) for layer in layers)
        return layers[0] if len(layers) == 1 else Layers(layers)  # type: ignore[arg-type]


def initialized(device: Device, d_input: int = 4, d_output: int = 1) -> Linear:
    """The article's `initialized(device)`: a Linear built on `device` whose parameters were read once.

    Reading is what loading from a file, printing, or one inference does: the
    lazy parameters are built then, on `device`, so a later move has tensors to
    move (`Linear(4, 1)` as in the article, unless other sizes are given).
    """
    return read_all(LinearConfig(d_input, d_output).init(device))


def read_all(model: Linear) -> Linear:
    """`model` with every parameter read (built where it points), as `initialized` reads it."""
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
        from_article=True,
    ),
    Scenario(
        "ad-to_device", "flex.autodiff -> to_device", "flex.autodiff", True, ("to_device",),
        from_article=True,
    ),
    Scenario(
        "plain-to_device", "flex -> to_device", "flex", True, ("to_device",),
        from_article=True,
    ),
    Scenario(
        "lazy-to_device", "lazy -> to_device", "flex.autodiff", False, ("to_device",),
        from_article=True,
    ),
    Scenario(
        "ad-fork", "flex.autodiff -> fork", "flex.autodiff", True, ("fork",),
        from_article=True,
    ),
    Scenario(
        "plain-fork", "flex -> fork", "flex", True, ("fork",),
        from_article=True,
    ),
    Scenario(
        "plain-to_device-train", "flex -> to_device.train()", "flex", True, ("to_device", "train"),
        from_article=True,
    ),
)
"""The methods chapter 8 runs: the article's seven (`from_article`), in the article's order.

A method added here is run, tabulated, plotted and drawn by chapter 8 as it is,
and the explorer offers it among its combinations, under its name; it is the
article's only if it says `from_article=True`. Its expected outcome belongs in
the table the tests read (tests/helpers/article.py).
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
