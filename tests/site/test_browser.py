"""The built book, as a reader's browser shows it: headless Chromium via Playwright.

Every page of `_toc.yml` is opened at 1280 px and at 390 px (a phone) in English,
and at 390 px in Chinese (`PAGE_VISITS` in tests/helpers/browser_pages.py says why). A
page passes when it logs no console error, loads nothing from the network, shows
every figure (inline `<svg>` and `<img>`) with a non-zero size, and does not scroll
sideways on the phone. Screenshots land in `_build/screenshots/` for people to
look at: `<name>.png` (wide) and `<name>-narrow.png`, `zh_CN-<name>-narrow.png`
for the Chinese edition.
"""

from __future__ import annotations

import re
import socket
from urllib.parse import urljoin, urlsplit

import pytest
from book_outputs import EDITIONS, ROOT, book_build, toc_pages  # noqa: F401 (book_build is a fixture)
from browser_pages import HEIGHT, NARROW, OVERFLOW_TOLERANCE_PX, PAGE_VISIT_IDS, PAGE_VISITS, WIDE, Tab, Visit

from bookkit.words.language import LANGUAGES

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]

def source_title(docname: str) -> str:
    """A page's first `# heading` as Sphinx titles it (no backticks or emphasis marks, curly quotes)."""
    lines = (ROOT / f"{docname}.md").read_text("utf8").splitlines()
    heading = next(line for line in lines if line.startswith("# "))
    return smart(re.sub(r"[`*]", "", heading[2:]).strip())


def smart(text: str) -> str:
    """Undo Sphinx's smart quotes so source text and rendered text compare equal."""
    return text.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'}))


@pytest.mark.parametrize(("language", "width"), PAGE_VISITS, ids=PAGE_VISIT_IDS)
@pytest.mark.parametrize("docname", toc_pages())
def test_page_is_clean(checked_page, docname: str, language: str, width: int) -> None:
    facts = checked_page(docname, width, language)  # its screenshot: in _build/screenshots/
    assert facts.status == 200
    assert not facts.console_errors, f"{docname}: console errors {facts.console_errors}"
    assert not facts.network, f"{docname}: a local book must not fetch from the network: {facts.network}"
    assert not facts.hidden_figures, (
        f"{docname}: figures that should show have no size or did not load: {facts.hidden_figures}")


@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", toc_pages())
def test_page_does_not_scroll_sideways_on_a_phone(checked_page, docname: str, language: str) -> None:
    facts = checked_page(docname, NARROW, language)  # its screenshot: <name>-narrow.png
    width = facts.overflow
    assert width["scrollWidth"] <= width["viewport"] + OVERFLOW_TOLERANCE_PX, (
        f"{docname}: {width['scrollWidth']} px wide on a {width['viewport']} px screen; the widest parts: "
        f"{width['culprits']}")
    assert not facts.console_errors, f"{docname}: console errors {facts.console_errors}"


def test_what_a_page_asks_of_another_host_or_server_is_recorded(visit) -> None:
    """The page checks' `network` (tests/helpers/browser_pages.py): a page's request to another host, or to
    another server on this machine, is listed; the first fails (NO_NETWORK), whether or not this
    machine is online, and the second here only because no server listens on its port."""
    with socket.socket() as unused:  # a port of this machine that no server listens on
        unused.bind(("127.0.0.1", 0))
        elsewhere = ["http://example.com/font.woff2", f"http://127.0.0.1:{unused.getsockname()[1]}/x.js"]
    opened = visit("book/index.html")
    fetch = "(url) => fetch(url, {mode: 'no-cors'}).then(() => 'arrived', () => 'failed')"
    assert [opened.page.evaluate(fetch, url) for url in elsewhere] == ["failed", "failed"]
    assert opened.network == elsewhere
    assert not opened.console_errors(), "a refused request is reported as `network`, not as a console error"


STORED_JS = ("() => [Object.keys(localStorage).sort(), Object.keys(sessionStorage), document.cookie,"
             " innerWidth, innerHeight]")


def test_a_kept_tab_is_a_fresh_profile_to_the_next_visit(tabs, visit) -> None:
    """`Tabs` (tests/helpers/browser_pages.py): what one visit stored, resized or left listening is gone
    for the next visit at that width. A tab left with a handler of the test's own is closed, not lent
    again."""
    fresh = Tab(tabs.browser, NARROW)  # what a new profile shows on the page
    fresh.page.goto(f"{tabs.origin}en/book/index.html")
    as_new = fresh.page.evaluate(STORED_JS)
    fresh.context.close()
    first = visit("book/index.html", NARROW)
    first.page.evaluate("() => { localStorage.setItem('mine', 1); sessionStorage.setItem('mine', 1);"
                        " document.cookie = 'mine=1'; }")
    first.page.set_viewport_size({"width": NARROW, "height": 500})
    assert first.page.evaluate(STORED_JS) != as_new
    kept = first.tab
    first.close()
    second = Visit(tabs, "en/book/index.html", NARROW)
    assert second.tab is kept, "the tab was not kept"
    assert second.page.evaluate(STORED_JS) == as_new and as_new[3:] == [NARROW, HEIGHT]
    assert not second.console_errors(), "the reset's page logged into the next visit"
    second.page.once("dialog", lambda dialog: dialog.dismiss())  # never called
    second.close()
    third = Visit(tabs, "en/book/index.html", NARROW)
    assert third.tab is not kept and second.page.is_closed(), "a tab with a handler left on it was lent"
    third.close()


