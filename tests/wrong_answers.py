"""Plausible wrong answers to every exercise in the book, each with why it is wrong.

tests/test_exercises.py grades a fork of each chapter with these answers in
place of the stubs and requires each to FAIL with a reason that contains
`says`: the check must catch the mistake and point at its cause. `RIGHT`
holds answers in other words than the chapter's, which must PASS.
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
    """A part of the failure's reason that points at the cause."""


WRONG: dict[str, list[Answer]] = {
    "ex-01-is-lazy": [
        Answer(
            "def untouched(model):\n"
            "    return [name for name, param in model.named_params() if not param.is_require_grad()]\n",
            "is_require_grad() reads the parameter, so asking initializes every recipe",
            "must not initialize anything itself",
        ),
        Answer(
            "def untouched(model):\n"
            "    return [name for name, param in model.named_params() if param.is_initialized()]\n",
            "the names of the parameters already built, the opposite of what is asked",
            "a fresh model has two recipes",
        ),
        Answer(
            "def untouched(model):\n"
            "    return [name for name in ('weight', 'bias') if not getattr(model, name).is_initialized()]\n",
            "assumes every model has a weight and a bias: a Linear without a bias has bias None",
            "'NoneType' object has no attribute 'is_initialized'",
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
            "recipe was read",
        ),
        Answer(
            "moved = LinearConfig(4, 1).init(metal)\nfor param in moved.params():\n    param.val()\n",
            "builds a new model on metal instead of moving recipe",
            "not a new model",
        ),
        Answer(
            "moved = recipe.to_device(metal)\n",
            "moves the recipe but never reads the moved model",
            "read every parameter after the move",
        ),
        Answer(
            "moved = recipe.fork(metal)\nfor param in moved.params():\n    param.val()\n",
            "moves with fork, where the exercise asks for to_device (here both only retarget the recipe)",
            "move recipe with to_device",
        ),
    ],
    "ex-02-one-call": [
        Answer(
            "def place(model, device):\n    return model.to_device(device)\n",
            "the article's failing call: the parameters become to_device outputs, not leaves",
            "step 0: 0 gradients, expected 2",
        ),
        Answer(
            "def place(model, device):\n    return LinearConfig(4, 1).init(device)\n",
            "trains, but a new model: the given model's parameters and values are thrown away",
            "not build a new one",
        ),
        Answer(
            "def place(model, device):\n    return model.fork(flex.autodiff())\n",
            "forks, but onto the CPU: the device argument is ignored",
            "should be on metal, found flex",
        ),
    ],
    "ex-03-source-leaf": [
        Answer(
            "def source_leaf(param):\n    return param.val().node\n",
            "the parameter's own node: after to_device that is the op's output, whose gradient is not kept",
            "moved, weight: expected the CPU leaf",
        ),
        Answer(
            "def source_leaf(param):\n    return param.val().node.parents[0]\n",
            "follows one to_device node only: a parameter moved twice has two",
            "moved twice, weight: expected the CPU leaf",
        ),
        Answer(
            "def source_leaf(param):\n    return param.val()\n",
            "returns the parameter's tensor, not a node",
            "moved, weight: expected the CPU leaf",
        ),
    ],
    "ex-03-repair": [
        Answer(
            "repaired = model.fork(metal).weight.val()\n",
            "a Grad leaf on metal with the same values, but made by fork, which the exercise forbids",
            "without calling fork",
        ),
        Answer(
            "repaired = moved.weight.val().detach()\n",
            "detach of a GradInBackward tensor gives an untracked leaf: it does not require grad",
            "repaired should be a Grad leaf",
        ),
        Answer(
            "repaired = moved.weight.val().require_grad()\n",
            "require_grad() on an op's output raises: it is not a leaf",
            "Can't convert a non leaf tensor into a tracked tensor",
        ),
        Answer(
            "repaired = Tensor.random([4, 1], Distribution.uniform(-1.0, 1.0), metal).require_grad()\n",
            "a Grad leaf on metal, but with new values instead of the moved weight's",
            "must hold the moved weight's values",
        ),
    ],
    "ex-04-smoke-test": [
        Answer(
            "from mlx_autodiff import SgdConfig\n\n"
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = SgdConfig().init().step(1e-1, model, grads)\n"
            "    before = {name: p.val().array for name, p in model.named_params()}\n"
            "    return stepped, [n for n, p in stepped.named_params() if "
            "mx.array_equal(p.val().array, before[n])]\n",
            "steps with SGD, where the exercise (and the loop above) uses Adam",
            "is not what one Adam step with learning rate 0.1 gives",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    before = {name: p.val().array for name, p in stepped.named_params()}\n"
            "    return stepped, [n for n, p in stepped.named_params() if "
            "mx.array_equal(p.val().array, before[n])]\n",
            "compares the stepped model with itself, so every parameter looks unchanged",
            "after fork, the unchanged parameters are []",
        ),
        Answer(
            "def no_effect(model, x, y):\n"
            "    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    stepped = AdamConfig().init().step(1e-1, model, grads)\n"
            "    before = {name: p.val().array for name, p in model.named_params()}\n"
            "    return [n for n, p in stepped.named_params() if mx.array_equal(p.val().array, before[n])]\n",
            "returns the names only, not the model after the step the exercise also asks for",
            "no_effect must return two things",
        ),
    ],
    "ex-04-lost-gradient": [
        Answer(
            "forked_grad = raw.get(cpu_w).to_device(metal)\n",
            "no fork and no backward: the CPU gradient copied over (the issue's example)",
            "name 'forked' is not defined",
        ),
        Answer(
            "forked = model.fork(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = raw.get(cpu_w).to_device(metal)\n",
            "runs the forked pass but still copies the CPU gradient instead of reading its own",
            "forked_grad is the CPU weight's gradient moved to metal",
        ),
        Answer(
            "forked = model.to_device(metal)\n"
            "forked_raw = MseLoss().forward(forked.forward(x), y, Reduction.MEAN).backward()\n"
            "forked_grad = forked_raw.get(forked.weight.val())\n",
            "to_device instead of fork: the weight is an op's output, whose gradient is not kept",
            "fork the model",
        ),
    ],
    "ex-05-predict-node": [
        Answer(
            "def predict_failing_node(model):\n    return model.weight.val().node.id\n",
            "always the weight: with a bias, backward reaches the bias's to_device node first",
            "the error is at NodeId(",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    try:\n"
            "        train_step(train_step(model))\n"
            "    except TapeConsumedError as err:\n"
            "        return err.node.id\n",
            "does not predict: it runs the two steps and reads the error",
            "predict_failing_node ran a backward pass",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    first = model.bias if model.bias is not None else model.weight\n"
            "    return first.val().node\n",
            "returns the node, not its id",
            "return the node's id, a number",
        ),
        Answer(
            "def predict_failing_node(model):\n"
            "    return max(param.val().node.id for param in model.params())\n",
            "the largest parameter node id: the bias's for a Linear moved at once, but not the rule (the walk"
            " is last in, first out)",
            "a Linear whose weight was moved after its bias: predicted NodeId(",
        ),
    ],
    "ex-05-combine": [
        Answer(
            "combined = x.matmul(w).square().mean().backward()\nw_grad = combined.get(w)\n",
            "one backward pass, but on the second loss alone",
            "the gradient of a sum is the sum of the two gradients",
        ),
        Answer(
            "first = x.matmul(w).mean().backward()\n"
            "combined = x.matmul(w).square().mean().backward()\n"
            "w_grad = first.get(w) + combined.get(w)\n",
            "two backward passes whose gradients are added by hand, not one pass on the sum",
            "w_grad must be the gradient that `combined`",
        ),
        Answer(
            "combined = (loss_a + x.matmul(w).square().mean()).backward()\nw_grad = combined.get(w)\n",
            "reuses loss_a, whose tape the first backward consumed: no new forward pass for it",
            "raised TapeConsumedError",
        ),
    ],
    "ex-06-fork-by-hand": [
        Answer(
            "def fork_tensor(tensor, device):\n    return tensor.to_device(device).detach().require_grad()\n",
            "always asks for gradients: fork does so only if the input was a Grad leaf",
            "an untracked tensor must stay untracked",
        ),
        Answer(
            "def fork_tensor(tensor, device):\n    return tensor.to_device(device)\n",
            "moves only: the result is the to_device op's output, not a leaf",
            "a Grad leaf must come out as a Grad leaf",
        ),
        Answer(
            "def fork_tensor(tensor, device):\n"
            "    fresh = Tensor.from_data(tensor.array, device)\n"
            "    return fresh.require_grad() if tensor.is_require_grad() else fresh\n",
            "copies the values into a new tensor on device: a plain input becomes autodiff, which "
            "fork never does",
            "a plain tensor must stay plain",
        ),
    ],
    "ex-06-rescue": [
        Answer(
            "rescued = model.fork(metal)\n",
            "forks the chapter's CPU model, which the exercise says is gone (the issue's example)",
            "rescued must keep arrived's ParamIds",
        ),
        Answer(
            "rescued = arrived.fork(metal)\n",
            "fork of a to_device output: it was not a Grad leaf, so fork does not call require_grad",
            "weight is not a Grad leaf",
        ),
        Answer(
            "rescued = arrived.train()\n",
            "train() wraps plain tensors; these are already autodiff",
            "Autodiff should not wrap an autodiff tensor",
        ),
    ],
    "ex-07-sgd": [
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
            "these losses are Adam's",
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
            "builds the model on metal directly instead of forking an initialized flex.autodiff model",
            "start must be an initialized flex.autodiff model forked to metal",
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
            "not the losses of SGD with learning rate 0.1",
        ),
    ],
    "ex-07-guard": [
        Answer(
            "def guarded_train(model, steps):\n"
            "    optim, losses = AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "no guard at all: a to_device model runs step 0 with no gradients and crashes at step 1",
            "ran into the consumed tape at step 1",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n\n"
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
            "the optimizer stepped 1 time(s)",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n\n"
            "def guarded_train(model, steps):\n"
            "    guard, optim, losses = TrainingGuard(model), SgdConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = guard.backward(step, loss, model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "guarded, but with SGD instead of the chapter's Adam",
            "not the losses of the chapter's loop",
        ),
        Answer(
            "from mlx_autodiff.guard import TrainingGuard, assert_trainable\n\n"
            "def guarded_train(model, steps):\n"
            "    assert_trainable(model)\n"
            "    optim, losses = AdamConfig().init(), []\n"
            "    for step in range(steps):\n"
            "        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)\n"
            "        losses.append(loss.into_scalar())\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "        model = optim.step(1e-1, model, grads)\n"
            "    return losses\n",
            "checks the flags once with the guard module, but does not collect the gradients through "
            "TrainingGuard",
            "collect each step's gradients with TrainingGuard.backward",
        ),
    ],
    "ex-08-eighth-method": [
        Answer(
            "from mlx_autodiff.scenarios import Scenario\n\n"
            "eighth = Scenario('again', 'to_device', 'flex.autodiff', True, ('to_device',))\n",
            "the article's ad-to_device: 0 gradients at step 0, then the tape-consumed error",
            "expected it to train, got silent-then-crash",
        ),
        Answer(
            "from mlx_autodiff.scenarios import Scenario\n\n"
            "eighth = Scenario('lazy', 'lazy -> to_device', 'flex.autodiff', False, ('to_device',))\n",
            "trains, but from a model nobody read: the exercise asks for an initialized one",
            "start from an initialized flex.autodiff model",
        ),
        Answer(
            "from mlx_autodiff.scenarios import Scenario\n\n"
            "eighth = Scenario('both', 'to_device then fork', 'flex.autodiff', True, ('to_device', "
            "'fork'))\n",
            "uses fork after to_device, which the exercise rules out (and it does not train)",
            "no fork in the moves",
        ),
    ],
    "ex-09-plain-to-leaf": [
        Answer(
            "trainable = p.to_device(metal).require_grad()\n",
            "to_device keeps a plain tensor plain, and require_grad() does nothing on it (the "
            "issue's example)",
            "still a plain tensor (on metal): to_device keeps a plain tensor plain, and "
            "require_grad() does nothing",
        ),
        Answer(
            "trainable = Tensor.from_inner(p).require_grad()\n",
            "a Grad leaf, but on flex.autodiff: it was never moved to metal",
            "must live on metal.autodiff, not flex.autodiff",
        ),
        Answer(
            "trainable = Tensor.random([4, 1], Distribution.uniform(-1.0, 1.0), metal).require_grad()\n",
            "a Grad leaf on metal, but new values instead of p's",
            "must hold p's values",
        ),
    ],
    "ex-09-predict-kind": [
        Answer(
            "def kind_after_to_device(model):\n"
            "    return 'plain' if model.weight.val().node is None else 'node'\n",
            "reads the weight to look at its node, which builds a lazy parameter where it is",
            "a model nobody has read: expected 'lazy', got 'node'",
        ),
        Answer(
            "def kind_after_to_device(model):\n"
            "    if not model.weight.is_initialized():\n"
            "        return 'lazy'\n"
            "    return 'node' if model.weight.is_require_grad() else 'plain'\n",
            "takes 'does not require grad' for 'plain': an untracked autodiff tensor still gets a "
            "to_device node",
            "frozen with no_grad(): expected 'node', got 'plain'",
        ),
    ],
    "ex-10-plain-fork": [
        Answer(
            "model = plain_model.fork(metal)\n",
            "the failing plain-fork itself: the parameters stay plain",
            "weight is still a plain tensor",
        ),
        Answer(
            "model = plain_model.train()\n",
            "trainable, but left on flex",
            "weight must be on metal, found flex.autodiff",
        ),
        Answer(
            "model = initialized(metal)\n",
            "a new trainable model on metal, with new weights instead of plain_model's",
            "keep plain_model's weights",
        ),
    ],
    "ex-10-relocate": [
        Answer(
            "def relocate(model, device):\n    return model.fork(device)\n",
            "fork is right for autodiff models only: a plain model stays plain",
            "plain: the relocated model does not train: UntrackedBackwardError",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    plain = any(p.val().node is None for p in model.params())\n"
            "    return model.to_device(device).train() if plain else model.fork(device)\n",
            "reads every parameter to find out, which builds a lazy one where it is",
            "autodiff, lazy: relocate read a lazy parameter",
        ),
        Answer(
            "def relocate(model, device):\n    return model.to_device(device).train()\n",
            "train() is for plain models only: on an autodiff one it raises",
            "autodiff, read: relocate raised AlreadyAutodiffError",
        ),
        Answer(
            "def relocate(model, device):\n"
            "    plain = any(p.is_initialized() and p.val().node is None for p in model.params())\n"
            "    return model.to_device(metal).train() if plain else model.fork(metal)\n",
            "always moves to metal, whatever device it is given",
            "relocate must put the model on the device it is given",
        ),
    ],
    "ex-11-half-and-half": [
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 3).init(flex.autodiff())\n"
            "        self.far = LinearConfig(3, 1).init(metal)\n\n"
            "    def forward(self, x):\n"
            "        return self.far.forward(self.near.forward(x).to_device(metal))\n\n"
            "halves = Halves()\n",
            "the chapter's Split, Linear(4, 3) and Linear(3, 1), not the sizes the exercise asks for",
            "expected a Linear(4, 2) on flex.autodiff and a Linear(2, 1) on metal",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(metal)\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n\n"
            "    def forward(self, x):\n"
            "        return self.far.forward(self.near.forward(x.to_device(metal)))\n\n"
            "halves = Halves()\n",
            "moves the input instead and keeps both layers on metal: nothing is on flex",
            "expected a Linear(4, 2) on flex.autodiff",
        ),
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.near = LinearConfig(4, 2).init(flex.autodiff())\n"
            "        self.far = LinearConfig(2, 1).init(metal)\n\n"
            "    def forward(self, x):\n"
            "        return self.far.forward(Tensor.from_data(self.near.forward(x).array, metal))\n\n"
            "halves = Halves()\n",
            "copies the hidden values to metal instead of moving them with to_device: the graph is cut there",
            "2 gradients for 4 parameters",
        ),
    ],
    "ex-12-step0-guard": [
        Answer(
            "from mlx_autodiff.guard import TrainingGuard\n\n"
            "def guarded_backward(loss, model):\n"
            "    return TrainingGuard(model, check_flags=False).backward(0, loss, model)\n",
            "built on mlx_autodiff.guard.TrainingGuard, which the exercise forbids (the issue's example)",
            "guarded_backward uses mlx_autodiff.guard (TrainingGuard)",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_params():\n"
            "        raise RuntimeError(f'{len(grads)} gradients for {model.num_params()} parameters')\n"
            "    return grads\n",
            "compares with num_params(), which counts numbers (5 for Linear(4, 1)), not parameter tensors",
            "guarded_backward raised on ad-fork, which collects all its gradients: 2 gradients for 5",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) == 0:\n"
            "        raise RuntimeError(f'0 gradients for {model.num_param_tensors()} parameters')\n"
            "    return grads\n",
            "stops only when no gradient at all arrives: one missing of two goes through",
            "let through a model with 1 gradient for 2 parameter tensors",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_param_tensors():\n"
            "        raise RuntimeError('the model was moved with to_device: use fork')\n"
            "    return grads\n",
            "a message that guesses the cause but does not say what is wrong (the counts)",
            "the message should say how many gradients it got (0) and expected (2)",
        ),
        Answer(
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    if len(grads) != model.num_param_tensors():\n"
            "        raise RuntimeError('got 0 gradients, expected 2')\n"
            "    return grads\n",
            "the right check, but a message with the counts of one case typed in, not the real ones",
            "for a model that gets 1 of its 2 gradients, the message should say 1 and 2",
        ),
        Answer(
            "import mlx_autodiff.guard as guard\n\n"
            "def guarded_backward(loss, model):\n"
            "    grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    guard.TrainingGuard(model, check_flags=False).check_gradients(0, grads, model)\n"
            "    return grads\n",
            "the guard module again, reached through a module alias",
            "guarded_backward uses mlx_autodiff.guard (guard",
        ),
    ],
    "ex-13-predict": [
        Answer(
            "def predict(model):\n"
            "    from mlx_autodiff import Device, Distribution, GradientsParams, MseLoss, Reduction, Tensor\n"
            "    metal = Device.metal().autodiff()\n"
            "    x = Tensor.random([8, 4], Distribution.uniform(-1.0, 1.0), metal)\n"
            "    try:\n"
            "        loss = MseLoss().forward(model.forward(x), x.sum_dim(dim=1), Reduction.MEAN)\n"
            "        grads = GradientsParams.from_grads(loss.backward(), model)\n"
            "    except Exception:\n"
            "        return 'crash-at-step-0'\n"
            "    return 'trains' if len(grads) else 'silent-then-crash'\n",
            "does not predict: it runs a training step and looks at what happens",
            "look at the parameters only, without a forward or backward pass",
        ),
        Answer(
            "def predict(model):\n"
            "    if all(param.is_require_grad() for param in model.params()):\n"
            "        return 'trains'\n"
            "    return 'crash-at-step-0'\n",
            "every parameter that is not a Grad leaf taken for plain: a to_device output is tracked",
            "ad-to_device: you predict 'crash-at-step-0', but training gives 'silent-then-crash'",
        ),
        Answer(
            "def predict(model):\n"
            "    if all(param.lazy_is_require_grad() for param in model.params()):\n"
            "        return 'trains'\n"
            "    return 'crash-at-step-0'\n",
            "reads the stored flag, which stays set through to_device: the flag is not the tensor's kind",
            "ad-to_device: you predict 'trains', but training gives 'silent-then-crash'",
        ),
    ],
}

RIGHT: dict[str, list[Answer]] = {
    "ex-11-half-and-half": [
        Answer(
            "class Halves(Module):\n"
            "    def __init__(self):\n"
            "        self.layers = [LinearConfig(4, 2).init(flex.autodiff()), LinearConfig(2, "
            "1).init(metal)]\n\n"
            "    def forward(self, x):\n"
            "        near, far = self.layers\n"
            "        return far.forward(near.forward(x).to_device(metal))\n\n"
            "halves = Halves()\n",
            "the two layers kept in a list (Burn: a Vec of modules), which Module walks like attributes",
        ),
    ],
    "ex-09-plain-to-leaf": [
        Answer(
            "trainable = Tensor.from_data(p.array, metal).require_grad()\n",
            "p's values copied into a new tensor on metal.autodiff, made a Grad leaf",
        ),
    ],
    "ex-02-one-call": [
        Answer(
            "def place(model, device):\n    return model.valid().to_device(device).train()\n",
            "a plain copy moved and made trainable again: the same ParamIds and values, Grad leaves",
        ),
    ],
}
