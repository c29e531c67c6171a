"""Writing DOT: quoted strings, HTML-like labels, attribute lists, and the font every drawing names.

The graphs (`graph_dot`) and the flowchart (`flowchart`) write their DOT text
with these; `render` only turns finished DOT text into SVG.
"""

from __future__ import annotations

FONT = "Helvetica"
"""The font named in DOT. Both renderers know its metrics, so boxes fit their text."""


def quote(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def html(text: str) -> str:
    """Text made safe for a DOT HTML-like label."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class Html(str):
    """An HTML-like label, written between `<` and `>` instead of quotes."""


def attributes(attrs: dict[str, str | int | float]) -> str:
    """`[a="1", label=<...>]`, in insertion order, so the DOT text is stable."""
    parts = []
    for key, value in attrs.items():
        parts.append(f"{key}=<{value}>" if isinstance(value, Html) else f"{key}={quote(str(value))}")
    return "[" + ", ".join(parts) + "]"
