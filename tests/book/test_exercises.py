"""The exercise tool: list, get (never losing a reader's edits) and check (the book's checks, each
exercise in a grading process of its own, a time limit).

The fixture book (tests/book/fixtures/exercise-book) has one chapter with two
exercises: one about what `to_device` makes of a leaf, one that makes a model
train by changing one call (the fork fix). Every test that starts a grading
process is marked slow (through the `fixture_runs` and `book_runs` fixtures, or
by hand). The last tests grade every exercise of the real book: its solution, its
stub, a blank answer, and the wrong, tampering and right answers of
tests/book/wrong_answers.py, each verdict said in both editions' words.
"""

from __future__ import annotations

import ast
import builtins
import functools
import json
import os
import re
import shlex
import shutil
import warnings
from pathlib import Path

import nbformat
import pytest
from wrong_answers import RIGHT, TAMPERING, WRONG, Answer

from bookkit.exercises import (
    GRADER,
    ROOT,
    ExerciseFormatError,
    ForkExistsError,
    NoExercisesError,
    UnknownChapterError,
    answers_in,
    book_exercises,
    chapters,
    check,
    exercises,
    fork,
    forked_notebook,
    judge_answers,
    main,
    numbered,
    resolve,
    result_of,
    stub_message,
)
from bookkit.grader.checking import Calls, Expect
from bookkit.site import layout as site_layout
from bookkit.workbook.answers import is_blank
from bookkit.workbook.checks import COMMON, message, table, where
from bookkit.workbook.convention import FORK_KEY
from bookkit.workbook.fork import names_to_define
from bookkit.workbook.names import bound_names, free_names

