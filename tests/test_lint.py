"""The code keeps the project's lint rules (pyproject.toml [tool.ruff]): `make lint` in the test suite."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "mlx_autodiff", "tests", "tools"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_colours_are_named_only_in_the_palette():
    """Every picture takes its colours from mlx_autodiff/palette.py, so one line recolours a meaning."""
    hex_colour = re.compile(r"(?<![&\w])#[0-9a-fA-F]{6}\b")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "mlx_autodiff").rglob("*.py"))
        if path.name != "palette.py"
        for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), 1)
        if hex_colour.search(line)
    ]
    assert not found, "colours outside palette.py:\n" + "\n".join(found)


def test_readmes_map_names_every_module_and_tool():
    """README's "Map of the code" (appendix 1 renders it) is the one map: a new file needs its row."""
    readme = (ROOT / "README.md").read_text(encoding="utf8")
    section = readme.split("\n## Map of the code\n", 1)[1].split("\n## ", 1)[0]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    named = [ROOT / path for cell in first_cells for path in re.findall(r"`([^`]+)`", cell)]
    absent = [path.relative_to(ROOT).as_posix() for path in named if not path.exists()]
    assert not absent, f"README.md's map names files that do not exist: {', '.join(absent)}"
    missing = [path.relative_to(ROOT).as_posix()
               for folder in ("mlx_autodiff", "tools") for path in sorted((ROOT / folder).iterdir())
               if path.suffix in {".py", ".sh"} and path.name != "__init__.py"
               and not any(path == entry or entry in path.parents for entry in named)]
    assert not missing, f"README.md's map of the code has no row for: {', '.join(missing)}"
