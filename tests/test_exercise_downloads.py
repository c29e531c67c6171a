"""Every chapter with exercises offers them as a notebook, downloaded from the page in Chromium.

Each "Download as exercise" link is clicked like a reader would; the file that
arrives must be a valid notebook, the very file `exercises fork` writes for
that chapter, with a stub for each exercise. Grading takes a fresh kernel per
notebook, so one downloaded notebook is graded with the command its page
prints: each of its stubs fails as "not done yet". (The stubs of every other
chapter are the same code, and tests/test_exercises.py grades fork's stubs.)
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from book_outputs import HTML, ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

from mlx_autodiff.workbook import chapters, exercises, forked_notebook, stub_message
from tools.exercise_downloads import DOWNLOAD_WORDS, download_html

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]

WITH_EXERCISES = [chapter for chapter in chapters(ROOT) if exercises(chapter.read(), chapter.name)]
GRADED = "03-not-a-leaf"  # two exercises, and a short chapter to run


def download(visit, chapter, tmp_path: Path) -> tuple[Path, str]:
    """Click the chapter's link; the saved file and the sentence beside the link."""
    opened = visit(f"{chapter.source.removesuffix('.md')}.html")
    links = opened.page.get_by_role("link", name="Download as exercise", exact=True)
    assert links.count() == 1, f"{chapter.name}: expected one 'Download as exercise' link"
    in_exercises = "a => !!a.closest('section#exercises')"
    assert links.evaluate(in_exercises), f"{chapter.name}: the link is not in the Exercises section"
    with opened.page.expect_download() as started:
        links.click()
    path = tmp_path / started.value.suggested_filename
    started.value.save_as(path)
    sentence = links.evaluate("a => a.closest('p').textContent")
    assert not opened.console_errors() and not opened.network
    return path, sentence


@pytest.mark.parametrize("language", list(DOWNLOAD_WORDS))
def test_a_page_has_the_link_exactly_when_it_shows_exercises(language: str) -> None:
    words = DOWNLOAD_WORDS[language]
    showing = []
    for docname in toc_pages():
        page = (SITE / language / f"{docname}.html").read_text(encoding="utf-8")
        shows = '<div class="exercise admonition"' in page
        assert page.count(f">{words.link}</a>") == int(shows), f"{language}/{docname}"
        if shows:
            assert f"{words.colon}{words.what}" in page, f"{language}/{docname}: the sentence after the link"
        showing += [docname] if shows else []
    assert showing == [f"book/{chapter.name}" for chapter in WITH_EXERCISES]


def test_each_editions_words_have_the_same_placeholders() -> None:
    import string

    for language, words in DOWNLOAD_WORDS.items():
        fields = {name for _, name, _, _ in string.Formatter().parse(words.save) if name}
        assert fields == {"path", "command"} and words.link and words.what, language
    with pytest.raises(LookupError, match="'fr'.*DOWNLOAD_WORDS"):
        download_html("book/03-not-a-leaf", WITH_EXERCISES[0], "fr")


@pytest.mark.parametrize("chapter", WITH_EXERCISES, ids=lambda chapter: chapter.name)
def test_the_link_downloads_the_notebook_fork_writes(visit, chapter, tmp_path: Path) -> None:
    path, sentence = download(visit, chapter, tmp_path)
    assert path.name == f"{chapter.name}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert path.read_text(encoding="utf-8") == nbformat.writes(forked_notebook(chapter)), (
        f"{chapter.name}: the download is not what `exercises fork {chapter.name[:2]}` writes")
    sources = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    for exercise in exercises(chapter.read(), chapter.name):
        assert f'raise NotImplementedError("{stub_message(exercise.label)}")' in sources, exercise.label
    command = f".venv/bin/python -m mlx_autodiff.exercises check exercises/{chapter.name}.ipynb"
    assert command in sentence, f"{chapter.name}: the page does not say how to check it: {sentence!r}"


def test_a_downloaded_notebooks_stubs_fail_check(visit, tmp_path: Path) -> None:
    chapter = next(chapter for chapter in WITH_EXERCISES if chapter.name == GRADED)
    path, sentence = download(visit, chapter, tmp_path)
    command = shlex.split(sentence.rsplit("check it there with ", 1)[1].rstrip("."))
    assert command[:4] == [".venv/bin/python", "-m", "mlx_autodiff.exercises", "check"]
    done = subprocess.run([sys.executable, *command[1:-1], str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    labels = [exercise.label for exercise in exercises(chapter.read(), chapter.name)]
    assert done.returncode == 1, f"check should fail every stub:\n{done.stdout}\n{done.stderr}"
    for label in labels:
        assert any(line.startswith("FAIL") and label in line for line in done.stdout.splitlines()), label
    assert done.stdout.count("not done yet") == len(labels)
    assert f"0 of {len(labels)} exercises pass" in done.stdout
