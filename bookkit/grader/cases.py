"""Models the book's checks try besides the chapters' `Linear(4, 1)`: the cases a shortcut gets wrong.

A check that tries only the chapter's model passes an answer that hard-codes its two parameters,
its names or its order; these give it other counts (a Linear without a bias, two layers, a tower
of a depth drawn at random), half-moved models (some parameters forked, the others moved with
`to_device`), mixed and partly frozen ones; `Given` remembers a model handed to an answer, to tell
whether the answer changed it. `says_counts` reads whether a message says two counts in their roles.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bookkit.runs.methods import Layers
from mlx_autodiff.device import Device
from mlx_autodiff.module import Module
from mlx_autodiff.nn import LinearConfig
from mlx_autodiff.node import Node
from mlx_autodiff.tensor import Tensor


class Stack(Module):
    """Two Linear layers, 4 -> `hidden` -> 1: parameters `first.weight`, `first.bias`, `second.weight`,
    `second.bias` (no biases with `bias=False`), a model as a chapter's Linear(4, 1) is used."""

    def __init__(self, device: Device, hidden: int = 3, bias: bool = True) -> None:
        self.first = LinearConfig(4, hidden, bias=bias).init(device)
        self.second = LinearConfig(hidden, 1, bias=bias).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.second.forward(self.first.forward(x))


class Tower(Layers):
    """`depth` Linear layers, 4 -> 4 -> ... -> 1, in a list (`layers.0.weight`, ...): 2 x `depth` parameter
    tensors, a count a check can draw at random so that no answer knows it in advance."""

    def __init__(self, device: Device, depth: int) -> None:
        super().__init__([LinearConfig(4, 4 if k < depth - 1 else 1).init(device) for k in range(depth)])


class Spare(Module):
    """A model the forward pass uses (a Linear(4, 1) unless `used` is given) beside a `spare`
    Linear(4, 1) it skips (a layer left from an older version, say): `Grad` leaves of which two never
    get a gradient. A guard that counts the flags, not the gradients, lets it through; a loop that
    records the parameter tensors, not the gradients, records two too many."""

    def __init__(self, device: Device, used: Module | None = None) -> None:
        self.used = used if used is not None else LinearConfig(4, 1).init(device)
        self.spare = LinearConfig(4, 1).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.used.forward(x)


class Scaled(Module):
    """`inner`'s output times `scale`, a `Grad` leaf that is no parameter (a learned temperature kept as a
    plain attribute, say): backward's `Gradients` hold its gradient too, `from_grads` collects only the
    parameters' (crates/burn-optim/src/optim/visitor.rs), so the two counts differ on a model that trains."""

    def __init__(self, inner: Module, scale: Tensor) -> None:
        self.inner, self.scale = inner, scale

    def forward(self, x: Tensor) -> Tensor:
        return self.inner.forward(x) * self.scale


def read(model: Module) -> Module:
    """`model` with every parameter read (built), as after loading a file or one inference."""
    for param in model.params():
        param.val()
    return model


def moved_by(model: Module, device: Device, to_device: Iterable[str]) -> Module:
    """`model` on `device`, the parameters named in `to_device` moved with `to_device`, the others
    forked: a half-moved model when some are named."""
    names = set(to_device)
    return model.map_params(lambda param: param.to_device(device) if param.name in names
                            else param.fork(device))


def made_plain(model: Module, names: Iterable[str]) -> Module:
    """`model` with the parameters named in `names` made plain (`valid()`, their flags kept), the
    others as they were: a mixed model, of which no relocation method makes one (chapter 13)."""
    plain = set(names)
    return model.map_params(lambda param: param.valid() if param.name in plain else param)


def frozen(model: Module, names: Iterable[str]) -> Module:
    """`model` with the parameters named in `names` frozen (`no_grad()`: an untracked leaf, the flag
    cleared), as chapter 10's fine-tuning body is; the others as they were."""
    chosen = set(names)
    return model.map_params(lambda param: param.no_grad() if param.name in chosen else param)


