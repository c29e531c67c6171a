"""The provenance markers (bookkit/site/provenance.py): a claim resting on this engine is marked where made.

Appendix 5 (book/a5-who-says-what.md) has one row per behaviour, named by its test in
tests/book/test_claims_table.py. A row whose engine column says **this engine's choice** or
**this engine's extension** is one only this engine shows; a row whose engine column says
"(the article's)" is one where Burn 0.22.1 and the source snapshot disagree. The fast tests
read the pages' MyST: every marker names a row of its kind, every such row is marked, and
each engine's-choice row is marked on every page that shows its behaviour (`SHOWN_BY`, one
detector per row, over the page's text and code). The book tests check the markers in both
built editions, and the exercise notebooks check that a copy of a chapter carries them too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from book_outputs import EDITIONS, SITE, book_build  # noqa: F401 (book_build is a fixture)

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
APPENDIX = BOOK / "a5-who-says-what.md"
MARKER = re.compile(r"\{(?P<role>engine-choice|engine-extension|versions-differ)\}`(?P<row>[^`]*)`")
ROLE_KIND = {"engine-choice": "choice", "engine-extension": "extension", "versions-differ": "differ"}

SENTENCE = r"(?:(?!\.\s|\n\s*\n).)*?"
"""Text within one sentence: no full stop before a space, no blank line (`metal.autodiff` is within)."""

SHOWN_BY: dict[str, re.Pattern[str]] = {
    # The guard and the rescue of exercise 6.2 read the stored flag after an autodiff move, and a
    # page that says what that flag does after such a move shows it.
    "flag_autodiff_move": re.compile(
        r"TrainingGuard\(|assert_trainable\(|flag through\s+`to_device` of an autodiff parameter"
        r"|stored flag\s+survive|keeps? (?:that|its stored|the stored) flag\s+through", re.S),
    # A page that says what the move does to the bytes: same array, or a copy.
    "bytes": re.compile(r"same MLX array|copies the\s+(?:data|bytes)|copies nothing", re.S),
    # A page that says how the engine's losses repeat: seeded generators.
    "seeds": re.compile(r"seeds both devices|own seeded generator", re.S),
    # A page that says whether `direct` was read, or which of the explorer's combinations is `direct`.
    "direct_unread": re.compile(
        rf"`direct`{SENTENCE}\b(?:unread|not read)\b|\b(?:unread|not read)\b{SENTENCE}`direct`", re.S),
    # A page whose guard flags `plain-fork`, or that says what a plain `fork` does to the stored flag
    # (and so what `.train()` after it does).
    "flag_plain_fork": re.compile(
        r"\"plain-fork\"\]:\s+try:\s+assert_trainable\(|flag through\s+a\s+plain\s+`fork`"
        rf"|plain{SENTENCE}`fork`{SENTENCE}stored flag|plain{SENTENCE}stored flag{SENTENCE}`fork`", re.S),
    # The step-1 panic in a case the article does not run: two backward passes in one step,
    # a model moved to where it is, or moved twice, or read halfway.
    "consumed_elsewhere": re.compile(
        r":case: (?:accumulate|to_device_after_fork|two_layers_read_halfway)\b"
        r"|:answer: metal_to_device\b|step-1 error is the engine's|Step 1 is the engine's"
        r"|also after a move to the\s+device", re.S),
}


def pages() -> dict[str, str]:
    return {path.stem: path.read_text("utf8") for path in sorted(BOOK.glob("*.md"))}


def table_rows() -> dict[str, tuple[str, str]]:
    """Appendix 5's rows: name (the test, less `test_row_`) -> (kind, the engine's column)."""
    rows = {}
    for line in APPENDIX.read_text("utf8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        found = re.fullmatch(r"`test_row_(\w+)`", cells[-1]) if line.startswith("|") else None
        if not found:
            continue
        engine = cells[-2]
        kind = ("choice" if "**this engine's choice**" in engine
                else "extension" if "**this engine's extension**" in engine
                else "differ" if "(the article's)" in engine else "")
        rows[found[1]] = (kind, engine)
    return rows


def markers(text: str) -> list[tuple[str, str]]:
    return [(ROLE_KIND[m["role"]], m["row"]) for m in MARKER.finditer(text)]


def test_the_appendix_has_rows_of_every_kind():
    kinds = {kind for kind, _ in table_rows().values()}
    assert {"choice", "extension", "differ"} <= kinds, kinds


def test_every_marker_names_a_row_of_its_kind():
    rows = table_rows()
    for name, text in pages().items():
        for kind, row in markers(text):
            assert row in rows, f"book/{name}.md marks {row!r}, which has no row in appendix 5"
            assert rows[row][0] == kind, (
                f"book/{name}.md marks {row!r} as {kind}, but its row is {rows[row][0] or 'neither'}")


def test_every_row_of_the_engine_or_of_two_versions_is_marked_somewhere_outside_the_appendix():
    marked = {row for name, text in pages().items() if name != APPENDIX.stem for _, row in markers(text)}
    unmarked = [row for row, (kind, _) in table_rows().items() if kind and row not in marked]
    assert not unmarked, f"rows no page marks: {unmarked}"


def test_every_engine_row_has_a_detector():
    engine_rows = {row for row, (kind, _) in table_rows().items() if kind in ("choice", "extension")}
    assert engine_rows == set(SHOWN_BY), (
        f"rows without a detector: {sorted(engine_rows - set(SHOWN_BY))}; "
        f"detectors without a row: {sorted(set(SHOWN_BY) - engine_rows)}")


@pytest.mark.parametrize("row", sorted(SHOWN_BY))
def test_each_page_that_shows_an_engine_row_marks_it(row):
    shown = [name for name, text in pages().items()
             if name != APPENDIX.stem and SHOWN_BY[row].search(text)]
    assert shown, f"the detector of {row!r} finds no page: it cannot fail as written"
    missing = [name for name in shown if (ROLE_KIND["engine-choice"], row) not in markers(pages()[name])
               and ("extension", row) not in markers(pages()[name])]
    assert not missing, f"pages that show {row!r} without its marker: {missing}"


def test_the_detectors_would_catch_a_page_without_its_marker():
    """A page that shows a behaviour and drops its marker fails the test above."""
    text = pages()["12-am-i-hit"]
    stripped = MARKER.sub("", text)
    assert SHOWN_BY["flag_autodiff_move"].search(stripped) and not markers(stripped)


def test_the_exercise_notebooks_carry_the_markers():
    from bookkit.words import words
    from bookkit.workbook import forked_notebook, resolve

    for language in ("en", "zh_CN"):
        notebook = forked_notebook(resolve("07", ROOT), language=language)
        text = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        label = words(language, "provenance")["choice"]
        link = re.search(rf"\[{re.escape(label)}\]\((\S+?)\)", text)
        assert link, f"{language}: chapter 7's copy has no marker"
        assert link[1].endswith(f"/{language}/book/a5-who-says-what.html#row-flag-autodiff-move"), link[1]
        assert "{engine-choice}" not in text


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_markers_in_the_built_book_link_to_their_rows(book_build, edition):  # noqa: F811
    from bookkit.words import words

    html = SITE / edition / "book"
    appendix = (html / "a5-who-says-what.html").read_text("utf8")
    label = words(edition, "provenance")
    found = 0
    for page in html.glob("*.html"):
        for href, text in re.findall(r'<a class="provenance [^"]*" href="([^"]*)"[^>]*>([^<]*)</a>',
                                     page.read_text("utf8")):
            found += 1
            target = href.partition("#")[2]
            assert f'id="{target}"' in appendix, f"{page.name}: {href} leads to no row"
            assert text in (label["choice"], label["extension"], label["differ"]), (
                f"{page.name}: the marker's words {text!r} are not {edition}'s")
    assert found >= len(SHOWN_BY), f"{edition}: only {found} markers"
