"""Every misuse raises its own exception type, with words that say what to do next.

Each test checks the type (so `except` clauses work) and a phrase from the
advice in the message (so the message keeps telling the reader the way out).
"""

from __future__ import annotations

from collections.abc import Callable

import mlx.core as mx
import pytest
from float64 import assert_equal

from mlx_autodiff import (
    AdamConfig,
    Device,
    DeviceMismatchError,
    Distribution,
    ForeignGradientsError,
    GradientsParams,
    InvalidDistributionError,
    LinearConfig,
    MseLoss,
    NonLeafRequireGradError,
    NotADeviceError,
    NotAModuleError,
    Reduction,
    SgdConfig,
    ShapeError,
    Tensor,
    UntrackedBackwardError,
)

FLEX = Device.flex().autodiff()
METAL = Device.metal().autodiff()

BINARY: dict[str, Callable[[Tensor, Tensor], Tensor]] = {
    "add": Tensor.add,
    "sub": Tensor.sub,
    "mul": Tensor.mul,
    "div": Tensor.div,
}

NOT_DEVICES = ["metal", None, 0, mx.cpu, Device.metal]


def leaf(shape: list[int], device: Device = FLEX) -> Tensor:
    return Tensor.ones(shape, device).require_grad()


def trained_linear(device: Device = FLEX) -> tuple[object, GradientsParams]:
    """A Linear and the GradientsParams of one backward through it."""
    model = LinearConfig(4, 1).init(device)
    x = Tensor.ones([8, 4], device)
    loss = MseLoss().forward(model.forward(x), Tensor.zeros([8, 1], device), Reduction.MEAN)
    return model, GradientsParams.from_grads(loss.backward(), model)


# ----- devices ----------------------------------------------------------------------


@pytest.mark.parametrize("op", [*BINARY, "matmul"])
def test_an_op_between_two_devices_says_to_move_one(op: str) -> None:
    a, b = leaf([2, 2], FLEX), leaf([2, 2], METAL)
    with pytest.raises(DeviceMismatchError, match="Move one with `to_device`") as caught:
        getattr(a, op)(b)
    assert "flex.autodiff" in str(caught.value) and "metal.autodiff" in str(caught.value)


def test_a_plain_tensor_on_another_device_is_still_a_mismatch() -> None:
    with pytest.raises(DeviceMismatchError, match="same device"):
        leaf([2], FLEX).add(Tensor.ones([2], Device.metal()))


# ids written out: repr(Device.metal) holds an address, and pytest-xdist's workers must collect one set of ids
@pytest.mark.parametrize("bad", NOT_DEVICES, ids=["'metal'", "None", "0", "mx.cpu", "Device.metal"])
@pytest.mark.parametrize(
    "call",
    [
        lambda d: Tensor.ones([2], FLEX).to_device(d),
        lambda d: LinearConfig(2, 1).init(FLEX).to_device(d),
        lambda d: LinearConfig(2, 1).init(FLEX).fork(d),
        lambda d: Tensor.random([2], Distribution.default(), d),
        lambda d: LinearConfig(2, 1).init(d),
    ],
    ids=["Tensor.to_device", "Module.to_device", "Module.fork", "Tensor.random", "LinearConfig.init"],
)
def test_something_that_is_not_a_device_is_refused(call: Callable[[object], object], bad: object) -> None:
    with pytest.raises(NotADeviceError, match=r"expects a Device such as Device\.metal\(\)\.autodiff\(\)"):
        call(bad)


# ----- shapes -----------------------------------------------------------------------


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("shapes", [([2, 3], [3, 2]), ([4], [3]), ([2, 3, 4], [5, 4])])
def test_binary_ops_refuse_shapes_that_do_not_broadcast(op: str, shapes: tuple[list[int], list[int]]) -> None:
    a, b = leaf(shapes[0]), leaf(shapes[1])
    with pytest.raises(ShapeError, match="equal or one of them 1. Reshape one operand"):
        BINARY[op](a, b)
    with pytest.raises(ShapeError, match=f"Cannot `{op}`"):
        BINARY[op](b, a)


