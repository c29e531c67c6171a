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
