"""Sphinx extension: the backward stepper's player on every page (`stepper.js`, its page-wide arrow
keys `stepper-keys.js`, `stepper.css`), from this folder; the stepper's frames are written by
`bookkit.stepper` in the chapters' outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from bookkit.site.assets import add_assets

FOLDER = Path(__file__).resolve().parent


def setup(app: Sphinx) -> dict[str, Any]:
    add_assets(app, FOLDER, ["stepper.js", "stepper-keys.js", "stepper.css"])
    return {"parallel_read_safe": True, "parallel_write_safe": True}
