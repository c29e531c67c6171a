"""Live cells, measured in a browser: `python -m bookkit.bench.live [--quick]` prints rows as JSON.

`make bench` (bookkit/bench/__init__.py) runs this and adds the rows to the
benchmarks appendix. It starts `make live`'s two servers on free ports, drives
the system Chromium with Playwright on chapter 4, and reads the page's own
timings: the status element's `data-ready-ms` (click on "Run live" to the
kernel's first answer), and a cell's round trip, from the click on "Run cell" to
its note saying it ran, its output drawn (timed on the page: the note's own
`data-ms` is the kernel's run alone, without the trips). Page weight is every byte a fresh profile
downloads to show the chapter before "Run live" is clicked, against the same
page with the live script and style blocked; thebe's bytes are counted before
and after the click. A restart through the REST API (as another client or
Jupyter's culler does) is timed to the page's own clock (`data-restarted-at`,
when the status turned to "restarted"), and the kernels the server holds are
counted after `RELOADS` reloads of one tab (two with `--quick`, the test's run).

Each row is {name, engine, reference, reference_name, unit, target}; an
absolute target (under 5 s) is given as the reference with `target` 1.0, so
the table's ratio reads as a share of the budget.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import statistics
import sys
import time
import urllib.request
from typing import Any

from bookkit.bench.chromium import ChromiumNotFound, find_chromium
from bookkit.live.server import LiveServerError, live_servers

CHAPTER = "book/04-step-0.html"
PRINT_CELL = "print(1)"  # typed into the cell that starts with FIRST_CELL
FIRST_CELL = "model = LinearConfig(4, 1)"
GRAPH_CELL = "after_backward"  # chapter 4's ad-to_device graph after backward
READY_TARGET_S, PRINT_TARGET_S, GRAPH_TARGET_S, RESTART_TARGET_S = 5.0, 0.1, 1.0, 2.0
RELOADS, KERNELS_PER_TAB = 5, 1
# live mode's own files in _static/ (live.css, live.js and its parts, live-*.js): blocked for the page without
LIVE_FILES = re.compile(r"/_static/live[\w-]*\.(js|css)$")
STATE_JS = "() => document.querySelector('.live-status')?.dataset.state"
INDEX_JS = """(start) => {  // before "Run live": the book's code is still a <pre>
  for (const cell of document.querySelectorAll('[class*="live-cell-"]')) {
    const pre = cell.querySelector('.cell_input pre');
    if (pre && pre.textContent.startsWith(start))
      return Number([...cell.classList].find(c => c.startsWith('live-cell-')).slice(10));
  }
  return null;
}"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def row(name: str, engine: float | None, reference: float | None = None, reference_name: str = "",
        unit: str = "s", target: float | None = None, note: str = "") -> dict[str, Any]:
    return {"name": name, "engine": engine, "reference": reference, "reference_name": reference_name,
            "unit": unit, "target": target, "note": note}


def unavailable(why: str) -> list[dict[str, Any]]:
    return [row("Live cells", None, note=f"n/a ({why})")]


class Counted:
    """A fresh browser profile that adds up the bytes of every response it receives."""

    def __init__(self, browser, block: re.Pattern[str] | None = None) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.bytes: dict[str, int] = {}
        if block:
            self.context.route(lambda url: bool(block.search(url.split("?")[0])), lambda route: route.abort())
        self.page = self.context.new_page()
        self.page.on("requestfinished", self._count)

    def _count(self, request) -> None:
        sizes = request.sizes()
        self.bytes[request.url] = sizes["responseBodySize"] + sizes["responseHeadersSize"]

    def total(self, part: str = "") -> int:
        return sum(size for url, size in self.bytes.items() if part in url)


def page_weight(browser, url: str) -> tuple[int, int]:
    """Bytes to show the chapter before clicking, with and without the live script and style."""
    weights = []
    for block in (None, LIVE_FILES):
        counted = Counted(browser, block)
        counted.page.goto(url, wait_until="networkidle")
        weights.append(counted.total())
        counted.context.close()
    return weights[0], weights[1]


def ready_page(browser, url: str) -> tuple[Counted, int, int, dict[str, int]]:
    """A chapter gone live: its counter, thebe's bytes before the click, ms to ready, cell indices."""
    counted = Counted(browser)
    counted.page.goto(url, wait_until="networkidle")
    before = counted.total("/_thebe/")
    cells = {code: counted.page.evaluate(INDEX_JS, code) for code in (FIRST_CELL, GRAPH_CELL)}
    counted.page.get_by_role("button", name="Run live").click()
    counted.page.wait_for_function(f"() => ({STATE_JS})() === 'ready'", timeout=120_000)
    ready_ms = int(counted.page.locator(".live-status").get_attribute("data-ready-ms"))
    return counted, before, ready_ms, cells


ROUND_TRIP_JS = """async (cell) => {
  const note = document.querySelector(cell + ' .live-note');
  const buttons = [...document.querySelectorAll(cell + ' .live-controls button')];
  const run = buttons.find((b) => b.textContent === 'Run cell');
  note.textContent = '';
  const ran = new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      if (/^ran in/.test(note.textContent)) { seen.disconnect(); resolve(performance.now()); }
    });
    seen.observe(note, { childList: true, characterData: true, subtree: true });
  });
  const clicked = performance.now();
  run.click();
  return (await ran) - clicked;
}"""


