"""The exercise tool: list, fork (never losing a reader's edits) and check (a fresh kernel, a time limit).

The fixture book (tests/fixtures/exercise-book) has one chapter with two
exercises: one about what `to_device` makes of a leaf, one that makes a model
train by changing one call (the fork fix). Every test that executes a notebook
is marked slow, and each notebook runs once per session (module-scoped
fixtures). The last tests run every exercise of the real book the same way.
"""

from __future__ import annotations

import builtins
import os
import re
import shlex
import shutil
from pathlib import Path

import nbformat
import pytest
from book_outputs import book_build, executed  # noqa: F401 (book_build is a fixture)
from wrong_answers import RIGHT, WRONG, Answer

from mlx_autodiff import Device, LinearConfig, site_layout
from mlx_autodiff.exercises import (
    GRADER,
    ROOT,
    ExerciseFormatError,
    ForkExistsError,
    NoExercisesError,
    UnknownChapterError,
    book_exercises,
    calls,
    cell_source,
    chapters,
    check,
    counting,
    execute,
    exercises,
    fork,
    forked_notebook,
    main,
    numbered,
    reaches,
    resolve,
    stub_message,
)
from mlx_autodiff.workbook.checks import check_messages, messages
from mlx_autodiff.workbook.checks import key as message_key
from mlx_autodiff.workbook.convention import FORK_KEY
from mlx_autodiff.workbook.fork import names_to_define
from mlx_autodiff.workbook.grade import Execution, Report, grade
from mlx_autodiff.workbook.names import bound_names, free_names

FIXTURE_BOOK = Path(__file__).resolve().parent / "fixtures" / "exercise-book"
SITE = site_layout.LOCAL.rstrip("/")
"""Where a fork's links lead when no published base URL is set: the site `make book` serves."""
LABELS = ["ex-90-requirements", "ex-90-fork-fix"]
REQUIREMENTS, FORK_FIX = LABELS


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """A private copy of the fixture book, so forks land in tmp_path/exercises/."""
    return Path(shutil.copytree(FIXTURE_BOOK, tmp_path / "book-root"))


def stub_index(nb: nbformat.NotebookNode, label: str) -> int:
    """The index of the stub cell of `label` in a forked notebook."""
    return next(
        i
        for i, cell in enumerate(nb.cells)
        if cell.metadata.get("exercise") == label and "solution" in cell.metadata.get("tags", [])
    )


def edited_copy(path: Path, solutions: dict[str, str]) -> Path:
    """Replace the stubs of a forked copy with `solutions`, as a reader would in JupyterLab."""
    nb = nbformat.read(path, as_version=4)
    for label, source in solutions.items():
        nb.cells[stub_index(nb, label)].source = source
    nbformat.write(nb, path)
    return path


def verdicts(report) -> dict[str, tuple[bool, str]]:
    return {result.exercise.label: (result.passed, result.reason) for result in report.results}


# --- reading the convention ---------------------------------------------------------------------


def test_the_fixture_chapter_has_two_exercises_with_a_solution_and_a_check_each() -> None:
    chapter = resolve("90", FIXTURE_BOOK)
    found = exercises(chapter.read(), chapter.name)
    assert [ex.label for ex in found] == LABELS
    assert [ex.title for ex in found] == [
        "What does to_device make of a leaf?",
        "Make this model train by changing one call",
    ]
    assert all(len(ex.solution_cells) == 1 and len(ex.check_cells) == 1 for ex in found)


@pytest.mark.parametrize("name", ["90", "90-fixture", "book/90-fixture.md", "exercises/90-fixture.ipynb"])
def test_a_chapter_can_be_named_by_number_name_or_path(name: str) -> None:
    assert resolve(name, FIXTURE_BOOK).path == FIXTURE_BOOK / "book" / "90-fixture.md"


def test_an_unknown_chapter_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownChapterError, match="90-fixture"):
        resolve("77", FIXTURE_BOOK)


def test_a_tagged_cell_before_any_exercise_label_is_a_format_error() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["check"]})])
    with pytest.raises(ExerciseFormatError, match="no exercise label"):
        exercises(nb, "99-broken")


def test_two_exercises_with_one_label_are_a_format_error_but_a_listed_one_is_not_counted_twice() -> None:
    exercise = "```{exercise} A title\n:label: ex-99-twice\n```\n"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(exercise + exercise)])
    with pytest.raises(ExerciseFormatError, match="two exercises have the label 'ex-99-twice'"):
        exercises(nb, "99-broken")
    listed = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(exercise)])
    listed.metadata[FORK_KEY] = {"exercises": [{"label": "ex-99-twice", "title": "A title", "number": "9.1"}]}
    assert [(ex.label, ex.number) for ex in exercises(listed, "99-listed")] == [("ex-99-twice", "9.1")]


def test_a_directive_inside_a_code_fence_is_not_an_exercise() -> None:
    text = "````markdown\n```{exercise} Not real\n:label: ex-00-fake\n```\n````\n"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    assert exercises(nb, "00") == []


