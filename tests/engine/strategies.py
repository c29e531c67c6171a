"""Hypothesis strategies for the op tests: shapes, broadcast pairs, and arrays in safe ranges.

One module, as minitorch keeps its strategies: a test says what kind of input it
needs ("positive", "away from zero") and never builds shapes or values itself.
"""

from __future__ import annotations

import math
from typing import Literal

import mlx.core as mx
from hypothesis import strategies as st

Shape = tuple[int, ...]
Kind = Literal["any", "positive", "nonzero"]

MAX_SIDE = 5


def shapes(
    min_dims: int = 1, max_dims: int = 3, min_side: int = 1, max_side: int = MAX_SIDE
) -> st.SearchStrategy[Shape]:
    """Shapes of 1-3 dims with sizes 1-5 (size 1 included, so broadcasting gets exercised)."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


@st.composite
def broadcast_pairs(draw: st.DrawFn, max_dims: int = 3) -> tuple[Shape, Shape]:
    """Two shapes that broadcast together: each drops some leading dims and turns some sizes into 1."""
    full = draw(shapes(max_dims=max_dims))

    def derived() -> Shape:
        dropped = draw(st.integers(0, len(full) - 1))
        kept = full[dropped:]
        ones = draw(st.lists(st.booleans(), min_size=len(kept), max_size=len(kept)))
        return tuple(1 if one else n for n, one in zip(kept, ones, strict=True))

    return derived(), derived()


@st.composite
def matmul_pairs(draw: st.DrawFn) -> tuple[Shape, Shape]:
    """`[..., m, k] @ [..., k, n]` with 0-2 batch dims on each side that broadcast together."""
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    batch_a, batch_b = draw(st.one_of(st.just(((), ())), broadcast_pairs(max_dims=2)))
    if draw(st.booleans()):
        batch_b = batch_b[1:]  # one side may have fewer batch dims than the other
    return (*batch_a, m, k), (*batch_b, k, n)


def _elements(kind: Kind) -> st.SearchStrategy[float]:
    """Values where every op is smooth: bounds are exact in float32, no subnormals."""
    if kind == "positive":  # log's argument, div's denominator, powf's base
        return st.floats(0.5, 2.0, width=32)
    magnitude = st.floats(0.125, 2.0, width=32)
    if kind == "nonzero":  # relu's kink at 0 has no derivative
        return st.tuples(st.booleans(), magnitude).map(lambda t: t[1] if t[0] else -t[1])
    return st.floats(-2.0, 2.0, width=32, allow_subnormal=False)


def arrays(shape: Shape, kind: Kind = "any") -> st.SearchStrategy[mx.array]:
    """A float32 MLX array of `shape` with values of `kind`, drawn one element at a time (so each shrinks)."""
    size = math.prod(shape)
    values = st.lists(_elements(kind), min_size=size, max_size=size)
    return values.map(lambda drawn: mx.array(drawn, dtype=mx.float32).reshape(shape))
