"""The backward stepper, engine side: the trace `tape.record_backward` takes, and the frames built from it.

The three passes the book steps through are built here as the chapters build
them: the ad-to_device model's step 0 (chapter 4) and step 1 (chapter 5), and a
forked model's first backward (chapter 6). Each trace is checked against what
the engine itself left behind: the gradients it returned, the steps it
consumed, the error it raised.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import pytest
from book_outputs import book_build, executed_again, stepper_data_texts  # noqa: F401 (fixtures)
from colours import contrast

from bookkit.pictures.flowchart import flowchart
from bookkit.pictures.graph import snapshot
from bookkit.runs.methods import initialized
from bookkit.stepper import (
    BURN,
    WALK_LINES,
    Phase,
    PictureWithoutIdsError,
    Stepper,
    frames,
    name,
    step_through,
    walk_code,
)
from bookkit.words import words
from bookkit.words.multilingual import pick
from mlx_autodiff import (
    AdamConfig,
    Device,
    Distribution,
    GradientsParams,
    MissingRootStepError,
    Module,
    MseLoss,
    Node,
    Reduction,
    TapeConsumedError,
    Tensor,
    tape,
)
from mlx_autodiff.node import node_name
from mlx_autodiff.trace import BackwardTrace, Failed, Landed, Popped, Pushed, Ran, Took

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Setup:
    model: Module
    x: Tensor
    y: Tensor

    def loss(self) -> Tensor:
        return MseLoss().forward(self.model.forward(self.x), self.y, Reduction.MEAN)


def setup(move: str) -> Setup:
    """The article's model, initialized on flex.autodiff and moved to metal with `to_device` or `fork`."""
    flex, metal = Device.flex(), Device.metal().autodiff()
    flex.seed(0)
    model = initialized(flex.autodiff())
    moved = model.to_device(metal) if move == "to_device" else model.fork(metal)
    metal.seed(1)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), metal)
    return Setup(moved, x, x.sum_dim(1))


def recorded(loss: Tensor):
    """One backward pass, recorded: its trace, and the gradients or the error it ended with."""
    with tape.record_backward() as passes:
        try:
            result: object = loss.backward()
        except (TapeConsumedError, MissingRootStepError) as error:
            result = error
    (trace,) = passes
    return trace, result


def ancestors(root: Node) -> list[Node]:
    seen: dict[int, Node] = {}
    todo = [root]
    while todo:
        node = todo.pop()
        if node.id not in seen:
            seen[node.id] = node
            todo += node.parents
    return list(seen.values())


def step_1(moved: Setup):
    """Step 0 of the article's loop (backward, from_grads, Adam), then step 1's recorded backward."""
    grads = moved.loss().backward()
    moved.model = AdamConfig().init().step(1e-1, moved.model, GradientsParams.from_grads(grads, moved.model))
    loss = moved.loss()
    return loss, *recorded(loss)


# ----- the three passes of the book ------------------------------------------------------


def test_ad_to_device_step_1_trace_ends_at_the_bias_to_device_node_with_tape_consumed_error() -> None:
    moved = setup("to_device")
    bias = moved.model.bias.val().node
    _, trace, error = step_1(moved)
    assert isinstance(error, TapeConsumedError)
    last = trace.events[-1]
    assert isinstance(last, Failed) and trace.failure is last
    assert last.node == bias.id == error.node.id, "the trace stops where the error says"
    assert last.error == "TapeConsumedError" and last.message == str(error)
    assert trace.nodes[bias.id].op == "to_device" and trace.nodes[bias.id].label == "bias"
    popped = [event.node for event in trace.events if isinstance(event, Popped)]
    weight = moved.model.weight.val().node
    assert popped[-1] == bias.id and weight.id not in popped, "the bias's node is popped first of the two"
    ran = [event for event in trace.events if isinstance(event, Ran | Landed)]
    assert not ran, "no step runs after a failed walk"
    final = frames(trace)[-1]
    assert final.failed and final.node == bias.id
    said = f"Pop {node_name(bias.id)} 'bias' to_device: its step is already gone → TapeConsumedError"
    assert said in final.sentence
    assert f"consumed at {node_name(bias.id)}" in final.sentence, "the last frame names the node as the error"