def test_list_prints_number_label_and_title(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--book", str(book)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split() for line in lines] == [  # an unnumbered chapter counts from 1, as Sphinx does
        ["Exercise", "1", REQUIREMENTS, *"What does to_device make of a leaf?".split()],
        ["Exercise", "2", FORK_FIX, *"Make this model train by changing one call".split()],
    ]


# --- fork ----------------------------------------------------------------------------------------


def test_fork_stubs_each_solution_and_keeps_each_check(book: Path) -> None:
    chapter = resolve("90", book)
    source = chapter.read()
    nb = forked_notebook(chapter)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    found = {ex.label: ex for ex in numbered(chapter)}
    for label, defines in [(REQUIREMENTS, "`requirements`"), (FORK_FIX, "`model`")]:
        stub = nb.cells[stub_index(nb, label)]
        assert stub.metadata.tags == ["solution"]
        assert f'raise NotImplementedError("{stub_message(found[label])}")' in stub.source
        assert defines in stub.source.splitlines()[1], "the comment says what to define"
    sources = [cell.source for cell in nb.cells]
    for ex in exercises(source, chapter.name):
        assert source.cells[ex.check_cells[0]].source in sources
        assert source.cells[ex.solution_cells[0]].source not in sources


def test_fork_removes_the_revealed_solution_text(book: Path) -> None:
    markdown = "\n".join(
        c.source for c in forked_notebook(resolve("90", book)).cells if c.cell_type == "markdown"
    )
    assert "The moved parameters are outputs of a recorded op" not in markdown
    assert "makes fresh leaves" not in markdown
    assert "{solution" not in markdown
    assert "Between the exercises, the chapter goes on." in markdown, "prose outside solutions stays"
    assert "`model` so that it trains on `metal`." in markdown, "the task stays"


def markdown_of(nb: nbformat.NotebookNode) -> str:
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


@pytest.mark.parametrize("where", ["exercises/90-fixture.ipynb", "a/b/mine.ipynb", "outside"])
def test_fork_links_point_at_the_served_book_from_any_folder(book: Path, tmp_path: Path, where: str) -> None:
    path = tmp_path / "elsewhere" / "mine.ipynb" if where == "outside" else book / where
    text = markdown_of(forked_notebook(resolve("90", book), path))
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert f"[index]({SITE}/en/book/index.html)" in text
    assert f"({SITE}/en/book/index.html#why-it-exists)" in text, "an anchor stays on the link"
    assert links and all(link.startswith(f"{SITE}/") for link in links), links
    assert str(tmp_path) not in text.replace(str(path), ""), "no machine path in the fork's text"


def test_fork_renders_myst_roles_and_directives_as_plain_markdown(book: Path) -> None:
    text = markdown_of(forked_notebook(resolve("90", book)))
    assert not re.search(r"\{[a-z:-]+\}`", text), "no raw MyST role is left"
    assert "```{" not in text and ":::" not in text, "no raw MyST directive is left"
    page = f"{SITE}/en/book/90-fixture.html"
    assert f"`fixture_answer` ([on the page]({page}))" in text, (
        "without a built book, the role says where the value is"
    )
    assert "> **Note.** A note with a [link into the index]" in text and "cross-reference" in text
    assert "**First tab**\n\nThe first tab's text." in text and "**Second tab**" in text
    figure = f"*Figure, on [the chapter's page]({page}): The figure's caption.*"
    assert figure in text, "a directive inside a tab is rendered too"


@pytest.mark.slow
def test_fork_fills_in_glued_values_from_a_current_build_and_ignores_a_stale_one(book: Path) -> None:
    chapter = resolve("90", book)
    built = execute(chapter.read(), chapter.path.parent, timeout=120).nb  # as the book build runs it
    executed = book / "_build" / "jupyter_execute" / "book" / "90-fixture.ipynb"
    executed.parent.mkdir(parents=True)
    nbformat.write(built, executed)
    text = markdown_of(forked_notebook(chapter))
    assert "glued values as the page does: 42, and\n0.67 with a format." in text
    next(cell for cell in built.cells if "glue(" in cell.source).source += "\n# changed after the build"
    nbformat.write(built, executed)
    assert "42" not in markdown_of(forked_notebook(chapter)), "values from a stale build are not shown"


@pytest.mark.parametrize("where", ["default", "inside", "outside"])
def test_the_header_prints_the_command_that_grades_this_very_file(
    book: Path, tmp_path: Path, where: str
) -> None:
    path = {
        "default": book / "exercises" / "90-fixture.ipynb",
        "inside": book / "work" / "try 2.ipynb",
        "outside": tmp_path / "elsewhere" / "mine.ipynb",
    }[where]
    header = forked_notebook(resolve("90", book), path).cells[0].source
    shown = {"default": "90-fixture.ipynb", "inside": "'try 2.ipynb'", "outside": "mine.ipynb"}[where]
    assert f"\n{GRADER} check {shown}\n" in header, "run where the file is: no folder of the book in it"
    assert "collapsed dropdown" in header and "not in your copy" not in header
    assert str(tmp_path) not in header


