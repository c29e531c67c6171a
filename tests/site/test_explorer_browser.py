"""The relocation explorer in the built book, driven in headless Chromium like a reader would.

Every combination is chosen with the page's three controls and its answer
(the sentences, the pictures, the error message) compared with what
`bookkit.runs.scenarios` says when each combination runs again in a fresh
process now; one combination is chosen with the keyboard alone. A choice loads
that combination's pictures and no other's. With JavaScript off the tables
still give every outcome.
"""

from __future__ import annotations

import pytest
from book_outputs import book_build  # noqa: F401 (book_build is a fixture)
from browser_pages import NARROW, OVERFLOW_JS, OVERFLOW_TOLERANCE_PX, SCREENSHOTS, WIDE

from bookkit.explorer.explorer import YES_NO, Answer, answer, explore, key, sentences
from bookkit.runs.combinations import COMBINATIONS
from bookkit.runs.methods import SCENARIOS, article_methods

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]

PAGE = "book/08a-explorer.html"
LABELS = ("Built on", "Parameters read before moving", "How it is moved")
MAX_TABS = 60  # the first control is this many Tab presses from the top of the page, at most

# What a reader sees in the explorer: the answer's sentences, the pictures, the message, the marked pick.
STATE_JS = """(root) => {
  const picture = figure => {
    const img = figure.querySelector('img');
    return img.hidden ? null : {src: img.getAttribute('src'), alt: img.alt, width: img.naturalWidth};
  };
  const message = root.querySelector('details.explorer-message');
  return {
    lines: [...root.querySelectorAll('output.explorer-answer .explorer-line')].map(s => s.textContent),
    graph: picture(root.querySelector('figure.explorer-graph')),
    noGraph: !root.querySelector('figure.explorer-graph .explorer-none').hidden,
    curve: picture(root.querySelector('figure.explorer-curve')),
    message: message.hidden ? null : message.querySelector('pre').textContent,
    pressed: [...root.querySelectorAll('button[aria-pressed="true"]')].map(b => b.textContent),
  };
}"""
LOADED_JS = """() => [...document.querySelectorAll('.explorer-picture img')]
  .every(img => img.hidden || (img.complete && img.naturalWidth > 0))"""


@pytest.fixture(scope="module")
def expected() -> dict[str, Answer]:
    """Every combination's answer from runs made now, one fresh process each, as the build made them."""
    runs = zip(COMBINATIONS, explore(), strict=True)
    return {found.key: found for found in (answer(choice, record) for choice, record in runs)}


def choose(root, built_on: str, read_first: bool, relocation: str) -> None:
    for label, value in zip(LABELS, (built_on, YES_NO[read_first], relocation), strict=True):
        root.get_by_label(label, exact=True).select_option(value)


def check_answer(opened, root, found: Answer) -> None:
    opened.page.wait_for_function(LOADED_JS)
    state = root.evaluate(STATE_JS)
    assert state["lines"] == list(sentences(found)), found.key
    if found.graph is None:
        assert state["graph"] is None and state["noGraph"], f"{found.key}: no graph, and the page says so"
    else:
        assert state["graph"] == {"src": f"explorer/{found.graph}", "alt": found.graph_alt,
                                  "width": state["graph"]["width"]}, found.key
        assert state["graph"]["width"] > 0 and not state["noGraph"], f"{found.key}: the graph did not load"
    assert state["curve"]["src"] == f"explorer/{found.curve}" and state["curve"]["alt"] == found.curve_alt
    assert state["curve"]["width"] > 0, f"{found.key}: the loss curve did not load"
    assert state["message"] == (found.message or None), found.key
    assert state["pressed"] == ([found.name] if found.article else []), found.key


def test_every_combination_answers_what_the_engine_runs(visit, expected: dict[str, Answer]) -> None:
    opened = visit(PAGE, WIDE)
    root = opened.page.locator("div.explorer")
    for built_on, read_first, relocation in COMBINATIONS:
        choose(root, built_on, read_first, relocation)
        check_answer(opened, root, expected[key((built_on, read_first, relocation))])
    assert not opened.console_errors(), f"console errors {opened.console_errors()}"
    assert not opened.network, f"requests to the network {opened.network}"


def test_the_articles_seven_are_one_click_each_and_marked(visit, expected: dict[str, Answer]) -> None:
    opened = visit(PAGE, WIDE)
    root = opened.page.locator("div.explorer")
    picks = root.locator("button[data-key]")
    assert picks.all_text_contents() == list(SCENARIOS)
    for name in [method.name for method in article_methods()]:
        root.get_by_role("button", name=name, exact=True).click()
        found = next(found for found in expected.values() if found.name == name)
        check_answer(opened, root, found)
        assert sentences(found)[0].endswith(f"the article's method {name}.")
    opened.screenshot("explorer-picked")


