"""Every op's backward, checked twice: against MLX's own autodiff and against central differences.

Each case runs the op on GRAD leaves, then backward from `(out * C).sum()` with a
random cotangent C, so the gradients reaching the leaves are the op's
vector-Jacobian product with C. The same product comes from `mx.vjp` on the
equivalent MLX expression, and from central differences of `sum(f(x) * C)` in
float64 NumPy, where the step size does not fight float32 rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import mlx.core as mx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import Kind, Shape, arrays, broadcast_pairs, matmul_pairs, shapes

from mlx_autodiff import Device, DomainError, Tensor

DEVICE = Device.flex().autodiff()

Reference = Callable[..., object]
"""`ref(xp, *arrays)`: the op written once for both `xp=mx` and `xp=np`."""


@dataclass(frozen=True)
class Op:
    name: str
    engine: Callable[..., Tensor]
    ref: Reference
    kinds: tuple[Kind, ...] = ("any",)

    def __repr__(self) -> str:
        return self.name


def engine_vjp(
    engine: Callable[..., Tensor], inputs: list[np.ndarray], cotangent: np.ndarray
) -> list[np.ndarray]:
    """The engine's gradients of `sum(f(x) * C)` on fresh GRAD leaves, checked for shape."""
    leaves = [Tensor.from_data(a, DEVICE).require_grad() for a in inputs]
    out = engine(*leaves)
    assert out.shape == cotangent.shape
    grads = out.mul(Tensor.from_data(cotangent, DEVICE)).sum().backward()
    result = []
    for leaf in leaves:
        grad = grads.get(leaf)
        assert grad is not None, "a GRAD leaf the output depends on got no gradient"
        assert grad.shape == leaf.shape, "the gradient was not reduced back to its input's shape"
        assert not grad.is_autodiff, "gradients are plain tensors"
        result.append(np.array(grad.array))
    return result


def mlx_vjp(ref: Reference, inputs: list[np.ndarray], cotangent: np.ndarray) -> list[np.ndarray]:
    _, vjps = mx.vjp(lambda *xs: ref(mx, *xs), [mx.array(a) for a in inputs], [mx.array(cotangent)])
    return [np.array(v) for v in vjps]


def central_differences(
    ref: Reference, inputs: list[np.ndarray], cotangent: np.ndarray, h: float = 1e-6
) -> list[np.ndarray]:
    xs = [a.astype(np.float64) for a in inputs]
    c = cotangent.astype(np.float64)

    def objective(args: list[np.ndarray]) -> float:
        return float(np.sum(np.asarray(ref(np, *args)) * c))

    grads = []
    for i, x in enumerate(xs):
        grad = np.zeros_like(x)
        for index in np.ndindex(x.shape):
            up = [a.copy() for a in xs]
            down = [a.copy() for a in xs]
            up[i][index] += h
            down[i][index] -= h
            grad[index] = (objective(up) - objective(down)) / (2 * h)
        grads.append(grad)
    return grads


def check(op: Op, inputs: list[np.ndarray], data: st.DataObject) -> None:
    out_shape = np.shape(op.ref(np, *[a.astype(np.float64) for a in inputs]))
    cotangent = data.draw(arrays(out_shape), label="cotangent")
    got = engine_vjp(op.engine, inputs, cotangent)
    from_mlx = mlx_vjp(op.ref, inputs, cotangent)
    numeric = central_differences(op.ref, inputs, cotangent)
    for grad, reference, estimate in zip(got, from_mlx, numeric, strict=True):
        np.testing.assert_allclose(grad, reference, rtol=1e-4, atol=1e-5, err_msg=f"{op} vs mx.vjp")
        np.testing.assert_allclose(
            grad, estimate, rtol=1e-3, atol=1e-4, err_msg=f"{op} vs central differences"
        )


def draw_inputs(data: st.DataObject, op: Op, shape_list: list[Shape]) -> list[np.ndarray]:
    pairs = zip(shape_list, op.kinds, strict=True)
    return [data.draw(arrays(s, k), label=f"input {i}") for i, (s, k) in enumerate(pairs)]


BINARY = [
    Op("add", lambda a, b: a.add(b), lambda xp, a, b: a + b, ("any", "any")),
    Op("sub", lambda a, b: a.sub(b), lambda xp, a, b: a - b, ("any", "any")),
    Op("mul", lambda a, b: a.mul(b), lambda xp, a, b: a * b, ("any", "any")),
    Op("div", lambda a, b: a.div(b), lambda xp, a, b: a / b, ("any", "positive")),
]


