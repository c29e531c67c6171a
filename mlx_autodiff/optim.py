"""From a backward pass to updated parameters: GradientsParams, Adam, SGD.

Burn: crates/burn-optim/src/optim/grads.rs and visitor.rs (`GradientsParams`),
crates/burn-optim/src/optim/adam.rs, sgd.rs, and
crates/burn-optim/src/optim/module/module_optimizer.rs (the per-parameter step).

Two rules matter for the book. `from_grads` only looks at parameters that are
GRAD leaves, by their current node id: a parameter that is a `to_device`
output is skipped, and its gradient, sitting on the original leaf, is never
found. And a parameter with no gradient comes back from `step` untouched, the
same tensor with the same node, so a model that got zero gradients keeps the
very nodes whose steps the last backward consumed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mlx.core as mx

from .errors import ForeignGradientsError
from .module import Module, Param, ParamId, check_module
from .tensor import Gradients, Tensor

UpdateRule = Callable[[ParamId, mx.array, mx.array, float], mx.array]
"""(param id, values, gradient, learning rate) -> new values."""


class GradientsParams:
    """Gradients keyed by `ParamId`, ready for an optimizer step."""

    def __init__(self) -> None:
        self._grads: dict[ParamId, Tensor] = {}

    @staticmethod
    def from_grads(grads: Gradients, module: Module) -> GradientsParams:
        """Collect each GRAD parameter's gradient from `grads`; skip every other parameter."""
        if not isinstance(grads, Gradients):
            raise TypeError(
                f"GradientsParams.from_grads expects the Gradients returned by backward(), "
                f"got {type(grads).__name__}."
            )
        module = check_module(module, "GradientsParams.from_grads")
        out = GradientsParams()
        for param in module.params():
            if not param.is_require_grad():
                continue
            grad = grads.remove(param.val())
            if grad is not None:
                out._grads[param.id] = grad
        return out

    def get(self, param_id: ParamId) -> Tensor | None:
        return self._grads.get(param_id)

    def remove(self, param_id: ParamId) -> Tensor | None:
        return self._grads.pop(param_id, None)

    def copy(self) -> GradientsParams:
        """A shallow copy: the same gradient tensors, its own table."""
        copied = GradientsParams()
        copied._grads = dict(self._grads)
        return copied

    def param_ids(self) -> list[ParamId]:
        return list(self._grads)

    def __len__(self) -> int:
        return len(self._grads)

    def __repr__(self) -> str:
        return f"GradientsParams(len={len(self)})"


class Optimizer:
    """Applies an update rule to every parameter that has a gradient."""

    def __init__(self, update: UpdateRule) -> None:
        self._update = update

    def step(self, lr: float, module: Module, grads: GradientsParams) -> Module:
        """Return the updated module: untouched params as they were, updated ones as fresh leaves."""
        module = check_module(module, "optimizer.step")
        if not isinstance(grads, GradientsParams):
            raise TypeError(
                f"optimizer.step expects GradientsParams (from GradientsParams.from_grads), "
                f"got {type(grads).__name__}."
            )
        remaining = grads.copy()
        updated = module.map_params(lambda param: self._step_param(lr, param, remaining))
        if len(remaining):
            raise ForeignGradientsError(
                f"{len(remaining)} gradient(s) belong to parameters this module does not have "
                f"({', '.join(map(repr, remaining.param_ids()))}). Build the GradientsParams "
                "from the same module you step: GradientsParams.from_grads(grads, model)."
            )
        return updated

    def _step_param(self, lr: float, param: Param, grads: GradientsParams) -> Param:
        grad = grads.remove(param.id)
        if grad is None:
            return param
        tensor = param.val()
        device = grad.device.autodiff() if tensor.is_autodiff else grad.device
        values = self._update(param.id, tensor.array, grad.array, lr)
        return param._with(Tensor._leaf(values, device, "optimizer", require_grad=tensor.is_require_grad()))


@dataclass(frozen=True)
class AdamConfig:
    """Burn's Adam defaults: beta1 0.9, beta2 0.999, epsilon 1e-5, bias correction on."""

    beta_1: float = 0.9
    beta_2: float = 0.999
    epsilon: float = 1e-5

    def init(self) -> Optimizer:
        moments: dict[ParamId, tuple[mx.array, mx.array, int]] = {}

        def update(param_id: ParamId, values: mx.array, grad: mx.array, lr: float) -> mx.array:
            state = moments.get(param_id)
            m, v, t = state if state is not None else (mx.zeros_like(grad), mx.zeros_like(grad), 0)
            m = self.beta_1 * m + (1 - self.beta_1) * grad
            v = self.beta_2 * v + (1 - self.beta_2) * grad * grad
            t += 1
            moments[param_id] = (m, v, t)
            m_hat = m / (1 - self.beta_1**t)
            v_hat = v / (1 - self.beta_2**t)
            return values - lr * m_hat / (mx.sqrt(v_hat) + self.epsilon)

        return Optimizer(update)


@dataclass(frozen=True)
class SgdConfig:
    """Plain gradient descent: `values - lr * grad`."""

    def init(self) -> Optimizer:
        return Optimizer(lambda _id, values, grad, lr: values - lr * grad)
