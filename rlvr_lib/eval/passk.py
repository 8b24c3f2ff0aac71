"""Unbiased pass@k (Chen et al. 2021), the usual k grid, and percentile-bootstrap intervals over problems."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """P(at least one of k draws without replacement from n samples, c of them correct, is correct).

    Equals 1 - C(n-c, k) / C(n, k), computed as the product 1 - prod_{i=n-c+1}^{n} (1 - k/i), which never
    forms large binomials. c=0 -> 0, and n-c < k (including c=n) -> 1.
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        _check_count(name, value)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k > n:
        raise ValueError(f"k={k} exceeds the number of samples n={n}")
    if c > n:
        raise ValueError(f"c={c} exceeds the number of samples n={n}")
    if c == 0:
        return 0.0
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def k_values(n: int) -> list[int]:
    """[1, 2, 4, ...] up to n, with n itself appended when it is not a power of two."""
    _check_count("n", n)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    ks = [2**i for i in range(int(n).bit_length())]
    return ks if ks[-1] == n else [*ks, n]


def bootstrap_ci(
    values_per_problem: Sequence[float],
    stat: Callable[..., np.ndarray] = np.mean,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile-bootstrap interval of ``stat`` over problems: resample problems with replacement.

    ``values_per_problem``: (P,) one value per problem. ``stat`` is a numpy reduction called as
    ``stat(samples, axis=1)`` on a (n_boot, P) array. Returns (low, high).
    """
    values = np.asarray(values_per_problem, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values_per_problem must be a non-empty 1-D sequence, got shape {values.shape}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    samples = values[rng.integers(0, values.size, size=(n_boot, values.size))]
    stats = stat(samples, axis=1)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(low), float(high)


def crossed_bootstrap_ci(
    values: np.ndarray, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of the grand mean of a seeds x problems table, resampling both (two-way bootstrap).

    ``values``: (S, P), one value per training seed and problem (the same problems in every row). Each replicate
    draws S seeds and P problems with replacement, independently, and averages the (S, P) sub-table, so the
    interval carries run-to-run variation as well as the choice of problems. With S = 1 it is the problem
    bootstrap of ``bootstrap_ci``. Returns (low, high).
    """
    table = np.asarray(values, dtype=float)
    if table.ndim != 2 or 0 in table.shape:
        raise ValueError(f"values must be a non-empty (seeds, problems) table, got shape {table.shape}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    n_seeds, n_problems = table.shape
    seeds = rng.integers(0, n_seeds, size=(n_boot, n_seeds))
    problems = rng.integers(0, n_problems, size=(n_boot, n_problems))
    means = table[seeds[:, :, None], problems[:, None, :]].mean(axis=(1, 2))
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)
