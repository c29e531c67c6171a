"""Nodes of the autodiff graph: ids, requirements, and the step each node owns.

Burn: crates/burn-autodiff/src/graph/node.rs (`NodeId`, `Node`),
crates/burn-autodiff/src/graph/requirement.rs (`Requirement`).

Burn keeps the tape as one map from node id to step. Here each node holds its
own step, and "the tape" is the set of nodes whose step is still there: the
behaviour is the same (a step is removed, "consumed", when backward traverses
it), and a step nobody can reach is freed with its node instead of leaking.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

import mlx.core as mx

from .device import Device

# Burn: `static COUNTER: AtomicU64` in graph/node.rs. One counter for the whole
# process, shared by every device; ids are never reused.
_node_ids = itertools.count()


def next_node_id() -> int:
    """Allocate the next process-wide node id."""
    return next(_node_ids)


class Requirement(Enum):
    """What a node's gradient is for (Burn: graph/requirement.rs)."""

    GRAD = "Grad"
    """A leaf whose gradient is kept after backward: a trainable parameter."""
    GRAD_IN_BACKWARD = "GradInBackward"
    """An op output with a tracked ancestor: its gradient is needed only in transit."""
    NONE = "None"
    """Not tracked: no gradient flows here."""

    @staticmethod
    def from_parents(parents: Sequence[Requirement]) -> Requirement:
        """An op output's requirement: NONE if every input is NONE, else GRAD_IN_BACKWARD.

        An op output is never GRAD (Burn: `Requirement::from_nodes`).
        """
        if all(p is Requirement.NONE for p in parents):
            return Requirement.NONE
        return Requirement.GRAD_IN_BACKWARD


BackwardFn = Callable[[mx.array], Sequence["mx.array | None"]]
"""Maps a node's output gradient to one gradient per parent (None: not needed)."""


@dataclass(eq=False, slots=True)
class Step:
    """One entry on the tape: how to pass a node's gradient on to its parents.

    `backward` is None for the steps that do nothing (`ROOT_STEP`,
    `UNTRACKED_STEP`).
    """

    backward: BackwardFn | None = None


ROOT_STEP = Step()
"""The no-op step `require_grad()` gives a leaf (Burn: `RootStep`)."""
UNTRACKED_STEP = Step()
"""The no-op step an op on untracked inputs registers (Burn: `UntrackedOpsStep`)."""


@dataclass(eq=False, slots=True)
class Node:
    """A tracked or untracked autodiff tensor's place in the graph.

    `parents` holds only tracked inputs, in argument order (Burn filters
    untracked ones out in `AutodiffTensor::from_parents`). `order` is 0 for a
    leaf and 1 + the largest parent order otherwise: backward runs steps from
    the highest order down, a topological order.

    The fields after `step` are for people, not for backward: what made the
    node, which parameter it is, and in which backward pass its step was
    consumed. Graphs and error messages read them.
    """

    id: int
    requirement: Requirement
    parents: tuple[Node, ...]
    op: str
    device: Device
    shape: tuple[int, ...]
    step: Step | None = None
    label: str | None = None
    detail: str | None = None
    consumed_in: int | None = None
    untracked_inputs: int = 0
    order: int = field(init=False)

    def __post_init__(self) -> None:
        self.order = 1 + max([p.order for p in self.parents]) if self.parents else 0

    @property
    def is_leaf(self) -> bool:
        """True for a node made fresh, with no parents (a parameter, `detach`, an optimizer step)."""
        return self.op in LEAF_OPS

    @property
    def is_move(self) -> bool:
        """True for a `to_device` output: a recorded op on the new device, not a leaf."""
        return self.op == TO_DEVICE

    def __repr__(self) -> str:
        name = f" '{self.label}'" if self.label else ""
        return f"<Node {node_name(self.id)}{name} {self.op} {self.requirement.value}>"


LEAF_OPS = frozenset({"leaf", "detach", "from_inner", "optimizer"})
"""Ops that create leaves: fresh nodes with no parents."""

TO_DEVICE = "to_device"
"""The op `Tensor.to_device` records between autodiff devices (Burn: `float_to_device`)."""


def node_name(node_id: int) -> str:
    """Burn's display form of a node id."""
    return f"NodeId({node_id})"
