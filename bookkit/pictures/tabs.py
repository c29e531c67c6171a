"""Tabs generated from run records: one tab per method, one per step, the graphs in each.

Chapter 8 shows every snapshot of every run. Written by hand that was one
`{tab-item}` per method and step; here the tabs come from the records, looked up
by name, so a method added to `methods.SCENARIOS` appears without touching the
chapter.

The output is HTML in sphinx-design's own tab markup (sphinx-design 0.8, pinned
in requirements.txt; tests/book/test_tabs.py fails when its markup changes): per tab a
radio button, its label, then its panel. The book's sphinx-design stylesheet
shows only the checked tab's panel, with no JavaScript: Tab reaches a tab set,
the arrow keys choose a tab, and a screen reader hears a group of labelled
choices. Where no stylesheet is loaded (JupyterLab) every panel shows, one after
another, so nothing is lost.

The tabs are written once per language of `bookkit.words` (the part "tabs": tab labels,
captions, and each method's explanation by its name, in every language's file), with
each graph in that language, and shown as `editions.Editions`: each edition keeps its own.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bookkit.runs.methods import SCENARIOS
from bookkit.runs.scenarios import RunRecord, Snapshot
from bookkit.words import SOURCE_LANGUAGE, NoWordsError, languages, speaking, spoken, word, words
from bookkit.words.multilingual import join
from mlx_autodiff.errors import AutodiffError


class DuplicateRunError(AutodiffError, ValueError):
    """Two run records with one name: their tabs would share ids on the page."""


@dataclass(frozen=True)
class Tab:
    """One tab: the label a reader clicks and the HTML its panel shows."""

    label: str
    panel: str


@dataclass(frozen=True)
class TabSet:
    """Tabs that share one radio group; `group` must be unique on the page (it names the ids)."""

    group: str
    tabs: tuple[Tab, ...]
    translations: Mapping[str, tuple[Tab, ...]] = field(default_factory=dict)  # in each other language

    def html(self, language: str | None = None) -> str:
        """sphinx-design's markup: `<input>`, `<label>`, panel, for each tab; the first is chosen."""
        group = _identifier(self.group)
        parts = ['<div class="sd-tab-set docutils">']
        for index, tab in enumerate(self.translations.get(language or SOURCE_LANGUAGE, self.tabs)):
            tab_id = f"{group}-{index}"
            checked = ' checked="checked"' if index == 0 else ""
            parts += [
                f'<input{checked} id="{tab_id}" name="{group}" type="radio">',
                f'<label aria-controls="{tab_id}-content" class="sd-tab-label" for="{tab_id}">'
                f"{html.escape(tab.label)}</label>",
                f'<div class="sd-tab-content docutils" id="{tab_id}-content">{tab.panel}</div>',
            ]
        parts.append("</div>")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        if not self.translations:
            return self.html()
        return join({SOURCE_LANGUAGE: self.html(), **{code: self.html(code) for code in self.translations}})

    def __repr__(self) -> str:
        """What a plain-text console shows instead of the tabs."""
        return f"<TabSet {self.group!r}: {', '.join(tab.label for tab in self.tabs)}>"


def snapshot_tabs(records: Sequence[RunRecord], group: str = "graphs") -> TabSet:
    """A tab per run, with its scenario's explanation and a tab per step; each step shows its graphs."""
    names = [record.name for record in records]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise DuplicateRunError(
            f"Runs named {', '.join(map(repr, repeated))} appear more than once; a tab set needs one run "
            "per name (the page's ids come from the names). Pass each record once."
        )
    in_language = {}
    for code in languages():
        with speaking(code):
            in_language[code] = tuple(_method_tab(record, group) for record in records)
    english = in_language.pop(SOURCE_LANGUAGE)
    return TabSet(group, english, in_language)


def _method_tab(record: RunRecord, group: str) -> Tab:
    """One method's tab, in the language being written (`words.speaking`)."""
    text = _explanation(record.name)
    explanation = f"<p>{inline_markdown(text)}</p>\n" if text else ""
    steps = sorted({snap.step for snap in record.snapshots})
    step_tabs = TabSet(
        f"{group}-{record.name}",
        tuple(
            Tab(word("tabs", "step", k=step),
                "\n".join(_figure(record, s) for s in record.snapshots if s.step == step))
            for step in steps
        ),
    )
    return Tab(record.name, explanation + step_tabs.html())


def _explanation(name: str) -> str:
    """A method's explanation in the language being written, from its words file by the method's
    name (never another language's); a run outside SCENARIOS has none."""
    if name not in SCENARIOS:
        return ""
    explanations = words(spoken(), "tabs")["explanations"]
    if name not in explanations:
        raise NoWordsError(f"the relocation method {name!r} has no explanation in "
                           f"bookkit/words/{spoken()}.json: add it under tabs.explanations, in that "
                           "language (README: A relocation method in chapter 8)")
    return explanations[name]


def caption(record: RunRecord, snap: Snapshot) -> str:
    """"Step 1, after backward: the error." for the snapshot taken when the run raised."""
    failed = record.error is not None and record.error.step == snap.step and snap.phase == "after"
    return word("tabs", f"{snap.phase}_failed" if failed else snap.phase, k=snap.step)


def _figure(record: RunRecord, snap: Snapshot) -> str:
    return (
        '<figure class="align-default">'
        f'<div class="output text_html">{snap.graph.inline_html(spoken())}</div>'
        f'<figcaption><p><span class="caption-text">{html.escape(caption(record, snap))}</span></p>'
        "</figcaption></figure>"
    )


_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def inline_markdown(text: str) -> str:
    """The little Markdown an explanation may use, as HTML: `code`, and [links](NN-chapter.md).

    A link to a chapter's `.md` file points at its page (`.html`), beside this one in the built book.
    """
    escaped = html.escape(text)
    code = '<code class="docutils literal notranslate"><span class="pre">{}</span></code>'
    coded = _CODE.sub(lambda m: code.format(m[1]), escaped)

    def link(match: re.Match[str]) -> str:
        target = match[2] if "://" in match[2] else re.sub(r"\.md(?=$|#)", ".html", match[2])
        return f'<a class="reference internal" href="{target}">{match[1]}</a>'

    return _LINK.sub(link, coded)


def _identifier(text: str) -> str:
    """`text` as an HTML id: anything but letters, digits, `-` and `_` becomes `-`."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", text)
