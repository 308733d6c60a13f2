# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium

.PHONY: run test lint typecheck unit bench ladder chromium clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,web]'
	touch $(STAMP)

# Browser tests drive Debian's Chromium (no browser download is possible).
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

run: $(STAMP)
	$(BIN)/exochess serve

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/exochess

unit: $(STAMP) chromium
	$(BIN)/pytest

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/perft.py
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/web.py

# The level ladder from real matches (hours on two cores; see bench/ladder.py for options).
ladder: $(STAMP)
	$(BIN)/python bench/ladder.py --jobs 2

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