def test_the_header_says_how_to_get_the_engine_with_only_the_notebook(
    book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = forked_notebook(resolve("90", book)).cells[0].source
    assert "make setup" in header and "source .venv/bin/activate" in header
    assert '`pip install "mlx-autodiff[exercises] @ git+<the repository\'s URL>"`' in header
    monkeypatch.setenv(site_layout.REPOSITORY_VARIABLE, "https://github.com/someone/to_device-seen")
    header = forked_notebook(resolve("90", book)).cells[0].source
    assert "[the book's repository](https://github.com/someone/to_device-seen)" in header
    assert "git+https://github.com/someone/to_device-seen" in header


def test_the_pip_extra_holds_what_the_grader_imports() -> None:
    """`pip install mlx-autodiff[exercises]` must bring every package `check` imports, and the
    command the notebooks print must be the one pyproject.toml installs."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf8"))["project"]
    assert project["scripts"][GRADER] == "mlx_autodiff.exercises:main"
    declared = {re.split(r"[<>=!~ ;\[]", line, maxsplit=1)[0].lower()
                for line in project["dependencies"] + project["optional-dependencies"]["exercises"]}
    assert {"nbformat", "nbclient", "ipykernel", "jupytext", "pyyaml", "mlx"} <= declared


@pytest.mark.parametrize("verb", ["get", "fork"])
def test_get_is_the_verb_and_fork_an_alias(book: Path, verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([verb, "90", "--book", str(book)]) == 0
    assert (book / "exercises" / "90-fixture.ipynb").exists()
    assert f"To grade it: {GRADER} check " in capsys.readouterr().out


def test_no_bare_python_in_a_fork_or_the_tools_messages(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "\n".join(cell.source for cell in forked_notebook(resolve("90", book)).cells)
    assert main(["check", "90", "--book", str(book)]) == 2
    assert main(["get", "90", "--book", str(book)]) == 0
    captured = capsys.readouterr()
    said = text + captured.err + captured.out
    assert f"{GRADER} check" in said and f"{GRADER} get" in said
    assert not re.search(r"(?<!\.venv/bin/)python3? -m", said), "a stock Mac has no bare python"


@pytest.mark.slow
def test_the_command_in_the_header_grades_a_copy_written_anywhere(
    book: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "elsewhere" / "mine.ipynb"
    assert main(["get", "90", "--output", str(path), "--book", str(book)]) == 0
    header = nbformat.read(path, as_version=4).cells[0].source
    command = re.search(r"```sh\n(.+)\n```", header)[1]
    program, *argv = shlex.split(command)
    assert program == GRADER and argv[0] == "check"
    monkeypatch.chdir(path.parent)  # where the reader saved it, far from the book
    capsys.readouterr()
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "FAIL  Exercise 1  ex-90-requirements" in out and "not done yet" in out and "no copy" not in out


def test_fork_writes_the_copy_under_exercises(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "90", "--book", str(book)]) == 0
    path = book / "exercises" / "90-fixture.ipynb"
    assert nbformat.read(path, as_version=4).cells == forked_notebook(resolve("90", book)).cells
    assert str(path) in capsys.readouterr().out


def test_forking_an_unedited_copy_again_is_allowed(book: Path) -> None:
    first = fork(resolve("90", book))
    second = fork(resolve("90", book))
    assert second.path == first.path and second.unchanged and second.backup is None


def test_forking_again_never_overwrites_edits(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {FORK_FIX: "model = 'my work'"})
    before = path.read_bytes()
    with pytest.raises(ForkExistsError, match="--force"):
        fork(resolve("90", book))
    assert main(["get", "90", "--book", str(book)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error and "--output" in error
    assert path.read_bytes() == before
    assert list(path.parent.iterdir()) == [path], "no backup without --force"


def test_force_keeps_a_timestamped_backup_of_the_edits(book: Path) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {FORK_FIX: "model = 'my work'"})
    edited = path.read_bytes()
    assert main(["get", "90", "--force", "--book", str(book)]) == 0
    backups = [p for p in path.parent.iterdir() if p != path]
    assert len(backups) == 1 and backups[0].name.startswith("90-fixture.2")
    assert backups[0].read_bytes() == edited
    assert nbformat.read(path, as_version=4).cells == forked_notebook(resolve("90", book)).cells


def test_output_writes_a_second_copy_beside_the_edited_one(book: Path) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {FORK_FIX: "model = 'my work'"})
    edited = path.read_bytes()
    other = book / "exercises" / "fresh.ipynb"
    assert main(["get", "90", "--output", str(other), "--book", str(book)]) == 0
    assert path.read_bytes() == edited and other.exists()


def test_misuse_is_one_line_and_status_2(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_a_notebook = book / "notes.txt"
    not_a_notebook.write_text("hello")
    cases = {
        ("get", "77"): "no chapter '77'",
        ("get", "index"): "no exercises",
        ("check", str(not_a_notebook)): "not a notebook",
        ("check", "90"): "no copy of chapter 90-fixture yet",
    }
    for argv, words in cases.items():
        assert main([*argv, "--book", str(book)]) == 2, argv
        error = capsys.readouterr().err
        assert words in error and error.count("\n") == 1 and "Traceback" not in error, (argv, error)
    with pytest.raises(NoExercisesError):
        fork(resolve("index", book))


# --- check (executes notebooks: slow) ------------------------------------------------------------


@pytest.fixture(scope="module")
def fixture_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The fixture chapter's own solutions, its fork, and an edited fork, each executed once."""
    root = Path(shutil.copytree(FIXTURE_BOOK, tmp_path_factory.mktemp("runs") / "book-root"))
    chapter = resolve("90", root)
    stubbed = fork(chapter).path
    mine = edited_copy(
        fork(chapter, root / "exercises" / "mine.ipynb").path,
        {
            # right, in other words than the chapter's
            REQUIREMENTS: "requirements = [p.val().node.requirement for _, p in "
            "initialized(flex.autodiff()).to_device(metal).named_params()]",
            # wrong: the very call the exercise asks to change
            FORK_FIX: "model = initialized(flex.autodiff()).to_device(metal)",
        },
    )
    return {
        "solutions": check(chapter.read(), chapter.name, chapter.path.parent),
        "stubs": check(nbformat.read(stubbed, as_version=4), "stubs", stubbed.parent),
        "mine": check(nbformat.read(mine, as_version=4), "mine", mine.parent),
    }


@pytest.mark.slow
def test_the_chapters_solutions_pass_their_checks(fixture_runs: dict) -> None:
    assert verdicts(fixture_runs["solutions"]) == {label: (True, "") for label in LABELS}
    assert fixture_runs["solutions"].passed


@pytest.mark.slow
def test_the_forked_stubs_fail_as_not_done_yet(fixture_runs: dict) -> None:
    assert verdicts(fixture_runs["stubs"]) == {label: (False, "not done yet") for label in LABELS}
    assert not fixture_runs["stubs"].passed


@pytest.mark.slow
def test_a_wrong_solution_fails_with_the_assertions_words(fixture_runs: dict) -> None:
    results = verdicts(fixture_runs["mine"])
    assert results[REQUIREMENTS] == (True, "")
    passed, reason = results[FORK_FIX]
    assert not passed and reason.startswith("step 0: 0 gradients collected, expected 2"), reason


def _children() -> set[int]:
    """Processes whose parent is this one (Linux /proc), to see that no kernel is left running."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


@pytest.mark.slow
def test_a_hang_is_a_failure_after_the_time_limit_and_the_kernel_is_killed(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {REQUIREMENTS: "while True:\n    pass"})
    before = _children()
    assert main(["check", str(path), "--timeout", "3", "--book", str(book)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  Exercise 1  ex-90-requirements" in out and "timed out after 3 s" in out
    assert "timed out after 3 s before this cell ran" in out, "the cells after the hang did not run"
    if Path("/proc/self/stat").exists():
        assert _children() <= before, "the kernel process must not outlive the check"


@pytest.mark.slow
def test_a_kernel_that_dies_is_a_failure_not_a_crash(book: Path) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {REQUIREMENTS: "import os\nos._exit(1)"})
    report = check(nbformat.read(path, as_version=4), "dies", path.parent, timeout=60)
    assert verdicts(report)[REQUIREMENTS] == (False, "the kernel died (out of memory, or a crash)")
    assert not verdicts(report)[FORK_FIX][0]


def test_a_copy_whose_check_cell_was_deleted_fails_that_exercise(book: Path) -> None:
    nb = forked_notebook(resolve("90", book))
    nb.cells = [
        cell
        for cell in nb.cells
        if not (cell.metadata.get("exercise") == FORK_FIX and "check" in cell.metadata.get("tags", []))
    ]
    run = Execution(nb, timeout=1, started=list(range(len(nb.cells))))  # as if all ran without an error
    results = {ex.label: grade(ex, run) for ex in exercises(nb, "90-fixture")}
    assert results[REQUIREMENTS].passed
    assert not results[FORK_FIX].passed and "check cell is gone" in results[FORK_FIX].reason


@pytest.mark.slow
def test_check_cli_exit_status_is_0_only_if_all_pass(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "90", "--solutions", "--book", str(book)]) == 0
    assert "2 of 2 exercises pass" in capsys.readouterr().out


# --- every exercise of the real book -------------------------------------------------------------


def _book_params() -> list[object]:
    """One parameter per exercise in the book's chapters, found now (authors keep adding them)."""
    try:
        found = book_exercises(ROOT)
    except Exception as error:  # a chapter that breaks the convention fails its test, not collection
        return [pytest.param(None, error, id="book-convention")]
    if not found:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="no chapter has an exercise yet"))]
    return [pytest.param(ex.chapter, ex, id=f"{ex.chapter}:{ex.label}") for ex in found]


