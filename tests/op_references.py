"""Every op in `mlx_autodiff.tensor.OPS`, written once more, for MLX and NumPy alike.

`REFERENCES[name](xp, *arrays, **kwargs)` computes what the op named `name`
computes, with `xp` either `mlx.core` (for `mx.vjp`) or `numpy` (for central
differences), and the same keyword arguments as the op (`dim=0`). The op tests
and the property tests compare the engine against these; both check that every
registered op has one, so an op added to the engine without a reference here
fails the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

Reference = Callable[..., object]


def _one_element(xp: ModuleType, value: object) -> object:
    """A sum or mean as the engine shapes it: one element, shape [1]."""
    return xp.reshape(value, (1,))


REFERENCES: dict[str, Reference] = {
    "to_device": lambda xp, x, device: x,
    "add": lambda xp, a, b: a + b,
    "add_scalar": lambda xp, x, other: x + other,
    "sub": lambda xp, a, b: a - b,
    "sub_scalar": lambda xp, x, other: x - other,
    "mul": lambda xp, a, b: a * b,
    "mul_scalar": lambda xp, x, other: x * other,
    "div": lambda xp, a, b: a / b,
    "div_scalar": lambda xp, x, other: x / other,
    "neg": lambda xp, x: -x,
    "pow": lambda xp, x, exponent: x**exponent,
    "square": lambda xp, x: x * x,
    "exp": lambda xp, x: xp.exp(x),
    "log": lambda xp, x: xp.log(x),
    "relu": lambda xp, x: xp.maximum(x, 0.0),
    "matmul": lambda xp, a, b: a @ b,
    "sum": lambda xp, x: _one_element(xp, xp.sum(x)),
    "mean": lambda xp, x: _one_element(xp, xp.mean(x)),
    "sum_dim": lambda xp, x, dim: xp.sum(x, axis=dim, keepdims=True),
    "mean_dim": lambda xp, x, dim: xp.mean(x, axis=dim, keepdims=True),
    "reshape": lambda xp, x, shape: xp.reshape(x, tuple(shape)),
    "transpose": lambda xp, x: xp.swapaxes(x, -1, -2),
    "rsub_scalar": lambda xp, x, other: other - x,
    "rdiv_scalar": lambda xp, x, other: other / x,
    "rpow_scalar": lambda xp, x, other: other**x,
}


def reference_of(name: str) -> Reference:
    """The reference of the registered op `name`, or an error that says where to write one."""
    if name not in REFERENCES:
        raise LookupError(
            f"tensor.OPS registers an op named {name!r}, but tests/op_references.py has no reference "
            f"for it: add `{name!r}: lambda xp, x, ...: ...` to REFERENCES (written once for MLX and "
            "NumPy), so the op, property and semantics tests can check it."
        )
    return REFERENCES[name]