def test_ad_to_device_step_0_trace_sends_the_gradients_to_the_cpu_originals() -> None:
    moved = setup("to_device")
    originals = {name: getattr(moved.model, name).val().node.parents[0].id for name in ("weight", "bias")}
    trace, grads = recorded(moved.loss())
    assert trace.failure is None
    assert {e.node for e in trace.kept()} == set(originals.values())
    assert {e.device for e in trace.kept()} == {"flex"}
    sent = {(e.by, e.node) for e in trace.events if isinstance(e, Landed)}
    for name_, original in originals.items():
        moved_node = getattr(moved.model, name_).val().node
        assert (moved_node.id, original) in sent, f"the {name_}'s to_device step sends its gradient to flex"
    assert "on flex" in frames(trace)[-1].sentence


def test_fork_trace_consumes_only_op_outputs_and_lands_gradients_on_the_two_leaves() -> None:
    forked = setup("fork")
    leaves = {forked.model.weight.val().node.id, forked.model.bias.val().node.id}
    trace, grads = recorded(forked.loss())
    taken = [event.node for event in trace.events if isinstance(event, Took) and event.found]
    ops = [node for node in taken if not trace.nodes[node].is_leaf]
    assert set(taken) - set(ops) == leaves, "the only leaves on the walk are the two parameters"
    assert all(trace.nodes[node].op != "to_device" for node in taken), "no to_device node on a forked walk"
    ran = {event.node: event.no_op for event in trace.events if isinstance(event, Ran)}
    assert all(ran[leaf] for leaf in leaves), "a leaf's step does nothing"
    assert not any(ran[node] for node in ops), "every step that does something belongs to an op output"
    assert {e.node for e in trace.kept()} == leaves and {e.device for e in trace.kept()} == {"metal"}
    assert set(grads.node_ids()) == leaves


# ----- the trace is what the engine did ---------------------------------------------------


@pytest.mark.parametrize("move", ["to_device", "fork"])
def test_the_trace_is_the_same_data_the_gradients_show(move: str) -> None:
    run = setup(move)
    loss = run.loss()
    trace, grads = recorded(loss)
    kept = trace.kept()
    assert [e.node for e in kept] == grads.node_ids()
    for landed in kept:
        assert landed.device == grads.device_of(landed.node).name
        assert landed.shape == tuple(grads.array_of(landed.node).shape)
    consumed = {node.id for node in ancestors(loss.node) if node.consumed_in == trace.pass_number}
    assert {e.node for e in trace.events if isinstance(e, Took) and e.found} == consumed
    assert grads.pass_number == trace.pass_number and trace.root == loss.node.id


@pytest.mark.parametrize("move", ["to_device", "fork"])
def test_the_recorded_stacks_follow_the_pushes_and_pops(move: str) -> None:
    trace, _ = recorded(setup(move).loss())
    stack: list[int] = []
    for event in trace.events:
        if isinstance(event, Pushed):
            stack.append(event.node)
        elif isinstance(event, Popped):
            assert stack.pop() == event.node, "the walk pops the node it pushed last"
        if isinstance(event, Pushed | Popped):
            assert list(event.stack) == stack
    assert stack == []


def test_a_failed_pass_recorded_after_a_finished_one_shows_the_tape_state_the_first_left() -> None:
    moved = setup("to_device")
    loss, trace, error = step_1(moved)
    gone = [event.node for event in trace.events if isinstance(event, Took) and not event.found]
    assert gone == [error.node.id], "the only step found missing is the failing node's"


