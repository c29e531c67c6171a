"""No English phrase on a page of the Chinese edition, as built.

Every zh_CN page of `_toc.yml` is read as a reader meets it: its text (tables and cell outputs too),
its pictures' SVG text and titles, its aria-labels, titles and alt texts, and what its scripts show
(the page words in `script#tds-words`, each stepper's frames, the explorer's answers and its
pictures). A Latin word there must be code (`<code>`, a code cell, a literal block), an identifier
(`to_device`, `NodeId(3)`, `TapeConsumedError`, a file or a URL), a source's own words quoted
verbatim (Burn's messages and doc comments, PyTorch's and MLX's documentation, marked `lang="en"`
or listed in `VERBATIM`, tests/helpers/english_phrases.py), or a term the glossary keeps in English
(its section `KEPT_SECTION`). Anything else is named with its page and where it stood.

A cell's output is read as a reader meets it: its HTML (tables, pictures, steppers) whole; an error
output from the error's name on (the engine's explanation, Burn's words verbatim); what a cell printed
for the engine's explanations left in English (the rest of it is what the chapter's code spelled, or
a value's repr: code, like the cell).
"""

from __future__ import annotations

import html.parser
import json
import re
from pathlib import Path

import pytest
from book_outputs import ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)
from english_phrases import VERBATIM, english_phrases

from bookkit.runs.combinations import COMBINATIONS
from bookkit.runs.methods import EXTRA_SCENARIOS, SCENARIOS
from bookkit.words import PLACEHOLDER

CHINESE = "zh_CN"
GLOSSARY = ROOT / "locale" / CHINESE / "GLOSSARY.md"
KEPT_SECTION = "## Kept in English"
BURN_CHECK_WORDS = ROOT / "bookkit" / "burn_check" / "words" / "en.json"

SKIPPED_TAGS = {"script", "style", "code", "kbd", "samp", "var", "math", "template"}
ATTRIBUTES = ("aria-label", "aria-description", "aria-valuetext", "title", "alt", "placeholder",
              "xlink:title")
CODE_CLASSES = {"cell_input", "highlight", "math", "MathJax"}
"""An element with one of these classes holds code or math, unless it is inside a cell's output."""
UNSHOWN_CLASSES = {"onlyprint"}
"""An element with one of these classes is shown on paper only (sphinx-book-theme's printed contents)."""



def kept_terms() -> set[str]:
    """The glossary's list of words that stay English on a zh page (its section `KEPT_SECTION`), the
    relocation methods' names (`ad-to_device`: identifiers the chapters and the explorer show) and
    burn-check's rule ids (`moved-then-trained`: identifiers its report shows, as `--format json` does)."""
    text = GLOSSARY.read_text(encoding="utf8")
    section = text.split(KEPT_SECTION, 1)[1].split("\n## ", 1)[0]
    terms = set()
    for line in section.splitlines():
        if line.startswith("- "):
            terms |= {term.strip() for term in line[2:].split(" — ")[0].split(",") if term.strip()}
    rule_ids = json.loads(BURN_CHECK_WORDS.read_text(encoding="utf8"))["rules"]
    return (terms | set(SCENARIOS) | set(EXTRA_SCENARIOS) | {found.name for found in COMBINATIONS.values()}
            | set(rule_ids))


PRINTED_CLASSES = {"stream", "text_plain", "traceback", "stderr"}
"""A cell's output of one of these kinds is what its code printed (its HTML outputs are read whole)."""
ENGINE_ERROR = re.compile(r"\b[A-Z]\w*(?:Error|Warning):\s")


def engine_error(traceback: str) -> str:
    """What a reader must read in the page's language of a cell's error output: the message of the
    error, from its name (or Burn's words, a message shown without it) on; IPython's own lines before
    it (`Traceback`, `Cell In[3]`) are the machinery's, like code."""
    flat = re.sub(r"\s+", " ", traceback)
    starts = [match.start() for match in [ENGINE_ERROR.search(flat)] if match]
    starts += [flat.find(quoted) for quoted in VERBATIM if quoted in flat]
    return flat[min(starts):] if starts else flat


def english_explanations(printed: str) -> list[str]:
    """The engine's explanations left in English in what a cell printed (the words' part "explained",
    English: `What happened: ...`, the guard's messages). The rest of a printed output is what the
    chapter's code spelled (`print(f"loss at step {step}")`) or a value's repr: code, like the cell."""
    from bookkit.words import words
    from bookkit.words.explained import _pattern

    english = words("en", "explained")["sentences"]
    return [f"{key}: {found[0][:80]!r}" for key, template in english.items()
            for found in [_pattern(template, within=True).search(printed)] if found]


