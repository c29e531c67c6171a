"""Build the book strictly, re-executing chapters when the engine changed.

myst-nb's execution cache (jupyter-cache) keys a chapter on its own code cells
only, so a change to `mlx_autodiff` would leave stale outputs in the book
(https://github.com/executablebooks/MyST-NB/issues/299, open; written for
myst-nb 1.4.0 and jupyter-cache 1.0.1, pinned in requirements.txt). This script
keys the whole cache on a hash of the engine's sources, the requirements and
the data files chapters read (`book/_data/`, such as the benchmark results):
when that hash changes, the cache is cleared and every chapter runs again; when
nothing changed, the build reuses it. What a page shows of the repository's
other files (appendix 1's map of the code, from README.md) is computed when
the page is read (bookkit/site/code_map.py), so a README edit executes nothing.
tests/setup/test_upstream.py fails when myst-nb grows an execution option
(one may be the dependency list #299 asks for) or jupyter-cache stops matching a
notebook by its code alone.

Every page is re-read on every build (`--all`): Sphinx warns only about pages it
reads, so an incremental build would pass `-W` while an unchanged page still
warns. Re-reading costs seconds because executed outputs come from the cache.
An edition whose inputs have not changed at all since its last successful
build is not built again (bookkit/site/stamp.py); `--force` builds it anyway.

The book is built in every language of bookkit/words/language.py, one Sphinx build
each (bookkit/site/sphinx_build.py). First the chapters the cache lacks execute, a
core at a time, as myst-nb would run them (`prepare`); then every language's
build runs at once, each finding every chapter in the cache. When a chapter
fails there, the languages build one after another, English first, so
myst-nb's own report of the failing cell is in the log. `python -m bookkit.site.build zh_CN` (or
`LANGS=zh_CN make book`) builds only the languages named. The site's root,
`_build/html/index.html`, opens the English edition.

When a chapter fails to execute, Sphinx buries the cause in a long traceback.
The build therefore ends with one line per language and one per failing
chapter, e.g. `chapter book/05-step-1.md failed at cell 4 (line 61):
TapeConsumedError: ...`. A chapter that fails to execute fails the same way in
every language, so the languages after the first such build are not built. A
cell that wrote to stderr (a warning) fails the build too, and is named the
same way (bookkit/site/executed_notebooks.py).
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bookkit.site import stamp as build_stamp
from bookkit.site.layout import ROOT_PAGE, page_path
from bookkit.words.language import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# myst-nb 1.4.0 logs `<source path>: WARNING: Executing notebook failed: <kind>`, then the
# traceback, ending with the warning's subtype `[mystnb.exec]`, and with
# nb_execution_raise_on_error it raises before saving the traceback in reports/
# (https://github.com/executablebooks/MyST-NB/blob/v1.4.0/myst_nb/core/execute/cache.py#L84-L90;
# the same early raise as https://github.com/executablebooks/MyST-NB/issues/616 in direct
# mode), so the log is the only place that names the failing cell. tests/setup/test_upstream.py
# fails when myst-nb changes either.
LOGGED_FAILURE = re.compile(
    r"^(?P<path>\S[^\n]*?): WARNING: Executing notebook failed: \w+\n(?P<tb>.*?)\[mystnb\.exec\]",
    re.MULTILINE | re.DOTALL,
)
# nbclient's CellExecutionError quotes the failing cell between two dashed rules.
FAILED_CELL = re.compile(r"executing the following cell:\n-{10,}\n(?P<src>.*?)\n-{10,}\n", re.DOTALL)
# bookkit/site/executed_notebooks.py's warning for a cell that wrote to stderr (its STDERR_WARNING).
LOGGED_STDERR = re.compile(
    r"^(?P<path>\S[^\n]*?)(?::(?P<line>\d+))?: WARNING: cell (?P<cell>\d+) wrote to stderr, which its "
    r"output shows the reader: (?P<first>.*?) \(fix the cause", re.MULTILINE)
EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit|Interrupt)(: .*)?$")


@dataclass(frozen=True)
class ExecutionFailure:
    """One chapter whose code failed while the book was built, or wrote to stderr (a warning)."""

    chapter: str  # source path relative to the book root, e.g. "book/05-step-1.md"
    cell: int | None  # 1-based number among the chapter's code cells; None if not found
    line: int | None  # line of that cell's opening fence in the source file
    error: str  # the exception line, e.g. "ZeroDivisionError: division by zero"

    def __str__(self) -> str:
        where = f"cell {self.cell} (line {self.line})" if self.cell else "an unidentified cell"
        return f"chapter {self.chapter} failed at {where}: {self.error}"


SUMMARY = "book build"
"""How each line of the closing summary begins (tests/helpers/book_outputs.py finds it)."""


@dataclass
class BuildResult:
    """Each language's build status (None: not built) and the chapters that failed to execute."""

    statuses: dict[str, int | None] = field(default_factory=dict)
    failures: list[ExecutionFailure] = field(default_factory=list)

    @property
    def status(self) -> int:
        """0 if every language built cleanly, else the first failing status (1 for one not built)."""
        failed = [status if status is not None else 1 for status in self.statuses.values() if status != 0]
        return failed[0] if failed else 0

    def summary(self) -> str:
        lines = [f"{SUMMARY}, {language}: " + (f"exited with status {status}" if status is not None
                                               else "not built, since chapters failed to execute")
                 for language, status in self.statuses.items()]
        return "\n".join(lines + [str(failure) for failure in self.failures])


