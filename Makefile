# Two commands set everything up: `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint venv bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[server,env,dev]'
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	mkdir -p data
	$(BIN)/paohuzi serve --host 127.0.0.1 --port 8000

# The browser tests need Chromium: .ci/need-chromium installs Debian's when missing and root, else says so.
test: $(STAMP)
	@.ci/need-chromium
	$(BIN)/python -m pytest -n 2

# ruff check and mypy --strict, as tests/test_lint.py runs them (paths not yet under the gate: PENDING there).
lint: $(STAMP)
	$(BIN)/python tests/test_lint.py

bench: $(STAMP)
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/env.py
	$(BIN)/python bench/bots.py
	$(BIN)/python bench/load.py --tables 300 --duration 60 --procs 2

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
