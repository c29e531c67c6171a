"""Sphinx extension: complete executed notebooks, offered as `.ipynb` downloads.

Two gaps in the toolchain, closed where the notebooks are written:

- myst-nb 1.4.0 (pinned below 1.5 in requirements.txt) writes
  `_build/jupyter_execute/<page>.ipynb` wrongly in two ways. On a cache hit
  the notebook has no outputs: sphinx_.py writes the parsed notebook
  (https://github.com/executablebooks/MyST-NB/blob/v1.4.0/myst_nb/sphinx_.py#L182-L184)
  while core/execute/cache.py merged the cached outputs into a copy
  (https://github.com/executablebooks/MyST-NB/blob/v1.4.0/myst_nb/core/execute/cache.py#L37).
  After executing with `nb_merge_streams`, a cell's printed text is there
  twice: `coalesce_streams` grows the first stream in place and the notebook
  keeps the second
  (https://github.com/executablebooks/MyST-NB/blob/v1.4.0/myst_nb/core/utils.py#L31;
  render.py#L275 has "TODO should this be saved on the output notebook").
  No upstream issue was found for either (MyST-NB's tracker searched in
  2026-12). The execution cache holds each notebook exactly as the kernel
  produced it, so its outputs are merged back here, for the tests that read
  executed outputs and for readers who download.
  tests/setup/test_upstream.py fails once myst-nb writes either notebook right: then
  `restore_cached_outputs` can go.
- sphinx-book-theme offers a MyST notebook's `.ipynb` only when a launch
  service (Binder, JupyterHub, Colab) is configured, and this book is read
  offline. The completed notebook is copied next to the page's sources and the
  theme is told about it, so its download menu shows `.ipynb`.

And one rule: what a cell wrote to stderr (a Python warning, a log line) reaches
its output, on the page and in the download, often with the build machine's
paths in it. So the completed notebook is read for stderr streams, and each one
is a warning, which the strict build (`-W`) turns into a failure that names the
chapter, the cell and its first line (bookkit/site/build.py's summary repeats
it). A cell whose page must show its stderr says so with the tag `show-stderr`.
myst-nb's `nb_output_stderr` cannot be told by a tag, and it sees only the
outputs a page renders, not those of a cell tagged `remove-output`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import nbformat
from jupyter_cache import get_cache
from sphinx.application import Sphinx
from sphinx.util import logging

from bookkit.site.build import locate_cell

logger = logging.getLogger(__name__)

SHOW_STDERR = "show-stderr"
"""The tag of a cell whose output shows what it wrote to stderr on purpose."""
STDERR_WARNING = "cell {cell} wrote to stderr, which its output shows the reader"
"""How the warning begins (bookkit/site/build.py reads it back for its summary)."""


def restore_cached_outputs(notebook_path: Path, cache_path: Path) -> bool:
    """Replace a written notebook's outputs with the cached ones; True if there were any."""
    notebook = nbformat.read(notebook_path, as_version=4)
    if not any(cell.cell_type == "code" for cell in notebook.cells) or not cache_path.exists():
        return False
    try:
        _, merged = get_cache(str(cache_path)).merge_match_into_notebook(notebook)
    except KeyError:
        return False  # not in the cache: leave it as myst-nb wrote it
    written = notebook_path.stat()
    nbformat.write(merged, notebook_path)
    os.utime(notebook_path, ns=(written.st_atime_ns, written.st_mtime_ns))  # its age tells a stale .glue.json
    return True


def stderr_written(notebook: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """(code cell number, from 1, what it wrote) for each code cell that wrote to stderr untagged."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    written = [(number, "".join(output.text for output in cell.get("outputs", [])
                                if output.output_type == "stream" and output.name == "stderr"))
               for number, cell in enumerate(code, start=1)
               if SHOW_STDERR not in cell.metadata.get("tags", [])]
    return [(number, text) for number, text in written if text]


def warn_of_stderr(app: Sphinx, pagename: str, notebook: nbformat.NotebookNode) -> None:
    """A warning (with -W, a failure) for each code cell of the page that wrote to stderr untagged."""
    source = Path(app.env.doc2path(pagename))
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for number, text in stderr_written(notebook):
        _, line = locate_cell(source, code[number - 1].source) if source.suffix == ".md" else (None, None)
        first = next((row.strip() for row in text.splitlines() if row.strip()), "")
        logger.warning(STDERR_WARNING.format(cell=number) + f": {first} (fix the cause, or tag the cell "
                       f"`{SHOW_STDERR}` if the page must show it)", location=(pagename, line),
                       type="book", subtype="stderr")


def offer_notebook(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    config = app.env.mystnb_config  # its folders as myst-nb resolved them (bookkit/site/book_languages.py)
    executed = Path(config.output_folder) / f"{pagename}.ipynb"
    if not executed.exists():
        return
    cache = Path(config.execution_cache_path)
    restore_cached_outputs(executed, cache)
    warn_of_stderr(app, pagename, nbformat.read(executed, as_version=4))
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app: Sphinx) -> dict[str, Any]:
    # Pages are written after every notebook was read and executed; this runs
    # before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", offer_notebook, priority=450)
    return {"parallel_read_safe": True, "parallel_write_safe": False}
