"""Chinese text in matplotlib's pictures without a CJK font on the build machine: a font of metrics.

The curves keep their words as SVG text (`svg.fonttype: none`) that the reader's browser draws
with its own fonts, as it does a graph's, so no picture depends on the fonts the machine that
built the book happens to have. matplotlib still measures each text to lay a figure out, and its
own DejaVu Sans has no Han characters: measuring one warns (`Glyph 35757 ... missing from
font(s) DejaVu Sans`) and counts it as narrow. So `register` writes a font with one glyph, a box
an em wide, for every character Unicode calls wide (East Asian Width W or F: Han, kana, Hangul,
full-width punctuation), as wide as every CJK font draws them, and matplotlib falls back to it
after DejaVu Sans (`FAMILIES`). Its box is never drawn (the SVG keeps text, not shapes):
`browser_fonts` gives the SVG the fonts a reader's browser has instead.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
import unicodedata
from pathlib import Path

FAMILY = "mlx_autodiff wide metrics"
"""The metrics font's family name (nothing but matplotlib's layout ever reads it)."""

FAMILIES = ["DejaVu Sans", FAMILY]
"""matplotlib's `font.family` for every picture: its own DejaVu Sans, then wide characters' metrics."""

BROWSER_FONTS = ("'DejaVu Sans', Verdana, 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', "
                 "'Noto Sans CJK SC', 'Source Han Sans SC', sans-serif")
"""What the SVG asks the reader's browser for: the font the text was measured with (else Verdana, a
wide font like it, on a Mac or Windows), then the Chinese fonts of macOS, Windows and Linux."""

EM = 1000
ASCENT, DESCENT = 880, 120  # a CJK font's, in em units (Noto Sans CJK's)
VERSION = 1  # in the files' names: a change to the font below gets new files
WEIGHTS = {"Regular": 400, "Bold": 700}  # one file each: matplotlib logs a weight it lacks, onto stderr


def wide_characters() -> list[int]:
    """Every assigned code point that Unicode calls wide or full-width, as this Python knows them."""
    return [point for point in range(0x1100, 0x40000)
            if unicodedata.east_asian_width(chr(point)) in ("W", "F")
            and unicodedata.category(chr(point)) not in ("Cn", "Co", "Cs")]


def build_font(path: Path, weight: str) -> None:
    """Write the metrics font of `weight` ("Regular" or "Bold") to `path`: one em-wide box, mapped from
    every wide character (a many-to-one cmap, format 13, keeps it to a few KiB)."""
    from fontTools.fontBuilder import FontBuilder  # fontTools comes with matplotlib
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib.tables._c_m_a_p import CmapSubtable

    box = TTGlyphPen(None)
    box.moveTo((0, -DESCENT))
    box.lineTo((0, ASCENT))
    box.lineTo((EM, ASCENT))
    box.lineTo((EM, -DESCENT))
    box.closePath()
    builder = FontBuilder(EM, isTTF=True)
    builder.setupGlyphOrder([".notdef", "wide"])
    builder.setupCharacterMap({})
    table = CmapSubtable.newSubtable(13)
    table.platformID, table.platEncID, table.language = 3, 10, 0  # Windows, full Unicode
    table.cmap = dict.fromkeys(wide_characters(), "wide")
    builder.font["cmap"].tables = [table]
    builder.setupGlyf({".notdef": TTGlyphPen(None).glyph(), "wide": box.glyph()})
    builder.setupHorizontalMetrics({".notdef": (EM // 2, 0), "wide": (EM, 0)})
    builder.setupHorizontalHeader(ascent=ASCENT, descent=-DESCENT)
    builder.setupNameTable({"familyName": FAMILY, "styleName": weight})
    builder.setupOS2(sTypoAscender=ASCENT, sTypoDescender=-DESCENT, usWinAscent=ASCENT, usWinDescent=DESCENT,
                     usWeightClass=WEIGHTS[weight])
    builder.setupPost()
    builder.save(str(path))


@functools.cache
def register() -> list[Path]:
    """The metrics fonts, written once into matplotlib's cache folder and added to its font list."""
    import matplotlib
    from matplotlib import font_manager

    paths = []
    for weight in WEIGHTS:
        name = f"mlx-autodiff-wide-metrics-v{VERSION}-unicode{unicodedata.unidata_version}-{weight}.ttf"
        path = Path(matplotlib.get_cachedir()) / name
        if not path.exists():  # written beside it, then renamed: chapters run side by side
            handle, partial = tempfile.mkstemp(dir=path.parent, suffix=".ttf")
            os.close(handle)
            build_font(Path(partial), weight)
            os.replace(partial, path)
        font_manager.fontManager.addfont(str(path))
        paths.append(path)
    return paths


FONT_FAMILY = re.compile(r"font-family: [^;\"]*")


def browser_fonts(svg: str) -> str:
    """matplotlib's SVG text with `BROWSER_FONTS` instead of the fonts it was measured with."""
    return FONT_FAMILY.sub(f"font-family: {BROWSER_FONTS}", svg)
