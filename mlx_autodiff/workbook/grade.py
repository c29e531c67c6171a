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

from .chapters import ROOT
from .convention import FORK_KEY, Exercise, exercises
from .errors import NoExercisesError
from .fork import GRADER, KERNELSPEC, NOT_DONE

DEFAULT_TIMEOUT = 120.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
STOPPED = "Stopped"
"""The pseudo exception type of a cell the time limit or a dead kernel stopped."""


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
        run.stopped_at, run.stop_reason = _last(run.started), f"timed out after {timeout:g} s"
    except DeadKernelError:
        run.stopped_at, run.stop_reason = _last(run.started), "the kernel died (out of memory, or a crash)"
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
    """Every graded exercise of one notebook."""

    name: str
    results: list[Result]

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    def lines(self) -> list[str]:
        width = max(len(result.exercise.label) for result in self.results)
        lines = []
        for result in self.results:
            title = f"  {result.exercise.title}" if result.exercise.title else ""
            verdict = "PASS" if result.passed else "FAIL"
            reason = f"\n      {result.reason}" if result.reason else ""
            lines.append(f"{verdict}  {result.exercise.label:<{width}}{title}{reason}")
        passed = sum(result.passed for result in self.results)
        lines.append(f"{self.name}: {passed} of {len(self.results)} exercises pass")
        return lines


def check(nb: nbformat.NotebookNode, name: str, workdir: Path, timeout: float = DEFAULT_TIMEOUT) -> Report:
    """Execute `nb` in a fresh kernel and grade each of its exercises."""
    found = [ex for ex in exercises(nb, name) if ex.graded or _expects_check(nb, ex.label)]
    if not found:
        raise NoExercisesError(
            f"{name} has no graded exercises: fork a chapter that has some "
            f"(`{GRADER} list`) and check that copy."
        )
    run = execute(nb, workdir, timeout)
    return Report(name, [grade(ex, run) for ex in found])


def _expects_check(nb: nbformat.NotebookNode, label: str) -> bool:
    """Whether the chapter this copy was forked from had a check for `label`."""
    entries = nb.metadata.get(FORK_KEY, {}).get("exercises", [])
    return any(entry["label"] == label and entry.get("graded", True) for entry in entries)


def grade(exercise: Exercise, run: Execution) -> Result:
    """PASS if the exercise's solution and checks ran without an error; else the first reason why not."""
    if not exercise.check_cells:
        return Result(
            exercise, False, "its check cell is gone: fork the chapter again with --output to get it back"
        )
    for index in exercise.solution_cells:
        error = _error(run, index)
        if error and error[0] == "NotImplementedError":
            return Result(exercise, False, NOT_DONE)
        if error:
            return Result(exercise, False, _words(*error, where="your solution cell raised "))
    for index in exercise.check_cells:
        error = _error(run, index)
        if error and error[0] == "AssertionError":
            return Result(exercise, False, error[1] or "an assert without a message failed")
        if error:
            return Result(exercise, False, _words(*error))
    return Result(exercise, True)


def _error(run: Execution, index: int) -> tuple[str, str] | None:
    """(exception type, message) if cell `index` failed or never finished, else None."""
    if index == run.stopped_at:
        return (STOPPED, run.stop_reason)
    if index not in run.started:
        if run.stopped_at is not None and index > run.stopped_at:
            return (STOPPED, f"{run.stop_reason} before this cell ran")
        return None  # an empty cell: nbclient skips it, and it cannot fail
    for output in run.nb.cells[index].get("outputs", []):
        if output.output_type == "error":
            return (output.ename, _ANSI.sub("", output.evalue))
    return None


def _words(kind: str, message: str, where: str = "") -> str:
    """An error in words: the limit that stopped a cell, or the exception's type and message."""
    if kind == STOPPED:
        return message
    return f"{where}{kind}: {message}" if message else f"{where}{kind}"
