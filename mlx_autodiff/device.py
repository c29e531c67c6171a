"""Devices: where a tensor lives, and whether autodiff records its ops.

Burn: crates/burn-tensor/src/device.rs (`Device::flex()`, `Device::metal(..)`,
`.autodiff()`, `.inner()`, `.seed(n)`, `.is_autodiff()`).

Two logical devices tell the story: `flex` (the CPU) and `metal` (the
accelerator). MLX runs `metal` on Metal on Apple silicon, or on CUDA where the
MLX build has it. On a CPU-only MLX build, `metal` is still a distinct device,
backed by the CPU, and says so in its repr: moving between the two is the point
of the book, so the move must exist everywhere, and must never pretend to be a
GPU.
"""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Literal

import mlx.core as mx

from .errors import NotADeviceError

Kind = Literal["flex", "metal"]

# One random key per logical device; `Device.seed` sets it, each draw splits it.
_rng_keys: dict[Kind, mx.array] = {}


@functools.cache
def accelerator_backend() -> str | None:
    """The name of MLX's GPU backend on this machine ("metal", "cuda"), or None."""
    if mx.metal.is_available():
        return "metal"
    cuda = getattr(mx, "cuda", None)
    if cuda is not None and cuda.is_available():
        return "cuda"
    return None


@dataclass(frozen=True, eq=False)
class Device:
    """A logical device, plain or autodiff.

    Equality and hashing ignore the autodiff flag, as Burn's do
    (`crates/burn-tensor/src/device.rs`, `PartialEq for Device`): a plain and an
    autodiff tensor on `metal` are on the same device.
    """

    kind: Kind
    is_autodiff: bool = False

    @staticmethod
    def flex() -> Device:
        """The CPU device."""
        return _flavour("flex", False)

    @staticmethod
    def metal() -> Device:
        """The accelerator: MLX's GPU, or a CPU-backed stand-in where MLX has none."""
        return _flavour("metal", False)

    def autodiff(self) -> Device:
        """The autodiff flavour of this device: ops on its tensors are recorded."""
        return self if self.is_autodiff else _flavour(self.kind, True)

    def inner(self) -> Device:
        """The plain flavour of this device: nothing is recorded."""
        return _flavour(self.kind, False) if self.is_autodiff else self

    @functools.cached_property
    def mlx_device(self) -> mx.Device:
        """The MLX device that runs this logical device's ops (found once: every op asks)."""
        if self.kind == "metal" and accelerator_backend() is not None:
            return mx.gpu
        return mx.cpu

    def computing(self) -> AbstractContextManager[object]:
        """Where the ops inside the `with` block run: this device's MLX stream.

        On MLX's default device that stream is already the current one, and
        entering `mx.stream` would cost more than a small op, so nothing is entered.
        """
        return nullcontext() if mx.default_device() == self.mlx_device else mx.stream(self.mlx_device)

    @property
    def is_stand_in(self) -> bool:
        """True when `metal` is backed by the CPU because MLX has no GPU here."""
        return self.kind == "metal" and accelerator_backend() is None

    def seed(self, seed: int) -> None:
        """Make this device's random draws reproducible from now on."""
        _rng_keys[self.kind] = mx.random.key(seed)

    def next_key(self) -> mx.array | None:
        """A fresh random key if this device was seeded, else None (MLX's global state)."""
        key = _rng_keys.get(self.kind)
        if key is None:
            return None
        key, sub = mx.random.split(key)
        _rng_keys[self.kind] = key
        return sub

    @property
    def name(self) -> str:
        """Short name used in graphs and messages, e.g. `metal.autodiff`."""
        return f"{self.kind}.autodiff" if self.is_autodiff else self.kind

    def describe(self) -> str:
        """One line saying what actually runs this device's ops."""
        if self.kind == "flex":
            return "flex: the CPU"
        backend = accelerator_backend()
        if backend is None:
            return "metal: a stand-in backed by the CPU (this MLX build has no GPU backend)"
        return f"metal: the GPU, through MLX's {backend.upper()} backend"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    def __repr__(self) -> str:
        suffix = " (CPU stand-in)" if self.is_stand_in else ""
        return f"Device.{self.kind}(){'.autodiff()' if self.is_autodiff else ''}{suffix}"


@functools.cache
def _flavour(kind: Kind, is_autodiff: bool) -> Device:
    """One Device per kind and flavour, made once: every op asks for one, and a Device never changes."""
    return Device(kind, is_autodiff)


def check_device(value: object, what: str) -> Device:
    """Return `value` if it is a Device, else raise a NotADeviceError naming `what`."""
    if not isinstance(value, Device):
        raise NotADeviceError(
            f"{what} expects a Device such as Device.metal().autodiff(), "
            f"got {type(value).__name__} {value!r}."
        )
    return value
