# Two commands set everything up: `make repro` (results) and `make test` (test suite, lint included); `make smoke`
# runs the whole pipeline at smoke sizes in minutes, in a scratch copy. All create the virtual environment on first
# use and install the pinned dependencies into it.
VENV ?= .venv
PYTHON ?= python3
BIN := $(abspath $(VENV))/bin
STAMP := $(VENV)/.installed
export PATH := $(BIN):$(PATH)
export HF_HUB_OFFLINE ?= 1
export HF_HUB_DISABLE_TELEMETRY := 1
export DVC_NO_ANALYTICS := 1
export TOKENIZERS_PARALLELISM := false

# `make repro` regenerates the per-run dvc.yaml files from params.yaml (python -m rlvr_lib.pipeline.dvc_stages), then runs the
# lane driver (python -m rlvr_lib.pipeline.repro_lanes): each training seed's base policy, and each (run, seed) pair's train and
# eval stages, in JOBS parallel `dvc repro -s` calls of one thread each (default: one lane per core), with a progress
# line per finished pair (done / total, elapsed, ETA); then `dvc repro` for the rest, then drops stale lock entries.
# `make repro PAPER=<erpo|cw_grpo|tepo|opefo|aer|summary>`: the same for one paper's runs, studies and stage.
# `make repro DRY=1` (with PAPER= or not): lists what it would run, step by step, with an estimated time; runs nothing.
# (the cores this process may use; OMP_NUM_THREADS, which GNU nproc would report instead, sets threads per process:
# the lanes set their own, and the test suite sets 1 for every process it starts)
NPROC := $(shell env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 1)
JOBS ?= $(NPROC)
PAPER ?=
DRY ?=

.PHONY: install repro smoke test test-fast lint lab

# the Jupyter kernel every committed notebook names ("Python 3", quiet: rlvr_lib/pipeline/kernelspec.py), so that opening a
# notebook does not rewrite its metadata
KERNEL := $(VENV)/share/jupyter/kernels/python3/kernel.json
INSTALLED := $(STAMP) $(KERNEL)

install: $(INSTALLED)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

$(KERNEL): $(STAMP) rlvr_lib/pipeline/kernelspec.py
	$(BIN)/python -m rlvr_lib.pipeline.kernelspec install >/dev/null

repro: $(INSTALLED)
ifneq ($(DRY),)
	$(BIN)/python -m rlvr_lib check-params
	$(BIN)/python -m rlvr_lib.pipeline.dvc_stages --check
	$(BIN)/python -m rlvr_lib.pipeline.repro_dry --jobs $(JOBS) $(if $(PAPER),--paper $(PAPER))
else
	@# first: a bad params.yaml is named by its key path (and line) before anything runs (the check_params stage
	@# does it again under plain `dvc repro`)
	$(BIN)/python -m rlvr_lib check-params
	$(BIN)/python -m rlvr_lib.pipeline.dvc_stages
	$(BIN)/python -m rlvr_lib.pipeline.repro_lanes --jobs $(JOBS) $(if $(PAPER),--paper $(PAPER))
	$(BIN)/python -m rlvr_lib.pipeline.dvc_lock  # entries of stages no dvc.yaml defines any more (DVC keeps them) slow every dvc call
	@echo "$$(date +%T) make repro: done"
	@echo "Results: reports/README.md (figures in reports/figures/, tables in reports/tables/, executed notebooks in reports/notebooks/)"
endif

# the whole pipeline at smoke sizes (a handful of runs, 2 seeds, every paper stage) in lanes, in a scratch copy of
# the workspace (SMOKE_DIR, rebuilt each time): the workspace's reports/, params.yaml and dvc.lock stay as they are
# (SMOKE_ARGS: more options of python -m rlvr_lib.pipeline.smoke, e.g. "--seeds 0" for one seed)
SMOKE_DIR ?= $(or $(TMPDIR),/tmp)/rlvr-smoke
SMOKE_ARGS ?=
smoke: $(INSTALLED)
	$(BIN)/python -m rlvr_lib.pipeline.smoke --dir $(SMOKE_DIR) --jobs $(JOBS) $(SMOKE_ARGS)

# two pytest-xdist workers, whole modules as units in collection order (tests/conftest.py puts the end-to-end
# pipeline first): one runs it while the other runs every other module
TEST_WORKERS ?= 2
test: lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=40

test-fast: $(INSTALLED)  # everything but the tests that train or run the pipeline (-m slow)
	$(BIN)/python -m pytest -m "not slow"

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# JupyterLab on the repository root: the source notebooks (notebooks/), the executed ones (reports/notebooks/) and the
# rendered reports; LAB_ARGS adds flags (for a remote machine: make lab LAB_ARGS="--no-browser --ip 0.0.0.0 --port
# 8888"); --allow-root is added whenever it runs as root (e.g. in a container), whatever LAB_ARGS holds. LAB_CONFIG:
# opening, running and saving a notebook leaves the committed files as they are (a source notebook is saved without
# outputs: rlvr_lib/pipeline/lab.py), and no Jupyter news or update toast
USER_ID ?= $(shell id -u)
LAB_ARGS ?=
LAB_CONFIG := configs/jupyter/jupyter_lab_config.py
lab: $(INSTALLED)
	$(BIN)/jupyter lab --config=$(LAB_CONFIG) $(if $(filter 0,$(USER_ID)),--allow-root) $(LAB_ARGS)
