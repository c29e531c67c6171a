"""Live mode as a learner who tries to break it meets it: nothing misjudges them or loses their work.

Each test replays the steps of issue 41's learner on a page that `make live`'s servers serve (the
helpers of tests/site/test_live.py), in both editions where the words differ, and checks what the page
says and keeps: the notebook "Download my notebook" gives, what a check cell or a stale output
shows, the cause a status names, an edit that breaks a cell the page hides, two tabs of one
chapter, the Tab key in an editor, a new tab, Interrupt and Restart, the live bar's size, the
console, a closed tab's kernel, a kernel that never answers. Screenshots land in
`_build/screenshots/live-learner-*.png` (both widths, the dark theme, the keyboard's focus).
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from book_outputs import HTML, ROOT, SITE, book_build  # noqa: F401 (book_build is a fixture)
from browser_pages import show_dark, violations
from playwright.sync_api import Error as PlaywrightError
from test_live import READY_S, LivePage, MakeLive, kernel_action, kernels, live_pages, wait_until_done

from bookkit.words import words
from bookkit.workbook import chapters, exercises

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("book_build")]

CHAPTER = "book/04-step-0.html"
EDITIONS = ["en", "zh_CN"]
FIRST = "model = LinearConfig(4, 1)"
CHECK = "from mlx_autodiff import Distribution, Module, Tensor"  # ex-04-smoke-test's check (grader only)
LAST = "loss_again = "  # the chapter's last cell the reader can run, below every hidden one
ANSWER = '.live-answer[data-exercise="ex-04-smoke-test"]'
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def live() -> Iterator[MakeLive]:
    servers = MakeLive()
    yield servers
    servers.stop()


@pytest.fixture
def open_page(browser) -> Iterator:
    yield from live_pages(browser)


def chapter_url(live: MakeLive, edition: str, path: str = CHAPTER) -> str:
    return live.page_url(path).replace("/en/", f"/{edition}/")


def note(opened: LivePage, cell: int | str) -> str:
    selector = f".live-cell-{cell}" if isinstance(cell, int) else cell
    return opened.page.locator(f"{selector} .live-note").inner_text()


def run_and_wait(opened: LivePage, cell: int) -> str:
    """Run a cell with its own button and return its note once it says the run ended."""
    opened.cell(cell).locator(".live-controls").get_by_role(
        "button", name=opened.words["runCell"], exact=True).click()
    wait_until_done(opened, cell)
    text = note(opened, cell)
    opened.page.evaluate(f"delete document.querySelector('.live-cell-{cell} .live-note').dataset.state")
    return text


# ----- 1. the notebook the reader downloads -------------------------------------------------------


def book_solutions(name: str) -> list[str]:
    """The code of every solution cell of chapter `name`."""
    chapter = next(chapter for chapter in chapters(ROOT) if chapter.name == name)
    notebook = chapter.read()
    return [notebook.cells[i].source.strip() for ex in exercises(notebook, name) for i in ex.solution_cells]


@pytest.mark.parametrize("edition", EDITIONS)
def test_download_my_notebook_is_the_readers_own_in_the_pages_language(live, open_page, tmp_path,
                                                                         edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    first = opened.cell_index(FIRST)
    opened.go_live()
    data = opened.data()
    opened.set_code(first, "x = 41 + 1")
    opened.set_code(ANSWER, "my_answer = 1")
    with opened.page.expect_download() as download:
        opened.page.get_by_role("button", name=opened.words["download"]).click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == "04-step-0-mine.ipynb"
    mine = nbformat.read(path, as_version=4)
    nbformat.validate(mine)
    # the page's exercise notebook (`mlx-autodiff-exercises get --language`), with the reader's code in it
    given = nbformat.read(SITE / edition / "exercises" / "04-step-0.ipynb", as_version=4)
    code = [cell.source.strip() for cell in mine.cells if cell.cell_type == "code"]
    leaked = [solution for solution in book_solutions("04-step-0") if solution in code]
    assert not leaked, f"the book's solutions are in the reader's notebook: {leaked}"
    answers = [cell for cell in mine.cells if cell.metadata.get("exercise") == "ex-04-smoke-test"
               and "check" not in cell.metadata.get("tags", [])]
    assert [cell.source for cell in answers] == ["my_answer = 1"]
    edited = next(entry["nb"] for entry in data["cells"] if entry["index"] == first)
    assert [cell.source for cell in mine.cells if cell.id == edited] == ["x = 41 + 1"]
    assert [cell.id for cell in mine.cells] == [cell.id for cell in given.cells]
    untouched = [(cell.id, cell.source) for cell in mine.cells if cell.id != edited and cell not in answers]
    assert untouched == [(cell.id, cell.source) for cell in given.cells if cell.id != edited
                         and cell.id not in {answer.id for answer in answers}]
    prose = "\n".join(cell.source for cell in mine.cells if cell.cell_type == "markdown")
    for myst in ("{glue", "```{", ":label:", "{exercise}", "{solution"):
        assert myst not in prose, f"MyST {myst!r} in the reader's notebook"
    if edition == "zh_CN":
        paragraphs = [cell.source for cell in mine.cells if cell.cell_type == "markdown"]
        in_chinese = sum(bool(HAN.search(text)) for text in paragraphs)
        assert in_chinese > 0.9 * len(paragraphs), "prose left in English"
    assert not opened.errors, opened.errors


def test_a_page_without_exercises_downloads_as_plain_markdown_in_its_language(live, open_page,
                                                                              tmp_path) -> None:
    opened = open_page(chapter_url(live, "zh_CN", "book/a1-engine-tour.html"))
    first = opened.cell_index("flex, metal = Device.flex()")
    opened.go_live()
    opened.set_code(first, "flex = 'mine'")
    with opened.page.expect_download() as download:
        opened.page.get_by_role("button", name=opened.words["download"]).click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    mine = nbformat.read(path, as_version=4)
    assert "flex = 'mine'" in [cell.source for cell in mine.cells]
    prose = [cell.source for cell in mine.cells if cell.cell_type == "markdown"]
    assert HAN.search(prose[0]) and not any("{glue" in text or "```{" in text for text in prose)


# ----- 2. outputs that are not the reader's -------------------------------------------------------


def test_check_cells_and_earlier_errors_never_pass_for_the_readers_output(live, open_page) -> None:
    opened = open_page(live.page_url())
    check = opened.cell_index(CHECK)
    last = opened.cell_index(LAST)
    loss = opened.cell_index("loss = MseLoss()")  # needs `model`, from a visible cell above
    # the check is the book's code to read: no output a reader could take for a verdict, no editor
    assert not opened.cell(check).locator(".cell_output").count()
    opened.go_live()
    assert not opened.cell(check).locator(".CodeMirror").count()
    assert not opened.cell(check).locator(".cell_output").count()
    passed, _, code = opened.check(ANSWER)
    assert not passed and code == "not_done", code  # the stub: NotImplementedError, so no verdict of "ok"

    assert run_and_wait(opened, loss).startswith("raised NameError")
    assert opened.click(loss, "runAllAbove").startswith("ran the")
    stale = opened.cell(loss).locator(".live-stale-note")
    assert stale.is_visible() and stale.inner_text() == opened.words["staleBeforeAbove"]
    assert run_and_wait(opened, loss).startswith("ran")
    assert not stale.is_visible()

    # "ran the N cells above": N is what the page shows, and it says how many it does not
    said = opened.click(last, "runAllAbove")
    data = opened.data()
    above = [entry for entry in data["cells"] if entry["index"] < last and "exercise" not in entry]
    shown = sum(opened.cell(entry["index"]).locator(".CodeMirror").count() for entry in above)
    hidden = len(above) - shown
    assert said.startswith(f"ran the {shown} cells above, and {hidden} cells the page does not show"), said
    assert not opened.errors, opened.errors


# ----- 3. the cause a status names ----------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_os_exit_in_the_readers_cell_is_named_as_the_cause(live, open_page, edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    first = opened.cell_index(FIRST)
    opened.go_live()
    opened.set_code(first, "import os\nos._exit(1)")
    opened.cell(first).get_by_role("button", name=opened.words["runCell"]).click()
    opened.wait_for_state("restarted", 60)
    where = opened.words["cellStarting"].replace("{code}", "import os")
    said = opened.words["diedInCell"].replace("{where}", where)
    assert opened.status.inner_text().endswith(said), opened.status.inner_text()
    assert note(opened, first) == opened.words["unfinished"]
    assert not opened.errors, opened.errors


def test_a_cell_run_after_the_kernel_was_deleted_says_it_did_not_run(live, open_page) -> None:
    opened = open_page(live.page_url())
    first = opened.cell_index(FIRST)
    opened.go_live()
    assert run_and_wait(opened, first).startswith("ran in")
    kernel_action(live, opened.kernel_id(), "delete")
    opened.wait_for_state("disconnected", 10)
    assert "shut down from outside this page" in opened.status.inner_text()
    assert run_and_wait(opened, first) == opened.words["notRunLost"]
    assert not opened.errors, opened.errors


def test_a_kernel_deleted_then_its_server_stopped_says_the_server_went(open_page) -> None:
    """The session forgets its kernel once the kernel is shut down: the watch that asks whether the
    server is stopping too read the forgotten kernel's id and threw (a TypeError in live-watch.js, a
    third learner's run, the server stopped 15 s after the kernel), and it stopped asking after 6 s
    anyway, so the server's going was never said and the status still asked for a restart."""
    servers = MakeLive()
    try:
        opened = open_page(servers.page_url())
        opened.go_live()
        kernel_action(servers, opened.kernel_id(), "delete")
        opened.wait_for_state("disconnected", 10)
        opened.page.wait_for_timeout(10_000)  # the server stops later than its quick asks (about 6 s)
    finally:
        servers.stop()
    lost = opened.words["lost"].split("{why}")[0]
    opened.page.wait_for_function("t => document.querySelector('.live-status[role=status]').textContent"
                                  ".includes(t)", arg=lost, timeout=30_000)
    # what the browser itself logs for the stopped server's refused requests, and nothing else (the
    # TypeError was a page error)
    assert all(text.endswith("net::ERR_CONNECTION_REFUSED") and url.startswith(servers.kernels)
               for text, url in opened.errors), opened.errors


