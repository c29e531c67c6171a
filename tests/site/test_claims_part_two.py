"""Part two's claims, read from what its chapters computed in the last strict book build.

Each test names a sentence of chapters 8 to 13 and checks the executed output it rests on,
so a change in the engine that breaks a claim fails here, not only in a reader's eyes.
"""

from __future__ import annotations

import html
import re

import pytest
from article import ARTICLE, ARTICLE_TAPE_CONSUMED, ARTICLE_UNTRACKED, EXPECTED, Expected
from book_outputs import EDITIONS, ROOT, SITE, book_build, executed, glued, page_tables, stream_text  # noqa: F401

from bookkit.runs.methods import SCENARIOS
from bookkit.words.multilingual import pick

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("book_build")]

PART_TWO = ["08", "09", "10", "11", "12", "13"]


def training(table: dict[str, Expected]) -> list[str]:
    """The methods of `table` that train, in its order."""
    return [name for name, expected in table.items() if expected.outcome == "trains"]


def raising(table: dict[str, Expected]) -> list[str]:
    """The methods of `table` whose run ends with an error, in its order."""
    return [name for name, expected in table.items() if expected.error is not None]


def chapter_source(chapter: str) -> str:
    """The chapter's MyST source, e.g. chapter_source("10")."""
    [path] = (ROOT / "book").glob(f"{chapter}-*.md")
    return path.read_text("utf8")


def test_ch08_each_method_ends_as_expected():
    values = glued("08")
    for name, expected in EXPECTED.items():
        assert values[f"seven_{name}_outcome"] == expected.outcome, name
        assert values[f"seven_{name}_grads"] == list(expected.grads), name
        assert values[f"seven_{name}_steps"] == len(expected.grads), name
    assert values["seven_ad-to_device_grads"] == [0], "the quiet one collects no gradient at step 0"
    assert values["seven_error_ad"] == EXPECTED["ad-to_device"].error.__name__ == "TapeConsumedError"
    plain_errors = {EXPECTED[name].error.__name__ for name in ["plain-to_device", "plain-fork"]}
    assert {values["seven_error_plain"]} == plain_errors == {"UntrackedBackwardError"}
    assert values["seven_trains_count"] == len(training(EXPECTED))
    assert values["seven_runs"] == len(EXPECTED)


def test_ch08_isolated_runs_agree_and_only_a_fresh_process_says_node_3():
    values = glued("08")
    assert values["seven_isolated_runs"] == len(EXPECTED)
    assert values["seven_isolated_same"] == len(EXPECTED)
    assert values["seven_node_isolated"] == "NodeId(3)"
    assert values["seven_node_inprocess"] != "NodeId(3)"
    assert "graph tape has already been consumed at NodeId(3)" in stream_text("08")


def generated_tabs(chapter: str) -> str:
    """The one HTML output of the chapter that holds sphinx-design tabs (the generated tab set)."""
    outputs = [out for cell in executed(chapter).cells for out in cell.get("outputs", [])]
    tabs = ["".join(out["data"]["text/html"]) for out in outputs
            if 'class="sd-tab-set' in "".join(out.get("data", {}).get("text/html", ""))]
    assert len(tabs) == 1, f"expected one output with the generated tabs, found {len(tabs)}"
    return pick(tabs[0], "en")  # the English edition's tabs (the output carries every edition's)


