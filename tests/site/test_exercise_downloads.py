"""Every chapter with exercises offers them as a notebook, downloaded from the page in Chromium.

Each "Download as exercise" link is clicked like a reader would, in each edition; the file that
arrives must be a valid notebook, the very file `mlx-autodiff-exercises get --language <edition>`
writes for that chapter, with a stub for each exercise. Every link in every edition's notebook must
open a page of the built site, in the same edition, at an anchor that page has. One downloaded
notebook is graded with the command its page prints,
in the folder it was saved to: each of its stubs fails as "not done yet". (The stubs of every other
chapter are the same code, and tests/book/test_exercises.py grades `get`'s stubs.)
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
from book_outputs import EDITIONS, ROOT, SITE, book_build, toc_pages  # noqa: F401 (book_build is a fixture)

from bookkit.site import layout as site_layout
from bookkit.site.exercise_downloads import download_html
from bookkit.words import NoWordsError, words
from bookkit.workbook import GRADER, chapters, exercises, forked_notebook, numbered, stub_message

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("book_build")]

WITH_EXERCISES = [chapter for chapter in chapters(ROOT) if exercises(chapter.read(), chapter.name)]
GRADED = "03-not-a-leaf"  # two exercises, and a short chapter to run
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def download(visit, chapter, tmp_path: Path, language: str = "en") -> tuple[Path, str]:
    """Click the chapter's link; the saved file and the sentence beside the link."""
    opened = visit(f"{chapter.source.removesuffix('.md')}.html", language=language)
    links = opened.page.get_by_role("link", name=words(language, "download")["link"], exact=True)
    assert links.count() == 1, f"{language}/{chapter.name}: expected one 'Download as exercise' link"
    in_exercises = "a => !!a.closest('section#exercises')"
    assert links.evaluate(in_exercises), f"{chapter.name}: the link is not in the Exercises section"
    with opened.page.expect_download() as started:
        links.click()
    path = tmp_path / language / started.value.suggested_filename
    started.value.save_as(path)
    sentence = links.evaluate("a => a.closest('p').textContent")
    assert not opened.console_errors() and not opened.network
    return path, sentence


@pytest.mark.parametrize("language", EDITIONS)
def test_a_page_has_the_link_exactly_when_it_shows_exercises(language: str) -> None:
    said = words(language, "download")
    showing = []
    for docname in toc_pages():
        page = (SITE / site_layout.page_path(docname, language)).read_text(encoding="utf-8")
        shows = '<div class="exercise admonition"' in page
        assert page.count(f">{said['link']}</a>") == int(shows), f"{language}/{docname}"
        if shows:
            assert f"{said['colon']}{said['what']}" in page, f"{language}/{docname}: the words after the link"
        showing += [docname] if shows else []
    assert showing == [f"book/{chapter.name}" for chapter in WITH_EXERCISES]


def test_each_editions_words_have_the_one_placeholder() -> None:
    import string

    for language in EDITIONS:
        said = words(language, "download")
        fields = {name for _, name, _, _ in string.Formatter().parse(said["save"]) if name}
        assert fields == {"command"} and said["link"] and said["what"], language
    chinese = download_html("book/03-not-a-leaf", WITH_EXERCISES[0], "zh_CN")
    assert "。 " not in chinese and "英文的" not in chinese, "Chinese needs no space after 。"
    with pytest.raises(NoWordsError, match=r"'fr'.*words/fr\.json"):
        download_html("book/03-not-a-leaf", WITH_EXERCISES[0], "fr")


