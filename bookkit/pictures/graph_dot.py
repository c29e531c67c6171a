"""DOT text for a laid-out graph: styles, labels, tooltips, clusters, edges, the error note, the legend.

What a reader should see:

- the three kinds of node (Burn: crates/burn-autodiff/src/graph/requirement.rs):
  GRAD leaves (green boxes), op outputs that are GRAD_IN_BACKWARD (blue, named by
  their op; `to_device` in bold orange), untracked tensors (grey, dashed);
- each device as a box of its own, so a `to_device` edge crosses between them,
  and inside it each submodule (`fc1`, `layers.0`) as a smaller box around its
  parameters;
- after backward: which steps were consumed, where gradients landed, which
  parameters got none; at a failure, the node backward stopped at.

Every graph carries its legend. Colours come from `palette`; everything is
written in creation order, so the same graph always gives the same text.

Every box, cluster, note and the legend carries an `id`, which the SVG keeps:
`<graph id>-<key>` (`g3f2a9c1b-n3` for NodeId(3)), where the graph id is a hash
of the drawing without ids. Several graphs on one page therefore never share an
id (unless they are the same drawing), and a script can find a node's box.
"""

from __future__ import annotations

import hashlib
import textwrap
from collections import Counter
from collections.abc import Iterable

from bookkit.pictures import palette
from bookkit.pictures.dot import FONT, Html, attributes, html
from bookkit.pictures.graph_data import Box, Kind, Marks
from bookkit.pictures.graph_layout import Drawn, Fold, Layout, boxes_of, submodule_key
from bookkit.words import SOURCE_LANGUAGE, spoken, word, words
from bookkit.words.explained import explained
from mlx_autodiff.device import Device, accelerator_backend
from mlx_autodiff.node import Node, node_name

Attributes = dict[str, str | int | float]

STYLES: dict[Kind, dict[str, str]] = {
    "leaf": {
        "shape": "box",
        "style": "filled",
        "fillcolor": palette.LEAF_FILL,
        "color": palette.LEAF,
        "penwidth": "1.5",
    },
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": palette.OP_FILL, "color": palette.OP},
    "to_device": {
        "shape": "box",
        "style": "rounded,filled,bold",
        "fillcolor": palette.MOVED_FILL,
        "color": palette.MOVED,
        "penwidth": "2.5",
    },
    "untracked": {
        "shape": "box",
        "style": "dashed,filled",
        "fillcolor": palette.UNTRACKED_FILL,
        "color": palette.UNTRACKED,
        "fontcolor": palette.UNTRACKED_TEXT,
    },
    "plain": {
        "shape": "box",
        "style": "dashed",
        "color": palette.UNTRACKED,
        "fontcolor": palette.UNTRACKED_TEXT,
    },
}
"""Each kind of box: shape, style, fill and border."""

CONSUMED_FILL: dict[Kind, str] = {
    "op": palette.CONSUMED_OP_FILL,
    "to_device": palette.CONSUMED_MOVED_FILL,
    "untracked": palette.CONSUMED_UNTRACKED_FILL,
}
"""A kind's faded fill once a backward pass consumed the node's step (a leaf's never is)."""


def dot_text(title: str, layout: Layout, marks: Marks, graph_id: str | None = None) -> str:
    """The whole drawing: devices as clusters, boxes, edges, a summary of what was cut, note, legend.

    With a `graph_id`, every box, cluster, note and the legend gets an `id`; without, none does.
    """
    lines = [
        "digraph autodiff {",
        "  graph " + attributes(_with_id(_graph_attributes(title, marks), graph_id, "graph")) + ";",
        "  node " + attributes({"fontname": FONT, "fontsize": 11, "margin": "0.14,0.06"}) + ";",
        "  edge " + attributes({"color": palette.EDGE, "arrowsize": 0.7}) + ";",
    ]
    items = layout.items
    for device in _devices(items):
        members = [item for item in items if item.device is not None and item.device.kind == device.kind]
        lines += _subgraph(f"cluster_{device.kind}", _cluster_attributes(device), graph_id, "  ")
        lines += _cluster_body(device.kind, members, marks, graph_id)
        lines.append("  }")
    lines += [_statement(item, marks, "  ", graph_id) for item in items if item.device is None]
    kept_keys = layout.kept_keys
    lines += _edges(items, layout.parents, kept_keys)
    if layout.hidden:
        lines += _summary(layout.hidden, layout.parents, kept_keys, graph_id)
    if marks.error is not None and marks.note_on in kept_keys:
        lines += _note(marks, graph_id)
    lines += _legend(items, marks, graph_id)
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_id_of(dot: str) -> str:
    """A drawing's id: a hash of its DOT text written without ids (the same drawing, the same id)."""
    return "g" + hashlib.sha256(dot.encode()).hexdigest()[:10]


