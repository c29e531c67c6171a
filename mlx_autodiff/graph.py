"""Snapshots of the autodiff graph, drawn so that the to_device bug can be seen.

`snapshot` walks every node reachable from a module's parameters and from named
tensors, as the graph is at that moment, and writes it as DOT text at once, so
a later backward pass cannot change the picture. What a reader should see:

- the three kinds of node (Burn: crates/burn-autodiff/src/graph/requirement.rs):
  GRAD leaves (green boxes), op outputs that are GRAD_IN_BACKWARD (blue, named by
  their op; `to_device` in bold orange), untracked tensors (grey, dashed);
- each device as a box of its own, so a `to_device` edge crosses between them,
  and inside it each submodule (`fc1`, `layers.0`) as a smaller box around its
  parameters;
- after backward: which steps were consumed, where gradients landed, which
  parameters got none; at a failure, the node backward stopped at.

A graph too big to lay out first folds each submodule's ops into one box
("fc2: 4 ops, collapsed"), then, if that is still too big, cuts the nodes
farthest from the roots into one summary box (pytorchviz users asked for big
graphs to collapse: its issue #71).

Node names come from node ids (`n3`) and everything is emitted in id order, so
the same graph always gives the same DOT text.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import mlx.core as mx

from .device import Device
from .errors import TapeConsumedError
from .flowchart import flowchart
from .module import Module
from .node import Node, Requirement, node_name
from .render import FONT, Graph, Html, RendererNotFoundError, attributes, html
from .tape import Gradients
from .tensor import Tensor

__all__ = ["Graph", "RendererNotFoundError", "flowchart", "snapshot"]

MAX_NODES = 200
"""Above this many nodes a snapshot keeps the ones nearest its roots and summarises the rest."""

LAYOUT_BUDGET = 600
"""Boxes plus long-edge dummies a drawing may have: well under a second to lay out."""

SHOWN_VALUES = 4
"""How many numbers of a tensor a tooltip shows."""

# Fill, border, and (faded) fill once the node's step was consumed.
STYLES: dict[str, dict[str, str]] = {
    "leaf": {
        "shape": "box",
        "style": "filled",
        "fillcolor": "#dcedc8",
        "color": "#33691e",
        "penwidth": "1.5",
    },
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": "#e3f2fd", "color": "#1565c0"},
    "to_device": {
        "shape": "box",
        "style": "rounded,filled,bold",
        "fillcolor": "#ffcc80",
        "color": "#e65100",
        "penwidth": "2.5",
    },
    "untracked": {
        "shape": "box",
        "style": "dashed,filled",
        "fillcolor": "#f5f5f5",
        "color": "#9e9e9e",
        "fontcolor": "#616161",
    },
    "plain": {"shape": "box", "style": "dashed", "color": "#9e9e9e", "fontcolor": "#616161"},
}
FADED_FILL = {"op": "#f4f8fc", "to_device": "#fff3e0", "untracked": "#fafafa"}
MUTED, GREEN, RED, AMBER = "#607d8b", "#2e7d32", "#c62828", "#e65100"


@dataclass
class _Box:
    """One drawn box: a node, or a plain tensor (which has no node)."""

    key: str
    device: Device
    shape: tuple[int, ...]
    node: Node | None = None
    names: list[str] = field(default_factory=list)
    values: str | None = None
    submodule: str | None = None
    """The submodule whose parameter this box holds (`fc1` for `fc1.weight`); None at top level."""


@dataclass
class _Fold:
    """The op nodes computed from one submodule's parameters, drawn as one box in a big graph."""

    key: str
    submodule: str
    members: list[_Box]

    @property
    def device(self) -> Device | None:
        """The members' device, or None if they are spread over several."""
        kinds = {box.device.kind for box in self.members}
        return self.members[0].device if len(kinds) == 1 else None


_Drawn = _Box | _Fold


@dataclass
class _Marks:
    """What backward and errors left on the graph, read once at snapshot time."""

    grads: Gradients | None
    params: set[int] | None
    """Node ids the module's parameters hold; None when no module was given."""
    error: BaseException | None
    failed: int | None
    note_on: str | None


