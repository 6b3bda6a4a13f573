# mem: set-up, demo and tests. Every target creates .venv and installs mem into it first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO   := .demo-store

.PHONY: dev demo test test-fast lint pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

dev: $(STAMP)

## demo: build a memory from examples/store and search it
demo: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src/mem format cli > /dev/null
	rm -rf $(DEMO)
	$(BIN)/python examples/make_demo_store.py $(DEMO)
	$(BIN)/mem --store $(DEMO) rebuild
	$(BIN)/mem --store $(DEMO) stats
	$(BIN)/mem --store $(DEMO) search "what is Alice allergic to?" --scope alice -k 3
	$(BIN)/mem --store $(DEMO) list --scope alice --kind preference

## test: lint (ruff, mypy) and the whole test suite
test: lint pytest

## test-fast: the everyday loop: ruff, then the suite without the tests marked slow or model
## and without the crash-safety suite (tests/reliability); stops at the first failure
test-fast: $(STAMP)
	$(BIN)/ruff check format cli tests bench examples
	$(BIN)/python -m compileall -q -j 0 src/mem format cli > /dev/null
	$(BIN)/python -m pytest -n 2 -q -x -m "not slow and not model" --ignore=tests/reliability

lint: $(STAMP)
	$(BIN)/ruff check format cli tests bench examples
	$(BIN)/mypy

# Byte-compile first: with PYTHONDONTWRITEBYTECODE set, every `mem` subprocess would compile
# the package from source again (tens of ms per call, hundreds of calls).
pytest: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src/mem format cli > /dev/null
	$(BIN)/python -m pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) $(DEMO) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
