"""A scratch copy of the repository, for the tests that make a README recipe's edits for real.

Every file git tracks is copied and committed in a new repository of its own, so after the edits
`git status` in the copy says exactly which files the recipe touched; the copy's tests run on the
copy's own code (its pyproject.toml puts its root first on the path).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def git(repository: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repository, capture_output=True, text=True, check=True)
    return done.stdout


def copy_of(root: Path, copy: Path) -> Path:
    """Every file git tracks in `root`, copied to `copy` and committed there."""
    for name in git(root, "ls-files", "-z").split("\0"):
        if name and (root / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, copy / name)
    node_modules = root / "node_modules"  # installed by `make setup`, not tracked: burn-check's tests need it
    if node_modules.is_dir():
        (copy / "node_modules").symlink_to(node_modules, target_is_directory=True)
    git(copy, "init", "-q")
    (copy / ".git" / "info" / "exclude").write_text("/node_modules\n")  # the link, which .gitignore misses
    commit(copy, "copy")
    return copy


def commit(copy: Path, message: str) -> None:
    """Every change in the copy committed there, so that `changed` starts again from nothing."""
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=recipe", "-c", "user.email=recipe@example.invalid", "commit", "-qm", message)


def changed(copy: Path) -> list[str]:
    """The files the edits since the copy was made touched, by path."""
    return sorted(line[3:] for line in git(copy, "status", "--porcelain").splitlines())


def pytest_in(repository: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The copy's own fast tier (or the files named) on the copy's own code."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not slow", *args]
    return subprocess.run(command, cwd=repository, env=env, capture_output=True, text=True)


def insert(path: Path, before: str, text: str) -> None:
    """`text` written just before the one place `before` is in the file."""
    source = path.read_text(encoding="utf8")
    assert source.count(before) == 1, f"{path.name} no longer has exactly one {before!r}"
    path.write_text(source.replace(before, text + before), encoding="utf8")


def readme_recipe_files(readme: Path, title: str) -> list[str]:
    """The files README's recipe `title` says it touches: its bold title, then "(N files: `a`, `b`)"."""
    text = readme.read_text(encoding="utf8")
    head = rf"^- \*\*{re.escape(title)}\*\* \((\d+) files?: (.*?)\):"
    found = re.search(head, text, re.DOTALL | re.MULTILINE)
    assert found, f"README.md has no recipe {title!r} that lists its files as (N files: `a`, `b`)"
    named = re.findall(r"`([^`]+)`", found[2])
    assert len(named) == int(found[1]), f"README's recipe {title!r} counts {found[1]} files and names {named}"
    return sorted(named)


@dataclass(frozen=True)
class Recipe:
    """One README recipe as made in the shared copy (tests/book/conftest.py)."""

    changed: list[str]
    """The files the recipe's edits touched, by path, as git in the copy says."""
    made: Any
    """What the recipe's `make` returned: what its own tests look at."""


@dataclass(frozen=True)
class SharedCopy:
    """The one scratch copy every recipe is made in, one after another, and its fast tier's run."""

    path: Path
    recipes: dict[str, Recipe]
    """Each recipe by the name of its module."""
    fast_tier: subprocess.CompletedProcess[str] = field(repr=False)  # a failed assertion shows its tail
    """The copy's fast tier, run once with every recipe made."""
    passed: frozenset[str] = field(repr=False)
    """The fast tier's tests that passed, as "tests.dir.test_file::test_name[param]"."""

    def fast_tier_failure(self) -> str:
        return "the copy's fast tier fails with every recipe made:\n" + self.fast_tier.stdout[-5000:]


def passed_tests(report: Path) -> frozenset[str]:
    """The passed tests of a JUnit XML report (pytest's --junitxml), as "tests.dir.test_file::test[param]"."""
    return frozenset(f"{case.get('classname')}::{case.get('name')}"
                     for case in ElementTree.parse(report).iter("testcase")
                     if not any(child.tag in ("failure", "error", "skipped") for child in case))
