"""The step-0 guard stops each failing relocation at step 0 and lets working ones train."""

from __future__ import annotations

import math

import pytest
from article_model import initialized

from mlx_autodiff import (
    AdamConfig,
    Device,
    Distribution,
    GradientsParams,
    LinearConfig,
    Module,
    MseLoss,
    NonFiniteLossError,
    TapeConsumedError,
    Tensor,
    UntrackedBackwardError,
)
from mlx_autodiff.guard import (
    MissingGradientsError,
    NotTrainableError,
    TrainingGuard,
    assert_trainable,
    explain_tape_consumed,
    why_not_trainable,
)

FLEX, METAL = Device.flex(), Device.metal().autodiff()


def batch():
    METAL.seed(1)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), METAL)
    return x, x.sum_dim(1)


def test_assert_trainable_names_to_device_outputs_and_the_fix():
    model = initialized(FLEX.autodiff()).to_device(METAL)
    with pytest.raises(NotTrainableError) as caught:
        assert_trainable(model)
    message = str(caught.value)
    assert "2 of 2 trainable parameters" in message
    assert "weight: the output of `to_device`" in message and "bias" in message
    assert "fork(device)" in message


def test_assert_trainable_names_plain_parameters_and_train():
    reasons = why_not_trainable(initialized(FLEX).fork(METAL))
    assert set(reasons) == {"weight", "bias"}
    assert all("plain tensor" in why and ".train()" in why for why in reasons.values())


@pytest.mark.parametrize(
    "model",
    [
        pytest.param(lambda: LinearConfig(4, 1).init(METAL), id="direct"),
        pytest.param(lambda: initialized(FLEX.autodiff()).fork(METAL), id="ad-fork"),
        pytest.param(lambda: LinearConfig(4, 1).init(FLEX.autodiff()).to_device(METAL), id="lazy"),
        pytest.param(lambda: initialized(FLEX).to_device(METAL).train(), id="plain-train"),
    ],
)
def test_guard_lets_working_moves_train(model):
    model = model()
    guard = TrainingGuard(model)
    x, y = batch()
    optim = AdamConfig().init()
    losses = []
    for step in range(3):
        loss = MseLoss().forward(model.forward(x), y)
        losses.append(loss.into_scalar())
        grads = guard.backward(step, loss, model)
        assert len(grads) == 2
        model = optim.step(0.1, model, grads)
    assert losses[-1] < losses[0]


def test_guard_stops_ad_to_device_at_step_zero_when_flags_are_not_checked():
    model = initialized(FLEX.autodiff()).to_device(METAL)
    guard = TrainingGuard(model, check_flags=False)
    x, y = batch()
    loss = MseLoss().forward(model.forward(x), y)
    with pytest.raises(MissingGradientsError) as caught:
        guard.backward(0, loss, model)
    message = str(caught.value)
    assert message.startswith("step 0: 0 gradient(s) for 2 trainable parameters")
    assert "no gradient for weight, bias" in message and "fork(device)" in message


def test_guard_made_before_a_freeze_says_the_count_changed_not_which_parameter_missed():
    """Every parameter meant to train got its gradient, but fewer than the guard counted when it was
    made: the message names no missing parameter (it once said "no gradient for ."), it says why."""
    model = initialized(FLEX.autodiff()).fork(METAL)
    guard = TrainingGuard(model)
    model = model.map_params(lambda param: param.no_grad() if param.name == "bias" else param)
    x, y = batch()
    with pytest.raises(MissingGradientsError) as caught:
        guard.backward(0, MseLoss().forward(model.forward(x), y), model)
    message = str(caught.value)
    assert message.startswith("step 0: 1 gradient(s) for 2 trainable parameters, the count when the guard")
    assert "the model has 1 trainable parameters now" in message and "no gradient for" not in message


def test_guard_names_a_parameter_flagged_frozen_whose_tensor_still_tracks():
    """Only the private `Param._with` makes one (the tenth learner's hand-made fork): two gradients for one
    parameter meant to train, and the message says which one got a gradient it should not have."""
    model = initialized(FLEX.autodiff()).fork(METAL).map_params(
        lambda param: param._with(param.val(), require_grad=False) if param.name == "bias" else param)
    guard = TrainingGuard(model)
    x, y = batch()
    with pytest.raises(MissingGradientsError) as caught:
        guard.backward(0, MseLoss().forward(model.forward(x), y), model)
    message = str(caught.value)
    assert message.startswith("step 0: 2 gradient(s) for 1 trainable parameters; bias got one though its")
    assert "`no_grad()`" in message


class Pair(Module):
    """Two models side by side, their outputs added: one backward gives gradients for both."""

    def __init__(self, first: Module, second: Module) -> None:
        self.first, self.second = first, second

    def forward(self, x: Tensor) -> Tensor:
        return self.first.forward(x) + self.second.forward(x)


def test_guard_given_another_models_gradients_says_they_are_not_this_models():
    model, other = (initialized(FLEX.autodiff()).fork(METAL) for _ in range(2))
    both = Pair(model, other)
    guard = TrainingGuard(model)
    x, y = batch()
    grads = GradientsParams.from_grads(MseLoss().forward(both.forward(x), y).backward(), both)
    with pytest.raises(MissingGradientsError) as caught:
        guard.check_gradients(0, grads, model)
    message = str(caught.value)
    assert message.startswith("step 0: 4 gradient(s) for 2 trainable parameters, yet none is missing")
    assert "`GradientsParams.from_grads(loss.backward(), model)`" in message


