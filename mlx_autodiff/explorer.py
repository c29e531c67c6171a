"""The relocation explorer: every way to build, read and move the model, each run once at build time.

Three choices make a combination (`scenarios.COMBINATIONS`: where the model is
built, whether its parameters are read before moving, how it is moved), 30 in
all, the article's seven among them. `explore` runs each the way the article
runs its seven, in a fresh process (node ids start at 0 in each, so a node
has the number the article prints), training with Adam for five steps.
`write` turns each run record into an `Answer` (the words the page shows) and
writes the pictures it loads when a reader picks that combination: the graph
after the first backward pass and the loss curve. `page` is the HTML of the
form, its answer and a table of every combination, which is what a page
without JavaScript shows; `_static/explorer.js` only shows what is written
here, so the words a reader sees are the ones the tests check.

Command line: `python -m mlx_autodiff.explorer FOLDER` writes the pictures and
`answers.json` into FOLDER and prints the table.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from html import escape
from pathlib import Path

from .curves import OUTCOME_COLOURS, describe, inline_svg, loss_curve
from .scenarios import (
    BUILT_ON,
    COMBINATIONS,
    OUTCOMES,
    RELOCATIONS,
    SCENARIOS,
    BuiltOn,
    RunRecord,
    run_isolated,
)

Choice = tuple[BuiltOn, bool, str]
"""What the form's three controls say: built on, read before moving, `Relocation.choice`."""

DEFAULT: Choice = ("flex.autodiff", True, "to_device")
"""The combination the page shows first: the article's ad-to_device, the bug itself."""

ANSWERS_FILE = "answers.json"
BUILT_ON_WORDS: dict[str, str] = {"metal.autodiff": "metal.autodiff", "flex.autodiff": "flex.autodiff",
                                  "flex": "flex (plain)"}
"""The "Built on" choices as the form shows them."""
YES_NO = {True: "yes", False: "no"}


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
    """One of the article's seven methods (then `name` is the article's name for it)."""
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
    lines: tuple[str, ...]
    """The answer in words, one sentence each, as the page's <output> shows them."""
    graph: str | None
    """The picture of the graph after the first backward pass (a file beside the page), if there was one."""
    graph_alt: str
    curve: str
    curve_alt: str

    @staticmethod
    def from_data(data: dict[str, object]) -> Answer:
        return Answer(**{**data, "grads": tuple(data["grads"]), "lines": tuple(data["lines"])})  # type: ignore[arg-type]


def explore(workers: int | None = None) -> list[RunRecord]:
    """Every combination's run, in `COMBINATIONS` order, each in a fresh process (a few in parallel)."""
    names = [scenario.name for scenario in COMBINATIONS.values()]
    with ThreadPoolExecutor(max_workers=workers or min(8, os.cpu_count() or 2)) as pool:
        return list(pool.map(run_isolated, names))


# ----- the words ---------------------------------------------------------------------


def answer(choice: Choice, record: RunRecord) -> Answer:
    """The words and picture names for one combination, from its run."""
    scenario = COMBINATIONS[choice]
    article = scenario.name in SCENARIOS
    graph = next((s.graph for s in record.snapshots if s.step == 0 and s.phase == "after"), None)
    error = record.error
    return Answer(
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
        lines=sentences(record, article),
        graph=f"{record.name}-graph.svg" if graph is not None else None,
        graph_alt="" if graph is None else f"{graph.title}: {graph.description}",
        curve=f"{record.name}-loss.svg",
        curve_alt=f"Loss per step: {record.label}: {describe(record)}",
    )


def sentences(record: RunRecord, article: bool) -> tuple[str, ...]:
    """The answer: which method, `require_grad` before training, the gradients, how the run ended."""
    which = f"the article's method {record.name}" if article else "not one of the article's seven methods"
    flag = (
        "require_grad before training: none, the model never reached training."
        if record.require_grad is None
        else f"require_grad before training: {str(record.require_grad).lower()}."
    )
    done = f"{len(record.steps)} of {record.planned_steps} steps completed"
    grads = (
        f"Gradients per completed step: {', '.join(str(s.grads) for s in record.steps)} ({done})."
        if record.steps
        else "Gradients per completed step: none, no step completed."
    )
    error = record.error
    if error is None:
        ends = "Ends: trains." if record.outcome == "trains" else "Ends: no error, but nothing was trained."
    elif error.step is None:
        ends = (f"Ends: {error.type} before training, while building or moving the model: "
                f"{first_paragraph(error.message)}")
    else:
        ends = f"Ends: {error.type} at step {error.step}: {first_paragraph(error.message)}"
    outcome = f"Outcome: {record.outcome} ({OUTCOMES[record.outcome]})."
    return (f"{record.label}: {which}.", flag, grads, ends, outcome)


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
        if graph is not None and found.graph is not None:
            _write_text(folder / found.graph, graph.inline_html())
        _write_text(folder / found.curve, str(inline_svg(loss_curve(record))))
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


