"""Part one's claims (the landing page and chapters 1 to 7), read from the last strict book build.

Each test names what a chapter says in prose and checks the executed output the sentence
rests on, so a change in the engine that breaks a claim fails here, not only in a reader's eyes.
"""

from __future__ import annotations

import re

import pytest
from book_outputs import (  # noqa: F401 (fixture)
    ROOT,
    book_build,
    cell_outputs_with_tag,
    docname,
    executed,
    glued,
    output_text,
    stream_text,
)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("book_build")]

PART_ONE = ["01", "02", "03", "04", "05", "06", "07"]

# Burn 0.22.1's panic at step 1, word for word as the article shows it (its node id aside).
BURN_TAPE_CONSUMED = (
    "Cannot run backward: graph tape has already been consumed at NodeId({node}). Burn does not "
    "support retain_graph. Combine losses before backward or recompute the forward pass. Use "
    "detach() only to intentionally sever gradients through the previous computation."
)
# Burn 0.22.1's assertion for a backward with nothing tracked (the article, rows 3 and 6).
BURN_UNTRACKED = ("Tensor::backward requires a tracked autodiff tensor; call "
                  "Tensor::autodiff().require_grad() on the source leaf before computing the output")
# The source snapshot's panics (crates/burn-autodiff/src/tensor.rs, runtime/server.rs).
BURN_NON_LEAF = "Can't convert a non leaf tensor into a tracked tensor"
BURN_NO_ROOT_STEP = ("Node should have a step registered, did you forget to call `Tensor::register_grad` "
                     "on the tensor where you need gradients?")


def html_outputs(chapter: str) -> list[str]:
    """Every text/html output of the chapter (graphs and curves are inline SVG in HTML)."""
    return ["".join(out["data"]["text/html"]) for cell in executed(chapter).cells
            for out in cell.get("outputs", []) if "text/html" in out.get("data", {})]


def error_outputs(chapter: str) -> list[tuple[str, str]]:
    """(exception name, message) of each cell tagged raises-exception, in order."""
    return [(out.ename, out.evalue) for outputs in cell_outputs_with_tag(chapter, "raises-exception")
            for out in outputs if out.output_type == "error"]


def test_landing_shows_zero_gradients_then_the_consumed_tape():
    values = glued("index")
    assert values["grads0"] == 0
    assert values["n_done"] == 1
    assert values["error_step"] == 1
    consumed = "TapeConsumedError: Cannot run backward: graph tape has already been consumed"
    assert consumed in stream_text("index")
    assert re.search(r"^metal: ", stream_text("index"), re.M), "Device.metal().describe() should be shown"


def test_landing_shows_burns_words_after_the_exception_name_and_the_articles_node():
    values = glued("index")
    assert values["fail_node"] == 3, "the model is the first thing the landing page makes: NodeId(3)"
    printed = " ".join(stream_text("index").split())
    assert "TapeConsumedError: " + BURN_TAPE_CONSUMED.format(node=3) in printed
    assert "What happened" not in printed, "the landing page shows only Burn's words"


def test_one_seed_convention_gives_each_chapters_first_model_the_landing_pages_loss():
    landing = glued("index")["loss0"]
    assert glued("04")["loss0"] == landing
    assert glued("05")["loss_step0"] == landing, "drawing the data first does not change the weights"
    assert glued("07")["loss_first"] == landing


def test_landing_flowchart_is_inline_svg_linking_every_part_one_chapter():
    (flowchart,) = [html for html in html_outputs("index") if "02-to_device-or-fork.html" in html]
    assert "<svg" in flowchart and "<img" not in flowchart
    for page in ["01-initialized", "02-to_device-or-fork", "03-not-a-leaf", "04-step-0", "05-step-1",
                 "06-fork", "07-training-works"]:
        assert f"{page}.html" in flowchart, page


def test_ch01_a_new_parameter_is_a_recipe_and_each_first_read_builds_it():
    text = stream_text("01")
    assert text.count("initialized=False") == 2, "weight and bias start as recipes"
    assert "after:  True | bias: False" in text, "printing the weight builds only the weight"
    assert text.count("before: [False, False]\nafter:  [True, True]") == 2, "inference and loading build both"
    values = glued("01")
    assert values["b_id"] == values["w_id"] + 1, "reading W then B takes two consecutive node ids"
    assert values["last_before"] == values["w_id"] - 1 and values["w_id"] > 0, "earlier cells took ids"
    assert "[(False, 'metal.autodiff'), (False, 'metal.autodiff')]" in text, "a moved recipe stays a recipe"


