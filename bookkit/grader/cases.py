"""Models the book's checks try besides the chapters' `Linear(4, 1)`: the cases a shortcut gets wrong.

A check that tries only the chapter's model passes an answer that hard-codes its two parameters,
its names or its order; these give it other counts (a Linear without a bias, two layers) and
half-moved models (some parameters forked, the others moved with `to_device`).
"""

from __future__ import annotations

from collections.abc import Iterable

from mlx_autodiff.device import Device
from mlx_autodiff.module import Module
from mlx_autodiff.nn import LinearConfig
from mlx_autodiff.tensor import Tensor


class Stack(Module):
    """Two Linear layers, 4 -> `hidden` -> 1: parameters `first.weight`, `first.bias`, `second.weight`,
    `second.bias` (no biases with `bias=False`), a model as a chapter's Linear(4, 1) is used."""

    def __init__(self, device: Device, hidden: int = 3, bias: bool = True) -> None:
        self.first = LinearConfig(4, hidden, bias=bias).init(device)
        self.second = LinearConfig(hidden, 1, bias=bias).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.second.forward(self.first.forward(x))


def read(model: Module) -> Module:
    """`model` with every parameter read (built), as after loading a file or one inference."""
    for param in model.params():
        param.val()
    return model


def moved_by(model: Module, device: Device, to_device: Iterable[str]) -> Module:
    """`model` on `device`, the parameters named in `to_device` moved with `to_device`, the others
    forked: a half-moved model when some are named."""
    names = set(to_device)
    return model.map_params(lambda param: param.to_device(device) if param.name in names
                            else param.fork(device))
