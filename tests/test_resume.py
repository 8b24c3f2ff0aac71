"""An interrupted train stage, run again, resumes from its last checkpoint and ends exactly where the
uninterrupted run ends; until it finishes, the previous outputs stay as they were."""

from __future__ import annotations

import json

import pytest
import torch
import yaml
from conftest import REPO
from safetensors.torch import load_file
from transformers import TrainerCallback

from rlvr_lib.files import checkpoints
from rlvr_lib.pipeline import stages
from rlvr_lib.training import train
from rlvr_lib.training.trainer import RLVRTrainer
from rlvr_lib.workspace import layout

pytestmark = pytest.mark.slow

COMMITTED_TRAIN = yaml.safe_load((REPO / "params.yaml").read_text())["train"]  # the repository's own settings


class Interrupt(TrainerCallback):
    """Stops training like Ctrl-C after optimizer step ``at``."""

    def __init__(self, at: int):
        self.at = at

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == self.at:
            raise KeyboardInterrupt


def interrupt_training(monkeypatch, at: int):
    """Make the next train stages stop like Ctrl-C after optimizer step ``at``; returns the unpatched builder."""
    build = train.build_trainer

    def interrupted_build(*args, **kwargs):
        trainer = build(*args, **kwargs)
        trainer.add_callback(Interrupt(at))
        return trainer

    monkeypatch.setattr(train, "build_trainer", interrupted_build)
    return build


def weights(run: str) -> dict[str, torch.Tensor]:
    return load_file(layout.RUNS_DIR / run / "seed0" / "final" / "model.safetensors")


def without_timing(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "step_time" and not k.startswith("timing/")} for row in history]


def train_uninterrupted(set_params, micro_batches: int, save_steps: int):
    """Params with runs 'grpo' and 'grpo_again' (same settings, the committed ``reference_kl_every``) and the
    history of 'grpo' trained without interruption."""
    train_section = {
        **{k: v for k, v in layout.load_params().train.__dict__.items() if k != "seed"},  # seeds: top level
        "steps_per_generation": micro_batches,
        "save_steps": save_steps,
        "reference_kl_every": COMMITTED_TRAIN["reference_kl_every"],
    }
    set_params(train=train_section, methods={"grpo": {}, "grpo_again": {"method": "grpo"}})
    params = layout.load_params()
    uninterrupted = stages.stage_train(params, "grpo")
    base = load_file(layout.base_model_dir(0) / "model.safetensors")
    assert any(not torch.equal(base[k], v) for k, v in weights("grpo").items()), "training did not change the model"
    assert any(row.get("reward_std", 0) > 0 for row in uninterrupted), "rewards never varied: no real update"
    kl_rows = [row["step"] for row in uninterrupted if "kl_to_reference" in row]
    assert 0 < len(kl_rows) < len(uninterrupted), f"reference_kl_every skips no rollout batch: {kl_rows}"
    return uninterrupted, params


def assert_same_run(resumed: list[dict], uninterrupted: list[dict]) -> None:
    assert without_timing(resumed) == without_timing(uninterrupted)
    a, b = weights("grpo"), weights("grpo_again")
    assert all(torch.equal(a[k], b[k]) for k in a), "resumed weights differ from the uninterrupted run's"


@pytest.mark.parametrize(
    "micro_batches, save_steps, stop_at, resume_from",
    [
        (1, 2, 3, 2),  # one update per rollout batch: the checkpoint is at a batch boundary
        (2, 1, 2, 1),  # two updates per rollout batch: the checkpoint is inside one, its rest comes from the buffer
    ],
    ids=["batch-boundary", "inside-a-batch"],
)
def test_interrupted_run_resumes_exactly(
    workspace, set_params, monkeypatch, micro_batches, save_steps, stop_at, resume_from
):
    uninterrupted, params = train_uninterrupted(set_params, micro_batches, save_steps)

    build = interrupt_training(monkeypatch, at=stop_at)
    with pytest.raises(KeyboardInterrupt):
        stages.stage_train(params, "grpo_again")
    partial = layout.PARTIAL_RUNS_DIR / "grpo_again" / "seed0"
    assert (partial / f"checkpoint-{resume_from}" / "method_state.json").exists()
    assert not (partial / f"checkpoint-{stop_at}").exists()
    assert not (layout.RUNS_DIR / "grpo_again").exists()
    assert not (layout.TRAINING_LOGS_DIR / "grpo_again").exists()

    monkeypatch.setattr(train, "build_trainer", build)
    resumed = stages.stage_train(params, "grpo_again")
    assert_same_run(resumed, uninterrupted)
    assert [row["step"] for row in resumed] == [1, 2, 3, 4]
    assert not partial.exists()
    logged = json.loads((layout.TRAINING_LOGS_DIR / "grpo_again" / "seed0" / "metrics.json").read_text())
    assert logged["step"] == 4
    steps = (layout.TRAINING_LOGS_DIR / "grpo_again" / "seed0" / "plots" / "metrics" / "reward.tsv").read_text().split()
    logged_steps = [row["step"] for row in uninterrupted if "reward" in row]  # rollout steps only
    assert steps[0:2] == ["step", "reward"] and [int(s) for s in steps[2::2]] == logged_steps


