"""Which boxes a drawing keeps: big graphs fold submodules, then cut, by Graphviz's cost.

A graph too big to lay out first folds each submodule's ops into one box
("fc2: 4 ops, collapsed"), then, if that is still too big, cuts the nodes
farthest from the roots into one summary box (pytorchviz users asked for big
graphs to collapse: https://github.com/szagoruyko/pytorchviz/issues/71). "Too
big" counts what Graphviz pays for, boxes plus the dummy nodes of long edges,
not just boxes.

Works on `graph_data`'s boxes only; `graph_dot` writes the result.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from bookkit.pictures.graph_data import Box, GraphData, Marks, node_key
from mlx_autodiff.device import Device
from mlx_autodiff.node import Requirement

MAX_NODES = 200
"""Above this many nodes a snapshot keeps the ones nearest its roots and summarises the rest."""

LAYOUT_BUDGET = 600
"""Boxes plus long-edge dummies a drawing may have: well under a second to lay out."""


@dataclass
class Fold:
    """The op nodes computed from one submodule's parameters, drawn as one box in a big graph."""

    key: str
    submodule: str
    members: list[Box]

    @property
    def device(self) -> Device | None:
        """The members' device, or None if they are spread over several."""
        kinds = {box.device.kind for box in self.members}
        return self.members[0].device if len(kinds) == 1 else None


Drawn = Box | Fold


def boxes_of(item: Drawn) -> list[Box]:
    """The boxes a drawn item stands for: itself, or a fold's members."""
    return [item] if isinstance(item, Box) else item.members


@dataclass
class Layout:
    """What a drawing shows: the kept items in creation order, their parents, and what was cut."""

    items: list[Drawn]
    parents: dict[str, list[str]]
    """Each drawn key's parents (folded boxes replaced by their fold), for every key, kept or not."""
    hidden: list[Drawn]

    @property
    def kept_keys(self) -> set[str]:
        return {item.key for item in self.items}


def lay_out(data: GraphData, max_nodes: int = MAX_NODES) -> Layout:
    """All boxes if the graph is small; else folded submodules, then the part nearest the roots."""
    ordered = sorted(data.boxes.values(), key=_order)
    folds: list[Fold] = []
    parents = _drawn_parents(ordered, {})
    if not _fits(parents, max_nodes):
        folds = _folds(ordered, data.marks)
        parents = _drawn_parents(ordered, {box.key: fold.key for fold in folds for box in fold.members})
    drawn: dict[str, Drawn] = {**data.boxes, **{fold.key: fold for fold in folds}}
    pinned = [key for key in parents if isinstance(box := drawn[key], Box) and _pinned(box, data.marks)]
    kept, hidden = _keep(parents, pinned, max_nodes)
    return Layout([drawn[key] for key in kept], parents, [drawn[key] for key in hidden])


def submodule_key(path: str) -> str:
    """A submodule path as part of a DOT name: `layers.0` -> `layers_0`."""
    return re.sub(r"\W", "_", path)


def _order(box: Box) -> tuple[int, int, str]:
    return (0, box.node.id, "") if box.node is not None else (1, 0, box.key)


def _drawn_parents(ordered: list[Box], fold_of: Mapping[str, str]) -> dict[str, list[str]]:
    """Each drawn key's parents, in creation order, with folded boxes replaced by their fold.

    A fold gets each neighbour once; other boxes keep one edge per input, as the op has.
    """
    parents: dict[str, list[str]] = {}
    folds = set(fold_of.values())
    for box in ordered:
        key = fold_of.get(box.key, box.key)
        into = parents.setdefault(key, [])
        for parent in box.node.parents if box.node is not None else ():
            up = fold_of.get(node_key(parent.id), node_key(parent.id))
            folded = key in folds or up in folds
            if up != key and not (folded and up in into):
                into.append(up)
    return parents


def _fits(parents: dict[str, list[str]], max_nodes: int) -> bool:
    return len(parents) <= max_nodes and _layout_cost(parents, list(parents)) <= LAYOUT_BUDGET


def _folds(ordered: list[Box], marks: Marks) -> list[Fold]:
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
        if box.key in owner or node is None or node.is_leaf or node.is_move:
            continue
        inputs = [node_key(parent.id) for parent in node.parents]
        found = {held[key] for key in inputs if key in held} or {owner.get(key) for key in inputs}
        owner[box.key] = found.pop() if len(found) == 1 else None
    folds: dict[str, Fold] = {}
    for box in ordered:
        submodule = owner.get(box.key)
        if submodule is not None and box.key not in held and not _pinned(box, marks):
            fold = folds.setdefault(submodule, Fold(f"fold_{submodule_key(submodule)}", submodule, []))
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


def _pinned(box: Box, marks: Marks) -> bool:
    """Boxes a cut never hides: named tensors, parameters (GRAD leaves), the failed node."""
    node = box.node
    return (
        bool(box.names)
        or box.key == marks.note_on
        or (node is not None and (node.requirement is Requirement.GRAD or node.id == marks.failed))
    )