FIXTURE_BOOK = Path(__file__).resolve().parent / "fixtures" / "exercise-book"
SITE = site_layout.LOCAL.rstrip("/")
"""Where a fork's links lead when no published base URL is set: the site `make book` serves."""
LABELS = ["ex-90-requirements", "ex-90-fork-fix"]
REQUIREMENTS, FORK_FIX = LABELS


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the fixture book, and its folder the current one, so copies land in its
    exercises/ (`get` writes to the folder it runs in)."""
    root = Path(shutil.copytree(FIXTURE_BOOK, tmp_path / "book-root"))
    monkeypatch.chdir(root)
    return root


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


def test_list_in_chinese_prints_the_chinese_pages_names_and_titles(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Appendix 2's list of exercises comes from `list --language`: each edition's own words."""
    assert main(["list", "--language", "zh_CN"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(re.match(r"练习 \d+\.\d+ +ex-\S+ +.*[\u4e00-\u9fff]", line) for line in lines), lines


def test_list_prints_number_label_and_title(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--book", str(book)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split() for line in lines] == [  # an unnumbered chapter counts from 1, as Sphinx does
        ["Exercise", "1", REQUIREMENTS, *"What does to_device make of a leaf?".split()],
        ["Exercise", "2", FORK_FIX, *"Make this model train by changing one call".split()],
    ]


# --- fork ----------------------------------------------------------------------------------------


def test_get_stubs_each_solution_and_leaves_the_checks_in_the_book(book: Path) -> None:
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
        checks = [cell for cell in nb.cells
                  if cell.metadata.get("exercise") == label and "check" in cell.metadata.get("tags", [])]
        assert len(checks) == 1 and f'check_saved("{label}", "90-fixture.ipynb")' in checks[0].source
    sources = "\n".join(cell.source for cell in nb.cells)
    for ex in exercises(source, chapter.name):
        assert source.cells[ex.check_cells[0]].source not in sources, "the checks stay in the book"
        assert source.cells[ex.solution_cells[0]].source not in sources
    assert all(re.fullmatch(r"cell-\d+", cell.id) for cell in nb.cells), "how a reader's cells are told apart"


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
    from nbclient import NotebookClient

    chapter = resolve("90", book)
    built = chapter.read()  # run as the book build runs it
    NotebookClient(built, kernel_name="python3", resources={"metadata": {"path": str(chapter.path.parent)}}
                   ).execute()
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
    assert project["scripts"][GRADER] == "bookkit.exercises:main"
    declared = {re.split(r"[<>=!~ ;\[]", line, maxsplit=1)[0].lower()
                for line in project["dependencies"] + project["optional-dependencies"]["exercises"]}
    assert {"nbformat", "ipython", "ipywidgets", "jupytext", "pyyaml", "mlx"} <= declared


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
    assert main([*argv, "--book", str(book)]) == 1  # the fixture's chapter is not the installed book's
    out = capsys.readouterr().out
    assert "FAIL  Exercise 1  ex-90-requirements" in out and "not done yet" in out and "no copy" not in out


def test_fork_writes_the_copy_under_exercises(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "90", "--book", str(book)]) == 0
    path = book / "exercises" / "90-fixture.ipynb"
    assert nbformat.read(path, as_version=4).cells == forked_notebook(resolve("90", book)).cells
    assert str(path) in capsys.readouterr().out


def test_get_from_another_folder_writes_there_not_into_the_book(
    book: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["get", "90", "--book", str(book)]) == 0
    assert (elsewhere / "exercises" / "90-fixture.ipynb").is_file()
    assert not (book / "exercises").exists(), "get wrote into the book's own exercises/"


def test_forking_an_unedited_copy_again_is_allowed(book: Path) -> None:
    first = fork(resolve("90", book))
    second = fork(resolve("90", book))
    assert second.path == first.path and second.unchanged and second.backup is None


def test_forking_again_never_overwrites_edits(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {FORK_FIX: "model = 'my work'"})
    before = path.read_bytes()
    with pytest.raises(ForkExistsError, match="--force") as refused:
        fork(resolve("90", book))
    assert "fresh copy" in str(refused.value) and "fresh fork" not in str(refused.value), (
        "the command is get; fork is Burn's, in this book")
    assert main(["get", "90", "--book", str(book)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error and "--output" in error
    assert path.read_bytes() == before
    assert list(path.parent.iterdir()) == [path], "no backup without --force"


@pytest.mark.parametrize(("language", "cause"),
                         [("en", "the chapter's text changed"), ("zh_CN", "这一章的内容在那之后变了")])
def test_an_untouched_copy_of_a_changed_chapter_is_not_blamed_on_the_reader(
    book: Path, language: str, cause: str
) -> None:
    """The chapter changed (rebuilt, or updated) since an untouched copy was made: `get` says so, not
    "your edits?" (issue 39's third learner); a copy whose answer was edited still hears "your edits?"."""
    path = fork(resolve("90", book), language=language).path
    chapter = book / "book" / "90-fixture.md"
    chapter.write_text(chapter.read_text().replace("The first tab's text.", "The first tab's new text."))
    with pytest.raises(ForkExistsError, match="--force") as refused:
        fork(resolve("90", book), language=language)
    assert cause in str(refused.value) and "(your edits?)" not in str(refused.value)
    edited_copy(path, {FORK_FIX: "model = 'my work'"})
    with pytest.raises(ForkExistsError) as refused:
        fork(resolve("90", book), language=language)
    assert cause not in str(refused.value)
    assert ("your edits?" if language == "en" else "你改过它") in str(refused.value)


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
        ("check", "90"): "no copy of chapter 90-fixture in",
    }
    for argv, words in cases.items():
        assert main([*argv, "--book", str(book)]) == 2, argv
        error = capsys.readouterr().err
        assert words in error and error.count("\n") == 1 and "Traceback" not in error, (argv, error)
    with pytest.raises(NoExercisesError):
        fork(resolve("index", book))


def test_a_broken_notebook_says_get_it_again_not_fork(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = book / "broken.ipynb"
    broken.write_text("{ not json")
    assert main(["check", str(broken), "--book", str(book)]) == 2
    error = capsys.readouterr().err
    assert "get the chapter again" in error and "fork the" not in error and "Traceback" not in error, error


def test_cells_without_ids_get_verdicts_and_no_warning_naming_a_file_of_this_machine(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy edited by a script may hold cells without an id: nbformat gives each one, and its warning
    (with the path of nbformat's own file) is not the reader's business (the eleventh learner saw it)."""
    path = fork(resolve("90", book)).path
    raw = json.loads(path.read_text())
    for cell in raw["cells"]:
        cell.pop("id", None)
    path.write_text(json.dumps(raw))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails this test, as pytest's own filters would hide it
        assert main(["check", str(path), "--book", str(book)]) == 1
    captured = capsys.readouterr()
    assert "MissingIDField" not in captured.err + captured.out and "Traceback" not in captured.err


def test_a_cell_without_source_gets_verdicts_not_a_traceback(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stubs left as they are grade without a process: no cell's missing key may stop the verdicts."""
    path = fork(resolve("90", book)).path
    raw = json.loads(path.read_text())
    for cell in raw["cells"]:
        cell.pop("source", None)
    path.write_text(json.dumps(raw))
    assert main(["check", str(path), "--book", str(book)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    assert captured.out.count("not done yet") == 2, captured.out


def test_a_deleted_answer_cell_says_it_is_gone(book: Path) -> None:
    nb = forked_notebook(resolve("90", book))
    nb.cells = [cell for cell in nb.cells if not (cell.metadata.get("exercise") == FORK_FIX
                                                  and "solution" in cell.metadata.get("tags", []))]
    report = check(nb, "90-fixture.ipynb", book, only=FORK_FIX)
    gone = ("its answer cell is gone: get the chapter again with --output, and copy your answer into that "
            "copy's cell for this exercise")
    assert verdicts(report)[FORK_FIX] == (False, gone)


def test_answers_are_read_by_label_with_the_cells_a_reader_added_under_them(book: Path) -> None:
    chapter = resolve("90", book)
    nb = forked_notebook(chapter)
    at = stub_index(nb, FORK_FIX)
    added = nbformat.v4.new_code_cell("model = helper()")
    helper = nbformat.v4.new_code_cell("def helper():\n    return initialized(flex.autodiff()).fork(metal)")
    nb.cells[at + 1:at + 1] = [helper, added]  # new cells get ids of JupyterLab's kind, not cell-<n>
    found = answers_in(nb, chapter)
    assert found[FORK_FIX] == helper.source + "\n" + added.source, "the untouched stub above them is left out"
    assert "NotImplementedError" in found[REQUIREMENTS]
    nb.cells.insert(0, nb.cells.pop(at))  # the stub moved to the top: still the answer to its label
    assert "NotImplementedError" in answers_in(nb, chapter)[FORK_FIX]


def test_a_copys_check_cell_grades_the_saved_answer(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a copy's check cell runs, its notebook named: the file as saved (its stub, not done yet),
    and which file it graded."""
    from bookkit.exercises import check_saved

    path = fork(resolve("90", book)).path
    cell = next(c for c in nbformat.read(path, as_version=4).cells
                if c.metadata.get("exercise") == REQUIREMENTS and "check" in c.metadata.get("tags", []))
    assert f'check_saved("{REQUIREMENTS}", "90-fixture.ipynb")' in cell.source
    check_saved(REQUIREMENTS, "90-fixture.ipynb", book=book, notebook=str(path))
    out = capsys.readouterr().out
    first, second = out.splitlines()[:2]
    assert first == f"graded {path.resolve()} (as last saved)", out
    assert second.startswith("FAIL  Exercise 1  ex-90-requirements"), out
    assert "not done yet" in out and "ex-90-fork-fix" not in out, "only the cell's own exercise"


@pytest.mark.parametrize("front_end", ["__session__", "__vsc_ipynb_file__", None])
def test_a_check_cell_grades_the_kernels_own_notebook_or_refuses_never_a_namesake(
    book: Path, tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str], front_end: str | None
) -> None:
    """Issue 39's second learner: a copy saved as mine.ipynb beside a solved 90-fixture.ipynb, its check
    cell run in a kernel that does not say its notebook (nbclient), graded the solved one and said PASS.
    A kernel that says (JupyterLab, VS Code) gets its own file graded; one that does not gets a refusal
    that names the file it would have graded and how to name this one."""
    import IPython

    from bookkit.exercises import check_saved
    from bookkit.workbook import UnknownNotebookError

    monkeypatch.chdir(tmp_path)
    chapter = resolve("90", book)
    solved = fork(chapter, tmp_path / "90-fixture.ipynb").path
    source = chapter.read()
    edited_copy(solved, {ex.label: "\n".join(source.cells[i].source for i in ex.solution_cells)
                         for ex in exercises(source, chapter.name)})
    mine = fork(chapter, tmp_path / "mine.ipynb").path  # the stub, not done
    namespace = {front_end: str(mine)} if front_end else {}
    monkeypatch.setattr(IPython, "get_ipython", lambda: type("Shell", (), {"user_ns": namespace})())
    if front_end is None:
        with pytest.raises(UnknownNotebookError) as refused:
            check_saved(REQUIREMENTS, "90-fixture.ipynb", book=book)
        assert str(solved.resolve()) in str(refused.value) and "notebook=" in str(refused.value)
        assert capsys.readouterr().out == "", "nothing graded"
        return
    check_saved(REQUIREMENTS, "90-fixture.ipynb", book=book)
    out = capsys.readouterr().out
    assert out.startswith(f"graded {mine.resolve()} (as last saved)\nFAIL") and "not done yet" in out, out


def test_blank_is_comments_and_space_only() -> None:
    assert is_blank("") and is_blank("# nothing yet\n\n")
    assert not is_blank("pass") and not is_blank("None") and not is_blank("x = (")


# --- check (executes notebooks: slow) ------------------------------------------------------------


@pytest.fixture(scope="module")
def fixture_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The fixture chapter's own solutions, its copy, and an edited copy, each graded once."""
    root = Path(shutil.copytree(FIXTURE_BOOK, tmp_path_factory.mktemp("runs") / "book-root"))
    chapter = resolve("90", root)
    stubbed = fork(chapter, root / "exercises" / "90-fixture.ipynb").path
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
    tampered = nbformat.read(mine, as_version=4)
    for cell in tampered.cells:  # the reader's checks emptied, and the chapter's set-up cells too
        if "check" in cell.metadata.get("tags", []) or "def initialized" in cell.source:
            cell.source = "pass"
    return {
        "solutions": check(chapter.read(), chapter.source, root),
        "stubs": check(nbformat.read(stubbed, as_version=4), "stubs", root),
        "mine": check(nbformat.read(mine, as_version=4), "mine", root),
        "tampered": check(tampered, "tampered", root),
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
def test_a_wrong_solution_fails_with_the_checks_words(fixture_runs: dict) -> None:
    results = verdicts(fixture_runs["mine"])
    assert results[REQUIREMENTS] == (True, "")
    assert results[FORK_FIX] == (False, "step 0, gradients: expected 2, got 0")


@pytest.mark.slow
def test_emptied_check_and_set_up_cells_in_a_copy_change_no_verdict(fixture_runs: dict) -> None:
    """The checks and the chapter's set-up come from the book: what a reader's copy holds instead of them
    changes nothing (before, an emptied check cell let any answer pass)."""
    assert verdicts(fixture_runs["tampered"]) == verdicts(fixture_runs["mine"])


def _children() -> set[int]:
    """Processes whose parent is this one (Linux /proc), to see that no grading process is left running."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def test_get_next_to_a_chinese_copy_keeps_its_edition_and_its_header_says_how(
    book: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Chinese copy's header named `get 90` alone, which wrote an English copy and called the Chinese
    one "your edits?" (issue 39's eighth learner): it names its edition, and `get` keeps the copy's."""
    monkeypatch.chdir(book)
    path = fork(resolve("90", book), language="zh_CN").path
    assert "get 90-fixture --language zh_CN" in nbformat.read(path, as_version=4).cells[0].source
    before = path.read_bytes()
    assert main(["get", "90", "--book", str(book)]) == 0
    assert path.read_bytes() == before and "up to date" not in capsys.readouterr().out  # said in Chinese


def test_solutions_of_a_copy_are_refused_not_ignored(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`check FILE --solutions` graded the copy and said nothing of --solutions (the eighth learner)."""
    path = fork(resolve("90", book)).path
    assert main(["check", str(path), "--solutions", "--book", str(book)]) == 2
    error = capsys.readouterr().err
    assert "--solutions grades a chapter's own solutions" in error and error.count("\n") == 1


@pytest.mark.parametrize("limit", ["0", "-5", "nan", "inf", "soon"])
def test_a_time_limit_that_is_not_a_positive_number_is_refused(
    limit: str, book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--timeout -5` graded and said "timed out after -5 s" (issue 39's eighth learner)."""
    path = fork(resolve("90", book)).path
    with pytest.raises(SystemExit) as stopped:
        main(["check", str(path), "--timeout", limit, "--book", str(book)])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "positive number of seconds" in error and "Traceback" not in error


@pytest.mark.slow
def test_a_hang_is_a_failure_after_the_time_limit_and_the_process_is_killed(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {REQUIREMENTS: "while True:\n    pass"})
    before = _children()
    assert main(["check", str(path), "--timeout", "3", "--book", str(book)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  Exercise 1  ex-90-requirements" in out and "timed out after 3 s" in out
    assert "FAIL  Exercise 2  ex-90-fork-fix" in out and "not done yet" in out, "each exercise on its own"
    if Path("/proc/self/stat").exists():
        assert _children() <= before, "the grading process must not outlive the check"


@pytest.mark.slow
def test_an_answer_that_ends_the_process_is_a_failure_that_says_so(book: Path) -> None:
    path = edited_copy(fork(resolve("90", book)).path, {REQUIREMENTS: "import os\nos._exit(3)"})
    report = check(nbformat.read(path, as_version=4), "ends", book, timeout=600)
    passed, reason = verdicts(report)[REQUIREMENTS]
    assert not passed and reason.startswith("your answer ended the grading process (exit status 3"), reason
    assert "out of memory" not in reason


@pytest.mark.slow
def test_an_answer_typed_under_the_untouched_stub_is_graded(book: Path) -> None:
    path = fork(resolve("90", book)).path
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(stub_index(nb, FORK_FIX) + 1,
                    nbformat.v4.new_code_cell("model = initialized(flex.autodiff()).fork(metal)"))
    assert verdicts(check(nb, "under", book, timeout=600, only=FORK_FIX)) == {FORK_FIX: (True, "")}


@pytest.mark.slow
def test_check_cli_exit_status_is_0_only_if_all_pass(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "90", "--solutions", "--book", str(book)]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 exercises pass" in out
    # issue 39's second learner: `--book <an edited copy>` whose check returns at once said
    # "the book's checks"
    assert f"with the checks from {book.resolve()}, not the book's" in out.splitlines()[0], out


def test_a_chinese_copy_checked_with_another_book_says_so_in_chinese(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = fork(resolve("90", book), language="zh_CN").path
    main(["check", str(path), "--book", str(book), "--exercise", REQUIREMENTS])
    assert f"用 {book.resolve()} 里的检查（不是这本书自己的）" in capsys.readouterr().out.splitlines()[0]


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
        tree = ast.parse(source.cells[index].source)
        top = [node.name if isinstance(node, ast.FunctionDef) else type(node).__name__
               for node in tree.body if not isinstance(node, (ast.Import, ast.ImportFrom))]
        assert top == ["check"], (
            f"a check cell defines check(expect, answer), which the grader calls, and nothing else: {top}")
    assert any(f'check_saved("{exercise.label}"' in cell for cell in forked), "the copy's check cell is gone"


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
    names the answer must define before it runs the answer (bookkit/live/live-grading.js): so a cell
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




class BookRuns:
    """Every exercise's verdicts on its stub, a blank answer, each answer of tests/book/wrong_answers.py and
    its own solution, graded once per test session (the grading process is the slow part; a verdict is
    then said in every language)."""

    def __init__(self) -> None:
        self._done: dict[str, dict[str, dict]] = {}

    def verdicts(self, label: str) -> dict[str, dict]:
        if label not in self._done:
            exercise = _exercise(label)
            chapter = resolve(exercise.chapter, ROOT)
            source, copy = chapter.read(), forked_notebook(chapter)
            tries = {STUB: copy.cells[stub_index(copy, label)].source, BLANK: "pass",
                     BOOK: "\n".join(source.cells[index].source for index in exercise.solution_cells)}
            for kind, answers in (("wrong", WRONG), ("tampering", TAMPERING), ("right", RIGHT)):
                tries.update({f"{kind}-{number}": answer.source
                              for number, answer in enumerate(answers.get(label, []))})
            found = judge_answers(chapter, exercise, list(tries.values()), timeout=600)
            self._done[label] = dict(zip(tries, found, strict=True))
        return self._done[label]


STUB, BLANK, BOOK = "stub", "blank", "book"
_RUNS = BookRuns()


@pytest.fixture
def book_runs() -> BookRuns:
    """The session's BookRuns (function-scoped, so that no worker group holds every exercise: each
    exercise's tests share an xdist group instead, `_grouped`)."""
    return _RUNS


def _grouped(label: str) -> pytest.MarkDecorator:
    return pytest.mark.xdist_group(f"grading {label}")


def _exercise_params() -> list[object]:
    """BOOK_EXERCISES, each in its exercise's xdist group."""
    grouped = []
    for param in BOOK_EXERCISES:
        label = getattr(param.values[1], "label", None)
        marks = [*param.marks, *([_grouped(label)] if label else [])]
        grouped.append(pytest.param(*param.values, id=param.id, marks=marks))
    return grouped


@functools.cache
def _exercise(label: str):
    return next(ex for ex in book_exercises(ROOT) if ex.label == label)


def _result(label: str, verdict: dict, language: str = "en"):
    return result_of(_exercise(label), verdict, language, timeout=600)


@pytest.mark.parametrize(("chapter", "exercise"), _exercise_params())
def test_every_book_exercise_passes_with_its_solution_and_fails_as_a_stub_or_blank(
    chapter: str | None, exercise: object, book_runs: BookRuns
) -> None:
    """The chapter's own solution passes the grader; its stub is not done yet; a blank answer (`pass`)
    fails naming a name it must define (the checks run with the book's set-up, which lacks it)."""
    if isinstance(exercise, Exception):
        raise exercise
    found = book_runs.verdicts(exercise.label)
    assert found[BOOK] == {"status": "pass"}, _result(exercise.label, found[BOOK]).reason
    assert found[STUB] == {"status": "not_done"}
    names = names_to_define(resolve(chapter, ROOT).read(), exercise)
    assert found[BLANK]["status"] == "must_define" and found[BLANK]["name"] in names, found[BLANK]


def test_every_book_exercise_has_a_wrong_answer_and_every_answer_a_real_exercise() -> None:
    labels = {ex.label for ex in book_exercises(ROOT)}
    assert sorted(labels - set(WRONG)) == [], (
        "each exercise needs at least one wrong answer in tests/book/wrong_answers.py"
    )
    assert sorted((set(WRONG) | set(RIGHT) | set(TAMPERING)) - labels) == [], (
        "an answer for an exercise the book no longer has"
    )
    tried = [answer for table in (WRONG, TAMPERING) for answers in table.values() for answer in answers]
    assert all(answer.why and answer.says for answer in tried)


def _answer_params(tables: dict[str, dict[str, list[Answer]]]) -> list[object]:
    return [
        pytest.param(label, f"{kind}-{number}", answer, id=f"{label}~{kind}-{number}", marks=_grouped(label))
        for kind, table in tables.items()
        for label, answers in table.items()
        for number, answer in enumerate(answers)
    ]


HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(("label", "tried", "answer"),
                         _answer_params({"wrong": WRONG, "tampering": TAMPERING}))
def test_every_wrong_or_tampering_answer_fails_and_the_reason_points_at_the_mistake(
    label: str, tried: str, answer: Answer, book_runs: BookRuns
) -> None:
    """In both editions: the code says which check caught it (a refused answer, what was found), and
    the reader reads it in their language."""
    verdict = book_runs.verdicts(label)[tried]
    english, chinese = _result(label, verdict), _result(label, verdict, "zh_CN")
    assert not english.passed, f"a wrong answer passed ({answer.why}):\n{answer.source}"
    assert re.fullmatch(answer.says, english.code), (
        f"it failed, but not for the reason expected ({answer.why}): {english.code}: {english.reason}")
    assert answer.found in english.reason, english.reason
    assert chinese.code == english.code and HAN.search(chinese.reason), chinese.reason


@pytest.mark.parametrize(("label", "tried", "answer"), _answer_params({"right": RIGHT}))
def test_right_answers_in_other_words_pass(
    label: str, tried: str, answer: Answer, book_runs: BookRuns
) -> None:
    verdict = book_runs.verdicts(label)[tried]
    assert verdict == {"status": "pass"}, f"{answer.why}: {_result(label, verdict).reason}"


@pytest.mark.slow
def test_the_listed_wrong_answers_fail_on_the_command_line(tmp_path: Path, monkeypatch, capsys) -> None:
    """The command a reader types, on a copy of chapter 4 whose answers are two wrong ones of the list and
    on one of chapter 10 whose answer installs an IPython exception handler: the same grading as above."""
    monkeypatch.chdir(tmp_path)
    cases = {"04": {"ex-04-smoke-test": WRONG["ex-04-smoke-test"][3],
                    "ex-04-lost-gradient": WRONG["ex-04-lost-gradient"][4]},
             "10": {"ex-10-plain-fork": TAMPERING["ex-10-plain-fork"][0]}}
    for chapter, answers in cases.items():
        path = fork(resolve(chapter, ROOT)).path
        edited_copy(path, {label: answer.source for label, answer in answers.items()})
        assert main(["check", str(path), "--timeout", "600"]) == 1
        out = capsys.readouterr().out
        for label in answers:
            line = next(line for line in out.splitlines() if f"  {label}" in line)
            assert line.startswith("FAIL"), out
        assert "the chapter's own cell" not in out
    assert "not graded: your answer changed what the checks rely on (IPython: set_custom_exc)" in out, out


def test_the_real_book_toc_is_readable() -> None:
    assert [chapter.name for chapter in chapters(ROOT)][:2] == ["index", "01-initialized"]


# --- the grader's parts, in this process (no audit hook is installed here) --------------------------


def test_calls_are_counted_by_name_and_by_module() -> None:
    calls = Calls({"module.Param.fork": 2, "module.Module.fork": 1, "guard.TrainingGuard.backward": 3})
    assert calls.named("fork") == 3 and calls.within("guard") == 3 and calls.within("tensor") == 0


def test_shuffled_cases_never_come_in_the_order_given() -> None:
    expect = Expect()
    for _ in range(50):
        assert expect.shuffled(["node", "node", "plain", "lazy"]) != ["node", "node", "plain", "lazy"]
    assert expect.shuffled(["only"]) == ["only"]


def test_a_failed_expect_names_its_message_and_fills_it_in_each_language() -> None:
    from bookkit.grader.checking import CheckFailed

    with pytest.raises(CheckFailed) as failed:
        Expect()(False, "wrong", case="fresh", expected=["weight"], found=[])
    fields = failed.value.fields
    assert message("ex-01-is-lazy", failed.value.key, fields, "en") == (
        "a fresh Linear(4, 1): the parameters still recipes are ['weight'], got []")
    assert message("ex-01-is-lazy", failed.value.key, fields, "zh_CN").startswith("一个新的 Linear(4, 1)：")
    assert message("ex-01-is-lazy", "_common.not_a_function", {"name": "f", "got": "None"}, "en") == (
        "`f` must be a function, got None")



def test_a_refusal_says_whether_the_answer_started_used_or_changed_what_was_found() -> None:
    """Issue 39's fifth learner: calling sys._getframe was reported as having "changed" it."""
    verdicts = {
        "used": {"status": "refused", "found": ["sys._getframe"], "used": ["sys._getframe"], "started": []},
        "started": {"status": "refused", "found": ["os.fork", "Tensor.x"], "used": [],
                    "started": ["os.fork"]},
        "changed": {"status": "refused", "found": ["Tensor.x"], "used": [], "started": []},
    }
    said = {kind: {language: _result("ex-05-predict-node", verdict, language).reason
                   for language in ("en", "zh_CN")} for kind, verdict in verdicts.items()}
    assert "used something grading does not allow an answer (sys._getframe)" in said["used"]["en"], said
    assert "changed" not in said["used"]["en"], said
    assert "started a process (os.fork)" in said["started"]["en"], said
    assert "(also: Tensor.x)" in said["started"]["en"], said
    assert "changed what the checks rely on (Tensor.x)" in said["changed"]["en"], said
    assert "用了" in said["used"]["zh_CN"] and "启动了一个进程（os.fork）" in said["started"]["zh_CN"], said
    assert "Tensor.x" in said["started"]["zh_CN"] and "改动了" in said["changed"]["zh_CN"], said


def test_a_count_in_a_message_takes_the_nouns_form_for_its_number() -> None:
    """Issue 39's fifth learner: "called it 1 time(s)", "0 gradients for 1 parameter tensors"."""
    once = message("ex-07-guard", "through_guard", {"case": "x", "count": 1, "steps": 1}, "en")
    assert "it ran 1 time in 1 step" in once, once
    twice = message("ex-07-guard", "through_guard", {"case": "x", "count": 2, "steps": 3}, "en")
    assert "it ran 2 times in 3 steps" in twice, twice
    said = message("ex-12-step0-guard", "let_through", {"case": "x", "got": 0, "wanted": 1}, "en")
    assert "with 0 gradients for 1 parameter tensor" in said and "tensors" not in said, said
    said = message("ex-12-step0-guard", "let_through", {"case": "x", "got": "1", "wanted": "2"}, "en")
    assert "with 1 gradient for 2 parameter tensors" in said, said
    assert "(s)" not in json.dumps(table("en")), "a count's noun takes its form from the number"
    assert "1 次" in message("ex-07-guard", "through_guard", {"case": "x", "count": 1, "steps": 1}, "zh_CN")


def test_a_runs_outcome_in_a_message_is_named_in_the_readers_language() -> None:
    """8.1's verdict names the outcome its method got: by its name in the part "outcome_names" (issue 39's
    third learner found the id `crash-before-training` inside a Chinese sentence)."""
    fields = {"outcome": "crash-before-training", "line": "x"}
    chinese = message("ex-08-eighth-method", "trains", fields, "zh_CN")
    assert "训练之前崩溃" in chinese and "crash-before-training" not in chinese, chinese
    assert "crash-before-training" in message("ex-08-eighth-method", "trains", fields, "en")

# --- the Chinese edition's copy -----------------------------------------------------------------

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
        checks = [cell.source for cell in nb.cells if cell.metadata.get("exercise") == exercise.label
                  and "check" in cell.metadata.get("tags", [])]
        comments = [line for line in checks[0].splitlines() if line.startswith("#")]
        assert comments and all(HAN.search(line) for line in comments), checks[0]


def _check_words(source: str) -> tuple[set[str], set[str]]:
    """The message names and the case names a check cell's code uses: the second argument of
    `expect(...)`, the first of `expect.fail(...)`, and each case named by a string, as the first item
    of a tuple in a list of cases or as `case=`, `answer.running(...)`'s, `answer.rerun(...)`'s or
    `judged(...)`'s last."""
    keys, cases = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func, args = node.func, node.args
            strings = [arg.value for arg in args
                       if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
            if isinstance(func, ast.Name) and func.id == "expect" and len(args) > 1 and strings:
                keys.add(args[1].value)
            elif isinstance(func, ast.Attribute) and func.attr == "fail" and strings:
                keys.add(strings[0])
            elif isinstance(func, ast.Attribute) and func.attr in ("running", "rerun") and strings:
                cases.add(strings[0])
            elif isinstance(func, ast.Name) and func.id == "judged" and strings:
                cases.add(strings[-1])
            cases |= {keyword.value.value for keyword in node.keywords if keyword.arg == "case"
                      and isinstance(keyword.value, ast.Constant)}
        elif isinstance(node, ast.List):  # a list of cases: (case, what to build, what to expect, ...)
            cases |= {item.elts[0].value for item in node.elts if isinstance(item, ast.Tuple)
                      and len(item.elts) > 2 and isinstance(item.elts[0], ast.Constant)}
    return keys, cases


@pytest.mark.parametrize(("chapter", "exercise"), BOOK_EXERCISES)
def test_every_check_message_and_case_has_its_words_in_every_language(
    chapter: str | None, exercise: object
) -> None:
    """One home per language (bookkit/words/<language>.json's part "checks"), by exercise and name: every
    message a check names and every case it tries, in English and in Chinese, with the same
    placeholders; no words for a message the check no longer has."""
    if isinstance(exercise, Exception):
        raise exercise
    source = resolve(chapter, ROOT).read()
    keys, cases = set(), set()
    for index in exercise.check_cells:
        found = _check_words(source.cells[index].source)
        keys |= found[0]
        cases |= found[1]
    fields = re.compile(r"\{(\w+)(?::[^{}]*)?\}")  # {count} or {count:time|times}, by name
    for language in ("en", "zh_CN"):
        own = table(language).get(exercise.label, {})
        for key in keys:
            section, name = where(exercise.label, key)
            text = table(language).get(section, {}).get(name)
            assert text, f"{exercise.label}: no {language} words for the check's message {key!r}"
            english = table("en")[section][name]
            assert sorted(fields.findall(text)) == sorted(fields.findall(english)), (language, key)
        missing = cases - set(own.get("cases", {}))
        if exercise.label != "ex-13-predict":  # its cases are the methods' own names
            assert not missing, f"{exercise.label}: no {language} words for the cases {sorted(missing)}"
        unused = set(own) - {"cases"} - keys
        assert not unused, f"{exercise.label}: {language} words for messages no check has: {unused}"
    cases_of = {language: set(table(language)[exercise.label].get("cases", {}))
                for language in ("en", "zh_CN")}
    assert cases_of["zh_CN"] == cases_of["en"]


def test_the_common_messages_are_in_every_language() -> None:
    assert set(table("zh_CN")[COMMON]) == set(table("en")[COMMON])


@pytest.mark.slow
def test_a_chinese_copy_is_graded_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command's own words too (its progress line). No time limit a busy machine could reach: the
    set-up and the answer have minutes (this test failed under load when a kernel took its time)."""
    chapter = resolve("03", ROOT)
    nb = forked_notebook(chapter, language="zh_CN")
    nb.cells[stub_index(nb, "ex-03-repair")].source = WRONG["ex-03-repair"][0].source
    path = tmp_path / "03-not-a-leaf.ipynb"
    nbformat.write(nb, path)
    assert main(["check", str(path), "--timeout", "600"]) == 1
    lines = capsys.readouterr().out.splitlines()
    first, second = numbered(chapter)
    assert HAN.search(lines[0]) and "fresh" not in lines[0], lines[0]
    assert lines[1].startswith(f"未通过  练习 {first.number}  {first.label}") and "还没做" in lines[2]
    assert lines[3].startswith(f"未通过  练习 {second.number}  {second.label}")
    assert HAN.search(lines[4]), f"the wrong answer's reason is not Chinese: {lines[4]}"
    assert lines[-1] == f"{path}：2 道练习中 0 道通过"


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
    for name in ("pyproject.toml", "setup.py", "README.md", "_toc.yml"):
        shutil.copy(ROOT / name, source / name)
    for package in ("mlx_autodiff", "bookkit"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    (source / "book").mkdir()
    for chapter in (ROOT / "book").glob("*.md"):
        shutil.copy(chapter, source / "book" / chapter.name)
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
    notebook = fork(resolve("01", ROOT), folder / "01-initialized.ipynb").path
    edited_copy(notebook, {"ex-01-target": WRONG["ex-01-target"][1].source})  # graded by a process
    header = nbformat.read(notebook, as_version=4).cells[0].source
    command = shlex.split(re.search(r"```sh\n(.+)\n```", header)[1])
    assert command[0] == GRADER
    engine_at = subprocess.run([python, "-c", "import mlx_autodiff; print(mlx_autodiff.__file__)"],
                               capture_output=True, text=True, env=env, cwd=folder, check=True).stdout
    assert engine_at.startswith(str(site)), f"the engine came from {engine_at}, not the installed copy"
    shipped = site / "bookkit" / "_book" / "book" / "01-initialized.md"
    assert shipped.is_file(), "the wheel lacks the book's chapters"
    done = subprocess.run([str(environment / "bin" / command[0]), *command[1:]], capture_output=True,
                          text=True, env=env, cwd=folder, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "not a new model" in done.stdout and "0 of 2 exercises pass" in done.stdout, done.stdout


FAKE_JUDGE = '''
import json, os, sys
job = json.loads(sys.stdin.readline())
def say(message):
    os.write(job["channel"], (json.dumps({**message, "nonce": job["nonce"]}) + "\\n").encode())
say({"event": "ready"})
while sys.stdin.readline():
    say({"event": "verdict", "status": "pass"})
    say({"event": "ready"})
'''


def test_the_grading_process_imports_nothing_from_the_folder_grading_started_in(
    book: Path, tmp_path: Path, monkeypatch
) -> None:
    """Issue 39's second learner: an answer wrote the grader's judge.py into the folder `check` ran in,
    and the next wrong answer graded there passed. The grading process starts isolated (python -I) in an
    empty folder of its own, with the engine's and the book's own folders first on its path."""
    fake = tmp_path / "learner"
    for package in ("bookkit", "mlx_autodiff"):
        (fake / package / "grader").mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
        (fake / package / "grader" / "__init__.py").write_text("")
        (fake / package / "grader" / "judge.py").write_text(FAKE_JUDGE)
    monkeypatch.chdir(fake)
    monkeypatch.setenv("PYTHONPATH", str(fake))
    chapter = resolve("90", book)
    exercise = next(ex for ex in numbered(chapter) if ex.label == FORK_FIX)
    assert judge_answers(chapter, exercise, ["model = 42"], timeout=600)[0]["status"] != "pass"


def test_an_engine_module_loaded_from_elsewhere_is_named() -> None:
    """The grading process refuses to grade when any engine or grader module came from anywhere but the
    engine's folder (its verdict `foreign_engine`, said in the reader's language)."""
    from bookkit.grader.judge import _loaded_elsewhere
    from bookkit.workbook.grade import HOMES

    assert not any(name.startswith(("mlx_autodiff.", "bookkit.")) for name in _loaded_elsewhere(HOMES))
    found = _loaded_elsewhere({**HOMES, "bookkit": "/nowhere"})
    assert any(name.startswith("bookkit.grader.judge from ") for name in found), found
    assert not any(name.startswith("mlx_autodiff.") for name in found), found
    found = _loaded_elsewhere({**HOMES, "mlx_autodiff": "/nowhere"})
    assert any(name.startswith("mlx_autodiff.tensor from ") for name in found), found
    exercise = next(ex for ex in book_exercises(ROOT))
    for language in ("en", "zh_CN"):
        verdict = {"status": "foreign_engine", "found": found[:1], "engine": HOMES["mlx_autodiff"]}
        result = result_of(exercise, verdict, language)
        assert not result.passed and result.code == "foreign_engine" and found[0] in result.reason


def test_a_refusal_of_many_things_names_the_first_few_and_counts_the_rest() -> None:
    """A patch of a whole module found 30 to 80 names, all listed (issue 39's eighth learner)."""
    exercise = next(ex for ex in book_exercises(ROOT))
    found = [f"Tensor.m{k}" for k in range(12)]
    for language, more in (("en", "and 7 more"), ("zh_CN", "另有 7 项")):
        reason = result_of(exercise, {"status": "refused", "found": found}, language).reason
        assert "Tensor.m4" in reason and "Tensor.m5" not in reason and more in reason, reason


def test_plain_data_is_told_by_exact_type_never_by_what_the_value_says() -> None:
    """Issue 39's second learner (B4): a str or int whose __eq__ says yes to anything, a tuple whose
    __contains__ hides an item. `expect.plain` reads types only, calling nothing the value defines."""
    from bookkit.grader.checking import CheckFailed

    class Yes(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    class Hides(tuple):
        def __contains__(self, item: object) -> bool:
            return False

    expect = Expect()
    for fine in ("trains", 3, 0.5, True, None, ["weight", ("bias", 1)], ()):
        expect.plain(fine, "fine")
    for lookalike in (Yes("trains"), [Yes("weight")], Hides(("fork",)), (1, [Yes("x")]), {"a": 1}):
        with pytest.raises(CheckFailed) as failed:
            expect.plain(lookalike, "answer")
        assert failed.value.key == "_common.not_plain"


def test_a_chinese_get_and_check_speak_chinese(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 39's second learner (C1): `get --language zh_CN` printed "written; open it in JupyterLab", and
    `check` of a Chinese copy printed its errors in English after a Chinese header."""
    assert main(["get", "90", "--language", "zh_CN", "--book", str(book)]) == 0
    out = capsys.readouterr().out
    assert "已写好" in out and "评分用这条命令：" in out, out
    assert "written" not in out and "To grade" not in out, out
    copy = book / "exercises" / "90-fixture.ipynb"
    assert main(["check", str(copy), "--exercise", "ex-99-nope", "--book", str(book)]) == 2
    said = capsys.readouterr()
    assert said.err.startswith("错误: 章节 90-fixture 里没有要评分的练习 ex-99-nope"), said.err


def test_no_chinese_message_glues_an_exercise_name_to_a_han_character() -> None:
    """C3: "练习 1.1的检查": a name that ends in a number takes a space before the next Han character."""
    text = (ROOT / "bookkit" / "words" / "zh_CN.json").read_text(encoding="utf8")
    assert not re.findall(r"\{name\}[\u4e00-\u9fff]", text)
