"""Part two's claims, read from what its chapters computed in the last strict book build.

Each test names a sentence of chapters 8 to 13 and checks the executed output it rests on,
so a change in the engine that breaks a claim fails here, not only in a reader's eyes.
"""

from __future__ import annotations

import re

import pytest
from book_outputs import ROOT, book_build, executed, glued, stream_text  # noqa: F401 (fixture)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("book_build")]

SEVEN = ["direct", "ad-to_device", "plain-to_device", "lazy-to_device", "ad-fork", "plain-fork",
         "plain-to_device-train"]
TRAINS = ["direct", "lazy-to_device", "ad-fork", "plain-to_device-train"]
FAILING = ["ad-to_device", "plain-to_device", "plain-fork"]


def test_ch08_outcomes_of_the_seven():
    values = glued("08")
    for name in TRAINS:
        assert values[f"seven_{name}_outcome"] == "trains", name
        assert values[f"seven_{name}_grads"] == [2] * 5, name
    assert values["seven_ad-to_device_outcome"] == "silent-then-crash"
    assert values["seven_ad-to_device_grads"] == [0]
    assert values["seven_error_ad"] == "TapeConsumedError"
    for name in ["plain-to_device", "plain-fork"]:
        assert values[f"seven_{name}_outcome"] == "crash-at-step-0", name
        assert values[f"seven_{name}_steps"] == 0, name
    assert values["seven_error_plain"] == "UntrackedBackwardError"
    assert values["seven_trains_count"] == len(TRAINS)


def test_ch08_isolated_runs_agree_and_only_a_fresh_process_says_node_3():
    values = glued("08")
    assert values["seven_isolated_runs"] == len(SEVEN)
    assert values["seven_isolated_same"] == len(SEVEN)
    assert values["seven_node_isolated"] == "NodeId(3)"
    assert values["seven_node_inprocess"] != "NodeId(3)"
    assert "graph tape has already been consumed at NodeId(3)" in stream_text("08")


def test_ch08_has_a_graph_for_every_snapshot_and_they_are_inline_svg():
    values = glued("08")
    graphs = [key for key in values if key.startswith("graph_")]
    assert len(graphs) == values["graphs_total"]
    expected = {"graph_ad-to_device_s1_after", "graph_plain-fork_s0_after", "graph_ad-fork_s4_after"}
    assert expected <= set(graphs)
    outputs = [out for cell in executed("08").cells for out in cell.get("outputs", [])]
    html = [out for out in outputs if "text/html" in out.get("data", {})]
    assert any("<svg" in "".join(out["data"]["text/html"]) for out in html), "the curves should be inline SVG"


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


def test_ch11_inference_records_nothing_and_gradients_cross_devices():
    values = glued("11")
    assert values["when_inference_nodes"] == 0
    assert values["when_grads_flex"] == 2 and values["when_grads_metal"] == 2
    assert values["when_grads_total"] == 4
    assert values["when_split_grads"] == [4] * 5


def test_ch12_guard_stops_each_failing_method_at_step_0_and_passes_the_others():
    values = glued("12")
    assert values["guard_flagged"] == {name: "NotTrainableError" for name in FAILING}
    assert values["guard_caught"] == {"ad-to_device": "MissingGradientsError",
                                      "plain-to_device": "UntrackedBackwardError",
                                      "plain-fork": "UntrackedBackwardError"}
    assert values["guard_passed"] == {name: [2] * 5 for name in TRAINS}
    failed = re.fullmatch(r"NodeId\((\d+)\)", values["guard_failed_node"])
    assert failed, values["guard_failed_node"]
    assert "parameter 'bias' is a `to_device` output" in stream_text("12")


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


def test_appendix_2_says_what_metal_is_on_this_machine():
    from mlx_autodiff import Device

    assert Device.metal().describe() in stream_text("a2")
