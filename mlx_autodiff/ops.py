"""The op registry: each op is registered where it is defined, with what its backward keeps alive.

tinygrad's early `register('add', Add)` and minitorch's `ctx.save_for_backward`
in one: a Tensor method that records an op carries `@op(...)`, one per op it
can record (`add` records `add` for a tensor and `add_scalar` for a number),
and says in `saves` which arrays its backward closure captures. Those stay
alive until backward consumes the step (Burn's `Backward` structs name each
op's state). `registered(Tensor)` gathers the entries in the order the class
defines them: that is `tensor.OPS`, which the op, property and semantics tests
iterate, and tests/test_ops.py checks that each backward keeps exactly what
its `saves` says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

if TYPE_CHECKING:
    from .tensor import Tensor

Domain = Literal["any", "positive", "nonzero"]
"""Where an input's values must lie for the op's gradient to exist (`log` needs positive ones)."""

Operands = Literal["any", "broadcast", "matmul", "matrix"]
"""The shapes an op accepts: any one shape, two that broadcast, a matmul pair, at least two dims."""

Saved = Literal["inputs", "output"]
"""What a backward may keep alive: the op's tensor inputs' arrays, or its output's array."""

Method = TypeVar("Method", bound=Callable[..., object])

_ENTRIES = "__op_specs__"
"""The attribute `op` leaves on a method: its registry entries, top to bottom."""


@dataclass(frozen=True)
class OpSpec:
    """One recorded op as the tests see it: its node's name, its arity, how to call it, what it saves.

    The op tests, property tests and semantics tests iterate `OPS`, and each
    checks that it covers every entry: a new op without a test fails.
    """

    name: str
    """What the op's node records (`node.op`)."""
    method: str
    """The Tensor method that records it (`1.5 - x` is `__rsub__`)."""
    arity: int
    """How many tensor inputs."""
    kwargs: Mapping[str, object] = field(default_factory=dict)
    """The other arguments of an example call (`{"dim": 0}` for `x.sum_dim(dim=0)`)."""
    domain: tuple[Domain, ...] = ("any",)
    """One entry per tensor input."""
    operands: Operands = "any"
    saves: tuple[Saved, ...] = ()
    """What the backward keeps alive until backward consumes its step; () is shapes and numbers only."""

    def __call__(self, *inputs: Tensor, **kwargs: object) -> Tensor:
        """Apply the op to `inputs`, with `kwargs` in place of the example's."""
        first, *rest = inputs
        return getattr(first, self.method)(*rest, **{**self.kwargs, **kwargs})


def op(
    name: str,
    arity: int = 1,
    kwargs: Mapping[str, object] | None = None,
    *,
    domain: tuple[Domain, ...] | None = None,
    operands: Operands = "any",
    saves: tuple[Saved, ...] = (),
) -> Callable[[Method], Method]:
    """Register the decorated Tensor method as recording the op `name` (see `OpSpec` for the rest).

    `kwargs` are the other arguments of an example call; `domain` defaults to
    "any" for every input.
    """

    def register(method: Method) -> Method:
        spec = OpSpec(name, method.__name__, arity, dict(kwargs or {}), domain or ("any",) * arity,
                      operands, saves)
        setattr(method, _ENTRIES, (spec, *getattr(method, _ENTRIES, ())))
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
