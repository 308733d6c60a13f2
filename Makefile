# The two commands of the README: `make run` (play) and `make test` (develop).
PYTHON ?= python3
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin
# Two install stamps: a player's `make run` installs only the web site's packages; the dev tools
# (pytest, mypy, ruff, Playwright) come with the first target that needs them.
WEB_STAMP := $(VENV)/.installed-web
DEV_STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium

.PHONY: run test lint typecheck unit bench ladder chromium pre-commit clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(WEB_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[web]'
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,web]'
	touch $@ $(WEB_STAMP)

# Browser tests drive Debian's Chromium (no browser download is possible).
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		echo "make test: $(CHROMIUM) is missing; installing Debian's chromium with apt-get (needs root)"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

run: $(WEB_STAMP)
	$(BIN)/exochess serve --port $(PORT)

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests bench

typecheck: $(DEV_STAMP)
	$(BIN)/mypy --strict src/exochess

unit: $(DEV_STAMP) chromium
	$(BIN)/pytest

test: lint typecheck unit

# Installs the git hook that runs ruff and mypy before each commit (.pre-commit-config.yaml).
pre-commit: $(DEV_STAMP)
	$(BIN)/pre-commit install

bench: $(DEV_STAMP)
	$(BIN)/python bench/perft.py
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/web.py

# The level ladder from real matches (hours on two cores; see bench/ladder.py for options).
ladder: $(DEV_STAMP)
	$(BIN)/python bench/ladder.py --jobs 2

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
