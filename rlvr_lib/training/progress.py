"""Progress bars, in one place: text bars inside DVC stages (papermill's log shows them), transformers'
notebook table replaced by a bar (under papermill its per-step HTML re-render made training quadratic), and none
at all in the notebooks whose executed copies are read as results (the paper and report notebooks)."""

from __future__ import annotations

import os
import warnings


def in_dvc_stage() -> bool:
    return bool(os.environ.get("DVC_STAGE"))


def silence_progress_bars() -> None:
    """No progress bar and no tqdm "IProgress not found" warning (ipywidgets is not a dependency) in this process:
    for the paper and report notebooks, whose executed copies in reports/notebooks/ are read as results. Call it
    before importing anything that imports tqdm (tqdm >= 4.66 reads ``TQDM_DISABLE`` when a bar is made)."""
    os.environ["TQDM_DISABLE"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    warnings.filterwarnings("ignore", message="IProgress not found")


def use_text_progress_bars() -> None:
    """Replace tqdm's notebook bars by text bars in the modules that draw the long-running ones."""
    import tqdm.std
    import transformers.trainer_callback

    from rlvr_lib.eval import sampling

    transformers.trainer_callback.tqdm = tqdm.std.tqdm
    sampling.tqdm = tqdm.std.tqdm


def sparse_progress_callback(log_every: int = 20, min_interval_s: float = 30.0):
    """A transformers ``ProgressCallback`` that redraws its bar at most every ``min_interval_s`` seconds and prints the
    metrics of every ``log_every``-th step and the last one. For DVC stages, whose executed notebooks are kept in
    reports/: a line per step made each train notebook about 300 KB (every step's metrics are in history.json)."""
    from transformers.trainer_callback import ProgressCallback
    from transformers.trainer_callback import tqdm as bar

    class SparseProgressCallback(ProgressCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            if state.is_world_process_zero:
                self.training_bar = bar(total=state.max_steps, dynamic_ncols=True, mininterval=min_interval_s)
            self.current_step = 0

        def on_log(self, args, state, control, logs=None, **kwargs):
            if state.global_step % log_every == 0 or state.global_step >= state.max_steps:
                super().on_log(args, state, control, logs=logs, **kwargs)

    return SparseProgressCallback()


def use_progress_bar(trainer) -> None:
    """Swap a trainer's notebook progress table (added in Jupyter kernels) for a tqdm bar + a log line per step, or,
    inside a DVC stage, for ``sparse_progress_callback``'s bar."""
    from transformers.trainer_callback import ProgressCallback

    try:
        from transformers.utils.notebook import NotebookProgressCallback
    except ImportError:  # no IPython (e.g. a bare GPU machine): no notebook table to replace
        return
    if trainer.pop_callback(NotebookProgressCallback) is not None:
        trainer.add_callback(sparse_progress_callback() if in_dvc_stage() else ProgressCallback)
