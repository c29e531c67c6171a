"""DOT text in, inline SVG out: the `Graph` every picture in the book is.

A graph is built once as DOT text, which is deterministic and can be compared
in tests; rendering happens only when someone looks. The renderer is a system
Graphviz `dot` when there is one, else the `graphviz-pure` executable that
`pip install graphviz-pure` puts next to Python.

Notebooks get the SVG inline, as HTML, never as an image: Jupyter Book turns
image/svg+xml outputs into `<img>` tags, which kill the links and tooltips
inside the drawing (https://github.com/jupyter-book/jupyter-book/issues/855;
written for jupyter-book 1.0.4 with myst-nb 1.4.0, both pinned in
requirements.txt). tests/test_upstream.py fails once an SVG output is shown
inline, so `_repr_html_` could become `_repr_svg_`.

The inline SVG carries its text alternative: a `<title>` (the graph's title)
and an `aria-label` (title and a one-line description of what it shows), with
`role="img"`, or `role="figure"` when it holds links a reader can follow.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html import escape
from pathlib import Path

from .errors import AutodiffError

BROWSER_FONTS = "Helvetica,Arial,sans-serif"
"""What the SVG asks browsers for, so machines without Helvetica (`dot.FONT`) still get a sans-serif."""


class RendererNotFoundError(AutodiffError, RuntimeError):
    """Neither a system Graphviz `dot` nor the pip-installed `graphviz-pure` was found."""


class RenderFailedError(AutodiffError, RuntimeError):
    """The renderer ran but refused the DOT text (its own message is included)."""


class Graph:
    """A picture of a graph: its title, its DOT text, and its SVG on demand.

    The DOT text is fixed when the Graph is made; `svg()` renders it once and
    keeps the result. `description` says in one sentence what it shows (for
    screen readers); `graph_id` is the prefix of its elements' ids, where the
    DOT gives them (`graph_dot.element_id`).
    """

    def __init__(self, title: str, dot: str, description: str = "", graph_id: str | None = None) -> None:
        self.title = title
        self.dot = dot
        self.description = description
        self.graph_id = graph_id
        self._svg: str | None = None

    def svg(self) -> str:
        """The rendered SVG document (cached after the first call)."""
        if self._svg is None:
            self._svg = render_svg(self.dot)
        return self._svg

    def inline_html(self) -> str:
        """The SVG inline, named for screen readers, so links and tooltips keep working."""
        return inline_svg(self.svg(), self.title, self.description)

    def _repr_html_(self) -> str:
        """Jupyter's display hook."""
        return self.inline_html()

    def __repr__(self) -> str:
        return f"<Graph {self.title!r}: {self.dot.count(' [')} statements of DOT>"


def find_renderer() -> Path:
    """The executable that turns DOT into SVG: system `dot` first, then `graphviz-pure`."""
    system = shutil.which("dot")
    if system:
        return Path(system)
    beside_python = shutil.which("graphviz-pure", path=str(Path(sys.executable).parent))
    pure = beside_python or shutil.which("graphviz-pure")
    if pure:
        return Path(pure)
    raise RendererNotFoundError(
        "No Graphviz renderer found: there is no `dot` on PATH and no `graphviz-pure` next to "
        f"{sys.executable} or on PATH. Install one: `pip install graphviz-pure` (no system "
        "packages needed), or Graphviz itself (`brew install graphviz`, `apt install graphviz`). "
        "The DOT text is still available as `graph.dot`."
    )


def render_svg(dot: str) -> str:
    """Render DOT text to an SVG document, with browser-friendly font names."""
    renderer = find_renderer()
    done = subprocess.run(
        [str(renderer), "-Tsvg"], input=dot, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0 or "<svg" not in done.stdout:
        raise RenderFailedError(
            f"{renderer.name} could not render this graph (exit status {done.returncode}): "
            f"{done.stderr.strip()[:500]}. Check the DOT text in `graph.dot`."
        )
    return re.sub(r'font-family="[^"]*"', f'font-family="{BROWSER_FONTS}"', done.stdout)


def inline_svg(svg: str, title: str = "", description: str = "") -> str:
    """The `<svg>` element alone, scaled down to fit narrow pages, named for screen readers.

    `role="img"` makes assistive technology read the label instead of every box;
    a drawing with links (the flowchart) is a `figure`, whose links stay reachable.
    """
    start = svg.find("<svg")
    element = svg[start:].strip()
    role = "figure" if "xlink:href=" in element else "img"
    label = ": ".join(part for part in (title, description) if part)
    named = f' role="{role}" aria-label="{escape(label)}"' if label else ""
    element = element.replace("<svg", f'<svg style="max-width:100%;height:auto"{named}', 1)
    if title:  # the first child of <svg>, where an SVG's own title belongs
        opening = element.index(">") + 1
        element = f"{element[:opening]}\n<title>{escape(title, quote=False)}</title>{element[opening:]}"
    return element

