"""The backward stepper: one backward pass, replayed a step at a time on its graph.

`step_through(title, loss, module=...)` draws the graph as it is before
backward, runs `loss.backward()` with the engine's trace on
(`tape.record_backward`), and returns a `Stepper`. A notebook shows it as the
picture, a player (controls, the current frame's sentence, the code that runs,
the stack, the tape, the gradients, what changed) and the list of every frame,
which is what a page without JavaScript shows. The same output carries the
frames as JSON for `bookkit/stepper/stepper.js`.

Each frame's sentence is written here, from the trace, in every language of
the book (bookkit/words/<language>.json, part "stepper"), so the words a
reader sees are tested against what the engine did; the script only shows
them. The output is an `editions.Editions`: the build keeps the page's
language. The code beside the graph is read from `tape.py` itself when the
stepper is made, so it cannot go stale: a line this module points at and
cannot find there is an error, not a wrong highlight.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from html import escape
from pathlib import Path
from typing import Any

from bookkit.pictures import palette
from bookkit.pictures.graph import Graph, snapshot
from bookkit.pictures.graph_data import node_key
from bookkit.pictures.graph_dot import element_id
from bookkit.words import SOURCE_LANGUAGE, languages, say, words
from bookkit.words.multilingual import Editions, pick
from mlx_autodiff import tape
from mlx_autodiff.errors import AutodiffError, MissingRootStepError, TapeConsumedError
from mlx_autodiff.module import Module
from mlx_autodiff.node import Requirement, node_name
from mlx_autodiff.tape import Gradients, record_backward
from mlx_autodiff.tensor import Tensor
from mlx_autodiff.trace import BackwardTrace, Event, Failed, Landed, Popped, Pushed, Ran, Took, TracedNode

COLOURS = {
    "--stepper-current": palette.CURRENT_STEP,
    "--stepper-current-dark": palette.CURRENT_STEP_ON_DARK,
    "--stepper-gradient": palette.GRADIENT_LANDED,
    "--stepper-failed": palette.STEPPER_FAILED,
    "--stepper-failed-fill": palette.STEPPER_FAILED_FILL,
}
"""The player's marks on the picture, handed to `bookkit/stepper/stepper.css` as CSS variables."""

BURN_SOURCE = "https://github.com/tracel-ai/burn/blob/2c06be351006851d42fdb6df16b976f4a82d9747/crates/burn-autodiff/src/"
"""Burn's autodiff crate at the snapshot the book cites; a frame links to the lines that do its move."""


class StepperCodeError(AutodiffError, LookupError):
    """A line the stepper highlights is no longer in `tape.py`: the backward walk was edited."""


class PictureWithoutIdsError(AutodiffError, ValueError):
    """The stepper was given a picture whose boxes carry no ids (not a `snapshot`)."""


class Phase(str, Enum):
    """The two halves of a pass (Burn: `build_tape`, then `execute_steps`, runtime/server.rs)."""

    WALK = "walk"
    """Ordering: the walk pops nodes and takes their steps off the tape."""
    RUN = "run"
    """Executing: the steps run, deepest first, and gradients move."""


@dataclass(frozen=True)
class BurnPlace:
    """Lines of Burn's source that do what a frame shows; `first_line` is the text line `start` holds."""

    path: str
    start: int
    end: int
    first_line: str

    @property
    def url(self) -> str:
        return f"{BURN_SOURCE}{self.path}#L{self.start}-L{self.end}"


BURN: dict[str, BurnPlace] = {
    "root": BurnPlace("runtime/server.rs", 69, 72, "let step = self.steps.remove(&node_id).expect("),
    "root_walk": BurnPlace("graph/traversal.rs", 35, 38, "visited.insert(root_id);"),
    "pop": BurnPlace("graph/traversal.rs", 40, 44, "while let Some(id) = parents.pop() {"),
    "push": BurnPlace("graph/traversal.rs", 55, 59, "for id in step_parents.iter() {"),
    "consume": BurnPlace("runtime/server.rs", 133, 136,
                         "BreadthFirstSearch.traverse(node, node_step, &mut self.steps, |id, step| {"),
    "missing": BurnPlace("graph/traversal.rs", 41, 44, "let step = match steps.remove(&id) {"),
    "seed": BurnPlace("runtime/server.rs", 84, 84, "_ => Gradients::new::<B>(root_node, root_tensor),"),
    "run": BurnPlace("runtime/server.rs", 185, 189, "tape.into_iter().rev().for_each(|steps| {"),
    "done": BurnPlace("runtime/server.rs", 87, 91, "let gradients = Self::execute_steps("
                      "tape_result.tape, grads, tape_result.checkpointer);"),
}
"""Checked against Burn's source by tests/book/test_stepper.py where a checkout is at hand (`BURN_REPO`)."""