BOOK_EXERCISES = _book_params()


@pytest.mark.parametrize(("chapter", "exercise"), BOOK_EXERCISES)
def test_every_book_exercise_has_a_solution_and_a_check_and_forks_without_its_answer(
    chapter: str | None, exercise: object
) -> None:
    if isinstance(exercise, Exception):
        raise exercise
    source = resolve(chapter, ROOT).read()
    assert exercise.title, f"{exercise.label} has no title"
    assert exercise.solution_cells, f"{exercise.label} has no code cell tagged solution"
    assert exercise.check_cells, f"{exercise.label} has no code cell tagged check"
    forked = [cell.source for cell in forked_notebook(resolve(chapter, ROOT)).cells]
    for index in exercise.solution_cells:
        assert source.cells[index].source not in forked, "the fork gives the answer away"
    for index in exercise.check_cells:
        assert source.cells[index].source in forked, "the fork lost a check"


BLANK, BOOK = "blank", "book"
"""Two tries of every exercise in an answered fork: a blank answer (`<label>~blank`) and the
chapter's own solution (`<label>~book`)."""


def answered_fork(chapter: str) -> nbformat.NotebookNode:
    """The chapter's fork with its stubs, and after each exercise's checks one more try per answer.

    A blank answer (`pass`, labelled `<label>~blank`), each answer in WRONG and RIGHT
    (`<label>~wrong-<n>`, `~right-<n>`) and last the chapter's own solution (`<label>~book`) each
    become a solution cell, after the exercise's set-up cells again and followed by copies of its
    check cells, so one fresh kernel grades the stubs and every answer.
    """
    found = resolve(chapter, ROOT)
    nb, source = forked_notebook(found), found.read()
    book_solution = {ex.label: ex.solution_cells for ex in exercises(source, chapter)}
    cells = []
    for index, cell in enumerate(nb.cells):
        cells.append(cell)
        label = cell.metadata.get("exercise")
        following = nb.cells[index + 1].metadata.get("exercise") if index + 1 < len(nb.cells) else None
        if label is None or "check" not in cell.metadata.get("tags", []) or following == label:
            continue
        checks = [c for c in nb.cells if c.metadata.get("exercise") == label and "check" in c.metadata.tags]
        solution = "\n".join(source.cells[i].source for i in book_solution[label])
        tries = [(BLANK, "pass")] + [(f"{kind}-{number}", answer.source)
                                     for kind, table in (("wrong", WRONG), ("right", RIGHT))
                                     for number, answer in enumerate(table.get(label, []))]
        tries.append((BOOK, solution))
        for name, code in tries:
            tried = f"{label}~{name}"
            cells += [nbformat.v4.new_code_cell(c.source) for c in set_up_cells(nb, label)]
            tagged = {"tags": ["solution"], "exercise": tried}
            cells.append(nbformat.v4.new_code_cell(code, metadata=tagged))
            cells += [
                nbformat.v4.new_code_cell(c.source, metadata={"tags": ["check"], "exercise": tried})
                for c in checks
            ]
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"
    nb.cells = cells
    return nb


