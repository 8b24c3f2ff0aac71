"""An interrupted train stage, run again, resumes from its last checkpoint and ends exactly where the
uninterrupted run ends; until it finishes, the previous outputs stay as they were."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file
from transformers import TrainerCallback

from rlvr_lib import pipeline, train

pytestmark = pytest.mark.slow


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
    return load_file(pipeline.RUNS_DIR / run / "seed0" / "final" / "model.safetensors")


def without_timing(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "step_time"} for row in history]


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
    train_section = {
        **pipeline.load_params().train.__dict__,
        "steps_per_generation": micro_batches,
        "save_steps": save_steps,
    }
    set_params(train=train_section, methods={"grpo": {}, "grpo_again": {"method": "grpo"}})
    params = pipeline.load_params()
    uninterrupted = pipeline.stage_train(params, "grpo")
    base = load_file(pipeline.base_model_dir(0) / "model.safetensors")
    assert any(not torch.equal(base[k], v) for k, v in weights("grpo").items()), "training did not change the model"
    assert any(row.get("reward_std", 0) > 0 for row in uninterrupted), "rewards never varied: no real update"

    build = interrupt_training(monkeypatch, at=stop_at)
    with pytest.raises(KeyboardInterrupt):
        pipeline.stage_train(params, "grpo_again")
    partial = pipeline.PARTIAL_RUNS_DIR / "grpo_again" / "seed0"
    assert (partial / f"checkpoint-{resume_from}" / "method_state.json").exists()
    assert not (partial / f"checkpoint-{stop_at}").exists()
    assert not (pipeline.RUNS_DIR / "grpo_again").exists()
    assert not (pipeline.TRAINING_LOGS_DIR / "grpo_again").exists()

    monkeypatch.setattr(train, "build_trainer", build)
    resumed = pipeline.stage_train(params, "grpo_again")
    assert without_timing(resumed) == without_timing(uninterrupted)
    assert [row["step"] for row in resumed] == [1, 2, 3, 4]
    a, b = weights("grpo"), weights("grpo_again")
    assert all(torch.equal(a[k], b[k]) for k in a), "resumed weights differ from the uninterrupted run's"
    assert not partial.exists()
    logged = json.loads((pipeline.TRAINING_LOGS_DIR / "grpo_again" / "seed0" / "metrics.json").read_text())
    assert logged["step"] == 4
    steps = (
        (pipeline.TRAINING_LOGS_DIR / "grpo_again" / "seed0" / "plots" / "metrics" / "reward.tsv").read_text().split()
    )
    logged_steps = [row["step"] for row in uninterrupted if "reward" in row]  # rollout steps only
    assert steps[0:2] == ["step", "reward"] and [int(s) for s in steps[2::2]] == logged_steps


def test_interrupted_run_leaves_previous_outputs(workspace, set_params, monkeypatch):
    params = pipeline.load_params()
    pipeline.stage_train(params, "grpo")
    before = {p: p.read_bytes() for p in (pipeline.RUNS_DIR / "grpo").rglob("*") if p.is_file()}
    logs = {p: p.read_bytes() for p in (pipeline.TRAINING_LOGS_DIR / "grpo").rglob("*") if p.is_file()}

    set_params(train={**pipeline.load_params().train.__dict__, "learning_rate": 2e-3})
    interrupt_training(monkeypatch, at=1)
    with pytest.raises(KeyboardInterrupt):
        pipeline.stage_train(pipeline.load_params(), "grpo")
    assert {p: p.read_bytes() for p in (pipeline.RUNS_DIR / "grpo").rglob("*") if p.is_file()} == before
    assert {p: p.read_bytes() for p in (pipeline.TRAINING_LOGS_DIR / "grpo").rglob("*") if p.is_file()} == logs


def test_changed_settings_start_afresh(workspace, set_params, monkeypatch):
    seen = []
    build = interrupt_training(monkeypatch, at=3)
    with pytest.raises(KeyboardInterrupt):
        pipeline.stage_train(pipeline.load_params(), "grpo")
    set_params(methods={"grpo": {"eps_high": 0.3}})
    monkeypatch.setattr(train, "build_trainer", build)
    original = train.get_last_checkpoint
    monkeypatch.setattr(train, "get_last_checkpoint", lambda folder: seen.append(original(folder)) or seen[-1])
    pipeline.stage_train(pipeline.load_params(), "grpo")
    assert seen == [None]  # the checkpoint of other settings was discarded, not resumed
