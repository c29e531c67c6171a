"""Every combination the relocation explorer offers: built on x read before moving x how it is moved.

Three choices make a combination; the article's seven (`methods.SCENARIOS`)
are among them, under their own names, and every other one gets a scenario
named after its choices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from .methods import SCENARIOS, BuiltOn, Move, Scenario


@dataclass(frozen=True)
class Relocation:
    """One answer to "how is it moved": the words a reader picks, and the moves they stand for."""

    choice: str
    moves: tuple[Move, ...]
    written: str
    """The moves as a label writes them, after the arrow: `to_device.train()`; empty when not moved."""


BUILT_ON: tuple[BuiltOn, ...] = get_args(BuiltOn)
"""Where a model can be built, in the order the explorer offers them."""

RELOCATIONS: tuple[Relocation, ...] = (
    Relocation("to_device", ("to_device",), "to_device"),
    Relocation("fork", ("fork",), "fork"),
    Relocation("to_device then train()", ("to_device", "train"), "to_device.train()"),
    Relocation("fork then train()", ("fork", "train"), "fork.train()"),
    Relocation("not moved", (), ""),
)
"""The explorer's ways to move a model; every one ends on `TARGET` unless it is not moved."""


def _combination(built_on: BuiltOn, read_first: bool, relocation: Relocation) -> Scenario:
    """The scenario those three choices make: one of the article's seven, by its name, or a new one."""
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

The article's seven are among them, as themselves (`name in SCENARIOS`)."""
