"""The built book in headless Chromium, for every browser test: a local server, the browser, `visit`.

`visit(path, width, language)` opens a page of one edition of the book
(`_build/html/<language>/<path>`; English unless told, `language=None` for the
site's own root) in a profile with nothing stored (a worker keeps a tab per width
for the next visit and resets it: `Tabs`) and records what went wrong while it
loaded: console errors, requests for anything outside the site.
`checked_page(docname, width, language)` is every page's one visit for the
checks that only look (tests/site/test_browser.py, tests/site/test_axe.py): each page is
opened once per edition and width of `PAGE_VISITS` in a session, and everything those checks
want of it is measured then (`PageFacts`), axe-core included, instead of a
visit, and a page load, per test.
tests/conftest.py shares these fixtures with every test file
(one Playwright per test session: a second would refuse to start).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urljoin

import pytest
from book_outputs import EDITIONS, ROOT, SITE

from bookkit.bench.chromium import ChromiumNotFound, find_chromium, skip_reason
from bookkit.site import layout as site_layout

# Requests that would leave the machine fail: they go to a proxy that is not there (the discard port).
# Chromium never sends 127.0.0.1 through a proxy, so one to another server on this machine is not
# stopped; `Visit` records it, with every other request for anything outside the site.
NO_NETWORK = "--proxy-server=http://127.0.0.1:9"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 NO_NETWORK]
SCREENSHOTS = ROOT / "_build" / "screenshots"
FULL_SCREENSHOTS = os.environ.get("BOOK_SCREENSHOTS", "") == "full"
WIDE, NARROW, HEIGHT = 1280, 390, 900
OVERFLOW_TOLERANCE_PX = 2
PAGE_VISITS = [(language, width) for language in EDITIONS
               for width in ((WIDE, NARROW) if language == EDITIONS[0] else (NARROW,))]
"""The (edition, width) pairs every page is opened at for the checks that only look (`checked_page`):
the source language's pages at a desktop's width and a phone's, a translation's at a phone's. A
translation changes a page's words, not its layout, colours or scripts, so what it can break shows
at the width where words have the least room: names and language (axe), console errors, pictures,
sideways overflow. The English pages check each width's layout. (One width fewer for the Chinese
edition: about 60 s of a 2-core run's browser time.)"""
PAGE_VISIT_IDS = [f"{language}-{'desktop' if width == WIDE else 'phone'}" for language, width in PAGE_VISITS]
CONTRAST_RULE = "color-contrast"
"""axe's costliest rule (a third to a half of a chapter's axe time): text against its background."""
THEME_RULES = (CONTRAST_RULE, "link-in-text-block", "scrollable-region-focusable")
"""axe's default rules whose findings a change of theme can change on elements shown in both themes:
colours (contrast, a link told from its text by colour only) and a box that starts to scroll (the
theme pads outputs in the dark, and _static/scroll_focus.js gives tab stops on load and resize only).
The other rules read attributes, names, structure and what shows, which the switch does not change
but for the elements it shows (`NEWLY_SHOWN_JS`); this holds for the element itself, not for a rule
judged on an ancestor (a button's name from an icon it shows only in one theme)."""
SHOWN_BEFORE_JS = ("() => { window.testsShownBefore = new Map([...document.querySelectorAll('body *')]"
                   ".map(el => [el, el.checkVisibility({visibilityProperty: true})])); }")
"""Which elements of the page show now (`visibility: hidden` counts as hidden, as in axe), kept in the
page for `NEWLY_SHOWN_JS`."""
NEWLY_SHOWN_JS = """() => {
  let shown = 0;
  for (const [el, before] of window.testsShownBefore) {
    if (before || !el.checkVisibility({visibilityProperty: true})) continue;
    // a part of a picture is marked by the element holding the picture, so that axe reads it whole
    (el.closest('svg')?.parentElement ?? el).setAttribute('data-tests-newly-shown', '');
    shown += 1;
  }
  return shown;
}"""
"""Marks the elements that show now and did not at `SHOWN_BEFORE_JS` (`NEWLY_SHOWN`), and counts them."""
NEWLY_SHOWN = "[data-tests-newly-shown]"


def colours_read_elsewhere(language: str, width: int) -> bool:
    """Whether a page visit leaves axe's colour contrast to the other visits of the page: the source
    language's at a phone's width does. Colours follow the width, not the language (the CSS is the
    same for every edition; its `:lang(zh)` rules set no colour), so the translation's phone visit
    reads the phone's colours and the desktop visit the desktop's (where a line wraps, and so what it
    is read against, may differ from edition to edition); the English phone visit still runs every
    other rule."""
    return language == EDITIONS[0] and width == NARROW
