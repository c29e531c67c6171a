"""The backward stepper: one backward pass, replayed a step at a time on its graph.

`step_through(title, loss, module=...)` draws the graph as it is before
backward, runs `loss.backward()` with the engine's trace on
(`tape.record_backward`), and returns a `Stepper`. A notebook shows it as the
picture, a player (buttons, the current frame's sentence, the walk's stack)
and the list of every frame, which is what a page without JavaScript shows.
The same output carries the frames as JSON for `_static/stepper.js`.

Each frame's sentence is written here, from the trace, so the words a reader
sees are tested against what the engine did; the script only shows them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from html import escape
from typing import Any

from . import palette
from .errors import MissingRootStepError, PictureWithoutIdsError, TapeConsumedError
from .graph import Graph, snapshot
from .graph_data import node_key
from .graph_dot import element_id
from .module import Module
from .node import node_name
from .tape import Gradients, record_backward
from .tensor import Tensor
from .trace import BackwardTrace, Event, Failed, Landed, Popped, Pushed, Ran, Took, TracedNode

COLOURS = {
    "--stepper-current": palette.CURRENT_STEP,
    "--stepper-taken": palette.CONSUMED,
    "--stepper-gradient": palette.GRADIENT_LANDED,
    "--stepper-failed": palette.FAILED,
}
"""The player's marks on the picture, handed to `_static/stepper.css` as CSS variables."""


@dataclass(frozen=True)
class Frame:
    """What the player shows at one point of the pass."""

    sentence: str
    node: int | None
    """The node this frame is about (highlighted), or None for the closing frame."""
    stack: tuple[int, ...]
    """The walk's stack after this frame, bottom first."""
    taken: tuple[int, ...]
    """Every step this pass has taken off the tape so far, in order."""
    gradients: tuple[int, ...]
    """The nodes a gradient landed on in this frame (the closing frame: the gradients kept)."""
    failed: bool = False


def frames(trace: BackwardTrace) -> list[Frame]:
    """The pass as frames: the root, one per pop, the seed, one per step run, and how it ended.

    A frame groups the events of one move: a pop with the step it takes and the
    parents it pushes; a step run with the gradients it registers.
    """
    shown: list[Frame] = []
    stack: tuple[int, ...] = ()
    taken: list[int] = []
    for group in _moves(trace.events):
        for event in group:
            if isinstance(event, Pushed | Popped):
                stack = event.stack
            if isinstance(event, Took) and event.found:
                taken.append(event.node)
        landed = tuple(event.node for event in group if isinstance(event, Landed))
        failed = any(isinstance(event, Failed) for event in group)
        sentence = _sentence(trace, group, len(taken))
        shown.append(Frame(sentence, group[0].node, stack, tuple(taken), landed, failed))
    if trace.failure is None:
        kept = trace.kept()
        shown.append(Frame(_done(trace, kept), None, (), tuple(taken), tuple(e.node for e in kept)))
    return shown


def _moves(events: list[Event]) -> list[list[Event]]:
    """Events grouped by move: a group starts at the root's step, a pop, the seed, or a step run."""
    groups: list[list[Event]] = []
    for event in events:
        starts = (
            not groups
            or isinstance(event, Popped | Ran)
            or (isinstance(event, Landed) and event.by is None)
        )
        if starts:
            groups.append([event])
        else:
            groups[-1].append(event)
    return groups


# ----- the sentences ---------------------------------------------------------------------


def name(node: TracedNode) -> str:
    """`NodeId(3) 'bias' to_device`: the id as Burn prints it, the parameter, what made it."""
    label = f" '{node.label}'" if node.label else ""
    return f"{node_name(node.id)}{label} {'leaf' if node.is_leaf else node.op}"


def _sentence(trace: BackwardTrace, group: list[Event], steps_taken: int) -> str:
    first = group[0]
    node = trace.nodes[first.node]
    if isinstance(first, Ran):
        return _run(trace, node, first, group[1:])
    if isinstance(first, Landed):
        return (
            f"The walk is over with {_count(steps_taken, 'step')} taken; now the steps run, each node after "
            f"every node computed from it, starting with the seed gradient (ones, "
            f"{_shape(first.shape)} on {first.device}) on the root, {name(node)}."
        )
    popped = isinstance(first, Popped)
    took = next(event for event in group if isinstance(event, Took))
    what = f"Pop {name(node)}" if popped else f"Start at the root, {name(node)}"
    failure = next((event for event in group if isinstance(event, Failed)), None)
    if failure is not None:
        return f"{what}: its step is already gone → {failure.error}: {_first_sentence(failure.message)}."
    if not took.found:
        return f"{what}: its step is already gone, harmless for a leaf (it keeps its gradient); skip it."
    if node.is_leaf:
        return f"{what}: take its step off the tape (a leaf's step does nothing); a leaf has no parents."
    pushed = [name(trace.nodes[event.node]) for event in group if isinstance(event, Pushed)]
    take = f"{what}: take its step off the tape (consumed)"
    if not pushed:
        return f"{take}; its parents were met before, so nothing is pushed."
    return f"{take} and push {'its parent' if len(pushed) == 1 else 'its parents'} {_and(pushed)}."


