"""The article's seven ways to put a Linear(4, 1) on the accelerator, and what each one does.

The recipes are written here, independently of `bookkit.runs.scenarios` (only
its `initialized`, the article's helper, is shared), so a mistake there cannot
hide a mistake in the engine. The expected outcomes are the article's table
(tests/helpers/article.py: Burn 0.22.1's printed output), not this engine's.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from article import ARTICLE

from bookkit.runs.methods import initialized
from mlx_autodiff import (
    AdamConfig,
    Device,
    Distribution,
    GradientsParams,
    LinearConfig,
    Module,
    MseLoss,
    Reduction,
    TapeConsumedError,
    Tensor,
    UntrackedBackwardError,
)

FLEX = Device.flex()
METAL = Device.metal().autodiff()


RECIPES: dict[str, Callable[[], Module]] = {
    "direct": lambda: LinearConfig(4, 1).init(METAL),
    "ad-to_device": lambda: initialized(FLEX.autodiff()).to_device(METAL),
    "plain-to_device": lambda: initialized(FLEX).to_device(METAL),
    "lazy-to_device": lambda: LinearConfig(4, 1).init(FLEX.autodiff()).to_device(METAL),
    "ad-fork": lambda: initialized(FLEX.autodiff()).fork(METAL),
    "plain-fork": lambda: initialized(FLEX).fork(METAL),
    "plain-to_device-train": lambda: initialized(FLEX).to_device(METAL).train(),
}


@dataclass
class Run:
    require_grad: bool
    losses: list[float] = field(default_factory=list)
    grads: list[int] = field(default_factory=list)
    error: Exception | None = None
    error_step: int | None = None
    models: list[Module] = field(default_factory=list)
    """The model before each step, and after the last completed one."""


def train(name: str, steps: int = 5) -> Run:
    """The article's loop: 5 Adam steps on y = x.sum_dim(1), stopping at the first error."""
    model = RECIPES[name]()
    run = Run(require_grad=model.weight.is_require_grad())
    METAL.seed(1)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), METAL)
    y = x.sum_dim(1)
    optim = AdamConfig().init()
    for step in range(steps):
        run.models.append(model)
        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
        value = loss.into_scalar()
        try:
            grads = GradientsParams.from_grads(loss.backward(), model)
        except (TapeConsumedError, UntrackedBackwardError) as error:
            run.error, run.error_step = error, step
            return run
        run.losses.append(value)
        run.grads.append(len(grads))
        model = optim.step(1e-1, model, grads)
    run.models.append(model)
    return run


def test_the_recipes_are_the_articles_seven() -> None:
    assert list(RECIPES) == list(ARTICLE)


@pytest.mark.parametrize("name", list(RECIPES))
def test_each_method_has_the_articles_outcome(name: str) -> None:
    expected, run = ARTICLE[name], train(name)
    assert run.require_grad is expected.require_grad
    assert run.grads == list(expected.grads)
    assert all(math.isfinite(loss) for loss in run.losses)
    if expected.error is None:
        assert run.error is None, f"{name} should train, got {run.error!r}"
        assert run.losses[-1] < run.losses[0], "five Adam steps should lower the loss"
    else:
        assert type(run.error) is expected.error
        assert run.error_step == expected.error_step


def test_ad_to_device_changes_nothing_at_step_0_and_crashes_at_the_bias_to_device_node() -> None:
    run = train("ad-to_device")
    before, after = run.models
    for old, new in zip(before.params(), after.params(), strict=True):
        assert new.val() is old.val(), "no gradient reached the optimizer, so it changed nothing"
    error = run.error
    assert isinstance(error, TapeConsumedError)
    assert error.node is after.bias.val().node
    assert error.node.op == "to_device" and error.node.label == "bias"
    assert error.node.detail == "flex.autodiff to metal.autodiff"
    assert f"consumed at NodeId({error.node.id})." in str(error)


SCRIPT = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/../helpers"]
from test_seven_methods import train
run = train(sys.argv[2])
error = run.error
print(json.dumps({
    "require_grad": run.require_grad,
    "grads": run.grads,
    "error": type(error).__name__ if error else None,
    "error_step": run.error_step,
    "message": str(error) if error else None,
    "node": [error.node.id, error.node.op, error.node.label] if hasattr(error, "node") else None,
}))
"""


@pytest.mark.parametrize("name", list(RECIPES))
def test_each_method_in_a_fresh_process(name: str) -> None:
    """Node ids count from 0 per process, so only a fresh process shows the article's `NodeId(3)`."""
    tests = Path(__file__).resolve().parent
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tests), name],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    expected = ARTICLE[name]
    assert result["require_grad"] is expected.require_grad
    assert result["grads"] == list(expected.grads)
    assert result["error"] == (expected.error.__name__ if expected.error else None)
    assert result["error_step"] == expected.error_step
    if name == "ad-to_device":
        assert result["message"].startswith(
            "Cannot run backward: graph tape has already been consumed at NodeId(3). "
        )
        assert result["node"] == [3, "to_device", "bias"]