# The page's width against the viewport, and the outermost article elements sticking out of it
# (ignoring those inside a box that scrolls or clips them, such as code blocks).
OVERFLOW_JS = """(tolerance) => {
  const limit = window.innerWidth + tolerance;
  const contained = el => {
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement)
      if (getComputedStyle(box).overflowX !== 'visible') return true;
    return false;
  };
  const article = document.querySelector('article.bd-article') || document.body;
  const wide = [...article.querySelectorAll('*')]
    .filter(el => el.getBoundingClientRect().right > limit && !contained(el));
  const outermost = wide.filter(el => !wide.includes(el.parentElement));
  return {
    scrollWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
    culprits: outermost.slice(0, 5).map(el =>
      `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') || ''}">` +
      `${el.textContent.trim().slice(0, 60)}... ${Math.round(el.getBoundingClientRect().width)} px wide`),
  };
}"""


DARK_JS = ("() => { document.documentElement.dataset.theme = 'dark';"
           " document.documentElement.dataset.mode = 'dark'; }")
"""What the theme's own switch sets for the dark theme: the mode chosen and the theme shown."""


def show_dark(page) -> None:
    """Switch the page to the dark theme as the theme's own switch does, and wait for the fades that
    starts (Bootstrap's 0.15 s colour transitions on `.btn`) to end: a check of colours then reads the
    dark page, not a button half-way there."""
    page.evaluate(DARK_JS)
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
RUN_AXE_JS = """async ([within, skipped, only]) => {
  const rules = Object.fromEntries(skipped.map(rule => [rule, {enabled: false}]));
  const runOnly = only ? {runOnly: {type: 'rule', values: only}} : {};
  const results = await axe.run(within || document, {resultTypes: ['violations'], rules, ...runOnly});
  return results.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => ({target: n.target.join(' '), summary: n.failureSummary})),
  }));
}"""
# Measured in the page: figures that should show but have no size, or images that did not load.
# Closed dropdowns are opened first; content hidden on purpose (a closed toggle, `hidden`, a tab not
# selected) and the theme's button icons are skipped.
HIDDEN_FIGURES_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const article = document.querySelector('article.bd-article') || document.body;
  const figures = [...article.querySelectorAll('svg'), ...document.querySelectorAll('img')];
  const byDesign = el => el.closest('.toggle-hidden, [hidden], button, .copybtn') ||
    [...document.querySelectorAll('.sd-tab-content')].some(tab => tab.contains(el) &&
                                                                  getComputedStyle(tab).display === 'none');
  return figures.filter(el => !byDesign(el)).flatMap(el => {
    const box = el.getBoundingClientRect();
    const unloaded = el.tagName === 'IMG' && !(el.complete && el.naturalWidth > 0);
    if (box.width > 0 && box.height > 0 && !unloaded) return [];
    const name = `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') || ''}"` +
                 ` src="${el.getAttribute('src') || ''}">`;
    return [`${name} is ${box.width}x${box.height} px` + (unloaded ? ', not loaded' : '')];
  });
}"""


def axe_version() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE.relative_to(ROOT)} is missing: run `make setup` (it runs `npm ci`).")
    return json.loads((AXE.parent / "package.json").read_text())["version"]


def violations(page, within: str | None = None, skipped: tuple[str, ...] = (),
               only: tuple[str, ...] | None = None) -> list[dict]:
    """axe's serious and critical findings on the page as it is now: the whole page, or only the
    elements `within` (a CSS selector) matches, for a state that changed only them since a check of
    the whole page (axe's cost follows the elements it reads: about 1 to 3 s a chapter); every
    default rule but the `skipped` ones, or `only` those rules (axe would ignore `skipped` beside them)."""
    if only is not None and (skipped or not only):
        raise ValueError(f"violations(): name some rules to run only ({only!r}), or rules to skip, not both")
    axe_version()
    page.add_script_tag(path=str(AXE))
    chosen = list(only) if only is not None else None
    return [v for v in page.evaluate(RUN_AXE_JS, [within, list(skipped), chosen]) if v["impact"] in BLOCKING]


def dark_theme_violations(page) -> tuple[list[dict], int]:
    """The page switched to the dark theme (`show_dark`) and read where the switch can change a
    finding: `THEME_RULES` on the whole page, every rule on the elements that show only now (marked
    `NEWLY_SHOWN`); the findings, and how many elements showed only now."""
    page.evaluate(SHOWN_BEFORE_JS)
    show_dark(page)
    found = violations(page, only=THEME_RULES)
    newly_shown = page.evaluate(NEWLY_SHOWN_JS)
    return (found + violations(page, NEWLY_SHOWN) if newly_shown else found), newly_shown


def screenshot_name(docname: str, language: str = "en") -> str:
    name = docname.removeprefix("book/").replace("/", "-")
    return name if language == "en" else f"{language}-{name}"


BLANK = "/tests-blank-page"
"""An empty page of the test server, beside the site, for `Tab.reset` (a 404 page would log an error,
which could reach the next visit's console)."""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        """Keep the test output free of one line per request."""

    def do_GET(self) -> None:
        """The site's files, and `BLANK`."""
        if self.path != BLANK:
            return super().do_GET()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "0")
        self.end_headers()
        return None


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: tuple) -> None:
        """A tab that leaves a page while a file is still coming hangs up on it (BrokenPipeError): the
        page's business, not the server's; anything else is still printed."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """The built site (every edition) over HTTP on a free local port, like `make serve`: search needs
    http://."""
    httpd = QuietServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(SITE)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    thread.join()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """System Chromium (bookkit/bench/chromium.py finds it) driven by Playwright; each `new_context()` is a
    fresh, empty profile."""
    try:
        executable = find_chromium()
    except ChromiumNotFound as error:
        pytest.fail(str(error))
    if executable is None:
        pytest.skip(skip_reason())
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def listening(target: object) -> dict[str, int]:
    """How many handlers each event of a Playwright page or context has (its pyee emitter's count:
    Playwright's own API does not say), Playwright's own included."""
    emitter = target._impl_obj  # noqa: SLF001 (the sync API's wrapped object)
    return {event: len(emitter.listeners(event)) for event in emitter.event_names()}


