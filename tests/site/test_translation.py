"""The Chinese edition: complete catalogs in step with the English text, pages that read in Chinese.

The catalogs (`locale/zh_CN/LC_MESSAGES/`) must hold a finished translation of
exactly the English text a fresh extraction gives (`make catalogs` brings them in
step; bookkit/site/catalogs.py), every zh_CN page's prose must be Chinese, no MyST role
or cross-reference may be left raw or broken by a translation, and every page of
each edition links the same page of the other (bookkit/site/book_languages.py).
"""

from __future__ import annotations

import html.parser
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from book_outputs import EDITIONS, ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

from bookkit.site import catalogs
from bookkit.site.build import chosen_languages, last_log, root_page
from bookkit.words.language import LANGUAGES

CHINESE = "zh_CN"
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN = re.compile(r"[A-Za-z]")
MIN_CJK_SHARE = 0.6
"""Of a zh_CN page's prose letters (CJK characters and Latin letters, code, outputs and math left
out), at least this share must be CJK. A finished page measures 0.75-0.95 here (Burn's and Python's
names in prose, "MLX", "Adam", stay Latin); a page that fell back to English measures near 0, and
one with a third of its paragraphs left in English near 0.5: an English word takes about three
times the letters of its Chinese, so English left behind weighs heavily."""

# MyST roles written out as text: a translation that broke a role's syntax (or lost its backticks)
RAW_ROLE = re.compile(r"\{(?:glue(?::\w+)?|ref|doc|term|numref|eq|download|abbr|math|sub-ref|"
                      r"prf:ref|external\+?\w*)\}")


# ----- the catalogs --------------------------------------------------------------------------

