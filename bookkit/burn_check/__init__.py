"""bookkit.burn_check: does my Burn training code have the bug this book is about? A checker for Rust.

One rule set (`rules.js`), two front ends that run it with the same tree-sitter parser and Rust
grammar: chapter 12's page (`page.js`, added by the Sphinx extension `bookkit.burn_check.sphinx_ext`) and
the command `burn-check` (`command.py`, which runs `cli.mjs` with the node that set-up installs).
Their words are in `words/<language>.json`; ready examples in `examples/`.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
EXAMPLES = FOLDER / "examples"
"""The ready examples the page offers (the article's program, a split model, a Learner program)."""
