"""rlvr_lib.pipeline.dvc_lock: stale dvc.lock entries are cut whole, every other byte is kept."""

from __future__ import annotations

import pytest
import yaml

from rlvr_lib.pipeline.dvc_lock import main, prune

LOCK = """schema: '2.0'
stages:
  train@grpo-0:
    cmd: mkdir -p reports/notebooks && papermill notebooks/train.ipynb
      reports/notebooks/train_grpo_seed0.ipynb
    deps:
    - path: rlvr_lib/training/train.py
      md5: 1
  train@old_run-0:
    cmd: papermill x
    outs:
    - path: runs/old_run/seed0/final
      md5: 2.dir
  'eval@old_run-0':
    cmd: papermill y
  report:
    cmd: papermill z
"""


def test_prune_cuts_whole_stale_entries_and_keeps_the_rest_byte_for_byte():
    pruned, dropped = prune(LOCK, {"train@grpo-0", "report", "eval@grpo-0"})
    assert dropped == ["train@old_run-0", "eval@old_run-0"]
    assert "old_run" not in pruned
    assert pruned == LOCK.replace(LOCK[LOCK.index("  train@old_run-0:") : LOCK.index("  report:")], "")
    assert list(yaml.safe_load(pruned)["stages"]) == ["train@grpo-0", "report"]


def test_prune_without_stale_entries_returns_the_text_unchanged():
    names = set(yaml.safe_load(LOCK)["stages"])
    assert prune(LOCK, names) == (LOCK, [])


def test_prune_names_the_file_when_it_is_not_a_lock():
    with pytest.raises(ValueError, match="params.yaml: no top-level 'stages:' mapping"):
        prune("seeds: [0, 1]\n", set(), "params.yaml")


def test_main_refuses_a_missing_lock_file(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--lock", str(tmp_path / "dvc.lock")])
    assert f"{tmp_path / 'dvc.lock'}: no such lock file" in capsys.readouterr().err