def snapshot(
    title: str,
    *,
    module: Module | None = None,
    tensors: Mapping[str, Tensor] | None = None,
    grads: Gradients | None = None,
    error: BaseException | None = None,
    max_nodes: int = MAX_NODES,
) -> Graph:
    """The graph as it is now, drawn: reachable nodes, devices, consumed steps, gradients, errors.

    Reads only: parameters that are not initialized yet stay uninitialized (and
    are not drawn), and nothing is consumed.
    """
    roots = _roots(module, tensors)
    boxes = _collect(roots, error)
    params = None
    if module is not None:
        held = (p.val().node for _, p in module.named_params() if p.is_initialized())
        params = {node.id for node in held if node is not None}
    failed = error.node.id if isinstance(error, TapeConsumedError) and isinstance(error.node, Node) else None
    marks = _Marks(grads, params, error, failed, _note_target(boxes, tensors, error, failed))
    return Graph(title, _dot(title, boxes, marks, max_nodes))


# ----- what to draw -----------------------------------------------------------------


_Root = tuple[str, Tensor, str | None]
"""A name, its tensor, and for a nested parameter its submodule (`fc1` for `fc1.weight`)."""


def _roots(module: Module | None, tensors: Mapping[str, Tensor] | None) -> list[_Root]:
    """Initialized parameters (by path), then the named tensors, in the order given."""
    roots: list[_Root] = []
    if module is not None:
        for path, param in module.named_params():
            if param.is_initialized():
                roots.append((path, param.val(), path.rpartition(".")[0] or None))
    roots += [(name, tensor, None) for name, tensor in (tensors or {}).items()]
    return roots


def _collect(roots: list[_Root], error: BaseException | None) -> dict[str, _Box]:
    """Every box to draw, keyed by DOT name: the roots and all their ancestors."""
    boxes: dict[str, _Box] = {}
    stack: list[Node] = []
    for index, (name, tensor, submodule) in enumerate(roots):
        node = tensor.node
        key = f"n{node.id}" if node is not None else f"plain{index}"
        box = boxes.setdefault(key, _Box(key, tensor.device, tensor.shape, node))
        box.names.append(name)
        box.submodule = box.submodule or submodule
        box.values = box.values or _numbers(tensor.array)
        if node is not None:
            stack.append(node)
    if isinstance(error, TapeConsumedError) and isinstance(error.node, Node):
        stack.append(error.node)
    while stack:
        node = stack.pop()
        boxes.setdefault(f"n{node.id}", _Box(f"n{node.id}", node.device, node.shape, node))
        stack += [p for p in node.parents if f"n{p.id}" not in boxes]
    return boxes


def _note_target(
    boxes: Mapping[str, _Box],
    tensors: Mapping[str, Tensor] | None,
    error: BaseException | None,
    failed: int | None,
) -> str | None:
    """Where an error note hangs: the failed node, else the root tensor ("loss" or the last named)."""
    if error is None:
        return None
    if failed is not None:
        return f"n{failed}"
    names = list(tensors or {})
    if not names:
        return None
    root = "loss" if "loss" in names else names[-1]
    return next((box.key for box in boxes.values() if root in box.names), None)


def _numbers(array: mx.array) -> str:
    """The first few values, 4 decimals: enough to recognise a tensor, and stable across runs."""
    flat = array.reshape(-1)
    shown = ", ".join(f"{v:.4f}" for v in flat[:SHOWN_VALUES].tolist())
    return f"[{shown}{', ...' if flat.size > SHOWN_VALUES else ''}]"


def _kind(box: _Box) -> str:
    node = box.node
    if node is None:
        return "plain"
    if node.requirement is Requirement.GRAD:
        return "leaf"
    if node.requirement is Requirement.NONE:
        return "untracked"
    return "to_device" if node.op == "to_device" else "op"


def _consumed(node: Node | None) -> bool:
    """A non-leaf whose step a backward pass removed. (A leaf's no-op step does not matter.)"""
    return node is not None and not node.is_leaf and node.step is None and node.consumed_in is not None


def _grad_values(grads: Gradients, node: Node) -> str:
    """A landed gradient's first values. Gradients are found by a tensor's node, so a node
    no tensor holds any more (an original left behind by to_device) is asked through a stand-in."""
    grad = grads.get(Tensor(mx.zeros(0), node.device, node))
    return _numbers(grad.array) if grad is not None else "?"


