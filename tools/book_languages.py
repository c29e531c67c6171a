"""Sphinx extension: the book's languages, the switcher between them, and one folder of executed notebooks.

The book is written once, in English, and built once per language from the
same sources and the same execution (tools/sphinx_build.py): `_build/html/en/`
and `_build/html/zh_CN/`, the Chinese text coming from the gettext catalogs in
`locale/zh_CN/LC_MESSAGES/`. This extension

- puts a link to the same page in the other language(s) at the end of every
  page's article header (`_templates/language-switcher.html`, before the
  theme's buttons), named by the language's own name ("中文", "English") and
  marked with its `lang` and `hreflang`; and a `<link rel="alternate">` for
  each in the page's head. Only languages this site is built in get one
  (`book_languages`, set by tools/sphinx_build.py), so `LANGS=en make book`
  has no link to a page that is not there;
- writes every language's executed notebooks to one folder
  (`book_executed_folder`): myst-nb 1.4.0 always writes them beside the output
  folder (`<outdir>/../jupyter_execute`, myst_nb/sphinx_ext.py,
  `create_mystnb_config`, with no setting to change it), which for
  `_build/html/zh_CN` would be inside the published site. tools/live_cells.py
  and tools/executed_notebooks.py read them from `executed_folder(app)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

SWITCHER = "language-switcher.html"


@dataclass(frozen=True)
class Language:
    """One edition of the book."""

    code: str  # Sphinx's `language` and the site's folder: "zh_CN"
    tag: str  # the BCP 47 tag of `lang` and `hreflang`, as Sphinx writes <html lang>: "zh-CN"
    name: str  # the language's own name, as the switcher shows it


LANGUAGES = {
    "en": Language("en", "en", "English"),
    "zh_CN": Language("zh_CN", "zh-CN", "中文"),
}
"""Every language the book is built in, the source language first."""


def executed_folder(app: Sphinx) -> Path:
    """Where this build's executed notebooks are (`<folder>/<docname>.ipynb`)."""
    return Path(app.env.mystnb_config.output_folder)


def add_switcher(app: Sphinx, config: Config) -> None:
    """The switcher goes first among the article header's end items (sphinx-book-theme's theme.conf
    has `article_header_end = article-header-buttons.html`)."""
    options = config.html_theme_options
    items = options.get("article_header_end", ["article-header-buttons.html"])
    items = [items] if isinstance(items, str) else list(items)
    options["article_header_end"] = [SWITCHER] + [item for item in items if item != SWITCHER]


def share_executed_folder(app: Sphinx) -> None:
    """Point myst-nb's output folder at `book_executed_folder` (runs after myst-nb's own builder-inited)."""
    if app.config.book_executed_folder:
        folder = Path(app.config.book_executed_folder).resolve()
        app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(folder))


def other_languages(app: Sphinx) -> list[Language]:
    current = app.config.language or "en"
    return [LANGUAGES[code] for code in app.config.book_languages if code in LANGUAGES and code != current]


def link_languages(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                   doctree: Any) -> None:
    """`language_links` for the template: the same page in each other language of the site."""
    up = "../" * (pagename.count("/") + 1)  # from this page to the site's root, above the language folders
    target = app.builder.get_target_uri(pagename)
    links = [{"href": f"{up}{language.code}/{target}", "tag": language.tag, "name": language.name}
             for language in other_languages(app)]
    context["language_links"] = links
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{link["tag"]}" href="{link["href"]}" />' for link in links)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("book_languages", [], "html", types=[list])
    app.add_config_value("book_executed_folder", "", "env", types=[str])
    app.connect("config-inited", add_switcher)
    app.connect("builder-inited", share_executed_folder, priority=600)
    app.connect("html-page-context", link_languages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
