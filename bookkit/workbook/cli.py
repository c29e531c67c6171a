"""The command line of the exercise tool: list | get CHAPTER | check FILE_OR_CHAPTER.

`mlx-autodiff-exercises` (pyproject.toml's script, on the PATH of the environment that has the
engine), or `python -m bookkit.exercises` with that environment's Python. `get` was `fork`,
which is also the Burn method this book is about: `fork` stays an alias. All three read the book's
chapters (a clone's, or the copy an installed package carries): `check FILE` grades the answers in
FILE with the book's checks, never the copy's, from any folder.

Exit status: 0 when all went well (every exercise passes, for `check`), 1 when
an exercise fails, 2 on misuse (a one-line message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bookkit.words import languages, say, words
from bookkit.workbook import (
    DEFAULT_TIMEOUT,
    GRADER,
    ROOT,
    ExerciseError,
    NoCopyError,
    NotANotebookError,
    SolutionsOfACopyError,
    book_exercises,
    check,
    check_command,
    default_output,
    fork,
    read_notebook,
    resolve,
)
from bookkit.workbook.chapters import chapters
from bookkit.workbook.grade import language_of
from bookkit.workbook.translation import catalog


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.command(args)
    except ExerciseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=GRADER,
        description="Get a chapter's exercises as a notebook of your own, and grade it offline.",
    )
    book = argparse.ArgumentParser(add_help=False)
    book.add_argument("--book", type=Path, default=ROOT, help="the book's root folder, where _toc.yml is")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    listing = commands.add_parser("list", parents=[book], help="every exercise in the book")
    listing.add_argument(
        "--language", default="en", choices=languages(), help="the edition: en (default) or zh_CN"
    )
    listing.set_defaults(command=_list)

    getting = commands.add_parser(
        "get", aliases=["fork"], parents=[book], help="write exercises/<chapter>.ipynb to work in"
    )
    getting.add_argument("chapter", help="04, 04-step-0 or book/04-step-0.md")
    getting.add_argument("--output", type=Path, help="write here instead of exercises/<chapter>.ipynb")
    getting.add_argument("--force", action="store_true", help="replace an edited copy, keeping a backup")
    getting.add_argument(
        "--language", default=None, choices=languages(),
        help="the edition: en or zh_CN (default: the edition of the copy already there, else en)"
    )
    getting.set_defaults(command=_get)

    checking = commands.add_parser(
        "check", parents=[book], help="grade a copy with the book's checks, each exercise in a fresh process")
    checking.add_argument("target", help="a notebook file, or a chapter (its copy in exercises/)")
    checking.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        help=f"seconds for each answer and its checks ({DEFAULT_TIMEOUT:g})",
    )
    checking.add_argument("--exercise", metavar="LABEL", help="grade this exercise only (ex-04-smoke-test)")
    checking.add_argument(
        "--solutions", action="store_true", help="grade the chapter's own solutions instead (for authors)"
    )
    checking.set_defaults(command=_check)
    return parser


def _seconds(text: str) -> float:
    """A time limit: a positive number of seconds (0 or -5 would stop every answer at once, learner 8)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a time limit: give a positive number of seconds, "
                                         "e.g. 120")
    return seconds


def _list(args: argparse.Namespace) -> int:
    found = book_exercises(args.book)
    if not found:
        print("The book has no exercises yet.")
        return 0
    by_name = {chapter.name: chapter for chapter in chapters(args.book)}
    names = [ex.name(args.language) for ex in found]
    titles = [catalog(by_name[ex.chapter], args.language).get(" ".join(ex.title.split()), ex.title)
              for ex in found]  # each as its edition's page writes it
    name_width = max(len(name) for name in names)
    label_width = max(len(ex.label) for ex in found)
    for ex, name, title in zip(found, names, titles, strict=True):
        print(f"{name:<{name_width}}  {ex.label:<{label_width}}  {title}".rstrip())
    return 0


def _edition_of(path: Path) -> str:
    """The edition of the copy at `path`, so that `get` next to a Chinese copy compares it with a
    Chinese one (not an English one it would call "your edits?"); English where there is none."""
    try:
        found = language_of(read_notebook(path)) if path.exists() else "en"
    except ExerciseError:
        return "en"
    return found if found in languages() else "en"


def _get(args: argparse.Namespace) -> int:
    chapter = resolve(args.chapter, args.book)
    language = args.language or _edition_of(args.output or default_output(chapter))
    result = fork(chapter, args.output, force=args.force, language=language)
    said = words(language, "exercises")
    if result.backup is not None:
        print(say(said["kept_backup"], path=result.backup))
    print(say(said["up_to_date" if result.unchanged else "written"], path=result.path))
    print(say(said["to_grade"], command=check_command(result.path, Path.cwd())))
    return 0


def _check(args: argparse.Namespace) -> int:
    path = Path(args.target)
    if path.suffix == ".ipynb" or (path.is_file() and path.suffix != ".md"):
        if args.solutions:
            raise SolutionsOfACopyError(
                f"--solutions grades a chapter's own solutions, and {path} is a copy: give a chapter "
                f"instead (`{GRADER} check 04 --solutions`), or leave --solutions out to grade the copy."
            )
        name, nb = str(path), _read_copy(path)
    else:
        chapter = resolve(args.target, args.book)
        if args.solutions:
            name, nb = chapter.source, chapter.read()
        else:
            copy = default_output(chapter)
            if not copy.exists():
                raise NoCopyError(
                    f"no copy of chapter {chapter.name} in {copy.parent} yet: run `{GRADER} get "
                    f"{chapter.name}` first, or give the path of your copy (or pass --solutions to grade "
                    "the chapter's own)."
                )
            name, nb = str(copy), _read_copy(copy)
    said = words(language_of(nb), "exercises")
    other = Path(args.book).resolve() != Path(ROOT).resolve()  # --book: checks the reader chose, say so
    print(say(said["running_other_book" if other else "running"], name=name, seconds=f"{args.timeout:g}",
              book=Path(args.book).resolve()), flush=True)
    try:
        report = check(nb, name, args.book, args.timeout, only=args.exercise)
    except ExerciseError as error:  # after a header in the copy's language, the error in it too
        print(f"{said['error']}: {error}", file=sys.stderr)
        return 2
    print("\n".join(report.lines()))
    return 0 if report.passed else 1


def _read_copy(path: Path):
    if not path.exists():
        raise NoCopyError(f"{path} does not exist: get a chapter first (`{GRADER} get 04`).")
    if path.suffix != ".ipynb":
        raise NotANotebookError(
            f"{path} is not a notebook: give an .ipynb file or a chapter name such as 04."
        )
    return read_notebook(path)