def test_a_tab_that_cannot_be_reset_is_closed_not_kept(tabs, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed test may leave its page unable to reset: the tab is closed, and the next visit gets a
    new one instead of an error."""
    from playwright.sync_api import Error

    opened = Visit(tabs, "en/book/index.html", NARROW)
    tab = opened.tab

    def fails(origin: str) -> None:
        raise Error("the page is gone")

    monkeypatch.setattr(tab, "reset", fails)
    opened.close()
    assert tab.page.is_closed() and tabs.kept.get(NARROW) is not tab
    after = Visit(tabs, "en/book/index.html", NARROW)
    assert after.tab is not tab and after.response is not None and after.response.ok
    after.close()


def test_the_site_root_leads_to_the_landing_page(visit) -> None:
    opened = visit("index.html", language=None)
    opened.page.wait_for_url(re.compile(r"/en/book/index\.html$"))
    assert smart(source_title("book/index")) in smart(opened.page.title())
    assert not opened.console_errors() and not opened.network


@pytest.mark.parametrize("language", EDITIONS)
def test_the_switcher_opens_the_same_page_in_the_other_language(visit, language: str) -> None:
    """Tab reaches the switcher; Enter opens this very page in the other edition."""
    other = next(code for code in EDITIONS if code != language)
    opened = visit("book/06-fork.html", WIDE, language)
    switcher = opened.page.locator("a.language-switcher")
    assert switcher.count() == 1
    switcher.focus()
    opened.page.keyboard.press("Enter")
    opened.page.wait_for_url(re.compile(rf"/{other}/book/06-fork\.html$"))
    assert opened.page.evaluate("() => document.documentElement.lang") == LANGUAGES[other].tag
    assert opened.page.locator("a.language-switcher").get_attribute("hreflang") == LANGUAGES[language].tag
    assert not opened.console_errors(), opened.console_errors()


@pytest.mark.parametrize("language", EDITIONS)
def test_flowchart_links_open_chapters(visit, server: str, language: str) -> None:
    landing = visit("book/index.html", WIDE, language)
    links = landing.page.locator("article svg a[href], article svg a[*|href]")  # [*|href]: xlink:href
    hrefs = [link.get_attribute("href") or link.get_attribute("xlink:href") for link in links.all()]
    if not hrefs:
        pytest.skip("book/index.html has no inline <svg> with links yet (the flowchart, graph.flowchart())")
    chapters = set(toc_pages())
    for href in hrefs:
        url = urljoin(landing.page.url, href)
        docname = urlsplit(url).path.removeprefix(f"/{language}/").removesuffix(".html")
        assert docname in chapters, f"flowchart link {href!r} leads to {docname!r}, which is not in _toc.yml"
        target = visit(url)
        assert target.response is not None and target.response.status == 200, f"{href!r} did not load"
        if language == "en":
            assert source_title(docname) in smart(target.page.title()), f"{href!r}: {target.page.title()!r}"
        target.close()  # its tab serves the next link
    # a reader clicks the words of a node; links in an inline <svg> must be live
    links.locator("text").first.click()
    landing.page.wait_for_url(lambda url: not url.endswith("book/index.html"))
    assert urlsplit(landing.page.url).path.removeprefix(f"/{language}/").removesuffix(".html") in chapters


@pytest.mark.parametrize(("language", "word"), [("en", "fork"), ("zh_CN", "叶子")])
def test_search_finds_chapters(visit, language: str, word: str) -> None:
    """Search works in each edition: the Chinese one segments its text into words (jieba)."""
    opened = visit(f"search.html?q={word}", WIDE, language)
    results = opened.page.locator("#search-results ul.search li a")
    results.first.wait_for(timeout=20_000)
    hrefs = [link.get_attribute("href") for link in results.all()]
    found = {re.sub(r"\.html([?#].*)?$", "", href) for href in hrefs}
    chapters = set(toc_pages()) - {"book/index"}
    assert found & chapters, f"searching {word!r} found no chapter, only {sorted(found)}"
    assert not opened.console_errors(), f"search page: console errors {opened.console_errors()}"


SHOWN_PANELS_JS = """(group) => [...document.querySelectorAll(`input[name="${group}"]`)]
  .map(input => document.getElementById(input.id + '-content'))
  .filter(panel => getComputedStyle(panel).display !== 'none').map(panel => panel.id)"""


def test_chapter_8_tabs_work_with_the_keyboard_alone(visit) -> None:
    """Tab reaches the methods, an arrow key shows the next one; Tab reaches its steps, an arrow the next."""
    page = visit("book/08-seven-ways.html").page
    page.get_by_text("Pick a method, then a step.").click()  # a place to start from, before the tabs
    focused = ""
    for _ in range(10):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement.name || ''")
        if focused:
            break
    assert focused == "graphs", f"Tab should reach the methods' tabs, it reached {focused!r}"
    second = page.locator('input[name="graphs"]').nth(1).get_attribute("id")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(SHOWN_PANELS_JS, "graphs") == [f"{second}-content"]
    page.keyboard.press("Tab")
    steps = "graphs-" + page.locator(f'label[for="{second}"]').inner_text().strip()
    assert page.evaluate("() => document.activeElement.name") == steps, "Tab should reach that method's steps"
    page.keyboard.press("ArrowRight")
    assert page.evaluate(SHOWN_PANELS_JS, steps) == [f"{steps}-1-content"]
    shown = page.locator(f"#{steps}-1-content svg").first
    assert shown.bounding_box()["width"] > 0, "the chosen step's graph should show"
