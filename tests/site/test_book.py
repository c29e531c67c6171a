"""The book builds strictly, every page of `_toc.yml` is in it, and no chapter hides an error.

The build-failure tests check that a chapter which fails to execute is named with
its cell and error (bookkit/site/build.py), instead of a page of Sphinx traceback.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml
from book_outputs import HTML, ROOT, book_build, docname, executed, plain_value, toc_pages  # noqa: F401

# `tools` is on pytest's pythonpath (pyproject.toml)
from bookkit.site.build import build, engine_key, execution_failures

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A chapter that fails
"""
CELLS = ["x = 1", ":tags: [raises-exception]\nraise ValueError('expected')", "y = 2\n1 / 0"]
CHAPTER = HEADER + "".join(f"\n```{{code-cell}} ipython3\n{cell}\n```\n" for cell in CELLS)
FAILING_FENCE_LINE = [n for n, line in enumerate(CHAPTER.splitlines(), 1) if line.startswith("```{code")][2]
# the traceback text nbclient's CellExecutionError carries (coloured, as IPython prints it)
TRACEBACK = """Traceback (most recent call last):
  File "nbclient/client.py", line 918, in _check_raise_for_error
nbclient.exceptions.CellExecutionError: An error occurred while executing the following cell:
------------------
y = 2
1 / 0
------------------


\x1b[31m---------------------------------------------------------------------------\x1b[39m
\x1b[31mZeroDivisionError\x1b[39m                         Traceback (most recent call last)
\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[3]\x1b[39m\x1b[32m, line 2\x1b[39m
\x1b[32m----> \x1b[39m\x1b[32m2\x1b[39m \x1b[32m1\x1b[39m / \x1b[32m0\x1b[39m

\x1b[31mZeroDivisionError\x1b[39m: division by zero
"""
EXPECTED = (f"chapter book/05-step-1.md failed at cell 3 (line {FAILING_FENCE_LINE}): "
            "ZeroDivisionError: division by zero")


def is_notebook(page: str) -> bool:
    """A page myst-nb executes: an .ipynb, or MyST Markdown whose front matter says so (myst-nb's
    `is_myst_markdown_notebook`, read here without importing myst-nb at collection)."""
    source = ROOT / f"{page}.md"
    if not source.exists():
        return True
    text = source.read_text(encoding="utf8")
    front = yaml.safe_load(text.split("---", 2)[1]) if text.startswith("---") else None
    if not isinstance(front, dict):
        return False
    representation = (front.get("jupytext") or {}).get("text_representation") or {}
    return front.get("file_format") == "mystnb" or representation.get("format_name") == "myst"


def test_which_pages_are_notebooks_is_what_myst_nb_says() -> None:
    from myst_nb.core.read import is_myst_markdown_notebook

    for page in toc_pages():
        source = ROOT / f"{page}.md"
        if source.exists():
            assert is_notebook(page) == is_myst_markdown_notebook(source.read_text(encoding="utf8")), page


def tiny_book(root: Path, chapter: str = CHAPTER) -> Path:
    """A one-chapter book with the project's configuration (its extensions are the installed
    bookkit's) and `chapter` (CHAPTER unless given) as its chapter."""
    (root / "book").mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    for folder in ("_static", "_templates"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "_live").mkdir()  # thebe and MathJax's folder (`make setup`): the pages need none of them
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/index\nchapters:\n  - file: book/05-step-1\n")
    (root / "book" / "index.md").write_text("# Tiny\n\n```{tableofcontents}\n```\n")
    (root / "book" / "05-step-1.md").write_text(chapter)
    return root


def test_failure_in_the_build_log_names_chapter_cell_and_error(tmp_path: Path) -> None:
    chapter = tiny_book(tmp_path) / "book" / "05-step-1.md"
    log = (f"reading sources... [ 50%] book/05-step-1\n"
           f"\x1b[91m{chapter}: WARNING: Executing notebook failed: CellExecutionError\n"
           f"{TRACEBACK}\n [mystnb.exec]\x1b[39;49;00m\n\nException occurred:\n{TRACEBACK}")
    assert [str(failure) for failure in execution_failures(tmp_path, log)] == [EXPECTED]