# ----- DOT text -----------------------------------------------------------------------


def _dot(title: str, boxes: dict[str, _Box], marks: _Marks, max_nodes: int) -> str:
    ordered = sorted(boxes.values(), key=_order)
    folds: list[_Fold] = []
    parents = _drawn_parents(ordered, {})
    if not _fits(parents, max_nodes):
        folds = _folds(ordered, marks)
        parents = _drawn_parents(ordered, {box.key: fold.key for fold in folds for box in fold.members})
    drawn: dict[str, _Drawn] = {**boxes, **{fold.key: fold for fold in folds}}
    pinned = [key for key in parents if isinstance(box := drawn[key], _Box) and _pinned(box, marks)]
    kept, hidden = _keep(parents, pinned, max_nodes)
    lines = [
        "digraph autodiff {",
        "  graph " + attributes(_graph_attributes(title, marks)) + ";",
        "  node " + attributes({"fontname": FONT, "fontsize": 11, "margin": "0.14,0.06"}) + ";",
        "  edge " + attributes({"color": "#546e7a", "arrowsize": 0.7}) + ";",
    ]
    items = [drawn[key] for key in kept]
    for device in _devices(items):
        members = [item for item in items if item.device is not None and item.device.kind == device.kind]
        lines.append(f"  subgraph cluster_{device.kind} {{")
        lines.append("    graph " + attributes(_cluster_attributes(device)) + ";")
        lines += _cluster_body(device.kind, members, marks)
        lines.append("  }")
    lines += [_statement(item, marks, "  ") for item in items if item.device is None]
    kept_keys = set(kept)
    lines += _edges(items, parents, kept_keys)
    if hidden:
        lines += _summary([drawn[key] for key in hidden], parents, kept_keys)
    if marks.error is not None and marks.note_on in kept_keys:
        lines += _note(marks)
    lines += _legend(items, marks)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _order(box: _Box) -> tuple[int, int, str]:
    return (0, box.node.id, "") if box.node is not None else (1, 0, box.key)


def _devices(items: list[_Drawn]) -> list[Device]:
    """One device per kind drawn, flex first: the first box's, which its cluster's label describes."""
    first = {item.device.kind: item.device for item in reversed(items) if item.device is not None}
    return [first[kind] for kind in ("flex", "metal") if kind in first]


def _cluster_body(kind: str, members: list[_Drawn], marks: _Marks) -> list[str]:
    """A device's boxes; each submodule's parameters in a box of their own, in first-seen order.

    A folded submodule's ops stay beside that box, not in it: the next layer's
    box would otherwise share a rank with it, and the layers would step sideways.
    """
    lines = [_statement(item, marks, "    ") for item in members if not _held_by(item)]
    for submodule in dict.fromkeys(_held_by(item) for item in members if _held_by(item)):
        lines.append(f"    subgraph cluster_{kind}_{_dot_name(submodule)} {{")
        lines.append("      graph " + attributes(_submodule_attributes(submodule)) + ";")
        lines += [_statement(item, marks, "      ") for item in members if _held_by(item) == submodule]
        lines.append("    }")
    return lines


def _held_by(item: _Drawn) -> str | None:
    """The submodule whose parameter a box holds."""
    return item.submodule if isinstance(item, _Box) else None


def _dot_name(path: str) -> str:
    """A submodule path as part of a DOT name: `layers.0` -> `layers_0`."""
    return re.sub(r"\W", "_", path)


def _statement(item: _Drawn, marks: _Marks, indent: str) -> str:
    attrs = _box_attributes(item, marks) if isinstance(item, _Box) else _fold_attributes(item)
    return f"{indent}{item.key} " + attributes(attrs) + ";"


# ----- big graphs: fold submodules, then cut ---------------------------------------------


