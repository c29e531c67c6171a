"""A feature's page scripts and styles, kept in its own folder and served from `_static/`.

Each feature of the book (the stepper, the explorer, the questions, live cells) keeps its
JavaScript and CSS beside its Python, and its Sphinx extension adds them, as sphinx-exercise adds
its stylesheet: `add_assets(app, FOLDER, [...])` in its `setup`. Sphinx copies each file into the
site's `_static/` (a file named in `html_static_path` is copied by itself), and every page loads
it, as Jupyter Book loads every script and style of the book's own `_static/` (which now holds
only what is theme-wide).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx


def add_assets(app: Sphinx, folder: Path, names: Iterable[str]) -> None:
    """Serve `folder/<name>` as `_static/<name>` and load it on every page (.js and .css)."""
    names = list(names)
    missing = [name for name in names if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{folder} has no {', '.join(missing)}")

    def serve(app: Sphinx, config: Any) -> None:
        config.html_static_path.extend(str(folder / name) for name in names)

    app.connect("config-inited", serve)
    for name in names:
        if name.endswith(".js"):
            app.add_js_file(name)
        elif name.endswith(".css"):
            app.add_css_file(name)
