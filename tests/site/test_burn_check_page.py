"""burn-check on chapter 12's page, in headless Chromium: every case of tests/burn_check_cases/ and the
article's program give the page exactly the findings the command gives (rule, place, title, sentence,
fix, assumptions, chapter), in English and in Chinese; bad input is said, not crashed on; a reader's
code survives loading an example; the keyboard reaches everything; the page fits 390 px in both themes.

A pasted 500-line file's check is timed with performance.now() and written to
`_build/burn-check-timing.json` for `make bench` (a figure to report, not a timed assertion).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
from book_outputs import book_build  # noqa: F401 (book_build is a fixture)
from browser_pages import NARROW, OVERFLOW_JS, OVERFLOW_TOLERANCE_PX, SCREENSHOTS, WIDE, show_dark

from bookkit.burn_check import EXAMPLES
from bookkit.burn_check.command import run

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]

ROOT = Path(__file__).resolve().parents[2]
PAGE = "book/12-am-i-hit.html"
CASES = sorted((ROOT / "tests" / "burn_check_cases").glob("*.rs")) + [
    EXAMPLES / "article.rs", EXAMPLES / "split.rs", EXAMPLES / "learner.rs"]
TIMING = ROOT / "_build" / "burn-check-timing.json"
TIMED_LINES, TIMED_RUNS = 500, 7

# What a reader sees of each finding and notice, in the page's words.
SHOWN_JS = """(root) => [...root.querySelectorAll('.burn-check-findings li:not(.burn-check-more)')].map(li =>
  li.matches('.burn-check-notice') ? {kind: li.dataset.kind, message: li.querySelector('span').textContent,
     place: li.querySelector('.burn-check-goto')?.textContent ?? null}
  : {rule: li.dataset.rule, line: Number(li.dataset.line), column: Number(li.dataset.column),
     place: li.querySelector('.burn-check-goto').textContent,
     title: li.querySelector('.burn-check-title').textContent,
     code: li.querySelector('.burn-check-line').textContent,
     sentence: li.querySelector('.burn-check-sentence').textContent,
     fix: li.querySelector('.burn-check-fix').textContent,
     assumed: li.querySelector('.burn-check-assumed')?.textContent ?? null,
     chapter: li.querySelector('.burn-check-chapter').getAttribute('href')})"""


def plain(text: str) -> str:
    """Words as the page shows them: `code` spans lose their fences. A span opens with a run of
    backticks and closes with the same run (one space of padding inside each end dropped), as report.js
    writes a value that holds a backtick: `` a`b ``."""
    parts, rest = [], text
    while (opening := re.search(r"`+", rest)) is not None:
        fence = opening.group(0)
        closing = re.compile(rf"(?<!`){fence}(?!`)").search(rest, opening.end())
        if closing is None:
            break
        code = rest[opening.end():closing.start()]
        if len(code) > 2 and code.startswith(" ") and code.endswith(" "):
            code = code[1:-1]
        parts += [rest[:opening.start()], code]
        rest = rest[closing.end():]
    return "".join([*parts, rest])


def from_command(language: str) -> dict[str, dict[str, Any]]:
    result = run(["--format", "json", "--language", language, *[str(path) for path in CASES]], cwd=ROOT)
    return {Path(file["path"]).name: file for file in json.loads(result.stdout)["files"]}


def expected_on_page(file: dict[str, Any], words: dict[str, Any], lines: list[str]) -> list[dict[str, Any]]:
    """What the page must show for one file of the command's report."""
    shown = []
    for notice in file["notices"]:
        place = None
        if "line" in notice:
            place = words["page"]["position"].format(line=notice["line"], column=notice["column"])
        shown.append({"kind": notice["kind"], "message": plain(notice["message"]), "place": place})
    for finding in file["findings"]:
        assumed = None
        if finding["assumed"]:
            listed = words["assumed"]["separator"].join(finding["assumed"])
            assumed = plain(words["page"]["assumed"].format(list=listed))
        shown.append({
            "rule": finding["rule"], "line": finding["line"], "column": finding["column"],
            "place": words["page"]["position"].format(line=finding["line"], column=finding["column"]),
            "title": f"{finding['number']}. {plain(finding['title'])}", "code": lines[finding["line"] - 1],
            "sentence": plain(finding["sentence"]), "fix": plain(finding["fix"]), "assumed": assumed,
            "chapter": f"{finding['chapter']['page']}.html#{finding['chapter']['anchor']}",
        })
    return shown


