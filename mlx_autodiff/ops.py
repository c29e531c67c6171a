"""The op registry: each op is registered where it is defined, with what its backward keeps alive.

tinygrad's early `register('add', Add)` and minitorch's `ctx.save_for_backward`
in one: a Tensor method that records an op carries `@op(name, saves=...)`, one
per op it can record (`add` records `add` for a tensor and `add_scalar` for a
number), and says in `saves` which arrays its backward closure captures. Those
stay alive until backward consumes the step (Burn's `Backward` structs name
each op's state). `registered(Tensor)` gathers the entries in the order the
class defines them: that is `tensor.OPS`. The tests iterate it, each entry
beside its reference and example inputs (tests/engine/op_references.py), and
tests/engine/test_ops.py checks that each backward keeps exactly what its `saves` says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

Saved = Literal["inputs", "output"]
"""What a backward may keep alive: the op's tensor inputs' arrays, or its output's array."""

Method = TypeVar("Method", bound=Callable[..., object])

_ENTRIES = "__op_specs__"
"""The attribute `op` leaves on a method: its registry entries, top to bottom."""


@dataclass(frozen=True)
class OpSpec:
    """One recorded op: its node's name, the Tensor method that records it, what its backward saves."""

    name: str
    """What the op's node records (`node.op`)."""
    method: str
    """The Tensor method that records it (`1.5 - x` is `__rsub__`)."""
    saves: tuple[Saved, ...] = ()
    """What the backward keeps alive until backward consumes its step; () is shapes and numbers only."""


def op(name: str, *, saves: tuple[Saved, ...] = ()) -> Callable[[Method], Method]:
    """Register the decorated Tensor method as recording the op `name`, whose backward keeps `saves`."""

    def register(method: Method) -> Method:
        setattr(method, _ENTRIES, (OpSpec(name, method.__name__, saves), *getattr(method, _ENTRIES, ())))
        return method

    return register


def registered(cls: type) -> tuple[OpSpec, ...]:
    """Every entry `op` left on `cls`'s methods, in the order the class defines them (aliases once)."""
    seen: set[int] = set()
    specs: list[OpSpec] = []
    for value in vars(cls).values():
        if id(value) not in seen:
            seen.add(id(value))
            specs += getattr(value, _ENTRIES, ())
    return tuple(specs)
