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


def _build_workspace(root: Path, sft: bool) -> Path:
    from rlvr_lib import pipeline
    from tiny import save_tiny

    root.mkdir(parents=True)
    (root / "params.yaml").write_text(yaml.safe_dump(SMOKE_PARAMS, sort_keys=False))
    cwd = os.getcwd()
    try:
        os.chdir(root)
        params = pipeline.load_params()
        pipeline.stage_data(params)
        if sft:
            pipeline.stage_base_model(params)
        else:
            save_tiny(root / pipeline.BASE_MODEL_DIR)
    finally:
        os.chdir(cwd)
    return root


@pytest.fixture(scope="session")
def trained_workspace_template(tmp_path_factory) -> Path:
    """params.yaml, the data stage's files and a small SFT base policy whose rewards vary (about a minute to
    build, once per session)."""
    return _build_workspace(tmp_path_factory.mktemp("sft_workspace") / "repo", sft=True)


@pytest.fixture(scope="session")
def light_workspace_template(tmp_path_factory) -> Path:
    """params.yaml, the data stage's files and the tiny random model as models/base (seconds to build)."""
    return _build_workspace(tmp_path_factory.mktemp("light_workspace") / "repo", sft=False)


def _private_copy(template: Path, tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(template, root)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def workspace(trained_workspace_template, tmp_path, monkeypatch) -> Path:
    """A private copy of the SFT workspace, made the working directory: for tests that train."""
    return _private_copy(trained_workspace_template, tmp_path, monkeypatch)


@pytest.fixture
def light_workspace(light_workspace_template, tmp_path, monkeypatch) -> Path:
    """A private copy of the light workspace, made the working directory: for tests that fail before training."""
    return _private_copy(light_workspace_template, tmp_path, monkeypatch)


@pytest.fixture
def set_params():
    """``set_params(**sections)``: overlay sections on the test params (None removes one), write ./params.yaml."""

    def write(**sections) -> Path:
        params = {k: v for k, v in {**SMOKE_PARAMS, **sections}.items() if v is not None}
        Path("params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        return Path("params.yaml")

    return write
