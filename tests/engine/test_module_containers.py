"""Modules that keep parameters in lists, tuples and None-able fields; map_params leaves its input alone.

Burn's `Module` derive walks a struct's fields, and `Vec<M>`, `[M; N]` and
`Option<M>` are modules too, a `Vec`'s items visited under their index
(crates/burn-core/src/module/param/primitive.rs); so does `Module` here. Each
container kind is checked through every relocation, the optimizer, a record
and the guard, since a parameter the walk misses is silently never trained.
"""

from __future__ import annotations

from collections.abc import Callable

import mlx.core as mx
import pytest

from mlx_autodiff import (
    AdamConfig,
    Device,
    Distribution,
    GradientsParams,
    LinearConfig,
    Module,
    MseLoss,
    Reduction,
    Requirement,
    Tensor,
    UntrackedBackwardError,
)
from mlx_autodiff.guard import NotTrainableError, assert_trainable

FLEX_AD = Device.flex().autodiff()
METAL = Device.metal().autodiff()


class Stack(Module):
    """Two layers in a list (Burn: `Vec<Linear>`), or in a tuple (Burn: `[Linear; 2]`)."""

    def __init__(self, device: Device, container: Callable[[list], object]) -> None:
        self.layers = container([LinearConfig(4, 3).init(device), LinearConfig(3, 1).init(device)])
        self.head = None  # Burn: `Option<Linear>` holding `None`

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = layer.forward(x)
        return x


NAMES = ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
CONTAINERS = {"list": list, "tuple": tuple}


def initialized(container: Callable[[list], object]) -> Stack:
    model = Stack(FLEX_AD, container)
    for param in model.params():
        param.val()
    return model


@pytest.mark.parametrize("kind", list(CONTAINERS))
def test_parameters_in_a_list_or_tuple_are_found_and_named_by_index(kind: str) -> None:
    model = Stack(FLEX_AD, CONTAINERS[kind])
    assert [name for name, _ in model.named_params()] == NAMES
    assert model.num_param_tensors() == 4 and model.num_trainable_param_tensors() == 4
    assert model.num_params() == 4 * 3 + 3 + 3 * 1 + 1


@pytest.mark.parametrize("kind", list(CONTAINERS))
@pytest.mark.parametrize("move", ["to_device", "fork", "no_grad"])
def test_every_relocation_reaches_the_parameters_in_the_container_and_keeps_its_kind(
    kind: str, move: str
) -> None:
    model = initialized(CONTAINERS[kind])
    moved = getattr(model, move)(METAL) if move != "no_grad" else model.no_grad()
    assert type(moved.layers) is type(model.layers) and moved.head is None
    assert [name for name, _ in moved.named_params()] == NAMES
    assert [p.id for p in moved.params()] == [p.id for p in model.params()], "ParamIds are kept"
    for (name, before), after in zip(model.named_params(), moved.params(), strict=True):
        tensor = after.val()
        if move == "to_device":
            assert tensor.node.op == "to_device" and tensor.node.parents[0] is before.val().node, name
        elif move == "fork":
            assert tensor.is_require_grad() and tensor.device == METAL and not tensor.node.parents, name
        else:
            assert tensor.node.requirement is Requirement.NONE and not after.lazy_is_require_grad(), name
    assert all(p.val().node.op != "to_device" for p in model.params()), "the source model is untouched"


@pytest.mark.parametrize("kind", list(CONTAINERS))
def test_valid_then_train_round_trips_the_parameters_in_a_container(kind: str) -> None:
    model = initialized(CONTAINERS[kind])
    plain = model.valid()
    assert all(p.val().node is None for p in plain.params()), "valid() strips autodiff from every layer"
    back = plain.train()
    assert type(back.layers) is type(model.layers)
    assert all(p.is_require_grad() for p in back.params()), "train() makes every layer's parameters leaves"


