"""The relocation explorer: every way to build, read and move the model, each run once at build time.

Three choices make a combination (`combinations.COMBINATIONS`: where the model is
built, whether its parameters are read before moving, how it is moved), 30 in
all, the article's seven among them. `explore` runs each the way the article
runs its seven, in a fresh process (node ids start at 0 in each, so a node
has the number the article prints), training with Adam for five steps.
`write` turns each run record into an `Answer` (the words the page shows) and
writes the pictures it loads when a reader picks that combination: the graph
after the first backward pass and the loss curve. `page` is the HTML of the
form, its answer and a table of every combination, which is what a page
without JavaScript shows; `bookkit/explorer/explorer.js` only shows what is written
here, so the words a reader sees are the ones the tests check.

The pictures are drawn in every language of `bookkit.words`: English in the folder, each
other language's in a subfolder named by its code (`picture_folder`), their text alternatives in
`Answer.translations`.

Command line: `python -m bookkit.explorer FOLDER` writes the pictures and
`answers.json` into FOLDER and prints the table.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from html import escape
from pathlib import Path

from bookkit.explorer.words import ENGLISH, WORDS, Words
from bookkit.pictures.curves import OUTCOME_COLOURS, describe, inline_svg, loss_curve
from bookkit.runs.combinations import BUILT_ON, COMBINATIONS, RELOCATIONS
from bookkit.runs.methods import SCENARIOS, BuiltOn
from bookkit.runs.scenarios import RunRecord, run_isolated
from bookkit.words import SOURCE_LANGUAGE, languages, speaking, spoken, word
from bookkit.words.explained import explained

Choice = tuple[BuiltOn, bool, str]
"""What the form's three controls say: built on, read before moving, `Relocation.choice`."""

DEFAULT: Choice = ("flex.autodiff", True, "to_device")
"""The combination the page shows first: the article's ad-to_device, the bug itself."""

ANSWERS_FILE = "answers.json"
YES_NO = {True: "yes", False: "no"}
"""The "read before moving" choice's values in the page's data (the form shows `Words.yes` / `no`)."""


def key(choice: Choice) -> str:
    """The combination's name in the page's data: the three controls' values, joined by `|`."""
    built_on, read_first, relocation = choice
    return f"{built_on}|{YES_NO[read_first]}|{relocation}"


@dataclass(frozen=True)
class Answer:
    """What the explorer says about one combination, and the pictures it loads for it."""

    key: str
    built_on: str
    read_first: bool
    relocation: str
    name: str
    label: str
    article: bool
    """One of the article's seven methods, `Scenario.from_article` (then `name` is the article's name)."""
    require_grad: bool | None
    """`model.weight.is_require_grad()` before training; None when building or moving raised."""
    grads: tuple[int, ...]
    """The gradient count of each completed step."""
    planned_steps: int
    outcome: str
    error_type: str | None
    error_step: int | None
    message: str
    """The whole error message, or "" when the run trains."""
    graph: str | None
    """The picture of the graph after the first backward pass (a file beside the page), if there was one."""
    graph_alt: str
    curve: str
    curve_alt: str
    translations: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per other language ("zh_CN"): its `graph_alt` and `curve_alt`."""

    @staticmethod
    def from_data(data: dict[str, object]) -> Answer:
        return Answer(**{**data, "grads": tuple(data["grads"])})  # type: ignore[arg-type]


def explore(workers: int | None = None) -> list[RunRecord]:
    """Every combination's run, in `COMBINATIONS` order, each in a fresh process (a few in parallel)."""
    names = [scenario.name for scenario in COMBINATIONS.values()]
    with ThreadPoolExecutor(max_workers=workers or min(8, os.cpu_count() or 2)) as pool:
        return list(pool.map(run_isolated, names))


# ----- the words ---------------------------------------------------------------------


