"""Get a chapter as a notebook the reader owns (`get`, once `fork`): the prose and cells, the solutions
stubbed.

The verb is `get`, not `fork`, because `fork` is the Burn method this book is about; `fork`
stays the function's name here and an alias on the command line.

The stubs are derived from the chapter every time (one source of truth): each
`solution` cell becomes a cell that raises NotImplementedError, the revealed
solution text is replaced by a note, and each `check` cell becomes one that grades
the saved answer with the book's checks in a fresh process (`grade.check_saved`):
the checks themselves never travel in the copy, so no edit of it reaches them.
Stubs and check cells keep their exercise's label in their metadata (`"exercise"`),
and every cell gets an id `cell-<n>`: how the grader tells the reader's answer, and
cells the reader added under it, from the book's cells. A fork never overwrites a
copy the reader has changed; `force` keeps a timestamped backup.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import nbformat

from bookkit.site.layout import base_url, repository_url
from bookkit.words import SOURCE_LANGUAGE, say, words
from bookkit.workbook.chapters import Chapter, read_notebook
from bookkit.workbook.convention import (
    CHECK,
    FORK_KEY,
    LABEL_KEY,
    SOLUTION,
    Directive,
    Exercise,
    directives,
    tags,
)
from bookkit.workbook.errors import ForkExistsError, NoExercisesError
from bookkit.workbook.markdown import Site, glued_values, page_url, plain
from bookkit.workbook.names import bound_names, free_names
from bookkit.workbook.numbering import numbered
from bookkit.workbook.translation import catalog, translate

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
GRADER = "mlx-autodiff-exercises"
"""The exercise tool's command (pyproject.toml's [project.scripts]): on the PATH of the environment
that has the engine, the book's .venv after `make setup` or one `pip install` made."""


def stub_message(exercise: Exercise, language: str | None = "en") -> str:
    """What a stub raises; `check` reads NotImplementedError as 'not done yet'."""
    return say(_words(language)["stub"], exercise=exercise.name(language), label=exercise.label)


def default_output(chapter: Chapter) -> Path:
    """Where a reader's copy lives: `exercises/<chapter>.ipynb` in the folder the command runs in (the
    repository git-ignores every `exercises/` folder)."""
    return Path.cwd() / "exercises" / f"{chapter.name}.ipynb"


def _words(language: str | None) -> dict[str, str]:
    return words(language, "exercises")


def forked_notebook(
    chapter: Chapter, path: Path | None = None, language: str = "en", site: Site | None = None
) -> nbformat.NotebookNode:
    """The reader's copy of `chapter` in `language`, as `get` writes it to `path` (default:
    exercises/<chapter>.ipynb); its links lead to `site` (default: that edition of the published
    book, or of the one `make book` serves)."""
    path = path or default_output(chapter)
    site = site or Site(language, base_url(chapter.root))
    nb = chapter.read()
    messages = catalog(chapter, language)
    found = [replace(ex, title=messages.get(" ".join(ex.title.split()), ex.title))  # a title is a message
             for ex in numbered(chapter)]
    if not found:
        raise NoExercisesError(
            f"chapter {chapter.name} has no exercises to get; `{GRADER} list` "
            "shows the chapters that have some."
        )
    glued = glued_values(chapter)
    by_label = {ex.label: ex for ex in found}
    owner = {index: ex for ex in found for index in ex.solution_cells + ex.check_cells}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = translate(cell.source, messages)
    cells = [nbformat.v4.new_markdown_cell(_header(chapter, nb, path, found, language, site))]
    inside: str | None = None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            text, inside = _hide_solutions(cell.source, inside, chapter, by_label, language, site)
            if text.strip():
                cells.append(nbformat.v4.new_markdown_cell(plain(text, chapter, glued, site).strip()))
        elif index in owner and SOLUTION in tags(cell):
            cells.append(stub_cell(owner[index], cell, nb, language))
        elif index in owner and CHECK in tags(cell):
            if index == owner[index].check_cells[0]:
                cells.append(_check_cell(owner[index], path, language))
        elif inside is None and cell.cell_type == "code":
            kept = nbformat.v4.new_code_cell(cell.source, metadata=dict(cell.metadata))
            if index in owner:
                kept.metadata[LABEL_KEY] = owner[index].label
            cells.append(kept)
        # any other cell inside a solution region is part of the revealed answer: dropped
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"
    metadata = {
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python"},
        FORK_KEY: {
            "chapter": chapter.name,
            "source": chapter.source,
            "language": language,
            "exercises": [
                {"label": ex.label, "title": ex.title, "number": ex.number, "graded": ex.graded}
                for ex in found
            ],
        },
    }
    return nbformat.v4.new_notebook(cells=cells, metadata=metadata)


