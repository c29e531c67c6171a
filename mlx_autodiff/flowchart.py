"""The article's flowchart, as a clickable graph: each box opens the chapter that tells it.

Parameters initialized on the CPU, then one decision: move them with `to_device`
(the failing branch: not a leaf, 0 gradients at step 0, a consumed tape at step
1) or with `fork` (fresh leaves, training works).
"""

from __future__ import annotations

from . import palette
from .dot import FONT, attributes
from .render import Graph

FAILING = {"fillcolor": palette.TO_DEVICE_BRANCH_FILL, "color": palette.TO_DEVICE_BRANCH}
WORKING = {"fillcolor": palette.FORK_BRANCH_FILL, "color": palette.FORK_BRANCH}
NEUTRAL = {"fillcolor": palette.START_FILL, "color": palette.START}

# (DOT name, words, chapter page, tooltip, colours)
STEPS = [
    (
        "initialized",
        "Parameters initialized\non the CPU",
        "01-initialized.html",
        "Chapter 1: an autodiff Linear built and read on flex, so its weight and bias exist as leaves.",
        NEUTRAL,
    ),
    (
        "choice",
        "to_device\nor fork?",
        "02-to_device-or-fork.html",
        "Chapter 2: two ways to move a model to metal, and why they look alike.",
        NEUTRAL,
    ),
    (
        "not_a_leaf",
        "The parameter is\nto_device's output",
        "03-not-a-leaf.html",
        "Chapter 3: to_device records an op, so each parameter is GradInBackward, not a leaf.",
        FAILING,
    ),
    (
        "step0",
        "Step 0:\n0 gradients",
        "04-step-0.html",
        "Chapter 4: backward works, but the gradients land on the CPU originals; Adam changes nothing.",
        FAILING,
    ),
    (
        "step1",
        "Step 1:\ntape consumed",
        "05-step-1.html",
        "Chapter 5: backward reaches NodeId(3) again, whose step step 0 consumed: TapeConsumedError.",
        FAILING,
    ),
    (
        "fork",
        "The parameter is a leaf\non the new device",
        "06-fork.html",
        "Chapter 6: fork moves, detaches and requires grad again: fresh leaves on metal.",
        WORKING,
    ),
    (
        "trains",
        "Training works",
        "07-training-works.html",
        "Chapter 7: two gradients per step, and the loss goes down.",
        WORKING,
    ),
]

EDGES = [
    ("initialized", "choice", "", NEUTRAL),
    ("choice", "not_a_leaf", "to_device", FAILING),
    ("not_a_leaf", "step0", "", FAILING),
    ("step0", "step1", "", FAILING),
    ("choice", "fork", "fork", WORKING),
    ("fork", "trains", "", WORKING),
]


def flowchart(link_prefix: str = "") -> Graph:
    """The flowchart; each box links to `link_prefix + "<chapter>.html"` (same folder: no prefix)."""
    lines = [
        "digraph flowchart {",
        "  graph "
        + attributes(
            {
                "rankdir": "TB",
                "fontname": FONT,
                "nodesep": 0.5,
                "ranksep": 0.4,
                "tooltip": "to_device or fork: the story in seven chapters",
            }
        )
        + ";",
        "  node "
        + attributes(
            {
                "fontname": FONT,
                "fontsize": 12,
                "shape": "box",
                "style": "rounded,filled",
                "penwidth": 1.5,
                "margin": "0.2,0.1",
            }
        )
        + ";",
        "  edge " + attributes({"fontname": FONT, "fontsize": 11, "penwidth": 1.5}) + ";",
    ]
    for name, words, page, tooltip, colours in STEPS:
        attrs: dict[str, str | int | float] = {"label": words, **colours}
        if name == "choice":
            attrs["shape"] = "diamond"
            attrs["style"] = "filled"
        attrs.update({"URL": link_prefix + page, "target": "_top", "tooltip": tooltip})
        lines.append(f"  {name} " + attributes(attrs) + ";")
    for tail, head, label, colours in EDGES:
        attrs = {"color": colours["color"], "fontcolor": colours["color"]}
        if label:
            attrs["label"] = f" {label} "
        lines.append(f"  {tail} -> {head} " + attributes(attrs) + ";")
    lines.append("}")
    return Graph("to_device or fork: the flowchart", "\n".join(lines) + "\n")
