"""rlvr_lib.analysis: the pure functions the paper notebooks call (covariance percentiles, convergence step, k50,
entropy-flow series, ERPO's EMA). Hand-computed cases and stated properties."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from rlvr_lib.analysis.convergence import convergence_step, peak_step
from rlvr_lib.analysis.entropy_flow import entropy_flow_series, mean_over_seeds
from rlvr_lib.analysis.k50 import k50, passk_curve
from rlvr_lib.analysis.smoothing import ERPO_EMA_ALPHA, ema
from rlvr_lib.methods.covariance import covariance_percentiles, percentile_metrics, percentile_table
from rlvr_lib.methods.cw_grpo import covariance_percentiles as cw_grpo_percentiles


# ----------------------------------------------------------------------------- covariance percentiles (CW-GRPO table 1)
def test_covariance_percentiles_by_hand():
    values = [3.0, 1.0, -2.0, 0.0, 5.0, -1.0, 4.0, 2.0]
    result = covariance_percentiles(values, top_percents=(20.0, 40.0, 100.0))
    pos, neg = result["pos"], result["neg"]
    assert (pos.count, neg.count) == (5, 2)  # the zero is on neither side
    assert pos.share == pytest.approx(5 / 8) and neg.share == pytest.approx(2 / 8)
    # positives 1..5: top 20 % = quantile 0.8 = 4 + 0.2 * (5 - 4); top 40 % = quantile 0.6 = 3.4; top 100 % = min
    assert pos.top == pytest.approx({20.0: 4.2, 40.0: 3.4, 100.0: 1.0})
    # negatives (-2, -1): top 20 % = quantile 0.2 = -2 + 0.2 * 1 = -1.8; top 100 % = the one closest to 0
    assert neg.top[20.0] == pytest.approx(-1.8) and neg.top[100.0] == pytest.approx(-1.0)


def test_covariance_percentiles_agree_with_numpy_and_cw_grpos_log():
    g = torch.Generator().manual_seed(0)
    cov = torch.randn(6, 9, generator=g) ** 3
    mask = (torch.rand(6, 9, generator=g) > 0.3).float()
    valid = cov[mask.bool()]
    result = covariance_percentiles(valid)
    positives = valid[valid > 0].double().numpy()
    assert result["pos"].top[1.0] == pytest.approx(np.quantile(positives, 0.99))
    assert result["pos"].top[1.0] >= result["pos"].top[20.0] >= result["pos"].top[100.0] > 0  # more extreme first
    assert result["neg"].top[1.0] <= result["neg"].top[20.0] <= result["neg"].top[100.0] < 0
    assert cw_grpo_percentiles(cov, mask) == pytest.approx(percentile_metrics(result))
    for other in (valid.numpy(), valid.tolist()):  # any 1-D input
        assert covariance_percentiles(other)["neg"].top == pytest.approx(result["neg"].top)


def test_covariance_percentiles_empty_sides_and_bad_inputs():
    only_pos = covariance_percentiles([0.5, 0.0, 2.0])
    assert only_pos["neg"].count == 0 and all(math.isnan(v) for v in only_pos["neg"].top.values())
    assert "cov_neg_top1pct" not in percentile_metrics(only_pos) and percentile_metrics(only_pos)["cov_neg_share"] == 0
    assert covariance_percentiles([])["pos"].share == 0.0
    with pytest.raises(ValueError, match="1-D"):
        covariance_percentiles(torch.ones(2, 2))
    with pytest.raises(ValueError, match="NaN"):
        covariance_percentiles([1.0, math.nan])
    with pytest.raises(ValueError, match="top percents"):
        covariance_percentiles([1.0], top_percents=(0.0,))


def test_percentile_table_averages_logged_steps():
    history = pd.DataFrame(
        {
            "step": [1, 2, 3],
            "grpo/cov_pos_top1pct": [4.0, 2.0, 6.0],
            "grpo/cov_neg_top1pct": [-4.0, -2.0, -6.0],
        }
    )
    table = percentile_table(history, "grpo", top_percents=(1.0,))
    assert table.loc["positive", "top 1%"] == pytest.approx(4.0)
    assert table.loc["negative", "top 1%"] == pytest.approx(-4.0)
    assert percentile_table(history, "grpo", top_percents=(1.0,), steps=slice(2, 3)).loc["positive", "top 1%"] == 4.0
    with pytest.raises(KeyError, match="log_percentiles"):
        percentile_table(history, "cw_grpo", top_percents=(1.0,))


# ----------------------------------------------------------------------------- convergence step (TEPO table 4)
def test_peak_step_is_the_first_maximum_and_skips_unlogged_steps():
    assert peak_step([1, 2, 3, 4], [0.1, 0.5, 0.5, 0.3]) == (2, 0.5)
    assert peak_step([4, 3, 2, 1], [0.3, 0.5, 0.5, 0.1]) == (2, 0.5)  # unsorted steps
    assert peak_step([1, 2, 3], [0.2, math.nan, 0.1]) == (1, 0.2)
    with pytest.raises(ValueError, match="no logged value"):
        peak_step([1, 2], [math.nan, math.nan])


def test_peak_step_with_explicit_smoothing():
    steps, values = [1, 2, 3, 4, 5, 6], [0.0, 1.0, 0.0, 0.8, 0.8, 0.8]
    assert peak_step(steps, values) == (2, 1.0)  # raw: the spike
    # EMA 0.5: 0, 0.5, 0.25, 0.525, 0.6625, 0.73125 -> the sustained level peaks last
    step, value = peak_step(steps, values, ema_alpha=0.5)
    assert step == 6 and value == pytest.approx(0.73125)


def test_convergence_step_over_seeds():
    rows = []
    for run_seed, best in ((0, 10), (1, 20), (2, 30)):
        for step in range(1, 41):
            rows.append({"seed": run_seed, "step": step, "accuracy": 1.0 - abs(step - best) / 100})
    result = convergence_step(pd.DataFrame(rows))
    assert result.steps == {0: 10, 1: 20, 2: 30} and result.mean == pytest.approx(20.0)
    assert 10 <= result.ci_low <= result.mean <= result.ci_high <= 30
    assert result.peaks == {0: 1.0, 1: 1.0, 2: 1.0} and result.mean_peak == 1.0
    one = convergence_step(pd.DataFrame(rows[:40]).drop(columns="seed"))  # no seed column: one seed
    assert one.steps == {0: 10} and one.ci_low == one.ci_high == 10.0
    with pytest.raises(KeyError, match="reward"):
        convergence_step(pd.DataFrame(rows), key="reward")


# ----------------------------------------------------------------------------- k50 (AER)
def test_k50_by_hand():
    assert k50({1: 0.1, 2: 0.3, 4: 0.5, 8: 0.7}) == 4  # >= 50 % counts
    assert k50([(8, 0.7), (1, 0.1), (4, 0.49), (2, 0.3)]) == 8  # any order
    assert k50({1: 0.1, 256: 0.49}) is None  # "does not reach 50% by k = 256"
    assert k50({1: 0.6, 2: 0.4}) == 1  # the smallest k, even if a noisy curve dips later
    assert k50({1: 0.3, 2: 0.45}, threshold=0.4) == 2


def test_k50_refuses_ambiguous_curves():
    with pytest.raises(ValueError, match="fraction"):
        k50({1: 12.0, 2: 55.0})  # percentages
    with pytest.raises(ValueError, match="distinct positive integers"):
        k50([(1, 0.1), (1, 0.2)])
    with pytest.raises(ValueError, match="empty"):
        k50({})
    with pytest.raises(ValueError, match="threshold"):
        k50({1: 0.1}, threshold=0.0)


def test_passk_curve_from_eval_metrics():
    metrics = {"pass@1": 0.2, "pass@16": 0.6, "mean@16": 0.2, "format_rate": 1.0}
    assert passk_curve(metrics) == {1: 0.2, 16: 0.6} and k50(passk_curve(metrics)) == 16


# ----------------------------------------------------------------------------- EMA (ERPO fig. 4)
def test_ema_by_hand():
    assert ERPO_EMA_ALPHA == 0.12
    # s0 = 0; s1 = 0.12 * 1 + 0.88 * 0 = 0.12; s2 = 0.12 + 0.88 * 0.12 = 0.2256
    assert ema([0.0, 1.0, 1.0]) == pytest.approx([0.0, 0.12, 0.2256])
    out = ema([math.nan, 1.0, math.nan, 3.0, 5.0], 0.5)  # leading NaN stays; a later NaN holds the average
    assert math.isnan(out[0]) and out[1:] == pytest.approx([1.0, 1.0, 2.0, 3.5])
    assert ema([3.0, 1.0, 2.0], 1.0) == pytest.approx([3.0, 1.0, 2.0])  # alpha 1: raw


def test_ema_equals_pandas_and_keeps_a_series_index():
    values = pd.Series(np.random.default_rng(0).normal(size=50), index=range(10, 60), name="reward")
    values.iloc[[3, 17]] = np.nan
    out = ema(values, 0.12)
    assert isinstance(out, pd.Series) and out.index.equals(values.index) and out.name == "reward"
    expected = values.ewm(alpha=0.12, adjust=False, ignore_na=True).mean()
    assert np.allclose(out.to_numpy(), expected.to_numpy())
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="alpha"):
            ema([1.0], bad)


# ----------------------------------------------------------------------------- entropy-flow series (OPEFO fig. 2)
def test_entropy_flow_series_and_seed_mean():
    history = pd.DataFrame(
        {
            "seed": [0, 0, 0, 1, 1, 1],
            "step": [2, 1, 3, 1, 2, 3],
            "entropy_flow/net": [-2.0, -1.0, math.nan, -3.0, -4.0, -5.0],
            "entropy_flow/clipped_high": [0.2, 0.1, math.nan, 0.3, 0.4, 0.5],
            "entropy_flow/clipped_low": [-0.2, -0.1, math.nan, -0.3, -0.4, -0.5],
            "accuracy": [0.1] * 6,
        }
    )
    series = entropy_flow_series(history)
    assert list(series.columns) == ["seed", "step", "net", "clipped_high", "clipped_low"]
    assert series[series.seed == 0]["step"].tolist() == [1, 2]  # sorted; the unlogged step dropped
    mean = mean_over_seeds(series)
    assert mean.loc[1, "net"] == pytest.approx(-2.0) and mean.loc[3, "net"] == pytest.approx(-5.0)
    smooth = entropy_flow_series(history, ("net",), ema_alpha=0.5)
    assert smooth[smooth.seed == 1]["net"].tolist() == pytest.approx([-3.0, -3.5, -4.25])
    with pytest.raises(KeyError, match="log_entropy_flow"):
        entropy_flow_series(history.drop(columns="entropy_flow/net"))
