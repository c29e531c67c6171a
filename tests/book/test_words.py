"""The words of generated text: every language has every key of English, with the same placeholders."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bookkit.words import PLACEHOLDER, SOURCE_LANGUAGE, NoWordsError, _load, languages, say, words
from bookkit.words.multilingual import Editions, EditionsError, pick
from bookkit.workbook.checks import PLURAL


def leaves(table: Any, path: str = "") -> dict[str, str]:
    """Every text of a words table by its dotted key."""
    if isinstance(table, dict):
        return {key: text for name, value in table.items()
                for key, text in leaves(value, f"{path}.{name}" if path else name).items()}
    if isinstance(table, list):
        return {key: text for at, value in enumerate(table)
                for key, text in leaves(value, f"{path}[{at}]").items()}
    assert isinstance(table, str), f"{path}: a words file holds only text, found {table!r}"
    return {path: table}


def test_there_are_english_and_chinese_words() -> None:
    assert languages()[0] == SOURCE_LANGUAGE
    assert "zh_CN" in languages()


def english_words() -> dict[str, str]:
    """English's every text by its dotted key: en.json's, and appendix 1's map of the code, whose
    English is README's own (bookkit/site/code_map.py) and whose other languages' words are the part
    "code_map"'s "header" and "rows" by module (a row's "burn" only where it says more than Burn's
    names, which every language keeps)."""
    from bookkit.site.code_map import map_of_the_code

    header, *rows = map_of_the_code((Path(__file__).resolve().parents[2] / "README.md").read_text("utf8"))
    readme = {"header": header, "rows": {module: {"concept": concept, "burn": burn}
                                         for module, concept, burn in rows}}
    return leaves(_load(SOURCE_LANGUAGE)) | leaves(readme, "code_map")


@pytest.mark.parametrize("language", [code for code in languages() if code != SOURCE_LANGUAGE])
def test_every_language_has_every_key_with_the_same_placeholders(language: str) -> None:
    english, other = english_words(), leaves(_load(language))
    english = {key: text for key, text in english.items()
               if key in other or not (key.startswith("code_map.rows.") and key.endswith(".burn"))}
    assert sorted(set(english) - set(other)) == [], f"{language}.json lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{language}.json has keys English does not"
    named = re.compile(rf"{PLACEHOLDER.pattern}|{PLURAL.pattern}")  # {count}, or {count:time|times}

    def names(text: str) -> set[str]:
        return {match[0] or match[1] for match in named.findall(text)}

    for key, text in english.items():
        assert names(other[key]) == names(text), key
        assert other[key].strip(), f"{language}.json: {key} is empty"


def test_say_fills_placeholders() -> None:
    assert say(words("en", "page")["stepper"]["position"], k=2, n=5) == "Step 2 of 5"
    assert say(words("zh_CN", "page")["stepper"]["position"], k=2, n=5) == "第 2 帧，共 5 帧"


def test_the_books_languages_are_one_list_and_each_has_its_words() -> None:
    """`LANGUAGES` (bookkit/words/language.py) is the one list: the build's editions, the words'
    languages; no words file is left outside it."""
    from bookkit.words import FOLDER
    from bookkit.words.language import LANGUAGES

    assert languages() == list(LANGUAGES) and languages()[0] == SOURCE_LANGUAGE
    assert sorted(path.stem for path in FOLDER.glob("*.json")) == sorted(LANGUAGES)
    burn_check = FOLDER.parent / "burn_check" / "words"  # burn-check's command reads its languages there
    assert sorted(path.stem for path in burn_check.glob("*.json")) == sorted(LANGUAGES)


def test_an_unknown_language_or_part_says_what_to_add() -> None:
    with pytest.raises(NoWordsError, match=r"'fr'.*bookkit/words/fr\.json"):
        words("fr", "page")
    with pytest.raises(NoWordsError, match="no part 'nothing'"):
        words("en", "nothing")


def test_an_editions_output_shows_english_unprocessed_and_each_language_picked() -> None:
    html = Editions({"en": "<p>Step 1</p>", "zh_CN": "<p>第 1 帧</p>"})._repr_html_()
    assert html.startswith("<p>Step 1</p><template")  # JupyterLab and live outputs show English only
    assert pick(html, "en") == pick(html, None) == "<p>Step 1</p>"
    assert pick(html, "zh_CN") == "<p>第 1 帧</p>"
    assert pick(html, "fr") == "<p>Step 1</p>"
    assert pick("<b>plain</b>", "zh_CN") == "<b>plain</b>"
    with pytest.raises(EditionsError, match="needs the 'en' HTML"):
        Editions({"zh_CN": "<p>帧</p>"})


LATIN_IN_CHINESE = re.compile(r"[\u4e00-\u9fff](?:[,;!?]|: | ?\()|(?:[,;!?]|\))[\u4e00-\u9fff]|[“”]")
"""A Latin comma, semicolon, colon, parenthesis or curly quote beside a Han character: a Chinese
sentence writes ，；：（）and 「」 (locale/zh_CN/GLOSSARY.md); code and a markdown link ([文字](url))
keep theirs."""


def _texts(table: Any, where: str = "") -> list[tuple[str, str]]:
    if isinstance(table, dict):
        return [found for key, value in table.items() for found in _texts(value, f"{where}.{key}")]
    if isinstance(table, list):
        return [found for at, value in enumerate(table) for found in _texts(value, f"{where}[{at}]")]
    return [(where, table)] if isinstance(table, str) else []


@pytest.mark.parametrize("path", ["bookkit/words/zh_CN.json", "bookkit/burn_check/words/zh_CN.json"])
def test_chinese_words_punctuate_as_chinese(path: str) -> None:
    import json

    table = json.loads((Path(__file__).resolve().parents[2] / path).read_text("utf8"))
    found = [(where, text[max(0, m.start() - 15):m.end() + 15]) for where, text in _texts(table)
             for m in LATIN_IN_CHINESE.finditer(re.sub(r"`[^`]*`|\]\([^)]*\)", "", text))]
    assert found == [], f"{path}: Latin punctuation in a Chinese sentence"


# ----- words that repeat an English text kept elsewhere -------------------------------------------

def test_the_english_explanations_and_meanings_are_the_engines_own() -> None:
    """en.json repeats the outcomes' meanings (scenarios.OUTCOMES) so that the keys line up; a changed
    English text must change there too, which tells the translator the Chinese needs another look.
    The methods' explanations live in the words files alone, one per method in every language."""
    from bookkit.runs.scenarios import OUTCOMES, SCENARIOS

    for language in languages():
        assert sorted(words(language, "tabs")["explanations"]) == sorted(SCENARIOS), language
    assert words("en", "explorer")["meanings"] == OUTCOMES
    assert words("en", "curves")["outcomes"].keys() == OUTCOMES.keys()