def test_a_queued_cell_says_it_waits_and_its_time_is_its_own(live, open_page) -> None:
    opened = open_page(live.page_url())
    first = opened.cell_index(FIRST)
    graph = opened.cell_index("after_backward", whole=True)
    opened.go_live()
    opened.set_code(first, "import time\nfor step in range(20):\n"
                           "    print(step, flush=True)\n    time.sleep(0.1)")
    opened.set_code(graph, "quick = 6 * 7")
    opened.cell(first).get_by_role("button", name="Run cell").click()
    opened.page.wait_for_function(f"() => document.querySelector('.live-cell-{first} .cell_output')"
                                  ".textContent.includes('3')", timeout=READY_S * 1000)
    # the loop's output is live, from the code above it: no note says it is from the code before
    assert not opened.cell(first).locator(".live-stale-note").is_visible()
    opened.cell(graph).get_by_role("button", name="Run cell").click()
    assert note(opened, graph) == opened.words["waitingTurn"]
    wait_until_done(opened, graph)
    took = int(opened.page.evaluate(f"document.querySelector('.live-cell-{graph} .live-note').dataset.ms"))
    assert took < 1000, f"the quick cell's time includes its wait: {took} ms"
    assert not opened.errors, opened.errors


def test_a_stopped_server_says_run_make_live_and_offers_no_restart(open_page) -> None:
    servers = MakeLive()
    try:
        opened = open_page(servers.page_url())
        opened.go_live()
    finally:
        servers.stop()
    opened.wait_for_state("disconnected", 60)
    opened.page.wait_for_function("() => document.querySelector('.live-status[role=status]').textContent"
                                  ".includes('make live')", timeout=30_000)
    assert not opened.page.get_by_role("button", name=opened.words["restart"]).is_visible()
    assert opened.page.get_by_role("button", name=opened.words["reconnect"]).is_visible()
    opened.screenshot("learner-server-stopped")