def test_failure_in_a_report_file_names_chapter_cell_and_error(tmp_path: Path) -> None:
    report = tiny_book(tmp_path) / "_build" / "html" / "reports" / "book" / "05-step-1.err.log"
    report.parent.mkdir(parents=True)
    report.write_text(TRACEBACK)
    assert [str(failure) for failure in execution_failures(tmp_path, "")] == [EXPECTED]


def test_a_successful_log_names_no_failure(tmp_path: Path) -> None:
    assert execution_failures(tiny_book(tmp_path), "build succeeded.\n") == []


def test_glued_values_are_python_literals_when_their_repr_is_one() -> None:
    assert plain_value({"text/plain": "{'grads': [0, 2], 'loss': 1.5}"}) == {"grads": [0, 2], "loss": 1.5}
    assert plain_value({"text/plain": ["Node", "Id(3)"]}) == "NodeId(3)"  # not a literal: the text


KEYED = ["mlx_autodiff/tape.py", "bookkit/words/en.json", "requirements.txt", "book/_data/bench.json"]
NOT_KEYED = ["book/01-initialized.md", "README.md", "bookkit/site/sphinx_build.py", "bookkit/live/live.js"]


WORDS = "bookkit/words/zh_CN.json"


def keyed_files(tmp_path: Path) -> str:
    for name in KEYED + NOT_KEYED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('{"x": 1}\n' if name.startswith("bookkit/words/") else "x\n")
    (tmp_path / WORDS).write_text('{"stepper": {"leaf": "叶子"}, "code_map": {"rows": {}}}\n', "utf8")
    return engine_key(tmp_path)


@pytest.mark.parametrize("changed", KEYED)
def test_the_execution_cache_key_changes_with_what_the_chapters_run(tmp_path: Path, changed: str) -> None:
    """The engine and its words, the requirements, and book/_data (a2 and a4 render it)."""
    before = keyed_files(tmp_path)
    (tmp_path / changed).write_text('{"x": 2}\n' if changed.startswith("bookkit/words/") else "y\n")
    assert engine_key(tmp_path) != before, changed


def test_a_words_file_keys_every_part_but_the_code_map(tmp_path: Path) -> None:
    """The words' part "code_map" is appendix 1's, read at build time (bookkit/site/code_map.py): a
    translated row of README's map executes no chapter; a word a chapter's picture says does."""
    before = keyed_files(tmp_path)
    (tmp_path / WORDS).write_text('{"stepper": {"leaf": "叶子"}, "code_map": {"rows": {"a": {}}}}\n', "utf8")
    assert engine_key(tmp_path) == before
    (tmp_path / WORDS).write_text('{"stepper": {"leaf": "叶"}, "code_map": {"rows": {}}}\n', "utf8")
    assert engine_key(tmp_path) != before


@pytest.mark.parametrize("changed", NOT_KEYED)
def test_a_readme_tool_or_page_script_edit_executes_no_chapter(tmp_path: Path, changed: str) -> None:
    """A chapter's own cells are the cache's business; appendix 1 counts README's files at build time
    (bookkit/site/code_map.py), so README.md, tools/ and _static/ are not in the key."""
    before = keyed_files(tmp_path)
    (tmp_path / changed).write_text("y\n")
    assert engine_key(tmp_path) == before, changed


def test_a_chapter_is_named_by_stem_docname_or_number() -> None:
    first = next(page for page in toc_pages() if page.startswith("book/0"))
    stem = first.removeprefix("book/")
    assert docname(stem) == docname(first) == docname(f"{first}.md") == docname(stem[:2]) == first
    with pytest.raises(LookupError, match="names 0 pages"):
        docname("no-such-chapter")


@pytest.mark.slow
def test_building_a_book_with_a_failing_cell_reports_it(tmp_path: Path) -> None:
    result = build(root=tiny_book(tmp_path))
    assert result.status != 0
    assert [str(failure) for failure in result.failures] == [EXPECTED]


WARNS = "import warnings\nwarnings.warn('no glyph for 训')"


def book_with_cells(root: Path, cells: list[str]) -> Path:
    return tiny_book(root, HEADER + "".join(f"\n```{{code-cell}} ipython3\n{cell}\n```\n" for cell in cells))


