"""Loading a record: values become fresh leaves (Burn's load_record), and a wrong record is refused."""

from __future__ import annotations

import mlx.core as mx
import pytest

from mlx_autodiff import Device, LinearConfig, RecordError, Requirement, ShapeError
from mlx_autodiff.module import Module


def test_a_loaded_linear_holds_the_record_as_grad_leaves_on_its_device(tmp_path):
    path = tmp_path / "linear.safetensors"
    mx.save_safetensors(str(path), {"weight": mx.full((4, 1), 0.5), "bias": mx.array([-1.0])})
    model = LinearConfig(4, 1).init(Device.flex().autodiff())
    ids = [param.id for param in model.params()]

    loaded = model.load_record(mx.load(str(path)))

    assert not model.weight.is_initialized(), "loading returns a new module; the old one stays lazy"
    assert [param.id for param in loaded.params()] == ids
    weight, bias = loaded.weight.val(), loaded.bias.val()
    assert weight.node.requirement is Requirement.GRAD and weight.node.label == "weight"
    assert weight.device == Device.flex() and weight.is_autodiff
    assert mx.array_equal(weight.array, mx.full((4, 1), 0.5)).item()
    assert bias.into_scalar() == -1.0


def test_loading_on_a_plain_device_gives_plain_tensors():
    loaded = LinearConfig(2, 1).init(Device.flex()).load_record({"weight": [[1.0], [2.0]], "bias": [0.0]})
    assert loaded.weight.val().node is None and not loaded.weight.is_require_grad()


def test_a_record_with_other_names_is_refused_with_the_expected_names():
    model = LinearConfig(4, 1).init(Device.flex().autodiff())
    with pytest.raises(RecordError) as caught:
        model.load_record({"weight": mx.zeros((4, 1)), "b": mx.zeros((1,))})
    message = str(caught.value)
    assert "missing ['bias']" in message and "unknown ['b']" in message
    assert "['weight', 'bias']" in message


def test_values_of_the_wrong_shape_are_refused():
    model = LinearConfig(4, 1).init(Device.flex().autodiff())
    with pytest.raises(ShapeError, match=r"shape \[4, 2\] into parameter 'weight' of shape \[4, 1\]"):
        model.load_record({"weight": mx.zeros((4, 2)), "bias": mx.zeros((1,))})


def test_nested_modules_load_by_dotted_name():
    class Two(Module):
        def __init__(self) -> None:
            self.first = LinearConfig(2, 2).init(Device.flex().autodiff())
            self.second = LinearConfig(2, 1, bias=False).init(Device.flex().autodiff())

    record = {"first.weight": mx.ones((2, 2)), "first.bias": mx.zeros((2,)), "second.weight": mx.ones((2, 1))}
    loaded = Two().load_record(record)
    assert [name for name, _ in loaded.named_params()] == list(record)
    assert loaded.second.weight.val().node.label == "second.weight"
