"""Progress bars, in one place: text bars inside DVC stages (papermill's log shows them), and transformers'
notebook table replaced by a bar (under papermill its per-step HTML re-render made training quadratic)."""

from __future__ import annotations

import os


def in_dvc_stage() -> bool:
    return bool(os.environ.get("DVC_STAGE"))


def use_text_progress_bars() -> None:
    """Replace tqdm's notebook bars by text bars in the modules that draw the long-running ones."""
    import tqdm.std
    import transformers.trainer_callback

    from .eval import sampling

    transformers.trainer_callback.tqdm = tqdm.std.tqdm
    sampling.tqdm = tqdm.std.tqdm


def use_progress_bar(trainer) -> None:
    """Swap a trainer's notebook progress table (added in Jupyter kernels) for a tqdm bar + a log line per step."""
    from transformers.trainer_callback import ProgressCallback

    try:
        from transformers.utils.notebook import NotebookProgressCallback
    except ImportError:  # no IPython (e.g. a bare GPU machine): no notebook table to replace
        return
    if trainer.pop_callback(NotebookProgressCallback) is not None:
        trainer.add_callback(ProgressCallback)
