"""A chapter's MyST Markdown made into the plain Markdown JupyterLab renders, so a fork reads on its own.

JupyterLab knows CommonMark, not MyST: a role such as {glue:text}`loss0:.4f`
would show as raw text, a directive as a code block, and a link to a sibling
`.md` file would lead nowhere from the reader's folder. So glued values are
filled in from the built book when it is current (else the role says where
the value is), a provenance marker becomes its link to appendix 5, other
roles become their text, admonitions become quotes,
tabs become headed paragraphs, included code is included, a glued figure
points at the page, and links to chapters point at the same edition of the
published book (`html.baseurl`), or of the book as `make book` serves it
(bookkit/site/layout.py knows where each page is).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

import nbformat

from bookkit.site import layout as site_layout
from bookkit.words import say, words
from bookkit.workbook.chapters import Chapter
from bookkit.workbook.convention import _DIRECTIVE, _OPENING, _is_closing, _options_and_body

Glued = Mapping[str, Mapping[str, str]]
"""Each glued name's output data, by MIME type, from the executed chapter."""


@dataclass(frozen=True)
class Site:
    """The edition a notebook's links lead to, and the site's base URL."""

    language: str = "en"
    base: str = site_layout.LOCAL

    def page(self, docname: str, anchor: str = "") -> str:
        return site_layout.page_url(docname, self.language, anchor, self.base)


def docname(chapter: Chapter) -> str:
    """The chapter's page name in the site: "book/04-step-0"."""
    return chapter.path.relative_to(chapter.root).with_suffix("").as_posix()


def page_url(chapter: Chapter, anchor: str = "", site: Site = Site()) -> str:
    """The chapter's page, e.g. http://127.0.0.1:8000/en/book/04-step-0.html#ex-04-smoke-test."""
    return site.page(docname(chapter), anchor)


def glued_values(chapter: Chapter) -> dict[str, dict[str, str]]:
    """Every value the chapter glues, from the built book's executed copy if it matches the chapter.

    Empty when the book is not built, or was built from other code than the
    chapter has now (its values could be stale).
    """
    source = chapter.path.relative_to(chapter.root).with_suffix(".ipynb")
    executed = chapter.root / "_build" / "jupyter_execute" / source
    if not executed.is_file():
        return {}
    try:
        built = nbformat.read(executed, as_version=4)
    except Exception:  # a half-written or foreign file: no values rather than wrong ones
        return {}

    def code(nb: nbformat.NotebookNode) -> list[str]:
        return [cell.source.strip() for cell in nb.cells if cell.cell_type == "code"]

    if code(built) != code(chapter.read()):
        return {}
    values: dict[str, dict[str, str]] = {}
    for cell in built.cells:
        for output in cell.get("outputs", []):
            scrapbook = output.get("metadata", {}).get("scrapbook", {})
            if "name" in scrapbook:  # myst-nb stores glued data under a prefixed MIME type
                prefix = scrapbook.get("mime_prefix", "")
                data = output.get("data", {}).items()
                values[scrapbook["name"]] = {kind.removeprefix(prefix): _text(value) for kind, value in data}
    return values


def _text(data: object) -> str:
    return "".join(data) if isinstance(data, list) else str(data)


def plain(text: str, chapter: Chapter, glued: Glued, site: Site = Site()) -> str:
    """`text` (a markdown cell of `chapter`) with its directives, roles and links made plain."""
    return _links(_roles(_directives(text, chapter, glued, site), chapter, glued, site), chapter, site)


# ----- directives -----------------------------------------------------------------------------

def _said(site: Site) -> dict:
    """The generated words of a copy in the site's language (bookkit/words: part "exercises")."""
    return words(site.language, "exercises")


