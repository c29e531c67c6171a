"""Float64 on MLX's CPU: where the engine tier computes its references and compares its results.

The engine computes in float32; a reference in float64 keeps its own rounding far below the tests'
tolerances (central differences divide by a step of 1e-6). MLX has float64 on the CPU only (a Mac's
default device, the GPU, has none), so every float64 array here is made and used on the CPU stream,
named explicitly. The engine tier needs no NumPy: MLX, pytest and hypothesis only.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import mlx.core as mx


def float64(values: object) -> mx.array:
    """`values` (an MLX array, nested lists, a number) as a float64 array on the CPU."""
    if isinstance(values, mx.array):
        return values.astype(mx.float64, stream=mx.cpu)
    return mx.array(values, dtype=mx.float64)


def _exp(x: mx.array) -> mx.array:
    """`e ** x`: MLX 0.32.4's `exp` gives float64 only float32's accuracy on the CPU (relative error
    about 1e-7, https://github.com/ml-explore/mlx/issues/3047), which central differences with a step
    of 1e-6 would turn into errors of 10%; its `power` is accurate to float64 (test_float64_math.py)."""
    return mx.power(math.e, x)


MX64 = SimpleNamespace(**{name: getattr(mx, name) for name in dir(mx) if not name.startswith("_")})
MX64.exp = _exp
"""`mlx.core` as the references' `xp` on float64 arrays: the same functions, `exp` accurate."""


def assert_close(
    actual: object, desired: object, rtol: float = 1e-7, atol: float = 0.0, what: str = ""
) -> None:
    """NumPy's `assert_allclose` in float64 on the CPU: same shape, and everywhere
    `|actual - desired| <= atol + rtol * |desired|` (equal infinities and NaNs pass, as there)."""
    with mx.stream(mx.cpu):
        a, d = float64(actual), float64(desired)
        assert a.shape == d.shape, f"{what}: shape {a.shape} is not {d.shape}"
        error = mx.abs(a - d)
        close = (error <= atol + rtol * mx.abs(d)) | (a == d) | (mx.isnan(a) & mx.isnan(d))
        if mx.all(close).item():
            return
        wrong = int(mx.sum(~close).item())
        worst = mx.max(mx.where(close, 0.0, error)).item()
        raise AssertionError(
            f"{what}: not close (rtol={rtol}, atol={atol}): {wrong} of {a.size} elements differ, by up to "
            f"{worst:.3g}\n actual: {a.tolist()}\ndesired: {d.tolist()}"
        )


def assert_equal(actual: object, desired: object, what: str = "") -> None:
    """NumPy's `assert_array_equal`: the same shape and values."""
    assert_close(actual, desired, rtol=0.0, what=what)
