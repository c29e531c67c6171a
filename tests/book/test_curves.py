"""Loss curves say what the article's lines say: losses, gradient counts, and where a run raised."""

from __future__ import annotations

import contextlib
import logging
import re
import warnings
from collections.abc import Iterator

import matplotlib
import matplotlib.pyplot as plt
import pytest
from article import EXPECTED
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.colors import to_rgb

from bookkit.pictures import font_metrics
from bookkit.pictures.curves import OUTCOME_COLOURS, inline_svg, loss_curve, small_multiples
from bookkit.runs.scenarios import RunRecord, run, run_all


@pytest.fixture(scope="module")
def records() -> dict[str, RunRecord]:
    return {r.name: r for r in run_all(steps=5)}


def texts(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.texts]


def error_markers(ax: Axes) -> list[PathCollection]:
    return [c for c in ax.collections if isinstance(c, PathCollection)]


def test_loss_curve_of_a_training_run(records: dict[str, RunRecord]) -> None:
    record = records["direct"]
    fig = loss_curve(record)
    (ax,) = fig.axes
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == [0, 1, 2, 3, 4]
    assert list(line.get_ydata()) == [s.loss for s in record.steps]
    assert texts(ax).count("2 grads") == 5
    assert ax.get_title() == "built on the GPU"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("training step", "MSE loss")
    assert error_markers(ax) == []


def test_loss_curve_marks_the_step_that_raised(records: dict[str, RunRecord]) -> None:
    fig = loss_curve(records["ad-to_device"])
    (ax,) = fig.axes
    (line,) = ax.get_lines()
    assert len(line.get_xdata()) == 1
    assert "0 grads" in texts(ax)
    (marker,) = error_markers(ax)
    assert marker.get_offsets()[0][0] == 1  # at step 1
    assert any("TapeConsumedError" in t and "step 1" in t for t in texts(ax))


def test_loss_curve_of_a_run_with_no_completed_step(records: dict[str, RunRecord]) -> None:
    fig = loss_curve(records["plain-fork"])
    (ax,) = fig.axes
    (line,) = ax.get_lines()
    assert len(line.get_xdata()) == 0
    (marker,) = error_markers(ax)
    assert marker.get_offsets()[0][0] == 0
    assert any("UntrackedBackwardError" in t and "step 0" in t for t in texts(ax))
    assert list(ax.get_xticks()) == [0, 1, 2, 3, 4]  # the steps it was meant to run are still shown


def test_small_multiples_one_panel_per_method_coloured_by_outcome(records: dict[str, RunRecord]) -> None:
    seven = list(records.values())
    fig = small_multiples(seven)
    assert len(fig.axes) == len(EXPECTED)
    for ax, record in zip(fig.axes, seven, strict=True):
        assert ax.get_title() == record.label
        (line,) = ax.get_lines()
        assert len(line.get_xdata()) == len(record.steps)
        assert to_rgb(line.get_color()) == to_rgb(OUTCOME_COLOURS[record.outcome])
        assert texts(ax).count("(2)") == sum(s.grads == 2 for s in record.steps)
    red, green, blue = to_rgb(OUTCOME_COLOURS["trains"])
    assert green > max(red, blue)
    red, green, blue = to_rgb(OUTCOME_COLOURS["crash-at-step-0"])
    assert red > max(green, blue)
    red, green, blue = to_rgb(OUTCOME_COLOURS["silent-then-crash"])
    assert red > green > blue  # orange
    shared = fig.axes[0].get_shared_y_axes()
    assert all(shared.joined(fig.axes[0], ax) for ax in fig.axes)


def test_small_multiples_legend_explains_the_colours(records: dict[str, RunRecord]) -> None:
    fig = small_multiples(list(records.values()))
    (legend,) = fig.legends
    words = [t.get_text() for t in legend.get_texts()]
    outcomes = list(dict.fromkeys(expected.outcome for expected in EXPECTED.values()))
    assert len(words) == len(outcomes) + 1  # the seven's outcomes and the error marker
    assert any(w.startswith("trains") for w in words)
    assert any("silent" in w for w in words)
    assert any("step 0" in w for w in words)
    colours = [to_rgb(h.get_color()) for h in legend.legend_handles[: len(outcomes)]]
    assert colours == [to_rgb(OUTCOME_COLOURS[o]) for o in outcomes]