class Shown(html.parser.HTMLParser):
    """What a reader meets of a page, as (where, text) pairs: the text outside code, and the attributes
    a browser shows or reads out."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
            "wbr", "path", "use", "rect", "circle", "ellipse", "polygon", "polyline", "line", "stop", "image"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, bool]] = []  # tag, skipped, inside an output
        self.found: list[tuple[str, str]] = []
        self.printed: list[str] | None = None  # the text of a cell's printed output, while inside one
        self.printed_depth = 0
        self.printed_kind = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        classes = set(attributes.get("class", "").split())
        skipped, output = (self.stack[-1][1], self.stack[-1][2]) if self.stack else (False, False)
        output = output or "cell_output" in classes
        language = attributes.get("lang", "")
        skipped = (skipped or tag in SKIPPED_TAGS or (language and not language.startswith("zh"))
                   or bool(classes & UNSHOWN_CLASSES)
                   or (not output and (tag == "pre" or bool(classes & CODE_CLASSES)
                                       or any(name.startswith("highlight") for name in classes))))
        if not skipped:
            self.found += [(f"{tag}@{name}", attributes[name]) for name in ATTRIBUTES if attributes.get(name)]
        if tag not in self.VOID:
            self.stack.append((tag, skipped, output))
            if self.printed is None and output and "output" in classes and classes & PRINTED_CLASSES:
                self.printed, self.printed_depth = [], len(self.stack)
                self.printed_kind = "traceback" if "traceback" in classes else "printed"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        for at in range(len(self.stack) - 1, -1, -1):
            if self.stack[at][0] == tag:
                del self.stack[at:]
                break
        if self.printed is not None and len(self.stack) < self.printed_depth:
            self.found.append((f"{self.printed_kind} output", "".join(self.printed)))
            self.printed = None

    def handle_data(self, data: str) -> None:
        if self.printed is not None:
            self.printed.append(data)
        elif data.strip() and not (self.stack and self.stack[-1][1]):
            tabled = "table " if any(tag == "table" for tag, _, _ in self.stack) else ""
            self.found.append((tabled + (self.stack[-1][0] if self.stack else ""), data))


def shown(markup: str) -> list[tuple[str, str]]:
    parser = Shown()
    parser.feed(markup)
    return parser.found


def strings(value: object, path: str = "") -> list[tuple[str, str]]:
    """Every string in a JSON value, with where it is (`frames.3.sentence`)."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in strings(item, f"{path}.{key}".strip("."))]
    if isinstance(value, list):
        return [found for at, item in enumerate(value) for found in strings(item, f"{path}.{at}".strip("."))]
    return []


def scripts_show(page: str, folder: Path) -> list[tuple[str, str]]:
    """What the page's scripts show: the page words (live mode's aside), each stepper's title, node names
    and frames, the explorer's answers and the pictures it loads."""
    found = []
    for text in re.findall(r'<script type="application/json" id="tds-words">(.*?)</script>', page, re.S):
        said = json.loads(text)
        found += [(f"page words {where}", PLACEHOLDER.sub(" ", value)) for where, value in strings(said)]
    for text in re.findall(r'class="stepper-data">(.*?)</script>', page, re.S):
        data = json.loads(text)
        found.append(("stepper title", data["title"]))
        found += [(f"stepper node {node}", entry["name"]) for node, entry in data["nodes"].items()]
        found += [(f"stepper frame {at}", frame["sentence"]) for at, frame in enumerate(data["frames"])]
        found += [(f"stepper link {key}", entry["text"]) for key, entry in data["burn"].items()]
    for text in re.findall(r'class="explorer-data">(.*?)</script>', page, re.S):
        data = json.loads(text)
        for key, answer in data["answers"].items():
            found += [(f"explorer {key}", line) for line in answer["lines"]]
            found += [(f"explorer {key} {field}", answer[field])
                      for field in ("message", "graph_alt", "curve_alt") if answer.get(field)]
        for picture in sorted((folder / data["folder"]).glob("*.svg")):
            found += [(f"explorer picture {picture.name}: {where}", text)
                      for where, text in shown(picture.read_text(encoding="utf8"))]
    return found


def page_findings(docname: str, kept: set[str]) -> list[str]:
    path = SITE / CHINESE / f"{docname}.html"
    page = path.read_text(encoding="utf8")
    body = re.search(r"<body\b.*</body>", page, re.S)[0]
    found = []
    for where, text in shown(body) + scripts_show(page, path.parent):
        if where == "printed output":
            found += [f"{where}: the engine's English {said}" for said in english_explanations(text)]
            continue
        if where == "traceback output":
            text = engine_error(text)
        found += [f"{where}: {phrase!r} in {text.strip()[:120]!r}" for phrase in english_phrases(text, kept)]
    return list(dict.fromkeys(found))


def test_the_check_finds_english_and_spares_code_identifiers_and_kept_terms() -> None:
    kept = {"backward", "tape", "consumed", "tape consumed"}
    assert english_phrases("第 1 步的 backward 之后，tape consumed", kept) == []
    assert english_phrases("to_device (flex to metal)", kept) == ["flex to metal"]
    assert english_phrases("结局：trains", kept) == ["trains"]
    assert english_phrases("「Cannot run backward: graph tape has already been consumed at NodeId(5)」",
                           kept) == []
    assert english_phrases("TapeConsumedError: NodeId(3), tape.py, `sum`, https://x.org/a", kept) == []
    assert "one step at a time" in " ".join(english_phrases("Step 0's backward, one step at a time", kept))
    assert english_phrases("结局：silent-then-crash", kept) == ["silent-then-crash"]


def test_the_page_reader_skips_code_and_marked_english_and_reads_outputs_and_labels() -> None:
    found = shown('<p>看 <code>one two</code> 和 <span lang="en">English</span></p>'
                  '<button aria-label="Next step">下一帧</button>'
                  '<div class="cell_input"><pre>x = fork()</pre></div>'
                  '<div class="cell_output"><pre>What happened</pre></div>'
                  '<div class="highlight"><pre>y = 1</pre></div>')
    assert sorted(found) == sorted([("p", "看 "), ("p", " 和 "), ("button@aria-label", "Next step"),
                                    ("button", "下一帧"), ("pre", "What happened")])


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("docname", toc_pages())
def test_a_zh_page_shows_no_english_phrase(docname: str) -> None:
    found = page_findings(docname, kept_terms())
    assert not found, f"{CHINESE}/{docname}.html shows English:\n" + "\n".join(found[:60])
