"""Shared test setup: a deterministic Hypothesis profile, and no random state leaking between tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from browser_pages import browser, server, visit  # noqa: F401 (the browser tests' fixtures, shared)
from hypothesis import settings

from mlx_autodiff import device as device_module

# "ci" is the default: no deadline (MLX's first call of an op compiles it, which is slow and
# not the code under test), a moderate number of examples, the same examples on every run,
# and a reproduction blob printed on failure. Choose another with HYPOTHESIS_PROFILE=...
settings.register_profile(
    "ci", deadline=None, max_examples=40, derandomize=True, print_blob=True, database=None
)
settings.register_profile("thorough", deadline=None, max_examples=400, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _restore_device_seeds() -> Iterator[None]:
    """`Device.seed` sets a process-wide key per device; put the keys back after each test."""
    saved = dict(device_module._rng_keys)
    yield
    device_module._rng_keys.clear()
    device_module._rng_keys.update(saved)
