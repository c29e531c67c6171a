"""Each exercise's number as the built page shows it ("Exercise 4.1"), derived from `_toc.yml`.

Jupyter Book 1 numbers the chapters of the `numbered: true` parts one after the other across
parts (part two's first chapter is 8), and sphinx-exercise numbers exercises per chapter
(Sphinx's `numfig_secnum_depth` 1): a chapter's sections (08a, inside chapter 8) go on with
their chapter's count after the chapter's own exercises. An unnumbered page (the appendices)
counts its exercises from 1 on its own. tests/book/test_exercises.py checks every number against
the built pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import yaml

from bookkit.workbook.chapters import Chapter, _source, chapters
from bookkit.workbook.convention import Exercise, exercises


def _walk(node: object, numbered: bool) -> Iterator[tuple[str, bool, int]]:
    """(entry, numbered, depth) for every `file:` under `node`, depth 0 for a top-level chapter."""
    if isinstance(node, list):
        for item in node:
            yield from _walk(item, numbered)
    elif isinstance(node, dict):
        numbered = bool(node.get("numbered", numbered))
        if isinstance(node.get("file"), str):
            yield node["file"], numbered, 0
            for entry, inner, depth in _walk(node.get("sections", []), numbered):
                yield entry, inner, depth + 1
        for key in ("parts", "chapters"):
            if key in node:
                yield from _walk(node[key], numbered)


def chapter_numbers(root: Path) -> dict[str, str]:
    """The number that prefixes each chapter's exercises ("4"), by chapter name; "" when unnumbered."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8")) or {}
    numbers: dict[str, str] = {}
    count, current = 0, ""
    for entry, numbered, depth in _walk(toc, False):
        path = _source(root, entry)
        if path is None:
            continue
        if depth == 0:
            count += numbered
            current = str(count) if numbered else ""
        numbers[path.stem] = current
    return numbers


def exercise_numbers(labels_by_chapter: dict[str, list[str]], root: Path) -> dict[str, str]:
    """Each exercise's number ("4.1"; "1" on an unnumbered page), from its chapter's labels in order."""
    chapters = chapter_numbers(root)
    counts: dict[str, int] = {}
    numbers: dict[str, str] = {}
    for chapter, labels in labels_by_chapter.items():
        prefix = chapters.get(chapter, "")
        key = prefix or chapter  # unnumbered pages count on their own
        for label in labels:
            counts[key] = counts.get(key, 0) + 1
            numbers[label] = f"{prefix}.{counts[key]}" if prefix else str(counts[key])
    return numbers


def numbered(chapter: Chapter) -> list[Exercise]:
    """The chapter's exercises, each with its number (the chapters before it that share its number,
    such as 08 before 08a, are read for their count)."""
    by_chapter = chapter_numbers(chapter.root)
    prefix = by_chapter.get(chapter.name, "")
    earlier: dict[str, list[str]] = {}
    if prefix:
        for other in chapters(chapter.root):
            if other.name == chapter.name:
                break
            if by_chapter.get(other.name) == prefix:
                earlier[other.name] = [ex.label for ex in exercises(other.read(), other.name)]
    found = exercises(chapter.read(), chapter.name)
    numbers = exercise_numbers({**earlier, chapter.name: [ex.label for ex in found]}, chapter.root)
    return [replace(ex, number=numbers[ex.label]) for ex in found]
