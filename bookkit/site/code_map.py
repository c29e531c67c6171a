"""Sphinx extension: `{code-map}`, README's map of the code with each row's lines, counted at build time.

Appendix 1 (book/a1-engine-tour.md) shows README.md's "Map of the code" with the
lines of the files each row names (a folder: its Python files). Counted in an
executed cell, those counts made README.md, tools/ and _static/ part of the
execution cache's key (bookkit/site/build.py's `engine_key`), so a README typo
executed every chapter again. Counted here, when the page is read, they cost
nothing a chapter computes: the key holds only what the chapters run.

The table is HTML (`bookkit.pictures.table.Table`, the markup of a Markdown table),
as the cell's output was, so gettext extracts none of README's English; the
one word it adds ("lines") comes from bookkit/words/ in the page's language (the part
"code_map"), and so do another edition's header and cells: README is the English, and
bookkit/words/<language>.json's "code_map" holds "header" and "rows", a row by README's module
cell with its "concept" and, where it says more than Burn's names, its "burn".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from bookkit.pictures.table import Table
from bookkit.words import words

ROOT = Path(__file__).resolve().parents[2]
SECTION = "Map of the code"


def map_of_the_code(readme: str) -> list[list[str]]:
    """README's "Map of the code" table: its header and its rows, each a list of cells as written."""
    section = readme.split(f"\n## {SECTION}\n", 1)[1].split("\n## ", 1)[0]
    header, _, *rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in [header, *rows]]


def named_files(module: str, root: Path = ROOT) -> list[Path]:
    """The files a row's first cell names in backticks (a folder: the Python files under it)."""
    paths = [root / name for name in re.findall(r"`([^`]+)`", module)]
    return [file for path in paths for file in (sorted(path.rglob("*.py")) if path.is_dir() else [path])]


def lines(files: list[Path]) -> int:
    return sum(len(file.read_text(encoding="utf8").splitlines()) for file in files)


def translation(language: str | None) -> dict[str, Any] | None:
    """The map's header and each row's cells in `language` (the words' part "code_map"), by README's
    module cell; None for English, whose words are README's own."""
    said = words(language, "code_map")
    return said if "rows" in said else None


def code_map(language: str | None, root: Path = ROOT) -> Table:
    """The map with a column of lines after the module's, in the page's language (a row the language's
    words lack stays English); the engine's own modules by their file name."""
    header, *rows = map_of_the_code((root / "README.md").read_text(encoding="utf8"))
    said = translation(language)
    if said:
        header = said["header"]
    counted = []
    for module, concept, burn in rows:
        row = said["rows"].get(module, {}) if said else {}
        counted.append([module.replace("`mlx_autodiff/", "`"), str(lines(named_files(module, root))),
                        row.get("concept", concept), row.get("burn", burn)])
    return Table([header[0], words(language, "code_map")["lines"], *header[1:]], counted)


class CodeMap(SphinxDirective):
    """`{code-map}`: README's map, its lines counted now; the page depends on every file it counts."""

    def run(self) -> list[nodes.Node]:
        readme = ROOT / "README.md"
        self.env.note_dependency(str(readme))
        for module, *_ in map_of_the_code(readme.read_text(encoding="utf8"))[1:]:
            for file in named_files(module):
                self.env.note_dependency(str(file))
        return [nodes.raw("", code_map(self.config.language)._repr_html_(), format="html")]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("code-map", CodeMap)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