def test_a_combination_chosen_with_the_keyboard_alone(visit, expected: dict[str, Answer]) -> None:
    opened = visit(PAGE, WIDE)
    root = opened.page.locator("div.explorer")
    page = opened.page
    first = "() => document.activeElement && document.activeElement.name === 'built_on'"
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if page.evaluate(first):
            break
    assert page.evaluate(first), "Tab never reaches the first control"
    page.keyboard.press("ArrowDown")  # flex.autodiff -> flex
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")  # yes -> no
    page.keyboard.press("Tab")
    for _ in range(3):  # to_device -> fork -> to_device then train() -> fork then train()
        page.keyboard.press("ArrowDown")
    check_answer(opened, root, expected[key(("flex", False, "fork then train()"))])
    page.keyboard.press("Tab")  # on to the article's seven; Enter picks one
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    check_answer(opened, root, expected[key(("flex.autodiff", True, "to_device"))])
    assert not opened.console_errors(), f"console errors {opened.console_errors()}"


def test_a_combinations_pictures_load_only_when_it_is_chosen(browser, server: str) -> None:
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    try:
        page = context.new_page()
        loaded: list[str] = []
        page.on("request", lambda request: "/explorer/" in request.url and loaded.append(
            request.url.rsplit("/", 1)[1]))
        page.goto(f"{server}en/{PAGE}", wait_until="load")
        assert loaded == ["ad-to_device-graph.svg", "ad-to_device-loss.svg"], "only the shown pictures"
        page.get_by_label("How it is moved", exact=True).select_option("fork")  # one choice changed
        page.wait_for_function(LOADED_JS)
        assert loaded[2:] == ["ad-fork-graph.svg", "ad-fork-loss.svg"]
    finally:
        context.close()


def test_no_combination_widens_the_page_on_a_phone(visit) -> None:
    opened = visit(PAGE, NARROW)
    root = opened.page.locator("div.explorer")
    for built_on, read_first, relocation in COMBINATIONS:
        choose(root, built_on, read_first, relocation)
        opened.page.wait_for_function(LOADED_JS)
        width = opened.page.evaluate(OVERFLOW_JS, OVERFLOW_TOLERANCE_PX)
        wide = width["scrollWidth"] > width["viewport"] + OVERFLOW_TOLERANCE_PX
        assert not wide, (built_on, read_first, relocation, width["culprits"])
    choose(root, "flex.autodiff", True, "to_device")
    opened.page.wait_for_function(LOADED_JS)
    opened.screenshot("explorer-narrow")
    assert not opened.console_errors(), f"console errors {opened.console_errors()}"


def test_without_javascript_the_tables_give_every_outcome(browser, server: str, expected: dict) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": WIDE, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server}en/{PAGE}")
        root = page.locator("div.explorer")
        assert root.locator("form").is_hidden(), "the form needs JavaScript: it stays hidden"
        rows = root.locator("table.explorer-table tbody tr")
        assert rows.count() == len(COMBINATIONS)
        for row, found in zip(rows.all(), expected.values(), strict=True):
            cells = row.locator("td").all_text_contents()
            marked = found.name if found.article else ""
            assert cells[:3] == [YES_NO[found.read_first], found.relocation, marked]
            flag = "none" if found.require_grad is None else str(found.require_grad).lower()
            assert cells[3:5] == [flag, " ".join(map(str, found.grads)) or "none"]
            assert (found.error_type or found.outcome) in cells[5]
            links = row.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
            assert links == [f"explorer/{name}" for name in (found.graph, found.curve) if name]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "explorer-no-js.png"), full_page=True)
    finally:
        context.close()


def test_the_chinese_explorer_answers_in_chinese(visit, expected: dict[str, Answer]) -> None:
    from bookkit.explorer.words import CHINESE

    opened = visit(PAGE, WIDE, language="zh_CN")
    root = opened.page.locator("div.explorer")
    root.get_by_label(CHINESE.relocation, exact=True).select_option("fork")
    root.get_by_label(CHINESE.read_first, exact=True).select_option(YES_NO[False])
    opened.page.wait_for_function(LOADED_JS)
    found = expected[key(("flex.autodiff", False, "fork"))]
    assert root.evaluate(STATE_JS)["lines"] == list(sentences(found, CHINESE))
    assert not opened.console_errors(), f"console errors {opened.console_errors()}"
    opened.screenshot("explorer-zh")


def test_the_choices_follow_the_url_and_a_url_opens_them(visit) -> None:
    values = "(root) => [...root.querySelectorAll('select')].map(s => [s.name, s.value])"
    opened = visit(PAGE, WIDE)
    root = opened.page.locator("div.explorer")
    before = root.evaluate(values)
    choose(root, "flex", False, "fork then train()")
    chosen = root.evaluate(values)
    assert chosen != before
    url = opened.page.url
    for name, value in chosen:
        assert f"{name}={value}".replace(" ", "+").replace("(", "%28").replace(")", "%29") in url, name
    shown = root.evaluate(STATE_JS)
    again = visit(url, WIDE, None)
    root_again = again.page.locator("div.explorer")
    assert root_again.evaluate(values) == chosen
    assert root_again.evaluate(STATE_JS)["lines"] == shown["lines"]
    odd = visit(f"{PAGE}?relocation=nonsense&built_on=flex", WIDE)
    expected = [[name, "flex" if name == "built_on" else value] for name, value in before]
    assert odd.page.locator("div.explorer").evaluate(values) == expected, "unknown values are ignored"
    assert not opened.console_errors() and not again.console_errors() and not odd.console_errors()
