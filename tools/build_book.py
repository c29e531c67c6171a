"""Build the book strictly, re-executing chapters when the engine changed.

myst-nb's execution cache (jupyter-cache) keys a chapter on its own code cells
only, so a change to `mlx_autodiff` would leave stale outputs in the book
(https://github.com/executablebooks/MyST-NB/issues/299, open; written for
myst-nb 1.4.0 and jupyter-cache 1.0.1, pinned in requirements.txt). This script
keys the whole cache on a hash of the engine's sources, the requirements,
README.md (appendix 1 renders its map of the code) and the data files chapters
read (`book/_data/`, such as the benchmark results): when that hash changes, the
cache is cleared and every chapter runs again; when nothing changed, the build
reuses it. tests/test_upstream.py fails when myst-nb grows an execution option
(one may be the dependency list #299 asks for) or jupyter-cache stops matching a
notebook by its code alone.

Every page is re-read on every build (`--all`): Sphinx warns only about pages it
reads, so an incremental build would pass `-W` while an unchanged page still
warns. Re-reading costs seconds because executed outputs come from the cache.

When a chapter fails to execute, Sphinx buries the cause in a long traceback.
The build therefore ends with one line per failing chapter, e.g.
`chapter book/05-step-1.md failed at cell 4 (line 61): TapeConsumedError: ...`.
"""

from __future__ import annotations

import fcntl
import hashlib
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from myst_nb.core.read import read_myst_markdown_notebook

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# myst-nb 1.4.0 logs `<source path>: WARNING: Executing notebook failed: <kind>`, then the
# traceback, ending with the warning's subtype `[mystnb.exec]`, and with
# nb_execution_raise_on_error it raises before saving the traceback in reports/
# (https://github.com/executablebooks/MyST-NB/blob/v1.4.0/myst_nb/core/execute/cache.py#L84-L90;
# the same early raise as https://github.com/executablebooks/MyST-NB/issues/616 in direct
# mode), so the log is the only place that names the failing cell. tests/test_upstream.py
# fails when myst-nb changes either.
LOGGED_FAILURE = re.compile(
    r"^(?P<path>\S[^\n]*?): WARNING: Executing notebook failed: \w+\n(?P<tb>.*?)\[mystnb\.exec\]",
    re.MULTILINE | re.DOTALL,
)
# nbclient's CellExecutionError quotes the failing cell between two dashed rules.
FAILED_CELL = re.compile(r"executing the following cell:\n-{10,}\n(?P<src>.*?)\n-{10,}\n", re.DOTALL)
EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit|Interrupt)(: .*)?$")


@dataclass(frozen=True)
class ExecutionFailure:
    """One chapter whose code failed while the book was built."""

    chapter: str  # source path relative to the book root, e.g. "book/05-step-1.md"
    cell: int | None  # 1-based number among the chapter's code cells; None if not found
    line: int | None  # line of that cell's opening fence in the source file
    error: str  # the exception line, e.g. "ZeroDivisionError: division by zero"

    def __str__(self) -> str:
        where = f"cell {self.cell} (line {self.line})" if self.cell else "an unidentified cell"
        return f"chapter {self.chapter} failed at {where}: {self.error}"


@dataclass
class BuildResult:
    """The exit status of `jupyter-book build` and the chapters that failed to execute."""

    status: int
    failures: list[ExecutionFailure] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"jupyter-book build exited with status {self.status}"]
        return "\n".join(lines + [str(failure) for failure in self.failures])


def engine_key(root: Path = ROOT) -> str:
    """A hash of everything besides a chapter's own cells that its outputs depend on."""
    digest = hashlib.sha256()
    files = sorted((root / "mlx_autodiff").rglob("*.py")) + [root / "requirements.txt", root / "README.md"]
    files += sorted(path for path in (root / "book" / "_data").rglob("*") if path.is_file())
    for path in filter(Path.exists, files):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def refresh_cache(root: Path = ROOT) -> bool:
    """Clear the execution cache if the engine changed since it was filled. True if cleared."""
    build_dir = root / "_build"
    key_file, cache = build_dir / ".engine-key", build_dir / ".jupyter_cache"
    key = engine_key(root)
    stale = not key_file.exists() or key_file.read_text() != key
    if stale and cache.exists():
        shutil.rmtree(cache)
    build_dir.mkdir(exist_ok=True)
    key_file.write_text(key)
    return stale


