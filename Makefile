# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
# The compiled build: a wheel (mypyc extension modules beside the sources when a C
# compiler is present, see setup.py) unpacked into its own directory, which goes first on
# PYTHONPATH; the editable install in .venv stays the pure-Python build.
COMPILED := build/compiled
WHEELS := build/wheels
EXPECT_BUILD := $(if $(shell command -v cc),compiled,pure)

.PHONY: run test lint typecheck unit unit-compiled compiled bench ladder chromium clean

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

$(COMPILED)/.built: $(STAMP) setup.py $(shell find src -name '*.py')
	rm -rf $(COMPILED) $(WHEELS)
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir $(WHEELS) .
	$(BIN)/python -m pip install --quiet --no-deps --target $(COMPILED) $(WHEELS)/exochess-*.whl
	touch $@

compiled: $(COMPILED)/.built

run: $(STAMP) compiled
	PYTHONPATH=$(COMPILED) $(BIN)/exochess serve

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/exochess

unit: $(STAMP) chromium
	EXOCHESS_EXPECT_BUILD=pure $(BIN)/pytest

# The same suite on the compiled build, but for the doctests of src/ (pytest imports those
# files by path, which would load the sources beside the compiled package).
unit-compiled: compiled chromium
	EXOCHESS_EXPECT_BUILD=$(EXPECT_BUILD) PYTHONPATH=$(COMPILED) \
		$(BIN)/pytest -p no:cacheprovider tests README.md

test: lint typecheck unit unit-compiled

bench: $(STAMP)
	$(BIN)/python bench/perft.py
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/web.py

# The level ladder from real matches (hours on two cores; see bench/ladder.py for options).
ladder: $(STAMP)
	$(BIN)/python bench/ladder.py --jobs 2

clean:
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache .hypothesis