@pytest.mark.parametrize(
    "left, right",
    [([2, 3], [2, 3]), ([2, 3], [3]), ([3], [3, 2]), ([2, 2, 3], [3, 3, 2]), ([5, 3], [4, 2])],
)
def test_matmul_refuses_shapes_that_do_not_chain(left: list[int], right: list[int]) -> None:
    with pytest.raises(ShapeError, match="Transpose or reshape one of them|Reshape one operand"):
        leaf(left).matmul(leaf(right))


@pytest.mark.parametrize("reduction", ["sum_dim", "mean_dim"])
@pytest.mark.parametrize("dim", [2, 7, -1])
def test_reducing_over_a_dim_that_does_not_exist(reduction: str, dim: int) -> None:
    with pytest.raises(ShapeError, match=r"dim must be one of 0\.\.1"):
        getattr(leaf([3, 4]), reduction)(dim)


@pytest.mark.parametrize("shape", [[0, 4], [4, 0], [-1, 4], [], [2.0, 4]], ids=repr)
@pytest.mark.parametrize(
    "make",
    [
        lambda s: Tensor.zeros(s, FLEX),
        lambda s: Tensor.ones(s, FLEX),
        lambda s: Tensor.random(s, Distribution.default(), FLEX),
    ],
    ids=["zeros", "ones", "random"],
)
def test_shapes_need_positive_sizes(make: Callable[[list[int]], Tensor], shape: list[int]) -> None:
    with pytest.raises(ShapeError, match="give one or more positive sizes"):
        make(shape)


def test_empty_data_is_not_a_tensor() -> None:
    with pytest.raises(ShapeError, match="positive sizes"):
        Tensor.from_data([], FLEX)


@pytest.mark.parametrize("sizes", [(0, 1), (4, 0), (-2, 1), (4, -1)])
def test_a_linear_layer_needs_positive_sizes(sizes: tuple[int, int]) -> None:
    with pytest.raises(ShapeError, match=r"positive integers, e\.g\. LinearConfig\(4, 1\)"):
        LinearConfig(*sizes)


def test_reshape_to_another_element_count() -> None:
    with pytest.raises(ShapeError, match="same number of elements"):
        leaf([2, 3]).reshape([4, 2])


def test_into_scalar_on_many_elements_says_to_reduce_first() -> None:
    with pytest.raises(ShapeError, match=r"Reduce it first, e\.g\. with \.mean\(\) or \.sum\(\)"):
        leaf([2, 2]).into_scalar()


# ----- scalars ----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["2", None, True, [1.0], mx.array(2.0)], ids=repr)
@pytest.mark.parametrize("op", [*BINARY, "powf_scalar"])
def test_a_scalar_op_needs_a_number(op: str, value: object) -> None:
    with pytest.raises(TypeError, match="expects a Tensor or a number"):
        getattr(leaf([2]), op)(value)


def test_a_number_on_the_left_works_and_a_string_does_not() -> None:
    assert (2.0 + leaf([2])).dims() == [2]
    with pytest.raises(TypeError, match="a Tensor or a number"):
        _ = "2" + leaf([2])


def test_matmul_with_a_number_is_refused() -> None:
    with pytest.raises(TypeError, match="`matmul` expects a Tensor"):
        leaf([2, 2]).matmul(2.0)  # type: ignore[arg-type]


# ----- backward ---------------------------------------------------------------------


def test_backward_on_a_non_scalar_seeds_ones_like_burn() -> None:
    """Burn seeds the root with ones: the gradient is that of `.sum()`."""
    values = mx.arange(6, dtype=mx.float32).reshape(2, 3) - 2.5
    x = Tensor.from_data(values, FLEX).require_grad()
    grads_direct = (x * x).backward()
    x_again = Tensor.from_data(values, FLEX).require_grad()
    grads_sum = (x_again * x_again).sum().backward()
    direct, summed = x.grad(grads_direct), x_again.grad(grads_sum)
    assert direct is not None and summed is not None
    assert_equal(direct.array, summed.array)
    assert_equal(direct.array, 2 * values)


def test_backward_on_a_plain_tensor_says_to_train() -> None:
    loss = Tensor.ones([1], Device.metal())
    with pytest.raises(UntrackedBackwardError, match=r"call `\.train\(\)` on the model") as caught:
        loss.backward()
    assert "plain device metal" in str(caught.value)


