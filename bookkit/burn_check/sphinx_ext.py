"""Sphinx extension: the `{burn-check}` directive, chapter 12's checker on the page.

A page that says

    ```{burn-check}
    ```

gets the checker's HTML: the note that it reads syntax, not types, the examples to load, the box,
the Check button and the list the findings go in, with the edition's words (words/<language>.json)
and the examples (examples/*.rs) as JSON for page.js. Only that page loads page.js and page.css
(added in html-page-context, so to that page alone, as sphinx-exercise adds its own); when the
build ends they are copied to `_static/burn_check/` with rules.js, report.js and what `npm ci`
installed: web-tree-sitter's module and .wasm and the Rust grammar's .wasm. The site serves them
all: no CDN.

A report of `burn_check.notebook.check` on a page (chapter 12 runs it on the article's program) links
each finding to its chapter with the address a terminal needs, the book's base URL
(`bookkit.site.layout.base_url`: http://127.0.0.1:8000/ unless the site is published). On a page
those links are made relative (`relative_report_links`), so they work on any port and any host.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

from bookkit.burn_check import EXAMPLES, FOLDER

ROOT = FOLDER.parents[1]
STATIC = "burn_check"
"""The folder under `_static/` the page's files are served from."""
OWN = ("page.js", "page.css", "rules.js", "report.js")
MODULES = ROOT / "node_modules"
FROM_NPM = (("web-tree-sitter", "web-tree-sitter.js"), ("web-tree-sitter", "web-tree-sitter.wasm"),
            ("web-tree-sitter", "LICENSE"), ("tree-sitter-rust", "tree-sitter-rust.wasm"),
            ("tree-sitter-rust", "LICENSE"))
EXAMPLE_ORDER = ("article", "split", "learner")


def words(language: str | None) -> dict[str, Any]:
    path = FOLDER / "words" / f"{language or 'en'}.json"
    if not path.is_file():
        path = FOLDER / "words" / "en.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _json_script(name: str, value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False).replace("</", "<\\/")
    return f'<script type="application/json" data-burn-check="{name}">{text}</script>'


def _inline(text: str) -> str:
    """Words with `code` spans, as HTML (as page.js shows them)."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{part}</code>" if index % 2 else part for index, part in enumerate(parts))


def page_html(language: str | None) -> str:
    said = words(language)
    page = said["page"]
    examples = {name: (EXAMPLES / f"{name}.rs").read_text(encoding="utf-8") for name in EXAMPLE_ORDER}
    buttons = "".join(f'<button type="button" data-example="{name}">'
                      f'{html.escape(said["examples"][name])}</button>' for name in EXAMPLE_ORDER)
    buttons += (f'<button type="button" data-example="yours" hidden>'
                f'{html.escape(said["examples"]["yours"])}</button>')
    return f"""<div class="burn-check" lang="{html.escape((language or 'en').replace('_', '-'))}">
<p class="burn-check-reads">{_inline(said["reads"])}</p>
<div class="burn-check-examples" role="group" aria-label="{html.escape(page["examples"])}">
<span>{html.escape(page["examples"])}</span>{buttons}</div>
<label class="burn-check-label" for="burn-check-source">{html.escape(page["label"])}</label>
<textarea id="burn-check-source" rows="16" spellcheck="false" autocapitalize="off" autocomplete="off"
 wrap="off"></textarea>
<div class="burn-check-actions">
<button type="button" class="burn-check-run">{html.escape(page["check"])}</button>
<label class="burn-check-open"><input type="file" accept=".rs,text/plain,text/x-rust">
{html.escape(page["open"])}</label>
</div>
<p class="burn-check-status" role="status" aria-live="polite"></p>
<ol class="burn-check-findings"></ol>
<noscript><p>{html.escape(page["noscript"])}</p></noscript>
{_json_script("words", said)}
{_json_script("examples", examples)}
</div>"""


def checker_pages(env: BuildEnvironment) -> set[str]:
    """The docnames whose page holds the checker (kept in the environment, as Sphinx keeps its own)."""
    if not hasattr(env, "burn_check_pages"):
        env.burn_check_pages = set()  # type: ignore[attr-defined]
    return env.burn_check_pages  # type: ignore[attr-defined]


class BurnCheckDirective(SphinxDirective):
    """`{burn-check}`: the checker, in the words of the edition being built."""

    def run(self) -> list[nodes.Node]:
        checker_pages(self.env).add(self.env.docname)
        return [nodes.raw("", page_html(self.config.language), format="html")]


def add_assets(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if pagename in checker_pages(app.env):
        app.add_js_file(f"{STATIC}/page.js", type="module")
        app.add_css_file(f"{STATIC}/page.css")


def copy_assets(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html" or not checker_pages(app.env):
        return
    target = Path(app.outdir) / "_static" / STATIC
    target.mkdir(parents=True, exist_ok=True)
    for name in OWN:
        shutil.copyfile(FOLDER / name, target / name)
    for package, name in FROM_NPM:
        source = MODULES / package / name
        if not source.is_file():
            raise ExtensionError(f"the checker's page needs {source}: run `make setup` (its `npm ci` "
                                 f"installs {package} from package-lock.json)")
        shutil.copyfile(source, target / (f"{package}.LICENSE" if name == "LICENSE" else name))


REPORT = re.compile(r'<pre class="burn-check-report">.*?</pre>', re.S)


def relative_report_links(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                          doctree: Any) -> None:
    """A report's chapter links, absolute in what `check` printed, as relative links of the page."""
    from bookkit.site.layout import base_url, page_path

    if "body" not in context or "burn-check-report" not in context["body"]:
        return
    here = page_path(pagename, app.config.language or "en")
    address = re.compile(re.escape(base_url(ROOT)) + r"([A-Za-z_]+/[\w./-]+\.html)(#[\w-]*)?")

    def linked(found: re.Match[str]) -> str:  # shown as the page's path in the site, linked relatively
        target = posixpath.relpath(found[1], posixpath.dirname(here)) + (found[2] or "")
        return f'<a href="{html.escape(target)}">{html.escape(found[1] + (found[2] or ""))}</a>'

    context["body"] = REPORT.sub(lambda report: address.sub(linked, report[0]), context["body"])


def purge_page(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    checker_pages(env).discard(docname)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("burn-check", BurnCheckDirective)
    app.connect("env-purge-doc", purge_page)
    app.connect("html-page-context", add_assets)
    app.connect("html-page-context", relative_report_links, priority=600)  # after the outputs are in the body
    app.connect("build-finished", copy_assets)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
