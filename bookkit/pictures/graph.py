"""Snapshots of the autodiff graph, drawn so that the to_device bug can be seen.

`snapshot` draws the graph as it is at that moment, in three steps, one module
each:

1. `graph_data.collect`: the graph as data, the nodes reachable from a
   module's parameters and from named tensors, and what backward and errors
   left on them;
2. `graph_layout.lay_out`: for a graph too big to draw, which boxes to fold
   and which to cut;
3. `graph_dot.dot_text`: the DOT text, with styles, labels, tooltips and the
   legend, and ids on every box from a hash of the drawing (so a page script
   can find a node's box), plus a one-sentence `description` for screen readers.

The DOT text is written at once, so a later backward pass cannot change the
picture; node names come from node ids (`n3`) and everything is emitted in id
order, so the same graph always gives the same text. `render.Graph` turns it
into SVG when someone looks.
"""

from __future__ import annotations

from collections.abc import Mapping

from bookkit.pictures.flowchart import flowchart
from bookkit.pictures.graph_data import collect
from bookkit.pictures.graph_dot import description, dot_text, graph_id_of
from bookkit.pictures.graph_layout import MAX_NODES, lay_out
from bookkit.pictures.render import Drawing, Graph, RendererNotFoundError
from bookkit.words import SOURCE_LANGUAGE, in_every_language, speaking
from mlx_autodiff.module import Module
from mlx_autodiff.tape import Gradients
from mlx_autodiff.tensor import Tensor

# `flowchart` is re-exported because the book's landing page imports it from here.
__all__ = ["MAX_NODES", "Graph", "RendererNotFoundError", "flowchart", "snapshot"]


def snapshot(
    title: str | Mapping[str, str],
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

    The graph is drawn once per language of `bookkit.words`, with the same ids. `title` is
    the English title, which the words' part "titles" translates, or a title per language.
    """
    titles = in_every_language(title, "titles")
    data = collect(module, tensors, grads, error)
    layout = lay_out(data, max_nodes)
    english = titles[SOURCE_LANGUAGE]
    graph_id = graph_id_of(dot_text(english, layout, data.marks))  # the English drawing without ids, hashed
    drawings = {}
    for code, text in titles.items():
        with speaking(code):
            drawings[code] = Drawing(text, dot_text(text, layout, data.marks, graph_id),
                                     description(layout, data.marks))
    source = drawings.pop(SOURCE_LANGUAGE)
    return Graph(source.title, source.dot, source.description, graph_id, drawings)
