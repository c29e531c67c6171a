"""The relocation explorer (chapter 8.9): `explorer` runs every combination and writes its answers,
pictures and page; `words` holds its words in each edition; `sphinx_ext` is its directive; `explorer.js`
and `explorer.css` are the page's side.

Nothing is imported here: a combination run in a process of its own needs only `words` (for its
title), and importing `explorer` draws in matplotlib, half a second of each such process."""
