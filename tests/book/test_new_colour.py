"""A recolour, made as README's recipe "A colour" says, is one line of the palette and changes every place
the colour means something: the pictures, the stepper's player in the light and the dark theme.

In a scratch copy of the repository the test recolours the stepper's current node in both themes
(two lines of bookkit/pictures/palette.py); git there says only that file changed, the stepper's
colours as the page gets them follow, and the copy's fast tier passes (the golden DOT files name
colours by meaning, so they stay as they are).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scratch import changed, copy_of, pytest_in, readme_recipe_files

ROOT = Path(__file__).resolve().parents[2]
RECOLOUR = {'CURRENT_STEP = "#6a1b9a"': 'CURRENT_STEP = "#4a148c"',
            'CURRENT_STEP_ON_DARK = "#ce93d8"': 'CURRENT_STEP_ON_DARK = "#e1bee7"'}


@pytest.fixture(scope="module")
def scratch_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository with the current node recoloured in its palette."""
    copy = copy_of(ROOT, tmp_path_factory.mktemp("colour") / "repository")
    palette = copy / "bookkit" / "pictures" / "palette.py"
    text = palette.read_text(encoding="utf8")
    for old, new in RECOLOUR.items():
        assert text.count(old) == 1, f"palette.py no longer has {old!r}"
        text = text.replace(old, new)
    palette.write_text(text, encoding="utf8")
    return copy


def test_a_recolour_is_the_one_file_readme_lists_and_reaches_both_themes(scratch_repository: Path) -> None:
    assert changed(scratch_repository) == readme_recipe_files(ROOT / "README.md", "A colour")
    script = "import json; from bookkit.stepper import COLOURS; print(json.dumps(COLOURS))"
    env = dict(os.environ, PYTHONPATH=str(scratch_repository))
    done = subprocess.run([sys.executable, "-c", script], cwd=scratch_repository, env=env,
                          capture_output=True, text=True, check=True)
    colours = json.loads(done.stdout)
    assert colours["--stepper-current"] == "#4a148c" and colours["--stepper-current-dark"] == "#e1bee7"
    css = (scratch_repository / "bookkit" / "stepper" / "stepper.css").read_text(encoding="utf8")
    assert "#ce93d8" not in css and "#6a1b9a" not in css, "the stylesheet names no colour of the palette's"


def test_the_copys_fast_tier_passes_with_the_new_colour(scratch_repository: Path) -> None:
    done = pytest_in(scratch_repository, "-q", "-x")
    assert done.returncode == 0, "the fast tier fails with the recolour:\n" + done.stdout[-5000:]
