"""DOT text in, inline SVG out: the `Graph` every picture in the book is.

A graph is built once as DOT text, which is deterministic and can be compared
in tests; rendering happens only when someone looks. The renderer is a system
Graphviz `dot` when there is one, else the `graphviz-pure` executable that
`pip install graphviz-pure` puts next to Python.

Notebooks get the SVG inline, as HTML, never as an image: Jupyter Book turns
image/svg+xml outputs into `<img>` tags, which kill the links and tooltips
inside the drawing (https://github.com/jupyter-book/jupyter-book/issues/855;
written for jupyter-book 1.0.4 with myst-nb 1.4.0, both pinned in
requirements.txt). tests/setup/test_upstream.py fails once an SVG output is shown
inline, so `_repr_html_` could become `_repr_svg_`.

The inline SVG carries its text alternative: a `<title>` (the graph's title)
and an `aria-label` (title and a one-line description of what it shows), with
`role="img"`, or `role="figure"` when it holds links a reader can follow.

A graph drawn in several languages (`graph.snapshot` draws one per words file) keeps
the other languages' drawings in `translations`; Jupyter is then shown
`editions.Editions` of them, and the book's page keeps its own language.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path

from bookkit.words import SOURCE_LANGUAGE
from bookkit.words.multilingual import join
from mlx_autodiff.errors import AutodiffError

BROWSER_FONTS = "Helvetica,Arial,sans-serif"
"""What the SVG asks browsers for, so machines without Helvetica (`dot.FONT`) still get a sans-serif."""


GRAPHVIZ_TITLE = re.compile(r"(<g\b[^>]*>)\s*<title>[^<]*</title>")


class RendererNotFoundError(AutodiffError, RuntimeError):
    """Neither a system Graphviz `dot` nor the pip-installed `graphviz-pure` was found."""


class RenderFailedError(AutodiffError, RuntimeError):
    """The renderer ran but refused the DOT text (its own message is included)."""


@dataclass(frozen=True)
class Drawing:
    """One language's drawing of a graph: the title, the DOT text, the one-sentence description."""

    title: str
    dot: str
    description: str = ""


class Graph:
    """A picture of a graph: its title, its DOT text, and its SVG on demand.

    The DOT text is fixed when the Graph is made; `svg()` renders it once and
    keeps the result. `description` says in one sentence what it shows (for
    screen readers); `graph_id` is the prefix of its elements' ids, where the
    DOT gives them (`graph_dot.element_id`), the same in every language's drawing.
    `translations` holds the drawing in each other language ("zh_CN"), English being
    `title`, `dot` and `description`.
    """

    def __init__(self, title: str, dot: str, description: str = "", graph_id: str | None = None,
                 translations: Mapping[str, Drawing] | None = None) -> None:
        self.title = title
        self.dot = dot
        self.description = description
        self.graph_id = graph_id
        self.translations = dict(translations or {})
        self._svg: dict[str, str] = {}

    def drawing(self, language: str | None = None) -> Drawing:
        """The drawing in `language` (English where there is none in it)."""
        if language in self.translations:
            return self.translations[language]
        return Drawing(self.title, self.dot, self.description)

    def svg(self, language: str | None = None) -> str:
        """The rendered SVG document in `language`, English by default (cached after the first call)."""
        code = language if language in self.translations else SOURCE_LANGUAGE
        if code not in self._svg:
            self._svg[code] = render_svg(self.drawing(code).dot)
        return self._svg[code]

    def inline_html(self, language: str | None = None) -> str:
        """The SVG inline, named for screen readers, so links and tooltips keep working."""
        drawing = self.drawing(language)
        return inline_svg(self.svg(language), drawing.title, drawing.description)

    def _repr_html_(self) -> str:
        """Jupyter's display hook: every language's drawing, as `editions.Editions` writes them."""
        if not self.translations:
            return self.inline_html()
        return join({SOURCE_LANGUAGE: self.inline_html(),
                     **{code: self.inline_html(code) for code in self.translations}})

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


HAN = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
"""Han characters and CJK punctuation, which a browser draws a full em wide."""

HAN_WIDENING = 1.2
"""Both renderers measure a Han character about 0.83 em wide (Helvetica's metrics have none), so
a drawing with Han text is laid out with its font sizes times this, and drawn at the sizes asked."""

_FONT_SIZE = re.compile(r'(fontsize=|point-size=)"([0-9.]+)"')
_SVG_FONT_SIZE = re.compile(r'font-size="([0-9.]+)"')


def render_svg(dot: str) -> str:
    """Render DOT text to an SVG document, with browser-friendly font names.

    DOT with Han text is laid out at `HAN_WIDENING` times its font sizes, so each box is wide
    enough for the text a browser draws, and its text drawn at the sizes the DOT asks for (every
    text of the book's drawings has its size set: `graph_dot`, `flowchart`).
    """
    han = bool(HAN.search(dot))
    if han:
        dot = _FONT_SIZE.sub(lambda m: f'{m[1]}"{float(m[2]) * HAN_WIDENING:g}"', dot)
    renderer = find_renderer()
    done = subprocess.run(
        [str(renderer), "-Tsvg"], input=dot, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0 or "<svg" not in done.stdout:
        raise RenderFailedError(
            f"{renderer.name} could not render this graph (exit status {done.returncode}): "
            f"{done.stderr.strip()[:500]}. Check the DOT text in `graph.dot`."
        )
    svg = re.sub(r'font-family="[^"]*"', f'font-family="{BROWSER_FONTS}"', done.stdout)
    if han:
        svg = _SVG_FONT_SIZE.sub(lambda m: f'font-size="{float(m[1]) / HAN_WIDENING:.2f}"', svg)
    return svg


def inline_svg(svg: str, title: str = "", description: str = "") -> str:
    """The `<svg>` element alone, scaled down to fit narrow pages, named for screen readers.

    `role="img"` makes assistive technology read the label instead of every box;
    a drawing with links (the flowchart) is a `figure`, whose links stay reachable.
    """
    start = svg.find("<svg")
    # Graphviz titles each group with its DOT name (cluster_flex, n2->n3, legend), which a browser
    # shows as a tooltip: the boxes carry their own (`tooltip`), and a name of the DOT is no reader's
    element = GRAPHVIZ_TITLE.sub(r"\1", svg[start:].strip())
    role = "figure" if "xlink:href=" in element else "img"
    label = ": ".join(part for part in (title, description) if part)
    named = f' role="{role}" aria-label="{escape(label)}"' if label else ""
    element = element.replace("<svg", f'<svg style="max-width:100%;height:auto"{named}', 1)
    if title:  # the first child of <svg>, where an SVG's own title belongs
        opening = element.index(">") + 1
        element = f"{element[:opening]}\n<title>{escape(title, quote=False)}</title>{element[opening:]}"
    return element

