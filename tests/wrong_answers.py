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
            "moved = LinearConfig(4, 1).init(metal)\n"
            "for param in moved.params():\n"
            "    param.val()\n",
            "builds a new model on metal instead of moving recipe",
            "not a new model",
        ),
        Answer(
            "moved = recipe.to_device(metal)\n",
            "moves the recipe but never reads the moved model",
            "read every parameter after the move",
        ),
        Answer(
            "moved = recipe.fork(metal)\n"
            "for param in moved.params():\n"
            "    param.val()\n",
            "moves with fork, where the exercise asks for to_device (here both only retarget the recipe)",
            "move recipe with to_device",
        ),
    ],
}

RIGHT: dict[str, list[Answer]] = {}
