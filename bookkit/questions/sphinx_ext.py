"""Sphinx extension: questions on the page, with feedback for every choice and keys the engine computes.

A chapter asks a question with

    ```{question}
    :id: step1-node
    :kind: predict
    :case: step1_fresh
    :answer: failed

    Which node will step 1's backward fail at?

    - {key}`weight_move` The weight's `to_device` node, NodeId({case}`step1_fresh.weight_move_id`).

      Why not: ... {ref}`the walk <ch05-predict>` ...
    - ...
    ```

The stem comes first, then one bullet per choice (kinds `choice`, `predict`) or per item
(`order`, written in the order the reader first sees them): the item's first paragraph is
what the reader picks, the rest says why it is right or wrong. Paragraphs after the list
explain the whole answer. Everything is MyST, so gettext extracts it and the catalogs
translate it like the rest of the page. Each bullet starts with its key, `` {key}`name` ``,
which the directive takes off before MyST reads the body (source.py): the key is not part of
the words a translator sees, and a bullet moved elsewhere keeps its key. A choice without a
key, two choices with one key, or an answer no choice carries stops the build.

The right key comes from a run: `:case:` names a case in bookkit/runs/question_cases.py and
`:answer:` the field of its result that holds the key (for `order`, the list of keys).
A question no run can back (a fact about Burn) gives the key itself in `:answer:` and
says where it comes from in `:source:` (a key of the page words' `questions.sources`, shown in
the page's language, or a file's path). `` {case}`name.field` `` writes a case's value
into any text. The cases run once per engine, each in a fresh process, into
`_build/.questions/<key>.json` (the key as for the execution cache:
bookkit/site/build.py's `engine_key`); a key no choice has fails the build.

The page gets native controls (`fieldset`, `legend`, radio buttons; an ordered list
with "Move up" and "Move down" buttons), a polite live region for the feedback, and,
for a page without JavaScript, the answer and every explanation in a collapsed
`<details>`. bookkit/questions/questions.js plays it and keeps the reader's progress.
`{question-progress}` lists every chapter with questions and the reader's score in each
(the landing page).
"""

from __future__ import annotations

import json
import posixpath
import re
import tempfile
from html import escape
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from bookkit.questions.source import WRITE_IT, QuestionSourceError, checked_answer, take_keys
from bookkit.runs.question_cases import field, results
from bookkit.site.assets import add_assets
from bookkit.site.build import engine_key
from bookkit.words import say, words

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
KINDS = ("choice", "predict", "order")
_RESULTS: dict[str, Any] = {}


def case_results(root: Path = ROOT) -> dict[str, Any]:
    """Every case's result for this engine, run (a process each) only when the engine changed."""
    if _RESULTS:
        return _RESULTS
    cache = root / "_build" / ".questions"
    path = cache / f"{engine_key(root)}.json"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        fresh = results()
        for stale in cache.glob("*.json"):
            stale.unlink()
        with tempfile.NamedTemporaryFile("w", dir=cache, suffix=".tmp", delete=False, encoding="utf8") as out:
            json.dump(fresh, out, sort_keys=True)
        Path(out.name).rename(path)
    _RESULTS.update(json.loads(path.read_text(encoding="utf8")))
    return _RESULTS


class question(nodes.General, nodes.Element):
    """One question: its parts are `question_part` nodes (stem, each choice or item, explanation)."""


class question_part(nodes.General, nodes.Element):
    """`part`: "stem", "choice" (with `key`: its first paragraph is the choice, the rest its feedback)
    or "explanation"."""


class case_value(nodes.Inline, nodes.TextElement):
    """A value a case computed, written into the text (`reference`: "case.field")."""


class see_link(nodes.Inline, nodes.TextElement):
    """`` {see}`words <05-step-1#run-it>` ``: a link to a paragraph's section (or a stepper's) by the id
    the page gives it, checked once every page is read (`target`: docname, `anchor`: the id)."""


class question_progress(nodes.General, nodes.Element):
    """The list of every chapter's questions and score; filled in once every page was read."""


def shown(value: Any) -> str:
    """A case's value as a reader sees it."""
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, bool):
        return str(value)
    return str(value)