def _drawn_parents(ordered: list[_Box], fold_of: Mapping[str, str]) -> dict[str, list[str]]:
    """Each drawn key's parents, in creation order, with folded boxes replaced by their fold.

    A fold gets each neighbour once; other boxes keep one edge per input, as the op has.
    """
    parents: dict[str, list[str]] = {}
    folds = set(fold_of.values())
    for box in ordered:
        key = fold_of.get(box.key, box.key)
        into = parents.setdefault(key, [])
        for parent in box.node.parents if box.node is not None else ():
            up = fold_of.get(f"n{parent.id}", f"n{parent.id}")
            folded = key in folds or up in folds
            if up != key and not (folded and up in into):
                into.append(up)
    return parents


def _fits(parents: dict[str, list[str]], max_nodes: int) -> bool:
    return len(parents) <= max_nodes and _layout_cost(parents, list(parents)) <= LAYOUT_BUDGET


def _folds(ordered: list[_Box], marks: _Marks) -> list[_Fold]:
    """Each submodule's op nodes, for a graph too big to draw node by node.

    An op that reads parameters belongs to their submodule; any other op to the
    submodule all its inputs belong to. The tape does not record where a
    `forward` ends, so ops after the last layer (a loss's `sub`, `square`) count
    as that layer's. Never folded: a to_device (the move this book is about),
    and the boxes a cut never hides (parameters, named tensors, the failed node).
    """
    held = {box.key: box.submodule for box in ordered if box.submodule}
    owner: dict[str, str | None] = dict(held)
    for box in ordered:  # ids grow with creation, so parents come first
        node = box.node
        if box.key in owner or node is None or node.is_leaf or node.op == "to_device":
            continue
        inputs = [f"n{parent.id}" for parent in node.parents]
        found = {held[key] for key in inputs if key in held} or {owner.get(key) for key in inputs}
        owner[box.key] = found.pop() if len(found) == 1 else None
    folds: dict[str, _Fold] = {}
    for box in ordered:
        submodule = owner.get(box.key)
        if submodule is not None and box.key not in held and not _pinned(box, marks):
            fold = folds.setdefault(submodule, _Fold(f"fold_{_dot_name(submodule)}", submodule, []))
            fold.members.append(box)
    return list(folds.values())


def _keep(parents: dict[str, list[str]], pinned: list[str], max_nodes: int) -> tuple[list[str], list[str]]:
    """All keys, or, for big graphs, the pinned ones and the nearest to them (breadth first).

    "Big" counts what the layout pays for: Graphviz breaks every edge that spans
    several ranks into one dummy node per rank, so a parameter used in every
    layer of a long chain costs far more than its one box.
    """
    keys = list(parents)
    if _fits(parents, max_nodes):
        return keys, []
    seen = set(pinned)
    queue = deque(pinned)
    nearest: list[str] = []
    while queue:
        key = queue.popleft()
        nearest.append(key)
        for parent in parents[key]:
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    low, high = min(len(pinned), max_nodes), max_nodes
    while low < high:  # the longest prefix of `nearest` the layout can afford
        middle = (low + high + 1) // 2
        if _layout_cost(parents, nearest[:middle]) <= LAYOUT_BUDGET:
            low = middle
        else:
            high = middle - 1
    kept = set(nearest[:low])
    return [key for key in keys if key in kept], [key for key in keys if key not in kept]


def _layout_cost(parents: dict[str, list[str]], keys: list[str]) -> int:
    """Boxes plus the dummy nodes of edges longer than one rank.

    Ranks by longest path, except that a source sits just above its first
    consumer, as Graphviz puts it: a parameter read once costs nothing, one
    read in every layer pays for every rank it spans.
    """
    kept = set(keys)
    rank: dict[str, int] = {}
    children: dict[str, list[str]] = {}
    for key in parents:  # creation order, so parents come first
        if key in kept:
            ups = [up for up in parents[key] if up in kept]
            rank[key] = 1 + max((rank[up] for up in ups if up in rank), default=-1)
            for up in ups:
                children.setdefault(up, []).append(key)
    for key in rank:
        if not any(up in kept for up in parents[key]) and key in children:
            rank[key] = min(rank[child] for child in children[key]) - 1
    spans = (abs(rank[child] - rank[up]) - 1 for up, below in children.items() for child in below)
    return len(keys) + sum(max(0, span) for span in spans)