def test_ch01_printing_a_param_reads_nothing_and_num_params_counts_numbers_and_initializes():
    text = stream_text("01")
    assert re.search(r"^Param\('weight', ParamId\(\w+\), uninitialized on flex\.autodiff\)\nbefore: False$",
                     text, re.M), "print(param) is a summary, like Burn's Display for Param"
    values = glued("01")
    assert values["n_numbers"] == 5, "Burn's Module::num_params sums elements: 4 weights and 1 bias"
    assert values["n_tensors"] == 2
    assert "num_params: 5 | initialized: [True, True]" in text, "num_params reads every parameter"


def test_ch02_to_device_makes_an_op_output_and_fork_a_leaf_with_the_same_param_id():
    rows = {line.split()[0]: line.split() for line in stream_text("02").splitlines()
            if line.split() and line.split()[0] in ("CPU", "to_device", "fork")}
    assert {row[1] for row in rows.values()} == {rows["CPU"][1]}, "one ParamId on all three lines"
    assert rows["to_device"][3:6] == ["to_device", "GradInBackward", "False"]
    assert rows["fork"][4:6] == ["Grad", "True"] and rows["fork"][6] == "none"
    values = glued("02")
    assert values["moved_parent"] == values["src_id"], "the to_device output's parent is the CPU leaf"
    assert len({values["src_id"], values["moved_id"], values["forked_id"]}) == 3


def test_ch03_the_moved_parameter_is_not_a_leaf_and_refuses_require_grad():
    text = stream_text("03")
    assert "requirement:     Requirement.GRAD_IN_BACKWARD" in text
    assert "is_require_grad: False" in text
    ((name, message),) = error_outputs("03")
    assert name == "NonLeafRequireGradError"
    burn, ours = message.split(". ", 1)
    assert burn == BURN_NON_LEAF, "the first sentence is the snapshot's panic, word for word"
    assert ".detach().require_grad()" in ours and "NodeId(" in ours, "the rest is the engine's addition"
    graph = [html for html in html_outputs("03") if "<svg" in html]
    assert graph and "to_device" in graph[0] and "flex" in graph[0] and "metal" in graph[0]


def test_ch04_step_0_collects_no_gradients_and_adam_changes_nothing():
    values = glued("04")
    assert values["grads_step0"] == 0
    assert values["n_params"] == 2, "one gradient expected per parameter tensor"
    assert values["n_numbers"] == 5, "Module::num_params counts numbers, not tensors"
    assert values["raw_len"] == 2, "backward itself produced two gradients"
    assert values["lost_shape"] == [4, 1], "the weight's gradient landed on the CPU original"
    assert values["loss_again"] == values["loss0"], "a one-step smoke test sees no effect"
    text = stream_text("04")
    assert "gradient of the CPU weight: [4, 1] on flex" in text
    assert "gradient of the moved weight: None" in text
    assert text.count("same tensor: True") == 2 and text.count("same values: True") == 2


def test_ch04_brain_teaser_a_linear_4_2_gives_the_articles_4_2_gradient():
    values = glued("04")
    assert values["wide_shape"] == [4, 2], "Burn's weight layout is [d_input, d_output]"
    assert "weight: [4, 2] | gradient of the CPU weight: [4, 2]" in stream_text("04")


def test_ch05_ids_count_the_data_drawn_first_so_the_bias_node_is_5():
    values = glued("05")
    ids = [values[name] for name in ("x_id", "y_id", "cpu_w_id", "cpu_b_id", "moved_w_id", "predicted")]
    assert ids == [0, 1, 2, 3, 4, 5], "x, y, W, B, W', B' in that order from a fresh kernel"
    assert values["failed"] == 5


def test_ch05_burns_words_come_first_and_backward_twice_on_one_loss_has_the_snapshots_message():
    (step1, _reused, twice) = error_outputs("05")
    failed = glued("05")["failed"]
    burn, ours = step1[1].split("\n\n", 1)
    assert burn == BURN_TAPE_CONSUMED.format(node=failed), "the first paragraph is Burn 0.22.1's panic"
    assert ours.startswith("What happened: "), "the rest is the engine's addition"
    assert twice[0] == "MissingRootStepError" and twice[1].startswith(BURN_NO_ROOT_STEP + " (")


