"""The Chinese edition in Chinese where code writes the words: pictures, tabs, tables, theme, search.

The book executes each chapter once; a picture carries every language's drawing
(bookkit/words/multilingual.py) and each edition's build keeps its own (bookkit/site/book_languages.py,
`PickEdition`). These tests read the built site: each edition shows its own pictures, a zh
picture's words are Chinese apart from what stays English in every edition (`KEPT`), the
theme's chrome speaks the edition's language, and Chinese search finds every glossary term.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from book_outputs import ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

from bookkit.runs.scenarios import SCENARIOS
from bookkit.site.book_languages import glossary_terms
from bookkit.words import words

CHINESE = "zh_CN"
HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.:()'\[\]>-]*")
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
SVG_TEXT = re.compile(r"<(text)\b[^>]*>([^<]*)</\1>")
SVG_TITLE = re.compile(r"<svg\b[^>]*>\s*<title>([^<]*)</title>")
TOOLTIP = re.compile(r'xlink:title="([^"]*)"')

KEPT = {
    # identifiers and names, as the glossary keeps them: devices, requirements, ops, parameters
    "flex", "metal", "autodiff", "Grad", "GradInBackward", "None", "leaf", "matmul", "add", "sub", "square",
    "mean", "reshape", "sum", "weight", "bias", "loss", "fc", "fork", "detach", "require_grad", "train",
    "optimizer",  # the op that makes an optimizer step's fresh leaves ("由 optimizer 生成")
    "x", "y", "w", "moved", "n", "true", "false",
    # words the glossary keeps in English: backward, tape (consumed), loss, the loss plots' MSE
    "backward", "tape", "consumed", "MSE", "CPU", "GPU", "Adam", "MLX", "Burn",
}
"""Latin words a zh picture may show, besides identifiers (a `_`, `.`, `(` or a digit in the word,
or an inner capital: `to_device`, `NodeId(3)`, `TapeConsumedError`) and Burn's own messages."""
KEPT |= set(SCENARIOS)  # the methods' names: direct, ad-to_device, ...

BURN_WORDS = ("Cannot run backward: graph tape has already been consumed at",
              "Burn does not support retain_graph. Combine losses before backward or recompute the forward "
              "pass. Use detach() only to intentionally sever gradients through the previous computation.",
              "Tensor::backward requires a tracked autodiff tensor; call Tensor::autodiff().require_grad() "
              "on the source leaf before computing the output",
              "Tensor::backward requires a tracked autodiff tensor")  # a graph's note: the first clause
"""Burn's messages, which a graph's error note quotes verbatim (the glossary: messages stay English)."""

MAX_ENGLISH_SHARE = 0.05
"""Of a zh picture's letters, at most this share may be English words outside `KEPT`."""


def page_html(language: str, docname: str) -> str:
    return (SITE / language / f"{docname}.html").read_text(encoding="utf8")


def main_part(page: str) -> str:
    found = re.search(r"<main\b.*?</main>", page, re.S)
    return found[0] if found else page


def pictures(language: str, docname: str) -> list[str]:
    """The inline SVG pictures of a page's article (the theme's icons are outside it or textless)."""
    return [svg for svg in SVG.findall(main_part(page_html(language, docname))) if SVG_TEXT.search(svg)]


def picture_text(svg: str) -> str:
    """What a reader sees of a picture: its text and its title (not Graphviz's per-node <title>, the
    node's DOT name, which the box's tooltip covers)."""
    return " ".join(html.unescape(text) for _, text in SVG_TEXT.findall(svg)) + " " + " ".join(
        html.unescape(title) for title in SVG_TITLE.findall(svg))


def tooltips(svg: str) -> str:
    return " ".join(html.unescape(text) for text in TOOLTIP.findall(svg))


def english_words(text: str) -> list[str]:
    """The Latin words of `text` that are neither identifiers, nor `KEPT`, nor in Burn's messages."""
    for quoted in BURN_WORDS:
        text = text.replace(quoted, " ")
    found = []
    for word in LATIN_WORD.findall(text):
        bare = word.strip(".:,()'[]>-")
        identifier = re.search(r"[_.(\d-]|[a-z][A-Z]", word) is not None  # a method's name: ad-fork
        if bare and not identifier and bare not in KEPT:
            found.append(bare)
    return found


def english_share(text: str) -> float:
    letters = len(HAN.findall(text)) + len(re.findall(r"[A-Za-z]", text))
    return sum(map(len, english_words(text))) / letters if letters else 0.0


PICTURED = [docname for docname in toc_pages() if (ROOT / f"{docname}.md").is_file()]


# ----- without the book: what the measure counts -------------------------------------------------

