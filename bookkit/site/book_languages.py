"""Sphinx extension: the book's languages, the switcher between them, and one folder of executed notebooks.

The book is written once, in English, and built once per language from the
same sources and the same execution (bookkit/site/sphinx_build.py): `_build/html/en/`
and `_build/html/zh_CN/`, the Chinese text coming from the gettext catalogs in
`locale/zh_CN/LC_MESSAGES/`. This extension

- puts a link to the same page in the other language(s) at the end of every
  page's article header (`_templates/language-switcher.html`, before the
  theme's buttons), named by the language's own name ("中文", "English") and
  marked with its `lang` and `hreflang`; and a `<link rel="alternate">` for
  each in the page's head. Only languages this site is built in get one
  (`book_languages`, set by bookkit/site/sphinx_build.py), so `LANGS=en make book`
  has no link to a page that is not there;
- writes a language's executed notebooks to the folder bookkit/site/sphinx_build.py
  names (`book_executed_folder`): myst-nb 1.4.0 always writes them beside the output
  folder (`<outdir>/../jupyter_execute`, myst_nb/sphinx_ext.py,
  `create_mystnb_config`, with no setting to change it), which for
  `_build/html/zh_CN` would be inside the published site. bookkit/live/sphinx_ext.py
  and bookkit/site/executed_notebooks.py read them from `executed_folder(app)`;
- lets a translated paragraph use the page's glued values. Sphinx parses each
  translation as a document of its own (sphinx/transforms/i18n.py,
  `publish_msgstr`), and myst-nb 1.4.0 parses it as plain MyST
  (myst_nb/sphinx_.py, `Parser.parse`: a source ending in `<translated>`),
  without the page's notebook renderer, where `{glue:text}` looks its key up
  (myst_nb/ext/glue/utils.py, `retrieve_glue_data`): every glued value of a
  translated paragraph failed with "No key ... found in glue data". `Parser`
  hands the page's renderer to the translation's document. Written for
  myst-nb 1.4.0 (requirements.txt keeps it below 1.5); the strict zh_CN build
  fails if it stops working;
- makes an exercise's title (`{exercise} <title>`) translatable:
  sphinx-exercise 1.x parses it into a subtitle node without the source and
  raw text Sphinx's gettext builder and its translation step look for
  (sphinx/util/nodes.py, `is_translatable` and `extract_messages`), so it was
  neither extracted nor translated; and its post-transform
  (`ResolveTitlesInExercises`, priority 20) folds the subtitle into
  "Exercise 4.1 (...)" before the gettext builder reads the page, so for that
  builder alone each title is also kept as a message of its own
  (`KeepExerciseTitles`). The word "Exercise" itself comes from
  sphinx-exercise's own zh_CN catalog ("练习"). A solution's heading repeats its exercise's
  title from the copy sphinx-exercise keeps in `env.sphinx_exercise_registry` when the directive
  runs, before the page is translated, so `KeepTranslatedExercises` replaces that copy with the
  translated exercise (练习 4.1 的参考答案（找出……）, not the English title); the exercise's and the
  solution's headings are written in the edition's words (`exercise_titles`: sphinx-exercise's
  ASCII parentheses and "Solution to" word order were English);
- writes the page's words (the part "page" of bookkit/words/<language>.json) into every
  page's head as `<script type="application/json" id="tds-words">`, where the scripts in
  _static/ read what they show a reader;
- keeps, in every raw HTML output a chapter's code wrote with `bookkit.words.multilingual.Editions`
  (pictures, steppers, tables), the page's language alone (`PickEdition`): one execution carries
  every language's words, each page shows its own;
- gives the theme's chrome the edition's words (the part "theme" of the words files):
  pydata-sphinx-theme 0.15.4 has no zh_CN catalog, so its template strings ("previous page",
  "light/dark", "Back to top", Sphinx's own "Link to this heading", whose zh_CN entry is empty)
  fall back to `ThemeWords`; the search box's placeholder (`search_bar_text`, a theme option
  never translated) and the footer's author are set per edition (`theme_words`), and so is a
  dropdown's "Click to show" (`toggle_words`), which names its button (`toggle_named_by_its_hint`); where
  sphinx-book-theme's own zh_CN catalog says it otherwise (列印, 笔记本), the words' part "theme"
  ("booktheme") goes before it (`book_theme_words`);
- lets Chinese search find the glossary's words: Sphinx's Chinese index (sphinx/search/zh.py)
  splits text with jieba, which cuts 懒参数 into 懒 + 参数 and drops one-character words, so
  every term of locale/<language>/GLOSSARY.md's Chinese column goes into a jieba user
  dictionary (`html_search_options["dict"]`, written beside the doctrees: `search_dictionary`),
  and, since jieba still cuts a term another way where a neighbour makes a likelier word
  (怎么搬 in 怎么搬到), the index gets every glossary term a page's text holds as well
  (`GlossarySearch`, Sphinx 7.4's `SearchChinese` with its `split` extended);
- marks the word boundaries of a Chinese page's headings with `<wbr>` (`word_breaks`, jieba's
  words with the glossary's), which _static/custom.css's `word-break: keep-all` makes the only
  places a heading breaks: at 390 px a heading broke inside a word (位/置);
- writes the engine's explanation in a printed error (a cell's stream or traceback) in the
  page's language, Burn's words left verbatim (`ExplainErrors`, bookkit/words/explained.py): one
  execution prints English for every edition;
- gives prose the role {ui}`live.refused` (`interface_words`): what the page scripts show under that
  key of the page words, in the page's language, to its first clause ("the kernel server refused this
  page's token"; a `{name}` without a value given, `{ui}`live.answerTitle name=x``, as "…"), so prose
  that tells a reader what to look for quotes the words the page shows, in its edition;
- writes myst-nb's execution table (appendix 3, `{nb-exec-table}`: its header and the word
  "cache", English in myst-nb 1.4.0's `make_stat_table`) in the page's language
  (`TranslateExecutionTable`, the words files' part "exec_table");
- translates the table of contents' captions ("Part one: the flowchart"),
  which Sphinx extracts into the root page's catalog but never translates
  (https://github.com/jupyter-book/jupyter-book/issues/891, open): Sphinx's
  `Locale` transform (sphinx/transforms/i18n.py, priority 20) runs before
  sphinx-external-toc's `InsertToctrees` (sphinx_external_toc/events.py,
  priority 100) adds the toctrees that `_toc.yml` describes, so a caption is
  not there yet when the page is translated. `TranslateTocCaptions` runs after
  it. Written for sphinx-external-toc 1.1.0 and Sphinx 7.4 (tests/setup/test_upstream.py
  checks the order is still so).
"""