@pytest.mark.slow
def test_a_cell_that_writes_to_stderr_fails_the_build(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """bookkit/site/executed_notebooks.py: a warning reaches the page with the kernel's paths; the build names
    the chapter, cell and line, and what it wrote."""
    chapter = book_with_cells(tmp_path, ["x = 1", WARNS]) / "book" / "05-step-1.md"
    lines = chapter.read_text().splitlines()
    fence = [n for n, line in enumerate(lines, 1) if line.startswith("```{code")][1]
    result = build(["en"], root=tmp_path)
    assert result.status != 0
    (failure,) = result.failures
    assert (failure.chapter, failure.cell, failure.line) == ("book/05-step-1.md", 2, fence), failure
    assert re.fullmatch(r"wrote to stderr: \S+:\d+: UserWarning: no glyph for 训", failure.error), failure
    assert f"05-step-1.md:{fence}: WARNING: cell 2 wrote to stderr" in capsys.readouterr().out


@pytest.mark.slow
def test_a_cell_tagged_show_stderr_may_show_it(tmp_path: Path) -> None:
    shown = [f":tags: [show-stderr]\n{WARNS}",
             ":tags: [show-stderr]\nimport sys\nprint('on purpose', file=sys.stderr)"]
    result = build(["en"], root=book_with_cells(tmp_path, ["x = 1", *shown]))
    assert (result.status, result.failures) == (0, [])
    page = (tmp_path / "_build" / "html" / "en" / "book" / "05-step-1.html").read_text()
    assert "no glyph for 训" in page and "on purpose" in page


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_every_page_in_the_toc_was_built_from_its_current_source() -> None:
    stale = []
    for page in toc_pages():
        source = next(ROOT.glob(f"{page}.*"))
        html = HTML / f"{page}.html"
        if not html.exists() or html.stat().st_mtime < source.stat().st_mtime:
            stale.append(f"{source.relative_to(ROOT)} -> {html.relative_to(ROOT)}")
    assert not stale, f"pages missing from the build or older than their source: {stale}"


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("page", [page for page in toc_pages() if is_notebook(page)])
def test_every_cell_ran_and_none_errored_unless_tagged_raises_exception(page: str) -> None:
    cells = [cell for cell in executed(docname(page)).cells if cell.cell_type == "code"]
    unrun = [number for number, cell in enumerate(cells, 1) if cell.source.strip()
             and cell.execution_count is None and "skip-execution" not in cell.metadata.get("tags", [])]
    assert not unrun, f"{page}: code cells {unrun} were not executed (was another build writing _build?)"
    errored = {number for number, cell in enumerate(cells, 1)
               if any(output.output_type == "error" for output in cell.outputs)}
    tagged = {number for number, cell in enumerate(cells, 1)
              if "raises-exception" in cell.metadata.get("tags", [])}
    assert not errored - tagged, f"{page}: code cells {sorted(errored - tagged)} raised without the tag"
    assert not tagged - errored, (f"{page}: code cells {sorted(tagged - errored)} are tagged "
                                  "raises-exception but no longer raise: the error the prose shows is gone")


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("page", [page for page in toc_pages() if is_notebook(page)])
def test_every_chapter_downloads_as_its_executed_notebook(page: str) -> None:
    """bookkit/site/executed_notebooks.py: the download menu offers the .ipynb, with the kernel's outputs."""
    download = HTML / "_sources" / f"{page}.ipynb"
    assert download.exists(), f"{page}: no {download.relative_to(ROOT)} to download"
    page_html = (HTML / f"{page}.html").read_text()
    assert f'_sources/{page}.ipynb"' in page_html, f"{page}: the page does not link its notebook"
    code = [cell for cell in nbformat.read(download, as_version=4).cells
            if cell.cell_type == "code" and cell.source.strip()]
    assert code and all(cell.execution_count for cell in code), f"{page}: the download lacks its outputs"
    for number, cell in enumerate(code, 1):
        streams = [output.text for output in cell.outputs if output.output_type == "stream"]
        # myst-nb's stream merging once grew a stream by the next one and kept both
        doubled = [a for a, b in zip(streams, streams[1:], strict=False) if a.endswith(b)]
        assert not doubled, f"{page}: code cell {number} prints {doubled[0]!r} twice"
