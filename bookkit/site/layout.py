"""Where the built book's pages are: the site's URL layout, in this one place.

    index.html                           the site's root page: it opens the first edition
    <language>/<docname>.html            a page of one edition: en/book/04-step-0.html, zh_CN/book/...
    <language>/exercises/<chapter>.ipynb a chapter's exercise notebook ("Download as exercise")
    <language>/notebooks/<page>.ipynb    a page without exercises as a notebook (live mode's download)

`make book` serves these paths on LOCAL; a published site has them under its base URL: the
environment variable BOOK_BASEURL when set (the GitHub Pages workflow sets it), else
`html.baseurl` in _config.yml; its repository is BOOK_REPOSITORY, else `repository.url`. The
build (tools/), the exercise tool (its notebooks' links) and the tests all ask this module, so
the layout cannot drift apart between them again.

    python -m bookkit.site.layout --port 8000 _build/html   # the URLs `make serve` prints
"""

from __future__ import annotations

import argparse
import functools
import os
import posixpath
from collections.abc import Sequence
from pathlib import Path

LOCAL_HOST = "127.0.0.1"
LOCAL_PORT = 8000
"""Where `make book` serves the built site (the Makefile's default PORT)."""
LOCAL = f"http://{LOCAL_HOST}:{LOCAL_PORT}/"
BASEURL_VARIABLE = "BOOK_BASEURL"
REPOSITORY_VARIABLE = "BOOK_REPOSITORY"
ROOT_PAGE = "index.html"
LANDING = "book/index"
"""The docname of every edition's first page (_toc.yml's root)."""
EXERCISES = "exercises"
"""The folder of each edition's exercise notebooks, as in a reader's book folder."""
NOTEBOOKS = "notebooks"
"""The folder of each edition's notebooks of the pages that have code but no exercises."""


def local(port: int = LOCAL_PORT) -> str:
    """The site's address as `make book` (or `make serve PORT=...`) serves it."""
    return f"http://{LOCAL_HOST}:{port}/"


def in_edition(path: str, language: str) -> str:
    """A path inside one edition's folder, as a path in the site: "book/a.html" -> "zh_CN/book/a.html"."""
    return f"{language}/{path}"


def page_path(docname: str, language: str) -> str:
    """A page's path in the site: ("book/04-step-0", "zh_CN") -> "zh_CN/book/04-step-0.html"."""
    return in_edition(f"{docname}.html", language)


def notebook_path(chapter: str, language: str) -> str:
    """A chapter's exercise notebook in the site: "en/exercises/04-step-0.ipynb"."""
    return in_edition(f"{EXERCISES}/{chapter}.ipynb", language)


def page_notebook_path(page: str, language: str) -> str:
    """A page without exercises as a plain notebook in the site: "en/notebooks/a1-engine-tour.ipynb"."""
    return in_edition(f"{NOTEBOOKS}/{page}.ipynb", language)


def relative(source: str, target: str) -> str:
    """The link from the page at site path `source` to site path `target` (works under any prefix)."""
    return posixpath.relpath(target, posixpath.dirname(source) or ".")


def url(path: str, base: str = LOCAL, anchor: str = "") -> str:
    """The absolute URL of a site path under `base` (which ends with "/")."""
    return f"{base}{path}" + (f"#{anchor}" if anchor else "")


def page_url(docname: str, language: str, anchor: str = "", base: str = LOCAL) -> str:
    """A page's URL: page_url("book/04-step-0", "en") -> "http://127.0.0.1:8000/en/book/04-step-0.html"."""
    return url(page_path(docname, language), base, anchor)


def published_base(root: Path) -> str:
    """The published site's base URL ("https://owner.github.io/repo/"), or "" when none is set."""
    base = os.environ.get(BASEURL_VARIABLE, "").strip()
    if not base:
        base = str(_config(root).get("html", {}).get("baseurl") or "").strip()
    return _with_slash(base)


def base_url(root: Path) -> str:
    """Where readers find the site: the published base URL if there is one, else LOCAL."""
    return published_base(root) or LOCAL


def repository_url(root: Path) -> str:
    """The book's repository, which an exercise notebook's reader clones: BOOK_REPOSITORY (the Pages
    workflow sets it), else `repository.url` in _config.yml; "" when neither says."""
    found = os.environ.get(REPOSITORY_VARIABLE, "").strip()
    return found or str(_config(root).get("repository", {}).get("url") or "").strip()


def _with_slash(base: str) -> str:
    return base if not base or base.endswith("/") else base + "/"


def _config(root: Path) -> dict:
    path = root / "_config.yml"
    if not path.is_file():
        return {}
    stat = path.stat()
    return _parsed_config(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _parsed_config(path: Path, mtime_ns: int, size: int) -> dict:
    """`path` read once per version of the file (a build asks for every page's links); callers only read."""
    import yaml  # here: what reads only the layout needs no YAML

    return yaml.safe_load(path.read_text(encoding="utf8")) or {}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The URLs of the site `make serve` serves.")
    parser.add_argument("--port", type=int, default=LOCAL_PORT)
    parser.add_argument("site", type=Path, help="the built site's folder (_build/html)")
    args = parser.parse_args(argv)
    base = local(args.port)
    editions = [folder.name for folder in sorted(args.site.iterdir())
                if (args.site / page_path(LANDING, folder.name)).is_file()]
    pages = ", ".join(page_url(LANDING, language, base=base) for language in editions)
    print(f"Serving the book on {base} ({pages}; Ctrl-C to stop)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
