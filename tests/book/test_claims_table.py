"""The engine's column of the "who says what" appendix (book/a5-who-says-what.md), one test per row.

Each row of that table says what the article showed of Burn 0.22.1, what Burn's source
snapshot says, and what this engine does, and names the test here that pins the engine's
column. These tests run the engine directly (no book build), so they are fast; the last
test checks that every row names one of them and that each of them has its row.
"""

from __future__ import annotations

import re
from pathlib import Path

import mlx.core as mx
import pytest
from article import ARTICLE_TAPE_CONSUMED, ARTICLE_UNTRACKED

from bookkit.runs.methods import TARGET
from bookkit.runs.scenarios import COMBINATIONS, SCENARIOS, initialized, run, run_isolated
from mlx_autodiff import (
    AdamConfig,
    AlreadyAutodiffError,
    AutodiffMoveError,
    Device,
    Distribution,
    GradientsParams,
    LinearConfig,
    MseLoss,
    Reduction,
    Requirement,
    TapeConsumedError,
    Tensor,
    UntrackedBackwardError,
)
from mlx_autodiff.guard import NotTrainableError, assert_trainable

PAGE = Path(__file__).resolve().parents[2] / "book" / "a5-who-says-what.md"

FLEX, METAL = Device.flex(), Device.metal().autodiff()


@pytest.fixture(autouse=True)
def seeded():
    FLEX.seed(0)
    METAL.seed(0)


def data() -> tuple[Tensor, Tensor]:
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), METAL)
    return x, x.sum_dim(1)


def gradient_counts(model, steps: int = 2) -> list[int]:
    """The article's loop: the number of gradients each step collects (raises what the engine raises)."""
    x, y = data()
    optim, counts = AdamConfig().init(), []
    for _ in range(steps):
        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
        grads = GradientsParams.from_grads(loss.backward(), model)
        counts.append(len(grads))
        model = optim.step(1e-1, model, grads)
    return counts


def test_row_lazy_move():
    moved = LinearConfig(4, 1).init(FLEX.autodiff()).to_device(METAL)
    assert [p.is_initialized() for p in moved.params()] == [False, False], "the move must not read"
    assert all(p.device == METAL for p in moved.params())
    for param in moved.params():
        tensor = param.val()
        assert tensor.device == METAL and tensor.is_require_grad() and tensor.node.op == "leaf"


def test_row_recorded_move():
    source = initialized(FLEX.autodiff())
    moved = source.to_device(METAL)
    for before, after in zip(source.params(), moved.params(), strict=True):
        node = after.val().node
        assert node.op == "to_device" and node.requirement is Requirement.GRAD_IN_BACKWARD
        assert node.parents == (before.val().node,)
        assert after.is_require_grad() is False


def test_row_from_grads():
    moved = initialized(FLEX.autodiff()).to_device(METAL)
    x, y = data()
    loss = MseLoss().forward(moved.forward(x), y, Reduction.MEAN)
    assert len(GradientsParams.from_grads(loss.backward(), moved)) == 0


def test_row_flag_plain_move():
    moved = initialized(FLEX).to_device(METAL)
    assert [p.val().node for p in moved.params()] == [None, None], "a plain tensor stays plain"
    assert all(p.lazy_is_require_grad() for p in moved.params()), "the stored flag is kept"
    trained = moved.train()
    assert all(p.is_require_grad() for p in trained.params())
    assert gradient_counts(trained) == [2, 2]


def test_row_flag_plain_fork():
    forked = initialized(FLEX).fork(METAL)
    assert [p.val().node for p in forked.params()] == [None, None], "a plain tensor stays plain"
    flags = [(p.lazy_is_require_grad(), p.is_require_grad()) for p in forked.params()]
    assert flags == [(True, False)] * 2, "the stored flag is kept; the tensor does not require grad"
    with pytest.raises(NotTrainableError):
        assert_trainable(forked)
    assert gradient_counts(forked.train()) == [2, 2]
    explored = COMBINATIONS[("flex", True, "fork then train()")]
    assert run(explored, steps=2).outcome == "trains", "the explorer trains it, as chapter 8.9 says"


def test_row_flag_autodiff_move():
    moved = initialized(FLEX.autodiff()).to_device(METAL)
    assert [(p.lazy_is_require_grad(), p.is_require_grad()) for p in moved.params()] == [(True, False)] * 2
    frozen = initialized(METAL).no_grad()
    assert [p.lazy_is_require_grad() for p in frozen.params()] == [False, False]


