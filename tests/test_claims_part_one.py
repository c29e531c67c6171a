"""Part one's claims (the landing page and chapters 1 to 7), read from the last strict book build.

Each test names what a chapter says in prose and checks the executed output the sentence
rests on, so a change in the engine that breaks a claim fails here, not only in a reader's eyes.
"""

from __future__ import annotations

import re

import pytest
from book_outputs import (  # noqa: F401 (fixture)
    book_build,
    cell_outputs_with_tag,
    executed,
    glued,
    output_text,
    stream_text,
)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("book_build")]

PART_ONE = ["01", "02", "03", "04", "05", "06", "07"]


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
    assert "[(False, 'metal.autodiff'), (False, 'metal.autodiff')]" in text, "a moved recipe stays a recipe"


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
    assert message.startswith("Can't convert a non leaf tensor into a tracked tensor")
    graph = [html for html in html_outputs("03") if "<svg" in html]
    assert graph and "to_device" in graph[0] and "flex" in graph[0] and "metal" in graph[0]


def test_ch04_step_0_collects_no_gradients_and_adam_changes_nothing():
    values = glued("04")
    assert values["grads_step0"] == 0
    assert values["n_params"] == 2
    assert values["raw_len"] == 2, "backward itself produced two gradients"
    assert values["lost_shape"] == [4, 1], "the weight's gradient landed on the CPU original"
    assert values["loss_again"] == values["loss0"], "a one-step smoke test sees no effect"
    text = stream_text("04")
    assert "gradient of the CPU weight: [4, 1] on flex" in text
    assert "gradient of the moved weight: None" in text
    assert text.count("same tensor: True") == 2 and text.count("same values: True") == 2


def test_ch05_step_1_fails_at_the_predicted_bias_node_and_node_3_in_a_fresh_process():
    values = glued("05")
    assert values["failed"] == values["predicted"]
    assert values["fresh_node"] == 3, "the article's NodeId(3), in a fresh process"
    (step1, reused_loss) = error_outputs("05")
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


def test_ch07_the_forked_model_trains_with_two_gradients_every_step():
    values = glued("07")
    assert values["n_steps"] == 5
    assert values["counts"] == [2] * 5
    assert values["loss_last"] < values["loss_first"]
    assert any("<svg" in html for html in html_outputs("07")), "curve and graph are inline SVG"


@pytest.mark.parametrize("chapter", PART_ONE)
def test_every_exercise_check_passed(chapter):
    checks = cell_outputs_with_tag(chapter, "check")
    assert 1 <= len(checks) <= 3, f"chapter {chapter} should have 1 to 3 exercises"
    for outputs in checks:
        assert "ok" in output_text(outputs).split(), f"a check in chapter {chapter} did not print ok"
