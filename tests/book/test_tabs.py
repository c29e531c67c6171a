"""Chapter 8's tabs, generated from the run records: one per method and step, in sphinx-design's markup."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bookkit.pictures import tabs as tabs_module
from bookkit.pictures.tabs import DuplicateRunError, Tab, TabSet, caption, inline_markdown, snapshot_tabs
from bookkit.runs.methods import SCENARIOS
from bookkit.runs.scenarios import RunRecord, run, run_all
from bookkit.words import NoWordsError, languages, speaking, words

ROOT = Path(__file__).resolve().parents[2]


class Elements(HTMLParser):
    """Every start tag of an HTML text, as (tag, attributes), and the text of each `<label>`."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.labels: list[str] = []
        self._in_label = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_label = tag == "label"
        if self._in_label:
            self.labels.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_label = self._in_label and tag != "label"

    def handle_data(self, data: str) -> None:
        if self._in_label:
            self.labels[-1] += data.strip()

    def skeleton(self) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
        """Tags, classes and attribute names: the markup without its ids and texts."""
        return [(tag, tuple(sorted((attrs.get("class") or "").split())), tuple(sorted(attrs)))
                for tag, attrs in self.tags]


@pytest.fixture(scope="module")
def records() -> list[RunRecord]:
    return run_all()


def panels(tabs: TabSet) -> dict[str, str]:
    return {tab.label: tab.panel for tab in tabs.tabs}


def test_one_tab_per_method_one_per_step_and_a_figure_per_snapshot(records: list[RunRecord]) -> None:
    tabs = snapshot_tabs(records)
    assert [tab.label for tab in tabs.tabs] == [r.name for r in records]
    for record in records:
        panel = panels(tabs)[record.name]
        steps = sorted({s.step for s in record.snapshots})
        assert Elements(panel).labels == [f"step {k}" for k in steps], record.name
        assert panel.count("<figure") == len(record.snapshots), record.name
        for snap in record.snapshots:
            assert snap.graph.inline_html() in panel, snap.graph.title
            assert f">{caption(record, snap)}</span>" in panel
    ad = panels(tabs)["ad-to_device"]
    assert ad.count(": the error.") == 1 and "Step 1, after backward: the error." in ad


def test_tabs_follow_the_records_by_name_not_position(records: list[RunRecord]) -> None:
    backwards = snapshot_tabs(list(reversed(records)))
    assert [tab.label for tab in backwards.tabs] == [r.name for r in reversed(records)]
    assert panels(backwards) == panels(snapshot_tabs(records))
    for name, panel in panels(backwards).items():
        first_words = re.sub(r"`", "", words("en", "tabs")["explanations"][name]).split(":")[0]
        assert re.sub(r"<[^>]+>", "", panel).startswith(first_words), name


def test_a_method_outside_the_seven_gets_tabs_without_an_explanation() -> None:
    extra = run("ad-valid-to_device-train", steps=2)
    (tab,) = snapshot_tabs([extra]).tabs
    assert tab.label == "ad-valid-to_device-train"
    assert not tab.panel.startswith("<p>") and Elements(tab.panel).labels == ["step 0", "step 1"]


def test_every_input_has_its_label_and_panel_and_each_group_starts_chosen(records: list[RunRecord]) -> None:
    html = re.sub(r"<svg.*?</svg>", "", snapshot_tabs(records).html(), flags=re.S)  # graphs have their own
    tags = Elements(html).tags
    ids = [attrs["id"] for _, attrs in tags if attrs.get("id")]
    assert len(ids) == len(set(ids)), "ids must be unique on the page"
    inputs = [attrs for tag, attrs in tags if tag == "input"]
    labels = [attrs for tag, attrs in tags if tag == "label"]
    assert [a["for"] for a in labels] == [a["id"] for a in inputs]
    assert {a["aria-controls"] for a in labels} <= set(ids)
    assert all(a["type"] == "radio" for a in inputs)
    groups: dict[str | None, list[bool]] = {}
    for attrs in inputs:
        groups.setdefault(attrs["name"], []).append("checked" in attrs)
    assert len(groups) == 1 + len(records), "one group for the methods, one per method for its steps"
    assert all(checked[0] and not any(checked[1:]) for checked in groups.values())


def test_a_run_named_twice_is_refused(records: list[RunRecord]) -> None:
    with pytest.raises(DuplicateRunError, match="'direct'"):
        snapshot_tabs([records[0], records[0]])


def test_every_method_explains_itself_with_links_to_chapters_that_exist() -> None:
    chapters = {path.name for path in (ROOT / "book").glob("*.md")}
    for language in languages():
        explanations = words(language, "tabs")["explanations"]
        assert sorted(explanations) == sorted(SCENARIOS), f"{language}: one explanation per method, by name"
        for name, text in explanations.items():
            assert text, f"{language}: say what {name} does in bookkit/words/{language}.json"
            for target in re.findall(r"\]\(([^)]+)\)", text):
                assert target.split("#")[0] in chapters, f"{name}: the link {target!r} names no chapter"


def test_inline_markdown_writes_code_and_chapter_links_and_escapes_the_rest() -> None:
    assert inline_markdown("a `x<y>` and [chapter 10](10-fixes.md#fork) & <b>") == (
        'a <code class="docutils literal notranslate"><span class="pre">x&lt;y&gt;</span></code> and '
        '<a class="reference internal" href="10-fixes.html#fork">chapter 10</a> &amp; &lt;b&gt;'
    )
    assert inline_markdown("[x](https://example.org/a.md)") == '<a class="reference internal" ' \
        'href="https://example.org/a.md">x</a>', "only links to chapters change"


SPHINX_DESIGN_PAGE = """Tabs
====

.. tab-set::

   .. tab-item:: one

      first

      .. tab-set::

         .. tab-item:: inner

            inside

   .. tab-item:: two

      second
"""


@pytest.mark.slow
def test_the_markup_is_sphinx_designs_own(tmp_path: Path) -> None:
    """The book's stylesheet is sphinx-design's: when its markup changes, the generated tabs must follow."""
    (tmp_path / "conf.py").write_text('extensions = ["sphinx_design"]\n')
    (tmp_path / "index.rst").write_text(SPHINX_DESIGN_PAGE)
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(tmp_path), str(tmp_path / "out")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "index.html").read_text("utf8")
    built = page[page.index('<div class="sd-tab-set'):]
    inner = TabSet("inner", (Tab("inner", "<p>inside</p>"),))
    ours = TabSet("outer", (Tab("one", "<p>first</p>\n" + inner.html()), Tab("two", "<p>second</p>"))).html()
    expected = Elements(ours).skeleton()
    assert Elements(built).skeleton()[: len(expected)] == expected


def test_a_method_without_its_chinese_explanation_stops_the_build_not_english_on_the_chinese_page(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new method's explanation is written in every language's words file; one left out is an error
    that says which file, never the English text shown on the Chinese page."""
    monkeypatch.setitem(tabs_module.SCENARIOS, "eighth", SCENARIOS["direct"])
    with speaking("zh_CN"), pytest.raises(NoWordsError, match=r"'eighth'.*bookkit/words/zh_CN\.json"):
        tabs_module._explanation("eighth")
    with speaking("zh_CN"):
        assert tabs_module._explanation("direct") == words("zh_CN", "tabs")["explanations"]["direct"]
