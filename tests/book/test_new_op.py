"""A new op, added as README's recipe "An op with its backward" says, is checked by the op tests.

In a scratch copy of the repository (every file git tracks, committed there),
the test makes the recipe's edits for real, one at a time, and runs the op,
property and semantics tests there after each: the Tensor method alone fails
(it records an op without its `@op`); with its `@op`, they fail and say where
its reference goes; with its reference in tests/engine/op_references.py, they pass
and have checked it. git in the copy then says the recipe touched exactly the
two files README lists, and the copy's fast tier passes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scratch import changed, copy_of, insert, pytest_in, readme_recipe_files

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ("mlx_autodiff/tensor.py", "tests/engine/op_references.py")
"""The files README's recipe lists."""

METHOD = '''    @_on_device
    def cube(self) -> Tensor:
        """Elementwise `x ** 3`, as products."""
        x = self.array
        return _unary("cube", self, x * x * x, lambda g: g * 3 * x * x)

'''
REGISTRATION = '''    @op("cube", saves=("inputs",))
'''
REFERENCE = '''    "cube": OpReference(lambda xp, x: x * x * x),
'''
ENGINE_TESTS = [f"tests/engine/test_{name}.py" for name in ("ops", "properties", "semantics")]


@pytest.fixture(scope="module")
def scratch_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every file git tracks here, copied and committed in a new repository of its own."""
    return copy_of(ROOT, tmp_path_factory.mktemp("recipe") / "repository")


def test_a_new_op_takes_the_two_files_readme_lists_and_is_checked(scratch_repository: Path) -> None:
    copy = scratch_repository
    tensor, references = copy / RECIPE[0], copy / RECIPE[1]
    imported = pytest_in(copy, "tests/engine/test_ops.py", "-q", "-k", "every_op_method_is_registered")
    assert imported.returncode == 0, "the copy's tests fail before any edit:\n" + imported.stdout[-3000:]

    insert(tensor, '    @op("exp", saves=("output",))\n', METHOD)
    unregistered = pytest_in(copy, "tests/engine/test_ops.py", "-q", "-k", "every_op_method_is_registered")
    assert unregistered.returncode != 0 and "'cube'" in unregistered.stdout, (
        "a Tensor method that records an op without its @op passes:\n" + unregistered.stdout[-3000:])

    insert(tensor, METHOD, REGISTRATION)
    unreferenced = pytest_in(copy, *ENGINE_TESTS, "-q")
    assert unreferenced.returncode != 0, "an op without a reference passes:\n" + unreferenced.stdout[-3000:]
    assert ("registers an op named 'cube', but tests/engine/op_references.py has no reference"
            in unreferenced.stdout)

    insert(references, '    "exp": OpReference(', REFERENCE)
    checked = pytest_in(copy, *ENGINE_TESTS, "-v")
    assert checked.returncode == 0, "the recipe's op fails the op tests:\n" + checked.stdout[-5000:]
    cube_tests = re.findall(r"^tests/\S+\[cube\] PASSED", checked.stdout, re.MULTILINE)
    assert len(cube_tests) >= 2, "the op tests did not run the new op:\n" + checked.stdout[-3000:]

    touched = changed(copy)
    assert touched == sorted(RECIPE), f"the recipe touched {touched}, README's recipe lists {list(RECIPE)}"
    assert readme_recipe_files(ROOT / "README.md", "An op with its backward") == sorted(RECIPE)
    fast = pytest_in(copy, "-q", "-x")
    assert fast.returncode == 0, "the copy's fast tier fails with the recipe's op:\n" + fast.stdout[-5000:]
