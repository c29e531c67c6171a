"""WCAG 2.1's contrast, for the tests that check a colour against another (marks, focus rings)."""

from __future__ import annotations

import re


def hex_colour(colour: str) -> str:
    """`#rrggbb` from `#rrggbb`, `white` or a browser's computed `rgb(r, g, b)`."""
    if colour == "white":
        return "#ffffff"
    found = re.fullmatch(r"rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*1)?\)", colour)
    return "#" + "".join(f"{int(part):02x}" for part in found.groups()) if found else colour


def luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of `#rrggbb` (or `white`, or `rgb(r, g, b)`)."""
    colour = hex_colour(colour)
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
