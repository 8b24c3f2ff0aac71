"""One definition per concept: the windows, scales and health notions every paper's claims use.

A training history has one row per optimizer step. Rollout quantities (``entropy/mean``, ``reward``, ...) are logged
once per rollout batch (the other rows of the batch are empty), and some method keys (``aer/entropy``) repeat the
rollout's value on every update; ``rollouts`` reduces either to one value per rollout batch, so every window below
counts rollout batches, whatever the run's updates per rollout batch.

- ``end``: the last ``TAIL_ROLLOUTS`` rollout batches (labelled "the last 5 rollout batches" everywhere);
- ``early`` / ``share``: the first share of training (a paper's "first N steps" is N over its own training length,
  ``paper_share``), never a literal step count of another budget;
- entropy is compared as the log of a ratio (``log_entropy_retained``), so x2 and x1/2 are equally far from 1;
- ``stable``: |log ratio| <= log 2 (two-sided: an explosion is as unstable as a collapse);
- ``peak_entropy_ratio``: the largest rollout entropy over the first (a run that explodes and comes back exploded).

``MEASURES`` registers each measure once with what fixes it: its range (``bounds``: saturation), a discrete scale
(``discrete``: zero-width intervals refused), what the task fixes (``fixed_by``) and what the testbed was calibrated
to produce (``calibrated``). ``rlvr_lib.papers.framework.base`` reads the metadata of the measures a claim uses, so no
paper decides these alone (tests/test_papers_framework.py fails a paper module that computes a window itself).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rlvr_lib.papers.framework.claims import NotTestable

ACCURACY = "accuracy"  # mean@n: the mean accuracy over the n samples (= unbiased pass@1)

TAIL_ROLLOUTS = 5  # the end of a run: its last 5 rollout batches
TAIL_LABEL = f"the last {TAIL_ROLLOUTS} rollout batches"
EARLY_SHARE = 0.2  # "early" in training: its first 20% (a paper's own "first N steps" maps by paper_share)
ENTROPY_FACTOR = 2.0  # "stable" / "maintained": within x2 of the start; past it (peak), a run has diverged
LOG_FACTOR = math.log(ENTROPY_FACTOR)
LEARNED_SHARE = 0.25  # "learned": at least a quarter of GRPO's gain over base on the same seed
RETAINED_FLOOR = 1e-6  # a fully collapsed run's 0 counts as this on the log scale (log -13.8), not -inf
UPDATES_ATTR = "updates_per_rollout"  # set on each seed's history by RunResults.seed_histories


# ----------------------------------------------------------------------------- windows
def column(history: pd.DataFrame, key: str) -> pd.Series:
    """One seed's ``key`` by step (empty rows dropped); NotTestable when the run never logged it."""
    if key not in history.columns or history[key].isna().all():
        raise NotTestable(f"the training history has no '{key}'")
    return history.set_index("step")[key].dropna()


def rollouts(history: pd.DataFrame, key: str) -> pd.Series:
    """``key`` once per rollout batch (the value of the batch's first logged row), indexed by the batch's first
    optimizer step. Uses the history's ``updates_per_rollout`` attribute (1 when unset)."""
    series = column(history, key)
    updates = int(history.attrs.get(UPDATES_ATTR) or 1)
    batch = (series.index.to_numpy() - 1) // updates
    return series.groupby(batch).head(1)


def window(history: pd.DataFrame, key: str, name: str = "end") -> pd.Series:
    """``key``'s per-rollout values in window ``name``: ``end`` (the last ``TAIL_ROLLOUTS`` batches), ``early``
    (the first ``EARLY_SHARE`` of the batches), ``whole``."""
    series = rollouts(history, key)
    if name == "end":
        return series.tail(TAIL_ROLLOUTS)
    if name == "early":
        return series.iloc[: max(1, math.ceil(EARLY_SHARE * len(series)))]
    if name == "whole":
        return series
    raise ValueError(f"unknown window '{name}'; windows: end, early, whole")


def share(history: pd.DataFrame, key: str, start: float, stop: float) -> pd.Series:
    """``key``'s per-rollout values over the share [start, stop) of training (rounded outward to whole batches)."""
    series = rollouts(history, key)
    n = len(series)
    return series.iloc[math.floor(start * n) : max(math.floor(start * n) + 1, math.ceil(stop * n))]


def paper_share(paper_steps: float, paper_total: float) -> float:
    """A paper's "first ``paper_steps`` steps" as a share of its own training of ``paper_total`` steps."""
    if not 0 < paper_steps <= paper_total:
        raise ValueError(f"paper steps {paper_steps} must lie in (0, {paper_total}]")
    return paper_steps / paper_total


