# mem: set-up, demo and tests. Every target creates .venv and installs mem into it first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO   := .demo-store

.PHONY: dev demo test test-fast lint pytest bench clean test-py312 test-py313 test-versions

# Other Python versions (CI runs the version subset below on each, in its own venv): under
# pyenv, else on PATH
# (the first that runs: a pyenv shim on PATH may exist and still refuse to run)
find_python = $(shell for p in $(HOME)/.pyenv/versions/$(1)*/bin/python$(1) python$(1); do \
	"$$p" -c "" >/dev/null 2>&1 && { command -v "$$p"; break; }; done)
PY312 ?= $(call find_python,3.12)
PY313 ?= $(call find_python,3.13)
# The version subset (not test-fast, which is most of the suite): what depends on the
# interpreter (the lean search path's private-module fallbacks, jsonlite, start-up imports,
# terminals, the record format and its parsers, the index libraries' wheels, the MCP SDK).
VERSION_TESTS := tests/core tests/spec tests/secrets/test_corpus.py tests/search/test_lexfast.py \
	tests/search/test_search_api.py tests/ecosystem/test_terminal.py tests/reliability/test_rel_terminal.py \
	tests/ecosystem/test_mcp_session.py tests/importexport/test_jsonl.py tests/capture/test_patterns.py

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

dev: $(STAMP)

## demo: build a memory from examples/store and search it
demo: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src/mem format cli mcpserver > /dev/null
	rm -rf $(DEMO)
	$(BIN)/python examples/make_demo_store.py $(DEMO)
	$(BIN)/mem --store $(DEMO) rebuild
	$(BIN)/mem --store $(DEMO) stats
	$(BIN)/mem --store $(DEMO) search "what is Alice allergic to?" --scope alice -k 3
	$(BIN)/mem --store $(DEMO) list --scope alice --kind preference

## test: lint (ruff, mypy) and the whole test suite
test: lint pytest

## test-fast: the everyday loop: ruff, then the suite without the tests marked slow or model
## and without the crash-safety part of tests/reliability (its quick attack files stay in);
## stops at the first failure
RELIABILITY_QUICK := tests/reliability/test_rel_secrets.py tests/reliability/test_rel_terminal.py \
	tests/reliability/test_rel_forgetting.py tests/reliability/test_rel_scopes.py
RELIABILITY_SLOW := $(filter-out $(RELIABILITY_QUICK),$(wildcard tests/reliability/test_rel_*.py))
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m compileall -q -j 0 src/mem format cli mcpserver > /dev/null
	$(BIN)/python -m pytest -n 2 -q -x -m "not slow and not model" $(addprefix --ignore=,$(RELIABILITY_SLOW))

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# Byte-compile first: with PYTHONDONTWRITEBYTECODE set, every `mem` subprocess would compile
# the package from source again (tens of ms per call, hundreds of calls).
pytest: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src/mem format cli mcpserver > /dev/null
	$(BIN)/python -m pytest -n 2 -q

# test-py3XX: a venv .venv3XX with that interpreter, mem installed editable with the test extras
# (not the linters or the optional embedders, whose tests skip: CI's time goes to the tests), the
# version subset.
.venv%/.installed-stamp: pyproject.toml
	@test -n "$(PY$*)" || { echo "no python for .venv$* (set PY$*=/path/to/python)"; exit 2; }
	$(PY$*) -m venv .venv$*
	.venv$*/bin/python -m pip install --quiet --upgrade pip
	.venv$*/bin/python -m pip install --quiet -e '.[test]'
	touch $@

test-py312: .venv312/.installed-stamp
	.venv312/bin/python -m compileall -q -j 0 src/mem format cli mcpserver > /dev/null
	.venv312/bin/python -m pytest -n 2 -q -p no:cacheprovider $(VERSION_TESTS)

test-py313: .venv313/.installed-stamp
	.venv313/bin/python -m compileall -q -j 0 src/mem format cli mcpserver > /dev/null
	.venv313/bin/python -m pytest -n 2 -q -p no:cacheprovider $(VERSION_TESTS)

## test-versions: the version subset on Python 3.12 and 3.13
test-versions: test-py312 test-py313

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .venv312 .venv313 $(DEMO) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
