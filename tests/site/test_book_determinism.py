"""Two executions of the book give the same numbers.

The book build executed every chapter once (the `book_build` fixture). Here each
chapter runs again in a fresh kernel, and every number it printed, displayed or
glued must match the build's. Only ParamIds may differ: Burn draws them at
random (crates/burn-std/src/id.rs) and so does the engine.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from book_outputs import ROOT, book_build, executed, executed_again, toc_pages  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("book_build")]

RANDOM_IDS = re.compile(r"ParamId\([0-9a-f]+\)")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
TEXT_KINDS = ("text/plain", "text/markdown")


def numbers(notebook: nbformat.NotebookNode) -> list[list[str]]:
    """Per code cell, every number in its text outputs (streams, reprs, tables, errors)."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        texts = []
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                texts.append(output.text)
            elif output.output_type == "error":
                texts.append(f"{output.ename}: {output.evalue}")
            else:
                texts += [str(output.get("data", {}).get(kind, "")) for kind in TEXT_KINDS]
        cells.append(NUMBER.findall(RANDOM_IDS.sub("ParamId(random)", "\n".join(texts))))
    return cells


def code_chapters() -> list[str]:
    chapters = []
    for page in toc_pages():
        source = ROOT / f"{page}.md"
        if "```{code-cell}" in source.read_text():
            chapters.append(page)
    return chapters


@pytest.mark.parametrize("chapter", code_chapters())
def test_a_second_execution_gives_the_same_numbers(executed_again, chapter: str) -> None:  # noqa: F811
    built = numbers(executed(chapter))
    again = numbers(executed_again(chapter))
    assert len(built) == len(again), f"{chapter}: the two executions have different cells"
    for index, (first, second) in enumerate(zip(built, again, strict=True)):
        assert first == second, f"{chapter}, code cell {index}: {first[:12]} != {second[:12]}"
