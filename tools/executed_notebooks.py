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
  tests/test_upstream.py fails once myst-nb writes either notebook right: then
  `restore_cached_outputs` can go.
- sphinx-book-theme offers a MyST notebook's `.ipynb` only when a launch
  service (Binder, JupyterHub, Colab) is configured, and this book is read
  offline. The completed notebook is copied next to the page's sources and the
  theme is told about it, so its download menu shows `.ipynb`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import nbformat
from jupyter_cache import get_cache
from sphinx.application import Sphinx


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


def offer_notebook(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    config = app.env.mystnb_config  # its folders as myst-nb resolved them (tools/book_languages.py)
    executed = Path(config.output_folder) / f"{pagename}.ipynb"
    if not executed.exists():
        return
    cache = Path(config.execution_cache_path)
    restore_cached_outputs(executed, cache)
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app: Sphinx) -> dict[str, Any]:
    # Pages are written after every notebook was read and executed; this runs
    # before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", offer_notebook, priority=450)
    return {"parallel_read_safe": True, "parallel_write_safe": False}
