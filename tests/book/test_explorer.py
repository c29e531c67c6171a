"""The relocation explorer's data: every combination, the article's seven among them, in words.

The combinations are `combinations.COMBINATIONS`; each answer is checked against
its run record field by field (not against the sentence code alone), the
article's seven against the one table of expected outcomes (tests/helpers/article.py),
and the files the book build wrote against a second, fresh generation: two
builds give the same bytes.
"""

from __future__ import annotations

import json
import re
import string
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest
from article import ARTICLE
from book_outputs import HTML, ROOT, book_build  # noqa: F401 (book_build is a fixture)

from bookkit.explorer.explorer import (
    ANSWERS_FILE,
    answer,
    explore,
    first_paragraph,
    key,
    load,
    page,
    sentences,
    write,
)
from bookkit.explorer.words import CHINESE, ENGLISH, WORDS, NoWordsError, templates, words_for
from bookkit.runs.combinations import BUILT_ON, COMBINATIONS, RELOCATIONS
from bookkit.runs.methods import SCENARIOS, article_methods
from bookkit.runs.scenarios import OUTCOMES, run, run_isolated

PAGE = "book/08a-explorer"
FOLDER = HTML / "book" / "explorer"


@pytest.fixture(scope="module")
def records() -> dict:
    """Every combination run in this process: fast, and enough for what does not depend on node ids."""
    return {choice: run(scenario) for choice, scenario in COMBINATIONS.items()}


def test_the_combinations_are_every_choice_once_with_the_articles_seven_under_their_names() -> None:
    choices = list(product(BUILT_ON, (True, False), [r.choice for r in RELOCATIONS]))
    assert list(COMBINATIONS) == choices
    names = [scenario.name for scenario in COMBINATIONS.values()]
    assert len(set(names)) == len(names), "each combination has a name of its own (its files are named by it)"
    marked = [s for s in COMBINATIONS.values() if s.name in SCENARIOS]
    assert {s.name: (s.built_on, s.read_first, s.moves) for s in marked} == {
        name: (s.built_on, s.read_first, s.moves) for name, s in SCENARIOS.items()}


def test_every_answer_says_what_its_run_did(records: dict) -> None:
    for choice, record in records.items():
        found = answer(choice, record)
        text = " ".join(sentences(found))
        assert found.key == key(choice) and found.name == record.name
        flag = "none" if record.require_grad is None else str(record.require_grad).lower()
        assert f"require_grad before training: {flag}" in text, found.key
        grads = ", ".join(str(s.grads) for s in record.steps) or "none"
        assert f"Gradients per completed step: {grads}" in text, found.key
        if record.error is None:
            assert "Ends: trains." in text and found.message == "", found.key
        else:
            where = "before training" if record.error.step is None else f"at step {record.error.step}"
            assert f"Ends: {record.error.type} {where}" in text, found.key
            assert first_paragraph(record.error.message) in text and found.message == record.error.message
        assert ("the article's method" in sentences(found)[0]) == COMBINATIONS[choice].from_article, found.key


def test_the_articles_seven_answer_what_the_article_reports(records: dict) -> None:
    answers = {found.name: found for found in (answer(c, r) for c, r in records.items())}
    for name, expected in ARTICLE.items():  # the article's seven: a method the book adds is not one of them
        found = answers[name]
        assert found.article and found.require_grad is expected.require_grad, name
        assert found.grads == expected.grads and found.outcome == expected.outcome, name
        assert found.error_type == (expected.error.__name__ if expected.error else None), name
        assert found.error_step == expected.error_step, name


def test_train_on_an_autodiff_model_shows_the_errors_message_not_a_blank(records: dict) -> None:
    before = [answer(c, r) for c, r in records.items() if r.outcome == "crash-before-training"]
    assert before, "some combination raises before training (train() on autodiff parameters)"
    for found in before:
        assert found.error_type == "AlreadyAutodiffError" and found.relocation.endswith("train()")
        assert "Autodiff should not wrap an autodiff tensor." in sentences(found)[3]
        assert found.graph is None, "no backward ran, so there is no graph to show"


def test_a_fresh_process_gives_the_articles_node_id() -> None:
    found = answer(("flex.autodiff", True, "to_device"), run_isolated("ad-to_device"))
    assert "consumed at NodeId(3)" in sentences(found)[3]


def test_the_page_without_javascript_has_every_combination_in_its_tables(records: dict) -> None:
    answers = [answer(c, r) for c, r in records.items()]
    html = page(answers, "explorer")
    assert html.count("<tbody>") == len(BUILT_ON)
    assert html.count("<tr><td>") == len(COMBINATIONS)
    assert html.count("<strong>") == len(article_methods()) == 7, "the article's seven are marked"
    assert '<form class="explorer-form" aria-label="Relocation explorer" hidden>' in html
    for label in ("Built on", "Parameters read before moving", "How it is moved"):
        assert f">{label}</label>" in html


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_two_builds_write_the_same_bytes(tmp_path: Path) -> None:
    """The build's files, against a second generation from fresh processes."""
    write(explore(), tmp_path)
    def files(folder: Path) -> list[str]:  # each language's pictures in a subfolder (explorer.picture_folder)
        return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())

    built = files(FOLDER)
    assert built == files(tmp_path)
    assert any(name.startswith("zh_CN/") for name in built), "the Chinese pictures are written"
    different = [name for name in built if (FOLDER / name).read_bytes() != (tmp_path / name).read_bytes()]
    assert not different, f"these explorer files differ from one build to the next: {different}"
    assert (HTML / f"{PAGE}.html").stat().st_size > 0


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_an_unchanged_engine_reuses_the_cached_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """bookkit/explorer/sphinx_ext.py runs the combinations again only when the engine changed."""
    from bookkit.explorer import sphinx_ext as explorer_page
    monkeypatch.setattr(explorer_page, "explore", lambda: pytest.fail("the cached runs were not reused"))
    folder = explorer_page.cached_folder()
    assert load(folder) == load(FOLDER)
    assert (folder / ANSWERS_FILE).read_bytes() == (FOLDER / ANSWERS_FILE).read_bytes()


