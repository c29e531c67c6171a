"""A new word of generated text, added as README's recipe "A word of generated text" says, is said in
both editions.

In a scratch copy of the repository the test adds a key with a placeholder to the part "exercises" of
both words files and has a module say it: `mlx-autodiff-exercises get` (bookkit/workbook/cli.py)
prints how many exercises the copy holds. git there says the recipe touched exactly the files README
lists; the copy's words tests pass (same keys, same placeholders in every language); `get --language
zh_CN` prints the Chinese, `get` the English; and the copy's fast tier passes with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scratch import changed, copy_of, insert, pytest_in, readme_recipe_files

ROOT = Path(__file__).resolve().parents[2]
MODULE = "bookkit/workbook/cli.py"
KEY = "how_many"
SAID = {"en": "It holds {n} exercises.", "zh_CN": "里面有 {n} 道练习。"}
USE = '''    print(say(said["how_many"], n=len(numbered(resolve(args.chapter, args.book)))))
'''


@pytest.fixture(scope="module")
def scratch_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository with the new word in both words files, said by `get`."""
    copy = copy_of(ROOT, tmp_path_factory.mktemp("word") / "repository")
    for language, text in SAID.items():
        path = copy / "bookkit" / "words" / f"{language}.json"
        table = json.loads(path.read_text(encoding="utf8"))
        table["exercises"][KEY] = text
        path.write_text(json.dumps(table, ensure_ascii=False, indent=2) + "\n", encoding="utf8")
    module = copy / MODULE
    insert(module, "from bookkit.workbook.translation import catalog\n",
           "from bookkit.workbook.numbering import numbered\n")
    insert(module, "    return 0\n\n\ndef _check", USE)  # the end of `_get`, after "To grade it"
    return copy


def get(copy: Path, tmp_path: Path, language: str) -> list[str]:
    """What the copy's `get 01` prints in `language`, its copy written under tmp_path."""
    script = "import sys; from bookkit.workbook.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=str(copy))
    done = subprocess.run([sys.executable, "-c", script, "get", "01", "--language", language,
                           "--output", str(tmp_path / f"01-{language}.ipynb")],
                          cwd=copy, env=env, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_a_new_word_touches_the_files_readme_lists(scratch_repository: Path) -> None:
    listed = readme_recipe_files(ROOT / "README.md", "A word of generated text")
    assert changed(scratch_repository) == sorted(name.replace("bookkit/<feature>/<module>.py", MODULE)
                                                 for name in listed)


def test_the_module_says_the_new_word_in_each_language(scratch_repository: Path, tmp_path: Path) -> None:
    from bookkit.workbook import resolve
    from bookkit.workbook.numbering import numbered

    n = len(numbered(resolve("01", ROOT)))
    assert get(scratch_repository, tmp_path, "zh_CN")[-1] == f"里面有 {n} 道练习。"
    assert get(scratch_repository, tmp_path, "en")[-1] == f"It holds {n} exercises."


def test_the_copys_words_tests_and_fast_tier_pass_with_the_new_word(scratch_repository: Path) -> None:
    words = pytest_in(scratch_repository, "tests/book/test_words.py", "-q")
    assert words.returncode == 0, "the copy's words tests fail with the new word:\n" + words.stdout[-5000:]
    done = pytest_in(scratch_repository, "-q", "-x")
    assert done.returncode == 0, "the fast tier fails with the new word:\n" + done.stdout[-5000:]