def test_interrupted_run_leaves_previous_outputs(workspace, set_params, monkeypatch):
    params = layout.load_params()
    stages.stage_train(params, "grpo")
    before = {p: p.read_bytes() for p in (layout.RUNS_DIR / "grpo").rglob("*") if p.is_file()}
    logs = {p: p.read_bytes() for p in (layout.TRAINING_LOGS_DIR / "grpo").rglob("*") if p.is_file()}

    train = {k: v for k, v in vars(layout.load_params().train).items() if k != "seed"}  # seeds: top-level only
    set_params(train={**train, "learning_rate": 2e-3})
    interrupt_training(monkeypatch, at=1)
    with pytest.raises(KeyboardInterrupt):
        stages.stage_train(layout.load_params(), "grpo")
    assert {p: p.read_bytes() for p in (layout.RUNS_DIR / "grpo").rglob("*") if p.is_file()} == before
    assert {p: p.read_bytes() for p in (layout.TRAINING_LOGS_DIR / "grpo").rglob("*") if p.is_file()} == logs


def test_changed_settings_start_afresh(workspace, set_params, monkeypatch):
    seen = []
    build = interrupt_training(monkeypatch, at=3)
    with pytest.raises(KeyboardInterrupt):
        stages.stage_train(layout.load_params(), "grpo")
    set_params(methods={"grpo": {"eps_high": 0.3}})
    monkeypatch.setattr(train, "build_trainer", build)
    original = train.last_complete_checkpoint
    monkeypatch.setattr(
        train, "last_complete_checkpoint", lambda folder, **kw: seen.append(original(folder, **kw)) or seen[-1]
    )
    stages.stage_train(layout.load_params(), "grpo")
    assert seen == [None]  # the checkpoint of other settings was discarded, not resumed


def test_kill_and_full_disk_during_a_checkpoint_save_leave_the_previous_one(workspace, set_params, monkeypatch, capsys):
    """Killed while the checkpoint of step 4 is written (transformers' files are on disk, the method state is not):
    no checkpoint-4 appears. The rerun resumes from checkpoint-2 and meets a full disk in the same save: torch's
    write error is reported as a full disk naming the folder. Once there is space, the third run ends as the
    uninterrupted run."""
    uninterrupted, params = train_uninterrupted(set_params, micro_batches=1, save_steps=2)
    partial = layout.PARTIAL_RUNS_DIR / "grpo_again" / "seed0"
    save_method_state, save, free_bytes = RLVRTrainer.save_method_state, torch.save, checkpoints.free_bytes

    def killed_mid_save(self, folder):
        if self.state.global_step == 4 and checkpoints.SAVING_DIR in str(folder):
            raise KeyboardInterrupt  # as a kill would stop it
        save_method_state(self, folder)

    monkeypatch.setattr(RLVRTrainer, "save_method_state", killed_mid_save)
    with pytest.raises(KeyboardInterrupt):
        stages.stage_train(params, "grpo_again")
    assert sorted(p.name for p in partial.glob("checkpoint-*")) == ["checkpoint-2"]
    assert (partial / checkpoints.SAVING_DIR / "checkpoint-4" / "model.safetensors").exists()  # the cut-short save
    monkeypatch.setattr(RLVRTrainer, "save_method_state", save_method_state)

    def full_disk_save(obj, f, *args, **kwargs):
        if "checkpoint-4" in str(f):
            monkeypatch.setattr(checkpoints, "free_bytes", lambda folder: 4096)  # the device is full from now on
            return save(obj, "/dev/full", *args, **kwargs)  # torch's "inline_container.cc ... unexpected pos"
        return save(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", full_disk_save)
    capsys.readouterr()
    with pytest.raises(OSError) as err:
        stages.stage_train(params, "grpo_again")
    assert f"resuming from {partial / 'checkpoint-2'}" in capsys.readouterr().out
    assert f"No space left on device while writing checkpoint checkpoint-4 to {partial}" in str(err.value)
    assert sorted(p.name for p in partial.glob("checkpoint-*")) == ["checkpoint-2"]
    assert not (layout.RUNS_DIR / "grpo_again").exists()
    monkeypatch.setattr(torch, "save", save)
    monkeypatch.setattr(checkpoints, "free_bytes", free_bytes)

    assert_same_run(stages.stage_train(params, "grpo_again"), uninterrupted)
    assert f"resuming from {partial / 'checkpoint-2'}" in capsys.readouterr().out
