# The two commands of the README: `make run` (play) and `make test` (develop).
PYTHON ?= python3
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin
# Two install stamps: a player's `make run` installs only the web site's packages; the dev tools
# (pytest, mypy, ruff, Playwright) come with the first target that needs them.  Both install the
# exact versions of the lock files in requirements/ (hashes checked; `make lock` makes them again
# from pyproject.toml, docs/build.md), then exochess itself, editable, without its dependencies.
WEB_STAMP := $(VENV)/.installed-web
DEV_STAMP := $(VENV)/.installed
PIP_LOCKED := $(BIN)/python -m pip install --quiet --require-hashes
PIP_SELF := $(BIN)/python -m pip install --quiet --no-deps -e .
CHROMIUM := /usr/bin/chromium
# The compiled build: a wheel (mypyc extension modules beside the sources when a C
# compiler is present, see setup.py) unpacked into its own directory, which goes first on
# PYTHONPATH; the editable install in .venv stays the pure-Python build.
COMPILED := build/compiled
WHEELS := build/wheels
EXPECT_BUILD := $(if $(shell command -v cc),compiled,pure)

.PHONY: run cluster test lint typecheck unit unit-compiled unit-search-pure compiled bench ladder chromium pre-commit clean \
	messages messages-check format lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(WEB_STAMP): requirements/web.txt pyproject.toml | $(BIN)/python
	$(PIP_LOCKED) -r requirements/web.txt
	$(PIP_SELF)
	touch $@

$(DEV_STAMP): requirements/dev.txt pyproject.toml | $(BIN)/python
	$(PIP_LOCKED) -r requirements/dev.txt
	$(PIP_SELF)
	touch $@ $(WEB_STAMP) $(CLUSTER_STAMP)

# The lock files: every package's exact version and hashes, resolved from pyproject.toml's
# extras by pip-tools (in the dev lock).  Run after changing a dependency in pyproject.toml (a
# range change too); tests/core/test_lock_files.py fails while a lock file misses a requirement.
PIP_COMPILE := $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
	--no-emit-find-links
lock: $(DEV_STAMP)
	$(PIP_COMPILE) --extra web -o requirements/web.txt pyproject.toml
	$(PIP_COMPILE) --extra web --extra cluster -o requirements/cluster.txt pyproject.toml
	$(PIP_COMPILE) --extra dev --extra web --extra cluster --extra postgres -o requirements/dev.txt pyproject.toml

# Browser tests drive Debian's Chromium (no browser download is possible).
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		echo "make test: $(CHROMIUM) is missing; installing Debian's chromium with apt-get (needs root)"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

# Built as `pip wheel .` builds it for anyone: in an isolated environment made from
# pyproject.toml's build requirements (setuptools, mypy with mypyc).
$(COMPILED)/.built: $(WEB_STAMP) setup.py pyproject.toml $(shell find src -type f -not -path '*/__pycache__/*')
	rm -rf $(COMPILED) $(WHEELS)
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir $(WHEELS) .
	$(BIN)/python -m pip install --quiet --no-deps --target $(COMPILED) $(WHEELS)/exochess-*.whl
	touch $@

compiled: $(COMPILED)/.built

run: $(WEB_STAMP) compiled
	PYTHONPATH=$(COMPILED) $(BIN)/exochess serve --port $(PORT)

# The site in Redis mode on this machine (docs/deploy.md): PostgreSQL and Redis from Debian's
# packages (installed when missing), SERVERS servers from port PORT on, WORKERS engine workers.
SERVERS ?= 2
WORKERS ?= 1
CLUSTER_DIR ?=
CLUSTER_STAMP := $(VENV)/.installed-cluster

$(CLUSTER_STAMP): requirements/cluster.txt pyproject.toml $(WEB_STAMP)
	$(PIP_LOCKED) -r requirements/cluster.txt
	$(PIP_SELF)
	touch $@

cluster: $(CLUSTER_STAMP) compiled
	@if ! command -v redis-server >/dev/null || ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then \
		echo "make cluster: installing Debian's postgresql and redis-server with apt-get (needs root)"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql redis-server; \
	fi
	PYTHONPATH=$(COMPILED) $(BIN)/exochess cluster --servers $(SERVERS) --workers $(WORKERS) \
		--port $(PORT) $(if $(CLUSTER_DIR),--dir $(CLUSTER_DIR))