def test_row_valid_train():
    model = initialized(FLEX.autodiff())
    plain = model.valid()
    assert [p.val().node for p in plain.params()] == [None, None], "valid() strips autodiff"
    assert all(p.lazy_is_require_grad() for p in plain.params()), "and keeps the flag"
    back = plain.train()
    for before, after in zip(model.params(), back.params(), strict=True):
        assert after.is_require_grad() and after.val().node.id != before.val().node.id
    with pytest.raises(AlreadyAutodiffError, match=r"^Autodiff should not wrap an autodiff tensor\."):
        model.train()


def test_row_fork_condition():
    forked = initialized(FLEX.autodiff()).fork(METAL)
    assert all(p.is_require_grad() and not p.val().node.parents for p in forked.params()), "fresh leaves"
    plain = initialized(FLEX).fork(METAL)
    assert plain.weight.val().node is None, "a plain parameter stays plain"
    moved_then_forked = initialized(FLEX.autodiff()).to_device(METAL).fork(METAL)
    assert [p.val().node.requirement for p in moved_then_forked.params()] == [Requirement.NONE] * 2


def test_row_same_device():
    """The claim of chapter 11: 0 gradients at step 0, the tape-consumed error at step 1."""
    home = initialized(METAL)
    again = home.to_device(METAL)
    for before, after in zip(home.params(), again.params(), strict=True):
        node = after.val().node
        assert node.op == "to_device" and node.parents == (before.val().node,)
        assert node.parents[0].device == METAL
    record = run(COMBINATIONS[("metal.autodiff", True, "to_device")])
    assert [step.grads for step in record.steps] == [0]
    assert (record.error.type, record.error.step) == ("TapeConsumedError", 1)
    assert record.outcome == "silent-then-crash"
    forked = run(COMBINATIONS[("metal.autodiff", True, "fork")])
    assert [step.grads for step in forked.steps] == [2] * 5


def test_row_between_backends():
    leaf = Tensor.random([4, 1], Distribution.uniform(-1.0, 1.0), FLEX.autodiff()).require_grad()
    moved = leaf.to_device(METAL)
    assert moved.node.op == "to_device" and moved.device == METAL
    assert moved.node.parents[0].device == FLEX.autodiff()
    grads = moved.sum().backward()
    assert grads.get(leaf) is not None, "the gradient goes back through the move"


def test_row_to_plain_device():
    words = r"^Cannot move between autodiff and non-autodiff instances\."
    with pytest.raises(AutodiffMoveError, match=words):
        initialized(FLEX.autodiff()).to_device(METAL.inner())


def test_row_mixed_op():
    x, y = data()
    plain_model = initialized(FLEX).to_device(METAL)
    loss = MseLoss().forward(plain_model.forward(x), y, Reduction.MEAN)
    assert loss.node.requirement is Requirement.NONE


def test_row_tape_consumed():
    with pytest.raises(TapeConsumedError) as caught:
        gradient_counts(initialized(FLEX.autodiff()).to_device(METAL))
    assert ARTICLE_TAPE_CONSUMED.match(str(caught.value)), str(caught.value)
    node = caught.value.node
    assert node.op == "to_device" and node.requirement is Requirement.GRAD_IN_BACKWARD, (
        "the error is raised at a consumed non-leaf node")


def test_row_untracked_backward():
    with pytest.raises(UntrackedBackwardError) as caught:
        gradient_counts(initialized(FLEX).fork(METAL))
    assert str(caught.value).startswith(ARTICLE_UNTRACKED)


def test_row_node_counter():
    a = Tensor.ones([2], FLEX.autodiff())
    plain = Tensor.ones([2], FLEX)
    b = Tensor.ones([2], METAL)
    assert plain.node is None
    assert b.node.id == a.node.id + 1, "one counter, shared by devices; a plain tensor takes no id"
    fresh = run_isolated("ad-to_device", steps=2)
    assert "graph tape has already been consumed at NodeId(3)" in fresh.error.message