def element_id(graph_id: str, key: str) -> str:
    """The `id` of a box (or cluster, note, legend) in the SVG: `g3f2a9c1b-n3`."""
    return f"{graph_id}-{key}"


def _with_id(attrs: Attributes, graph_id: str | None, key: str) -> Attributes:
    """`attrs` with the element's id first; without a graph id, unchanged."""
    return attrs if graph_id is None else {"id": element_id(graph_id, key)} | attrs


KINDS: tuple[Kind, ...] = ("leaf", "op", "to_device", "untracked", "plain")
"""Each kind of box, in the order a description counts them: `2 leaves, 6 op outputs`."""


def _w(key: str, **values: object) -> str:
    """A text of the words' part "graph" in the language being drawn (`words.speaking`)."""
    return word("graph", key, **values)


def description(layout: Layout, marks: Marks) -> str:
    """What the picture shows, in one sentence, for a reader who cannot see it (its aria-label)."""
    boxes = [box for item in layout.items for box in boxes_of(item)]
    kinds = Counter(box.kind for box in boxes)
    counted = [_count(f"kinds.{kind}", kinds[kind]) for kind in KINDS if kinds[kind]]
    where = _w("and").join(device.kind for device in _devices(layout.items))
    parts = [_w("graph_of", n=len(boxes), where=where or _w("no_device"), counted=_w("comma").join(counted))]
    consumed = sum(box.consumed for box in boxes)
    if consumed:
        parts.append(_count("steps_consumed", consumed))
    landed = [box for box in boxes if marks.landed(box.node)]
    if marks.grads is not None:
        grads = marks.grads
        on = _w("comma").join(_w("gradient_on", name=_named(box), device=grads.device_of(box.node.id).name)
                              for box in landed if box.node is not None)
        parts.append(_w("gradients_on", on=on) if on else _w("no_gradient_landed"))
    if marks.failed is not None:
        parts.append(_w("failed_at", node=node_name(marks.failed)))
    elif marks.error is not None:
        parts.append(_w("ended_with", error=type(marks.error).__name__))
    if layout.hidden:
        parts.append(_w("not_drawn", n=len([b for item in layout.hidden for b in boxes_of(item)])))
    return _w("clauses").join(parts) + _w("end")


def _count(key: str, n: int, **values: object) -> str:
    """`n` things in words, singular or plural: `key` names a {"one", "many"} pair."""
    return _w(f"{key}.{'one' if n == 1 else 'many'}", n=n, **values)


def _named(box: Box) -> str:
    assert box.node is not None
    label = box.names[0] if box.names else box.node.label
    return node_name(box.node.id) + (f" '{label}'" if label else "")


# ----- devices and submodules ------------------------------------------------------------


def _devices(items: list[Drawn]) -> list[Device]:
    """One device per kind drawn, flex first: the first box's, which its cluster's label describes."""
    first = {item.device.kind: item.device for item in reversed(items) if item.device is not None}
    return [first[kind] for kind in ("flex", "metal") if kind in first]


def _cluster_body(kind: str, members: list[Drawn], marks: Marks, graph_id: str | None) -> list[str]:
    """A device's boxes; each submodule's parameters in a box of their own, in first-seen order.

    A folded submodule's ops stay beside that box, not in it: the next layer's
    box would otherwise share a rank with it, and the layers would step sideways.
    """
    lines = [_statement(item, marks, "    ", graph_id) for item in members if not _held_by(item)]
    for submodule in dict.fromkeys(_held_by(item) for item in members if _held_by(item)):
        cluster = f"cluster_{kind}_{submodule_key(submodule)}"
        lines += _subgraph(cluster, _submodule_attributes(submodule), graph_id, "    ")
        held = [item for item in members if _held_by(item) == submodule]
        lines += [_statement(item, marks, "      ", graph_id) for item in held]
        lines.append("    }")
    return lines


def _subgraph(cluster: str, attrs: Attributes, graph_id: str | None, indent: str) -> list[str]:
    """A cluster's opening lines: `subgraph cluster_flex {` and its attributes."""
    graph = attributes(_with_id(attrs, graph_id, cluster))
    return [f"{indent}subgraph {cluster} {{", f"{indent}  graph {graph};"]


