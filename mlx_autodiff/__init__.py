"""mlx_autodiff: a small tape autodiff on MLX that behaves like Burn 0.22.1.

The map from each module to its Burn counterpart is in README.md.
"""

from .device import Device, accelerator_backend
from .errors import (
    AlreadyAutodiffError,
    AutodiffError,
    AutodiffMoveError,
    DeviceMismatchError,
    DomainError,
    EmptyParamError,
    ForeignGradientsError,
    InvalidDistributionError,
    MissingRootStepError,
    NonFiniteLossError,
    NonLeafRequireGradError,
    NotADeviceError,
    NotAModuleError,
    RecordError,
    ShapeError,
    TapeConsumedError,
    UntrackedBackwardError,
)
from .module import Module, Param, ParamId
from .nn import Linear, LinearConfig, MseLoss, Reduction
from .node import Node, Requirement
from .optim import AdamConfig, GradientsParams, Optimizer, SgdConfig
from .tensor import Distribution, Gradients, Tensor

__all__ = [
    "AdamConfig",
    "AlreadyAutodiffError",
    "AutodiffError",
    "AutodiffMoveError",
    "Device",
    "DeviceMismatchError",
    "Distribution",
    "DomainError",
    "EmptyParamError",
    "ForeignGradientsError",
    "Gradients",
    "GradientsParams",
    "InvalidDistributionError",
    "Linear",
    "LinearConfig",
    "MissingRootStepError",
    "Module",
    "MseLoss",
    "Node",
    "NonFiniteLossError",
    "NonLeafRequireGradError",
    "NotADeviceError",
    "NotAModuleError",
    "Optimizer",
    "Param",
    "ParamId",
    "RecordError",
    "Reduction",
    "Requirement",
    "SgdConfig",
    "ShapeError",
    "TapeConsumedError",
    "Tensor",
    "UntrackedBackwardError",
    "accelerator_backend",
]