class Tab:
    """A context and its one page at one width, as `Tabs` keeps it between visits; its handlers
    record what went wrong for the visit it is lent to (`visit`)."""

    def __init__(self, browser, width: int) -> None:
        self.width, self.visit = width, None
        self.context = browser.new_context(viewport={"width": width, "height": HEIGHT})
        # listened to, not routed: routing hands every request of the page to this process and back
        # (about 0.1 s of CPU a page); the launch's NO_NETWORK makes the ones off the machine fail
        self.context.on("request", lambda request: self.visit and self.visit.record_leaving(request))
        self.page = self.context.new_page()
        self.page.on("console", lambda message: self.visit and message.type == "error"
                     and self.visit.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.visit and self.visit.errors.append(str(error)))
        self.storage = self.context.new_cdp_session(self.page)
        self.handlers = (listening(self.context), listening(self.page))

    def untouched(self, origin: str) -> bool:
        """Whether the last visit left nothing of its own on the tab that a reset would not undo: no
        handler of its own (a `page.once("dialog", ...)` never called), no other page, no other site."""
        alone = not self.page.is_closed() and self.context.pages == [self.page]
        here = self.page.url.startswith(origin) or self.page.url == "about:blank"
        return alone and here and (listening(self.context), listening(self.page)) == self.handlers

    def reset(self, origin: str) -> None:
        """Back to what a fresh profile shows the site: no stored edits, answers, theme or kernel
        (localStorage and the rest, and this tab's sessionStorage), the pointer over no element,
        the tab's width and height, an empty page."""
        self.page.mouse.move(0, 0)
        # an empty page of the site's origin: the book's page is gone, with what the theme stores as it
        # goes (its sidebar's scroll), and the next visit is a new document even where it differs from
        # the last only by a #fragment
        self.page.goto(urljoin(origin, BLANK))
        self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        self.storage.send("Storage.clearDataForOrigin", {"origin": origin.rstrip("/"), "storageTypes": "all"})
        if self.page.viewport_size != {"width": self.width, "height": HEIGHT}:
            self.page.set_viewport_size({"width": self.width, "height": HEIGHT})


class Tabs:
    """A worker's tabs: a visit borrows one at its width and gives it back, and the next visit at that
    width reuses it, reset (`Tab.reset`), unless the visit left something of its own on it (then it
    is closed). A fresh context and page cost Chromium a new renderer process and every script
    compiled again: about 0.4 s a visit, hundreds of times a run."""

    def __init__(self, browser, origin: str) -> None:
        self.browser, self.origin, self.kept = browser, origin, {}

    def borrow(self, width: int) -> Tab:
        return self.kept.pop(width, None) or Tab(self.browser, width)

    def give_back(self, tab: Tab) -> None:
        """Keep the tab, reset, for the next visit at its width; or close it. A tab that cannot be reset
        (a test that failed left its page crashed or waiting) is closed, so one failure stays one."""
        from playwright.sync_api import Error

        tab.visit = None
        if tab.width not in self.kept and tab.untouched(self.origin):
            try:
                tab.reset(self.origin)
            except Error:
                tab.context.close()
                return
            self.kept[tab.width] = tab
        else:
            tab.context.close()

    def close(self) -> None:
        for tab in self.kept.values():
            tab.context.close()


