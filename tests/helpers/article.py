"""The expected outcome of every relocation method, once, for every test that checks them.

`EXPECTED` has one entry per method of `methods.SCENARIOS`, in its order,
which chapter 8 runs: the line's label, `is_require_grad()` before training,
the gradient count of each completed step, the error that ended the run, with
its step, and `outcome`, the name `scenarios.RunRecord.outcome` gives that
result. The article's seven are what Burn 0.22.1 printed for each method, one
process each (the article's "七种搬法" output): the tests compare the engine
against this table, so it is written from its sources, never from the engine's
output. A method added to SCENARIOS gets its entry here, after the seven, with
the source of its outcome (`source`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bookkit.runs.scenarios import Outcome
from mlx_autodiff import AutodiffError, TapeConsumedError, UntrackedBackwardError

ARTICLE_OUTPUT = "the article's output (Burn 0.22.1, one process per method)"


@dataclass(frozen=True)
class Expected:
    label: str
    require_grad: bool
    grads: tuple[int, ...]
    """`len(GradientsParams)` of each completed step."""
    error: type[AutodiffError] | None = None
    error_step: int | None = None
    outcome: Outcome = "trains"
    source: str = ARTICLE_OUTPUT
    """Where the expected outcome comes from: the article, or a Burn source file by path."""


FIVE_STEPS = (2, 2, 2, 2, 2)

EXPECTED: dict[str, Expected] = {
    "direct": Expected("built on the GPU", True, FIVE_STEPS),
    "ad-to_device": Expected(
        "flex.autodiff -> to_device", False, (0,), TapeConsumedError, 1, "silent-then-crash"
    ),
    "plain-to_device": Expected(
        "flex -> to_device", False, (), UntrackedBackwardError, 0, "crash-at-step-0"
    ),
    "lazy-to_device": Expected("lazy -> to_device", True, FIVE_STEPS),
    "ad-fork": Expected("flex.autodiff -> fork", True, FIVE_STEPS),
    "plain-fork": Expected("flex -> fork", False, (), UntrackedBackwardError, 0, "crash-at-step-0"),
    "plain-to_device-train": Expected("flex -> to_device.train()", True, FIVE_STEPS),
}
"""Every method chapter 8 runs, in the order of `methods.SCENARIOS`."""

ARTICLE: dict[str, Expected] = {name: e for name, e in EXPECTED.items() if e.source == ARTICLE_OUTPUT}
"""The article's seven, in its order (tests/book/test_seven_methods.py rebuilds each one by hand)."""


# Burn 0.22.1's panic messages, as the article prints them (the engine's messages start with them).
ARTICLE_TAPE_CONSUMED = re.compile(
    r"Cannot run backward: graph tape has already been consumed at NodeId\(\d+\)\. Burn does not "
    r"support retain_graph\. Combine losses before backward or recompute the forward pass\. Use "
    r"detach\(\) only to intentionally sever gradients through the previous computation\.")
ARTICLE_UNTRACKED = ("Tensor::backward requires a tracked autodiff tensor; call "
                     "Tensor::autodiff().require_grad() on the source leaf before computing the output")
