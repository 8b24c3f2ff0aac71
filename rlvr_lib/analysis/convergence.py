"""TEPO table 4 and its claim "peak performance in only 72 optimization steps, while GRPO/DAPO require 132"
(tepo.txt sec. 1, L48; sec. 4.4, L366-368): the step at which a run's accuracy peaks, per training seed, and its
mean with an interval across seeds.

The peak step of one seed's curve is the first logged step at which the (optionally smoothed) value is largest.
Smoothing is explicit: ``ema_alpha`` None (the default) takes the raw logged values, a float smooths them first
with ``analysis.smoothing.ema`` (weight of the newest value). Steps where the quantity was not logged are skipped.
The interval is a percentile bootstrap over seeds (``eval.passk.bootstrap_ci``), as the project's result tables
resample seeds; with 3 seeds it has at most 10 distinct resamples and always lies within [min, max] of the seeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rlvr_lib.analysis.smoothing import ema
from rlvr_lib.eval.passk import bootstrap_ci


@dataclass(frozen=True)
class ConvergenceStep:
    """Peak step per seed (``steps``), the peak value per seed (``peaks``, smoothed if smoothing was asked), their
    mean over seeds (``mean``, ``mean_peak``) and the bootstrap interval of the mean step (``ci_low``, ``ci_high``)."""

    steps: dict[int, int]
    peaks: dict[int, float]
    mean: float
    ci_low: float
    ci_high: float
    mean_peak: float


def peak_step(steps, values, ema_alpha: float | None = None) -> tuple[int, float]:
    """(step, value) of the first maximum of one curve. steps, values: 1-D sequences of equal length (steps need
    not be sorted; they are sorted here); NaN values are skipped. ``ema_alpha``: smooth the logged values first."""
    frame = pd.DataFrame({"step": np.asarray(steps), "value": np.asarray(values, dtype=np.float64)})
    frame = frame.dropna().sort_values("step", kind="stable")
    if frame.empty:
        raise ValueError("no logged value to take a peak of")
    curve = frame["value"].to_numpy() if ema_alpha is None else ema(frame["value"].to_numpy(), ema_alpha)
    best = int(np.argmax(curve))  # argmax returns the first of equal maxima: the earliest step
    return int(frame["step"].iloc[best]), float(curve[best])


def convergence_step(
    history: pd.DataFrame,
    key: str = "accuracy",
    *,
    ema_alpha: float | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> ConvergenceStep:
    """Step of peak ``key`` per training seed of one run, and the mean step across seeds with its interval.

    history: one run's rows (columns ``step``, ``key`` and ``seed``; no ``seed`` column is one seed, 0), as
    ``rlvr_lib.render.tables.load_histories`` gives them filtered to one run. ``key``: the logged quantity (training
    ``accuracy`` by default; any column). ``ema_alpha``: None for raw values (default) or the EMA weight of the
    newest value. ``n_boot``, ``seed``, ``level``: the percentile bootstrap over seeds.
    """
    if key not in history.columns:
        raise KeyError(f"history has no column {key!r}")
    h = history if "seed" in history.columns else history.assign(seed=0)
    steps, peaks = {}, {}
    for run_seed, rows in h.groupby("seed", sort=True):
        steps[int(run_seed)], peaks[int(run_seed)] = peak_step(rows["step"], rows[key], ema_alpha)
    if not steps:
        raise ValueError("history has no rows")
    values = np.array(list(steps.values()), dtype=np.float64)
    low, high = bootstrap_ci(values, n_boot=n_boot, seed=seed, level=level)
    return ConvergenceStep(
        steps=steps,
        peaks=peaks,
        mean=float(values.mean()),
        ci_low=low,
        ci_high=high,
        mean_peak=float(np.mean(list(peaks.values()))) if peaks else math.nan,
    )
