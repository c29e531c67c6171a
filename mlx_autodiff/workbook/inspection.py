"""What a check cell may ask about a solution beyond its values: the code it ran, the calls it made.

Some exercises state a constraint that no value shows: "without calling
`fork`", "without `mlx_autodiff.guard`", "through `TrainingGuard`", "without
a forward pass". A check reads the solution's code (`cell_source`, `calls`,
`reaches`) or counts the calls it makes (`counting`). Values are checked
first wherever they can tell right from wrong; these are for the rest.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import types
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .names import bound_names


def cell_source(name: str) -> str:
    """The source of the last cell run in this kernel that binds `name` at its top level."""
    from IPython import get_ipython

    shell = get_ipython()
    history = shell.user_ns.get("In", []) if shell is not None else []
    for source in reversed(history):
        if name in bound_names(source):
            return source
    raise LookupError(f"no cell run in this kernel defines `{name}`: run your solution cell first.")


def calls(code: str | Callable[..., object], name: str) -> bool:
    """Whether `code` (source text, or a function) calls `name`, as `name(...)` or `something.name(...)`."""
    source = code if isinstance(code, str) else inspect.getsource(code)
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == name) or (
                isinstance(func, ast.Attribute) and func.attr == name
            ):
                return True
    return False


def reaches(fn: Callable[..., object], module: str) -> list[str]:
    """The names through which `fn`, or a function of the reader's it calls, uses `module`.

    Follows the names its code reads (globals, closures, imports inside it)
    into the reader's own functions, so a helper cannot hide the use.
    """
    found: list[str] = []
    seen: set[int] = set()
    parts = module.split(".")

    def visit(function: types.FunctionType) -> None:
        if id(function) in seen:
            return
        seen.add(id(function))
        namespace = {**function.__globals__}
        for cell_name, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=True):
            try:
                namespace[cell_name] = cell.cell_contents
            except ValueError:  # an empty cell: a name bound later
                continue
        for code in _code_objects(function.__code__):
            names = set(code.co_names)
            if module in names or all(part in names for part in parts):
                found.append(f"import {module}")
            for name in (*code.co_names, *code.co_freevars):
                value = namespace.get(name)
                if isinstance(value, types.ModuleType):
                    if value.__name__ == module or (
                        module.startswith(value.__name__ + ".")
                        and all(part in names for part in parts[len(value.__name__.split(".")) :])
                    ):
                        found.append(name)
                elif getattr(value, "__module__", None) == module:
                    found.append(name)
                elif isinstance(value, types.FunctionType) and value.__module__ == function.__module__:
                    visit(value)

    visit(fn)
    return list(dict.fromkeys(found))


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every code object nested in it (inner functions, comprehensions)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


@contextmanager
def counting(*methods: Callable[..., object]) -> Iterator[Counter[str]]:
    """Count the calls to each of `methods` (given as `Class.method`) made inside the block.

    `with counting(TrainingGuard.backward, Optimizer.step) as calls:` gives
    `calls["TrainingGuard.backward"]`; the methods are restored afterwards.
    """
    counts: Counter[str] = Counter()
    patched = []
    for method in methods:
        owner_name, _, attribute = method.__qualname__.rpartition(".")
        owner = importlib.import_module(method.__module__)
        for part in owner_name.split("."):
            owner = getattr(owner, part)
        original = owner.__dict__[attribute]
        key = method.__qualname__

        def counted(*args: object, _original=method, _key=key, **kwargs: object) -> object:
            counts[_key] += 1
            return _original(*args, **kwargs)

        setattr(owner, attribute, functools.wraps(method)(counted))
        patched.append((owner, attribute, original))
    try:
        yield counts
    finally:
        for owner, attribute, original in reversed(patched):
            setattr(owner, attribute, original)
