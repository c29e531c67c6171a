"""Properties over random programs: gradients of random graphs, and random relocation sequences.

Two generators. The first builds random expression graphs (a few leaves whose
shapes broadcast together, ops picked at random from the engine's registry
`tensor.OPS`, any earlier value reusable as an operand, so one node often feeds
several ops) and checks every leaf's gradient against `mx.grad` of the same
expression written with tests/engine/op_references.py in plain MLX. The
second runs random sequences of relocations and training steps on a Linear and
checks each result against a small model of the rules in
docs/burn-reading.md (its rules 1-21).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mlx.core as mx
import pytest
from float64 import assert_close
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from op_references import CHECKED_OPS, CheckedOp
from strategies import Shape, arrays, shapes

from mlx_autodiff import (
    AdamConfig,
    AlreadyAutodiffError,
    AutodiffMoveError,
    Device,
    DeviceMismatchError,
    GradientsParams,
    LinearConfig,
    Module,
    MseLoss,
    Param,
    Reduction,
    Requirement,
    TapeConsumedError,
    Tensor,
    UntrackedBackwardError,
)

DEVICE = Device.flex().autodiff()
BY_NAME = {spec.name: spec for spec in CHECKED_OPS}
PLAIN = Device.flex()

# ----- random expression graphs ----------------------------------------------------


@dataclass(frozen=True)
class Op:
    """One op of a random program: on engine tensors and on MLX arrays, with its output shape.

    Each takes its operands and then `arg`: keyword arguments for a registered op
    (`{"dim": 1}`, or None for the registry's own), a constant for `add_plain`.
    """

    arity: int
    engine: Callable[..., Tensor]
    mlx: Callable[..., mx.array]
    shape: Callable[..., Shape | None]
    """The output shape for these operand shapes (and argument), or None where the op does not apply."""


def _broadcast(a: Shape, b: Shape) -> Shape | None:
    """The shape `a` and `b` broadcast to, or None: aligned from the right, each pair equal or one 1."""
    width = max(len(a), len(b))
    pairs = list(zip((1,) * (width - len(a)) + a, (1,) * (width - len(b)) + b, strict=True))
    if any(m != n and 1 not in (m, n) for m, n in pairs):
        return None
    return tuple(max(m, n) for m, n in pairs)


def _registered(spec: CheckedOp) -> Op:
    """A registry op, its reference from tests/engine/op_references.py, and its shapes found by MLX.

    An input that must be positive gets `x * x + 1` first (the random values
    can be anything), so `log`, `div` and `k / x` stay defined.
    """
    ref = spec.reference.compute

    def kwargs(arg: object) -> dict[str, object]:
        return {**spec.kwargs, **(arg if isinstance(arg, dict) else {})}

    def defined(operands: list[Any], positive: Callable[[Any], Any]) -> list[Any]:
        kinds = zip(operands, spec.domain, strict=True)
        return [positive(x) if kind == "positive" else x for x, kind in kinds]

    def engine(*operands_and_arg: Any) -> Tensor:
        *operands, arg = operands_and_arg
        return spec(*defined(operands, lambda x: x.square().add(1.0)), **kwargs(arg))

    def mlx(*operands_and_arg: Any) -> mx.array:
        *operands, arg = operands_and_arg
        return ref(mx, *defined(operands, lambda x: x * x + 1.0), **kwargs(arg))

    def shape(*shapes_and_arg: Any) -> Shape | None:
        *shapes, arg = shapes_and_arg
        if spec.operands in ("matmul", "matrix") and any(len(s) < 2 for s in shapes):
            return None  # MLX would take a vector; the engine's matmul and transpose do not
        try:  # MLX works out the shape when the op is called, without computing it
            return ref(mx, *[mx.ones(s) for s in shapes], **kwargs(arg)).shape
        except (ValueError, IndexError):
            return None

    return Op(spec.arity, engine, mlx, shape)


OPS: dict[str, Op] = {spec.name: _registered(spec) for spec in CHECKED_OPS} | {
    "add_plain": Op(  # a plain tensor in an autodiff op: an untracked constant (Burn 0.22.1)
        1,
        lambda x, c: x + Tensor.from_data(c, PLAIN),
        lambda x, c: x + mx.array(c),
        lambda a, c: _broadcast(a, c.shape),
    ),
}
"""Every op of `tensor.OPS`, and a plain constant added to an autodiff tensor."""


@dataclass(frozen=True)
class Instr:
    op: str
    args: tuple[int, ...]
    arg: object = None

    def __repr__(self) -> str:
        arg = "" if self.arg is None or isinstance(self.arg, mx.array) else f", {self.arg}"
        return f"{self.op}{self.args}{arg}"


@dataclass
class Program:
    leaves: list[mx.array]
    tracked: list[bool]
    code: list[Instr] = field(default_factory=list)

    def run(self, ops: Callable[[Op], Callable[..., object]], values: list[object]) -> list[object]:
        values = list(values)
        for instr in self.code:
            values.append(ops(OPS[instr.op])(*(values[i] for i in instr.args), instr.arg))
        return values


@st.composite
def programs(draw: st.DrawFn, max_ops: int = 7) -> Program:
    """A few leaves of broadcastable shapes, then ops on any earlier values, reuse included."""
    full = draw(shapes(max_dims=3, max_side=4))
    leaf_shapes = []
    for _ in range(draw(st.integers(1, 3))):
        kept = full[draw(st.integers(0, len(full) - 1)) :]
        leaf_shapes.append(tuple(1 if draw(st.booleans()) else n for n in kept))
    leaves = [draw(arrays(shape)) for shape in leaf_shapes]
    tracked = [True] + [draw(st.booleans()) for _ in leaves[1:]]
    program = Program(leaves, tracked)
    known: list[Shape] = list(leaf_shapes)
    for _ in range(draw(st.integers(2, max_ops))):
        first = draw(st.integers(0, len(known) - 1))
        if len(program.code) == 0 or draw(st.booleans()):
            first = len(known) - 1  # most often extend the newest value, so graphs get deep
        name = draw(st.sampled_from(sorted(OPS)))
        op = OPS[name]
        arg: object = None
        if name == "add_plain":
            arg = draw(arrays(known[first][draw(st.integers(0, len(known[first]) - 1)) :]))
        elif "dim" in BY_NAME[name].kwargs:
            arg = {"dim": draw(st.integers(0, 2))}
        if op.arity == 1:
            args: tuple[int, ...] = (first,)
            out = op.shape(known[first], arg)
        else:
            partners = [j for j, shape in enumerate(known) if op.shape(known[first], shape, None)]
            if not partners:
                continue
            second = draw(st.sampled_from(partners))  # may be `first` itself: a node used twice
            args, out = (first, second), op.shape(known[first], known[second], None)
        if out is None:
            continue
        program.code.append(Instr(name, args, arg))
        known.append(out)
    assume(program.code)
    return program


def _reuses(program: Program) -> bool:
    used = [i for instr in program.code for i in instr.args]
    return len(used) != len(set(used))


def engine_gradients(program: Program) -> tuple[Tensor, list[Tensor], list[Tensor | None] | None]:
    """Run the program on engine tensors; backward from the last value (seeded with ones)."""
    leaves = []
    for values, tracked in zip(program.leaves, program.tracked, strict=True):
        leaf = Tensor.from_data(values, DEVICE)
        leaves.append(leaf.require_grad() if tracked else leaf)
    root = program.run(lambda op: op.engine, leaves)[-1]
    assert isinstance(root, Tensor)
    if root.node is None or root.node.requirement is Requirement.NONE:
        with pytest.raises(UntrackedBackwardError):
            root.backward()
        return root, leaves, None
    grads = root.backward()
    return root, leaves, [leaf.grad(grads) for leaf in leaves]


def mlx_gradients(program: Program) -> tuple[mx.array, list[mx.array]]:
    """The same expression in plain MLX; `mx.grad` of its sum with respect to the tracked leaves."""
    constants = list(program.leaves)
    where = [i for i, tracked in enumerate(program.tracked) if tracked]

    def run(*tracked: mx.array) -> mx.array:
        values = list(constants)
        for i, array in zip(where, tracked, strict=True):
            values[i] = array
        return program.run(lambda op: op.mlx, values)[-1]  # type: ignore[return-value]

    def total(*tracked: mx.array) -> mx.array:
        return mx.sum(run(*tracked))

    tracked = [constants[i] for i in where]
    grads = mx.grad(total, argnums=list(range(len(where))))(*tracked)
    grads = grads if isinstance(grads, (list, tuple)) else [grads]
    return run(*tracked), list(grads)


def _finite_and_below(values: mx.array, bound: float) -> bool:
    return bool(mx.all(mx.isfinite(values)).item()) and mx.abs(values).max().item() < bound


@given(programs())
def test_random_graphs_have_mlx_gradients(program: Program) -> None:
    out, reference = mlx_gradients(program)
    assume(_finite_and_below(out, 1e4))
    assume(all(_finite_and_below(g, 1e5) for g in reference))
    event(f"{len(program.code)} ops")
    event("a value used twice" if _reuses(program) else "no value used twice")
    root, leaves, grads = engine_gradients(program)
    assert_close(root.array, out, rtol=1e-5, atol=1e-5)
    if grads is None:  # no tracked leaf reaches the root: nothing can have a gradient
        assert all(not mx.any(g).item() for g in reference)
        return
    expected = iter(reference)
    for leaf, tracked, grad in zip(leaves, program.tracked, grads, strict=True):
        if not tracked:
            assert grad is None, "an untracked leaf must not get a gradient"
            continue
        want = next(expected)
        if grad is None:  # the leaf is not an ancestor of the root
            assert not mx.any(want).item()
            continue
        assert grad.shape == leaf.shape and not grad.is_autodiff
        scale = max(1.0, mx.abs(want).max().item())
        assert_close(grad.array, want, rtol=1e-4, atol=1e-5 * scale)


def test_a_node_used_twice_gets_both_gradients() -> None:
    """The reuse the random graphs rely on, once by hand: d/dx (x * x + x) = 2x + 1."""
    x = Tensor.from_data([1.0, -2.0, 3.0], DEVICE).require_grad()
    grad = x.grad((x * x + x).backward())
    assert grad is not None
    assert_close(grad.array, [3.0, -3.0, 7.0])


# ----- random relocation sequences -------------------------------------------------

DEVICES = {d.name: d for d in (PLAIN, Device.metal(), DEVICE, Device.metal().autodiff())}
GRAD, IN_BACKWARD, NONE = Requirement.GRAD, Requirement.GRAD_IN_BACKWARD, Requirement.NONE


@dataclass
class Expect:
    """What one parameter should be: the spec's state, tracked alongside the real one.

    `requirement` is None for a plain tensor (no node) and for an unread
    parameter; `consumed` marks a GRAD_IN_BACKWARD parameter whose step an
    earlier backward used up, or whose source's was (backward through it fails).
    """

    device: Device
    flag: bool
    initialized: bool = False
    requirement: Requirement | None = None
    consumed: bool = False

    def initialize(self) -> None:
        """First read: built on its device, a GRAD leaf if autodiff and the flag asks (rule 14)."""
        if not self.initialized:
            self.initialized = True
            if self.device.is_autodiff:
                self.requirement = GRAD if self.flag else NONE

    @property
    def plain(self) -> bool:
        return self.initialized and self.requirement is None


class Relocations(RuleBasedStateMachine):
    """A Linear(4, 2), relocated, read and trained at random, compared with `Expect` after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.model: Module = Module()
        self.expect: dict[str, Expect] = {}
        self.ids: dict[str, object] = {}
        self.seen: set[int] = set()
        self.max_node_id = -1
        self.optim = AdamConfig().init()

    @initialize(device=st.sampled_from(sorted(DEVICES)))
    def build(self, device: str) -> None:
        self.model = LinearConfig(4, 2).init(DEVICES[device])
        self.expect = {name: Expect(DEVICES[device], True) for name, _ in self.model.named_params()}
        self.ids = {name: param.id for name, param in self.model.named_params()}

    def _params(self) -> dict[str, Param]:
        return dict(self.model.named_params())

    # ----- the actions -----

    @rule(name=st.sampled_from(["weight", "bias"]))
    def read(self, name: str) -> None:
        self._params()[name].val()
        self.expect[name].initialize()

    @rule()
    def read_all(self) -> None:
        """What loading, printing or an inference does: every parameter built where it is."""
        for param in self.model.params():
            param.val()
        for e in self.expect.values():
            e.initialize()

    @rule(device=st.sampled_from(sorted(DEVICES)))
    def to_device(self, device: str) -> None:
        target = DEVICES[device]
        after = copy.deepcopy(self.expect)
        for e in after.values():
            if not e.initialized:
                e.device = target  # a lazy move retargets only (rule 15, [0.22.1])
            elif e.plain:
                e.device = target.inner()  # a plain tensor stays plain wherever it goes (rule 11)
            elif not target.is_autodiff:
                event("to_device: autodiff to plain refused")
                with pytest.raises(AutodiffMoveError, match="Cannot move between autodiff"):
                    self.model.to_device(target)
                return
            else:
                e.device = target
                e.requirement = NONE if e.requirement is NONE else IN_BACKWARD  # a recorded op (rule 11)
        self.model = self.model.to_device(target)
        self.expect = after

    @rule(device=st.sampled_from(sorted(DEVICES)))
    def fork(self, device: str) -> None:
        target = DEVICES[device]
        after = copy.deepcopy(self.expect)
        for e in after.values():
            if not e.initialized:
                e.device = target
            elif e.plain:
                e.device = target.inner()
            elif not target.is_autodiff:
                with pytest.raises(AutodiffMoveError):
                    self.model.fork(target)
                return
            else:  # move, detach, require grad if it was GRAD (rule 16): a fresh leaf
                e.device, e.consumed = target, False
                e.requirement = GRAD if e.requirement is GRAD else NONE
        self.model = self.model.fork(target)
        self.expect = after

    @rule()
    def train(self) -> None:
        for e in self.expect.values():  # each parameter is read (a lazy one built), in order,
            e.initialize()                 # until the first autodiff one makes the call raise
            if not e.plain:
                break
        if not all(e.plain for e in self.expect.values()):
            # Nothing is wrapped: the model keeps what it had, only the reads happened.
            event("train: already autodiff")
            with pytest.raises(AlreadyAutodiffError, match="fork"):
                self.model.train()
            return
        for e in self.expect.values():
            e.device = e.device.autodiff()
            e.requirement = GRAD if e.flag else NONE
        self.model = self.model.train()

    @rule()
    def valid(self) -> None:
        for e in self.expect.values():
            e.initialize()
            e.device, e.requirement, e.consumed = e.device.inner(), None, False
        self.model = self.model.valid()

    @rule()
    def no_grad(self) -> None:
        for e in self.expect.values():
            e.initialize()
            e.flag = False
            if not e.plain:
                e.requirement, e.consumed = NONE, False
        self.model = self.model.no_grad()

    @rule()
    def train_step(self) -> None:
        """Forward, backward, from_grads, Adam: the book's loop, once."""
        weight, bias = self.expect["weight"], self.expect["bias"]
        w = self.model.weight.val()  # type: ignore[attr-defined]
        weight.initialize()
        x = Tensor.ones([3, 4], w.device)
        y = Tensor.zeros([3, 2], w.device)
        if weight.device != bias.device:  # devices compare by kind: plain and autodiff flex meet
            event("step: devices differ")
            with pytest.raises(DeviceMismatchError):
                self.model.forward(x)  # type: ignore[attr-defined]
            bias.initialize()
            return
        loss = MseLoss().forward(self.model.forward(x), y, Reduction.MEAN)  # type: ignore[attr-defined]
        bias.initialize()
        tracked = [e for e in (bias, weight) if e.requirement in (GRAD, IN_BACKWARD)]
        if not tracked:
            event("step: untracked loss")
            with pytest.raises(UntrackedBackwardError):
                loss.backward()
            return
        for e in tracked:  # backward walks the bias's branch first (LIFO), consuming as it goes
            if e.requirement is IN_BACKWARD:
                if e.consumed:
                    event("step: tape consumed")
                    with pytest.raises(TapeConsumedError, match="already been consumed"):
                        loss.backward()
                    return
                e.consumed = True
        grads = loss.backward()
        params = GradientsParams.from_grads(grads, self.model)
        assert len(params) == sum(e.requirement is GRAD for e in tracked)  # rule 19
        event(f"step: trained with {len(params)} gradient(s)")
        self.model = self.optim.step(1e-2, self.model, params)  # rule 20: GRAD params become fresh leaves

    # ----- the checks -----

    @invariant()
    def matches_the_spec(self) -> None:
        if not self.expect:
            return
        for name, param in self._params().items():
            e = self.expect[name]
            assert param.id == self.ids[name], "a ParamId must survive every relocation"
            assert param.lazy_is_require_grad() == e.flag, f"{name}: stored require_grad flag"
            assert param.is_initialized() == e.initialized, f"{name}: initialized"
            if not e.initialized:
                assert param.device.name == e.device.name, f"{name}: target device of an unread param"
                continue
            tensor = param.val()
            assert tensor.device.name == e.device.name, f"{name}: device"
            assert (tensor.node.requirement if tensor.node else None) is e.requirement, f"{name}: requirement"
            assert tensor.is_require_grad() == (e.requirement is GRAD)
            if e.requirement is GRAD:
                assert tensor.node is not None and tensor.node.is_leaf and not tensor.node.parents
            if tensor.node is not None and tensor.node.id not in self.seen:
                assert tensor.node.id > self.max_node_id, "a new node must get a higher id than any before"
                self.seen.add(tensor.node.id)
        probe = Tensor.zeros([1], DEVICE).node  # one process-wide counter (rule 1)
        assert probe is not None and probe.id > max(self.seen, default=-1)
        self.max_node_id = probe.id


Relocations.TestCase.settings = settings(max_examples=150, stateful_step_count=25)
test_relocation_sequences_follow_the_spec = Relocations.TestCase


@pytest.mark.parametrize("name", ["weight", "bias"])
def test_param_ids_survive_a_round_trip(name: str) -> None:
    """The simplest sequence the machine generalises: every relocation keeps the ParamId."""
    model = LinearConfig(4, 1).init(DEVICE)
    before = dict(model.named_params())[name].id
    moved = model.fork(Device.metal().autodiff()).valid().train().to_device(DEVICE).no_grad()
    assert dict(moved.named_params())[name].id == before


def test_to_device_of_an_initialized_autodiff_model_gives_non_leaves() -> None:
    """The article's bug as one property: the moved parameters are op outputs, not leaves."""
    model = LinearConfig(4, 1).init(DEVICE)
    for param in model.params():
        param.val()
    moved = model.to_device(Device.metal().autodiff())
    for param in moved.params():
        tensor = param.val()
        assert tensor.node is not None and tensor.node.requirement is IN_BACKWARD
        assert not param.is_require_grad()

