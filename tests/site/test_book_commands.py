"""The commands the built book prints work as printed on a stock Mac, which has no `python` command
(zsh: command not found) and a `python3` too old for the book: they name `.venv/bin/python`."""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from book_outputs import HTML, ROOT, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

from bookkit.exercises import GRADER

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("book_build")]

BARE_PYTHON = re.compile(r"(?<![\w./-])python3?\s+-m\s")
VENV_MODULE = re.compile(r"\.venv/bin/python\s+-m\s+(?P<module>[\w.]+)(?P<arguments>[^\n#]*)")
EXERCISE_TOOL = re.compile(re.escape(GRADER) + r"\s+(?P<verb>[\w-]+)")


def page_text(docname: str) -> str:
    """A built page's words as a reader sees them (highlighted code is split into many spans)."""
    page = (HTML / f"{docname}.html").read_text("utf8")
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_no_page_tells_the_reader_to_run_a_bare_python() -> None:
    found = {docname: [text[max(0, hit.start() - 30):hit.end() + 40].strip()
                       for hit in BARE_PYTHON.finditer(text)]
             for docname in toc_pages() for text in [page_text(docname)]}
    assert not {name: hits for name, hits in found.items() if hits}, (
        f"pages print a bare `python -m` (write `.venv/bin/python -m`): {found}")


def test_every_venv_command_the_book_prints_names_a_module_there_is() -> None:
    printed = {hit["module"] for docname in toc_pages() for hit in VENV_MODULE.finditer(page_text(docname))}
    assert {"bookkit.site.build"} <= printed, printed
    missing = [module for module in printed if importlib.util.find_spec(module) is None]
    assert not missing, f"the book prints `.venv/bin/python -m` for modules that do not exist: {missing}"


def test_the_printed_exercise_listing_runs_from_the_repository_root() -> None:
    command = f"{GRADER} list"
    assert command in page_text("book/index") and command in page_text("book/a2-on-your-mac")
    # the installed command is `python -m bookkit.exercises` (pyproject.toml's [project.scripts])
    listed = subprocess.run([sys.executable, "-m", "bookkit.exercises", "list"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert "Exercise 4.1" in listed.stdout


def test_the_book_prints_one_set_of_exercise_commands() -> None:
    """Every page says `mlx-autodiff-exercises get` and `check`, never the old `fork` verb or a
    `python -m` form of the tool."""
    verbs = {hit["verb"] for docname in toc_pages() for hit in EXERCISE_TOOL.finditer(page_text(docname))}
    assert {"get", "check", "list"} == verbs, verbs
    for docname in toc_pages():
        assert "-m bookkit.exercises" not in page_text(docname), docname


def test_jupyter_books_own_command_builds_the_english_edition(tmp_path: Path) -> None:
    """`jupyter-book build . -W -n` in a set-up checkout: strict, and the same pages as `make book`'s
    English edition. Its Sphinx extensions are the installed `bookkit` package's, so nothing needs
    the checkout on the path (a `tools.` import stopped it: 'No module named tools').

    Built elsewhere (`--path-output`), so that make book's pages stay as they are, with make book's
    execution cache copied there: in the checkout itself, jupyter-book finds that cache
    (`_build/.jupyter_cache`) and executes nothing that make book ran already."""
    shutil.copytree(ROOT / "_build" / ".jupyter_cache", tmp_path / "_build" / ".jupyter_cache")
    command = [str(Path(sys.executable).parent / "jupyter-book"), "build", ".", "-W", "-n",
               "--path-output", str(tmp_path)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, (done.stdout + done.stderr)[-5000:]
    built = sorted(path.relative_to(tmp_path / "_build" / "html").as_posix()
                   for path in (tmp_path / "_build" / "html").rglob("*.html"))
    ours = sorted(path.relative_to(HTML).as_posix() for path in HTML.rglob("*.html"))
    assert built == ours, "jupyter-book's pages differ from make book's English edition"
