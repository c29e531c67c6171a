"""The layers and losses the book trains: Linear and MseLoss.

Burn: crates/burn-nn/src/modules/linear.rs (`LinearConfig`, `Linear`),
crates/burn-nn/src/loss/mse.rs (`MseLoss`, `Reduction`),
crates/burn-core/src/module/initializer.rs (Kaiming uniform).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from .device import Device, check_device
from .errors import ShapeError
from .module import InitFn, Module, Param
from .tensor import Distribution, Tensor


def kaiming_uniform(fan_in: int, shape: tuple[int, ...]) -> InitFn:
    """Burn's default Linear init: Kaiming uniform, gain 1/sqrt(3): U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    gain = 1 / math.sqrt(3)
    bound = gain * math.sqrt(3 / fan_in)

    def init(device: Device, require_grad: bool) -> Tensor:
        tensor = Tensor.random(shape, Distribution.uniform(-bound, bound), device)
        return tensor.require_grad() if require_grad else tensor

    return init


@dataclass(frozen=True)
class LinearConfig:
    """`LinearConfig(4, 1).init(device)`: a lazy Linear whose parameters are built on first read."""

    d_input: int
    d_output: int
    bias: bool = True

    def __post_init__(self) -> None:
        sizes = (self.d_input, self.d_output)
        if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in sizes):
            raise ShapeError(
                f"LinearConfig({self.d_input}, {self.d_output}): both sizes must be positive "
                "integers, e.g. LinearConfig(4, 1)."
            )

    def init(self, device: Device) -> Linear:
        device = check_device(device, "LinearConfig.init")
        weight_shape = (self.d_input, self.d_output)
        weight_init = kaiming_uniform(self.d_input, weight_shape)
        weight = Param.uninitialized("weight", device, weight_shape, weight_init)
        bias = None
        if self.bias:
            bias_shape = (self.d_output,)
            bias = Param.uninitialized("bias", device, bias_shape, kaiming_uniform(self.d_input, bias_shape))
        return Linear(weight, bias)


class Linear(Module):
    """`y = x @ weight + bias`, with Burn's layout: weight [d_input, d_output], bias [d_output]."""

    def __init__(self, weight: Param, bias: Param | None) -> None:
        self.weight = weight
        self.bias = bias

    def forward(self, x: Tensor) -> Tensor:
        """Burn's default `linear`: matmul, then add the bias reshaped to [1, d_output]."""
        out = x.matmul(self.weight.val())
        if self.bias is None:
            return out
        return out + self.bias.val().reshape([1, self.bias.shape[0]])


class Reduction(Enum):
    """How a loss turns per-element errors into one number."""

    MEAN = "mean"
    SUM = "sum"


class MseLoss:
    """Mean squared error: `(pred - target)^2`, then mean or sum."""

    def forward(self, pred: Tensor, target: Tensor, reduction: Reduction = Reduction.MEAN) -> Tensor:
        squared = (pred - target).square()
        return squared.mean() if reduction is Reduction.MEAN else squared.sum()
