# Two commands set everything up: `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint venv bench clean

# The editable install also builds the optional compiled accelerator (src/paohuzi/_accel.pyx, Cython) next to its
# source when a C compiler is present; without one it says so in one line and the pure-Python path runs
# (setup.py; docs/decisions.md "Speed"); the same for the bots' split search (_accel_bots.pyx), the env's tensor
# (_accel_tensor.pyx), the game websocket's framing (_accel_ws.pyx) and the engine's
# modules compiled by mypyc (paohuzi/_compiled.py). An edit of any of them rebuilds it here (an edited engine
# source runs as Python until then: its compiled build is refused as stale).
COMPILED_SOURCES := $(shell sed -n 's/^    "paohuzi\.\([a-z_]*\)\.\([a-z_]*\)",$$/src\/paohuzi\/\1\/\2.py/p' src/paohuzi/_compiled.py)
$(STAMP): pyproject.toml setup.py src/paohuzi/_accel.pyx src/paohuzi/_accel_yiwushi.pyx src/paohuzi/_accel_bots.pyx \
		src/paohuzi/_accel_tensor.pyx src/paohuzi/_accel_ws.pyx \
		src/paohuzi/_accel_guard.pxi \
		src/paohuzi/_accel_objects.pxi src/paohuzi/_accel_search.pxi src/paohuzi/_accel_every.pxi \
		src/paohuzi/_compiled.py $(COMPILED_SOURCES)
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[server,env,dev]'
	@$(BIN)/python -c "import paohuzi.analysis as a, paohuzi._compiled as c; print('paohuzi: compiled analysis accelerator', \
		'built' if a.ACCELERATED else 'not built (no C compiler?): the pure-Python path answers'); \
		print('paohuzi: compiled engine:', c.reason())"
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	mkdir -p data
	$(BIN)/paohuzi serve --host 127.0.0.1 --port 8000

# The browser tests need Chromium: .ci/need-chromium installs Debian's when missing and root, else says so.
# Then the analysis, scoring, engine, env-encoding and bots-evaluation tests and the doctests of the compiled
# modules once more on the pure-Python path (PAOHUZI_PURE=1), which the compiled accelerators and the compiled
# engine (paohuzi/_compiled.py), when built, replace in the first run: both must pass (issue 15). The 18 random-play
# runs (2 minutes in Python) are left to the first run; tests/test_compiled.py compares both paths on random hands.
PURE_TESTS := tests/analysis tests/rules tests/test_golden.py tests/test_cli_analyze.py src/paohuzi/analysis src/paohuzi/scoring \
	tests/bots/test_evaluation.py tests/bots/test_evaluation_accel.py tests/bots/test_view_world.py tests/bots/test_players.py \
	tests/engine tests/env/test_actions.py tests/env/test_features.py tests/env/test_features_action_ids.py \
	tests/env/test_features_reference.py tests/test_compiled.py \
	src/paohuzi/engine src/paohuzi/env/actions.py src/paohuzi/env/features.py src/paohuzi/bots
# pytest-xdist workers: 2 for `make test` (the machine's 2 cores; CI), 4 for `make test-fast`, whose first pass
# waits on browsers and server timers more than it computes (measured quiet: 282 s with 2, 221 s with 4, and 6
# overloaded the machine: docs/DEVELOPING.md). `make test-fast FAST_WORKERS=2` for a loaded machine.
WORKERS ?= 2
FAST_WORKERS ?= 4
test: $(STAMP)
	@.ci/need-chromium
	$(BIN)/python -m pytest -n $(WORKERS)
	PAOHUZI_PURE=1 $(BIN)/python -m pytest -n $(WORKERS) $(PURE_TESTS) --ignore=tests/engine/test_random_play.py

# Python may cache the bytecode of what the tests import (an environment that says PYTHONDONTWRITEBYTECODE=1
# would have every pytest worker and every `paohuzi serve` the tests start compile the sources again): empty
# here, as Python reads an empty value as unset. The caches go to __pycache__ folders, which git ignores.
test test-fast: export PYTHONDONTWRITEBYTECODE :=

# The inner loop (docs/DEVELOPING.md): everything but the tests marked `soak` (the long random-play and
# load-like runs: pyproject.toml's markers), both passes, and no screenshots from the browser tests (their
# artifacts; PAOHUZI_WEB_SHOTS=1 make test-fast takes them). `make test` still runs all of them.
test-fast: export PAOHUZI_WEB_SHOTS ?= 0
# And a quarter of the largest hypothesis properties' examples (tests/support/fast.py: analysis, 一五十, 六胡抢, the
# families' best win); `make test` runs them all.
test-fast: export PAOHUZI_TEST_FAST := 1
# Its pure pass leaves out the bulk checks that hold whatever the path (PURE_BULK: thousands of random or
# hypothesis cases on the analysis and the engine, and the CLI's subprocesses): the first pass runs them on the
# compiled code and proves both paths equal on corpora and random hands (tests/test_compiled.py,
# tests/analysis/test_accel.py, test_every_accel.py, tests/bots/test_evaluation_accel.py); `make test` runs them
# both ways. What the pure pass keeps: every rule, engine, env and bots unit test and the compiled modules' doctests.
PURE_BULK := tests/analysis/test_properties.py tests/analysis/test_agreement.py tests/engine/test_prefilter.py \
	tests/engine/test_r4_r6_1_oracle_crosscheck.py tests/engine/test_from_position.py tests/test_cli_analyze.py
# And the test that runs the same whatever the pass (PURE_SAME: its children choose their own path, a compiled
# one and a Python one, and compare them; 8-15 s, the pure pass's longest): the first pass has run it.
PURE_SAME := tests/test_compiled.py::test_compiled_and_python_paths_agree_on_everything
test-fast: $(STAMP)
	@.ci/need-chromium
	$(BIN)/python -m pytest -n $(FAST_WORKERS) -m "not soak"
	PAOHUZI_PURE=1 $(BIN)/python -m pytest -n $(FAST_WORKERS) -m "not soak" $(filter-out $(PURE_BULK),$(PURE_TESTS)) \
		$(addprefix --ignore=,$(PURE_BULK)) $(addprefix --deselect=,$(PURE_SAME))

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
		src/paohuzi/_accel_bots.c src/paohuzi/_accel_bots.*.so src/paohuzi/_accel_bots.*.pyd \
		src/paohuzi/_accel_yiwushi.c src/paohuzi/_accel_yiwushi.*.so src/paohuzi/_accel_yiwushi.*.pyd \
		src/paohuzi/_accel_tensor.c src/paohuzi/_accel_tensor.*.so src/paohuzi/_accel_tensor.*.pyd \
		src/paohuzi/_accel_ws.c src/paohuzi/_accel_ws.*.so src/paohuzi/_accel_ws.*.pyd \
		src/paohuzi/_compiled.json src/paohuzi/_engine__mypyc.*.so src/paohuzi/engine/*.so src/paohuzi/env/*.so src/paohuzi/bots/*.so
