"""Grade answers with the book's checks, each exercise in a fresh grading process of its own.

The checks, the chapter's set-up cells and the names an answer must define come from the book
(the chapters, shipped with the package: `chapters.ROOT`), never from the reader's copy: an
edited or emptied check cell in a notebook changes nothing. For each exercise a process runs
`bookkit.grader.judge` (see there): the set-up, the reader's answer, the checks, where the
answer's changes to the interpreter are seen and refused. Its verdict, a status and the values
that fill its message, is said here in the reader's language (`words/<language>.json`: its part
"exercises", and a check's own messages in its part "checks", by exercise and name).

The command line's `check`, a notebook's check cell (`check_saved`) and live mode's "Run check"
(`bookkit.workbook.server`) all grade through `grade_answers`. The set-up has a generous
limit of its own; the answer and its checks have `timeout` seconds, after which the process is
killed and the answer fails, saying so.
"""

from __future__ import annotations

import json
import os
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

import bookkit
import mlx_autodiff
from bookkit.words import say, words
from bookkit.words.explained import explained
from bookkit.workbook.answers import answers_in, is_blank, stubs_of
from bookkit.workbook.chapters import ROOT, Chapter, chapter_of_copy, read_notebook
from bookkit.workbook.checks import case, message
from bookkit.workbook.convention import FORK_KEY, Exercise, exercises, tags
from bookkit.workbook.errors import NoExercisesError, UnknownNotebookError
from bookkit.workbook.fork import GRADER, names_to_define
from bookkit.workbook.numbering import numbered

DEFAULT_TIMEOUT = 120.0
"""Seconds for one answer and its checks."""
SETUP_TIMEOUT = 900.0
"""Seconds for the chapter's own cells before an answer: generous, so that no verdict depends on
how busy the machine is (the book's cells do not hang)."""


def language_of(nb: nbformat.NotebookNode) -> str:
    """The language a copy was written in (its checker speaks it too); English for a chapter."""
    return nb.metadata.get(FORK_KEY, {}).get("language", "en")


@dataclass(frozen=True)
class Job:
    """What a grading process needs for one exercise, all of it from the book."""

    chapter: Chapter
    exercise: Exercise
    setup: list[dict[str, Any]]
    checks: list[str]
    defines: list[str]
    stubs: frozenset[str] = field(default_factory=frozenset)

    def line(self, channel: int, nonce: str) -> str:
        return json.dumps({"setup": self.setup, "checks": self.checks, "defines": self.defines,
                           "label": self.exercise.label, "workdir": str(self.chapter.path.parent),
                           "homes": HOMES, "channel": channel, "nonce": nonce}) + "\n"


def job_for(chapter: Chapter, exercise: Exercise) -> Job:
    """The chapter's code cells above the exercise's solution (no exercise's own), its checks, and
    the names its answer must define."""
    nb = chapter.read()
    owned = {index for ex in exercises(nb, chapter.name) for index in ex.solution_cells + ex.check_cells}
    first = exercise.solution_cells[0]
    setup = [{"index": index, "source": cell.source, "raises": "raises-exception" in tags(cell)}
             for index, cell in enumerate(nb.cells[:first])
             if cell.cell_type == "code" and index not in owned]
    return Job(chapter, exercise, setup, [nb.cells[index].source for index in exercise.check_cells],
               names_to_define(nb, exercise), frozenset(stubs_of(chapter, exercise)))


@dataclass(frozen=True)
class Result:
    """One exercise's grade: passed, or the reason it did not (in the report's language).

    `code` says the same for a program, in any language: "pass", "not_done", "gone",
    "must_define:<name>", "raised:<Error>", "raised_in_check:<Error>", "failed:<message name>",
    "check_error:<Error>", "refused", "timed_out", "ended", "setup_failed", "foreign_engine".
    """

    exercise: Exercise
    passed: bool
    reason: str = ""
    code: str = "pass"

    def as_json(self) -> dict[str, Any]:
        return {"label": self.exercise.label, "passed": self.passed, "reason": self.reason, "code": self.code}


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


# ----- grading ---------------------------------------------------------------------------------