def error_line(traceback: str) -> str:
    """The last `SomeError: message` line of a cell's traceback (the exception that escaped)."""
    lines = [line.strip() for line in ANSI.sub("", traceback).splitlines() if line.strip()]
    matches = [line for line in lines if EXCEPTION_LINE.match(line)]
    return (matches or lines or ["(no error text)"])[-1]


def locate_cell(source: Path, cell_source: str) -> tuple[int, int] | tuple[None, None]:
    """(code cell number, fence line) of the code cell whose text is `cell_source`."""
    if source.suffix == ".ipynb":
        notebook, lines = nbformat.read(source, as_version=4), None
    else:
        notebook = read_myst_markdown_notebook(source.read_text(encoding="utf8"), add_source_map=True)
        lines = notebook.metadata["source_map"]
    code = [(i, cell) for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    for number, (index, cell) in enumerate(code, start=1):
        if cell.source.strip() == cell_source.strip():
            return number, (lines[index] if lines else None)
    return None, None


def failure_from_traceback(root: Path, source: Path, traceback: str) -> ExecutionFailure:
    """Name the chapter, cell and exception behind one execution traceback."""
    traceback = ANSI.sub("", traceback)
    quoted = FAILED_CELL.search(traceback)
    cell, line = locate_cell(source, quoted["src"]) if quoted and source.exists() else (None, None)
    # the exception line comes after the quoted cell; before it is nbclient's own stack
    error = error_line(traceback[quoted.end() :] if quoted else traceback)
    return ExecutionFailure(_relative(root, source), cell, line, error)


def execution_failures(root: Path, log: str) -> list[ExecutionFailure]:
    """Every chapter that failed to execute, from the build log and myst-nb's reports.

    With `nb_execution_raise_on_error` the build stops at the first failure and only
    the log names it; without it, myst-nb saves each traceback in
    `_build/html/reports/<docname>.err.log` (myst_nb/sphinx_.py).
    """
    found: dict[str, ExecutionFailure] = {}
    for match in LOGGED_FAILURE.finditer(ANSI.sub("", log)):
        failure = failure_from_traceback(root, Path(match["path"]), match["tb"])
        found.setdefault(failure.chapter, failure)
    reports = root / "_build" / "html" / "reports"
    for report in sorted(reports.rglob("*.err.log")) if reports.exists() else []:
        docname = report.relative_to(reports).as_posix().removesuffix(".err.log")
        notebook = root / (docname + ".ipynb")
        source = notebook if notebook.exists() else root / (docname + ".md")
        failure = failure_from_traceback(root, source, report.read_text(encoding="utf8"))
        found.setdefault(failure.chapter, failure)
    return list(found.values())


def _relative(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def build(extra: list[str] | None = None, root: Path = ROOT) -> BuildResult:
    """Run the strict Jupyter Book build on `root`, echoing its output; report failing chapters."""
    (root / "_build").mkdir(exist_ok=True)
    with open(root / "_build" / ".build.lock", "w") as lock:
        # Two builds of one checkout (a terminal and the tests) would mix each other's outputs.
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _locked_build(extra or [], root)


def _locked_build(extra: list[str], root: Path) -> BuildResult:
    cleared = refresh_cache(root)
    print(f"engine {'changed: every chapter re-executes' if cleared else 'unchanged: cached outputs reused'}")
    shutil.rmtree(root / "_build" / "html" / "reports", ignore_errors=True)  # only this build's failures
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    command = [str(jupyter_book), "build", str(root), "-n", "-W", "--keep-going", "--all"]
    log: list[str] = []
    with subprocess.Popen(command + extra, cwd=root, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace") as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            log.append(line)
    result = BuildResult(process.returncode)
    if result.status != 0:
        result.failures = execution_failures(root, "".join(log))
        print("\n" + result.summary(), flush=True)
    return result


if __name__ == "__main__":
    sys.exit(build(sys.argv[1:]).status)
