"""The built book, as a reader's browser shows it: headless Chromium via Playwright.

Every page of `_toc.yml` is opened at 1280 px and at 390 px (a phone). A page
passes when it logs no console error, loads nothing from the network, shows every
figure (inline `<svg>` and `<img>`) with a non-zero size, and does not scroll
sideways on the phone. Screenshots land in `_build/screenshots/` for people to
look at: `<name>.png` (wide) and `<name>-narrow.png`.
"""

from __future__ import annotations

import functools
import re
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urljoin, urlsplit

import pytest
from book_outputs import HTML, ROOT, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ROOT / "_build" / "screenshots"
WIDE, NARROW, HEIGHT = 1280, 390, 900
OVERFLOW_TOLERANCE_PX = 2

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


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        """Keep the test output free of one line per request."""


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """The built book over HTTP on a free local port, like `make serve`: search needs http://."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(HTML)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    thread.join()


@pytest.fixture(scope="module")  # closed before test_live starts its own: one sync Playwright at a time
def browser() -> Iterator[object]:
    """System Chromium driven by Playwright; each `new_context()` is a fresh, empty profile."""
    if CHROMIUM is None:
        pytest.skip("no `chromium` on PATH: install it (Debian: apt-get install chromium) for browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Visit:
    """One page opened in a fresh context at one width, recording what went wrong while it loaded."""

    def __init__(self, browser, base: str, path: str, width: int) -> None:
        self.base, self.errors, self.network = base, [], []
        self.context = browser.new_context(viewport={"width": width, "height": HEIGHT})
        self.context.route(re.compile(r"^(?!" + re.escape(base) + ")[a-z]+://.*"), self._offline)
        self.page = self.context.new_page()
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.response = self.page.goto(urljoin(base, path), wait_until="load")

    def _offline(self, route) -> None:
        """Nothing leaves the machine: a page that needs the network is a finding, not a flaky test."""
        self.network.append(route.request.url)
        route.abort()

    def console_errors(self) -> list[str]:
        return [error for error in self.errors
                if not (self.network and "net::ERR_FAILED" in error)]  # reported as `network` instead

    def screenshot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser, server) -> Iterator:
    """`visit(path, width)` opens a page of the built book; every visit is closed afterwards."""
    visits: list[Visit] = []

    def open_page(path: str, width: int = WIDE) -> Visit:
        visits.append(Visit(browser, server, path, width))
        return visits[-1]

    yield open_page
    for opened in visits:
        opened.close()


def source_title(docname: str) -> str:
    """A page's first `# heading` as Sphinx titles it (no backticks or emphasis marks, curly quotes)."""
    lines = (ROOT / f"{docname}.md").read_text("utf8").splitlines()
    heading = next(line for line in lines if line.startswith("# "))
    return smart(re.sub(r"[`*]", "", heading[2:]).strip())


def smart(text: str) -> str:
    """Undo Sphinx's smart quotes so source text and rendered text compare equal."""
    return text.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'}))


def screenshot_name(docname: str) -> str:
    return docname.removeprefix("book/").replace("/", "-")


@pytest.mark.parametrize("docname", toc_pages())
def test_page_is_clean_at_desktop_width(visit, docname: str) -> None:
    opened = visit(f"{docname}.html", WIDE)
    assert opened.response is not None and opened.response.status == 200
    opened.screenshot(screenshot_name(docname))  # before dropdowns are opened: what a reader first sees
    hidden = opened.page.evaluate(HIDDEN_FIGURES_JS)
    assert not opened.console_errors(), f"{docname}: console errors {opened.console_errors()}"
    assert not opened.network, f"{docname}: a local book must not fetch from the network: {opened.network}"
    assert not hidden, f"{docname}: figures that should show have no size or did not load: {hidden}"


@pytest.mark.parametrize("docname", toc_pages())
def test_page_does_not_scroll_sideways_on_a_phone(visit, docname: str) -> None:
    opened = visit(f"{docname}.html", NARROW)
    opened.screenshot(screenshot_name(docname) + "-narrow")
    width = opened.page.evaluate(OVERFLOW_JS, OVERFLOW_TOLERANCE_PX)
    assert width["scrollWidth"] <= width["viewport"] + OVERFLOW_TOLERANCE_PX, (
        f"{docname}: {width['scrollWidth']} px wide on a {width['viewport']} px screen; the widest parts: "
        f"{width['culprits']}")
    assert not opened.console_errors(), f"{docname}: console errors {opened.console_errors()}"


def test_the_site_root_leads_to_the_landing_page(visit) -> None:
    opened = visit("index.html")
    opened.page.wait_for_url(re.compile(r"book/index\.html$"))
    assert smart(source_title("book/index")) in smart(opened.page.title())


def test_flowchart_links_open_chapters(visit, server: str) -> None:
    landing = visit("book/index.html")
    links = landing.page.locator("article svg a[href], article svg a[*|href]")  # [*|href]: xlink:href
    hrefs = [link.get_attribute("href") or link.get_attribute("xlink:href") for link in links.all()]
    if not hrefs:
        pytest.skip("book/index.html has no inline <svg> with links yet (the flowchart, graph.flowchart())")
    chapters = set(toc_pages())
    for href in hrefs:
        url = urljoin(landing.page.url, href)
        docname = urlsplit(url).path.removeprefix("/").removesuffix(".html")
        assert docname in chapters, f"flowchart link {href!r} leads to {docname!r}, which is not in _toc.yml"
        target = visit(url)
        assert target.response is not None and target.response.status == 200, f"{href!r} did not load"
        assert source_title(docname) in smart(target.page.title()), f"{href!r} opened {target.page.title()!r}"
    # a reader clicks the words of a node; links in an inline <svg> must be live
    links.locator("text").first.click()
    landing.page.wait_for_url(lambda url: not url.endswith("book/index.html"))
    assert urlsplit(landing.page.url).path.removeprefix("/").removesuffix(".html") in chapters


def test_search_finds_chapters(visit) -> None:
    opened = visit("search.html?q=fork")
    results = opened.page.locator("#search-results ul.search li a")
    results.first.wait_for(timeout=20_000)
    hrefs = [link.get_attribute("href") for link in results.all()]
    found = {re.sub(r"\.html([?#].*)?$", "", href) for href in hrefs}
    chapters = set(toc_pages()) - {"book/index"}
    assert found & chapters, f"searching 'fork' found no chapter, only {sorted(found)}"
    assert not opened.console_errors(), f"search page: console errors {opened.console_errors()}"