def test_ch08_shows_every_snapshot_in_a_tab_per_method_and_step():
    """"Pick a method, then a step": a tab per method, a tab per step it reached, two graphs per step."""
    values, tabs = glued("08"), generated_tabs("08")
    label = re.compile(r'<label [^>]*class="sd-tab-label"[^>]*>([^<]*)</label>')
    labels = [text.strip() for text in label.findall(tabs)]
    methods = [label for label in labels if not label.startswith("step ")]
    assert methods == list(EXPECTED)
    per_method = re.split(r"(?m)^<label [^>]*>(?!step )", tabs)[1:]
    for name, panel in zip(methods, per_method, strict=True):
        expected = EXPECTED[name]
        reached = len(expected.grads) + (expected.error_step is not None)
        assert re.findall(r">(step \d+)</label>", panel) == [f"step {k}" for k in range(reached)], name
    assert tabs.count("<figure") == values["graphs_total"] == 2 * sum(
        len(e.grads) + (e.error_step is not None) for e in EXPECTED.values())
    titles = html.unescape(tabs)
    for title in ["ad-to_device: step 1, after backward", "plain-fork: step 0, after backward",
                  "ad-fork: step 4, after backward"]:
        assert f">{title}</text>" in titles, title
    assert "Step 1, after backward: the error." in tabs
    outputs = [out for cell in executed("08").cells for out in cell.get("outputs", [])]
    svg = [out for out in outputs if "<svg" in "".join(out.get("data", {}).get("text/html", ""))]
    assert len(svg) >= 2, "the curves and the graphs should be inline SVG"


def test_ch08_error_lines_are_the_articles_words():
    """"The text after it is the first line of its message, the panic message Burn 0.22.1 prints"."""
    first_lines = glued("08")["seven_burn_words"]
    assert set(first_lines) == set(raising(EXPECTED))
    assert ARTICLE_TAPE_CONSUMED.fullmatch(first_lines["ad-to_device"]), first_lines["ad-to_device"]
    assert first_lines["plain-to_device"] == first_lines["plain-fork"] == ARTICLE_UNTRACKED


def test_ch08_the_unread_methods_start_from_other_weights():
    """"direct and lazy-to_device ... start from other weights than the five that read" theirs."""
    first = glued("08")["seven_first_losses"]
    assert first["direct"] == first["lazy-to_device"]
    assert first["ad-to_device"] == first["ad-fork"] == first["plain-to_device-train"]
    assert first["direct"] != first["ad-fork"]
    read_first = [name for name, scenario in SCENARIOS.items() if scenario.read_first]
    assert glued("08")["seven_read_first"] == len(read_first)
    assert len({first[name] for name in read_first if name in first}) == 1
    assert len({loss for name, loss in first.items() if name not in read_first}) == 1


def test_ch09_each_kind_of_tensor():
    values = glued("09")
    assert values["kinds_ad_grad_on_w"] is True, "the gradient lands on the source leaf"
    assert values["kinds_ad_grad_on_moved"] is False, "and not on the to_device node"
    assert values["kinds_plain_loss_requirement"] == "None"
    assert values["kinds_lazy_requirement"] == "Grad"
    outputs = [out for cell in executed("09").cells for out in cell.get("outputs", [])]
    errors = [out for out in outputs if out.output_type == "error"]
    assert [out.ename for out in errors] == ["UntrackedBackwardError"]


def test_ch10_every_fix_collects_two_gradients_per_step():
    values = glued("10")
    for fix in ["fork", "train", "plain_train", "direct", "lazy"]:
        key = f"fix_{fix}_grads"
        assert values[key] == [2] * 5, key
    losses = values["fix_fork_losses"]
    assert all(later < earlier for earlier, later in zip(losses, losses[1:], strict=False)), losses


def test_ch10_fork_is_not_right_for_a_plain_model():
    """The warning no longer says fork "is right in every case": plain -> fork fails at step 0."""
    plain_fork = glued("08")
    assert plain_fork["seven_plain-fork_outcome"] == "crash-at-step-0"
    assert plain_fork["seven_plain-fork_steps"] == 0
    text = " ".join(chapter_source("10").split())
    assert "which is right in every case" not in text
    assert "`fork` is not right in every case" in text


def test_ch10_train_reads_the_flag_that_valid_and_the_move_kept():
    values = glued("10")
    assert values["fix_flag_stages"] == {"valid()": True, "+ to_device": True, "+ train()": True}
    assert values["fix_train_require_grad"] is True