def _held_by(item: Drawn) -> str | None:
    """The submodule whose parameter a box holds."""
    return item.submodule if isinstance(item, Box) else None


def _statement(item: Drawn, marks: Marks, indent: str, graph_id: str | None) -> str:
    attrs = _box_attributes(item, marks) if isinstance(item, Box) else _fold_attributes(item)
    return f"{indent}{item.key} " + attributes(_with_id(attrs, graph_id, item.key)) + ";"


def _graph_attributes(title: str, marks: Marks) -> Attributes:
    label = f"<b>{html(title)}</b>"
    if marks.error is not None and marks.note_on is None:
        label += f'<br/><font color="{palette.FAILED}">{_wrapped(_first_words(marks.error), "<br/>")}</font>'
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


def _cluster_attributes(device: Device) -> Attributes:
    if device.kind == "flex":
        where = _w("flex_where")
    else:
        where = _w("stand_in_where") if device.is_stand_in else _w("gpu_where")
    return {
        "label": _w("cluster", kind=device.kind, where=where),
        "style": "rounded,filled",
        "fillcolor": palette.FLEX_FILL if device.kind == "flex" else palette.METAL_FILL,
        "color": palette.DEVICE_BORDER,
        "fontname": FONT,
        "fontsize": 13,
        "fontcolor": palette.CLUSTER_TEXT,
        "labeljust": "l",
        "tooltip": _device_words(device),
    }


def _device_words(device: Device) -> str:
    """`Device.describe` in the language being drawn."""
    if device.kind == "flex":
        return _w("device_flex")
    backend = accelerator_backend()
    return _w("device_stand_in") if backend is None else _w("device_gpu", backend=backend.upper())


def _submodule_attributes(submodule: str) -> Attributes:
    return {
        "label": submodule,
        "style": "rounded,filled",
        "fillcolor": palette.NO_FILL,
        "color": palette.SUBMODULE_BORDER,
        "fontname": FONT,
        "fontsize": 11,
        "fontcolor": palette.CLUSTER_TEXT,
        "labeljust": "l",
        "tooltip": _w("submodule_tooltip", submodule=submodule),
    }


# ----- boxes -----------------------------------------------------------------------------


def _fold_attributes(fold: Fold) -> Attributes:
    """A submodule's ops as one box: how many, which, and whether backward consumed them."""
    attrs: Attributes = dict(STYLES["op"]) | {"shape": "box3d"}
    count = len(fold.members)
    which = _wrapped(textwrap.wrap(_op_counts(fold.members), 40), "<br/>")
    lines = [
        f"<b>{html(_count('folded', count, submodule=fold.submodule))}</b>",
        f'<font point-size="9" color="{palette.DETAIL_TEXT}">{which}</font>',
    ]
    if all(box.consumed for box in fold.members):
        attrs["style"] += ",dashed"
        attrs["fillcolor"] = CONSUMED_FILL["op"]
        attrs["fontcolor"] = palette.CONSUMED
        last = max(box.node.consumed_in or 0 for box in fold.members if box.node is not None)
        lines.append(
            f'<font point-size="10" color="{palette.CONSUMED}">{_w("consumed_mark", n=last)}</font>'
        )
    attrs["label"] = Html("<br/>".join(lines))
    ids = ", ".join(node_name(box.node.id) for box in fold.members if box.node is not None)
    ops = _op_counts(fold.members)
    attrs["tooltip"] = _w("folded_tooltip", submodule=fold.submodule, n=count, ops=ops, ids=ids)
    return attrs


def _op_counts(boxes: Iterable[Box]) -> str:
    ops = Counter(box.node.op if box.node is not None else "plain" for box in boxes)
    return ", ".join(f"{op} x{n}" for op, n in sorted(ops.items()))