# The site's scripts are checked by TypeScript's tsc (their JSDoc types, `// @ts-check`), from npm
# at the version of package-lock.json, installed into node_modules when missing (Node.js and npm
# are Debian's packages: apt-get install nodejs npm).
TSC := node_modules/.bin/tsc
$(TSC): package.json package-lock.json
	@command -v npm >/dev/null || { echo "make lint: npm is missing (apt-get install nodejs npm)"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint: $(DEV_STAMP) $(TSC)
	$(BIN)/ruff check src tests bench setup.py
	$(BIN)/ruff format --check src tests bench setup.py
	$(TSC) --noEmit -p tsconfig.json

# Formats the Python sources with ruff's formatter (settings: pyproject.toml's [tool.ruff.format]).
format: $(DEV_STAMP)
	$(BIN)/ruff format src tests bench setup.py

# The package, the tests and the benchmarks, all with --strict: the files and settings are
# pyproject.toml's [tool.mypy] (tests/ is a package; bench/'s scripts are top-level modules whose
# names collide with none of the others).
typecheck: $(DEV_STAMP)
	$(BIN)/mypy

# Each pass spreads its test files over TEST_JOBS worker processes (pytest-xdist; a file's tests
# stay together on one worker, in order, with its module fixtures): most of the suite waits on
# servers and the browser, and on 2 cores one worker left half the machine idle.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
PYTEST := $(BIN)/pytest -n $(TEST_JOBS) --dist loadfile

#
# Each test runs where it tells something (the whole suite on both builds took CI over its 30
# minutes on 2 cores):
# - the pure build runs everything but the engine's search tests (marker `search`: search
#   features, matches, puzzle mining), which are the same source on both builds and run on the
#   production build, the compiled one (`make unit-search-pure` runs them on the pure build);
# - the compiled build runs the library's suites (rules, perft, engine, formats, CLI, lessons,
#   pairings), README's doctests, and the web tests where the server calls into compiled code
#   (COMPILED_WEB: the engine pool and workers, computer games, analysis, reports, puzzles,
#   house bots, the legal-move view and the largest boards).  The web layer is not compiled
#   (setup.py), so its other tests would only run the same code again, as would the toy
#   game's generic suite (a game of plain Python) and the Redis-mode tests (tests/cluster).
#   src/'s doctests stay on the pure build: pytest imports those files by path, which would
#   load the sources beside the compiled package.
COMPILED_WEB := tests/web/test_web_enginepool.py tests/web/test_web_engine_limits.py \
	tests/web/test_web_computer_clock.py tests/web/test_web_live_analysis.py tests/web/test_web_reports.py \
	tests/web/test_web_puzzles_api.py tests/web/test_web_housebots.py tests/web/test_web_legalview.py \
	tests/web/test_web_large_positions.py tests/web/test_web_browser_large.py

unit: $(DEV_STAMP) chromium
	EXOCHESS_EXPECT_BUILD=pure $(PYTEST) -m "not search"

unit-compiled: $(DEV_STAMP) compiled chromium
	EXOCHESS_EXPECT_BUILD=$(EXPECT_BUILD) PYTHONPATH=$(COMPILED) \
		$(PYTEST) -p no:cacheprovider tests --ignore=tests/web --ignore=tests/cluster \
		--ignore=tests/variants/toy $(COMPILED_WEB) README.md

unit-search-pure: $(DEV_STAMP)
	EXOCHESS_EXPECT_BUILD=pure $(PYTEST) -m search tests

test: lint typecheck unit unit-compiled

# The site's message catalogues (docs/translating.md): extract every text (templates, Python,
# scripts' t("..."), the games' words) into the template, merge it into each language's .po,
# and compile each one to check it (the site compiles the .po files in memory when it starts,
# so no .mo file is kept).  messages-check fails when the .po files are out of date, or when a
# French or Spanish message has no translation (an empty or fuzzy msgstr).
LOCALE := src/exochess/web/locale
LANGS := fr es
POT := build/messages.pot
EXTRACT = $(BIN)/pybabel -q extract -F babel.cfg -k _ -k t -k gettext -k ngettext:1,2 -k N_ -k tr:2 -k Phrase \
	--add-comments=Translators: --add-location=file --sort-by-file --no-wrap --project=exochess -o $(POT) src

messages: $(DEV_STAMP)
	mkdir -p build
	$(EXTRACT)
	for l in $(LANGS); do \
		$(BIN)/pybabel -q update --init-missing --ignore-obsolete --ignore-pot-creation-date --no-wrap -i $(POT) -d $(LOCALE) -l $$l \
			|| exit 1; \
		$(BIN)/pybabel compile --statistics -i $(LOCALE)/$$l/LC_MESSAGES/messages.po -o build/$$l.mo -l $$l \
			|| exit 1; \
	done

# It updates a copy and compares it with the catalogues, all but the "Generated-By" line: that
# names the installed Babel's version, and a newer Babel on a fresh machine is no stale catalogue
# (pybabel's own --check counts that line as a change).
messages-check: $(DEV_STAMP)
	mkdir -p build
	$(EXTRACT)
	rm -rf build/locale-check && cp -r $(LOCALE) build/locale-check
	for l in $(LANGS); do \
		$(BIN)/pybabel -q update --ignore-obsolete --ignore-pot-creation-date --no-wrap -i $(POT) -d build/locale-check -l $$l || exit 1; \
		diff -u -I '^"Generated-By: ' $(LOCALE)/$$l/LC_MESSAGES/messages.po build/locale-check/$$l/LC_MESSAGES/messages.po >&2 || exit 1; \
	done
	$(BIN)/python -c 'import sys; from exochess.web.http.i18n import untranslated; \
		bad = [f"{p}: no translation for {m!r}" for p in sys.argv[1:] for m in untranslated(p)]; \
		[print(line, file=sys.stderr) for line in bad]; sys.exit(1 if bad else 0)' \
		$(foreach l,$(LANGS),$(LOCALE)/$(l)/LC_MESSAGES/messages.po)

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
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache .hypothesis node_modules
