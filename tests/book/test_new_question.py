"""A new question, added by README's recipe "A question", whose key a new case computes with the engine.

In the recipes' shared scratch copy of the repository (tests/book/conftest.py) `make` makes the
recipe's edits for real: a case in
bookkit/runs/question_cases.py, a `{question}` on chapter 6's page with its key on each choice, and
the question's words translated in chapter 6's catalog. git in the copy then says the recipe touched
exactly the files README lists; there, the questions' checks that need no build pass (every choice
keyed, every case a question names exists, each of chapter 6's answers a key its choices carry, the
case run in a fresh process), and a small Sphinx build of the new question with the copy's catalog
shows every word of it in Chinese, with the English page's keys, the case's answer the right one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scratch import SharedCopy, insert, pytest_in, readme_recipe_files
from test_question_keys import build, choices

ROOT = Path(__file__).resolve().parents[2]
PAGE = "06-fork"
CASE = '''@case
def forked_weight() -> Result:
    """A read model moved with fork: on which device is its weight's leaf?"""
    flex, metal = _devices()
    node = _node(initialized(flex.autodiff()).fork(metal).weight)
    return {"device": node.device.inner().name, "is_leaf": node.is_leaf}


'''
QUESTION = '''```{question}
:id: forked-weight-device
:kind: predict
:case: forked_weight
:answer: device

A model read on `flex` is moved with `fork(metal)`. Where is its weight's leaf now?

- {key}`flex` On `flex`, where it was read.

  `fork` detaches the moved tensor: the new leaf is where the tensor went.
- {key}`metal` On `metal`.

  `fork` is `to_device`, `detach` and `require_grad`: a fresh leaf on the target device.
```

'''
TRANSLATIONS = {
    "A model read on `flex` is moved with `fork(metal)`. Where is its weight's leaf now?":
        "一个在 `flex` 上读过的模型用 `fork(metal)` 搬走。它的权重的叶子现在在哪里？",
    "On `flex`, where it was read.": "在 `flex` 上，它被读取的地方。",
    "`fork` detaches the moved tensor: the new leaf is where the tensor went.":
        "`fork` 会 detach 搬过去的张量：新的叶子在张量去的地方。",
    "On `metal`.": "在 `metal` 上。",
    "`fork` is `to_device`, `detach` and `require_grad`: a fresh leaf on the target device.":
        "`fork` 就是 `to_device`、`detach` 和 `require_grad`：目标设备上的一个新叶子。",
}


def po_entry(msgid: str, msgstr: str) -> str:
    quoted = [json.dumps(text, ensure_ascii=False) for text in (msgid, msgstr)]
    return f"\nmsgid {quoted[0]}\nmsgstr {quoted[1]}\n"


def make(copy: Path) -> None:
    """The new case, the new question and its translation, made in the copy."""
    insert(copy / "bookkit" / "runs" / "question_cases.py", "# ----- part two:", CASE)
    insert(copy / "book" / f"{PAGE}.md", "## Exercises\n", QUESTION)
    catalog = copy / "locale" / "zh_CN" / "LC_MESSAGES" / "book" / f"{PAGE}.po"
    with catalog.open("a", encoding="utf8") as out:
        out.write("".join(po_entry(msgid, msgstr) for msgid, msgstr in TRANSLATIONS.items()))


def test_a_new_question_is_the_files_readme_lists(scratch_repository: SharedCopy) -> None:
    listed = [name.replace("<page>", PAGE) for name in readme_recipe_files(ROOT / "README.md", "A question")]
    assert scratch_repository.recipes[__name__].changed == sorted(listed)


def test_the_copys_fast_tier_passes_with_the_new_question(scratch_repository: SharedCopy) -> None:
    assert scratch_repository.fast_tier.returncode == 0, scratch_repository.fast_tier_failure()


def test_the_copys_question_checks_pass_with_the_new_question(scratch_repository: SharedCopy) -> None:
    done = pytest_in(scratch_repository.path, "-q", "-x", "-m", "not book and not browser",
                     "-k", f"not answer_a_case_computes or {PAGE}",
                     "tests/book/test_question_keys.py", "tests/site/test_questions.py")
    assert done.returncode == 0, "the question checks fail with the new question:\n" + done.stdout[-5000:]
    assert f"answer_a_case_computes_is_a_key_its_choices_carry[{PAGE}] PASSED" in pytest_in(
        scratch_repository.path, "-v", "-m", "slow", "-k", PAGE, "tests/book/test_question_keys.py").stdout


def test_the_new_question_is_translated_and_both_editions_get_its_keys(
        scratch_repository: SharedCopy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bookkit.questions import sphinx_ext

    copy = scratch_repository.path
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "bookkit.runs.question_cases", "forked_weight"],
                          cwd=copy, env=env, capture_output=True, text=True, check=True)
    computed = json.loads(done.stdout)
    monkeypatch.setattr(sphinx_ext, "case_results", lambda root=None: {"forked_weight": computed})
    assert QUESTION in (copy / "book" / f"{PAGE}.md").read_text(encoding="utf8")
    page = {f"book/{PAGE}": "# Fork\n\n" + QUESTION}
    _, english = build(tmp_path / "en", page)
    catalog = tmp_path / "zh" / "locale" / "zh_CN" / "LC_MESSAGES" / "book"
    catalog.mkdir(parents=True)
    po = copy / "locale" / "zh_CN" / "LC_MESSAGES" / "book" / f"{PAGE}.po"
    (catalog / f"{PAGE}.po").write_text(po.read_text(encoding="utf8"), encoding="utf8")
    _, chinese = build(tmp_path / "zh", page, language="zh_CN")
    labels, answer, _ = choices(english[f"book/{PAGE}"])
    zh_labels, zh_answer, zh_feedback = choices(chinese[f"book/{PAGE}"])
    assert answer == zh_answer == computed["device"] == "metal"
    assert list(labels) == list(zh_labels) == ["flex", "metal"]
    assert zh_labels == {"flex": "在 flex 上，它被读取的地方。", "metal": "在 metal 上。"}
    assert "目标设备上的一个新叶子" in zh_feedback["metal"]
    assert "新的叶子在张量去的地方" in zh_feedback["flex"]
    stem = chinese[f"book/{PAGE}"].select_one(".question-stem").get_text(strip=True)
    assert stem.startswith("一个在") and stem.endswith("它的权重的叶子现在在哪里？"), stem
