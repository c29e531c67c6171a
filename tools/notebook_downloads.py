"""Sphinx extension: offer every executed chapter as a `.ipynb` download.

sphinx-book-theme only offers a MyST notebook's `.ipynb` when a launch service
(Binder, JupyterHub, Colab) is configured, and this book is read offline. This
copies the executed notebook next to the page's sources and tells the theme
about it, so the download menu shows `.ipynb` for every chapter.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx


def offer_notebook(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.exists():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app: Sphinx) -> dict[str, Any]:
    # Before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", offer_notebook, priority=450)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