def set_up_cells(nb: nbformat.NotebookNode, label: str) -> list[nbformat.NotebookNode]:
    """The code cells between an exercise's text and its stub: what each try must run afresh."""
    start = next(
        i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and f"** (`{label}`)" in c.source
    )
    stub = stub_index(nb, label)
    return [c for c in nb.cells[start:stub] if c.cell_type == "code"]


GIVEN = set(dir(builtins)) | {"get_ipython", "display", "In", "Out"}
"""The names every cell has: Python's builtins and what IPython adds."""


def _defined_before(nb: nbformat.NotebookNode, index: int) -> set[str]:
    """Names a reader's copy has before cell `index`: what the cells above bind (stubs bind nothing)."""
    names = set(GIVEN)
    for cell in nb.cells[:index]:
        if cell.cell_type == "code" and "solution" not in cell.metadata.get("tags", []):
            names |= set(bound_names(cell.source))
    return names


@pytest.mark.parametrize(("chapter", "exercise"), BOOK_EXERCISES)
def test_every_name_a_solution_or_check_reads_exists_and_the_stub_names_what_the_check_needs(
    chapter: str | None, exercise: object
) -> None:
    if isinstance(exercise, Exception):
        raise exercise
    source = resolve(chapter, ROOT).read()
    first = exercise.solution_cells[0]
    before = _defined_before(source, first)
    solution = "\n".join(source.cells[i].source for i in exercise.solution_cells)
    missing = [name for name in free_names(solution) if name not in before]
    assert not missing, (
        f"the solution reads {missing}, which no cell above it defines: import them in a set-up cell"
    )
    given = before | set(bound_names(solution))
    read = []
    for index in exercise.check_cells:
        unknown = [name for name in free_names(source.cells[index].source) if name not in given]
        assert not unknown, (
            f"the check reads {unknown}, which neither the cells above nor the solution define"
        )
        read += free_names(source.cells[index].source)
        given |= set(bound_names(source.cells[index].source))
    forked = forked_notebook(resolve(chapter, ROOT))
    named = re.findall(r"`(\w+)`", forked.cells[stub_index(forked, exercise.label)].source.splitlines()[1])
    assert named and all(name in read for name in named), f"the stub names {named}; the check reads {read}"


