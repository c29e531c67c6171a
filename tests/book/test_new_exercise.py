"""A new exercise, added as README's recipe "An exercise" says, is graded like the book's own.

In the recipes' shared scratch copy of the repository (tests/book/conftest.py) `make` writes a small
real exercise into chapter 1: the
`{exercise}` with its label, its solution between solution-start and solution-end, its check cell
(tagged check, `def check(expect, answer):`, trying two cases), the check's messages in the part
"checks" of both words files, the exercise's text translated in the chapter's catalog, and a wrong
answer in tests/book/wrong_answers.py. git there says the recipe touched exactly the files README
lists; the copy's grader (tests/book/test_exercises.py, filtered to the new label) passes the
solution, fails the stub and the wrong answer with the check's own message, in both languages; and
the copy's fast tier passes with it.
"""

from __future__ import annotations

import json
from pathlib import Path

from scratch import SharedCopy, insert, pytest_in, readme_recipe_files

ROOT = Path(__file__).resolve().parents[2]
LABEL = "ex-01-count"
PAGE = "book/01-initialized.md"
CATALOG = "locale/zh_CN/LC_MESSAGES/book/01-initialized.po"
TITLE = ("How many tensors?", "有几个张量？")
TEXT = ("Write a function `count(model)` that returns how many parameter tensors `model` has, as "
        "`params()` lists them, for a model with a bias and for one without.",
        "写一个函数 `count(model)`，返回 `model` 有几个参数张量（按 `params()` 列出的算），"
        "对有偏置的模型和没有偏置的模型都要对。")
EXERCISE = f'''```{{exercise}} {TITLE[0]}
:label: {LABEL}

{TEXT[0]}
```

```{{solution-start}} {LABEL}
:class: dropdown
```

```{{code-cell}} ipython3
:tags: [solution]
def count(model):
    return len(list(model.params()))
```

```{{solution-end}}
```

```{{code-cell}} ipython3
:tags: [check]
# The grader calls check(expect, answer) after your answer, in a fresh process
# (mlx-autodiff-exercises check, or "Run check" in live mode).
def check(expect, answer):
    expect.function(count, "count")
    cases = [
        ("bias", lambda: LinearConfig(4, 1).init(flex.autodiff()), 2),
        ("no_bias", lambda: LinearConfig(4, 1, bias=False).init(flex.autodiff()), 1),
    ]
    for case, build, expected in expect.shuffled(cases):
        with answer.running(case):
            found = count(build())
        expect.plain(found, "count(model)")
        expect(found == expected, "wrong", case=case, expected=expected, found=found)
```

'''
WORDS = {
    "en": {"cases": {"bias": "a Linear(4, 1)", "no_bias": "a Linear(4, 1) without a bias"},
           "wrong": "{case}: it has {expected} parameter tensors, count(model) said {found}"},
    "zh_CN": {"cases": {"bias": "一个 Linear(4, 1)", "no_bias": "一个没有偏置的 Linear(4, 1)"},
              "wrong": "{case}：它有 {expected} 个参数张量，count(model) 说的是 {found}"},
}
WRONG = f'''    {LABEL!r}: [
        Answer(
            "def count(model):\\n"
            "    return 2\\n",
            "a Linear's weight and bias, typed in: a Linear without a bias has one",
            "failed:wrong",
        ),
    ],
'''


def po_entry(english: str, chinese: str) -> str:
    quoted = [json.dumps(text, ensure_ascii=False) for text in (english, chinese)]
    return f"msgid {quoted[0]}\nmsgstr {quoted[1]}\n\n"


def make(copy: Path) -> None:
    """The new exercise, made in the copy as README's recipe says."""
    insert(copy / PAGE, "## Sources\n", EXERCISE)
    for language, said in WORDS.items():
        path = copy / "bookkit" / "words" / f"{language}.json"
        table = json.loads(path.read_text(encoding="utf8"))
        table["checks"][LABEL] = said
        path.write_text(json.dumps(table, ensure_ascii=False, indent=2) + "\n", encoding="utf8")
    with (copy / CATALOG).open("a", encoding="utf8") as catalog:
        catalog.write("\n" + po_entry(*TITLE) + po_entry(*TEXT).rstrip("\n") + "\n")
    insert(copy / "tests" / "book" / "wrong_answers.py", "}\n\nTAMPERING", WRONG)


def test_a_new_exercise_touches_the_files_readme_lists(scratch_repository: SharedCopy) -> None:
    listed = readme_recipe_files(ROOT / "README.md", "An exercise")
    made = scratch_repository.recipes[__name__].changed
    assert made == sorted(name.replace("<page>", "01-initialized") for name in listed)


def test_the_copys_grader_passes_the_solution_and_fails_the_wrong_answer(
        scratch_repository: SharedCopy) -> None:
    """test_exercises.py's grading tests, on the new exercise only: its solution passes and its stub
    does not; the wrong answer fails with the message "wrong", its reason said in English and Chinese."""
    done = pytest_in(scratch_repository.path, "tests/book/test_exercises.py", "-m", "executed", "-k", LABEL,
                     "-q", "-rA")
    assert done.returncode == 0, "the copy's grader fails the new exercise:\n" + done.stdout[-5000:]
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASSED") and LABEL in line]
    assert any("passes_with_its_solution" in line for line in passed), done.stdout[-3000:]
    assert any("wrong_or_tampering_answer_fails" in line for line in passed), done.stdout[-3000:]


def test_the_copys_fast_tier_passes_with_the_new_exercise(scratch_repository: SharedCopy) -> None:
    """The words of its check in both languages, its catalog entries, its wrong answer and its names
    (tests/book/test_exercises.py, tests/site/test_translation.py), and every other fast test."""
    assert scratch_repository.fast_tier.returncode == 0, scratch_repository.fast_tier_failure()
