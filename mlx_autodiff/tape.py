"""Backward: walk the tape from a root, consume the steps walked, run them.

Burn: crates/burn-autodiff/src/runtime/server.rs (`backward`),
crates/burn-autodiff/src/graph/traversal.rs (the walk),
crates/burn-autodiff/src/grads.rs (`Gradients`).

The walk pops nodes from a stack (last in, first out) and removes each node's
step as it goes: that removal is what "consumed" means. A leaf found without
its step is fine (its step was a no-op; its gradient is kept). A non-leaf found
without its step means an earlier backward already sent its gradient on, so
this one cannot: Burn 0.22.1 panics there, and so does this engine.

The walk tells a `trace.Tracer` each move it makes. Inside a
`record_backward()` block that is a `trace.BackwardTrace`, which keeps them
(the book's stepper replays it); outside one it is `trace.NO_TRACE`, which
drops them.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import mlx.core as mx

from .device import Device
from .errors import MissingRootStepError, TapeConsumedError
from .node import Node, Requirement, Step, node_name
from .trace import NO_TRACE, BackwardTrace, Tracer

_backward_passes = itertools.count(1)

_recording: list[BackwardTrace] | None = None
"""Where the open `record_backward()` block collects traces; None when no block is open."""


class Gradients:
    """The gradients one backward pass produced, keyed by node id (Burn: grads.rs).

    After backward it holds only the GRAD leaves' gradients (and the root's, if
    the root is itself a leaf): in-transit gradients are removed as their steps
    run. Everything here answers by node id; looking a gradient up by its
    tensor, `grads.get(w)` as Burn's `w.grad(&grads)`, is `tensor.Gradients`,
    which is what `Tensor.backward` returns.
    """

    def __init__(self, pass_number: int) -> None:
        self.pass_number = pass_number
        self._grads: dict[int, mx.array] = {}
        self._devices: dict[int, Device] = {}
        """Each gradient's node's device; the gradient lives on its plain flavour (`device_of`)."""

    def register(self, node: Node, grad: mx.array) -> None:
        """Add `grad` to the node's gradient: a node used twice gets the sum."""
        previous = self._grads.get(node.id)
        self._grads[node.id] = grad if previous is None else previous + grad
        self._devices[node.id] = node.device

    def consume(self, node: Node) -> mx.array:
        """A step reads its node's gradient: kept for a leaf, removed in transit."""
        if node.requirement is Requirement.GRAD:
            return self._grads[node.id]
        self._devices.pop(node.id)
        return self._grads.pop(node.id)

    def array_of(self, node_id: int) -> mx.array | None:
        """The gradient held for a node, or None if this pass kept none for it."""
        return self._grads.get(node_id)

    def pop(self, node_id: int) -> mx.array | None:
        """Like `array_of`, but also drop the entry (Burn's `remove`)."""
        self._devices.pop(node_id, None)
        return self._grads.pop(node_id, None)

    def node_ids(self) -> list[int]:
        """Ids of the nodes that hold a gradient, in ascending order."""
        return sorted(self._grads)

    def device_of(self, node_id: int) -> Device:
        """The device a node's gradient lives on (always a plain device)."""
        return self._devices[node_id].inner()

    def __len__(self) -> int:
        return len(self._grads)

    def __repr__(self) -> str:
        held = ", ".join(f"{node_name(i)} on {self.device_of(i).name}" for i in self.node_ids())
        return f"Gradients(pass #{self.pass_number}: {held or 'empty'})"


G = TypeVar("G", bound=Gradients)


@contextmanager
def record_backward() -> Iterator[list[BackwardTrace]]:
    """Record every backward pass run inside the block, event by event, into the list it yields.

    A pass that raises is recorded up to its failure. Blocks nest: the inner
    one collects while it is open.
    """
    global _recording
    outer, _recording = _recording, []
    try:
        yield _recording
    finally:
        _recording = outer