def check_command(path: Path, cwd: Path | None = None) -> str:
    """The command that grades the notebook at `path`, run in `cwd` (its own folder by default)."""
    resolved = path.resolve()
    try:
        shown = resolved.relative_to((cwd or resolved.parent).resolve()).as_posix()
    except ValueError:
        shown = resolved.as_posix()  # outside `cwd`: the full path works from anywhere
    return f"{GRADER} check {shlex.quote(shown)}"


def get_command(chapter: Chapter, language: str = SOURCE_LANGUAGE) -> str:
    """The command that writes the reader's copy of `chapter` in `language` (run in the book's folder):
    a Chinese copy names its edition, or `get` would write the English one (learner 8)."""
    edition = "" if language == SOURCE_LANGUAGE else f" --language {language}"
    return f"{GRADER} get {chapter.name}{edition}"


def _title(nb: nbformat.NotebookNode, default: str) -> str:
    """The chapter's title: its first `# ` heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return default


def _header(
    chapter: Chapter,
    nb: nbformat.NotebookNode,
    path: Path,
    found: list[Exercise],
    language: str,
    site: Site,
) -> str:
    """What the copy is, how to get the engine with only this file, and the one command that grades it."""
    said = _words(language)
    names = [say(said["named"], exercise=ex.name(language), label=ex.label) for ex in found]
    listed = said["separator"].join(names)
    repository = repository_url(chapter.root)
    named = f"[{said['repository']}]({repository})" if repository else said["repository"]
    parts = [
        say(said["copy"], title=_title(nb, chapter.name), url=page_url(chapter, "", site),
            source=chapter.source, exercises=listed),
        say(said["work"], site=site.base),
        say(said["engine"], repository=named, repository_url=repository or said["unknown_url"]),
        said["grade"],
        f"```sh\n{check_command(path)}\n```",
        say(said["again"], get=get_command(chapter, language)),
    ]
    return "\n\n".join(parts)


def _hide_solutions(
    text: str, inside: str | None, chapter: Chapter, found: dict[str, Exercise], language: str, site: Site
) -> tuple[str, str | None]:
    """`text` with exercises made readable and solutions replaced by a note.

    `inside` is the label of a solution region still open from an earlier cell;
    the second value returned is the one still open after this cell.
    """
    out: list[str] = []
    position = 0
    for directive in directives(text):
        if inside is not None:
            if directive.name == "solution-end":
                inside, position = None, directive.end
            continue
        out.append(text[position : directive.start])
        position = directive.end
        if directive.name in ("exercise", "exercise-start"):
            out.append(_exercise_text(directive, found, language))
        elif directive.name in ("solution", "solution-start"):
            out.append(_note(found[directive.arg], chapter, language, site))
            if directive.name == "solution-start":
                inside = directive.arg
    if inside is None:
        out.append(text[position:])
    return "".join(out), inside


def _exercise_text(directive: Directive, found: dict[str, Exercise], language: str) -> str:
    """An {exercise} directive as plain markdown, so that it reads well in JupyterLab:
    **Exercise 4.1** (`ex-04-smoke-test`): its title."""
    said = _words(language)
    label = directive.options.get("label")
    exercise = found.get(label) if label else None
    title = say(said["title"], title=directive.arg) if directive.arg else ""
    if exercise is None:  # an exercise without a label owns no cells: its title is enough
        return f"**{directive.arg}**\n\n{directive.body}\n"
    heading = say(said["heading"], exercise=exercise.name(language), label=label, title=title)
    return f"{heading}\n\n{directive.body}\n"


def _note(exercise: Exercise, chapter: Chapter, language: str, site: Site) -> str:
    said = _words(language)
    named = say(said["named"], exercise=exercise.name(language), label=exercise.label)
    return say(said["solution"], exercise=named, url=page_url(chapter, exercise.label, site)) + "\n"


def _check_cell(exercise: Exercise, path: Path, language: str) -> nbformat.NotebookNode:
    """A cell that grades the saved answer to `exercise` with the book's checks (never the checks
    themselves: those stay in the book, where no edit of the copy reaches them)."""
    said = _words(language)
    comment = say(said["check_cell"], exercise=exercise.name(language), label=exercise.label, grader=GRADER)
    source = (
        "\n".join(f"# {line}" for line in comment.splitlines()) + "\n"
        "from bookkit.exercises import check_saved\n\n"
        f"check_saved({json.dumps(exercise.label)}, {json.dumps(path.name, ensure_ascii=False)})"
    )
    return nbformat.v4.new_code_cell(source, metadata={"tags": [CHECK], LABEL_KEY: exercise.label})


def stub_cell(
    exercise: Exercise, cell: nbformat.NotebookNode, nb: nbformat.NotebookNode, language: str
) -> nbformat.NotebookNode:
    """A cell that says what to define and raises NotImplementedError until the reader replaces it."""
    said = _words(language)
    names = names_to_define(nb, exercise)
    listed = said["between"].join(f"`{name}`" for name in names)
    what = say(said["define"], names=listed) if names else said["define_any"]
    title = say(said["title"], title=exercise.title) if exercise.title else ""
    heading = say(said["stub_heading"], exercise=exercise.name(language), label=exercise.label, title=title)
    source = (
        f"{heading}\n"
        f"# {say(said['replace'], what=what)}\n"
        f"raise NotImplementedError({json.dumps(stub_message(exercise, language), ensure_ascii=False)})"
    )
    metadata = {"tags": tags(cell), LABEL_KEY: exercise.label}
    return nbformat.v4.new_code_cell(source, metadata=metadata)


def names_to_define(nb: nbformat.NotebookNode, exercise: Exercise) -> list[str]:
    """Top-level names the exercise's solution binds that its checks read (all it binds if none is
    read): what a stub asks for, and what a page's "Run check" removes before the answer runs."""
    solutions = [nb.cells[i].source for i in exercise.solution_cells]
    bound = list(dict.fromkeys(name for source in solutions for name in bound_names(source)))
    read = {name for i in exercise.check_cells for name in free_names(nb.cells[i].source)}
    return [name for name in bound if name in read] or bound