def test_backward_twice_on_the_same_loss_is_recorded_as_a_missing_root_step() -> None:
    run = setup("fork")
    loss = run.loss()
    loss.backward()
    trace, error = recorded(loss)
    assert isinstance(error, MissingRootStepError)
    root = loss.node.id
    assert trace.events == [Took(root, found=False), Failed(root, "MissingRootStepError", str(error))]
    (frame,) = frames(trace)
    assert frame.failed and frame.node == loss.node.id and "MissingRootStepError" in frame.sentence


# ----- off, it changes nothing -------------------------------------------------------------


def test_recording_off_changes_nothing() -> None:
    results = []
    for record in (False, True):
        run = setup("to_device")
        loss = run.loss()
        if record:
            trace, grads = recorded(loss)
            assert trace.events
        else:
            assert tape._recording is None, "no block is open, so backward records nothing"
            grads = loss.backward()
        nodes = ancestors(loss.node)
        walked = sorted((node.id - loss.node.id, node.consumed_in is not None) for node in nodes)
        results.append((walked, [grads.array_of(i) for i in grads.node_ids()]))
    (walked_off, grads_off), (walked_on, grads_on) = results
    assert walked_off == walked_on
    assert all(mx.array_equal(a, b).item() for a, b in zip(grads_off, grads_on, strict=True))


def test_record_backward_blocks_nest_and_close() -> None:
    run = setup("fork")
    with tape.record_backward() as outer:
        run.loss().backward()
        with tape.record_backward() as inner:
            run.loss().backward()
        run.loss().backward()
    run.loss().backward()
    assert len(outer) == 2 and len(inner) == 1
    assert tape._recording is None


def test_a_trace_round_trips_through_json() -> None:
    for trace in (recorded(setup("fork").loss())[0], step_1(setup("to_device"))[1]):
        again = BackwardTrace.from_data(json.loads(json.dumps(trace.as_data())))
        assert again == trace
        assert frames(again) == frames(trace)


# ----- frames --------------------------------------------------------------------------------


def test_frames_are_the_root_each_pop_the_seed_each_step_run_and_the_end() -> None:
    trace, grads = recorded(setup("to_device").loss())
    shown = frames(trace)
    pops = sum(isinstance(e, Popped) for e in trace.events)
    runs = sum(isinstance(e, Ran) for e in trace.events)
    assert len(shown) == 1 + pops + 1 + runs + 1
    assert shown[0].node == trace.root
    assert shown[0].sentence.startswith(f"Start at the root, {node_name(trace.root)}")
    seed = shown[1 + pops]
    assert seed.node == trace.root and seed.gradients == (trace.root,) and "seed gradient" in seed.sentence
    assert shown[-1].node is None and list(shown[-1].gradients) == grads.node_ids()
    assert not any(frame.failed for frame in shown)
    assert all(frame.stack == () for frame in shown[1 + pops:]), "the stack is empty once the walk is over"
    taken = [e.node for e in trace.events if isinstance(e, Took) and e.found]
    assert list(shown[-1].taken) == taken
    for frame in shown[:-1]:
        assert name(trace.nodes[frame.node]) in frame.sentence, "a frame names the node it highlights"


def test_each_run_frame_names_every_gradient_its_step_sent() -> None:
    trace, _ = recorded(setup("to_device").loss())
    for frame in frames(trace):
        if frame.sentence.startswith("Run ") and "does nothing" not in frame.sentence:
            sent = [e for e in trace.events if isinstance(e, Landed) and e.by == frame.node]
            assert [e.node for e in sent] == list(frame.gradients)
            for e in sent:
                assert f"{list(e.shape)} on {e.device} for {name(trace.nodes[e.node])}" in frame.sentence


# ----- what each frame shows beside the sentence ---------------------------------------------


