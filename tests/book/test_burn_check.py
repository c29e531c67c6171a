"""burn-check, the command: every case of tests/burn_check_cases/ gives the findings its `//~` markers
expect, the article's program is flagged where the article's runs failed, a crate is read across its
files (target/ skipped), and bad input gets a message, not a crash.

A case marks each line that must be flagged with `//~ <rule>` at its end; a case with no marker must
give no finding at all. The same cases go through chapter 12's page in tests/site/test_burn_check_page.py.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bookkit.burn_check import EXAMPLES, FOLDER
from bookkit.burn_check.command import CheckerNotInstalledError, command, require_modules, run

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "burn_check_cases"
CASES = sorted(CASES_DIR.glob("*.rs"))
CRATE = ROOT / "tests" / "burn_check_crate"
MODULES = ROOT / "tests" / "burn_check_modules"
ARTICLE = EXAMPLES / "article.rs"
MARKER = re.compile(r"//~\s*(.+)$")
RULE_IDS = {"moved-then-trained", "same-device-move", "fork-after-to_device", "plain-without-train",
            "no-step-0-check"}


def expected(path: Path) -> list[tuple[int, str]]:
    """The (line, rule) pairs a case's markers ask for."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        marker = MARKER.search(line)
        if marker:
            found += [(number, rule) for rule in marker.group(1).split()]
    return sorted(found)


def findings(report_file: dict[str, Any]) -> list[tuple[int, str]]:
    return sorted((finding["line"], finding["rule"]) for finding in report_file["findings"])


def check(*arguments: str, cwd: Path = ROOT) -> tuple[int, dict[str, Any]]:
    result = run(["--format", "json", *arguments], cwd=cwd)
    assert result.stderr == "" or result.returncode == 2, result.stderr
    return result.returncode, json.loads(result.stdout) if result.stdout else {}


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """One run over every case, each case a crate of its own (each PATH is one)."""
    code, parsed = check(*[str(path.relative_to(ROOT)) for path in CASES])
    assert code == 1
    return {Path(file["path"]).name: file for file in parsed["files"]}


def test_the_table_has_forty_cases_about_half_of_them_flagged() -> None:
    flagged = [path for path in CASES if any(rule != "no-step-0-check" for _, rule in expected(path))]
    assert len(CASES) >= 40
    assert 0.4 <= len(flagged) / len(CASES) <= 0.6, f"{len(flagged)} of {len(CASES)} flagged"
    for path in CASES:
        assert path.name.startswith("flag_") == (path in flagged), f"{path.name}: its name says otherwise"
        assert {rule for _, rule in expected(path)} <= RULE_IDS, path.name


@pytest.mark.parametrize("case", CASES, ids=[path.stem for path in CASES])
def test_each_case_gives_exactly_the_findings_it_expects(case: Path, report: dict[str, Any]) -> None:
    assert findings(report[case.name]) == expected(case)


def test_a_finding_says_what_where_why_the_fix_and_the_chapter(report: dict[str, Any]) -> None:
    finding = report["flag_custom_loop.rs"]["findings"][0]
    assert (finding["line"], finding["column"]) == (6, 27)  # the `to_device` of `model.to_device(&gpu)`
    assert (finding["rule"], finding["number"], finding["severity"]) == ("moved-then-trained", 1, "error")
    assert "`model` is moved here with `to_device`" in finding["sentence"]
    assert "the optimizer's `step` at line 11" in finding["sentence"]
    assert "`.fork(&gpu)`" in finding["fix"]
    assert finding["assumed"][0] == "the function that built it reads its parameters, as the article's " \
        "`initialized` does"
    unknown = report["flag_struct_field.rs"]["findings"][0]  # a parameter: where it came from is not known
    assert unknown["assumed"][0].startswith("its parameters were read (loaded, printed or used) before")
    url = finding["chapter"]["url"]
    assert url.endswith("/en/book/03-not-a-leaf.html#the-parameter-is-to-device-s-output")


# ----- what a finding assumes, where syntax cannot tell ------------------------------------------------

def case_finding(report: dict[str, Any], name: str, line: int) -> dict[str, Any]:
    [finding] = [f for f in report[name]["findings"] if f["line"] == line and f["rule"] != "no-step-0-check"]
    return finding