def test_ch10_no_grad_freezes_the_body_and_the_head_trains():
    values = glued("10")
    assert values["fix_freeze_counts"] == [4, 2], "4 parameter tensors, 2 of them trainable"
    assert values["fix_freeze_grads"] == [2] * 5, "only the head's weight and bias get gradients"
    assert values["fix_freeze_body_same"] is True, "the optimizer hands the frozen body back untouched"
    assert values["fix_freeze_round_trip"] is False, "valid().train() does not unfreeze"


def test_ch11_the_target_is_an_untracked_to_device_node_no_backward_walks():
    values = glued("11")
    assert values["when_y_op"] == "to_device"
    assert values["when_y_requirement"] == "None"
    assert values["when_y_in_loss_parents"] is False


def test_ch11_gradients_cross_back_to_the_original_parameters():
    values = glued("11")
    assert values["when_offload_grads"] == [2] * 5
    assert values["when_offload_grad_devices"] == "flex"
    assert values["when_offload_param_devices"] == ["flex.autodiff"]


def test_ch11_an_autodiff_model_moved_to_a_plain_device_raises_with_burns_words():
    kind, message = glued("11")["when_plain_move_error"]
    assert kind == "AutodiffMoveError"
    assert message.startswith("Cannot move between autodiff and non-autodiff instances.")


def test_ch11_a_same_device_move_gives_0_gradients_then_the_tape_consumed_error():
    """"A model read on metal.autodiff and moved to metal.autodiff": 0 gradients at step 0, then
    the tape-consumed error at step 1; fork on the same device trains."""
    values = glued("11")
    assert values["when_same_op"] == "to_device"
    assert values["when_same_parent_device"] == "metal.autodiff"
    assert values["when_same_flag"] is False
    assert values["when_same_grads"] == [0]
    assert (values["when_same_error"], values["when_same_error_step"]) == ("TapeConsumedError", 1)
    assert values["when_same_fork_grads"] == [2] * 5
    outputs = [out for cell in executed("11").cells for out in cell.get("outputs", [])]
    pictures = ["".join(out["data"]["text/html"]) for out in outputs if "text/html" in out.get("data", {})]
    assert any("<svg" in html and "to_device" in html for html in pictures), "the graph of the run"
    assert "graph tape has already been consumed" in stream_text("11")


def test_ch12_the_checks_catch_a_same_device_move():
    assert glued("12")["guard_same_device"] == {"check 1": "NotTrainableError",
                                                "check 2, step 0": "MissingGradientsError"}


def test_ch11_inference_records_nothing_and_gradients_cross_devices():
    values = glued("11")
    assert values["when_inference_nodes"] == 0
    assert values["when_grads_flex"] == 2 and values["when_grads_metal"] == 2
    assert values["when_grads_total"] == 4
    assert values["when_split_grads"] == [4] * 5


def test_ch12_guard_stops_each_failing_method_at_step_0_and_passes_the_others():
    values = glued("12")
    assert values["guard_flagged"] == {name: "NotTrainableError" for name in raising(ARTICLE)}
    assert values["guard_caught"] == {"ad-to_device": "MissingGradientsError",
                                      "plain-to_device": "UntrackedBackwardError",
                                      "plain-fork": "UntrackedBackwardError"}
    assert values["guard_passed"] == {name: [2] * 5 for name in training(ARTICLE)}
    failed = re.fullmatch(r"NodeId\((\d+)\)", values["guard_failed_node"])
    assert failed, values["guard_failed_node"]
    assert "parameter 'bias' is a `to_device` output" in stream_text("12")


def test_ch12_counts_tensors_not_elements():
    values = glued("12")
    assert (values["guard_linear_tensors"], values["guard_linear_elements"]) == (2, 5)


def test_ch12_guard_trains_a_model_with_one_frozen_parameter():
    values = glued("12")
    assert values["guard_frozen_counts"] == [2, 1, 5], "tensors, trainable tensors, elements"
    assert values["guard_frozen_grads"] == [1] * 5
    assert values["guard_frozen_bias_same"] is True


