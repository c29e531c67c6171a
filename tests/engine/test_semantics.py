"""The Burn rules the book leans on, one test each (docs/burn-reading.md, rules 1-21)."""

from __future__ import annotations

import copy
import math

import mlx.core as mx
import pytest
from article_model import initialized
from float64 import assert_close, assert_equal, float64
from op_references import CHECKED_OPS

from mlx_autodiff import (
    AdamConfig,
    Device,
    Distribution,
    GradientsParams,
    LinearConfig,
    MissingRootStepError,
    Requirement,
    SgdConfig,
    TapeConsumedError,
    Tensor,
    accelerator_backend,
)

FLEX = Device.flex()
METAL = Device.metal()
FLEX_AD = FLEX.autodiff()
METAL_AD = METAL.autodiff()


def grad_leaf(values: object, device: Device = FLEX_AD) -> Tensor:
    return Tensor.from_data(values, device).require_grad()


def as_float64(tensor: Tensor) -> mx.array:
    """A tensor's values as a float64 array on the CPU, where the references below compute."""
    return float64(tensor.array)


# ----- leaves and requirements (rules 3-5) ------------------------------------------------


def test_random_on_an_autodiff_device_is_an_untracked_leaf() -> None:
    x = Tensor.random([2, 3], Distribution.default(), FLEX_AD)
    assert x.node.requirement is Requirement.NONE
    assert x.node.parents == () and x.node.is_leaf


def test_require_grad_makes_a_grad_leaf_with_the_same_id() -> None:
    x = Tensor.random([2, 3], Distribution.default(), FLEX_AD)
    w = x.require_grad()
    assert w.node.requirement is Requirement.GRAD
    assert w.node.id == x.node.id
    assert w.require_grad().node is w.node, "require_grad on a GRAD leaf is a no-op"


def test_an_op_on_a_grad_leaf_gives_grad_in_backward() -> None:
    w = grad_leaf([[1.0, 2.0]])
    constant = Tensor.from_data([[3.0, 4.0]], FLEX_AD)
    out = w.mul(constant)
    assert out.node.requirement is Requirement.GRAD_IN_BACKWARD
    assert out.node.parents == (w.node,), "parents hold only the tracked inputs"
    assert not out.node.is_leaf


def test_an_op_on_untracked_inputs_only_gives_none() -> None:
    a = Tensor.from_data([1.0, 2.0], FLEX_AD)
    out = a.add(a).exp()
    assert out.node.requirement is Requirement.NONE
    assert out.node.parents == ()


def test_is_require_grad_is_true_only_for_grad_leaves() -> None:
    """Rule 4: GRAD leaf true; NONE leaf, op outputs, to_device outputs and plain tensors false."""
    leaf = Tensor.from_data([1.0, 2.0], FLEX_AD)
    w = leaf.require_grad()
    assert w.is_require_grad()
    assert not leaf.is_require_grad()
    assert not w.mul(2.0).is_require_grad()
    assert not w.to_device(METAL_AD).is_require_grad()
    assert not leaf.exp().is_require_grad()
    assert not Tensor.from_data([1.0], FLEX).is_require_grad()
    assert not Tensor.from_data([1.0], FLEX).require_grad().is_require_grad(), "no-op on plain"


def test_detach_keeps_grad_and_set_require_grad_false_drops_it() -> None:
    w = grad_leaf([1.0, 2.0])
    assert w.detach().is_require_grad()
    assert w.detach().node.parents == ()
    assert not w.mul(2.0).detach().is_require_grad(), "detaching an op output gives an untracked leaf"
    off = w.set_require_grad(False)
    assert off.node.requirement is Requirement.NONE


# ----- node ids (rules 1, 11) ----------------------------------------------------------


def test_node_ids_increase_in_creation_order() -> None:
    a = Tensor.from_data([1.0, 2.0], FLEX_AD)
    b = Tensor.random([2], Distribution.default(), FLEX_AD)
    c = Tensor.zeros([2], FLEX_AD)
    d = Tensor.ones([2], FLEX_AD)
    ids = [t.node.id for t in (a, b, c, d)]
    assert ids == sorted(ids) and len(set(ids)) == 4


