"""Fork a chapter into a notebook the reader owns: the prose and cells, the solutions stubbed.

The stubs are derived from the chapter every time (one source of truth): each
`solution` cell becomes a cell that raises NotImplementedError, the revealed
solution text is replaced by a note, and each `check` cell stays. A fork never
overwrites a copy the reader has changed; `force` keeps a timestamped backup.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat

from .chapters import Chapter
from .convention import FORK_KEY, LABEL_KEY, SOLUTION, Directive, Exercise, directives, exercises, tags
from .errors import ForkExistsError, NoExercisesError
from .markdown import SITE, glued_values, page_url, plain
from .names import bound_names, free_names

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
NOT_DONE = "not done yet"
GRADER = ".venv/bin/python -m mlx_autodiff.exercises"
"""How a reader runs the exercise tool, from the book's folder (a stock Mac has no bare `python`)."""


def stub_message(label: str) -> str:
    """What a stub raises; `check` reads NotImplementedError as 'not done yet'."""
    return f"{label}: {NOT_DONE} — replace this cell with your solution"


def default_output(chapter: Chapter) -> Path:
    """Where a reader's copy lives: `exercises/<chapter>.ipynb` at the book's root (git-ignored)."""
    return chapter.root / "exercises" / f"{chapter.name}.ipynb"


def forked_notebook(chapter: Chapter, path: Path | None = None) -> nbformat.NotebookNode:
    """The reader's copy of `chapter`, as `fork` writes it to `path` (default: exercises/<chapter>.ipynb)."""
    path = path or default_output(chapter)
    nb = chapter.read()
    found = exercises(nb, chapter.name)
    if not found:
        raise NoExercisesError(
            f"chapter {chapter.name} has no exercises to fork; `{GRADER} list` "
            "shows the chapters that have some."
        )
    glued = glued_values(chapter)
    owner = {index: ex for ex in found for index in ex.solution_cells + ex.check_cells}
    cells = [nbformat.v4.new_markdown_cell(_header(chapter, nb, path))]
    inside: str | None = None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            text, inside = _hide_solutions(cell.source, inside, chapter)
            if text.strip():
                cells.append(nbformat.v4.new_markdown_cell(plain(text, chapter, glued).strip()))
        elif index in owner and SOLUTION in tags(cell):
            cells.append(_stub(owner[index], cell, nb))
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
            "exercises": [{"label": ex.label, "title": ex.title, "graded": ex.graded} for ex in found],
        },
    }
    return nbformat.v4.new_notebook(cells=cells, metadata=metadata)


def check_command(path: Path, root: Path) -> str:
    """The command, run from the book's folder, that grades the notebook at `path`."""
    resolved = path.resolve()
    try:
        shown = resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = resolved.as_posix()  # outside the book's folder: only the full path works from there
    return f"{GRADER} check {shlex.quote(shown)}"


def _title(nb: nbformat.NotebookNode, default: str) -> str:
    """The chapter's title: its first `# ` heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return default


def _header(chapter: Chapter, nb: nbformat.NotebookNode, path: Path) -> str:
    title = _title(nb, chapter.name)
    return (
        f"*Your copy of the exercises of [{title}]({page_url(chapter)}) (`{chapter.source}`).*\n\n"
        "Replace each cell that raises `NotImplementedError` with your solution and run the check "
        "cell after it. The chapter's own solution to each exercise is on its page, in a collapsed "
        "dropdown under the exercise; this copy leaves it out. Links go to the book as `make book` "
        f"serves it, on {SITE}.\n\n"
        "To grade this whole notebook in a fresh kernel, run this in the book's root folder (where "
        "`.venv` and `_toc.yml` are):\n\n"
        f"```sh\n{check_command(path, chapter.root)}\n```\n\n"
        "Forking the chapter again never overwrites what you wrote here."
    )


def _hide_solutions(text: str, inside: str | None, chapter: Chapter) -> tuple[str, str | None]:
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
            out.append(_exercise_text(directive))
        elif directive.name in ("solution", "solution-start"):
            out.append(_note(directive.arg, chapter))
            if directive.name == "solution-start":
                inside = directive.arg
    if inside is None:
        out.append(text[position:])
    return "".join(out), inside


def _exercise_text(directive: Directive) -> str:
    """An {exercise} directive as plain markdown, so that it reads well in JupyterLab."""
    label = directive.options.get("label")
    heading = (
        "**Exercise" + (f" `{label}`" if label else "") + (f": {directive.arg}**" if directive.arg else "**")
    )
    return f"{heading}\n\n{directive.body}\n"


def _note(label: str, chapter: Chapter) -> str:
    return (
        f"*The chapter's solution to `{label}` is on [its page]({page_url(chapter, label)}), in a "
        "collapsed dropdown under the exercise. Write yours in the cell below.*\n"
    )


def _stub(
    exercise: Exercise, cell: nbformat.NotebookNode, nb: nbformat.NotebookNode
) -> nbformat.NotebookNode:
    """A cell that says what to define and raises NotImplementedError until the reader replaces it."""
    names = _names_to_define(cell.source, [nb.cells[i].source for i in exercise.check_cells])
    what = (
        f"It must define {', '.join(f'`{name}`' for name in names)}, which the check below uses."
        if names
        else "It must define what the check below uses."
    )
    title = f": {exercise.title}" if exercise.title else ""
    source = (
        f"# Exercise {exercise.label}{title}\n"
        f"# Replace this cell with your solution. {what}\n"
        f'raise NotImplementedError("{stub_message(exercise.label)}")'
    )
    metadata = {"tags": tags(cell), LABEL_KEY: exercise.label}
    return nbformat.v4.new_code_cell(source, metadata=metadata)


def _names_to_define(solution: str, checks: list[str]) -> list[str]:
    """Top-level names the solution binds that the checks read (all it binds if none is read)."""
    bound = bound_names(solution)
    read = {name for check in checks for name in free_names(check)}
    return [name for name in bound if name in read] or bound


@dataclass(frozen=True)
class ForkResult:
    """What `fork` did: where the copy is, the backup it kept (if any), and whether it was already there."""

    path: Path
    backup: Path | None
    unchanged: bool


def fork(chapter: Chapter, output: Path | None = None, *, force: bool = False) -> ForkResult:
    """Write the reader's copy of `chapter`; never lose what a reader wrote in an existing one."""
    path = output or default_output(chapter)
    new = forked_notebook(chapter, path)
    backup = None
    if path.exists():
        if _same_content(path, new):
            _write(path, new)
            return ForkResult(path, None, unchanged=True)
        if not force:
            fresh = path.with_name(f"{path.stem}-fresh.ipynb")
            raise ForkExistsError(
                f"{path} exists and differs from a fresh fork (your edits?), so it was left as it is. "
                f"To keep it and get a fresh copy too, add --output {fresh}; "
                f"to replace it, add --force (it is first copied to {path.stem}.<date-time>.ipynb)."
            )
        backup = _backup(path)
    _write(path, new)
    return ForkResult(path, backup, unchanged=False)


def _same_content(path: Path, new: nbformat.NotebookNode) -> bool:
    """Whether the copy at `path` has the very cells (and no outputs) a fresh fork has."""
    try:
        old = nbformat.read(path, as_version=4)
    except Exception:  # not a readable notebook: certainly not what fork wrote
        return False

    def content(nb: nbformat.NotebookNode) -> list[tuple[str, str, list[object]]]:
        return [(cell.cell_type, cell.source, cell.get("outputs", [])) for cell in nb.cells]

    return content(old) == content(new)


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
