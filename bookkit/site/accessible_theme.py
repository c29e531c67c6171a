"""Sphinx extension: the theme's widgets named as they look, and every part of a page in a landmark.

axe-core 4 finds, on every page of the stock build, two serious
`label-content-name-mismatch` violations (an accessible name that does not
contain the visible text, WCAG 2.5.3) and a moderate `region` one. Each is
fixed where the markup is made:

- the sidebar's search button shows "Search Ctrl+K" and is labelled "Search"
  (pydata-sphinx-theme 0.15.4, components/search-button-field.html; its axe
  findings are gathered in https://github.com/pydata/pydata-sphinx-theme/issues/1428):
  `_templates/search-button-field.html` writes it without the label;
- the sidebar's book title is outside any landmark (the same theme, which
  https://github.com/pydata/pydata-sphinx-theme/pull/1454 would fix):
  `_templates/navbar-logo.html` puts it in a `<nav>`;
- a hidden cell's toggle shows "Show code cell source" and is labelled
  "Toggle hidden content" (myst-nb 1.4.0,
  https://github.com/executablebooks/MyST-NB/blob/v1.4.0/myst_nb/sphinx_.py#L492-L502;
  no upstream issue found, MyST-NB's tracker searched in 2026-12): this
  extension writes the same `<summary>` without the label, so it is named by
  the words it shows;
- a sidebar entry with pages under it (chapter 8 and its explorer) gets a
  `<summary>` that holds only a chevron icon, so it has no name at all
  (axe's serious `summary-name`; pydata-sphinx-theme 0.15.4,
  toctree.py's `add_collapse_checkboxes`; no upstream issue found, the
  theme's tracker searched in 2026-12): this extension gives each such
  summary a visually hidden name, "Pages in <the entry's title>".

Jupyter Book 1 sets no `templates_path`, so this extension adds `_templates/`.
The theme and myst-nb are pinned in requirements.txt; tests/site/test_accessibility.py
fails once either stops writing the markup worked around here.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.writers.html5 import HTML5Translator

from bookkit.words import say, words

TEMPLATES = Path(__file__).resolve().parents[2] / "_templates"


def add_templates(app: Sphinx, config: Config) -> None:
    """_templates/ first, before sphinx-book-theme's components (which its own config-inited adds
    earlier): a template of ours replaces the theme's of the same name (toggle-primary-sidebar.html)."""
    config.templates_path.insert(0, str(TEMPLATES))


def visit_hidden_cell(self: HTML5Translator, node: HideCodeCellNode) -> None:
    """myst-nb's toggle for a hidden cell, named by the words it shows (no aria-label)."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def name_sidebar_toggles(soup: BeautifulSoup, language: str | None = None) -> BeautifulSoup:
    """Each nameless `<summary>` of the sidebar's tree named after its entry, for screen readers only,
    in the words of `language` (the words files' part "theme")."""
    for summary in soup.select("li.has-children > details > summary"):
        if summary.get_text(strip=True):
            continue
        entry = summary.find_parent("li").find("a", recursive=False)
        label = soup.new_tag("span", attrs={"class": "visually-hidden"})
        label.string = toggle_name(entry.get_text(" ", strip=True) if entry else None, language)
        summary.insert(0, label)
    return soup


def toggle_name(entry: str | None, language: str | None = None) -> str:
    """A sidebar toggle's name: the pages under `entry` (the text of its link), or under a part's
    caption when it has no link."""
    said = words(language, "theme")
    return say(said["pages_in"], entry=entry) if entry is not None else said["pages_in_part"]


def named_toctree(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Wrap the theme's `generate_toctree_html` (set at priority 500) so its sidebar toggles have names."""
    generate = context.get("generate_toctree_html")
    if generate is None:
        return

    def generate_named(kind: str, *args: Any, **kwargs: Any) -> Any:
        html = generate(kind, *args, **kwargs)
        return name_sidebar_toggles(html, app.config.language) if isinstance(html, BeautifulSoup) else html

    context["generate_toctree_html"] = generate_named


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("myst_nb")  # registered first, so the visitor below replaces its own
    app.connect("config-inited", add_templates)
    app.connect("html-page-context", named_toctree, priority=510)
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
