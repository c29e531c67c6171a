"""Sphinx extension: the book's languages, the switcher between them, and one folder of executed notebooks.

The book is written once, in English, and built once per language from the
same sources and the same execution (tools/sphinx_build.py): `_build/html/en/`
and `_build/html/zh_CN/`, the Chinese text coming from the gettext catalogs in
`locale/zh_CN/LC_MESSAGES/`. This extension

- puts a link to the same page in the other language(s) at the end of every
  page's article header (`_templates/language-switcher.html`, before the
  theme's buttons), named by the language's own name ("中文", "English") and
  marked with its `lang` and `hreflang`; and a `<link rel="alternate">` for
  each in the page's head. Only languages this site is built in get one
  (`book_languages`, set by tools/sphinx_build.py), so `LANGS=en make book`
  has no link to a page that is not there;
- writes a language's executed notebooks to the folder tools/sphinx_build.py
  names (`book_executed_folder`): myst-nb 1.4.0 always writes them beside the output
  folder (`<outdir>/../jupyter_execute`, myst_nb/sphinx_ext.py,
  `create_mystnb_config`, with no setting to change it), which for
  `_build/html/zh_CN` would be inside the published site. tools/live_cells.py
  and tools/executed_notebooks.py read them from `executed_folder(app)`;
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
  sphinx-exercise's own zh_CN catalog ("练习").
- writes the page's words (the part "page" of mlx_autodiff/words/<language>.json) into every
  page's head as `<script type="application/json" id="tds-words">`, where the scripts in
  _static/ read what they show a reader;
- keeps, in every raw HTML output a chapter's code wrote with `mlx_autodiff.editions.Editions`
  (pictures, steppers, tables), the page's language alone (`PickEdition`): one execution carries
  every language's words, each page shows its own;
- translates the table of contents' captions ("Part one: the flowchart"),
  which Sphinx extracts into the root page's catalog but never translates
  (https://github.com/jupyter-book/jupyter-book/issues/891, open): Sphinx's
  `Locale` transform (sphinx/transforms/i18n.py, priority 20) runs before
  sphinx-external-toc's `InsertToctrees` (sphinx_external_toc/events.py,
  priority 100) adds the toctrees that `_toc.yml` describes, so a caption is
  not there yet when the page is translated. `TranslateTocCaptions` runs after
  it. Written for sphinx-external-toc 1.1.0 and Sphinx 7.4 (tests/test_upstream.py
  checks the order is still so).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from myst_nb.sphinx_ import Parser as NotebookParser
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain
from sphinx_exercise.directive import ExerciseDirective, ExerciseStartDirective
from sphinx_exercise.nodes import exercise_subtitle
from sphinx_external_toc.events import InsertToctrees

from mlx_autodiff.editions import pick
from mlx_autodiff.site_layout import page_path, relative, url
from mlx_autodiff.words import words
from tools.editions import LANGUAGES, Language

SWITCHER = "language-switcher.html"


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
    absolute when the site has a published base URL (`html.baseurl`, tools/sphinx_build.py)."""
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


class PickEdition(SphinxPostTransform):
    """Each raw HTML output in the page's language alone (mlx_autodiff/editions.py)."""

    default_priority = 200

    def run(self, **kwargs: Any) -> None:
        for raw in list(self.document.findall(nodes.raw)):
            text = raw.astext()
            if "html" not in raw.get("format", "").split() or "data-tds-edition" not in text:
                continue
            picked = nodes.raw("", pick(text, self.config.language), format=raw["format"])
            picked["classes"] = raw.get("classes", [])
            raw.replace_self(picked)


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
    app.add_config_value("book_languages", [], "html", types=[list])
    app.add_config_value("book_executed_folder", "", "env", types=[str])
    app.add_config_value("book_site_baseurl", "", "html", types=[str])  # the site's, above the editions
    app.setup_extension("myst_nb")
    app.setup_extension("sphinx_exercise")
    app.add_source_parser(Parser, override=True)
    app.add_directive("exercise", Exercise, override=True)
    app.add_directive("exercise-start", ExerciseStart, override=True)
    app.add_post_transform(KeepExerciseTitles)
    app.add_post_transform(PickEdition)
    app.add_transform(TranslateTocCaptions)
    app.connect("config-inited", add_switcher)
    app.connect("builder-inited", share_executed_folder, priority=600)
    app.connect("html-page-context", link_languages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
