"""What the book's check cells use: `expect` fails with a named message, `answer` says what the
answer did.

A check cell defines `def check(expect, answer):` (so that running it in a notebook only defines a
function); the grading process calls it with these two, which the answer never sees:

    expect(found == ["weight"], "fresh", found=found)   # fails with the message "fresh" of
                                                        # words/<language>.json's "checks"
    expect.function(untouched, "untouched")            # a message if it is not a function
    expect.exactly(eighth, Scenario, "eighth")         # that class itself, never a subclass
    answer.calls.named("fork")                          # engine forks while the answer's cell ran
    with answer.running("half") as calls:               # the answer's code, run by the check:
        result = no_effect(model, x, y)                  # an error in it says which case it was
    calls.within("guard")                                # engine calls made inside the block
    again, calls = answer.rerun("other_p", p=other)      # the answer's cell again, `p` another value:
    again["trainable"]                                   # a value answer tried on more than one case

A message is looked up by the exercise's label and its name (then in "_common"); `fields` fill
its {placeholders}; a case ("half") is named by the key of its words, too. So a check's words live
in one file per language, and a translated check checks exactly what the English one does.
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from bookkit.grader.monitor import ANSWER_FILE, UNWATCH, WATCH

T = TypeVar("T")
_audit = sys.audit  # bound when the grader starts, before any answer could replace sys.audit


class CheckFailed(Exception):
    """A check's `expect` failed: its message's name and the values that fill it."""

    def __init__(self, key: str, fields: dict[str, str]) -> None:
        super().__init__(key)
        self.key, self.fields = key, fields


class Refused(BaseException):
    """The answer changed what the checks rely on (a BaseException, which no `except Exception` hides)."""

    def __init__(self, found: list[str]) -> None:
        super().__init__(", ".join(found))
        self.found = found


class AnswerRaised(Exception):
    """The answer's own code raised while a check ran it (`answer.running(case)`)."""

    def __init__(self, case: str, error: BaseException) -> None:
        super().__init__(case)
        self.case, self.error = case, error


class Calls(Counter[str]):
    """How often each probed engine function ran (`probes.py` names: "module.Param.fork")."""

    def named(self, method: str) -> int:
        """Calls of every probed function or method called `method` (`fork`: Module's and Param's)."""
        return sum(count for name, count in self.items() if name.rsplit(".", 1)[-1] == method)

    def within(self, module: str) -> int:
        """Calls of anything in one engine module (`guard`: its functions and TrainingGuard)."""
        return sum(count for name, count in self.items() if name.split(".", 1)[0] == module)


class Expect:
    """`expect(condition, key, **fields)`: fail with message `key` unless `condition` holds."""

    def __call__(self, condition: object, key: str, **fields: object) -> None:
        if not condition:
            self.fail(key, **fields)

    def fail(self, key: str, **fields: object) -> None:
        raise CheckFailed(key, {name: _text(value) for name, value in fields.items()})

    def function(self, value: object, name: str) -> None:
        """`name` must be a function (or anything callable)."""
        self(callable(value), "_common.not_a_function", name=name, got=_kind(value))

    def plain(self, value: object, name: str) -> None:
        """`name` must be plain data: str, int, float, bool or None, or lists, tuples and sets of them,
        each of exactly that type, never a subclass (whose `__eq__`, `__contains__` or `__str__` could say
        anything). Call it before comparing what an answer returned."""
        self(_plain(value), "_common.not_plain", name=name, got=_kind(value))

    def instance(self, value: object, kind: type | tuple[type, ...], name: str) -> None:
        """`name` must be an instance of `kind` (a class of the engine, usually)."""
        kinds = kind if isinstance(kind, tuple) else (kind,)
        wanted = " / ".join(cls.__name__ for cls in kinds)
        self(isinstance(value, kinds), "_common.not_a", name=name, kind=wanted, got=_kind(value))

    def exactly(self, value: object, kind: type, name: str) -> None:
        """`name` must be a `kind` itself, never a subclass (whose methods could do what its fields do not
        say: a Scenario whose build() forks)."""
        self(type(value) is kind, "_common.not_exactly", name=name, kind=kind.__name__, got=_kind(value))

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """`items` in an order no answer can know in advance: never the order given, when it can differ."""
        order = list(items)
        shuffler = random.Random(os.urandom(16))
        if len({repr(item) for item in order}) < 2:
            return order
        while True:
            shuffler.shuffle(order)
            if [repr(item) for item in order] != [repr(item) for item in items]:
                return order


class Answer:
    """What the answer did: its source, the engine calls its cell made, and ways to run it again."""

    def __init__(self, source: str, calls: Calls, code: Any = None, scope: dict[str, Any] | None = None,
                 verify: Callable[[], list[str]] | None = None) -> None:
        self.source = source
        self.calls = calls
        self._code, self._scope = code, scope or {}
        self._verify = verify or list

    def rerun(self, case: str, **names: Any) -> tuple[dict[str, Any], Calls]:
        """The answer's cell run again where the chapter's `names` are other values (a fresh copy of
        the set-up's namespace otherwise): what it binds, and the engine calls it made."""
        namespace = {**self._scope, **names}
        with self.running(case) as calls, _where_imported_from(self._scope, names):
            exec(self._code, namespace)
        return namespace, calls

    @contextmanager
    def running(self, case: str) -> Iterator[Calls]:
        """Count the engine calls inside the block; an error the answer's code raises there says `case`.
        When the block ends, what the checks rely on must be as it was before the answer ran: a patch
        the answer's function leaves behind is refused (one it undoes before returning is not seen:
        monitor.py says why)."""
        calls = Calls()
        _audit(WATCH, calls)
        try:
            yield calls
        except (CheckFailed, AnswerRaised):
            raise
        except Exception as error:
            if _raised_by_answer(error):
                raise AnswerRaised(case, error) from error
            raise
        finally:
            _audit(UNWATCH, calls)
            found = self._verify()
            if found:
                raise Refused(found)


@contextmanager
def _where_imported_from(scope: dict[str, Any], names: dict[str, Any]) -> Iterator[None]:
    """Each function or class among `names` that the set-up imported, swapped in every module that holds
    it too (where it is defined and where it is re-exported): an answer that imports it again
    (`from bookkit.runs.scenarios import initialized`) gets the check's value, as one that uses the set-up's
    name does, and not the original the check meant to replace."""
    swapped = []
    for name, value in names.items():
        original = scope.get(name)
        if not callable(original):
            continue
        for home in list(sys.modules.values()):
            if getattr(home, "__dict__", {}).get(name) is original:  # never a module's own __getattr__
                swapped.append((home, name, original))
                setattr(home, name, value)
    try:
        yield
    finally:
        for home, name, original in swapped:
            setattr(home, name, original)


def _raised_by_answer(error: BaseException) -> bool:
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == ANSWER_FILE:
            return True
        traceback = traceback.tb_next
    return False


_PLAIN = (str, int, float, bool, type(None))


def _plain(value: object) -> bool:
    """Whether `value` is plain data, by exact type (never calling anything the value defines)."""
    if type(value) in _PLAIN:
        return True
    containers = (list, tuple, set, frozenset)
    return type(value) in containers and all(_plain(item) for item in value)  # type: ignore[attr-defined]


def _kind(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _text(value: object) -> str:
    """A field as a message shows it: strings as they are, anything else as its repr."""
    return value if isinstance(value, str) else repr(value)