def _pinned(box: _Box, marks: _Marks) -> bool:
    """Boxes a cut never hides: named tensors, parameters (GRAD leaves), the failed node."""
    node = box.node
    return (
        bool(box.names)
        or box.key == marks.note_on
        or (node is not None and (node.requirement is Requirement.GRAD or node.id == marks.failed))
    )


def _graph_attributes(title: str, marks: _Marks) -> dict[str, str | int | float]:
    label = f"<b>{html(title)}</b>"
    if marks.error is not None and marks.note_on is None:
        label += f'<br/><font color="{RED}">{_wrapped(_first_words(marks.error), "<br/>")}</font>'
    return {
        "label": Html(label),
        "labelloc": "t",
        "fontname": FONT,
        "fontsize": 16,
        "rankdir": "TB",
        "nodesep": 0.3,
        "ranksep": 0.35,
        "tooltip": title,
    }


def _cluster_attributes(device: Device) -> dict[str, str | int | float]:
    if device.kind == "flex":
        where = "CPU"
    else:
        where = "CPU stand-in" if device.is_stand_in else "GPU"
    return {
        "label": f"{device.kind} ({where})",
        "style": "rounded,filled",
        "fillcolor": "#fafafa" if device.kind == "flex" else "#fff8f0",
        "color": "#b0bec5",
        "fontname": FONT,
        "fontsize": 13,
        "fontcolor": "#37474f",
        "labeljust": "l",
        "tooltip": device.describe(),
    }


def _submodule_attributes(submodule: str) -> dict[str, str | int | float]:
    return {
        "label": submodule,
        "style": "rounded,filled",
        "fillcolor": "white",
        "color": "#90a4ae",
        "fontname": FONT,
        "fontsize": 11,
        "fontcolor": "#37474f",
        "labeljust": "l",
        "tooltip": f"the parameters of submodule {submodule}",
    }


def _fold_attributes(fold: _Fold) -> dict[str, str | int | float]:
    """A submodule's ops as one box: how many, which, and whether backward consumed them."""
    attrs: dict[str, str | int | float] = dict(STYLES["op"]) | {"shape": "box3d"}
    count = len(fold.members)
    which = _wrapped(textwrap.wrap(_op_counts(fold.members), 40), "<br/>")
    lines = [
        f"<b>{html(fold.submodule)}: {count} op{'s' if count > 1 else ''}, collapsed</b>",
        f'<font point-size="9" color="{MUTED}">{which}</font>',
    ]
    if all(_consumed(box.node) for box in fold.members):
        attrs["style"] += ",dashed"
        attrs["fillcolor"] = FADED_FILL["op"]
        attrs["fontcolor"] = MUTED
        last = max(box.node.consumed_in or 0 for box in fold.members if box.node is not None)
        lines.append(f'<font point-size="10" color="{MUTED}"><i>consumed in backward #{last}</i></font>')
    attrs["label"] = Html("<br/>".join(lines))
    ids = ", ".join(node_name(box.node.id) for box in fold.members if box.node is not None)
    attrs["tooltip"] = (
        f"{fold.submodule}: {count} op nodes computed from its parameters, drawn as one box "
        f"because the whole graph is too big to lay out\nops: {_op_counts(fold.members)}\nnodes: {ids}"
    )
    return attrs


def _op_counts(boxes: Iterable[_Box]) -> str:
    ops = Counter(box.node.op if box.node is not None else "plain" for box in boxes)
    return ", ".join(f"{op} x{n}" for op, n in sorted(ops.items()))