# ----- 4. an edit that breaks a cell the page hides -----------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_an_edit_that_breaks_a_hidden_cell_names_it_and_offers_to_reset_it(live, open_page,
                                                                           edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    edited = opened.cell_index("stepped = optim.")  # a hidden cell below it reads `stepped`
    last = opened.cell_index(LAST)
    opened.go_live()
    book = opened.code(edited)
    opened.set_code(edited, "stepped_later = 1.0")
    said = opened.click(last, "runAllAbove")
    stopped = opened.words["stoppedRaised"].replace("{where}", opened.words["hiddenCell"])
    assert said.startswith(stopped.split("{name}")[0] + "NameError"), said
    hint = opened.cell(last).locator(".live-hint")
    culprit = opened.words["cellStarting"].replace("{code}", "stepped_later = 1.0")
    assert opened.words["brokenBy"].replace("{names}", "stepped").replace("{where}", culprit) in (
        hint.inner_text())
    opened.screenshot(f"learner-hidden-cell-{edition}")
    hint.get_by_role("button", name=opened.words["resetThatCell"]).click()
    assert opened.code(edited) == book
    assert opened.page.evaluate(f"!!document.activeElement.closest('.live-cell-{edited}')")
    opened.page.keyboard.press("Control+z")  # the reader's code is one undo away
    assert opened.code(edited) == "stepped_later = 1.0"
    opened.page.keyboard.press("Control+y")
    assert opened.click(last, "runAllAbove").startswith(("ran the", "已运行"))
    assert not opened.errors, opened.errors


# ----- 5. two tabs of one chapter -----------------------------------------------------------------


def test_two_tabs_of_one_chapter_keep_each_others_edits(live, open_page) -> None:
    one = open_page(live.page_url())
    first = one.cell_index(FIRST)
    graph = one.cell_index("after_backward", whole=True)
    other = open_page(live.page_url(), beside=one)  # Ctrl+click's tab: the same profile, no token of its own
    one.go_live()
    other.go_live()
    mine = one.code(first) + "\n# from tab one"
    one.set_code(first, mine)
    one.page.wait_for_timeout(800)
    theirs = other.code(graph) + "\n# from tab two"
    other.set_code(graph, theirs)
    other.page.wait_for_timeout(800)
    assert other.code(first) == mine, "tab two did not take tab one's edit"
    one.page.reload()
    one.wait_for_state("ready")
    assert [one.code(first), one.code(graph)] == [mine, theirs], "a tab's edit was dropped"

    # the same cell in both: the code typed in a tab is never dropped without a word
    one.cell(first).locator(".CodeMirror").click()
    one.page.keyboard.press("Control+End")
    one.page.keyboard.type("\n# typed in one")
    one.page.wait_for_timeout(800)
    other.set_code(first, "# tab two's own")
    other.page.wait_for_timeout(800)
    said = one.cell(first).locator(".live-elsewhere")
    assert said.is_visible() and said.inner_text().startswith(one.words["changedElsewhereMine"])
    assert one.code(first) == "# tab two's own"
    said.get_by_role("button", name=one.words["putMineBack"]).click()
    assert one.code(first) == mine + "\n# typed in one"
    assert not one.errors and not other.errors, (one.errors, other.errors)


# ----- 6. the Tab key in an editor ----------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_tab_moves_through_the_page_without_changing_code_and_says_how_to_leave(live, open_page,
                                                                               edition: str) -> None:
    opened = open_page(chapter_url(live, edition), 390)
    first = opened.cell_index(FIRST)
    opened.page.get_by_role("button", name=opened.words["runLive"]).focus()
    opened.page.keyboard.press("Enter")
    opened.wait_for_state("ready")
    before = opened.page.evaluate(CODES_JS)
    editors_met = 0
    for _ in range(60):
        opened.page.keyboard.press("Tab")
        if opened.page.evaluate("!!document.activeElement.closest('.CodeMirror')"):
            editors_met += 1
            hint = opened.page.locator(".live-keys-hint:visible")
            assert hint.count() == 1 and hint.inner_text() == opened.words["keysMoving"]
            if editors_met == 2:
                show_dark(opened.page)
                opened.screenshot(f"learner-tab-{edition}")
    assert editors_met >= 3, "Tab met too few editors"
    after = opened.page.evaluate(CODES_JS)
    assert after == before, "moving through the page with Tab changed a cell's code"
    assert not opened.page.locator(".live-edited").count()

    # once the reader types, Tab indents; Escape, then Tab, leaves (and the line says so)
    opened.page.locator(f".live-cell-{first} .CodeMirror").click()
    opened.page.keyboard.press("Control+End")
    opened.page.keyboard.type("\nif True:\n")
    opened.page.keyboard.press("Tab")
    assert opened.code(first).endswith("if True:\n        ") or opened.code(first).endswith("if True:\n    ")
    hint = opened.cell(first).locator(".live-keys-hint")
    assert hint.is_visible() and hint.inner_text() == opened.words["keysEditing"]
    opened.page.keyboard.press("Escape")
    opened.page.keyboard.press("Tab")
    assert opened.page.evaluate("document.activeElement.textContent") == opened.words["runCell"]
    assert not opened.errors, opened.errors


# ----- 7. a new tab -------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_tab_opened_from_a_live_one_connects_and_one_alone_says_what_to_do(live, open_page,
                                                                            edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    opened.go_live()
    with opened.context.expect_page() as opening:
        opened.page.locator("a.right-next").click(modifiers=["Control"])  # the next chapter, in a new tab
    new = opening.value
    new.wait_for_load_state()
    assert "token" not in new.url
    new.get_by_role("button", name=opened.words["runLive"]).click()
    new.wait_for_function(f"() => ({STATE_JS})() === 'ready'", timeout=READY_S * 1000)
    new.close()

    alone = open_page(f"{live.book}/{edition}/{CHAPTER}")  # a copied link in a fresh window: no tab to ask
    alone.page.get_by_role("button", name=alone.words["runLive"]).click()
    alone.wait_for_state("disconnected", 10)
    assert alone.words["noServer"] in alone.status.inner_text()
    assert "make live" in alone.words["noServer"]


