# Two commands set everything up: `make repro` (results) and `make test` (test suite, lint included).
# Both create the virtual environment on first use and install the pinned dependencies into it.
VENV ?= .venv
PYTHON ?= python3
BIN := $(abspath $(VENV))/bin
STAMP := $(VENV)/.installed
export PATH := $(BIN):$(PATH)
export HF_HUB_OFFLINE ?= 1
export HF_HUB_DISABLE_TELEMETRY := 1
export DVC_NO_ANALYTICS := 1
export TOKENIZERS_PARALLELISM := false

# `make repro` regenerates the per-run dvc.yaml files from params.yaml (python -m rlvr_lib.dvc_stages), then runs the
# lane driver (python -m rlvr_lib.repro_lanes): each training seed's base policy, and each (run, seed) pair's train and
# eval stages, in JOBS parallel `dvc repro -s` calls of one thread each (default: one lane per core), with a progress
# line per finished pair (done / total, elapsed, ETA); then `dvc repro` for the rest, then drops stale lock entries.
NPROC := $(shell nproc 2>/dev/null || echo 1)
JOBS ?= $(NPROC)

.PHONY: install repro test test-fast lint lab

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

repro: $(STAMP)
	@# first, as DVC fills dvc.yaml's $${methods} and $${seeds} from params.yaml before any stage runs: an empty or
	@# misshapen file would stop DVC with an interpolation error, where this names the key (and the line)
	$(BIN)/python -m rlvr_lib check-params
	$(BIN)/python -m rlvr_lib.dvc_stages
	$(BIN)/python -m rlvr_lib.repro_lanes --jobs $(JOBS)
	$(BIN)/python -m rlvr_lib.dvc_lock  # entries of stages no dvc.yaml defines any more (DVC keeps them) slow every dvc call
	@echo "$$(date +%T) make repro: done"
	@echo "Results: reports/README.md (figures in reports/figures/, tables in reports/tables/, executed notebooks in reports/notebooks/)"

# two pytest-xdist workers, whole modules as units in collection order (tests/conftest.py puts the end-to-end
# pipeline first): one runs it while the other runs every other module
TEST_WORKERS ?= 2
test: lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15

test-fast: $(STAMP)  # everything but the tests that train or run the pipeline (-m slow)
	$(BIN)/python -m pytest -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# JupyterLab on the repository root: the source notebooks (notebooks/), the executed ones (reports/notebooks/) and the
# rendered reports; LAB_ARGS adds flags (default --allow-root when run as root, e.g. in a container; for a remote
# machine: make lab LAB_ARGS="--no-browser --ip 0.0.0.0 --port 8888")
LAB_ARGS ?= $(if $(filter 0,$(shell id -u)),--allow-root)
lab: $(STAMP)
	$(BIN)/jupyter lab $(LAB_ARGS)
