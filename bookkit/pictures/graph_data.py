"""The graph as data: what a snapshot draws, read once from the engine.

`collect` walks every node reachable from a module's parameters and from named
tensors, as the graph is at that moment, and reads what backward and errors
left on it: which gradients landed, which parameters hold which nodes, where
backward failed. The result is plain data, so that laying it out
(`graph_layout`) and writing it as DOT text (`graph_dot`) never touch the
engine, and a later backward pass cannot change the picture.

Each node is keyed by `node_key(id)` (`n3`): its DOT name, and the `<title>`
of its group in the rendered SVG.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import mlx.core as mx

from mlx_autodiff.device import Device
from mlx_autodiff.errors import TapeConsumedError
from mlx_autodiff.module import Module
from mlx_autodiff.node import Node, Requirement
from mlx_autodiff.tape import Gradients
from mlx_autodiff.tensor import Tensor

SHOWN_VALUES = 4
"""How many numbers of a tensor a tooltip shows."""

Kind = Literal["leaf", "op", "to_device", "untracked", "plain"]
"""What a box is: a GRAD leaf, an op output, a to_device output, an untracked node, a plain tensor."""


def node_key(node_id: int) -> str:
    """A node's name in DOT text and in the rendered SVG: `n3` for NodeId(3)."""
    return f"n{node_id}"


@dataclass
class Box:
    """One drawn box: a node, or a plain tensor (which has no node)."""

    key: str
    device: Device
    shape: tuple[int, ...]
    node: Node | None = None
    names: list[str] = field(default_factory=list)
    values: str | None = None
    submodule: str | None = None
    """The submodule whose parameter this box holds (`fc1` for `fc1.weight`); None at top level."""

    @property
    def kind(self) -> Kind:
        node = self.node
        if node is None:
            return "plain"
        if node.requirement is Requirement.GRAD:
            return "leaf"
        if node.requirement is Requirement.NONE:
            return "untracked"
        return "to_device" if node.is_move else "op"

    @property
    def consumed(self) -> bool:
        """A non-leaf whose step a backward pass removed. (A leaf's no-op step does not matter.)"""
        node = self.node
        return node is not None and not node.is_leaf and node.step is None and node.consumed_in is not None


@dataclass
class Marks:
    """What backward and errors left on the graph, read once at snapshot time."""

    grads: Gradients | None
    params: set[int] | None
    """Node ids the module's parameters hold; None when no module was given."""
    error: BaseException | None
    failed: int | None
    """The id of the node backward stopped at (a TapeConsumedError's node)."""
    note_on: str | None
    """The key of the box an error note hangs on."""

    def landed(self, node: Node | None) -> bool:
        """True if this backward pass kept a gradient for `node`."""
        return node is not None and self.grads is not None and self.grads.array_of(node.id) is not None

    def gradient_values(self, node: Node) -> str:
        """A landed gradient's first values."""
        grad = self.grads.array_of(node.id) if self.grads is not None else None
        return numbers(grad) if grad is not None else "?"


@dataclass
class GraphData:
    """Every box to draw, keyed by `Box.key`, and the marks on them."""

    boxes: dict[str, Box]
    marks: Marks


_Root = tuple[str, Tensor, str | None]
"""A name, its tensor, and for a nested parameter its submodule (`fc1` for `fc1.weight`)."""


def collect(
    module: Module | None,
    tensors: Mapping[str, Tensor] | None,
    grads: Gradients | None,
    error: BaseException | None,
) -> GraphData:
    """The boxes reachable from the module's initialized parameters and the named tensors, and the marks.

    Reads only: parameters that are not initialized yet stay uninitialized (and
    are not drawn), and nothing is consumed.
    """
    failed_node = error.node if isinstance(error, TapeConsumedError) else None
    boxes = _boxes(_roots(module, tensors), failed_node)
    params = None
    if module is not None:
        held = (p.val().node for _, p in module.named_params() if p.is_initialized())
        params = {node.id for node in held if node is not None}
    failed = failed_node.id if failed_node is not None else None
    marks = Marks(grads, params, error, failed, _note_target(boxes, tensors, error, failed))
    return GraphData(boxes, marks)


def _roots(module: Module | None, tensors: Mapping[str, Tensor] | None) -> list[_Root]:
    """Initialized parameters (by path), then the named tensors, in the order given."""
    roots: list[_Root] = []
    if module is not None:
        for path, param in module.named_params():
            if param.is_initialized():
                roots.append((path, param.val(), path.rpartition(".")[0] or None))
    roots += [(name, tensor, None) for name, tensor in (tensors or {}).items()]
    return roots


def _boxes(roots: list[_Root], failed: Node | None) -> dict[str, Box]:
    """Every box to draw, keyed by DOT name: the roots and all their ancestors."""
    boxes: dict[str, Box] = {}
    stack: list[Node] = []
    for index, (name, tensor, submodule) in enumerate(roots):
        node = tensor.node
        key = node_key(node.id) if node is not None else f"plain{index}"
        box = boxes.setdefault(key, Box(key, tensor.device, tensor.shape, node))
        box.names.append(name)
        box.submodule = box.submodule or submodule
        box.values = box.values or numbers(tensor.array)
        if node is not None:
            stack.append(node)
    if failed is not None:
        stack.append(failed)
    while stack:
        node = stack.pop()
        key = node_key(node.id)
        boxes.setdefault(key, Box(key, node.device, node.shape, node))
        stack += [p for p in node.parents if node_key(p.id) not in boxes]
    return boxes


def _note_target(
    boxes: Mapping[str, Box],
    tensors: Mapping[str, Tensor] | None,
    error: BaseException | None,
    failed: int | None,
) -> str | None:
    """Where an error note hangs: the failed node, else the root tensor ("loss" or the last named)."""
    if error is None:
        return None
    if failed is not None:
        return node_key(failed)
    names = list(tensors or {})
    if not names:
        return None
    root = "loss" if "loss" in names else names[-1]
    return next((box.key for box in boxes.values() if root in box.names), None)


def numbers(array: mx.array) -> str:
    """The first few values, 4 decimals: enough to recognise a tensor, and stable across runs."""
    flat = array.reshape(-1)
    shown = ", ".join(f"{v:.4f}" for v in flat[:SHOWN_VALUES].tolist())
    return f"[{shown}{', ...' if flat.size > SHOWN_VALUES else ''}]"