def test_a_move_in_one_branch_is_flagged_assuming_that_branch_runs(report: dict[str, Any]) -> None:
    finding = case_finding(report, "flag_if_branch_moves.rs", 5)
    assert "the branch at line 5 is the one that runs" in finding["assumed"][-1]
    assigned = case_finding(report, "flag_if_branch_moves.rs", 17)  # `model = ..` inside the `if`
    assert "the branch at line 16 is the one that runs" in assigned["assumed"][-1]
    arm = case_finding(report, "flag_match_branch_moves.rs", 6)
    assert "the branch at line 6 is the one that runs" in arm["assumed"][-1]


def test_a_helper_that_returns_the_moved_model_is_flagged_at_its_move(report: dict[str, Any]) -> None:
    finding = case_finding(report, "flag_helper_returns_moved.rs", 3)
    assert "`place(…)` at line 33 returns it, and `fit(…)` at line 33 trains its parameter `model`" \
        in finding["sentence"]
    method = case_finding(report, "flag_helper_returns_moved.rs", 12)
    assert "`place_on(…)` at line 34 returns it" in method["sentence"]


def test_a_method_several_types_have_says_which_one_it_assumed(report: dict[str, Any]) -> None:
    finding = case_finding(report, "flag_method_name_ambiguous.rs", 20)
    assert finding["assumed"][-1].startswith("this `fit(…)` is the one at line 4: 2 functions of that name")


def test_train_after_a_move_from_an_autodiff_device_needs_fork(report: dict[str, Any]) -> None:
    finding = case_finding(report, "flag_autodiff_to_device_train.rs", 4)
    assert "then `.train()` (at line 4) panics" in finding["sentence"]
    assert "\"Autodiff should not wrap an autodiff tensor.\"" in finding["sentence"]
    assert finding["fix"].startswith("Move it with `fork` and drop `.train()`: `.fork(&gpu)`")
    assert finding["assumed"] == ["the function that built it reads its parameters, as the article's "
                                  "`initialized` does"]  # the autodiff device is written: not assumed


def test_columns_count_characters_and_code_with_a_backtick_keeps_its_span(report: dict[str, Any]) -> None:
    case = ROOT / "tests" / "burn_check_cases" / "flag_backtick_and_wide_characters.rs"
    finding = case_finding(report, case.name, 5)
    line = case.read_text(encoding="utf-8").splitlines()[4]
    assert line[finding["column"] - 1:].startswith("to_device(&gpu)")  # Python counts characters, as rustc
    assert "`` Mlp::load(\"w`1😀.bpk\", &Device::flex().autodiff()) `` is moved here" in finding["sentence"]


def test_a_field_of_a_holder_whose_type_is_not_written_names_the_type_it_assumed(tmp_path: Path) -> None:
    case = (CASES_DIR / "flag_field_assigned_outside.rs").read_text(encoding="utf-8")
    case = case.replace("let mut trainer = Trainer::new(ModelConfig::new().init(&gpu));",
                        "let mut trainer = restore_trainer();")
    code, parsed = one_file(tmp_path, case.encode())
    assert code == 1
    [finding] = [f for f in parsed["files"][0]["findings"] if f["line"] == 22]
    assert finding["assumed"][-1] == ("`trainer` is a `Trainer`, whose field `model` is trained "
                                      "(its type is not written where it is made)")


# ----- the article's program ---------------------------------------------------------------------------

def article_lines() -> dict[str, int]:
    """The line of each method's arm in the article's `main`."""
    arms = {}
    for number, line in enumerate(ARTICLE.read_text(encoding="utf-8").splitlines(), start=1):
        match = re.match(r'\s*"([\w-]+)" => train', line)
        if match:
            arms[match.group(1)] = number
    return arms