BUILD_ONLY = ("bookkit/site/", "bookkit/live/", "bookkit/questions/", "bookkit/bench/live.py",
              "bookkit/runs/question_cases.py", "bookkit/workbook/lab.py")
"""The book's code that runs in the build or a server, never in a chapter's cell (the Sphinx
extensions, `sphinx_ext.py` in any folder, too): not part of the execution cache's key."""


def engine_key(root: Path = ROOT) -> str:
    """A hash of everything besides a chapter's own cells that its outputs depend on: the engine and
    the book's code the cells run (their words too), the requirements, and the data files chapters
    read. Not README.md, `_static/` or `BUILD_ONLY`: appendix 1 counts lines at build time
    (bookkit/site/code_map.py), not in a cell, and so the words files' part "code_map" is not in it."""
    digest = hashlib.sha256()
    code = [path for folder in ("mlx_autodiff", "bookkit") for path in sorted((root / folder).rglob("*"))
            if path.suffix in (".py", ".json")]
    code = [path for path in code if path.name != "sphinx_ext.py"
            and (path.relative_to(root).as_posix() == "bookkit/site/layout.py"
                 or not path.relative_to(root).as_posix().startswith(BUILD_ONLY))]
    files = code + [root / "requirements.txt"]
    files += sorted(path for path in (root / "book" / "_data").rglob("*") if path.is_file())
    for path in filter(Path.exists, files):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(_keyed_bytes(path, root))
    return digest.hexdigest()


def _keyed_bytes(path: Path, root: Path) -> bytes:
    """A file's bytes as the key sees them: a words file without its part "code_map", which only the
    build reads (a new row of README's map, translated, executes no chapter)."""
    if path.parent != root / "bookkit" / "words" or path.suffix != ".json":
        return path.read_bytes()
    table = json.loads(path.read_text(encoding="utf8"))
    table.pop("code_map", None)
    return json.dumps(table, ensure_ascii=False, sort_keys=True).encode()


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
    import nbformat  # here, not above: importing the build's tools (the tests do) costs no Sphinx
    from myst_nb.core.read import read_myst_markdown_notebook

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


def execution_failures(root: Path, log: str, html: Path | None = None) -> list[ExecutionFailure]:
    """Every chapter that failed to execute or wrote to stderr, from the build log and myst-nb's reports.

    With `nb_execution_raise_on_error` the build stops at the first failure and only
    the log names it; without it, myst-nb saves each traceback in
    `<html>/reports/<docname>.err.log` (myst_nb/sphinx_.py); `html` is the build's
    output folder, `_build/html` unless given.
    """
    found: dict[str, ExecutionFailure] = {}
    for match in LOGGED_FAILURE.finditer(ANSI.sub("", log)):
        failure = failure_from_traceback(root, Path(match["path"]), match["tb"])
        found.setdefault(failure.chapter, failure)
    for match in LOGGED_STDERR.finditer(ANSI.sub("", log)):
        line = int(match["line"]) if match["line"] else None
        failure = ExecutionFailure(_relative(root, Path(match["path"])), int(match["cell"]), line,
                                   f"wrote to stderr: {match['first']}")
        found.setdefault(failure.chapter, failure)
    reports = (html or root / "_build" / "html") / "reports"
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


