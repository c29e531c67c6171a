"""The grading process: `python -m bookkit.grader.judge`, started by workbook/grade.py.

Its stdin carries one JSON line, the job (from the book: the chapter's set-up cells, the
exercise's checks, the names its answer must define, the folder to run in, the pipe to write
verdicts to and a nonce), then one JSON line per answer to grade. For each answer it

1. runs the set-up cells in a fresh IPython namespace (as the book build ran them),
2. takes a snapshot of what the checks rely on (monitor.py) and runs the answer in a copy of
   that namespace, the names it must define removed first, counting the engine's calls,
3. runs the checks in their own copy of the set-up namespace, which receives from the answer
   only the names it must define (so a rebound `metal` or `len` in the answer reaches no
   check): each check cell defines `check(expect, answer)`, called with the two (checking.py),
4. writes a verdict: pass, or why not; refused when the answer changed what the checks rely on.

After a refused answer the interpreter is not the one the checks expect: the process ends, and
its parent starts another for the answers left. Everything the answer prints goes to the
process's stdout and stderr, which the parent keeps out of the verdict.
"""

from __future__ import annotations

import builtins
import json
import os
import site
import sys
from typing import Any

from bookkit.grader.checking import (
    Answer,
    AnswerRaised,
    Calls,
    CheckFailed,
    Expect,
    Refused,
    _audit,
    _raised_by_answer,
)
from bookkit.grader.monitor import (
    ANSWER_FILE,
    FORK_EXEC,
    SIGNAL,
    UNWATCH,
    WATCH,
    Blocked,
    Monitor,
    changed,
    install,
    protected_objects,
    snapshot,
)
from bookkit.grader.probes import install as install_probes

CHECK_FILE = "<check>"