def notebook_links(path: Path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    return [hit["target"] for cell in notebook.cells if cell.cell_type == "markdown"
            for hit in LINK.finditer(cell.source)]


@pytest.mark.parametrize("language", EDITIONS)
def test_every_link_in_every_downloaded_notebook_opens_a_page_of_its_edition(language: str) -> None:
    """The built notebooks are the downloads (the test below clicks each); their links lead to the
    site as `make book` serves it, which here is `_build/html` itself."""
    broken = []
    for chapter in WITH_EXERCISES:
        path = SITE / site_layout.notebook_path(chapter.name, language)
        links = notebook_links(path)
        assert len(links) >= 1 + len(exercises(chapter.read(), chapter.name)), (
            f"{chapter.name}: the header and each solution's note link to the page")
        for link in links:
            if not link.startswith(site_layout.LOCAL):  # a citation of other docs (PyTorch's): offline here
                assert link.startswith("https://"), f"{chapter.name}: works from no folder: {link}"
                continue
            where = urlsplit(link)
            inside = where.path.lstrip("/")
            page = SITE / inside
            if not inside.startswith(site_layout.in_edition("", language)) or not page.is_file():
                broken.append(f"{chapter.name}: {link}")
            elif where.fragment and f'id="{where.fragment}"' not in page.read_text(encoding="utf-8"):
                broken.append(f"{chapter.name}: {link} (no such anchor)")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("chapter", WITH_EXERCISES, ids=lambda chapter: chapter.name)
def test_the_link_downloads_the_notebook_get_writes(visit, chapter, language: str, tmp_path: Path) -> None:
    path, sentence = download(visit, chapter, tmp_path, language)
    assert path.name == f"{chapter.name}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert path.read_text(encoding="utf-8") == nbformat.writes(forked_notebook(chapter, language=language)), (
        f"{chapter.name}: the download is not what `get {chapter.name[:2]} --language {language}` writes")
    sources = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    for exercise in numbered(chapter):
        assert f'raise NotImplementedError("{stub_message(exercise, language)}")' in sources, exercise.label
    command = f"{GRADER} check {chapter.name}.ipynb"
    assert command in sentence, f"{chapter.name}: the page does not say how to check it: {sentence!r}"
    assert command in notebook.cells[0].source, "the page and the notebook print the same command"


def test_a_downloaded_notebooks_stubs_fail_check_where_it_was_saved(visit, tmp_path: Path) -> None:
    chapter = next(chapter for chapter in WITH_EXERCISES if chapter.name == GRADED)
    path, sentence = download(visit, chapter, tmp_path)
    command = shlex.split(re.search(re.escape(GRADER) + r" check \S+?\.ipynb", sentence)[0])
    assert command[:2] == [GRADER, "check"] and command[2] == path.name
    # the installed command runs `python -m bookkit.exercises` (pyproject.toml's [project.scripts])
    done = subprocess.run([sys.executable, "-m", "bookkit.exercises", *command[1:]], cwd=path.parent,
                          capture_output=True, text=True, timeout=300, check=False)
    found = numbered(chapter)
    assert done.returncode == 1, f"check should fail every stub:\n{done.stdout}\n{done.stderr}"
    for exercise in found:
        assert any(line.startswith(f"FAIL  {exercise.name()}  {exercise.label}")
                   for line in done.stdout.splitlines()), exercise.label
    assert done.stdout.count("not done yet") == len(found)
    assert f"0 of {len(found)} exercises pass" in done.stdout


@pytest.mark.parametrize("language", EDITIONS)
def test_every_exercise_has_the_number_its_page_shows(language: str) -> None:
    """`list`, the notebooks and the checker number exercises from _toc.yml (workbook/numbering.py):
    the same numbers sphinx-exercise gives them on the built pages."""
    from bookkit.workbook import book_exercises

    shown = words(language, "exercises")["exercise"]
    for exercise in book_exercises(ROOT):
        page_path = SITE / site_layout.page_path(f"book/{exercise.chapter}", language)
        page = page_path.read_text(encoding="utf-8")
        caption = re.search(rf'id="{re.escape(exercise.label)}">\s*<p class="admonition-title">'
                            r'<span class="caption-number">([^<]*)</span>', page)
        assert caption, f"{language}: no exercise {exercise.label} on its page"
        assert caption[1].strip() == shown.format(number=exercise.number), exercise.label
