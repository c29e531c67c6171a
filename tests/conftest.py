"""Shared test setup: the tiers, `make test`'s worker groups, a deterministic Hypothesis profile, no
random state leaking between tests.

The tiers come from the fixtures a test asks for (directly, through another
fixture, or with `usefixtures`): `FIXTURE_MARKS` says what each costly fixture
stands for, and every test that needs one gets its marks, so no test can leak
into the fast tier (`make test-fast`, `-m "not slow"`) by forgetting one.
`-m book`, `-m browser` and `-m executed` pick the others (README: *Tests*).
`make test` shares the tests among pytest-xdist workers; `worker_groups` says which
tests one worker runs together (tests/setup/test_tiers.py checks it).
Nothing here imports Sphinx, myst-nb or Playwright: the tests that need them do.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings
from tiers import FIXTURE_MARKS, worker_groups

from mlx_autodiff import device as device_module

# "ci" is the default: no deadline (MLX's first call of an op compiles it, which is slow and
# not the code under test), a moderate number of examples, the same examples on every run,
# and a reproduction blob printed on failure. Choose another with HYPOTHESIS_PROFILE=...
settings.register_profile(
    "ci", deadline=None, max_examples=40, derandomize=True, print_blob=True, database=None
)
settings.register_profile("thorough", deadline=None, max_examples=400, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: the marks must be there when it looks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marks = {mark for name in getattr(item, "fixturenames", ()) for mark in FIXTURE_MARKS.get(name, ())}
        for mark in sorted(marks):
            item.add_marker(mark)
    for item, name in worker_groups(items).items():
        item.add_marker(pytest.mark.xdist_group(name))


@pytest.fixture(autouse=True)
def _restore_device_seeds() -> Iterator[None]:
    """`Device.seed` sets a process-wide key per device; put the keys back after each test."""
    saved = dict(device_module._rng_keys)
    yield
    device_module._rng_keys.clear()
    device_module._rng_keys.update(saved)