def test_the_measure_counts_english_words_and_spares_identifiers_and_burns_words() -> None:
    assert english_words("consumed in backward #1 · NodeId(3) · to_device") == ["in"]
    assert english_words("已被第 1 次 backward 消耗 · TapeConsumedError:") == []
    assert english_words("Cannot run backward: graph tape has already been consumed at NodeId(5)") == []
    assert english_share("Legend leaf parameter (Grad): keeps its gradient") > 0.5
    assert english_share("图例 叶子参数（Grad）：留得住梯度") == 0.0


# ----- the built book ----------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("docname", PICTURED)
def test_each_edition_shows_its_own_pictures(book_build, docname: str) -> None:  # noqa: F811
    """No edition keeps another's drawing (PickEdition left no template); English pictures are English."""
    for language in ("en", CHINESE):
        assert "data-tds-edition" not in page_html(language, docname), f"{language}/{docname}: a template"
    english, chinese = pictures("en", docname), pictures(CHINESE, docname)
    assert len(english) == len(chinese), f"{docname}: not the same pictures in both editions"
    for svg in english:
        assert not HAN.search(picture_text(svg)), f"en/{docname}: Chinese in an English picture"


@pytest.mark.slow
@pytest.mark.parametrize("docname", PICTURED)
def test_every_zh_picture_speaks_chinese(book_build, docname: str) -> None:  # noqa: F811
    for number, svg in enumerate(pictures(CHINESE, docname), start=1):
        text = picture_text(svg)
        label = html.unescape(re.search(r'aria-label="([^"]*)"', svg)[1]) if "aria-label" in svg else ""
        for what, words_ in (("text", text), ("aria-label", label), ("tooltips", tooltips(svg))):
            share = english_share(words_)
            assert share <= MAX_ENGLISH_SHARE, (
                f"{CHINESE}/{docname}, picture {number}'s {what}: {share:.0%} English words "
                f"({sorted(set(english_words(words_)))[:12]})")


ARTICLE_FLOWCHART = {  # the article's flowchart (its mermaid block), box by box, with the chapter it opens
    "01-initialized.html": "参数已在 CPU 上初始化",
    "02-to_device-or-fork.html": "换设备用哪个",
    "03-not-a-leaf.html": "参数是 to_device 的输出",
    "04-step-0.html": "第 0 步 梯度 0 个",
    "05-step-1.html": "第 1 步 tape consumed",
    "06-fork.html": "参数是新设备上的叶子",
    "07-training-works.html": "正常训练",
}


@pytest.mark.slow
def test_the_landing_flowchart_says_the_articles_words(book_build) -> None:  # noqa: F811
    svg = pictures(CHINESE, "book/index")[0]
    boxes = {page: "".join(html.unescape(text) for _, text in SVG_TEXT.findall(drawn))
             for page, drawn in re.findall(r'<a xlink:href="([^"]+)"[^>]*>(.*?)</a>', svg, re.S)}
    squeezed = {page: re.sub(r"\s", "", text) for page, text in boxes.items()}
    assert squeezed == {page: re.sub(r"\s", "", text) for page, text in ARTICLE_FLOWCHART.items()}


@pytest.mark.slow
def test_the_theme_speaks_each_editions_language(book_build) -> None:  # noqa: F811
    english, chinese = page_html("en", "book/04-step-0"), page_html(CHINESE, "book/04-step-0")
    said = words(CHINESE, "theme")
    for text in [*words("en", "theme")["gettext"], "Toggle primary sidebar", "Toggle secondary sidebar",
                 words("en", "theme")["search_bar_text"], words("en", "theme")["author"]]:
        assert html.escape(text) in english, f"the English page lacks the theme's {text!r}: its words changed"
        assert html.escape(text) not in chinese, f"the Chinese page still shows {text!r}"
    for text in [*said["gettext"].values(), said["search_bar_text"], said["author"]]:
        assert text in chinese, f"the Chinese page lacks {text!r}"


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", CHINESE])
def test_every_sidebar_toggle_is_named_after_its_entry_in_the_editions_words(book_build,  # noqa: F811
                                                                               language: str) -> None:
    """What screen readers hear for the sidebar's fold buttons, read off every built page: the browser
    tests read the sidebar only where it shows, at a desktop's width (not a Chinese page's phone width:
    tests/helpers/browser_pages.py, `PAGE_VISITS`)."""
    from bs4 import BeautifulSoup

    from bookkit.site.accessible_theme import toggle_name

    named = 0
    for docname in toc_pages():
        page = page_html(language, docname)
        start, end = page.find('<div class="bd-sidebar-primary'), page.find("<main")
        assert 0 <= start < end, f"{language}/{docname}: no primary sidebar before <main> (a new theme?)"
        for summary in BeautifulSoup(page[start:end], "html.parser").select(  # the sidebar alone: fast
                "li.has-children > details > summary"):
            entry = summary.find_parent("li").find("a", recursive=False)
            expected = toggle_name(entry.get_text(" ", strip=True) if entry else None, language)
            label = summary.select_one("span.visually-hidden")
            assert label is not None and label.get_text() == expected, f"{language}/{docname}: {summary}"
            named += 1
    assert named >= len(toc_pages()), f"only {named} sidebar toggles found"