# ----- the code beside the graph -------------------------------------------------------------


@dataclass(frozen=True)
class CodeLine:
    number: int
    """The line's number in mlx_autodiff/tape.py."""
    text: str


WALK_LINES: dict[str, tuple[Callable[..., Any], str]] = {
    "take_root": (tape.backward, "root_step = _take_step(root, pass_number, trace)"),
    "no_root_step": (tape.backward, "raise _failed(trace, root, MissingRootStepError("),
    "visit_root": (tape.backward, "visit(root, root_step)"),
    "push": (tape.backward, "stack.append(parent)"),
    "pop": (tape.backward, "node = stack.pop()"),
    "take": (tape.backward, "step = _take_step(node, pass_number, trace)"),
    "gone": (tape.backward, "if step is None:"),
    "skip_leaf": (tape.backward, "continue  # a leaf's step is a no-op"),
    "raise": (tape.backward, "raise _failed(trace, node, TapeConsumedError("),
    "visit": (tape.backward, "visit(node, step)"),
    "seed": (tape.backward, "grads.register(root, seed)"),
    "run": (tape.backward, "_run_step(node, step, grads, trace)"),
    "done": (tape.backward, "return grads"),
    "no_op": (tape._run_step, "return"),
    "consume": (tape._run_step, "grad = grads.consume(node)"),
    "step_backward": (tape._run_step, "parent_grads = step.backward(grad)"),
    "register": (tape._run_step, "grads.register(parent, parent_grad)"),
}
"""What each frame executes: a function of tape.py and how its line starts (the first match)."""


RECORDING = ("trace.", "trace = ", "pass_number = next")
"""How the lines start that only feed the trace (the stepper's own recording): not shown."""


@dataclass(frozen=True)
class WalkCode:
    """The lines of tape.py's `backward` and `_run_step` a reader sees, and where each move is."""

    path: str
    lines: tuple[CodeLine, ...]
    at: Mapping[str, int]


def _shown(function: Callable[..., Any]) -> list[CodeLine]:
    """A function's lines with their numbers in its file, less its docstring, blanks and recording."""
    source, start = inspect.getsourcelines(function)
    lines = [CodeLine(start + offset, line.rstrip()) for offset, line in enumerate(source)]
    shown, docstring = [lines[0]], False
    for line in lines[1:]:
        stripped = line.text.strip()
        if stripped.startswith('"""') and not shown[1:] and not docstring:
            docstring = not (len(stripped) > 3 and stripped.endswith('"""'))
            continue
        if docstring:
            docstring = not stripped.endswith('"""')
            continue
        if stripped and not stripped.startswith(RECORDING):
            shown.append(line)
    return shown


def walk_code() -> WalkCode:
    """Read the backward walk from tape.py's source as it is now."""
    shown: list[CodeLine] = []
    at: dict[str, int] = {}
    for function in (tape.backward, tape._run_step):
        lines = _shown(function)
        shown += lines
        for key, (owner, starts) in WALK_LINES.items():
            if owner is not function:
                continue
            found = next((line.number for line in lines if line.text.strip().startswith(starts)), None)
            if found is None:
                raise StepperCodeError(
                    f"mlx_autodiff/tape.py's `{function.__name__}` has no line starting with {starts!r}, "
                    f"which the stepper highlights for {key!r}: update stepper.WALK_LINES to the edited code")
            at[key] = found
    return WalkCode(f"mlx_autodiff/{Path(inspect.getsourcefile(tape) or 'tape.py').name}", tuple(shown), at)


# ----- frames --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Held:
    """A gradient the pass's container holds: for which node, its shape and its (plain) device."""

    node: int
    shape: tuple[int, ...]
    device: str