CODES_JS = "[...document.querySelectorAll('.CodeMirror')].map(e => e.CodeMirror.getValue())"
STATE_JS = ("() => { const s = document.querySelector('.live-status[role=status]'); "
            "return s && s.dataset.state; }")


# ----- 8. Interrupt, and Restart's question -------------------------------------------------------


def test_interrupt_ends_a_runaway_loop_and_restart_asks_before_dropping_everything(live, open_page) -> None:
    opened = open_page(live.page_url())
    first = opened.cell_index(FIRST)
    opened.go_live()
    opened.set_code(first, "kept = 42")
    assert run_and_wait(opened, first).startswith("ran")
    opened.set_code(first, "while True:\n    pass")
    opened.cell(first).get_by_role("button", name="Run cell").click()
    interrupt = opened.page.get_by_role("button", name=opened.words["interrupt"])
    interrupt.wait_for(state="visible", timeout=10_000)
    opened.page.wait_for_timeout(500)
    interrupt.click()
    wait_until_done(opened, first)
    assert note(opened, first).startswith("interrupted after")
    opened.wait_for_state("ready")
    assert not interrupt.is_visible()
    opened.set_code(first, "print(kept)")
    assert run_and_wait(opened, first).startswith("ran")
    assert "42" in opened.cell(first).locator(".cell_output").inner_text()

    kernel = opened.kernel_id()
    asked: list[str] = []
    opened.page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    opened.page.get_by_role("button", name=opened.words["restart"]).click()
    opened.page.wait_for_timeout(500)
    assert asked == [opened.words["restartAsk"]] and opened.kernel_id() == kernel
    opened.page.once("dialog", lambda dialog: dialog.accept())
    opened.page.get_by_role("button", name=opened.words["restart"]).click()
    opened.page.wait_for_function(f"() => document.querySelector('.live-status[role=status]').dataset.kernel"
                                  f" !== {json.dumps(kernel)}", timeout=READY_S * 1000)
    opened.wait_for_state("ready")
    assert not opened.errors, opened.errors


# ----- the Chinese page, the console, the bar, a closed tab, the set-up cell ----------------------


def test_a_live_engine_error_explains_itself_in_the_chinese_pages_words(live, open_page) -> None:
    opened = open_page(chapter_url(live, "zh_CN", "book/05-step-1.html"))
    failing = opened.cell_index("train_step(stepped)")
    static = opened.cell(failing).locator(".cell_output").inner_text()
    assert "发生了什么" in static
    opened.go_live()
    assert opened.click(failing, "runAllAbove").startswith("已运行")
    assert opened.click(failing, "runCell").startswith("抛出了 TapeConsumedError")
    shown = opened.cell(failing).locator(".cell_output").inner_text()
    assert "发生了什么" in shown and "What happened" not in shown, shown[:400]
    assert not opened.errors, opened.errors


def test_a_solutions_dropdown_says_click_to_show_in_the_pages_language() -> None:
    """sphinx-togglebutton's hint ("Click to show"), which its 0.4.5 writes in English in every edition."""
    for edition in EDITIONS:
        page = (SITE / edition / CHAPTER).read_text(encoding="utf8")
        said = words(edition, "theme")
        assert f"let toggleHintShow = '{said['toggle_show']}';" in page
        assert f"let toggleHintHide = '{said['toggle_hide']}';" in page
    assert "Click to show" not in (SITE / "zh_CN" / CHAPTER).read_text(encoding="utf8")


def test_the_explanations_are_rewritten_as_python_rewrites_them(browser) -> None:
    from bookkit.words import words as all_words
    from bookkit.words.explained import explained

    table = {"en": all_words("en", "explained"), "page": all_words("zh_CN", "explained")}
    messages = [error_text(code) for code in ERRORS]
    messages.append("\n".join(messages[0][i:i + 60] for i in range(0, len(messages[0]), 60)))  # wrapped
    context = browser.new_context()
    page = context.new_page()
    page.set_content("<html lang='zh-CN'><head></head><body></body></html>")
    for part in ("live-words.js", "live-outputs.js"):
        page.add_script_tag(path=str(ROOT / "bookkit" / "live" / part))
    for message in messages:
        assert "What happened" in message
        rewritten = page.evaluate("([m, t]) => tdsLive.explained(m, t)", [message, table])
        assert rewritten == explained(message, "zh_CN")
    context.close()


ERRORS = [  # step 1 after `to_device` (chapter 5), and backward on a plain device
    "from mlx_autodiff import AdamConfig, Device, Distribution, GradientsParams, LinearConfig, MseLoss, "
    "Reduction, Tensor\n"
    "flex, metal = Device.flex(), Device.metal().autodiff()\n"
    "x = Tensor.random([8, 4], Distribution.uniform(-1.0, 1.0), metal)\n"
    "model = LinearConfig(4, 1).init(flex.autodiff())\n"
    "for param in model.params():\n    param.val()\n"
    "def step(m):\n"
    "    loss = MseLoss().forward(m.forward(x), x.sum_dim(1), Reduction.MEAN)\n"
    "    return AdamConfig().init().step(0.1, m, GradientsParams.from_grads(loss.backward(), m))\n"
    "step(step(model.to_device(metal)))",
    "from mlx_autodiff import Device, Tensor, Distribution\n"
    "Tensor.random([2], Distribution.default(), Device.flex()).sum().backward()",
]


