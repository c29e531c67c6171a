"""The book's editions: one per language, the source language first.

Plain data with no Sphinx in it, so the build script, the catalogs tool, `make
live` and the tests can know the editions without importing Sphinx and myst-nb
(tools/book_languages.py, the Sphinx extension, uses them too).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    """One edition of the book."""

    code: str  # Sphinx's `language` and the site's folder: "zh_CN"
    tag: str  # the BCP 47 tag of `lang` and `hreflang`, as Sphinx writes <html lang>: "zh-CN"
    name: str  # the language's own name, as the switcher shows it
    # myst-nb's button over a hidden cell input (`nb_code_prompt_show`, `_hide`; myst-nb 1.4.0 puts
    # "source" for {type}: the book hides inputs only, tests/test_translation.py checks)
    show_code: str
    hide_code: str


LANGUAGES = {
    "en": Language("en", "en", "English", "Show code cell {type}", "Hide code cell {type}"),
    "zh_CN": Language("zh_CN", "zh-CN", "中文", "显示代码", "隐藏代码"),
}
"""Every language the book is built in, the source language first."""
