# The two commands of the README: `make book` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WORKERS ?=
CH ?=

.PHONY: book test env run full references lab clean

# (Re)create the environment when requirements.txt or pyproject.toml change.
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements.txt 2>&1 | { grep -v "is ignored" || true; }
	touch $(STAMP)

env: $(STAMP)

# Execute every chapter at quick scale (cached), collect the ledgers, render _build/html.
book: $(STAMP)
	$(BIN)/python -m repbook book $(if $(WORKERS),--workers $(WORKERS))

# The whole test suite: unit tests, nbval references, structure and browser checks. One pytest worker
# per 2 cores (a chapter kernel uses 2 threads); whole files (so whole notebooks) per worker.
NCPU := $(shell nproc 2>/dev/null || echo 2)
TEST_WORKERS ?= $(shell echo $$(( $(NCPU) / 2 > 1 ? $(NCPU) / 2 : 1 )))
test: book
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# One chapter, e.g. `make run CH=04`, or at full scale: `make full CH=04`.
run: $(STAMP)
	$(BIN)/python -m repbook run $(CH)

full: $(STAMP)
	$(BIN)/python -m repbook full $(CH)

# JupyterLab on .venv; double-click a chapter (notebooks/NN_slug.py) to open it as a notebook.
lab: $(STAMP)
	$(BIN)/python -m repbook lab

references: $(STAMP)
	$(BIN)/python -m repbook references $(CH)

clean:
	rm -rf _build book/chapters book/scoreboard.md book/environment.md