def _box_attributes(box: Box, marks: Marks) -> Attributes:
    kind = box.kind
    attrs: Attributes = dict(STYLES[kind])
    node = box.node
    title, sub = _headline(box, kind)
    extra: list[tuple[str, str]] = []
    if box.consumed:
        assert node is not None
        attrs["style"] += ",dashed"
        attrs["fillcolor"] = CONSUMED_FILL[kind]
        attrs["fontcolor"] = palette.CONSUMED
        extra.append((palette.CONSUMED, _w("consumed_mark", n=node.consumed_in)))
    if marks.landed(node):
        assert node is not None and marks.grads is not None
        attrs["peripheries"] = 2
        device = marks.grads.device_of(node.id).name
        extra.append((palette.GRADIENT_LANDED, f"<b>{_w('gradient_landed', device=device)}</b>"))
        if marks.params is not None and node.is_leaf and node.id not in marks.params:
            extra.append((palette.UNCLAIMED_GRADIENT, _w("unclaimed")))
    elif marks.grads is not None and node is not None and node.id in (marks.params or ()):
        extra.append((palette.NO_GRADIENT, f"<b>{_w('no_gradient')}</b>"))
    if node is not None and node.id == marks.failed:
        attrs["color"] = palette.FAILED
        attrs["penwidth"] = 3.5
        extra.append((palette.FAILED, f"<b>{_w('failed_here')}</b>"))
    lines = [
        f"<b>{html(title)}</b>",
        f'<font point-size="9" color="{palette.DETAIL_TEXT}">{html(sub)}</font>',
    ]
    lines += [f'<font point-size="10" color="{color}">{text}</font>' for color, text in extra]
    attrs["label"] = Html("<br/>".join(lines))
    attrs["tooltip"] = _tooltip(box, marks)
    return attrs


def _headline(box: Box, kind: Kind) -> tuple[str, str]:
    """The bold first line and the grey second line of a box."""
    node = box.node
    shape = str(list(box.shape))
    names = ", ".join(box.names)
    if node is None:
        return names, _w("plain_tensor", shape=shape)
    label = names or node.label or ""
    if kind in ("leaf", "untracked") and node.is_leaf:
        origin = "" if node.op == "leaf" else _w("made_by", op=_op_name(node.op))  # detach: a leaf fork made
        return label or node.op, f"{node_name(node.id)} · {shape}{origin}"
    title = node.op
    if node.is_move and node.detail:
        title = _w("move_title", op=node.op, move=_move(node.detail.replace(".autodiff", "")))
    sub = f"{node_name(node.id)} · {shape}"
    return title, f"{label} · {sub}" if label else sub


def _move(detail: str) -> str:
    """A move's detail, "flex.autodiff to metal.autodiff" as `Tensor.to_device` writes it, in the words
    of the language being drawn."""
    source, _, target = detail.partition(" to ")
    return _w("move", source=source, target=target)


def _op_name(op: str) -> str:
    """An op as a box names it: its own name (an identifier), or the words' name for one that is a word
    of English (`optimizer`: the op of an optimizer step's fresh leaves)."""
    return word("graph", f"op_names.{op}") if op in words(SOURCE_LANGUAGE, "graph")["op_names"] else op


def _tooltip(box: Box, marks: Marks) -> str:
    node = box.node
    lines = []
    if node is None:
        lines.append(_w("tooltip.plain", names=", ".join(box.names)))
    else:
        lines.append(f"{node_name(node.id)}: {_op_name(node.op)} ({node.requirement.value})")
        if node.label:
            lines.append(_w("tooltip.parameter", label=node.label))
        if node.detail:
            lines.append(_w("tooltip.moved", detail=_move(node.detail)))
        if node.untracked_inputs:
            lines.append(_w("tooltip.untracked_inputs", n=node.untracked_inputs))
    lines.append(_w("tooltip.device", device=box.device.name))
    lines.append(_w("tooltip.shape", shape=list(box.shape)))
    if node is not None:
        lines.append(_w("tooltip.step", step=_step_words(node)))
    if box.values:
        lines.append(_w("tooltip.values", values=box.values))
    if node is not None and marks.landed(node):
        lines.append(_w("tooltip.gradient", gradient=marks.gradient_values(node)))
    return "\n".join(lines)


def _step_words(node: Node) -> str:
    if node.step is not None:
        return _w("step_on_tape")
    if node.consumed_in is None:
        return _w("step_none")
    if node.is_leaf:
        return _w("step_leaf_consumed", n=node.consumed_in)
    return _w("consumed_in", n=node.consumed_in)


# ----- edges, the summary of a cut, the error note -----------------------------------------


def _edges(items: list[Drawn], parents: dict[str, list[str]], kept_keys: set[str]) -> list[str]:
    lines = []
    for item in items:
        for up in parents[item.key]:
            if up not in kept_keys:
                continue
            attrs: Attributes = {}
            if isinstance(item, Box) and item.node is not None and item.node.is_move:
                attrs = {"color": palette.MOVED, "penwidth": 2.5}
            if _all_consumed(item):
                attrs["style"] = "dashed"
            lines.append(f"  {up} -> {item.key}" + (" " + attributes(attrs) if attrs else "") + ";")
    return lines


def _all_consumed(item: Drawn) -> bool:
    return all(box.consumed for box in boxes_of(item))