def chosen_languages(names: list[str] | None = None) -> list[str]:
    """The languages to build: those named (in the book's order), else `LANGS`, else every one."""
    wanted = names or os.environ.get("LANGS", "").replace(",", " ").split()
    unknown = [name for name in wanted if name not in LANGUAGES]
    if unknown:
        raise SystemExit(f"no edition of the book in {', '.join(unknown)}: choose from {' '.join(LANGUAGES)} "
                         "(e.g. `LANGS=en make book`)")
    return [code for code in LANGUAGES if code in wanted] if wanted else list(LANGUAGES)


def build(languages: list[str] | None = None, root: Path = ROOT, force: bool = False) -> BuildResult:
    """Build the book strictly in `languages` (default: `chosen_languages()`), echoing the output;
    report failing chapters; write the site's root page. An edition whose inputs are those of its
    last successful build is not built again (bookkit/site/stamp.py), unless `force`."""
    (root / "_build").mkdir(exist_ok=True)
    with open(root / "_build" / ".build.lock", "w") as lock:
        # Two builds of one checkout (a terminal and the tests) would mix each other's outputs.
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _locked_build(chosen_languages(languages), root, force)


def _locked_build(asked: list[str], root: Path, force: bool) -> BuildResult:
    html = root / "_build" / "html"
    # the switcher links to every language the site will have: these, and any built before
    site = [code for code in LANGUAGES if code in asked or (html / code / "index.html").exists()]
    result = BuildResult()
    inputs: dict[str, str | None] = {}  # what each edition to build reads, as the build begins
    shared = build_stamp.shared_digest(root)
    for language in asked:
        digest = build_stamp.edition_digest(shared, language, site)
        if not force and build_stamp.unchanged(root, language, digest):
            print(f"{SUMMARY}, {language}: unchanged since its last successful build, not built again "
                  "(`python -m bookkit.site.build --force` builds it)", flush=True)
            result.statuses[language] = 0
        else:
            build_stamp.forget(root, language)
            inputs[language] = digest
    languages = list(inputs)
    if not languages:
        write_root_page(root, site)
        return result
    cleared = refresh_cache(root)
    print(f"engine {'changed: every chapter re-executes' if cleared else 'unchanged: cached outputs reused'}")
    result = _build_changed(languages, site, root, result)
    for language in languages:
        if result.statuses.get(language) == 0:
            build_stamp.record(root, language, inputs[language])
    write_root_page(root, site)
    if result.status != 0:
        print("\n" + result.summary(), flush=True)
    return result


def last_log(root: Path, language: str) -> Path:
    """Where this script keeps the log of the edition's last Sphinx build, failed or not (an edition
    not built again, since nothing changed, keeps the log of the build that wrote its HTML): tests
    read it instead of building again."""
    return root / "_build" / ".doctrees" / language / "build.log"


def _keep_log(root: Path, language: str, log: str) -> None:
    path = last_log(root, language)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(log, encoding="utf8")


def _build_changed(languages: list[str], site: list[str], root: Path, result: BuildResult) -> BuildResult:
    html = root / "_build" / "html"
    if prepare(root):  # every chapter's outputs are in the cache: the languages build side by side
        for language, (status, log) in zip(languages, _build_languages(languages, site, root), strict=True):
            _keep_log(root, language, log)
            result.statuses[language] = status
            if status != 0 and not result.failures:
                result.failures = execution_failures(root, log, html / language)
    for language in [code for code in languages if code not in result.statuses]:  # the first executing
        if result.failures:
            result.statuses[language] = None
            continue
        status, log = _build_language(language, site, root)
        _keep_log(root, language, log)
        result.statuses[language] = status
        if status != 0:
            result.failures = execution_failures(root, log, html / language)
    return result


