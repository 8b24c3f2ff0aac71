"""CW-GRPO table 1 / fig. 3: how extreme are the positive and the negative token covariances?

cw_grpo.txt table 1 lists, for GRPO, the covariance c_{i,t} = (logp - mean logp)(A - mean A) (sec. 2.3) "at the
top 0.01 %, 1 %, 20 %, 40 %, 100 %" of the positive tokens and of the negative tokens separately. We read each
entry as a threshold (docs/assumptions.md, CW-GRPO "Notes"): for the positive side, the value above which that
share of the positive covariances lies, i.e. their quantile 1 - p/100 (the 100 % row is the smallest positive
value); for the negative side, the value below which that share of the negative covariances lies, their quantile
p/100 (the 100 % row is the negative value closest to 0). Quantiles interpolate linearly between order
statistics (numpy's default, and ``methods.core.masked_quantiles``). Zeros belong to neither side.

``covariance_percentiles`` works on one set of covariances (a rollout batch's valid tokens); the methods log its
``percentile_metrics`` per step (``grpo``-family ``log_percentiles``, ``cw_grpo`` by default), and
``percentile_table`` turns those logged series into the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    import pandas as pd

TOP_PERCENTS = (0.01, 1.0, 20.0, 40.0, 100.0)  # table 1's columns
SIDES = ("pos", "neg")


@dataclass(frozen=True)
class SidePercentiles:
    """One sign's covariances: how many (``count``), their ``share`` of all values given, and ``top``: percent ->
    threshold (NaN for every percent when ``count`` is 0)."""

    count: int
    share: float
    top: dict[float, float]


def _as_array(values) -> np.ndarray:
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu().double().numpy()
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"covariances must be 1-D (the valid tokens), got shape {array.shape}")
    if np.isnan(array).any():
        raise ValueError("covariances contain NaN")
    return array


def covariance_percentiles(covariances, top_percents: Sequence[float] = TOP_PERCENTS) -> dict[str, SidePercentiles]:
    """Table 1 of cw_grpo.txt for one set of token covariances.

    covariances: 1-D tensor, array or list (the valid tokens only; no NaN). top_percents: shares in (0, 100].
    Returns {"pos": ..., "neg": ...}: for positive values the quantile 1 - p/100 of the positives (the value above
    which p % of them lie), for negative values the quantile p/100 of the negatives (the value below which p % of
    them lie). ``share`` is count / number of values (0 for an empty input).
    """
    values = _as_array(covariances)
    for p in top_percents:
        if not 0.0 < p <= 100.0:
            raise ValueError(f"top percents must lie in (0, 100], got {p}")
    total = values.size
    out = {}
    for side, chosen, qs in (
        ("pos", values[values > 0], [1.0 - p / 100.0 for p in top_percents]),
        ("neg", values[values < 0], [p / 100.0 for p in top_percents]),
    ):
        top = np.quantile(chosen, qs).tolist() if chosen.size else [math.nan] * len(qs)
        out[side] = SidePercentiles(
            count=int(chosen.size),
            share=chosen.size / total if total else 0.0,
            top=dict(zip((float(p) for p in top_percents), top, strict=True)),
        )
    return out


SHARE_TOP_PERCENT = 1.0  # fig. 3's "small fraction of tokens": the top 1% by |c|


def abs_top_share(covariances, top_percent: float = SHARE_TOP_PERCENT) -> float:
    """Fig. 3 of cw_grpo.txt ("cumulative contribution of covariance values") at one point: the share of the total
    |c| of one set of token covariances (1-D, the valid tokens) carried by its top ``top_percent`` % of tokens by
    |c|, both signs together: sum of the k largest |c| / sum of all |c|, k = ceil(n * top_percent / 100) (at least
    one token). A Gaussian c gives exp(-q^2 / 2) = 0.036 for the top 1% (q = 2.576, its 99.5% quantile); NaN for an
    empty or all-zero input."""
    values = np.abs(_as_array(covariances))
    if not 0.0 < top_percent <= 100.0:
        raise ValueError(f"top_percent must lie in (0, 100], got {top_percent}")
    total = values.sum()
    if values.size == 0 or total == 0:
        return math.nan
    k = max(1, math.ceil(values.size * top_percent / 100.0))
    return float(np.sort(values)[-k:].sum() / total)


def share_key(percent: float = SHARE_TOP_PERCENT) -> str:
    """The logged name (without the method prefix) of ``abs_top_share``: ``cov_abs_top1pct_share``."""
    return f"cov_abs_top{percent:g}pct_share"


def share_metrics(covariances) -> dict[str, float]:
    """``{share_key(): abs_top_share(covariances)}``, left out (not NaN) when the share is undefined."""
    share = abs_top_share(covariances)
    return {} if math.isnan(share) else {share_key(): share}


def metric_key(side: str, percent: float) -> str:
    """The logged name (without the method prefix) of one threshold: ``cov_pos_top1pct``, ``cov_neg_top0.01pct``."""
    return f"cov_{side}_top{percent:g}pct"


def percentile_metrics(result: dict[str, SidePercentiles]) -> dict[str, float]:
    """Flat per-step metrics of ``covariance_percentiles``: ``cov_<side>_top<p>pct`` (left out when the side is
    empty rather than logged as NaN) and ``cov_<side>_share``."""
    out = {}
    for side in SIDES:
        out.update({metric_key(side, p): v for p, v in result[side].top.items() if not math.isnan(v)})
        out[f"cov_{side}_share"] = result[side].share
    return out


def percentile_table(
    history: pd.DataFrame, prefix: str, top_percents: Iterable[float] = TOP_PERCENTS, steps: slice | None = None
) -> pd.DataFrame:
    """Table 1 from one run's logged history: rows "positive" / "negative", one column per top percent.

    history: one row per (seed, step), with columns ``<prefix>/cov_<side>_top<p>pct`` (e.g. prefix "grpo" or
    "cw_grpo"); ``steps``: a slice of step numbers (inclusive, ``history["step"]`` values) to restrict to, all by
    default. Each cell is the mean over the selected logged steps (and seeds) of that step's threshold: the batch
    thresholds averaged over training, not the threshold of all tokens pooled (which the logs do not keep).
    Raises KeyError naming a missing column.
    """
    rows = history
    if steps is not None:
        rows = rows[(rows["step"] >= (steps.start or -math.inf)) & (rows["step"] <= (steps.stop or math.inf))]
    table = {}
    for side, label in (("pos", "positive"), ("neg", "negative")):
        cells = {}
        for p in top_percents:
            key = f"{prefix}/{metric_key(side, p)}"
            if key not in rows.columns:
                raise KeyError(f"history has no column {key!r}: was the run logged with log_percentiles?")
            cells[f"top {p:g}%"] = float(rows[key].mean())
        table[label] = cells
    import pandas as pd  # here, not at the top: every method module imports this one, and pandas costs about a second

    return pd.DataFrame.from_dict(table, orient="index")
