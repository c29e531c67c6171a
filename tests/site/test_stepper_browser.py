"""The backward steppers in the built book, driven in headless Chromium like a reader would.

Every stepper on chapters 4-6 is slid to every frame, in both editions, at a desktop's and a
phone's width, in the light and the dark theme; at each frame what the page shows (the sentence,
the box marked `aria-current="step"`, the highlighted line of tape.py, the tape, the gradients held,
the stack) is compared with the frames the engine's code builds from the trace the page carries
(`bookkit.stepper.frames`) and with tape.py itself. The trace is compared with what the
chapter's own run printed or glued. Then: the keyboard alone, the permalink, Predict mode, the fit
(at 1280 x 800 the graph's current node and the controls are on screen together; at 390 px the
current node is inside the graph's scroll box), a live re-run's new output, and the page without
JavaScript.

A frame change's time (click to finished layout, `performance.now()`) is measured and written to
`_build/stepper-timing.json` for `make bench`: a figure to report, not a timed assertion.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import asdict

import pytest
from book_outputs import EDITIONS, HTML, ROOT, book_build, glued, stepper_data_texts, stream_text  # noqa: F401 (book_build is a fixture)
from browser_pages import HEIGHT, NARROW, OVERFLOW_JS, OVERFLOW_TOLERANCE_PX, SCREENSHOTS, WIDE, show_dark
from colours import contrast
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bookkit.stepper import frames
from bookkit.words import say, words
from mlx_autodiff.node import node_name
from mlx_autodiff.trace import BackwardTrace

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]

STEPPER_PAGES = ["book/04-step-0", "book/05-step-1", "book/06-fork"]
TIMING = ROOT / "_build" / "stepper-timing.json"
MAX_TABS = 80  # the player is this many Tab presses from the top of the page, at most
TAPE_PY = (ROOT / "mlx_autodiff" / "tape.py").read_text().splitlines()
DESK_HEIGHT = 800

# The state a reader sees, read from one stepper.
STATE_JS = """(root) => {
  const texts = sel => [...root.querySelectorAll(sel)].map(el => el.textContent);
  const line = root.querySelector('.stepper-code li[aria-current="location"]');
  return {
    sentence: root.querySelector('.stepper-sentence').textContent,
    position: root.querySelector('.stepper-position').textContent,
    valuetext: root.querySelector('.stepper-slider').getAttribute('aria-valuetext'),
    current: [...root.querySelectorAll('svg [aria-current="step"]')].map(el => el.id),
    stack: texts('.stepper-stack li'),
    tape: texts('.stepper-tape li'),
    gradients: texts('.stepper-gradients li'),
    line: line && Number(line.dataset.line), code: line && line.querySelector('code').textContent,
    listed: texts('.stepper-frames li[aria-current="step"]'),
    gradientMarks: [...root.querySelectorAll('svg g.stepper-gradient')].map(el => el.id).sort(),
    failedMarks: [...root.querySelectorAll('svg g.stepper-failed')].map(el => el.id),
  };
}"""
# Where the current box, the picture's scroll box and the controls are on screen.
FIT_JS = """(root) => {
  const rect = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const box = root.querySelector('svg [aria-current="step"]');
  const header = document.querySelector('.bd-header-article');
  return {
    box: box && rect(box), picture: rect(root.querySelector('.stepper-picture')),
    controls: rect(root.querySelector('.stepper-controls')),
    slider: rect(root.querySelector('.stepper-slider')),
    // what the theme's sticky header covers is not on screen
    viewport: [0, header ? header.getBoundingClientRect().bottom : 0, innerWidth, innerHeight],
  };
}"""
# The slider moved to each frame in turn (as a reader drags it: the input's value, then its events), and
# what the page shows then: one call for many frames, not three round trips to the browser a frame.
SLID_JS = f"""(root, indices) => {{
  const state = {STATE_JS}, fit = {FIT_JS}, slider = root.querySelector('.stepper-slider');
  return indices.map(index => {{
    slider.value = String(index + 1);
    slider.dispatchEvent(new Event('input', {{bubbles: true}}));
    slider.dispatchEvent(new Event('change', {{bubbles: true}}));
    return {{state: state(root), fit: fit(root)}};
  }});
}}"""
# Milliseconds from a click on "Next step" to the page laid out again, for every frame after the first.
# the page's scrollY once it has stopped moving: pydata-sphinx-theme sets `scroll-behavior: smooth`,
# so a scroll that focus() starts is still running when focus() returns
SETTLED_SCROLL_JS = """() => new Promise((done) => {
  let last = scrollY, still = 0;
  const look = () => {
    still = scrollY === last ? still + 1 : 0;
    last = scrollY;
    if (still >= 10) done(last); else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""
TIMING_JS = """(root) => {
  const next = root.querySelector('[data-action="next"]');
  const total = JSON.parse(root.querySelector('script.stepper-data').textContent).frames.length;
  root.querySelector('[data-action="reset"]').click();
  const times = [];
  for (let i = 1; i < total; i++) {
    const start = performance.now();
    next.click();
    root.getBoundingClientRect();
    document.body.offsetHeight;  // forces style and layout now, inside the measured span
    times.push(performance.now() - start);
  }
  return times;
}"""
# the theme's contents sidebar folded, not still folding
FOLDED_JS = """() => { const toc = document.querySelector('div.bd-sidebar-secondary');
  return toc.classList.contains('hide') && toc.getBoundingClientRect().height < 64; }"""


def said(language: str) -> dict[str, str]:
    return words(language, "page")["stepper"]


def tab_to(page, selector: str, backwards: bool = False) -> None:
    """Tab (or Shift+Tab) from where the focus is until it is on `selector`, as a keyboard user would."""
    for _ in range(MAX_TABS):
        if page.evaluate("(selector) => document.activeElement.matches(selector)", selector):
            return
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
    raise AssertionError(f"Tab never reaches {selector}")


def steppers(page) -> list:
    return page.locator("div.stepper").all()


def page_data(stepper) -> dict:
    return json.loads(stepper.locator("script.stepper-data").text_content())


def built_data(docname: str) -> dict:
    """The data of the English page's one stepper, from the built file (what `page_data` reads)."""
    found = stepper_data_texts((HTML / f"{docname}.html").read_text(encoding="utf8"))
    assert len(found) == 1, f"{docname}: expected one stepper, found {len(found)}"
    return json.loads(found[0])


def expected_frames(data: dict, language: str = "en") -> list[dict]:
    """The frames the engine's code builds from the page's own trace."""
    built = frames(BackwardTrace.from_data(data["trace"]), language, data["parameters"])
    return json.loads(json.dumps([asdict(frame) for frame in built]))


def slide(stepper, index: int) -> None:
    stepper.locator(".stepper-slider").fill(str(index + 1))


def inside(inner: list[float], outer: list[float], slack: float = 1.0) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


def check_frame(stepper, data: dict, index: int, language: str = "en") -> None:
    """Frame `index` is what the stepper shows, once it has drawn it: a key's effect is drawn on a later
    animation frame, which a busy machine delays (the check read the frame before, once, under load)."""
    shown = f"(root) => ({STATE_JS})(root).sentence === {json.dumps(data['frames'][index]['sentence'])}"
    try:
        stepper.page.wait_for_function(shown, arg=stepper.element_handle(), timeout=10_000)
    except PlaywrightTimeout:
        pass  # the assertions below say what it shows instead
    check_state(stepper.evaluate(STATE_JS), data, index, language)


def check_state(state: dict, data: dict, index: int, language: str = "en") -> None:
    """What a stepper shows (`STATE_JS`) is frame `index` of the page's data."""
    frame = data["frames"][index]
    words_ = said(language)
    where = say(words_["position"], k=index + 1, n=len(data["frames"]))
    assert state["sentence"] == frame["sentence"]
    assert state["position"] == state["valuetext"] == where
    expected_box = [] if frame["node"] is None else [data["nodes"][str(frame["node"])]["element"]]
    assert state["current"] == expected_box, f"frame {index}: the marked box is not the frame's node"
    assert state["failedMarks"] == (expected_box if frame["failed"] else [])
    names = [data["nodes"][str(node)]["name"] for node in reversed(frame["stack"])] or [words_["none"]]
    assert state["stack"] == names
    assert state["listed"] == [frame["sentence"]]
    assert state["line"] == frame["line"] and state["code"] == TAPE_PY[frame["line"] - 1], "the code line"
    marked = sorted(data["nodes"][str(node)]["element"] for node in frame["landed"])
    assert state["gradientMarks"] == marked, f"frame {index}: a gradient's mark must stay"
    held = [say(words_["grad_entry"], node=data["nodes"][str(h["node"])]["name"],
                shape=str(h["shape"]), device=h["device"])
            for h in frame["held"]] or [words_["none"]]
    assert state["gradients"] == held
    assert len(state["tape"]) == len(data["nodes"])
    if frame["changes"]["took"] is not None:
        took = data["nodes"][str(frame["changes"]["took"])]["name"]
        assert f"{took}: {words_['taken_now']}" in state["tape"]


@pytest.mark.parametrize("width", [WIDE, NARROW], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", STEPPER_PAGES)
def test_every_stepper_slides_through_the_engines_frames(visit, docname: str, language: str,
                                                         width: int) -> None:
    """In the light theme, then in the dark (one visit: the theme is CSS on the same page)."""
    opened = visit(f"{docname}.html", width, language)
    found = steppers(opened.page)
    assert len(found) == 1, f"{docname}: expected one stepper, found {len(found)}"
    stepper = found[0]
    data = page_data(stepper)
    assert data["frames"] == expected_frames(data, language), "the page's frames are the engine's"
    for node in data["nodes"].values():
        assert stepper.locator(f'svg g[id="{node["element"]}"]').count() == 1, f"{node['name']} has no box"
    stepper.scroll_into_view_if_needed()
    middle = len(data["frames"]) // 2
    for theme in ("light", "dark"):
        if theme == "dark":
            show_dark(opened.page)
        for indices in (range(middle + 1), range(middle + 1, len(data["frames"]))):
            for index, shown in zip(indices, stepper.evaluate(SLID_JS, list(indices)), strict=True):
                check_state(shown["state"], data, index, language)
                fit = shown["fit"]
                if fit["box"]:
                    assert inside(fit["box"], fit["picture"], 2), f"frame {index}, {theme}: the box is away"
            if middle in indices:
                edition = "" if language == "en" else f"{language}-"
                opened.screenshot(f"stepper-{edition}{docname.removeprefix('book/')}-{width}-{theme}")
        last = stepper.get_by_role("button", name=said(language)["next"]).get_attribute("aria-disabled")
        assert last == "true", f"{theme}: Next step is not disabled at the last frame"
        stepper.get_by_role("button", name=said(language)["first"]).click()
        check_frame(stepper, data, 0, language)
    if width == NARROW:
        overflow = opened.page.evaluate(OVERFLOW_JS, OVERFLOW_TOLERANCE_PX)
        assert overflow["scrollWidth"] <= overflow["viewport"] + OVERFLOW_TOLERANCE_PX, overflow["culprits"]
    assert not opened.console_errors(), f"{docname}: console errors {opened.console_errors()}"
    assert not opened.network, f"{docname}: requests to the network {opened.network}"


# Where a reader may have scrolled the stepper to before stepping through it: its top just below the
# theme's header (the player's sticky columns fill the window), or half-way down the window (the
# columns not yet stuck: the lower half of the graph below the window's bottom).
STARTS = {"top": "(root) => root.scrollIntoView({block: 'start', behavior: 'instant'})",
          "half-way": """(root) => { root.scrollIntoView({block: 'start', behavior: 'instant'});
            scrollBy({top: root.getBoundingClientRect().top - innerHeight / 2, behavior: 'instant'}); }"""}


@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", STEPPER_PAGES)
def test_at_1280_by_800_the_current_node_and_the_controls_are_on_screen_at_every_frame(
        visit, docname: str, language: str, start: str) -> None:
    """Stepped with Next step from where the reader scrolled to, then back with the Left arrow: each
    step shows the frame's box, scrolling the page if it must (bookkit/stepper/stepper.js, `reveal`)."""
    opened = visit(f"{docname}.html", WIDE, language)
    opened.page.set_viewport_size({"width": WIDE, "height": DESK_HEIGHT})
    stepper = steppers(opened.page)[0]
    data = page_data(stepper)
    stepper.evaluate("(root) => root.scrollIntoView({block: 'start', behavior: 'instant'})")
    # the stepper is the theme's full-width content: once it is on screen the theme folds the contents
    # sidebar (an animation), which until then lies over the player's right half (sphinx-book-theme 1.1.4)
    opened.page.wait_for_function(FOLDED_JS)
    stepper.evaluate(STARTS[start])
    next_button = stepper.get_by_role("button", name=said(language)["next"])

    def on_screen(index: int, how: str) -> None:
        fit, where = stepper.evaluate(FIT_JS), f"{start}, frame {index} ({how})"
        for part in ("controls", "slider"):
            assert inside(fit[part], fit["viewport"]), f"{where}: the {part} are off screen"
        if fit["box"]:
            assert inside(fit["box"], fit["viewport"]) and inside(fit["box"], fit["picture"], 2), (
                f"{where}: the current node is off screen")

    # the first frame as loaded shows where the reader scrolled; it is checked once stepped back to
    for index in range(1, len(data["frames"])):
        next_button.click()  # Playwright scrolls a button only when it is off screen, which fails below
        on_screen(index, "Next step")
    for index in range(len(data["frames"]) - 2, -1, -1):
        opened.page.keyboard.press("ArrowLeft")
        on_screen(index, "Left arrow")
    opened.screenshot(f"stepper-fit-{language}-{docname.removeprefix('book/')}-{start}")


def test_step_1s_last_frame_names_the_node_the_chapters_error_names(visit) -> None:
    stepper = steppers(visit("book/05-step-1.html").page)[0]
    data = page_data(stepper)
    failed = glued("05-step-1")["failed"]
    last = data["frames"][-1]
    assert last["failed"] and last["node"] == failed
    assert f"consumed at {node_name(failed)}" in last["sentence"]
    stepper.get_by_role("button", name="Next step").click()
    stepper.locator(".stepper-player").press("End")
    assert stepper.locator('svg [aria-current="step"]').get_attribute("id").endswith(f"-n{failed}")


def test_step_0s_stepper_keeps_the_gradients_the_chapter_printed(visit) -> None:
    data = page_data(steppers(visit("book/04-step-0.html").page)[0])
    printed = re.search(r"Gradients\(pass #\d+: (.*?)\)\n", stream_text("04-step-0")).group(1)
    kept = [(int(node), device) for node, device in re.findall(r"NodeId\((\d+)\) on (\w+)", printed)]
    trace = BackwardTrace.from_data(data["trace"])
    assert [(landed.node, landed.device) for landed in trace.kept()] == kept
    assert data["frames"][-1]["gradients"] == [node for node, _ in kept]
    assert [(held["node"], held["device"]) for held in data["frames"][-1]["held"]] == kept
    assert data["frames"][-1]["missed"] == sorted(data["parameters"]), "the moved parameters got nothing"


def test_step_0s_to_device_steps_send_the_gradients_to_flex(visit) -> None:
    data = page_data(steppers(visit("book/04-step-0.html").page)[0])
    trace = BackwardTrace.from_data(data["trace"])
    moves = [node.id for node in trace.nodes.values() if node.op == "to_device"]
    assert len(moves) == 2
    for landed in trace.events:
        if getattr(landed, "by", None) in moves:
            assert landed.device == "flex" and trace.nodes[landed.node].is_leaf


def test_forks_stepper_lands_both_gradients_on_metal_leaves(visit) -> None:
    data = page_data(steppers(visit("book/06-fork.html").page)[0])
    trace = BackwardTrace.from_data(data["trace"])
    kept = trace.kept()
    assert sorted(trace.nodes[e.node].label for e in kept) == ["bias", "weight"]
    assert {e.device for e in kept} == {"metal"} and all(trace.nodes[e.node].is_leaf for e in kept)


@pytest.mark.parametrize("docname", STEPPER_PAGES)
def test_every_stepper_works_with_the_keyboard_alone(visit, docname: str) -> None:
    opened = visit(f"{docname}.html", WIDE)
    stepper = steppers(opened.page)[0]
    data = page_data(stepper)
    within = "() => !!document.activeElement.closest('.stepper-player')"
    for _ in range(MAX_TABS):
        opened.page.keyboard.press("Tab")
        if opened.page.evaluate(within):
            break
    assert opened.page.evaluate(within), f"{docname}: Tab never reaches the player"
    for index in range(1, len(data["frames"])):
        opened.page.keyboard.press("ArrowRight")
        check_frame(stepper, data, index)
    opened.page.keyboard.press("ArrowRight")  # past the end: stays on the last frame
    check_frame(stepper, data, len(data["frames"]) - 1)
    opened.page.keyboard.press("ArrowLeft")
    check_frame(stepper, data, len(data["frames"]) - 2)
    opened.page.keyboard.press("Home")
    check_frame(stepper, data, 0)
    opened.page.keyboard.press("End")
    check_frame(stepper, data, len(data["frames"]) - 1)
    opened.page.keyboard.press("Home")
    tab_to(opened.page, "[data-action=next]")  # then Enter, as a keyboard user presses a button
    opened.page.keyboard.press("Enter")
    check_frame(stepper, data, 1)
    # with the focus elsewhere on the page, the arrows still drive the player on screen
    opened.page.evaluate("() => document.activeElement.blur()")
    opened.page.keyboard.press("ArrowRight")
    check_frame(stepper, data, 2)
    assert opened.page.locator(".stepper-hint").first.is_visible()
    # from the picture's scroll box, which Tab reaches first, Home and End go to the ends, not scroll the page
    stepper.locator(".stepper-picture").focus()
    scrolled = opened.page.evaluate(SETTLED_SCROLL_JS)  # once focus's smooth scroll is over
    opened.page.keyboard.press("End")
    check_frame(stepper, data, len(data["frames"]) - 1)
    opened.page.keyboard.press("Home")
    check_frame(stepper, data, 0)
    assert opened.page.evaluate(SETTLED_SCROLL_JS) == scrolled, "Home or End scrolled the page"
    assert not opened.console_errors(), f"{docname}: console errors {opened.console_errors()}"


FRAME_JS = "(root) => Number(root.querySelector('.stepper-slider').value) - 1"
# Scroll the page (at once, not smoothly) so an element's top (a stepper's, a summary's), or with `bottom`
# its bottom, is at y px.
PLACE_JS = """(root, [y, bottom]) => {
  const box = root.getBoundingClientRect();
  window.scrollTo({top: scrollY + (bottom ? box.bottom : box.top) - y, behavior: 'instant'});
}"""


BOX_JS = "(selector) => document.querySelector(selector).getBoundingClientRect()"


def test_the_arrows_leave_a_wide_code_block_and_a_player_off_screen_alone(visit) -> None:
    """The page-wide arrows (bookkit/stepper/stepper.js): a stepper whose graph alone is on screen (its player
    below the fold) takes them,
    one only under the theme's sticky header does not; a focused code block that scrolls sideways
    keeps them; a stack entry that the next frame rebuilds hands the focus to its player; the speed
    menu keeps Home; a player scrolled off screen with the focus still in it (after a click on "Next
    step") leaves the arrows, and End, to the page."""
    opened = visit("book/04-step-0.html", NARROW)
    page, stepper = opened.page, steppers(opened.page)[0]
    header = page.evaluate(f"{BOX_JS}.bottom", ".bd-header-article")
    stepper.evaluate(PLACE_JS, [HEIGHT - 200, False])  # the graph's top only
    assert page.evaluate(f"{BOX_JS}.top", ".stepper-player") >= HEIGHT
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("ArrowRight")
    assert stepper.evaluate(FRAME_JS) == 1, "the arrows skipped a stepper whose graph is on screen"
    stepper.evaluate(PLACE_JS, [header - 10, True])  # under the header only
    page.keyboard.press("ArrowRight")
    assert stepper.evaluate(FRAME_JS) == 1, "the arrows drove a stepper hidden under the sticky header"

    stepper.evaluate(PLACE_JS, [header, False])
    code = page.locator("article pre[tabindex='0'] >> visible=true").first  # one that scrolls sideways
    code.evaluate("(pre) => pre.focus({preventScroll: true})")
    page.keyboard.press("ArrowRight")
    assert stepper.evaluate(FRAME_JS) == 1, "the arrows in a focused code block stepped the stepper"
    # the browser's own scroll, and a smooth one: it has moved within 3 s, or it never will
    page.wait_for_function("(pre) => pre.scrollLeft > 0", arg=code.element_handle(), timeout=3000)

    # a stack entry, rebuilt at each frame, hands the focus to its player, not to the page
    stepper.locator(".stepper-stack button").first.focus()
    page.keyboard.press("ArrowRight")
    assert stepper.evaluate(FRAME_JS) == 2
    assert page.evaluate("() => !!document.activeElement.closest('.stepper-player')"), "the focus fell"
    stepper.locator(".stepper-speed select").focus()
    page.keyboard.press("Home")
    assert stepper.evaluate(FRAME_JS) == 2, "Home in the speed menu moved the player"

    # a click's focus is not the keyboard's: no smooth scroll brings the player back, so none is waited for
    stepper.get_by_role("button", name=said("en")["next"]).click()
    assert stepper.evaluate(FRAME_JS) == 3
    page.evaluate("() => window.scrollTo({top: 0, behavior: 'instant'})")
    page.keyboard.press("ArrowRight")
    assert stepper.evaluate(FRAME_JS) == 3, "the arrows drove a player scrolled off screen"
    page.keyboard.press("End")
    assert page.evaluate(SETTLED_SCROLL_JS) > 0, "End did not scroll the page"
    assert stepper.evaluate(FRAME_JS) == 3, "End drove a player scrolled off screen"
    assert not opened.console_errors()


# Whether the element with the focus is what the page shows at its centre: not under anything drawn over it
UNCOVERED_JS = """() => {
  const box = document.activeElement.getBoundingClientRect();
  const hit = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
  return !!hit && (hit === document.activeElement || document.activeElement.contains(hit));
}"""


def test_home_end_and_the_arrows_from_the_predict_box_the_frames_list_and_the_code(visit) -> None:
    """At 1280 px: Home and End from the Predict checkbox and from the frames' list go to the first and last
    frame (they used to scroll the player's column, then the page); the list's summary, focused, is not
    under the sticky picture and player; the arrows in the code that scrolls sideways scroll it."""
    opened = visit("book/04-step-0.html", WIDE)
    page, stepper = opened.page, steppers(opened.page)[0]
    last = len(page_data(stepper)["frames"]) - 1
    for part in (".stepper-predict input", "details.stepper-frames > summary"):
        tab_to(page, part)
        # Tab's smooth scroll first: a key pressed while it runs finds the columns half on screen, and the
        # frame's reveal() scrolls the page on from wherever the scroll was (how far, a busy machine decides)
        page.evaluate(SETTLED_SCROLL_JS)
        page.keyboard.press("End")
        assert stepper.evaluate(FRAME_JS) == last, f"End from {part}"
        page.keyboard.press("Home")
        assert stepper.evaluate(FRAME_JS) == 0, f"Home from {part}"
        if part.startswith(".stepper-predict"):  # a checkbox has no arrows of its own
            page.keyboard.press("ArrowRight")
            assert stepper.evaluate(FRAME_JS) == 1, "the arrows on the Predict box did nothing"
            page.keyboard.press("Home")
    page.wait_for_function(UNCOVERED_JS)  # after the browser's smooth scroll to it
    # the summary on screen, the columns above it scrolled away, and the focus there long enough that no
    # scroll to it is on its way: End is still the stepper's
    summary = stepper.locator("details.stepper-frames > summary")
    header = page.evaluate(f"{BOX_JS}.bottom", ".bd-header-article")
    page.evaluate(SETTLED_SCROLL_JS)  # Tab's smooth scroll to the summary, which would move it again
    page.wait_for_timeout(1100)
    summary.evaluate(PLACE_JS, [header + 5, False])
    assert summary.evaluate("(line) => line.getBoundingClientRect().top") > header, "the summary is hidden"
    page.keyboard.press("End")
    assert stepper.evaluate(FRAME_JS) == last, "End on a summary on screen"
    page.keyboard.press("Home")
    summary.scroll_into_view_if_needed()
    tab_to(page, ".stepper-code-box", backwards=True)
    code = stepper.locator(".stepper-code-box")
    assert code.evaluate("(box) => box.scrollWidth > box.clientWidth"), "the code no longer scrolls sideways"
    page.keyboard.press("ArrowRight")
    assert stepper.evaluate(FRAME_JS) == 0, "the arrows in the code stepped the stepper"
    page.wait_for_function("(box) => box.scrollLeft > 0", arg=code.element_handle(), timeout=3000)
    assert not opened.console_errors()


def test_a_stepper_with_only_its_closed_list_on_screen_leaves_the_arrows_alone(visit) -> None:
    """At 390 px and 1280 px: the frames' list, closed, is one line below the player; with that line and a
    sliver of the player's border alone on screen, the arrows drive nothing (the page's other keys are its
    own); with the player's bottom part on screen they drive it."""
    for width in (NARROW, WIDE):
        opened = visit("book/04-step-0.html", width)
        page, stepper = opened.page, steppers(opened.page)[0]
        header = page.evaluate(f"{BOX_JS}.bottom", ".bd-header-article")
        summary = stepper.locator("details.stepper-frames > summary")
        summary.evaluate(PLACE_JS, [header + 10, False])
        page.evaluate("() => document.activeElement.blur()")
        page.keyboard.press("ArrowRight")
        assert stepper.evaluate(FRAME_JS) == 0, f"{width} px: the arrows drove a stepper off screen"
        summary.evaluate(PLACE_JS, [header + 120, False])
        page.keyboard.press("ArrowRight")
        assert stepper.evaluate(FRAME_JS) == 1, f"{width} px: the player's bottom is on screen"
        assert not opened.console_errors()


def test_space_on_the_picture_plays_and_home_in_a_question_keeps_the_focus(visit) -> None:
    """At 390 px, where the picture is a tab stop: Space there plays and pauses, as the keys' hint says,
    instead of scrolling the page; in Predict mode, Home with the focus on a choice goes to the first frame
    and leaves the focus in the player, not on the page (so that End after it is the stepper's too)."""
    opened = visit("book/04-step-0.html", NARROW)
    page, stepper, said_en = opened.page, steppers(opened.page)[0], said("en")
    last = len(page_data(stepper)["frames"]) - 1
    stepper.locator("[data-action=first]").focus()
    tab_to(page, ".stepper-picture", backwards=True)
    page.keyboard.press("Space")
    play = stepper.locator("[data-action=play]")
    assert play.text_content() == said_en["pause"], "Space on the picture did not play"
    page.keyboard.press("Space")
    assert play.text_content() == said_en["play"], "Space on the picture did not pause"
    stepper.locator(".stepper-predict input").check()
    next_step = stepper.locator("[data-action=next]")
    for _ in range(last):
        if stepper.locator(".stepper-question").is_visible():
            break
        next_step.press("Enter")
    assert page.evaluate("() => !!document.activeElement.closest('.stepper-choices')"), "no question came"
    page.keyboard.press("Home")
    assert stepper.evaluate(FRAME_JS) == 0
    assert page.evaluate("() => !!document.activeElement.closest('.stepper-player')"), "the focus fell"
    page.keyboard.press("End")
    assert stepper.evaluate(FRAME_JS) == last, "End after Home from a question"
    assert not opened.console_errors()


def test_the_focus_ring_of_the_picture_and_the_player_reaches_3_to_1_in_both_themes(visit) -> None:
    """At 390 px, where the picture scrolls and so is a tab stop: the ring the keyboard's focus draws
    around the picture and around the player, on the page's background, in the light and the dark theme."""
    opened = visit("book/04-step-0.html", NARROW)
    page, stepper = opened.page, steppers(opened.page)[0]
    ring = ("() => [getComputedStyle(document.activeElement).outlineColor,"
            " getComputedStyle(document.body).backgroundColor]")
    for theme in ("light", "dark"):
        if theme == "dark":
            show_dark(page)
        stepper.locator("[data-action=first]").focus()
        for part in (".stepper-player", ".stepper-picture"):
            tab_to(page, part, backwards=True)
            colour, background = page.evaluate(ring)
            assert contrast(colour, background) >= 3, f"{theme}, {part}: {colour} on {background}"
    assert not opened.console_errors()


def pops_at(data: dict) -> dict[int, int]:
    """The frame where each node comes off the stack (the root: the first frame), from the engine's frames."""
    popped = {frame["changes"]["popped"]: at for at, frame in enumerate(data["frames"])
              if frame["changes"]["popped"] is not None}
    return popped | {data["frames"][0]["node"]: 0}


@pytest.mark.parametrize("docname", STEPPER_PAGES)
def test_clicking_a_node_or_a_stack_entry_jumps_to_the_frame_that_pops_it(visit, docname: str) -> None:
    opened = visit(f"{docname}.html", WIDE)
    stepper = steppers(opened.page)[0]
    data = page_data(stepper)
    popped = pops_at(data)
    assert len(popped) > 1, f"{docname}: the pass pops one node only"
    # a stack entry: on the first frame the stack holds the root's parents, none of them popped yet
    entry = stepper.locator(".stepper-stack li button").first
    node = int(entry.get_attribute("data-node"))
    entry.click()
    check_frame(stepper, data, popped[node])
    # a node's box in the picture, from the last frame back to the first one that pops it
    stepper.get_by_role("button", name=said("en")["last"]).click()
    last_popped = max(popped, key=popped.get)
    stepper.locator(f'[id="{data["nodes"][str(last_popped)]["element"]}"]').click()
    check_frame(stepper, data, popped[last_popped])
    root = data["frames"][0]["node"]
    stepper.locator(f'[id="{data["nodes"][str(root)]["element"]}"]').click()
    check_frame(stepper, data, 0)
    assert not opened.console_errors(), opened.console_errors()


@pytest.mark.parametrize("language", EDITIONS)
def test_a_permalink_opens_the_same_frame(visit, language: str) -> None:
    opened = visit("book/04-step-0.html", WIDE, language)
    stepper = steppers(opened.page)[0]
    data = page_data(stepper)
    slide(stepper, 7)
    url = opened.page.url
    assert f"frame-{data['graph']}=8" in url
    link = stepper.locator(".stepper-link").get_attribute("href")
    assert f"frame-{data['graph']}=8" in link and link.endswith(f"#{data['graph']}-stepper")
    again = visit(url, WIDE, None)
    check_frame(steppers(again.page)[0], data, 7, language)
    linked = visit(link, WIDE, None)
    stepper_again = steppers(linked.page)[0]
    check_frame(stepper_again, data, 7, language)
    # the browser scrolls to the link's anchor once the page has laid out: wait for it, then look
    linked.page.wait_for_function(
        "(id) => { const at = document.getElementById(id); "
        "return at && at.getBoundingClientRect().top < innerHeight; }",
        arg=f"{data['graph']}-stepper", timeout=10_000)
    assert stepper_again.evaluate("(root) => root.getBoundingClientRect().top < innerHeight")
    assert not again.console_errors() and not linked.console_errors()


@pytest.mark.parametrize("asked, shown",
                         [("999", 22), ("-3", 1), ("abc", 1), ("2.5", 1), ("0x3", 1), ("0", 1)])
def test_a_permalink_with_a_frame_the_pass_has_not_opens_the_nearest_and_says_so_in_the_url(
        visit, asked: str, shown: int) -> None:
    data = built_data("book/04-step-0")  # what the page carries, read from the file: no visit
    assert len(data["frames"]) == 22
    opened = visit(f"book/04-step-0.html?frame-{data['graph']}={asked}", WIDE, "en")
    check_frame(steppers(opened.page)[0], data, shown - 1)
    assert f"frame-{data['graph']}={shown}" in opened.page.url
    assert not opened.console_errors()


@pytest.mark.parametrize("language", EDITIONS)
def test_predict_mode_accepts_the_right_node_and_explains_a_wrong_one(visit, language: str) -> None:
    opened = visit("book/05-step-1.html", WIDE, language)
    stepper = steppers(opened.page)[0]
    data = page_data(stepper)
    stepper.locator(".stepper-predict input").check()
    next_button = stepper.get_by_role("button", name=said(language)["next"])
    answers, firsts = [], []
    for _ in data["frames"]:
        at = int(stepper.locator(".stepper-slider").input_value()) - 1
        if at == len(data["frames"]) - 1:
            break
        next_button.click()
        question = stepper.locator(".stepper-question")
        if not question.is_visible():
            continue
        assert question.locator("p").text_content() == said(language)["question"]
        stack = data["frames"][at]["stack"]
        top, below = stack[-1], stack[-2]
        choices = question.get_by_role("button")
        turn = at % len(stack)  # the stack turned by the frame's index: the answer is not always first
        turned = stack[turn:] + stack[:turn]
        assert choices.all_text_contents() == [data["nodes"][str(n)]["name"] for n in turned]
        firsts.append(stack[turn] == top)
        assert opened.page.evaluate("() => document.activeElement.dataset.choice") is not None, "focus moves"
        pick = below if not answers else top  # the first time wrong, then right
        question.get_by_role("button", name=data["nodes"][str(pick)]["name"], exact=True).click()
        feedback = stepper.locator(".stepper-feedback").text_content()
        name = data["nodes"][str(top)]["name"]
        if pick == top:
            assert feedback == say(said(language)["right"], node=name)
        else:
            pushed = next(k for k, f in enumerate(data["frames"]) if top in f["changes"]["pushed"])
            assert feedback == say(said(language)["wrong"], picked=data["nodes"][str(pick)]["name"],
                                   node=name, k=pushed + 1)
        check_frame(stepper, data, at + 1, language)
        assert data["frames"][at + 1]["changes"]["popped"] == top, "the answer shown is the pop"
        answers.append(pick == top)
    assert answers[:2] == [False, True]
    assert False in firsts, "the first choice, which has the focus, was the answer every time"
    assert data["frames"][-1]["failed"], "exercise 5.1: predicted all the way to the failing node"
    assert not opened.console_errors()


def test_a_stepper_a_live_rerun_puts_in_the_page_is_started(visit) -> None:
    opened = visit("book/06-fork.html", WIDE)
    started = opened.page.evaluate("""() => {
      const old = document.querySelector('div.stepper');
      const holder = document.createElement('div');
      holder.innerHTML = old.outerHTML.replace(/ data-started=""/, '');
      holder.querySelector('.stepper-player').hidden = true;
      old.replaceWith(holder);
      document.dispatchEvent(new CustomEvent('tds:output', {detail: {element: holder}}));
      return !holder.querySelector('.stepper-player').hidden;
    }""")
    assert started
    stepper = steppers(opened.page)[0]
    stepper.get_by_role("button", name="Next step").click()
    check_frame(stepper, page_data(stepper), 1)
    assert not opened.console_errors()


@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", STEPPER_PAGES)
def test_without_javascript_the_graph_and_every_frame_are_on_the_page(browser, server, docname: str,
                                                                       language: str) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": WIDE, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server}{language}/{docname}.html")
        stepper = page.locator("div.stepper")
        data = json.loads(stepper.locator("script.stepper-data").text_content())
        assert stepper.locator("svg").first.is_visible()
        assert stepper.locator(".stepper-player").is_hidden(), "the player needs JavaScript: it stays hidden"
        listed = stepper.locator("details.stepper-frames[open] li").all_text_contents()
        assert listed == [frame["sentence"] for frame in expected_frames(data, language)]
        assert all(item.is_visible() for item in stepper.locator("details.stepper-frames li").all())
        summary = stepper.locator("details.stepper-frames summary").text_content()
        assert summary == say(said(language)["frames"], n=len(listed))
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        edition = "" if language == "en" else f"{language}-"
        page.screenshot(path=str(SCREENSHOTS / f"stepper-{edition}{docname.removeprefix('book/')}-no-js.png"),
                        full_page=True)
    finally:
        context.close()


def test_frame_changes_are_timed_for_the_benchmarks(visit) -> None:
    """Reported in `make bench` (target: under 16 ms, one frame at 60 Hz), not asserted."""
    times: list[float] = []
    for docname in STEPPER_PAGES:
        opened = visit(f"{docname}.html", WIDE)
        stepper = steppers(opened.page)[0]
        measured = stepper.evaluate(TIMING_JS)
        assert len(measured) == len(page_data(stepper)["frames"]) - 1
        check_frame(stepper, page_data(stepper), len(measured))
        times += measured
    version = opened.page.context.browser.version
    TIMING.parent.mkdir(parents=True, exist_ok=True)
    TIMING.write_text(json.dumps({
        "frames": len(times), "median_ms": statistics.median(times), "max_ms": max(times),
        "chromium": version, "pages": STEPPER_PAGES, "measured": time.strftime("%Y-%m-%d"),
    }, indent=2) + "\n")
    print(f"frame change in Chromium {version}: median {statistics.median(times):.2f} ms, "
          f"max {max(times):.2f} ms over {len(times)} frames")
