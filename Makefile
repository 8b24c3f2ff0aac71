# Two commands set everything up: `make repro` (results) and `make test` (test suite).
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

.PHONY: install repro test lab clean-reports

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

repro: $(STAMP)
	$(BIN)/dvc repro
	@echo "Results: reports/README.md (figures in reports/figures/, tables in reports/tables/, executed notebooks in reports/notebooks/)"

test: $(STAMP)
	$(BIN)/python -m pytest

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/
