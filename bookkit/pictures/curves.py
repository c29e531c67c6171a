"""Loss curves of scenario runs: one method in detail, or all of them side by side.

The pictures say what the article's text lines say: the loss per step, how many
gradients each step collected, and where a run raised. Figures are built
without pyplot (so Jupyter shows a returned figure once, and nothing opens a
window) and rendered with Agg; `inline_svg` turns one into inline HTML, as
`render.Graph` does for graphs and for the same reason (Jupyter Book shows an
SVG output as `<img>`: https://github.com/jupyter-book/jupyter-book/issues/855).
Each figure says in words what it shows (`CurveFigure.text_alternative`, from
`describe`), and `inline_svg` gives the SVG that text as its alternative, as
graphs have.

Each figure is drawn once per language of `bookkit.words` (its part "curves", and the
methods' labels of "labels"); `inline_svg` writes them as `editions.Editions`, so each edition
of the book shows its own. Their words stay text in the SVG, drawn by the reader's browser with its
own fonts, as a graph's are: the machine that draws them needs no CJK font (`font_metrics`).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bookkit.pictures import font_metrics, palette
from bookkit.runs.scenarios import RunRecord
from bookkit.words import SOURCE_LANGUAGE, languages, speaking, spoken, word, words
from bookkit.words.multilingual import join

OUTCOME_COLOURS: dict[str, str] = {
    "trains": palette.TRAINS,
    "no-gradients": palette.NO_GRADIENTS,
    "silent-then-crash": palette.SILENT_THEN_CRASH,
    "crash-at-step-0": palette.CRASH_AT_STEP_0,
    "crash-later": palette.CRASH_LATER,
    "crash-before-training": palette.CRASH_BEFORE_TRAINING,
}
"""One colour per outcome in `scenarios.OUTCOMES`: green trains, orange silent, red crashes."""

def _w(key: str, **values: object) -> str:
    """A text of the words' part "curves" in the language being drawn (`words.speaking`)."""
    return word("curves", key, **values)


def method_label(record: RunRecord) -> str:
    """A method's label in the language being drawn (the record's own where the words have none)."""
    if spoken() == SOURCE_LANGUAGE:
        return record.label
    return words(spoken(), "labels").get(record.name, record.label)


@dataclass(frozen=True)
class TextAlternative:
    """What a screen reader hears instead of the picture: its title and one sentence."""

    title: str
    description: str


