"""A chapter's MyST text in another edition's language, from the book's gettext catalogs.

The Chinese edition's pages are the English sources translated message by message:
Sphinx's gettext builder makes each paragraph, heading, list item, table cell,
definition term and directive title one message, its source lines joined by spaces
(sphinx/util/nodes.py, `extract_messages`), and `locale/<language>/LC_MESSAGES/<docname>.po`
holds each one's translation. A reader's copy in that language is translated the same way,
block by block, before it is made plain Markdown: a block with no translation (code, math, a
message not translated yet) stays as it is. The check cells' messages come from
the part "checks" of `bookkit/words/<language>.json` instead (`checks.py`), because gettext sees no code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from bookkit.workbook.chapters import Chapter
from bookkit.workbook.convention import _DIRECTIVE, _OPENING, _is_closing

Messages = Mapping[str, str]
"""Each English message (its whitespace collapsed) and its translation."""

_HEADING = re.compile(r"^(?P<marks>#{1,6}\s+)(?P<text>.+?)\s*$")
_ITEM = re.compile(r"^(?P<marker>\s*(?:[-*+]|\d+[.)])\s+)(?P<text>.*)$")
_TARGET = re.compile(r"^\(\S+\)=\s*$")
_DEFINITION = re.compile(r"^(?P<marker>:\s+)(?P<text>.*)$")
_SPACE = re.compile(r"\s+")


def catalog(chapter: Chapter, language: str) -> dict[str, str]:
    """The translated, checked messages of `chapter`'s page in `language` (none for English)."""
    if language == "en":
        return {}
    docname = chapter.path.relative_to(chapter.root).with_suffix("").as_posix()
    path = chapter.root / "locale" / language / "LC_MESSAGES" / f"{docname}.po"
    if not path.is_file():
        return {}
    from babel.messages.pofile import read_po  # Sphinx's own catalog reader; only a translation needs it

    with open(path, "rb") as file:
        read = read_po(file)
    return {_key(message.id): message.string for message in read
            if message.id and isinstance(message.id, str) and message.string and not message.fuzzy}


def _key(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def translate(text: str, messages: Messages) -> str:
    """MyST `text` with every block that has a translation in `messages` replaced by it."""
    if not messages:
        return text
    lines = text.splitlines()
    out: list[str] = []
    i = 0

    def say(english: str) -> str | None:
        return messages.get(_key(english))

    while i < len(lines):
        line = lines[i]
        opening = _OPENING.match(line.rstrip("\n"))
        if opening:
            fence = opening["fence"]
            ends = (j for j in range(i + 1, len(lines)) if _is_closing(lines[j], fence))
            close = next(ends, len(lines) - 1)
            directive = _DIRECTIVE.match(opening["info"].strip())
            if directive is None:
                out += lines[i : close + 1]  # code: never translated
            else:
                out.append(_directive_line(fence, directive, say))
                inner = lines[i + 1 : close]
                options = 0
                while options < len(inner) and re.match(r"^:[\w-]+:", inner[options].strip()):
                    options += 1
                out += inner[:options]
                out += translate("\n".join(inner[options:]), messages).splitlines()
                out.append(lines[close])
            i = close + 1
            continue
        if not line.strip() or _TARGET.match(line) or line.lstrip().startswith(("$$", "<", "+++")):
            out.append(line)
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            out.append(heading["marks"] + (say(heading["text"]) or heading["text"]))
            i += 1
            continue
        if line.lstrip().startswith("|"):
            out.append(_table_row(line, say))
            i += 1
            continue
        if line.lstrip().startswith(">"):
            quoted = []
            while i < len(lines) and lines[i].lstrip().startswith(">"):
                quoted.append(re.sub(r"^\s*>\s?", "", lines[i]))
                i += 1
            out += [f"> {part}".rstrip() for part in translate("\n".join(quoted), messages).splitlines()]
            continue
        item = _ITEM.match(line) or _DEFINITION.match(line)
        marker, first = (item["marker"], item["text"]) if item else ("", line)
        block = [first]
        i += 1
        while i < len(lines) and _continues(lines[i]):
            block.append(lines[i])
            i += 1
        if not marker and i < len(lines) and _DEFINITION.match(lines[i]) and len(block) == 1:
            out.append(say(first) or first)  # a definition's term
            continue
        translated = say(" ".join(part.strip() for part in block))
        out += [marker + translated] if translated is not None else ([marker + block[0]] + block[1:])
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _continues(line: str) -> bool:
    """Whether `line` goes on the paragraph (or list item) above it: it starts no block of its own."""
    if not line.strip() or _OPENING.match(line) or _HEADING.match(line) or _TARGET.match(line):
        return False
    return not (line.lstrip().startswith(("|", ">")) or _DEFINITION.match(line) or _ITEM.match(line))


def _directive_line(fence: str, directive: re.Match[str], say: Callable[[str], str | None]) -> str:
    """A directive's opening line with its title (`{exercise} <title>`, `{tab-item} <title>`) translated."""
    argument = directive["arg"].strip()
    if not argument or directive["name"] in ("solution", "solution-start", "literalinclude", "glue:figure"):
        return f"{fence}{{{directive['name']}}} {argument}".rstrip()
    return f"{fence}{{{directive['name']}}} {say(argument) or argument}"


def _table_row(line: str, say: Callable[[str], str | None]) -> str:
    cells = line.strip().strip("|").split("|")
    if all(re.fullmatch(r"\s*:?-+:?\s*", cell) for cell in cells):
        return line
    return "| " + " | ".join(say(cell.strip()) or cell.strip() for cell in cells) + " |"