@pytest.mark.parametrize("chapter", sorted({param.values[0] for param in BOOK_EXERCISES if param.values[0]}))
def test_on_the_page_run_all_above_binds_every_name_the_cells_and_solutions_read(chapter: str) -> None:
    """A page's "Run all above" runs the chapter's cells but no exercise's, and "Run check" removes the
    names the answer must define before it runs the answer (_static/live-grading.js): so a cell
    outside the exercises reads only names that such cells above it bind, and so does each
    solution, which reads none of the names it must define before binding them."""
    source = resolve(chapter, ROOT).read()
    found = exercises(source, chapter)
    solution_of = {index: ex for ex in found for index in ex.solution_cells}
    checks = {index for ex in found for index in ex.check_cells}
    names = set(GIVEN)
    for index, cell in enumerate(source.cells):
        if cell.cell_type != "code" or index in checks:
            continue
        if index in solution_of:
            defines = names_to_define(source, solution_of[index])
            missing = [name for name in free_names(cell.source) if name not in names - set(defines)]
            assert not missing, f"{solution_of[index].label}'s solution reads {missing} first"
        else:
            missing = [name for name in free_names(cell.source) if name not in names]
            assert not missing, f"cell {index} reads {missing}, which only an exercise's cells bind"
            names |= set(bound_names(cell.source))


def test_stubs_name_no_loop_variable_of_the_solution() -> None:
    """The issue's cases: ex-06-rescue and ex-09-plain-to-leaf said "must define `p`"."""
    for chapter, label, names in [
        ("06", "ex-06-rescue", "`rescued`"),
        ("09", "ex-09-plain-to-leaf", "`trainable`"),
    ]:
        forked = forked_notebook(resolve(chapter, ROOT))
        assert f"It must define {names}, which" in forked.cells[stub_index(forked, label)].source


def graded_from_the_book(name: str) -> Report:
    """A chapter's own solutions, graded on the book build's run of the chapter rather than a run of
    their own: each chapter executes once per test session. The build ran every code cell, in order,
    and fails on any error a cell is not tagged to raise, so what it ran is what `check` would."""
    source = resolve(name, ROOT).read()
    code = [index for index, cell in enumerate(source.cells) if cell.cell_type == "code"]
    ran = [cell for cell in executed(name).cells if cell.cell_type == "code"]
    assert [source.cells[index].source.strip() for index in code] == [cell.source.strip() for cell in ran], (
        f"{name}: the book build ran other cells than the chapter has")
    nb = nbformat.from_dict(source)
    for index, cell in zip(code, ran, strict=True):
        nb.cells[index].outputs = cell.get("outputs", [])
    run = Execution(nb, 600, started=[index for index in code if source.cells[index].source.strip()])
    return Report(f"{name} (solutions)", [grade(ex, run) for ex in exercises(nb, name) if ex.graded])


class BookRuns:
    """Each chapter's own solutions, from the book build, and its answered fork, executed once per
    session on demand."""

    def __init__(self) -> None:
        self._reports: dict[tuple[str, str], object] = {}

    def report(self, name: str, variant: str):
        key = (name, variant)
        if key not in self._reports:
            if variant == "solutions":
                self._reports[key] = graded_from_the_book(name)
            else:
                # The fork runs from book/ too: exercises/ is at the same depth, so relative paths agree.
                folder = resolve(name, ROOT).path.parent
                self._reports[key] = check(answered_fork(name), f"{name} ({variant})", folder, timeout=600)
        return self._reports[key]


@pytest.fixture(scope="module")
def book_runs(book_build) -> BookRuns:  # noqa: F811 (the fixture)
    return BookRuns()


@pytest.mark.slow
@pytest.mark.parametrize(("chapter", "exercise"), BOOK_EXERCISES)
def test_every_book_exercise_passes_with_its_solution_and_fails_as_a_stub_or_blank(
    chapter: str | None, exercise: object, book_runs: BookRuns
) -> None:
    """The chapter's own solution passes, graded from the book build's run and again in the fork,
    after the stub and the other tries; the stub fails, and so does a blank answer (`pass`), tried
    after the exercise's checks with its set-up cells run again: the check misses a name the answer
    must define (tests/test_live.py asks the same of the page's grader, on some pages)."""
    if isinstance(exercise, Exception):
        raise exercise
    solved = verdicts(book_runs.report(chapter, "solutions"))
    assert solved[exercise.label] == (True, ""), f"the chapter's own solution fails: {solved[exercise.label]}"
    forked = verdicts(book_runs.report(chapter, "fork"))
    assert forked[exercise.label] == (False, "not done yet")
    assert forked[f"{exercise.label}~{BOOK}"] == (True, ""), forked[f"{exercise.label}~{BOOK}"]
    passed, reason = forked[f"{exercise.label}~{BLANK}"]
    source = resolve(chapter, ROOT).read()
    names = names_to_define(source, exercise)
    assert not passed and any(re.search(rf"[`']{name}[`']", reason) for name in names), (
        f"a blank answer fails for another reason than a missing {names}: {reason}")