# ----- before Sphinx: execute what the cache lacks, several chapters at once ------------------------


def workers() -> int:
    """How many chapters execute at once: one per core, at most four (each kernel is a process)."""
    return max(1, min(4, os.cpu_count() or 1))


def toc_files(root: Path) -> list[Path]:
    """The source of every page of `_toc.yml`, in its order."""
    def names(entry: Any) -> list[str]:
        if isinstance(entry, dict):
            own = [entry[key] for key in ("root", "file") if key in entry]
            return own + [name for value in entry.values() for name in names(value)]
        return [name for item in entry for name in names(item)] if isinstance(entry, list) else []

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf8"))
    found = []
    for name in names(toc):
        stem = re.sub(r"\.(md|ipynb)$", "", name)
        found += [path for path in (root / f"{stem}.md", root / f"{stem}.ipynb") if path.exists()][:1]
    return found


def read_notebook(source: Path) -> Any:
    """The notebook myst-nb makes of a page, as its Sphinx parser reads it (None: not a notebook)."""
    import nbformat
    from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook

    if source.suffix == ".ipynb":
        return nbformat.read(source, as_version=4)
    text = source.read_text(encoding="utf8")
    return read_myst_markdown_notebook(text, path=str(source)) if is_myst_markdown_notebook(text) else None


def execute_chapter(source: Path, timeout: int) -> tuple[Path, Any, float]:
    """Run one chapter as myst-nb's cache mode does (jupyter-cache's `single_nb_execution`, in the
    chapter's folder); (source, the executed notebook or None if a cell failed, seconds)."""
    from jupyter_cache.executors.utils import single_nb_execution

    notebook = read_notebook(source)
    ran = single_nb_execution(notebook, cwd=str(source.parent), timeout=timeout, allow_errors=False,
                              meta_override=True)
    return source, (None if ran.err else notebook), ran.time


def warm_explorer(root: Path) -> None:
    """The relocation explorer's runs (bookkit/explorer/sphinx_ext.py caches them by the engine's key)."""
    from bookkit.explorer.sphinx_ext import cached_folder

    cached_folder(root)


def prepare(root: Path) -> bool:
    """Fill the execution cache with every chapter it lacks (and the explorer's runs), `workers()` at
    a time, instead of one after another inside Sphinx. True when every chapter is then cached, so
    no language's build executes anything; False when one failed (the first language's build runs it
    again, and says where it failed, as myst-nb reports it)."""
    sources = toc_files(root)
    # the sources a complete cache was last found for, kept in the cache (cleared with it)
    ready = root / "_build" / ".jupyter_cache" / "prepared-for"
    explored = (root / "_build" / ".explorer" / engine_key(root)).is_dir()
    fingerprint = hashlib.sha256(f"{engine_key(root)} explored: {explored}".encode())
    for source in sources + [root / "_config.yml"]:
        fingerprint.update(source.read_bytes())
    if ready.exists() and ready.read_text() == fingerprint.hexdigest():
        return True  # nothing changed since every chapter was found in the cache: no need to look
    ready.unlink(missing_ok=True)
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf8"))
    timeout = int((config.get("execute") or {}).get("timeout", 30))
    cache = get_cache(str(root / "_build" / ".jupyter_cache"))
    missing = []
    for source in sources:
        notebook = read_notebook(source)
        try:
            if notebook is not None:
                cache.match_cache_notebook(notebook)
        except KeyError:
            missing.append(source)
    pages = [source.read_text(encoding="utf8") for source in sources if source.suffix == ".md"]
    explorer = not explored and any("{relocation-explorer}" in text for text in pages)
    if not missing and not explorer:
        if ready.parent.is_dir():
            ready.write_text(fingerprint.hexdigest())
        return True
    # matplotlib's font list, made here once: a kernel that makes it logs onto its cell's stderr when
    # that takes over 5 s ("Matplotlib is building the font cache"), which fails the build
    import matplotlib.font_manager  # noqa: F401
    print(f"executing {len(missing)} chapter(s), {workers()} at a time: "
          + " ".join(_relative(root, source) for source in missing), flush=True)
    complete = True
    with ProcessPoolExecutor(workers()) as pool:
        # the explorer's runs first: the longest job, begun last it would run alone at the end
        exploring = pool.submit(warm_explorer, root) if explorer else None
        runs = [pool.submit(execute_chapter, source, timeout) for source in missing]
        for run in runs:
            source, notebook, seconds = run.result()
            if notebook is None:
                complete = False
                continue
            bundle = CacheBundleIn(notebook, str(source), data={"execution_seconds": seconds})
            cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
            print(f"executed {_relative(root, source)} in {seconds:.1f} s", flush=True)
        if exploring is not None:
            exploring.result()
    if complete and ready.parent.is_dir():
        ready.write_text(fingerprint.hexdigest())
    return complete