def page(answers: Sequence[Answer], folder: str) -> str:
    """The explorer's HTML: the form (shown by the script), its data, and the table of every combination.

    `folder` is where the pictures are, relative to the page.
    """
    data = {
        "folder": folder,
        "answers": {found.key: asdict(found) for found in answers},
    }
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    # the answer's bar takes its outcome's colour, as in the loss curves (_static/explorer.css)
    colours = ";".join(f"--explorer-{outcome}:{colour}" for outcome, colour in OUTCOME_COLOURS.items())
    return (
        f'<div class="explorer" id="relocation-explorer" style="{colours}">\n'
        f"{_form(answers)}\n"
        f'<script type="application/json" class="explorer-data">{payload}</script>\n'
        "<noscript><p>The three choices need JavaScript, which is off: the tables below give every "
        "combination's outcome, with links to its pictures.</p></noscript>\n"
        f"{table(answers, folder)}\n"
        "</div>"
    )


def _select(ident: str, name: str, label: str, options: Sequence[tuple[str, str]], chosen: str) -> str:
    items = "".join(
        f'<option value="{escape(value)}"{" selected" if value == chosen else ""}>{escape(words)}</option>'
        for value, words in options
    )
    return (
        f'<p class="explorer-choice"><label for="{ident}">{escape(label)}</label>'
        f'<select id="{ident}" name="{name}">{items}</select></p>'
    )


def _form(answers: Sequence[Answer]) -> str:
    built_on, read_first, relocation = DEFAULT
    controls = [
        _select("explorer-built-on", "built_on", "Built on",
                [(b, BUILT_ON_WORDS[b]) for b in BUILT_ON], built_on),
        _select("explorer-read-first", "read_first", "Parameters read before moving",
                [("yes", "yes"), ("no", "no")], YES_NO[read_first]),
        _select("explorer-relocation", "relocation", "How it is moved",
                [(r.choice, r.choice) for r in RELOCATIONS], relocation),
    ]
    by_name = {found.name: found for found in answers}
    picks = "".join(  # in the article's order, as chapter 8 shows them
        f'<button type="button" data-key="{escape(by_name[name].key)}">{escape(name)}</button>'
        for name in SCENARIOS
    )
    return (
        '<form class="explorer-form" aria-label="Relocation explorer" hidden>\n'
        f'<div class="explorer-choices">{"".join(controls)}</div>\n'
        f'<p class="explorer-picks"><span>The article\'s seven:</span> {picks}</p>\n'
        '<output class="explorer-answer" for="explorer-built-on explorer-read-first explorer-relocation">'
        "</output>\n"
        '<details class="explorer-message" hidden><summary>The whole error message</summary><pre></pre>'
        "</details>\n"
        '<div class="explorer-pictures">'
        '<figure class="explorer-graph"><div class="explorer-picture"><img alt="">'
        '<p class="explorer-none" hidden>No graph: this run raised before its first backward pass.</p></div>'
        "<figcaption>The graph after the first backward pass.</figcaption></figure>"
        '<figure class="explorer-curve"><div class="explorer-picture"><img alt=""></div>'
        "<figcaption>The loss at each completed step, with its gradient count.</figcaption></figure>"
        "</div>\n"
        "</form>"
    )


def table(answers: Sequence[Answer], folder: str) -> str:
    """Every combination's outcome in text, one table per "Built on", with links to its pictures.

    This is the explorer without JavaScript, and an overview with it.
    """
    head = ("Read before moving", "How it is moved", "Article's method", "require_grad",
            "Gradients per step", "Ends")
    header = "".join(f'<th scope="col">{escape(cell)}</th>' for cell in head)
    tables = []
    for built_on in BUILT_ON:
        rows = [_row(found, folder) for found in answers if found.built_on == built_on]
        tables.append(
            '<div class="pst-scrollable-table-container">'
            '<table class="table explorer-table">\n'
            f"<caption>Built on {escape(BUILT_ON_WORDS[built_on])}</caption>\n"
            f"<thead><tr>{header}</tr></thead>\n"
            "<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>"
        )
    steps = sorted({found.planned_steps for found in answers})
    runs = (f'<p class="explorer-runs">Every combination, trained with Adam for up to '
            f"{' or '.join(map(str, steps))} steps in a fresh process ({len(answers)} runs):</p>")
    return runs + "\n" + "\n".join(tables)


def _row(found: Answer, folder: str) -> str:
    flag = "none" if found.require_grad is None else str(found.require_grad).lower()
    grads = " ".join(str(g) for g in found.grads) or "none"
    if found.error_type is None:
        ends = escape(found.outcome)
    else:
        where = "before training" if found.error_step is None else f"at step {found.error_step}"
        ends = f"<code>{escape(found.error_type)}</code> {where}"
    pictures = [f'<a href="{folder}/{found.graph}">graph</a>'] if found.graph else []
    pictures.append(f'<a href="{folder}/{found.curve}">loss curve</a>')
    article = f"<strong>{escape(found.name)}</strong>" if found.article else ""
    return (
        f"<tr><td>{YES_NO[found.read_first]}</td><td>{escape(found.relocation)}</td><td>{article}</td>"
        f"<td>{flag}</td><td>{grads}</td>"
        f'<td>{ends}<br><span class="explorer-links">{", ".join(pictures)}</span></td></tr>'
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m mlx_autodiff.explorer FOLDER  (writes the pictures and answers.json there)",
              file=sys.stderr)
        return 2
    answers = write(explore(), Path(args[0]))
    for found in answers:
        print(f"{found.key:<42} {found.name:<38} {found.outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
