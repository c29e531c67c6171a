"""A new word of generated text, added as README's recipe "A word of generated text" says, is said in
both editions.

In the recipes' shared scratch copy of the repository (tests/book/conftest.py) `make` adds a key
with a placeholder to the part "exercises" of both words files and has a module say it:
`mlx-autodiff-exercises get` (bookkit/workbook/cli.py) prints how many exercises the chapter holds.
git there says the recipe touched exactly the files README lists; `get --language zh_CN` prints the
Chinese, `get` the English; and the copy's fast tier passes with it, its words tests among them (same
keys, same placeholders in every language).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from scratch import SharedCopy, insert, readme_recipe_files

ROOT = Path(__file__).resolve().parents[2]
MODULE = "bookkit/workbook/cli.py"
KEY = "how_many"
SAID = {"en": "It holds {n} exercises.", "zh_CN": "里面有 {n} 道练习。"}
USE = '''    print(say(said["how_many"], n=len(numbered(resolve(args.chapter, args.book)))))
'''


def make(copy: Path) -> None:
    """The new word in both of the copy's words files, said by `get`."""
    for language, text in SAID.items():
        path = copy / "bookkit" / "words" / f"{language}.json"
        table = json.loads(path.read_text(encoding="utf8"))
        table["exercises"][KEY] = text
        path.write_text(json.dumps(table, ensure_ascii=False, indent=2) + "\n", encoding="utf8")
    module = copy / MODULE
    insert(module, "from bookkit.workbook.translation import catalog\n",
           "from bookkit.workbook.numbering import numbered\n")
    insert(module, "    return 0\n\n\ndef _check", USE)  # the end of `_get`, after "To grade it"


def get(copy: Path, tmp_path: Path, language: str) -> list[str]:
    """What the copy's `get 01` prints in `language`, its copy written under tmp_path."""
    script = "import sys; from bookkit.workbook.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=str(copy))
    done = subprocess.run([sys.executable, "-c", script, "get", "01", "--language", language,
                           "--output", str(tmp_path / f"01-{language}.ipynb")],
                          cwd=copy, env=env, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_a_new_word_touches_the_files_readme_lists(scratch_repository: SharedCopy) -> None:
    listed = readme_recipe_files(ROOT / "README.md", "A word of generated text")
    made = scratch_repository.recipes[__name__].changed
    assert made == sorted(name.replace("bookkit/<feature>/<module>.py", MODULE) for name in listed)


def test_the_module_says_the_new_word_in_each_language(
        scratch_repository: SharedCopy, tmp_path: Path) -> None:
    from bookkit.workbook import resolve
    from bookkit.workbook.numbering import numbered

    copy = scratch_repository.path
    n = len(numbered(resolve("01", copy)))  # the copy's chapter 1: the exercise recipe adds one there
    assert get(copy, tmp_path, "zh_CN")[-1] == f"里面有 {n} 道练习。"
    assert get(copy, tmp_path, "en")[-1] == f"It holds {n} exercises."


def test_the_copys_words_tests_and_fast_tier_pass_with_the_new_word(scratch_repository: SharedCopy) -> None:
    assert scratch_repository.fast_tier.returncode == 0, scratch_repository.fast_tier_failure()
    words = "tests.book.test_words::test_every_language_has_every_key_with_the_same_placeholders"
    assert f"{words}[zh_CN]" in scratch_repository.passed, "the copy's fast tier ran its words tests"