def test_inline_svg_is_inline_deterministic_and_closes_the_figure(records: dict[str, RunRecord]) -> None:
    first = inline_svg(loss_curve(records["ad-to_device"]))._repr_html_()
    second = inline_svg(loss_curve(records["ad-to_device"]))._repr_html_()
    assert first.startswith("<svg")
    assert "max-width:100%" in first.split(">", 1)[0]
    assert "<?xml" not in first and "DOCTYPE" not in first
    assert "<dc:date>" not in first
    assert first == second

    fig = plt.figure()
    inline_svg(fig)
    assert not plt.fignum_exists(fig.number)


def test_inline_svg_offers_only_html(records: dict[str, RunRecord]) -> None:
    shown = inline_svg(loss_curve(records["direct"]))
    assert not hasattr(shown, "_repr_svg_")
    assert not hasattr(shown, "_repr_png_")


def test_curves_leave_the_global_rc_alone(records: dict[str, RunRecord]) -> None:
    before = matplotlib.rcParams["svg.fonttype"], matplotlib.rcParams["svg.hashsalt"]
    inline_svg(small_multiples(list(records.values())))
    assert (matplotlib.rcParams["svg.fonttype"], matplotlib.rcParams["svg.hashsalt"]) == before


def test_small_multiples_share_an_x_axis_wide_enough_for_every_run(records: dict[str, RunRecord]) -> None:
    one_step = run("ad-to_device", steps=1)
    fig = small_multiples([one_step, records["direct"]])
    assert all(list(ax.get_xticks()) == [0, 1, 2, 3, 4] for ax in fig.axes)
    assert len(fig.axes) == 2


@contextlib.contextmanager
def only_matplotlibs_fonts() -> Iterator[None]:
    """matplotlib as on a machine with no CJK font: only the fonts matplotlib ships (a fresh Linux
    machine, or one whose font cache was made before a CJK font was installed)."""
    manager = font_manager.fontManager
    every = manager.ttflist
    manager.ttflist = [font for font in every if font.fname.startswith(matplotlib.get_data_path())]
    manager._findfont_cached.cache_clear()
    font_metrics.register.cache_clear()  # adds the metrics fonts to this list
    try:
        yield
    finally:
        manager.ttflist = every
        manager._findfont_cached.cache_clear()
        font_metrics.register.cache_clear()


def chinese_curves(records: dict[str, RunRecord]) -> str:
    shown = [inline_svg(small_multiples(list(records.values()))),
             inline_svg(loss_curve(records["ad-to_device"]))]
    return "".join(picture.translations["zh_CN"] for picture in shown)


def test_chinese_curves_need_no_cjk_font_and_say_nothing(records: dict[str, RunRecord],
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """No glyph warning, no log line (a kernel shows both on the page), and the same picture as on a
    machine with CJK fonts: the words are SVG text, which the reader's browser draws."""
    with_fonts = chinese_curves(records)
    with only_matplotlibs_fonts(), warnings.catch_warnings(), caplog.at_level(logging.DEBUG, "matplotlib"):
        warnings.simplefilter("error")
        assert not any("CJK" in font.name for font in font_manager.fontManager.ttflist)
        without = chinese_curves(records)
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.INFO] == []
    assert without == with_fonts
    words = " ".join(re.findall(r"<text\b[^>]*>([^<]*)</text>", without))
    assert "训练步" in words and "第 1 步" in words, words
    assert f"font-family: {font_metrics.BROWSER_FONTS}" in without and font_metrics.FAMILY not in without


def test_the_metrics_font_makes_a_han_character_an_em_wide() -> None:
    with only_matplotlibs_fonts():
        fig = loss_curve(run("direct", steps=1))
        renderer = fig.canvas.get_renderer()
        with matplotlib.rc_context({"font.family": font_metrics.FAMILIES}):
            han, latin = fig.text(0, 0, "训练训练", fontsize=10), fig.text(0, 0, "MM", fontsize=10)
            widths = [text.get_window_extent(renderer).width for text in (han, latin)]
    assert widths[0] == pytest.approx(4 * 10 * fig.dpi / 72, rel=0.02)
    assert 0 < widths[1] < widths[0]
