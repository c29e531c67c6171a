"""What an answer does to the interpreter the checks run in: seen, named, and refused.

An answer and the checks share one process (a check calls the answer's functions and reads its
values), so an answer could try to reach the checks: patch `Tensor.is_require_grad`, install an
IPython exception handler, trace the checks' frames, reset the call counts. Two things watch:

- `snapshot()`: before the answer runs, what the checks rely on (every attribute of the engine's
  modules and classes, the contents of their constants such as `SCENARIOS`, the callables of mlx,
  builtins and the few standard modules the grader uses, Python's and IPython's hooks); compared
  after the answer and after the checks.
- `install()`'s audit hook (PEP 578; Python cannot remove one once added): it counts the probes'
  calls into the windows a check opens (`probes.py`), and, while an answer or its checks run, it
  notes a tracer or another audit hook, `gc`'s object walks, `object.__setattr__` called by name
  on a protected class or function, and, from the answer's own code, the attribute reads CPython
  audits (`__code__`, `__defaults__`, `__kwdefaults__`, `f_code`, `tb_frame`, `gi_frame`, ...),
  `sys._getframe` and ctypes; and, while the answer's code is on the stack (or from a thread the
  answer started), a process started (`os.fork`, `subprocess.Popen`, ...: a backward pass or a training
  run in a child process is counted nowhere) and a file of the engine's package opened (its source,
  to run a copy of a module the exercise asks the reader to write, 12.1).

Either finding refuses the answer, naming what was found and whether the answer changed it, used it
or started a process (`Monitor.kind`). What neither sees: a patch the answer
makes and undoes within its own run (`Tensor.is_require_grad = ...`, then back before it returns),
since Python raises no audit event for assigning a class attribute and the snapshot compares only
before and after; such a patch lasts only while the answer's own code runs, so the checks' reads
after it meet the engine as it is, but engine objects the answer built meanwhile may carry what the
patch made (as an answer could also forge engine state directly, `node.requirement = ...`). Nor
frames reached without an audited read (a signal handler's frame argument, `logging.currentframe()`,
then `f_back` and `f_locals`): see judge.py for what that can and cannot reach. This is not a
sandbox: a reader who studies the grader can forge a verdict; what it stops are the changes an
answer can make with ordinary Python by mistake or by a plain shortcut.
"""

from __future__ import annotations

import _thread
import builtins
import os
import sys
import types
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bookkit.grader.probes import CALL

SIGNAL = "mlx_autodiff.signal"
"""The audit event the grading process's stand-in for `signal.signal` raises (judge.py): an answer's
signal handler would be handed the interrupted frame, with no audited read."""
RELOADED = ("signal", "_signal", "sys", "gc", "logging", "_posixsubprocess")
"""Modules an answer may not import afresh (after removing them from sys.modules) to get back what the
grading process took away or watches."""


class Blocked(RuntimeError):
    """Raised inside the answer's own call that would reach the grader (a frame, the interpreter's
    objects, memory): the call does not happen, and the answer is refused when it ends."""
WATCH, UNWATCH = "mlx_autodiff.watch", "mlx_autodiff.unwatch"
"""Audit events that open and close a window of counted probe calls (its Counter the argument)."""
ANSWER_FILE = "<answer>"
"""The file name the answer's code is compiled with: how the hook knows the answer's frames."""
ENGINE_PREFIXES = ("mlx_autodiff", "bookkit")
"""The engine's and the book's modules, whose every attribute (data too) and every class attribute is
compared."""
HOOK_PREFIXES = ("mlx", "IPython.core.interactiveshell")
"""Modules whose callables and classes are compared (besides STANDARD)."""
STANDARD = ("builtins", "os", "sys", "json", "random", "re", "math", "operator", "functools",
            "itertools", "collections", "types", "inspect", "traceback", "signal", "_signal", "logging",
            "_posixsubprocess", "subprocess")
"""The standard modules the grader and the checks use: their callables are compared."""
NOTICED_ANYWHERE = ("sys.settrace", "sys.setprofile", "sys.addaudithook", "sys._current_frames",
                    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
                    "sys.monitoring.register_callback", SIGNAL)