def words_of(language: str) -> dict[str, Any]:
    path = ROOT / "bookkit" / "burn_check" / "words" / f"{language}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def check(page, root, text: str) -> list[dict[str, Any]]:
    """Puts `text` in the box, presses Check, and returns what the page then shows."""
    done = int(root.get_attribute("data-checks") or 0)
    root.locator("textarea").evaluate("(box, text) => { box.value = text; }", text)
    root.locator("button.burn-check-run").click()
    page.wait_for_function("([root, done]) => Number(root.dataset.checks || 0) > done",
                           arg=[root.element_handle(), done])
    return root.evaluate(SHOWN_JS)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_case_gives_the_page_the_findings_the_command_gives(visit, language: str) -> None:
    command = from_command(language)
    words = words_of(language)
    opened = visit(PAGE, WIDE, language)
    root = opened.page.locator("div.burn-check")
    assert root.get_attribute("lang") == language.replace("_", "-")
    for path in CASES:
        text = path.read_text(encoding="utf-8")
        shown = check(opened.page, root, text)
        assert shown == expected_on_page(command[path.name], words, text.split("\n")), path.name
    assert opened.console_errors() == [] and opened.network == []


def test_the_article_example_is_flagged_in_chinese_on_the_chinese_page(visit) -> None:
    opened = visit(PAGE, WIDE, "zh_CN")
    root = opened.page.locator("div.burn-check")
    root.get_by_role("button", name="文章里的程序").click()
    root.get_by_role("button", name="检查").click()
    opened.page.wait_for_function("(root) => root.dataset.checks", arg=root.element_handle())
    titles = [item["title"] for item in root.evaluate(SHOWN_JS)]
    assert titles == ["5. 没有第 0 步检查", "1. 搬过去，然后训练", "4. 来自普通设备，却没有 .train()",
                      "4. 来自普通设备，却没有 .train()"]
    assert root.locator(".burn-check-status").text_content() == "3 条需要修，1 条仅供参考。"


def test_bad_input_is_said_on_the_page(visit, tmp_path: Path) -> None:
    opened = visit(PAGE, WIDE, "en")
    root = opened.page.locator("div.burn-check")
    [empty] = check(opened.page, root, "  \n")
    assert empty["kind"] == "empty"
    [python] = check(opened.page, root, "def train(model):\n    return model.to(device)\n")
    assert python["kind"] == "not-rust" and python["place"] == "Line 1, column 1"
    done = int(root.get_attribute("data-checks"))
    before = root.locator("textarea").input_value()
    root.locator("textarea").evaluate("""(box) => {
      const data = new DataTransfer();
      data.setData('text/plain', 'fn f() {}\\n'.repeat(600000));
      box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
    }""")
    opened.page.wait_for_function("([root, done]) => Number(root.dataset.checks) > done",
                                  arg=[root.element_handle(), done])
    [large] = root.evaluate(SHOWN_JS)
    assert large["kind"] == "too-large" and large["message"].startswith("Not read: 6.0 MB")
    assert root.locator("textarea").input_value() == before  # the 6 MB never reached the box
    broken = check(opened.page, root, (ROOT / "tests/burn_check_cases/flag_syntax_error_rest.rs").read_text())
    assert [item.get("kind") or item["rule"] for item in broken] == ["syntax-error", "moved-then-trained"]
    latin1 = tmp_path / "latin1.rs"
    latin1.write_bytes(b"fn main() { // \xe9t\xe9\n}\n")
    done = int(root.get_attribute("data-checks"))
    root.locator("input[type=file]").set_input_files(str(latin1))
    opened.page.wait_for_function("([root, done]) => Number(root.dataset.checks) > done",
                                  arg=[root.element_handle(), done])
    [notice] = root.evaluate(SHOWN_JS)
    assert notice["kind"] == "not-utf8" and "offset 15" in notice["message"]
    # The control is emptied after each file, so choosing the same file again (edited) is a change.
    assert root.locator("input[type=file]").input_value() == ""
    assert opened.console_errors() == []


def test_the_readers_code_survives_an_example(visit) -> None:
    opened = visit(PAGE, WIDE, "en")
    root = opened.page.locator("div.burn-check")
    box = root.locator("textarea")
    box.fill("fn mine() { let model = model.to_device(&device); }")
    root.get_by_role("button", name="A split model").click()
    assert box.input_value() == (EXAMPLES / "split.rs").read_text(encoding="utf-8")
    yours = root.get_by_role("button", name="Your code")
    assert yours.is_visible()
    opened.page.reload()
    root = opened.page.locator("div.burn-check")
    # Kept across a reload of the tab: back in the box, and the page says so.
    assert root.locator("textarea").input_value() == "fn mine() { let model = model.to_device(&device); }"
    opened.page.wait_for_function("(status) => status.textContent.includes('back in the box')",
                                  arg=root.locator(".burn-check-status").element_handle())
    root.get_by_role("button", name="A split model").click()
    root.get_by_role("button", name="Your code").click()
    assert root.locator("textarea").input_value() == "fn mine() { let model = model.to_device(&device); }"