def _box_attributes(box: _Box, marks: _Marks) -> dict[str, str | int | float]:
    kind = _kind(box)
    attrs: dict[str, str | int | float] = dict(STYLES[kind])
    node = box.node
    title, sub = _headline(box, kind)
    extra: list[tuple[str, str]] = []
    if _consumed(node):
        assert node is not None
        attrs["style"] += ",dashed"
        attrs["fillcolor"] = FADED_FILL[kind]
        attrs["fontcolor"] = MUTED
        extra.append((MUTED, f"<i>consumed in backward #{node.consumed_in}</i>"))
    landed = node is not None and marks.grads is not None and node.id in marks.grads.node_ids()
    if landed:
        assert node is not None and marks.grads is not None
        attrs["peripheries"] = 2
        extra.append((GREEN, f"<b>&#8711; on {marks.grads.device_of(node.id).name}</b>"))
        if marks.params is not None and node.is_leaf and node.id not in marks.params:
            extra.append((AMBER, "no parameter holds it"))
    elif marks.grads is not None and node is not None and node.id in (marks.params or ()):
        extra.append((RED, "<b>no gradient</b>"))
    if node is not None and node.id == marks.failed:
        attrs["color"] = RED
        attrs["penwidth"] = 3.5
        extra.append((RED, "<b>backward failed here</b>"))
    lines = [f"<b>{html(title)}</b>", f'<font point-size="9" color="{MUTED}">{html(sub)}</font>']
    lines += [f'<font point-size="10" color="{color}">{text}</font>' for color, text in extra]
    attrs["label"] = Html("<br/>".join(lines))
    attrs["tooltip"] = _tooltip(box, kind, marks)
    return attrs


def _headline(box: _Box, kind: str) -> tuple[str, str]:
    """The bold first line and the grey second line of a box."""
    node = box.node
    shape = str(list(box.shape))
    names = ", ".join(box.names)
    if node is None:
        return names, f"plain tensor {shape}"
    label = names or node.label or ""
    if kind in ("leaf", "untracked") and node.is_leaf:
        origin = "" if node.op == "leaf" else f" · by {node.op}"  # detach: a leaf fork made
        return label or node.op, f"{node_name(node.id)} · {shape}{origin}"
    title = node.op
    if node.op == "to_device" and node.detail:
        title += f" ({node.detail.replace('.autodiff', '')})"
    sub = f"{node_name(node.id)} · {shape}"
    return title, f"{label} · {sub}" if label else sub


def _tooltip(box: _Box, kind: str, marks: _Marks) -> str:
    node = box.node
    lines = []
    if node is None:
        lines.append(f"{', '.join(box.names)}: a plain tensor, no node (nothing is recorded)")
    else:
        lines.append(f"{node_name(node.id)}: {node.op} ({node.requirement.value})")
        if node.label:
            lines.append(f"parameter: {node.label}")
        if node.detail:
            lines.append(f"moved: {node.detail}")
        if node.untracked_inputs:
            lines.append(f"untracked inputs: {node.untracked_inputs}")
    lines.append(f"device: {box.device.name}")
    lines.append(f"shape: {list(box.shape)}")
    if node is not None:
        lines.append(f"step: {_step_words(node)}")
    if box.values:
        lines.append(f"values: {box.values}")
    if node is not None and marks.grads is not None and node.id in marks.grads.node_ids():
        lines.append(f"gradient: {_grad_values(marks.grads, node)}")
    return "\n".join(lines)


def _step_words(node: Node) -> str:
    if node.step is not None:
        return "on the tape"
    if node.consumed_in is None:
        return "none (an untracked leaf)"
    if node.is_leaf:
        return f"consumed in backward #{node.consumed_in} (harmless: a leaf keeps its gradient)"
    return f"consumed in backward #{node.consumed_in}"


def _edges(items: list[_Drawn], parents: dict[str, list[str]], kept_keys: set[str]) -> list[str]:
    lines = []
    for item in items:
        for up in parents[item.key]:
            if up not in kept_keys:
                continue
            attrs: dict[str, str | int | float] = {}
            if isinstance(item, _Box) and item.node is not None and item.node.op == "to_device":
                attrs = {"color": AMBER, "penwidth": 2.5}
            if _all_consumed(item):
                attrs["style"] = "dashed"
            lines.append(f"  {up} -> {item.key}" + (" " + attributes(attrs) if attrs else "") + ";")
    return lines


def _all_consumed(item: _Drawn) -> bool:
    members = [item] if isinstance(item, _Box) else item.members
    return all(_consumed(box.node) for box in members)