def test_ch12_and_ch13_say_check_to_device_first_for_the_tape_consumed_check():
    """The article says to check `to_device` first (先查), not that it is the cause."""
    for chapter in ["12", "13"]:
        text = " ".join(chapter_source(chapter).split())
        assert "first" in text and "to_device" in text, chapter
        assert "most likely" not in text, chapter
        assert "tape-consumed error with one backward per step means" not in text, chapter


def test_ch13_summary_numbers():
    values = glued("13")
    assert values["sum_quiet_grads"] == 0
    assert values["sum_quiet_flag"] is False
    assert (values["sum_quiet_error"], values["sum_quiet_node"]) == ("TapeConsumedError", "NodeId(3)")
    assert (values["sum_plain_error"], values["sum_plain_step"]) == ("UntrackedBackwardError", 0)
    for key in ["sum_fork_grads", "sum_train_grads", "sum_lazy_grads"]:
        assert values[key] == [2] * 5, key


def test_appendix_1_counts_lines_of_the_real_modules():
    core = ["device", "node", "tape", "tensor", "module", "nn", "optim", "errors"]
    sources = [ROOT / "mlx_autodiff" / f"{name}.py" for name in core]
    expected = sum(len(path.read_text("utf8").splitlines()) for path in sources)
    assert glued("a1")["tour_core_lines"] == expected


def readme_map() -> list[list[str]]:
    """The rows of README's "Map of the code" table, each a list of its cells."""
    readme = (ROOT / "README.md").read_text("utf8")
    section = readme.split("\n## Map of the code\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in rows]


@pytest.mark.parametrize("language", EDITIONS)
def test_appendix_1_shows_readmes_map_with_each_modules_lines(language: str):
    """One map: appendix 1 renders README's, adding the lines of each module as the build counts them
    (bookkit/site/code_map.py, when the page is read: not in a cell, so README is not in the cache's key)."""
    from bookkit.site.code_map import translation
    from bookkit.words import words

    lines = words(language, "code_map")["lines"]
    page = SITE / language / "book" / "a1-engine-tour.html"
    [table] = [table for table in page_tables(page) if table[0][1:2] == [lines]]
    shown = table[1:]
    said = translation(language)  # another edition's words for the map (words' part code_map)
    rows = [[module, said["rows"][module].get("concept", concept), said["rows"][module].get("burn", burn)]
            if said else [module, concept, burn] for module, concept, burn in readme_map()]
    assert [[module, *rest] for module, _, *rest in shown] == [
        [module.replace("`mlx_autodiff/", "`"), *rest] for module, *rest in rows]
    for (module, *_), (_, counted, *_) in zip(readme_map(), shown, strict=True):
        paths = [ROOT / path for path in re.findall(r"`([^`]+)`", module)]
        files = [f for path in paths for f in (sorted(path.rglob("*.py")) if path.is_dir() else [path])]
        assert int(counted) == sum(len(f.read_text("utf8").splitlines()) for f in files), module


def test_appendix_1_each_burn_worded_error_starts_with_burns_words():
    values = glued("a1")
    assert values["tour_burn_words"] == dict.fromkeys(
        ["TapeConsumedError", "UntrackedBackwardError", "MissingRootStepError", "NonLeafRequireGradError",
         "AutodiffMoveError", "AlreadyAutodiffError"], True)
    assert "TapeConsumedError" not in values["tour_own_errors"]
    assert "ShapeError" in values["tour_own_errors"]


def test_appendix_1_the_engines_own_choices_show():
    values = glued("a1")
    assert values["tour_flags"] == {"moved with to_device": (True, False),
                                    "frozen with no_grad": (False, False)}
    assert values["tour_relabel_same_array"] is True


@pytest.mark.parametrize("chapter", PART_TWO)
def test_chapter_ends_with_its_sources(chapter):
    headings = re.findall(r"^## (.+)$", chapter_source(chapter), flags=re.MULTILINE)
    assert headings[-1] == "Sources", headings
    if "Exercises" in headings:
        assert headings.index("Exercises") < headings.index("Sources")


def test_appendix_2_says_what_metal_is_on_this_machine():
    from mlx_autodiff import Device

    assert Device.metal().describe() in stream_text("a2")
