"""Fig. 3 of cw_grpo.txt at one point: the share of the total |covariance| its top 1% of tokens carry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rlvr_lib.methods.covariance import abs_top_share, share_key, share_metrics


def test_share_by_hand():
    values = [10.0, -5.0] + [1.0] * 98  # 100 tokens: the top 1% is the one |c| = 10
    assert abs_top_share(values) == pytest.approx(10.0 / 113.0)
    assert abs_top_share(values, 2.0) == pytest.approx(15.0 / 113.0)  # both signs count by |c|
    assert abs_top_share([3.0, -1.0], 1.0) == pytest.approx(0.75)  # k = ceil(0.02) = 1: at least one token
    assert abs_top_share(values, 100.0) == pytest.approx(1.0)


def test_share_undefined_and_bad_inputs():
    assert math.isnan(abs_top_share([]))
    assert math.isnan(abs_top_share([0.0, 0.0]))
    assert share_metrics([0.0]) == {}
    assert share_key() == "cov_abs_top1pct_share"
    with pytest.raises(ValueError):
        abs_top_share([1.0], 0.0)


def test_gaussian_share_is_about_0_036():
    """A light-tailed c: the top 1% by |c| carries exp(-q^2 / 2) of the total, q its 99.5% quantile."""
    q = stats.norm.ppf(0.995)
    values = np.random.default_rng(0).normal(size=400_000)
    assert abs_top_share(values) == pytest.approx(math.exp(-q * q / 2), abs=0.002)