def _run(trace: BackwardTrace, node: TracedNode, ran: Ran, landings: list[Event]) -> str:
    if ran.no_op:
        return f"Run {name(node)}'s step: it does nothing, so the leaf keeps the gradient it got."
    sent = [event for event in landings if isinstance(event, Landed)]
    if not sent:
        return f"Run {name(node)}'s step: it passes no gradient on."
    each = [f"{_shape(e.shape)} on {e.device} for {name(trace.nodes[e.node])}" for e in sent]
    return f"Run {name(node)}'s step: a gradient {_and(each, ', and ')}."


def _done(trace: BackwardTrace, kept: list[Landed]) -> str:
    if not kept:
        return "Done: no gradient is kept."
    where = _and(f"{name(trace.nodes[e.node])} (on {e.device})" for e in kept)
    count = "1 gradient is" if len(kept) == 1 else f"{len(kept)} gradients are"
    return f"Done: {count} kept, on {where}."


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _shape(shape: tuple[int, ...]) -> str:
    return str(list(shape))


def _and(parts: Iterable[str], last: str = " and ") -> str:
    items = list(parts)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + last + items[-1]


def _first_sentence(message: str) -> str:
    """An error message's first sentence, in its own words (as the error names the node)."""
    line = message.splitlines()[0]
    ends = [i for i in (line.find(". "), line.find("? ")) if i >= 0]
    return line[: min(ends)] if ends else line.rstrip(".")


# ----- the player ----------------------------------------------------------------------


class Stepper:
    """A backward pass as the page shows it: the picture before it, and its frames.

    `grads` holds the pass's gradients when it finished, `error` what it
    raised when it failed (the last frame says so).
    """

    def __init__(
        self,
        picture: Graph,
        trace: BackwardTrace,
        grads: Gradients | None = None,
        error: TapeConsumedError | MissingRootStepError | None = None,
    ) -> None:
        if picture.graph_id is None:
            raise PictureWithoutIdsError(
                f"The picture {picture.title!r} has no graph id, so the player cannot find its boxes. "
                "Give the stepper a picture made by `graph.snapshot(...)` (or use `step_through`)."
            )
        self.picture = picture
        self.trace = trace
        self.grads = grads
        self.error = error
        self.frames = frames(trace)

    def data(self) -> dict[str, Any]:
        """What the page's script reads: the frames, each node's name and SVG id, and the trace."""
        graph_id = self.picture.graph_id
        assert graph_id is not None
        nodes = {
            str(node_id): {"name": name(node), "element": element_id(graph_id, node_key(node_id))}
            for node_id, node in sorted(self.trace.nodes.items())
        }
        return {
            "graph": graph_id,
            "title": self.picture.title,
            "nodes": nodes,
            "frames": [asdict(frame) for frame in self.frames],
            "trace": self.trace.as_data(),
        }

    def json(self) -> str:
        """`data()` as JSON, safe inside a `<script>` element (no `</` in it)."""
        return json.dumps(self.data(), ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")

    def _repr_html_(self) -> str:
        graph_id = self.picture.graph_id
        title = escape(self.picture.title)
        style = ";".join(f"{variable}:{colour}" for variable, colour in COLOURS.items())
        items = "".join(f"<li>{escape(frame.sentence)}</li>" for frame in self.frames)
        return (
            f'<div class="stepper" id="{graph_id}-stepper" style="{style}">\n'
            f'<div class="stepper-picture">{self.picture._repr_html_()}</div>\n'
            '<div class="stepper-player" role="group" tabindex="0" '
            f'aria-label="Backward pass player: {title}" hidden>'
            '<div class="stepper-controls">'
            '<button type="button" data-action="reset">Reset</button>'
            '<button type="button" data-action="previous">Previous step</button>'
            '<button type="button" data-action="play">Play</button>'
            '<button type="button" data-action="next">Next step</button>'
            '<span class="stepper-position"></span></div>'
            '<p class="stepper-sentence" aria-live="polite"></p>'
            '<div class="stepper-stack"><span>Stack, top first:</span> <ol></ol></div>'
            '<p class="stepper-key"><span class="stepper-key-current">this frame\'s node</span> '
            '<span class="stepper-key-taken">step taken by this pass</span> '
            '<span class="stepper-key-gradient">a gradient just landed</span></p>'
            "</div>\n"
            f'<details class="stepper-frames" open><summary>Every step of this backward pass '
            f"({len(self.frames)})</summary><ol>{items}</ol></details>\n"
            f'<script type="application/json" class="stepper-data">{self.json()}</script>\n'
            "</div>"
        )

    def __repr__(self) -> str:
        ending = f"fails with {type(self.error).__name__}" if self.error else "finishes"
        return f"<Stepper {self.picture.title!r}: {len(self.frames)} frames, the pass {ending}>"


def step_through(
    title: str,
    loss: Tensor,
    *,
    module: Module | None = None,
    tensors: Mapping[str, Tensor] | None = None,
) -> Stepper:
    """Draw the graph, run `loss.backward()` recorded, and return the player of that pass.

    A pass that fails on the tape (`TapeConsumedError`, `MissingRootStepError`)
    does not raise here: its error is the last frame, and `Stepper.error`.
    """
    picture = snapshot(title, module=module, tensors={"loss": loss, **(tensors or {})})
    grads = error = None
    with record_backward() as passes:
        try:
            grads = loss.backward()
        except (TapeConsumedError, MissingRootStepError) as caught:
            error = caught
    (trace,) = passes
    return Stepper(picture, trace, grads, error)


__all__ = ["Frame", "Stepper", "frames", "name", "step_through"]