def test_require_grad_keeps_the_id_and_everything_else_takes_a_new_one() -> None:
    """Rule 1: every op of the registry (`tensor.OPS`), and every way to make a leaf, takes a new id."""
    w = grad_leaf([[1.0, 2.0], [3.0, 4.0]])  # positive, square: every op applies to it
    seen = [w.node.id]
    made = {
        "detach": w.detach(),
        "set_require_grad(False)": w.set_require_grad(False),
        "from_inner": Tensor.from_inner(w.inner()),
        "to_device (another device)": w.to_device(METAL_AD),
        **{spec.name: spec(*[w] * spec.arity) for spec in CHECKED_OPS},
        "untracked op": Tensor.from_data([1.0], FLEX_AD).exp(),
    }
    for what, tensor in made.items():
        assert tensor.node.id > max(seen), f"{what} did not allocate a new, larger id"
        seen.append(tensor.node.id)
    for spec in CHECKED_OPS:
        assert made[spec.name].node.op == spec.name, f"{spec.method} records {made[spec.name].node.op!r}"
        assert made[spec.name].node.parents == (w.node,) * spec.arity, f"{spec.name}'s parents"
    untracked = Tensor.from_data([1.0], FLEX_AD)
    assert untracked.require_grad().node.id == untracked.node.id


def test_plain_tensors_have_no_node() -> None:
    x = Tensor.from_data([1.0, 2.0], FLEX)
    assert x.node is None
    assert x.exp().node is None and x.to_device(METAL).node is None
    assert x.to_device(METAL_AD).node is None, "a plain tensor moved to an autodiff device stays plain"


# ----- backward and the tape (rules 8-10) ---------------------------------------------------


def test_a_reused_intermediate_raises_tape_consumed_naming_its_node() -> None:
    w = grad_leaf([[1.0], [2.0]])
    x = Tensor.from_data([[1.0, 2.0], [3.0, 4.0]], FLEX_AD)
    hidden = x.matmul(w)
    hidden.sum().backward()
    with pytest.raises(TapeConsumedError) as caught:
        hidden.mean().backward()
    assert caught.value.node is hidden.node
    assert f"NodeId({hidden.node.id})" in str(caught.value)


def test_the_same_loss_twice_raises_missing_root_step() -> None:
    w = grad_leaf([1.0, 2.0])
    loss = w.square().sum()
    loss.backward()
    with pytest.raises(MissingRootStepError):
        loss.backward()


def test_a_leaf_is_reused_across_many_backward_passes() -> None:
    """Each forward pass records new steps; the GRAD leaf's own step is a no-op, so nothing is missing."""
    w = grad_leaf([1.0, -2.0, 3.0])
    first = w.square().sum().backward().get(w)
    second = w.mul(5.0).sum().backward().get(w)
    third = w.square().sum().backward().get(w)
    assert_close(first.array, [2.0, -4.0, 6.0])
    assert_close(second.array, [5.0, 5.0, 5.0])
    assert_close(third.array, first.array)


def test_backward_keeps_only_grad_leaf_gradients() -> None:
    w = grad_leaf([1.0, 2.0])
    hidden = w.mul(3.0)
    grads = hidden.sum().backward()
    assert grads.node_ids() == [w.node.id]
    assert grads.get(hidden) is None


def test_gradients_land_on_the_cpu_original_after_to_device() -> None:
    cpu_w = grad_leaf([[1.0, 2.0], [3.0, 4.0]])
    moved = cpu_w.to_device(METAL_AD)
    assert moved.node.op == "to_device" and moved.node.parents == (cpu_w.node,)
    x = Tensor.from_data([[1.0, 1.0], [2.0, 2.0]], METAL_AD)
    grads = moved.mul(x).sum().backward()
    grad = grads.get(cpu_w)
    assert grad is not None and grad.shape == cpu_w.shape
    assert grad.device == FLEX and not grad.device.is_autodiff
    assert grads.device_of(cpu_w.node.id) == FLEX
    assert_close(grad.array, [[1.0, 1.0], [2.0, 2.0]])
    assert grads.get(moved) is None, "the moved tensor is in transit: its gradient is not kept"


