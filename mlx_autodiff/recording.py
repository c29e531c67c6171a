"""Recording an op: the node its output gets, whether anything is recorded at all, and its parents.

Burn: `Backward::prepare` (crates/burn-autodiff/src/ops/backward.rs) and `OpsKind`
(crates/burn-autodiff/src/ops/base.rs).
A tensor op computes with MLX, then asks `record` for its output's device and
node: plain when no input is autodiff, untracked when no input is tracked,
else a GRAD_IN_BACKWARD node whose step sends the output's gradient back to
the tracked inputs, its parents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mlx.core as mx

from .device import Device
from .node import UNTRACKED_STEP, BackwardFn, Node, Requirement, Step, next_node_id


def record(
    op: str,
    inputs: Sequence[Node | None],
    shape: tuple[int, ...],
    device: Device,
    backward: Callable[[mx.array], Sequence[mx.array]],
    detail: str | None = None,
) -> tuple[Device, Node | None]:
    """Where the output of `op` lives and its node (None: plain); Burn: `Backward::prepare`.

    `inputs` are the inputs' nodes (None for a plain input). Plain inputs are
    untracked constants (Burn 0.22.1). If no input is autodiff, nothing is
    recorded and the output is plain. Runs once per op, so it allocates no
    more than the node needs.
    """
    tracked = [i for i, node in enumerate(inputs)
               if node is not None and node.requirement is not Requirement.NONE]
    if not tracked:
        if all(node is None for node in inputs):
            return device.inner(), None
        device = device.autodiff()
        return device, Node(next_node_id(), Requirement.NONE, (), op, device, shape, UNTRACKED_STEP,
                            detail=detail)
    if len(tracked) < len(inputs):
        backward = for_parents(backward, tracked)
    parents: tuple[Node, ...] = tuple([inputs[i] for i in tracked])  # type: ignore[misc]
    device = device.autodiff()
    node = Node(next_node_id(), Requirement.GRAD_IN_BACKWARD, parents, op, device, shape, Step(backward),
                detail=detail, untracked_inputs=len(inputs) - len(tracked))
    return device, node


def for_parents(backward: Callable[[mx.array], Sequence[mx.array]], tracked: list[int]) -> BackwardFn:
    """Keep only the gradients of the tracked inputs: those are the node's parents."""

    def step_backward(g: mx.array) -> list[mx.array]:
        grads = backward(g)
        return [grads[i] for i in tracked]

    return step_backward
