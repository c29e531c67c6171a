"""Tensors: an MLX array, the device it lives on, and (on autodiff devices) its node.

Burn: crates/burn-tensor/src/tensor/api/ (the Tensor API) and
crates/burn-autodiff/src/ops/tensor.rs (what each op records).

A tensor on a plain device has no node: nothing it takes part in is recorded.
A tensor on an autodiff device always has one, tracked or not. Every op reads
its inputs' nodes, computes with MLX, and records a node for its output whose
step knows how to send the output's gradient back to the tracked inputs.

Each op's backward is a closure written beside it, and each op is registered
where it is defined, by `@op(name, saves=...)` (mlx_autodiff/ops.py): its
node's name and `saves`, the arrays the closure captures. Those stay alive
until backward consumes the step (minitorch's `ctx.save_for_backward`; Burn's
`Backward` structs name each op's state), and tests/engine/test_ops.py checks that
each backward keeps exactly them. `OPS`, after the class, gathers every entry;
the op tests iterate it, with each op's reference and example inputs from
tests/engine/op_references.py.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union

import mlx.core as mx

from . import tape
from .device import Device, check_device
from .errors import (
    AlreadyAutodiffError,
    AutodiffMoveError,
    DeviceMismatchError,
    DomainError,
    InvalidDistributionError,
    NonLeafRequireGradError,
    ShapeError,
    UntrackedBackwardError,
)
from .node import (
    ROOT_STEP,
    TO_DEVICE,
    BackwardFn,
    Node,
    Requirement,
    next_node_id,
    node_name,
)
from .ops import OpSpec, op, registered
from .recording import record
from .shapes import broadcast_shape, check_dim, unbroadcast, valid_shape

Scalar = Union[int, float]
Method = Callable[..., "Tensor"]


def _on_device(method: Method) -> Method:
    """Run an op's MLX work on the device its tensor lives on: MLX's default device, or a stream there."""

    @functools.wraps(method)
    def run(self: Tensor, *args: object, **kwargs: object) -> Tensor:
        with self.device.computing():
            return method(self, *args, **kwargs)

    return run


@dataclass(frozen=True)
class Distribution:
    """How `Tensor.random` draws values (Burn: `Distribution::Uniform`, `Normal`)."""

    kind: str
    a: float
    b: float

    @staticmethod
    def uniform(lo: float, hi: float) -> Distribution:
        if not lo <= hi:
            raise InvalidDistributionError(
                f"Distribution.uniform({lo}, {hi}): the lower bound must not exceed the upper "
                "bound. Swap the two numbers."
            )
        return Distribution("uniform", float(lo), float(hi))

    @staticmethod
    def normal(mean: float, std: float) -> Distribution:
        if not std >= 0:
            raise InvalidDistributionError(
                f"Distribution.normal({mean}, {std}): the standard deviation must be zero or "
                "positive."
            )
        return Distribution("normal", float(mean), float(std))

    @staticmethod
    def default() -> Distribution:
        """Burn's default: uniform on [0, 1)."""
        return Distribution.uniform(0.0, 1.0)

    def sample(self, shape: tuple[int, ...], device: Device) -> mx.array:
        key, stream = device.next_key(), device.mlx_device
        if self.kind == "uniform":
            return mx.random.uniform(self.a, self.b, shape, key=key, stream=stream)
        return mx.random.normal(shape, loc=self.a, scale=self.b, key=key, stream=stream)