def test_a_mixed_plain_and_autodiff_op_treats_the_plain_side_as_a_constant() -> None:
    """Rule 12 [0.22.1]: the result is tracked only through the autodiff input."""
    w = grad_leaf([1.0, 2.0])
    plain = Tensor.from_data([3.0, 5.0], FLEX)
    for out in (w.mul(plain), plain.mul(w)):
        assert out.is_autodiff and out.node.requirement is Requirement.GRAD_IN_BACKWARD
        assert out.node.parents == (w.node,)
        assert_close(out.sum().backward().get(w).array, [3.0, 5.0])
    untracked = Tensor.from_data([1.0, 2.0], FLEX_AD)
    assert untracked.add(plain).node.requirement is Requirement.NONE


# ----- parameters: lazy init and relocation (rules 14-18) --------------------------------------


def test_to_device_on_an_unread_param_does_not_initialize_it() -> None:
    model = LinearConfig(4, 1).init(FLEX_AD)
    moved = model.to_device(METAL_AD)
    assert not model.weight.is_initialized() and not moved.weight.is_initialized()
    assert moved.weight.device == METAL and moved.weight.lazy_is_require_grad()


def test_the_first_read_initializes_on_the_target_device_as_a_grad_leaf() -> None:
    moved = LinearConfig(4, 1).init(FLEX_AD).to_device(METAL_AD)
    for _, param in moved.named_params():
        tensor = param.val()
        assert tensor.device == METAL and tensor.device.is_autodiff
        assert tensor.node.requirement is Requirement.GRAD and tensor.node.parents == ()
        assert tensor.node.label == param.name


def test_clones_of_a_param_share_its_initialization() -> None:
    """`copy.copy` is the Python analogue of Burn's `Param::clone`: one lazy cell for all clones."""
    model = LinearConfig(4, 2).init(FLEX_AD)
    twin = copy.copy(model.weight)
    assert not twin.is_initialized()
    tensor = model.weight.val()
    assert twin.is_initialized() and twin.val() is tensor


def test_relocations_and_the_optimizer_keep_every_param_id() -> None:
    model = initialized(FLEX_AD)
    ids = [p.id for p in model.params()]
    x = Tensor.from_data(mx.ones((3, 4)), FLEX_AD)
    grads = GradientsParams.from_grads(model.forward(x).sum().backward(), model)
    assert len(grads) == 2
    relocated = {
        "to_device": model.to_device(METAL_AD),
        "fork": model.fork(METAL_AD),
        "valid": model.valid(),
        "no_grad": model.no_grad(),
        "valid().train()": model.valid().train(),
        "optimizer step": AdamConfig().init().step(0.1, model, grads),
    }
    for what, moved in relocated.items():
        assert [p.id for p in moved.params()] == ids, f"{what} changed a ParamId"
    plain = initialized(FLEX)
    assert [p.id for p in plain.train().params()] == [p.id for p in plain.params()]
    lazy = LinearConfig(4, 1).init(FLEX_AD)
    for moved in (lazy.to_device(METAL_AD), lazy.fork(METAL_AD)):
        assert [p.id for p in moved.params()] == [p.id for p in lazy.params()]


def test_fork_makes_fresh_grad_leaves_on_the_target_device() -> None:
    model = initialized(FLEX_AD)
    forked = model.fork(METAL_AD)
    for (_, old), (_, new) in zip(model.named_params(), forked.named_params(), strict=True):
        tensor = new.val()
        assert tensor.device == METAL and tensor.is_require_grad()
        assert tensor.node.parents == () and tensor.node.id > old.val().node.id
        assert_equal(tensor.array, old.val().array)


def test_valid_keeps_the_flag_and_strips_autodiff() -> None:
    valid = initialized(FLEX_AD).valid()
    for param in valid.params():
        assert not param.val().is_autodiff
        assert not param.is_require_grad()
        assert param.lazy_is_require_grad(), "valid() keeps the stored flag for train()"
    assert all(p.is_require_grad() for p in valid.train().params())