from __future__ import annotations

import gettext
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from docutils import nodes
from myst_nb.sphinx_ import Parser as NotebookParser
from sphinx import addnodes
from sphinx import locale as sphinx_locale
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import init as init_locale
from sphinx.search.zh import SearchChinese
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain
from sphinx_exercise.directive import ExerciseDirective, ExerciseStartDirective
from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, exercise_subtitle
from sphinx_external_toc.events import InsertToctrees

from bookkit.site.assets import add_assets
from bookkit.site.layout import page_path, relative, url
from bookkit.words import PLACEHOLDER, say, words
from bookkit.words.explained import explained
from bookkit.words.language import LANGUAGES, Language
from bookkit.words.multilingual import pick

SWITCHER = "language-switcher.html"


class ThemeWords(gettext.NullTranslations):
    """The last fallback of Sphinx's translator: a theme template's English words looked up in the
    words file's part "theme" ("gettext"), for the strings no installed catalog translates."""

    def __init__(self, table: dict[str, str]) -> None:
        super().__init__()
        self.table = table

    def gettext(self, message: str) -> str:
        return self.table.get(message, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.gettext(singular if n == 1 else plural)


def theme_words(app: Sphinx, config: Config) -> None:
    """The search box's placeholder and the footer's author line in the edition's language."""
    said = words(config.language, "theme")
    config.html_theme_options = {**config.html_theme_options, "search_bar_text": said["search_bar_text"]}
    config.author = said["author"]
    # _templates/author.html writes it: sphinx-book-theme 1.x's joined its "By" (作者：) and the author
    # with a space, which Chinese does not write
    line = say(said["author_line"], author=said["author"])
    config.html_context = {**config.html_context, "author_line": line}


def toggle_words(app: Sphinx, config: Config) -> None:
    """A dropdown's "Click to show" / "Click to hide" in the edition's language. sphinx-togglebutton
    0.4.5 computes its default hint with gettext when the extension is set up, before Sphinx knows the
    language, so every edition got English (https://github.com/executablebooks/sphinx-togglebutton/issues/22);
    this runs before its config-inited handler writes the hint into the page."""
    said = words(config.language, "theme")
    config.togglebutton_hint, config.togglebutton_hint_hide = said["toggle_show"], said["toggle_hide"]


def toggle_named_by_its_hint(app: Sphinx, config: Config) -> None:
    """A dropdown's button named by the hint it shows (Click to show, 点击显示; Click to hide once open),
    as accessible_theme.py names the theme's other widgets: sphinx-togglebutton 0.4.5's togglebutton.js
    writes `aria-label="Toggle hidden content"` in English into every button it makes, with no setting
    to change it, which does not match the hint (WCAG 2.5.3). Below 768 px the theme shows only the
    chevron, so the button keeps a label: its hint, followed as togglebutton.js changes it. This script
    runs after togglebutton.js (its handler is added later, on the same DOMContentLoaded)."""
    app.add_js_file(None, body='document.addEventListener("DOMContentLoaded", () => '
                               'document.querySelectorAll(".toggle-button").forEach((button) => {'
                               ' const name = () =>'
                               ' button.setAttribute("aria-label", button.dataset.toggleHint);'
                               ' name(); new MutationObserver(name).observe(button,'
                               ' { attributes: true, attributeFilter: ["data-toggle-hint"] }); }));')


EXERCISE_TITLE = re.compile(r'(<p class="admonition-title"><span class="caption-number">)'
                            r'([^<]*?) ?</span> \((.*?)\)</p>', re.S)
SOLUTION_TITLE = re.compile(r'<p class="admonition-title">[^<]*'
                            r'<a (class="reference internal" href="#[^"]*")> ([^<]*?) '
                            r'\((.*?)\)</a></p>', re.S)


def exercise_titles(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                    doctree: Any) -> None:
    """An exercise's and its solution's headings in the edition's words. sphinx-exercise 1.x writes
    "Exercise 4.1 (title)" and "Solution to Exercise 4.1 (title)" with ASCII parentheses and its own
    word order (post_transforms.py, `ResolveTitlesInExercises`, `resolve_solution_title`), so a Chinese
    page read "解答 练习 4.1 (……)"; the words' part "theme" says how each edition writes them
    (练习 4.1（……）, 练习 4.1 的参考答案（……）), the number still a link to the exercise."""
    if "body" not in context:
        return
    said = words(app.config.language, "theme")
    context["body"] = EXERCISE_TITLE.sub(
        lambda match: f"{match[1]}{match[2]}</span>{say(said['exercise_title'], title=match[3])}</p>",
        context["body"])
    context["body"] = SOLUTION_TITLE.sub(
        lambda match: '<p class="admonition-title">' + say(
            said["solution_title"], exercise=f"<a {match[1]}>{match[2]}</a>", title=match[3]) + "</p>",
        context["body"])


class CatalogOverrides(gettext.NullTranslations):
    """A theme catalog's words that the edition writes otherwise, before the catalog itself."""

    def __init__(self, table: dict[str, str]) -> None:
        super().__init__()
        self.table = table

    def gettext(self, message: str) -> str:
        return self.table[message] if message in self.table else super().gettext(message)


def book_theme_words(app: Sphinx) -> None:
    """sphinx-book-theme 1.x's own zh_CN catalog writes "Print to PDF" as 列印成 PDF (a Taiwanese
    word; the mainland says 打印) and a notebook as 笔记本 (this book keeps notebook, GLOSSARY.md):
    the words' part "theme" ("booktheme") goes in front of that catalog (`get_translation("booktheme")`
    looks it up whenever a page is written)."""
    table = words(app.config.language, "theme")["booktheme"]
    if (app.config.language or "en") == "en" or not table:
        return
    key = ("general", "booktheme")
    overrides = CatalogOverrides(table)
    if key in sphinx_locale.translators:
        overrides.add_fallback(sphinx_locale.translators[key])
    sphinx_locale.translators[key] = overrides


def theme_catalog(app: Sphinx) -> None:
    """`ThemeWords` behind every catalog Sphinx found (English needs none)."""
    if (app.config.language or "en") != "en" and app.translator is not None:
        app.translator.add_fallback(ThemeWords(words(app.config.language, "theme")["gettext"]))


HAN_TERM = re.compile(r"[\u4e00-\u9fff]+")


def glossary_terms(glossary: Path) -> list[str]:
    """The Chinese terms of a glossary's table (its second column): each rendering of a cell split at
    "/" and "、", with and without what it has in parentheses (已初始化的（参数）: 已初始化的,
    已初始化的参数); only renderings that are Han characters alone (no code, no Latin words)."""
    rows = [line for line in glossary.read_text(encoding="utf8").splitlines() if line.startswith("|")][2:]
    terms: set[str] = set()
    for row in rows:
        for part in re.split(r"\s*[/、]\s*", row.split("|")[2]):
            part = part.strip()
            for variant in (re.sub(r"（[^）]*）", "", part), re.sub(r"[（）]", "", part)):
                if HAN_TERM.fullmatch(variant):
                    terms.add(variant)
    return sorted(terms)


class LatinTerms(set[str]):
    """The Latin words a Chinese index has seen, as a set that Sphinx 7.4's `SearchChinese.split` can
    `extend` as it does its list."""

    def extend(self, terms: Iterable[str]) -> None:
        self.update(terms)


class GlossarySearch(SearchChinese):
    """Sphinx's Chinese splitter, plus every glossary term the text holds, wherever jieba cut it."""

    terms: tuple[str, ...] = ()

    def init(self, options: dict[str, str]) -> None:
        super().init(options)
        # Sphinx 7.4.7 keeps every Latin word of the book in one list, which `stem` searches for each
        # word it stems: 5 s of the Chinese build. Sphinx 8.1 keeps them in a set
        # (https://github.com/sphinx-doc/sphinx/pull/12995; written for 7.4.7, pinned in
        # requirements.txt); tests/setup/test_upstream.py fails when 7.4's list is gone.
        self.latin_terms = LatinTerms()
        self.glossary = frozenset(self.terms)

    def split(self, input: str) -> list[str]:
        return super().split(input) + [term for term in self.terms if term in input]

    def word_filter(self, stemmed_word: str) -> bool:
        """Sphinx 7.4's Chinese index keeps no one-character word (sphinx/search/zh.py, `word_filter`);
        a glossary term of one character (图, 查) is kept, so that it too is found."""
        return stemmed_word in self.glossary or super().word_filter(stemmed_word)


def search_dictionary(app: Sphinx, config: Config) -> None:
    """For a language whose search is cut by jieba, the glossary's terms as jieba's user dictionary."""
    language = config.language or "en"
    glossary = Path(app.srcdir, *config.locale_dirs[:1], language, "GLOSSARY.md")
    if not language.startswith("zh") or not glossary.is_file():
        return
    dictionary = Path(app.doctreedir) / "search-dictionary.txt"
    dictionary.parent.mkdir(parents=True, exist_ok=True)
    terms = glossary_terms(glossary)
    dictionary.write_text("".join(f"{term}\n" for term in terms), encoding="utf8")
    config.html_search_options = {**(config.html_search_options or {}), "dict": str(dictionary)}
    GlossarySearch.terms = tuple(terms)
    app.add_search_language(GlossarySearch)  # "zh": what Sphinx's IndexBuilder takes for "zh_CN"


HEADING = re.compile(r"(<h([1-6])\b[^>]*>)(.*?)(</h\2>)", re.S)


def word_breaks(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """A `<wbr>` between two words of Chinese in each heading of the page's body."""
    if not (app.config.language or "en").startswith("zh") or "body" not in context:
        return
    import jieba  # the Chinese search's own splitter (requirements.txt), loaded for Chinese pages only

    dictionary = (app.config.html_search_options or {}).get("dict")
    if dictionary and getattr(word_breaks, "loaded", None) != dictionary:
        jieba.load_userdict(dictionary)
        word_breaks.loaded = dictionary  # type: ignore[attr-defined]

    def broken(text: str) -> str:
        words_ = list(jieba.cut(text))
        joined = words_[:1]
        for word in words_[1:]:
            between = HAN_TERM.match(joined[-1][-1:]) and HAN_TERM.match(word[:1])
            joined.append(("<wbr>" if between else "") + word)
        return "".join(joined)

    def heading(match: re.Match[str]) -> str:
        parts = re.split(r"(<[^>]+>)", match[3])
        return match[1] + "".join(part if part.startswith("<") else broken(part) for part in parts) + match[4]

    context["body"] = HEADING.sub(heading, context["body"])


def executed_folder(app: Sphinx) -> Path:
    """Where this build's executed notebooks are (`<folder>/<docname>.ipynb`)."""
    return Path(app.env.mystnb_config.output_folder)


def add_switcher(app: Sphinx, config: Config) -> None:
    """The switcher goes first among the article header's end items (sphinx-book-theme's theme.conf
    has `article_header_end = article-header-buttons.html`)."""
    options = config.html_theme_options
    items = options.get("article_header_end", ["article-header-buttons.html"])
    items = [items] if isinstance(items, str) else list(items)
    options["article_header_end"] = [SWITCHER] + [item for item in items if item != SWITCHER]


def share_executed_folder(app: Sphinx) -> None:
    """Point myst-nb's output folder at `book_executed_folder` (runs after myst-nb's own builder-inited)."""
    if app.config.book_executed_folder:
        folder = Path(app.config.book_executed_folder).resolve()
        app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(folder))


def other_languages(app: Sphinx) -> list[Language]:
    current = app.config.language or "en"
    return [LANGUAGES[code] for code in app.config.book_languages if code in LANGUAGES and code != current]


def link_languages(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                   doctree: Any) -> None:
    """`language_links` for the template: the same page in each other language of the site.

    The switcher's links are relative (they work under any path prefix); the head's alternates are
    absolute when the site has a published base URL (`html.baseurl`, bookkit/site/sphinx_build.py)."""
    here = page_path(pagename, app.config.language or "en")
    base = app.config.book_site_baseurl
    links, alternates = [], []
    for language in other_languages(app):
        there = page_path(pagename, language.code)
        links.append({"href": relative(here, there), "tag": language.tag, "name": language.name})
        alternates.append((language.tag, url(there, base) if base else relative(here, there)))
    context["language_links"] = links
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{tag}" href="{href}" />' for tag, href in alternates)
    context["metatags"] += page_words(app.config.language)


def page_words(language: str | None) -> str:
    """The page scripts' words in `language`, as a JSON script element ("</" escaped for HTML)."""
    text = json.dumps(words(language, "page"), ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return f'\n<script type="application/json" id="tds-words">{text}</script>'


RENDERER = "nb_renderer"  # the document attribute myst-nb keeps a page's renderer in
PAGE_RENDERER = "book_languages_nb_renderer"  # env.temp_data: Sphinx clears it before each page


class _KeptRenderer(dict):
    """A document's attributes that keep the notebook renderer myst-nb removes at the end of its parse
    (myst_nb/sphinx_.py, `document.attributes.pop("nb_renderer")`) for the page's translations."""

    def __init__(self, attributes: dict[str, Any], kept: dict[str, Any]) -> None:
        super().__init__(attributes)
        self.kept = kept

    def pop(self, key: str, *default: Any) -> Any:
        if key == RENDERER and key in self:
            self.kept[PAGE_RENDERER] = self[key]
        return super().pop(key, *default)


class Parser(NotebookParser):
    """myst-nb's parser, whose translated paragraphs see their page's glued values."""

    def parse(self, inputstring: str, document: nodes.document) -> None:
        temp = document.settings.env.temp_data
        if (document.current_source or "").endswith("<translated>"):
            if PAGE_RENDERER in temp:
                document[RENDERER] = temp[PAGE_RENDERER]
            super().parse(inputstring, document)
            document.attributes.pop(RENDERER, None)
            return
        document.attributes = _KeptRenderer(document.attributes, temp)
        try:
            super().parse(inputstring, document)
        finally:
            document.attributes = dict(document.attributes)


def translatable_titles(directive: ExerciseDirective, result: list[nodes.Node]) -> list[nodes.Node]:
    """Give each exercise title the source line and raw MyST text a translatable node has."""
    source, line = directive.get_source_info()
    for node in result:
        for subtitle in node.findall(exercise_subtitle):
            subtitle.source, subtitle.line, subtitle.rawsource = source, line, directive.arguments[0]
    return result


class Exercise(ExerciseDirective):
    def run(self) -> list[nodes.Node]:
        return translatable_titles(self, super().run())


class ExerciseStart(ExerciseStartDirective):
    def run(self) -> list[nodes.Node]:
        return translatable_titles(self, super().run())


class KeepExerciseTitles(SphinxPostTransform):
    """For the gettext builder: each exercise title as a message, before sphinx-exercise folds it away."""

    builders = ("gettext",)
    default_priority = 19

    def run(self, **kwargs: Any) -> None:
        for subtitle in list(self.document.findall(exercise_subtitle)):
            copies = [child.deepcopy() for child in subtitle.children]
            message = nodes.paragraph(subtitle.rawsource, "", *copies)
            message.source, message.line = subtitle.source, subtitle.line
            message.uid = getattr(subtitle, "uid", None)  # the gettext catalog only takes nodes with one
            self.document += message


class KeepTranslatedExercises(SphinxTransform):
    """The exercise registry's copy of each exercise of the page, taken again once it is translated."""

    default_priority = 21  # after Sphinx's Locale transform (20)

    def apply(self, **kwargs: Any) -> None:
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        kinds = (exercise_node, exercise_enumerable_node)
        for node in list(self.document.findall(lambda n: isinstance(n, kinds))):
            entry = registry.get(node.get("label", ""))
            if entry is not None and entry.get("docname") == self.env.docname:
                entry["node"] = node.deepcopy()


class SourceNestedTables(SphinxTransform):
    """A table inside a directive (appendix 5's, in a `{container}`) made translatable: MyST 4 leaves
    its cells' paragraphs without a `source`, which Sphinx's gettext builder and Locale transform need
    (sphinx/util/nodes.py, `is_translatable`), so they were neither extracted nor translated. Each
    gets its table's nearest ancestor's source and line, before Locale runs."""

    default_priority = 19  # before Sphinx's Locale transform (20)

    def apply(self, **kwargs: Any) -> None:
        for table in self.document.findall(nodes.table):
            holder = next((a for a in _ancestors(table) if a.source), None)
            if holder is None:
                continue
            for text in table.findall(nodes.TextElement):
                if not text.source:
                    text.source, text.line = holder.source, holder.line


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


class PickEdition(SphinxPostTransform):
    """Each raw HTML output in the page's language alone (bookkit/words/multilingual.py)."""

    default_priority = 200

    def run(self, **kwargs: Any) -> None:
        for raw in list(self.document.findall(nodes.raw)):
            text = raw.astext()
            if "html" not in raw.get("format", "").split() or "data-tds-edition" not in text:
                continue
            picked = nodes.raw("", pick(text, self.config.language), format=raw["format"])
            picked["classes"] = raw.get("classes", [])
            raw.replace_self(picked)


FIRST_CLAUSE = re.compile(r"[:：。（]|\.(?=\s|$)| \(")
"""Where the quoted part of an interface message ends: its first colon, full stop or parenthesis."""


def interface_words(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                    options: dict[str, Any] | None = None, content: list[str] | None = None,
                    ) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """{ui}`<part>.<key> [name=value ...]`: the page words' text under that key, to its first clause,
    in the page's language (a quote in prose of what the page shows)."""
    key, *given = text.split()
    language = inliner.document.settings.env.config.language
    table: Any = words(language, "page")
    try:
        for part in key.split("."):
            table = table[part]
    except (KeyError, TypeError):
        message = inliner.reporter.error(f"no page words under {key!r} (bookkit/words, part \"page\")",
                                         line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    values = dict(value.split("=", 1) for value in given)
    clause = FIRST_CLAUSE.split(table, maxsplit=1)[0].strip()
    quoted = PLACEHOLDER.sub(lambda match: values.get(match[1], "…"), clause)
    return [nodes.Text(quoted)], []


class ExplainErrors(SphinxPostTransform):
    """A cell output's text with the engine's sentences in the page's language."""

    default_priority = 200

    def run(self, **kwargs: Any) -> None:
        if (self.config.language or "en") == "en":
            return
        for block in list(self.document.findall(nodes.literal_block)):
            text = block.astext()
            if "output" not in block.get("classes", []):
                continue
            rewritten = explained(text, self.config.language)
            if rewritten != text:
                replaced = nodes.literal_block(rewritten, rewritten, **block.attributes)
                block.replace_self(replaced)


class TranslateExecutionTable(SphinxPostTransform):
    """myst-nb's execution table in the page's language, once its post-transform (priority 8) made it."""

    default_priority = 9

    def run(self, **kwargs: Any) -> None:
        if (self.config.language or "en") == "en":
            return
        english, said = words("en", "exec_table"), words(self.config.language, "exec_table")
        for table in list(self.document.findall(nodes.table)):
            head = [entry.astext() for entry in table.findall(nodes.entry)][:len(english["header"])]
            if head != english["header"]:
                continue
            for paragraph in list(table.findall(nodes.paragraph)):
                text = paragraph.astext()
                if text in english["header"]:
                    paragraph.children = [nodes.Text(said["header"][english["header"].index(text)])]
                elif text in english["methods"]:
                    paragraph.children = [nodes.Text(said["methods"][english["methods"].index(text)])]


class TranslateTocCaptions(SphinxTransform):
    """A toctree caption in the page's language, once sphinx-external-toc has added the toctree."""

    default_priority = InsertToctrees.default_priority + 1

    def apply(self, **kwargs: Any) -> None:
        if not self.config.language or self.config.language == "en":
            return
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        folders = [str(Path(self.env.srcdir) / folder) for folder in self.config.locale_dirs]
        catalog, found = init_locale(folders, self.config.language, domain)
        if not found:
            return
        for toctree in self.document.findall(addnodes.toctree):
            caption = toctree.get("rawcaption") or toctree.get("caption")
            translated = catalog.gettext(caption) if caption else ""
            if translated and translated != caption:
                toctree.apply_translated_message(caption, translated)


def setup(app: Sphinx) -> dict[str, Any]:
    add_assets(app, Path(__file__).parent, ["switcher.js"])  # the switcher keeps the anchor and the query
    app.add_config_value("book_languages", [], "html", types=[list])
    app.add_config_value("book_executed_folder", "", "env", types=[str])
    app.add_config_value("book_site_baseurl", "", "html", types=[str])  # the site's, above the editions
    app.setup_extension("myst_nb")
    app.setup_extension("sphinx_exercise")
    app.add_source_parser(Parser, override=True)
    app.add_directive("exercise", Exercise, override=True)
    app.add_directive("exercise-start", ExerciseStart, override=True)
    app.add_role("ui", interface_words)
    app.add_post_transform(KeepExerciseTitles)
    app.add_post_transform(PickEdition)
    app.add_post_transform(ExplainErrors)
    app.add_post_transform(TranslateExecutionTable)
    app.add_transform(TranslateTocCaptions)
    app.add_transform(KeepTranslatedExercises)
    app.add_transform(SourceNestedTables)
    app.connect("config-inited", add_switcher)
    app.connect("config-inited", theme_words)
    app.connect("config-inited", toggle_words, priority=400)  # before sphinx-togglebutton's (500)
    app.connect("config-inited", toggle_named_by_its_hint, priority=600)  # its script after togglebutton.js
    app.connect("config-inited", search_dictionary)
    app.connect("builder-inited", theme_catalog)
    app.connect("builder-inited", book_theme_words)
    app.connect("builder-inited", share_executed_folder, priority=600)
    app.connect("html-page-context", link_languages)
    app.connect("html-page-context", word_breaks)
    app.connect("html-page-context", exercise_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
