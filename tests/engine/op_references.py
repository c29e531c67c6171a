"""Every op in `mlx_autodiff.tensor.OPS`, written once more in plain MLX, with the inputs to test it on.

The engine registers an op with its name and what its backward saves
(`@op(name, saves=...)`); everything a test needs to call it is here, beside
its reference. `REFERENCES[name].compute(xp, *arrays, **kwargs)` computes what
the op named `name` computes, with `xp` either `mlx.core` (on float32 arrays, for
`mx.vjp`) or tests/engine/float64.py's `MX64` (on float64 arrays on the CPU, for
central differences), and the same keyword arguments as the op
(`dim=0`); `operands` says which shapes it takes (and so how many tensors),
`kwargs` the other arguments of an example call, `domain` where each input's
values must lie. `CHECKED_OPS` is the registry, each entry with its reference:
the op, property and semantics tests iterate it and check that every
registered op has a reference, so an op added to the engine without one here
fails the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Literal

from strategies import Kind

from mlx_autodiff import Device, Tensor
from mlx_autodiff.ops import OpSpec, Saved
from mlx_autodiff.tensor import OPS

Operands = Literal["any", "broadcast", "matmul", "matrix"]
"""The shapes an op accepts: any one shape, two that broadcast, a matmul pair, one of at least two dims."""


@dataclass(frozen=True)
class OpReference:
    """What an op computes, written once for float32 and float64 MLX arrays, and how the tests call it."""

    compute: Callable[..., object]
    """`compute(xp, *arrays, **kwargs)`, with `xp` `mlx.core` or `MX64` (its float64 twin)."""
    operands: Operands = "any"
    kwargs: Mapping[str, object] = field(default_factory=dict)
    """The other arguments of an example call (`{"dim": 0}` for `x.sum_dim(dim=0)`)."""
    domain: tuple[Kind, ...] | None = None
    """Where each tensor input's values must lie for the gradient to exist; None: anywhere."""


def _one_element(xp: ModuleType, value: object) -> object:
    """A sum or mean as the engine shapes it: one element, shape [1]."""
    return xp.reshape(value, (1,))


REFERENCES: dict[str, OpReference] = {
    # within flex: an op's inputs stay on one device
    "to_device": OpReference(lambda xp, x, device: x, kwargs={"device": Device.flex().autodiff()}),
    "add": OpReference(lambda xp, a, b: a + b, "broadcast"),
    "add_scalar": OpReference(lambda xp, x, other: x + other, kwargs={"other": 1.5}),
    "sub": OpReference(lambda xp, a, b: a - b, "broadcast"),
    "sub_scalar": OpReference(lambda xp, x, other: x - other, kwargs={"other": 0.75}),
    "mul": OpReference(lambda xp, a, b: a * b, "broadcast"),
    "mul_scalar": OpReference(lambda xp, x, other: x * other, kwargs={"other": -2.5}),
    "div": OpReference(lambda xp, a, b: a / b, "broadcast", domain=("any", "positive")),
    "div_scalar": OpReference(lambda xp, x, other: x / other, kwargs={"other": 4.0}),
    "neg": OpReference(lambda xp, x: -x),
    "pow": OpReference(lambda xp, x, exponent: x**exponent, kwargs={"exponent": 3}),
    "square": OpReference(lambda xp, x: x * x),
    "exp": OpReference(lambda xp, x: xp.exp(x)),
    "log": OpReference(lambda xp, x: xp.log(x), domain=("positive",)),
    "relu": OpReference(lambda xp, x: xp.maximum(x, 0.0), domain=("nonzero",)),
    "matmul": OpReference(lambda xp, a, b: a @ b, "matmul"),
    "sum": OpReference(lambda xp, x: _one_element(xp, xp.sum(x))),
    "mean": OpReference(lambda xp, x: _one_element(xp, xp.mean(x))),
    "sum_dim": OpReference(lambda xp, x, dim: xp.sum(x, axis=dim, keepdims=True), kwargs={"dim": 0}),
    "mean_dim": OpReference(lambda xp, x, dim: xp.mean(x, axis=dim, keepdims=True), kwargs={"dim": 0}),
    "reshape": OpReference(lambda xp, x, shape: xp.reshape(x, tuple(shape)), kwargs={"shape": [-1]}),
    "transpose": OpReference(lambda xp, x: xp.swapaxes(x, -1, -2), "matrix"),
    "rsub_scalar": OpReference(lambda xp, x, other: other - x, kwargs={"other": 1.5}),
    "rdiv_scalar": OpReference(lambda xp, x, other: other / x, kwargs={"other": 10.0}, domain=("positive",)),
    "rpow_scalar": OpReference(lambda xp, x, other: other**x, kwargs={"other": 2.5}),
}


def reference_of(name: str) -> OpReference:
    """The reference of the registered op `name`, or an error that says where to write one."""
    if name not in REFERENCES:
        raise LookupError(
            f"tensor.OPS registers an op named {name!r}, but tests/engine/op_references.py has no reference "
            f"for it: add `{name!r}: OpReference(lambda xp, x, ...: ..., ...)` to REFERENCES (written "
            "once with `xp`'s MLX functions, with the example arguments and domains its tests need), so the "
            "op, property and semantics tests can check it."
        )
    return REFERENCES[name]


@dataclass(frozen=True)
class CheckedOp:
    """A registry entry (`tensor.OPS`) with its reference: one op as the tests call and check it.

    The reference is looked up when a test first needs it, so an op without
    one fails its own tests, each with `reference_of`'s message.
    """

    spec: OpSpec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def method(self) -> str:
        return self.spec.method

    @property
    def saves(self) -> tuple[Saved, ...]:
        return self.spec.saves

    @property
    def reference(self) -> OpReference:
        return reference_of(self.name)

    @property
    def operands(self) -> Operands:
        return self.reference.operands

    @property
    def arity(self) -> int:
        """How many tensor inputs: two for a broadcasting pair or a matmul pair, else one."""
        return 2 if self.operands in ("broadcast", "matmul") else 1

    @property
    def kwargs(self) -> Mapping[str, object]:
        return self.reference.kwargs

    @property
    def domain(self) -> tuple[Kind, ...]:
        return self.reference.domain or ("any",) * self.arity

    def compute(self, xp: ModuleType, *arrays: object, **kwargs: object) -> object:
        """The reference on `arrays`, with `kwargs` in place of the example's."""
        return self.reference.compute(xp, *arrays, **{**self.kwargs, **kwargs})

    def __call__(self, *inputs: Tensor, **kwargs: object) -> Tensor:
        """Apply the engine's op to `inputs`, with `kwargs` in place of the example's."""
        arguments = {**self.kwargs, **kwargs}
        first, *rest = inputs
        return getattr(first, self.method)(*rest, **arguments)

    def __repr__(self) -> str:
        return self.name


CHECKED_OPS: tuple[CheckedOp, ...] = tuple(CheckedOp(spec) for spec in OPS)
"""Every op of `tensor.OPS`, in its order, each beside its reference."""