def test_the_code_beside_the_graph_is_tape_pys_own_lines() -> None:
    code = walk_code()
    source = (REPO / "mlx_autodiff" / "tape.py").read_text().splitlines()
    assert code.path == "mlx_autodiff/tape.py"
    for line in code.lines:
        assert source[line.number - 1] == line.text, f"line {line.number} is not tape.py's"
    for key, (_, starts) in WALK_LINES.items():
        assert source[code.at[key] - 1].strip().startswith(starts), key
    recording = [line.text for line in code.lines if line.text.strip().startswith(("if trace", "trace."))]
    assert not recording, "the recording's own lines are left out"
    assert not any('"""' in line.text for line in code.lines), "and so are the docstrings"


@pytest.mark.parametrize("move", ["to_device", "fork"])
def test_each_frame_highlights_the_line_its_move_executes(move: str) -> None:
    trace, _ = recorded(setup(move).loss())
    at = walk_code().at
    shown = frames(trace)
    lines = {number for number in at.values()}
    for frame in shown:
        assert frame.line in lines and set(frame.lines) <= lines
        assert frame.burn and all(key in BURN for key in frame.burn)
    pops = [frame for frame in shown if frame.changes.popped is not None]
    assert pops and all(frame.line == at["pop"] for frame in pops if not frame.failed)
    assert shown[0].line == at["take_root"] and shown[-1].line == at["done"]
    runs = [frame for frame in shown if frame.phase is Phase.RUN and frame.node is not None][1:]
    assert all(frame.line in (at["register"], at["no_op"], at["step_backward"]) for frame in runs)


def test_the_failing_frame_highlights_the_raise_and_links_the_place_burn_skips() -> None:
    _, trace, _ = step_1(setup("to_device"))
    last = frames(trace)[-1]
    assert last.failed and last.line == walk_code().at["raise"] and "missing" in last.burn


BURN_REPO = os.environ.get("BURN_REPO")


