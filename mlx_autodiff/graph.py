"""Snapshots of the autodiff graph, drawn so that the to_device bug can be seen.

`snapshot` walks every node reachable from a module's parameters and from named
tensors, as the graph is at that moment, and writes it as DOT text at once, so
a later backward pass cannot change the picture. What a reader should see:

- the three kinds of node (Burn: crates/burn-autodiff/src/graph/requirement.rs):
  GRAD leaves (green boxes), op outputs that are GRAD_IN_BACKWARD (blue, named by
  their op; `to_device` in bold orange), untracked tensors (grey, dashed);
- each device as a box of its own, so a `to_device` edge crosses between them;
- after backward: which steps were consumed, where gradients landed, which
  parameters got none; at a failure, the node backward stopped at.

Node names come from node ids (`n3`) and everything is emitted in id order, so
the same graph always gives the same DOT text.
"""

from __future__ import annotations

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


def _roots(module: Module | None, tensors: Mapping[str, Tensor] | None) -> list[tuple[str, Tensor]]:
    """Initialized parameters (by path), then the named tensors, in the order given."""
    roots: list[tuple[str, Tensor]] = []
    if module is not None:
        roots += [(path, p.val()) for path, p in module.named_params() if p.is_initialized()]
    roots += list((tensors or {}).items())
    return roots


def _collect(roots: list[tuple[str, Tensor]], error: BaseException | None) -> dict[str, _Box]:
    """Every box to draw, keyed by DOT name: the roots and all their ancestors."""
    boxes: dict[str, _Box] = {}
    stack: list[Node] = []
    for index, (name, tensor) in enumerate(roots):
        node = tensor.node
        key = f"n{node.id}" if node is not None else f"plain{index}"
        box = boxes.setdefault(key, _Box(key, tensor.device, tensor.shape, node))
        box.names.append(name)
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
    kept, hidden = _keep(ordered, boxes, marks, max_nodes)
    lines = [
        "digraph autodiff {",
        "  graph " + attributes(_graph_attributes(title, marks)) + ";",
        "  node " + attributes({"fontname": FONT, "fontsize": 11, "margin": "0.14,0.06"}) + ";",
        "  edge " + attributes({"color": "#546e7a", "arrowsize": 0.7}) + ";",
    ]
    for kind in ("flex", "metal"):
        members = [box for box in kept if box.device.kind == kind]
        if members:
            lines.append(f"  subgraph cluster_{kind} {{")
            lines.append("    graph " + attributes(_cluster_attributes(members[0].device)) + ";")
            lines += [f"    {box.key} " + attributes(_box_attributes(box, marks)) + ";" for box in members]
            lines.append("  }")
    kept_keys = {box.key for box in kept}
    lines += _edges(kept, kept_keys)
    if hidden:
        lines += _summary(hidden, kept, kept_keys)
    if marks.error is not None and marks.note_on in kept_keys:
        lines += _note(marks)
    lines += _legend(kept, marks)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _order(box: _Box) -> tuple[int, int, str]:
    return (0, box.node.id, "") if box.node is not None else (1, 0, box.key)


def _keep(
    ordered: list[_Box], boxes: dict[str, _Box], marks: _Marks, max_nodes: int
) -> tuple[list[_Box], list[_Box]]:
    """All boxes, or, for big graphs, the pinned ones and the nearest to them (breadth first).

    "Big" counts what the layout pays for: Graphviz breaks every edge that spans
    several ranks into one dummy node per rank, so a parameter used in every
    layer of a long chain costs far more than its one box.
    """
    if len(ordered) <= max_nodes and _layout_cost(boxes, [b.key for b in ordered]) <= LAYOUT_BUDGET:
        return ordered, []
    first = [b.key for b in ordered if _pinned(b, marks)]
    seen = set(first)
    queue = deque(first)
    nearest: list[str] = []
    while queue:
        key = queue.popleft()
        nearest.append(key)
        node = boxes[key].node
        for parent in node.parents if node is not None else ():
            if f"n{parent.id}" not in seen:
                seen.add(f"n{parent.id}")
                queue.append(f"n{parent.id}")
    low, high = min(len(first), max_nodes), max_nodes
    while low < high:  # the longest prefix of `nearest` the layout can afford
        middle = (low + high + 1) // 2
        if _layout_cost(boxes, nearest[:middle]) <= LAYOUT_BUDGET:
            low = middle
        else:
            high = middle - 1
    kept = set(nearest[:low])
    return [b for b in ordered if b.key in kept], [b for b in ordered if b.key not in kept]


