"""Shared fixtures. Test modules never import each other: what several need lives here."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))  # tests/tiny.py: the tiny character-level model for trainer tests


# ----------------------------------------------------------------------------- pipeline workspaces
SMOKE_PARAMS = {
    "profile": "default",
    "seed": 0,
    "data": {"source": "testbed", "testbed": {"n_train": 32, "n_eval": 4}},
    "model": {"testbed": {"n_train": 64, "sft_steps": 200, "hidden_size": 64, "num_layers": 1}},
    "train": {"max_steps": 4, "prompts_per_step": 2, "num_generations": 4, "max_completion_length": 48,
              "learning_rate": 1e-3, "format_weight": 0.5, "save_steps": 2},
    "methods": {"grpo": {}},
    "eval": {"n": 2, "max_new_tokens": 48, "n_boot": 20},
}


@pytest.fixture(scope="session")
def built_workspace(tmp_path_factory) -> Path:
    """A folder with params.yaml, the data stage's files and a small SFT base policy whose rewards vary (about a
    minute to build, once per session). Copy it (``workspace``) before changing anything in it."""
    from rlvr_lib import pipeline

    root = tmp_path_factory.mktemp("workspace") / "repo"
    root.mkdir()
    (root / "params.yaml").write_text(yaml.safe_dump(SMOKE_PARAMS, sort_keys=False))
    cwd = os.getcwd()
    try:
        os.chdir(root)
        params = pipeline.load_params()
        pipeline.stage_data(params)
        pipeline.stage_base_model(params)
    finally:
        os.chdir(cwd)
    return root


@pytest.fixture
def workspace(built_workspace, tmp_path, monkeypatch) -> Path:
    """A private copy of ``built_workspace``, made the working directory."""
    root = tmp_path / "repo"
    shutil.copytree(built_workspace, root)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def set_params(workspace):
    """``set_params(**sections)``: overlay sections on the workspace's params (None removes one), write the file."""

    def write(**sections) -> Path:
        params = {k: v for k, v in {**SMOKE_PARAMS, **sections}.items() if v is not None}
        (workspace / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        return workspace / "params.yaml"

    return write
