"""Plausible wrong answers to every exercise in the book, answers that tamper with the grader, and right
answers in other words than the chapter's.

tests/book/test_exercises.py grades each with the book's checks (`bookkit.workbook.grade_answers`, as
`mlx-autodiff-exercises check` does) in English and in Chinese, and requires each WRONG answer and each
TAMPERING one to fail with a result whose `code` matches `says` (a regular expression: "failed:same_ids"
is the check's message `same_ids`, "refused" a refused answer) and whose reason holds `found`; each RIGHT
answer must pass. tests/site/test_live.py grades those marked `on_the_page` through live mode's "Run check".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Answer:
    """A reader's answer to one exercise, and what grading it must report."""

    source: str
    why: str
    """What is wrong with it (or, in RIGHT, why it is right anyway)."""
    says: str = ""
    """A regular expression the result's code must match: the check's message that points at the cause."""
    found: str = ""
    """A part of the reason, in English: for a refused answer, what the grader found it changed."""
    on_the_page: bool = False
    """Graded on the page too, through live mode's "Run check" (tests/site/test_live.py)."""


def _sgd_loop(built_on: str = "flex.autodiff()", count: str = "grad_counts.append(len(g))",
              after: str = "") -> str:
    """Exercise 7.1's SGD loop as the fifth learner wrote it, with one thing changed: where `start` is
    built, how a step's gradients are counted, or what follows the loop."""
    return (f"start = initialized({built_on}).fork(metal)\n"
            "opt = SgdConfig().init()\n"
            "m = start\n"
            "losses, grad_counts = [], []\n"
            "for _ in range(5):\n"
            "    loss = MseLoss().forward(m.forward(x), y, Reduction.MEAN)\n"
            "    g = GradientsParams.from_grads(loss.backward(), m)\n"
            "    losses.append(loss.into_scalar())\n"
            f"    {count}\n"
            "    m = opt.step(0.1, m, g)\n" + after)


def _relocate_by_kind(plain: str, autodiff: str, imports: str = "") -> str:
    """Exercise 10.2's `relocate` as the fifth learner wrote it, parameter by parameter: a lazy one forked,
    a read one by its kind, `plain` when its tensor has no node (`t`), `autodiff` when it has one."""
    return (f"{imports}def relocate(model, device):\n"
            "    def one(p):\n"
            "        if not p.is_initialized():\n"
            "            return p.fork(device)\n"
            "        t = p.val()\n"
            "        if t.node is None:\n"
            f"            return {plain}\n"
            f"        return {autodiff}\n"
            "    return model.map_params(one)\n")

