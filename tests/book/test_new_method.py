"""An eighth relocation method, added by README's recipe, lands everywhere chapter 8's methods are listed.

In the recipes' shared scratch copy of the repository (tests/book/conftest.py) `make` makes the
recipe's edits for real: a `Scenario` in
bookkit/runs/methods.py, its explanation in both words files, its expected outcome in
tests/helpers/article.py. git in the copy then says the recipe touched exactly the files README
lists, and the copy's fast tier passes with it. Chapter 8's runs, tabs and curves, the explorer's
combinations, form, answers and tables all come from that one list. It is not the article's
(`from_article` is False), so no page may call it that: "The article's seven:" still lists exactly
the seven.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
from scratch import SharedCopy, insert, readme_recipe_files

from bookkit.explorer.words import WORDS

ROOT = Path(__file__).resolve().parents[2]
EIGHTH = "ad-to_device-no_grad"
MOVED = "to_device then no_grad()"
SCENARIO = f'''    Scenario(
        {EIGHTH!r}, "flex.autodiff -> to_device.no_grad()", "flex.autodiff", True,
        ("to_device", "no_grad"),
    ),
'''
EXPLANATIONS = {
    "en": "Initialized on `flex.autodiff`, moved with `to_device`, then `no_grad`.",
    "zh_CN": "在 `flex.autodiff` 上初始化，用 `to_device` 搬走，然后 `no_grad`。",
}
EXPECTED = f'''    {EIGHTH!r}: Expected(
        "flex.autodiff -> to_device.no_grad()", False, (), UntrackedBackwardError, 0, "crash-at-step-0",
        source="mlx_autodiff (README's recipe, tested)",
    ),
'''

SCRIPT = '''
import json

import article
from bookkit.runs import combinations
from bookkit.explorer import explorer
from bookkit.runs import scenarios
from bookkit.pictures import tabs
from bookkit.pictures.curves import small_multiples
from bookkit.explorer.words import WORDS
from bookkit.runs.methods import article_methods

records = scenarios.run_all()
runs = {choice: scenarios.run(scenario) for choice, scenario in combinations.COMBINATIONS.items()}
answers = [explorer.answer(choice, record) for choice, record in runs.items()]
print(json.dumps({
    "runs": [record.name for record in records],
    "tabs": tabs.snapshot_tabs(records).html(),
    "curves": small_multiples(records).text_alternative.description,
    "relocations": [r.choice for r in combinations.RELOCATIONS],
    "combinations": [s.name for s in combinations.COMBINATIONS.values()],
    "answers": {a.name: {"article": a.article, "first": explorer.sentences(a)[0]} for a in answers},
    "pages": {language: explorer.page(answers, "explorer", words) for language, words in WORDS.items()},
    "seven": {language: words.seven for language, words in WORDS.items()},
    "from_article": [s.name for s in article_methods()],
    "article_table": list(article.ARTICLE),
    "expected_table": list(article.EXPECTED),
}))
'''


def make(copy: Path) -> None:
    """README's recipe for a relocation method, made in the copy."""
    insert(copy / "bookkit" / "runs" / "methods.py", ')\n"""The methods chapter 8 runs', SCENARIO)
    for language, text in EXPLANATIONS.items():
        path = copy / "bookkit" / "words" / f"{language}.json"
        table = json.loads(path.read_text(encoding="utf8"))
        table["tabs"]["explanations"][EIGHTH] = text
        path.write_text(json.dumps(table, ensure_ascii=False, indent=2) + "\n", encoding="utf8")
    insert(copy / "tests" / "helpers" / "article.py", '}\n"""Every method chapter 8 runs', EXPECTED)


@pytest.fixture(scope="module")
def eighth(scratch_repository: SharedCopy) -> dict:
    copy = scratch_repository.path
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(copy), str(copy / "tests" / "helpers")]))
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=copy, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_recipe_touches_the_files_readme_lists(scratch_repository: SharedCopy) -> None:
    listed = readme_recipe_files(ROOT / "README.md", "A relocation method in chapter 8")
    made = scratch_repository.recipes[__name__].changed
    assert made == listed, "README's recipe lists other files than the edit touches"
    assert len(listed) == 4


def test_the_copys_fast_tier_passes_with_the_new_method(scratch_repository: SharedCopy) -> None:
    assert scratch_repository.fast_tier.returncode == 0, scratch_repository.fast_tier_failure()


def test_chapter_8_runs_draws_and_plots_it(eighth: dict) -> None:
    assert eighth["runs"][-1] == EIGHTH and len(eighth["runs"]) == 8
    assert f">{EIGHTH}</label>" in eighth["tabs"], "chapter 8's tabs have one for the new method"
    assert "then <code" in eighth["tabs"], "with its explanation above its graphs"
    assert "flex.autodiff -> to_device.no_grad(): " in eighth["curves"], "chapter 8's curves have its panel"


def test_the_explorer_offers_its_moves_and_runs_it_under_its_name(eighth: dict) -> None:
    assert MOVED in eighth["relocations"], "its way to move is one of the explorer's choices"
    assert eighth["combinations"].count(EIGHTH) == 1
    assert set(eighth["runs"]) <= set(eighth["combinations"]), "every method of chapter 8 is a combination"


def test_no_page_calls_it_the_articles(eighth: dict) -> None:
    assert eighth["from_article"] == eighth["article_table"] == eighth["runs"][:7]
    assert EIGHTH in eighth["expected_table"], "tests/helpers/article.py holds it, with its own source"
    found = eighth["answers"][EIGHTH]
    assert not found["article"] and "the article's method" not in found["first"]
    for language, html in eighth["pages"].items():
        heading = re.escape(escape(eighth["seven"][language]))
        seven = re.search(rf'<p class="explorer-picks"><span>{heading}</span>(.*?)</p>', html)
        assert seven, language
        names = re.findall(r'<button type="button" data-key="[^"]*">([^<]*)</button>', seven[1])
        assert names == eighth["from_article"], f"{language}: the article's seven lists only the seven"
        picks = re.findall(r'<button type="button" data-key="[^"]*">([^<]*)</button>', html)
        assert picks == [*eighth["from_article"], EIGHTH], f"{language}: the new method has its own button"
        assert html.count("<strong>") == 7, f"{language}: the tables mark only the article's seven"
        shown = WORDS[language].relocation_label(MOVED, "to_device.no_grad()")
        assert f"<td>{escape(shown)}</td>" in html, f"{language}: its combinations are in the tables"
        assert f'<option value="{MOVED}">{escape(shown)}</option>' in html, f"{language}: and in the form"
