# Two commands set everything up: `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint venv bench clean

# The editable install also builds the optional compiled accelerator (src/paohuzi/_accel.pyx, Cython) next to its
# source when a C compiler is present; without one it says so in one line and the pure-Python path runs
# (setup.py; docs/decisions.md "Speed"); the same for the bots' split search (_accel_bots.pyx). An edit of
# either rebuilds it here.
$(STAMP): pyproject.toml setup.py src/paohuzi/_accel.pyx src/paohuzi/_accel_bots.pyx src/paohuzi/_accel_guard.pxi
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[server,env,dev]'
	@$(BIN)/python -c "import paohuzi.analysis as a; print('paohuzi: compiled analysis accelerator', \
		'built' if a.ACCELERATED else 'not built (no C compiler?): the pure-Python path answers')"
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	mkdir -p data
	$(BIN)/paohuzi serve --host 127.0.0.1 --port 8000

# The browser tests need Chromium: .ci/need-chromium installs Debian's when missing and root, else says so.
# Then the analysis and scoring tests once more on the pure-Python path (PAOHUZI_PURE=1), which the compiled
# accelerator, when built, replaces in the first run: both must pass (issue 15).
PURE_TESTS := tests/analysis tests/rules tests/test_golden.py tests/test_cli_analyze.py src/paohuzi/analysis src/paohuzi/scoring \
	tests/bots/test_evaluation.py tests/bots/test_evaluation_accel.py src/paohuzi/bots/evaluation.py
test: $(STAMP)
	@.ci/need-chromium
	$(BIN)/python -m pytest -n 2
	PAOHUZI_PURE=1 $(BIN)/python -m pytest -n 2 $(PURE_TESTS)

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
	rm -rf $(VENV) build *.egg-info src/*.egg-info src/paohuzi/_accel.c src/paohuzi/_accel.*.so src/paohuzi/_accel.*.pyd \
		src/paohuzi/_accel_bots.c src/paohuzi/_accel_bots.*.so src/paohuzi/_accel_bots.*.pyd
