"""Every combination the relocation explorer offers: built on x read before moving x how it is moved.

Three choices make a combination. The ways to move (`RELOCATIONS`) come from
one list, the methods chapter 8 runs (`methods.SCENARIOS`), plus the few the
explorer adds, so every method of chapter 8 is a combination, under its own
name; every other combination gets a scenario named after its choices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from bookkit.runs.methods import SCENARIOS, BuiltOn, Move, Scenario

TO_TARGET: tuple[Move, ...] = ("to_device", "fork")
"""The moves that take the target device as their argument; the others are written with `()`."""


@dataclass(frozen=True)
class Relocation:
    """One answer to "how is it moved": the words a reader picks, and the moves they stand for."""

    choice: str
    moves: tuple[Move, ...]
    written: str
    """The moves as a label writes them, after the arrow: `to_device.train()`; empty when not moved."""

    @staticmethod
    def of(moves: tuple[Move, ...]) -> Relocation:
        """The relocation `moves` make: `("to_device", "train")` is "to_device then train()"."""
        words = [move if move in TO_TARGET else f"{move}()" for move in moves]
        return Relocation(" then ".join(words) or "not moved", moves, ".".join(words))

    def order(self) -> tuple[bool, int, tuple[int, ...]]:
        """Moved before not moved, fewer moves first, then in the order of `Move`'s values."""
        every: tuple[Move, ...] = get_args(Move)
        return (not self.moves, len(self.moves), tuple(every.index(move) for move in self.moves))


BUILT_ON: tuple[BuiltOn, ...] = get_args(BuiltOn)
"""Where a model can be built, in the order the explorer offers them."""

EXPLORER_MOVES: tuple[tuple[Move, ...], ...] = (("fork", "train"),)
"""Ways to move that no method of chapter 8 uses, which the explorer offers too."""


def relocations() -> tuple[Relocation, ...]:
    """Every way to move that a method of `SCENARIOS` uses, and `EXPLORER_MOVES`, once each, in order."""
    moves = dict.fromkeys([*(scenario.moves for scenario in SCENARIOS.values()), *EXPLORER_MOVES])
    return tuple(sorted((Relocation.of(m) for m in moves), key=Relocation.order))


RELOCATIONS: tuple[Relocation, ...] = relocations()
"""The explorer's ways to move a model; every one ends on `TARGET` unless it is not moved."""


def _combination(built_on: BuiltOn, read_first: bool, relocation: Relocation) -> Scenario:
    """The scenario those three choices make: a method of chapter 8, by its name, or a new one."""
    for scenario in SCENARIOS.values():
        chosen = (built_on, read_first, relocation.moves)
        if (scenario.built_on, scenario.read_first, scenario.moves) == chosen:
            return scenario
    read = "read" if read_first else "lazy"
    name = "-".join([built_on, read, *relocation.moves]) if relocation.moves else f"{built_on}-{read}-unmoved"
    origin = built_on if read_first else f"lazy {built_on}"
    label = f"{origin} -> {relocation.written}" if relocation.moves else f"{origin}, not moved"
    return Scenario(name, label, built_on, read_first, relocation.moves)


COMBINATIONS: dict[tuple[BuiltOn, bool, str], Scenario] = {
    (built_on, read_first, relocation.choice): _combination(built_on, read_first, relocation)
    for built_on in BUILT_ON
    for read_first in (True, False)
    for relocation in RELOCATIONS
}
"""Every (built on, read before moving, `Relocation.choice`) the explorer offers, and its scenario.

Every method of chapter 8 is among them, as itself (`name in SCENARIOS`), the article's seven too."""
