"""Grade a notebook: run it in a fresh kernel and say, per exercise, PASS or why not.

A fresh kernel, not the reader's JupyterLab one, so that a name defined in a
cell the reader has since deleted cannot make a check pass. The whole notebook
runs under one time limit; a cell still running at the limit is stopped and
its kernel killed, so a hang becomes a FAIL instead of a hung command.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from ..words import say, words
from .chapters import ROOT
from .convention import FORK_KEY, Exercise, exercises
from .errors import NoExercisesError
from .fork import GRADER, KERNELSPEC

DEFAULT_TIMEOUT = 120.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
STOPPED = "Stopped"
"""The pseudo exception type of a cell the time limit or a dead kernel stopped."""


def language_of(nb: nbformat.NotebookNode) -> str:
    """The language a copy was written in (its checker speaks it too); English for a chapter."""
    return nb.metadata.get(FORK_KEY, {}).get("language", "en")


@dataclass
class Execution:
    """What happened when a notebook ran: its outputs, which cells started, and how it stopped."""

    nb: nbformat.NotebookNode
    timeout: float
    started: list[int] = field(default_factory=list)
    stopped_at: int | None = None
    """The cell running when the time limit passed or the kernel died; None if all ran."""
    stop_reason: str = ""


def execute(nb: nbformat.NotebookNode, workdir: Path, timeout: float = DEFAULT_TIMEOUT) -> Execution:
    """Run a copy of `nb` in a fresh python3 kernel in `workdir`, errors allowed, within `timeout` seconds."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    run = Execution(nb, timeout)
    said = words(language_of(nb), "exercises")
    deadline: list[float] = []

    def remaining(cell: nbformat.NotebookNode) -> int:
        """The per-cell limit nbclient asks for: what is left of the notebook's."""
        return max(1, math.ceil(deadline[0] - time.monotonic()))

    def starting(cell: nbformat.NotebookNode, cell_index: int) -> None:
        if not deadline:
            deadline.append(time.monotonic() + timeout)
        run.started.append(cell_index)
        if time.monotonic() >= deadline[0]:
            raise _OutOfTime  # the limit passed between two cells

    client = NotebookClient(
        nb,
        kernel_name=KERNELSPEC["name"],
        allow_errors=True,
        timeout_func=remaining,
        shutdown_kernel="immediate",
        extra_arguments=["--IPKernelApp.log_level=ERROR"],  # not the kernel's TCP notice on every run
        resources={"metadata": {"path": str(workdir)}},
        on_cell_execute=starting,
    )
    try:
        client.execute(env=_kernel_env())
    except (CellTimeoutError, _OutOfTime):
        run.stopped_at, run.stop_reason = _last(run.started), say(said["timed_out"], seconds=f"{timeout:g}")
    except DeadKernelError:
        run.stopped_at, run.stop_reason = _last(run.started), said["died"]
    return run


class _OutOfTime(Exception):
    """Raised before a cell starts once the notebook's time limit has passed."""


def _last(started: list[int]) -> int:
    """The cell that was running when execution stopped (-1: none had started)."""
    return started[-1] if started else -1


def _kernel_env() -> dict[str, str]:
    """The environment with this repository on PYTHONPATH, so `import mlx_autodiff` works anywhere."""
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


@dataclass(frozen=True)
class Result:
    """One exercise's grade: passed, or the reason it did not."""

    exercise: Exercise
    passed: bool
    reason: str = ""


@dataclass(frozen=True)
class Report:
    """Every graded exercise of one notebook, reported in the notebook's language."""

    name: str
    results: list[Result]
    language: str = "en"

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    def lines(self) -> list[str]:
        """One line per exercise, "PASS  Exercise 4.1  ex-04-smoke-test  title", the reason below."""
        said = words(self.language, "exercises")
        names = [result.exercise.name(self.language) for result in self.results]
        name_width = max(len(name) for name in names)
        width = max(len(result.exercise.label) for result in self.results)
        lines = []
        for result, name in zip(self.results, names, strict=True):
            title = f"  {result.exercise.title}" if result.exercise.title else ""
            verdict = said["pass"] if result.passed else said["fail"]
            reason = f"\n      {result.reason}" if result.reason else ""
            label = f"  {result.exercise.label:<{width}}" if name != result.exercise.label else ""
            lines.append(f"{verdict}  {name:<{name_width}}{label}{title}".rstrip() + reason)
        passed = sum(result.passed for result in self.results)
        lines.append(say(said["summary"], name=self.name, passed=passed, total=len(self.results)))
        return lines


def check(nb: nbformat.NotebookNode, name: str, workdir: Path, timeout: float = DEFAULT_TIMEOUT) -> Report:
    """Execute `nb` in a fresh kernel and grade each of its exercises."""
    found = [ex for ex in exercises(nb, name) if ex.graded or _expects_check(nb, ex.label)]
    if not found:
        raise NoExercisesError(
            f"{name} has no graded exercises: get a chapter that has some "
            f"(`{GRADER} list`) and check that copy."
        )
    run = execute(nb, workdir, timeout)
    language = language_of(nb)
    return Report(name, [grade(ex, run, language) for ex in found], language)


def _expects_check(nb: nbformat.NotebookNode, label: str) -> bool:
    """Whether the chapter this copy was forked from had a check for `label`."""
    entries = nb.metadata.get(FORK_KEY, {}).get("exercises", [])
    return any(entry["label"] == label and entry.get("graded", True) for entry in entries)


def grade(exercise: Exercise, run: Execution, language: str = "en") -> Result:
    """PASS if the exercise's solution and checks ran without an error; else the first reason why not."""
    said = words(language, "exercises")
    if not exercise.check_cells:
        return Result(exercise, False, said["check_gone"])
    for index in exercise.solution_cells:
        error = _error(run, index, said)
        if error and error[0] == "NotImplementedError":
            return Result(exercise, False, said["not_done"])
        if error and error[0] == STOPPED:
            return Result(exercise, False, error[1])
        if error:
            return Result(exercise, False, say(said["raised"], error=_in_words(*error)))
    for index in exercise.check_cells:
        error = _error(run, index, said)
        if error and error[0] == "AssertionError":
            return Result(exercise, False, error[1] or said["silent_assert"])
        if error:
            return Result(exercise, False, _in_words(*error))
    return Result(exercise, True)


def _error(run: Execution, index: int, said: dict[str, str]) -> tuple[str, str] | None:
    """(exception type, message) if cell `index` failed or never finished, else None."""
    if index == run.stopped_at:
        return (STOPPED, run.stop_reason)
    if index not in run.started:
        if run.stopped_at is not None and index > run.stopped_at:
            return (STOPPED, say(said["before"], reason=run.stop_reason))
        return None  # an empty cell: nbclient skips it, and it cannot fail
    for output in run.nb.cells[index].get("outputs", []):
        if output.output_type == "error":
            return (output.ename, _ANSI.sub("", output.evalue))
    return None


def _in_words(kind: str, message: str) -> str:
    """An error in words: the limit that stopped a cell, or the exception's type and message."""
    if kind == STOPPED:
        return message
    return f"{kind}: {message}" if message else kind