def _directives(text: str, chapter: Chapter, glued: Glued, site: Site) -> str:
    """Each top-level fenced directive rendered as plain Markdown; other fenced blocks kept as they are."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        opening = _OPENING.match(lines[i].rstrip("\n"))
        if not opening:
            out.append(lines[i])
            i += 1
            continue
        fence = opening["fence"]
        close = next((j for j in range(i + 1, len(lines)) if _is_closing(lines[j], fence)), len(lines) - 1)
        directive = _DIRECTIVE.match(opening["info"].strip())
        if directive is None:
            out.extend(lines[i : close + 1])
        else:
            options, body = _options_and_body(lines[i + 1 : close])
            out.append(
                _directive(directive["name"], directive["arg"].strip(), options, body, chapter, glued, site)
            )
        i = close + 1
    return "".join(out)


def _directive(
    name: str, arg: str, options: dict[str, str], body: str, chapter: Chapter, glued: Glued, site: Site
) -> str:
    inner = _directives(body, chapter, glued, site).strip()
    said = _said(site)
    if name in said["admonitions"] or name == "admonition":
        title = arg if name == "admonition" else said["admonitions"][name]
        titled = say(said["titled"], title=title) + inner
        quoted = "\n".join(f"> {line}".rstrip() for line in titled.splitlines())
        return f"{quoted}\n"
    if name == "tab-set":
        return f"{inner}\n"
    if name == "tab-item":
        return f"**{arg}**\n\n{inner}\n\n"
    if name == "literalinclude":
        return _included(arg, options, chapter, said)
    url = page_url(chapter, "", site)
    if name == "glue:figure":
        caption = f"{said['colon']}{inner}" if inner else ""
        return say(said["figure"], url=url, caption=caption) + "\n"
    return say(said["block"], name=name, url=url) + "\n"


def _included(arg: str, options: dict[str, str], chapter: Chapter, said: dict) -> str:
    """A literalinclude as a code block: the whole file, or the `:pyobject:` it names."""
    path = (chapter.path.parent / arg).resolve()
    language = options.get("language", "")
    try:
        source = path.read_text(encoding="utf-8")
    except OSError:
        return say(said["included"], file=arg) + "\n"
    if "pyobject" in options:
        source = _pyobject(source, options["pyobject"]) or source
    if "dedent" in options:
        source = textwrap.dedent(source)
    return f"```{language}\n{source.rstrip()}\n```\n"


def _pyobject(source: str, dotted: str) -> str | None:
    """The source of the class or function `dotted` (`Param.to_device`) in `source`, or None."""
    body: list[ast.stmt] = ast.parse(source).body
    found: ast.stmt | None = None
    definitions = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for part in dotted.split("."):
        found = next((node for node in body if isinstance(node, definitions) and node.name == part), None)
        if found is None:
            return None
        body = found.body
    lines = source.splitlines()
    start = min([found.lineno, *(d.lineno for d in getattr(found, "decorator_list", []))])
    return "\n".join(lines[start - 1 : found.end_lineno])


# ----- roles ----------------------------------------------------------------------------------

_ROLE_OR_CODE = re.compile(
    r"\{(?P<role>[a-z][\w:-]*)\}`(?P<content>[^`]*)`|(?P<code>(?P<ticks>`+).+?(?P=ticks))", re.S
)
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def _roles(text: str, chapter: Chapter, glued: Glued, site: Site) -> str:
    """Each MyST role outside inline code replaced by its value or text."""

    def render(match: re.Match[str]) -> str:
        if match["code"] is not None:
            return match["code"]
        return _role(match["role"], match["content"], chapter, glued, site)

    return _ROLE_OR_CODE.sub(render, text)


def _role(role: str, content: str, chapter: Chapter, glued: Glued, site: Site) -> str:
    if role == "glue" or role.startswith("glue:"):
        return _glued(role, content, chapter, glued, site)
    if role in PROVENANCE:
        return marker_link(role, content.strip(), site)
    if role in ("math", "m"):
        return f"${content}$"
    titled = _TITLED.match(content)
    if titled:
        return titled["title"]
    if role in ("ref", "numref", "doc", "term", "any"):
        return content.rsplit("/", 1)[-1].replace("-", " ")
    return content


PROVENANCE = {"engine-choice": "choice", "engine-extension": "extension", "versions-differ": "differ"}
"""The provenance markers (bookkit/site/provenance.py): role -> its words in the part "provenance"."""


def marker_link(role: str, row: str, site: Site) -> str:
    """A provenance marker as the page shows it: its words, linking to its row of appendix 5."""
    said = words(site.language, "provenance")
    url = site.page("book/a5-who-says-what", "row-" + row.replace("_", "-"))
    return f"[{said[PROVENANCE[role]]}]({url})"


def _glued(role: str, content: str, chapter: Chapter, glued: Glued, site: Site) -> str:
    """A glued value as the page shows it, or, without a current build, where to find it."""
    name, _, spec = content.rpartition(":") if ":" in content else (content, "", "")
    data = glued.get(name, {})
    if "text/plain" not in data and "text/markdown" not in data:
        return say(_said(site)["on_page"], name=name, url=page_url(chapter, "", site))
    if role == "glue:md" and "text/markdown" in data:
        return data["text/markdown"]
    value = data.get("text/plain", "")
    if role == "glue:text":  # as myst-nb pastes it: a string without its quotes, a number formatted
        from myst_nb.core.variables import format_plain_text  # only a fork needs myst-nb, not `check`

        try:
            return format_plain_text(value, spec)
        except (ValueError, TypeError):
            return value
    return value


# ----- links ----------------------------------------------------------------------------------

_LINK = re.compile(r"(?P<open>\]\()(?P<target>[^)\s]+)(?P<close>\))")


def _links(text: str, chapter: Chapter, site: Site) -> str:
    """Relative links to the book's pages made links to the site's edition: they work from any folder."""

    def move(match: re.Match[str]) -> str:
        target = match["target"]
        if "://" in target or target.startswith(("mailto:", "/")):
            return match[0]
        path, _, anchor = target.partition("#")
        resolved = (chapter.path.parent / path).resolve() if path else chapter.path.resolve()
        try:
            inside = resolved.relative_to(chapter.root.resolve())
        except ValueError:
            return match[0]  # outside the book: nothing on the site to point at
        if inside.suffix not in (".md", ".ipynb"):
            return match[0]  # a file, not a page: the site has no copy of it to point at
        url = site.page(PurePosixPath(inside.as_posix()).with_suffix("").as_posix(), anchor)
        return f"{match['open']}{url}{match['close']}"

    return _LINK.sub(move, text)
