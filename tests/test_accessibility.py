"""Accessible names, landmarks and text alternatives, checked in the built pages' HTML.

axe-core found, on every page, theme widgets named differently from what they
show and a sidebar title outside every landmark; tools/accessible_theme.py and
_templates/ fix them where the markup is made. The first tests here fail when
the theme or myst-nb stop writing that markup (then the workaround can go); the
others check every built page: the fixed markup is what the pages carry, and
every graph has a text alternative and ids no other graph on its page uses.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pydata_sphinx_theme
import pytest
from book_outputs import HTML, book_build, toc_pages  # noqa: F401 (book_build is a fixture)
from myst_nb.sphinx_ import visit_HideCellInput

from tools.accessible_theme import visit_hidden_cell

THEME = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
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
    written = Translator()
    visit_HideCellInput(written, HIDDEN)
    assert '<summary aria-label="Toggle hidden content">' in "".join(written.body), (
        "myst-nb changed its hidden-cell toggle: tools/accessible_theme.py's visitor may go")


def test_the_replacement_toggle_is_named_by_its_words() -> None:
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
