"""A recolour, made as README's recipe "A colour" says, is one line of the palette and changes every place
the colour means something: the pictures, the stepper's player in the light and the dark theme.

In the recipes' shared scratch copy of the repository (tests/book/conftest.py) `make` recolours the
stepper's current node in both themes (two lines of bookkit/pictures/palette.py); git there says only
that file changed, the stepper's colours as the page gets them follow, and the copy's fast tier passes
with it (the golden DOT files name colours by meaning, so they stay as they are).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from scratch import SharedCopy, readme_recipe_files

ROOT = Path(__file__).resolve().parents[2]
RECOLOUR = {'CURRENT_STEP = "#6a1b9a"': 'CURRENT_STEP = "#4a148c"',
            'CURRENT_STEP_ON_DARK = "#ce93d8"': 'CURRENT_STEP_ON_DARK = "#e1bee7"'}


def make(copy: Path) -> None:
    """The current node recoloured in the copy's palette."""
    palette = copy / "bookkit" / "pictures" / "palette.py"
    text = palette.read_text(encoding="utf8")
    for old, new in RECOLOUR.items():
        assert text.count(old) == 1, f"palette.py no longer has {old!r}"
        text = text.replace(old, new)
    palette.write_text(text, encoding="utf8")


def test_a_recolour_is_the_one_file_readme_lists_and_reaches_both_themes(
        scratch_repository: SharedCopy) -> None:
    assert scratch_repository.recipes[__name__].changed == readme_recipe_files(ROOT / "README.md", "A colour")
    copy = scratch_repository.path
    script = "import json; from bookkit.stepper import COLOURS; print(json.dumps(COLOURS))"
    env = dict(os.environ, PYTHONPATH=str(copy))
    done = subprocess.run([sys.executable, "-c", script], cwd=copy, env=env,
                          capture_output=True, text=True, check=True)
    colours = json.loads(done.stdout)
    assert colours["--stepper-current"] == "#4a148c" and colours["--stepper-current-dark"] == "#e1bee7"
    css = (copy / "bookkit" / "stepper" / "stepper.css").read_text(encoding="utf8")
    assert "#ce93d8" not in css and "#6a1b9a" not in css, "the stylesheet names no colour of the palette's"


def test_the_copys_fast_tier_passes_with_the_new_colour(scratch_repository: SharedCopy) -> None:
    assert scratch_repository.fast_tier.returncode == 0, scratch_repository.fast_tier_failure()