def test_the_keyboard_reaches_the_examples_the_check_and_each_line(visit) -> None:
    opened = visit(PAGE, WIDE, "en")
    page = opened.page
    root = page.locator("div.burn-check")
    root.get_by_role("button", name="The article's program").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "burn-check-source"
    page.keyboard.press("Control+Enter")
    page.wait_for_function("(root) => root.dataset.checks", arg=root.element_handle())
    moved = root.locator("li[data-rule='moved-then-trained'] .burn-check-goto")
    line = int(root.locator("li[data-rule='moved-then-trained']").get_attribute("data-line"))
    for _ in range(40):  # from the box, Tab goes through Check, the file input, then the findings' links
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement") and moved.evaluate("(a) => a === document.activeElement"):
            break
    else:
        pytest.fail("Tab never reached the first finding's link")
    page.keyboard.press("Enter")
    selected = page.evaluate("""() => { const box = document.activeElement;
      return [box.id, box.value.slice(0, box.selectionStart).split('\\n').length,
              box.value.slice(box.selectionStart, box.selectionEnd)]; }""")
    assert selected[0] == "burn-check-source" and selected[1] == line
    assert selected[2].startswith("to_device(&metal)")


def test_thousands_of_findings_are_counted_and_only_the_first_are_listed(visit) -> None:
    opened = visit(PAGE, WIDE, "en")
    root = opened.page.locator("div.burn-check")
    lines = ["fn main() {", "    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();"]
    for k in range(1500):
        lines += [f'    let m{k} = Mlp::load("w.bpk", &Device::flex().autodiff()).to_device(&gpu);',
                  f"    let m{k} = optim.step(1e-3, m{k}, grads);"]
    shown = check(opened.page, root, "\n".join([*lines, "}"]))
    assert len(shown) == 200 and all(item["rule"] == "moved-then-trained" for item in shown)
    assert root.locator("li.burn-check-more").text_content() == \
        "1300 more not shown here: the command burn-check lists them all."
    assert root.locator(".burn-check-status").text_content() == "1500 to fix, 0 for information."
    assert opened.console_errors() == []


def test_a_finding_far_right_in_a_long_line_is_scrolled_into_view_at_390_px(visit) -> None:
    opened = visit(PAGE, NARROW, "en")
    page = opened.page
    root = page.locator("div.burn-check")
    case = ROOT / "tests" / "burn_check_cases" / "flag_backtick_and_wide_characters.rs"
    long = 'Mlp::load("' + "w😀" * 30 + '.bpk"'  # the move 90 characters to the right: off a phone's box
    text = case.read_text(encoding="utf-8").replace('Mlp::load("w`1😀.bpk"', long)
    [finding] = [item for item in check(page, root, text) if item.get("rule") == "moved-then-trained"]
    root.locator(f"li[data-line='{finding['line']}'] .burn-check-goto").click()
    seen = root.locator("textarea").evaluate("""(box) => ({
      selected: box.value.slice(box.selectionStart, box.selectionEnd), left: box.scrollLeft,
      width: box.clientWidth})""")
    assert seen["selected"].startswith("to_device(&gpu)")  # the column counts characters: each 😀 is one
    assert seen["left"] > 0, "the box was not scrolled sideways to the finding's column"
    assert opened.console_errors() == []


@pytest.mark.parametrize("width", [WIDE, NARROW])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_checker_fits_the_width_in_both_themes(visit, width: int, language: str) -> None:
    opened = visit(PAGE, width, language)
    page = opened.page
    root = page.locator("div.burn-check")
    root.locator("button[data-example='article']").click()
    root.locator("button.burn-check-run").click()
    page.wait_for_function("(root) => root.dataset.checks", arg=root.element_handle())
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        if theme == "dark":
            show_dark(page)
        overflow = page.evaluate(OVERFLOW_JS, OVERFLOW_TOLERANCE_PX)
        wide = overflow["scrollWidth"] > overflow["viewport"] + OVERFLOW_TOLERANCE_PX
        assert not wide, (theme, overflow["culprits"])
        root.screenshot(path=str(SCREENSHOTS / f"burn-check-{language}-{width}-{theme}.png"))
    assert opened.console_errors() == []


def test_a_pasted_500_line_file_is_checked_and_timed(visit) -> None:
    """Timed for `make bench` (target: 100 ms), not asserted: no test depends on the machine's load."""
    opened = visit(PAGE, WIDE, "en")
    root = opened.page.locator("div.burn-check")
    source = ROOT / "tests" / "burn_check_cases" / "flag_custom_loop.rs"
    lines = source.read_text(encoding="utf-8").splitlines()
    body = [line for line in lines if not line.startswith("//")]
    text = "\n".join(re.sub(r"\bmain\b", f"main_{k}", line) for k in range(TIMED_LINES // len(body) + 1)
                     for line in body)
    text = "\n".join(text.split("\n")[:TIMED_LINES])
    times = []
    for _ in range(TIMED_RUNS):
        shown = check(opened.page, root, text)
        assert any(item.get("rule") == "moved-then-trained" for item in shown)
        times.append(float(root.get_attribute("data-check-ms")))
    TIMING.parent.mkdir(parents=True, exist_ok=True)
    TIMING.write_text(json.dumps({
        "median_ms": statistics.median(times), "max_ms": max(times), "runs": TIMED_RUNS, "lines": TIMED_LINES,
        "chromium": opened.page.context.browser.version, "measured": time.strftime("%Y-%m-%d")}))
