"""The tiers and `make test`'s worker groups, as data and functions: tests/conftest.py applies them,
tests/setup/test_tiers.py checks them. No pytest plugin here, and nothing of the book imported."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

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


TESTS = Path(__file__).resolve().parents[1]
PER_WORKER = {"book_build", "browser", "server", "tabs"}
"""Shared fixtures each `make test` worker (pytest-xdist) sets up for itself, as cheap to repeat: the
book build is the first worker's, which the others wait for and reuse (`build_once_per_run` in
tests/helpers/book_outputs.py); Chromium, the site's server and a worker's tabs start in about a second."""


def shared_fixtures(item: pytest.Item) -> set[str]:
    """The module- and session-scoped fixtures of tests/ that the test uses, other than `PER_WORKER`
    ones and `checked_page` (grouped by page instead: `worker_groups`), each as "<its module>.<its
    name>" (two test files may each have a `records`)."""
    info = getattr(item, "_fixtureinfo", None)  # pytest's own record of what a test asks for
    found = set()
    for name, defs in (info.name2fixturedefs.items() if info else ()):
        function = getattr(defs[-1], "func", None) if defs else None
        ours = function is not None and TESTS in Path(inspect.getfile(function)).parents
        if ours and defs[-1].scope in ("module", "session") and name not in PER_WORKER | {"checked_page"}:
            found.add(f"{function.__module__}.{name}")
    return found


def worker_groups(items: list[pytest.Item]) -> dict[pytest.Item, str]:
    """Which tests one pytest-xdist worker runs together (`--dist loadgroup`), so that nothing is set up
    twice in a run: those sharing a module or session fixture of tests/ (set up once per worker that
    runs one of them), and the looking-only checks of one page (`checked_page` measures a page once
    per width and edition in a worker: tests/site/test_browser.py, tests/site/test_axe.py)."""
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
