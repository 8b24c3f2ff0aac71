"""Evaluation: seeded sampling with per-token entropy, unbiased pass@k with bootstrap intervals, result files, and
the papers' training-set filters by sampled pass rate (``data_filters``). Imports ``tasks`` and the layers below."""

from rlvr_lib.eval.evaluate import CSV_COLUMNS, combine_seeds, evaluate_benchmark, problem_values, write_results
from rlvr_lib.eval.passk import bootstrap_ci, crossed_bootstrap_ci, k_values, pass_at_k
from rlvr_lib.eval.sampling import Completion, sample_completions

__all__ = [
    "CSV_COLUMNS",
    "Completion",
    "bootstrap_ci",
    "combine_seeds",
    "crossed_bootstrap_ci",
    "evaluate_benchmark",
    "k_values",
    "pass_at_k",
    "problem_values",
    "sample_completions",
    "write_results",
]