WRONG: dict[str, list[Answer]] = {
    "ex-01-is-lazy": [
        Answer(
            "def untouched(model):\n"
            "    return [n for n, p in model.named_params()\n"
            "            if 'uninitialized' in repr(p) and p.device.is_autodiff]\n",
            "only unread parameters on an autodiff device: an unread plain model has recipes too (the tenth "
            "learner)",
            "failed:wrong",
        ),
        Answer(
            "from mlx_autodiff import Module, Param\n"
            "def untouched(model, prefix=''):\n"
            "    out = []\n"
            "    for k, v in vars(model).items():\n"
            "        if isinstance(v, Param) and not v.is_initialized():\n"
            "            out.append(prefix + k)\n"
            "        elif isinstance(v, Module):\n"
            "            out += untouched(v, prefix + k + '.')\n"
            "    return out\n",
            "walks the attributes by hand and misses layers kept in a list (the eighth learner)",
            "failed:wrong",
        ),
        Answer(
            "def untouched(model):\n"
            "    return [name for name, param in model.named_params() if not param.is_require_grad()]\n",
            "is_require_grad() reads the parameter, so asking initializes every recipe",
            "failed:reads",
        ),
        Answer(
            "def untouched(model):\n"
            "    return [name for name, param in model.named_params() if param.is_initialized()]\n",
            "the names of the parameters already built, the opposite of what is asked",
            "failed:wrong",
        ),
        Answer(
            "def untouched(model):\n"
            "    return [name for name in ('weight', 'bias') if not"
            " getattr(model, name).is_initialized()]\n",
            "assumes every model has a weight and a bias: a Linear without a bias has bias None",
            "raised_in_check:AttributeError",
        ),
        Answer(
            "def untouched(model):\n"
            "    return ['weight', 'bias']\n",
            "the names of a Linear's two parameters, typed in (a reviewer's try)",
            "failed:wrong",
        ),
        Answer(
            "untouched = None\n",
            "a name defined as None (a reviewer's try)",
            "failed:_common\\.not_a_function",
        ),
        Answer(
            "def untouched(model):\n"
            "    return [name for name, param in model.named_params() if param.val() is None]\n",
            "asks val(), which builds the tensor (a reviewer's try)",
            "failed:reads",
        ),
    ],
    "ex-01-target": [
        Answer(
            "for param in recipe.params():\n"
            "    param.val()\n"
            "moved = recipe.to_device(metal)\n"
            "for param in moved.params():\n"
            "    param.val()\n",
            "reads the recipe before the move: the parameters are built on flex and moved by an op",
            "failed:recipe_read",
        ),
        Answer(
            "moved = LinearConfig(4, 1).init(metal)\n"
            "for param in moved.params():\n"
            "    param.val()\n",
            "builds a new model on metal instead of moving recipe",
            "failed:same_ids",
        ),
        Answer(
            "moved = recipe.to_device(metal)\n",
            "moves the recipe but never reads the moved model",
            "failed:read_after",
        ),
        Answer(
            "moved = recipe.fork(metal)\n"
            "for param in moved.params():\n"
            "    param.val()\n",
            "moves with fork, where the exercise asks for to_device (here both only retarget the "
            "recipe)",
            "failed:to_device",
        ),
        Answer(
            "metal = flex.autodiff()\n"
            "moved = recipe.to_device(metal)\n"
            "for param in moved.params():\n"
            "    param.val()\n",
            "rebinds metal to flex.autodiff() first: the parameters are built on the CPU, which a "
            "check that read the answer's `metal` would accept",
            "failed:on_metal",
        ),
        Answer(
            "moved = recipe.to_device(metal)\n"
            "moved.weight.val()\n",
            "reads the weight only (a reviewer's try)",
            "failed:read_after",
        ),
        Answer(
            "moved = recipe.to_device(metal)\n"
            "for param in recipe.params():\n"
            "    param.val()\n",
            "reads the recipe after the move instead of the moved model (a reviewer's try)",
            "failed:read_after",
        ),
        Answer(
            "from mlx_autodiff import Device\n"
            "moved = recipe.to_device(Device.metal())\n"
            "for p in moved.params():\n"
            "    p.val()\n",
            "moves to plain metal, no autodiff (issue 39's fifth learner): the check's hint about to_device "
            "nodes misled; it says the device is not an autodiff one",
            "failed:autodiff",
            found="not an autodiff device",
        ),
    ],
    "ex-02-one-call": [
        Answer(
            "import copy\n"
            "from mlx_autodiff import Module, Param\n"
            "def place(model, device):\n"
            "    new = copy.copy(model)\n"
            "    for k, v in vars(model).items():\n"
            "        if isinstance(v, Param):\n"
            "            setattr(new, k, v.fork(device))\n"
            "        elif isinstance(v, Module):\n"
            "            setattr(new, k, place(v, device))\n"
            "    return new\n",
            "forks attribute by attribute and leaves layers kept in a list where they were (the eighth "
            "learner)",
            "failed:on_device|failed:source_replaced",
        ),
        Answer(
            "def place(model, device):\n"
            "    return model.to_device(device)\n",
            "the article's failing call: the parameters become to_device outputs, not leaves",
            "failed:gradients",
        ),
        Answer(
            "def place(model, device):\n"
            "    return LinearConfig(4, 1).init(device)\n",
            "trains, but a new model: the given model's parameters and values are thrown away",
            "failed:same_ids",
        ),
        Answer(
            "def place(model, device):\n"
            "    return model.fork(flex.autodiff())\n",
            "forks, but onto the CPU: the device argument is ignored",
            "failed:on_device",
        ),
        Answer(
            "metal = flex.autodiff()\n"
            "\n"
            "def place(model, device):\n"
            "    return model.fork(metal)\n",
            "rebinds metal to flex.autodiff() before fork: a check that read the answer's `metal` "
            "would find the model there",
            "failed:on_device",
            on_the_page=True,
        ),
        Answer(
            "def place(model, device):\n"
            "    if device == metal:\n"
            "        return model.fork(metal)\n"
            "    return model\n",
            "forks only to metal, the device the chapter uses: another device gets the model back "
            "unmoved",
            "failed:on_device",
        ),
        Answer(
            "def place(model, device):\n"
            "    placed = model.fork(device)\n"
            "    model.__dict__.update(model.to_device(device).__dict__)\n"
            "    return placed\n",
            "returns a fork, but leaves the model it was given holding to_device's outputs, same values "
            "(issue 39's fourth learner)",
            "failed:source_replaced",
            on_the_page=True,
        ),
        Answer(
            "def place(model, device):\n"
            "    return model.to_device(device).train()\n",
            "train() after to_device of an autodiff model (a reviewer's try)",
            "raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "def place(model, device):\n"
            "    return model.fork(device).no_grad()\n",
            "forks, then freezes every parameter (a reviewer's try)",
            "failed:flags",
        ),
        Answer(
            "def place(model, device):\n"
            "    def leaf(p):\n"
            "        return p._with(p.val().to_device(device).detach().require_grad(), require_grad=True)\n"
            "    return model.map_params(leaf)\n",
            "fork by hand through a private helper that sets every flag: a frozen bias comes back trainable "
            "(the tenth learner)",
            "failed:flags",
        ),
        Answer(
            "def place(model, device):\n"
            "    return model.map_params(\n"
            "        lambda p: p._with(p.val().to_device(device).detach().require_grad()))\n",
            "the same, flags kept: a frozen bias comes back a Grad leaf its flag says is frozen, and gets a "
            "gradient",
            "failed:gradients",
        ),
        Answer(
            "\n"
            "import mlx.core as mx\n"
            "def place(model, device):\n"
            "    zeroed = {n: mx.zeros_like(p.val().array) for n, p in model.named_params()}\n"
            "    for (n, p) in model.named_params():\n"
            "        p.val().array = zeroed[n]\n"
            "    return model.fork(device)\n",
            "zeroes the given model's arrays in place, then forks: a check that compared with the source "
            "after place ran saw equal values (issue 39's third learner, both editions)",
            "failed:values",
            on_the_page=True,
        ),
        Answer(
            "import mlx.core as mx\n"
            "def place(model, device):\n"
            "    for p in model.params():\n"
            "        p.val().array = mx.zeros_like(p.val().array)   # changes the model it was given\n"
            "    return model.fork(device)\n",
            "the same in other words (the third learner's report)",
            "failed:values",
        ),
        Answer(
            "import mlx.core as mx\n"
            "def place(model, device):\n"
            "    placed = model.fork(device)\n"
            "    for p in model.params():\n"
            "        p.val().array = mx.zeros_like(p.val().array)\n"
            "    return placed\n",
            "forks, then zeroes the model it was given: the copy is right, the source is destroyed",
            "failed:source_changed",
        ),
    ],
    "ex-03-source-leaf": [
        Answer(
            "def source_leaf(param):\n"
            "    node = param.val().node\n"
            "    while node.op == 'to_device':\n"
            "        node = node.parents[-1]\n"
            "    return node.parents[0] if node.parents else node\n",
            "follows every move to a parent, but a frozen parameter's move has none: it raises there (the "
            "eleventh learner found the book's own solution did)",
            "raised_in_check:IndexError",
        ),
        Answer(
            "def source_leaf(param):\n"
            "    node = param.val().node\n"
            "    while node.is_move:\n"
            "        node = node.parents[-1]\n"
            "    return node if node.requirement.value == 'Grad' else None\n",
            "None for an untracked leaf, whose own node is the answer (the tenth learner)",
            "failed:not_node|raised_in_check:IndexError",
        ),
        Answer(
            "def source_leaf(param):\n"
            "    return param.val().node\n",
            "the parameter's own node: after to_device that is the op's output, whose gradient is "
            "not kept",
            "failed:leaf",
        ),
        Answer(
            "def source_leaf(param):\n"
            "    return param.val().node.parents[0]\n",
            "follows one to_device node only: a parameter moved twice has two",
            "failed:leaf|raised_in_check:IndexError",
        ),
        Answer(
            "def source_leaf(param):\n"
            "    return param.val()\n",
            "returns the parameter's tensor, not a node",
            "failed:not_node",
        ),
        Answer(
            "def source_leaf(param):\n"
            "    return dict(model.named_params())[param.name].val().node\n",
            "reads the chapter's own `model` by the parameter's name instead of following "
            "node.parents",
            "failed:leaf|raised_in_check:KeyError",
            on_the_page=True,
        ),
        Answer(
            "def source_leaf(param):\n"
            "    node = param.val().node\n"
            "    return node.parents[0] if node.parents else node\n",
            "one step back at most (a reviewer's try)",
            "failed:leaf",
        ),
        Answer(
            "def source_leaf(param):\n"
            "    node = param.val().node\n"
            "    while node.parents:\n"
            "        (node,) = node.parents\n"
            "    return node.id\n",
            "the leaf's id, not the leaf (its message once read 'expected NodeId(14), got 14': the tenth "
            "learner)",
            "failed:not_node",
        ),
    ],
    "ex-03-repair": [
        Answer(
            "repaired = model.fork(metal).weight.val()\n",
            "a Grad leaf on metal with the same values, but made by fork, which the exercise "
            "forbids",
            "failed:no_fork",
        ),
        Answer(
            "repaired = moved.weight.val().detach()\n",
            "detach of a GradInBackward tensor gives an untracked leaf: it does not require grad",
            "failed:grad_leaf",
        ),
        Answer(
            "repaired = moved.weight.val().require_grad()\n",
            "require_grad() on an op's output raises: it is not a leaf",
            "raised:NonLeafRequireGradError",
        ),
        Answer(
            "repaired = Tensor.random([4, 1], Distribution.uniform(-1.0, 1.0), metal).require_grad()\n",
            "a Grad leaf on metal, but with new values instead of the moved weight's",
            "failed:values",
        ),
        Answer(
            "repaired = getattr(model, 'fo' + 'rk')(metal).weight.val()\n",
            "fork, called through a name built at run time: a name search cannot see it",
            "failed:no_fork",
            on_the_page=True,
        ),
        Answer(
            "def by_hand(m):\n"
            "    return m.fork(metal)\n"
            "\n"
            "repaired = by_hand(model).weight.val()\n",
            "fork, called from a helper function",
            "failed:no_fork",
            on_the_page=True,
        ),
        Answer(
            "from mlx_autodiff import Param\n"
            "\n"
            "weight = moved.weight.val()\n"
            "repaired = Param.uninitialized('w', weight.device, tuple(weight.shape),"
            " None)._with(weight).fork(metal).val()\n",
            "Param.fork on a fresh Param that holds the weight: the library's fork under another "
            "name",
            "failed:no_fork",
            on_the_page=True,
        ),
        Answer(
            "repaired = Tensor.from_data([[-0.1], [0.2], [0.3], [-0.4]], metal).require_grad()\n",
            "typed-in numbers instead of the moved weight's values",
            "failed:values",
        ),
        Answer(
            "repaired = moved.weight.val().detach().require_grad().to_device(metal)\n",
            "a leaf, then moved again: the result is an op's output (a reviewer's try)",
            "failed:grad_leaf",
        ),
        Answer(
            "repaired = moved.weight.val().to_device(metal.inner())\n",
            "a plain copy on metal: not a Grad leaf (a reviewer's try)",
            "raised:AutodiffMoveError",
        ),
        Answer(
            "t = moved.weight.val().detach().require_grad()\n"
            "moved.weight = moved.weight._with(t)\n"
            "repaired = t\n",
            "repairs moved itself, replacing its weight (issue 39's fifth learner): the check said only "
            "that a new leaf gets a new node id, not that moved was changed",
            "failed:untouched",
            found="your answer changed moved",
        ),
        Answer(
            "from mlx_autodiff import Requirement\n"
            "w = moved.weight.val()\n"
            "w.node.requirement = Requirement.GRAD\n"
            "w.node.parents = ()\n"
            "repaired = w\n",
            "turns the moved weight's own node into a leaf in place (issue 39's fifth learner)",
            "failed:untouched",
            found="your answer changed moved",
        ),
    ],
    "ex-04-smoke-test": [
        Answer(
            "def no_effect(model, x, y):\n"
            "    before = {n: p.val().array for n, p in model.named_params()}\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    g = GradientsParams.from_grads(loss.backward(), model)\n"
            "    after = optim.step(0.1, model, g)\n"
            "    return after, [n for n, p in after.named_params()\n"
            "                   if mx.array_equal(p.val().array, before[n]).item()]\n",
            "steps with the chapter's Adam, whose state a second call on the same model carries on (the "
            "tenth learner)",
            "failed:fresh_adam",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    after = AdamConfig().init().step(0.1, model, grads)\n"
            "    before = dict(model.named_params())\n"
            "    return after, [n for n, p in after.named_params() if p.lazy_is_require_grad()\n"
            "                   and bool(mx.array_equal(p.val().array, before[n].val().array))]\n",
            "leaves out a frozen parameter, which the step leaves unchanged too (the eighth learner)",
            "failed:unchanged",
        ),
        Answer(
            "from mlx_autodiff import Module, Param\n"
            "def _walk(m, prefix=''):\n"
            "    for k, v in vars(m).items():\n"
            "        if isinstance(v, Param):\n"
            "            yield prefix + k, v\n"
            "        elif isinstance(v, Module):\n"
            "            yield from _walk(v, prefix + k + '.')\n"
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    after = AdamConfig().init().step(0.1, model, grads)\n"
            "    before = dict(_walk(model))\n"
            "    return after, [n for n, p in _walk(after)\n"
            "                   if bool(mx.array_equal(p.val().array, before[n].val().array))]\n",
            "walks the attributes by hand and misses layers kept in a list (the eighth learner)",
            "failed:unchanged",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    before = snapshot_values(model)\n"
            "    return model, before\n",
            "a helper defined in a cell of the reader's own above the answer's: grading runs the answer's "
            "cell alone after the chapter's (the eighth learner), and the verdict says so",
            "raised_in_check:NameError",
            "define every helper your answer uses there",
        ),
        Answer(
            "from mlx_autodiff import SgdConfig\n"
            "\n"
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = SgdConfig().init().step(1e-1, model, grads)\n"
            "    before = {name: p.val().array for name, p in model.named_params()}\n"
            "    return stepped, [n for n, p in stepped.named_params() if"
            " mx.array_equal(p.val().array, before[n])]\n",
            "steps with SGD, where the exercise (and the loop above) uses Adam",
            "failed:adam",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    before = {name: p.val().array for name, p in stepped.named_params()}\n"
            "    return stepped, [n for n, p in stepped.named_params() if"
            " mx.array_equal(p.val().array, before[n])]\n",
            "compares the stepped model with itself, so every parameter looks unchanged",
            "failed:unchanged",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    before = {name: p.val().array for name, p in model.named_params()}\n"
            "    return [n for n, p in stepped.named_params() if"
            " mx.array_equal(p.val().array, before[n])]\n",
            "returns the names only, not the model after the step the exercise also asks for",
            "failed:two_things",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    after = AdamConfig().init().step(1e-1, model, grads)\n"
            "    names = [name for name, _ in model.named_params()]\n"
            "    return after, ([] if len(grads) else names)\n",
            "right only when all or none of the parameters move: a half-moved model gets []",
            "failed:unchanged",
            on_the_page=True,
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    return stepped, [name for name, p in model.named_params() if p.is_require_grad()]\n",
            "names the parameters that are Grad leaves: the opposite (a reviewer's try)",
            "failed:unchanged",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    return stepped, [] if len(grads) == 2 else ['weight', 'bias']\n",
            "all or nothing, by the count of two (a reviewer's try)",
            "failed:unchanged",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    return stepped, [n for n, p in model.named_params() if not p.is_require_grad()]\n",
            "predicts by the parameters' kind instead of comparing values: a Grad leaf whose gradient is "
            "zero is left unchanged too (issue 39's second learner)",
            "failed:unchanged",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    return stepped, [n for n, p in model.named_params() if grads.get(p.id) is None]\n",
            "a missing gradient taken for an unchanged value: a zero gradient leaves the value too "
            "(issue 39's second learner)",
            "failed:unchanged",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    target = x.sum_dim(1)          # y is the sum of the inputs\n"
            "    loss = MseLoss().forward(model.forward(x), target, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(0.1, model, grads)\n"
            "    before = dict(model.named_params())\n"
            "    return stepped, [n for n, p in stepped.named_params()\n"
            "                     if mx.array_equal(p.val().array, before[n].val().array).item()]\n",
            "recomputes the target as the sum of the inputs instead of using the y it is given (issue "
            "39's fifth learner, en CLI and zh live)",
            "failed:sum_target",
            on_the_page=True,
        ),
        Answer(
            "_x, _y = x, y\n"
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(_x), _y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(0.1, model, grads)\n"
            "    before = dict(model.named_params())\n"
            "    return stepped, [n for n, p in stepped.named_params()\n"
            "                     if mx.array_equal(p.val().array, before[n].val().array).item()]\n",
            "ignores the x and y it is given and steps on the chapter's, saved in globals (issue 39's "
            "fifth learner)",
            "failed:chapter_data",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(0.1, model, grads)\n"
            "    before = {n: p.val().array for n, p in model.named_params()}\n"
            "    same = [n for n, p in stepped.named_params()"
            " if mx.array_equal(p.val().array, before[n]).item()]\n"
            "    model.__dict__.update(stepped.__dict__)\n"
            "    return model, same\n",
            "copies the stepped model into the one it was given and returns that: the model before the "
            "step is lost (issue 39's fifth learner)",
            "failed:source_replaced",
        ),
    ],
    "ex-04-lost-gradient": [
        Answer(
            "forked_grad = raw.get(cpu_w).to_device(metal)\n",
            "no fork and no backward: the CPU gradient copied over (the issue's example)",
            "must_define:forked",
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = raw.get(cpu_w).to_device(metal)\n",
            "runs the forked pass but still copies the CPU gradient instead of reading its own",
            "failed:own_gradient",
        ),
        Answer(
            "forked = model.to_device(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = forked_raw.get(forked.weight.val())\n",
            "to_device instead of fork: the weight is an op's output, whose gradient is not kept",
            "failed:forked_leaf",
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = raw.get(cpu_w).to_device(metal) * 1.0\n",
            "the CPU gradient copied over, made a new tensor by `* 1.0` so that an identity test "
            "misses it",
            "failed:own_gradient",
            on_the_page=True,
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = Tensor(mx.array([[-0.652664], [-0.261446], [-0.853207], [-0.320008]]), metal)\n",
            "the numbers the chapter prints for the CPU gradient, typed in",
            "failed:own_gradient",
            on_the_page=True,
        ),
        Answer(
            "forked = model.fork(flex.autodiff())\n"
            "forked_raw = MseLoss().forward(forked.forward(x.to_device(flex.autodiff())),\n"
            "                               y.to_device(flex.autodiff()), Reduction.MEAN).backward()\n"
            "forked_grad = forked_raw.get(forked.weight.val())\n",
            "forks, but onto the CPU's autodiff device, not metal (issue 39's third learner: the hint "
            "then blamed to_device)",
            "failed:forked_device",
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = forked_raw.get(forked.bias.val())\n",
            "the bias's gradient instead of the weight's (a reviewer's try)",
            "failed:own_gradient",
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(moved.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = forked_raw.get(forked.weight.val())\n",
            "the loss of the moved model, not the forked one (a reviewer's try)",
            "raised:TapeConsumedError",
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = GradientsParams.from_grads(forked_raw, forked).get(forked.weight.id)\n",
            "the right gradient, read through from_grads, which takes it out of forked_raw: the check "
            "can no longer tell it from a copy such as `raw.get(cpu_w).to_device(metal) * 1.0` after "
            "the same from_grads, so it is refused with a message that says why and what to write "
            "(issue 39's fifth learner, zh CLI and live)",
            "failed:emptied",
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "GradientsParams.from_grads(forked_raw, forked)\n"
            "forked_grad = raw.get(cpu_w).to_device(metal) * 1.0\n",
            "the CPU gradient copied over, forked_raw emptied by from_grads first so that no identity "
            "test can run",
            "failed:emptied",
        ),
    ],
    "ex-05-predict-node": [
        Answer(
            "def predict_failing_node(model):\n"
            "    tracked = [p.val().node for p in (model.bias, model.weight)\n"
            "               if p is not None and p.val().node.parents]\n"
            "    return tracked[0].id\n",
            "reads a bias that was never read to find out: right numbers, but it builds the recipe on metal "
            "(the eleventh learner)",
            "failed:reads",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    model.bias = None\n"
            "    return model.weight.val().node.id\n",
            "drops the bias from the model the check then trains, so that the weight is right (the ninth "
            "learner, on the page)",
            "failed:model_changed",
            on_the_page=True,
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    nodes = sorted((p.val().node for p in model.params()), key=lambda node: node.id)\n"
            "    if len(nodes) == 2:\n"
            "        nodes[0].id, nodes[1].id = nodes[1].id, nodes[0].id\n"
            "    return max(p.val().node.id for p in model.params())\n",
            "keeps the wrong 'largest id' rule and renumbers the nodes to make it true (the ninth learner)",
            "failed:model_changed",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    last = model.bias if model.bias is not None else model.weight\n"
            "    return last.val().node.id\n",
            "the bias's node whenever there is a bias: wrong when the bias was unread or frozen at the move "
            "(the eighth learner; the book's own solution was this, for a narrower statement)",
            "failed:predicted",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    return model.weight.val().node.id\n",
            "always the weight: with a bias, backward reaches the bias's to_device node first",
            "failed:predicted",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    try:\n"
            "        train_step(train_step(model))\n"
            "    except TapeConsumedError as err:\n"
            "        return err.node.id\n",
            "does not predict: it runs the two steps and reads the error",
            "failed:no_backward",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    first = model.bias if model.bias is not None else model.weight\n"
            "    return first.val().node\n",
            "returns the node, not its id",
            "failed:a_number",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    return max(param.val().node.id for param in model.params())\n",
            "the largest parameter node id: the bias's for a Linear moved at once, but not the "
            "rule (the walk is last in, first out)",
            "failed:predicted",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    return model.bias.val().node.id\n",
            "always the bias, even when there is none (a reviewer's try)",
            "raised_in_check:AttributeError|failed:predicted",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    return min(param.val().node.id for param in model.params())\n",
            "the smallest id (a reviewer's try): where it reads a bias never read first, that is its mistake "
            "too",
            "failed:predicted|failed:reads",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    first = model.bias if model.bias is not None else model.weight\n"
            "    return first.val().node.parents[0].id\n",
            "the CPU original's id, not the moved node's (a reviewer's try)",
            "failed:predicted|raised_in_check:IndexError",
        ),
        Answer(
            "\n"
            "import numpy as np\n"
            "def predict_failing_node(model):\n"
            "    first = model.bias if model.bias is not None else model.weight\n"
            "    return np.int64(first.val().node.id)\n",
            "the right id as numpy's int64: refused (only an int itself is compared, a subclass or "
            "look-alike could say anything), with the fix in the message (issue 39's third learner)",
            "failed:a_number",
            found="(type int64; if it is the right number in another type, int(...) makes it an int)",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    first = model.bias if model.bias is not None else model.weight\n"
            "    return str(first.val().node.id)\n",
            "the id as a string: the message shows it in quotes, so it does not look like a number "
            "(issue 39's third learner)",
            "failed:a_number",
            found="' (type str; if it is the right number in another type, int(...) makes it an int)",
        ),
    ],
    "ex-05-combine": [
        Answer(
            "combined = x.matmul(w).square().mean().backward()\n"
            "w_grad = combined.get(w)\n",
            "one backward pass, but on the second loss alone",
            "failed:sum",
        ),
        Answer(
            "first = x.matmul(w).mean().backward()\n"
            "combined = x.matmul(w).square().mean().backward()\n"
            "w_grad = first.get(w) + combined.get(w)\n",
            "two backward passes whose gradients are added by hand, not one pass on the sum",
            "failed:once",
        ),
        Answer(
            "combined = (loss_a + x.matmul(w).square().mean()).backward()\n"
            "w_grad = combined.get(w)\n",
            "reuses loss_a, whose tape the first backward consumed: no new forward pass for it",
            "raised:TapeConsumedError",
        ),
        Answer(
            "g_a = x.matmul(w).mean().backward().get(w)\n"
            "g_b = x.matmul(w).square().mean().backward().get(w)\n"
            "w_grad = g_a + g_b\n"
            "combined = {w: w_grad}\n",
            "two backward passes whose gradients are added, in a dict: the exercise is one pass on "
            "the sum",
            "failed:once",
            on_the_page=True,
        ),
        Answer(
            "class Combined:\n"
            "    def __init__(self, grad):\n"
            "        self.grad = grad\n"
            "\n"
            "    def get(self, tensor):\n"
            "        return self.grad\n"
            "\n"
            "\n"
            "w_grad = x.matmul(w).mean().backward().get(w) +"
            " x.matmul(w).square().mean().backward().get(w)\n"
            "combined = Combined(w_grad)\n",
            "two backward passes added, behind a small class with a get method",
            "failed:once",
            on_the_page=True,
        ),
        Answer(
            "combined = x.matmul(w).mean().backward()\n"
            "w_grad = combined.get(w) * 2\n",
            "one backward pass of the first loss, doubled (a reviewer's try)",
            "failed:from_combined",
        ),
        Answer(
            "combined = (x.matmul(w).mean() * x.matmul(w).square().mean()).backward()\n"
            "w_grad = combined.get(w)\n",
            "the product of the losses, not their sum (a reviewer's try)",
            "failed:sum",
        ),
    ],
    "ex-06-fork-by-hand": [
        Answer(
            "from mlx_autodiff import Requirement\n"
            "def fork_tensor(tensor, device):\n"
            "    out = tensor.to_device(device)\n"
            "    if out.node is None:\n"
            "        return out\n"
            "    again = tensor.node.requirement is not Requirement.NONE and tensor.node.op != 'to_device'\n"
            "    out = out.detach()\n"
            "    return out.require_grad() if again else out\n",
            "asks for gradients again for any tracked input but a move: another op's output is not a Grad "
            "leaf either (the ninth learner, on the page)",
            "failed:requirement",
            on_the_page=True,
        ),
        Answer(
            "from mlx_autodiff import Requirement\n"
            "def fork_tensor(tensor, device):\n"
            "    was = tensor.is_require_grad()\n"
            "    if tensor.node is not None and tensor.node.is_leaf:\n"
            "        tensor.node.requirement = Requirement.GRAD\n"
            "    out = tensor.to_device(device).detach()\n"
            "    return out.require_grad() if was else out\n",
            "turns the tensor it was given into a Grad leaf before moving it: fork leaves its input as it "
            "was (issue 39's sixth learner)",
            "failed:input_changed",
            on_the_page=True,
        ),
        Answer(
            "def fork_tensor(tensor, device):\n"
            "    return tensor.to_device(device).detach().require_grad()\n",
            "always asks for gradients: fork does so only if the input was a Grad leaf",
            "failed:requirement",
        ),
        Answer(
            "def fork_tensor(tensor, device):\n"
            "    return tensor.to_device(device)\n",
            "moves only: the result is the to_device op's output, not a leaf",
            "failed:new_leaf",
        ),
        Answer(
            "def fork_tensor(tensor, device):\n"
            "    fresh = Tensor.from_data(tensor.array, device)\n"
            "    return fresh.require_grad() if tensor.is_require_grad() else fresh\n",
            "copies the values into a new tensor on device: a plain input becomes autodiff, which "
            "fork never does",
            "failed:stays_plain",
        ),
        Answer(
            "from mlx_autodiff import Param\n"
            "\n"
            "def fork_tensor(tensor, device):\n"
            "    param = Param.uninitialized('t', tensor.device, tuple(tensor.shape), None)._with(tensor)\n"
            "    return param.fork(device).val()\n",
            "the library's Param.fork on a Param wrapped around the tensor",
            "failed:by_hand",
            on_the_page=True,
        ),
        Answer(
            "from mlx_autodiff import Param\n"
            "\n"
            "def fork_tensor(tensor, device):\n"
            "    param = Param.uninitialized('t', tensor.device, tuple(tensor.shape), None)._with(tensor)\n"
            "    return getattr(param, 'fo' + 'rk')(device).val()\n",
            "Param.fork again, through a name built at run time",
            "failed:by_hand",
            on_the_page=True,
        ),
        Answer(
            "def fork_tensor(tensor, device):\n"
            "    moved = tensor.to_device(device).detach()\n"
            "    return moved.require_grad() if moved.node is not None else moved\n",
            "asks for gradients whenever the result is autodiff, not only when the input was a "
            "Grad leaf",
            "failed:requirement",
        ),
        Answer(
            "def fork_tensor(tensor, device):\n"
            "    moved = tensor.to_device(device).detach()\n"
            "    return moved.require_grad() if tensor.node is not None else moved\n",
            "asks for gradients for every autodiff input (a reviewer's try)",
            "failed:requirement",
        ),
        Answer(
            "def fork_tensor(tensor, device):\n"
            "    return tensor.detach().to_device(device)\n",
            "detaches before the move: the move is then an op's output (a reviewer's try)",
            "failed:new_leaf",
        ),
    ],
    "ex-06-rescue": [
        Answer(
            "rescued = arrived.map_params(\n"
            "    lambda p: p._with(p.val().detach().require_grad(), require_grad=True))\n",
            "makes every parameter a Grad leaf and sets every flag: a bias frozen before the move comes back "
            "trainable (the eleventh learner, through the private Param._with)",
            "failed:frozen_leaf|failed:flag",
        ),
        Answer(
            "from mlx_autodiff.module import Param\n"
            "rescued = arrived.map_params(lambda p: Param(p.id, p.name, metal, p.shape, True,\n"
            "    (lambda t: (lambda d, g: Tensor.from_data(t.array, d).require_grad()))(p.val())))\n",
            "new parameters by the public constructor, every flag forced on: a frozen bias is unfrozen (the "
            "eleventh learner)",
            "failed:frozen_leaf|failed:flag",
        ),
        Answer(
            "rescued = arrived.no_grad().map_params(lambda p: p._with(p.val().require_grad()))\n",
            "Grad leaves under stored flags no_grad cleared: fork, train() and the trainable count would "
            "call them frozen (the eighth learner)",
            "failed:flag",
        ),
        Answer(
            "rescued = arrived.valid()\n",
            "valid() makes plain tensors, with no node: the message says so instead of a bare None (issue "
            "39's sixth learner)",
            "failed:plain",
        ),
        Answer(
            "rescued = model.fork(metal)\n",
            "forks the chapter's CPU model, which the exercise says is gone (the issue's example)",
            "failed:same_ids",
        ),
        Answer(
            "rescued = arrived.fork(metal)\n",
            "fork of a to_device output: it was not a Grad leaf, so fork does not call "
            "require_grad",
            "failed:grad_leaf",
        ),
        Answer(
            "rescued = arrived.train()\n",
            "train() wraps plain tensors; these are already autodiff",
            "raised:AlreadyAutodiffError",
        ),
        Answer(
            "rescued = moved_elsewhere().valid().train()\n",
            "rescues another model made the same way, not arrived",
            "failed:same_ids",
        ),
        Answer(
            "rescued = arrived.no_grad().fork(metal)\n",
            "frozen, then forked: untracked leaves (a reviewer's try)",
            "failed:grad_leaf",
        ),
        Answer(
            "rescued = arrived.fork(metal).train()\n",
            "fork, then train(): train() wraps plain tensors only (a reviewer's try)",
            "raised:AlreadyAutodiffError",
        ),
        Answer(
            "from mlx_autodiff import Requirement\n"
            "for p in arrived.params():\n"
            "    n = p.val().node\n"
            "    n.requirement = Requirement.GRAD\n"
            "    n.parents = ()\n"
            "rescued = arrived\n",
            "turns arrived's to_device nodes into leaves in place (issue 39's fifth learner): the check's "
            "own backward pass crashed on them, and the verdict blamed a zip()",
            "failed:arrived_kept",
            found="your answer changed arrived",
        ),
    ],
    "ex-07-sgd": [
        Answer(
            "start = initialized(flex.autodiff()).fork(metal)\n"
            "opt, m, losses, grad_counts = SgdConfig().init(), start, [], []\n"
            "for _ in range(5):\n"
            "    loss = MseLoss().forward(m.forward(x), y, Reduction.MEAN)\n"
            "    losses.append(loss.into_scalar())\n"
            "    raw = loss.backward()\n"
            "    grad_counts.append(len(raw))\n"
            "    m = opt.step(0.1, m, GradientsParams.from_grads(raw, m))\n",
            "counts backward's Gradients, not what from_grads collects: the same on a forked Linear, not "
            "where a tracked tensor is no parameter (the ninth learner, on the page)",
            "failed:counts",
            on_the_page=True,
        ),
        Answer(
            "start = model = initialized(flex.autodiff()).fork(metal)\n"
            "optim = AdamConfig().init()\n"
            "losses, grad_counts = [], []\n"
            "for step in range(5):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    losses.append(loss.into_scalar())\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    grad_counts.append(len(grads))\n"
            "    model = optim.step(1e-1, model, grads)\n",
            "trains with Adam, where the exercise asks for SGD",
            "failed:adam",
        ),
        Answer(
            "start = model = LinearConfig(4, 1).init(metal)\n"
            "optim = SgdConfig().init()\n"
            "losses, grad_counts = [], []\n"
            "for step in range(5):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    losses.append(loss.into_scalar())\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    grad_counts.append(len(grads))\n"
            "    model = optim.step(1e-1, model, grads)\n",
            "builds the model on metal directly instead of forking an initialized flex.autodiff "
            "model",
            "failed:forked_start",
        ),
        Answer(
            "start = model = initialized(flex.autodiff()).fork(metal)\n"
            "optim = SgdConfig().init()\n"
            "losses, grad_counts = [], []\n"
            "for step in range(5):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    losses.append(loss.into_scalar())\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    grad_counts.append(len(grads))\n"
            "    model = optim.step(1e-2, model, grads)\n",
            "SGD, but with learning rate 0.01 instead of 0.1",
            "failed:sgd",
        ),
        Answer(
            "start = model = initialized(flex.autodiff()).fork(metal)\n"
            "optim = SgdConfig().init()\n"
            "losses, grad_counts = [], []\n"
            "for step in range(5):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    losses.append(loss)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    grad_counts.append(len(grads))\n"
            "    model = optim.step(1e-1, model, grads)\n",
            "records the loss tensors, not their values (a reviewer's try)",
            "failed:numbers",
        ),
        Answer(
            "start = model = initialized(flex.autodiff()).fork(metal)\n"
            "optim = SgdConfig().init()\n"
            "losses, grad_counts = [], []\n"
            "for step in range(5):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    model = optim.step(1e-1, model, grads)\n"
            "    losses.append(MseLoss().forward(model.forward(x), y, Reduction.MEAN).into_scalar())\n"
            "    grad_counts.append(len(grads))\n",
            "records the loss after each step instead of the step's own (a reviewer's try)",
            "failed:sgd",
        ),
        Answer(
            _sgd_loop(count="grad_counts.append(m.num_param_tensors())"),
            "records the model's parameter tensors, not len(GradientsParams): the two agree only while "
            "every parameter gets a gradient, which is what the count is there to tell (issue 39's fifth "
            "learner)",
            "failed:param_tensors",
            on_the_page=True,
        ),
        Answer(
            _sgd_loop(count="pass", after="grad_counts = [2, 2, 2, 2, 2]\n"),
            "the counts typed in, the number the page prints (issue 39's fifth learner)",
            "failed:counts",
        ),
        Answer(
            _sgd_loop(built_on="metal"),
            "forks a model initialized on metal, not on flex.autodiff: fork's fresh leaves look the same, "
            "so the check asks its own initialized where it was built (issue 39's fifth learner, en CLI "
            "and live)",
            "failed:built_on",
        ),
    ],
    "ex-07-guard": [
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "def guarded_train(model, steps):\n"
            "    guard, optim, losses = TrainingGuard(model), AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), x.sum_dim(1), Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = guard.backward(step, loss, model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "trains on the rows' sums, not on y: the same as long as y is x.sum_dim(1) (the eleventh "
            "learner)",
            "failed:adam",
        ),
        Answer(
            "def guarded_train(model, steps):\n"
            "    optim, losses = AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "no guard at all: a to_device model runs step 0 with no gradients and crashes at step "
            "1",
            "failed:(tape|not_stopped)",  # the case stopped inside the loop may come first
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "\n"
            "def guarded_train(model, steps):\n"
            "    optim, losses = AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        if step == 0:  # a warm-up step, unguarded\n"
            "            grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "        else:\n"
            "            grads = TrainingGuard(model).backward(step, loss, model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "guards from step 1 only: step 0 reaches the optimizer before the guard looks",
            "failed:stepped",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "\n"
            "def guarded_train(model, steps):\n"
            "    guard, optim, losses = TrainingGuard(model), SgdConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = guard.backward(step, loss, model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "guarded, but with SGD instead of the chapter's Adam",
            "failed:adam",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard, assert_trainable\n"
            "\n"
            "def guarded_train(model, steps):\n"
            "    assert_trainable(model)\n"
            "    optim, losses = AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "checks the flags once with the guard module, but does not collect the gradients "
            "through TrainingGuard",
            "failed:(not_stopped|through_guard)",  # the case stopped inside the loop comes first
        ),
        Answer(
            "from mlx_autodiff.guard import MissingGradientsError\n"
            "\n"
            "def guarded_train(model, steps):\n"
            "    optim, losses = AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "        if len(grads) != len(model.params()):\n"
            "            raise MissingGradientsError('missing gradients')\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "its own check raising the guard's error, not TrainingGuard",
            "failed:through_guard",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "\n"
            "def guarded_train(model, steps):\n"
            "    guard, optim, losses = TrainingGuard(model), AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss)\n"
            "        grads = guard.backward(step, loss, model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "returns the loss tensors (a reviewer's try)",
            "failed:losses",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "\n"
            "def guarded_train(model, steps):\n"
            "    guard, optim, losses = TrainingGuard(model, check_flags=False), AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "makes a guard but collects the gradients without it (a reviewer's try)",
            "failed:(tape|not_stopped)",  # the case stopped inside the loop may come first
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "def guarded_train(model, steps):\n"
            "    guard, optim, losses = TrainingGuard(model), AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        try:\n"
            "            grads = guard.backward(step, loss, model)\n"
            "        except Exception:\n"
            "            return losses\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "swallows the guard's error inside the loop and returns the losses: only a model the guard "
            "stops at a step, not when it is built, shows it (issue 39's second learner)",
            "failed:not_stopped",
        ),
    ],
    "ex-08-eighth-method": [
        Answer(
            "from bookkit.runs.scenarios import Scenario\n"
            "\n"
            "eighth = Scenario('again', 'to_device', 'flex.autodiff', True, ('to_device',))\n",
            "the article's ad-to_device: 0 gradients at step 0, then the tape-consumed error",
            "failed:trains",
        ),
        Answer(
            "from bookkit.runs.scenarios import Scenario\n"
            "\n"
            "eighth = Scenario('lazy', 'lazy -> to_device', 'flex.autodiff', False, ('to_device',))\n",
            "trains, but from a model nobody read: the exercise asks for an initialized one",
            "failed:initialized",
        ),
        Answer(
            "from bookkit.runs.scenarios import Scenario\n"
            "\n"
            "eighth = Scenario('both', 'to_device then fork', 'flex.autodiff',"
            " True, ('to_device', 'fork'))\n",
            "uses fork after to_device, which the exercise rules out (and it does not train)",
            "failed:no_fork",
        ),
        Answer(
            "from bookkit.runs.scenarios import Scenario\n"
            "\n"
            "eighth = Scenario('tt', 'to_device -> train()', 'flex.autodiff', True, ('to_device',"
            " 'train'))\n",
            "train() right after to_device of an autodiff model (a reviewer's try)",
            "failed:trains",
        ),
        Answer(
            "from bookkit.runs.scenarios import Scenario, initialized\n"
            "from mlx_autodiff import Device\n"
            "class Mine(Scenario):\n"
            "    def build(self):\n"
            "        return initialized(Device.flex().autodiff()).fork(Device.metal().autodiff())\n"
            "eighth = Mine(\"x\", \"x\", \"flex.autodiff\", True, (\"to_device\",))\n",
            "a Scenario subclass whose build() forks while its moves say to_device (issue 39's third "
            "learner, who passed it in both editions, the notebook and live; they imported Scenario from "
            "mlx_autodiff.scenarios, since moved to bookkit.runs.scenarios)",
            "failed:_common\\.not_exactly",
            on_the_page=True,
        ),
        Answer(
            "from bookkit.runs.scenarios import Scenario, initialized\n"
            "\n"
            "eighth = Scenario('x', 'x', 'flex.autodiff', True, ('to_device',))\n"
            "object.__setattr__(eighth, 'build', lambda: initialized(flex.autodiff()).fork(metal))\n",
            "a Scenario itself, but its build() replaced on the instance by one that forks",
            "failed:trains",
        ),
        Answer(
            "from bookkit.runs.scenarios import Scenario\n"
            "\n"
            "eighth = Scenario('plain', 'plain -> to_device.train()', 'flex', True, ('to_device',"
            " 'train'))\n",
            "starts from a plain model, not an autodiff one (a reviewer's try)",
            "failed:initialized",
        ),
    ],
    "ex-09-plain-to-leaf": [
        Answer(
            "trainable = p.to_device(metal).require_grad()\n",
            "to_device keeps a plain tensor plain, and require_grad() does nothing on it (the "
            "issue's example)",
            "failed:plain",
        ),
        Answer(
            "trainable = Tensor.from_inner(p).require_grad()\n",
            "a Grad leaf, but on flex.autodiff: it was never moved to metal",
            "failed:on_metal",
        ),
        Answer(
            "trainable = Tensor.random([4, 1], Distribution.uniform(-1.0, 1.0), metal).require_grad()\n",
            "a Grad leaf on metal, but new values instead of p's",
            "failed:values",
        ),
        Answer(
            "trainable = p.to_device(metal.inner())\n",
            "moved, still plain (a reviewer's try)",
            "failed:plain",
        ),
        Answer(
            "from mlx_autodiff import Tensor\n"
            "trainable = Tensor.from_data(p.array, flex.autodiff()).require_grad().to_device(metal)\n",
            "a Grad leaf on flex.autodiff, then moved: the output of to_device (issue 39's fifth learner); "
            "the message says which of the two it found, not both as a definition",
            "failed:grad_leaf",
            found="is_require_grad() is False (its node: op to_device",
        ),
    ],
    "ex-09-predict-kind": [
        Answer(
            "def kind_after_to_device(model):\n"
            "    if not model.weight.is_initialized():\n"
            "        return 'lazy'\n"
            "    model.weight = model.weight.to_device(metal)   # try the move on the model itself\n"
            "    return 'plain' if model.weight.val().node is None else 'node'\n",
            "moves the weight of the model it was given to look: the kind is right, but a forked model then "
            "holds a to_device output and trains no more (the eleventh learner)",
            "failed:model_changed",
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    w = model.weight\n"
            "    if not w.is_initialized() and w.device == flex.autodiff():\n"
            "        return 'lazy'\n"
            "    if not w.is_initialized():\n"
            "        return 'plain'\n"
            "    return 'plain' if w.val().node is None else 'node'\n",
            "lazy only when built on the CPU: an unread model built on metal is lazy too (issue 39's "
            "seventh learner)",
            "failed:kind",
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    return 'plain' if model.weight.val().node is None else 'node'\n",
            "reads the weight to look at its node, which builds a lazy parameter where it is",
            "failed:reads",
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    if not model.weight.is_initialized():\n"
            "        return 'lazy'\n"
            "    return 'node' if model.weight.is_require_grad() else 'plain'\n",
            "takes 'does not require grad' for 'plain': an untracked autodiff tensor still gets a "
            "to_device node",
            "failed:kind",
        ),
        Answer(
            "_answers = iter(['node', 'node', 'plain', 'lazy'])\n"
            "\n"
            "def kind_after_to_device(model):\n"
            "    return next(_answers)\n",
            "answers from a fixed sequence, the order the cases used to be asked in",
            "failed:kind|raised_in_check:StopIteration",
            on_the_page=True,
        ),
        Answer(
            "import itertools\n"
            "\n"
            "_answers = itertools.cycle(['node', 'node', 'plain', 'lazy'])\n"
            "\n"
            "def kind_after_to_device(model):\n"
            "    return next(_answers)\n",
            "answers from a fixed sequence, again and again",
            "failed:kind",
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    return 'node' if model.weight.device.is_autodiff else 'plain'\n",
            "forgets the lazy parameters (a reviewer's try)",
            "failed:kind",
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    weight = model.weight\n"
            "    if not weight.is_initialized():\n"
            "        return 'lazy'\n"
            "    return 'node' if weight.lazy_is_require_grad() else 'plain'\n",
            "the stored flag taken for the kind (a reviewer's try)",
            "failed:kind",
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    w = model.weight\n"
            "    if not w.is_initialized():\n"
            "        return \"lazy\"\n"
            "    return \"plain\" if w.device.name == \"flex\" else \"node\"\n",
            "takes 'plain' for 'on flex': a plain model on metal (or a valid() copy there) is plain "
            "too (issue 39's third learner, who passed it in both editions and live)",
            "failed:kind",
            on_the_page=True,
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    w = model.weight\n"
            "    if not w.is_initialized():\n"
            "        return \"lazy\"\n"
            "    t = w.val()\n"
            "    return \"node\" if (t.node is not None and t.node.is_leaf) else \"plain\"\n",
            "takes 'tracked' for 'leaf': a weight that is already a to_device output (chapter 11's move "
            "'just in case') is tracked, and moving it records another node (issue 39's fifth learner, "
            "zh CLI and live)",
            "failed:kind",
            on_the_page=True,
        ),
    ],
    "ex-10-plain-fork": [
        Answer(
            "model = LinearConfig(4, 1, bias=plain_model.bias is not None).init(metal).load_record(\n"
            "    {n: p.val().array for n, p in plain_model.named_params()})\n",
            "a new Linear(4, 1) loaded with the weights: new ParamIds, and no other shape (the eleventh "
            "learner)",
            "failed:same_ids",
        ),
        Answer(
            "model = plain_model.fork(metal)\n",
            "the failing plain-fork itself: the parameters stay plain",
            "failed:plain",
        ),
        Answer(
            "model = plain_model.train()\n",
            "trainable, but left on flex",
            "failed:on_metal",
        ),
        Answer(
            "model = initialized(metal)\n",
            "a new trainable model on metal, with new weights instead of plain_model's",
            "failed:same_ids",
        ),
        Answer(
            "model = plain_model.to_device(metal)\n",
            "moved, still plain (a reviewer's try)",
            "failed:plain",
        ),
        Answer(
            "model = plain_model.train()\n"
            "model = model.to_device(metal)\n",
            "trainable, then moved with to_device: op outputs (a reviewer's try)",
            "failed:grad_leaf",
        ),
    ],
    "ex-10-relocate": [
        Answer(
            "def relocate(model, device):\n"
            "    def one(p):\n"
            "        if not p.device.is_autodiff:\n"
            "            return p.train().fork(device)\n"
            "        return p.fork(device)\n"
            "    return model.map_params(one)\n",
            "tells plain by the parameter's device and calls train() on it, which reads an unread plain "
            "model (the ninth learner, on the page)",
            "failed:reads",
            on_the_page=True,
        ),
        Answer(
            "import copy\n"
            "from mlx_autodiff import Module, Param\n"
            "def _one(p, device):\n"
            "    if p.is_initialized() and p.val().node is None:\n"
            "        return p.fork(device).train()\n"
            "    return p.fork(device)\n"
            "def relocate(model, device):\n"
            "    new = copy.copy(model)\n"
            "    for k, v in vars(model).items():\n"
            "        if isinstance(v, Param):\n"
            "            setattr(new, k, _one(v, device))\n"
            "        elif isinstance(v, Module):\n"
            "            setattr(new, k, relocate(v, device))\n"
            "    return new\n",
            "relocates attribute by attribute and leaves layers kept in a list where they were (the eighth "
            "learner)",
            "failed:plain|failed:on_device|failed:source_replaced",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    if not any(p.is_initialized() for p in model.params()):\n"
            "        return LinearConfig(4, 1).init(device)\n"
            "    plain = any(p.is_initialized() and p.val().node is None for p in model.params())\n"
            "    return model.to_device(device).train() if plain else model.fork(device)\n",
            "a model nobody read replaced by a new one (the fourth learner): new ParamIds, and nothing of "
            "the model it was given (a mixed model, shuffled in first, meets train() on its autodiff weight)",
            "failed:same_ids|raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "from mlx_autodiff.module import Param\n"
            "def relocate(model, device):\n"
            "    return model.map_params(lambda p: Param(p.id, p.name, device, p.shape, True, p._init))\n",
            "a parameter rebuilt by hand from a read one's fields: its initializer is spent, so it holds "
            "nothing (issue 39's third learner, who got a bare AssertionError; a read case may meet "
            "the values check first, as the cases are shuffled)",
            "(raised_in_check|check_error):EmptyParamError|failed:values",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    return model.fork(device)\n",
            "fork is right for autodiff models only: a plain model stays plain",
            "failed:plain",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    plain = any(p.val().node is None for p in model.params())\n"
            "    return model.to_device(device).train() if plain else model.fork(device)\n",
            "reads every parameter to find out, which builds a lazy one where it is (and moves a mixed "
            "model as one: train() refuses its autodiff weight)",
            "failed:reads|raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    return model.to_device(device).train()\n",
            "train() is for plain models only: on an autodiff one it raises",
            "raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    plain = any(p.is_initialized() and p.val().node is None for p in model.params())\n"
            "    return model.to_device(metal).train() if plain else model.fork(metal)\n",
            "always moves to metal, whatever device it is given (and a mixed model as one)",
            "failed:on_device|raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    if any(p.is_require_grad() for p in model.params()):\n"
            "        return model.fork(device)\n"
            "    return model.to_device(device).train()\n",
            "is_require_grad() reads a lazy parameter (a reviewer's try; a mixed model is forked whole, "
            "its plain parameters left plain)",
            "failed:reads|failed:plain",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    plain = any(p.is_initialized() and p.val().node is None for p in model.params())\n"
            "    return model.train().fork(device) if plain else model.to_device(device)\n",
            "to_device for autodiff models (a reviewer's try; train() on a mixed model's autodiff weight "
            "raises)",
            "failed:grad_leaf|raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "import mlx.core as mx\n"
            "def relocate(model, device):\n"
            "    plain = any(p.is_initialized() and p.val().node is None for p in model.params())\n"
            "    moved = model.to_device(device).train() if plain else model.fork(device)\n"
            "    return moved.load_record({n: mx.zeros(p.shape) for n, p in moved.named_params()})\n",
            "a trainable model on the device, but every weight zeroed: a relocation must keep the values "
            "(issue 39's third learner, who passed it in both editions and live; a mixed model meets "
            "train() on its autodiff weight)",
            "failed:values|raised_in_check:AlreadyAutodiffError",
            on_the_page=True,
        ),
        Answer(
            "def relocate(model, device):\n"
            "    plain = any(p.is_initialized() and p.val().node is None for p in model.params())\n"
            "    return model.to_device(device).train() if plain else model.fork(device)\n",
            "the book's own earlier solution: one move for the whole model, so on a mixed model train() "
            "meets the autodiff weight (issue 39's fifth learner)",
            "raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    plain = all(p.is_initialized() and p.val().node is None for p in model.params())\n"
            "    return model.to_device(device).train() if plain else model.fork(device)\n",
            "`all` where one plain parameter is enough: a mixed model is forked whole and its plain "
            "parameters stay plain (a RIGHT answer while the check tried no mixed model; issue 39's "
            "fifth learner)",
            "failed:plain",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    m = model.fork(device)\n"
            "    if all(p.is_require_grad() for p in m.params()):\n"
            "        return m\n"
            "    return model.to_device(device).train()\n",
            "try fork, else move the whole model and train(): on chapter 10's frozen fine-tuning model, "
            "or a mixed one, train() meets an autodiff parameter and raises (issue 39's fifth learner, "
            "zh CLI and en live)",
            "raised_in_check:AlreadyAutodiffError",
            on_the_page=True,
        ),
        Answer(
            "def relocate(model, device):\n"
            "    first = model.params()[0]\n"
            "    if first.is_initialized() and first.val().node is None:\n"
            "        return model.to_device(device).train()\n"
            "    return model.fork(device)\n",
            "decides from the first parameter only: a mixed model's other parameters are moved the "
            "wrong way (left plain, or given to train() while autodiff) (issue 39's fifth learner)",
            "failed:plain|raised_in_check:AlreadyAutodiffError",
        ),
        Answer(
            "from mlx_autodiff import Module, Param\n"
            "def relocate(model, device):\n"
            "    def one(p):\n"
            "        if not p.is_initialized():\n"
            "            return p.fork(device)\n"
            "        return p.to_device(device).train() if p.val().node is None else p.fork(device)\n"
            "    def walk(m):\n"
            "        for k, v in list(vars(m).items()):\n"
            "            if isinstance(v, Param):\n"
            "                setattr(m, k, one(v))\n"
            "            elif isinstance(v, Module):\n"
            "                walk(v)\n"
            "            elif isinstance(v, (list, tuple)):\n"
            "                for it in v:\n"
            "                    if isinstance(it, Module):\n"
            "                        walk(it)\n"
            "    walk(model)\n"
            "    return model\n",
            "right per parameter, but replaces the parameters of the model it was given and returns it "
            "(PyTorch's in-place habit; issue 39's fifth learner, en CLI and zh live)",
            "failed:source_replaced",
            on_the_page=True,
        ),
        Answer(
            _relocate_by_kind(plain="p.to_device(device).train()",
                              autodiff="p._with(t.to_device(device).detach().require_grad())"),
            "re-leafs every autodiff parameter with require_grad(): a parameter frozen with no_grad() "
            "comes back trainable, where fork keeps it frozen (issue 39's fifth learner)",
            "failed:frozen",
        ),
        Answer(
            _relocate_by_kind(plain="p._with(Tensor.from_inner(t.to_device(device)).require_grad(), "
                                    "require_grad=True)",
                              autodiff="p.fork(device)", imports="from mlx_autodiff import Tensor\n"),
            "forces require_grad() on plain parameters and ignores the stored flag train() reads: a "
            "frozen parameter saved plain comes back trainable (issue 39's fifth learner)",
            "failed:frozen",
        ),
    ],
    "ex-11-half-and-half": [
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 3).init(flex.autodiff())\n"
            "        self.far = LinearConfig(3, 1).init(metal)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.far.forward(self.near.forward(x).to_device(metal))\n"
            "\n"
            "halves = Halves()\n",
            "the chapter's Split, Linear(4, 3) and Linear(3, 1), not the sizes the exercise asks "
            "for",
            "failed:layers",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(metal)\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.far.forward(self.near.forward(x.to_device(metal)))\n"
            "\n"
            "halves = Halves()\n",
            "moves the input instead and keeps both layers on metal: nothing is on flex",
            "failed:layers",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.far.forward(Tensor.from_data(self.near.forward(x).array, metal))\n"
            "\n"
            "halves = Halves()\n",
            "copies the hidden values to metal instead of moving them with to_device: the graph is "
            "cut there",
            "failed:to_device",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "\n"
            "    def forward(self, x):\n"
            "        hidden = self.near.forward(x)\n"
            "        return self.far.forward(Tensor.from_inner(hidden.inner().to_device(metal.inner())))\n"
            "\n"
            "halves = Halves()\n",
            "moves a plain copy of the hidden values: the graph is cut (a reviewer's try); the message names "
            "the first layer's parameters, which get none",
            "failed:gradients",
            found="none for near.weight, near.bias",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(metal)\n"
            "        self.far = LinearConfig(2, 1).init(flex.autodiff())\n"
            "\n"
            "    def forward(self, x):\n"
            "        hidden = self.near.forward(x.to_device(metal)).to_device(flex.autodiff())\n"
            "        return self.far.forward(hidden).to_device(metal)\n"
            "\n"
            "halves = Halves()\n",
            "the layers on the other devices (a reviewer's try)",
            "failed:layers",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "    def forward(self, x):\n"
            "        return self.far.forward(self.near.to_device(metal).forward(x.to_device(metal)))\n"
            "halves = Halves()\n",
            "moves the near layer and x to metal and computes both halves there (issue 39's second learner)",
            "failed:computed|failed:moved",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "    def forward(self, x):\n"
            "        far = self.far.to_device(flex.autodiff())\n"
            "        return far.forward(self.near.forward(x)).to_device(metal)\n"
            "halves = Halves()\n",
            "moves the far layer to flex and computes both halves there, moving only the prediction "
            "(issue 39's second learner)",
            "failed:computed|failed:moved",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "\n"
            "    def forward(self, x):\n"
            "        n = self.near\n"
            "        h = x.matmul(n.weight.val()).to_device(metal) + n.bias.val().to_device(metal)\n"
            "        return self.far.forward(h)\n"
            "\n"
            "halves = Halves()\n",
            "near bias added on metal after moving (bias moved with to_device) (the fourth "
            "learner: each parameter's work followed to the one allowed move)",
            "failed:computed|failed:moved",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "\n"
            "    def forward(self, x):\n"
            "        h = self.near.forward(x)\n"
            "        w = (self.far.weight.val() * 1.0).to_device(flex.autodiff())\n"
            "        b = (self.far.bias.val() * 1.0).to_device(flex.autodiff())\n"
            "        return (h.matmul(w) + b).to_device(metal)\n"
            "\n"
            "halves = Halves()\n",
            "far computed on flex (weight *1.0 on metal then moved) (the fourth learner: each "
            "parameter's work followed to the one allowed move)",
            "failed:computed|failed:moved",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n"
            "\n"
            "    def forward(self, x):\n"
            "        h = self.near.forward(x).to_device(metal)\n"
            "        y = h.matmul(self.far.weight.val()).to_device(flex.autodiff()) + "
            "self.far.bias.val().to_device(flex.autodiff())\n"
            "        return y.to_device(metal)\n"
            "\n"
            "halves = Halves()\n",
            "far bias added on flex then output moved (the fourth learner: each parameter's work "
            "followed to the one allowed move)",
            "failed:computed|failed:moved",
        ),
    ],
    "ex-12-step0-guard": [
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    wanted = sum(p.lazy_is_require_grad() and p.val().node is not None\n"
            "                 for p in model.params())\n"
            "    if len(grads) != wanted:\n"
            "        raise RuntimeError(f'got {len(grads)} gradients, expected {wanted}')\n"
            "    return grads\n",
            "leaves plain parameters out of the count, so a plain bias flagged to train goes through (the "
            "ninth learner, on the page)",
            "failed:let_through",
            on_the_page=True,
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    try:\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    except Exception:\n"
            "        return GradientsParams()\n"
            "    n = model.num_trainable_param_tensors()\n"
            "    if len(grads) != n:\n"
            "        raise RuntimeError(f'got {len(grads)} gradients, expected {n}')\n"
            "    return grads\n",
            "hides backward's refusal and hands back no gradients (issue 39's seventh learner)",
            "failed:swallowed",
        ),
        Answer(
            "from mlx_autodiff import AutodiffError\n"
            "def guarded_backward(loss, model):\n"
            "    try:\n"
            "        raw = loss.backward()\n"
            "    except AutodiffError as e:\n"
            "        print('backward refused:', e)\n"
            "        return None\n"
            "    grads = GradientsParams.from_grads(raw, model)\n"
            "    wanted = sum(p.lazy_is_require_grad() for p in model.params())\n"
            "    if len(grads) != wanted:\n"
            "        raise RuntimeError(f'got {len(grads)} gradients, expected {wanted}')\n"
            "    return grads\n",
            "prints backward's refusal and returns None, raising nothing (the ninth learner, on the page)",
            "failed:swallowed_other",
            on_the_page=True,
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    wanted = model.num_param_tensors()\n"
            "    if len(grads) != wanted:\n"
            "        raise RuntimeError(f'got {len(grads)} gradients, expected {wanted}')\n"
            "    return grads\n",
            "counts a frozen parameter as meant to train: it stops a model that trains as it should "
            "(the book's solution until issue 39's sixth learner)",
            "failed:raised_good",
            on_the_page=True,
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    n = model.num_param_tensors()\n"
            "    if model.num_trainable_param_tensors() != n:\n"
            "        return grads\n"
            "    if len(grads) != n:\n"
            "        raise RuntimeError(f'got {len(grads)} gradients, expected {n}')\n"
            "    return grads\n",
            "never raises on a model with a frozen parameter, however few gradients come back (issue 39's "
            "sixth learner)",
            "failed:let_through",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if not all(p.is_require_grad() for p in model.params()):\n"
            "        raise RuntimeError(f'{len(grads)} of {model.num_trainable_param_tensors()} gradients')\n"
            "    return grads\n",
            "checks the flags, not the count: a model with a frozen parameter trains, yet it stops it "
            "(and the fourth learner's spare layer, flagged, never reached, no gradient, it lets through)",
            "failed:raised_good",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    n = model.num_trainable_param_tensors()\n"
            "    flagged = sum(1 for p in model.params() if p.val().is_require_grad())\n"
            "    if flagged != n:\n"
            "        raise RuntimeError(f\"expected {n} gradients, got {flagged}\")\n"
            "    return grads\n",
            "counts the flags (check 1) as the gradients got: a flagged parameter the forward pass never "
            "reaches gets none (the fourth learner)",
            "failed:let_through",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "\n"
            "def guarded_backward(loss, model):\n"
            "    return TrainingGuard(model, check_flags=False).backward(0, loss, model)\n",
            "built on mlx_autodiff.guard.TrainingGuard, which the exercise forbids (the issue's "
            "example)",
            "failed:no_guard",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_params():\n"
            "        raise RuntimeError(f'{len(grads)} gradients for {model.num_params()} parameters')\n"
            "    return grads\n",
            "compares with num_params(), which counts numbers (5 for Linear(4, 1)), not parameter "
            "tensors",
            "failed:raised_good",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) == 0:\n"
            "        wanted = model.num_trainable_param_tensors()\n"
            "        raise RuntimeError(f'0 gradients for {wanted} parameters')\n"
            "    return grads\n",
            "stops only when no gradient at all arrives: one missing of two goes through",
            "failed:let_through",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError('the model was moved with to_device: use fork')\n"
            "    return grads\n",
            "a message that guesses the cause but does not say what is wrong (the counts)",
            "failed:counts",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError('got 0 gradients, expected 2')\n"
            "    return grads\n",
            "the right check, but a message with the counts of one case typed in, not the real "
            "ones",
            "failed:counts",
        ),
        Answer(
            "import mlx_autodiff.guard as guard\n"
            "\n"
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    guard.TrainingGuard(model, check_flags=False).check_gradients(0, grads, model)\n"
            "    return grads\n",
            "the guard module again, reached through a module alias",
            "failed:no_guard",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError('gradients missing at step 0; steps 1, 2, 3, 4 would not train: '\n"
            "                           'use fork')\n"
            "    return grads\n",
            "no counts, only step numbers that hold every small count (issue 39's second learner)",
            "failed:counts",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError('第 0 步缺梯度；第 1、2、3、4 步都不会训练：用 fork')\n"
            "    return grads\n",
            "the same in Chinese: step numbers, no counts (issue 39's second learner)",
            "failed:counts",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError(f'expected {len(grads)} gradients but got '\n"
            "                           f'{model.num_trainable_param_tensors()}')\n"
            "    return grads\n",
            "the two counts swapped: it says it expected the number it got (issue 39's second learner)",
            "failed:counts",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError(f'only {len(grads)} gradients came back: the to_device bug of Burn "
            "0.22.1 (see chapter 2; appendix 4)')\n"
            "    return grads\n",
            "never says how many it expected: the other numbers are a version, a chapter and an appendix "
            "(issue 39's second learner)",
            "failed:counts",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    expected = 2\n"
            "    if len(grads) != expected:\n"
            "        raise RuntimeError(f'{len(grads)} gradients, expected {expected}')\n"
            "    return grads\n",
            "the expected count typed in: right only for models with two parameter tensors",
            "failed:raised_good",
            on_the_page=True,
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) < 2:\n"
            "        raise RuntimeError(f'only {len(grads)} gradients, expected"
            " {model.num_trainable_param_tensors()}')\n"
            "    return grads\n",
            "stops below two gradients, whatever the model has",
            "failed:.*",
            on_the_page=True,
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    guard = globals()['Training' + 'Guard'](model, check_flags=False)\n"
            "    return guard.backward(0, loss, model)\n",
            "TrainingGuard, reached through globals() and a name built at run time",
            "failed:no_guard",
            on_the_page=True,
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError(f'only {len(grads)} gradients')\n"
            "    return grads\n",
            "says the count it got, not the one it expected (a reviewer's try)",
            "failed:counts",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        n = model.num_trainable_param_tensors()\n"
            "        raise RuntimeError(f\"got {len(grads)} gradients, expected {n}; "
            "or got {n}, expected {len(grads)}?\")\n"
            "    return grads\n",
            "a message that says both orders, so neither count is in one role (issue 39's third learner)",
            "failed:counts",
            on_the_page=True,
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    n, m = len(grads), model.num_trainable_param_tensors()\n"
            "    if n != m:\n"
            "        raise RuntimeError(f\"只拿到{n}个梯度，应有{m}个；或者只拿到{m}个，应有{n}个\")\n"
            "    return grads\n",
            "the same in Chinese (issue 39's third learner, on the Chinese page too)",
            "failed:counts",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        n = model.num_trainable_param_tensors()\n"
            "        raise RuntimeError(f\"Gradients: {n}. Parameter tensors: {len(grads)}.\")\n"
            "    return grads\n",
            "labels the two counts the wrong way round",
            "failed:counts",
        ),
        Answer(
            "class Wrong(Exception):\n"
            "    def __str__(self):\n"
            "        return 'something is off: ' + ' '.join(str(i) for i in range(10))\n"
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise Wrong()\n"
            "    return grads\n",
            "an exception whose __str__ lists every small number: its message is read as BaseException's "
            "(issue 39's second learner, B4)",
            "failed:counts",
        ),
    ],
    "ex-13-predict": [
        Answer(
            "def predict(model):\n"
            "    tracked = [p for p in model.params() if not p.is_initialized() or p.is_require_grad()]\n"
            "    moving = [p for p in model.params()\n"
            "              if p.is_initialized() and p.val().node is not None and p.val().node.parents]\n"
            "    if moving:\n"
            "        return 'crash-later' if tracked else 'silent-then-crash'\n"
            "    if not tracked:\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if len(tracked) == len(model.params()) else 'partly-trains'\n",
            "counts every parameter never read as a future Grad leaf, wherever its recipe points: one "
            "retargeted to the plain Device.metal() is built plain (the eleventh learner)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    from mlx_autodiff import Device, Distribution,"
            " GradientsParams, MseLoss, Reduction, Tensor\n"
            "    metal = Device.metal().autodiff()\n"
            "    x = Tensor.random([8, 4], Distribution.uniform(-1.0, 1.0), metal)\n"
            "    try:\n"
            "        loss = MseLoss().forward(model.forward(x), x.sum_dim(dim=1), Reduction.MEAN)\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    except Exception:\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if len(grads) else 'silent-then-crash'\n",
            "does not predict: it runs a training step and looks at what happens",
            "failed:no_training",
        ),
        Answer(
            "def predict(model):\n"
            "    if all(param.is_require_grad() for param in model.params()):\n"
            "        return 'trains'\n"
            "    return 'crash-at-step-0'\n",
            "every parameter that is not a Grad leaf taken for plain: a to_device output is "
            "tracked",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    if all(param.lazy_is_require_grad() for param in model.params()):\n"
            "        return 'trains'\n"
            "    return 'crash-at-step-0'\n",
            "reads the stored flag, which stays set through to_device: the flag is not the "
            "tensor's kind",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    if all(p.is_require_grad() for p in model.params()):\n"
            "        return 'trains'\n"
            "    return 'silent-then-crash'\n",
            "no plain case (a reviewer's try)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    tensors = [param.val() for param in model.params()]\n"
            "    if any(t.node is None for t in tensors):\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains'\n",
            "no to_device case (a reviewer's try)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    if any(t.node is None for t in ts):\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if all(t.is_require_grad() for t in ts) else 'silent-then-crash'\n",
            "an untracked leaf (an autodiff tensor that asks for no gradient, after no_grad) has a node: "
            "it is taken for a to_device output (issue 39's second learner)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    def kind(t):\n"
            "        if t.is_require_grad(): return \"grad\"\n"
            "        if t.node is not None and t.node.op == \"to_device\": return \"to_device\"\n"
            "        return \"untracked\"\n"
            "    w, b = kind(model.weight.val()), kind(model.bias.val())\n"
            "    if \"to_device\" in (w, b):\n"
            "        return \"crash-later\" if \"grad\" in (w, b) else \"silent-then-crash\"\n"
            "    if w == b == \"grad\": return \"trains\"\n"
            "    if \"grad\" in (w, b): return \"partly-trains\"\n"
            "    return \"crash-at-step-0\"\n",
            "hard-wired to a weight and a bias (issue 39's third learner): a Linear without a bias has bias "
            "None, two layers have no weight; it also takes an untracked to_device output for a consumed "
            "step",
            "raised_in_check:AttributeError|failed:outcome",
        ),
        Answer(
            "from mlx_autodiff import Requirement\n"
            "def predict(model):\n"
            "    def kind(t):\n"
            "        if t.is_require_grad(): return 'grad'\n"
            "        if t.node is not None and t.node.requirement is Requirement.GRAD_IN_BACKWARD:\n"
            "            return 'in-transit'\n"
            "        return 'untracked'\n"
            "    kinds = (kind(model.weight.val()), kind(model.bias.val()))\n"
            "    if 'in-transit' in kinds:\n"
            "        return 'crash-later' if 'grad' in kinds else 'silent-then-crash'\n"
            "    if 'grad' not in kinds: return 'crash-at-step-0'\n"
            "    return 'trains' if kinds == ('grad', 'grad') else 'partly-trains'\n",
            "the book's rule, hard-wired to a weight and a bias: only the models of other shapes catch it",
            "raised_in_check:AttributeError",
        ),
        Answer(
            "def predict(model):\n"
            "    ops = []\n"
            "    for p in model.params():\n"
            "        t = p.val()\n"
            "        ops.append(\"grad\" if t.is_require_grad() else (t.node.op if t.node is not None"
            " else \"plain\"))\n"
            "    if \"to_device\" in ops:\n"
            "        return \"crash-later\" if \"grad\" in ops else \"silent-then-crash\"\n"
            "    if \"grad\" not in ops:\n"
            "        return \"crash-at-step-0\"\n"
            "    return \"trains\" if all(o == \"grad\" for o in ops) else \"partly-trains\"\n",
            "any to_device op taken for a consumed step: a frozen model's to_device output is untracked "
            "(requirement None), so no_grad then to_device crashes at step 0 (issue 39's third learner; the "
            "book's own solution until then)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    if any(t.node is not None and t.node.op == 'to_device' for t in ts):\n"
            "        return 'silent-then-crash'\n"
            "    if any(t.node is None for t in ts):\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains'\n",
            "every tensor with a node that is not a to_device output taken for a Grad leaf: an untracked "
            "leaf trains nothing (issue 39's second learner)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    if not all(t.device.is_autodiff for t in ts):\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if all(t.is_require_grad() for t in ts) else 'silent-then-crash'\n",
            "judges by the device: an untracked leaf lives on an autodiff device and still crashes at "
            "step 0 (issue 39's second learner)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    t = model.params()[0].val()\n"
            "    if t.is_require_grad():\n"
            "        return 'trains'\n"
            "    if t.node is not None and t.node.op == 'to_device':\n"
            "        return 'silent-then-crash'\n"
            "    return 'crash-at-step-0'\n",
            "looks only at the first parameter (a Linear's weight): right while both parameters are of one "
            "kind, wrong for a mixed model "
            "(a Grad weight beside a to_device output, a plain bias or an untracked one)",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    if any(t.is_require_grad() for t in ts):\n"
            "        return 'trains'\n"
            "    if any(t.node is not None and t.node.op == 'to_device' for t in ts):\n"
            "        return 'silent-then-crash'\n"
            "    return 'crash-at-step-0'\n",
            "one Grad leaf taken for a model that trains: a to_device output beside it still fails at step "
            "1, a plain or untracked one never gets a gradient",
            "failed:outcome",
            on_the_page=True,
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    kinds = ['grad' if t.is_require_grad() else 'to_device' if t.node is not None"
            " and t.node.op == 'to_device' else 'untracked' for t in ts]\n"
            "    if len(set(kinds)) > 1:\n"
            "        return 'crash-later'\n"
            "    return {'grad': 'trains', 'to_device': 'silent-then-crash',"
            " 'untracked': 'crash-at-step-0'}[kinds[0]]\n",
            "every mixed model taken for crash-later: only a to_device output beside a Grad leaf errors "
            "after steps with gradients",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    ts = [t for t in ts if t.node is None or t.is_require_grad() or t.node.op == 'to_device']\n"
            "    kinds = ['grad' if t.is_require_grad() else 'to_device' if t.node is not None"
            " and t.node.op == 'to_device' else 'untracked' for t in ts]\n"
            "    if 'to_device' in kinds:\n"
            "        return 'crash-later' if 'grad' in kinds else 'silent-then-crash'\n"
            "    if 'grad' not in kinds:\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if kinds.count('grad') == len(kinds) else 'partly-trains'\n",
            "leaves the untracked leaves out (as if no_grad removed the parameter): they are still "
            "parameter tensors that never get a gradient",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    kinds = ['grad' if t.is_require_grad() else 'to_device' if t.node is not None"
            " and t.node.op == 'to_device' else 'untracked' for t in ts]\n"
            "    if 'to_device' in kinds:\n"
            "        return 'crash-later' if 'grad' in kinds else 'silent-then-crash'\n"
            "    return 'trains' if 'grad' in kinds else 'crash-at-step-0'\n",
            "no error taken for training: a parameter that never gets a gradient is partly-trains",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    kinds = ['grad' if t.is_require_grad() else 'to_device' if t.node is not None"
            " and t.node.op == 'to_device' else 'untracked' for t in ts]\n"
            "    if 'to_device' in kinds:\n"
            "        return 'crash-later' if 'grad' in kinds else 'silent-then-crash'\n"
            "    if 'grad' not in kinds:\n"
            "        return 'crash-at-step-0'\n"
            "    meant = model.num_trainable_param_tensors()\n"
            "    return 'trains' if kinds.count('grad') >= meant else 'partly-trains'\n",
            "counts against the parameter tensors meant to train (chapter 12's guard): a frozen parameter "
            "still gets no gradient, and the exercise counts every parameter tensor",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    tensors = [param.val() for param in model.params()]\n"
            "    if all(tensor.is_require_grad() for tensor in tensors):\n"
            "        return 'trains'\n"
            "    if any(tensor.node is not None and tensor.node.op == 'to_device' for tensor in tensors):\n"
            "        return 'silent-then-crash'\n"
            "    return 'crash-at-step-0'\n",
            "the book's solution before mixed models: a whole-model rule, wrong when the two parameters "
            "differ in kind",
            "failed:outcome",
        ),
        Answer(
            "def predict(model):\n"
            "    ts = [p.val() for p in model.params()]\n"
            "    kinds = ['grad' if t.is_require_grad() else 'to_device' if t.node is not None"
            " and t.node.op == 'to_device' else 'untracked' for t in ts]\n"
            "    if 'to_device' in kinds:\n"
            "        return 'silent-then-crash' if set(kinds) == {'to_device'} else 'crash-later'\n"
            "    if 'grad' not in kinds:\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if kinds.count('grad') == len(kinds) else 'partly-trains'\n",
            "any parameter beside a to_device output taken for one that collects gradients: a plain or "
            "untracked one gets none, so the steps before the error have 0",
            "failed:outcome",
        ),
    ],
}

TAMPERING: dict[str, list[Answer]] = {
    "ex-03-repair": [
        Answer(
            "import mlx_autodiff.module as m\n"
            "repaired = m.Param.fork.__wrapped__(moved.weight, metal).val()\n",
            "calls fork through the __wrapped__ of the function the grader counts, to hide the call (the "
            "twelfth learner): it runs nothing, and says why",
            "raised:RuntimeError",
            found="runs nothing",
        ),
        Answer(
            "from mlx_autodiff import Tensor\n"
            "\n"
            "Tensor.is_require_grad = lambda self: True\n"
            "repaired = moved.weight.val()\n",
            "makes every tensor say it is a Grad leaf",
            "refused",
            found="Tensor.is_require_grad",
            on_the_page=True,
        ),
        Answer(
            "from mlx_autodiff.module import Param\n"
            "def _orig(f):\n"
            "    return [c.cell_contents for c in f.__closure__ if callable(c.cell_contents)"
            " and getattr(c.cell_contents, '__name__', '') == f.__name__ and c.cell_contents is not f][0]\n"
            "_fork = _orig(Param.fork)\n"
            "w = moved.weight.val()\n"
            "p = Param.uninitialized('w', metal, tuple(w.shape), lambda d, r: w.detach().require_grad())\n"
            "repaired = _fork(p, metal).val()\n",
            "the library's fork, pulled out of its probe's closure (issue 39's second learner, B3)",
            "raised:TypeError",
        ),
        Answer(
            "import logging\n"
            "f = logging.currentframe()\n"
            "while f is not None and 'calls' not in f.f_locals:\n"
            "    f = f.f_back\n"
            "counter = f.f_locals['calls'] if f is not None else None\n"
            "from mlx_autodiff.module import Param\n"
            "w = moved.weight.val()\n"
            "p = Param.uninitialized('w', metal, tuple(w.shape), lambda d, r: w.detach().require_grad())\n"
            "repaired = p.fork(metal).val()\n"
            "if counter is not None:\n"
            "    counter.clear()\n",
            "forks, then empties the call counter found by walking frames (issue 39's second learner, B2)",
            "refused",
            found="sys._getframe",
        ),
    ],
    "ex-10-plain-fork": [
        Answer(
            "get_ipython().set_custom_exc((Exception,), lambda *args, **kwargs: None)\n"
            "model = plain_model.fork(metal)\n",
            "an IPython handler that would swallow every failing check",
            "refused",
            found="set_custom_exc",
            on_the_page=True,
        ),
        Answer(
            "get_ipython().input_transformers_cleanup.append(lambda lines: ['pass\\n'])\n"
            "model = plain_model.fork(metal)\n",
            "an IPython transformer that would turn every later cell, the checks too, into `pass`",
            "refused",
            found="input_transformers_cleanup",
            on_the_page=True,
        ),
    ],
    "ex-09-plain-to-leaf": [
        Answer(
            "import builtins\n"
            "\n"
            "builtins.isinstance = lambda *args: True\n"
            "trainable = p.to_device(metal)\n",
            "every isinstance true",
            "refused",
            found="builtins",
        ),
        Answer(
            "mx.array_equal = lambda *args, **kwargs: mx.array(True)\n"
            "trainable = Tensor.random([4, 1], Distribution.uniform(-1.0, 1.0), metal).require_grad()\n",
            "every array equal",
            "refused",
            found="mlx.core.array_equal",
        ),
    ],
    "ex-06-fork-by-hand": [
        Answer(
            "from mlx_autodiff import Tensor\n"
            "\n"
            "def fork_tensor(tensor, device):\n"
            "    original = Tensor.is_require_grad\n"
            "    Tensor.is_require_grad = lambda self: True\n"
            "    try:\n"
            "        return tensor.to_device(device)\n"
            "    finally:\n"
            "        Tensor.is_require_grad = original\n",
            "patches a method while its function runs and puts it back before the check looks: the check "
            "meets the engine as it is, and the answer fails on its own",
            "failed:.*",
        ),
        Answer(
            "from mlx_autodiff.module import Param\n"
            "def _orig(f):\n"
            "    return [c.cell_contents for c in f.__closure__ if callable(c.cell_contents)"
            " and getattr(c.cell_contents, '__name__', '') == f.__name__ and c.cell_contents is not f][0]\n"
            "_fork = _orig(Param.fork)\n"
            "def fork_tensor(tensor, device):\n"
            "    p = Param.uninitialized('t', tensor.device, tuple(tensor.shape), lambda d, r: tensor)\n"
            "    p.val()\n"
            "    return _fork(p, device).val()\n",
            "the library's fork, pulled out of its probe's closure (issue 39's second learner, B3): a probe "
            "has no closure now",
            "raised:TypeError",
        ),
        Answer(
            "from mlx_autodiff.module import Param\n"
            "_fork = next(v for v in Param.fork.__kwdefaults__.values() if callable(v))\n"
            "def fork_tensor(tensor, device):\n"
            "    p = Param.uninitialized('t', tensor.device, tuple(tensor.shape), lambda d, r: tensor)\n"
            "    p.val()\n"
            "    return _fork(p, device).val()\n",
            "the library's fork, pulled out of its probe's defaults: reading them is an audited attribute",
            "refused",
            found="object.__getattr__(__kwdefaults__)",
        ),
    ],
    "ex-13-predict": [
        Answer(
            "from bookkit.runs.scenarios import COMBINATIONS, EXTRA_SCENARIOS, SCENARIOS\n"
            "\n"
            "for table in (SCENARIOS, EXTRA_SCENARIOS, COMBINATIONS):\n"
            "    table.clear()\n"
            "\n"
            "def predict(model):\n"
            "    return 'trains'\n",
            "empties the tables the check takes its cases from",
            "refused",
            found="SCENARIOS",
        ),
        Answer(
            "class Any(str):\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
            "    __hash__ = str.__hash__\n"
            "def predict(model):\n"
            "    return Any('trains')\n",
            "a str whose __eq__ says yes to every outcome (issue 39's second learner, B4, on the page too)",
            "failed:_common\\.not_plain",
            on_the_page=True,
        ),
        Answer(
            "import mlx.core as mx\n"
            "from mlx_autodiff import tape, Tensor, Distribution\n"
            "from mlx_autodiff.tensor import Gradients\n"
            "def predict(model):\n"
            "    w = model.params()[0].val()\n"
            "    xx = Tensor.random([8, 4], Distribution.uniform(-1.0, 1.0), w.device)\n"
            "    try:\n"
            "        loss = ((xx @ w) * (xx @ w)).sum()\n"
            "        g = tape.backward(loss.node, mx.ones(loss.array.shape), Gradients)\n"
            "    except Exception:\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if g.get(w) is not None else 'silent-then-crash'\n",
            "really trains, through the @ operator and the tape's own backward (issue 39's second "
            "learner, B3; the first parameter, not model.weight, since two layers have none): both are "
            "counted",
            "failed:no_training",
        ),
        Answer(
            'import os\n'
            'from mlx_autodiff import TapeConsumedError, UntrackedBackwardError, Tensor, GradientsParams, '
            'AdamConfig\n'
            'def predict(model):\n'
            '    r, w = os.pipe()\n'
            '    pid = os.fork()\n'
            '    if pid == 0:\n'
            '        os.close(r)\n'
            '        out = "?"\n'
            '        counts = []\n'
            '        try:\n'
            '            m = model\n'
            '            p0 = m.params()[0]\n'
            '            dev = next((q.device for q in m.params() if q.device.is_autodiff), p0.device)\n'
            '            xx = Tensor.ones([3, p0.shape[0]], dev.autodiff() if False else dev)\n'
            '            n = m.num_param_tensors()\n'
            '            opt = AdamConfig().init()\n'
            '            for step in range(3):\n'
            '                loss = m.forward(xx).square().mean()\n'
            '                g = GradientsParams.from_grads(loss.backward(), m)\n'
            '                counts.append(len(g))\n'
            '                m = opt.step(0.1, m, g)\n'
            '            out = "trains" if all(c == n for c in counts) else "partly-trains"\n'
            '        except TapeConsumedError:\n'
            '            out = "crash-later" if any(counts) else "silent-then-crash"\n'
            '        except UntrackedBackwardError:\n'
            '            out = "crash-at-step-0"\n'
            '        except Exception as e:\n'
            '            out = "err:" + type(e).__name__\n'
            '        os.write(w, out.encode())\n'
            '        os._exit(0)\n'
            '    os.close(w)\n'
            '    data = os.read(r, 100).decode()\n'
            '    os.waitpid(pid, 0)\n'
            '    return data\n',
            "trains 3 steps in a child process (os.fork) and sends the outcome back (issue 39's fifth "
            "learner, F16)",
            "refused",
            found="os.fork",
        ),
        Answer(
            "import multiprocessing\n"
            "def predict(model):\n"
            "    child = multiprocessing.get_context('spawn').Process(target=exec, args=('pass',))\n"
            "    child.start()\n"
            "    child.join()\n"
            "    return 'trains'\n",
            "a spawned child (macOS's default start method), which Python starts with no audit event of its "
            "own: the grading process's fork_exec raises one",
            "refused",
            found="_posixsubprocess.fork_exec",
        ),
    ],
    "ex-01-is-lazy": [
        Answer(
            "import sys\n"
            "\n"
            "sys.settrace(lambda *args: None)\n"
            "\n"
            "def untouched(model):\n"
            "    return []\n",
            "a tracer that could follow the checks",
            "refused",
            found="sys.settrace",
        ),
        Answer(
            "import signal, os\n"
            "def _h(sig, frame):\n"
            "    f = frame\n"
            "    while f is not None:\n"
            "        if 'say' in f.f_locals and 'nonce' in f.f_locals:\n"
            "            f.f_locals['say']({'event': 'verdict', 'status': 'pass'})\n"
            "            return\n"
            "        f = f.f_back\n"
            "signal.signal(signal.SIGUSR1, _h)\n"
            "os.kill(os.getpid(), signal.SIGUSR1)\n"
            "def untouched(model):\n"
            "    return []\n",
            "a signal handler's frame, walked up to the grader's own `say` to forge a pass (issue 39's "
            "second learner, B2, on the page too): the grading process takes no signal handler",
            "refused",
            found="mlx_autodiff.signal",
            on_the_page=True,
        ),
        Answer(
            "import logging\n"
            "f = logging.currentframe()\n"
            "while f is not None:\n"
            "    if 'say' in f.f_locals and 'nonce' in f.f_locals:\n"
            "        f.f_locals['say']({'event': 'verdict', 'status': 'pass'})\n"
            "        break\n"
            "    f = f.f_back\n"
            "def untouched(model):\n"
            "    return []\n",
            "logging.currentframe(), walked up to the grader's `say` (issue 39's second learner, B2): "
            "logging's frame is looked through to the answer's call, which is stopped",
            "refused",
            found="sys._getframe",
        ),
    ],
    "ex-05-predict-node": [
        Answer(
            "import sys\n"
            "\n"
            "def predict_failing_node(model):\n"
            "    checks = sys._getframe(1).f_locals\n"
            "    return 0\n",
            "reads the check's own frame",
            "refused",
            found="sys._getframe",
        ),
        Answer(
            "import gc\n"
            "\n"
            "def predict_failing_node(model):\n"
            "    gc.get_referrers(model)\n"
            "    return 0\n",
            "walks the garbage collector to reach what refers to the model",
            "refused",
            found="gc.get_referrers",
        ),
        Answer(
            "class Any(int):\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
            "    __hash__ = int.__hash__\n"
            "def predict_failing_node(model):\n"
            "    return Any(0)\n",
            "an int whose __eq__ says yes to every number (issue 39's second learner, B4)",
            "failed:_common\\.not_plain",
        ),
        Answer(
            "import mlx.core as mx\n"
            "from mlx_autodiff import tape, TapeConsumedError\n"
            "from mlx_autodiff.tensor import Gradients\n"
            "def predict_failing_node(model):\n"
            "    saved = [(p.val().node, p.val().node.step) for p in model.params()]\n"
            "    found = None\n"
            "    for _ in range(2):\n"
            "        loss = model.forward(x).sum()\n"
            "        try:\n"
            "            tape.backward(loss.node, mx.ones(loss.array.shape), Gradients)\n"
            "        except TapeConsumedError as e:\n"
            "            found = e.node.id\n"
            "    for node, step in saved:\n"
            "        node.step = step\n"
            "    return found\n",
            "runs two backward passes through the tape's own backward and puts the steps back (issue "
            "39's second learner, B3)",
            "failed:no_backward",
        ),
        Answer(
            'import os\n'
            'from mlx_autodiff import TapeConsumedError\n'
            'def predict_failing_node(model):\n'
            '    r, w = os.pipe()\n'
            '    pid = os.fork()\n'
            '    if pid == 0:\n'
            '        os.close(r)\n'
            '        node = -1\n'
            '        try:\n'
            '            m = model\n'
            '            xx = Tensor.zeros([2, m.params()[0].shape[0]], m.params()[0].device)\n'
            '            for _ in range(2):\n'
            '                loss = m.forward(xx).mean()\n'
            '                g = GradientsParams.from_grads(loss.backward(), m)\n'
            '                m = AdamConfig().init().step(0.1, m, g)\n'
            '        except TapeConsumedError as e:\n'
            '            node = e.node.id\n'
            '        except Exception:\n'
            '            node = -2\n'
            '        os.write(w, str(node).encode())\n'
            '        os._exit(0)\n'
            '    os.close(w)\n'
            '    data = os.read(r, 100)\n'
            '    os.waitpid(pid, 0)\n'
            '    return int(data)\n',
            "trains in a child process (os.fork) and pipes the failing node's id back (issue 39's fifth "
            "learner, F15): no window counts what a child runs, so the grading process starts none for an "
            "answer",
            "refused",
            found="os.fork",
        ),
        Answer(
            "import subprocess, sys\n"
            "def predict_failing_node(model):\n"
            "    done = subprocess.run([sys.executable, '-c', 'print(0)'], capture_output=True, text=True)\n"
            "    return int(done.stdout)\n",
            "a process through subprocess, whose audit event is raised inside the standard library",
            "refused",
            found="subprocess.Popen",
        ),
    ],
    "ex-02-one-call": [
        Answer(
            "import sys\n"
            "\n"
            "sys.modules['mlx_autodiff'].Module = object\n"
            "\n"
            "def place(model, device):\n"
            "    return model\n",
            "replaces a class the check imports",
            "refused",
            found="mlx_autodiff.Module",
        ),
    ],
    "ex-07-sgd": [
        Answer(
            "import os\n"
            "\n"
            "os._exit(0)\n",
            "ends the grading process before the checks",
            "ended",
        ),
        Answer(
            "import sys\n"
            "\n"
            "sys.exit(0)\n",
            "sys.exit before the checks",
            "raised:SystemExit",
        ),
        Answer(
            "import os\n"
            "\n"
            "os.write(1, b'PASS\\n')\n"
            "os.write(2, b'PASS\\n')\n"
            "start = losses = grad_counts = None\n",
            "prints a verdict of its own",
            "failed:.*",
        ),
    ],
    "ex-09-predict-kind": [
        Answer(
            "class Any(str):\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
            "    __hash__ = str.__hash__\n"
            "def kind_after_to_device(model):\n"
            "    return Any('node')\n",
            "a str whose __eq__ says yes to every kind (issue 39's second learner, B4)",
            "failed:_common\\.not_plain",
        ),
    ],
    "ex-08-eighth-method": [
        Answer(
            "from bookkit.runs.scenarios import Scenario\n"
            "class S(str):\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
            "    __hash__ = str.__hash__\n"
            "eighth = Scenario('m', 'm', S('flex'), True, ('to_device', 'train'))\n",
            "built_on a str equal to anything, really plain flex (issue 39's second learner, B4)",
            "failed:_common\\.not_plain",
        ),
        Answer(
            "from bookkit.runs.scenarios import Scenario\n"
            "class Moves(tuple):\n"
            "    def __contains__(self, item):\n"
            "        return item == 'to_device'\n"
            "eighth = Scenario('mine', 'mine', 'flex.autodiff', True, Moves(('fork',)))\n",
            "moves a tuple whose __contains__ hides fork (issue 39's second learner, B4)",
            "failed:_common\\.not_plain",
        ),
    ],
    "ex-05-combine": [
        Answer(
            "import mlx.core as mx\n"
            "from mlx_autodiff import tape\n"
            "from mlx_autodiff.tensor import Gradients\n"
            "l1 = x.matmul(w).mean()\n"
            "g1 = tape.backward(l1.node, mx.ones(l1.array.shape), Gradients)\n"
            "combined = x.matmul(w).square().mean().backward()\n"
            "combined._grads[w.node.id] = combined._grads[w.node.id] + g1._grads[w.node.id]\n"
            "w_grad = combined.get(w)\n",
            "two backward passes, one through the tape's own backward, added up (issue 39's second "
            "learner, B3): the tape's backward is counted",
            "failed:once",
        ),
    ],
    "ex-12-step0-guard": [
        Answer(
            'import importlib.util\n'
            '_src = open(importlib.util.find_spec("mlx_autodiff.guard").origin).read()\n'
            '_ns = {"__name__": "my_guard", "__package__": "mlx_autodiff"}\n'
            'exec(compile(_src, "my_guard.py", "exec"), _ns)\n'
            'def guarded_backward(loss, model):\n'
            '    return _ns["TrainingGuard"](model, check_flags=False).backward(0, loss, model)\n',
            "runs a copy of the engine's guard.py under another name (issue 39's fifth learner, E14): an "
            "answer may not open the engine's files",
            "refused",
            found="open(mlx_autodiff/guard.py)",
        ),
        Answer(
            "import inspect\n"
            "import mlx_autodiff.guard as _g\n"
            "_ns = {'__name__': 'my_guard', '__package__': 'mlx_autodiff'}\n"
            "exec(inspect.getsource(_g), _ns)\n"
            "def guarded_backward(loss, model):\n"
            "    return _ns['TrainingGuard'](model, check_flags=False).backward(0, loss, model)\n",
            "the same copy read through inspect.getsource, which opens the file inside the standard library",
            "refused",
            found="open(mlx_autodiff/guard.py)",
        ),
        Answer(
            "import os, site\n"
            "with open(os.path.join(site.getsitepackages()[0], 'zz_answer.pth'), 'w') as pth:\n"
            "    pth.write('# a .pth file here would run in every later grading process\\n')\n",
            "drops a .pth file into site-packages, which Python runs at every start (the eighth learner's "
            "idea)",
            "refused",
            found="open(zz_answer.pth, to write)",
        ),
        Answer(
            "import os\n"
            "fd = os.open(os.path.join(os.getcwd(), 'zz_answer.md'), os.O_WRONLY | os.O_CREAT, 0o644)\n"
            "os.close(fd)\n",
            "creates a file among the book's own (grading runs in its folder; the checks come from it)",
            "refused",
            found="open(zz_answer.md, to write)",
        ),
    ],
}

RIGHT: dict[str, list[Answer]] = {
    "ex-01-target": [
        Answer(
            "moved = recipe.to_device(metal)\n"
            "for param in moved.params():\n"
            "    param.val()\n"
            "print([p.val().device.name for p in recipe.params()])  # recipe read only after the move\n",
            "reads recipe too, after the move, to compare (the eighth learner's answer was refused)",
        ),
    ],
    "ex-01-is-lazy": [
        Answer(
            "def untouched(model):\n"
            "    return {name for name, param in model.named_params() if not param.is_initialized()}\n",
            "the names as a set: the statement asks for the names, in no order (the eighth learner's answer "
            "was refused)",
        ),
    ],
    "ex-03-repair": [
        Answer(
            "repaired = Tensor.from_inner(weight.inner()).require_grad()\n",
            "the chapter's own `weight` (moved.weight.val()), its values wrapped as a new leaf; the check's "
            "other `moved` comes with its `weight` (the seventh learner's answer was refused)",
        ),
    ],
    "ex-07-sgd": [
        Answer(
            "from bookkit.runs.scenarios import initialized\n" + _sgd_loop(),
            "imports chapter 1's `initialized` again, as the set-up does; the check's other `initialized` "
            "(a spare layer) must still be the one it calls (the seventh learner's answer was refused)",
        ),
        Answer(
            _sgd_loop(count="grad_counts.append(len(g)); losses[-1] = round(losses[-1], 4)"),
            "each loss rounded to 4 places, as the chapters print them (the eighth learner's answer was "
            "refused)",
        ),
    ],
    "ex-07-guard": [
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n"
            "def guarded_train(model, steps):\n"
            "    g, adam, out = TrainingGuard(model), AdamConfig().init(), []\n"
            "    for i in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        out.append(round(loss.into_scalar(), 4))\n"
            "        model = adam.step(0.1, model, g.backward(i, loss, model))\n"
            "    return out\n",
            "each loss rounded to 4 places (the eighth learner's answer was refused)",
        ),
    ],
    "ex-13-predict": [
        Answer(
            "from mlx_autodiff import Requirement\n"
            "def predict(model):\n"
            "    params = model.params()\n"
            "    grads = sum(p.is_require_grad() for p in params)\n"
            "    moved = sum(p.val().node is not None\n"
            "                and p.val().node.requirement is Requirement.GRAD_IN_BACKWARD for p in params)\n"
            "    if moved:\n"
            "        return 'crash-later' if grads else 'silent-then-crash'\n"
            "    if not grads:\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if grads == model.num_param_tensors() else 'partly-trains'\n",
            "counts the Grad leaves and the tracked to_device outputs (GradInBackward), then compares with "
            "num_param_tensors() (chapter 12's count)",
        ),
    ],
    "ex-11-half-and-half": [
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.layers = [LinearConfig(4, 2).init(flex.autodiff()),"
            " LinearConfig(2, 1).init(metal)]\n"
            "\n"
            "    def forward(self, x):\n"
            "        near, far = self.layers\n"
            "        return far.forward(near.forward(x).to_device(metal))\n"
            "\n"
            "halves = Halves()\n",
            "the two layers kept in a list (Burn: a Vec of modules), which Module walks like "
            "attributes",
        ),
    ],
    "ex-09-plain-to-leaf": [
        Answer(
            "trainable = Tensor.from_data(p.array, metal).require_grad()\n",
            "p's values copied into a new tensor on metal.autodiff, made a Grad leaf",
        ),
        Answer(
            "trainable = Tensor.from_inner(p).to_device(metal).require_grad()\n",
            "wrapped, then moved: the move is an op's output",
        ),
    ],
    "ex-02-one-call": [
        Answer(
            "def place(model, device):\n"
            "    return model.valid().to_device(device).train()\n",
            "a plain copy moved and made trainable again: the same ParamIds and values, Grad "
            "leaves",
        ),
    ],
    "ex-03-source-leaf": [
        Answer(
            "def source_leaf(param):\n"
            "    node = param.val().node\n"
            "    while node.parents:\n"
            "        (node,) = node.parents\n"
            "    return node\n",
            "follows every parent, not only to_device's: right for these models, so it must pass",
        ),
    ],
    "ex-10-relocate": [
        Answer(
            "def relocate(model, device):\n"
            "    def one(p):\n"
            "        if not p.is_initialized() or p.device.is_autodiff:\n"
            "            return p.fork(device)\n"
            "        return p.fork(device).train()\n"
            "    return model.map_params(one)\n",
            "tells a parameter's kind by its device, not its node, and forks a plain one before train(): "
            "frozen parameters stay frozen (issue 39's fifth learner)",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    def one(p):\n"
            "        if not p.is_initialized():\n"
            "            return p.to_device(device)\n"
            "        t = p.val()\n"
            "        return p.fork(device).train() if t.node is None else p.fork(device)\n"
            "    return model.map_params(one)\n",
            "a lazy parameter retargeted with to_device, which is fork's lazy move too (issue 39's fifth "
            "learner)",
        ),
    ],
    "ex-12-step0-guard": [
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    expected = model.num_trainable_param_tensors()\n"
            "    if len(grads) != expected:\n"
            "        raise RuntimeError(f'只拿到{len(grads)}个梯度，应有{expected}个')\n"
            "    return grads\n",
            "right, with a Chinese message: Han characters around the numbers have no word "
            "boundary, so it must pass",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError(f\"loss.backward() has {len(grads)} gradients but the model needs "
            "{model.num_trainable_param_tensors()}\")\n"
            "    return grads\n",
            "\"has N gradients\": the noun says which count it is, not the verb (issue 39's third learner)",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        raise RuntimeError(f\"Gradients: {len(grads)}. Parameter tensors: "
            "{model.num_trainable_param_tensors()}.\")\n"
            "    return grads\n",
            "each count after its label (issue 39's third learner)",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_trainable_param_tensors():\n"
            "        n = model.num_trainable_param_tensors()\n"
            "        raise RuntimeError(f\"梯度数 {len(grads)}，参数张量数 {n}\")\n"
            "    return grads\n",
            "the same labels in Chinese (issue 39's third learner)",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    n = sum(1 for p in model.params() if p.lazy_is_require_grad())\n"
            "    if len(grads) != n:\n"
            "        raise ValueError(f'{len(grads)} gradients, expected {n}')\n"
            "    return grads\n",
            "the flags counted without reading a parameter (issue 39's sixth learner)",
        ),
    ],
    "ex-05-predict-node": [
        Answer(
            "def predict_failing_node(model):\n"
            "    display(snapshot('before the steps', module=model))\n"
            "    for param in (model.bias, model.weight):\n"
            "        if param is not None and param.is_initialized() and param.val().node.parents:\n"
            "            return param.val().node.id\n",
            "shows the model's graph first: Graphviz draws it in a process the book's renderer starts, "
            "which is no process of the answer's",
        ),
    ],
}