def main() -> int:
    private_input = os.fdopen(os.dup(0), "r", encoding="utf8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # an answer that reads stdin reads nothing, not the next answer
    job = json.loads(private_input.readline())
    channel, nonce = job["channel"], job["nonce"]

    write, dumps = os.write, json.dumps  # bound now: an answer that replaces them cannot silence this

    def say(message: dict[str, Any]) -> None:
        write(channel, (dumps({**message, "nonce": nonce}, ensure_ascii=False) + "\n").encode())

    _stand_in_for_glue()
    monitor = install()
    install_probes()
    _import_the_engine()
    foreign = _loaded_elsewhere(job["homes"])
    if foreign:
        say({"event": "verdict", "status": "foreign_engine", "found": foreign,
             "engine": ", ".join(dict.fromkeys(job["homes"].values()))})
        return 0
    monitor.protect(protected_objects())
    monitor.keep_closed(os.path.dirname(sys.modules["mlx_autodiff"].__file__))
    monitor.keep_unwritten([sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(),
                            *(os.path.dirname(home) for home in job["homes"].values())])
    shell = _shell()
    _no_signal_handlers()
    _fork_exec_audited()
    while True:
        os.chdir(job["workdir"])
        setup = _run_setup(shell, job["setup"])
        if "status" in setup:
            say(setup)
            return 0
        say({"event": "ready"})
        line = private_input.readline()
        if not line:
            return 0
        verdict = _grade(shell, monitor, setup, job, json.loads(line)["answer"])
        say({"event": "verdict", **verdict})
        if verdict["status"] == "refused":
            return 0  # this interpreter is no longer the one the checks expect
        shell.reset(new_session=False)


def _stand_in_for_glue() -> None:
    """`from myst_nb import glue` in a chapter's set-up gets a `glue` that only displays: the values it
    glues are for the book's pages, and a grader installed without the book's build tools (the
    exercises extra) has no myst-nb."""
    import types

    from IPython.display import display as show

    def glue(name: str, variable: object, display: bool = True) -> None:
        if display:
            show(variable)

    stand_in = types.ModuleType("myst_nb")
    stand_in.glue = glue  # type: ignore[attr-defined]
    sys.modules["myst_nb"] = stand_in


def _import_the_engine() -> None:
    """Every engine and book module the checks may import, imported before the answer can replace one
    (not the book's site build, live mode, workbook or benchmarks, which no check imports)."""
    import importlib
    import pkgutil

    import bookkit
    import mlx_autodiff

    for package in (mlx_autodiff, bookkit):
        for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if found.name.endswith(NOT_IMPORTED):
                continue
            if found.name.startswith(CHECKED_BOOK_PARTS) or found.name.startswith("mlx_autodiff."):
                importlib.import_module(found.name)


CHECKED_BOOK_PARTS = ("bookkit.runs.methods", "bookkit.runs.scenarios", "bookkit.runs.combinations",
                      "bookkit.pictures", "bookkit.stepper", "bookkit.explorer", "bookkit.words",
                      "bookkit.grader", "bookkit.site.layout")
"""The book's modules a chapter's set-up or a check may import (those that were the engine's
package's before issue 43 moved them out)."""
NOT_IMPORTED = (".sphinx_ext", ".__main__")
"""Of those, the ones no set-up or check imports: Sphinx extensions, and command lines (importing a
`__main__` runs its command)."""


def _no_signal_handlers() -> None:
    """From here on, `signal.signal` refuses: a handler is called with the frame a signal interrupted, and
    from it, through `f_back` and `f_locals` (which Python reads without an audit event), the grader's
    own frames. The original is kept nowhere an answer could find it; the grader needs no handler."""
    import _signal
    import signal

    def refused(signalnum: object, handler: object) -> None:
        _audit(SIGNAL, signalnum)
        raise Blocked("the grading process takes no signal handlers")

    for module in (signal, _signal):
        module.signal = refused  # type: ignore[attr-defined]


def _fork_exec_audited() -> None:
    """`_posixsubprocess.fork_exec` raises `FORK_EXEC` first: Python audits `subprocess.Popen` but not
    this call under it, which `multiprocessing` makes itself to start a spawn or forkserver child (the
    default on macOS), so an answer's child process is seen however it was started. A chapter's set-up
    still starts processes (`run_isolated`): the monitor refuses only those the answer's code starts.
    The original is a keyword default, whose read (`__kwdefaults__`) is audited."""
    import _posixsubprocess
    import subprocess

    def fork_exec(*args: Any, __original: Any = _posixsubprocess.fork_exec) -> Any:
        _audit(FORK_EXEC)
        return __original(*args)

    _posixsubprocess.fork_exec = fork_exec  # type: ignore[attr-defined]
    if getattr(subprocess, "_fork_exec", None) is not None:  # Python 3.11 on binds it at import
        subprocess._fork_exec = fork_exec  # type: ignore[attr-defined]


def _loaded_elsewhere(homes: dict[str, str]) -> list[str]:
    """The engine's and the book's modules (the grader's too) loaded from anywhere but their package's
    folder in `homes`, where the parent loaded them: "bookkit.grader.judge from
    /some/folder/bookkit/grader/judge.py"."""
    from pathlib import Path

    found = []
    for name, module in list(sys.modules.items()):
        package = name.split(".")[0]
        if name == "__main__" or package not in homes:
            continue
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None) or getattr(module, "__file__", None)
        if origin is None or not Path(origin).resolve().is_relative_to(Path(homes[package]).resolve()):
            found.append(f"{name} from {origin}")
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if main_file is None or not Path(main_file).resolve().is_relative_to(Path(homes["bookkit"]).resolve()):
        found.append(f"the grading process's own code from {main_file}")
    return found


def _shell() -> Any:
    """An IPython shell for the chapter's cells (their `%xmode`, `display`), writing no history file."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    return InteractiveShell.instance(config=config)


def _run_setup(shell: Any, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The set-up namespace after the chapter's cells, or a verdict if one failed unexpectedly."""
    for cell in cells:
        result = shell.run_cell(cell["source"], store_history=False, silent=True)
        error = result.error_before_exec or result.error_in_exec
        if error is not None and not cell["raises"]:
            return {"event": "verdict", "status": "setup_failed", "cell": cell["index"],
                    "error": _error(error)}
    return dict(shell.user_ns)