def case_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
              options: dict | None = None, content: list | None = None) -> tuple[list, list]:
    try:
        value = field(case_results(), text.strip())
    except LookupError as error:
        message = inliner.reporter.error(str(error), line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    return [case_value(rawtext, shown(value), reference=text.strip())], []


SEE = re.compile(r"^(?P<text>.+?)\s*<(?P<doc>[^#<>]*)#(?P<anchor>[\w-]+)>$", re.DOTALL)


def key_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: dict | None = None, content: list | None = None) -> tuple[list, list]:
    """A `{key}` anywhere but at the start of a question's choice (in a paragraph, a translation)."""
    message = inliner.reporter.error(f"{{key}}`{text}` names a choice: it belongs at the very start of a "
                                     "bullet of a {question}'s choices, in the English source", line=lineno)
    return [inliner.problematic(rawtext, rawtext, message)], [message]


def see_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: dict | None = None, content: list | None = None) -> tuple[list, list]:
    match = SEE.match(text.strip())
    if not match:
        message = inliner.reporter.error("{see} wants `words <chapter#id>`, e.g. "
                                         "`the walk <05-step-1#run-it>`, "
                                         f"not {text!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    env = inliner.document.settings.env
    doc = match["doc"]
    target = posixpath.normpath(posixpath.join(posixpath.dirname(env.docname), doc)) if doc else env.docname
    node = see_link(rawtext, "", target=target, anchor=match["anchor"])
    node += nodes.Text(match["text"])
    return [node], []


def page_questions(env: BuildEnvironment) -> dict[str, list[str]]:
    """The ids of each page's questions, by docname, in page order (kept in the environment)."""
    if not hasattr(env, "book_questions"):
        env.book_questions = {}  # type: ignore[attr-defined]
    return env.book_questions  # type: ignore[attr-defined]


class Question(SphinxDirective):
    has_content = True
    option_spec = {
        "id": directives.unchanged_required,
        "kind": lambda value: directives.choice(value, KINDS),
        "keys": directives.unchanged,  # the old way, refused with what to write instead
        "case": directives.unchanged,
        "answer": directives.unchanged_required,
        "source": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        for required in ("id", "kind", "answer"):
            if required not in self.options:
                raise self.error(f"a question needs :{required}: "
                                 "(bookkit/questions/sphinx_ext.py says what each option is)")
        qid, kind = self.options["id"], self.options["kind"]
        if "keys" in self.options:
            raise self.error(f"question {qid!r}: :keys: matched keys to bullets by their place and is gone; "
                             f"{WRITE_IT}")
        try:
            lines, keys = take_keys(qid, self.content)
        except QuestionSourceError as error:
            raise self.error(str(error)) from error
        body = nodes.container()
        self.state.nested_parse(StringList(lines, items=list(self.content.items)), self.content_offset, body)
        lists = [child for child in body.children if isinstance(child, nodes.bullet_list)]
        if len(lists) != 1:
            raise self.error(f"question {qid!r}: its body needs exactly one bullet list (the choices), "
                             f"found {len(lists)}")
        at = body.children.index(lists[0])
        items = lists[0].children
        if len(items) != len(keys):
            raise self.error(f"question {qid!r}: its list has {len(items)} choices but {len(keys)} bullets "
                             f"start a line with a key ({' '.join(keys)}); {WRITE_IT}")
        answer = self.answer(qid, kind, keys)
        page = page_questions(self.env).setdefault(self.env.docname, [])
        if qid in page:
            raise self.error(f"question id {qid!r} is used twice on this page")
        page.append(qid)
        node = question(qid=qid, kind=kind, keys=keys, answer=answer, number=len(page),
                        case=self.options.get("case", ""), field=self.options["answer"],
                        source=self.options.get("source", ""), docname=self.env.docname)
        node += question_part("", *body.children[:at], part="stem")
        for key, item in zip(keys, items, strict=True):
            node += question_part("", *item.children, part="choice", key=key)
        node += question_part("", *body.children[at + 1:], part="explanation")
        self.set_source_info(node)
        return [node]

    def answer(self, qid: str, kind: str, keys: list[str]) -> str | list[str]:
        """The right key (or, for `order`, keys in order): a case's result, or given with its source."""
        if self.options.get("case"):
            try:
                value = field(case_results(), f"{self.options['case']}.{self.options['answer']}")
            except LookupError as error:
                raise self.error(f"question {qid!r}: {error}") from error
        elif self.options.get("source"):
            text = self.options["answer"]
            value = text.split() if kind == "order" else text
        else:
            raise self.error(f"question {qid!r}: give :case: (a run computes the key) or :source: "
                             "(where the key's fact comes from)")
        try:
            return checked_answer(qid, kind, keys, value if kind == "order" else shown(value))
        except QuestionSourceError as error:
            raise self.error(str(error)) from error


class QuestionProgress(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        return [question_progress()]


# ----- HTML --------------------------------------------------------------------------------------


def _html(translator: Any, children: list[nodes.Node]) -> str:
    """The HTML of `children`, written by the page's own translator."""
    saved, translator.body = translator.body, []
    for child in children:
        child.walkabout(translator)
    html, translator.body = "".join(translator.body), saved
    return html


def _first_paragraph(part: question_part) -> tuple[list[nodes.Node], list[nodes.Node]]:
    """A choice's own words (the first paragraph's inline content) and its feedback (the rest)."""
    first = part.children[0] if part.children else None
    if isinstance(first, nodes.paragraph):
        return list(first.children), list(part.children[1:])
    return [], list(part.children)


def visit_question(self: Any, node: question) -> None:
    said = words(self.builder.config.language, "page")["questions"]
    qid, kind = node["qid"], node["kind"]
    base = f"question-{qid}"
    parts = {part["part"]: part for part in node.children if part["part"] != "choice"}
    choices = [part for part in node.children if part["part"] == "choice"]
    answer = node["answer"]
    attributes = {"class": f"question question-kind-{kind}", "id": base, "data-question": qid,
                  "data-kind": kind,
                  "data-page": node["docname"], "data-answer": json.dumps(answer)}
    if node["case"]:
        attributes["data-case"] = f"{node['case']}.{node['field']}"
    out = ["<div " + " ".join(f'{name}="{escape(value)}"' for name, value in attributes.items()) + ">"]
    legend = f"{said['kind_' + kind]} · {say(said['question'], n=node['number'])}"
    out.append('<fieldset class="question-fieldset">'
               f'<legend class="question-legend">{escape(legend)}</legend>')
    out.append(f'<div class="question-stem" id="{base}-stem">{_html(self, parts["stem"].children)}</div>')
    labels, feedback = {}, {}
    for part in choices:
        own, rest = _first_paragraph(part)
        labels[part["key"]], feedback[part["key"]] = _html(self, own), _html(self, rest)
    if kind == "order":
        out.append(f'<ol class="question-order" aria-describedby="{base}-stem">')
        for part in choices:
            key = escape(part["key"])
            out.append(f'<li class="question-item" data-key="{key}"><span class="question-item-text">'
                       f'{labels[part["key"]]}</span><span class="question-moves" hidden>'
                       f'<button type="button" data-move="up">{escape(said["move_up"])}</button>'
                       f'<button type="button" data-move="down">{escape(said["move_down"])}</button>'
                       '</span></li>')
        out.append("</ol>")
    else:
        out.append('<div class="question-choices">')
        for part in choices:
            key = escape(part["key"])
            out.append(f'<div class="question-choice" data-key="{key}"><input type="radio" name="{base}" '
                       f'id="{base}-{key}" value="{key}"><label for="{base}-{key}">{labels[part["key"]]}'
                       '</label></div>')
        out.append("</div>")
    out.append("</fieldset>")
    out.append(f'<div class="question-actions" hidden><button type="button" class="question-check">'
               f'{escape(said["check"])}</button><span class="question-progress"></span></div>')
    out.append('<div class="question-status" role="status" aria-live="polite"></div>')
    summary = said["answer_order"] if kind == "order" else said["answer"]
    out.append(f'<details class="question-answer"><summary>{escape(summary)}</summary>')
    if kind == "order":
        out.append('<ol class="question-solution">')
        for key in answer:
            out.append(f'<li class="question-feedback" data-key="{escape(key)}"><p class="question-verdict">'
                       f'{labels[key]}</p>{feedback[key]}</li>')
        out.append("</ol>")
    else:
        for key in [answer] + [key for key in node["keys"] if key != answer]:
            verdict = said["right_choice"] if key == answer else said["wrong_choice"]
            right = str(key == answer).lower()
            out.append(f'<div class="question-feedback" data-key="{escape(key)}" data-right="{right}">'
                       f'<p class="question-verdict"><strong>{escape(verdict)}</strong> {labels[key]}</p>'
                       f'{feedback[key]}</div>')
    explanation = _html(self, parts["explanation"].children)
    if explanation:
        out.append(f'<div class="question-explanation">{explanation}</div>')
    if node["source"]:  # a source the words name, in the page's language; else a path, as code
        named = said["sources"].get(node["source"])
        cited = escape(named) if named else f'<code>{escape(node["source"])}</code>'
        out.append(f'<p class="question-source">{escape(said["source"])} {cited}</p>')
    out.append("</details></div>")
    self.body.append("\n".join(out))
    raise nodes.SkipNode


def visit_case_value(self: Any, node: case_value) -> None:
    self.body.append(f'<span class="question-value" data-case="{escape(node["reference"])}">')


def depart_case_value(self: Any, node: case_value) -> None:
    self.body.append("</span>")


def visit_progress(self: Any, node: question_progress) -> None:
    self.body.append(node.get("html", ""))
    raise nodes.SkipNode


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def resolve_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Each `{see}` link becomes a link to its id, or a warning (the strict build fails) if the id is gone."""
    for link in list(doctree.findall(see_link)):
        target, anchor = link["target"], link["anchor"]
        if target not in app.env.found_docs:
            logger.warning(f"{{see}} names {target!r}, which is not a page", location=link)
            ids: set[str] = set()
        else:
            ids = set(doctree.ids) if target == docname else _page_ids(app, target)
        if target in app.env.found_docs and anchor not in ids:
            logger.warning(f"{{see}} links to #{anchor} in {target}, which has no such id (its sections' ids "
                           "come from their titles: a title changed?)", location=link)
        uri = "" if target == docname else app.builder.get_relative_uri(docname, target)
        reference = nodes.reference("", "", *link.children, refuri=f"{uri}#{anchor}", internal=True)
        link.replace_self(reference)


def _page_ids(app: Sphinx, docname: str) -> set[str]:
    """The ids of another page (its doctree read once per build)."""
    known = app.__dict__.setdefault("question_page_ids", {})
    if docname not in known:
        known[docname] = set(app.env.get_doctree(docname).ids)
    return known[docname]


def fill_progress(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """`{question-progress}`: each page with questions, in reading order, with their count (the script
    adds the reader's score)."""
    places = list(doctree.findall(question_progress))
    if not places:
        return
    env = app.env
    said = words(app.config.language, "page")["questions"]
    found = page_questions(env)
    order = [name for name in env.found_docs if name in found and found[name]]
    ordered = sorted(order, key=lambda name: (_reading_order(env).get(name, 10**6), name))
    rows = []
    for name in ordered:
        title = escape(env.titles[name].astext()) if name in env.titles else escape(name)
        href = escape(app.builder.get_relative_uri(docname, name))
        count = len(found[name])
        rows.append(f'<li><a href="{href}">{title}</a> '
                    f'<span class="question-score" data-page="{escape(name)}" '
                    f'data-total="{count}">{escape(say(said["landing_total"], n=count))}</span></li>')
    html = (f'<div class="question-progress-list"><ul>{"".join(rows)}</ul><p class="question-actions" hidden>'
            f'<button type="button" class="question-clear-all">{escape(said["clear_all"])}</button></p>'
            '<div class="question-status" role="status" aria-live="polite"></div></div>')
    for place in places:
        place["html"] = html


def _reading_order(env: BuildEnvironment) -> dict[str, int]:
    """Each docname's place in the table of contents (the root's toctrees, depth first)."""
    order: dict[str, int] = {}

    def walk(name: str) -> None:
        if name in order:
            return
        order[name] = len(order)
        for child in env.toctree_includes.get(name, []):
            walk(child)

    walk(env.config.root_doc)
    return order


def purge_page(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    page_questions(env).pop(docname, None)


def setup(app: Sphinx) -> dict[str, Any]:
    add_assets(app, Path(__file__).resolve().parent, ["questions.js", "questions.css"])
    app.add_node(question, html=(visit_question, None), text=(skip, None), latex=(skip, None))
    app.add_node(question_part)
    app.add_node(see_link)
    app.add_node(case_value, html=(visit_case_value, depart_case_value))
    app.add_node(question_progress, html=(visit_progress, None), text=(skip, None), latex=(skip, None))
    app.add_directive("question", Question)
    app.add_directive("question-progress", QuestionProgress)
    app.add_role("case", case_role)
    app.add_role("key", key_role)
    app.add_role("see", see_role)
    app.connect("doctree-resolved", resolve_links)
    app.connect("env-purge-doc", purge_page)
    app.connect("doctree-resolved", fill_progress)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
