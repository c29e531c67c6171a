"""Every colour the book's pictures use, named for what it means.

The graphs (`graph`), the flowchart (`flowchart`) and the loss curves
(`curves`) take their colours from here and nowhere else, so one line changes a
meaning's colour in every picture: `MOVED` is the to_device node's border, the
to_device edge, and the flowchart's to_device branch. Two meanings that happen
to share a colour still get two names, so either can change alone.

Values are what Graphviz and matplotlib both read: `#rrggbb`, or a colour name.
"""

from __future__ import annotations

# ----- the kinds of node (Burn: crates/burn-autodiff/src/graph/requirement.rs) -----------

LEAF = "#33691e"
"""A GRAD leaf's border: a parameter that keeps its gradient."""
LEAF_FILL = "#dcedc8"

OP = "#1565c0"
"""An op output's border (GradInBackward)."""
OP_FILL = "#e3f2fd"
CONSUMED_OP_FILL = "#f4f8fc"

MOVED = "#e65100"
"""The to_device op: its node's border, its edge across devices, the flowchart's to_device branch."""
MOVED_FILL = "#ffcc80"
CONSUMED_MOVED_FILL = "#fff3e0"

UNTRACKED = "#9e9e9e"
"""The border of what records no gradient: an untracked node, or a plain tensor with no node."""
UNTRACKED_FILL = "#f5f5f5"
CONSUMED_UNTRACKED_FILL = "#fafafa"
UNTRACKED_TEXT = "#616161"

NO_FILL = "white"
"""A box drawn with no colour of its own: a plain tensor's legend swatch, a submodule's box."""

# ----- what backward and errors leave on a graph -------------------------------------------

CONSUMED = "#607d8b"
"""The text of a step a backward pass consumed, and the box that stands for nodes left out."""
DETAIL_TEXT = "#607d8b"
"""A box's second line: its id and shape, or which ops a folded box holds."""
EDGE = "#546e7a"

GRADIENT_LANDED = "#2e7d32"
"""A node holding a gradient after backward (the double border's caption)."""
UNCLAIMED_GRADIENT = "#e65100"
"""A gradient on a leaf no parameter holds any more: the original to_device left behind."""
NO_GRADIENT = "#c62828"
"""A parameter that got no gradient."""

CURRENT_STEP = "#6a1b9a"
"""The backward stepper's current node: the box the player's sentence is about."""
CURRENT_STEP_ON_DARK = "#ce93d8"
"""`CURRENT_STEP` on the dark theme: the same purple, light enough there (3:1 and more against
the dark page), for the player's focus ring and its current entries."""

STEPPER_FAILED = "#700000"
"""The backward stepper's failing node: a dark red that stays at 3:1 or more against MOVED's orange
border and the boxes' fills (FAILED's red sits at about 1.5:1 next to MOVED), and its fill below."""
STEPPER_FAILED_FILL = "#ffcdd2"

FAILED = "#c62828"
"""Where backward stopped: the failed node's border, the error note's border and edge, the error title."""
ERROR_NOTE_FILL = "#ffebee"
ERROR_NOTE_TEXT = "#b71c1c"

# ----- devices, submodules, legend --------------------------------------------------------

FLEX_FILL = "#fafafa"
"""The CPU device's box."""
METAL_FILL = "#fff8f0"
"""The accelerator's box."""
DEVICE_BORDER = "#b0bec5"
SUBMODULE_BORDER = "#90a4ae"
CLUSTER_TEXT = "#37474f"
"""A device's or submodule's name."""
LEGEND_BORDER = "#b0bec5"

# ----- the flowchart ---------------------------------------------------------------------

START = "#1565c0"
"""The boxes before the choice: an initialized model, to_device or fork?"""
START_FILL = "#e3f2fd"
TO_DEVICE_BRANCH = MOVED
TO_DEVICE_BRANCH_FILL = "#ffe0b2"
FORK_BRANCH = LEAF
"""fork's branch: fresh leaves, so the leaf colours."""
FORK_BRANCH_FILL = LEAF_FILL

# ----- outcomes of a run (scenarios.OUTCOMES), in the loss curves -------------------------

TRAINS = "#2e7d32"
NO_GRADIENTS = "#b8860b"
SILENT_THEN_CRASH = "#e65100"
CRASH_AT_STEP_0 = "#c62828"
CRASH_LATER = "#6a1b9a"
CRASH_BEFORE_TRAINING = "#4e342e"
RAISED = "#c62828"
"""The X where a run raised, and its words."""
NOTE_TEXT = "0.4"
"""A remark on an empty plot ("no step completed"): matplotlib's 40% grey."""
