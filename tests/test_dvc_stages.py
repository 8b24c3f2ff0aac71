"""rlvr_lib.pipeline.dvc_stages: the per-run dvc.yaml files, pipelines/seeds.yaml, and a run's ``seeds`` key."""

from __future__ import annotations

import copy
import shutil

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import dvc_stages
from rlvr_lib.pipeline.dvc_lock import pipeline_stage_names
from rlvr_lib.settings.config import MAX_SEED, parse_params, read_yaml

RAW = read_yaml(REPO / "params.yaml")


def test_committed_generated_files_agree_with_params_yaml():
    assert dvc_stages.differences(REPO) == []


def repo_copy(tmp_path, raw: dict):
    """A folder with params.yaml ``raw``, the committed dvc.yaml and the generated files of ``raw``."""
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    shutil.copy(REPO / "dvc.yaml", tmp_path / "dvc.yaml")
    dvc_stages.write(tmp_path)
    return tmp_path


def test_a_run_gets_its_own_seeds_and_its_seeds_training_set(tmp_path):
    raw = copy.deepcopy(RAW)
    raw["methods"]["tepo_tepo_data"]["seeds"] = [0, 1, 2, 3, 4]
    root = repo_copy(tmp_path, raw)
    stages = yaml.safe_load((root / "pipelines/tepo_tepo_data/dvc.yaml").read_text())["stages"]
    assert stages["train"]["foreach"] == stages["eval"]["foreach"] == [0, 1, 2, 3, 4]
    train = stages["train"]["do"]
    assert train["wdir"] == "../.."
    assert "data/filtered/seed${item}" in train["deps"] and "data/generated" not in train["deps"]
    assert "models/base/seed${item}" in train["deps"]
    assert "-p run tepo_tepo_data -p seed ${item}" in train["cmd"]
    assert "methods.tepo_tepo_data" in train["params"]
    dapo = yaml.safe_load((root / "pipelines/dapo/dvc.yaml").read_text())["stages"]  # no seeds of its own
    assert dapo["train"]["foreach"] == raw["seeds"] and "data/generated" in dapo["train"]["do"]["deps"]
    assert yaml.safe_load((root / "pipelines/seeds.yaml").read_text())["base_seeds"] == [0, 1, 2, 3, 4]
    assert pipeline_stage_names(root / "pipelines/tepo_tepo_data/dvc.yaml") == {
        f"{stage}@{seed}" for stage in ("train", "eval") for seed in range(5)
    }


def test_a_removed_run_loses_its_folder_and_check_names_what_is_stale(tmp_path):
    raw = copy.deepcopy(RAW)
    raw["methods"]["grpo_extra"] = {"method": "grpo"}
    root = repo_copy(tmp_path, raw)
    (root / "pipelines/grpo_extra/dvc.lock").write_text("schema: '2.0'\nstages: {}\n")
    (root / "pipelines/notes").mkdir()
    (root / "pipelines/notes/dvc.yaml").write_text("stages: {}\n")  # not generated: left alone
    del raw["methods"]["grpo_extra"]
    raw["papers"]["erpo"]["runs"]["ablations"] = raw["papers"]["erpo"]["runs"]["ablations"][:1]
    raw["methods"]["dapo"]["seeds"] = [7]
    (root / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    stale = dvc_stages.differences(root)
    assert "pipelines/grpo_extra/ belongs to a run params.yaml no longer has" in stale
    assert "pipelines/dapo/dvc.yaml differs from what params.yaml generates" in stale
    assert "pipelines/seeds.yaml differs from what params.yaml generates" in stale
    assert any(line.startswith("dvc.yaml: paper_erpo.deps") for line in stale)
    assert dvc_stages.main(["--root", str(root), "--check"]) == 1
    assert dvc_stages.main(["--root", str(root)]) == 0
    assert not (root / "pipelines/grpo_extra").exists() and (root / "pipelines/notes/dvc.yaml").exists()
    assert dvc_stages.differences(root) == []
    assert yaml.safe_load((root / "pipelines/seeds.yaml").read_text())["base_seeds"] == [0, 1, 2, 3, 4, 7]


def test_run_seeds_default_to_the_top_level_seeds():
    raw = copy.deepcopy(RAW)
    raw["methods"]["aer"] = {"seeds": [3, 0, 9]}
    params = parse_params(raw)
    assert params.runs["aer"].seeds == [3, 0, 9] and params.runs["dapo"].seeds == RAW["seeds"]
    others = {s for name, spec in params.runs.items() if name != "aer" for s in spec.seeds}
    assert params.all_seeds == sorted(others | {3, 9})
    assert params.train_config("aer", 9).seed == 9
    with pytest.raises(ValueError, match=r"seed 1 is not one of the seeds \[3, 0, 9\] of run 'aer'"):
        params.train_config("aer", 1)
    assert "seeds" not in params.runs["aer"].hparams


@pytest.mark.parametrize(
    ("seeds", "path"),
    [
        ([], "methods.aer.seeds"),
        ([0, 0], "methods.aer.seeds"),
        ([0, "1"], "methods.aer.seeds"),
        ([0, True], "methods.aer.seeds"),
        ([-1], "methods.aer.seeds"),
        ([MAX_SEED + 1], "methods.aer.seeds"),
        (3, "methods.aer.seeds"),
    ],
)
def test_bad_run_seeds_name_the_key(seeds, path):
    raw = copy.deepcopy(RAW)
    raw["methods"]["aer"] = {"seeds": seeds}
    message = rf"^{path} must be a non-empty list of distinct integers in \[0, {MAX_SEED}\]"
    with pytest.raises(ValueError, match=message):
        parse_params(raw)


def test_bad_top_level_seeds_name_the_key():
    raw = copy.deepcopy(RAW)
    raw["seeds"] = [1, 1]
    with pytest.raises(ValueError, match=r"^seeds must be a non-empty list of distinct integers"):
        parse_params(raw)