@pytest.mark.slow
def test_the_footers_author_line_is_written_as_each_edition_writes_it(book_build) -> None:  # noqa: F811
    """作者：to_device, seen 的作者们, with no space after the full-width colon (the theme's template
    joined its "By" and the author with one); English keeps "By The to_device, seen authors"."""
    line = re.compile(r'<p class="component-author">\s*(.*?)\s*</p>', re.S)
    for language in ["en", CHINESE]:
        said = words(language, "theme")
        found = line.findall(page_html(language, "book/04-step-0"))
        assert found == [said["author_line"].format(author=said["author"])], (language, found)
    assert "作者： " not in page_html(CHINESE, "book/04-step-0")


@pytest.mark.slow
def test_solution_headings_repeat_the_translated_exercise_title(book_build) -> None:  # noqa: F811
    titles = re.compile(r'<p class="admonition-title"><a [^>]*>练习 [\d.]+</a> 的参考答案（(.*?)）</p>', re.S)
    found = 0
    for docname in toc_pages():
        for title in titles.findall(page_html(CHINESE, docname)):
            found += 1
            assert HAN.search(re.sub(r"练习 [\d.]+", "", title)), f"{docname}: an English title {title!r}"
    assert found >= 20, f"only {found} solution headings found"


@pytest.mark.slow
def test_exercise_headings_use_full_width_parentheses(book_build) -> None:  # noqa: F811
    """练习 4.1（……）, not sphinx-exercise's "练习 4.1 (……)"; the English keeps "Exercise 4.1 (…)"."""
    headings = re.compile(r'<p class="admonition-title"><span class="caption-number">([^<]*)</span>(.*?)</p>',
                          re.S)
    found = 0
    for docname in toc_pages():
        for number, rest in headings.findall(page_html(CHINESE, docname)):
            found += 1
            assert re.fullmatch(r"练习 [\d.]+", number) and rest.startswith("（") and rest.endswith("）"), (
                f"{docname}: {number}{rest}")
        for number, rest in headings.findall(page_html("en", docname)):
            assert re.fullmatch(r"Exercise [\d.]+", number) and rest.startswith(" (") and rest.endswith(")")
    assert found >= 20, f"only {found} exercise headings found"


RETIRED = re.compile(r"列印|笔记本|搬动")
"""Words a Chinese reader flagged: 列印 (Taiwanese; 打印), 笔记本 (the glossary keeps notebook), 搬动
(the glossary's relocation is 搬运); a theme's catalog wrote the first two."""


@pytest.mark.slow
def test_no_page_uses_a_word_the_glossary_replaced(book_build) -> None:  # noqa: F811
    found = [(docname, match[0]) for docname in toc_pages()
             for match in RETIRED.finditer(page_html(CHINESE, docname))]
    assert found == [], found


SPACED_LINK = re.compile(r'[\u4e00-\u9fff（「，。：；、] <a [^>]*>[\u4e00-\u9fff]'
                         r'|[\u4e00-\u9fff]</a> [\u4e00-\u9fff）」，。：；、]')
"""A space between Chinese text and a link whose words are Chinese (见 第 3 章): Chinese puts none;
a space stays only between Han and Latin (locale/zh_CN/GLOSSARY.md's style). A provenance marker
is a framed badge, set apart on purpose."""


@pytest.mark.slow
def test_a_chinese_link_sits_in_its_sentence_without_spaces(book_build) -> None:  # noqa: F811
    found = []
    for docname in toc_pages():
        text = re.sub(r'<script.*?</script>|<template.*?</template>|<a class="provenance.*?</a>', "",
                      page_html(CHINESE, docname), flags=re.S)
        found += [(docname, text[max(0, m.start() - 20):m.end() + 20]) for m in SPACED_LINK.finditer(text)]
    assert found == [], found


def search_index(language: str) -> dict:
    text = (SITE / language / "searchindex.js").read_text(encoding="utf8")
    return json.loads(re.search(r"Search\.setIndex\((.*)\)\s*$", text, re.S)[1])


TERMS = glossary_terms(ROOT / "locale" / CHINESE / "GLOSSARY.md")