def answer(choice: Choice, record: RunRecord) -> Answer:
    """The words and picture names for one combination, from its run."""
    article = COMBINATIONS[choice].from_article
    graph = next((s.graph for s in record.snapshots if s.step == 0 and s.phase == "after"), None)
    error = record.error
    found = Answer(
        key=key(choice),
        built_on=choice[0],
        read_first=choice[1],
        relocation=choice[2],
        name=record.name,
        label=record.label,
        article=article,
        require_grad=record.require_grad,
        grads=tuple(step.grads for step in record.steps),
        planned_steps=record.planned_steps,
        outcome=record.outcome,
        error_type=None if error is None else error.type,
        error_step=None if error is None else error.step,
        message="" if error is None else error.message,
        graph=f"{record.name}-graph.svg" if graph is not None else None,
        graph_alt="" if graph is None else f"{graph.title}: {graph.description}",
        curve=f"{record.name}-loss.svg",
        curve_alt=f"Loss per step: {record.label}: {describe(record)}",
        translations={},
    )
    others = [code for code in languages() if code != SOURCE_LANGUAGE]
    return replace(found, translations={code: _alternatives(found, record, code) for code in others})


def _alternatives(found: Answer, record: RunRecord, language: str) -> dict[str, str]:
    """The pictures' text alternatives in `language`."""
    graph = next((s.graph for s in record.snapshots if s.step == 0 and s.phase == "after"), None)
    drawn = None if graph is None else graph.drawing(language)
    with speaking(language):
        title = word("curves", "loss_title", label=label_words(found, WORDS[language]))
        curve = f"{title}: {describe(record)}"
    return {"graph_alt": "" if drawn is None else f"{drawn.title}: {drawn.description}", "curve_alt": curve}


def picture_folder(folder: str, language: str | None) -> str:
    """Where the pictures of `language` are, below `folder` (English's are in it)."""
    return folder if (language or SOURCE_LANGUAGE) == SOURCE_LANGUAGE else f"{folder}/{language}"


def label_words(found: Answer, words: Words) -> str:
    """A combination's label in `words`' language: the method's own label, or its three choices."""
    if found.article:
        return words.labels.get(found.name, found.label)
    written = next(r.written for r in RELOCATIONS if r.choice == found.relocation)
    return words.combination_label(found.built_on, found.read_first, written)


def sentences(found: Answer, words: Words = ENGLISH) -> tuple[str, ...]:
    """The answer in words, one sentence each, as the page's <output> shows them: which method,
    `require_grad` before training, the gradients, how the run ended, its outcome."""
    label = label_words(found, words)
    which = (words.article.format(label=label, name=found.name) if found.article
             else words.not_article.format(label=label))
    flag = (words.flag_none if found.require_grad is None
            else words.flag.format(flag=str(found.require_grad).lower()))
    grads = (words.grads.format(grads=words.links_between.join(map(str, found.grads)), done=len(found.grads),
                                planned=found.planned_steps)
             if found.grads else words.grads_none)
    if found.error_type is None:
        ends = words.ends_trains if found.outcome == "trains" else words.ends_untrained
    elif found.error_step is None:
        ends = words.ends_before.format(error=found.error_type, message=first_paragraph(found.message))
    else:
        ends = words.ends_at.format(error=found.error_type, step=found.error_step,
                                    message=first_paragraph(found.message))
    outcome = words.outcome.format(outcome=words.outcome_names[found.outcome],
                                   meaning=words.meanings[found.outcome])
    return (which, flag, grads, ends, outcome)


def first_paragraph(message: str) -> str:
    """An error message's first paragraph: Burn's own words where the engine's error has them."""
    return message.split("\n\n")[0].strip()


# ----- the files ---------------------------------------------------------------------


