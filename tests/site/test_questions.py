"""The chapters' questions (bookkit/questions/: sphinx_ext.py, questions.js): their count, keys, the page.

Every chapter 1-13 asks at least three questions and each part has an ordering problem;
every key a run backs equals what its case gives in a fresh process, and so does every
value a question prints; every wrong choice has an explanation of its own that links to
an id its target page has. In Chromium, in both editions: each choice shows its own
feedback and only the right one is marked right; an ordering is solved with the keyboard
alone; progress survives a reload and clears; the landing page shows each chapter's score;
axe-core finds nothing serious on a page with answered questions; without JavaScript each
question keeps its answer and explanations in a collapsed <details>.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
import yaml
from book_outputs import EDITIONS, ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)
from browser_pages import NARROW, WIDE
from bs4 import BeautifulSoup
from test_axe import report, violations

from bookkit.runs.question_cases import CASES, UnknownCaseError, field, run_isolated
from bookkit.words import words

QUESTION = re.compile(r"^```\{question\}\n(?P<options>(?::[\w-]+:.*\n)+)", re.MULTILINE)
PAGE_LIMIT_BYTES = 1_500_000


def parts() -> list[list[str]]:
    """The docnames of each numbered part of _toc.yml (the chapters and their sections)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf8"))

    def files(entries: list) -> list[str]:
        return [name for entry in entries for name in [entry["file"], *files(entry.get("sections", []))]]

    return [files(part["chapters"]) for part in toc["parts"] if part.get("numbered")]