def cell_round_trips(page, index: int, code: str | None, repeats: int) -> list[float]:
    """Seconds from "Run cell" to the note that says it ran (its output drawn), `repeats` times, for the
    cell at `index`: measured on the page, not the note's own time, which is the kernel's run alone."""
    cell = f".live-cell-{index}"
    if code is not None:
        page.evaluate("([s, c]) => document.querySelector(s + ' .CodeMirror').CodeMirror.setValue(c)",
                      [cell, code])
    return [page.evaluate(ROUND_TRIP_JS, cell) / 1000 for _ in range(repeats)]


def kernel_api(servers, path: str, method: str = "GET") -> Any:
    request = urllib.request.Request(servers.kernels + path, method=method,
                                     data=b"{}" if method == "POST" else None,
                                     headers={"Authorization": f"token {servers.token}"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        body = answer.read()
    return json.loads(body) if body else None


def restart_seen(page, servers) -> float:
    """Seconds from a restart through the REST API to the page saying "restarted"."""
    kernel = page.locator(".live-status").get_attribute("data-kernel")
    sent = time.time()
    kernel_api(servers, f"/api/kernels/{kernel}/restart", "POST")
    # this restart's time, not an earlier one's: the status says "restarted" until the next run
    page.wait_for_function("(sent) => Number(document.querySelector('.live-status').dataset.restartedAt)"
                           " >= sent", arg=int(sent * 1000), timeout=60_000)
    return int(page.locator(".live-status").get_attribute("data-restarted-at")) / 1000 - sent


def kernels_after_reloads(browser, servers, url: str, reloads: int) -> int:
    """The kernels a tab leaves on the server after going live and `reloads` reloads."""
    before = {kernel["id"] for kernel in kernel_api(servers, "/api/kernels")}
    counted, _, _, _ = ready_page(browser, url)
    for _ in range(reloads):
        counted.page.reload()
        counted.page.wait_for_function(f"() => ({STATE_JS})() === 'ready'", timeout=120_000)
    left = len([kernel for kernel in kernel_api(servers, "/api/kernels") if kernel["id"] not in before])
    counted.context.close()
    return left


def measure(chromium: str, quick: bool) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    loads, repeats, graph_repeats, reloads = (1, 3, 1, 2) if quick else (3, 20, 10, RELOADS)
    with live_servers(free_port(), free_port()) as servers, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        url = servers.url.replace("book/index.html", CHAPTER)
        with_live, without_live = page_weight(browser, url)
        ready_times, thebe_before, thebe_after = [], [], []
        for load in range(loads):
            counted, before, ready_ms, cells = ready_page(browser, url)
            ready_times.append(ready_ms / 1000)
            thebe_before.append(before)
            thebe_after.append(counted.total("/_thebe/"))
            if load < loads - 1:
                counted.context.close()
        # `loads` >= 1: the loop's last ready page stays open and runs the cells
        page, graph, first = counted.page, cells[GRAPH_CELL], cells[FIRST_CELL]
        page.locator(f".live-cell-{graph}").get_by_role("button", name="Run all above").click()
        page.wait_for_function(f"() => /^ran the/.test(document.querySelector("
                               f"'.live-cell-{graph} .live-note').textContent)", timeout=120_000)
        graph_times = cell_round_trips(page, graph, None, graph_repeats)
        print_times = cell_round_trips(page, first, PRINT_CELL, repeats)
        restart_times = [restart_seen(page, servers)]
        for _ in range(loads - 1):
            page.wait_for_function("() => { const s = document.querySelector('.live-status').dataset;"
                                   " return Number(s.connectedAt) > Number(s.restartedAt); }", timeout=60_000)
            restart_times.append(restart_seen(page, servers))
        counted.context.close()
        left = kernels_after_reloads(browser, servers, url, reloads)
        browser.close()
    budget = "the target"
    return [
        row("Run live: click to ready (kernel started), chapter 4", statistics.median(ready_times),
            READY_TARGET_S, budget, target=1.0),
        row("Live cell round trip: print(1)", statistics.median(print_times), PRINT_TARGET_S, budget,
            target=1.0),
        row("Live cell round trip: the ad-to_device graph (chapter 4)", statistics.median(graph_times),
            GRAPH_TARGET_S, budget, target=1.0),
        row("Page weight before clicking Run live, chapter 4", with_live, without_live,
            "the same page without live mode's scripts and style", unit="B", target=1.05),
        row("thebe fetched before clicking Run live", max(thebe_before), statistics.median(thebe_after),
            "thebe fetched on the click", unit="B", target=0.0),
        row("Live: a restart through the REST API, until the page says so", statistics.median(restart_times),
            RESTART_TARGET_S, budget, target=1.0),
        row(f"Live: kernels alive after {reloads} reloads of one tab", left, KERNELS_PER_TAB,
            "one kernel per tab", unit="", target=1.0),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit.bench.live",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer page loads and runs (for tests)")
    args = parser.parse_args(argv)
    try:
        chromium = find_chromium()
    except ChromiumNotFound as error:
        chromium, problem = None, str(error)
    else:
        problem = "no Chromium found (bookkit/bench/chromium.py looks in CHROMIUM, PATH, /Applications)"
    if chromium is None:
        rows = unavailable(problem)
    else:  # without a built book, live_servers says so (and to run `make build-book`)
        try:
            rows = measure(chromium, args.quick)
        except LiveServerError as error:
            rows = unavailable(str(error).splitlines()[0])
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