def step_at_share(max_steps: int, fraction: float) -> int:
    """The optimizer step of a run of ``max_steps`` at ``fraction`` of its training (at least 1)."""
    return max(1, round(fraction * max_steps))


def end_mean(history: pd.DataFrame, key: str) -> float:
    """Mean of ``key`` over the last ``TAIL_ROLLOUTS`` rollout batches."""
    return float(window(history, key, "end").mean())


def whole_mean(history: pd.DataFrame, key: str) -> float:
    return float(rollouts(history, key).mean())


# ----------------------------------------------------------------------------- entropy
def entropy_retained(history: pd.DataFrame) -> float:
    """Rollout entropy over the last ``TAIL_ROLLOUTS`` batches / its value at the first batch (shown, not tested:
    differences of ratios are tested on the log scale)."""
    series = rollouts(history, "entropy/mean")
    return float(series.tail(TAIL_ROLLOUTS).mean() / series.iloc[0])


def log_entropy_retained(history: pd.DataFrame) -> float:
    """log of ``entropy_retained``, floored at ``RETAINED_FLOOR``: the scale on which entropy is compared."""
    return float(np.log(max(entropy_retained(history), RETAINED_FLOOR)))


def peak_entropy_ratio(history: pd.DataFrame) -> float:
    """The largest rollout entropy over training / the first batch's (a transient explosion counts)."""
    series = rollouts(history, "entropy/mean")
    return float(series.max() / series.iloc[0])


def log_peak_entropy_ratio(history: pd.DataFrame) -> float:
    return float(np.log(max(peak_entropy_ratio(history), RETAINED_FLOOR)))


def stable(log_ratio: float) -> bool:
    """The project's one definition of a stable entropy: within a factor of 2 of the start, both ways."""
    return abs(log_ratio) <= LOG_FACTOR


# ----------------------------------------------------------------------------- stability and ratios
def reward_volatility(history: pd.DataFrame) -> float:
    """Std of the change of the rollout reward from one rollout batch to the next (a jagged reward curve)."""
    return float(rollouts(history, "reward").diff().std())


def log_reward_volatility(history: pd.DataFrame) -> float:
    """log of ``reward_volatility`` (floored at ``RETAINED_FLOOR``): the scale on which runs' stability is compared
    (x2 and x1/2 equally far from 1)."""
    return float(np.log(max(reward_volatility(history), RETAINED_FLOOR)))


def log_ratio(a, b) -> np.ndarray:
    """log(a / b), elementwise: the one scale of "a is x times b" for two runs' positive per-seed quantities."""
    return np.log(np.asarray(a, dtype=float) / np.asarray(b, dtype=float))


# ----------------------------------------------------------------------------- nulls and nested prefixes
def frozen(history: pd.DataFrame) -> pd.DataFrame:
    """The history of a policy that never updates: every logged quantity at its first rollout batch's value, on
    every row it was logged (the base policy read in a trained run's place)."""
    out = history.copy()
    keys = [k for k in out.columns if k not in ("step", "seed") and pd.api.types.is_numeric_dtype(out[k])]
    if keys:
        values = out[keys]
        first = values.bfill().iloc[0]  # each column's first logged value
        out[keys] = values.mask(values.notna(), first, axis=1)
    return out


def equal_windows(fn: Callable) -> Callable:
    """Mark a history quantity as read over a window of equal length ending at the step compared, so it may be
    compared across checkpoints of one trajectory (``nested_prefixes`` refuses any other)."""
    fn.equal_windows = True
    return fn


NESTED_REASON = (
    "nested prefixes of one run: {a} and {b} differ only in train.max_steps (checkpoints of one trajectory), and "
    "'{fn}' reads each over its own growing window, so any run whose accuracy rises while the quantity drifts "
    "with training decides the claim (a window of equal length ending at an equal step is the comparison)"
)


def nested_prefixes(results, arms: list[str], reads) -> str:
    """Why a claim's history reads compare nested prefixes of one run ('' when they do not): two runs it read the
    same history quantity of differ only in ``train.max_steps`` and the quantity is not ``equal_windows``."""
    from rlvr_lib.papers.framework.guard import settings_difference

    if reads is None:
        return ""
    by_fn: dict[Callable, list[str]] = {}
    for run, fn in getattr(reads, "history_fns", []):
        if run in arms and not getattr(getattr(fn, "func", fn), "equal_windows", False):
            by_fn.setdefault(fn, [])
            if run not in by_fn[fn]:
                by_fn[fn].append(run)
    for fn, runs in by_fn.items():
        for i, a in enumerate(runs):
            for b in runs[i + 1 :]:
                if set(settings_difference(results.params, a, b)) == {"train.max_steps"}:
                    name = getattr(getattr(fn, "func", fn), "__name__", str(fn))
                    return NESTED_REASON.format(a=a, b=b, fn=name)
    return ""