@dataclass(frozen=True)
class Changes:
    """What one frame changed: the stack, the tape, the gradients."""

    popped: int | None = None
    pushed: tuple[int, ...] = ()
    took: int | None = None
    gone: int | None = None
    arrived: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()
    """Gradients in transit a step used up (`Gradients.consume`)."""


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
    phase: Phase
    line: int
    """The line of tape.py this frame executes (`WalkCode.lines`)."""
    failed: bool = False
    landed: tuple[int, ...] = ()
    """Every node a gradient reached in this pass so far: the mark stays."""
    held: tuple[Held, ...] = ()
    """What the pass's gradients container holds after this frame, by node id."""
    missed: tuple[int, ...] = ()
    """On the closing frame: the nodes the module's parameters hold that are left without a gradient."""
    changes: Changes = field(default_factory=Changes)
    lines: tuple[int, ...] = ()
    """The other lines of tape.py this frame's move goes through."""
    burn: tuple[str, ...] = ()
    """Keys of `BURN`: where Burn does the same."""


def frames(trace: BackwardTrace, language: str | None = None, parameters: Iterable[int] = (),
           code: WalkCode | None = None) -> list[Frame]:
    """The pass as frames: the root, one per pop, the seed, one per step run, and how it ended.

    A frame groups the events of one move: a pop with the step it takes and the
    parents it pushes; a step run with the gradients it registers. `parameters`
    are the node ids the module's parameters hold: the closing frame marks those
    left without a gradient.
    """
    at = (code or walk_code()).at
    shown: list[Frame] = []
    stack: tuple[int, ...] = ()
    taken: list[int] = []
    landed: list[int] = []
    held: dict[int, Held] = {}
    for group in _moves(trace.events):
        for event in group:
            if isinstance(event, Pushed | Popped):
                stack = event.stack
            if isinstance(event, Took) and event.found:
                taken.append(event.node)
        arrived = tuple(event.node for event in group if isinstance(event, Landed))
        removed = _run_gradients(trace, group, held)
        landed += [node for node in arrived if node not in landed]
        failed = any(isinstance(event, Failed) for event in group)
        line, lines, burn = _where(group, at)
        first = group[0]
        phase = Phase.RUN if isinstance(first, Ran | Landed) else Phase.WALK
        changes = Changes(
            popped=first.node if isinstance(first, Popped) else None,
            pushed=tuple(event.node for event in group if isinstance(event, Pushed)),
            took=next((event.node for event in group if isinstance(event, Took) and event.found), None),
            gone=next((event.node for event in group if isinstance(event, Took) and not event.found), None),
            arrived=arrived, removed=removed)
        shown.append(Frame(_sentence(trace, group, len(taken), language), first.node, stack, tuple(taken),
                           arrived, phase, line, failed, tuple(landed), tuple(held[n] for n in sorted(held)),
                           changes=changes, lines=lines, burn=burn))
    if trace.failure is None:
        kept = trace.kept()
        missed = tuple(sorted(set(parameters) - set(held)))
        sentence = _done(trace, kept, language) + (_missed(trace, missed, language) if missed else "")
        shown.append(Frame(sentence, None, (), tuple(taken), tuple(e.node for e in kept), Phase.RUN,
                           at["done"], landed=tuple(landed), held=tuple(held[n] for n in sorted(held)),
                           missed=missed, burn=("done",)))
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


def _run_gradients(trace: BackwardTrace, group: list[Event], held: dict[int, Held]) -> tuple[int, ...]:
    """Apply a move to the gradients container as `tape.Gradients` does; return what was used up.

    A step that runs reads its node's gradient (`consume`): kept for a GRAD leaf,
    removed in transit; each gradient it sends is registered (summed, same shape).
    """
    removed: list[int] = []
    for event in group:
        if isinstance(event, Ran) and not event.no_op:
            if trace.nodes[event.node].requirement is not Requirement.GRAD and event.node in held:
                del held[event.node]
                removed.append(event.node)
        if isinstance(event, Landed):
            held[event.node] = Held(event.node, event.shape, event.device)
    return tuple(removed)