def backward(root: Node, seed: mx.array, gradients: Callable[[int], G]) -> G:
    """Run one backward pass from `root`, seeded with `seed` (ones, as Burn does).

    `gradients` makes the container for a pass number: `tensor.Gradients`, so the
    caller gets lookups by tensor without this module knowing tensors.
    """
    pass_number = next(_backward_passes)
    trace = _tracer(pass_number, root)
    root_step = _take_step(root, pass_number, trace)
    if root_step is None:
        raise _failed(trace, root, MissingRootStepError(missing_root_step_message(root)))

    buckets: defaultdict[int, list[tuple[Node, Step]]] = defaultdict(list)
    visited = {root.id}
    stack: list[Node] = []

    def visit(node: Node, step: Step) -> None:
        buckets[node.order].append((node, step))
        for parent in node.parents:
            if parent.id not in visited:
                visited.add(parent.id)
                stack.append(parent)
                trace.pushed(parent, stack)

    visit(root, root_step)
    while stack:
        node = stack.pop()
        trace.popped(node, stack)
        step = _take_step(node, pass_number, trace)
        if step is None:
            if node.requirement is Requirement.GRAD:
                continue  # a leaf's step is a no-op; its gradient is simply kept
            raise _failed(trace, node, TapeConsumedError(tape_consumed_message(node, pass_number), node))
        visit(node, step)

    grads = gradients(pass_number)
    grads.register(root, seed)
    trace.landed(root, None, seed)
    for order in sorted(buckets, reverse=True):
        for node, step in buckets[order]:
            _run_step(node, step, grads, trace)
    return grads


def _tracer(pass_number: int, root: Node) -> Tracer:
    """A new trace for this pass in the open `record_backward()` block, else `NO_TRACE`."""
    if _recording is None:
        return NO_TRACE
    trace = BackwardTrace(pass_number, root.id)
    _recording.append(trace)
    return trace


def _take_step(node: Node, pass_number: int, trace: Tracer) -> Step | None:
    """Remove the node's step from the tape (consume it) and return it."""
    step = node.step
    if step is not None:
        node.step = None
        node.consumed_in = pass_number
    trace.took(node, step is not None)
    return step


def _run_step(node: Node, step: Step, grads: Gradients, trace: Tracer) -> None:
    trace.ran(node, step.backward is None)
    if step.backward is None:
        return
    grad = grads.consume(node)
    with node.device.computing():
        parent_grads = step.backward(grad)
    for parent, parent_grad in zip(node.parents, parent_grads, strict=True):
        if parent_grad is not None:
            grads.register(parent, parent_grad)
            trace.landed(parent, node, parent_grad)


def _failed(trace: Tracer, node: Node, error: Exception) -> Exception:
    """The error to raise, told to the trace first."""
    trace.failed(node, error)
    return error


def missing_root_step_message(root: Node) -> str:
    """The source snapshot's words, then which pass took the root's step and what to do."""
    return (
        f"Node should have a step registered, did you forget to call "
        f"`Tensor::register_grad` on the tensor where you need gradients? "
        f"({node_name(root.id)}, made by `{root.op}`, has no step left: an earlier "
        f"backward pass #{root.consumed_in} consumed it. Call backward() once per "
        f"forward pass; recompute the loss to run backward again.)"
    )


def tape_consumed_message(node: Node, pass_number: int) -> str:
    """Burn 0.22.1's words, then what happened at this node and what to do."""
    burn = (
        f"Cannot run backward: graph tape has already been consumed at {node_name(node.id)}. "
        "Burn does not support retain_graph. Combine losses before backward or recompute "
        "the forward pass. Use detach() only to intentionally sever gradients through the "
        "previous computation."
    )
    consumed = (
        f"backward pass #{node.consumed_in}" if node.consumed_in else "an earlier backward pass"
    )
    if node.is_move:
        what = (
            f"{node_name(node.id)} is not a leaf: it is the output of `to_device`, which moved "
            f"{_parameter(node)} from {node.detail}. Its step was consumed by {consumed}, which "
            f"sent the gradient back to the original on the source device, where no parameter "
            f"of the model is looking for it. This backward (pass #{pass_number}) reuses that "
            f"node, so it cannot go further.\n"
            "Fix: move the model with `fork(device)` instead of `to_device(device)`, so every "
            "parameter becomes a fresh leaf on the new device (or call `.train()` after "
            "`to_device` when the model came from a plain device)."
        )
    else:
        what = (
            f"{node_name(node.id)} is the output of `{node.op}` and not a leaf; its step was "
            f"consumed by {consumed}. This backward (pass #{pass_number}) reuses it.\n"
            "Fix: recompute the forward pass before each backward, or add the losses and call "
            "backward once."
        )
    return f"{burn}\n\nWhat happened: {what}"


def _parameter(node: Node) -> str:
    return f"parameter '{node.label}'" if node.label else "a tensor"