def chapters() -> list[str]:
    """Chapters 1-13: every page of the numbered parts except sections of a chapter (8a)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf8"))
    return [entry["file"] for part in toc["parts"] if part.get("numbered") for entry in part["chapters"]]


def source_questions(docname: str) -> list[dict[str, str]]:
    """Each `{question}` block's options in a chapter's MyST source."""
    text = (ROOT / f"{docname}.md").read_text(encoding="utf8")
    return [dict(re.findall(r"^:([\w-]+): ?(.*)$", match["options"], re.MULTILINE))
            for match in QUESTION.finditer(text)]


# ----- the sources: no build needed ---------------------------------------------------------------


def test_there_are_thirteen_chapters_in_two_parts() -> None:
    assert len(chapters()) == 13
    assert len(parts()) == 2


@pytest.mark.parametrize("docname", chapters())
def test_every_chapter_asks_at_least_three_questions(docname: str) -> None:
    found = source_questions(docname)
    assert len(found) >= 3, f"{docname} has {len(found)} questions"
    for options in found:
        assert options.get("case") or options.get("source"), \
            f"{docname} {options['id']}: no :case: nor :source:"


@pytest.mark.parametrize("part", range(2), ids=["part one", "part two"])
def test_every_part_has_an_ordering_problem(part: int) -> None:
    kinds = [options["kind"] for docname in parts()[part] for options in source_questions(docname)]
    assert "order" in kinds, f"part {part + 1} has no question of kind order"


def test_every_case_a_question_names_exists() -> None:
    named = {options["case"] for docname in chapters() for options in source_questions(docname)
             if "case" in options}
    assert named <= set(CASES), f"unknown cases: {sorted(named - set(CASES))}"


def test_a_case_runs_in_a_fresh_process_so_its_ids_are_the_articles() -> None:
    fresh = run_isolated("step1_fresh")
    assert (fresh["weight_leaf_id"], fresh["bias_leaf_id"]) == (0, 1)
    assert fresh["failed_id"] == fresh["bias_move_id"] and fresh["failed"] == "bias_move"


def test_an_unknown_case_or_field_says_what_there_is() -> None:
    with pytest.raises(UnknownCaseError, match="no question case 'nothing'.*step1_fresh"):
        field({"step1_fresh": {"failed": "bias_move"}}, "nothing.failed")
    with pytest.raises(UnknownCaseError, match="has no field 'node'; it has: failed"):
        field({"step1_fresh": {"failed": "bias_move"}}, "step1_fresh.node")


# ----- the built pages --------------------------------------------------------------------------


def page(language: str, docname: str) -> BeautifulSoup:
    return BeautifulSoup((SITE / language / f"{docname}.html").read_text(encoding="utf8"), "html.parser")


@functools.cache
def fresh(case: str) -> dict:
    return run_isolated(case)


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", chapters())
def test_each_page_shows_its_questions_with_keys_the_engine_gives_in_a_fresh_process(docname: str,
                                                                                     language: str) -> None:
    html = page(language, docname)
    questions = html.select("div.question")
    assert len(questions) == len(source_questions(docname)) >= 3
    for question in questions:
        qid, answer = question["data-question"], json.loads(question["data-answer"])
        choices = question.select(".question-choice label, .question-item-text")
        assert all(choice.get_text(strip=True) for choice in choices), f"{qid}: a choice without words"
        keys = [item["data-key"] for item in question.select(".question-choice, .question-item")]
        if question["data-kind"] == "order":
            assert sorted(answer) == sorted(keys), qid
        else:
            assert answer in keys, qid
        if question.has_attr("data-case"):
            case, _, name = question["data-case"].partition(".")
            expected = fresh(case)[name]
            assert answer == (expected if isinstance(expected, list) else str(expected)), qid
    for value in html.select("span.question-value"):
        case, _, name = value["data-case"].partition(".")
        expected = fresh(case)[name]
        shown = ", ".join(map(str, expected)) if isinstance(expected, list) else str(expected)
        assert value.get_text() == shown, value["data-case"]


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
def test_every_choice_has_its_own_explanation_and_every_wrong_one_links_to_the_page_that_shows_it(
        language: str) -> None:
    for docname in chapters():
        for question in page(language, docname).select("div.question"):
            qid = question["data-question"]
            explained = question.select("details.question-answer .question-feedback")
            assert len(explained) == len(question.select(".question-choice, .question-item")), qid
            texts = [item.get_text(" ", strip=True) for item in explained]
            assert len(set(texts)) == len(texts), f"{qid}: two choices share an explanation"
            for item in explained:
                assert len(item.find_all("p")) >= 2 or question["data-kind"] == "order", qid
                if item.get("data-right") == "false":
                    assert item.select("a[href]"), f"{language}/{docname} {qid}: the wrong choice " \
                                                   f"{item['data-key']} links nowhere"
                for link in item.select("a[href]"):
                    target, _, anchor = link["href"].partition("#")
                    here = SITE / language / f"{docname}.html"
                    path = here.parent / target if target else here
                    assert anchor and f'id="{anchor}"' in Path(path).read_text(encoding="utf8"), link["href"]


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", chapters())
def test_chapter_pages_stay_under_the_size_limit(docname: str, language: str) -> None:
    assert (SITE / language / f"{docname}.html").stat().st_size <= PAGE_LIMIT_BYTES


# ----- in the browser ----------------------------------------------------------------------------

STATE_JS = """(root) => ({
  status: root.querySelector('.question-status').innerText,
  right: root.querySelectorAll('.question-status .question-is-right').length,
  wrong: root.querySelectorAll('.question-status .question-is-wrong').length,
  marked: [...root.querySelectorAll('.question-chosen-right, .question-chosen-wrong')].map(
    e => [e.dataset.key, e.classList.contains('question-chosen-right')]),
  feedback: Object.fromEntries([...root.querySelectorAll('details .question-feedback')].map(e => {
    const copy = e.cloneNode(true); copy.querySelector('.question-verdict')?.remove();
    return [e.dataset.key, copy.innerText.trim()];
  })),
})"""

# Each choice in turn chosen and checked with a click (the element's own, as `STATE_JS` reads it: one
# call for a question's choices, not three round trips to the browser a choice).
CHOSEN_JS = f"""(root, keys) => {{
  const state = {STATE_JS};
  return keys.map(key => {{
    root.querySelector(`input[type=radio][value="${{key}}"]`).click();
    root.querySelector('.question-check').click();
    return state(root);
  }});
}}"""


def said(language: str) -> dict[str, str]:
    return words(language, "page")["questions"]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", chapters())
def test_each_choice_shows_its_own_feedback_and_only_the_right_one_is_marked_right(
        visit, docname: str, language: str) -> None:
    opened = visit(f"{docname}.html", WIDE, language)
    for root in opened.page.locator("div.question").all():
        if root.get_attribute("data-kind") == "order":
            continue
        answer = json.loads(root.get_attribute("data-answer"))
        first, *others = root.locator("input[type=radio]").all()
        first.check()  # the first choice as a pointer picks it; the others in one call
        root.locator(".question-check").click()
        keys = [radio.get_attribute("value") for radio in (first, *others)]
        states = [root.evaluate(STATE_JS), *root.evaluate(CHOSEN_JS, keys[1:])]
        for key, state in zip(keys, states, strict=True):
            own, shown = " ".join(state["feedback"][key].split()), " ".join(state["status"].split())
            assert own and own in shown, (docname, key)  # hidden <details> text keeps its line breaks
            assert state["marked"] == [[key, key == answer]], (docname, key)
            assert (state["right"], state["wrong"]) == ((1, 0) if key == answer else (0, 1)), (docname, key)
            verdict = said(language)["right" if key == answer else "wrong"]
            assert state["status"].startswith(verdict)
    assert opened.console_errors() == [] and opened.network == []


def solve_with_the_keyboard(page, root) -> int:
    """Put the items in the right order with Tab, Shift+Tab and Enter only; return the key presses."""
    answer = json.loads(root.get_attribute("data-answer"))
    presses = 0
    for place, key in enumerate(answer):
        while True:
            keys = root.evaluate("r => [...r.querySelectorAll('ol.question-order > li')]"
                                 ".map(li => li.dataset.key)")
            at = keys.index(key)
            if at == place:
                break
            root.locator(f'li[data-key="{key}"] [data-move="up"]').focus()
            page.keyboard.press("Enter")
            presses += 1
            focused = page.evaluate("() => document.activeElement.closest('li')?.dataset.key")
            assert focused == key, "the focus stays on the item that moved"
    return presses


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", ["book/04-step-0", "book/07-training-works", "book/11-when-to_device"])
def test_an_ordering_is_solved_with_the_keyboard_alone(visit, docname: str, language: str) -> None:
    opened = visit(f"{docname}.html", NARROW, language)
    root = opened.page.locator('div.question[data-kind="order"]').first
    root.locator(".question-check").focus()
    opened.page.keyboard.press("Enter")  # first as it stands: not right
    assert root.locator(".question-status .question-is-wrong").count() == 1
    assert root.locator(".question-misplaced").count() >= 1
    assert solve_with_the_keyboard(opened.page, root) > 0
    root.locator(".question-check").focus()
    opened.page.keyboard.press("Space")
    assert root.locator(".question-status .question-is-right").count() == 1
    assert root.locator(".question-misplaced").count() == 0
    first_down = root.locator("ol.question-order > li").first.locator('[data-move="up"]')
    assert first_down.get_attribute("aria-disabled") == "true"
    assert opened.console_errors() == []


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
def test_progress_survives_a_reload_shows_on_the_landing_page_and_clears(visit, language: str) -> None:
    opened = visit("book/05-step-1.html", WIDE, language)
    page = opened.page
    total = page.locator("div.question").count()
    first = page.locator("div.question").first
    right = json.loads(first.get_attribute("data-answer"))
    first.locator(f'input[value="{right}"]').check()
    first.locator(".question-check").click()
    second = page.locator("div.question").nth(1)
    wrong = next(key for key in second.evaluate("r => [...r.querySelectorAll('input')].map(i => i.value)")
                 if key != json.loads(second.get_attribute("data-answer")))
    second.locator(f'input[value="{wrong}"]').check()
    second.locator(".question-check").click()
    progress = first.locator(".question-progress").inner_text()
    assert progress == said(language)["progress"].format(k=1, n=total)

    page.reload()
    first = page.locator("div.question").first
    assert first.locator(f'input[value="{right}"]').is_checked()
    assert first.locator(".question-status .question-is-right").count() == 1
    assert page.locator("div.question").nth(1).locator(f'input[value="{wrong}"]').is_checked()
    assert first.locator(".question-progress").inner_text() == progress

    page.goto(page.url.replace("book/05-step-1.html", "book/index.html"))
    score = page.locator('.question-score[data-page="book/05-step-1"]')
    assert score.inner_text() == said(language)["landing_progress"].format(k=1, n=total)
    assert page.locator('.question-score[data-page="book/04-step-0"]').inner_text() == \
        said(language)["landing_progress"].format(k=0, n=len(source_questions("book/04-step-0")))

    # "Clear all my progress" asks first: dismissed, every answer stays
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator(".question-clear-all").click()
    assert asked == [said(language)["clear_all_ask"].format(n=2)]
    assert score.inner_text() == said(language)["landing_progress"].format(k=1, n=total)

    page.go_back()
    clear = page.locator("div.question").first.locator(".question-clear")
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    clear.click()  # a misclick, dismissed: nothing is lost
    assert asked[1:] == [said(language)["clear_ask"].format(n=2)]
    assert page.locator("div.question").first.locator(".question-progress").inner_text() == progress
    assert page.locator("input[type=radio]:checked").count() == 2
    page.once("dialog", lambda dialog: dialog.accept())
    clear.click()
    assert page.locator("div.question").first.locator(".question-progress").inner_text() == \
        said(language)["progress"].format(k=0, n=total)
    assert page.locator("input[type=radio]:checked").count() == 0
    page.reload()
    assert page.locator("input[type=radio]:checked").count() == 0
    assert page.evaluate("() => JSON.parse(localStorage.getItem('tds-questions') || '{}')") == {}

    first = page.locator("div.question").first  # answered again, then cleared from the landing page
    first.locator(f'input[value="{right}"]').check()
    first.locator(".question-check").click()
    page.goto(page.url.replace("book/05-step-1.html", "book/index.html"))
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(".question-clear-all").click()
    assert score.inner_text() == said(language)["landing_progress"].format(k=0, n=total)
    status = page.locator(".question-progress-list .question-status")
    assert status.inner_text() == said(language)["cleared_all"]
    assert page.evaluate("() => JSON.parse(localStorage.getItem('tds-questions') || '{}')") == {}
    assert opened.console_errors() == []


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
def test_clearing_with_nothing_kept_asks_nothing_and_says_so(visit, language: str) -> None:
    """An entry for a question the page no longer has is not an answer the reader sees: it is not
    counted, so nothing is asked, and the status says there was nothing to clear."""
    opened = visit("book/05-step-1.html", WIDE, language)
    page = opened.page
    page.evaluate("() => localStorage.setItem('tds-questions', JSON.stringify("
                  "{'book/05-step-1': {'a-question-since-removed': {right: true, answer: 'a'}}}))")
    page.reload()
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    first = page.locator("div.question").first
    first.locator(".question-clear").click()
    assert first.locator(".question-status").inner_text() == said(language)["nothing_to_clear"]
    page.goto(page.url.replace("book/05-step-1.html", "book/index.html"))
    page.locator(".question-clear-all").click()
    status = page.locator(".question-progress-list .question-status")
    assert status.inner_text() == said(language)["nothing_to_clear"]
    assert asked == [], "a dialog asked about answers the reader cannot see"
    assert opened.console_errors() == []


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
def test_a_new_choice_or_move_takes_away_the_last_checks_verdict(visit, language: str) -> None:
    opened = visit("book/04-step-0.html", WIDE, language)
    choice = opened.page.locator('div.question[data-kind="choice"]').first
    right = json.loads(choice.get_attribute("data-answer"))
    choice.locator(f'input[value="{right}"]').check()
    choice.locator(".question-check").click()
    assert choice.locator(".question-status .question-is-right").count() == 1
    choice.locator(f'input:not([value="{right}"])').first.check()
    assert choice.locator(".question-status").inner_text().strip() == ""
    assert choice.locator(".question-mark").count() == 0
    order = opened.page.locator('div.question[data-kind="order"]').first
    order.locator(".question-check").click()
    assert order.locator(".question-mark").count() > 0
    order.locator('button[data-move="down"]').first.click()
    assert order.locator(".question-mark").count() == 0
    assert opened.console_errors() == []


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("stored", [
    {"book/04-step-0": {"walk-order": {"right": False, "answer": "a"}}},  # an ordering kept as a choice
    {"book/04-step-0": {"step0-count": None}},
    {"book/04-step-0": "x"},
    [1, 2],
], ids=["other kind", "null answer", "chapter not an object", "store not an object"])
def test_an_odd_stored_answer_is_ignored_and_the_questions_still_work(visit, stored) -> None:
    opened = visit("book/04-step-0.html", WIDE, "en")
    page = opened.page
    page.evaluate("(value) => localStorage.setItem('tds-questions', value)", json.dumps(stored))
    page.reload()
    last = page.locator("div.question").last
    right = json.loads(last.get_attribute("data-answer"))
    last.locator(f'input[value="{right}"]').check()
    last.locator(".question-check").click()
    assert last.locator(".question-status .question-is-right").count() == 1
    page.goto(page.url.replace("book/04-step-0.html", "book/index.html"))
    assert page.locator('.question-score[data-page="book/04-step-0"]').inner_text() == \
        said("en")["landing_progress"].format(k=1, n=len(source_questions("book/04-step-0")))
    assert opened.console_errors() == []


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("width", [WIDE, NARROW], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", EDITIONS)
def test_answered_questions_have_no_serious_accessibility_violation(visit, language: str, width: int) -> None:
    opened = visit("book/04-step-0.html", width, language)
    for root in opened.page.locator("div.question").all():
        if root.get_attribute("data-kind") != "order":
            root.locator("input[type=radio]").last.check()
        root.locator(".question-check").click()
    found = violations(opened.page, "div.question")  # the page around them: test_axe's page checks
    assert not found, f"{language} at {width} px:\n{report(found)}"


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", EDITIONS)
def test_without_javascript_each_question_keeps_its_answer_in_a_collapsed_block(browser, server,
                                                                               language: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{server}{language}/book/05-step-1.html")
        for root in page.locator("div.question").all():
            details = root.locator("details.question-answer")
            assert details.count() == 1 and details.get_attribute("open") is None
            assert not root.locator(".question-check").is_visible()
            right = root.locator('details .question-feedback[data-right="true"]')
            # text_content: a collapsed <details> renders nothing, so its inner text is empty
            assert right.count() == 1 and said(language)["right_choice"] in right.text_content()
    finally:
        context.close()
