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

import math
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
            if param_id not in moments:
                moments[param_id] = (mx.zeros_like(grad), mx.zeros_like(grad), 0)
            moment_1, moment_2, time = moments[param_id]
            time += 1
            # the step's numbers, computed on the host as Burn's `AdaptiveMomentum::transform` does
            bias_correction2_sqrt = math.sqrt(1 - self.beta_2**time)
            combined_factor = bias_correction2_sqrt / (1 - self.beta_1**time)
            numbers = (combined_factor, self.epsilon * bias_correction2_sqrt, lr)
            if mx.default_device() == mx.gpu:  # the fused step takes them as arrays: traced once
                values, moment_1, moment_2 = _adam_fused(values, grad, moment_1, moment_2, self.beta_1,
                                                         self.beta_2, *map(mx.array, numbers))
            else:  # as Python numbers, which MLX multiplies in without an array made for each
                values, moment_1, moment_2 = _adam(values, grad, moment_1, moment_2, self.beta_1,
                                                   self.beta_2, *numbers)
            moments[param_id] = (moment_1, moment_2, time)
            return values

        return Optimizer(update)


def _adam(
    values: mx.array, grad: mx.array, moment_1: mx.array, moment_2: mx.array, beta_1: float, beta_2: float,
    combined_factor: mx.array | float, epsilon_corrected: mx.array | float, lr: mx.array | float,
) -> tuple[mx.array, mx.array, mx.array]:
    """One parameter's Adam step: the new values and moments (Burn: adam.rs, `step` and
    `AdaptiveMomentum::transform`, without weight decay or amsgrad).

    Zero moments on the first step give exactly Burn's first-step moments,
    `grad * (1 - beta)`. The step's numbers come to the fused version below as
    arrays, so that it is traced once: `mx.compile` traces a function again for
    every new Python number (https://ml-explore.github.io/mlx/build/html/usage/compile.html).
    """
    moment_1 = moment_1 * beta_1 + grad * (1 - beta_1)
    moment_2 = moment_2 * beta_2 + mx.square(grad) * (1 - beta_2)
    update = moment_1 * combined_factor / (mx.sqrt(moment_2) + epsilon_corrected)
    return values - update * lr, moment_1, moment_2


_adam_fused = mx.compile(_adam)
"""The same step as one GPU kernel: on the article's small model, scheduling a dozen elementwise ops
costs more than their arithmetic. Only on the GPU, whose kernels MLX builds in memory: on the CPU,
MLX 0.32.4 compiles into a shared library in the temporary folder, written in place and loaded if
present (mlx/backend/cpu/compiled.cpp, `compile`), so two processes compiling it at once (the book's
chapters run side by side) could load a half-written one."""


@dataclass(frozen=True)
class SgdConfig:
    """Plain gradient descent: `values - lr * grad`."""

    def init(self) -> Optimizer:
        return Optimizer(lambda _id, values, grad, lr: values - lr * grad)
