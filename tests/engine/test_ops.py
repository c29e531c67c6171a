"""Every op's backward, checked twice: against MLX's own autodiff and against central differences.

Each case runs the op on GRAD leaves, then backward from `(out * C).sum()` with a
random cotangent C, so the gradients reaching the leaves are the op's
vector-Jacobian product with C. The same product comes from `mx.vjp` on the
equivalent MLX expression, and from central differences of `sum(f(x) * C)` in
float64 on MLX's CPU (tests/engine/float64.py), where the step size does not
fight float32 rounding.

The ops are the engine's registry, `tensor.OPS`, and their references and
example inputs are in tests/engine/op_references.py (`CHECKED_OPS`, one per entry):
an op added to the engine fails here until it has a reference (and a Tensor
method that records an op fails until it is registered). What each backward
keeps alive is checked against its entry's `saves`.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import mlx.core as mx
import pytest
from float64 import MX64, assert_close, assert_equal, float64
from hypothesis import given
from hypothesis import strategies as st
from op_references import CHECKED_OPS, REFERENCES, CheckedOp
from strategies import Kind, Shape, arrays, broadcast_pairs, matmul_pairs, shapes

from mlx_autodiff import Device, DomainError, Tensor, ops
from mlx_autodiff.tensor import OPS

DEVICE = Device.flex().autodiff()
BY_NAME = {spec.name: spec for spec in CHECKED_OPS}
Reference = Callable[..., object]
"""`ref(xp, *arrays)`: what a case computes, with `xp` `mlx.core` (float32) or `MX64` (float64)."""


@dataclass(frozen=True)
class Case:
    """One way to call a registered op: the op itself, or a variant (other arguments, an operator).

    What comes from the op's reference is read when the case runs, so an op
    without a reference fails its own cases, not the collection of this file.
    """

    label: str
    spec: CheckedOp
    call: Callable[..., Tensor]
    overrides: Mapping[str, object] = field(default_factory=dict)
    """The arguments `call` passes in place of the example's; the reference gets the same."""
    domain_override: tuple[Kind, ...] | None = None

    @property
    def domain(self) -> tuple[Kind, ...]:
        return self.domain_override or self.spec.domain

    @property
    def ref(self) -> Reference:
        return lambda xp, *xs: self.spec.compute(xp, *xs, **self.overrides)

    def __repr__(self) -> str:
        return self.label


def registered(spec: CheckedOp) -> Case:
    return Case(spec.name, spec, spec)


def variant(label: str, name: str, call: Callable[..., Tensor], domain: tuple[Kind, ...] | None = None,
            **kwargs: object) -> Case:
    return Case(label, BY_NAME[name], call, kwargs, domain)


CASES = [registered(spec) for spec in CHECKED_OPS] + [
    variant("powf_scalar(0.5)", "pow", lambda x: x.powf_scalar(0.5), ("positive",), exponent=0.5),
    variant("powf_scalar(-1.5)", "pow", lambda x: x.powf_scalar(-1.5), ("positive",), exponent=-1.5),
    variant("x ** 2", "pow", lambda x: x**2, exponent=2),
    variant("x + 1.5", "add_scalar", lambda x: x + 1.5, other=1.5),
    variant("1.5 + x", "add_scalar", lambda x: 1.5 + x, other=1.5),
    variant("3 * x", "mul_scalar", lambda x: 3 * x, other=3),
    variant("1.5 - x", "rsub_scalar", lambda x: 1.5 - x, other=1.5),
    variant("10.0 / x", "rdiv_scalar", lambda x: 10.0 / x, other=10.0),
    variant("2.5 ** x", "rpow_scalar", lambda x: 2.5**x, other=2.5),
    variant("-x", "neg", lambda x: -x),
    variant("a @ b", "matmul", lambda a, b: a @ b),
    variant("to_device(metal) and back", "to_device",
            lambda x: x.to_device(Device.metal().autodiff()).to_device(DEVICE)),
]
"""Every op of `tensor.OPS`, then other calls of the same ops."""


