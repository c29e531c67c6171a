"""Same seed, same numbers, same pictures: across fresh Python processes, bit for bit.

Each run is a new interpreter with its own hash seed, so nothing may depend on
set or dict order, object addresses, or state left over from another test:
losses are compared as exact float hex strings, graphs as exact DOT text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TRAINING = """
import json, sys
from mlx_autodiff import *

seed = int(sys.argv[1])
flex, metal = Device.flex(), Device.metal().autodiff()
flex.seed(seed)
metal.seed(seed)
runs = {}
for name in ("direct", "ad-fork"):
    if name == "direct":
        model = LinearConfig(4, 1).init(metal)
    else:
        model = LinearConfig(4, 1).init(flex.autodiff())
        model.weight.val(); model.bias.val()
        model = model.fork(metal)
    x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), metal)
    y = x.sum_dim(1)
    optim = AdamConfig().init()
    losses = []
    for _ in range(8):
        loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
        losses.append(loss.into_scalar().hex())
        grads = GradientsParams.from_grads(loss.backward(), model)
        model = optim.step(1e-1, model, grads)
    runs[name] = losses
print(json.dumps(runs))
"""

GRAPHS = """
import json
from mlx_autodiff import *
from bookkit.pictures import graph

flex, metal = Device.flex().autodiff(), Device.metal().autodiff()
flex.seed(1)
metal.seed(2)
model = LinearConfig(4, 1).init(flex)
model.weight.val(); model.bias.val()
model = model.to_device(metal)
x = Tensor.random([32, 4], Distribution.uniform(-1.0, 1.0), metal)
y = x.sum_dim(1)
dots = {}
for step in range(2):
    loss = MseLoss().forward(model.forward(x), y, Reduction.MEAN)
    try:
        grads = loss.backward()
    except TapeConsumedError as error:
        dots[f"step {step} error"] = graph.snapshot("ad-to_device", module=model, tensors={"loss": loss},
                                                   error=error).dot
        break
    dots[f"step {step}"] = graph.snapshot("ad-to_device", module=model, tensors={"loss": loss},
                                          grads=grads).dot
    model = AdamConfig().init().step(1e-1, model, GradientsParams.from_grads(grads, model))
print(json.dumps(dots))
"""


def fresh_process(script: str, *args: str, hash_seed: str) -> dict[str, object]:
    """Run `script` in a new interpreter (with its own hash seed) and read the JSON it prints."""
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_the_same_seed_gives_bit_identical_losses_in_fresh_processes() -> None:
    first = fresh_process(TRAINING, "7", hash_seed="1")
    second = fresh_process(TRAINING, "7", hash_seed="2")
    assert first == second
    for losses in first.values():
        assert isinstance(losses, list) and len(losses) == 8
        assert len(set(losses)) > 1, "the loss must change while training, or this compares nothing"


@pytest.mark.slow
def test_a_different_seed_gives_different_losses() -> None:
    """Otherwise the comparison above could pass with the seed ignored."""
    assert fresh_process(TRAINING, "7", hash_seed="1") != fresh_process(TRAINING, "8", hash_seed="1")


@pytest.mark.slow
def test_graph_dot_is_identical_in_fresh_processes() -> None:
    first = fresh_process(GRAPHS, hash_seed="1")
    second = fresh_process(GRAPHS, hash_seed="2")
    assert list(first) == ["step 0", "step 1 error"], "the article's ad-to_device story: step 0, then a crash"
    assert first == second