def _layout_cost(boxes: dict[str, _Box], keys: list[str]) -> int:
    """Boxes plus the dummy nodes of edges longer than one rank, ranks by longest path."""
    kept = set(keys)
    nodes = sorted((boxes[k].node for k in keys if boxes[k].node is not None), key=lambda n: n.id)
    rank: dict[int, int] = {}
    cost = len(keys)
    for node in nodes:  # ids grow with creation, so parents come first
        parents = [p.id for p in node.parents if f"n{p.id}" in kept]
        rank[node.id] = 1 + max((rank[p] for p in parents), default=-1)
        cost += sum(rank[node.id] - rank[p] - 1 for p in parents)
    return cost


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


def _edges(kept: list[_Box], kept_keys: set[str]) -> list[str]:
    lines = []
    for box in kept:
        node = box.node
        for parent in node.parents if node is not None else ():
            if f"n{parent.id}" not in kept_keys:
                continue
            attrs: dict[str, str | int | float] = {}
            if node.op == "to_device":
                attrs = {"color": AMBER, "penwidth": 2.5}
            if _consumed(node):
                attrs["style"] = "dashed"
            lines.append(f"  n{parent.id} -> {box.key}" + (" " + attributes(attrs) if attrs else "") + ";")
    return lines


def _summary(hidden: list[_Box], kept: list[_Box], kept_keys: set[str]) -> list[str]:
    """One box standing for every node left out, wired to the kept nodes it touches."""
    ops = Counter(box.node.op if box.node is not None else "plain" for box in hidden)
    counts = ", ".join(f"{op} x{n}" for op, n in sorted(ops.items()))
    label = f"... {len(hidden)} more nodes\n" + "\n".join(textwrap.wrap(counts, 40))
    lines = [
        "  more " + attributes({"shape": "box", "style": "dashed", "color": MUTED, "label": label}) + ";"
    ]
    hidden_keys = {box.key for box in hidden}
    into, out_of = set(), set()
    for box in kept:
        for parent in box.node.parents if box.node is not None else ():
            if f"n{parent.id}" in hidden_keys:
                into.add(box.key)
    for box in hidden:
        for parent in box.node.parents if box.node is not None else ():
            if f"n{parent.id}" in kept_keys:
                out_of.add(f"n{parent.id}")
    lines += [f"  more -> {key} [style=dashed];" for key in sorted(into, key=_key_order)]
    lines += [f"  {key} -> more [style=dashed];" for key in sorted(out_of, key=_key_order)]
    return lines


def _key_order(key: str) -> tuple[int, str]:
    return (int(key[1:]), "") if key.startswith("n") else (1 << 62, key)


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


def _legend(kept: Iterable[_Box], marks: _Marks) -> list[str]:
    """The key, in every graph: each colour and shape, plus the markings this graph uses."""
    kinds = [
        ("leaf", "leaf parameter (Grad): keeps its gradient"),
        ("op", "op output (GradInBackward), named by its op"),
        ("to_device", "to_device output: an op, not a leaf"),
        ("untracked", "untracked (None): no gradient flows"),
    ]
    if any(box.node is None for box in kept):
        kinds.append(("plain", "plain tensor: nothing recorded"))
    rows = []
    for kind, words in kinds:
        style = STYLES[kind]
        fill = style.get("fillcolor", "white")
        rows.append(_legend_row(f'<td bgcolor="{fill}" color="{style["color"]}"> </td>', words))
    if any(_consumed(box.node) for box in kept):
        rows.append(_legend_row(_swatch("dashed outline", MUTED), "step consumed by a backward pass"))
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
