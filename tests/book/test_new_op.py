"""A new op, added as README's recipe "An op with its backward" says, is checked by the op tests.

In the recipes' shared scratch copy of the repository (tests/book/conftest.py), `make` makes the
recipe's edits for real, one at a time, and runs the op, property and semantics tests there after the
first two: the Tensor method alone fails (it records an op without its `@op`); with its `@op`, they
fail and say where its reference goes. With its reference in tests/engine/op_references.py, the
copy's fast tier (run once, with every recipe made) passes them and has checked the new op. git in
the copy says the recipe touched exactly the two files README lists.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from scratch import SharedCopy, insert, pytest_in, readme_recipe_files

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


def make(copy: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """The recipe's edits, one at a time, and the op tests run in the copy before each."""
    tensor, references = copy / RECIPE[0], copy / RECIPE[1]
    registered = ("tests/engine/test_ops.py", "-q", "-k", "every_op_method_is_registered")
    runs = {"before": pytest_in(copy, *registered)}
    insert(tensor, '    @op("exp", saves=("output",))\n', METHOD)
    runs["unregistered"] = pytest_in(copy, *registered)
    insert(tensor, METHOD, REGISTRATION)
    runs["unreferenced"] = pytest_in(copy, *ENGINE_TESTS, "-q")
    insert(references, '    "exp": OpReference(', REFERENCE)
    return runs


def test_a_new_op_takes_the_two_files_readme_lists_and_is_checked(scratch_repository: SharedCopy) -> None:
    recipe = scratch_repository.recipes[__name__]
    runs = recipe.made
    before = runs["before"]
    assert before.returncode == 0, "the copy's tests fail before any edit:\n" + before.stdout[-3000:]

    unregistered = runs["unregistered"]
    assert unregistered.returncode != 0 and "'cube'" in unregistered.stdout, (
        "a Tensor method that records an op without its @op passes:\n" + unregistered.stdout[-3000:])

    unreferenced = runs["unreferenced"]
    assert unreferenced.returncode != 0, "an op without a reference passes:\n" + unreferenced.stdout[-3000:]
    assert ("registers an op named 'cube', but tests/engine/op_references.py has no reference"
            in unreferenced.stdout)

    assert scratch_repository.fast_tier.returncode == 0, scratch_repository.fast_tier_failure()
    engine = tuple(f"tests.engine.test_{name}::" for name in ("ops", "properties", "semantics"))
    cube_tests = [name for name in scratch_repository.passed
                  if name.startswith(engine) and name.endswith("[cube]")]
    assert len(cube_tests) >= 2, "the op tests did not run the new op"

    assert recipe.changed == sorted(RECIPE), (
        f"the recipe touched {recipe.changed}, README's recipe lists {list(RECIPE)}")
    assert readme_recipe_files(ROOT / "README.md", "An op with its backward") == sorted(RECIPE)