def write(records: Sequence[RunRecord], folder: Path) -> list[Answer]:
    """Write each combination's pictures and `answers.json` into `folder`; the same bytes on every run."""
    folder.mkdir(parents=True, exist_ok=True)
    answers = []
    for choice, record in zip(COMBINATIONS, records, strict=True):
        found = answer(choice, record)
        graph = next((s.graph for s in record.snapshots if s.step == 0 and s.phase == "after"), None)
        titled = lambda found=found: label_words(found, WORDS[spoken()])  # noqa: E731 (in each language)
        curve = inline_svg(loss_curve(record, label=titled))
        for code in languages():
            where = Path(picture_folder(str(folder), code))
            where.mkdir(parents=True, exist_ok=True)
            if graph is not None and found.graph is not None:
                _write_text(where / found.graph, graph.inline_html(code))
            _write_text(where / found.curve, curve.translations.get(code, curve.svg))
        answers.append(found)
    data = [asdict(found) for found in answers]
    _write_text(folder / ANSWERS_FILE, json.dumps(data, ensure_ascii=False, indent=1))
    return answers


def _write_text(path: Path, text: str) -> None:
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def load(folder: Path) -> list[Answer]:
    """The answers `write` wrote into `folder`."""
    data = json.loads((folder / ANSWERS_FILE).read_text(encoding="utf-8"))
    return [Answer.from_data(item) for item in data]


# ----- the page ----------------------------------------------------------------------


def page(answers: Sequence[Answer], folder: str, words: Words = ENGLISH, language: str | None = None) -> str:
    """The explorer's HTML in `words`' language: the form (shown by the script), its data, and the
    table of every combination.

    `folder` is where the pictures are, relative to the page (English's: `language`'s are in
    `picture_folder(folder, language)`).
    """
    folder = picture_folder(folder, language)
    data = {
        "folder": folder,
        "answers": {found.key: {**asdict(found), **found.translations.get(language or "", {}),
                                "message": explained(found.message, language),
                                "lines": sentences(replace(found, message=explained(found.message, language)),
                                                   words)} for found in answers},
    }
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    # the answer's bar takes its outcome's colour, as in the loss curves (bookkit/explorer/explorer.css)
    colours = ";".join(f"--explorer-{outcome}:{colour}" for outcome, colour in OUTCOME_COLOURS.items())
    return (
        f'<div class="explorer" id="relocation-explorer" style="{colours}">\n'
        f"{_form(answers, words)}\n"
        f'<script type="application/json" class="explorer-data">{payload}</script>\n'
        f"<noscript><p>{escape(words.noscript)}</p></noscript>\n"
        f"{table(answers, folder, words)}\n"
        "</div>"
    )


def built_on_words(built_on: str, words: Words) -> str:
    """A "Built on" choice as the form and the tables name it."""
    return words.plain if built_on == "flex" else built_on


def _select(ident: str, name: str, label: str, options: Sequence[tuple[str, str]], chosen: str) -> str:
    items = "".join(
        f'<option value="{escape(value)}"{" selected" if value == chosen else ""}>{escape(text)}</option>'
        for value, text in options
    )
    return (
        f'<p class="explorer-choice"><label for="{ident}">{escape(label)}</label>'
        f'<select id="{ident}" name="{name}">{items}</select></p>'
    )


def relocation_words(found: Answer, words: Words) -> str:
    """How the answer's model was moved, as the form offers it in `words`' language."""
    moved = next(r for r in RELOCATIONS if r.choice == found.relocation)
    return words.relocation_label(moved.choice, moved.written)