@pytest.mark.parametrize("op", BINARY, ids=repr)
@given(data=st.data())
def test_binary_ops_broadcast(op: Op, data: st.DataObject) -> None:
    a_shape, b_shape = data.draw(broadcast_pairs(), label="shapes")
    check(op, draw_inputs(data, op, [a_shape, b_shape]), data)


def _scalar(xp: ModuleType, value: object) -> object:
    """A sum or mean as the engine shapes it: one element, shape [1]."""
    return xp.reshape(value, (1,))


UNARY = [
    Op("neg", lambda x: x.neg(), lambda xp, x: -x),
    Op("square", lambda x: x.square(), lambda xp, x: x * x),
    Op("exp", lambda x: x.exp(), lambda xp, x: xp.exp(x)),
    Op("log", lambda x: x.log(), lambda xp, x: xp.log(x), ("positive",)),
    Op("relu", lambda x: x.relu(), lambda xp, x: xp.maximum(x, 0.0), ("nonzero",)),
    Op("powf_scalar(3)", lambda x: x.powf_scalar(3), lambda xp, x: x**3),
    Op("powf_scalar(0.5)", lambda x: x.powf_scalar(0.5), lambda xp, x: x**0.5, ("positive",)),
    Op("powf_scalar(-1.5)", lambda x: x.powf_scalar(-1.5), lambda xp, x: x**-1.5, ("positive",)),
    Op("x ** 2", lambda x: x**2, lambda xp, x: x**2),
    Op("add_scalar", lambda x: x.add(1.5), lambda xp, x: x + 1.5),
    Op("sub_scalar", lambda x: x.sub(0.75), lambda xp, x: x - 0.75),
    Op("mul_scalar", lambda x: x.mul(-2.5), lambda xp, x: x * -2.5),
    Op("div_scalar", lambda x: x.div(4.0), lambda xp, x: x / 4.0),
    Op("scalar + x", lambda x: 1.5 + x, lambda xp, x: 1.5 + x),
    Op("scalar - x", lambda x: 1.5 - x, lambda xp, x: 1.5 - x),
    Op("scalar * x", lambda x: 3 * x, lambda xp, x: 3 * x),
    Op("scalar / x", lambda x: 10.0 / x, lambda xp, x: 10.0 / x, ("positive",)),
    Op("scalar ** x", lambda x: 2.5**x, lambda xp, x: 2.5**x),
    Op("sum", lambda x: x.sum(), lambda xp, x: _scalar(xp, xp.sum(x))),
    Op("mean", lambda x: x.mean(), lambda xp, x: _scalar(xp, xp.mean(x))),
]


@pytest.mark.parametrize("op", UNARY, ids=repr)
@given(data=st.data())
def test_unary_ops(op: Op, data: st.DataObject) -> None:
    check(op, draw_inputs(data, op, [data.draw(shapes(), label="shape")]), data)


