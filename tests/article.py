"""The article's table of the seven relocation methods, once, for every test that checks them.

What Burn 0.22.1 printed for each method, one process each (the article's
"七种搬法" output): the line's label, `is_require_grad()` before training, the
gradient count of each completed step, and the error that ended the run, with
its step. `outcome` is the name `scenarios.RunRecord.outcome` gives that
result. The tests compare the engine against this table, so it is written from
the article, not from the engine's output.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlx_autodiff import AutodiffError, TapeConsumedError, UntrackedBackwardError


@dataclass(frozen=True)
class Expected:
    label: str
    require_grad: bool
    grads: tuple[int, ...]
    """`len(GradientsParams)` of each completed step."""
    error: type[AutodiffError] | None = None
    error_step: int | None = None
    outcome: str = "trains"


FIVE_STEPS = (2, 2, 2, 2, 2)

ARTICLE: dict[str, Expected] = {
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
"""The seven, in the article's order."""