NOTICED_FROM_ANSWER = ("sys._getframe", "sys._getframemodulename", "object.__getattr__", "code.__new__")
FORK_EXEC = "mlx_autodiff.fork_exec"
"""The audit event the grading process's stand-in for `_posixsubprocess.fork_exec` raises (judge.py):
Python audits no call of it, and `multiprocessing` starts its spawn and forkserver children with it."""
STARTS_A_PROCESS = ("os.fork", "os.forkpty", "os.posix_spawn", "os.exec", "os.spawn", "os.system",
                    "os.startfile", "subprocess.Popen", FORK_EXEC)
"""Audit events that start a process (or replace this one): refused while the answer's code runs, since
what a child process computes (a backward pass, a training run) no window counts."""
STARTS_FOR_THE_BOOK = (os.path.join("bookkit", "pictures", "render.py"),)
"""The book's code that may start a process while an answer runs: Graphviz drawing a graph the answer
displays (`dot -Tsvg`, which computes nothing a check counts)."""
PASSED_THROUGH = ("inspect.py", "traceback.py", os.path.join("ctypes", "__init__.py"),
                  os.path.join("logging", "__init__.py"))
"""Standard modules an answer may use to reach frames: their frames are looked through to the caller."""


class Monitor:
    """The audit hook's controls; only the grading process's main function holds this object."""

    def __init__(self, state: dict[str, Any]) -> None:
        self._state = state

    def protect(self, objects: Iterable[object]) -> None:
        """Classes and functions whose patching (even undone later) refuses the answer."""
        self._state["protected"].update(id(value) for value in objects)

    def watch(self, found: bool) -> None:
        """Start (True) or stop noting tampering: while the answer and its checks run."""
        self._state["active"] = found
        self._state["files"] = {ANSWER_FILE}

    def keep_closed(self, folder: str) -> None:
        """A folder whose files an answer may not open (the engine's package: its source)."""
        self._state["closed"] = os.path.realpath(folder)

    def keep_unwritten(self, folders: Iterable[str]) -> None:
        """Folders an answer may not write in: where Python finds code (a `.pth` file or a module dropped
        there would run in every later grading process, learner 8) and the book's own files (the checks
        come from them)."""
        self._state["unwritten"] = tuple(dict.fromkeys(os.path.realpath(folder) for folder in folders))

    def found(self) -> list[str]:
        """What was noted since the last `watch(True)`, each once, in order."""
        return list(dict.fromkeys(self._state["found"]))

    def kind(self, found: str) -> str:
        """How the answer came to a finding: "started" a process, "used" something refused (a call, a
        read), or "changed" it (noted by the hook or the snapshot)."""
        return self._state["kinds"].get(found, "changed")

    def forget(self) -> None:
        self._state["found"].clear()
        self._state["kinds"].clear()


def install() -> Monitor:
    """Add the grading process's audit hook (once: it stays for the process's life)."""
    state: dict[str, Any] = {"windows": [], "found": [], "kinds": {}, "active": False, "busy": False,
                             "protected": set(), "files": {ANSWER_FILE}, "closed": None, "unwritten": ()}
    windows: list[Counter[str]] = state["windows"]
    getframe = sys._getframe
    main_thread, thread = _thread.get_ident(), _thread.get_ident

    def answer_running() -> bool:
        """Whether the answer's code is anywhere on the stack (a library it called may raise the event:
        `multiprocessing`, `pathlib`), and no code of the book's that may start a process stands
        between; or whether the event comes from a thread, which only an answer starts here."""
        if thread() != main_thread:
            return True
        frame = getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename
            if name in state["files"]:
                return True
            if name.endswith(STARTS_FOR_THE_BOOK):
                return False
            frame = frame.f_back
        return False

    def from_answer() -> bool:
        """Whether the code that raised the event (through `inspect` and the like) is the answer's."""
        frame = getframe(1)
        while frame is not None and (frame.f_code.co_filename == __file__
                                     or frame.f_code.co_filename.endswith(PASSED_THROUGH)):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename in state["files"]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == CALL:
            for window in windows:
                window[args[0]] += 1
        elif event == WATCH:
            windows.append(args[0])
        elif event == UNWATCH:
            windows[:] = [window for window in windows if window is not args[0]]
        elif state["active"] and not state["busy"]:
            state["busy"] = True  # the checks below raise events of their own
            try:
                noticed = _noticed(event, args, state, from_answer)
                kind = "used"
                if noticed is None and _escapes(event, args, state) and answer_running():
                    noticed = blocked = _escape_named(event, args, state)
                    kind = "started" if event in STARTS_A_PROCESS else "used"
                else:
                    blocked = noticed if noticed and event != "object.__setattr__" and from_answer() else None
                if noticed:
                    state["found"].append(noticed)
                    if event not in ("object.__setattr__", "object.__delattr__"):
                        state["kinds"].setdefault(noticed, kind)
            finally:
                state["busy"] = False
            if blocked:  # stop it now: a frame or an object it would reach could forge the verdict at once
                raise Blocked(f"the grading process refuses {blocked} from an answer")

    sys.addaudithook(hook)
    return Monitor(state)