class Tensor:
    """A float tensor (Burn: `Tensor<D>`), immutable: every op returns a new one."""

    __slots__ = ("array", "device", "node")

    def __init__(self, array: mx.array, device: Device, node: Node | None = None) -> None:
        self.array = array
        self.device = device
        self.node = node

    # ----- creation ---------------------------------------------------------------

    @staticmethod
    def random(shape: Sequence[int], distribution: Distribution, device: Device) -> Tensor:
        """Random values; on an autodiff device, an untracked leaf."""
        device = check_device(device, "Tensor.random")
        shape = valid_shape(shape, "Tensor.random")
        return Tensor._leaf(distribution.sample(shape, device), device)

    @staticmethod
    def from_data(data: object, device: Device) -> Tensor:
        """A tensor holding `data` (nested lists, numbers, or an MLX/NumPy array)."""
        device = check_device(device, "Tensor.from_data")
        array = mx.array(data, dtype=mx.float32)
        if array.ndim == 0:
            array = array.reshape(1)
        valid_shape(array.shape, "Tensor.from_data")
        return Tensor._leaf(array, device)

    @staticmethod
    def zeros(shape: Sequence[int], device: Device) -> Tensor:
        device = check_device(device, "Tensor.zeros")
        return Tensor._leaf(mx.zeros(valid_shape(shape, "Tensor.zeros")), device)

    @staticmethod
    def ones(shape: Sequence[int], device: Device) -> Tensor:
        device = check_device(device, "Tensor.ones")
        return Tensor._leaf(mx.ones(valid_shape(shape, "Tensor.ones")), device)

    @staticmethod
    def _leaf(array: mx.array, device: Device, op: str = "leaf", label: str | None = None,
              require_grad: bool = False) -> Tensor:
        """A new tensor with a fresh node: a leaf on autodiff devices (NONE, or GRAD), plain elsewhere.

        With `require_grad`, the leaf is what `require_grad()` on the untracked one would give (the
        same id, op and label, `ROOT_STEP`), built once.
        """
        if not device.is_autodiff:
            return Tensor(array, device)
        requirement, step = (Requirement.GRAD, ROOT_STEP) if require_grad else (Requirement.NONE, None)
        node = Node(next_node_id(), requirement, (), op, device, tuple(array.shape), step, label)
        return Tensor(array, device, node)

    @staticmethod
    def from_inner(tensor: Tensor) -> Tensor:
        """Wrap a plain tensor as an untracked autodiff leaf (Burn: `Tensor::from_inner`)."""
        if tensor.node is not None:
            # fork makes a Grad leaf only of a Grad leaf: for an op's output (after to_device) it cannot help
            remedy = ("An autodiff model is already trainable: move it with `fork(device)` instead."
                      if tensor.node.is_leaf else
                      f"It is the output of `{tensor.node.op}`, not a leaf, so `fork(device)` would give an "
                      "untracked leaf, not a Grad one; `valid()` first makes the parameters plain, keeping "
                      "their flags, and then `train()` makes them Grad leaves.")
            raise AlreadyAutodiffError(
                "Autodiff should not wrap an autodiff tensor. "
                f"This tensor is already on {tensor.device.name}; `train()` is for models whose "
                f"parameters are plain (after `valid()`, or built on a plain device). {remedy}"
            )
        return Tensor._leaf(tensor.array, tensor.device.autodiff(), "from_inner")

    # ----- reading ----------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.array.shape)

    def dims(self) -> list[int]:
        """The shape as a list, as Burn prints it."""
        return list(self.array.shape)

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def is_autodiff(self) -> bool:
        return self.node is not None

    def to_mlx(self) -> mx.array:
        """The underlying MLX array."""
        return self.array

    def into_scalar(self) -> float:
        """The single value of a one-element tensor, as a Python float (evaluates lazily built work)."""
        if self.array.size != 1:
            raise ShapeError(
                f"into_scalar() needs a tensor with one element, got shape {self.dims()}. "
                "Reduce it first, e.g. with .mean() or .sum()."
            )
        return float(self.array.item())

    def clone(self) -> Tensor:
        """Burn needs `clone()` to reuse a tensor; here tensors are immutable, so it is the same one."""
        return self

    def __repr__(self) -> str:
        node = f", {node_name(self.node.id)} {self.node.requirement.value}" if self.node else ""
        return f"Tensor(shape={self.dims()}, device={self.device.name}{node})"

    # ----- autodiff ---------------------------------------------------------------

    def is_require_grad(self) -> bool:
        """True only for a GRAD leaf: a tensor whose gradient backward keeps."""
        return self.node is not None and self.node.requirement is Requirement.GRAD

    def require_grad(self) -> Tensor:
        """Make an untracked leaf a GRAD leaf, keeping its id (Burn: `AutodiffTensor::require_grad`)."""
        node = self.node
        if node is None or node.requirement is Requirement.GRAD:
            return self
        if node.requirement is Requirement.GRAD_IN_BACKWARD:
            raise NonLeafRequireGradError(
                f"Can't convert a non leaf tensor into a tracked tensor. {node_name(node.id)} is the "
                f"output of `{node.op}`, so gradients already flow through it to its inputs. To "
                "get a new leaf here, call `.detach().require_grad()` (which is what `fork` does)."
            )
        op = node.op if node.is_leaf else "leaf"  # keep "detach", "optimizer", ... for readers
        leaf = Node(node.id, Requirement.GRAD, (), op, node.device, node.shape, ROOT_STEP, node.label)
        return Tensor(self.array, self.device, leaf)

    def set_require_grad(self, require_grad: bool) -> Tensor:
        """True: `require_grad()`. False: a new untracked leaf with a new id."""
        if require_grad:
            return self.require_grad()
        if self.node is None:
            return self
        return Tensor._leaf(self.array, self.device, label=self.node.label)

    def detach(self) -> Tensor:
        """A new leaf with a new id, cut from the graph; a GRAD input stays GRAD."""
        if self.node is None:
            return self
        return Tensor._leaf(self.array, self.device, "detach", self.node.label, self.is_require_grad())

    def inner(self) -> Tensor:
        """The same values as a plain tensor (Burn: `Tensor::inner`): autodiff stripped."""
        return Tensor(self.array, self.device.inner())

    def backward(self) -> Gradients:
        """Run backward from this tensor, seeded with ones, and return the kept gradients."""
        if self.node is None or self.node.requirement is Requirement.NONE:
            raise UntrackedBackwardError(_untracked_backward_message(self))
        return tape.backward(self.node, _ones(self.array.shape), Gradients)

    def grad(self, grads: Gradients) -> Tensor | None:
        """This tensor's gradient in `grads` (Burn: `Tensor::grad`)."""
        return grads.get(self)

    def grad_remove(self, grads: Gradients) -> Tensor | None:
        """This tensor's gradient in `grads`, removing it (Burn: `Tensor::grad_remove`)."""
        return grads.remove(self)

    @op(TO_DEVICE)
    def to_device(self, device: Device) -> Tensor:
        """Move to `device`. Between autodiff devices this is a recorded op, not a new leaf.

        Burn: `Autodiff::float_to_device` (crates/burn-autodiff/src/ops/tensor.rs):
        the output is GRAD_IN_BACKWARD when the input is tracked, and its backward
        step moves the gradient back to the source device. A plain tensor stays
        plain wherever it goes.
        """
        device = check_device(device, "to_device")
        if self.node is None:
            return Tensor(self.array, device.inner())
        if not device.is_autodiff:
            raise AutodiffMoveError(
                "Cannot move between autodiff and non-autodiff instances. "
                f"This tensor is on {self.device.name}; to get plain values on {device.name}, "
                f"call `.inner()` first (for a whole model: `model.valid()`), or move to "
                f"`{device.name}.autodiff()`."
            )
        label = self.node.label
        detail = f"{self.device.name} to {device.name}"
        out = _record(TO_DEVICE, (self,), self.array, device, lambda g: (g,), detail)
        if out.node is not None:
            out.node.label = label
        return out

    # ----- ops ------------------------------------------------------------------

    @op("add")
    @op("add_scalar")
    @_on_device
    def add(self, other: Tensor | Scalar) -> Tensor:
        if not isinstance(other, Tensor):
            return _unary("add_scalar", self, self.array + _scalar(other, "add"), lambda g: g)
        a, b = _checked_operands("add", self, other)
        sa, sb = a.shape, b.shape
        return _binary("add", a, b, a.array + b.array, lambda g: (unbroadcast(g, sa), unbroadcast(g, sb)))

    @op("sub")
    @op("sub_scalar")
    @_on_device
    def sub(self, other: Tensor | Scalar) -> Tensor:
        if not isinstance(other, Tensor):
            return _unary("sub_scalar", self, self.array - _scalar(other, "sub"), lambda g: g)
        a, b = _checked_operands("sub", self, other)
        sa, sb = a.shape, b.shape
        return _binary("sub", a, b, a.array - b.array, lambda g: (unbroadcast(g, sa), unbroadcast(-g, sb)))

    @op("mul", saves=("inputs",))
    @op("mul_scalar")
    @_on_device
    def mul(self, other: Tensor | Scalar) -> Tensor:
        if not isinstance(other, Tensor):
            k = _scalar(other, "mul")
            return _unary("mul_scalar", self, self.array * k, lambda g: g * k)
        a, b = _checked_operands("mul", self, other)
        x, y = a.array, b.array

        def backward(g: mx.array) -> tuple[mx.array, mx.array]:
            return unbroadcast(g * y, x.shape), unbroadcast(g * x, y.shape)

        return _binary("mul", a, b, x * y, backward)

    @op("div", saves=("inputs",))
    @op("div_scalar")
    @_on_device
    def div(self, other: Tensor | Scalar) -> Tensor:
        if not isinstance(other, Tensor):
            k = _scalar(other, "div")
            return _unary("div_scalar", self, self.array / k, lambda g: g / k)
        a, b = _checked_operands("div", self, other)
        x, y = a.array, b.array

        def backward(g: mx.array) -> tuple[mx.array, mx.array]:
            return unbroadcast(g / y, x.shape), unbroadcast(-g * x / (y * y), y.shape)

        return _binary("div", a, b, x / y, backward)

    @op("neg")
    @_on_device
    def neg(self) -> Tensor:
        return _unary("neg", self, -self.array, lambda g: -g)

    @op("pow", saves=("inputs",))
    @_on_device
    def powf_scalar(self, exponent: Scalar) -> Tensor:
        """Elementwise `x ** exponent`."""
        _scalar(exponent, "powf_scalar")
        x = self.array
        return _unary("pow", self, x**exponent, lambda g: g * exponent * x ** (exponent - 1))

    @op("square", saves=("inputs",))
    @_on_device
    def square(self) -> Tensor:
        x = self.array
        return _unary("square", self, x * x, lambda g: g * 2 * x)

    @op("exp", saves=("output",))
    @_on_device
    def exp(self) -> Tensor:
        out = mx.exp(self.array)
        return _unary("exp", self, out, lambda g: g * out)

    @op("log", saves=("inputs",))
    @_on_device
    def log(self) -> Tensor:
        x = self.array
        return _unary("log", self, mx.log(x), lambda g: g / x)

    @op("relu", saves=("inputs",))
    @_on_device
    def relu(self) -> Tensor:
        x = self.array
        return _unary("relu", self, mx.maximum(x, 0), lambda g: g * (x > 0))

    @op("matmul", saves=("inputs",))
    @_on_device
    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product over the last two dims, batch dims broadcast."""
        a, b = _checked_operands("matmul", self, other, broadcast=False)
        if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]:
            raise ShapeError(
                f"Cannot `matmul` shapes {a.dims()} and {b.dims()}: both need at least two dims "
                "and the left one's last dim must equal the right one's second-to-last. "
                "Transpose or reshape one of them."
            )
        broadcast_shape("matmul", a.shape[:-2], b.shape[:-2])
        x, y = a.array, b.array

        def backward(g: mx.array) -> tuple[mx.array, mx.array]:
            gx, gy = g @ mx.swapaxes(y, -1, -2), mx.swapaxes(x, -1, -2) @ g
            return unbroadcast(gx, x.shape), unbroadcast(gy, y.shape)

        return _binary("matmul", a, b, x @ y, backward)

    @op("sum")
    @_on_device
    def sum(self) -> Tensor:
        """Sum of every element, shape [1] (whose gradient, one element, broadcasts to any shape)."""
        shape = self.array.shape
        out = mx.sum(self.array).reshape(1)
        return _unary("sum", self, out, lambda g: mx.broadcast_to(g, shape))

    @op("mean")
    @_on_device
    def mean(self) -> Tensor:
        """Mean of every element, shape [1]."""
        shape, n = self.array.shape, self.array.size

        return _unary("mean", self, mx.mean(self.array).reshape(1), lambda g: mx.broadcast_to(g / n, shape))

    @op("sum_dim")
    @_on_device
    def sum_dim(self, dim: int) -> Tensor:
        """Sum over `dim`, keeping it with size 1 (Burn's `sum_dim`: [32, 4] -> [32, 1])."""
        check_dim(self.shape, dim, "sum_dim")
        shape = self.array.shape
        out = mx.sum(self.array, axis=dim, keepdims=True)
        return _unary("sum_dim", self, out, lambda g: mx.broadcast_to(g, shape))

    @op("mean_dim")
    @_on_device
    def mean_dim(self, dim: int) -> Tensor:
        """Mean over `dim`, keeping it with size 1."""
        check_dim(self.shape, dim, "mean_dim")
        shape, n = self.array.shape, self.array.shape[dim]
        out = mx.mean(self.array, axis=dim, keepdims=True)
        return _unary("mean_dim", self, out, lambda g: mx.broadcast_to(g / n, shape))

    @op("reshape")
    @_on_device
    def reshape(self, shape: Sequence[int]) -> Tensor:
        """Same values, new shape (one -1 may be inferred)."""
        old = self.array.shape
        try:
            out = self.array.reshape(tuple(shape))
        except ValueError as error:
            raise ShapeError(
                f"reshape of {self.dims()} to {list(shape)}: the element counts differ "
                f"({self.array.size} elements). Pick a shape with the same number of elements."
            ) from error
        return _unary("reshape", self, out, lambda g: g.reshape(old))

    @op("transpose")
    @_on_device
    def transpose(self) -> Tensor:
        """Swap the last two dims (Burn's `transpose`)."""
        if self.ndim < 2:
            raise ShapeError(f"transpose needs at least two dims, got shape {self.dims()}.")
        return _unary("transpose", self, mx.swapaxes(self.array, -1, -2), lambda g: mx.swapaxes(g, -1, -2))

    __add__ = add
    __sub__ = sub
    __mul__ = mul
    __truediv__ = div
    __neg__ = neg
    __matmul__ = matmul

    def __radd__(self, other: Scalar) -> Tensor:
        return self.add(other)

    def __rmul__(self, other: Scalar) -> Tensor:
        return self.mul(other)

    @op("rsub_scalar")
    @_on_device
    def __rsub__(self, other: Scalar) -> Tensor:
        """`k - x`: one op, so the graph shows what was written."""
        k = _scalar(other, "rsub")
        return _unary("rsub_scalar", self, k - self.array, lambda g: -g)

    @op("rdiv_scalar", saves=("inputs",))
    @_on_device
    def __rtruediv__(self, other: Scalar) -> Tensor:
        """`k / x`, whose gradient is `-k / x^2`."""
        k, x = _scalar(other, "rdiv"), self.array
        return _unary("rdiv_scalar", self, k / x, lambda g: -g * k / (x * x))

    @op("rpow_scalar", saves=("output",))
    @_on_device
    def __rpow__(self, other: Scalar) -> Tensor:
        """`k ** x` for a base k > 0, whose gradient is `k^x ln k`."""
        k = _scalar(other, "rpow")
        if k <= 0:
            raise DomainError(
                f"{other!r} ** tensor: the base must be positive (the gradient needs ln of the base). "
                "For a negative base, write the power with `powf_scalar` on a tensor instead."
            )
        out = k**self.array
        return _unary("rpow_scalar", self, out, lambda g: g * out * math.log(k))

    def __pow__(self, exponent: Scalar) -> Tensor:
        return self.powf_scalar(exponent)


class Gradients(tape.Gradients):
    """The gradients of one backward pass, looked up by tensor (Burn: grads.rs).

    `grads.get(w)` is Burn's `w.grad(&grads)`; `tape.Gradients` underneath
    answers by node id. A gradient is a plain tensor on the plain flavour of
    the device its node lives on.
    """

    def get(self, tensor: Tensor) -> Tensor | None:
        """The gradient of `tensor`, or None if this pass kept none for it."""
        if tensor.node is None or (grad := self.array_of(tensor.node.id)) is None:
            return None
        return Tensor(grad, self.device_of(tensor.node.id))

    def remove(self, tensor: Tensor) -> Tensor | None:
        """Like `get`, but also drop the entry (Burn's `grad_remove`)."""
        found = self.get(tensor)
        if found is not None and tensor.node is not None:
            self.pop(tensor.node.id)
        return found


OPS: tuple[OpSpec, ...] = registered(Tensor)
"""Every op a tensor records (each method's `@op` entries), in the order the class defines them."""


# ----- recording -----------------------------------------------------------------


def _record(
    op: str,
    inputs: Sequence[Tensor],
    out: mx.array,
    device: Device,
    backward: Callable[[mx.array], Sequence[mx.array]],
    detail: str | None = None,
) -> Tensor:
    """Wrap `out` as the output of `op`, recorded as `recording.record` says."""
    device, node = record(op, [t.node for t in inputs], tuple(out.shape), device, backward, detail)
    return Tensor(out, device, node)


def _unary(op: str, x: Tensor, out: mx.array, backward: Callable[[mx.array], mx.array]) -> Tensor:
    return _record(op, (x,), out, x.device, lambda g: (backward(g),))


def _checked_operands(op: str, a: Tensor, b: object, broadcast: bool = True) -> tuple[Tensor, Tensor]:
    """Check that `a` and `b` can meet in `op`: both tensors, one device, compatible shapes."""
    if not isinstance(b, Tensor):
        raise TypeError(f"`{op}` expects a Tensor, got {type(b).__name__}.")
    if a.device != b.device:
        raise DeviceMismatchError(
            f"Cannot `{op}` tensors on two devices: {a.device.name} and {b.device.name}. "
            "Move one with `to_device` (or `fork` for a model) so both are on the same device."
        )
    if broadcast and a.array.shape != b.array.shape:
        broadcast_shape(op, a.shape, b.shape)
    return a, b


def _binary(op: str, a: Tensor, b: Tensor, out: mx.array, backward: BackwardFn) -> Tensor:
    return _record(op, (a, b), out, a.device, backward)


@functools.lru_cache(maxsize=16)
def _ones(shape: tuple[int, ...]) -> mx.array:
    """Backward's seed for a root of `shape`, made once: an MLX array never changes, and a new one
    for every pass would be one more op for each training step to evaluate."""
    return mx.ones(shape)


def _scalar(value: object, op: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"`{op}` expects a Tensor or a number, got {type(value).__name__}.")
    return float(value)


def _untracked_backward_message(x: Tensor) -> str:
    burn = (
        "Tensor::backward requires a tracked autodiff tensor; call "
        "Tensor::autodiff().require_grad() on the source leaf before computing the output"
    )
    if x.node is None:
        where = f"this tensor is on the plain device {x.device.name}, so nothing was recorded"
    else:
        where = (
            f"this tensor (NodeId({x.node.id}), on {x.device.name}) has no tracked ancestor: no "
            "tensor it was computed from requires grad"
        )
    return (
        f"{burn}\n\nWhat happened: {where}. In this engine, the message's `Tensor::autodiff()."
        "require_grad()` (a call Burn's source snapshot does not have) "
        "is `Tensor.from_inner(leaf).require_grad()` for a plain leaf (`leaf.require_grad()` if it "
        "is already on an autodiff device). If the model's parameters came from a plain device, "
        "`to_device` and `fork` leave them plain: call `.train()` on the model after moving it "
        "(check with `model.weight.is_require_grad()`)."
    )
