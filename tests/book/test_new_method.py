"""An eighth relocation method, added as the README says, lands everywhere chapter 8's methods are listed.

The method is added to `methods.SCENARIOS` in a fresh process before anything
else reads the list, as a maintainer's edit of bookkit/runs/methods.py would be:
chapter 8's runs, tabs and curves, the explorer's combinations, form, answers
and tables all come from that one list. It is not the article's
(`from_article` is False), so no page may call it that: "The article's seven:"
still lists exactly the seven.
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

from bookkit.explorer.words import WORDS

ROOT = Path(__file__).resolve().parents[2]
EIGHTH = "ad-to_device-no_grad"
MOVED = "to_device then no_grad()"

SCRIPT = f'''
import json

from bookkit.runs.methods import SCENARIOS, Scenario

SCENARIOS[{EIGHTH!r}] = Scenario(
    {EIGHTH!r}, "flex.autodiff -> to_device.no_grad()", "flex.autodiff", True, ("to_device", "no_grad"),
)
from bookkit.words import words  # its explanation in each words file, as the README's recipe adds it
words("en", "tabs")["explanations"][{EIGHTH!r}] = "Initialized on `flex.autodiff`, moved with `to_device`, then `no_grad`."
words("zh_CN", "tabs")["explanations"][{EIGHTH!r}] = "在 `flex.autodiff` 上初始化，用 `to_device` 搬走，然后 `no_grad`。"

import article
from bookkit.runs import combinations
from bookkit import explorer
from bookkit.runs import scenarios
from bookkit.pictures import tabs
from bookkit.pictures.curves import small_multiples
from bookkit.explorer.words import WORDS
from bookkit.runs.methods import article_methods

article.EXPECTED[{EIGHTH!r}] = article.Expected(
    "flex.autodiff -> to_device.no_grad()", False, (), source="mlx_autodiff (this test)")
records = scenarios.run_all()
runs = {{choice: scenarios.run(scenario) for choice, scenario in combinations.COMBINATIONS.items()}}
answers = [explorer.answer(choice, record) for choice, record in runs.items()]
print(json.dumps({{
    "runs": [record.name for record in records],
    "tabs": tabs.snapshot_tabs(records).html(),
    "curves": small_multiples(records).text_alternative.description,
    "relocations": [r.choice for r in combinations.RELOCATIONS],
    "combinations": [s.name for s in combinations.COMBINATIONS.values()],
    "answers": {{a.name: {{"article": a.article, "first": explorer.sentences(a)[0]}} for a in answers}},
    "pages": {{language: explorer.page(answers, "explorer", words) for language, words in WORDS.items()}},
    "seven": {{language: words.seven for language, words in WORDS.items()}},
    "from_article": [s.name for s in article_methods()],
    "article_table": list(article.ARTICLE),
    "expected_table": list(article.EXPECTED),
}}))
'''


@pytest.fixture(scope="module")
def eighth() -> dict:
    env = dict(os.environ)
    paths = [str(ROOT), str(ROOT / "tests" / "helpers"), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


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
    assert EIGHTH in eighth["expected_table"], "tests/helpers/article.py's table holds it, with its own source"
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
