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

# `make repro` runs the runs' train and eval stages in JOBS parallel `dvc repro -s` processes, one per (run, seed)
# pair (train then eval in one call), each with an equal share of the cores (DVC releases its repository lock while
# a stage's command runs; -s skips the upstream checks, done once just before), then a final `dvc repro` (the
# report, and anything still missing).
# JOBS=1 runs the whole pipeline in one `dvc repro`.
JOBS ?= 2
NPROC := $(shell nproc 2>/dev/null || echo 1)
THREADS := $(shell echo $$(( $(NPROC) / $(JOBS) > 0 ? $(NPROC) / $(JOBS) : 1 )))

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
ifneq ($(JOBS),1)
	@echo "$$(date +%T) make repro: base model, its evaluation and the filtered training sets"
	$(BIN)/dvc repro base_model eval_base filter_data
	@echo "$$(date +%T) make repro: the runs' train and eval stages, $(JOBS) at a time"
	$(BIN)/dvc stage list --name-only | sed -n 's/^train@//p' | OMP_NUM_THREADS=$(THREADS) xargs -P $(JOBS) -I{} \
		sh -c '$(BIN)/dvc --wait-for-lock repro -s train@{} eval@{} && echo "$$(date +%T) run {} done"'
endif
	@echo "$$(date +%T) make repro: the rest of the pipeline (properties, report, paper stages)"
	$(BIN)/dvc repro
	$(BIN)/python -m rlvr_lib.dvc_lock  # entries of stages dvc.yaml no longer defines (DVC keeps them) slow every dvc call
	@echo "$$(date +%T) make repro: done"
	@echo "Results: reports/README.md (figures in reports/figures/, tables in reports/tables/, executed notebooks in reports/notebooks/)"

test: lint
	$(BIN)/python -m pytest --durations=15

test-fast: $(STAMP)  # everything but the tests that train or run the pipeline (-m slow)
	$(BIN)/python -m pytest -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/
