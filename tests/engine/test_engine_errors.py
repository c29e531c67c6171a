"""Every error the core raises on purpose: its type, Burn's words first, then what to do.

Shape, dim, distribution and not-a-device errors are covered in test_bad_input.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from article_model import initialized

import mlx_autodiff
from mlx_autodiff import (
    AlreadyAutodiffError,
    AutodiffError,
    AutodiffMoveError,
    Device,
    DeviceMismatchError,
    MissingRootStepError,
    NonLeafRequireGradError,
    TapeConsumedError,
    Tensor,
    UntrackedBackwardError,
)

FLEX = Device.flex()
METAL = Device.metal()
FLEX_AD = FLEX.autodiff()
METAL_AD = METAL.autodiff()

BURN_TAPE_CONSUMED = "Cannot run backward: graph tape has already been consumed at NodeId("
BURN_UNTRACKED = (
    "Tensor::backward requires a tracked autodiff tensor; call "
    "Tensor::autodiff().require_grad() on the source leaf before computing the output"
)


def grad_leaf(device: Device = FLEX_AD) -> Tensor:
    return Tensor.from_data([[1.0, 2.0], [3.0, 4.0]], device).require_grad()


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (TapeConsumedError, RuntimeError),
        (UntrackedBackwardError, RuntimeError),
        (MissingRootStepError, RuntimeError),
        (NonLeafRequireGradError, RuntimeError),
        (AutodiffMoveError, RuntimeError),
        (AlreadyAutodiffError, RuntimeError),
        (DeviceMismatchError, ValueError),
    ],
)
def test_errors_are_exported_and_catchable_by_their_builtin_base(error: type, builtin: type) -> None:
    assert getattr(mlx_autodiff, error.__name__) is error and error.__name__ in mlx_autodiff.__all__
    assert issubclass(error, AutodiffError) and issubclass(error, builtin)


# ----- TapeConsumedError ---------------------------------------------------------------


def test_tape_consumed_at_a_to_device_node_explains_the_move_and_fork() -> None:
    model = initialized(FLEX_AD).to_device(METAL_AD)
    x = Tensor.from_data([[1.0, 2.0, 3.0, 4.0]], METAL_AD)
    model.forward(x).sum().backward()
    with pytest.raises(TapeConsumedError) as caught:
        model.forward(x).sum().backward()
    error, message = caught.value, str(caught.value)
    assert error.node.op == "to_device"
    assert message.startswith(f"{BURN_TAPE_CONSUMED}{error.node.id}). Burn does not support retain_graph.")
    for fragment in ("`to_device`", f"parameter '{error.node.label}'", "flex.autodiff", "metal.autodiff"):
        assert fragment in message
    assert "fork(device)" in message


def test_tape_consumed_at_an_ordinary_op_advises_recomputing() -> None:
    w = grad_leaf()
    hidden = w.matmul(w)
    hidden.sum().backward()
    with pytest.raises(TapeConsumedError) as caught:
        hidden.mean().backward()
    message = str(caught.value)
    assert message.startswith(f"{BURN_TAPE_CONSUMED}{hidden.node.id}).")
    assert "retain_graph" in message and "`matmul`" in message
    assert "recompute the forward pass" in message
    assert "fork" not in message


# ----- UntrackedBackwardError -----------------------------------------------------------

UNTRACKED_ROOTS: dict[str, Callable[[], Tensor]] = {
    "plain op output": lambda: Tensor.from_data([1.0, 2.0], FLEX).square().sum(),
    "plain leaf": lambda: Tensor.from_data([1.0, 2.0], METAL),
    "untracked autodiff op output": lambda: Tensor.from_data([1.0, 2.0], FLEX_AD).square().sum(),
    "untracked autodiff leaf": lambda: Tensor.from_data([1.0, 2.0], METAL_AD),
    "plain model's loss": lambda: (
        initialized(FLEX).fork(METAL_AD).forward(Tensor.ones([2, 4], METAL_AD)).sum()
    ),
}


@pytest.mark.parametrize("what", list(UNTRACKED_ROOTS))
def test_backward_on_an_untracked_root_uses_burns_words_and_advises_train(what: str) -> None:
    root = UNTRACKED_ROOTS[what]()
    with pytest.raises(UntrackedBackwardError) as caught:
        root.backward()
    message = str(caught.value)
    assert message.startswith(BURN_UNTRACKED)
    assert ".train()" in message
    if root.node is not None:
        assert f"NodeId({root.node.id})" in message


# ----- MissingRootStepError -------------------------------------------------------------


def test_backward_twice_on_the_same_loss_is_a_missing_root_step() -> None:
    loss = grad_leaf().square().sum()
    loss.backward()
    with pytest.raises(MissingRootStepError) as caught:
        loss.backward()
    message = str(caught.value)
    assert message.startswith("Node should have a step registered")
    assert f"NodeId({loss.node.id})" in message and "recompute the loss" in message


# ----- NonLeafRequireGradError -----------------------------------------------------------


@pytest.mark.parametrize(
    "make", [lambda w: w.mul(2.0), lambda w: w.to_device(METAL_AD)], ids=["op output", "to_device output"]
)
def test_require_grad_on_an_op_output(make: Callable[[Tensor], Tensor]) -> None:
    out = make(grad_leaf())
    with pytest.raises(NonLeafRequireGradError) as caught:
        out.require_grad()
    message = str(caught.value)
    assert message.startswith("Can't convert a non leaf tensor into a tracked tensor")
    assert f"NodeId({out.node.id})" in message and ".detach().require_grad()" in message
    assert out.detach().require_grad().is_require_grad(), "the advice works"


# ----- AutodiffMoveError ------------------------------------------------------------------


@pytest.mark.parametrize(
    "move",
    [lambda: grad_leaf().to_device(METAL), lambda: initialized(FLEX_AD).to_device(METAL)],
    ids=["tensor", "module"],
)
def test_moving_an_autodiff_tensor_to_a_plain_device(move: Callable[[], object]) -> None:
    with pytest.raises(AutodiffMoveError) as caught:
        move()
    message = str(caught.value)
    assert message.startswith("Cannot move between autodiff and non-autodiff instances.")
    assert ".inner()" in message and "model.valid()" in message and "metal.autodiff()" in message


# ----- AlreadyAutodiffError ----------------------------------------------------------------


@pytest.mark.parametrize(
    "wrap",
    [lambda: Tensor.from_inner(grad_leaf()), lambda: initialized(FLEX_AD).train()],
    ids=["from_inner", "Module.train"],
)
def test_wrapping_an_autodiff_tensor_again(wrap: Callable[[], object]) -> None:
    with pytest.raises(AlreadyAutodiffError) as caught:
        wrap()
    message = str(caught.value)
    assert message.startswith("Autodiff should not wrap an autodiff tensor.")
    assert "flex.autodiff" in message and "fork(device)" in message


# ----- DeviceMismatchError ------------------------------------------------------------------


@pytest.mark.parametrize(
    "combine",
    [
        lambda: grad_leaf(FLEX_AD).add(grad_leaf(METAL_AD)),
        lambda: grad_leaf(FLEX_AD).matmul(Tensor.from_data([[1.0], [2.0]], METAL_AD)),
        lambda: Tensor.from_data([1.0], FLEX).mul(Tensor.from_data([1.0], METAL)),
        lambda: initialized(FLEX_AD).forward(Tensor.ones([3, 4], METAL_AD)),
    ],
    ids=["add", "matmul", "plain mul", "Linear.forward"],
)
def test_an_op_across_two_devices_names_both(combine: Callable[[], Tensor]) -> None:
    with pytest.raises(DeviceMismatchError) as caught:
        combine()
    message = str(caught.value)
    assert "flex" in message and "metal" in message
    assert "to_device" in message