def check(nb: nbformat.NotebookNode, name: str, book: Path = ROOT, timeout: float = DEFAULT_TIMEOUT,
          language: str | None = None, only: str | None = None) -> Report:
    """Grade each answer of a reader's copy (or of a chapter's own solutions) with the book's checks."""
    chapter = chapter_of_copy(nb, name, book)
    language = language or language_of(nb)
    titles = {entry.get("label"): entry.get("title", "")
              for entry in nb.metadata.get(FORK_KEY, {}).get("exercises", [])}
    found = [ex for ex in numbered(chapter) if ex.graded and only in (None, ex.label)]
    if not found:
        said = words(language, "exercises")
        raise NoExercisesError(
            say(said["no_exercises"], name=name, grader=GRADER) if only is None
            else say(said["no_such_exercise"], chapter=chapter.name, label=only, grader=GRADER))
    given = answers_in(nb, chapter)
    results = []
    for exercise in found:
        exercise = _titled(exercise, titles.get(exercise.label))
        results += grade_answers(chapter, exercise, [given.get(exercise.label)], language, timeout)
    return Report(name, results, language)


def _titled(exercise: Exercise, title: str | None) -> Exercise:
    from dataclasses import replace

    return replace(exercise, title=title) if title else exercise


KERNEL_NOTEBOOK = ("__session__", "__vsc_ipynb_file__")
"""Names a kernel's front end sets to the notebook's path: JupyterLab's (through ipykernel), VS Code's."""


def kernel_notebook() -> Path | None:
    """The notebook this kernel runs in, if its front end says (None outside a kernel, or if it does not)."""
    from IPython import get_ipython

    shell = get_ipython()
    for name in KERNEL_NOTEBOOK:
        value = str(shell.user_ns.get(name, "")) if shell is not None else ""
        if value.endswith(".ipynb") and Path(value).is_file():
            return Path(value)
    return None


def check_saved(label: str, saved_as: str, timeout: float = DEFAULT_TIMEOUT, book: Path = ROOT,
                notebook: str | None = None) -> None:
    """A copy's check cell: grade the answer to `label` saved in this notebook, print which file was
    graded and the verdict.

    The notebook is the one the kernel says it runs in (KERNEL_NOTEBOOK), or else the one the reader
    names (`notebook`); `saved_as`, the name the copy was written with, is only what the refusal shows,
    never graded on a guess: a copy saved under another name beside a solved one would grade that one.
    What is graded is the file as last saved, never this kernel's state."""
    path = kernel_notebook() or (Path(notebook) if notebook else None)
    if path is None:
        guess = Path(saved_as).resolve()
        language = language_of(read_notebook(guess)) if guess.is_file() else "en"
        raise UnknownNotebookError(say(
            words(language, "exercises")["which_notebook"], path=guess, label=json.dumps(label),
            saved_as=json.dumps(saved_as, ensure_ascii=False), grader=GRADER))
    nb = read_notebook(path)
    report = check(nb, path.name, book, timeout, only=label)
    print(say(words(report.language, "exercises")["graded_file"], path=path.resolve()))
    print("\n".join(report.lines()[:-1]))


def grade_answers(chapter: Chapter, exercise: Exercise, answers: list[str | None], language: str = "en",
                  timeout: float = DEFAULT_TIMEOUT, setup_timeout: float = SETUP_TIMEOUT) -> list[Result]:
    """One Result per answer (None: the answer cell is gone), each graded with the book's checks."""
    return [result_of(exercise, verdict, language, timeout)
            for verdict in judge_answers(chapter, exercise, answers, timeout, setup_timeout)]