def test_the_articles_program_is_flagged_where_the_articles_runs_failed() -> None:
    code, parsed = check(str(ARTICLE.relative_to(ROOT)))
    assert code == 1
    arms = article_lines()
    assert set(arms) == {"direct", "ad-to_device", "plain-to_device", "lazy-to_device", "ad-fork",
                         "plain-fork", "plain-to_device-train"}
    by_line: dict[int, list[dict[str, Any]]] = {}
    for finding in parsed["files"][0]["findings"]:
        by_line.setdefault(finding["line"], []).append(finding)
    source = ARTICLE.read_text(encoding="utf-8").splitlines()

    def rule_at(method: str) -> list[str]:
        return [finding["rule"] for finding in by_line.get(arms[method], [])]

    assert rule_at("ad-to_device") == ["moved-then-trained"]
    assert rule_at("plain-to_device") == ["plain-without-train"]
    assert rule_at("plain-fork") == ["plain-without-train"]  # the article: the same as plain-to_device
    for method in ["direct", "lazy-to_device", "ad-fork", "plain-to_device-train"]:
        assert rule_at(method) == [], method
    moved = by_line[arms["ad-to_device"]][0]
    assert source[moved["line"] - 1][moved["column"] - 1:].startswith("to_device(&metal)")
    plain = by_line[arms["plain-to_device"]][0]
    assert source[plain["line"] - 1][plain["column"] - 1:].startswith("to_device(&metal)")
    assert "`.train()`" in plain["fix"]
    # The article's train prints grads.len() but compares it with nothing: rule 5, for information.
    loop = [f for f in parsed["files"][0]["findings"] if f["rule"] == "no-step-0-check"]
    assert [source[f["line"] - 1].strip() for f in loop] == ["for _ in 0..5 {"]


# ----- a crate -------------------------------------------------------------------------------------------

def test_a_crate_is_read_across_its_files_and_target_is_skipped() -> None:
    code, parsed = check(str(CRATE.relative_to(ROOT)))
    assert code == 1
    assert [file["path"] for file in parsed["files"]] == [
        "tests/burn_check_crate/src/main.rs", "tests/burn_check_crate/src/training.rs"]
    main_rs = parsed["files"][0]
    assert findings(main_rs) == expected(CRATE / "src" / "main.rs")
    assert "tests/burn_check_crate/src/training.rs:8" in main_rs["findings"][0]["sentence"]


def test_a_call_reaches_the_function_its_module_path_names() -> None:
    """infer::run and train::run in src/infer.rs and src/train.rs: `use crate::train::run` makes `run`
    the training one, and the moved model sent to infer::run is not flagged."""
    code, parsed = check(str(MODULES.relative_to(ROOT)))
    assert code == 1
    by_path = {file["path"]: file for file in parsed["files"]}
    for path in sorted(MODULES.rglob("*.rs")):
        file = by_path[str(path.relative_to(ROOT))]
        assert findings(file) == expected(path), path.name
    [finding] = by_path["tests/burn_check_modules/src/main.rs"]["findings"]
    assert "the optimizer's `step` at tests/burn_check_modules/src/train.rs:6" in finding["sentence"]


def test_a_call_whose_function_is_not_resolved_says_which_one_it_assumed(tmp_path: Path) -> None:
    for path in MODULES.rglob("*.rs"):
        target = tmp_path / path.relative_to(MODULES)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8").replace("use crate::train::run;\n", ""),
                          encoding="utf-8")
    code, parsed = check(str(tmp_path / "src"))
    assert code == 1
    [main] = [file for file in parsed["files"] if file["path"].endswith("main.rs")]
    [finding] = main["findings"]
    assert finding["line"] == 11 and finding["assumed"][-1].startswith("this `run(…)` is the one at ")
    assert "src/train.rs:2: 2 functions of that name are in the code" in finding["assumed"][-1]


def test_two_paths_are_two_crates(tmp_path: Path) -> None:
    """A function of one PATH does not train what another PATH hands to a function of that name."""
    (tmp_path / "a.rs").write_text(
        "fn main() { let m = load(&Device::flex().autodiff()).to_device(&gpu); fit(m); }\n", encoding="utf-8")
    training = (CRATE / "src" / "training.rs").read_text(encoding="utf-8")
    (tmp_path / "b.rs").write_text(training, encoding="utf-8")
    code, _ = check(str(tmp_path / "a.rs"), str(tmp_path / "b.rs"))
    assert code == 0
    code, _ = check(str(tmp_path))
    assert code == 1


# ----- output for people, exit status, help -----------------------------------------------------------

def test_text_output_gives_file_line_column_rule_fix_and_chapter_and_exits_1() -> None:
    result = run([str(ARTICLE.relative_to(ROOT))], cwd=ROOT)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    arm = article_lines()["ad-to_device"]
    head = next(line for line in lines if line.startswith(f"bookkit/burn_check/examples/article.rs:{arm}:"))
    assert head.endswith("error[1 moved-then-trained] Moved, then trained")
    at = lines.index(head)
    assert lines[at + 2].startswith("  fix: Move a model you will train with `fork`")
    # `initialized(&flex.autodiff())` reads its parameters on an autodiff device: nothing is assumed.
    assert lines[at + 3].startswith("  see: Chapter 3, http")
    assert lines[-1] == "Files read: 1. To fix: 3. For information: 1."


