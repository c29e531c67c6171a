"""Each question's choice carries its key (bookkit/questions/source.py), checked without the book's build.

Every question of every page has a key on each choice, no key twice, and an answer (given with its
`:source:`) that a choice carries. A missing key, a repeated key, an answer no choice carries and
the old `:keys:` option each stop a small Sphinx build of one page, with a message naming the
question. In that small build, chapter 5's first question with its bullets in reverse order marks
the same choice right, with the same feedback, and its Chinese page (chapter 5's own catalog) gets
the English keys, each on its translated choice.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from bookkit.questions.source import QuestionSourceError, checked_answer, page_questions, take_keys
from bookkit.runs.question_cases import run_isolated

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "book").glob("*.md"))
CONF = '''extensions = ["myst_parser", "bookkit.questions.sphinx_ext"]
locale_dirs = ["locale"]
gettext_compact = False
exclude_patterns = ["_build"]
'''


@pytest.mark.parametrize("page", [path for path in PAGES if page_questions(path)], ids=lambda path: path.stem)
def test_every_choice_of_every_question_carries_its_own_key(page: Path) -> None:
    for question in page_questions(page):
        assert "keys" not in question.options, f"{question.qid}: :keys: is the old way"
        assert len(question.keys) >= 2, f"{question.qid}: {question.keys}"
        assert len(set(question.keys)) == len(question.keys), question.qid
        assert not any("{key}" in line for line in question.body), f"{question.qid}: a key not at a bullet"
        if "source" in question.options:
            answer = question.options["answer"]
            value = answer.split() if question.options["kind"] == "order" else answer
            checked_answer(question.qid, question.options["kind"], question.keys, value)


def test_a_choice_without_a_key_a_key_twice_or_an_answer_no_choice_has_is_refused() -> None:
    lines, keys = take_keys("q", ["Stem?", "", "- {key}`a` One.", "", "  Why.", "- {key}`b`  Two.",
                                  "```", "- not a choice: inside code", "```"])
    assert keys == ["a", "b"] and lines[2] == "- One." and lines[5] == "-  Two."
    assert lines[7] == "- not a choice: inside code"
    with pytest.raises(QuestionSourceError, match=r"question 'q': its choice 2 .*'- Two\.'.* has no key"):
        take_keys("q", ["- {key}`a` One.", "- Two."])
    with pytest.raises(QuestionSourceError, match="question 'q': choices 1 and 3 both carry the key 'a'"):
        take_keys("q", ["- {key}`a` One.", "- {key}`b` Two.", "- {key}`a` Three."])
    with pytest.raises(QuestionSourceError, match="key 'a b' of its choice 1 is not a name"):
        take_keys("q", ["- {key}`a b` One."])
    with pytest.raises(QuestionSourceError, match="the answer is 'c', which no choice carries"):
        checked_answer("q", "choice", ["a", "b"], "c")
    with pytest.raises(QuestionSourceError, match="not an order of the items' keys"):
        checked_answer("q", "order", ["a", "b"], ["a", "a"])


def question_block(docname: str, qid: str) -> str:
    """The ```{question} block of `qid` on a page of the book, as written."""
    text = (ROOT / "book" / f"{docname}.md").read_text(encoding="utf8")
    found = re.search(rf"^```\{{question\}}\n:id: {re.escape(qid)}\n.*?^```$", text, re.MULTILINE | re.DOTALL)
    assert found, f"{docname} has no question {qid!r}"
    return found[0]


def reversed_choices(block: str) -> str:
    """The block with its choices (each bullet and its indented lines) in reverse order."""
    lines = block.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("- "))
    last = max(i for i, line in enumerate(lines) if line.startswith(("- ", "  ")) or not line) + 1
    while not lines[last - 1]:
        last -= 1
    choices: list[list[str]] = []
    for line in lines[first:last]:
        if line.startswith("- "):
            choices.append([])
        choices[-1].append(line)
    return "\n".join(lines[:first] + [line for choice in reversed(choices) for line in choice] + lines[last:])


def build(project: Path, pages: dict[str, str], language: str = "en") -> tuple[str, dict[str, BeautifulSoup]]:
    """A small Sphinx project of `pages` (docname: MyST text) with the question extension: its warnings
    and each page's HTML."""
    from sphinx.application import Sphinx

    shutil.rmtree(project / "_build", ignore_errors=True)
    project.mkdir(parents=True, exist_ok=True)
    (project / "conf.py").write_text(CONF, encoding="utf8")
    for docname, text in pages.items():
        (project / f"{docname}.md").parent.mkdir(parents=True, exist_ok=True)
        (project / f"{docname}.md").write_text(text, encoding="utf8")
    warnings, out = io.StringIO(), project / "_build"
    overrides = {"language": language, "root_doc": next(iter(pages))}
    Sphinx(str(project), str(project), str(out / "html"), str(out / "doctrees"), "html",
           confoverrides=overrides, status=None, warning=warnings, freshenv=True).build()
    html = {docname: BeautifulSoup((out / "html" / f"{docname}.html").read_text(encoding="utf8"),
                                   "html.parser") for docname in pages}
    return warnings.getvalue(), html


def choices(page: BeautifulSoup) -> tuple[dict[str, str], str, dict[str, str]]:
    """One question's choices on a page (key: the words of its label), its answer, and each feedback."""
    question = page.select_one("div.question")
    assert question is not None, "no question on the page"
    labels = {choice["data-key"]: choice.select_one("label").get_text(" ", strip=True)
              for choice in question.select(".question-choice")}
    feedback = {part["data-key"]: part.get_text(" ", strip=True)
                for part in question.select(".question-feedback")}
    return labels, json.loads(question["data-answer"]), feedback


@pytest.fixture(scope="module")
def step1_fresh() -> dict:
    return run_isolated("step1_fresh")


def test_reordered_choices_keep_their_keys_and_the_chinese_page_gets_the_english_keys(
        tmp_path: Path, step1_fresh: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    from bookkit.questions import sphinx_ext

    monkeypatch.setattr(sphinx_ext, "case_results", lambda root=None: {"step1_fresh": step1_fresh})
    block = question_block("05-step-1", "step1-node")
    page = "# Step 1\n\n" + block + "\n"
    reordered = "# Step 1\n\n" + reversed_choices(block) + "\n"
    assert reordered != page
    _, written = build(tmp_path / "written", {"book/05-step-1": page})
    _, moved = build(tmp_path / "moved", {"book/05-step-1": reordered})
    labels, answer, feedback = choices(written["book/05-step-1"])
    moved_labels, moved_answer, moved_feedback = choices(moved["book/05-step-1"])
    assert list(moved_labels) == list(reversed(labels)), "the page shows the choices in the source's order"
    assert moved_labels == labels and moved_feedback == feedback, "each key stays on its own choice"
    assert answer == moved_answer == step1_fresh["failed"]
    assert labels[answer].startswith("The bias") and "to_device node" in labels[answer], labels[answer]

    catalog = tmp_path / "zh" / "locale" / "zh_CN" / "LC_MESSAGES" / "book"
    catalog.mkdir(parents=True)
    shutil.copy(ROOT / "locale" / "zh_CN" / "LC_MESSAGES" / "book" / "05-step-1.po", catalog / "05-step-1.po")
    _, chinese = build(tmp_path / "zh", {"book/05-step-1": reordered}, language="zh_CN")
    zh_labels, zh_answer, _ = choices(chinese["book/05-step-1"])
    assert list(zh_labels) == list(moved_labels) and zh_answer == answer
    assert zh_labels[answer].startswith("偏置的"), zh_labels
    assert all(zh_labels[key] != labels[key] for key in labels), "every choice is translated"


BROKEN = {
    "missing": "- {key}`a` One.\n- Two.\n",
    "twice": "- {key}`a` One.\n- {key}`a` Two.\n",
    "unknown": "- {key}`a` One.\n- {key}`b` Two.\n",
}


def test_the_build_stops_on_a_choice_without_key_a_key_twice_an_answer_no_choice_has_or_keys_by_place(
        tmp_path: Path) -> None:
    def page(qid: str, choices: str, answer: str = "a", extra: str = "") -> str:
        return (f"# {qid}\n\n```{{question}}\n:id: {qid}\n:kind: choice\n{extra}:source: article\n"
                f":answer: {answer}\n\nWhich?\n\n{choices}```\n")

    pages = {qid: page(qid, choices, "c" if qid == "unknown" else "a") for qid, choices in BROKEN.items()}
    pages["by-place"] = page("by-place", "- One.\n- Two.\n", extra=":keys: a b\n")
    pages["stray"] = "# stray\n\nA {key}`a` in a paragraph.\n"
    warnings, html = build(tmp_path / "broken", pages)
    expected = {
        "missing": "question 'missing': its choice 2 (body line 4: '- Two.') has no key",
        "twice": "question 'twice': choices 1 and 2 both carry the key 'a'",
        "unknown": "question 'unknown': the answer is 'c', which no choice carries",
        "by-place": "question 'by-place': :keys: matched keys to bullets by their place and is gone",
        "stray": "{key}`a` names a choice: it belongs at the very start of a bullet",
    }
    for docname, message in expected.items():
        said = [line for line in warnings.splitlines() if f"{docname}.md" in line]
        assert any("ERROR" in line and message in line for line in said), f"{docname}: {said}"
        assert html[docname].select_one("div.question") is None


def cases_of(page: Path) -> list[str]:
    return sorted({question.options["case"] for question in page_questions(page)
                   if "case" in question.options})


@pytest.mark.slow
@pytest.mark.parametrize("page", [path for path in PAGES if cases_of(path)], ids=lambda path: path.stem)
def test_every_answer_a_case_computes_is_a_key_its_choices_carry(page: Path) -> None:
    """What the full build checks, for one page's questions, with each case run in a fresh process."""
    computed = {case: run_isolated(case) for case in cases_of(page)}
    for question in page_questions(page):
        if "case" in question.options:
            kind, options = question.options["kind"], question.options
            answer = computed[options["case"]][options["answer"]]
            checked_answer(question.qid, kind, question.keys, answer if kind == "order" else str(answer))
