"""bookkit: the book's machinery around the engine, one folder per feature.

The engine (`mlx_autodiff`) depends on mlx alone and never imports this package; everything here
imports the engine. Each feature's folder holds its Python, its page scripts and its styles, and,
where the site needs it, its Sphinx extension (`sphinx_ext.py`), which adds its own assets:

    runs/       the relocation methods, the runner, the explorer's combinations, the questions' cases
    pictures/   the palette, graphs (data, layout, DOT, SVG), the flowchart, curves, tabs, tables
    stepper/    a backward pass a step at a time, and its player
    explorer/   the relocation explorer (chapter 8.9)
    questions/  the chapters' questions
    live/       live cells: the page side, the kernel server, thebe's files
    words/      the languages and the words of everything code writes
    site/       the strict build of every edition and its Sphinx extensions
    bench/      `make bench`
    workbook/, grader/, exercises.py   the chapters as exercises, graded with the book's checks
    burn_check/ "Am I hit?": the checker for readers' Burn code

README.md's map of the code has a row for every module.
"""