class CurveFigure(Figure):
    """A matplotlib Figure that carries its text alternative, for `inline_svg`, and the same figure
    drawn in each other language (`translations`, by language code)."""

    def __init__(self, text: TextAlternative, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.text_alternative = text
        self.translations: dict[str, CurveFigure] = {}


def describe(record: RunRecord) -> str:
    """One run's curve in words (its label aside): the steps completed, their gradients and losses, where
    it raised."""
    steps = record.steps
    if not steps:
        done = _w("no_step")
    else:
        grads = _w("numbers_between").join(str(s.grads) for s in steps)
        loss = (_w("loss_once", loss=f"{steps[0].loss:.4f}") if len(steps) == 1
                else _w("loss_first_last", first=f"{steps[0].loss:.4f}", last=f"{steps[-1].loss:.4f}",
                        step=steps[-1].step))
        done = _w("completed", n=len(steps), planned=record.planned_steps, grads=grads, loss=loss)
    if record.error is None:
        return _w("ends", done=done)
    return _w("ends_raised", done=done, error=record.error.type, where=_where(record))


def _where(record: RunRecord) -> str:
    assert record.error is not None
    return _w("before_step_0") if record.error.step is None else _w("at_step", step=record.error.step)


def _grads_text(grads: int, compact: bool) -> str:
    if compact:
        return f"({grads})"
    return _w("grads.one" if grads == 1 else "grads.many", n=grads)


def _draw(ax: Axes, record: RunRecord, colour: str, compact: bool) -> None:
    """The loss line, a gradient count at each point, and a red X where the run raised."""
    steps = [s.step for s in record.steps]
    losses = [s.loss for s in record.steps]
    ax.plot(steps, losses, marker="o", color=colour, linewidth=2, markersize=5 if compact else 6)
    for s in record.steps:
        ax.annotate(
            _grads_text(s.grads, compact),
            (s.step, s.loss),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            fontsize=8 if compact else 9,
            color=colour,
        )
    if record.error is not None:
        _mark_error(ax, record, compact)


def _last_step(record: RunRecord) -> int:
    """The last step the x axis must show: every planned step, and the one that raised."""
    failed_at = record.error.step if record.error is not None and record.error.step is not None else 0
    return max([record.planned_steps - 1, *(s.step for s in record.steps), failed_at])


def _show_steps(ax: Axes, last: int) -> None:
    ax.set_xlim(-0.5, last + 0.5)
    ax.set_xticks(range(last + 1))


def _mark_error(ax: Axes, record: RunRecord, compact: bool) -> None:
    """A red X at the failing step, at the height of the last loss (mid-axes if none), named."""
    assert record.error is not None
    step = 0 if record.error.step is None else record.error.step
    # y in data units next to a loss, else half-way up the axes
    at, y_coords = (record.steps[-1].loss, "data") if record.steps else (0.5, "axes fraction")
    transform = ax.transData if record.steps else ax.get_xaxis_transform()
    size = 110 if compact else 160
    ax.scatter([step], [at], marker="X", s=size, color=palette.RAISED, zorder=3, transform=transform)
    text = f"{record.error.type}\n{_where(record)}"
    style = {
        "color": palette.RAISED,
        "fontweight": "bold",
        "va": "top",
        "ha": "left",
        "textcoords": "offset points",
    }
    if compact:  # under the X, from the panel's left edge: a narrow panel has no room beside it
        ax.annotate(
            text, (0.04, at), xycoords=("axes fraction", y_coords), xytext=(0, -10), fontsize=7.5, **style
        )
    else:
        ax.annotate(text, (step, at), xycoords=("data", y_coords), xytext=(10, -4), fontsize=10, **style)


def _new_figure(width: float, height: float, text: TextAlternative) -> CurveFigure:
    fig = CurveFigure(text, figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _in_every_language(draw: Callable[[], CurveFigure]) -> CurveFigure:
    """The English figure `draw` makes, with the one of each other language as its translations."""
    font_metrics.register()
    # named families, not "sans-serif": a text keeps them from its creation to the savefig in `_svg`
    with matplotlib.rc_context({"font.family": font_metrics.FAMILIES}):
        with speaking(SOURCE_LANGUAGE):
            fig = draw()
        for code in languages()[1:]:
            with speaking(code):
                fig.translations[code] = draw()
    return fig


def loss_curve(record: RunRecord, label: Callable[[], str] | None = None) -> Figure:
    """One run's loss per step, labelled with the gradient counts and the error if any; titled with
    `label()` in the language being drawn (the explorer's combinations name themselves), else the
    method's label."""
    return _in_every_language(lambda: _loss_curve(record, (label or (lambda: method_label(record)))()))


def _loss_curve(record: RunRecord, title: str) -> CurveFigure:
    text = TextAlternative(_w("loss_title", label=title), describe(record))
    fig = _new_figure(6.4, 3.6, text)
    ax = fig.add_subplot()
    _draw(ax, record, OUTCOME_COLOURS[record.outcome], compact=False)
    _show_steps(ax, _last_step(record))
    ax.set_title(title)
    ax.set_xlabel(_w("x_axis"))
    ax.set_ylabel(_w("y_axis"))
    if not record.steps:
        ax.set_yticks([])
        corner = {"transform": ax.transAxes, "ha": "right", "va": "top", "color": palette.NOTE_TEXT}
        ax.text(0.98, 0.95, _w("no_step"), **corner)
    else:
        ax.margins(y=0.2)
    ax.grid(alpha=0.3)
    return fig


def small_multiples(records: Sequence[RunRecord], ncols: int = 4) -> Figure:
    """One small panel per run, coloured by outcome, on shared axes, with a colour key."""
    return _in_every_language(lambda: _small_multiples(records, ncols))


def _small_multiples(records: Sequence[RunRecord], ncols: int) -> CurveFigure:
    nrows = math.ceil((len(records) + 1) / ncols)  # + 1: room for the key
    words = " ".join(_w("panel_words", label=method_label(r), words=describe(r)) for r in records)
    text = TextAlternative(_w("panels_title"), words)
    fig = _new_figure(8.5, 2.5 * nrows + 0.4, text)
    axes = list(fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).flat)
    for ax, record in zip(axes, records, strict=False):  # the spare axes become the key
        colour = OUTCOME_COLOURS[record.outcome]
        _draw(ax, record, colour, compact=True)
        ax.set_title(method_label(record), fontsize=9, color=colour, fontweight="bold")
        ax.set_facecolor(matplotlib.colors.to_rgba(colour, 0.06))
        for spine in ax.spines.values():
            spine.set_edgecolor(colour)
        ax.tick_params(labelsize=8, labelleft=True, labelbottom=True)
        ax.margins(y=0.18)
        ax.grid(alpha=0.3)
    if records:  # the x axis is shared: set it once, wide enough for every run
        _show_steps(axes[0], max(_last_step(r) for r in records))
    fig.supxlabel(_w("x_axis"), fontsize=9)
    fig.supylabel(_w("y_axis"), fontsize=9)
    _add_key(fig, records, spare=axes[len(records) :])
    return fig


def _add_key(fig: Figure, records: Sequence[RunRecord], spare: list[Axes]) -> None:
    """The colour key, in the first empty grid cell: lay out once, then freeze the layout."""
    fig.get_layout_engine().execute(fig)
    box = spare[0].get_position()
    fig.set_layout_engine("none")
    for ax in spare:
        ax.remove()
    outcomes = list(dict.fromkeys(r.outcome for r in records))
    handles = [Line2D([], [], color=OUTCOME_COLOURS[o], marker="o", linewidth=2) for o in outcomes]
    handles.append(Line2D([], [], color=palette.RAISED, marker="X", linestyle="none", markersize=9))
    labels = [_w(f"outcomes.{o}") for o in outcomes] + [_w("raised")]
    fig.legend(
        handles,
        labels,
        loc="center left",
        bbox_to_anchor=box,
        title=_w("key_title"),
        fontsize=8,
        title_fontsize=8,
        frameon=False,
    )


@dataclass
class InlineSVG:
    """A figure as inline `<svg>` HTML: what Jupyter and the built book show, links kept; the figure
    in each other language beside it (`translations`, by language code), as `editions.Editions`."""

    svg: str
    translations: dict[str, str] = field(default_factory=dict)

    def _repr_html_(self) -> str:
        return join({SOURCE_LANGUAGE: self.svg, **self.translations}) if self.translations else self.svg

    def __repr__(self) -> str:
        """What a plain-text console shows instead of the picture: no memory address."""
        return f"<InlineSVG figure, {len(self.svg):,} characters of SVG>"

    def __str__(self) -> str:
        return self.svg


def inline_svg(fig: Figure) -> InlineSVG:
    """`fig` as inline SVG (`_svg`), with each of a `CurveFigure`'s translations beside it."""
    translations = getattr(fig, "translations", {})
    return InlineSVG(_svg(fig), {code: _svg(other) for code, other in translations.items()})


def _svg(fig: Figure) -> str:
    """Render `fig` as SVG text, the same bytes on every run, and close it.

    A `CurveFigure`'s text becomes the SVG's `<title>` and, with `role="img"`,
    its `aria-label`. Closing matters for figures made with pyplot: Jupyter
    would show them again as PNG at the end of the cell.
    """
    import matplotlib.pyplot as plt  # here, not at the top: importing pyplot picks a backend

    buffer = io.StringIO()
    font_metrics.register()  # the texts the layout makes as it draws (tick labels) take these fonts too
    fonts = {"font.family": font_metrics.FAMILIES, "svg.fonttype": "none"}
    with matplotlib.rc_context({"svg.hashsalt": "mlx_autodiff", **fonts}):
        # no metadata: its Dublin Core block names matplotlib's version, which no reader sees
        fig.savefig(buffer, format="svg", metadata=dict.fromkeys(("Creator", "Date", "Format", "Type")))
    plt.close(fig)
    svg = font_metrics.browser_fonts(buffer.getvalue())
    svg = svg[svg.index("<svg") :]  # drop the XML prolog and DOCTYPE
    named = ""
    if isinstance(fig, CurveFigure):
        label = f"{fig.text_alternative.title}: {fig.text_alternative.description}"
        named = f' role="img" aria-label="{escape(label)}"'
    svg = svg.replace("<svg ", f'<svg style="max-width:100%;height:auto"{named} ', 1)
    if isinstance(fig, CurveFigure):  # the first child of <svg>, where an SVG's own title belongs
        opening = svg.index(">") + 1
        title = escape(fig.text_alternative.title, quote=False)
        svg = f"{svg[:opening]}\n<title>{title}</title>{svg[opening:]}"
    return svg