def _form(answers: Sequence[Answer], words: Words) -> str:
    built_on, read_first, relocation = DEFAULT
    controls = [
        _select("explorer-built-on", "built_on", words.built_on,
                [(b, built_on_words(b, words)) for b in BUILT_ON], built_on),
        _select("explorer-read-first", "read_first", words.read_first,
                [(YES_NO[True], words.yes), (YES_NO[False], words.no)], YES_NO[read_first]),
        _select("explorer-relocation", "relocation", words.relocation,
                [(r.choice, words.relocation_label(r.choice, r.written)) for r in RELOCATIONS], relocation),
    ]
    order = {name: index for index, name in enumerate(SCENARIOS)}  # chapter 8's order
    methods = sorted((found for found in answers if found.name in order), key=lambda found: order[found.name])
    picks = [_picks(words.seven, [found for found in methods if found.article])]
    others = [found for found in methods if not found.article]
    if others:
        picks.append(_picks(words.others, others))
    return (
        f'<form class="explorer-form" aria-label="{escape(words.form)}" hidden>\n'
        f'<div class="explorer-choices">{"".join(controls)}</div>\n'
        + "".join(picks) +
        '<output class="explorer-answer" for="explorer-built-on explorer-read-first explorer-relocation">'
        "</output>\n"
        '<details class="explorer-message" hidden>'
        f"<summary>{escape(words.whole_message)}</summary><pre></pre>"
        "</details>\n"
        '<div class="explorer-pictures">'
        '<figure class="explorer-graph"><div class="explorer-picture"><img alt="">'
        f'<p class="explorer-none" hidden>{escape(words.no_graph)}</p></div>'
        f"<figcaption>{escape(words.graph_caption)}</figcaption></figure>"
        '<figure class="explorer-curve"><div class="explorer-picture"><img alt=""></div>'
        f"<figcaption>{escape(words.curve_caption)}</figcaption></figure>"
        "</div>\n"
        "</form>"
    )


def _picks(heading: str, methods: Sequence[Answer]) -> str:
    """A row of buttons, one per method of chapter 8, each choosing that method's combination."""
    buttons = "".join(
        f'<button type="button" data-key="{escape(found.key)}">{escape(found.name)}</button>'
        for found in methods
    )
    return f'<p class="explorer-picks"><span>{escape(heading)}</span> {buttons}</p>\n'


def table(answers: Sequence[Answer], folder: str, words: Words = ENGLISH) -> str:
    """Every combination's outcome in text, one table per "Built on", with links to its pictures.

    This is the explorer without JavaScript, and an overview with it.
    """
    header = "".join(f'<th scope="col">{escape(cell)}</th>' for cell in words.heads)
    tables = []
    for built_on in BUILT_ON:
        rows = [_row(found, folder, words) for found in answers if found.built_on == built_on]
        caption = words.table_caption.format(built_on=built_on_words(built_on, words))
        tables.append(
            '<div class="pst-scrollable-table-container">'
            '<table class="table explorer-table">\n'
            f"<caption>{escape(caption)}</caption>\n"
            f"<thead><tr>{header}</tr></thead>\n"
            "<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>"
        )
    steps = sorted({found.planned_steps for found in answers})
    runs = words.runs.format(steps=words.steps_or.join(map(str, steps)), runs=len(answers))
    return f'<p class="explorer-runs">{escape(runs)}</p>\n' + "\n".join(tables)


def _row(found: Answer, folder: str, words: Words) -> str:
    flag = words.none if found.require_grad is None else str(found.require_grad).lower()
    grads = " ".join(str(g) for g in found.grads) or words.none
    if found.error_type is None:
        ends = escape(words.outcome_names[found.outcome])
    else:
        where = (words.before_training if found.error_step is None
                 else words.at_step.format(step=found.error_step))
        ends = f"<code>{escape(found.error_type)}</code> {escape(where)}"
    pictures = [f'<a href="{folder}/{found.graph}">{escape(words.graph_link)}</a>'] if found.graph else []
    pictures.append(f'<a href="{folder}/{found.curve}">{escape(words.curve_link)}</a>')
    article = f"<strong>{escape(found.name)}</strong>" if found.article else ""
    read_first = words.yes if found.read_first else words.no
    return (
        f"<tr><td>{escape(read_first)}</td><td>{escape(relocation_words(found, words))}</td>"
        f"<td>{article}</td>"
        f"<td>{flag}</td><td>{grads}</td>"
        f'<td>{ends}<br><span class="explorer-links">{words.links_between.join(pictures)}</span></td></tr>'
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m bookkit.explorer FOLDER  (writes the pictures and answers.json there)",
              file=sys.stderr)
        return 2
    answers = write(explore(), Path(args[0]))
    for found in answers:
        print(f"{found.key:<42} {found.name:<38} {found.outcome}")
    return 0
