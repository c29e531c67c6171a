"""The engine tier's float64 references are as accurate as NumPy's were: checked against Python's math.

Central differences (tests/engine/test_ops.py) divide by a step of 1e-6, so each function the op
references call on float64 must be accurate to about 1e-15; tests/engine/float64.py works around
MLX's float32-accurate `exp` (MLX issue 3047), and this test fails if that, or another function
the references use, loses float64's accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mlx.core as mx
import pytest
from float64 import MX64, assert_close, float64

POINTS = [-1.9, -1.234567, -0.3, 0.125, 0.7, 1.5, 2.0]
POSITIVE = [abs(x) for x in POINTS]

FUNCTIONS: dict[str, tuple[Callable[[mx.array], mx.array], Callable[[float], float], list[float]]] = {
    "exp": (MX64.exp, math.exp, POINTS),
    "log": (MX64.log, math.log, POSITIVE),
    "x ** 0.5": (lambda x: x**0.5, math.sqrt, POSITIVE),
    "x ** -1.5": (lambda x: x**-1.5, lambda x: x**-1.5, POSITIVE),
    "2.5 ** x": (lambda x: 2.5**x, lambda x: 2.5**x, POINTS),
    "10 / x": (lambda x: 10.0 / x, lambda x: 10.0 / x, POSITIVE),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float64_functions_are_accurate_to_float64(name: str) -> None:
    function, exact, points = FUNCTIONS[name]
    with mx.stream(mx.cpu):
        got = function(float64(points))
    assert got.dtype == mx.float64
    assert_close(got, [exact(x) for x in points], rtol=4e-16, what=name)


def test_float64_reductions_and_matmul_are_accurate_to_float64() -> None:
    rows = [[1 / 3, -2 / 7, 0.1], [5 / 9, 1 / 11, -3 / 13]]
    with mx.stream(mx.cpu):
        x = float64(rows)
        product, total, mean = x @ x.T, mx.sum(x), mx.mean(x, axis=0)
    want = [[math.fsum(a * b for a, b in zip(r, s, strict=True)) for s in rows] for r in rows]
    assert_close(product, want, rtol=4e-16, what="matmul")
    assert_close(total, math.fsum(sum(rows, [])), rtol=4e-16, what="sum")
    assert_close(mean, [(a + b) / 2 for a, b in zip(*rows, strict=True)], rtol=4e-16, what="mean")


def test_assert_close_fails_where_numpy_would() -> None:
    """The comparison the engine tier uses can fail: a value out of tolerance, a shape that differs."""
    assert_close([1.0, 2.0], [1.0, 2.0 + 1e-8], rtol=1e-7)
    with pytest.raises(AssertionError, match="1 of 2 elements differ"):
        assert_close([1.0, 2.0], [1.0, 2.001], rtol=1e-4)
    with pytest.raises(AssertionError, match="shape"):
        assert_close([1.0, 2.0], [[1.0, 2.0]])
