"""Shapes: which ones are valid, which ones broadcast together, and a gradient summed back to its input's.

Every op checks its operands' shapes before it computes, so a wrong shape is a
`ShapeError` that says what to reshape, never an error from deep inside MLX.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

import mlx.core as mx

from .errors import ShapeError


def unbroadcast(grad: mx.array, shape: Sequence[int]) -> mx.array:
    """Sum a broadcast gradient back down to `shape`, the shape of the input it belongs to.

    tinygrad calls this `unbroadcast`, Burn `broadcast_shape`
    (crates/burn-autodiff/src/ops/base.rs): an input broadcast to a bigger shape
    was used once per copy, so its gradient is the sum over the copies.
    """
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = mx.sum(grad, axis=tuple(range(extra)))
    widened = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if widened:
        grad = mx.sum(grad, axis=widened, keepdims=True)
    return grad


def broadcast_shape(op: str, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The shape `a` and `b` broadcast to; if they do not, a ShapeError naming the first dim that fails."""
    try:
        return tuple(mx.broadcast_shapes(a, b))
    except ValueError:
        pairs = enumerate(zip_longest(reversed(a), reversed(b), fillvalue=1), start=1)
        i, x, y = next((i, x, y) for i, (x, y) in pairs if x != y and 1 not in (x, y))
        raise ShapeError(
            f"Cannot `{op}` shapes {list(a)} and {list(b)}: dim {-i} has sizes {x} and {y}, "
            "and broadcasting needs them equal or one of them 1. Reshape one operand."
        ) from None


def check_dim(shape: tuple[int, ...], dim: int, op: str) -> None:
    """`dim` names one of `shape`'s dims."""
    if not isinstance(dim, int) or not 0 <= dim < len(shape):
        raise ShapeError(
            f"{op}({dim}) on a tensor of shape {list(shape)}: dim must be one of "
            f"0..{len(shape) - 1}."
        )


def valid_shape(shape: Sequence[int], what: str) -> tuple[int, ...]:
    dims = tuple(shape)
    if not dims or not all(isinstance(n, int) and n > 0 for n in dims):
        raise ShapeError(
            f"{what}: shape {list(dims)} is not valid; give one or more positive sizes, "
            "e.g. [32, 4]."
        )
    return dims