def test_guard_given_a_model_holding_one_parameter_twice_says_hold_it_once():
    """Weight tying by holding one Linear twice: two places, one ParamId, one gradient."""
    shared = initialized(FLEX.autodiff()).fork(METAL)
    tied = Pair(shared, shared)
    guard = TrainingGuard(tied)
    x, y = batch()
    with pytest.raises(MissingGradientsError) as caught:
        guard.backward(0, MseLoss().forward(tied.forward(x), y), tied)
    message = str(caught.value)
    assert message.startswith("step 0: 2 gradient(s) for 4 trainable parameters, yet none is missing")
    assert "hold each parameter in one place only" in message


def test_guard_points_a_tape_consumed_error_at_to_device():
    model = initialized(FLEX.autodiff()).to_device(METAL)
    guard = TrainingGuard(model, check_flags=False)
    guard.check_gradients = lambda *args: None  # let step 0 through to reach step 1's error
    x, y = batch()
    guard.backward(0, MseLoss().forward(model.forward(x), y), model)
    with pytest.raises(TapeConsumedError) as caught:
        guard.backward(1, MseLoss().forward(model.forward(x), y), model)
    message = str(caught.value)
    assert "graph tape has already been consumed" in message
    assert "backward call #2 of this loop" in message
    assert "parameter 'bias' is a `to_device` output. Use `fork`." in message


def test_guard_does_not_hide_an_untracked_loss():
    model = initialized(FLEX).fork(METAL)
    guard = TrainingGuard(model, check_flags=False)
    x, y = batch()
    with pytest.raises(UntrackedBackwardError):
        guard.backward(0, MseLoss().forward(model.forward(x), y), model)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_guard_stops_on_a_non_finite_loss(value):
    guard = TrainingGuard(LinearConfig(4, 1).init(METAL))
    with pytest.raises(NonFiniteLossError, match=r"step 3: the loss is"):
        guard.check_loss(3, value)


def test_explain_for_a_reused_intermediate_does_not_blame_to_device():
    w = Tensor.ones([2, 2], METAL).require_grad()
    hidden = w * 2.0
    hidden.sum().backward()
    with pytest.raises(TapeConsumedError) as caught:
        hidden.sum().backward()
    advice = explain_tape_consumed(caught.value, backward_calls=2, step=1)
    assert "computed once, before the loop" in advice and "to_device" not in advice.split("Guard:")[1]


def test_guard_rejects_what_is_not_a_module_or_a_loss():
    from mlx_autodiff import NotAModuleError

    with pytest.raises(NotAModuleError):
        TrainingGuard("model")
    guard = TrainingGuard(LinearConfig(4, 1).init(METAL))
    with pytest.raises(TypeError, match="expects the loss Tensor"):
        guard.backward(0, 1.0, LinearConfig(4, 1).init(METAL))


def frozen_bias_model(device: Device):
    """A Linear whose bias is frozen on purpose (`no_grad()` clears its stored flag)."""
    model = initialized(device)
    model.bias = model.bias.no_grad()
    return model


def test_counts_are_elements_tensors_and_trainable_tensors():
    """Burn's `num_params` counts numbers (4 weights + 1 bias); gradients come one per tensor."""
    model = frozen_bias_model(FLEX.autodiff())
    assert model.num_params() == 5
    assert model.num_param_tensors() == 2
    assert model.num_trainable_param_tensors() == 1
    assert LinearConfig(3, 2).init(FLEX).num_params() == 3 * 2 + 2


def test_num_params_reads_lazy_parameters_as_burns_visitor_does():
    model = LinearConfig(4, 1).init(FLEX.autodiff())
    assert not model.weight.is_initialized()
    assert model.num_param_tensors() == 2 and model.num_trainable_param_tensors() == 2
    assert not model.weight.is_initialized(), "counting tensors and flags reads nothing"
    model.num_params()
    assert model.weight.is_initialized() and model.bias.is_initialized()


def test_guard_trains_a_model_with_a_frozen_parameter():
    model = frozen_bias_model(FLEX.autodiff()).fork(METAL)
    guard = TrainingGuard(model)  # the frozen bias is not a reason to stop
    assert guard.expected == 1
    x, y = batch()
    optim = AdamConfig().init()
    frozen_before = model.bias.val().array
    for step in range(3):
        loss = MseLoss().forward(model.forward(x), y)
        grads = guard.backward(step, loss, model)
        assert len(grads) == 1
        model = optim.step(1e-1, model, grads)
    assert bool((model.bias.val().array == frozen_before).all()), "a frozen bias keeps its values"


def test_guard_still_stops_a_moved_model_with_a_frozen_parameter():
    """Freezing one parameter must not hide the other one's `to_device` node."""
    model = frozen_bias_model(FLEX.autodiff()).to_device(METAL)
    with pytest.raises(NotTrainableError) as caught:
        TrainingGuard(model)
    message = str(caught.value)
    assert "1 of 1 trainable parameters" in message and "weight: the output of `to_device`" in message
    assert "bias" not in message
