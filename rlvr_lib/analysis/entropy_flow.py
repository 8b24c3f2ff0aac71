"""opefo.txt fig. 2(b) and 2(c) from logged histories: the net first-order entropy change of each update step, and
the entropy change of the tokens clipped at the upper and at the lower bound under clip-higher.

What the runs log (``log_entropy_flow: true`` on a method of the GRPO family; ``methods.core.entropy_flow_by_clip_side``
at each micro-batch, summed over the optimizer step), with p_t, H_t the current policy's probability of the sampled
token and entropy, A_t the advantage, r_t the importance ratio and I_clip the indicator that the clip keeps the
token's gradient:

    dH_t = -r_t A_t (1 - p_t)^2 (log p_t + H_t)
    entropy_flow/net          = sum_t I_clip dH_t              (fig. 2(b), L186, L194: "net dH_t per update step")
    entropy_flow/clipped_high = sum over tokens with r_t > 1 + eps_high, A_t > 0 of dH_t   (fig. 2(c), upper)
    entropy_flow/clipped_low  = sum over tokens with r_t < 1 - eps_low,  A_t < 0 of dH_t   (fig. 2(c), lower)

dH_t is eq. 6 (L175) at the sampled token (a one-sample estimate of its expectation over a ~ pi) with the weight of
Hao et al. (2025b), w_t = I_clip r_t A_t, which opefo.txt App. A (L566) quotes and reduces to A_t strictly
on-policy; for the clipped tokens the indicator is dropped (their update is what the clip removes: "the total dH_t
contributed by tokens clipped at the upper and lower bounds", L196). eta is omitted, so the units are arbitrary
(proportional to the learning rate times the logits' step). Strictly on-policy (one update per rollout batch) r = 1
and nothing is clipped, so ``net`` is eq. 6's sum over the batch, which OPEFO also logs as ``opefo/flow_net``.
"""

from __future__ import annotations

import pandas as pd

from rlvr_lib.analysis.smoothing import ema

PREFIX = "entropy_flow/"
QUANTITIES = ("net", "clipped_high", "clipped_low")  # fig. 2(b), then fig. 2(c)'s two sides


def entropy_flow_series(
    history: pd.DataFrame, quantities=QUANTITIES, *, ema_alpha: float | None = None
) -> pd.DataFrame:
    """One run's entropy-flow series, one row per (seed, logged step): columns ``seed``, ``step`` and one per
    quantity (``net``, ``clipped_high``, ``clipped_low`` by default; also ``pos``, ``neg``).

    history: the run's rows with ``step`` (and ``seed``; none is seed 0) and ``entropy_flow/<quantity>`` columns.
    Rows where none of the quantities was logged are dropped. ``ema_alpha``: smooth each seed's series
    (``analysis.smoothing.ema``), None (default) for the raw values. Raises KeyError naming a missing column.
    """
    columns = [PREFIX + q for q in quantities]
    missing = [c for c in columns if c not in history.columns]
    if missing:
        raise KeyError(f"history has no column(s) {missing}: was the run logged with log_entropy_flow?")
    h = history if "seed" in history.columns else history.assign(seed=0)
    frames = []
    for run_seed, rows in h.groupby("seed", sort=True):
        rows = rows.sort_values("step", kind="stable").dropna(subset=columns, how="all")
        frame = pd.DataFrame({"seed": int(run_seed), "step": rows["step"].to_numpy()})
        for q, column in zip(quantities, columns, strict=True):
            values = rows[column].reset_index(drop=True)
            frame[q] = values if ema_alpha is None else ema(values, ema_alpha)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def mean_over_seeds(series: pd.DataFrame) -> pd.DataFrame:
    """``entropy_flow_series`` averaged over seeds at each step: index ``step``, one column per quantity."""
    return series.drop(columns="seed").groupby("step", sort=True).mean()