def _where(group: list[Event], at: Mapping[str, int]) -> tuple[int, tuple[int, ...], tuple[str, ...]]:
    """The line of tape.py a move executes, the other lines it goes through, and Burn's places."""
    first = group[0]
    pushed = ("push",) if any(isinstance(event, Pushed) for event in group) else ()
    if isinstance(first, Landed):
        return at["seed"], (), ("seed",)
    if isinstance(first, Ran):
        sent = any(isinstance(event, Landed) for event in group)
        if first.no_op:
            main, others = "no_op", ("run",)
        else:
            main, others = ("register" if sent else "step_backward"), ("run", "consume", "step_backward")
        return at[main], tuple(at[key] for key in others if key != main), ("run",)
    failed = any(isinstance(event, Failed) for event in group)
    took = next(event for event in group if isinstance(event, Took))
    if not isinstance(first, Popped):  # the root
        if failed:
            return at["no_root_step"], (at["take_root"],), ("root",)
        others = tuple(at[key] for key in ("visit_root", *pushed))
        return at["take_root"], others, ("root", "root_walk", *pushed)
    if failed:
        return at["raise"], (at["pop"], at["take"], at["gone"]), ("pop", "missing")
    if not took.found:
        return at["skip_leaf"], (at["pop"], at["take"], at["gone"]), ("pop", "missing")
    return at["pop"], tuple(at[key] for key in ("take", "visit", *pushed)), ("pop", "consume", *pushed)


# ----- the sentences ---------------------------------------------------------------------


def name(node: TracedNode, language: str | None = None) -> str:
    """`NodeId(3) 'bias' to_device`: the id as Burn prints it, the parameter, what made it."""
    label = f" '{node.label}'" if node.label else ""
    return f"{node_name(node.id)}{label} {words(language, 'stepper')['leaf'] if node.is_leaf else node.op}"


def _sentence(trace: BackwardTrace, group: list[Event], steps_taken: int, language: str | None) -> str:
    text = words(language, "stepper")
    first = group[0]
    node = trace.nodes[first.node]
    if isinstance(first, Ran):
        return _run(trace, node, first, group[1:], language)
    if isinstance(first, Landed):
        count = text["steps_one"] if steps_taken == 1 else say(text["steps_many"], n=steps_taken)
        return say(text["seed"], taken=count, shape=_shape(first.shape), device=first.device,
                   node=name(node, language))
    popped = isinstance(first, Popped)
    took = next(event for event in group if isinstance(event, Took))
    what = say(text["pop" if popped else "root"], node=name(node, language))
    failure = next((event for event in group if isinstance(event, Failed)), None)
    if failure is not None:
        return say(text["failed"], what=what, error=failure.error, message=_first_sentence(failure.message))
    if not took.found:
        return say(text["gone_leaf"], what=what)
    if node.is_leaf:
        return say(text["took_leaf"], what=what)
    pushed = [name(trace.nodes[event.node], language) for event in group if isinstance(event, Pushed)]
    if not pushed:
        return say(text["took_none"], what=what)
    return say(text["took_one" if len(pushed) == 1 else "took_many"], what=what, parents=_and(pushed, text))


def _run(trace: BackwardTrace, node: TracedNode, ran: Ran, landings: list[Event],
         language: str | None) -> str:
    text = words(language, "stepper")
    if ran.no_op:
        return say(text["run_no_op"], node=name(node, language))
    sent = [event for event in landings if isinstance(event, Landed)]
    if not sent:
        return say(text["run_nothing"], node=name(node, language))
    each = [say(text["run_each"], shape=_shape(e.shape), device=e.device,
                node=name(trace.nodes[e.node], language)) for e in sent]
    return say(text["run"], node=name(node, language), each=_and(each, text, last="and_last"))


def _done(trace: BackwardTrace, kept: list[Landed], language: str | None) -> str:
    text = words(language, "stepper")
    if not kept:
        return text["done_none"]
    where = _and([say(text["done_where"], node=name(trace.nodes[e.node], language), device=e.device)
                  for e in kept], text)
    return say(text["done_one"], where=where) if len(kept) == 1 else say(text["done_many"], n=len(kept),
                                                                         where=where)


FULL_WIDTH_SPACE = re.compile(r"(?<=[（）「」，、；：。]) | (?=[（）「」，、；：。])")