# ----- the words of each edition (bookkit/explorer/words.py) ---------------------------------


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("language", [code for code in WORDS if code != "en"])
def test_every_language_fills_every_template_with_englishs_placeholders(language: str) -> None:
    english, translated = templates(ENGLISH), templates(WORDS[language])
    assert translated.keys() == english.keys(), f"{language}: not the same texts as English"
    assert set(WORDS[language].meanings) == set(OUTCOMES), f"{language}: a meaning per outcome"
    for name, text in english.items():
        assert translated[name].strip(), f"{language}: {name} is empty"
        assert placeholders(translated[name]) == placeholders(text), (
            f"{language}: {name} has {sorted(placeholders(translated[name]))}, English has "
            f"{sorted(placeholders(text))}")


def test_a_language_without_words_is_named_with_what_to_do() -> None:
    assert words_for(None) is ENGLISH and words_for("zh_CN") is CHINESE
    with pytest.raises(NoWordsError, match="'fr'.*explorer_words.py"):
        words_for("fr")


def test_the_chinese_page_says_everything_in_chinese_but_the_identifiers(records: dict) -> None:
    answers = [answer(c, r) for c, r in records.items()]
    html = page(answers, "explorer", CHINESE)
    for label in (CHINESE.built_on, CHINESE.read_first, CHINESE.relocation):
        assert f">{label}</label>" in html
    for english in (ENGLISH.built_on, ENGLISH.seven, ENGLISH.whole_message, ENGLISH.heads[0], "Ends:"):
        assert english not in html, f"English {english!r} on the Chinese page"
    found = next(found for found in answers if found.name == "ad-to_device")
    lines = sentences(found, CHINESE)
    assert lines[0] == f"{found.label}：文章的搬法 ad-to_device。"
    assert found.error_type in lines[3] and first_paragraph(found.message) in lines[3], (
        "the error's type and Burn's words stay English")
    assert f"\"lines\":{json.dumps(list(lines), ensure_ascii=False, separators=(',', ':'))}" in html


def test_a_combinations_picture_is_titled_in_each_editions_words() -> None:
    """A combination no chapter names is titled by its choices (`flex（懒参数） -> fork`), not by its key
    (`flex-lazy-fork`, English words in a Chinese title); the article's methods keep their names."""
    from bookkit.runs.combinations import COMBINATIONS
    from bookkit.runs.methods import SCENARIOS
    from bookkit.runs.scenarios import _run_title

    for scenario in COMBINATIONS.values():
        chinese = _run_title("after", scenario, 0)["zh_CN"]
        if scenario.name in SCENARIOS:
            assert chinese.startswith(f"{scenario.name}："), chinese
        else:
            english = re.search(r"\b(read|lazy|unmoved)\b", chinese)
            assert scenario.name not in chinese and not english, chinese


def test_two_builds_writing_the_cache_at_once_keep_it_whole(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that finds another's fresh folder leaves it, and one that finishes second keeps the first's
    folder: a half-written cache (27 of 48 files, seen when a test ran beside a build) is never read."""
    from bookkit.explorer import sphinx_ext as explorer_page

    cache = tmp_path / "_build" / ".explorer"
    monkeypatch.setattr(explorer_page, "engine_key", lambda root: "key")
    monkeypatch.setattr(explorer_page, "explore", lambda: "answers")
    others = cache / f"{explorer_page.FRESH}other"  # another build, still writing
    old = cache / "older-engine"

    def write(answers: str, folder: Path) -> None:
        (folder / "one").write_text(answers)
        first = cache / "key"  # the other build finished the same folder meanwhile
        first.mkdir()
        (first / "one").write_text("first")

    monkeypatch.setattr(explorer_page, "write", write)
    others.mkdir(parents=True)
    old.mkdir()
    folder = explorer_page.cached_folder(tmp_path)
    assert (folder / "one").read_text() == "first", "the folder renamed there first is kept whole"
    assert sorted(path.name for path in cache.iterdir()) == sorted(["key", others.name])


def test_the_explorers_command_line_runs_as_a_module() -> None:
    """`python -m bookkit.explorer` is the command its usage line names (a package needs a __main__.py)."""
    command = [sys.executable, "-m", "bookkit.explorer"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "usage: python -m bookkit.explorer FOLDER" in done.stderr, done.stderr


def test_a_combination_run_in_its_own_process_does_not_import_matplotlib() -> None:
    """`explore` runs every combination in a process of its own: what it imports for one run (the engine, the
    graphs, the explorer's words for its title) leaves out matplotlib, half a second of each process."""
    probe = ("import sys; from bookkit.runs.scenarios import run; run('flex.autodiff-lazy-fork', steps=1); "
             "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "False"