@dataclass(frozen=True)
class ForkResult:
    """What `fork` did: where the copy is, the backup it kept (if any), and whether it was already there."""

    path: Path
    backup: Path | None
    unchanged: bool


def fork(
    chapter: Chapter, output: Path | None = None, *, force: bool = False, language: str = "en"
) -> ForkResult:
    """Write the reader's copy of `chapter`; never lose what a reader wrote in an existing one."""
    path = output or default_output(chapter)
    new = forked_notebook(chapter, path, language)
    backup = None
    if path.exists():
        if _same_content(path, new):
            _write(path, new)
            return ForkResult(path, None, unchanged=True)
        if not force:
            fresh = path.with_name(f"{path.stem}-fresh.ipynb")
            why = "exists_book_changed" if _answers_untouched(path, new) else "exists_edited"
            raise ForkExistsError(say(_words(language)[why], path=path, fresh=fresh,
                                      backup=f"{path.stem}.<date-time>.ipynb"))
        backup = _backup(path)
    _write(path, new)
    return ForkResult(path, backup, unchanged=False)


def _same_content(path: Path, new: nbformat.NotebookNode) -> bool:
    """Whether the copy at `path` has the very cells (and no outputs) a fresh fork has."""
    try:
        old = read_notebook(path)
    except Exception:  # not a readable notebook: certainly not what fork wrote
        return False

    def content(nb: nbformat.NotebookNode) -> list[tuple[str, str, list[object]]]:
        return [(cell.cell_type, cell.source, cell.get("outputs", [])) for cell in nb.cells]

    return content(old) == content(new)


def _answers_untouched(path: Path, new: nbformat.NotebookNode) -> bool:
    """Whether the copy at `path` has a fresh fork's cells, each kind in its place, its answer cells as
    `get` wrote them and no outputs: what differs is then the chapter (rebuilt, or updated), not the
    reader's work."""
    try:
        old = read_notebook(path)
    except Exception:  # not a readable notebook: not what get wrote
        return False

    def answers(nb: nbformat.NotebookNode) -> list[tuple[str, str | None, str | None]]:
        return [(cell.cell_type, cell.get("metadata", {}).get(LABEL_KEY),
                 cell.source if cell.get("metadata", {}).get(LABEL_KEY) else None) for cell in nb.cells]

    return answers(old) == answers(new) and not any(cell.get("outputs") for cell in old.cells)


def _backup(path: Path) -> Path:
    """Copy `path` to `<stem>.<YYYYmmdd-HHMMSS>.ipynb` beside it (never over another backup)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
    number = 2
    while backup.exists():
        backup = path.with_name(f"{path.stem}.{stamp}-{number}{path.suffix}")
        number += 1
    shutil.copy2(path, backup)
    return backup


def _write(path: Path, nb: nbformat.NotebookNode) -> None:
    """Write atomically, so an interrupted fork leaves either the old file or the new one."""
    nbformat.validate(nb)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(nbformat.writes(nb))
    os.replace(temporary, path)