def _grade(shell: Any, monitor: Monitor, setup: dict[str, Any], job: dict[str, Any],
           source: str) -> dict[str, Any]:
    try:
        code = compile(shell.transform_cell(source), ANSWER_FILE, "exec")
    except SyntaxError as error:
        return {"status": "raised", "error": _error(error)}
    checks = [compile(check, CHECK_FILE, "exec") for check in job["checks"]]
    with shell.builtin_trap:  # `display` and `get_ipython` for the answer, as in a notebook
        kept = builtins.__dict__.copy()
        before = snapshot(shell)
        monitor.forget()
        monitor.watch(True)

        def found() -> list[str]:
            return [*_builtins_put_back(kept), *_found(monitor, before, shell)]

        try:
            verdict = _answer_then_checks(shell, setup, job, source, code, checks, found)
            found_now = [*verdict.pop("found", []), *found()]
        finally:
            monitor.watch(False)
    if not found_now:
        return verdict
    found_now = list(dict.fromkeys(found_now))
    by_kind = {kind: [name for name in found_now if monitor.kind(name) == kind]
               for kind in ("used", "started")}
    return {"status": "refused", "found": found_now, **by_kind}  # the rest changed


def _answer_then_checks(shell: Any, setup: dict[str, Any], job: dict[str, Any], source: str,
                        code: Any, checks: list[Any], verify: Any) -> dict[str, Any]:
    """Run the answer, then (if it defined what it must) the checks; the verdict before tampering."""
    defines = job["defines"]
    base = {name: value for name, value in setup.items() if name not in defines}
    base["__builtins__"] = builtins
    namespace = dict(base)
    calls = Calls()
    _audit(WATCH, calls)
    try:
        exec(code, namespace)
    except BaseException as error:  # noqa: BLE001 (SystemExit and KeyboardInterrupt are answers too)
        changes = verify()
        if changes:
            return {"status": "refused", "found": changes}
        stub = isinstance(error, NotImplementedError) and job["label"] in str(error)
        return {"status": "not_done"} if stub else {"status": "raised", "error": _error(error)}
    finally:
        _audit(UNWATCH, calls)
    changes = verify()  # before anything of the grader's meets a replaced builtin or hook
    if changes:
        return {"status": "refused", "found": changes}
    missing = [name for name in defines if name not in namespace]
    if missing:
        return {"status": "must_define", "name": missing[0]}
    scope = {**base, **{name: namespace[name] for name in defines}}
    try:
        for check in checks:  # each defines check(expect, answer), which is then called
            exec(check, scope)
            scope.pop("check")(Expect(), Answer(source, calls, code, base, verify))
    except Refused as refused:
        return {"status": "refused", "found": refused.found}
    except CheckFailed as failed:
        return {"status": "failed", "key": failed.key, "fields": failed.fields}
    except AnswerRaised as error:
        return {"status": "raised_in_check", "case": error.case, "error": _error(error.error)}
    except BaseException as error:  # noqa: BLE001
        kind = "raised_in_check" if _raised_by_answer(error) else "check_error"
        return {"status": kind, "case": "", "error": _error(error)}
    return {"status": "pass"}


def _builtins_put_back(kept: dict[str, Any]) -> list[str]:
    """Each builtin the answer replaced, added or removed (as "builtins.<name>"), all put back first, so
    that the grader's own code runs on Python's builtins. Uses no builtin itself."""
    current = builtins.__dict__
    changed = [name for name in kept if current.get(name, _GONE) is not kept[name]]
    changed += [name for name in current if name not in kept]
    if changed:
        current.clear()
        current.update(kept)
    return [f"builtins.{name}" for name in changed]


_GONE = object()


def _found(monitor: Monitor, before: dict[str, object], shell: Any) -> list[str]:
    """What the answer changed or did that the checks must not meet, each named once."""
    return list(dict.fromkeys([*monitor.found(), *changed(before, snapshot(shell))]))


def _error(error: BaseException) -> dict[str, str]:
    return {"type": type(error).__name__, "message": str(error)}


if __name__ == "__main__":
    sys.exit(main())