class Given:
    """A model handed to an answer's function, remembered before it runs, so that a check can tell
    whether the answer changed it: the values of its built parameters (`changed`), or the objects that
    hold them (`replaced`: other parameters, or a parameter's attributes, tensor or node swapped).
    Nothing lazy is read. Relocation and an optimizer step return a new model and leave this one as
    it was (mlx_autodiff/module.py), so an answer that edits it in place does what none of them does."""

    def __init__(self, model: Module) -> None:
        self._model = model
        self._held = [(name, param, dict(vars(param))) for name, param in model.named_params()]
        self._tensors = {name: (param.val(), param.val().node, _facts(param.val().node))
                         for name, param in model.named_params() if param.is_initialized()}
        self.values = {name: tensor.array.tolist() for name, (tensor, _, _) in self._tensors.items()}
        """The built parameters' values, by name, copied where the answer cannot reach them."""

    def changed(self) -> list[str]:
        """The built parameters whose values the model now holds are not those it held."""
        now = dict(self._model.named_params())
        return [name for name, values in self.values.items()
                if name in now and now[name].is_initialized() and now[name].val().array.tolist() != values]

    def replaced(self) -> bool:
        """Whether the model now holds other parameters, or a parameter other attributes, tensors or nodes,
        or a node renumbered or rewired in place."""
        now = list(self._model.named_params())
        if [name for name, _ in now] != [name for name, _, _ in self._held]:
            return True
        for (name, param), (_, kept, attributes) in zip(now, self._held, strict=True):
            if param is not kept or vars(param).keys() != attributes.keys():
                return True
            if any(vars(param)[key] is not value for key, value in attributes.items()):
                return True
            if name in self._tensors:
                tensor, node, facts = self._tensors[name]
                if not param.is_initialized() or param.val() is not tensor or tensor.node is not node:
                    return True
                if _facts(node) != facts:
                    return True
        return False


def _facts(node: Node | None) -> tuple[object, ...] | None:
    """What a node says of itself: its id, op, requirement and parents (None for a plain tensor)."""
    return None if node is None else (node.id, node.op, node.requirement, tuple(node.parents))


_EXPECTED_BEFORE = ("expected", "expecting", "expects", "expect", "should be", "should have", "should",
                    "wanted", "want", "needed", "needs", "need", "of", "out of", "for", "instead of", "not",
                    "/", "应有", "应该有", "应当有", "应该", "应当", "应", "需要",
                    "期望", "预期", "本该有", "本应有", "而不是")
_GOT_BEFORE = ("got", "get", "gets", "getting", "received", "receives", "receive", "only", "only got",
               "collected", "found", "returned", "came back with", "has only",
               "have only", "拿到", "拿到了", "只拿到", "得到", "得到了", "只得到", "收到", "收到了", "只有",
               "只", "仅有", "仅", "实际", "实际有", "实际上", "收集到", "收集到了", "却只有", "但只有")
_GOT_AFTER = ("of", "out of", "/", "gradient", "grads", "grad", "came back", "arrived", "received",
              "collected", "梯度", "个梯度", "回来")
_EXPECTED_AFTER = ("parameter", "param", "tensors", "expected", "wanted", "needed", "参数", "个参数", "应有")
# Verbs that only say "there is a count here" ("has 2 gradients", "has 2 parameter tensors"): their role
# is a guess that the noun after the number overrides.
_WEAK_EXPECTED = ("has", "have", "had", "total", "共有", "共", "总共", "有")
_WEAK_GOT = ("there are", "there were")
# A count named by a label right before it: "Gradients: 1", "parameter tensors = 2", "梯度数 1".
_GOT_LABEL = re.compile(r"(?:\bgradients?|\bgrads?|梯度数|梯度的?数量|梯度个数)\s*[:：=]?\s*$")
_EXPECTED_LABEL = re.compile(r"(?:\bparameter tensors?|\bparameters?|\bparams|\btensors?"
                             r"|参数张量数|参数张量的?数量|参数数|参数个数)\s*[:：=]?\s*$")
