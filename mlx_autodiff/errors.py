"""Every way to misuse the engine has its own exception type.

Where Burn panics, the message starts with Burn 0.22.1's words, so a reader can
search for them, and then says what Burn does not: what happened and what to do.
Each class also derives from the closest built-in type (ValueError, TypeError,
RuntimeError) so ordinary `except` clauses still work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # node.py imports device.py, which imports this module
    from .node import Node


class AutodiffError(Exception):
    """Base class of every error this engine raises on purpose."""


class TapeConsumedError(AutodiffError, RuntimeError):
    """Backward reached a non-leaf node whose tape step an earlier backward consumed.

    Burn 0.22.1: crates/burn-autodiff/src/runtime/server.rs ("graph tape has
    already been consumed"). `node` is the node found without its step.
    """

    def __init__(self, message: str, node: Node) -> None:
        super().__init__(message)
        self.node = node


class MissingRootStepError(AutodiffError, RuntimeError):
    """The tensor `backward()` was called on has no step left on the tape.

    Burn: crates/burn-autodiff/src/runtime/server.rs ("Node should have a step
    registered"). Typically backward was called twice on the same loss.
    """


class UntrackedBackwardError(AutodiffError, RuntimeError):
    """`backward()` on a tensor with no tracked ancestry (Burn 0.22.1's assertion)."""


class NonLeafRequireGradError(AutodiffError, RuntimeError):
    """`require_grad()` on an op output (Burn: crates/burn-autodiff/src/tensor.rs)."""


class AutodiffMoveError(AutodiffError, RuntimeError):
    """An autodiff tensor moved to a plain device (Burn: crates/burn-dispatch/src/macros.rs)."""


class AlreadyAutodiffError(AutodiffError, RuntimeError):
    """`train()` on a parameter that is already autodiff (Burn: crates/burn-dispatch/src/backend.rs)."""


class DeviceMismatchError(AutodiffError, ValueError):
    """An op between tensors on two different devices."""


class ShapeError(AutodiffError, ValueError):
    """Shapes that an op cannot combine, or a dim that does not exist."""


class DomainError(AutodiffError, ValueError):
    """An op asked for values outside where it is defined (a non-positive base of `k ** x`)."""


class NotADeviceError(AutodiffError, TypeError):
    """Something that is not a Device was given where a Device is needed."""


class InvalidDistributionError(AutodiffError, ValueError):
    """A Distribution whose parameters describe no distribution (lo > hi, ...)."""


class ForeignGradientsError(AutodiffError, ValueError):
    """Gradients given to an optimizer belong to parameters the module does not have."""


class RecordError(AutodiffError, KeyError):
    """A record loaded into a module whose parameter names it does not match."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0])


class EmptyParamError(AutodiffError, ValueError):
    """A `Param` read that holds no tensor and has no initializer to build one: made by hand from a read
    parameter's fields (its initializer is spent once it is read)."""


class NotAModuleError(AutodiffError, TypeError):
    """A module-level function was given something that is not a Module."""


class NonFiniteLossError(AutodiffError, FloatingPointError):
    """A training helper met a NaN or infinite loss and stopped instead of going on."""
