"""Packaging beyond pyproject.toml: a wheel of this package carries the book's chapters.

The exercises' checks live in the chapters (book/*.md), and `mlx-autodiff-exercises check` grades
with the book's checks only, never a notebook's own; so that `pip install "mlx-autodiff[exercises]
@ git+<repository>"` can grade without a clone, the wheel gets `_toc.yml` and `book/*.md` in
`bookkit/_book/` (bookkit/workbook/chapters.py: SHIPPED). An editable install (`make
setup`) reads the repository's own chapters instead.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithTheBook(build_py):
    """build_py, and the chapters and table of contents copied into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "bookkit" / "_book"
        (target / "book").mkdir(parents=True, exist_ok=True)
        shutil.copy2("_toc.yml", target / "_toc.yml")
        for chapter in sorted(Path("book").glob("*.md")):
            shutil.copy2(chapter, target / "book" / chapter.name)


setup(cmdclass={"build_py": BuildWithTheBook})
