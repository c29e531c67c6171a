# Two commands for a new user: `make book` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000

.PHONY: setup test book build-book serve lab bench bench-book exercise lint clean

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python 3.10+ is needed, found " + sys.version.split()[0]'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

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

exercise: setup
	$(PY) -m mlx_autodiff.exercises fork $(CH)

lint: setup
	$(VENV)/bin/ruff check mlx_autodiff tests tools

clean:
	rm -rf _build
