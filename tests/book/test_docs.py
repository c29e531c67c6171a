"""The repository stands alone: its links stay inside it, and docs/ says what the engine does.

A clone from GitHub has only the repository. So every link in the README, in
docs/ and in the book's pages is a real URL, an anchor, or a file of the
repository; the files a maintainer is pointed to (in backticks or as links)
exist; and nothing names the notes folder the project was written from. The
reading of Burn's source (docs/burn-reading.md) cites engine names, tests and
error messages: each must exist, so the page changes when the engine does.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mlx_autodiff import errors

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS, *sorted((ROOT / "book").glob("*.md"))]
READING = ROOT / "docs" / "burn-reading.md"
# Markdown's [text](target "title"), a reference definition `[name]: target`, and HTML's href/src.
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
                  r"|^\[[^\]]+\]:\s*(\S+)|(?:href|src)=\"([^\"]+)\"", re.MULTILINE)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
# A path a maintainer is sent to, in backticks: one of the repository's own folders, no placeholders.
PATH = re.compile(r"`((?:mlx_autodiff|tools|tests|docs|_static|_templates|locale)/[\w./-]*"
                  r"|book/[\w.-]+\.md|[\w.-]+\.(?:md|toml|yml|json|txt))`")
OUTSIDE = ("../" + "shared", "shared/" + "notes", "/" + "work/")  # split, so this file does not name them


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf8"))
    return [next(group for group in match.groups() if group) for match in LINK.finditer(text)]


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_every_link_is_a_url_an_anchor_or_a_file_of_the_repository(page: Path) -> None:
    wrong = []
    for target in links(page):
        parts = urlsplit(target)
        if parts.scheme in ("http", "https"):
            if not parts.netloc or parts.netloc in ("localhost", "127.0.0.1"):
                wrong.append(f"{target} (a URL must name a public host)")
            continue
        if parts.scheme or target.startswith("#"):
            if parts.scheme not in ("mailto", ""):
                wrong.append(f"{target} (an unexpected scheme)")
            continue
        found = (page.parent / parts.path).resolve()
        if not found.is_relative_to(ROOT):
            wrong.append(f"{target} (outside the repository)")
        elif not found.exists():
            wrong.append(f"{target} (no such file in the repository)")
    assert not wrong, f"{relative(page)} links to:\n" + "\n".join(wrong)


@pytest.mark.parametrize("page", [ROOT / "README.md", *DOCS], ids=relative)
def test_every_file_the_maintainer_is_sent_to_exists(page: Path) -> None:
    named = set(PATH.findall(page.read_text(encoding="utf8")))
    missing = sorted(path for path in named if not (ROOT / path.rstrip("/")).exists())
    assert not missing, f"{relative(page)} names files the repository does not have: {missing}"


def test_nothing_names_the_notes_outside_the_repository() -> None:
    folders = ["mlx_autodiff", "bookkit", "tools", "tests", "docs", "book", "_static", "_templates", "locale"]
    files = [ROOT / name for name in ("README.md", "Makefile", "_config.yml", "_toc.yml", "pyproject.toml")]
    suffixes = (".py", ".md", ".js", ".css", ".html", ".po", ".json", ".sh")
    files += [path for folder in folders for path in (ROOT / folder).rglob("*")
              if path.is_file() and path.suffix in suffixes]
    named = [f"{relative(path)}: {needle}" for path in files
             for needle in OUTSIDE if needle in path.read_text(encoding="utf8", errors="replace")]
    assert not named, "a clone has no such folder; say it in docs/ instead:\n" + "\n".join(named)


def test_the_reading_of_burn_names_engine_code_that_exists() -> None:
    text = READING.read_text(encoding="utf8")
    names = sorted(set(re.findall(r"`(mlx_autodiff(?:\.\w+)+)`", text)))
    assert len(names) > 20, "the rules name the engine's code that implements them"
    missing = []
    for name in names:
        parts = name.split(".")
        for split in range(len(parts), 1, -1):  # the longest importable module, then attributes
            try:
                found: object = importlib.import_module(".".join(parts[:split]))
            except ModuleNotFoundError:
                continue
            try:
                for attribute in parts[split:]:
                    found = getattr(found, attribute)
            except AttributeError:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert not missing, f"docs/burn-reading.md names engine code that does not exist: {missing}"


def test_the_reading_of_burn_names_tests_that_exist() -> None:
    cited = set(re.findall(r"`(test_\w+)`", READING.read_text(encoding="utf8")))
    defined = {name for path in (ROOT / "tests").rglob("test_*.py")
               for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf8"), re.MULTILINE)}
    assert len(cited) > 20, "the rules name the tests that pin them"
    missing = sorted(cited - defined)
    assert not missing, f"docs/burn-reading.md cites tests that do not exist: {missing}"


def test_the_reading_of_burn_quotes_the_engines_own_errors() -> None:
    quoted = re.findall(r"raises\s+`(\w+)`\s+\(\"([^\"]+)\"\)", READING.read_text(encoding="utf8"))
    source = "".join(path.read_text(encoding="utf8") for path in (ROOT / "mlx_autodiff").glob("*.py"))
    assert len(quoted) >= 6, "rules 5, 9, 11, 13 and 17 quote what the engine raises"
    wrong = [f"{kind}: {words!r}" for kind, words in quoted
             if not isinstance(getattr(errors, kind, None), type) or words not in source]
    assert not wrong, f"docs/burn-reading.md quotes errors the engine does not raise: {wrong}"


def test_the_reading_of_burn_has_each_rule_once_in_order() -> None:
    spec = READING.read_text(encoding="utf8").partition("## The rules the engine implements")[2]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. \*\*", spec, re.MULTILINE)]
    assert numbers == list(range(1, 22)), "tests cite the rules by number (tests/engine/test_semantics.py)"


def test_the_readme_says_when_a_kernel_whose_tab_went_is_shut_down() -> None:
    """A closed tab's kernel goes CLOSED_TAB_S after; a crashed browser's waits for the idle cull
    (issue 39's third learner found "within seconds" untrue for it): the README's numbers are the server's."""
    from bookkit.live import server

    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert f"shut down {server.CLOSED_TAB_S} s after the tab closes (`CLOSED_TAB_S`)" in readme
    assert f"connected for {server.IDLE_KERNEL_S} s (`IDLE_KERNEL_S`" in readme
    assert "--MappingKernelManager.cull_interval=60" in (ROOT / "bookkit/live/server.py").read_text()
    assert "within seconds" not in readme