def test_ch05_step_1_fails_at_the_predicted_bias_node_and_node_3_in_a_fresh_process():
    values = glued("05")
    assert values["failed"] == values["predicted"]
    assert values["fresh_node"] == 3, "the article's NodeId(3), in a fresh process"
    (step1, reused_loss, _twice) = error_outputs("05")
    assert step1[0] == "TapeConsumedError" and f"consumed at NodeId({values['failed']})" in step1[1]
    assert "retain_graph" in step1[1] and "fork(device)" in step1[1]
    assert reused_loss[0] == "TapeConsumedError" and "is the output of `mean`" in reused_loss[1]
    assert "is loss_a: True" in stream_text("05")
    assert any("<svg" in html for html in html_outputs("05")), "the graph with the failing node is drawn"


def test_ch06_fork_gives_leaves_with_new_node_ids_same_param_ids_and_frees_the_to_device_node():
    values = glued("06")
    assert values["w_new"] != values["w_old"]
    text = stream_text("06")
    assert text.count("same: True") == 2
    assert re.search(r"alive: True \| kept", text) and re.search(r"dropped, NodeId\(\d+\) alive: False", text)
    assert "fork after to_device: [False, False]" in text, "fork cannot rescue a to_device output"


def test_ch06_a_model_moved_with_to_device_then_forked_is_untracked_and_backward_fails():
    assert glued("06")["handed_req"] == "None"
    text = stream_text("06")
    assert re.search(r"^weight NodeId\(\d+\) None is_require_grad: False\n"
                     r"bias   NodeId\(\d+\) None is_require_grad: False$", text, re.M)
    assert "UntrackedBackwardError: " + BURN_UNTRACKED in " ".join(text.split())


def test_ch07_the_forked_model_trains_with_two_gradients_every_step():
    values = glued("07")
    assert values["n_steps"] == 5
    assert values["counts"] == [2] * 5
    assert values["loss_last"] < values["loss_first"]
    assert any("<svg" in html for html in html_outputs("07")), "curve and graph are inline SVG"


def test_ch07_each_update_is_a_fresh_grad_leaf_with_the_same_param_id():
    updates = re.findall(r"^(weight|bias) +NodeId\((\d+)\) -> NodeId\((\d+)\) (\w+), same ParamId: (\w+)$",
                         stream_text("07"), re.M)
    assert [name for name, *_ in updates] == ["weight", "bias"]
    for _, old, new, requirement, same in updates:
        assert old != new and requirement == "Grad" and same == "True"


@pytest.mark.parametrize("chapter", PART_ONE)
def test_every_chapter_ends_with_its_sources(chapter):
    text = (ROOT / f"{docname(chapter)}.md").read_text(encoding="utf8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[-1] == "Sources", f"chapter {chapter}: the last section is {headings[-1]!r}"
    sources = text[text.rindex("\n## Sources\n"):]
    article = re.search(r"^- The article, (?:(?!\n- ).)*", sources, re.M | re.S)
    assert article and "section" in article[0], f"chapter {chapter}: name the article's sections"
    assert re.search(r"`crates/burn-[\w-]+/src/[\w/.-]+`", sources), f"chapter {chapter}: name Burn's files"


def test_every_pytorch_link_in_part_one_names_a_docs_version():
    pages = ["index", *PART_ONE]
    text = "".join((ROOT / f"{docname(page)}.md").read_text(encoding="utf8") for page in pages)
    links = re.findall(r"https://[\w.]*pytorch\.org/[^)\s]*", text)
    assert links, "part one maps Burn to PyTorch with links to PyTorch's docs"
    assert all(link.startswith("https://docs.pytorch.org/docs/2.13/") for link in links), links


@pytest.mark.parametrize("chapter", PART_ONE)
def test_every_exercise_check_is_shown_and_left_to_the_grader(chapter):
    """A check cell defines check(expect, answer), which the grader calls after a reader's answer
    (tests/book/test_exercises.py grades every solution there): the build runs the cell, which prints
    nothing."""
    checks = [cell for cell in executed(chapter).cells if "check" in cell.metadata.get("tags", [])]
    assert 1 <= len(checks) <= 3, f"chapter {chapter} should have 1 to 3 exercises"
    for cell in checks:
        assert cell.execution_count and not cell.get("outputs"), f"chapter {chapter}: a check printed"
