"""The article's `initialized(device)` for the engine's tests, which import nothing of the book.

bookkit/runs/methods.py has the same helper for chapter 8's runs; the engine tier keeps its own
copy so that it runs with MLX, pytest and hypothesis only (tests/engine/test_engine_alone.py).
"""

from __future__ import annotations

from mlx_autodiff.device import Device
from mlx_autodiff.nn import Linear, LinearConfig


def initialized(device: Device, d_input: int = 4, d_output: int = 1) -> Linear:
    """A Linear built on `device` whose parameters were read once, as after loading a file: the lazy
    parameters are built then, on `device`, so a later move has tensors to move."""
    model = LinearConfig(d_input, d_output).init(device)
    for param in model.params():
        param.val()
    return model
