"""The article's flowchart, as a clickable graph: each box opens the chapter that tells it.

Parameters initialized on the CPU, then one decision: move them with `to_device`
(the failing branch: not a leaf, 0 gradients at step 0, a consumed tape at step
1) or with `fork` (fresh leaves, training works).
"""

from __future__ import annotations

from typing import Any

from bookkit.pictures import palette
from bookkit.pictures.dot import FONT, attributes
from bookkit.pictures.render import Drawing, Graph
from bookkit.words import SOURCE_LANGUAGE, languages, words

FAILING = {"fillcolor": palette.TO_DEVICE_BRANCH_FILL, "color": palette.TO_DEVICE_BRANCH}
WORKING = {"fillcolor": palette.FORK_BRANCH_FILL, "color": palette.FORK_BRANCH}
NEUTRAL = {"fillcolor": palette.START_FILL, "color": palette.START}

# (DOT name, chapter page, colours); the words and tooltips are the words' part "flowchart"
STEPS = [
    ("initialized", "01-initialized.html", NEUTRAL),
    ("choice", "02-to_device-or-fork.html", NEUTRAL),
    ("not_a_leaf", "03-not-a-leaf.html", FAILING),
    ("step0", "04-step-0.html", FAILING),
    ("step1", "05-step-1.html", FAILING),
    ("fork", "06-fork.html", WORKING),
    ("trains", "07-training-works.html", WORKING),
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
    """The flowchart, in every language (the article's own words in Chinese); each box links to
    `link_prefix + "<chapter>.html"` (same folder: no prefix)."""
    drawings = {code: _drawing(words(code, "flowchart"), link_prefix) for code in languages()}
    english = drawings.pop(SOURCE_LANGUAGE)
    return Graph(english.title, english.dot, translations=drawings)


def _drawing(said: dict[str, Any], link_prefix: str) -> Drawing:
    lines = [
        "digraph flowchart {",
        "  graph "
        + attributes(
            {
                "rankdir": "TB",
                "fontname": FONT,
                "nodesep": 0.5,
                "ranksep": 0.4,
                "tooltip": said["tooltip"],
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
    for name, page, colours in STEPS:
        box = said["boxes"][name]
        attrs: dict[str, str | int | float] = {"label": box["words"], **colours}
        if name == "choice":
            attrs["shape"] = "diamond"
            attrs["style"] = "filled"
        attrs.update({"URL": link_prefix + page, "target": "_top", "tooltip": box["tooltip"]})
        lines.append(f"  {name} " + attributes(attrs) + ";")
    for tail, head, label, colours in EDGES:
        attrs = {"color": colours["color"], "fontcolor": colours["color"]}
        if label:
            attrs["label"] = f" {label} "
        lines.append(f"  {tail} -> {head} " + attributes(attrs) + ";")
    lines.append("}")
    return Drawing(said["title"], "\n".join(lines) + "\n")