def _escapes(event: str, args: tuple[Any, ...], state: dict[str, Any]) -> bool:
    """Whether the event would take work out of the checks' sight: a process started, or a file of the
    engine's package opened."""
    return event in STARTS_A_PROCESS or (event == "open" and (_closed_file(args[0], state) is not None
                                                               or _written_file(args, state) is not None))


def _escape_named(event: str, args: tuple[Any, ...], state: dict[str, Any]) -> str:
    """The finding as the reader reads it: `os.fork`, `open(mlx_autodiff/guard.py)` (no machine path)."""
    if event == "open":
        closed = _closed_file(args[0], state)
        return f"open({closed})" if closed is not None else f"open({_written_file(args, state)}, to write)"
    return "_posixsubprocess.fork_exec" if event == FORK_EXEC else event


def _closed_file(path: object, state: dict[str, Any]) -> str | None:
    """`path` as `<package>/<file>` if it is inside the folder an answer may not open, else None."""
    folder = state["closed"]
    if folder is None or isinstance(path, int):
        return None
    try:
        full = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return None
    if full != folder and not full.startswith(folder + os.sep):
        return None
    return os.path.relpath(full, os.path.dirname(folder)).replace(os.sep, "/")


_WRITES = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _written_file(args: tuple[Any, ...], state: dict[str, Any]) -> str | None:
    """The file's name if this `open` event writes inside a folder an answer may not write in, else None
    (the event's arguments: the path, `open()`'s mode or None for `os.open`, the flags)."""
    path, mode, flags = (tuple(args) + (None, None, None))[:3]
    writes = (isinstance(mode, str) and any(letter in mode for letter in "wax+")) or \
        (isinstance(flags, int) and flags & _WRITES)
    if not writes or path is None or isinstance(path, int):
        return None
    try:
        full = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return None
    inside = any(full == folder or full.startswith(folder + os.sep) for folder in state["unwritten"])
    return os.path.basename(full) if inside else None


def _noticed(event: str, args: tuple[Any, ...], state: dict[str, Any], from_answer: Any) -> str | None:
    """What an audit event shows the answer doing to the checks, or None if nothing."""
    if event == "compile" and isinstance(args[1], str):
        state["files"].add(args[1])  # code the answer compiles is the answer's too
    elif event in NOTICED_ANYWHERE:
        return event
    elif event in ("object.__setattr__", "object.__delattr__") and id(args[0]) in state["protected"]:
        owner = args[0]
        where = getattr(owner, "__qualname__", None) or type(owner).__name__
        return f"{where}.{args[1]}"
    elif (event in NOTICED_FROM_ANSWER or event.startswith("ctypes.")) and from_answer():
        return f"{event}({args[1]})" if event == "object.__getattr__" else event
    elif event == "open" and isinstance(args[0], str) and args[0].startswith("/proc/") \
            and args[0].endswith("/mem"):
        return f"open({args[0]})"
    elif event == "import" and args[0] in RELOADED and from_answer():
        return f"import {args[0]} afresh"
    return None


# ----- the snapshot ----------------------------------------------------------------------------


def _hooky(value: object) -> bool:
    """Whether replacing `value` could change what a check does: code, classes, modules, descriptors."""
    return callable(value) or isinstance(value, (types.ModuleType, property, staticmethod, classmethod))


