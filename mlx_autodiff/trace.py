"""What one backward pass did, in order, as plain data: the stepper replays it.

The walk (`tape.backward`) reports each of its moves to a `Tracer`: each push
and pop of its stack (with the stack after it), each step taken off the tape
(or found gone), each step run, each gradient registered (shape and device),
and, where it fails, the node and the error. A plain `Tracer`, `NO_TRACE`,
drops them all: that is every pass no one records, so the walk has no `if`
for its recording. Inside a `tape.record_backward()` block, a pass reports to
a `BackwardTrace` instead, which keeps them.

Events name nodes by id; `BackwardTrace.nodes` says once what each node was.
Everything converts to JSON (`as_data`) and back (`from_data`), so a page can
carry a trace and a test can read it again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import mlx.core as mx

from .node import Node, Requirement


@dataclass(frozen=True)
class TracedNode:
    """A node as the pass met it: enough to name it in a sentence."""

    id: int
    op: str
    label: str | None
    requirement: Requirement
    device: str
    shape: tuple[int, ...]
    is_leaf: bool
    had_step: bool
    """Whether the node's step was on the tape when this pass met it (False: an earlier pass took it)."""


@dataclass(frozen=True)
class Pushed:
    """The walk pushed `node` on its stack; `stack` is the stack after the push, bottom first."""

    node: int
    stack: tuple[int, ...]
    kind: ClassVar[str] = "pushed"


@dataclass(frozen=True)
class Popped:
    """The walk popped `node` off its stack; `stack` is what is left, bottom first."""

    node: int
    stack: tuple[int, ...]
    kind: ClassVar[str] = "popped"


@dataclass(frozen=True)
class Took:
    """The walk took the node's step off the tape (consumed it), or, `found` False, found it gone."""

    node: int
    found: bool
    kind: ClassVar[str] = "took"


@dataclass(frozen=True)
class Failed:
    """Backward stopped at `node` with this error (its type's name and its message)."""

    node: int
    error: str
    message: str
    kind: ClassVar[str] = "failed"


@dataclass(frozen=True)
class Ran:
    """The node's step ran (the walk is over); `no_op` for a leaf's step, which does nothing."""

    node: int
    no_op: bool
    kind: ClassVar[str] = "ran"


@dataclass(frozen=True)
class Landed:
    """A gradient was registered on `node` by `by`'s step (`by` None: the seed, on the root)."""

    node: int
    by: int | None
    shape: tuple[int, ...]
    device: str
    kind: ClassVar[str] = "landed"


Event = Pushed | Popped | Took | Failed | Ran | Landed
EVENTS: dict[str, type[Event]] = {cls.kind: cls for cls in (Pushed, Popped, Took, Failed, Ran, Landed)}


class Tracer:
    """Whom the walk tells what it does; this one records nothing (the null object of `BackwardTrace`)."""

    __slots__ = ()

    def pushed(self, node: Node, stack: list[Node]) -> None:
        """The walk pushed `node` on its stack; `stack` is the stack after the push."""

    def popped(self, node: Node, stack: list[Node]) -> None:
        """The walk popped `node` off its stack; `stack` is what is left."""

    def took(self, node: Node, found: bool) -> None:
        """The walk took the node's step off the tape, or, `found` False, found it gone."""

    def failed(self, node: Node, error: Exception) -> None:
        """Backward stops at `node` with `error`."""

    def ran(self, node: Node, no_op: bool) -> None:
        """The node's step ran (`no_op`: a leaf's, which does nothing)."""

    def landed(self, node: Node, by: Node | None, grad: mx.array) -> None:
        """`grad` was registered on `node` by `by`'s step (None: the seed, on the root)."""


NO_TRACE = Tracer()
"""The tracer of every pass no one records."""


@dataclass
class BackwardTrace(Tracer):
    """One backward pass, event by event; filled by `tape.backward` while it runs."""

    pass_number: int
    root: int
    nodes: dict[int, TracedNode] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    # ----- what tape.backward calls --------------------------------------------------

    def pushed(self, node: Node, stack: list[Node]) -> None:
        self.events.append(Pushed(self._meet(node), _ids(stack)))

    def popped(self, node: Node, stack: list[Node]) -> None:
        self.events.append(Popped(self._meet(node), _ids(stack)))

    def took(self, node: Node, found: bool) -> None:
        # the step is already off the node here: whether it was found is whether it was there
        self.events.append(Took(self._meet(node, had_step=found), found))

    def failed(self, node: Node, error: Exception) -> None:
        self.events.append(Failed(self._meet(node), type(error).__name__, str(error)))

    def ran(self, node: Node, no_op: bool) -> None:
        self.events.append(Ran(self._meet(node), no_op))

    def landed(self, node: Node, by: Node | None, grad: mx.array) -> None:
        # Gradients.register keeps a gradient on the node's plain device: so does the trace.
        self.events.append(Landed(self._meet(node), None if by is None else by.id, tuple(grad.shape),
                         node.device.inner().name))

    # ----- reading it ----------------------------------------------------------------

    @property
    def failure(self) -> Failed | None:
        """Where and how the pass stopped, or None if it finished."""
        last = self.events[-1] if self.events else None
        return last if isinstance(last, Failed) else None

    def kept(self) -> list[Landed]:
        """The gradients a finished pass keeps: those that landed on GRAD leaves, one per node.

        Gradients in transit are removed as their steps run (tape.Gradients); a
        leaf's stay. A node that got several keeps their sum, on the same device.
        """
        if self.failure is not None:
            return []
        kept: dict[int, Landed] = {}
        for event in self.events:
            if isinstance(event, Landed) and self.nodes[event.node].requirement is Requirement.GRAD:
                kept.setdefault(event.node, event)
        return [kept[node_id] for node_id in sorted(kept)]

    def as_data(self) -> dict[str, Any]:
        """Plain JSON-ready data: lists, numbers, strings (and `from_data` reads it back)."""
        return {
            "pass_number": self.pass_number,
            "root": self.root,
            "nodes": [asdict(node) | {"requirement": node.requirement.value}
                      for _, node in sorted(self.nodes.items())],
            "events": [{"event": event.kind, **asdict(event)} for event in self.events],
        }

    @staticmethod
    def from_data(data: dict[str, Any]) -> BackwardTrace:
        nodes = {}
        for item in data["nodes"]:
            node = TracedNode(**item | {"requirement": Requirement(item["requirement"]),
                                        "shape": tuple(item["shape"])})
            nodes[node.id] = node
        events = []
        for item in data["events"]:
            values = {key: tuple(value) if isinstance(value, list) else value
                      for key, value in item.items() if key != "event"}
            events.append(EVENTS[item["event"]](**values))
        return BackwardTrace(data["pass_number"], data["root"], nodes, events)

    def _meet(self, node: Node, had_step: bool | None = None) -> int:
        if node.id not in self.nodes:
            self.nodes[node.id] = TracedNode(node.id, node.op, node.label, node.requirement,
                                             node.device.name, node.shape, node.is_leaf,
                                             node.step is not None if had_step is None else had_step)
        return node.id


def _ids(stack: list[Node]) -> tuple[int, ...]:
    return tuple(node.id for node in stack)