def test_no_grad_clears_the_flag() -> None:
    model = initialized(FLEX_AD)
    frozen = model.no_grad()
    for old, new in zip(model.params(), frozen.params(), strict=True):
        assert not new.lazy_is_require_grad()
        assert new.val().is_autodiff and new.val().node.requirement is Requirement.NONE
        assert new.val().node.id != old.val().node.id
    assert not any(p.is_require_grad() for p in frozen.valid().train().params())


def test_train_wraps_plain_params_into_grad_leaves() -> None:
    plain = initialized(FLEX).to_device(METAL_AD)
    assert not any(p.val().is_autodiff for p in plain.params())
    trained = plain.train()
    for old, new in zip(plain.params(), trained.params(), strict=True):
        tensor = new.val()
        assert tensor.is_require_grad() and tensor.node.parents == ()
        assert tensor.device == METAL and tensor.device.is_autodiff
        assert_equal(tensor.array, old.val().array)


# ----- optimizers (rules 19, 20) -----------------------------------------------------------


def test_the_optimizer_returns_params_without_gradient_untouched_and_updated_ones_as_new_leaves() -> None:
    model = initialized(FLEX_AD, 3, 2)
    before_weight, before_bias = model.weight.val(), model.bias.val()
    x = Tensor.from_data(mx.ones((5, 3)), FLEX_AD)
    loss = x.matmul(model.weight.val()).sum()  # the bias takes no part: it gets no gradient
    grads = GradientsParams.from_grads(loss.backward(), model)
    assert grads.param_ids() == [model.weight.id]
    stepped = SgdConfig().init().step(0.5, model, grads)
    assert stepped.bias.val() is before_bias
    weight = stepped.weight.val()
    assert weight is not before_weight
    assert weight.node.requirement is Requirement.GRAD and weight.node.parents == ()
    assert weight.node.id > loss.node.id, "an updated parameter is a leaf made after the backward"


def test_sgd_subtracts_lr_times_the_gradient() -> None:
    model = initialized(FLEX_AD, 3, 2)
    x = [[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]]
    w, b = as_float64(model.weight.val()), as_float64(model.bias.val())
    loss = model.forward(Tensor.from_data(x, FLEX_AD)).square().sum()
    grads = GradientsParams.from_grads(loss.backward(), model)
    stepped = SgdConfig().init().step(0.01, model, grads)
    with mx.stream(mx.cpu):
        x64 = float64(x)
        grad_out = 2 * (x64 @ w + b)
        want_w, want_b = w - 0.01 * x64.T @ grad_out, b - 0.01 * grad_out.sum(0)
    assert_close(stepped.weight.val().array, want_w, rtol=1e-5, atol=1e-6)
    assert_close(stepped.bias.val().array, want_b, rtol=1e-5, atol=1e-6)