def _summary(
    hidden: list[Drawn], parents: dict[str, list[str]], kept_keys: set[str], graph_id: str | None
) -> list[str]:
    """One box standing for every node left out, wired to the kept nodes it touches."""
    boxes = [box for item in hidden for box in boxes_of(item)]
    label = _w("more_nodes", n=len(boxes)) + "\n" + "\n".join(textwrap.wrap(_op_counts(boxes), 40))
    summary: Attributes = {"shape": "box", "style": "dashed", "color": palette.CONSUMED, "label": label}
    lines = ["  more " + attributes(_with_id(summary, graph_id, "more")) + ";"]
    hidden_keys = {item.key for item in hidden}
    into = {key for key in kept_keys if any(up in hidden_keys for up in parents[key])}
    out_of = {up for key in hidden_keys for up in parents[key] if up in kept_keys}
    lines += [f"  more -> {key} [style=dashed];" for key in sorted(into, key=_key_order)]
    lines += [f"  {key} -> more [style=dashed];" for key in sorted(out_of, key=_key_order)]
    return lines


def _key_order(key: str) -> tuple[int, str]:
    return (int(key[1:]), "") if key[:1] == "n" and key[1:].isdigit() else (1 << 62, key)


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


def _note(marks: Marks, graph_id: str | None) -> list[str]:
    assert marks.error is not None
    attrs: Attributes = {
        "shape": "note",
        "style": "filled",
        "fillcolor": palette.ERROR_NOTE_FILL,
        "color": palette.FAILED,
        "fontcolor": palette.ERROR_NOTE_TEXT,
        "fontsize": 10,
        "label": Html(_wrapped(_first_words(marks.error), '<br align="left"/>') + '<br align="left"/>'),
        "tooltip": explained(str(marks.error), spoken()),
    }
    edge = {"style": "dashed", "color": palette.FAILED, "arrowhead": "none"}
    return [
        "  error " + attributes(_with_id(attrs, graph_id, "error")) + ";",
        f"  error -> {marks.note_on} " + attributes(edge) + ";",
    ]


# ----- the legend ------------------------------------------------------------------------


def _legend(items: list[Drawn], marks: Marks, graph_id: str | None) -> list[str]:
    """The key, in every graph: each colour and shape, plus the markings this graph uses."""
    kinds: list[Kind] = ["leaf", "op", "to_device", "untracked"]
    kept = [item for item in items if isinstance(item, Box)]
    if any(box.node is None for box in kept):
        kinds.append("plain")
    rows = []
    for kind in kinds:
        style = STYLES[kind]
        fill = style.get("fillcolor", palette.NO_FILL)
        swatch = f'<td bgcolor="{fill}" color="{style["color"]}"> </td>'
        rows.append(_legend_row(swatch, _w(f"legend.{kind}")))
    if any(_all_consumed(item) for item in items):
        rows.append(_legend_row(_swatch(_w("legend.dashed"), palette.CONSUMED), _w("legend.consumed")))
    if len(kept) < len(items):
        folded = _swatch(_w("legend.folded_swatch"), STYLES["op"]["color"])
        rows.append(_legend_row(folded, _w("legend.folded")))
    if marks.grads is not None:
        landed = _swatch(_w("legend.landed_swatch"), palette.GRADIENT_LANDED)
        rows.append(_legend_row(landed, _w("legend.landed")))
        none = _swatch(_w("legend.no_gradient_swatch"), palette.NO_GRADIENT)
        rows.append(_legend_row(none, _w("legend.no_gradient")))
    if marks.failed is not None:
        rows.append(_legend_row(_swatch(_w("legend.failed_swatch"), palette.FAILED), _w("legend.failed")))
    table = (
        f'<table border="0" cellborder="1" cellspacing="2" cellpadding="3" color="{palette.LEGEND_BORDER}">'
        f'<tr><td colspan="2" border="0"><b>{_w("legend.title")}</b></td></tr>' + "".join(rows) + "</table>"
    )
    attrs: Attributes = {"shape": "plaintext", "fontsize": 9, "label": Html(table)}
    attrs["tooltip"] = _w("legend.tooltip")
    return ["  legend " + attributes(_with_id(attrs, graph_id, "legend")) + ";"]


def _legend_row(swatch: str, words: str) -> str:
    return f'<tr>{swatch}<td align="left" border="0">{html(words)}</td></tr>'


def _swatch(text: str, color: str) -> str:
    return f'<td border="0"><font color="{color}">{text}</font></td>'