def page_text(docname: str) -> str:
    """A zh page's text as Sphinx indexes it: no markup, and no script's data (the explorer's answers
    are JSON that its script shows, not text of the page)."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", page_html(CHINESE, docname), flags=re.S)
    return re.sub(r"<[^>]+>", "", html)


@pytest.mark.slow
@pytest.mark.parametrize("term", TERMS)
def test_search_finds_every_glossary_term_on_the_pages_that_use_it(book_build, term: str) -> None:  # noqa: F811
    """Every glossary term (one character too: GlossarySearch keeps what sphinx/search/zh.py drops) is a
    key of the zh index, pointing at pages that use it."""
    index = search_index(CHINESE)
    using = [number for number, docname in enumerate(index["docnames"]) if term in page_text(docname)]
    if not using:
        pytest.skip(f"{term}: no page uses it")
    found = index["terms"].get(term, [])
    found = [found] if isinstance(found, int) else found
    titles = index["titleterms"].get(term, [])
    found = set(found) | set([titles] if isinstance(titles, int) else titles)
    assert found, f"searching {term} finds nothing, though {len(using)} pages use it"
    assert found <= set(using), f"{term}: the index points at pages without it"


# ----- typography and the switcher, in Chromium ---------------------------------------------------

@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_the_switcher_keeps_the_anchor_and_the_search_query(visit) -> None:
    opened = visit("book/06-fork.html#exercises", language=CHINESE)
    link = opened.page.locator("a.language-switcher").first
    link.hover()
    assert link.get_attribute("href").endswith("/en/book/06-fork.html#exercises")
    searched = visit("search.html?q=%E6%87%92%E5%8F%82%E6%95%B0", language=CHINESE)  # 懒参数
    other = searched.page.locator("a.language-switcher").first
    other.hover()
    assert other.get_attribute("href").endswith("/en/search.html?q=%E6%87%92%E5%8F%82%E6%95%B0")
    assert opened.console_errors() == [] and searched.console_errors() == []


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_chinese_emphasis_is_not_slanted_and_headings_break_between_words(visit) -> None:
    opened = visit("book/04-step-0.html", width=390, language=CHINESE)
    style = opened.page.evaluate("""() => { const s = getComputedStyle(document.querySelector('main em'));
        return [s.fontStyle, s.textEmphasisStyle || s.webkitTextEmphasisStyle]; }""")
    assert style == ["normal", "dot"], style
    page = main_part(page_html(CHINESE, "book/04-step-0"))
    headings = re.findall(r"<h[1-4][^>]*>(.*?)</h[1-4]>", page, re.S)
    assert any("<wbr>" in heading for heading in headings), "no word boundary marked in a zh heading"
    for heading in headings:  # a <wbr> between two Han words only, never inside a word of the glossary's
        for term in TERMS:
            plain, broken = re.sub(r"<[^>]+>", "", heading), re.sub(r"<(?!wbr)[^>]+>", "", heading)
            assert term not in plain or term in broken, term
    english = page_html("en", "book/04-step-0")
    assert "<wbr>" not in main_part(english)
    word_break = opened.page.evaluate("() => getComputedStyle(document.querySelector('main h1')).wordBreak")
    assert word_break == "keep-all"


@pytest.mark.slow
@pytest.mark.parametrize("docname", PICTURED)
def test_printed_errors_explain_in_chinese_with_burns_words(book_build, docname: str) -> None:  # noqa: F811
    """A chapter prints an engine error once for both editions; the zh page explains it in Chinese."""
    chinese, english = page_html(CHINESE, docname), page_html("en", docname)
    shown = re.sub(r"<script\b.*?</script>", "", chinese, flags=re.S)  # a stepper's trace data is not read
    assert "What happened:" not in shown and "Fix: " not in html.unescape(shown)
    if "What happened:" in english:
        assert "发生了什么：" in chinese
        for quoted in BURN_WORDS[:1]:
            assert (quoted in re.sub(r"\s+", " ", html.unescape(english))) == (
                quoted in re.sub(r"\s+", " ", html.unescape(chinese))), "Burn's words must stay verbatim"


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("language", ["en", CHINESE])
def test_a_solutions_toggle_is_named_by_the_hint_it_shows(visit, language: str) -> None:
    """sphinx-togglebutton 0.4.5 labels every dropdown's button "Toggle hidden content" in English, which
    does not match its hint ("Click to show", 点击显示): the button is named by the hint, open or shut."""
    opened = visit("book/04-step-0.html", language=language)
    button = opened.page.locator(".solution .toggle-button").first
    said = words(language, "theme")
    shown = "b => getComputedStyle(b, '::before').content"
    assert button.get_attribute("aria-label") == said["toggle_show"]
    assert opened.page.evaluate(shown, button.element_handle()) == f'"{said["toggle_show"]}"'
    button.click()
    opened.page.wait_for_function("b => b.getAttribute('aria-expanded') === 'true'",
                                  arg=button.element_handle())
    assert button.get_attribute("aria-label") == said["toggle_hide"]
