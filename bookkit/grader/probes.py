"""The engine's own calls, counted: how an answer made a value, whatever name it used.

`install()` replaces each public function and method of the engine's modules with a probe that
reports its name (`sys.audit(CALL, "module.Param.fork")`) and calls the original. It runs before
any cell of the chapter, so every way a reader can reach the engine (an alias, a `getattr` of a
built-up name, a helper in another cell, `Param.uninitialized(...)._with(t).fork(...)`) reaches a
probe; a check asks how often each ran (`checking.Answer`), not which names the code spells. The
counts live in the monitor's audit hook (`monitor.py`), where an answer cannot reset them.

Three ways around a probe are closed: the tape's own `backward` (what every `Tensor.backward` is made
of) is probed too, so a check counts backward passes as `tape.backward`; an operator alias of a probed
method (`Tensor.__matmul__ = matmul`, `__add__`, `__mul__`, ...) gets the same probe; and a probe keeps
its original as a keyword-only default, not in a closure cell (`probe.__closure__[0].cell_contents`,
which Python reads without an audit event): reading `__kwdefaults__` or `__defaults__` raises the
audit event `object.__getattr__`, and the monitor refuses an answer that does. `inspect` sees, behind
`__wrapped__`, the original's code in a function that cannot run the engine (`_source_of`).
"""

from __future__ import annotations

import enum
import importlib
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

CALL = "mlx_autodiff.call"
"""The audit event a probe raises, with the probed function's name."""
ENGINE = {"module": "mlx_autodiff.module", "tensor": "mlx_autodiff.tensor", "tape": "mlx_autodiff.tape",
          "nn": "mlx_autodiff.nn", "optim": "mlx_autodiff.optim", "guard": "mlx_autodiff.guard",
          "methods": "bookkit.runs.methods", "scenarios": "bookkit.runs.scenarios"}
"""The modules whose functions are probed, by the short name a probe is counted under (`nn.Linear`)."""
UNPROBED = {"Tensor.__init__", "Node.__init__"}
"""Constructors called for every op: counting them would only slow every check down."""


def install() -> dict[str, Callable[..., Any]]:
    """Probe every public function and method of the ENGINE modules (and `__init__`); {name: probe}."""
    probes: dict[str, Callable[..., Any]] = {}
    for short, name in ENGINE.items():
        module = importlib.import_module(name)
        for attribute, value in list(vars(module).items()):
            if getattr(value, "__module__", None) != module.__name__:
                continue  # imported from elsewhere: probed where it is defined
            if isinstance(value, type) and not issubclass(value, (enum.Enum, BaseException)):
                probes.update(_probe_class(value, short))
            elif isinstance(value, types.FunctionType) and not attribute.startswith("_"):
                probe = _probe(f"{short}.{attribute}", value)
                _rebind_everywhere(value, probe)
                probes[f"{short}.{attribute}"] = probe
    return probes


def _probe_class(cls: type, short: str) -> dict[str, Callable[..., Any]]:
    probes = {}
    public = {id(value): attribute for attribute, value in vars(cls).items() if not attribute.startswith("_")}
    for attribute, value in list(vars(cls).items()):
        if id(value) in public and public[id(value)] != attribute:
            attribute, alias = public[id(value)], attribute  # `__matmul__ = matmul`: the same probe
            setattr(cls, alias, probes.get(f"{short}.{cls.__qualname__}.{attribute}") or value)
            continue
        if attribute.startswith("_") and attribute != "__init__":
            continue
        name = f"{short}.{cls.__qualname__}.{attribute}"
        if f"{cls.__qualname__}.{attribute}" in UNPROBED:
            continue
        if isinstance(value, staticmethod):
            probe: Any = staticmethod(_probe(name, value.__func__))
        elif isinstance(value, classmethod):
            probe = classmethod(_probe(name, value.__func__))
        elif isinstance(value, types.FunctionType):
            probe = _probe(name, value)
        else:
            continue  # properties and data: reading them is not a call this book asks about
        setattr(cls, attribute, probe)
        probes[name] = probe
    return probes


def _probe(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function`, reporting each call; its name and docstring kept, the original not in a closure (its
    defaults are read only through audited attributes)."""

    def probe(*args: Any, __probed: Callable[..., Any] = function, __name: str = name,
              __audit: Callable[..., None] = sys.audit, **kwargs: Any) -> Any:
        __audit(CALL, __name)
        return __probed(*args, **kwargs)

    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(probe, attribute, getattr(function, attribute, None))
    probe.__wrapped__ = _source_of(function)  # type: ignore[attr-defined]
    probe.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    return probe


def _stand_in(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("while grading, __wrapped__ of an engine function only shows inspect where its source "
                       "is, and runs nothing: call the engine's functions by their own names")


def _source_of(function: Callable[..., Any]) -> Callable[..., Any]:
    """What `inspect` finds behind a probe for its source lines (the stepper shows tape.py's `backward`):
    a function that runs nothing, its code placed where the original's is in its file."""
    code = function.__code__  # type: ignore[attr-defined]
    placed = _stand_in.__code__.replace(co_filename=code.co_filename, co_firstlineno=code.co_firstlineno,
                                        co_name=code.co_name)
    return types.FunctionType(placed, {}, function.__name__)


def _rebind_everywhere(original: Callable[..., Any], probe: Callable[..., Any]) -> None:
    """Every engine module that imported `original` by name gets the probe instead."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("mlx_autodiff", "bookkit"):
            for attribute, value in list(vars(module).items()):
                if value is original:
                    setattr(module, attribute, probe)