def test_adam_matches_the_formula_over_three_steps() -> None:
    """Burn's Adam (crates/burn-optim/src/optim/adam.rs): betas .9/.999, eps 1e-5, bias correction."""
    beta1, beta2, eps, lr = 0.9, 0.999, 1e-5, 0.1
    model = initialized(FLEX_AD, 4, 2)
    x = [[0.5, -1.0, 2.0, 0.0], [1.5, 0.25, -0.5, 1.0], [-2.0, 1.0, 0.0, 0.5]]
    target = [[1.0, 0.0], [0.0, -1.0], [2.0, 1.0]]
    x64, target64 = float64(x), float64(target)
    params = {"weight": as_float64(model.weight.val()), "bias": as_float64(model.bias.val())}
    moments = {name: (0.0, 0.0) for name in params}
    optim = AdamConfig().init()
    for t in range(1, 4):
        pred = model.forward(Tensor.from_data(x, FLEX_AD))
        loss = pred.sub(Tensor.from_data(target, FLEX_AD)).square().mean()
        grads = GradientsParams.from_grads(loss.backward(), model)
        with mx.stream(mx.cpu):
            # the gradient of the mean squared error, by hand, at the reference parameters
            residual = 2 * (x64 @ params["weight"] + params["bias"] - target64) / target64.size
            hand_grads = {"weight": x64.T @ residual, "bias": residual.sum(0)}
        for name, g in hand_grads.items():
            got = grads.get(getattr(model, name).id).array
            assert_close(got, g, rtol=1e-4, atol=1e-6, what=f"{name} gradient")
            with mx.stream(mx.cpu):
                m, v = moments[name]
                m = beta1 * m + (1 - beta1) * g
                v = beta2 * v + (1 - beta2) * g * g
                moments[name] = (m, v)
                m_hat, v_hat = m / (1 - beta1**t), v / (1 - beta2**t)
                params[name] = params[name] - lr * m_hat / (mx.sqrt(v_hat) + eps)
        model = optim.step(lr, model, grads)
        assert_close(model.weight.val().array, params["weight"], rtol=1e-4, atol=1e-5)
        assert_close(model.bias.val().array, params["bias"], rtol=1e-4, atol=1e-5)


# ----- Linear (crates/burn-nn/src/modules/linear.rs) -------------------------------------------


def test_linear_layout_and_init_bounds() -> None:
    d_input, d_output = 16, 3
    model = LinearConfig(d_input, d_output).init(FLEX_AD)
    weight, bias = model.weight.val(), model.bias.val()
    assert weight.shape == (d_input, d_output) and bias.shape == (d_output,)
    bound = 1 / math.sqrt(d_input)
    with mx.stream(mx.cpu):
        w64, b64 = as_float64(weight), as_float64(bias)
        assert mx.all(mx.abs(w64) <= bound).item() and mx.all(mx.abs(b64) <= bound).item()
        assert mx.std(w64).item() > 0, "the weights are drawn, not constant"
    x = mx.arange(2 * d_input, dtype=mx.float32).reshape(2, d_input) / 10
    out = model.forward(Tensor.from_data(x, FLEX_AD))
    with mx.stream(mx.cpu):
        want = float64(x) @ w64 + b64
    assert_close(out.array, want, rtol=1e-5, atol=1e-5)


def test_linear_without_bias_has_one_param() -> None:
    model = LinearConfig(4, 2, bias=False).init(FLEX_AD)
    assert [name for name, _ in model.named_params()] == ["weight"]


# ----- devices (crates/burn-tensor/src/device.rs) ---------------------------------------------


def test_devices_flex_and_metal_are_distinct_and_equality_ignores_autodiff() -> None:
    assert FLEX != METAL
    assert METAL == METAL_AD and hash(METAL) == hash(METAL_AD)
    assert METAL_AD.is_autodiff and not METAL.is_autodiff
    assert METAL_AD.inner() == METAL and not METAL_AD.inner().is_autodiff
    assert METAL.autodiff().is_autodiff and METAL.autodiff().kind == "metal"
    assert METAL_AD.name == "metal.autodiff" and FLEX.name == "flex"


def test_metal_says_when_it_is_a_cpu_stand_in() -> None:
    stand_in = accelerator_backend() is None
    assert METAL.is_stand_in is stand_in and METAL_AD.is_stand_in is stand_in
    assert ("stand-in" in repr(METAL)) is stand_in
    assert "stand-in" not in repr(FLEX) and not FLEX.is_stand_in
    assert METAL.mlx_device == (mx.cpu if stand_in else mx.gpu)


def test_seed_makes_draws_reproducible() -> None:
    def draws(seed: int) -> list[mx.array]:
        FLEX.seed(seed)
        return [Tensor.random([3, 4], Distribution.uniform(-1.0, 1.0), FLEX_AD).array for _ in range(2)]

    first, again, other = draws(7), draws(7), draws(8)
    assert_equal(first[0], again[0])
    assert_equal(first[1], again[1])
    assert not mx.array_equal(first[0], first[1]).item(), "each draw takes a new key"
    assert not mx.array_equal(first[0], other[0]).item()
