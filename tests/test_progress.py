"""Progress output of training: inside DVC stages a sparse bar and every 20th step's metrics, elsewhere every step."""

from __future__ import annotations

from transformers import TrainerControl, TrainerState

from rlvr_lib.training.progress import sparse_progress_callback


def run_steps(callback, steps: int) -> None:
    state = TrainerState(max_steps=steps, is_world_process_zero=True)
    control = TrainerControl()
    callback.on_train_begin(None, state, control)
    for step in range(1, steps + 1):
        state.global_step = step
        callback.on_step_end(None, state, control)
        callback.on_log(None, state, control, logs={"loss": 0.5, "step_marker": f"at-{step}"})
    callback.on_train_end(None, state, control)


def test_sparse_callback_prints_every_log_every_th_step_and_the_last(capsys):
    run_steps(sparse_progress_callback(log_every=20, min_interval_s=30.0), steps=45)
    printed = [line for line in capsys.readouterr().out.splitlines() if "step_marker" in line]
    assert [line.split("at-")[1].rstrip("'}") for line in printed] == ["20", "40", "45"]


def test_sparse_callback_redraws_its_bar_at_most_every_min_interval():
    callback = sparse_progress_callback(min_interval_s=30.0)
    callback.on_train_begin(None, TrainerState(max_steps=10, is_world_process_zero=True), TrainerControl())
    assert callback.training_bar.mininterval == 30.0 and callback.training_bar.total == 10
    callback.training_bar.close()
