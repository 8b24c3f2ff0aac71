"""Evaluation: seeded sampling with per-token entropy, unbiased pass@k with bootstrap intervals, result files."""
from .evaluate import CSV_COLUMNS, evaluate_benchmark, write_results
from .passk import bootstrap_ci, k_values, pass_at_k
from .sampling import Completion, sample_completions

__all__ = [
    "CSV_COLUMNS", "Completion", "bootstrap_ci", "evaluate_benchmark", "k_values", "pass_at_k",
    "sample_completions", "write_results",
]
