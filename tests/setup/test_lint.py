"""The code keeps the project's lint rules (pyproject.toml [tool.ruff]): `make lint` in the test suite."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "mlx_autodiff", "bookkit", "tests",
                             "tools"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_colours_are_named_only_in_the_palette():
    """Every picture takes its colours from bookkit/pictures/palette.py, so one line recolours a meaning."""
    hex_colour = re.compile(r"(?<![&\w])#[0-9a-fA-F]{6}\b")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in ("mlx_autodiff", "bookkit") for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "palette.py"
        for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), 1)
        if hex_colour.search(line)
    ]
    assert not found, "colours outside palette.py:\n" + "\n".join(found)


def test_readmes_map_names_every_module_and_tool():
    """README's "Map of the code" (appendix 1 renders it) is the one map: a new file needs its row."""
    readme = (ROOT / "README.md").read_text(encoding="utf8")
    section = readme.split("\n## Map of the code\n", 1)[1].split("\n## ", 1)[0]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    named = [ROOT / path for cell in first_cells for path in re.findall(r"`([^`]+)`", cell)]
    absent = [path.relative_to(ROOT).as_posix() for path in named if not path.exists()]
    assert not absent, f"README.md's map names files that do not exist: {', '.join(absent)}"
    missing = [path.relative_to(ROOT).as_posix()
               for folder in ("mlx_autodiff", "bookkit", "tools")
               for path in sorted((ROOT / folder).rglob("*"))
               if path.suffix in {".py", ".sh"} and path.name != "__init__.py"
               and not any(path == entry or entry in path.parents for entry in named)]
    assert not missing, f"README.md's map of the code has no row for: {', '.join(missing)}"


COLOUR_WORDS = {
    "en": re.compile(r"\b(?:red|orange|yellow|green|blue|purple|violet|pink|brown|gr[ae]y|black|white|"
                     r"cyan|magenta|teal)(?:dish)?\b", re.IGNORECASE),
    "zh_CN": re.compile(r"[红橙黄绿蓝紫粉棕灰黑白青]色"),
}
"""A colour named in words, in each edition's prose."""


def prose(markdown: str) -> str:
    """A chapter's prose: its code cells, front matter, inline code and roles' targets left out."""
    text = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.DOTALL)
    text = re.sub(r"^(`{3,}).*?^\1", "", text, flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"`[^`\n]*`", "", text)


def translations(catalog: str) -> str:
    """Every msgstr of a catalog's text, each one's lines joined."""
    blocks = re.findall(r'^msgstr (".*?)(?=^\s*$|\Z)', catalog, flags=re.DOTALL | re.MULTILINE)
    return "\n".join("".join(re.findall(r'^"(.*)"$', block, flags=re.MULTILINE)) for block in blocks)


def test_prose_names_no_colour_that_the_palette_could_change():
    """The pictures' colours are bookkit/pictures/palette.py's alone, so a recolour is one line there.

    Prose that said "the orange nodes" went stale with the next recolour, in two editions, and
    nothing noticed. A sentence names what a box means instead (the legend's words: a `to_device`
    node, a `Grad` leaf); a colour it must name comes from the palette, as a glued value, which
    this check does not see.
    """
    found = [f"{path.relative_to(ROOT)}: {match[0]!r}"
             for path in sorted((ROOT / "book").glob("*.md"))
             for match in COLOUR_WORDS["en"].finditer(prose(path.read_text(encoding="utf8")))]
    found += [f"{path.relative_to(ROOT)}: {match[0]!r}"
              for path in sorted((ROOT / "locale" / "zh_CN" / "LC_MESSAGES").rglob("*.po"))
              for match in COLOUR_WORDS["zh_CN"].finditer(translations(path.read_text(encoding="utf8")))]
    assert not found, "colours named in prose (name the meaning, as the legend does):\n" + "\n".join(found)


def test_the_colour_check_sees_a_colour_in_prose_and_not_in_code():
    chapter = ('---\nkernelspec: {}\n---\n# Title\nThe orange nodes.\n\n'
               '```{code-cell} ipython3\ncolour = "green"\n```\n')
    assert [m[0] for m in COLOUR_WORDS["en"].finditer(prose(chapter))] == ["orange"]
    assert not COLOUR_WORDS["en"].search(prose("A `red` literal, and a greenhouse."))
    catalog = 'msgid "The orange nodes"\nmsgstr ""\n"橙色的"\n"节点"\n\nmsgid "a grey box"\nmsgstr "灰色框"\n'
    assert COLOUR_WORDS["zh_CN"].findall(translations(catalog)) == ["橙色", "灰色"]
    assert "orange" not in translations(catalog) and "grey" not in translations(catalog)