def test_every_pictures_title_in_the_book_has_its_translation() -> None:
    """A picture's title is the chapter's English text, looked up in the part "titles"."""

    book = Path(__file__).resolve().parents[2] / "book"
    called = re.compile(r"""\b(?:snapshot|step_through)\(\s*(["'])(.+?)\1""")
    titles = {match[2] for path in book.glob("*.md") for match in called.finditer(path.read_text("utf8"))}
    assert titles, "no picture titles found in the chapters"
    for language in languages():
        table = words(language, "titles")
        assert sorted(titles - table.keys()) == [], f"{language}.json's titles lack these"
    assert all(key == text for key, text in words("en", "titles").items())


def test_the_chinese_code_map_has_every_module_of_readmes() -> None:
    """Appendix 1 shows README's map of the code; the Chinese edition's words for it are the part
    "code_map" of zh_CN.json, by README's module cell: one for every row, none for a row gone."""
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text("utf8")
    section = readme.split("\n## Map of the code\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    modules = [line.strip("|").split("|")[0].strip() for line in rows]
    chinese = words("zh_CN", "code_map")
    assert list(chinese["rows"]) == modules, "zh_CN.json's code_map rows are not README's, in README's order"
    assert all(re.search(r"[\u4e00-\u9fff]", row["concept"]) for row in chinese["rows"].values())