def test_row_bytes():
    leaf = Tensor.ones([2], FLEX.autodiff()).require_grad()
    moved = leaf.to_device(METAL)
    assert moved.array is leaf.array, "the same MLX array: nothing is copied"
    assert moved.device == METAL and (moved * 2.0).device == METAL, "later ops run on the target"
    assert mx.array_equal(leaf.to_device(METAL).array, leaf.array).item()


def test_row_consumed_elsewhere():
    """A case the article does not run: two backward passes in one step (gradient accumulation)."""
    model = initialized(FLEX.autodiff()).to_device(METAL)
    x, y = data()
    MseLoss().forward(model.forward(x), y, Reduction.MEAN).backward()
    with pytest.raises(TapeConsumedError) as caught:
        MseLoss().forward(model.forward(x), y, Reduction.MEAN).backward()
    assert ARTICLE_TAPE_CONSUMED.match(str(caught.value)), str(caught.value)
    assert caught.value.node.requirement is Requirement.GRAD_IN_BACKWARD


def test_row_direct_unread():
    """Built unread; `run` reads `model.weight.is_require_grad()` before the data, a forward pass the bias."""
    direct = SCENARIOS["direct"]
    assert direct.read_first is False
    assert [p.is_initialized() for p in direct.build().params()] == [False, False]

    def first_loss(weight_before_data: bool) -> tuple[list[bool], float]:
        Device.flex().seed(0)
        Device.metal().seed(0)
        model = direct.build()
        if weight_before_data:
            model.weight.is_require_grad()
        TARGET.seed(1)
        x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), TARGET)
        built = [p.is_initialized() for p in model.params()]
        return built, MseLoss().forward(model.forward(x), x.sum_dim(1), Reduction.MEAN).into_scalar()

    built, loss = first_loss(weight_before_data=True)
    assert built == [True, False], "the weight is built before the data are drawn, the bias after"
    assert run("direct", steps=1).steps[0].loss == loss, "run builds them in that order"
    assert first_loss(weight_before_data=False)[1] != loss, "the order shows in the first loss"


def test_row_seeds():
    def weights() -> list:
        FLEX.seed(0)
        return initialized(FLEX).weight.val().array.tolist()

    assert weights() == weights(), "the same seed, the same initial weights"


def table_rows() -> list[list[str]]:
    """The rows of the page's table (its one Markdown table), each a list of cells, header dropped."""
    lines = [line for line in PAGE.read_text("utf8").splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip().strip("|").split(" | ")] for line in lines[2:]]


def test_every_row_names_a_test_here_and_every_test_has_a_row():
    rows = table_rows()
    tests = {name for name in globals() if name.startswith("test_row_")}
    named = []
    for row in rows:
        assert len(row) == 5, f"behaviour, article, snapshot, engine, test: {row}"
        behaviour, article, snapshot, engine, test = row
        assert article and snapshot and engine, f"a column is empty in the row {behaviour!r}"
        found = re.fullmatch(r"`(test_row_\w+)`", test)
        assert found, f"the row {behaviour!r} must name its test as `test_row_...`: {test!r}"
        named.append(found.group(1))
    assert sorted(named) == sorted(tests), "one row per test_row_ test of this file, and the other way round"


BOOK = PAGE.parent
RETIRED = {
    "one release before": "the snapshot is 0.22.0-pre.2, with at least 0.22.0 before 0.22.1",
    "just before 0.22.1": "the snapshot is 0.22.0-pre.2, with at least 0.22.0 before 0.22.1",
    "its sources are silent on": "Burn's source says how the bytes move (burn-cubecl's to_device)",
    "counts every tensor the chapter": "plain tensors take no node id",
    "the advice in its message is written for this case": "no source says which case Burn's authors meant",
    "Both say that a state kept per parameter": "only the snapshot keeps the state per parameter",
    "unless `retain_graph=True` is passed": "retain_graph defaults to create_graph's value",
    "`p.to(device).detach().requires_grad_()`": "fork asks for gradients only if the original did",
}


@pytest.mark.parametrize("phrase", RETIRED)
def test_no_page_repeats_a_sentence_the_sources_contradict(phrase):
    """Sentences corrected against the article and the snapshot (issue 19) stay corrected."""
    pages = {path.name: " ".join(path.read_text("utf8").split()) for path in sorted(BOOK.glob("*.md"))}
    found = [name for name, text in pages.items() if phrase in text]
    assert not found, f"{phrase!r} is back in {found}: {RETIRED[phrase]}"