def judge_answers(
    chapter: Chapter, exercise: Exercise, answers: list[str | None], timeout: float = DEFAULT_TIMEOUT,
    setup_timeout: float = SETUP_TIMEOUT,
) -> list[dict[str, Any]]:
    """The grading process's verdict on each answer, in no language yet (`result_of` says it in one).

    A stub or blank answer is "not done yet" without a process; the others share a grading process,
    each after the chapter's set-up run afresh, until one is refused or stops the process (the rest
    then get a process of their own)."""
    job = job_for(chapter, exercise)
    verdicts: list[dict[str, Any] | None] = []
    for answer in answers:
        if answer is None:
            verdicts.append({"status": "gone"})
        elif is_blank(answer) or answer.strip() in job.stubs:
            verdicts.append({"status": "not_done"})
        else:
            verdicts.append(None)
    pending = [index for index, verdict in enumerate(verdicts) if verdict is None]
    while pending:
        got = _one_process(job, [answers[index] or "" for index in pending], timeout, setup_timeout)
        for index, verdict in zip(pending, got, strict=False):
            verdicts[index] = verdict
        pending = pending[len(got):]
    return [verdict or {"status": "ended"} for verdict in verdicts]


HOMES = {package.__name__: str(Path(str(package.__file__)).resolve().parent)
         for package in (mlx_autodiff, bookkit)}
"""The package folders of the engine and of the book's machinery, where this process loaded them from:
the grading process loads both from there."""
START = ("import runpy, sys; sys.path[:0] = sys.argv[1:]; del sys.argv[1:]; "
         "runpy.run_module('bookkit.grader.judge', run_name='__main__', alter_sys=True)")
"""How a grading process starts: Python isolated (-I: no PYTHON* variables, no script or current folder,
no user site-packages on sys.path), writing no bytecode (-B: an import never writes where an answer may
not, monitor.keep_unwritten), the folders holding HOMES first on sys.path, so that nothing in the
folder where grading started (a file named bookkit/grader/judge.py, say) is imported instead."""


def _one_process(job: Job, answers: list[str], timeout: float, setup_timeout: float) -> list[dict[str, Any]]:
    """Verdicts for the first answers, in one grading process (at least one verdict), started isolated
    in an empty folder of its own."""
    read, write = os.pipe()
    nonce = secrets.token_hex(16)
    with tempfile.TemporaryFile() as output, tempfile.TemporaryDirectory() as empty:
        paths = dict.fromkeys(str(Path(home).parent) for home in HOMES.values())
        process = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", START, *paths], stdin=subprocess.PIPE, stdout=output,
            stderr=subprocess.STDOUT, pass_fds=[write], env=_environment(), start_new_session=True, cwd=empty)
        os.close(write)
        channel = _Channel(read, nonce)
        verdicts: list[dict[str, Any]] = []
        try:
            assert process.stdin is not None
            process.stdin.write(job.line(write, nonce).encode())
            process.stdin.flush()
            for answer in answers:
                ready = channel.next(setup_timeout)
                if ready is None or ready.get("event") != "ready":
                    if ready is not None and ready.get("status") in ("setup_failed", "foreign_engine"):
                        ready.pop("event", None)
                        return [ready] * len(answers)  # the same set-up fails for every answer
                    return [*verdicts, _stopped(process, ready)]
                process.stdin.write((json.dumps({"answer": answer}) + "\n").encode())
                process.stdin.flush()
                verdict = channel.next(timeout)
                if verdict is None:
                    return [*verdicts, _stopped(process, {"status": "timed_out"} if channel.late else None)]
                verdict.pop("event", None)
                verdicts.append(verdict)
                if verdict["status"] == "refused":
                    return verdicts
            return verdicts
        except BrokenPipeError:
            return [*verdicts, _stopped(process, None)]
        finally:
            _end(process)
            channel.close()


class _Channel:
    """The grading process's verdict pipe: JSON lines that carry its nonce (others are ignored)."""

    def __init__(self, fd: int, nonce: str) -> None:
        self.fd, self.nonce, self.buffer, self.late = fd, nonce, b"", False
        self.selector = selectors.DefaultSelector()
        self.selector.register(fd, selectors.EVENT_READ)

    def next(self, seconds: float) -> dict[str, Any] | None:
        """The next message, or None if the pipe closed or `seconds` passed (then `late` is True)."""
        deadline = time.monotonic() + seconds
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and message.pop("nonce", None) == self.nonce:
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                self.late = True
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk

    def close(self) -> None:
        self.selector.close()
        os.close(self.fd)


