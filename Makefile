# The two set-up commands are `make run` and `make test`; both create the environment first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install check test lint bench run clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Style, the import contracts and the types (pyproject.toml [tool.importlinter], [tool.mypy]).
lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy

# The edit-test loop, under a minute on 2 cores: the lint, then the tests of domain/ and
# services/ that need no server (fakeredis at most: tests/conftest.py's --no-servers) but the
# long sweeps of random games (marked slow). `make test` runs them all.
check: lint
	$(BIN)/python -m pytest -n auto --dist loadfile --no-servers -m "not slow" tests/domain tests/services

# One test process per core; a file's tests stay in one process (they share its fixtures).
test: lint
	$(BIN)/python -m pytest -n auto --dist loadfile

# The whole service on http://127.0.0.1:8000 (store data in ./var/); Ctrl-C stops it.
run: install
	$(BIN)/omerta run

bench: install
	$(BIN)/python -m tests.benchmarks

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis .mypy_cache .import_linter_cache .grimp_cache
