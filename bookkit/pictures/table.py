"""A table a chapter computes, shown as HTML: the markup Sphinx gives a Markdown table, but not extracted.

A cell that shows `IPython.display.Markdown(...)` gives a `text/markdown`
output, which myst-nb parses as part of the page: Sphinx's gettext builder then
extracts every cell of it into the translations' catalogs, and a table of
measurements changes with every run, so each build would ask translators for
new "text". `Table` shows the same table as `text/html`, which is not
extracted, written with the elements and classes Sphinx and
pydata-sphinx-theme 0.15.4 give a Markdown table (`table.table` in a
`div.pst-scrollable-table-container`, which scrolls sideways on a phone, rows
`row-odd` / `row-even`, each cell's text in a `<p>`): it looks, scrolls and is
reached by the keyboard as one. A cell may hold the little Markdown a tab's
explanation may (`code` and [links](10-fixes.md), `tabs.inline_markdown`).

    Table(["method", "outcome"], [["`ad-fork`", "trains"]], caption="The article's two")

A caption is written as Sphinx writes a table's title (`<caption>`), which
screen readers announce with the table.

`Table.in_every_language(make)` calls `make` once per language of `bookkit.words`
(inside `words.speaking`) and shows the tables as `editions.Editions`; `method_table` is
chapter 8's table of the seven methods, so made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bookkit.pictures.tabs import inline_markdown
from bookkit.runs.scenarios import SCENARIOS, RunRecord, Scenario
from bookkit.words import languages, speaking, word
from bookkit.words.multilingual import Editions
from mlx_autodiff.errors import AutodiffError


class RaggedTableError(AutodiffError, ValueError):
    """A row with more or fewer cells than the header has columns."""


@dataclass(frozen=True)
class Table:
    """A header and rows of cells (strings, in inline Markdown), shown as an HTML table."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "") -> None:
        object.__setattr__(self, "header", tuple(header))
        object.__setattr__(self, "rows", tuple(tuple(row) for row in rows))
        object.__setattr__(self, "caption", caption)
        for number, row in enumerate(self.rows, start=1):
            if len(row) != len(self.header):
                raise RaggedTableError(
                    f"row {number} has {len(row)} cells and the header {len(self.header)} columns: "
                    f"{list(row)!r}. Give every row one cell per column (an empty string for an empty cell).")

    def _repr_html_(self) -> str:
        def cells(row: tuple[str, ...], tag: str) -> str:
            kind = ' class="head"' if tag == "th" else ""
            return "".join(f"<{tag}{kind}><p>{inline_markdown(cell)}</p></{tag}>" for cell in row)

        parity = ["row-even", "row-odd"]  # Sphinx counts the header row as the first, odd one
        head = f'<thead>\n<tr class="row-odd">{cells(self.header, "th")}</tr>\n</thead>\n'
        body = "".join(f'<tr class="{parity[number % 2]}">{cells(row, "td")}</tr>\n'
                       for number, row in enumerate(self.rows))
        caption = (f'<caption><span class="caption-text">{inline_markdown(self.caption)}</span></caption>\n'
                   if self.caption else "")
        return (f'<div class="pst-scrollable-table-container"><table class="table">\n{caption}{head}'
                f"<tbody>\n{body}</tbody>\n</table>\n</div>")

    def __repr__(self) -> str:
        return f"<Table: {len(self.header)} columns, {len(self.rows)} rows>"

    @staticmethod
    def in_every_language(make: Callable[[], Table]) -> Editions:
        """The table `make` writes, once per language (`words.speaking` tells it which)."""
        tables = {}
        for code in languages():
            with speaking(code):
                tables[code] = make()._repr_html_()
        return Editions(tables)


def method_table(records: Sequence[RunRecord]) -> Editions:
    """Chapter 8's table: per method, where the model came from, how it moved, the flag, the
    gradients per step and the outcome, named in the language (identifiers stay as they are)."""

    def origin(scenario: Scenario) -> str:
        key = "initialized" if scenario.read_first else "lazy"
        if scenario.name == "direct":  # the article does not say whether it read this model
            key = "lazy_engines_choice"
        return word("method_table", key, where=f"`{scenario.built_on}`")

    def moves(scenario: Scenario) -> str:
        moved = word("method_table", "then").join(f"`{m}`" for m in scenario.moves)
        return moved or word("method_table", "not_moved")

    def make() -> Table:
        rows = []
        for record in records:
            scenario = SCENARIOS[record.name]
            grads = " ".join(str(step.grads) for step in record.steps) or word("method_table", "none")
            flag = str(record.require_grad).lower()
            outcome = word("outcome_names", record.outcome)
            rows.append([record.name, origin(scenario), moves(scenario), flag, grads, outcome])
        heads = ("method", "origin", "moved", "require_grad", "grads", "outcome")
        return Table([word("method_table", f"heads.{head}") for head in heads], rows)

    return Table.in_every_language(make)


__all__ = ["RaggedTableError", "Table", "method_table"]
