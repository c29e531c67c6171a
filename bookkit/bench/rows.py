"""The benchmark table: one `Row` per measurement, printed, shown in the book, and kept as JSON.

`make bench` (bookkit/bench/__init__.py) fills it from the engine's microbenchmarks
(`bench_engine`) and from the last book build (`bench_book`); the book's
benchmarks appendix reads it back with `load` and shows it with `table`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from bookkit.pictures.table import Table
from bookkit.words import say, spoken, words
from bookkit.words.explained import phrased
from bookkit.words.multilingual import Editions


@dataclass
class Row:
    """One line of the table; times in seconds, memory in bytes, `None` where there is nothing."""

    name: str
    engine: float | None
    reference: float | None = None
    reference_name: str = ""
    unit: str = "s"
    target: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.engine is None or not self.reference:
            return None
        return self.engine / self.reference

    @property
    def met(self) -> bool | None:
        ratio = self.ratio
        return None if self.target is None or ratio is None else ratio <= self.target


def _amount(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit == "s":
        return f"{value * 1e3:.3f} ms" if value < 1 else f"{value:.2f} s"
    if unit == "B":
        return f"{value / 2**20:.1f} MiB" if value >= 2**20 else f"{value / 2**10:.1f} KiB"
    return f"{value:,.0f}"


def _cells(row: Row, language: str | None = None) -> list[str]:
    """A row's cells; in another language than English, its words as the part "bench" says."""
    ratio = "" if row.ratio is None else f"{row.ratio:.2f}x"
    target = "" if row.target is None else f"<= {row.target:g}x"
    verdict = {True: "met", False: "missed", None: ""}[row.met]
    verdict = phrased(verdict, "bench", language) if verdict else ""
    said = phrased(row.reference_name, "bench", language)
    reference = f"{_amount(row.reference, row.unit)} ({said})" if row.reference_name else ""
    engine = _amount(row.engine, row.unit) or phrased(row.note, "bench", language)
    verdicts = " ".join(filter(None, [target, verdict]))
    return [phrased(row.name, "bench", language), engine, reference, ratio, verdicts]


HEADER = ["Measurement (median unless said)", "mlx_autodiff", "Reference", "Ratio", "Target"]


def _about(info: dict[str, str]) -> str:
    return ", ".join(f"{key}: {value}" for key, value in info.items())


def render(rows: list[Row], info: dict[str, str], markdown: bool) -> str:
    table = [HEADER] + [_cells(row) for row in rows]
    about = _about(info)
    if markdown:
        lines = [f"Machine: {about}", "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(cells) + " |" for cells in table[1:]]
        return "\n".join(lines)
    widths = [max(len(cells[i]) for cells in table) for i in range(len(HEADER))]
    lines = [f"Machine: {about}", ""]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()
              for cells in table]
    return "\n".join(lines)


ARCHITECTURES = ("x86_64", "AMD64", "arm64", "aarch64")


def shown_platform(platform: str) -> str:
    """What a reader needs of a machine's `platform.platform()`: its system and architecture
    ("Linux x86_64", "macOS arm64"), not the measuring machine's kernel build
    ("Linux-6.18.44-fc-v1272-x86_64-with-glibc2.36")."""
    parts = platform.split("-")
    return " ".join([parts[0], *[part for part in parts[1:] if part in ARCHITECTURES][:1]])


def table(rows: list[Row], info: dict[str, str]) -> Editions:
    """The results as the book's appendix shows them (an HTML table, captioned with the machine), in
    every edition's words."""

    def make() -> Table:
        language = spoken()
        header = [phrased(cell, "bench", language) for cell in HEADER]
        said = words(language, "bench_machine")
        shown = {**info, "platform": shown_platform(info["platform"])} if "platform" in info else info
        about = said["between"].join(
            say(said["item"], key=phrased(key, "bench", language), value=phrased(value, "bench", language))
            for key, value in shown.items())
        return Table(header, [_cells(row, language) for row in rows],
                     caption=say(words(language, "bench")["machine"], about=about))

    return Table.in_every_language(make)


def save(path: Path, rows: list[Row], info: dict[str, str]) -> None:
    """Write the results as JSON: the book's benchmark appendix renders this file."""
    results = [asdict(row) | {"ratio": row.ratio, "met": row.met} for row in rows]
    path.write_text(json.dumps({"machine": info, "rows": results}, indent=2) + "\n")


def load(path: Path) -> tuple[list[Row], dict[str, str]]:
    """Read results written by `save` (derived fields are recomputed, not trusted)."""
    data = json.loads(path.read_text())
    names = Row.__dataclass_fields__
    rows = [Row(**{key: value for key, value in row.items() if key in names}) for row in data["rows"]]
    return rows, data["machine"]