def write_po(path: Path, entries: list[tuple[str, str, bool]]) -> None:
    """A catalog with (msgid, msgstr, fuzzy) entries and sphinx-intl's fuzzy header."""
    lines = ['#, fuzzy', 'msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"', ""]
    for number, (msgid, msgstr, fuzzy) in enumerate(entries, start=1):
        lines += [f"#: ../../book/page.md:{number}"] + (["#, fuzzy"] if fuzzy else [])
        lines += [f"msgid {json.dumps(msgid, ensure_ascii=False)}",
                  f"msgstr {json.dumps(msgstr, ensure_ascii=False)}", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf8")


def test_unfinished_names_each_untranslated_and_fuzzy_entry(tmp_path: Path) -> None:
    """The check the catalogs test relies on finds what a translator left, and nothing in a finished one."""
    folder = tmp_path / CHINESE / "LC_MESSAGES" / "book"
    write_po(folder / "done.po", [("Leaf", "叶子", False)])
    write_po(folder / "page.po", [("Leaf", "叶子", False), ("Lazy parameter", "", False),
                                  ("The tape", "tape", True)])
    left = catalogs.unfinished(CHINESE, tmp_path)
    assert [(entry.catalog.name, entry.problem, entry.msgid) for entry in left] == [
        ("page.po", "untranslated", "Lazy parameter"), ("page.po", "fuzzy", "The tape")]
    assert "page.po:11: untranslated: Lazy parameter" in str(left[0]), "the file, the line, the msgid"
    write_po(folder / "page.po", [("Lazy parameter", "懒参数", False)])
    assert catalogs.unfinished(CHINESE, tmp_path) == []


def test_every_catalog_entry_is_translated_and_checked() -> None:
    """An English edit ships with its translation: no empty msgstr, no fuzzy flag, in any catalog."""
    left = catalogs.unfinished(CHINESE)
    shown = "\n".join(str(entry) for entry in left[:60])
    more = f"\n... and {len(left) - 60} more" if len(left) > 60 else ""
    assert not left, (f"{len(left)} catalog entries are untranslated or fuzzy (translate them, following "
                      f"locale/{CHINESE}/GLOSSARY.md, and remove each checked fuzzy flag):\n{shown}{more}")


def test_out_of_sync_names_missing_and_obsolete_entries(tmp_path: Path) -> None:
    templates, locale = tmp_path / "gettext", tmp_path / "locale"
    (templates / "book").mkdir(parents=True)
    (templates / "book" / "page.pot").write_text(
        'msgid ""\nmsgstr ""\n\nmsgid "Leaf"\nmsgstr ""\n\nmsgid "New paragraph"\nmsgstr ""\n',
        encoding="utf8")
    (templates / "book" / "new.pot").write_text('msgid ""\nmsgstr ""\n\nmsgid "A"\nmsgstr ""\n',
                                                encoding="utf8")
    folder = locale / CHINESE / "LC_MESSAGES" / "book"
    write_po(folder / "page.po", [("Leaf", "叶子", False), ("Old paragraph", "旧段落", False)])
    write_po(folder / "gone.po", [("B", "乙", False)])
    found = {(entry.catalog.name, entry.problem, entry.msgid) for entry in
             catalogs.out_of_sync(templates, CHINESE, locale)}
    assert found == {("new.po", "missing", "(no catalog for new.pot)"),
                     ("gone.po", "obsolete", "(a catalog for a page the book no longer has)"),
                     ("page.po", "missing", "New paragraph"), ("page.po", "obsolete", "Old paragraph")}


@pytest.fixture(scope="module")
def fresh_templates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The English text extracted now (Sphinx's gettext builder, the book's execution cache)."""
    out = tmp_path_factory.mktemp("gettext")
    done = subprocess.run([sys.executable, "-c", "import sys; from bookkit.site import catalogs; "
                           f"sys.exit(catalogs.extract(__import__('pathlib').Path({str(out)!r})))"],
                          cwd=ROOT, capture_output=True, text=True, errors="replace")
    assert done.returncode == 0, f"extracting the English failed:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"
    return out


@pytest.mark.slow
def test_catalogs_hold_exactly_the_current_english_text(fresh_templates: Path) -> None:
    """Nothing the English has is missing from the catalogs, nothing they hold is gone from it."""
    differences = catalogs.out_of_sync(fresh_templates, CHINESE)
    shown = "\n".join(str(entry) for entry in differences[:60])
    assert not differences, (f"the catalogs are out of step with the English text in {len(differences)} "
                             f"entries; run `make catalogs`, then translate what it lists:\n{shown}")


@pytest.mark.slow
def test_exercise_titles_captions_and_admonition_titles_are_extracted(fresh_templates: Path) -> None:
    """What a reader sees as a title is text to translate, not only the paragraphs."""
    text = "\n".join(path.read_text(encoding="utf8") for path in fresh_templates.rglob("*.pot"))
    expected = {
        "an exercise's title": 'msgid "Find what a one-step smoke test reports as \\"no effect\\""',
        "a toc caption": 'msgid "Part one: the flowchart"',
        "an admonition's title": 'msgid "Coming from PyTorch"',
        "a Markdown table's header cell": 'msgid "the parameter holds"',
    }
    missing = {what: msgid for what, msgid in expected.items() if msgid not in text}
    assert not missing, f"not extracted into the catalogs' templates: {missing}"


# ----- the built zh_CN pages -----------------------------------------------------------------

class Prose(html.parser.HTMLParser):
    """The text of a page's article, without code, outputs, math, pictures or scripts; its links; its ids."""

    SKIPPED = {"script", "style", "svg", "pre", "code", "math", "kbd", "samp"}
    SKIPPED_CLASSES = {"cell_output", "highlight", "math", "notranslate", "stepper", "live-cells",
                       "explorer", "pst-scrollable-table-container"}
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
            "track", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside the article
        self.skipping = 0  # depth at which skipped content began (0: not skipping)
        self.stack = 0
        self.text: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.unresolved: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag in self.VOID:
            return
        self.stack += 1
        classes = set((values.get("class") or "").split())
        if tag == "article" and "bd-article" in classes:
            self.depth = self.stack
        if not self.depth:
            return
        if tag == "a" and values.get("href"):
            self.links.append(values["href"] or "")
        if tag == "span" and "xref" in classes:
            self.unresolved.append(values.get("class") or "")  # Sphinx writes a resolved one as <a>
        if not self.skipping and (tag in self.SKIPPED or classes & self.SKIPPED_CLASSES):
            self.skipping = self.stack

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if self.skipping == self.stack:
            self.skipping = 0
        if self.depth == self.stack:
            self.depth = 0
        self.stack -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.skipping:
            self.text.append(data)


def page_html(language: str, docname: str) -> str:
    return (SITE / language / f"{docname}.html").read_text(encoding="utf8")


def prose(language: str, docname: str) -> Prose:
    parser = Prose()
    parser.feed(page_html(language, docname))
    return parser


def cjk_share(text: str) -> float:
    cjk, latin = len(CJK.findall(text)), len(LATIN.findall(text))
    return cjk / (cjk + latin) if cjk + latin else 1.0


@pytest.mark.slow
@pytest.mark.parametrize("docname", toc_pages())
def test_every_zh_page_reads_in_chinese(book_build, docname: str) -> None:  # noqa: F811
    page = prose(CHINESE, docname)
    text = " ".join(page.text)
    share = cjk_share(text)
    english = sorted((part.strip() for part in page.text
                      if len(LATIN.findall(part)) > 40 and not CJK.search(part)), key=len, reverse=True)
    assert share >= MIN_CJK_SHARE, (
        f"{CHINESE}/{docname}.html: only {share:.0%} of its prose letters are Chinese (at least "
        f"{MIN_CJK_SHARE:.0%} expected); the longest English passages: {english[:5]}")


@pytest.mark.slow
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", toc_pages())
def test_roles_and_cross_references_survive_translation(book_build, language: str, docname: str) -> None:  # noqa: F811
    """No MyST role left as text, no reference unresolved, every link inside the site leads somewhere."""
    page = prose(language, docname)
    text = " ".join(page.text)
    raw = sorted(set(RAW_ROLE.findall(text)) | set(re.findall(r"\]\([^)\s]+\)|\]\[[^\]]*\]", text)))
    assert not raw, f"{language}/{docname}.html shows MyST markup as text: {raw}"
    assert not page.unresolved, f"{language}/{docname}.html has unresolved references: {page.unresolved}"
    here = SITE / language / f"{docname}.html"
    for href in page.links:
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//"):
            continue
        target = (here.parent / unquote(parts.path)).resolve() if parts.path else here
        assert target.is_file(), f"{language}/{docname}.html links to {href!r}, which is not in the site"
        assert target.is_relative_to(SITE / language), f"{language}/{docname}: leaves its edition: {href!r}"
        if parts.fragment and target.suffix == ".html":
            assert unquote(parts.fragment) in prose_ids(target), f"{language}/{docname}: no anchor {href!r}"


def prose_ids(path: Path) -> set[str]:
    parser = Prose()
    parser.feed(path.read_text(encoding="utf8"))
    return parser.ids


class Switcher(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lang = ""
        self.links: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.lang = values.get("lang") or ""
        if tag == "a" and "language-switcher" in (values.get("class") or "").split():
            self.links.append(values)


@pytest.mark.slow
@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("docname", toc_pages())
def test_the_switcher_leads_to_the_same_page_in_the_other_language(book_build, language, docname) -> None:  # noqa: F811
    switcher = Switcher()
    switcher.feed(page_html(language, docname))
    assert switcher.lang == LANGUAGES[language].tag
    others = [code for code in EDITIONS if code != language]
    assert [link["hreflang"] for link in switcher.links] == [LANGUAGES[code].tag for code in others]
    for code, link in zip(others, switcher.links, strict=True):
        target = ((SITE / language / docname).parent / (link["href"] or "")).resolve()
        assert target == (SITE / code / f"{docname}.html").resolve(), f"{language}/{docname}: {link}"
        assert link["lang"] == LANGUAGES[code].tag and link.get("href")


@pytest.mark.slow
def test_the_chinese_build_reuses_the_english_execution(book_build) -> None:  # noqa: F811
    """One execution: the zh_CN build finds every chapter in the execution cache (which `prepare`
    filled before either edition's build, or the English build after a chapter failed). Its log is
    that of the Sphinx build that wrote the zh_CN pages: bookkit/site/build.py keeps it, and a build
    skipped because nothing changed keeps the earlier build's."""
    path = last_log(ROOT, CHINESE)
    assert path.exists(), f"{path} is missing: a zh_CN build writes it: `bookkit.site.build --force`"
    log = re.sub(r"\x1b\[[0-9;]*m", "", path.read_text(encoding="utf8"))
    executed = re.findall(r"(\S+\.md): Executing notebook", log)
    assert not executed, f"the zh_CN build executed {executed} again instead of reusing the English outputs"
    assert "Using cached notebook" in log


@pytest.mark.slow
def test_the_theme_and_search_are_chinese(book_build) -> None:  # noqa: F811
    """sphinx-book-theme's words in Chinese (it has a zh_CN catalog), and a search index of words
    that jieba segmented, not whole sentences."""
    page = page_html(CHINESE, "book/04-step-0")
    assert '<html lang="zh-CN"' in page
    assert "全屏模式" in page, "sphinx-book-theme's full-screen button is not in Chinese"
    index = (SITE / CHINESE / "searchindex.js").read_text(encoding="utf8")
    terms = json.loads(re.search(r"Search\.setIndex\((.*)\)\s*$", index, re.S)[1])["terms"]
    chinese = [term for term in terms if CJK.search(term)]
    assert "叶子" in terms, "the Chinese search index lacks 叶子 (leaf), the glossary's word"
    assert chinese and max(map(len, chinese)) <= 12, "Chinese is not segmented into words"


@pytest.mark.parametrize("docname", ["book/index", "book/08a-explorer", "book/a4-benchmarks"])
def test_the_sidebars_captions_are_translated(book_build, docname: str) -> None:  # noqa: F811
    """The toctree captions of _toc.yml, in every page's sidebar (bookkit/site/book_languages.py,
    TranslateTocCaptions), from the root page's catalog."""
    index = catalogs.LOCALE / CHINESE / "LC_MESSAGES" / "book" / "index.po"
    catalog = {message.id: message.string for message in catalogs.read_catalog(index)}
    heading = re.compile(r'<p aria-level="2" class="caption" role="heading">'
                         r'<span class="caption-text">([^<]*)<')
    captions = heading.findall(page_html(CHINESE, docname))
    english = heading.findall(page_html("en", docname))
    assert english and len(captions) == len(english), docname
    assert captions == [html.unescape(catalog[html.unescape(caption)]) for caption in english], docname


def test_hidden_cells_say_show_code_in_chinese(book_build) -> None:  # noqa: F811
    """The zh_CN words say "show code" without myst-nb's {type}: true while the book hides inputs only."""
    tags = set(re.findall(r"\bhide-(?:input|output|cell)\b", " ".join(
        path.read_text(encoding="utf8") for path in (ROOT / "book").glob("*.md"))))
    assert tags == {"hide-input"}, f"{tags}: give bookkit/site/book_languages.py Language words for each kind"
    page = page_html(CHINESE, "book/04-step-0")
    assert ">显示代码<" in page and "Show code cell" not in page


def test_the_site_root_opens_english_and_lists_the_editions() -> None:
    page = root_page("to_device, seen", "book/index", ["en", "zh_CN"])
    assert 'http-equiv="refresh" content="0; url=en/book/index.html"' in page
    assert 'href="zh_CN/book/index.html" hreflang="zh-CN"' in page
    assert "zh_CN" not in root_page("to_device, seen", "book/index", ["en"])


def test_langs_chooses_the_editions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGS", "zh_CN")
    assert chosen_languages() == ["zh_CN"]
    monkeypatch.setenv("LANGS", "zh_CN en")
    assert chosen_languages() == ["en", "zh_CN"], "English first: it fills the execution cache"
    monkeypatch.delenv("LANGS")
    assert chosen_languages() == list(LANGUAGES)
    with pytest.raises(SystemExit, match="no edition of the book in fr"):
        chosen_languages(["fr"])


def test_ci_installs_cjk_fonts_for_the_browser() -> None:
    """Headless Chromium draws Chinese as empty boxes without a CJK font."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf8")
    assert re.search(r"packages\+=\(fonts-noto-cjk\)", script) and "apt_install" in script


def test_requirements_pin_what_the_chinese_edition_needs() -> None:
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf8")
    for name in ("sphinx-intl", "jieba"):
        assert re.search(rf"^{name}[<>=]", requirements, re.M), f"{name} is not pinned in requirements.txt"
    assert re.search(r"^myst-nb>=1\.2", requirements, re.M), "translated notebooks crash before myst-nb 1.2"
