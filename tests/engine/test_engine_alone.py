"""The engine stands alone: `mlx_autodiff/` imports the standard library, MLX and itself, nothing of the
book (bookkit/), the developer scripts (tools/) or the book's packages; it installs with MLX alone.

So a reader who wants only the autodiff can `pip install .` and read 13 modules, and these tests (the
engine tier, tests/engine/) run in a virtual environment with mlx, pytest, hypothesis and numpy only
(README: *Tests*).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mlx_autodiff

ROOT = Path(__file__).resolve().parents[2]
ENGINE = Path(mlx_autodiff.__file__).resolve().parent
"""The engine as imported: this checkout's, or the installed one where the tier runs alone."""
ALLOWED = {"mlx", "mlx_autodiff"} | set(sys.stdlib_module_names)


def imported(path: Path) -> list[tuple[int, str]]:
    """Each top-level package a module imports (anywhere in it, under `if TYPE_CHECKING` too), by line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def test_the_engine_imports_only_mlx_and_the_standard_library() -> None:
    modules = sorted(ENGINE.rglob("*.py"))
    assert len(modules) > 10, "the engine's modules were not found"
    outside = [f"{path.relative_to(ENGINE.parent)}:{line}: import {name}"
               for path in modules for line, name in imported(path) if name not in ALLOWED]
    assert not outside, ("the engine imports something other than MLX and the standard library "
                         "(the book's code belongs in bookkit/):\n" + "\n".join(outside))


def test_the_engine_folder_holds_python_only() -> None:
    """Pictures, words, page scripts and styles are the book's (bookkit/<feature>/)."""
    others = sorted(path.relative_to(ENGINE).as_posix() for path in ENGINE.rglob("*")
                    if path.is_file() and path.suffix not in {".py", ".pyc"})
    assert others == []


def test_the_import_check_sees_what_it_must_refuse(tmp_path: Path) -> None:
    """The check above can fail: an engine module that imports the book, or matplotlib, is caught."""
    module = tmp_path / "leaky.py"
    module.write_text("import math\nfrom mlx import core\nfrom bookkit.pictures import palette\n"
                      "if False:\n    import matplotlib.pyplot\n", encoding="utf8")
    assert [name for _, name in imported(module) if name not in ALLOWED] == ["bookkit", "matplotlib"]


def test_importing_the_engine_loads_nothing_of_the_book() -> None:
    """Every engine module imported in a fresh process; then no book or picture package is loaded."""
    names = sorted(f"mlx_autodiff.{path.stem}" for path in ENGINE.glob("*.py") if path.stem != "__init__")
    script = ("import importlib, sys\n"
              f"for name in {names!r}: importlib.import_module(name)\n"
              "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ENGINE.parent, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = set(done.stdout.split())
    assert not loaded & {"bookkit", "tools", "matplotlib", "graphviz", "nbformat", "sphinx", "IPython"}


def test_installing_the_engine_asks_for_mlx_alone() -> None:
    """pyproject.toml: `pip install .` pulls MLX; the book's packages are the `book` extra."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf8"))["project"]
    wanted = {re.split(r"[\s\[<>=;!~]", requirement, maxsplit=1)[0]
              for requirement in project["dependencies"]}
    assert wanted == {"mlx"}, project["dependencies"]
    assert "book" in project["optional-dependencies"]


TIER_ALLOWED = ALLOWED | {"pytest", "hypothesis", "tiers"}
"""What the engine's tests and the root conftest may import: the engine, its test tools, and their own
helpers (this folder's modules; `tiers` from tests/helpers/, which imports pytest alone)."""


def test_the_engine_tier_imports_nothing_of_the_book() -> None:
    here = Path(__file__).resolve().parent
    local = {path.stem for path in here.glob("*.py")}
    files = [*sorted(here.glob("*.py")), ROOT / "tests" / "conftest.py",
             ROOT / "tests" / "helpers" / "tiers.py"]
    outside = [f"{path.relative_to(ROOT)}:{line}: import {name}"
               for path in files for line, name in imported(path) if name not in TIER_ALLOWED | local]
    assert not outside, "the engine tier must run without the book's packages:\n" + "\n".join(outside)