def error_text(code: str) -> str:
    """The message of the error `code` raises, in a fresh Python."""
    done = subprocess.run([str(Path(ROOT) / ".venv" / "bin" / "python"), "-c",
                           f"try:\n    exec({code!r})\nexcept Exception as error:\n    print(error)"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    return done.stdout.strip()


def test_the_token_never_reaches_the_console(live, open_page) -> None:
    opened = open_page(live.page_url())
    said: list[str] = []
    opened.page.on("console", lambda message: said.append(message.text))
    first = opened.cell_index(FIRST)
    opened.go_live()
    assert run_and_wait(opened, first).startswith("ran")
    assert said, "nothing reached the console: the test would not see the token either"
    assert not [text for text in said if live.token in text], "the token was printed to the console"


@pytest.mark.parametrize("width", [390, 1280])
def test_the_live_bar_stays_small_and_nothing_the_keyboard_reaches_hides_under_it(live, open_page,
                                                                                   width: int) -> None:
    opened = open_page(live.page_url(), width)
    first = opened.cell_index(FIRST)
    graph = opened.cell_index("after_backward", whole=True)
    opened.go_live()
    bar = "document.querySelector('.live-bar').getBoundingClientRect().height"
    assert opened.page.evaluate(bar) <= (64 if width == 390 else 48), opened.page.evaluate(bar)
    opened.set_code(first, "kept = 1")
    assert run_and_wait(opened, first).startswith("ran")
    opened.set_code(graph, opened.code(graph) + "\n# mine")  # its output, the book's, is stale now
    kernel_action(live, opened.kernel_id(), "restart")
    opened.wait_for_state("restarted", 10)
    assert opened.page.evaluate(bar) <= (110 if width == 390 else 70), opened.page.evaluate(bar)
    more = opened.page.get_by_role("button", name=opened.words["more"])
    if more.is_visible():
        more.click()
        assert opened.words["restartedOutside"] in opened.status.inner_text()
        opened.page.get_by_role("button", name=opened.words["less"]).click()
    # axe on the live page, light and dark: the status's colours, a stale output, the editors' line numbers
    assert not violations(opened.page, within=".bd-article"), "light theme"
    show_dark(opened.page)
    assert not violations(opened.page, within=".bd-article"), "dark theme"
    opened.screenshot(f"learner-bar-restarted-{width}")
    opened.wait_for_state("restarted")
    # what Tab reaches is never under the sticky bar (or the theme's header)
    covered = []
    opened.page.locator(f".live-cell-{first} .live-controls button").first.focus()
    for _ in range(25):
        opened.page.keyboard.press("Tab")
        opened.page.wait_for_timeout(50)
        hidden = opened.page.evaluate("""() => {
          const editor = document.activeElement.closest('.CodeMirror');
          const el = (editor && editor.querySelector('.CodeMirror-cursor')) || document.activeElement;
          const box = el.getBoundingClientRect();
          const bar = document.querySelector('.live-bar').getBoundingClientRect();
          const under = box.top < bar.bottom && box.bottom > bar.top && !el.closest('.live-bar');
          return under ? el.outerHTML.slice(0, 80) : null;
        }""")
        if hidden:
            covered.append(hidden)
    assert not covered, covered


def test_a_closed_tabs_kernel_is_shut_down_within_seconds(live, open_page) -> None:
    opened = open_page(live.page_url())
    opened.go_live()
    kernel = opened.kernel_id()
    opened.page.reload()  # a reload keeps it
    opened.wait_for_state("ready")
    assert opened.kernel_id() == kernel
    time.sleep(12)
    assert kernel in {k["id"] for k in kernels(live)}, "a reload lost the tab's kernel"
    opened.page.close()
    deadline = time.monotonic() + 40
    while kernel in {k["id"] for k in kernels(live)} and time.monotonic() < deadline:
        time.sleep(1)
    assert kernel not in {k["id"] for k in kernels(live)}, "the closed tab's kernel still runs"


def test_a_visible_cell_run_first_gets_the_pages_set_up_cell_first(live, open_page) -> None:
    for edition in EDITIONS:
        opened = open_page(chapter_url(live, edition))
        first = opened.cell_index(FIRST)
        opened.go_live()
        said = run_and_wait(opened, first)
        ms = opened.page.evaluate(f"document.querySelector('.live-cell-{first} .live-note').dataset.ms")
        assert said == words(edition, "page")["live"]["ranAfterSetUp_one"].replace("{ms}", ms), said
        assert run_and_wait(opened, first).startswith(("ran in", "运行完毕"))
        assert not opened.errors, opened.errors


def test_a_kernel_that_never_answers_and_is_gone_is_replaced_by_itself(live, open_page) -> None:
    """The learner's restart-then-delete-then-reload (a kernel_info that never came) did not hang
    again here, so its two halves are made to happen: the tab's kernel is stopped (SIGSTOP), so it
    never answers the reloaded page, and deleted from the server meanwhile. The page must not wait
    its whole minute, nor blame the URL: it starts a fresh kernel by itself and says why."""
    opened = open_page(live.page_url())
    opened.go_live()
    kernel = opened.kernel_id()
    pid = kernel_pid(live, kernel)
    Path(f"/proc/{pid}").exists() or pytest.skip("needs /proc to find the kernel's process")
    os_kill(pid, signal.SIGSTOP)
    try:
        opened.page.reload()
        opened.page.wait_for_timeout(1500)
        kernel_action(live, kernel, "delete")
    finally:
        os_kill(pid, signal.SIGCONT)
    started = time.monotonic()
    opened.wait_for_state("ready", 40)
    assert time.monotonic() - started < 30
    assert opened.kernel_id() != kernel
    assert "the server no longer has it" in opened.status.inner_text()


def kernel_pid(live: MakeLive, kernel: str) -> int:
    listed = subprocess.run(["ps", "-A", "-ww", "-o", "pid=,args="], capture_output=True, text=True)
    rows = listed.stdout.splitlines()
    found = [int(row.split()[0]) for row in rows if f"kernel-{kernel}.json" in row]
    launched = [row for row in rows if "ipykernel" in row]
    assert found, f"no process runs kernel {kernel}: {launched}"
    return found[0]


def os_kill(pid: int, sig: int) -> None:
    import contextlib
    import os

    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


# ----- issue 41's second learner: a verdict is about the code that was checked --------------------


SOLUTION = "def no_effect(model, x, y):"  # the first line of the book's solution to ex-04-smoke-test


def book_solution(opened: LivePage) -> str:
    return opened.cell(opened.cell_index(SOLUTION)).locator(".cell_input pre").text_content()


def verdict_of(opened: LivePage, answer: str = ANSWER) -> tuple[str, str, str]:
    """(the verdict's words, its data-code, its class) under an answer cell."""
    verdict = opened.page.locator(f"{answer} .live-verdict")
    return (verdict.inner_text(), verdict.get_attribute("data-code") or "",
            verdict.get_attribute("class") or "")


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_verdict_goes_out_of_date_as_soon_as_the_answer_changes(live, open_page, edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    opened.go_live()
    # a space between a number and Han (locale/zh_CN/GLOSSARY.md): 「你对练习 4.1 的解答」
    title = opened.page.locator(f"{ANSWER} .live-answer-title").inner_text()
    assert not re.search(r"[0-9A-Za-z][\u4e00-\u9fff]|[\u4e00-\u9fff][0-9A-Za-z]", title), title
    solution = book_solution(opened)
    passed, text, code = opened.check(ANSWER, solution)
    assert passed and code == "pass", code
    assert not re.search(r"[0-9][\u4e00-\u9fff]", text), text
    opened.set_code(ANSWER, 'no_effect = "garbage"')  # the learner's step: the "Pass" must not stay
    text, code, kind = verdict_of(opened)
    assert (text, code) == (opened.words["checkOutdated"], "outdated") and "live-pass" not in kind, text
    # a change while the check runs: the verdict that comes is about code the cell no longer holds
    opened.set_code(ANSWER, solution)
    opened.page.locator(ANSWER).get_by_role("button", name=opened.words["runCheck"]).click()
    opened.set_code(ANSWER, 'no_effect = "garbage"')
    opened.page.wait_for_function("s => document.querySelector(s + ' .live-verdict').dataset.code",
                                  arg=ANSWER, timeout=READY_S * 1000)
    text, code, kind = verdict_of(opened)
    assert (text, code) == (opened.words["checkOutdated"], "outdated") and "live-pass" not in kind, text
    # a fail goes out of date too; the same code checked again is judged again
    passed, _, code = opened.check(ANSWER, 'no_effect = "garbage"')
    assert not passed and code != "outdated"
    opened.set_code(ANSWER, solution)
    assert verdict_of(opened)[1] == "outdated"
    assert opened.check(ANSWER)[0]
    assert not opened.errors, opened.errors


def hold_checks(opened: LivePage) -> list:
    """Hold every "Run check" request (POST) of the page until the test lets it go; the list fills."""
    held: list = []
    opened.page.route("**/mlx-autodiff/check", lambda route: held.append(route)
                      if route.request.method == "POST" else route.continue_())
    return held


def until(opened: LivePage, done, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "timed out"
        opened.page.wait_for_timeout(50)


@pytest.mark.parametrize("edition", EDITIONS)
def test_only_the_reply_to_the_latest_check_shows_and_a_second_click_cancels_the_first(
        live, open_page, edition: str) -> None:
    """The learner's race: a slow wrong answer's check, then the solution's; the first reply came last
    and overwrote the Pass. Here the first reply is held until the second's verdict shows."""
    opened = open_page(chapter_url(live, edition))
    opened.go_live()
    solution = book_solution(opened)
    held = hold_checks(opened)
    button = opened.page.locator(ANSWER).get_by_role("button", name=opened.words["runCheck"])
    opened.set_code(ANSWER, 'no_effect = "wrong"')
    button.click()
    until(opened, lambda: len(held) == 1)
    opened.set_code(ANSWER, solution)
    button.click()
    until(opened, lambda: len(held) == 2)
    assert verdict_of(opened)[0] == opened.words["checkingAgain"]  # the second click says what it did
    bodies = [json.loads(route.request.post_data) for route in held]
    assert bodies[0]["request"] != bodies[1]["request"], bodies
    held[1].continue_()
    opened.page.wait_for_function("s => document.querySelector(s + ' .live-verdict').dataset.code",
                                  arg=ANSWER, timeout=READY_S * 1000)
    assert verdict_of(opened)[1] == "pass"
    # the first check's real reply, late; its fetch was cancelled, so the browser may refuse it
    with contextlib.suppress(PlaywrightError):
        held[0].fulfill(response=held[0].fetch())
    opened.page.wait_for_timeout(1000)
    text, code, _ = verdict_of(opened)
    assert code == "pass", text
    assert not opened.errors, opened.errors


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_long_check_says_the_graders_limit_and_can_be_cancelled(live, open_page, edition: str) -> None:
    from bookkit.workbook.grade import DEFAULT_TIMEOUT

    opened = open_page(chapter_url(live, edition))
    opened.go_live()
    held = hold_checks(opened)  # a check that does not answer, as a looping answer's does for 120 s
    opened.set_code(ANSWER, "while True:\n    pass")
    opened.page.locator(ANSWER).get_by_role("button", name=opened.words["runCheck"]).click()
    cancel = opened.page.locator(ANSWER).get_by_role("button", name=opened.words["cancelCheck"])
    cancel.wait_for(state="visible", timeout=30_000)
    limit = opened.words["checkingLimit"].replace("{s}", f"{DEFAULT_TIMEOUT:g}")
    assert limit in verdict_of(opened)[0], verdict_of(opened)[0]
    cancel.click()
    assert verdict_of(opened)[0] == opened.words["checkCancelled"]
    assert opened.page.evaluate("!!document.activeElement.closest('.CodeMirror')")  # focus stays near
    assert len(held) == 1
    opened.page.unroute("**/mlx-autodiff/check")
    assert opened.check(ANSWER, book_solution(opened))[0]  # and the next check works
    assert not opened.errors, opened.errors


STORAGE_EVENTS_JS = """() => { window.heardSaves = [];
  addEventListener('storage', (e) => heardSaves.push(e.newValue || ''));
  // what this tab had heard when its reader clicked (capture: before the button's own handler)
  addEventListener('click', () => { window.heardBeforeClick = heardSaves.slice(); }, true); }"""


def test_reset_all_in_one_tab_is_not_undone_by_another_tabs_pending_save(live, open_page) -> None:
    """The learner's steps: tab one (English) types into a cell; within the 300 ms before its save,
    tab two (Chinese) resets every edit. The reset came later, so it wins in both tabs; tab one's
    code stays within its reach; and tab two's status never says every cell is the book's when not."""
    one = open_page(chapter_url(live, "en"))
    first = one.cell_index(FIRST)
    two = open_page(chapter_url(live, "zh_CN"), beside=one)
    one.go_live()
    two.go_live()
    book = one.code(first)
    two.set_code(first, book + "\n# an older edit")  # so "Reset all edits" has something to reset
    one.page.wait_for_timeout(800)
    two.page.evaluate(STORAGE_EVENTS_JS)
    two.page.once("dialog", lambda dialog: dialog.accept())
    mine = book + "\n# typed in tab one"
    one.set_code(first, mine)  # saved 300 ms later
    two.page.get_by_role("button", name=two.words["resetAll"]).click()
    one.page.wait_for_timeout(1000)  # tab one's pending save has landed
    early = [value for value in two.page.evaluate("heardBeforeClick") if "typed in tab one" in value]
    assert not early, "tab one saved before the reset: the race was not reproduced"
    stored = two.page.evaluate(f"localStorage.getItem('live-edits:' + {json.dumps(one.data()['path'])})")
    assert "typed in tab one" not in (stored or ""), stored
    assert two.code(first) == book and one.code(first) == book
    assert two.status.inner_text().endswith(two.words["resetAllDone"])
    said = one.cell(first).locator(".live-elsewhere")
    assert said.is_visible() and said.inner_text().startswith(one.words["changedElsewhereMine"])
    said.get_by_role("button", name=one.words["putMineBack"]).click()  # nothing of tab one's is lost
    assert one.code(first) == mine
    # an edit after the reset is the later intention: it is kept, and tab two's status says so
    one.page.wait_for_timeout(800)
    assert two.code(first) == mine
    assert two.words["resetAllDone"] not in two.status.inner_text()
    assert two.words["changedSinceReset_one"] in two.status.inner_text(), two.status.inner_text()
    assert not one.errors and not two.errors, (one.errors, two.errors)


@pytest.mark.parametrize("edition", EDITIONS)
def test_download_my_notebook_works_after_make_live_stopped(open_page, tmp_path, edition: str) -> None:
    """The learner's steps: edit an answer, stop `make live` (both servers), click "Download my
    notebook": the file comes, with the edit, from what the page kept when it went live."""
    servers = MakeLive()
    try:
        opened = open_page(servers.page_url().replace("/en/", f"/{edition}/"))
        notebooks = [url for url in opened.requests if ".ipynb" in url]
        assert not notebooks, f"a page only read fetched {notebooks} (the page weight before Run live)"
        opened.go_live()
        opened.set_code(ANSWER, "my_answer = 41")
        opened.page.wait_for_timeout(500)
    finally:
        servers.stop()
    opened.wait_for_state("disconnected", 60)
    with opened.page.expect_download() as download:
        opened.page.get_by_role("button", name=opened.words["download"]).click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    mine = nbformat.read(path, as_version=4)
    assert "my_answer = 41" in [cell.source for cell in mine.cells]
    assert "Failed to fetch" not in opened.status.inner_text()


def test_chapter_12s_report_links_its_chapters_relatively() -> None:
    """The learner's finding: the report linked to http://127.0.0.1:8000/... (site_layout.LOCAL_PORT),
    dead when the book is served on another port or published elsewhere."""
    from bookkit.site import layout as site_layout

    for edition in EDITIONS:
        page = SITE / edition / "book" / "12-am-i-hit.html"
        body = page.read_text(encoding="utf8")
        reports = re.findall(r'<pre class="burn-check-report">.*?</pre>', body, re.S)
        assert reports, "chapter 12 shows no burn-check report"
        assert not [report for report in reports if site_layout.local() in report
                    or site_layout.base_url(ROOT) in report]
        shown = [found for report in reports
                 for found in re.findall(r'<a href="([^"]+)">([^<]+)</a>', report)]
        links = [link for link, _ in shown]
        assert any(link.startswith("10-fixes.html#") for link in links), links
        # each says where it goes in the site (a path: the zh phrase check reads it as one, not as English)
        assert all(text == f"{edition}/book/{link}" for link, text in shown), shown[:3]
        for link in links:
            target, _, anchor = link.partition("#")
            assert not re.match(r"[a-z]+:", link), link
            linked = (page.parent / target).resolve()
            assert linked.is_file(), link
            assert f'id="{anchor}"' in linked.read_text(encoding="utf8"), link


# ----- what the page says in its own words, and notes that go once they no longer hold -----------


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_stopped_server_is_said_in_the_pages_words_never_the_browsers(open_page, edition: str) -> None:
    servers = MakeLive()
    try:
        opened = open_page(servers.page_url().replace("/en/", f"/{edition}/"))
        opened.page.route("**/*.ipynb", lambda route: route.abort())  # the download's notebook: no answer
        opened.go_live()
        opened.set_code(ANSWER, "my_answer = 41")
    finally:
        servers.stop()
    opened.wait_for_state("disconnected", 60)
    opened.page.locator(ANSWER).get_by_role("button", name=opened.words["runCheck"]).click()
    opened.page.wait_for_function(
        "s => document.querySelector(s + ' .live-verdict').dataset.code === 'not_checked'", arg=ANSWER,
        timeout=30_000)
    said = verdict_of(opened)[0]
    assert said == opened.words["notGraded"].replace("{why}", opened.words["serverUnreachable"]), said
    styled = opened.page.locator(f"{ANSWER} .live-verdict").get_attribute("class")
    assert "live-fail" not in styled and "live-pass" not in styled, "not checked is neither a fail nor a pass"
    opened.page.get_by_role("button", name=opened.words["download"]).click()
    unreadable = opened.words["unreadable"].replace("{why}", opened.words["bookServerGone"])
    opened.page.wait_for_function("t => document.querySelector('.live-status[role=status]').textContent"
                                  ".includes(t)", arg=unreadable, timeout=10_000)
    assert "Failed to fetch" not in opened.page.locator("article").inner_text()


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_run_all_above_stopped_by_an_empty_error_has_no_trailing_colon(live, open_page,
                                                                          edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    first = opened.cell_index(FIRST)
    last = opened.cell_index(LAST)
    opened.go_live()
    opened.set_code(first, "raise KeyboardInterrupt")  # as an interrupted run ends: no value
    said = opened.click(last, "runAllAbove")
    where = opened.words["cellStarting"].replace("{code}", "raise KeyboardInterrupt")
    assert said == opened.words["stoppedRaisedBare"].replace("{where}", where).replace(
        "{name}", "KeyboardInterrupt"), said
    assert not said.rstrip().endswith(":")


def test_changed_elsewhere_notes_go_once_dealt_with_or_out_of_date(live, open_page) -> None:
    one = open_page(live.page_url())
    first = one.cell_index(FIRST)
    graph = one.cell_index("after_backward", whole=True)
    other = open_page(live.page_url(), beside=one)
    one.go_live()
    other.go_live()
    book = one.code(first)
    other.set_code(first, book + "\n# from tab two")
    said = one.cell(first).locator(".live-elsewhere")
    said.wait_for(state="visible", timeout=5000)
    assert said.inner_text() == one.words["changedElsewhere"]
    assert run_and_wait(one, first).startswith("ran")  # the reader ran what is there: dealt with
    assert not said.is_visible()
    other.set_code(graph, one.code(graph) + "\n# two")
    noted = one.cell(graph).locator(".live-elsewhere")
    noted.wait_for(state="visible", timeout=5000)
    one.cell(graph).get_by_role("button", name=one.words["reset"]).click()  # the reader chose the book's
    assert not noted.is_visible()
    assert not one.errors and not other.errors, (one.errors, other.errors)


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_new_token_in_the_address_clears_the_old_refusal(live, open_page, edition: str) -> None:
    """The learner pasted make live's URL into a tab that had been refused and never connected."""
    url = chapter_url(live, edition)
    page, fragment = url.split("#", 1)
    wrong = re.sub(r"token=[^&]+", "token=not-the-token", fragment)
    opened = open_page(f"{page}#{wrong}")
    opened.page.get_by_role("button", name=opened.words["runLive"]).click()
    opened.wait_for_state("disconnected", 30)
    assert opened.words["refused"].split(".")[0] in opened.status.inner_text()
    assert not opened.page.get_by_role("button", name=opened.words["runLive"]).is_visible()
    assert opened.page.get_by_role("button", name=opened.words["reconnect"]).is_visible()
    opened.page.evaluate("h => { location.hash = h; }", fragment)
    opened.wait_for_state("ready")
    assert opened.words["refused"].split(".")[0] not in opened.status.inner_text()


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_refused_store_stays_said_and_the_line_under_the_tools_agrees(live, open_page,
                                                                         edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    first = opened.cell_index(FIRST)
    opened.go_live()
    opened.page.evaluate("""() => { const store = Storage.prototype.setItem;  // localStorage only
      Storage.prototype.setItem = function (...args) {
        if (this === localStorage) throw new DOMException('full', 'QuotaExceededError');
        return store.apply(this, args); }; }""")
    opened.set_code(first, "kept = 1")
    opened.page.wait_for_timeout(800)
    kept = opened.page.locator(".live-kept")
    assert kept.inner_text() == opened.words["storageRefused"]
    assert run_and_wait(opened, first).startswith(("ran", "运行完毕"))  # the status moves on; the line stays
    assert kept.is_visible() and kept.inner_text() == opened.words["storageRefused"]
    assert opened.words["editsKept"] not in opened.page.locator(".live-tools").inner_text()
    assert not violations(opened.page, within=".live-tools")


# ----- a large output, and the editors in the dark theme ------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_hundred_thousand_printed_lines_are_capped_and_the_whole_text_can_be_saved(
        live, open_page, tmp_path, edition: str) -> None:
    """The learner's 100 000 printed lines left the page unresponsive for about 80 s, with 4.7 M
    characters in the DOM. The page shows the first and last lines, says how many it left out, and
    saves the whole text on request."""
    opened = open_page(chapter_url(live, edition))
    first = opened.cell_index(FIRST)
    opened.go_live()
    opened.set_code(first, "for i in range(100_000):\n    print(i)")
    assert run_and_wait(opened, first).startswith(("ran", "运行完毕"))
    shown = opened.cell(first).locator(".cell_output").inner_text()
    assert len(shown) < 20_000, len(shown)
    assert shown.lstrip().startswith("0\n1\n2") and "\n99999" in shown, shown[-300:]
    left = 100_000 - 1000  # the first 200 and last 800 lines are shown
    assert opened.words["outputLinesLeft_other"].replace("{n}", str(left)) in shown
    with opened.page.expect_download() as download:
        opened.cell(first).get_by_role("button", name=opened.words["saveWholeOutput"]).click()
    path = tmp_path / "output.txt"
    download.value.save_as(path)
    assert path.read_text().split() == [str(i) for i in range(100_000)]
    # the page still answers: a short cell runs after it
    opened.set_code(first, "print('after')")
    assert run_and_wait(opened, first).startswith(("ran", "运行完毕"))
    assert not opened.cell(first).locator(".live-output-capped").count()
    assert not opened.errors, opened.errors


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_editors_follow_the_dark_theme(live, open_page, edition: str) -> None:
    opened = open_page(chapter_url(live, edition))
    opened.go_live()
    show_dark(opened.page)
    colours = opened.page.evaluate("""() => {
      const bg = (el) => getComputedStyle(el).backgroundColor;
      return [bg(document.querySelector('.live-answer .CodeMirror')),
              bg(document.querySelector('[class*="live-cell-"] .CodeMirror')),
              bg(document.querySelector('.solution div.highlight, details div.highlight'))];
    }""")
    assert colours[0] == colours[1] == colours[2], colours  # as dark as the static code blocks
    opened.page.locator(f"{ANSWER} .CodeMirror").scroll_into_view_if_needed()
    opened.screenshot(f"learner-dark-editor-{edition}")
    assert not violations(opened.page, within=".thebe-input"), "an editor's colours in the dark theme"
