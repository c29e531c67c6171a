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
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from . import palette
from .scenarios import RunRecord

OUTCOME_COLOURS: dict[str, str] = {
    "trains": palette.TRAINS,
    "no-gradients": palette.NO_GRADIENTS,
    "silent-then-crash": palette.SILENT_THEN_CRASH,
    "crash-at-step-0": palette.CRASH_AT_STEP_0,
    "crash-later": palette.CRASH_LATER,
    "crash-before-training": palette.CRASH_BEFORE_TRAINING,
}
"""One colour per outcome in `scenarios.OUTCOMES`: green trains, orange silent, red crashes."""

OUTCOME_WORDS: dict[str, str] = {
    "trains": "trains:\ngradients every step",
    "no-gradients": "no gradients, no error",
    "silent-then-crash": "silent, then crashes:\n0 gradients, then error",
    "crash-at-step-0": "crashes at step 0",
    "crash-later": "trains, then crashes",
    "crash-before-training": "crashes before training",
}
"""Legend words, short enough for one panel's width."""


@dataclass(frozen=True)
class TextAlternative:
    """What a screen reader hears instead of the picture: its title and one sentence."""

    title: str
    description: str


class CurveFigure(Figure):
    """A matplotlib Figure that carries its text alternative, for `inline_svg`."""

    def __init__(self, text: TextAlternative, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.text_alternative = text


def describe(record: RunRecord) -> str:
    """One run's curve in words (its label aside): the steps completed, their gradients and losses, where
    it raised."""
    steps = record.steps
    if not steps:
        done = "no step completed"
    else:
        grads = ", ".join(str(s.grads) for s in steps)
        loss = (f"loss {steps[0].loss:.4f}" if len(steps) == 1
                else f"loss {steps[0].loss:.4f} at step 0, {steps[-1].loss:.4f} at step {steps[-1].step}")
        done = f"{len(steps)} of {record.planned_steps} steps completed, with {grads} gradients, {loss}"
    if record.error is None:
        return f"{done}."
    where = "before step 0" if record.error.step is None else f"at step {record.error.step}"
    return f"{done}; {record.error.type} {where}."


def _grads_text(grads: int, compact: bool) -> str:
    if compact:
        return f"({grads})"
    return f"{grads} grad" if grads == 1 else f"{grads} grads"


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
    where = "before step 0" if record.error.step is None else f"at step {step}"
    text = f"{record.error.type}\n{where}"
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


def loss_curve(record: RunRecord) -> Figure:
    """One run's loss per step, labelled with the gradient counts and the error if any."""
    fig = _new_figure(6.4, 3.6, TextAlternative(f"Loss per step: {record.label}", describe(record)))
    ax = fig.add_subplot()
    _draw(ax, record, OUTCOME_COLOURS[record.outcome], compact=False)
    _show_steps(ax, _last_step(record))
    ax.set_title(record.label)
    ax.set_xlabel("training step")
    ax.set_ylabel("MSE loss")
    if not record.steps:
        ax.set_yticks([])
        corner = {"transform": ax.transAxes, "ha": "right", "va": "top", "color": palette.NOTE_TEXT}
        ax.text(0.98, 0.95, "no step completed", **corner)
    else:
        ax.margins(y=0.2)
    ax.grid(alpha=0.3)
    return fig


def small_multiples(records: Sequence[RunRecord], ncols: int = 4) -> Figure:
    """One small panel per run, coloured by outcome, on shared axes, with a colour key."""
    nrows = math.ceil((len(records) + 1) / ncols)  # + 1: room for the key
    words = " ".join(f"{r.label}: {describe(r)}" for r in records)
    text = TextAlternative("Loss per step, one panel per method", words)
    fig = _new_figure(8.5, 2.5 * nrows + 0.4, text)
    axes = list(fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).flat)
    for ax, record in zip(axes, records, strict=False):  # the spare axes become the key
        colour = OUTCOME_COLOURS[record.outcome]
        _draw(ax, record, colour, compact=True)
        ax.set_title(record.label, fontsize=9, color=colour, fontweight="bold")
        ax.set_facecolor(matplotlib.colors.to_rgba(colour, 0.06))
        for spine in ax.spines.values():
            spine.set_edgecolor(colour)
        ax.tick_params(labelsize=8, labelleft=True, labelbottom=True)
        ax.margins(y=0.18)
        ax.grid(alpha=0.3)
    if records:  # the x axis is shared: set it once, wide enough for every run
        _show_steps(axes[0], max(_last_step(r) for r in records))
    fig.supxlabel("training step", fontsize=9)
    fig.supylabel("MSE loss", fontsize=9)
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
    labels = [OUTCOME_WORDS[o] for o in outcomes] + ["where the run raised"]
    fig.legend(
        handles,
        labels,
        loc="center left",
        bbox_to_anchor=box,
        title="(n) = gradients collected",
        fontsize=8,
        title_fontsize=8,
        frameon=False,
    )


class InlineSVG:
    """A figure as inline `<svg>` HTML: what Jupyter and the built book show, links kept."""

    def __init__(self, svg: str) -> None:
        self.svg = svg

    def _repr_html_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        """What a plain-text console shows instead of the picture: no memory address."""
        return f"<InlineSVG figure, {len(self.svg):,} characters of SVG>"

    def __str__(self) -> str:
        return self.svg


def inline_svg(fig: Figure) -> InlineSVG:
    """Render `fig` as SVG text, the same bytes on every run, and close it.

    A `CurveFigure`'s text becomes the SVG's `<title>` and, with `role="img"`,
    its `aria-label`. Closing matters for figures made with pyplot: Jupyter
    would show them again as PNG at the end of the cell.
    """
    import matplotlib.pyplot as plt  # here, not at the top: importing pyplot picks a backend

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "mlx_autodiff", "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    svg = buffer.getvalue()
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
    return InlineSVG(svg)
