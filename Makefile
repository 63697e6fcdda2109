# syncdesk's two commands (see README): `make demo` and `make test`.
# Everything else is what they need: a virtual environment with the project
# installed in it, rebuilt when pyproject.toml changes.

# bash with pipefail: a recipe piping pip's output through grep still fails when pip does.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit crash install clean bench

$(STAMP): pyproject.toml
	@echo "Installing syncdesk and its dependencies into $(VENV) (once; about half a minute)..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "Downloading and installing the dependencies (pip names each one as it goes):"
	$(BIN)/python -m pip install --no-color -e '.[dev]' 2>&1 \
		| grep --line-buffered -E '^(Collecting|Downloading|Installing|Successfully|ERROR|error)' \
		|| { echo "The install failed; for pip's whole output run: $(BIN)/python -m pip install -e '.[dev]'"; false; }
	touch $(STAMP)
	@echo "Installed: the syncdesk command is $(BIN)/syncdesk (or run: . $(BIN)/activate)"

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/syncdesk demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -n 2 -q

test: lint typecheck unit

# The kill -9 harnesses at full size (research/reliability.md R1: 1,000 kills each;
# the default suite runs 60, 40 for the repair writer). Replay a failure with SYNCDESK_KILL_SEED=<seed>.
crash: $(STAMP)
	SYNCDESK_KILL_RUNS=1000 $(BIN)/pytest -q -n 2 -k kill_nine tests/test_atomic.py tests/test_state.py \
		tests/test_writer_kill.py tests/test_desk_kill.py

bench: $(STAMP)
	PYTHONPATH=. $(BIN)/python bench/bench_workspace.py
	$(BIN)/python bench/bench_origin.py
	PYTHONPATH=. $(BIN)/python bench/bench_parsers.py
	$(BIN)/python bench/bench_audit.py $(if $(REPO),--repo $(REPO) --head $(HEAD))
	$(BIN)/python bench/bench_sync.py $(if $(REPO),--repo $(REPO) --head $(HEAD)) \
		$(if $(DEV),--dev $(DEV)) $(if $(MAIN),--main $(MAIN))
	$(BIN)/python bench/bench_huge.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
