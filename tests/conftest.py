"""Shared test setup: the tiers, `make test`'s worker groups, a deterministic Hypothesis profile, no
random state leaking between tests.

The tiers come from the fixtures a test asks for (directly, through another
fixture, or with `usefixtures`): `FIXTURE_MARKS` says what each costly fixture
stands for, and every test that needs one gets its marks, so no test can leak
into the fast tier (`make test-fast`, `-m "not slow"`) by forgetting one.
`-m book`, `-m browser` and `-m executed` pick the others (README: *Tests*).
`make test` shares the tests among pytest-xdist workers; `worker_groups` says which
tests one worker runs together (tests/test_tiers.py checks it).
Nothing here imports Sphinx, myst-nb or Playwright: the tests that need them do.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_pages import browser, checked_page, server, tabs, visit  # noqa: F401 (the browser tests' fixtures)
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


FIXTURE_MARKS: dict[str, tuple[str, ...]] = {
    "book_build": ("slow", "book", "executed"),  # the strict build of every edition, chapters executed
    "fresh_templates": ("slow", "book"),  # Sphinx's gettext builder over every page
    "two_builds": ("slow", "book", "executed"),  # a small book built and executed twice
    "server": ("slow", "browser"),  # the built site over HTTP
    "browser": ("slow", "browser"),  # headless Chromium
    "executed_again": ("slow", "book", "executed"),  # chapters run a second time, after the build
    "book_runs": ("slow", "executed"),  # every chapter graded: with its solutions, and as a fork
    "fixture_runs": ("slow", "executed"),  # the fixture chapter graded three ways
    "live": ("slow", "executed"),  # `make live`'s servers and a kernel running chapters
    "isolated_records": ("slow",),  # each relocation method in a fresh process
    "scratch_repository": ("slow",),  # a copy of the repository, edited and tested in fresh processes
}
"""What a test that asks for the fixture is: `slow` (not in the fast tier), `book` (needs the built
book), `browser` (needs Chromium), `executed` (executes chapters)."""


TESTS = Path(__file__).resolve().parent
PER_WORKER = {"book_build", "browser", "server", "tabs"}
"""Shared fixtures each `make test` worker (pytest-xdist) sets up for itself, as cheap to repeat: the
book build is the first worker's, which the others wait for and reuse (`build_once_per_run` in
tests/book_outputs.py); Chromium, the site's server and a worker's tabs start in about a second."""


def shared_fixtures(item: pytest.Item) -> set[str]:
    """The module- and session-scoped fixtures of tests/ that the test uses, other than `PER_WORKER`
    ones and `checked_page` (grouped by page instead: `worker_groups`), each as "<its module>.<its
    name>" (two test files may each have a `records`)."""
    info = getattr(item, "_fixtureinfo", None)  # pytest's own record of what a test asks for
    found = set()
    for name, defs in (info.name2fixturedefs.items() if info else ()):
        function = getattr(defs[-1], "func", None) if defs else None
        ours = function is not None and Path(inspect.getfile(function)).parent == TESTS
        if ours and defs[-1].scope in ("module", "session") and name not in PER_WORKER | {"checked_page"}:
            found.add(f"{function.__module__}.{name}")
    return found


def worker_groups(items: list[pytest.Item]) -> dict[pytest.Item, str]:
    """Which tests one pytest-xdist worker runs together (`--dist loadgroup`), so that nothing is set up
    twice in a run: those sharing a module or session fixture of tests/ (set up once per worker that
    runs one of them), and the looking-only checks of one page (`checked_page` measures a page once
    per width and edition in a worker: tests/test_browser.py, tests/test_axe.py)."""
    owner: dict[str, str] = {}  # fixture -> the group it belongs to (fixtures used together join)

    def group(name: str) -> str:
        while owner.setdefault(name, name) != name:
            name = owner[name]
        return name

    uses = {item: sorted(shared_fixtures(item)) for item in items}
    for names in uses.values():
        for name in names[1:]:
            owner[group(name)] = group(names[0])
    found = {item: f"fixture {group(names[0])}" for item, names in uses.items() if names}
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "checked_page" in getattr(item, "fixturenames", ()) and "docname" in params:
            found[item] = f"page {params.get('language', 'en')}/{params['docname']}"
    return found


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
