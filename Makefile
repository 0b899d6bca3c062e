# The two commands of the README: `make book` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WORKERS ?=
CH ?=

.PHONY: book test test-deps lint format env run full stability numerics references lab clean

# (Re)create the environment when requirements.txt or pyproject.toml change.
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements.txt 2>&1 | { grep -v "is ignored" || true; }
	# Chapter 06's peer: torchattacks' metadata pins an old requests and asks for torchvision,
	# neither of which it needs to run; installed alone so that nothing else changes.
	$(BIN)/pip install -q --no-deps 'torchattacks>=3.5' 2>&1 | { grep -v "is ignored" || true; }
	touch $(STAMP)

env: $(STAMP)

# Execute every chapter at quick scale (cached), collect the ledgers, render _build/html.
book: $(STAMP)
	$(BIN)/python -m repbook book $(if $(WORKERS),--workers $(WORKERS))

# The whole test suite: unit tests, nbval references, structure and browser checks. One pytest worker
# per 2 cores (a chapter kernel uses 2 threads); whole files (so whole notebooks) per worker.
NCPU := $(shell nproc 2>/dev/null || echo 2)
TEST_WORKERS ?= $(shell echo $$(( $(NCPU) / 2 > 1 ? $(NCPU) / 2 : 1 )))
test: book test-deps lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# Formatting and lint (ruff, configured in pyproject.toml); `make format` rewrites in place.
lint: $(STAMP)
	$(BIN)/ruff format --check --diff . && $(BIN)/ruff check .

format: $(STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

# What the tests need that pip cannot install: Chromium for the browser tests. Installed with apt
# when run as root on Debian/Ubuntu (as CI does); otherwise a clear message, never a skipped test.
test-deps:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
	    || command -v google-chrome >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Chromium for the browser tests (apt-get install chromium)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	    echo "The browser tests need Chromium. Install it: sudo apt-get install chromium"; \
	    echo "(or put Chromium / Google Chrome on PATH), then run make test again."; exit 1; \
	fi

# One chapter, e.g. `make run CH=04`, or at full scale: `make full CH=04`.
run: $(STAMP)
	$(BIN)/python -m repbook run $(CH)

full: $(STAMP)
	$(BIN)/python -m repbook full $(CH)

# Seed robustness, e.g. `make stability CH=04` (SEEDS=5 by default): data/stability/<stem>.json.
SEEDS ?= 5
stability: $(STAMP)
	$(BIN)/python -m repbook stability $(CH) --seeds $(SEEDS)

# How far a chapter's numbers move under other kernels and thread counts, e.g. `make numerics CH=15`:
# data/numerics/<stem>.json, from which its claims' tolerances are declared.
numerics: $(STAMP)
	$(BIN)/python -m repbook numerics $(CH)

# JupyterLab on .venv; double-click a chapter (notebooks/NN_slug.py) to open it as a notebook.
lab: $(STAMP)
	$(BIN)/python -m repbook lab

references: $(STAMP)
	$(BIN)/python -m repbook references $(CH)

clean:
	$(if $(wildcard $(BIN)/python),$(BIN)/python,PYTHONPATH=lib $(PYTHON)) -m repbook clean
