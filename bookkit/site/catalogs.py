"""The translations' catalogs: extract the English text, update the catalogs, say what is left to do.

    python -m bookkit.site.catalogs update     # `make catalogs`: after an English edit
    python -m bookkit.site.catalogs status     # what is untranslated or fuzzy, file by file

The English text of every page is extracted with Sphinx's gettext builder
(bookkit/site/sphinx_build.py, from the same configuration and execution cache as the
book: no chapter runs again) into `_build/gettext/*.pot`, and `sphinx-intl
update` brings each language's catalogs in `locale/<language>/LC_MESSAGES/`
up to date with it: a new paragraph is a new, empty entry; a changed one keeps
its old translation marked fuzzy (until a translator checks it and removes the
flag); one that is gone is dropped (git keeps its translation). The tests use
`unfinished` (every entry translated, none fuzzy) and `out_of_sync` (the
catalogs hold exactly the English text of a fresh extraction).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bookkit.site import sphinx_build
from bookkit.words.language import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
TEMPLATES = ROOT / "_build" / "gettext"
SOURCE_LANGUAGE = "en"
TRANSLATIONS = [code for code in LANGUAGES if code != SOURCE_LANGUAGE]


@dataclass(frozen=True)
class Entry:
    """One catalog entry that needs a translator, or that is out of step with the English text."""

    catalog: Path
    line: int | None
    problem: str  # "untranslated", "fuzzy", "missing", "obsolete"
    msgid: str

    def __str__(self) -> str:
        where = self.catalog.relative_to(ROOT) if self.catalog.is_relative_to(ROOT) else self.catalog
        text = " ".join(self.msgid.split())
        shown = text if len(text) <= 100 else text[:100] + "..."
        return f"{where.as_posix()}:{self.line or ''}: {self.problem}: {shown}"


def read_catalog(path: Path) -> Catalog:
    with open(path, "rb") as file:
        return read_po(file, charset="utf-8")


def catalogs(language: str, locale: Path = LOCALE) -> list[Path]:
    return sorted((locale / language / "LC_MESSAGES").rglob("*.po"))


def unfinished(language: str, locale: Path = LOCALE) -> list[Entry]:
    """Every entry of the language's catalogs that is untranslated or fuzzy (the header aside)."""
    found = []
    for path in catalogs(language, locale):
        for message in read_catalog(path):
            if not message.id:
                continue  # the header, which sphinx-intl always marks fuzzy
            line = message.lineno
            if message.fuzzy:
                found.append(Entry(path, line, "fuzzy", message.id))
            elif not message.string:
                found.append(Entry(path, line, "untranslated", message.id))
    return found


def out_of_sync(templates: Path, language: str, locale: Path = LOCALE) -> list[Entry]:
    """What keeps the catalogs from holding exactly the English text extracted into `templates`:
    a message of the text that no catalog entry has, an entry the text no longer has (obsolete,
    marked so or not), a page without its catalog, a catalog without its page."""
    found = []
    folder = locale / language / "LC_MESSAGES"
    pots = {path.relative_to(templates).with_suffix(".po"): path for path in templates.rglob("*.pot")}
    pos = {path.relative_to(folder): path for path in catalogs(language, locale)}
    for name in sorted(pots.keys() - pos.keys()):
        found.append(Entry(folder / name, None, "missing", f"(no catalog for {pots[name].name})"))
    for name in sorted(pos.keys() - pots.keys()):
        found.append(Entry(pos[name], None, "obsolete", "(a catalog for a page the book no longer has)"))
    for name in sorted(pots.keys() & pos.keys()):
        text = {message.id for message in read_catalog(pots[name]) if message.id}
        catalog = read_catalog(pos[name])
        have = {message.id for message in catalog if message.id}
        found += [Entry(pos[name], None, "missing", msgid) for msgid in sorted(text - have)]
        found += [Entry(pos[name], catalog[msgid].lineno, "obsolete", msgid) for msgid in sorted(have - text)]
        found += [Entry(pos[name], entry.lineno, "obsolete", entry.id) for entry in catalog.obsolete.values()]
    return found


def extract(out: Path = TEMPLATES, root: Path = ROOT) -> int:
    """The English text of every page, as gettext templates in `out`; Sphinx's exit status."""
    return sphinx_build.build(SOURCE_LANGUAGE, builder="gettext", out=out, root=root)


def update(out: Path = TEMPLATES, locale: Path = LOCALE) -> int:
    """`make catalogs`: extract, then update every translation's catalogs; print what is left to do."""
    from sphinx_intl.basic import update as intl_update

    status = extract(out)
    if status != 0:
        print(f"make catalogs: extracting the English text failed (status {status}); "
              "the catalogs are unchanged", file=sys.stderr)
        return status
    # obsolete entries are dropped: a changed paragraph keeps its old translation as a fuzzy one
    intl_update(str(locale), str(out), tuple(TRANSLATIONS), ignore_obsolete=True, jobs=1)
    print(summary())
    return 0


def summary(locale: Path = LOCALE) -> str:
    """Per language and catalog, how many entries are untranslated or fuzzy."""
    lines = []
    for language in TRANSLATIONS:
        left = unfinished(language, locale)
        counts = Counter((entry.catalog, entry.problem) for entry in left)
        lines.append(f"{language}: {len(left)} entries to translate or check" + (":" if left else ""))
        for path in catalogs(language, locale):
            untranslated, fuzzy = counts[(path, "untranslated")], counts[(path, "fuzzy")]
            if untranslated or fuzzy:
                name = path.relative_to(locale).as_posix()
                lines.append(f"  {name}: {untranslated} untranslated, {fuzzy} fuzzy")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit.site.catalogs",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "status"])
    args = parser.parse_args(argv)
    if args.command == "update":
        return update()
    print(summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
