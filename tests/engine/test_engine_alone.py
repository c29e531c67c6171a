"""The engine stands alone: `mlx_autodiff/` imports the standard library, MLX and itself, nothing of the
book (bookkit/), the developer scripts (tools/) or the book's packages; it installs with MLX alone.

So a reader who wants only the autodiff can `pip install .` and read 13 modules, and these tests (the
engine tier, tests/engine/) run in a virtual environment with mlx, pytest and hypothesis only (README:
*Tests*): the last test here builds one and runs them there.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from packaging.requirements import Requirement

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


TIER_ALLOWED = ALLOWED | {"pytest", "hypothesis", "packaging", "tiers"}
"""What the engine's tests and the root conftest may import: the engine, its test tools (`packaging` is
pytest's own requirement), and their own helpers (this folder's modules; `tiers` from tests/helpers/,
which imports pytest alone)."""


def test_the_engine_tier_imports_nothing_of_the_book() -> None:
    here = Path(__file__).resolve().parent
    local = {path.stem for path in here.glob("*.py")}
    files = [*sorted(here.glob("*.py")), ROOT / "tests" / "conftest.py",
             ROOT / "tests" / "helpers" / "tiers.py"]
    outside = [f"{path.relative_to(ROOT)}:{line}: import {name}"
               for path in files for line, name in imported(path) if name not in TIER_ALLOWED | local]
    assert not outside, "the engine tier must run without the book's packages:\n" + "\n".join(outside)


def installed_closure(requirements: list[str]) -> list[importlib.metadata.Distribution]:
    """The distributions installed here that `requirements` ask for, theirs too, on this platform."""
    found: dict[str, importlib.metadata.Distribution] = {}
    followed: set[tuple[str, str]] = set()  # (distribution, extra) whose requirements are in `wanted`
    wanted = [(Requirement(text), "") for text in requirements]
    while wanted:
        requirement, extra = wanted.pop()
        if requirement.marker and not requirement.marker.evaluate({"extra": extra}):
            continue
        dist = importlib.metadata.distribution(requirement.name)
        name = dist.metadata["Name"].lower().replace("_", "-")
        found[name] = dist
        for asked in ("", *requirement.extras):
            if (name, asked) not in followed:
                followed.add((name, asked))
                wanted += [(Requirement(text), asked) for text in dist.requires or []]
    return list(found.values())


def borrow(dists: list[importlib.metadata.Distribution], folder: Path) -> None:
    """Link each distribution's top-level files into `folder`: a site of those packages and no others."""
    folder.mkdir()
    for dist in dists:
        for top in {file.parts[0] for file in dist.files or [] if file.parts[0] != ".."}:
            if not (folder / top).exists():
                (folder / top).symlink_to(dist.locate_file(top))


ALONE_TEST = "test_the_engine_tier_passes_with_the_engine_pytest_and_hypothesis_alone"
"""The test below, which leaves itself out of the run it makes."""


@pytest.mark.slow
def test_the_engine_tier_passes_with_the_engine_pytest_and_hypothesis_alone(tmp_path: Path) -> None:
    """A fresh environment holds pytest, hypothesis and pip (and setuptools, to build): `pip install .`
    without extras and without an index finds every requirement of the engine there (so it asks for
    mlx alone); NumPy, which mlx does not require, is not importable; the engine tier passes there,
    run from a folder with only tests/engine/, the root conftest and its `tiers`."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf8"))["project"]
    dists = installed_closure([*project["dependencies"], "pytest", "hypothesis", "pip", "setuptools"])
    names = {dist.metadata["Name"].lower() for dist in dists}
    assert "mlx" in names and not names & {"numpy", "matplotlib", "graphviz"}, sorted(names)
    borrow(dists, tmp_path / "borrowed")
    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = str(environment / "bin" / "python")
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "borrowed.pth").write_text(f"{tmp_path / 'borrowed'}\n", encoding="utf8")

    source = tmp_path / "repository"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "_toc.yml"):
        shutil.copy(ROOT / name, source / name)
    for package in ("mlx_autodiff", "bookkit"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    (source / "book").mkdir()
    for chapter in (ROOT / "book").glob("*.md"):  # the wheel carries the chapters (setup.py)
        shutil.copy(chapter, source / "book" / chapter.name)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PIP_CONFIG_FILE"] = os.devnull  # no index or folder of wheels from this machine's pip settings
    installed = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index",
                                "--no-build-isolation", str(source)],
                               capture_output=True, text=True, env=env, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    probe = ("import importlib.util, mlx_autodiff; print(mlx_autodiff.__file__); "
             "print([name for name in ('numpy', 'matplotlib', 'graphviz', 'nbformat') "
             "if importlib.util.find_spec(name)])")
    engine_at, importable = subprocess.run([python, "-c", probe], capture_output=True, text=True, env=env,
                                           cwd=tmp_path, check=True).stdout.splitlines()
    assert engine_at.startswith(str(site)), f"the engine came from {engine_at}, not the installed copy"
    assert importable == "[]", f"importable beside the engine alone: {importable}"

    run = tmp_path / "run"
    shutil.copytree(ROOT / "tests" / "engine", run / "tests" / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "tests" / "conftest.py", run / "tests" / "conftest.py")
    (run / "tests" / "helpers").mkdir()
    shutil.copy(ROOT / "tests" / "helpers" / "tiers.py", run / "tests" / "helpers" / "tiers.py")
    shutil.copy(ROOT / "pyproject.toml", run / "pyproject.toml")  # pytest's settings
    this_test = f"tests/engine/{Path(__file__).name}::{ALONE_TEST}"
    tier = subprocess.run([python, "-m", "pytest", "tests/engine", "-q", "-p", "no:cacheprovider",
                           "--deselect", this_test], capture_output=True, text=True, env=env, cwd=run,
                          timeout=900)
    assert tier.returncode == 0, tier.stdout[-5000:] + tier.stderr[-2000:]
    assert re.search(r"\b\d+ passed, 1 deselected in", tier.stdout), tier.stdout[-2000:]  # none skipped