@pytest.mark.skipif(not BURN_REPO, reason="set BURN_REPO to a clone of tracel-ai/burn to check the links")
def test_each_burn_place_is_the_line_it_says_at_the_snapshot() -> None:
    for key, place in BURN.items():
        shown = subprocess.run(["git", "-C", str(BURN_REPO), "show",
                                f"2c06be351:crates/burn-autodiff/src/{place.path}"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
        assert shown[place.start - 1].strip() == place.first_line, key
        assert place.end >= place.start and place.end <= len(shown)


@pytest.mark.parametrize("move", ["to_device", "fork"])
def test_the_gradients_pane_ends_as_the_engines_gradients_and_marks_stay(move: str) -> None:
    run = setup(move)
    steps = step_through("pass", run.loss(), module=run.model)
    assert steps.grads is not None
    end = steps.frames[-1]
    assert [held.node for held in end.held] == steps.grads.node_ids()
    for held in end.held:
        assert held.device == steps.grads.device_of(held.node).name
        assert held.shape == tuple(steps.grads.array_of(held.node).shape)
    landed: set[int] = set()
    for frame in steps.frames:
        assert landed <= set(frame.landed), "a node a gradient reached stays marked"
        landed = set(frame.landed)
        assert set(frame.changes.arrived) == set(frame.gradients) or frame.node is None
    every = {e.node for e in steps.trace.events if isinstance(e, Landed)}
    assert set(end.landed) == every


def test_chapter_4s_last_frame_marks_the_parameters_that_got_nothing() -> None:
    moved = setup("to_device")
    held = {moved.model.weight.val().node.id, moved.model.bias.val().node.id}
    steps = step_through("step 0", moved.loss(), module=moved.model)
    end = steps.frames[-1]
    assert set(end.missed) == held, "the moved parameters hold no gradient after step 0"
    assert all(steps.trace.nodes[node].op == "to_device" for node in end.missed)
    assert "hold none" in end.sentence
    assert 'class="stepper-key-missed"' in pick(steps._repr_html_(), "en")
    forked = setup("fork")
    fork_steps = step_through("fork", forked.loss(), module=forked.model)
    assert fork_steps.frames[-1].missed == ()
    key = 'class="stepper-key-missed"'
    assert key not in pick(fork_steps._repr_html_(), "zh_CN"), "the key names only marks the player shows"


def test_the_tape_pane_knows_which_steps_an_earlier_pass_took() -> None:
    _, trace, error = step_1(setup("to_device"))
    assert not trace.nodes[error.node.id].had_step, "step 0 took the moved bias's step"
    assert all(node.had_step for node in trace.nodes.values() if node.id != error.node.id)


def test_predicting_every_pop_of_step_1_ends_at_the_node_it_fails_at() -> None:
    """Exercise 5.1 with Predict: the last pop asked about (a stack of two or more) is the failing one."""
    _, trace, error = step_1(setup("to_device"))
    shown = frames(trace)
    asked = [after for before, after in zip(shown, shown[1:], strict=False)
             if after.changes.popped is not None and len(before.stack) > 1]
    assert asked[-1].changes.popped == error.node.id == asked[-1].node and asked[-1].failed
    for before, after in zip(shown, shown[1:], strict=False):
        if after.changes.popped is not None:
            assert after.changes.popped == before.stack[-1], "the walk pops the top, as Predict explains"


@pytest.mark.parametrize("move", ["to_device", "fork", "step 1"])
def test_the_chinese_frames_say_the_same_moves_in_chinese(move: str) -> None:
    if move == "step 1":
        trace = step_1(setup("to_device"))[1]
    else:
        trace = recorded(setup(move).loss())[0]
    english, chinese = frames(trace, "en"), frames(trace, "zh_CN")
    leaf = words("zh_CN", "stepper")["leaf"]
    assert len(english) == len(chinese)
    for en, zh in zip(english, chinese, strict=True):
        assert (en.node, en.stack, en.line, en.held) == (zh.node, zh.stack, zh.line, zh.held)
        for word in ("Pop ", "Run ", "Start at", "take its step", "Done", " leaf", "gradient "):
            assert word not in zh.sentence, f"English {word!r} in {zh.sentence}"
        assert any("\u4e00" <= char <= "\u9fff" for char in zh.sentence)
        if en.node is not None:
            assert name(trace.nodes[en.node], "zh_CN") in zh.sentence
        assert all(leaf in name(node, "zh_CN") for node in trace.nodes.values() if node.is_leaf)


def test_the_output_carries_each_editions_stepper_and_the_build_keeps_one() -> None:
    moved = setup("to_device")
    steps = step_through("step 0", moved.loss(), module=moved.model)
    page = steps._repr_html_()
    english, chinese = pick(page, "en"), pick(page, "zh_CN")
    assert english.count('class="stepper full-width"') == chinese.count('class="stepper full-width"') == 1
    for frame in steps.frames_in("zh_CN"):
        assert f"<li>{html.escape(frame.sentence)}</li>" in chinese
    said = words("zh_CN", "page")["stepper"]
    assert f">{said['next']}</button>" in chinese
    assert "帧" in said["position"] and "步" not in said["position"], "not 第 1 步, the training step"
    assert "Next step" not in chinese and ">Next step</button>" in english
    data = json.loads(stepper_data_texts(chinese)[0])
    assert [frame["sentence"] for frame in data["frames"]] == [f.sentence for f in steps.frames_in("zh_CN")]


# ----- the player's HTML --------------------------------------------------------------------


def test_the_stepper_output_carries_the_picture_the_controls_the_frame_list_and_the_json() -> None:
    moved = setup("to_device")
    steps = step_through("step 0", moved.loss(), module=moved.model)
    page = steps._repr_html_()
    for button in ("Previous step", "Next step", "Play", "Reset"):
        assert f">{button}</button>" in page
    assert 'aria-live="polite"' in page and "<details" in page
    for frame in steps.frames:
        assert f"<li>{html.escape(frame.sentence)}</li>" in page, "without JavaScript, every frame is listed"
    script = page.split('<script type="application/json" class="stepper-data">')[1].split("</script>")[0]
    data = json.loads(script)
    assert data == json.loads(steps.json()) and data["graph"] == steps.picture.graph_id
    svg = html.unescape(steps.picture.svg())
    for node_id, node in data["nodes"].items():
        assert f'id="{node["element"]}"' in svg, f"NodeId({node_id})'s box carries the id the JSON gives"
    assert steps.grads is not None and steps.error is None


def test_the_players_label_reads_the_title_as_written() -> None:
    """An apostrophe in the title reaches a screen reader as an apostrophe, escaped once, not twice."""
    run = setup("fork")
    steps = step_through("Step 0's backward", run.loss(), module=run.model)
    page = pick(steps._repr_html_(), "en")
    labels = re.findall(r'<div class="stepper-player"[^>]*aria-label="([^"]*)"', page)
    assert [html.unescape(label) for label in labels] == ["Backward pass player: Step 0's backward"]


def test_the_stepper_json_cannot_close_its_script_element() -> None:
    run = setup("fork")
    steps = step_through("a </script> in the title", run.loss(), module=run.model)
    assert "</script>" not in steps.json() and json.loads(steps.json())["title"] == "a </script> in the title"


def test_the_stepper_draws_the_graph_before_the_pass() -> None:
    moved = setup("to_device")
    steps = step_through("step 0", moved.loss(), module=moved.model)
    assert "consumed in backward" not in steps.picture.dot, "nothing was consumed when the picture was drawn"


def test_a_failed_pass_is_a_stepper_not_an_exception() -> None:
    moved = setup("to_device")
    moved.loss().backward()
    steps = step_through("step 1", moved.loss(), module=moved.model)
    assert isinstance(steps.error, TapeConsumedError) and steps.grads is None
    assert steps.frames[-1].failed and "fails with TapeConsumedError" in repr(steps)


def test_a_picture_without_ids_is_refused() -> None:
    trace, _ = recorded(setup("fork").loss())
    with pytest.raises(PictureWithoutIdsError, match="graph.snapshot"):
        Stepper(flowchart(), trace)


def test_two_pictures_of_one_graph_have_distinct_ids_and_one_picture_drawn_twice_the_same() -> None:
    moved = setup("to_device")
    loss = moved.loss()
    before = snapshot("g", module=moved.model, tensors={"loss": loss})
    assert snapshot("g", module=moved.model, tensors={"loss": loss}).graph_id == before.graph_id
    grads = loss.backward()
    after = snapshot("g", module=moved.model, tensors={"loss": loss}, grads=grads)
    assert before.graph_id != after.graph_id
    assert f'id="{before.graph_id}-n{loss.node.id}"' in before.dot
    assert f'id="{after.graph_id}-n{loss.node.id}"' in after.dot


# ----- the figures make bench reports ------------------------------------------------------------


def test_bench_reads_the_page_sizes_and_the_timed_frame_changes(tmp_path: Path, monkeypatch) -> None:
    from bookkit.bench import book as bench

    monkeypatch.setattr(bench, "ROOT", tmp_path)
    monkeypatch.setattr(bench, "STEPPER_TIMING", tmp_path / "timing.json")
    english = tmp_path / "_build" / "html" / "en" / "book"
    monkeypatch.setattr(bench, "EXPLORER_PAGE", english / "08a-explorer.html")
    size, frame, explorer_page = bench.built_book_rows()
    assert size.engine is None and "make build-book" in size.note
    assert frame.engine is None and "make test" in frame.note
    assert explorer_page.engine is None and "make build-book" in explorer_page.note
    (tmp_path / "_build" / "html" / "en" / "book").mkdir(parents=True)
    (tmp_path / "_build" / "html" / "en" / "book" / "04-step-0.html").write_text("x" * 2_000_000)
    (tmp_path / "_build" / "html" / "en" / "book" / "05-step-1.html").write_text("x" * 10)
    bench.STEPPER_TIMING.write_text(json.dumps(
        {"frames": 3, "median_ms": 2.0, "max_ms": 20.0, "chromium": "1", "measured": "today"}))
    size, frame, _ = bench.built_book_rows()
    assert size.engine == 2_000_000 and "04-step-0" in size.name and size.met is False
    assert frame.engine == 0.002 and frame.met is True and "max 20.0 ms" in frame.name


# ----- deterministic -----------------------------------------------------------------------------


def stepper_json_in_a_fresh_process() -> str:
    code = (
        "import sys; sys.path[:0] = ['tests/book', 'tests/helpers']; from test_stepper import setup; "
        "from bookkit.stepper import step_through; m = setup('to_device'); m.loss().backward(); "
        "print(step_through('step 1', m.loss(), module=m.model).json())"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_the_stepper_data_is_byte_identical_in_two_fresh_processes() -> None:
    assert stepper_json_in_a_fresh_process() == stepper_json_in_a_fresh_process()


STEPPER_CHAPTERS = ["04-step-0", "05-step-1", "06-fork"]


def raised(notebook) -> list[tuple[int, str]]:
    """(code cell number, exception name) of every error a notebook's cells show."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    return [(number, output.ename) for number, cell in enumerate(code)
            for output in cell.get("outputs", []) if output.output_type == "error"]


def stepper_outputs(notebook) -> list[str]:
    """The JSON each stepper output of a notebook carries, as text."""
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            page = "".join(output.get("data", {}).get("text/html", ""))
            found += stepper_data_texts(page)[:1]  # it holds each edition's (editions.pick): the first
    return found


@pytest.mark.parametrize("chapter", STEPPER_CHAPTERS)
def test_a_second_execution_of_a_chapter_gives_byte_identical_stepper_data(
        executed_again, chapter: str) -> None:  # noqa: F811 (the fixture)
    from book_outputs import executed

    built = stepper_outputs(executed(chapter))
    assert len(built) == 1, f"{chapter}: expected one stepper in the built notebook, found {len(built)}"
    again = executed_again(chapter)
    assert raised(again) == raised(executed(chapter)), f"{chapter}: the two executions raised differently"
    assert stepper_outputs(again) == built


def test_a_pass_from_a_leaf_is_one_step_and_says_so() -> None:
    run = setup("fork")
    trace, grads = recorded(run.model.bias.val())
    assert [e.node for e in trace.kept()] == grads.node_ids() == [trace.root]
    assert "with 1 step taken;" in frames(trace)[1].sentence


# ----- the marks' contrast -----------------------------------------------------------------------


def test_the_players_marks_reach_3_to_1_on_every_box_and_the_failed_mark_stands_out_from_the_orange() -> None:
    from bookkit.pictures import palette
    from bookkit.stepper import COLOURS

    fills = [palette.NO_FILL, palette.LEAF_FILL, palette.OP_FILL, palette.CONSUMED_OP_FILL,
             palette.MOVED_FILL, palette.CONSUMED_MOVED_FILL, palette.UNTRACKED_FILL, palette.METAL_FILL,
             palette.FLEX_FILL]
    for variable, colour in COLOURS.items():
        if variable.endswith(("-fill", "-dark")):
            continue
        for fill in fills:
            assert contrast(colour, fill) >= 3, f"{variable} {colour} on {fill}: {contrast(colour, fill):.2f}"
    assert contrast(palette.STEPPER_FAILED, palette.STEPPER_FAILED_FILL) >= 3
    assert contrast(palette.STEPPER_FAILED, palette.MOVED) >= 3, "the failing to_device node's own border"
    assert contrast(palette.FAILED, palette.MOVED) < 3, "why the stepper has a failed colour of its own"
    # the dark theme's backgrounds (pydata-sphinx-theme 0.15: page, on-background, surface)
    for dark in ("#14181e", "#222832", "#29313d"):
        assert contrast(palette.CURRENT_STEP_ON_DARK, dark) >= 3, f"the current step's purple on {dark}"
