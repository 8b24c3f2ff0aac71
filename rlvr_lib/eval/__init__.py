"""Evaluation: seeded sampling with per-token entropy, unbiased pass@k with bootstrap intervals, result files, and
the papers' training-set filters by sampled pass rate (``data_filters``). Imports ``tasks`` and the layers below.

``passk`` needs only numpy; the names of ``evaluate`` and ``sampling`` (torch, transformers) are imported on first
use, so that a reader of result files (the paper and report stages) starts without the model stack."""

from rlvr_lib.eval.passk import bootstrap_ci, crossed_bootstrap_ci, k_values, pass_at_k

_LAZY = {
    "CSV_COLUMNS": "evaluate",
    "combine_seeds": "evaluate",
    "evaluate_benchmark": "evaluate",
    "problem_values": "evaluate",
    "write_results": "evaluate",
    "Completion": "sampling",
    "sample_completions": "sampling",
}

__all__ = ["bootstrap_ci", "crossed_bootstrap_ci", "k_values", "pass_at_k", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"rlvr_lib.eval.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'rlvr_lib.eval' has no attribute {name!r}")