_OTHER_BEFORE = ("step", "steps", "chapter", "chapters", "appendix", "version", "burn", "layer", "epoch",
                 "第")
_NUMBER = re.compile(r"(?<![0-9.])[0-9]+(?![0-9]|\.[0-9])")
_PAUSE = re.compile(r"[.;:,()\[\]（），。；：！？!?、]")
_WINDOW = 20


def _marker(text: str, markers: tuple[str, ...], last: bool) -> int | None:
    """Where the nearest of `markers` sits in `text` (a Latin one as a word, or as a word's start after a
    number: "gradients"): its end when `last` (the marker closest before a number), its start otherwise;
    the longest wins a tie."""
    best: tuple[int, int] | None = None
    for marker in markers:
        edge = r"\b" if marker[0].isascii() and marker[0].isalpha() else ""
        for found in re.finditer(edge + re.escape(marker) + (edge if last else ""), text):
            place = found.end() if last else -found.start()
            if best is None or (place, len(marker)) > best:
                best = (place, len(marker))
    return None if best is None else abs(best[0])


def _role(before: str, after: str, lead: str) -> str | None:
    """"got" or "expected": what the words nearest before a number say it is (after "has", "have", "有", the
    noun after it: "has 2 gradients"); with none, a label right before it ("Gradients: 2", "梯度数 2",
    `lead` is the text before the number, pauses included), or the first words after it ("2 gradients",
    "2 parameter tensors"); None when nothing says, or when they say it is something else ("step 1",
    "chapter 2", "第 1 步")."""
    said = {role: _marker(before, markers, True) for role, markers in
            (("got", _GOT_BEFORE), ("expected", _EXPECTED_BEFORE), ("~expected", _WEAK_EXPECTED),
             ("~got", _WEAK_GOT), (None, _OTHER_BEFORE))}
    nearest = [(place, role is not None, role) for role, place in said.items() if place is not None]
    if nearest:
        role = max(nearest, key=lambda found: found[:2])[2]
        if role is None or not role.startswith("~"):
            return role
        return _after_role(after) or role[1:]
    if _GOT_LABEL.search(lead):
        return "got"
    if _EXPECTED_LABEL.search(lead):
        return "expected"
    return _after_role(after)


def _after_role(after: str) -> str | None:
    """The role the first words after a number give it: "2 gradients" got, "2 parameter tensors" expected."""
    got, expected = _marker(after, _GOT_AFTER, False), _marker(after, _EXPECTED_AFTER, False)
    if got is not None or expected is not None:
        return "got" if expected is None or (got is not None and got < expected) else "expected"
    return None


def says_counts(message: str, got: int, wanted: int) -> bool:
    """Whether `message` says `got` as the number of gradients it got and `wanted` as the number it
    expected, each in its role ("expected 2, got 1", "1 gradients for 2 parameters",
    "只拿到1个梯度，应有2个"):
    the numbers alone, or swapped, or in other roles ("step 1 of 4") are not enough, and a number said in
    both roles is refused."""
    text = message.lower()
    numbers = list(_NUMBER.finditer(text))
    roles: dict[str, set[str | None]] = {"got": set(), "expected": set()}
    for index, number in enumerate(numbers):
        start = numbers[index - 1].end() if index else 0
        end = numbers[index + 1].start() if index + 1 < len(numbers) else len(text)
        before = _PAUSE.split(text[start:number.start()])[-1][-_WINDOW:]
        after = _PAUSE.split(text[number.end():end])[0][:_WINDOW]
        role = _role(before, after, text[start:number.start()])
        for name, value in (("got", got), ("expected", wanted)):
            if int(number[0]) == value:
                roles[name].add(role)
    # each in its role, and never in the other one too ("got 1, expected 2; or got 2, expected 1?")
    return ("got" in roles["got"] and "expected" not in roles["got"]
            and "expected" in roles["expected"] and "got" not in roles["expected"])
