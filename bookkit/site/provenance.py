"""Sphinx extension: a small marker at a claim whose source is this engine, not Burn, linking to its row.

Every statement about Burn in the book rests on the article's run of Burn 0.22.1, on Burn's
source snapshot (commit 2c06be351), or on this engine's own choice where neither says.
Appendix 5 (book/a5-who-says-what.md) has one row per behaviour; a sentence, an output's
caption or a question's answer that rests on the engine, or on a row where 0.22.1 and the
snapshot disagree, carries a marker where it is made:

    ... the guard relies on the stored flag {engine-choice}`flag_autodiff_move`.

- `{engine-choice}` a row marked "this engine's choice" (the engine departs from the
  snapshot where the article is silent);
- `{engine-extension}` a row marked "this engine's extension" (the article's check applied
  to cases it does not run);
- `{versions-differ}` a row where the article's 0.22.1 and the snapshot disagree.

The name is the row's test in tests/book/test_claims_table.py without `test_row_`. Each row of
appendix 5's table gets the id `row-<name with dashes>` from its test (`RowIds`), and a marker
becomes a link to it, its words from bookkit/words (part "provenance") in the page's
language and its title the row's behaviour as that edition's appendix names it; a marker
naming no row fails the strict build. bookkit/workbook/markdown.py writes the same
marker into the exercise notebooks (`marker_link`), and tests/site/test_provenance.py checks
that every engine's-choice row is marked on each page that shows its behaviour.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from bookkit.words import words

logger = logging.getLogger(__name__)
APPENDIX = "book/a5-who-says-what"
KINDS = {"engine-choice": "choice", "engine-extension": "extension", "versions-differ": "differ"}
ROW_TEST = re.compile(r"^test_row_(\w+)$")


def row_id(name: str) -> str:
    """The id appendix 5 gives the row whose test is `test_row_<name>`."""
    return "row-" + name.replace("_", "-")


class provenance_marker(nodes.Inline, nodes.TextElement):
    """A marker before its link is made (`kind`: choice, extension or differ; `row`: the row's name)."""


def marker_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                options: dict | None = None, content: list | None = None) -> tuple[list, list]:
    row = text.strip()
    if not re.fullmatch(r"\w+", row):
        message = inliner.reporter.error(f"{{{name}}} wants a row's name, e.g. `flag_autodiff_move`, "
                                         f"not {text!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    return [provenance_marker(rawtext, "", kind=KINDS[name], row=row)], []


class RowIds(SphinxTransform):
    """Each row of the appendix's table gets the id of its test (`test_row_lazy_move` -> `row-lazy-move`)."""

    default_priority = 21  # after Sphinx's Locale transform (20): the translated row keeps its id

    def apply(self, **kwargs: Any) -> None:
        if self.env.docname != APPENDIX:
            return
        for row in self.document.findall(nodes.row):
            cells = [entry.astext().strip() for entry in row.findall(nodes.entry)]
            found = ROW_TEST.match(cells[-1]) if cells else None
            if found:
                row["ids"].append(row_id(found[1]))


def _rows(app: Sphinx) -> dict[str, str]:
    """The appendix's rows in this build: id -> the behaviour its first cell names (once per build)."""
    known = app.__dict__.setdefault("provenance_rows", {})
    if not known and APPENDIX in app.env.found_docs:
        for row in app.env.get_doctree(APPENDIX).findall(nodes.row):
            for identifier in row["ids"]:
                known[identifier] = next(row.findall(nodes.entry)).astext().strip()
    return known


def resolve_markers(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Each marker becomes a link to its row, or a warning (the strict build fails) if there is none."""
    said = words(app.config.language, "provenance")
    for marker in list(doctree.findall(provenance_marker)):
        identifier = row_id(marker["row"])
        rows = _rows(app)
        if identifier not in rows:
            logger.warning(f"a provenance marker names {marker['row']!r}, which has no row in "
                           f"{APPENDIX}.md (its rows are named by their tests, test_row_<name>)",
                           location=marker)
        uri = "" if docname == APPENDIX else app.builder.get_relative_uri(docname, APPENDIX)
        title = said["title"].format(row=rows.get(identifier, marker["row"]))
        link = nodes.reference("", said[marker["kind"]], refuri=f"{uri}#{identifier}", internal=True,
                               reftitle=title, classes=["provenance", f"provenance-{marker['kind']}"])
        marker.replace_self(link)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(provenance_marker)
    for name in KINDS:
        app.add_role(name, marker_role)
    app.add_transform(RowIds)
    app.connect("doctree-resolved", resolve_markers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
