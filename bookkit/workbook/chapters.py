"""Which chapters the book has, and how a reader names one.

The book's table of contents (`_toc.yml`, Jupyter Book 1.x) is the list of
chapters; a chapter is named by its file's stem (`04-step-0`), by its number
(`04`, `4`, `a1`) or by its path (`book/04-step-0.md`).
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
import yaml
from nbformat.warnings import MissingIDFieldWarning

from bookkit.workbook.errors import NotANotebookError, UnknownChapterError

REPOSITORY = Path(__file__).resolve().parents[2]
SHIPPED = Path(__file__).resolve().parents[1] / "_book"
"""The chapters and _toc.yml a wheel of this package carries (setup.py copies them in when it builds
one), so that `pip install` without a clone can still grade with the book's checks."""
ROOT = REPOSITORY if (REPOSITORY / "_toc.yml").is_file() else SHIPPED
"""The book's root (where _toc.yml is): this repository, or the installed package's copy of the book,
unless a caller names another."""


@dataclass(frozen=True)
class Chapter:
    """A chapter source file in the table of contents."""

    name: str
    path: Path
    root: Path

    @property
    def source(self) -> str:
        """The path a reader knows it by, relative to the book's root."""
        return self.path.relative_to(self.root).as_posix()

    def read(self) -> nbformat.NotebookNode:
        """The chapter as a notebook (a MyST .md chapter is read with jupytext): a copy of its own for
        each caller, parsed once per version of the file (a book build asks for each chapter several
        times: its exercises, its fork, its live cells)."""
        stat = self.path.stat()
        return copy.deepcopy(_parsed(self.path, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=64)
def _parsed(path: Path, mtime_ns: int, size: int) -> nbformat.NotebookNode:
    """`path` as jupytext reads it; the file's time and size are the key, so an edit is read again."""
    return jupytext.read(path)


def chapters(root: Path = ROOT) -> list[Chapter]:
    """Every chapter file listed in `root/_toc.yml`, in the book's order."""
    toc_path = root / "_toc.yml"
    if not toc_path.exists():
        raise UnknownChapterError(f"no _toc.yml in {root}: point --book at the book's root folder.")
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8")) or {}
    found: list[Chapter] = []
    for entry in _files(toc):
        path = _source(root, entry)
        if path is not None:
            found.append(Chapter(path.stem, path, root))
    return found


def _files(node: object) -> Iterator[str]:
    """Every `root:` and `file:` value in a _toc.yml tree, depth first, in order."""
    if isinstance(node, dict):
        for key in ("root", "file"):
            if isinstance(node.get(key), str):
                yield node[key]
        for value in node.values():
            if isinstance(value, (list, dict)):
                yield from _files(value)
    elif isinstance(node, list):
        for item in node:
            yield from _files(item)


def _source(root: Path, entry: str) -> Path | None:
    """The file a _toc.yml entry names (the extension is optional there)."""
    path = root / entry
    candidates = (
        [path] if path.suffix in (".md", ".ipynb") else [path.with_suffix(".md"), path.with_suffix(".ipynb")]
    )
    return next((candidate for candidate in candidates if candidate.is_file()), None)


def resolve(name: str, root: Path = ROOT) -> Chapter:
    """The chapter a reader means by `04`, `04-step-0` or `book/04-step-0.md`."""
    known = chapters(root)
    stem = Path(name).stem if Path(name).suffix in (".md", ".ipynb") else Path(name).name
    if stem.isdigit():
        stem = stem.zfill(2)
    exact = [chapter for chapter in known if chapter.name == stem]
    matches = exact or [chapter for chapter in known if chapter.name.startswith(stem + "-")]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(chapter.name for chapter in (matches or known))
    if matches:
        raise UnknownChapterError(f"'{name}' names more than one chapter ({names}): give the full name.")
    raise UnknownChapterError(f"no chapter '{name}' in the book; the chapters are: {names}.")


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """A reader's .ipynb file, or NotANotebookError saying why it is not one."""
    if path.suffix != ".ipynb":
        raise NotANotebookError(
            f"{path} is not a notebook: give an .ipynb file or a chapter name such as 04."
        )
    try:
        with warnings.catch_warnings():
            # a cell without an id (a notebook edited by a script) is given one; nbformat's warning about it
            # names nbformat's own file on this machine, and the reader has nothing to do
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            return nbformat.read(path, as_version=4)
    except Exception as error:  # nbformat raises several unrelated types for a broken file
        raise NotANotebookError(
            f"{path} cannot be read as a notebook ({type(error).__name__}: {error}); "
            "get the chapter again with --output to get a fresh copy, and copy your answers into it."
        ) from error


def chapter_of_copy(nb: nbformat.NotebookNode, name: str, root: Path = ROOT) -> Chapter:
    """The chapter a reader's copy was made from: its metadata says (`get` writes it), else its
    file's name ("04-step-0.ipynb", "book/04-step-0.md")."""
    from bookkit.workbook.convention import FORK_KEY

    meta = nb.get("metadata", {}).get(FORK_KEY, {})
    named = meta.get("chapter") if isinstance(meta, dict) else None
    try:
        return resolve(named or Path(name).stem, root)
    except UnknownChapterError as error:
        raise UnknownChapterError(
            f"{name} is not a copy of a chapter of this book ({error}) Get one with `mlx-autodiff-exercises "
            "get <chapter>` and write your answers in it."
        ) from error