def test_every_book_exercise_has_a_wrong_answer_and_every_answer_a_real_exercise() -> None:
    labels = {ex.label for ex in book_exercises(ROOT)}
    assert sorted(labels - set(WRONG)) == [], (
        "each exercise needs at least one wrong answer in tests/wrong_answers.py"
    )
    assert sorted((set(WRONG) | set(RIGHT)) - labels) == [], (
        "an answer for an exercise the book no longer has"
    )
    assert all(answer.why and answer.says for answers in WRONG.values() for answer in answers)


def _answer_params(table: dict[str, list[Answer]], kind: str) -> list[object]:
    chapter_of = {ex.label: ex.chapter for ex in book_exercises(ROOT)}
    return [
        pytest.param(chapter_of.get(label), f"{label}~{kind}-{number}", answer, id=f"{label}~{kind}-{number}")
        for label, answers in table.items()
        for number, answer in enumerate(answers)
    ]


@pytest.mark.slow
@pytest.mark.parametrize(("chapter", "tried", "answer"), _answer_params(WRONG, "wrong"))
def test_every_wrong_answer_fails_and_the_reason_points_at_the_mistake(
    chapter: str, tried: str, answer: Answer, book_runs: BookRuns
) -> None:
    passed, reason = verdicts(book_runs.report(chapter, "fork"))[tried]
    assert not passed, f"a wrong answer passed ({answer.why}):\n{answer.source}"
    assert answer.says in reason, (
        f"it failed, but the reason does not point at the mistake ({answer.why}): {reason}"
    )


@pytest.mark.slow
@pytest.mark.parametrize(("chapter", "tried", "answer"), _answer_params(RIGHT, "right"))
def test_right_answers_in_other_words_pass(
    chapter: str, tried: str, answer: Answer, book_runs: BookRuns
) -> None:
    assert verdicts(book_runs.report(chapter, "fork"))[tried] == (True, ""), answer.why


def test_the_real_book_toc_is_readable() -> None:
    assert [chapter.name for chapter in chapters(ROOT)][:2] == ["index", "01-initialized"]


# --- what a check may ask about a solution's code ---------------------------------------------


def _guard_by_helper(model):
    return _helper(model)


def _helper(model):
    from mlx_autodiff.guard import assert_trainable

    return assert_trainable(model)


def _guard_free(model):
    return len(model.params())


def test_reaches_finds_a_module_used_directly_through_an_alias_or_inside_a_helper() -> None:
    import mlx_autodiff.guard as alias
    from mlx_autodiff.guard import TrainingGuard

    def direct(model):
        return TrainingGuard(model)

    def aliased(model):
        return alias.why_not_trainable(model)

    assert reaches(direct, "mlx_autodiff.guard") == ["TrainingGuard"]
    assert reaches(aliased, "mlx_autodiff.guard") == ["alias"]
    assert reaches(_guard_by_helper, "mlx_autodiff.guard") == ["import mlx_autodiff.guard"]
    assert reaches(_guard_free, "mlx_autodiff.guard") == []


def test_calls_tells_a_call_from_a_mention() -> None:
    assert calls("moved = model.fork(metal)", "fork")
    assert calls("moved = fork(model)", "fork")
    assert not calls("# no fork here\nname = 'fork'\nf = model.fork", "fork")


def test_counting_counts_calls_by_qualified_name_and_restores_the_methods() -> None:
    from mlx_autodiff import Linear, Tensor

    before = (Linear.forward, Tensor.backward)
    model = LinearConfig(4, 1).init(Device.flex().autodiff())
    with counting(Linear.forward, Tensor.backward) as seen:
        model.forward(Tensor.ones([2, 4], Device.flex().autodiff())).sum().backward()
        model.forward(Tensor.ones([2, 4], Device.flex().autodiff()))
    assert seen == {"Linear.forward": 2, "Tensor.backward": 1}
    assert (Linear.forward, Tensor.backward) == before, "the methods are put back"


def test_cell_source_outside_a_kernel_says_what_to_do() -> None:
    with pytest.raises(LookupError, match="run your solution cell first"):
        cell_source("moved")


# --- the Chinese edition's copy -----------------------------------------------------------------

HAN = re.compile(r"[\u4e00-\u9fff]")
WITH_EXERCISES = [chapter for chapter in chapters(ROOT) if exercises(chapter.read(), chapter.name)]


