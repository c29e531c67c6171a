"""Parameters and modules, and the five ways to relocate them.

Burn: crates/burn-core/src/module/param/base.rs and param/tensor.rs (`Param`,
lazy initialization, `to_device`, `fork`, `valid`, `from_inner`),
crates/burn-core/src/module/base.rs (`Module`, `AutodiffModule`).

Relocation never edits a module: each method returns a new module whose
parameters keep their `ParamId`, as Burn's do, so an optimizer's state and a
`GradientsParams` still find them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from .device import Device, check_device
from .errors import EmptyParamError, NotAModuleError, RecordError, ShapeError
from .tensor import Tensor

InitFn = Callable[[Device, bool], Tensor]
"""Builds a parameter's tensor on a device; the flag says whether to require grad."""

_param_ids = random.Random()


@dataclass(frozen=True)
class ParamId:
    """A parameter's identity across relocations and optimizer steps (Burn: a random u64)."""

    value: int

    @staticmethod
    def new() -> ParamId:
        return ParamId(_param_ids.getrandbits(64))

    def __repr__(self) -> str:
        return f"ParamId({self.value:016x})"


class _LazyValue:
    """The cell a parameter's clones share, so initialization happens once for all."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor | None = None) -> None:
        self.tensor = tensor


class Param:
    """A module parameter: a stable id, a stored require_grad flag, and a lazily built tensor.

    Until it is first read (`val()`), a parameter is only a recipe and a
    target device. Reading it (loading it from a file, printing it, running an
    inference) builds the tensor on that device. `to_device` and `fork` on an
    unread parameter only change the target device (Burn 0.22.1's lazy move).
    """

    def __init__(
        self,
        id: ParamId,
        name: str,
        device: Device,
        shape: tuple[int, ...],
        require_grad: bool,
        init: InitFn | None = None,
        value: _LazyValue | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.device = device
        self.shape = shape
        self.require_grad_flag = require_grad
        self._init = init
        self._value = value if value is not None else _LazyValue()

    @staticmethod
    def uninitialized(name: str, device: Device, shape: tuple[int, ...], init: InitFn) -> Param:
        """A lazy parameter; initializers always ask for gradients (Burn: `Initializer::init_with`)."""
        return Param(ParamId.new(), name, device, shape, True, init)

    def _with(self, tensor: Tensor, require_grad: bool | None = None) -> Param:
        """A parameter with the same id, name and flag, now holding `tensor`."""
        if tensor.node is not None:
            tensor.node.label = self.name
        flag = self.require_grad_flag if require_grad is None else require_grad
        return Param(self.id, self.name, tensor.device, tensor.shape, flag, None, _LazyValue(tensor))

    def renamed(self, name: str) -> Param:
        """The same parameter (same id, flag and shared lazy cell) under another name."""
        return Param(self.id, name, self.device, self.shape, self.require_grad_flag, self._init, self._value)

    def is_initialized(self) -> bool:
        return self._value.tensor is not None

    def val(self) -> Tensor:
        """The tensor, built on first read on the parameter's device."""
        if self._value.tensor is None:
            if self._init is None:
                raise EmptyParamError(
                    f"Parameter '{self.name}' holds no tensor and has no initializer to build one: it was "
                    "made with neither. A parameter that was read keeps its tensor, not its initializer, so "
                    "copy or move a parameter with its own methods (to_device, fork), which keep the tensor.")
            tensor = self._init(self.device, self.require_grad_flag)
            if tensor.node is not None:
                tensor.node.label = self.name
            self._value.tensor = tensor
        return self._value.tensor

    def is_require_grad(self) -> bool:
        """Whether the tensor is a GRAD leaf. Like any read, it initializes a lazy parameter."""
        return self.val().is_require_grad()

    def lazy_is_require_grad(self) -> bool:
        """The stored flag, read without initializing anything."""
        return self.require_grad_flag

    def to_device(self, device: Device) -> Param:
        """Unread: retarget only. Read: `tensor.to_device` (an op under autodiff); flag kept."""
        if not self.is_initialized():
            return Param(self.id, self.name, device, self.shape, self.require_grad_flag, self._init)
        return self._with(self.val().to_device(device))

    def fork(self, device: Device) -> Param:
        """Unread: retarget only. Read: move, detach, and require grad if it did before."""
        if not self.is_initialized():
            return Param(self.id, self.name, device, self.shape, self.require_grad_flag, self._init)
        tensor = self.val()
        was_require_grad = tensor.is_require_grad()
        moved = tensor.to_device(device).detach()
        return self._with(moved.require_grad() if was_require_grad else moved)

    def train(self) -> Param:
        """Wrap the plain tensor into an autodiff leaf; require grad if the flag says so."""
        return self._with(Tensor.from_inner(self.val()).set_require_grad(self.require_grad_flag))

    def valid(self) -> Param:
        """Strip autodiff; keep the flag so that `train()` can restore it."""
        return self._with(self.val().inner())

    def no_grad(self) -> Param:
        """A fresh untracked leaf, and the flag cleared."""
        return self._with(self.val().set_require_grad(False), require_grad=False)

    def load(self, values: object) -> Param:
        """Loaded values become a fresh leaf on this parameter's device, GRAD if the flag says so.

        Burn: `load_record` moves the record's tensor and detaches it
        (crates/burn-core/src/module/param/tensor.rs). Loading counts as a first read.
        """
        tensor = Tensor.from_data(values, self.device)
        if tensor.shape != tuple(self.shape):
            raise ShapeError(
                f"Cannot load values of shape {tensor.dims()} into parameter '{self.name}' of shape "
                f"{list(self.shape)}. Check that the record was saved from the same architecture."
            )
        return self._with(tensor.require_grad() if self.require_grad_flag else tensor)

    def __repr__(self) -> str:
        state = repr(self._value.tensor) if self.is_initialized() else f"uninitialized on {self.device.name}"
        return f"Param('{self.name}', {self.id!r}, {state})"


class Module:
    """Base class for anything holding parameters or submodules as attributes.

    Parameters are found by walking attributes in the order they were set:
    a `Param`, a submodule, or a list or tuple of them (index by index), as
    Burn walks a module's fields, `Vec<M>` and `[M; N]`; a field set to None
    (Burn: `Option<M>` holding `None`) has none
    (crates/burn-core/src/module/param/primitive.rs). Names are dotted paths:
    `fc1.weight`, `layers.0.weight`. Every relocation returns a new module and
    leaves this one as it was.
    """

    def named_params(self, prefix: str = "") -> Iterator[tuple[str, Param]]:
        """Every parameter with its dotted path, in declaration order (`layers.0.weight` in a list)."""
        for attr, value in vars(self).items():
            yield from _named_params(value, prefix + attr)

    def params(self) -> list[Param]:
        return [param for _, param in self.named_params()]

    def num_params(self) -> int:
        """How many numbers the parameters hold: `Linear(4, 1)` has 5 (4 weights, 1 bias).

        Burn's `Module::num_params` sums each float parameter's element count
        (crates/burn-core/src/module/base.rs), reading every parameter with
        `param.val()` as it goes, so it initializes lazy parameters; so does this.
        """
        return sum(param.val().array.size for param in self.params())

    def num_param_tensors(self) -> int:
        """How many parameter tensors the module has (2 for `Linear(4, 1)`); reads nothing.

        This, not `num_params()`, is what a full `GradientsParams` should hold:
        one gradient per parameter tensor.
        """
        return len(self.params())

    def num_trainable_param_tensors(self) -> int:
        """Parameter tensors whose stored require_grad flag is set: the ones meant to train.

        A parameter frozen with `no_grad()` has its flag cleared and is not counted.
        Reads only the flags, so nothing lazy is initialized.
        """
        return sum(param.lazy_is_require_grad() for param in self.params())

    def map_params(self, fn: Callable[[Param], Param], prefix: str = "") -> Module:
        """A copy of this module with `fn` applied to every parameter, names kept as paths.

        `fn` receives each parameter named by its path (`fc1.weight`); the
        module and its parameters are left as they were.
        """
        new = type(self).__new__(type(self))  # a shallow copy (copy.copy's, without its generic protocol)
        for attr, value in vars(self).items():
            setattr(new, attr, _map_params(value, fn, prefix + attr))
        return new

    def to_device(self, device: Device) -> Module:
        """Move every parameter with `Tensor.to_device`: a recorded op, not new leaves.

        Right for inference, and for gradients that must cross devices. Wrong for
        training an autodiff model: use `fork` (Burn: crates/burn-core/src/module/base.rs).
        """
        device = check_device(device, "Module.to_device")
        return self.map_params(lambda p: p.to_device(device))

    def fork(self, device: Device) -> Module:
        """Move every parameter and make it a fresh leaf on `device`: what training needs."""
        device = check_device(device, "Module.fork")
        return self.map_params(lambda p: p.fork(device))

    def train(self) -> Module:
        """Bring a plain module back to autodiff (Burn: `AutodiffModule::from_inner`)."""
        return self.map_params(Param.train)

    def valid(self) -> Module:
        """A plain copy for validation or inference: nothing recorded, flags kept."""
        return self.map_params(Param.valid)

    def no_grad(self) -> Module:
        """Stop every parameter from requiring gradients."""
        return self.map_params(Param.no_grad)

    def load_record(self, record: Mapping[str, object]) -> Module:
        """A copy whose parameters hold `record`'s values, keyed by dotted name (`weight`, `fc1.bias`).

        A record from `mx.load("model.safetensors")` works as it is.
        """
        names = [name for name, _ in self.named_params()]
        missing = [name for name in names if name not in record]
        unknown = [name for name in record if name not in names]
        if missing or unknown:
            raise RecordError(
                f"The record does not fit this module: missing {missing or 'nothing'}, unknown "
                f"{unknown or 'nothing'}. Its keys must be exactly the parameter names: {names}."
            )
        return self.map_params(lambda param: param.load(record[param.name]))


def _named_params(value: object, path: str) -> Iterator[tuple[str, Param]]:
    """The parameters inside one attribute's value, named by their dotted paths."""
    if isinstance(value, Param):
        yield path, value
    elif isinstance(value, Module):
        yield from value.named_params(f"{path}.")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _named_params(item, f"{path}.{index}")


def _map_params(value: object, fn: Callable[[Param], Param], path: str) -> object:
    """`value` with `fn` applied to each parameter inside it; anything else is returned as it is."""
    if isinstance(value, Param):
        return fn(value if value.name == path else value.renamed(path))
    if isinstance(value, Module):
        return value.map_params(fn, f"{path}.")
    if isinstance(value, (list, tuple)):
        mapped = [_map_params(item, fn, f"{path}.{index}") for index, item in enumerate(value)]
        return mapped if isinstance(value, list) else tuple(mapped)
    return value


def check_module(value: object, what: str) -> Module:
    """Return `value` if it is a Module, else raise NotAModuleError naming `what`."""
    if not isinstance(value, Module):
        raise NotAModuleError(
            f"{what} expects a Module (such as a Linear), got {type(value).__name__}."
        )
    return value