def test_the_chinese_findings_are_in_chinese() -> None:
    result = run(["--language", "zh_CN", str(ARTICLE.relative_to(ROOT))], cwd=ROOT)
    assert result.returncode == 1
    assert "搬过去，然后训练" in result.stdout and "修法：" in result.stdout
    assert "/zh_CN/book/03-not-a-leaf.html" in result.stdout
    assert result.stdout.splitlines()[-1] == "读取的文件：1。需要修：3。仅供参考：1。"


def test_information_only_findings_leave_the_exit_status_0() -> None:
    code, parsed = check("tests/burn_check_cases/ok_valid_for_validation.rs")
    assert code == 0
    assert [f["rule"] for f in parsed["files"][0]["findings"]] == ["no-step-0-check"]
    assert parsed["summary"] == {"files": 1, "unread": 0, "errors": 0, "infos": 1}


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_help_says_it_reads_syntax_not_types(language: str) -> None:
    result = run(["--help", "--language", language])
    assert result.returncode == 0
    assert ("reads syntax, not types" if language == "en" else "读的是语法，不是类型") in result.stdout
    assert "--format json" in result.stdout and "target/" in result.stdout


# ----- bad input ----------------------------------------------------------------------------------------

def one_file(tmp_path: Path, content: bytes, name: str = "input.rs") -> tuple[int, dict[str, Any]]:
    path = tmp_path / name
    path.write_bytes(content)
    return check(str(path))


def test_not_rust_is_said_and_nothing_is_checked(tmp_path: Path) -> None:
    code, parsed = one_file(tmp_path, b"def train(model):\n    model = model.to(device)\n    return model\n")
    assert code == 2
    [notice] = parsed["files"][0]["notices"]
    assert notice["kind"] == "not-rust" and notice["message"].startswith("This does not look like Rust")
    assert parsed["files"][0]["findings"] == []


def test_a_syntax_error_is_located_and_the_rest_is_still_checked(report: dict[str, Any]) -> None:
    case = report["flag_syntax_error_rest.rs"]
    [notice] = case["notices"]
    assert notice["kind"] == "syntax-error" and (notice["line"], notice["column"]) == (3, 11)
    assert "Syntax error at line 3, column 11" in notice["message"]
    assert findings(case) == [(9, "moved-then-trained")]