def engine_vjp(
    engine: Callable[..., Tensor], inputs: list[mx.array], cotangent: mx.array, op: str | None = None
) -> list[mx.array]:
    """The engine's gradients of `sum(f(x) * C)` on fresh GRAD leaves, checked for shape (and op name)."""
    leaves = [Tensor.from_data(a, DEVICE).require_grad() for a in inputs]
    out = engine(*leaves)
    assert out.shape == cotangent.shape
    if op is not None:
        assert out.node.op == op, f"the call recorded {out.node.op!r}, the registry says {op!r}"
    grads = out.mul(Tensor.from_data(cotangent, DEVICE)).sum().backward()
    result = []
    for leaf in leaves:
        grad = grads.get(leaf)
        assert grad is not None, "a GRAD leaf the output depends on got no gradient"
        assert grad.shape == leaf.shape, "the gradient was not reduced back to its input's shape"
        assert not grad.is_autodiff, "gradients are plain tensors"
        result.append(grad.array)
    return result


def mlx_vjp(ref: Reference, inputs: list[mx.array], cotangent: mx.array) -> list[mx.array]:
    _, vjps = mx.vjp(lambda *xs: ref(mx, *xs), inputs, [cotangent])
    return vjps


def central_differences(
    ref: Reference, inputs: list[mx.array], cotangent: mx.array, h: float = 1e-6
) -> list[mx.array]:
    """The gradients of `sum(ref(x) * C)`, one element at a time, in float64 on the CPU.

    `mx.vmap` evaluates the objective at every element's step up (and down) in one call.
    """
    with mx.stream(mx.cpu):
        xs = [float64(a) for a in inputs]
        c = float64(cotangent)
        grads = []
        for i, x in enumerate(xs):

            def objective(moved: mx.array, i: int = i) -> mx.array:
                return mx.sum(ref(MX64, *xs[:i], moved, *xs[i + 1 :]) * c)

            # step k moves element k alone, by exactly h
            steps = (h * mx.eye(x.size, dtype=mx.float64)).reshape(x.size, *x.shape)
            slopes = (mx.vmap(objective)(x + steps) - mx.vmap(objective)(x - steps)) / (2 * h)
            grads.append(slopes.reshape(x.shape))
        return grads


def check(case: Case, inputs: list[mx.array], data: st.DataObject) -> None:
    out_shape = case.ref(mx, *inputs).shape  # MLX works out shapes without computing
    cotangent = data.draw(arrays(out_shape), label="cotangent")
    got = engine_vjp(case.call, inputs, cotangent, case.spec.name)
    from_mlx = mlx_vjp(case.ref, inputs, cotangent)
    numeric = central_differences(case.ref, inputs, cotangent)
    for grad, reference, estimate in zip(got, from_mlx, numeric, strict=True):
        assert_close(grad, reference, rtol=1e-4, atol=1e-5, what=f"{case} vs mx.vjp")
        assert_close(grad, estimate, rtol=1e-3, atol=1e-4, what=f"{case} vs central differences")


def operand_shapes(spec: CheckedOp) -> st.SearchStrategy[tuple[Shape, ...]]:
    """Shapes the op accepts, as its reference says."""
    if spec.operands == "broadcast":
        return broadcast_pairs()
    if spec.operands == "matmul":
        return matmul_pairs()
    return shapes(min_dims=2 if spec.operands == "matrix" else 1).map(lambda shape: (shape,))


def draw_inputs(data: st.DataObject, case: Case, shape_list: tuple[Shape, ...]) -> list[mx.array]:
    pairs = zip(shape_list, case.domain, strict=True)
    return [data.draw(arrays(s, k), label=f"input {i}") for i, (s, k) in enumerate(pairs)]


def test_every_registered_op_has_a_reference() -> None:
    assert sorted(REFERENCES) == sorted(BY_NAME), (
        "tests/engine/op_references.py must write every op of tensor.OPS")
    assert len({spec.name for spec in OPS}) == len(OPS), "two registry entries share a name"


NOT_OPS = {
    *("random", "from_data", "zeros", "ones", "from_inner"),
    *("dims", "to_mlx", "into_scalar", "clone"),
    *("is_require_grad", "require_grad", "set_require_grad", "detach", "inner"),
    *("backward", "grad", "grad_remove"),
}
"""Tensor's public methods that record no op: creation, reading, and the autodiff calls."""