def test_backward_on_an_untracked_autodiff_tensor_names_its_node() -> None:
    loss = Tensor.ones([3], FLEX).mul(2.0).sum()
    with pytest.raises(UntrackedBackwardError, match="no tracked ancestor") as caught:
        loss.backward()
    assert f"NodeId({loss.node.id})" in str(caught.value)  # type: ignore[union-attr]
    assert "require_grad()" in str(caught.value)


def test_backward_on_a_plain_model_moved_to_an_autodiff_device() -> None:
    """The article's plain-to_device case: parameters stay plain, so the loss is untracked."""
    model = LinearConfig(4, 1).init(Device.flex())
    model.weight.val()
    model.bias.val()  # type: ignore[union-attr]
    model = model.to_device(METAL)
    loss = model.forward(Tensor.ones([2, 4], METAL)).mean()
    with pytest.raises(UntrackedBackwardError, match=r"model\.weight\.is_require_grad\(\)"):
        loss.backward()


def test_require_grad_on_an_op_output_says_detach_first() -> None:
    out = leaf([2]).mul(3.0)
    with pytest.raises(NonLeafRequireGradError, match=r"call `\.detach\(\)\.require_grad\(\)`"):
        out.require_grad()
    assert out.detach().require_grad().is_require_grad()


def test_require_grad_on_a_to_device_output_names_the_op() -> None:
    moved = leaf([2], FLEX).to_device(METAL)
    with pytest.raises(NonLeafRequireGradError, match="output of `to_device`"):
        moved.require_grad()


# ----- optimizer and gradients ------------------------------------------------------


@pytest.mark.parametrize("optimizer", [AdamConfig(), SgdConfig()], ids=["adam", "sgd"])
def test_a_step_with_another_modules_gradients(optimizer: AdamConfig | SgdConfig) -> None:
    _, grads = trained_linear()
    other = LinearConfig(4, 1).init(FLEX)
    with pytest.raises(ForeignGradientsError, match=r"GradientsParams\.from_grads\(grads, model\)") as caught:
        optimizer.init().step(0.1, other, grads)
    assert "2 gradient(s)" in str(caught.value)


@pytest.mark.parametrize("not_a_module", ["model", None, 3, Tensor.ones([2], FLEX)], ids=repr)
def test_from_grads_needs_a_module(not_a_module: object) -> None:
    grads = leaf([2]).sum().backward()
    with pytest.raises(NotAModuleError, match=r"expects a Module \(such as a Linear\)"):
        GradientsParams.from_grads(grads, not_a_module)  # type: ignore[arg-type]


@pytest.mark.parametrize("not_grads", [None, {}, "grads"], ids=repr)
def test_from_grads_needs_gradients(not_grads: object) -> None:
    with pytest.raises(TypeError, match=r"expects the Gradients returned by backward\(\)"):
        GradientsParams.from_grads(not_grads, LinearConfig(4, 1).init(FLEX))  # type: ignore[arg-type]


def test_a_gradients_object_is_not_gradients_params() -> None:
    model = LinearConfig(4, 1).init(FLEX)
    grads = model.forward(Tensor.ones([2, 4], FLEX)).mean().backward()
    with pytest.raises(TypeError, match=r"GradientsParams\.from_grads"):
        AdamConfig().init().step(0.1, model, grads)  # type: ignore[arg-type]


def test_an_optimizer_steps_modules_only() -> None:
    model, grads = trained_linear()
    with pytest.raises(NotAModuleError, match="expects a Module"):
        AdamConfig().init().step(0.1, model.weight, grads)  # type: ignore[attr-defined]


# ----- distributions ----------------------------------------------------------------


@pytest.mark.parametrize("lo, hi", [(1.0, 0.0), (0.5, -0.5), (float("nan"), 1.0)])
def test_uniform_with_bounds_the_wrong_way_round(lo: float, hi: float) -> None:
    with pytest.raises(InvalidDistributionError, match="Swap the two numbers"):
        Distribution.uniform(lo, hi)


@pytest.mark.parametrize("std", [-1.0, -1e-9, float("nan")])
def test_normal_with_a_negative_std(std: float) -> None:
    with pytest.raises(InvalidDistributionError, match="must be zero or positive"):
        Distribution.normal(0.0, std)


def test_invalid_distribution_is_a_value_error() -> None:
    """Typed errors still fit ordinary `except` clauses."""
    with pytest.raises(ValueError):
        Distribution.uniform(1.0, 0.0)