def _summary(hidden: list[_Drawn], parents: dict[str, list[str]], kept_keys: set[str]) -> list[str]:
    """One box standing for every node left out, wired to the kept nodes it touches."""
    boxes = [box for item in hidden for box in ([item] if isinstance(item, _Box) else item.members)]
    label = f"... {len(boxes)} more nodes\n" + "\n".join(textwrap.wrap(_op_counts(boxes), 40))
    lines = [
        "  more " + attributes({"shape": "box", "style": "dashed", "color": MUTED, "label": label}) + ";"
    ]
    hidden_keys = {item.key for item in hidden}
    into = {key for key in kept_keys if any(up in hidden_keys for up in parents[key])}
    out_of = {up for key in hidden_keys for up in parents[key] if up in kept_keys}
    lines += [f"  more -> {key} [style=dashed];" for key in sorted(into, key=_key_order)]
    lines += [f"  {key} -> more [style=dashed];" for key in sorted(out_of, key=_key_order)]
    return lines


def _key_order(key: str) -> tuple[int, str]:
    return (int(key[1:]), "") if re.fullmatch(r"n\d+", key) else (1 << 62, key)


def _first_words(error: BaseException) -> list[str]:
    """The error's type and first sentence, one clause a line, so the words stay searchable."""
    text = str(error).strip()
    sentence = text.splitlines()[0].split(". ")[0].split("; ")[0].rstrip(".") if text else ""
    lines = [f"{type(error).__name__}:"]
    clauses = sentence.split(": ")
    for clause in [c + ":" for c in clauses[:-1]] + clauses[-1:]:
        lines += textwrap.wrap(clause, 52)
    return lines


def _wrapped(lines: list[str], newline: str) -> str:
    return newline.join(html(line) for line in lines)


def _note(marks: _Marks) -> list[str]:
    assert marks.error is not None
    attrs = {
        "shape": "note",
        "style": "filled",
        "fillcolor": "#ffebee",
        "color": RED,
        "fontcolor": "#b71c1c",
        "fontsize": 10,
        "label": Html(_wrapped(_first_words(marks.error), '<br align="left"/>') + '<br align="left"/>'),
        "tooltip": str(marks.error),
    }
    edge = {"style": "dashed", "color": RED, "arrowhead": "none"}
    return ["  error " + attributes(attrs) + ";", f"  error -> {marks.note_on} " + attributes(edge) + ";"]


def _legend(items: list[_Drawn], marks: _Marks) -> list[str]:
    """The key, in every graph: each colour and shape, plus the markings this graph uses."""
    kinds = [
        ("leaf", "leaf parameter (Grad): keeps its gradient"),
        ("op", "op output (GradInBackward), named by its op"),
        ("to_device", "to_device output: an op, not a leaf"),
        ("untracked", "untracked (None): no gradient flows"),
    ]
    kept = [item for item in items if isinstance(item, _Box)]
    if any(box.node is None for box in kept):
        kinds.append(("plain", "plain tensor: nothing recorded"))
    rows = []
    for kind, words in kinds:
        style = STYLES[kind]
        fill = style.get("fillcolor", "white")
        rows.append(_legend_row(f'<td bgcolor="{fill}" color="{style["color"]}"> </td>', words))
    if any(_all_consumed(item) for item in items):
        rows.append(_legend_row(_swatch("dashed outline", MUTED), "step consumed by a backward pass"))
    if len(kept) < len(items):
        rows.append(_legend_row(_swatch("fc: n ops", STYLES["op"]["color"]), "a submodule's ops, collapsed"))
    if marks.grads is not None:
        rows.append(_legend_row(_swatch("&#8711; on", GREEN), "gradient landed here (double border)"))
        rows.append(_legend_row(_swatch("no gradient", RED), "parameter got no gradient"))
    if marks.failed is not None:
        rows.append(_legend_row(_swatch("red border", RED), "node where backward stopped"))
    table = (
        '<table border="0" cellborder="1" cellspacing="2" cellpadding="3" color="#b0bec5">'
        '<tr><td colspan="2" border="0"><b>Legend</b></td></tr>' + "".join(rows) + "</table>"
    )
    attrs = {"shape": "plaintext", "fontsize": 9, "label": Html(table), "tooltip": "What the colours mean"}
    return ["  legend " + attributes(attrs) + ";"]


def _legend_row(swatch: str, words: str) -> str:
    return f'<tr>{swatch}<td align="left" border="0">{html(words)}</td></tr>'


def _swatch(text: str, color: str) -> str:
    return f'<td border="0"><font color="{color}">{text}</font></td>'