def test_every_op_method_is_registered() -> None:
    """A new Tensor method either records an op (and goes in tensor.OPS) or is listed in NOT_OPS."""
    public = {name for name, value in vars(Tensor).items() if callable(value) and not name.startswith("_")}
    registered_methods = {spec.method for spec in OPS}
    assert public - NOT_OPS == {method for method in registered_methods if not method.startswith("_")}
    assert all(callable(getattr(Tensor, method)) for method in registered_methods)


@pytest.mark.parametrize("case", CASES, ids=repr)
@given(data=st.data())
def test_every_op_matches_mx_vjp_and_central_differences(case: Case, data: st.DataObject) -> None:
    check(case, draw_inputs(data, case, data.draw(operand_shapes(case.spec), label="shapes")), data)


@pytest.mark.parametrize("name", ["sum_dim", "mean_dim"])
@given(data=st.data())
def test_reductions_over_any_dim(name: str, data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    dim = data.draw(st.integers(0, len(shape) - 1), label="dim")
    case = variant(f"{name}(dim={dim})", name, lambda x: BY_NAME[name](x, dim=dim), dim=dim)
    check(case, draw_inputs(data, case, (shape,)), data)


@given(data=st.data())
def test_reshape_to_any_shape_of_the_same_size(data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    size = math.prod(shape)
    target = data.draw(st.sampled_from([(size,), (1, size), tuple(reversed(shape)), (-1, 1)]), label="target")
    case = variant(f"reshape({target})", "reshape", lambda x: x.reshape(target), shape=target)
    check(case, draw_inputs(data, case, (shape,)), data)


def test_matmul_broadcasts_a_batch_against_a_matrix() -> None:
    """The case a Linear on batched input hits: [2, 3, 4] @ [4, 5]; W's gradient sums over the batch."""
    key_a, key_b = mx.random.split(mx.random.key(0))
    a, b = mx.random.normal((2, 3, 4), key=key_a), mx.random.normal((4, 5), key=key_b)
    cotangent = mx.ones((2, 3, 5))
    grad_a, grad_b = engine_vjp(lambda x, w: x.matmul(w), [a, b], cotangent)
    with mx.stream(mx.cpu):
        a64, b64, cotangent64 = float64(a), float64(b), float64(cotangent)
        want_b, want_a = mx.einsum("bik,bij->kj", a64, cotangent64), cotangent64 @ b64.T
    assert_close(grad_b, want_b, rtol=1e-5, atol=1e-5)
    assert_close(grad_a, want_a, rtol=1e-5, atol=1e-5)


def test_sum_dim_keeps_the_dim() -> None:
    """Burn's `sum_dim(1)` of [32, 4] is [32, 1], not [32]: the article's target `x.sum_dim(1)`."""
    x = Tensor.from_data(mx.arange(128, dtype=mx.float32).reshape(32, 4), DEVICE).require_grad()
    y = x.sum_dim(1)
    assert y.shape == (32, 1)
    assert_equal(y.array[:, 0], [sum(range(4 * row, 4 * row + 4)) for row in range(32)])
    grad = y.backward().get(x)
    assert grad is not None and grad.shape == (32, 4)
    assert_equal(grad.array, [[1.0] * 4] * 32)


@given(x=shapes().flatmap(arrays))
def test_a_node_used_twice_gets_the_sum_of_its_gradients(x: mx.array) -> None:
    leaf = Tensor.from_data(x, DEVICE).require_grad()
    square = leaf.mul(leaf)
    assert [p.id for p in square.node.parents] == [leaf.node.id, leaf.node.id]
    assert_close(square.sum().backward().get(leaf).array, 2 * x, rtol=1e-6)

    leaf = Tensor.from_data(x, DEVICE).require_grad()
    doubled = leaf.add(leaf).sum().backward().get(leaf)
    assert_close(doubled.array, mx.full(x.shape, 2.0))


def test_a_node_reached_through_two_branches_gets_both_gradients() -> None:
    """x feeds `x * y` and `+ x`: d/dx sum(x * y + x) = y + 1, as mx.grad says."""
    x = mx.array([[1.0, -2.0], [0.5, 3.0]])
    y = mx.array([[4.0, 0.25], [-1.0, 2.0]])
    leaf = Tensor.from_data(x, DEVICE).require_grad()
    other = Tensor.from_data(y, DEVICE)
    got = leaf.mul(other).add(leaf).sum().backward().get(leaf).array
    want = mx.grad(lambda a: mx.sum(a * y + a))(x)
    assert_close(got, want, rtol=1e-6)
    assert_close(got, y + 1, rtol=1e-6)


def test_reflected_ops_record_one_node_each() -> None:
    """`k - x`, `k / x` and `k ** x` are one op each, named for what was written."""
    x = Tensor.from_data([[1.0, 2.0]], DEVICE).require_grad()
    for out, op in [(1.5 - x, "rsub_scalar"), (10.0 / x, "rdiv_scalar"), (2.0**x, "rpow_scalar")]:
        assert out.node.op == op
        assert [p.id for p in out.node.parents] == [x.node.id]
    assert_close((10.0 / x).array, [[10.0, 5.0]])


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


# ----- what each backward keeps alive ----------------------------------------------------------------


def arrays_kept(value: object) -> list[mx.array]:
    """Every MLX array reachable from a backward closure: its cells, the closures it calls, their cells."""
    found: list[mx.array] = []
    seen: set[int] = set()

    def visit(item: object) -> None:
        if id(item) in seen:
            return
        seen.add(id(item))
        if isinstance(item, mx.array):
            found.append(item)
        elif isinstance(item, Tensor):
            visit(item.array)
        elif isinstance(item, (tuple, list, dict)):
            for element in item.values() if isinstance(item, dict) else item:
                visit(element)
        elif isinstance(item, types.FunctionType):
            for cell in item.__closure__ or ():
                visit(cell.cell_contents)
            for default in item.__defaults__ or ():
                visit(default)

    visit(value)
    return found


EXAMPLE_SHAPES: dict[str, tuple[Shape, ...]] = {
    "any": ((2, 3),), "broadcast": ((2, 3), (2, 3)), "matmul": ((2, 3), (3, 4)), "matrix": ((2, 3),),
}


@pytest.mark.parametrize("spec", CHECKED_OPS, ids=repr)
def test_each_backward_keeps_alive_exactly_what_its_op_saves(spec: CheckedOp) -> None:
    """`@op(..., saves=...)` is checked, not a comment: the step's closure holds exactly those arrays."""
    shapes_in = EXAMPLE_SHAPES[spec.operands][: spec.arity]
    values = [mx.linspace(0.5, 2.0, math.prod(shape)).reshape(shape) for shape in shapes_in]
    leaves = [Tensor.from_data(value, DEVICE).require_grad() for value in values]
    out = spec(*leaves)
    assert out.node is not None and out.node.step is not None and out.node.step.backward is not None
    kept = {id(array) for array in arrays_kept(out.node.step.backward)}
    saved: set[int] = set()
    if "inputs" in spec.saves:
        saved |= {id(leaf.array) for leaf in leaves}
    if "output" in spec.saves:
        saved.add(id(out.array))
    names = {id(leaf.array): f"input {i}" for i, leaf in enumerate(leaves)} | {id(out.array): "output"}
    described = sorted(names.get(key, "another array") for key in kept)
    assert kept == saved, f"{spec.name}'s backward keeps {described or 'no array'}; its @op says {spec.saves}"


def test_op_registers_each_entry_on_its_method_in_reading_order_and_an_alias_once() -> None:
    """What a new op's `@op` lines give `OPS`: one entry each, top to bottom, in the class's order."""

    class Toy:
        @ops.op("first", saves=("inputs",))
        @ops.op("first_scalar")
        def first(self, other: object) -> None: ...

        alias = first

        @ops.op("second", saves=("output",))
        def second(self) -> None: ...

    entries = [(spec.name, spec.method, spec.saves) for spec in ops.registered(Toy)]
    assert entries == [
        ("first", "first", ("inputs",)),
        ("first_scalar", "first", ()),
        ("second", "second", ("output",)),
    ]


def test_an_op_without_a_reference_fails_its_tests_with_where_to_write_one() -> None:
    """A registry entry with no reference: each of its tests fails, and says what to add where."""
    unwritten = CheckedOp(ops.OpSpec("unwritten", "unwritten"))
    case = registered(unwritten)  # collecting its cases needs no reference: running them does
    with pytest.raises(LookupError, match=r"no reference for it: add `'unwritten': OpReference\(lambda xp"):
        case.call(Tensor.from_data([1.0, 2.0], DEVICE))
    with pytest.raises(LookupError, match="tests/engine/op_references.py has no reference"):
        operand_shapes(case.spec)
