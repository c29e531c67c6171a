"""No page shows anything of the machine that built it: no warning, no stderr stream, no path.

The tests' book build runs as on a machine whose matplotlib sees no CJK font
(`book_outputs.matplotlib_without_cjk`): there matplotlib once wrote a glyph warning, with the path
of curves.py on the build machine, onto chapters 7, 8 and 11 of both editions, and drew the
Chinese curves' Han characters as boxes. Every page of both editions is read, and every notebook
a page offers for download (it carries the cells' outputs).
"""

from __future__ import annotations

import json
import platform
import re
import sys
from pathlib import Path

import pytest
from book_outputs import ROOT, SITE, WITHOUT_CJK, book_build, edition_pages  # noqa: F401 (a fixture)

RECORDED = sorted({json.loads((ROOT / "book" / "_data" / name).read_text("utf8"))[side]["platform"]
                   for name, side in (("bench.json", "machine"), ("setup.json", "this_machine"))})
"""The kernel strings (`platform.platform()`) of the machines that measured book/_data/: a page says
"Linux x86_64" (`bench_rows.shown_platform`), what a reader needs, not their kernels' builds."""
MACHINE = sorted({str(ROOT), str(Path.home()), sys.prefix, sys.base_prefix, str(WITHOUT_CJK),
                  platform.platform(), *RECORDED}, key=len, reverse=True)
"""What of this machine a page could carry: the checkout, the home folder, the Pythons, its platform
string (appendix 2 once printed `platform.system(), platform.machine()` of the build machine)."""
PATH_LIKE = re.compile(r"site-packages|dist-packages|/ipykernel_\d+/|\.py:\d+: ")
"""What a traceback or a warning's location looks like, on any machine."""
WARNING = re.compile(r"\b[A-Z]\w*Warning: |Glyph \d+ .{0,60}missing from font")
STDERR = re.compile(r'<div class="cell (?P<tags>[^"]*)">(?:(?!<div class="cell ).)*?'
                    r'<div class="output stderr\b', re.S)
"""A code cell (its tags are classes: tag_show-stderr) whose output shows a stderr stream."""
HAN = re.compile(r"[\u4e00-\u9fff]")


def problems(text: str) -> list[str]:
    """Each warning, machine path or path-like text in `text`, with a little of what surrounds it."""
    found = [match for pattern in (WARNING, PATH_LIKE) for match in pattern.finditer(text)]
    found += [match for path in MACHINE for match in re.finditer(re.escape(path), text)]
    return [text[max(0, match.start() - 60):match.end() + 60].replace("\n", " ") for match in found]


def shown_text(notebook: Path) -> str:
    """A downloadable notebook's outputs as text (streams, errors and every mime type)."""
    cells = json.loads(notebook.read_text(encoding="utf8"))["cells"]
    return json.dumps([cell.get("outputs", []) for cell in cells], ensure_ascii=False)


def test_the_reader_finds_what_the_issue_saw() -> None:
    """The warning the pages showed (issue 40), with its path, and a stderr stream of an untagged cell."""
    seen = (f"{ROOT}/bookkit/pictures/curves.py:312: UserWarning: Glyph 35757 "
            "(\\N{CJK UNIFIED IDEOGRAPH-8BAD}) missing from font(s) DejaVu Sans.")
    assert len(problems(seen)) >= 3  # the warning, the glyph, the checkout's path (and the .py:line)
    assert problems("训练步 (2 grads) · /usr/share/doc · Warning") == []
    assert RECORDED and problems(f"平台：{RECORDED[0]}") and problems(platform.platform())


def test_a_measuring_machine_is_shown_by_its_system_and_architecture() -> None:
    from bookkit.bench.rows import shown_platform

    assert shown_platform("Linux-6.18.44-fc-v1272-x86_64-with-glibc2.36") == "Linux x86_64"
    assert shown_platform("macOS-14.5-arm64-arm-64bit") == "macOS arm64"
    assert all(shown_platform(recorded) not in MACHINE for recorded in RECORDED)
    cell = '<div class="cell tag_x docutils container"><div class="output stderr highlight">x</div>'
    assert [match["tags"] for match in STDERR.finditer(cell)] == ["tag_x docutils container"]


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
@pytest.mark.parametrize("page", edition_pages())
def test_a_page_shows_no_warning_stderr_or_path_of_the_build_machine(page: str) -> None:
    html = (SITE / f"{page}.html").read_text(encoding="utf8")
    assert not problems(html), f"{page}.html shows what the build machine said: {problems(html)}"
    untagged = [match[0][-300:] for match in STDERR.finditer(html) if "tag_show-stderr" not in match["tags"]]
    assert not untagged, f"{page}.html shows a cell's stderr: {untagged}"
    language, _, docname = page.partition("/")
    download = SITE / language / "_sources" / f"{docname}.ipynb"
    if download.exists():
        outputs = shown_text(download)
        assert not problems(outputs), f"{download.relative_to(SITE)} carries: {problems(outputs)}"


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_the_build_saw_no_cjk_font_and_the_chinese_curves_show_chinese() -> None:
    """The build's matplotlib had only its own fonts; the zh curves still say their words in Chinese,
    as SVG text (the reader's browser draws it), never as boxes."""
    (fonts,) = WITHOUT_CJK.glob("fontlist-v*.json")
    names = [font["name"] for font in json.loads(fonts.read_text(encoding="utf8"))["ttflist"]]
    assert names and not [name for name in names if "CJK" in name or "Han" in name], names
    for chapter in ("07-training-works", "08-seven-ways", "11-when-to_device"):
        html = (SITE / "zh_CN" / "book" / f"{chapter}.html").read_text(encoding="utf8")
        curves = [svg for svg in re.findall(r"<svg\b.*?</svg>", html, re.S) if "DejaVu Sans" in svg]
        words = [" ".join(re.findall(r"<text\b[^>]*>([^<]*)</text>", svg)) for svg in curves]
        assert words and all(HAN.search(text) for text in words), f"{chapter}: {words}"
