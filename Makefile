# Two commands for a new user: `make book` and `make test`. Everything else is a helper.
# The Python that builds .venv: empty picks the newest python3.14 ... python3.10 on PATH that suits this
# machine (tools/setup-python.sh; it says what to install when there is none). `make book PYTHON=...`.
PYTHON ?=
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000

.PHONY: setup venv test book build-book serve lab bench bench-book measure-setup exercise lint clean

# tools/mac_wheels.py works around a pip bug with pip's internals: keep pip to the series it was written for.
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

test: setup
	$(PY) -m pytest

build-book: setup
	$(PY) -m tools.build_book

book: build-book serve

# Search and links need http://, not file://; the server only listens on this machine.
serve:
	@test -f _build/html/index.html || { echo "No built book in _build/html: run 'make build-book' first."; exit 1; }
	@echo "Serving the book on http://127.0.0.1:$(PORT) (Ctrl-C to stop)"
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

# Chapters are MyST Markdown; jupytext (installed) lets JupyterLab open them as notebooks.
# Chapters are MyST Markdown: tell JupyterLab (inside .venv only) to open .md files as notebooks.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
lab: setup
	mkdir -p $(dir $(LAB_SETTINGS))
	echo '{"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}}}' > $(LAB_SETTINGS)
	cd book && ../$(VENV)/bin/jupyter lab index.md

# Prints the table and refreshes book/_data/bench.json, which the book's benchmark appendix renders.
bench: setup
	$(PY) -m mlx_autodiff.bench --markdown --json book/_data/bench.json

# The same, plus a clean and an unchanged book build (removes _build first).
bench-book: setup
	$(PY) -m mlx_autodiff.bench --markdown --book --json book/_data/bench.json

# A first set-up's time and downloads here, and a Mac's downloads, for appendix 2 (downloads ~600 MB).
measure-setup: setup
	$(PY) -m tools.measure_setup --json book/_data/setup.json

exercise: setup
	$(PY) -m mlx_autodiff.exercises fork $(CH)

lint: setup
	$(VENV)/bin/ruff check mlx_autodiff tests tools

clean:
	rm -rf _build