# ----------------------------------------------------------------------------- the registry
@dataclass(frozen=True)
class Measure:
    """A quantity claims are judged on. ``source``: eval (a metric of results.json) or history; ``scale``: linear
    or log (a run-vs-run difference is a difference of logs); ``bounds``: its range (saturation, bounded intervals);
    ``discrete``: takes few values (a zero-width interval is no evidence); ``fixed_by``: what fixes it on the
    testbed whatever the method (a claim on it is not testable here); ``calibrated``: what the testbed's budget was
    chosen to produce for runs of the methods in ``calibrated_on`` (a one-arm claim on such a run is not evidence)."""

    name: str
    unit: str
    source: str = "history"
    scale: str = "linear"
    bounds: tuple[float, float] | None = None
    discrete: bool = False
    fixed_by: str = ""
    calibrated: str = ""
    calibrated_on: tuple[str, ...] = ()
    fn: Callable[[pd.DataFrame], float] | None = None


MEASURES: dict[str, Measure] = {}
_BY_FUNCTION: dict[Callable, str] = {}


def register(measure: Measure) -> Measure:
    """Add ``measure`` to ``MEASURES``; a second measure under one name is refused (as verl's registries do)."""
    if measure.name in MEASURES:
        raise ValueError(f"measure '{measure.name}' is registered already")
    MEASURES[measure.name] = measure
    if measure.fn is not None:
        _BY_FUNCTION[measure.fn] = measure.name
    return measure


def measure_of(fn_or_name) -> Measure | None:
    """The registered measure of a name or a history function (None: an unregistered quantity)."""
    name = fn_or_name if isinstance(fn_or_name, str) else _BY_FUNCTION.get(fn_or_name)
    return MEASURES.get(name) if name else None


FIXED_LENGTH = (
    "the testbed's answers have a fixed format (about 30 tokens: the steps of the sum and a boxed answer, "
    "docs/testbed.md): their length is set by the problem, not by verbosity, for every run that works"
)
CALIBRATED_ENTROPY = (
    "the testbed's budget (2 layers, 180 steps, lr 1e-4) was chosen so that GRPO's rollout entropy ends at or below "
    "0.35 x its first step in every seed (docs/testbed.md, 'The default budget'): GRPO's entropy level is the "
    "calibration, not evidence about the paper"
)
GRPO_METHODS = ("grpo", "grpo_onpolicy")

for _m in (
    Measure("accuracy", "mean@n", source="eval", bounds=(0.0, 1.0)),
    Measure("format_rate", "share", source="eval", bounds=(0.0, 1.0)),
    Measure("token_entropy", "nats", source="eval"),
    Measure("response_length", "tokens", source="eval", fixed_by=FIXED_LENGTH),
    Measure("train_response_length", "tokens", fixed_by=FIXED_LENGTH),
    Measure("log2_k50", "doublings of k", source="samples", discrete=True),
    Measure(
        "log_entropy_retained",
        f"log (rollout entropy over {TAIL_LABEL} / first batch)",
        scale="log",
        calibrated=CALIBRATED_ENTROPY,
        calibrated_on=GRPO_METHODS,
        fn=log_entropy_retained,
    ),
    Measure(
        "entropy_retained",
        f"rollout entropy over {TAIL_LABEL} / first batch",
        calibrated=CALIBRATED_ENTROPY,
        calibrated_on=GRPO_METHODS,
        fn=entropy_retained,
    ),
    Measure(
        "log_reward_volatility",
        "log std of the rollout reward's change between consecutive rollout batches",
        scale="log",
        fn=log_reward_volatility,
    ),
    Measure(
        "log_peak_entropy_ratio", "log (largest rollout entropy / first batch)", scale="log", fn=log_peak_entropy_ratio
    ),
):
    register(_m)


def eval_measure(metric: str) -> Measure | None:
    """The measure of an evaluation metric (pass@k: bounded like accuracy)."""
    if metric.startswith("pass@"):
        return Measure(metric, "unbiased pass@k", source="eval", bounds=(0.0, 1.0))
    return MEASURES.get(metric)
