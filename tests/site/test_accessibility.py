"""Accessible names, landmarks and text alternatives, checked in the built pages' HTML.

axe-core found, on every page, theme widgets named differently from what they
show and a sidebar title outside every landmark; bookkit/site/accessible_theme.py and
_templates/ fix them where the markup is made. The first tests here fail when
the theme or myst-nb stop writing that markup (then the workaround can go); the
others check every built page: the fixed markup is what the pages carry, and
every graph has a text alternative and ids no other graph on its page uses.
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest
from book_outputs import HTML, ROOT, book_build, toc_pages  # noqa: F401 (book_build is a fixture)
from bs4 import BeautifulSoup


def package_folder(name: str) -> Path:
    """Where a package is installed, without importing it (the themes import Sphinx: only the tests
    that call into them pay for that)."""
    return Path(importlib.util.find_spec(name).origin).parent


THEME = package_folder("pydata_sphinx_theme") / "theme" / "pydata_sphinx_theme"
ASSETS = package_folder("pydata_sphinx_theme") / "assets"
BOOK_THEME = package_folder("sphinx_book_theme") / "assets" / "styles"
SIDEBAR = ('<ul class="nav bd-sidenav"><li class="toctree-l1 current"><a class="reference internal" '
           'href="08.html">8. Seven ways</a><ul><li class="toctree-l2"><a class="reference internal" '
           'href="08a.html">8.9. Every combination</a></li></ul></li></ul>')
SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", re.DOTALL)


class Translator:
    """What a node visitor writes to: a body of HTML pieces."""

    def __init__(self) -> None:
        self.body: list[str] = []


HIDDEN = {"classes": ["above-input"], "prompt_show": "Show code cell source",
          "prompt_hide": "Hide code cell source"}


# ----- the upstream markup the workarounds are for -------------------------------------------


def test_upstream_the_themes_search_button_is_still_labelled_other_than_it_shows() -> None:
    template = (THEME / "components" / "search-button-field.html").read_text()
    assert "aria-label=\"{{ _('Search') }}\"" in template and "search-button__kbd-shortcut" in template, (
        "pydata-sphinx-theme changed its search button: _templates/search-button-field.html may go")


def test_upstream_the_themes_sidebar_items_are_still_outside_any_landmark() -> None:
    sidebar = (THEME / "sections" / "sidebar-primary.html").read_text()
    assert '<div class="sidebar-primary-item">{%- include sidebartemplate %}</div>' in sidebar, (
        "pydata-sphinx-theme changed its sidebar: _templates/navbar-logo.html may go")
    assert "<nav" not in (THEME / "components" / "navbar-logo.html").read_text()


def test_upstream_myst_nb_still_labels_a_hidden_cells_toggle_other_than_it_shows() -> None:
    from myst_nb.sphinx_ import visit_HideCellInput

    written = Translator()
    visit_HideCellInput(written, HIDDEN)
    assert '<summary aria-label="Toggle hidden content">' in "".join(written.body), (
        "myst-nb changed its hidden-cell toggle: bookkit/site/accessible_theme.py's visitor may go")


def test_upstream_the_themes_sidebar_toggles_still_have_no_name() -> None:
    from pydata_sphinx_theme.toctree import add_collapse_checkboxes

    soup = BeautifulSoup(SIDEBAR, "html.parser")
    add_collapse_checkboxes(soup)
    summary = soup.select_one("li.has-children > details > summary")
    assert summary is not None and not summary.get_text(strip=True) and not summary.get("aria-label"), (
        "pydata-sphinx-theme names its sidebar toggles now: bookkit/site/accessible_theme.py need not")


def test_a_sidebar_toggle_is_named_after_its_entry() -> None:
    from pydata_sphinx_theme.toctree import add_collapse_checkboxes

    from bookkit.site.accessible_theme import name_sidebar_toggles

    soup = BeautifulSoup(SIDEBAR, "html.parser")
    add_collapse_checkboxes(soup)
    name_sidebar_toggles(name_sidebar_toggles(soup))  # twice: the theme caches the tree and may hand it back
    summary = soup.select_one("li.has-children > details > summary")
    assert summary.select("span.visually-hidden") and summary.get_text(strip=True) == "Pages in 8. Seven ways"


def test_upstream_the_themes_scroll_tab_stops_still_leave_tables_out() -> None:
    script = (ASSETS / "scripts" / "pydata-sphinx-theme.js").read_text()
    stops = script[script.index("function addTabStopsToScrollableElements"):][:800]
    assert ".pst-scrollable-table-container" not in stops, (
        "pydata-sphinx-theme gives scrolling tables a tab stop now (its PR #1903): _static/scroll_focus.js "
        "need only cover the graphs and the explorer")


def test_upstream_the_book_themes_light_link_colour_is_still_too_light() -> None:
    variables = (BOOK_THEME / "abstracts" / "_variables.scss").read_text()
    assert "--pst-color-primary: #176de8;" in variables, (
        "sphinx-book-theme changed its light primary colour: check _static/accessible.css's override")
    assert "--pst-color-primary: #1562d1;" in (ROOT / "_static" / "accessible.css").read_text()


def test_upstream_a_download_links_icon_is_still_a_glyph_in_its_content() -> None:
    spans = (ASSETS / "styles" / "content" / "_spans.scss").read_text()
    assert "a.reference.download::before {\n  content: var(--pst-icon-download);" in spans, (
        "pydata-sphinx-theme changed its download icon: check _static/accessible.css")


def test_the_replacement_toggle_is_named_by_its_words() -> None:
    from myst_nb.sphinx_ import visit_HideCellInput

    from bookkit.site.accessible_theme import visit_hidden_cell

    ours, theirs = Translator(), Translator()
    visit_hidden_cell(ours, HIDDEN)
    visit_HideCellInput(theirs, HIDDEN)
    assert "".join(ours.body) == "".join(theirs.body).replace(' aria-label="Toggle hidden content"', "")


# ----- every built page --------------------------------------------------------------------


def page_html(docname: str) -> str:
    return (HTML / f"{docname}.html").read_text(encoding="utf8")


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("docname", toc_pages())
def test_the_themes_widgets_are_named_by_what_they_show(docname: str) -> None:
    page = page_html(docname)
    assert "Toggle hidden content" not in page
    search = re.search(r'<button class="btn search-button-field[^>]*>', page)
    assert search is not None and "aria-label" not in search.group(0)
    home = re.search(r'<nav class="sidebar-home"[^>]*>(.*?)</nav>', page, re.DOTALL)
    assert home is not None and '<a class="navbar-brand' in home.group(1), "the book's title is in a landmark"


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("docname", toc_pages())
def test_every_graph_has_a_text_alternative_and_ids_of_its_own(docname: str) -> None:
    graphs = [svg for svg in SVG.findall(page_html(docname)) if 'class="graph"' in svg]
    ids: Counter[str] = Counter()
    for svg in graphs:
        opening = svg[: svg.index(">") + 1]
        assert re.search(r'role="(img|figure)"', opening), f"{docname}: a graph with no role: {opening[:99]}"
        label = re.search(r'aria-label="([^"]+)"', opening)
        assert label and len(label.group(1)) > 10, f"{docname}: a graph without a label: {opening[:120]}"
        assert re.match(r"<svg\b[^>]*>\s*<title>[^<]+</title>", svg), f"{docname}: a graph without a <title>"
        ids.update(re.findall(r'\bid="([^"]+)"', svg))
    repeated = [element for element, count in ids.items() if count > 1]
    assert not repeated, f"{docname}: graphs share element ids {repeated[:5]}"


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("docname", toc_pages())
def test_every_picture_has_a_text_alternative(docname: str) -> None:
    """Every inline SVG (graphs, the flowchart, loss curves) has a role, a label and a <title>."""
    for svg in SVG.findall(page_html(docname)):
        opening = svg[: svg.index(">") + 1]
        assert re.search(r'role="(img|figure)"', opening), f"{docname}: no role: {opening[:99]}"
        label = re.search(r'aria-label="([^"]+)"', opening)
        assert label and len(label.group(1)) > 10, f"{docname}: a picture without a label: {opening[:120]}"
        assert re.match(r"<svg\b[^>]*>\s*<title>[^<]+</title>", svg), f"{docname}: no <title>: {opening[:99]}"


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_every_explorer_picture_file_has_a_text_alternative() -> None:
    """The explorer's pictures are shown as <img> with the answer's alt text, and carry their own too."""
    pictures = sorted((HTML / "book" / "explorer").glob("*.svg"))
    assert pictures
    for path in pictures:
        svg = path.read_text(encoding="utf-8")
        assert svg.startswith("<svg ") and 'role="img"' in svg[: svg.index(">")], path.name
        assert re.match(r"<svg\b[^>]*>\s*<title>[^<]+</title>", svg), f"{path.name} has no <title>"
