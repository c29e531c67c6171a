"""The book's editions: one per language, the source language first.

Plain data with no Sphinx in it, so the build script, the catalogs tool, `make
live` and the tests can know the editions without importing Sphinx and myst-nb
(bookkit/site/book_languages.py, the Sphinx extension, uses them too).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    """One edition of the book."""

    code: str  # Sphinx's `language` and the site's folder: "zh_CN"
    tag: str  # the BCP 47 tag of `lang` and `hreflang`, as Sphinx writes <html lang>: "zh-CN"
    name: str  # the language's own name, as the switcher shows it

    @property
    def show_code(self) -> str:
        """myst-nb's button over a hidden cell input (`nb_code_prompt_show`), from the words files'
        part "notebook" (myst-nb 1.4.0 would put "source" for a {type}: the book hides inputs only,
        tests/site/test_translation.py checks, so the words say "source" themselves)."""
        from bookkit.words import words  # the words package reads LANGUAGES from here

        return words(self.code, "notebook")["show_code"]

    @property
    def hide_code(self) -> str:
        """`nb_code_prompt_hide`, as `show_code`."""
        from bookkit.words import words

        return words(self.code, "notebook")["hide_code"]


LANGUAGES = {
    "en": Language("en", "en", "English"),
    "zh_CN": Language("zh_CN", "zh-CN", "中文"),
}
"""Every language the book is built in, the source language first."""