def prose(nb: nbformat.NotebookNode) -> list[str]:
    """The paragraphs of a copy's markdown cells, code blocks left out."""
    text = "\n\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    text = re.sub(r"^(`{3,}|~{3,}).*?^\1\s*$", "", text, flags=re.S | re.M)
    return [part.strip() for part in text.split("\n\n") if re.search(r"[A-Za-z\u4e00-\u9fff]{2}", part)]


@pytest.mark.parametrize("chapter", WITH_EXERCISES, ids=lambda chapter: chapter.name)
def test_the_chinese_copy_is_the_chinese_chapter(chapter) -> None:
    nb = forked_notebook(chapter, language="zh_CN")
    paragraphs = prose(nb)
    words_outside_code = [re.sub(r"`[^`]*`|\(http[^)]*\)", "", part) for part in paragraphs]
    english = [part for part, words in zip(paragraphs, words_outside_code, strict=True)
               if not HAN.search(part) and re.search(r"[A-Za-z]{3,}", words)]
    assert len(english) <= len(paragraphs) // 20, f"English left in the Chinese copy: {english[:5]}"
    assert nb.metadata[FORK_KEY]["language"] == "zh_CN"
    for exercise in numbered(chapter):
        assert f"练习 {exercise.number}" in nb.cells[0].source, exercise.label
        stub = nb.cells[stub_index(nb, exercise.label)].source
        assert f'raise NotImplementedError("{stub_message(exercise, "zh_CN")}")' in stub
        assert HAN.search(stub_message(exercise, "zh_CN")) and HAN.search(stub.splitlines()[1])
    for label in {cell.metadata.get("exercise") for cell in nb.cells} - {None}:
        checks = [cell.source for cell in nb.cells
                  if cell.metadata.get("exercise") == label and "check" in cell.metadata.get("tags", [])]
        said = [text for source in checks for _, _, text in messages(source)]
        assert said and all(HAN.search(text) for text in said), f"{label}: an English check message: {said}"


@pytest.mark.parametrize(("chapter", "exercise"), BOOK_EXERCISES)
def test_every_check_message_has_a_chinese_translation_with_the_same_fields(
    chapter: str | None, exercise: object
) -> None:
    if isinstance(exercise, Exception):
        raise exercise
    import ast

    def fields(literal: str) -> list[str]:
        tree = ast.parse(f"({literal})", mode="eval").body
        parts = tree.values if isinstance(tree, ast.JoinedStr) else []
        return sorted(ast.unparse(part.value) for part in parts if isinstance(part, ast.FormattedValue))

    table = check_messages("zh_CN").get(exercise.label, {})
    source = resolve(chapter, ROOT).read()
    for index in exercise.check_cells:
        for _, _, text in messages(source.cells[index].source):
            assert message_key(text) in table, (
                f"{exercise.label}: no Chinese for the check message {text}: add it to "
                "mlx_autodiff/words/checks/zh_CN.json"
            )
            assert fields(table[message_key(text)]) == fields(text), text
    written = {message_key(text) for index in exercise.check_cells
               for _, _, text in messages(source.cells[index].source)}
    assert set(table) <= written, f"{exercise.label}: translations of messages the check no longer has"


@pytest.mark.slow
def test_a_chinese_copy_is_graded_in_chinese(tmp_path: Path) -> None:
    chapter = resolve("03", ROOT)
    nb = forked_notebook(chapter, language="zh_CN")
    nb.cells[stub_index(nb, "ex-03-repair")].source = WRONG["ex-03-repair"][0].source
    report = check(nb, "03-not-a-leaf.ipynb", tmp_path, timeout=300)
    lines = report.lines()
    first, second = numbered(chapter)
    assert lines[0].startswith(f"未通过  练习 {first.number}  {first.label}") and "还没做" in lines[0]
    assert lines[1].startswith(f"未通过  练习 {second.number}  {second.label}")
    assert HAN.search(lines[1].split("\n", 1)[1]), f"the wrong answer's reason is not Chinese: {lines[1]}"
    assert lines[-1] == "03-not-a-leaf.ipynb：2 道练习中 0 道通过"


@pytest.mark.slow
def test_pip_install_of_the_repository_gives_a_checker_that_grades_a_notebook_anywhere(
    tmp_path: Path,
) -> None:
    """What a reader with only a downloaded notebook does: `pip install` the repository into a fresh
    environment, then run the command the notebook prints in the notebook's folder. Offline here:
    the environment borrows this one's packages (`--no-deps`; test_the_pip_extra_holds_what_the_
    grader_imports checks the extra names them), but the engine is the installed copy, not a clone."""
    import subprocess
    import sysconfig
    import venv

    source = tmp_path / "repository"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "mlx_autodiff", source / "mlx_autodiff",
                    ignore=shutil.ignore_patterns("__pycache__"))
    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # a path only, so this environment's .pth files (its editable install of the engine) do not run
    (site / "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    installed = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps",
                                "--no-build-isolation", str(source)],
                               capture_output=True, text=True, env=env, timeout=300)
    assert installed.returncode == 0, installed.stderr
    folder = tmp_path / "Downloads"
    notebook = fork(resolve("90", FIXTURE_BOOK), folder / "90-fixture.ipynb").path
    header = nbformat.read(notebook, as_version=4).cells[0].source
    command = shlex.split(re.search(r"```sh\n(.+)\n```", header)[1])
    assert command[0] == GRADER
    where = subprocess.run([python, "-c", "import mlx_autodiff; print(mlx_autodiff.__file__)"],
                           capture_output=True, text=True, env=env, cwd=folder, check=True).stdout
    assert where.startswith(str(site)), f"the engine came from {where}, not the installed copy"
    done = subprocess.run([str(environment / "bin" / command[0]), *command[1:]], capture_output=True,
                          text=True, env=env, cwd=folder, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL  Exercise 1  ex-90-requirements" in done.stdout and "0 of 2 exercises pass" in done.stdout
