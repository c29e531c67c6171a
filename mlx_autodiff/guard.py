"""A step-0 guard to drop into a training loop: stop before any training is wasted.

The article's three checks, as code. After moving the model, every parameter
meant to train must be a GRAD leaf. From step 0 on, the gradient count must
equal the number of those parameters; zero means the optimizer will change
nothing, so stop at once. And a "tape consumed" error in a loop with one
backward per step most likely means a `to_device` node (the article: check for
a `to_device` first), not retain_graph.

"Meant to train" is the parameter's stored require_grad flag: `no_grad()`
clears it, so a parameter frozen on purpose is neither checked nor counted.
This engine keeps the flag through `to_device` and `fork` (Burn's snapshot
recomputes it in `Param::map`; see the book's appendix), so a moved parameter
is still checked.
"""

from __future__ import annotations

import math

from .errors import AutodiffError, NonFiniteLossError, TapeConsumedError
from .module import Module, ParamId, check_module
from .node import node_name
from .optim import GradientsParams
from .tensor import Tensor


class NotTrainableError(AutodiffError, RuntimeError):
    """Some parameters of a model about to be trained are not GRAD leaves."""


class MissingGradientsError(AutodiffError, RuntimeError):
    """A step's gradient count is not the number of parameters the guard counted as meant to train."""


def why_not_trainable(model: Module) -> dict[str, str]:
    """For each parameter that is not a GRAD leaf, say what it is instead and how to fix it."""
    model = check_module(model, "why_not_trainable")
    reasons = {}
    for name, param in model.named_params():
        if not param.lazy_is_require_grad():
            continue  # frozen on purpose (`no_grad()` cleared its flag): not meant to train
        tensor = param.val()
        if tensor.is_require_grad():
            continue
        node = tensor.node
        if node is None:
            reasons[name] = (
                f"a plain tensor on {tensor.device.name}: nothing is recorded; "
                "call `.train()` on the model after moving it"
            )
        elif node.is_move:
            reasons[name] = (
                f"the output of `to_device` ({node_name(node.id)}, {node.detail}), not a leaf; "
                "move the model with `fork(device)` instead"
            )
        else:
            reasons[name] = (
                f"{node_name(node.id)} ({node.op}, {node.requirement.value}), not a GRAD leaf; "
                "rebuild it as a leaf with `.detach().require_grad()`"
            )
    return reasons


def assert_trainable(model: Module) -> None:
    """Raise NotTrainableError unless every parameter requires grad (call it right after the move)."""
    reasons = why_not_trainable(model)
    if reasons:
        lines = "\n".join(f"  - {name}: {why}" for name, why in reasons.items())
        raise NotTrainableError(
            f"{len(reasons)} of {model.num_trainable_param_tensors()} trainable parameters will get "
            f"no gradient:\n{lines}"
        )


def check_loss(step: int, value: float) -> None:
    """Stop on a NaN or infinite loss, naming the step (the guard and the scenario runner share it)."""
    if not math.isfinite(value):
        raise NonFiniteLossError(
            f"step {step}: the loss is {value}: training diverged. Lower the learning rate or "
            "check the inputs for NaN or infinite values."
        )


class TrainingGuard:
    """Checks each step of a loop; raises at the first step that cannot train.

    ```
    guard = TrainingGuard(model)            # checks require_grad right away
    for step in range(steps):
        loss = ...; value = loss.into_scalar()
        grads = guard.backward(step, loss, model)   # backward + from_grads + checks
        model = optim.step(lr, model, grads)
    ```
    """

    def __init__(self, model: Module, check_flags: bool = True) -> None:
        self.expected = check_module(model, "TrainingGuard").num_trainable_param_tensors()
        self.backward_calls = 0
        if check_flags:
            assert_trainable(model)

    def check_loss(self, step: int, value: float) -> None:
        """Stop on a NaN or infinite loss, naming the step."""
        check_loss(step, value)

    def check_gradients(self, step: int, grads: GradientsParams, model: Module) -> None:
        """Stop unless the step collected a gradient per parameter the guard counted as meant to train."""
        if len(grads) == self.expected:
            return
        got = set(grads.param_ids())
        missing = [
            name
            for name, param in model.named_params()
            if param.lazy_is_require_grad() and param.id not in got
        ]
        head = f"step {step}: {len(grads)} gradient(s) for {self.expected} trainable parameters"
        if not missing:
            raise MissingGradientsError(self._surplus(head, got, model))
        hint = ""
        reasons = why_not_trainable(model)
        if reasons:
            hint = " Why: " + "; ".join(f"{name}: {why}" for name, why in reasons.items()) + "."
        raise MissingGradientsError(
            f"{head}; no gradient for {', '.join(missing)}. The optimizer would change nothing for them."
            f"{hint}"
        )

    def _surplus(self, head: str, got: set[ParamId], model: Module) -> str:
        """Why the count is off though every parameter meant to train got its gradient (`got`: the ids of
        those that have one): the model changed since the guard was made, a parameter flagged frozen still
        tracks (only the private `Param._with` makes one), or the gradients are not this model's (another
        model's, or a parameter held twice)."""
        now = model.num_trainable_param_tensors()
        if now != self.expected:
            return (f"{head}, the count when the guard was made; the model has {now} trainable parameters "
                    "now. Make the guard from the model you train, after moving or freezing it.")
        tracked = [name for name, param in model.named_params()
                   if param.id in got and not param.lazy_is_require_grad()]
        if tracked:
            return (f"{head}; {', '.join(tracked)} got one though its stored flag says frozen. Freeze "
                    "a parameter with `no_grad()`, which makes its tensor an untracked leaf too.")
        return (f"{head}, yet none is missing: they are not one per parameter this model holds. Collect "
                "them with `GradientsParams.from_grads(loss.backward(), model)` for the model you check, "
                "and hold each parameter in one place only.")

    def backward(self, step: int, loss: object, model: Module) -> GradientsParams:
        """Run `loss.backward()`, collect GradientsParams, and check loss and counts."""
        if not isinstance(loss, Tensor):
            raise TypeError(f"TrainingGuard.backward expects the loss Tensor, got {type(loss).__name__}.")
        self.check_loss(step, loss.into_scalar())
        self.backward_calls += 1
        try:
            grads = GradientsParams.from_grads(loss.backward(), model)
        except TapeConsumedError as error:
            advice = explain_tape_consumed(error, self.backward_calls, step)
            raise TapeConsumedError(advice, error.node) from error
        self.check_gradients(step, grads, model)
        return grads


def explain_tape_consumed(error: TapeConsumedError, backward_calls: int, step: int) -> str:
    """Add the article's advice: one backward per step and a consumed node means `to_device`."""
    node = error.node
    advice = (
        f"\n\nGuard: step {step}, backward call #{backward_calls} of this loop, one per step. "
        "With one backward per step, a consumed node is one the steps share: "
    )
    if node.is_move:
        advice += f"here the model's parameter '{node.label}' is a `to_device` output. Use `fork`."
    else:
        advice += "look for a tensor computed once, before the loop, and reused in every step."
    return f"{error}{advice}"