def _stopped(process: subprocess.Popen[bytes], verdict: dict[str, Any] | None) -> dict[str, Any]:
    """Why a grading process gave no verdict: the time limit, or how it ended."""
    if verdict is not None:
        return verdict
    try:
        status = process.wait(10)
    except subprocess.TimeoutExpired:
        return {"status": "timed_out"}
    return {"status": "ended", "exit": status}


def _end(process: subprocess.Popen[bytes]) -> None:
    """Stop the grading process and anything it started (its own process group)."""
    if process.stdin is not None and not process.stdin.closed:
        try:
            process.stdin.close()
        except BrokenPipeError:
            pass
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()


def _environment() -> dict[str, str]:
    """This environment (Python's own variables aside: the process is isolated), pictures drawn off screen."""
    return {**os.environ, "MPLBACKEND": "Agg"}


# ----- a verdict in words ----------------------------------------------------------------------


def result_of(exercise: Exercise, verdict: dict[str, Any], language: str,
              timeout: float = DEFAULT_TIMEOUT) -> Result:
    """A verdict of the grading process, said in `language`."""
    said = words(language, "exercises")
    status = verdict["status"]
    if status == "pass":
        return Result(exercise, True)
    error = verdict.get("error", {})
    shown = _error_text(error, language)
    if status == "failed":
        reason = message(exercise.label, verdict["key"], verdict.get("fields", {}), language)
        return Result(exercise, False, reason, f"failed:{verdict['key']}")
    if status == "refused":
        return Result(exercise, False, _refusal(verdict, said), status)
    if status == "must_define":
        name = verdict["name"]
        return Result(exercise, False, say(said["must_define"], name=name), f"must_define:{name}")
    if status in ("raised", "raised_in_check", "check_error"):
        key = status if verdict.get("case") or status != "raised_in_check" else "raised_in_call"
        reason = say(said[key], error=shown, case=case(exercise.label, verdict.get("case", ""), language))
        if error.get("type") == "NameError":  # a helper from another cell of the reader's copy (learner 8)
            reason += said["only_the_answer_cell"]
        return Result(exercise, False, reason, f"{status}:{error.get('type', '')}")
    if status == "timed_out":
        return Result(exercise, False, say(said["timed_out"], seconds=f"{timeout:g}"), status)
    if status == "ended":
        code = verdict.get("exit")
        if isinstance(code, int) and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            return Result(exercise, False, say(said["killed"], signal=name), status)
        return Result(exercise, False, say(said["ended"], status=code if code is not None else "?"), status)
    if status == "setup_failed":
        return Result(exercise, False, say(said["setup_failed"], cell=verdict["cell"], error=shown), status)
    if status == "foreign_engine":
        return Result(exercise, False, say(said["foreign_engine"], found=", ".join(verdict["found"]),
                                           engine=verdict["engine"]), status)
    return Result(exercise, False, said[status], status)  # not_done, gone


def _refusal(verdict: dict[str, Any], said: dict[str, str]) -> str:
    """Why an answer was refused: what it started, else used, else changed (the grading process's
    `found` by kind, `started` and `used`, the rest changed); the other kinds after it."""
    started, used = verdict.get("started", []), verdict.get("used", [])
    changed = [name for name in verdict["found"] if name not in started and name not in used]
    kinds = [(key, names) for key, names in (("refused_started", started), ("refused_used", used),
                                             ("refused", changed)) if names] or [("refused", [])]
    (key, names), others = kinds[0], [name for _, names in kinds[1:] for name in names]
    reason = say(said[key], found=_listed(names, said))
    return say(said["refused_also"], reason=reason, found=_listed(others, said)) if others else reason


def _listed(names: list[str], said: dict[str, str], shown: int = 5) -> str:
    """The first `shown` of `names`, then how many more (a patch of a whole module finds 80: learner 8)."""
    listed = said["between"].join(names[:shown])
    return say(said["and_more"], listed=listed, n=len(names) - shown) if len(names) > shown else listed


def _error_text(error: dict[str, str], language: str) -> str:
    """An exception as "Type: message", the engine's explanation in `language` (Burn's words verbatim)."""
    if not error:
        return ""
    text = explained(error.get("message", ""), language)
    return f"{error['type']}: {text}" if text else error["type"]