def test_a_5_mb_file_is_not_read_and_says_why(tmp_path: Path) -> None:
    line = b"fn f() { let model = model.to_device(&device); }\n"
    code, parsed = one_file(tmp_path, line * (5_000_000 // len(line) + 1))
    assert code == 2
    [notice] = parsed["files"][0]["notices"]
    assert notice["kind"] == "too-large"
    assert notice["message"].startswith("Not read: 5.0 MB is more than the 1.0 MB")


def test_an_empty_file_has_nothing_to_check(tmp_path: Path) -> None:
    code, parsed = one_file(tmp_path, b"  \n\n")
    assert code == 0
    assert [n["kind"] for n in parsed["files"][0]["notices"]] == ["empty"]


def test_non_utf8_bytes_are_located(tmp_path: Path) -> None:
    code, parsed = one_file(tmp_path, "fn main() { // é\n}\n".encode().replace("é".encode(), b"\xe9"))
    assert code == 2
    [notice] = parsed["files"][0]["notices"]
    assert notice["kind"] == "not-utf8" and "offset 15" in notice["message"]


def test_a_missing_path_or_a_folder_without_rust_exits_2_with_a_message(tmp_path: Path) -> None:
    result = run([str(tmp_path / "nowhere")])
    assert result.returncode == 2 and "no such file or folder" in result.stderr
    clean = str(ROOT / "tests" / "burn_check_cases" / "ok_fork.rs")
    result = run([clean, str(tmp_path / "nowhere")])  # one of several: still a mistake in the command
    assert result.returncode == 2 and "no such file or folder" in result.stderr
    assert result.stdout.splitlines()[-1] == "Files read: 1. To fix: 0. For information: 0."
    result = run([str(tmp_path)])
    assert result.returncode == 2 and "no .rs files under" in result.stderr
    result = run(["--format", "yaml", str(ARTICLE)])
    assert result.returncode == 2 and "--format takes one of: text, json" in result.stderr


def test_a_usage_error_is_said_in_the_language_asked_for() -> None:
    result = run(["--format", "yaml", "--language", "zh_CN", str(ARTICLE)])
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "用法：burn-check [--format text|json] [--language en|zh_CN] 路径...", "--format 只接受：text, json"]


def test_files_not_read_are_not_counted_as_read(tmp_path: Path) -> None:
    (tmp_path / "good.rs").write_text("fn main() {}\n", encoding="utf-8")
    (tmp_path / "latin1.rs").write_bytes(b"fn main() { // \xe9 }\n")
    result = run([str(tmp_path)])
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "Files read: 1 (not read: 1). To fix: 0. For information: 0."


def test_standard_input_is_read() -> None:
    result = subprocess.run(command(["--format", "json", "-"]), input=ARTICLE.read_text(encoding="utf-8"),
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert json.loads(result.stdout)["files"][0]["path"] == "<stdin>"


def test_a_missing_install_says_to_run_make_setup(tmp_path: Path) -> None:
    with pytest.raises(CheckerNotInstalledError, match=r"run `make setup`.*npm ci"):
        require_modules(tmp_path)


# ----- the words -----------------------------------------------------------------------------------------

def leaves(table: Any, path: str = "") -> dict[str, str]:
    if isinstance(table, dict):
        return {key: text for name, value in table.items()
                for key, text in leaves(value, f"{path}.{name}" if path else name).items()}
    return {path: table}


def test_both_languages_have_every_key_with_the_same_placeholders() -> None:
    english = leaves(json.loads((FOLDER / "words" / "en.json").read_text(encoding="utf-8")))
    chinese = leaves(json.loads((FOLDER / "words" / "zh_CN.json").read_text(encoding="utf-8")))
    assert english.keys() == chinese.keys()
    for key, text in english.items():
        assert set(re.findall(r"\{(\w+)\}", chinese[key])) == set(re.findall(r"\{(\w+)\}", text)), key


def test_every_rule_and_assumption_the_rules_name_has_words() -> None:
    source = (FOLDER / "rules.js").read_text(encoding="utf-8")
    words = json.loads((FOLDER / "words" / "en.json").read_text(encoding="utf-8"))
    assert set(re.findall(r'^  "([\w-]+)": \{ number', source, re.M)) == set(words["rules"]) == RULE_IDS
    named = set(re.findall(r'"(initialized|autodiff|[\w]+-reads)"', source))
    assert named and named <= set(words["assumed"])
    kinds = set(re.findall(r'kind: "(\w+)"(?:, [\w:. ]+)?, \.\.\.this\.here', source))
    assert kinds and kinds <= set(words["how"])


def test_code_nested_too_deep_is_not_followed_and_says_where(tmp_path: Path) -> None:
    code, parsed = one_file(tmp_path, b"fn main() { let x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"; }\n")
    assert code == 2
    [notice] = parsed["files"][0]["notices"]
    assert notice["kind"] == "too-deep"
    assert notice["message"].startswith("Not read: the code nests deeper than 400")


def test_a_missing_closing_brace_still_leaves_the_whole_functions_checked(tmp_path: Path) -> None:
    """tree-sitter's recovery wraps a file whose last brace is missing in one error node: the whole
    functions inside it are Rust, and are checked."""
    case = (ROOT / "tests" / "burn_check_cases" / "flag_custom_loop.rs").read_text(encoding="utf-8")
    code, parsed = one_file(tmp_path, (case + case.replace("fn main", "fn again").rstrip()[:-1]).encode())
    assert code == 1
    [notice] = parsed["files"][0]["notices"]
    assert ("moved-then-trained", 6) in [(f["rule"], f["line"]) for f in parsed["files"][0]["findings"]]
    # Where the error is: the `{` of `fn again` that the file never closes, not line 1, column 1.
    brace = case.count("\n") + 2
    assert (notice["kind"], notice["line"], notice["column"]) == ("syntax-error", brace, 12)
    assert notice["message"].startswith(f"Syntax error: the `{{` at line {brace}, column 12 is never closed")