def _compared(value: object, constant: bool = True) -> object:
    """A value as the snapshot keeps it: a constant container as its items (identities), anything else
    itself (a module's working state, such as a cache, changes as the engine runs)."""
    if not constant:
        return value
    if isinstance(value, dict):
        return tuple((key, id(item)) for key, item in list(value.items()))
    if isinstance(value, (list, set, frozenset, tuple)):
        return tuple(id(item) for item in value)
    return value


def _modules() -> list[tuple[types.ModuleType, bool]]:
    """(module, every attribute) for each module the snapshot reads."""
    found = []
    for name, module in list(sys.modules.items()):
        if not isinstance(module, types.ModuleType):
            continue
        engine = name.startswith(ENGINE_PREFIXES)
        if engine or name in STANDARD or name.startswith(HOOK_PREFIXES):
            found.append((module, engine))
    return found


def snapshot(shell: Any = None) -> dict[str, object]:
    """What the checks rely on, by a name a reader understands ("Tensor.is_require_grad")."""
    taken: dict[str, object] = {}
    for module, everything in _modules():
        for attribute, value in list(vars(module).items()):
            if everything or _hooky(value):
                taken[f"{module.__name__}.{attribute}"] = _compared(value, attribute.isupper())
            if isinstance(value, type) and value.__module__ == module.__name__:
                for inner, member in list(vars(value).items()):
                    if everything or _hooky(member):
                        taken[f"{value.__qualname__}.{inner}"] = _compared(member, inner.isupper())
        taken[f"sys.modules[{module.__name__!r}]"] = sys.modules.get(module.__name__)
    for hook in ("displayhook", "excepthook", "breakpointhook", "unraisablehook"):
        taken[f"sys.{hook}"] = getattr(sys, hook, None)
    taken["sys.gettrace()"], taken["sys.getprofile()"] = sys.gettrace(), sys.getprofile()
    taken["sys.meta_path"], taken["sys.path_hooks"] = _compared(sys.meta_path), _compared(sys.path_hooks)
    taken["builtins.__dict__"] = _compared(vars(builtins))
    if shell is not None:
        taken.update(_ipython(shell))
    return taken


def _ipython(shell: Any) -> dict[str, object]:
    """IPython's hooks on the shell that runs the chapter's cells (set_custom_exc, transformers, ...)."""
    manager = shell.input_transformer_manager
    taken = {
        "IPython: set_custom_exc": (_compared(shell.custom_exceptions), shell.CustomTB),
        "IPython: input_transformers_cleanup": _compared(shell.input_transformers_cleanup),
        "IPython: input_transformers_post": _compared(shell.input_transformers_post),
        "IPython: ast_transformers": _compared(shell.ast_transformers),
        "IPython: input_transformer_manager": (manager, _compared(manager.cleanup_transforms),
                                               _compared(manager.line_transforms),
                                               _compared(manager.token_transformers)),
        "IPython: displayhook": shell.displayhook,
        "IPython: display_pub": shell.display_pub,
    }
    for event, callbacks in shell.events.callbacks.items():
        taken[f"IPython: events.{event}"] = _compared(callbacks)
    for attribute in ("run_cell", "run_code", "showtraceback", "transform_cell"):
        taken[f"IPython: {attribute}"] = vars(shell).get(attribute)
    for cls in type(shell).__mro__:
        for attribute, member in list(vars(cls).items()):
            if _hooky(member):
                taken[f"{cls.__qualname__}.{attribute}"] = member
    return taken


def changed(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """The names whose values differ between two snapshots, or that are gone, sorted. A name only
    `after` has (a module the answer imported) changes nothing the checks relied on; a new attribute
    of a protected class is the audit hook's to notice."""
    return sorted(name for name in before if not _same(before[name], after.get(name, _GONE)))


def _same(a: object, b: object) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a is b or (type(a) in (int, str, float, bool, bytes) and a == b)


_GONE = object()


def protected_objects() -> list[object]:
    """The classes and functions whose patching the hook notes at once: the engine's, mlx's types,
    builtins' types and IPython's shell class."""
    found: list[object] = []
    for module, _ in _modules():
        for value in list(vars(module).values()):
            if isinstance(value, type) or isinstance(value, types.FunctionType):
                found.append(value)
                if isinstance(value, type):
                    found += [member for member in vars(value).values()
                              if isinstance(member, types.FunctionType)]
    return found
