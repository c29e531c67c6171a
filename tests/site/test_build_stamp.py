"""An unchanged edition is not built again (bookkit/site/stamp.py), and any change to what it reads
builds it again."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_book import HEADER, tiny_book

from bookkit.site import stamp as build_stamp
from bookkit.site.build import build

SITE = ["en", "zh_CN"]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def repository(root: Path) -> Path:
    """A git repository with a page, a test, and the HTML an edition's successful build left."""
    (root / "book").mkdir(parents=True)
    (root / "book" / "index.md").write_text("# A page\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_page.py").write_text("def test_page(): pass\n")
    (root / ".gitignore").write_text("_build/\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    written(root)
    build_stamp.record(root, "en", build_stamp.inputs_digest(root, "en", SITE))
    return root


def unchanged(root: Path, language: str = "en", site: list[str] = SITE) -> bool:
    return build_stamp.unchanged(root, language, build_stamp.inputs_digest(root, language, site))


def written(root: Path) -> None:
    """What Sphinx writes last in an edition's HTML folder."""
    html = root / "_build" / "html" / "en"
    html.mkdir(parents=True, exist_ok=True)
    (html / ".buildinfo").write_text("# Sphinx build info\n")


def test_nothing_changed_is_unchanged(tmp_path: Path) -> None:
    assert unchanged(repository(tmp_path))


def test_a_test_edit_builds_nothing(tmp_path: Path) -> None:
    root = repository(tmp_path)
    (root / "tests" / "test_page.py").write_text("def test_page(): assert True\n")
    assert unchanged(root)


@pytest.mark.parametrize("change", ["edit", "new file", "removed", "ignored file", "renamed"])
def test_a_change_to_the_repository_builds_again(tmp_path: Path, change: str) -> None:
    root = repository(tmp_path)
    page = root / "book" / "index.md"
    if change == "edit":
        page.write_text("# A page, with a typo fixed\n")
    elif change == "new file":
        (root / "book" / "02-new.md").write_text("# New\n")  # not added to git yet: still read
    elif change == "removed":
        page.unlink()
    elif change == "ignored file":
        (root / "_build" / "scratch.txt").write_text("not an input\n")
    else:
        page.rename(root / "book" / "first.md")
    assert unchanged(root) is (change == "ignored file")


def test_another_site_or_environment_builds_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = repository(tmp_path)
    assert not unchanged(root, site=["en"])  # the switcher links to other editions
    assert not unchanged(root, "zh_CN")  # another edition's build
    monkeypatch.setenv("BOOK_BASEURL", "https://example.org/book/")
    assert not unchanged(root)


def test_html_written_since_or_removed_builds_again(tmp_path: Path) -> None:
    root = repository(tmp_path)
    info = root / "_build" / "html" / "en" / ".buildinfo"
    os.utime(info, ns=(info.stat().st_atime_ns, info.stat().st_mtime_ns + 1))  # another build wrote it
    assert not unchanged(root)
    shutil.rmtree(root / "_build" / "html")
    assert not unchanged(root)


def test_without_git_every_build_runs(tmp_path: Path) -> None:
    root = repository(tmp_path)
    shutil.rmtree(root / ".git")
    assert not unchanged(root)
    build_stamp.record(root, "en", build_stamp.inputs_digest(root, "en", SITE))
    assert not unchanged(root)


def test_an_edit_during_the_build_builds_again(tmp_path: Path) -> None:
    root = repository(tmp_path)
    before = build_stamp.inputs_digest(root, "en", SITE)  # as the build begins
    (root / "book" / "index.md").write_text("# A page, saved while the build ran\n")
    written(root)
    build_stamp.record(root, "en", before)
    assert not unchanged(root)


def test_a_build_that_starts_forgets_the_stamp(tmp_path: Path) -> None:
    root = repository(tmp_path)
    build_stamp.forget(root, "en")  # a build that then fails leaves nothing that says "up to date"
    assert not unchanged(root)


@pytest.mark.slow
def test_a_second_build_of_an_unchanged_book_skips_sphinx(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    root = tiny_book(tmp_path)
    (root / "book" / "05-step-1.md").write_text(HEADER + "\n```{code-cell} ipython3\nx = 1\n```\n")
    (root / ".gitignore").write_text("_build/\n__pycache__/\n_live/\n")
    git(root, "init", "-q")
    assert build(["en"], root=root).status == 0
    page = (root / "_build" / "html" / "en" / "book" / "05-step-1.html").read_bytes()
    capfd.readouterr()
    again = build(["en"], root=root)
    log = capfd.readouterr().out
    assert again.status == 0 and again.statuses == {"en": 0}
    assert "book build, en: unchanged since its last successful build" in log
    assert "bookkit.site.sphinx_build" not in log, "Sphinx ran for an unchanged book"
    assert (root / "_build" / "html" / "en" / "book" / "05-step-1.html").read_bytes() == page
    capfd.readouterr()
    assert build(["en"], root=root, force=True).status == 0
    assert "bookkit.site.sphinx_build" in capfd.readouterr().out, "--force did not build"