def _missed(trace: BackwardTrace, missed: tuple[int, ...], language: str | None) -> str:
    text = words(language, "stepper")
    return say(text["missed"], nodes=_and([name(trace.nodes[n], language) for n in missed], text))


def _shape(shape: tuple[int, ...]) -> str:
    return str(list(shape))


def _and(items: list[str], text: Mapping[str, str], last: str = "and") -> str:
    """The items in one phrase; a space the words put beside a full-width mark goes (a Chinese item
    ends with one: NodeId(0) 'weight' 叶子（位于 flex）和 …)."""
    joined = items[0] if len(items) == 1 else text["comma"].join(items[:-1]) + text[last] + items[-1]
    return FULL_WIDTH_SPACE.sub("", joined)


def _first_sentence(message: str) -> str:
    """An error message's first sentence, in its own words (as the error names the node)."""
    line = message.splitlines()[0]
    ends = [i for i in (line.find(". "), line.find("? ")) if i >= 0]
    return line[: min(ends)] if ends else line.rstrip(".")


# ----- the player ----------------------------------------------------------------------


class Stepper:
    """A backward pass as the page shows it: the picture before it, and its frames.

    `grads` holds the pass's gradients when it finished, `error` what it
    raised when it failed (the last frame says so). With `module`, the closing
    frame marks the parameters left without a gradient.
    """

    def __init__(
        self,
        picture: Graph,
        trace: BackwardTrace,
        grads: Gradients | None = None,
        error: TapeConsumedError | MissingRootStepError | None = None,
        *,
        module: Module | None = None,
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
        self.code = walk_code()
        self.parameters = _parameter_nodes(module)
        self.frames = self.frames_in(SOURCE_LANGUAGE)

    def frames_in(self, language: str) -> list[Frame]:
        return frames(self.trace, language, self.parameters, self.code)

    def data(self, language: str = SOURCE_LANGUAGE) -> dict[str, Any]:
        """What the page's script reads: the frames, each node's name and SVG id, the code, the trace."""
        graph_id = self.picture.graph_id
        assert graph_id is not None
        nodes = {
            str(node_id): {"name": name(node, language), "element": element_id(graph_id, node_key(node_id)),
                           "had_step": node.had_step}
            for node_id, node in sorted(self.trace.nodes.items())
        }
        return {
            "graph": graph_id,
            "title": self.picture.drawing(language).title,
            "nodes": nodes,
            "parameters": list(self.parameters),
            "frames": [asdict(frame) for frame in self.frames_in(language)],
            "burn": {key: {"url": place.url, "text": f"{place.path}:{place.start}"
                           + (f"-{place.end}" if place.end != place.start else "")}
                     for key, place in BURN.items()},
            "trace": self.trace.as_data(),
        }

    def json(self, language: str = SOURCE_LANGUAGE) -> str:
        """`data()` as JSON, safe inside a `<script>` element (no `</` in it)."""
        return json.dumps(self.data(language), ensure_ascii=False,
                          separators=(",", ":")).replace("</", "<\\/")

    def _repr_html_(self) -> str:
        picture = self.picture._repr_html_()
        return Editions({code: self.html(code, pick(picture, code)) for code in languages()})._repr_html_()

    def html(self, language: str, picture: str) -> str:
        """The stepper in one language: the picture, the player (hidden until the script runs), the list."""
        said = words(language, "page")["stepper"]
        shown = self.frames_in(language)
        graph_id = self.picture.graph_id
        title = self.picture.drawing(language).title
        style = ";".join(f"{variable}:{colour}" for variable, colour in COLOURS.items())
        items = "".join(f"<li>{escape(frame.sentence)}</li>" for frame in shown)

        def button(action: str, *, keys: str = "") -> str:
            shortcut = f' aria-keyshortcuts="{keys}"' if keys else ""
            return f'<button type="button" data-action="{action}"{shortcut}>{escape(said[action])}</button>'

        code = "".join(f'<li data-line="{line.number}"><span class="stepper-line-number" aria-hidden="true">'
                       f"{line.number}</span><code>{escape(line.text)}</code></li>"
                       for line in self.code.lines)
        speeds = "".join(f'<option value="{speed}"{" selected" if speed == "1" else ""}>{speed}×</option>'
                         for speed in ("0.5", "1", "2"))
        keys = ["current", "taken", "gradient", "arrived"]
        if self.error is not None:
            keys.append("failed")
        if shown[-1].missed:
            keys.append("missed")
        key = " ".join(f'<span class="stepper-key-{mark}">{escape(said[mark])}</span>' for mark in keys)
        pane = '<section class="stepper-pane stepper-{0}"><p class="stepper-pane-title">{1}</p>{2}</section>'
        # full-width: the theme's wide content, so that the code can sit beside the graph (stepper.css)
        return (
            f'<div class="stepper full-width" id="{graph_id}-stepper" style="{style}">\n'
            f'<div class="stepper-picture" tabindex="0" role="region" '
            f'aria-label="{escape(title)}">{picture}</div>\n'
            '<div class="stepper-player" role="group" tabindex="0" '
            f'aria-label="{escape(say(said["player"], title=title))}" hidden>'
            '<div class="stepper-controls">'
            + button("first", keys="Home") + button("previous", keys="ArrowLeft")
            + button("play", keys="Space")
            + button("next", keys="ArrowRight") + button("last", keys="End") + button("reset")
            + '<span class="stepper-position" aria-hidden="true"></span></div>'
            '<div class="stepper-scrub">'
            f'<input type="range" class="stepper-slider" min="1" max="{len(shown)}" value="1" step="1" '
            f'aria-label="{escape(said["slider"])}">'
            f'<label class="stepper-speed">{escape(said["speed"])} <select>{speeds}</select></label>'
            f'<label class="stepper-predict"><input type="checkbox"> {escape(said["predict"])}</label>'
            f'<a class="stepper-link" href="#{graph_id}-stepper">{escape(said["link"])}</a></div>'
            '<div class="stepper-phases" aria-hidden="true">'
            f'<span data-phase="walk"><i></i>{escape(said["walk"])}</span>'
            f'<span data-phase="run"><i></i>{escape(said["run"])}</span></div>'
            '<p class="stepper-sentence" aria-live="polite"></p>'
            '<div class="stepper-question" hidden><p class="stepper-ask"></p>'
            '<div class="stepper-choices"></div></div><p class="stepper-feedback" aria-live="assertive"></p>'
            f'<p class="stepper-hint">{escape(said["hint"])}</p>'
            '<div class="stepper-panes">'
            + pane.format("code", escape(say(said["code"], path=self.code.path)),
                          '<div class="stepper-code-box" tabindex="0" role="region" '
                          f'aria-label="{escape(self.code.path)}">'
                          f'<ol class="stepper-code">{code}</ol></div><p class="stepper-burn">'
                          f'{escape(said["burn"])} <span></span></p>')
            + pane.format("stack", escape(said["stack"]), "<ol></ol>")
            + pane.format("tape", escape(said["tape"]), "<ol></ol>")
            + pane.format("gradients", escape(said["gradients"]), "<ol></ol>")
            + pane.format("changes", escape(said["changes"]), "<ul></ul>")
            + "</div>"
            f'<p class="stepper-key">{key}</p>'
            "</div>\n"
            f'<details class="stepper-frames" open><summary>{escape(say(said["frames"], n=len(shown)))}'
            f"</summary><ol>{items}</ol></details>\n"
            f'<script type="application/json" class="stepper-data">{self.json(language)}</script>\n'
            "</div>"
        )

    def __repr__(self) -> str:
        ending = f"fails with {type(self.error).__name__}" if self.error else "finishes"
        return f"<Stepper {self.picture.title!r}: {len(self.frames)} frames, the pass {ending}>"


def _parameter_nodes(module: Module | None) -> tuple[int, ...]:
    """The node ids the module's initialized parameters hold (read only: nothing is initialized)."""
    if module is None:
        return ()
    held = (param.val().node for _, param in module.named_params() if param.is_initialized())
    return tuple(sorted(node.id for node in held if node is not None))


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
    return Stepper(picture, trace, grads, error, module=module)


__all__ = ["BURN", "Frame", "Phase", "Stepper", "StepperCodeError", "frames", "name", "step_through",
           "walk_code"]