# ----- Sphinx, one process per language -------------------------------------------------------


def _command(language: str, site: list[str], root: Path) -> list[str]:
    shutil.rmtree(root / "_build" / "html" / language / "reports", ignore_errors=True)  # this build's only
    return [sys.executable, "-m", "bookkit.site.sphinx_build", language, "--site", *site]


def _build_languages(languages: list[str], site: list[str], root: Path) -> list[tuple[int, str]]:
    """Every language's build at once (nothing is left to execute); the first one's output is echoed
    as it comes, each other's after it, so the log reads as one build after another."""
    commands = [_command(language, site, root) for language in languages]
    processes = [subprocess.Popen(command + ["--root", str(root)], cwd=root, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace")
                 for command in commands]
    results = []
    for language, command, process in zip(languages, commands, processes, strict=True):
        print(f"\n{SUMMARY}, {language}: {' '.join(command[1:])}", flush=True)
        log: list[str] = []
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            log.append(line)
        results.append((process.wait(), "".join(log)))
    return results


def _build_language(language: str, site: list[str], root: Path) -> tuple[int, str]:
    """One language's Sphinx build in a process of its own, echoed; (exit status, log)."""
    command = _command(language, site, root)
    print(f"\n{SUMMARY}, {language}: {' '.join(command[1:])}", flush=True)
    log: list[str] = []
    with subprocess.Popen(command + ["--root", str(root)], cwd=root, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace") as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            log.append(line)
    return process.returncode, "".join(log)


def root_page(title: str, root_doc: str, site: list[str]) -> str:
    """The site's index.html: it opens the first language's landing page and links every edition."""
    first = site[0]
    editions = [(page_path(root_doc, code), LANGUAGES[code]) for code in site]
    links = " · ".join(f'<a href="{href}" hreflang="{language.tag}" lang="{language.tag}">'
                       f"{html.escape(language.name)}</a>" for href, language in editions)
    alternates = "".join(f'<link rel="alternate" hreflang="{language.tag}" href="{href}">\n'
                         for href, language in editions)
    return (f'<!DOCTYPE html>\n<html lang="{LANGUAGES[first].tag}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n"
            f'<meta http-equiv="refresh" content="0; url={page_path(root_doc, first)}">\n'
            f'<link rel="icon" href="{first}/_static/favicon.svg">\n{alternates}</head>\n'
            f"<body>\n<main><h1>{html.escape(title)}</h1><p>{links}</p></main>\n</body>\n</html>\n")


def write_root_page(root: Path, site: list[str]) -> None:
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf8"))
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf8"))
    root_doc = re.sub(r"\.(md|ipynb)$", "", toc["root"])
    if site:
        (root / "_build" / "html").mkdir(parents=True, exist_ok=True)
        page = root_page(config.get("title", "Book"), root_doc, site)
        (root / "_build" / "html" / ROOT_PAGE).write_text(page, encoding="utf8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit.site.build", description=__doc__.splitlines()[0])
    parser.add_argument("languages", nargs="*", metavar="LANGUAGE",
                        help=f"the editions to build (default: LANGS, else every one: {' '.join(LANGUAGES)})")
    parser.add_argument("--force", action="store_true",
                        help="build every edition asked for, even one whose inputs have not changed")
    args = parser.parse_args(argv)
    return build(args.languages, force=args.force).status


if __name__ == "__main__":
    sys.exit(main())
