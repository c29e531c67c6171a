"""The test tiers: a test that builds the book, opens a browser or executes chapters is never fast.

tests/conftest.py marks each test by the costly fixtures it asks for
(`FIXTURE_MARKS`). These tests look at the tests of the run they are in: each
one that needs such a fixture carries its marks, whatever its file says, and
the marks are there before `-m` chooses (so `make test-fast` leaves it out).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import FIXTURE_MARKS

TESTS = Path(__file__).resolve().parent


def test_every_costly_fixture_is_one_the_tests_define() -> None:
    """A fixture renamed without its entry would let its tests into the fast tier."""
    defined = {name for path in TESTS.glob("*.py") for name in re.findall(
        r"@pytest\.fixture[^\n]*\n(?:@[^\n]*\n)*def (\w+)\(", path.read_text(encoding="utf8"))}
    assert sorted(set(FIXTURE_MARKS) - defined) == []


def test_every_test_that_needs_a_costly_fixture_carries_its_marks(request: pytest.FixtureRequest) -> None:
    unmarked = []
    for item in request.session.items:
        wanted = {mark for name in item.fixturenames for mark in FIXTURE_MARKS.get(name, ())}
        missing = sorted(mark for mark in wanted if item.get_closest_marker(mark) is None)
        if missing:
            unmarked.append(f"{item.nodeid}: {', '.join(missing)}")
    assert not unmarked, "\n".join(unmarked)


def test_the_fast_tier_runs_no_costly_fixture(request: pytest.FixtureRequest) -> None:
    """In `-m "not slow"` (make test-fast), nothing chosen builds, browses or executes."""
    if request.config.getoption("markexpr") != "not slow":
        pytest.skip("only the fast tier's run (-m 'not slow') can show what it chose")
    chosen = [item.nodeid for item in request.session.items
              if set(item.fixturenames) & set(FIXTURE_MARKS)
              or any(item.get_closest_marker(mark) for mark in ("slow", "book", "browser", "executed"))]
    assert not chosen, "\n".join(chosen)