@pytest.mark.parametrize("name", ["sum_dim", "mean_dim"])
@given(data=st.data())
def test_reductions_over_a_dim(name: str, data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    dim = data.draw(st.integers(0, len(shape) - 1), label="dim")
    xp_name = name.removesuffix("_dim")
    op = Op(
        f"{name}({dim})",
        lambda x: getattr(x, name)(dim),
        lambda xp, x: getattr(xp, xp_name)(x, axis=dim, keepdims=True),
    )
    check(op, draw_inputs(data, op, [shape]), data)


@given(data=st.data())
def test_reshape(data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    size = int(np.prod(shape))
    target = data.draw(st.sampled_from([(size,), (1, size), tuple(reversed(shape)), (-1, 1)]), label="target")
    op = Op(f"reshape({target})", lambda x: x.reshape(target), lambda xp, x: xp.reshape(x, target))
    check(op, draw_inputs(data, op, [shape]), data)


@given(data=st.data())
def test_transpose(data: st.DataObject) -> None:
    shape = data.draw(shapes(min_dims=2), label="shape")
    op = Op("transpose", lambda x: x.transpose(), lambda xp, x: xp.swapaxes(x, -1, -2))
    check(op, draw_inputs(data, op, [shape]), data)


@given(data=st.data())
def test_matmul_with_batch_broadcast(data: st.DataObject) -> None:
    a_shape, b_shape = data.draw(matmul_pairs(), label="shapes")
    op = Op("matmul", lambda a, b: a.matmul(b), lambda xp, a, b: a @ b, ("any", "any"))
    check(op, draw_inputs(data, op, [a_shape, b_shape]), data)


def test_matmul_broadcasts_a_batch_against_a_matrix() -> None:
    """The case a Linear on batched input hits: [2, 3, 4] @ [4, 5]; W's gradient sums over the batch."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 4)).astype(np.float32), rng.normal(size=(4, 5)).astype(np.float32)
    cotangent = np.ones((2, 3, 5), np.float32)
    grad_a, grad_b = engine_vjp(lambda x, w: x.matmul(w), [a, b], cotangent)
    np.testing.assert_allclose(grad_b, np.einsum("bik,bij->kj", a, cotangent), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad_a, cotangent @ b.T, rtol=1e-5, atol=1e-5)


def test_sum_dim_keeps_the_dim() -> None:
    """Burn's `sum_dim(1)` of [32, 4] is [32, 1], not [32]: the article's target `x.sum_dim(1)`."""
    x = Tensor.from_data(np.arange(128, dtype=np.float32).reshape(32, 4), DEVICE).require_grad()
    y = x.sum_dim(1)
    assert y.shape == (32, 1)
    np.testing.assert_array_equal(np.array(y.array)[:, 0], np.arange(128).reshape(32, 4).sum(axis=1))
    grad = y.backward().get(x)
    assert grad is not None and grad.shape == (32, 4)
    np.testing.assert_array_equal(np.array(grad.array), np.ones((32, 4)))


@given(x=shapes().flatmap(arrays))
def test_a_node_used_twice_gets_the_sum_of_its_gradients(x: np.ndarray) -> None:
    leaf = Tensor.from_data(x, DEVICE).require_grad()
    square = leaf.mul(leaf)
    assert [p.id for p in square.node.parents] == [leaf.node.id, leaf.node.id]
    np.testing.assert_allclose(np.array(square.sum().backward().get(leaf).array), 2 * x, rtol=1e-6)

    leaf = Tensor.from_data(x, DEVICE).require_grad()
    doubled = leaf.add(leaf).sum().backward().get(leaf)
    np.testing.assert_allclose(np.array(doubled.array), np.full(x.shape, 2.0))


def test_a_node_reached_through_two_branches_gets_both_gradients() -> None:
    """x feeds `x * y` and `+ x`: d/dx sum(x * y + x) = y + 1, as mx.grad says."""
    x = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    y = np.array([[4.0, 0.25], [-1.0, 2.0]], np.float32)
    leaf = Tensor.from_data(x, DEVICE).require_grad()
    other = Tensor.from_data(y, DEVICE)
    got = np.array(leaf.mul(other).add(leaf).sum().backward().get(leaf).array)
    want = mx.grad(lambda a: mx.sum(a * mx.array(y) + a))(mx.array(x))
    np.testing.assert_allclose(got, np.array(want), rtol=1e-6)
    np.testing.assert_allclose(got, y + 1, rtol=1e-6)


def test_reflected_ops_record_one_node_each() -> None:
    """`k - x`, `k / x` and `k ** x` are one op each, named for what was written."""
    x = Tensor.from_data([[1.0, 2.0]], DEVICE).require_grad()
    for out, op in [(1.5 - x, "rsub_scalar"), (10.0 / x, "rdiv_scalar"), (2.0**x, "rpow_scalar")]:
        assert out.node.op == op
        assert [p.id for p in out.node.parents] == [x.node.id]
    np.testing.assert_allclose(np.array((10.0 / x).array), [[10.0, 5.0]])


def test_a_non_positive_base_is_a_domain_error() -> None:
    x = Tensor.from_data([1.0, 2.0], DEVICE).require_grad()
    with pytest.raises(DomainError, match="base must be positive"):
        (-2.0) ** x
    with pytest.raises(TypeError, match="expects a Tensor or a number"):
        "2" / x


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.sum_dim(dim=1),
        lambda x: x.mean_dim(dim=0),
        lambda x: x.reshape(shape=[4, 1]),
        lambda x: x.powf_scalar(exponent=2),
        lambda x: x.add(other=1.0),
        lambda x: x.matmul(other=Tensor.from_data([[1.0], [2.0]], DEVICE)),
    ],
    ids=["sum_dim", "mean_dim", "reshape", "powf_scalar", "add", "matmul"],
)
def test_ops_take_keyword_arguments(call: Callable[[Tensor], Tensor]) -> None:
    """Burn's names for the arguments work as keywords, as they do positionally."""
    x = Tensor.from_data([[1.0, 2.0], [3.0, 4.0]], DEVICE).require_grad()
    out = call(x)
    assert out.node is not None and out.node.parents[0].id == x.node.id
    assert out.sum().backward().get(x) is not None
