"""Other projects' behaviours this project works around, one test each.

Each test checks that the upstream behaviour is still there. When one fails,
upstream changed: read the workaround it names and remove it on purpose, with
its pin in requirements.txt. A test that guards a pin instead (a version kept
out because it is slow) fails when that version is installed again; its pin's
comment says what to check before raising it. The builds here are bare Sphinx
with myst-nb and the book's execution settings, so they show myst-nb's own
behaviour, not the book's.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bookkit.site.build import LOGGED_FAILURE, execution_failures

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

# {title}
"""
PRINTS_TWICE = 'import time\nprint("first", flush=True)\ntime.sleep(0.5)\nprint("second", flush=True)'
LINKED_SVG = (
    "from IPython.display import SVG\n"
    "SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">"
    "<a href=\"linked.html\"><rect width=\"10\" height=\"10\"/></a></svg>')"
)
# The book's execution settings (_config.yml), as a bare Sphinx project states them.
CONF = """extensions = ["myst_nb"]
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
"""


def page(title: str, *cells: str) -> str:
    fenced = (f"\n```{{code-cell}} ipython3\n{cell}\n```\n" for cell in cells)
    return HEADER.format(title=title) + "".join(fenced)


def project(root: Path, pages: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(CONF)
    toctree = "\n".join(pages)
    (root / "index.md").write_text(f"# Index\n\n```{{toctree}}\n{toctree}\n```\n")
    for name, text in pages.items():
        (root / f"{name}.md").write_text(text)
    return root


def sphinx(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", str(root), str(root / "_build" / "html")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def written(root: Path, name: str) -> list[nbformat.NotebookNode]:
    """The code cells of the notebook myst-nb wrote to `_build/jupyter_execute`."""
    notebook = nbformat.read(root / "_build" / "jupyter_execute" / f"{name}.ipynb", as_version=4)
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[list[nbformat.NotebookNode]]]:
    """One page built twice: executed, then from the cache. The notebooks written each time."""
    root = project(tmp_path_factory.mktemp("upstream"), {"page": page("A page", PRINTS_TWICE, LINKED_SVG)})
    notebooks = []
    for again in (False, True):
        if again:  # read afresh, as the book's builds do; only the execution cache stays
            for output in ("html", "jupyter_execute"):
                shutil.rmtree(root / "_build" / output)
        done = sphinx(root)
        assert done.returncode == 0, done.stdout + done.stderr
        notebooks.append(written(root, "page"))
    assert "Using cached notebook" in done.stdout + done.stderr, "the second build was not a cache hit"
    return root, notebooks


@pytest.mark.slow
def test_myst_nb_writes_a_cached_notebook_without_outputs(two_builds) -> None:
    """bookkit/site/executed_notebooks.py restores the outputs of a notebook read from the cache."""
    _, (executed, cached) = two_builds
    assert all(cell.outputs for cell in executed), "the first build executed every cell"
    assert not any(cell.outputs for cell in cached), (
        "myst-nb now writes a cached notebook with its outputs: restore_cached_outputs can go"
    )


@pytest.mark.slow
def test_myst_nb_merge_streams_leaves_printed_text_twice(two_builds) -> None:
    """bookkit/site/executed_notebooks.py puts back the kernel's outputs, where each line is printed once."""
    _, (executed, _) = two_builds
    streams = [output.text for output in executed[0].outputs if output.output_type == "stream"]
    assert streams == ["first\nsecond\n", "second\n"], (
        f"myst-nb's nb_merge_streams now writes {streams!r}: check restore_cached_outputs is still needed"
    )


@pytest.mark.slow
def test_jupyter_book_shows_an_svg_output_as_an_img(two_builds) -> None:
    """bookkit/pictures/render.py and curves.py give pictures as HTML, so their links and tooltips work."""
    root, _ = two_builds
    html = (root / "_build" / "html" / "page.html").read_text()
    assert re.search(r'<img[^>]+src="[^"]+\.svg"', html), "no <img> for the SVG output"
    assert '<a href="linked.html"' not in html, (
        "an SVG output is now inline, links kept: render.Graph could offer image/svg+xml instead of HTML"
    )


@pytest.mark.slow
def test_myst_nb_names_a_failed_chapter_only_in_its_log(tmp_path: Path) -> None:
    """bookkit/site/build.py reads the failing cell from myst-nb's log line."""
    root = project(tmp_path, {"fails": page("Fails", "x = 1", "1 / 0")})
    done = sphinx(root)
    assert done.returncode != 0
    log = done.stdout + done.stderr
    assert LOGGED_FAILURE.search(log), "myst-nb logs a failed execution in other words now"
    assert not list((root / "_build" / "html").glob("reports/**/*.err.log")), (
        "myst-nb now saves the traceback in reports/ even when it raises: the log parsing can go"
    )
    assert [(f.chapter, f.cell, f.error) for f in execution_failures(root, log)] == [
        ("fails.md", 2, "ZeroDivisionError: division by zero")
    ]


def test_the_execution_cache_matches_a_notebook_by_its_code_alone(tmp_path: Path) -> None:
    """bookkit/site/build.py clears the cache when the engine changes (MyST-NB issue #299)."""
    from jupyter_cache import get_cache  # here: only this test pays for jupyter-cache and myst-nb
    from jupyter_cache.base import CacheBundleIn
    from myst_nb.core.config import NbParserConfig

    helper = tmp_path / "helper.py"
    helper.write_text("VALUE = 1\n")
    source = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from helper import VALUE\nVALUE")])
    source.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    executed = copy.deepcopy(source)
    result = nbformat.v4.new_output("execute_result", {"text/plain": "1"}, execution_count=1)
    executed.cells[0].outputs = [result]
    cache = get_cache(str(tmp_path / "cache"))
    cache.cache_notebook_bundle(CacheBundleIn(executed, str(tmp_path / "page.ipynb")), check_validity=False)
    helper.write_text("VALUE = 2\n")  # what the cell imports changed; the cell did not
    assert cache.match_cache_notebook(source) is not None, "the stale outputs are still a cache hit"
    edited = copy.deepcopy(source)
    edited.cells[0].source = "from helper import VALUE\nVALUE + 0"
    with pytest.raises(KeyError):  # while a change to the cell's own code is a miss
        cache.match_cache_notebook(edited)
    options = {f.name for f in dataclasses.fields(NbParserConfig) if f.name.startswith("execution_")}
    assert options == {
        "execution_allow_errors",
        "execution_cache_path",
        "execution_excludepatterns",
        "execution_in_temp",
        "execution_mode",
        "execution_raise_on_error",
        "execution_show_tb",
        "execution_timeout",
    }, f"myst-nb has new execution options {sorted(options)}: does one re-execute on changed files (#299)?"


def test_sphinx_external_toc_adds_its_toctrees_after_sphinx_translates_a_page() -> None:
    """bookkit/site/book_languages.py, TranslateTocCaptions: without it the zh_CN sidebar's captions stay
    English."""
    from sphinx.transforms.i18n import Locale
    from sphinx_external_toc.events import InsertToctrees

    assert InsertToctrees.default_priority > Locale.default_priority


def test_reading_a_notebook_builds_no_parser_at_import() -> None:
    """requirements.txt keeps jsonschema below 4.25, which imports rfc3987-syntax (and its lark parsers,
    1.5 s) with itself: what every chapter's kernel pays when glue imports nbformat. Fails when a
    jsonschema that imports it at once is installed again."""
    probe = "import sys, nbformat; print(sorted({'rfc3987_syntax', 'lark'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_nbformat_schemas_use_no_iri_format() -> None:
    """What jsonschema 4.24 leaves unchecked without a package for it is its "iri" formats, which no
    schema nbformat validates with uses: nbformat still validates a notebook."""
    nbformat.validate(nbformat.v4.new_notebook())
    schemas = list(Path(nbformat.__file__).parent.rglob("*.json"))
    assert schemas, "nbformat ships no JSON schema: has it moved them?"
    assert not [path.name for path in schemas if '"iri' in path.read_text()]


def test_sphinx_7_4s_chinese_search_still_keeps_its_latin_words_in_a_list() -> None:
    """bookkit/site/book_languages.py's GlossarySearch swaps the list for a set (sphinx-doc/sphinx PR #12995,
    in Sphinx 8.1): when Sphinx keeps a set itself, the workaround can go."""
    from sphinx.search.zh import SearchChinese

    assert isinstance(SearchChinese.latin_terms, list)


def test_the_glossary_search_stems_as_sphinxs_chinese_search_does() -> None:
    """The set changes only how fast `stem` looks a word up, not what it answers."""
    from sphinx.search.zh import SearchChinese

    from bookkit.site.book_languages import GlossarySearch

    text = "把 to_device 换成 fork：梯度 grad 是 0，loss 下降，NodeId 和 Tensor 的 ops 与 autodiff"
    ours, sphinxs = GlossarySearch({}), SearchChinese({})
    sphinxs.latin_terms = []  # its own list, not the class's, which earlier builds in this process filled
    words = ours.split(text)
    assert words == sphinxs.split(text)
    assert [ours.stem(word) for word in words] == [sphinxs.stem(word) for word in words]
    assert any(ours.stem(word) == word.lower() != sphinxs.stemmer.stemWord(word.lower()) for word in words), (
        "no word of the sample takes stem's branch that reads the Latin words")
