"""The test tiers: a test that builds the book, opens a browser or executes chapters is never fast;
and `make test`'s worker groups: what shares a fixture or a page runs in one worker.

tests/conftest.py marks each test by the costly fixtures it asks for
(`FIXTURE_MARKS`). These tests look at the tests of the run they are in: each
one that needs such a fixture carries its marks, whatever its file says, and
the marks are there before `-m` chooses (so `make test-fast` leaves it out).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tiers import FIXTURE_MARKS, shared_fixtures

TESTS = Path(__file__).resolve().parents[1]


def test_every_costly_fixture_is_one_the_tests_define() -> None:
    """A fixture renamed without its entry would let its tests into the fast tier."""
    defined = {name for path in TESTS.rglob("*.py") for name in re.findall(
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


def group_of(item: pytest.Item) -> str | None:
    """The test's group as pytest-xdist names it: every `xdist_group` of the test, joined."""
    names = {mark.args[0] if mark.args else mark.kwargs.get("name", "default")
             for mark in item.iter_markers("xdist_group")}
    return "_".join(sorted(names)) or None


def test_the_looking_checks_of_one_page_run_in_one_worker(request: pytest.FixtureRequest) -> None:
    """`make test`'s workers (pytest-xdist, `--dist loadgroup`): every check that reads a page's
    `checked_page` facts shares the page's group, so the page is opened once per width and edition in
    a run, not once in each worker."""
    pages: dict[tuple[str, str], set[str | None]] = {}
    for item in request.session.items:
        if "checked_page" in item.fixturenames:
            params = item.callspec.params
            pages.setdefault((params.get("language", "en"), params["docname"]), set()).add(group_of(item))
    if not pages:
        pytest.skip("no test of this run uses checked_page")
    split = {page: groups for page, groups in pages.items() if len(groups) != 1 or None in groups}
    assert not split, split
    named = {group for groups in pages.values() for group in groups}
    assert len(named) == len(pages), "two pages share a group"


def test_the_tests_of_one_costly_fixture_run_in_one_worker(request: pytest.FixtureRequest) -> None:
    """A module or session fixture (every chapter graded, the live servers, ...) is set up once per
    worker that runs one of its tests: they all share a group, so it is set up once per run."""
    groups: dict[str, set[str | None]] = {}
    for item in request.session.items:
        for fixture in shared_fixtures(item):
            groups.setdefault(fixture, set()).add(group_of(item))
    if not groups:
        pytest.skip("no test of this run uses a module or session fixture of tests/")
    split = {fixture: found for fixture, found in groups.items() if len(found) != 1 or None in found}
    assert not split, split


def test_the_groups_reach_pytest_xdists_scheduler(request: pytest.FixtureRequest) -> None:
    """`--dist loadgroup` schedules by the `@group` suffix pytest-xdist adds to each grouped test's node
    id in the worker; pytest 9.2 ignores that write, and every test is then shared out alone, with
    nothing failing (https://github.com/pytest-dev/pytest-xdist/issues/1386: requirements.txt pins
    pytest below 9.2). Seen from inside a `make test` worker."""
    if getattr(request.config, "workerinput", None) is None or not request.config.getvalue("loadgroup"):
        pytest.skip("only a pytest-xdist worker of `--dist loadgroup` (make test) sees the scheduled ids")
    grouped = [item for item in request.session.items if group_of(item)]
    if not grouped:
        pytest.skip("no test of this run is grouped")
    lost = [item.nodeid for item in grouped if not item.nodeid.endswith(f"@{group_of(item)}")]
    assert not lost, f"{len(lost)} of {len(grouped)} grouped tests would be scheduled alone: {lost[:3]}"


def test_make_test_runs_its_workers_by_group() -> None:
    """Without `--dist loadgroup`, pytest-xdist ignores the groups above."""
    recipe = re.search(r"^test: setup\n\t(.+)$", (TESTS.parent / "Makefile").read_text(), re.M)
    assert recipe and "--dist loadgroup" in recipe[1] and " -n " in recipe[1], recipe
