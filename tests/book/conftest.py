"""The book tier's shared fixture: one scratch copy of the repository with every README recipe made in it.

Each tests/book/test_new_*.py makes its recipe's edits in its `make(copy)`. `scratch_repository` makes
one copy (tests/helpers/scratch.py) and applies the recipes one after another: after each it notes the
files git says the recipe touched and commits them in the copy, so each recipe's files are measured
alone. Then it runs the copy's fast tier once, with every recipe in it. Its tests share one `make test`
worker (tests/helpers/tiers.py), so the copy is made and tested once per run, and they are `slow`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import scratch  # its pytest_in, not imported by name: a conftest's pytest_* names are taken for hooks
from scratch import Recipe, SharedCopy, changed, commit, copy_of, passed_tests

ROOT = Path(__file__).resolve().parents[2]
RECIPES = sorted(path.stem for path in Path(__file__).parent.glob("test_new_*.py"))
"""The modules that each make one of README's recipes, in the order they are made."""


@pytest.fixture(scope="session")
def scratch_repository(tmp_path_factory: pytest.TempPathFactory) -> SharedCopy:
    """A copy of the repository with every README recipe made in it, each committed there."""
    place = tmp_path_factory.mktemp("recipes")
    copy = copy_of(ROOT, place / "repository")
    recipes = {}
    for name in RECIPES:
        module = importlib.import_module(name)
        assert hasattr(module, "make"), f"tests/book/{name}.py makes no recipe: it has no make(copy)"
        made = module.make(copy)
        recipes[name] = Recipe(changed(copy), made)
        commit(copy, name)
    report = place / "fast-tier.xml"
    fast_tier = scratch.pytest_in(copy, "-q", "-x", f"--junitxml={report}")
    return SharedCopy(copy, recipes, fast_tier, passed_tests(report) if report.is_file() else frozenset())
