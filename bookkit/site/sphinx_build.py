"""One Sphinx build of the book in one language, configured by `_config.yml` as `jupyter-book build` does.

    python -m bookkit.site.sphinx_build zh_CN                      # HTML into _build/html/zh_CN
    python -m bookkit.site.sphinx_build en --builder gettext       # the message catalogs' templates (.pot)

Jupyter Book 1's CLI has no `-D language=` (https://github.com/jupyter-book/jupyter-book/issues/1791,
written for jupyter-book 1.0.4, pinned below 2 in requirements.txt). This runs what its `build` command
runs (`jupyter_book.sphinx.build_sphinx` on the configuration it derives from `_config.yml` and
`_toc.yml`: jupyter_book/cli/main.py) with a few settings added on top, so there is one configuration
and no second copy of it to keep in step:

- `language` (the catalogs are in `locale/`: `_config.yml` says so), and myst-nb's words on a
  hidden cell's button in that language (`Language.show_code`);
- the output folders: each language's HTML in `_build/html/<language>/`, its doctrees in
  `_build/.doctrees/<language>/`; every language shares one execution cache, `_build/.jupyter_cache`,
  so the second language reuses what the first executed; the executed notebooks go to
  `_build/jupyter_execute/` (English) and `_build/.jupyter_execute/<language>/` (the others), outside
  the published site (bookkit/site/book_languages.py says why myst-nb needs telling);
- `book_languages`, the languages this build's site has (the language switcher links to the others);
- with a published base URL (`html.baseurl`, or BOOK_BASEURL: bookkit/site/layout.py), Sphinx's
  `html_baseurl` for the edition's canonical links is that URL plus the edition's folder, and the
  language links in each page's head are absolute.

The build is strict (`-n -W --keep-going`) and re-reads every page: bookkit/site/build.py says why.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from bookkit.site.layout import published_base, url
from bookkit.words.language import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Folders:
    """Where one build writes: the site (or catalogs), doctrees, executed notebooks, and the cache."""

    out: Path
    doctrees: Path
    executed: Path
    cache: Path


def folders(root: Path, language: str, builder: str = "html", out: Path | None = None) -> Folders:
    """The HTML of a language in `_build/html/<language>`; another builder's output in `_build/<builder>`."""
    build = root / "_build"
    if builder == "html":
        # the first language's executed notebooks where the tests read them; another's beside them,
        # so that builds of two languages at once (bookkit/site/build.py) never write the same file
        first = language == next(iter(LANGUAGES))
        executed = build / "jupyter_execute" if first else build / ".jupyter_execute" / language
        return Folders(out or build / "html" / language, build / ".doctrees" / language,
                       executed, build / ".jupyter_cache")
    out = out or build / builder
    # a builder that renders no page must not overwrite the HTML build's executed notebooks
    # (myst-nb writes them without their outputs on a cache hit: bookkit/site/executed_notebooks.py)
    return Folders(out, out / ".doctrees", out / ".jupyter_execute", build / ".jupyter_cache")


def site_overrides(root: Path, language: str) -> dict[str, str]:
    """With a published base URL, each edition's canonical links (Sphinx's `html_baseurl`) point into
    its own folder, and its language alternates are absolute; without one, neither is set."""
    base = published_base(root)
    if not base:
        return {}
    return {"html_baseurl": url(f"{language}/", base), "book_site_baseurl": base}


def build(language: str, *, builder: str = "html", site_languages: list[str] | None = None,
          out: Path | None = None, root: Path = ROOT) -> int:
    """Run the strict build; return Sphinx's exit status (non-zero on any warning)."""
    from jupyter_book.sphinx import build_sphinx

    where = folders(root, language, builder, out)
    overrides = {
        # what `jupyter-book build <root> -n` adds (jupyter_book/cli/main.py)
        "external_toc_path": (root / "_toc.yml").as_posix(),
        "latex_individualpages": False,
        "nitpicky": True,
        # what this build adds
        "language": language,
        "nb_code_prompt_show": LANGUAGES[language].show_code,
        "nb_code_prompt_hide": LANGUAGES[language].hide_code,
        "nb_execution_cache_path": str(where.cache),
        "book_executed_folder": str(where.executed),
        "book_languages": site_languages or [language],
    }
    overrides |= site_overrides(root, language)
    result = build_sphinx(root, where.out, noconfig=True, path_config=str(root / "_config.yml"),
                          confoverrides=overrides, doctreedir=where.doctrees, builder=builder,
                          freshenv=True, warningiserror=True, keep_going=True)
    return result if isinstance(result, int) else 1  # an exception: build_sphinx printed it


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit.site.sphinx_build",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("language", choices=sorted(LANGUAGES))
    parser.add_argument("--builder", default="html", help="html (default) or gettext")
    parser.add_argument("--site", nargs="+", metavar="LANGUAGE",
                        help="the languages the whole site is built in (default: this one)")
    parser.add_argument("--out", type=Path, help="the output folder (default: see folders())")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book (default: this repository)")
    args = parser.parse_args(argv)
    return build(args.language, builder=args.builder, site_languages=args.site, out=args.out,
                 root=args.root.resolve())


if __name__ == "__main__":
    sys.exit(main())