@pytest.mark.parametrize("kind", list(CONTAINERS))
def test_a_forked_stack_trains_every_layer_and_a_moved_one_is_caught_by_the_guard(kind: str) -> None:
    metal = Device.metal().autodiff()
    metal.seed(1)
    x = Tensor.random([16, 4], Distribution.uniform(-1.0, 1.0), metal)
    y = x.sum_dim(dim=1)
    model, optim, losses = initialized(CONTAINERS[kind]).fork(metal), AdamConfig().init(), []
    start = {name: p.val().array for name, p in model.named_params()}
    for step in range(3):
        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
        losses.append(loss.into_scalar())
        grads = GradientsParams.from_grads(loss.backward(), model)
        assert len(grads) == 4, f"step {step}: every layer's weight and bias get a gradient"
        model = optim.step(1e-1, model, grads)
    assert losses[-1] < losses[0], losses
    for name, param in model.named_params():
        assert not mx.array_equal(param.val().array, start[name]).item(), f"{name} was not updated"
    with pytest.raises(NotTrainableError, match="layers.1.bias: the output of `to_device`"):
        assert_trainable(initialized(CONTAINERS[kind]).to_device(metal))


@pytest.mark.parametrize("kind", list(CONTAINERS))
def test_a_record_loads_into_the_parameters_in_a_container_by_dotted_name(kind: str) -> None:
    model = Stack(FLEX_AD, CONTAINERS[kind])
    record = {name: mx.full(param.shape, float(i)) for i, (name, param) in enumerate(model.named_params())}
    loaded = model.load_record(record)
    for name, param in loaded.named_params():
        assert mx.array_equal(param.val().array, record[name]).item(), name
        assert param.is_require_grad() and param.val().node.label == name
    assert not any(p.is_initialized() for p in model.params()), "the source model stays lazy"


def test_a_none_field_holds_no_parameters_and_a_set_one_is_found() -> None:
    model = Stack(FLEX_AD, list)
    model.head = LinearConfig(1, 1).init(FLEX_AD)
    assert [name for name, _ in model.named_params()] == [*NAMES, "head.weight", "head.bias"]
    forked = model.fork(METAL)
    assert [p.device for p in forked.params()] == [METAL] * 6
    assert Stack(FLEX_AD, list).fork(METAL).head is None


def test_map_params_does_not_rename_or_change_the_parameters_it_is_given() -> None:
    outer = Stack(FLEX_AD, list)
    inner = outer.layers[0]
    names = [p.name for p in inner.params()]
    assert names == ["weight", "bias"], "a Linear's own parameters are named without a path"
    seen = []
    mapped = outer.map_params(lambda p: seen.append(p.name) or p)
    assert seen == NAMES, "the function sees each parameter named by its path"
    assert [p.name for p in inner.params()] == names, "the source parameters keep their names"
    assert outer.layers[0] is inner and mapped.layers is not outer.layers
    assert [p.id for p in mapped.params()] == [p.id for p in outer.params()]
    mapped.params()[0].val()
    assert outer.params()[0].is_initialized(), "the renamed parameter shares the lazy cell"


def test_the_untracked_backward_message_names_the_python_call_and_that_call_works() -> None:
    leaf = Tensor.from_data([1.0, 2.0], Device.flex())
    with pytest.raises(UntrackedBackwardError) as caught:
        (leaf * 3.0).sum().backward()
    message = str(caught.value)
    burn = "call Tensor::autodiff().require_grad() on the source leaf before computing the output"
    assert message.index(burn) < message.index("What happened"), "Burn's words come first"
    assert "`Tensor.from_inner(leaf).require_grad()` for a plain leaf" in message
    tracked = Tensor.from_inner(leaf).require_grad()  # the call the message names
    grads = (tracked * 3.0).sum().backward()
    assert mx.array_equal(grads.get(tracked).array, mx.full((2,), 3.0)).item()
    untracked = Tensor.from_data([1.0, 2.0], FLEX_AD)
    with pytest.raises(UntrackedBackwardError, match=r"`leaf\.require_grad\(\)` if it is already"):
        untracked.sum().backward()
    assert untracked.require_grad().sum().backward().get(untracked) is not None