@pytest.fixture(scope="session")
def tabs(browser, server) -> Iterator[Tabs]:
    kept = Tabs(browser, server)
    yield kept
    kept.close()


class Visit:
    """One page opened at one width in a profile with nothing stored (a kept tab, reset, or a fresh
    one: `Tabs`), recording what went wrong while it loaded."""

    def __init__(self, tabs: Tabs, path: str, width: int) -> None:
        self.tabs, self.base, self.errors, self.network = tabs, tabs.origin, [], []
        self.tab = tabs.borrow(width)
        self.tab.visit = self
        self.context, self.page = self.tab.context, self.tab.page
        self.response = self.page.goto(urljoin(self.base, path), wait_until="load")

    def record_leaving(self, request) -> None:
        """A page that asks for anything outside the site (another host, or another server on this
        machine) is a finding, not a flaky test: the request is listed in `network`."""
        if re.match(r"[a-z]+://", request.url) and not request.url.startswith(self.base):
            self.network.append(request.url)

    def console_errors(self) -> list[str]:
        return [error for error in self.errors
                # once a request left the site, network errors are taken as its failure: `network`
                if not (self.network and "net::ERR_" in error)]

    def screenshot(self, name: str) -> None:
        """The first screen, as a reader opens the page; the whole page with BOOK_SCREENSHOTS=full
        (a long page's full capture is slow, and it is paid for every page, width and edition)."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=FULL_SCREENSHOTS)

    def close(self) -> None:
        """Give the tab back (once: `visit` closes every visit of a test again at its end)."""
        if self.tab is not None:
            self.tabs.give_back(self.tab)
            self.tab = None


@dataclass(frozen=True)
class PageFacts:
    """What the looking-only checks want of one page at one width, measured in one visit, in this
    order: as loaded (status, a screenshot, the sideways overflow), then axe-core's serious and
    critical findings, then (dropdowns opened) the figures that do not show; console errors and
    requests that tried to leave the machine over the whole visit."""

    status: int | None
    overflow: dict
    violations: list[dict]
    hidden_figures: list[str]
    console_errors: list[str]
    network: list[str]


def measure(opened: Visit, docname: str, width: int, language: str) -> PageFacts:
    suffix = "" if width == WIDE else "-narrow"
    opened.screenshot(screenshot_name(docname, language) + suffix)  # what a reader first sees
    overflow = opened.page.evaluate(OVERFLOW_JS, OVERFLOW_TOLERANCE_PX)
    skipped = (CONTRAST_RULE,) if colours_read_elsewhere(language, width) else ()
    found = violations(opened.page, skipped=skipped)
    hidden = opened.page.evaluate(HIDDEN_FIGURES_JS)
    status = opened.response.status if opened.response is not None else None
    return PageFacts(status, overflow, found, hidden, opened.console_errors(), list(opened.network))


@pytest.fixture(scope="session")
def checked_page(tabs) -> Callable[[str, int, str], PageFacts]:
    """`checked_page(docname, width, language)`: the page's `PageFacts`, measured on its first request
    in the session and kept for the other checks of the same page, width and edition."""
    measured: dict[tuple[str, int, str], PageFacts] = {}

    def facts(docname: str, width: int, language: str) -> PageFacts:
        key = (docname, width, language)
        if key not in measured:
            opened = Visit(tabs, f"{language}/{docname}.html", width)
            try:
                measured[key] = measure(opened, docname, width, language)
            finally:
                opened.close()
        return measured[key]

    return facts


@pytest.fixture
def visit(tabs) -> Iterator:
    """`visit(path, width, language)` opens a page of the built book, `path` relative to the
    edition's folder ("book/04-step-0.html"); every visit is closed afterwards."""
    visits: list[Visit] = []

    def open_page(path: str, width: int = WIDE, language: str | None = "en") -> Visit:
        inside = language and not re.match(r"[a-z]+://", path)  # a full URL is opened as it is
        where = site_layout.in_edition(path, language) if inside else path
        visits.append(Visit(tabs, where, width))
        return visits[-1]

    yield open_page
    for opened in visits:
        opened.close()
