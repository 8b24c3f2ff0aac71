"""rlvr_lib.papers.claims: the verdict rule (one hand-built case per branch), paired differences, the claims table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlvr_lib.eval.passk import crossed_bootstrap_ci
from rlvr_lib.papers.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    INCONCLUSIVE,
    NOT_TESTABLE,
    VERDICT_RULE,
    Claim,
    Estimate,
    NotTestable,
    claims_frame,
    claims_table,
    estimate_of,
    judge,
    not_testable,
    paired_difference,
    verdict,
    verdict_counts,
)

MARGIN = 0.01


@pytest.mark.parametrize(
    ("direction", "low", "high", "expected"),
    [
        # claimed d > 0
        ("greater", 0.02, 0.05, HOLDS),  # above 0
        ("greater", 0.001, 0.005, HOLDS),  # above 0, even if smaller than the margin: a detected effect
        ("greater", -0.05, -0.02, DOES_NOT_HOLD),  # below 0: the other direction
        ("greater", -0.005, 0.008, DOES_NOT_HOLD),  # inside [-margin, margin]: too small to matter
        ("greater", -0.01, 0.01, DOES_NOT_HOLD),  # the band's edges count as inside
        ("greater", -0.02, 0.05, INCONCLUSIVE),  # straddles 0, wider than the margin
        ("greater", -0.005, 0.05, INCONCLUSIVE),
        ("greater", 0.0, 0.05, INCONCLUSIVE),  # touching 0 does not exclude it
        # claimed d < 0: the mirror image
        ("less", -0.05, -0.02, HOLDS),
        ("less", 0.02, 0.05, DOES_NOT_HOLD),
        ("less", -0.008, 0.005, DOES_NOT_HOLD),
        ("less", -0.05, 0.02, INCONCLUSIVE),
        # claimed d = 0 within the margin
        ("equal", -0.005, 0.008, HOLDS),
        ("equal", 0.02, 0.05, DOES_NOT_HOLD),  # wholly above +margin
        ("equal", -0.05, -0.02, DOES_NOT_HOLD),  # wholly below -margin
        ("equal", -0.005, 0.05, INCONCLUSIVE),  # overlaps the band and leaves it
        ("equal", 0.005, 0.05, INCONCLUSIVE),  # excludes 0 but not the band
    ],
)
def test_verdict_branches(direction, low, high, expected):
    assert verdict(direction, low, high, MARGIN) == expected


def test_verdict_with_zero_margin_needs_the_sign():
    assert verdict("greater", 0.0, 0.0, 0.0) == DOES_NOT_HOLD  # a zero-width interval at 0 lies in [-0, 0]
    assert verdict("greater", 1e-9, 1e-6, 0.0) == HOLDS
    assert verdict("equal", 0.0, 0.0, 0.0) == HOLDS


def test_verdict_rejects_bad_input():
    with pytest.raises(ValueError, match="direction"):
        verdict("up", 0.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="not an interval"):
        verdict("greater", 1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="not an interval"):
        verdict("greater", math.nan, 0.0, 0.1)
    with pytest.raises(ValueError, match="margin"):
        Claim("k", "q", "s", "p", "o", "greater", -1.0)
    with pytest.raises(ValueError, match="direction"):
        Claim("k", "q", "s", "p", "o", "sideways", 0.1)


def test_verdict_rule_text_states_every_branch():
    for word in ("HOLDS", "DOES NOT HOLD", "INCONCLUSIVE", "NOT TESTABLE HERE", "margin", "crossed_bootstrap_ci"):
        assert word in VERDICT_RULE


def test_paired_difference_uses_the_crossed_bootstrap_of_the_differences():
    rng = np.random.default_rng(0)
    a = rng.random((3, 40))
    b = a - 0.1 + 0.01 * rng.standard_normal((3, 40))
    e = paired_difference(a, b, n_boot=200, labels=("x", "y"))
    assert e.value == pytest.approx(float((a - b).mean()))
    assert (e.ci_low, e.ci_high) == crossed_bootstrap_ci(a - b, n_boot=200, seed=0)
    assert (e.n_seeds, e.n_problems) == (3, 40)
    assert e.detail.startswith("x 0.") and " vs y " in e.detail
    assert verdict("greater", e.ci_low, e.ci_high, MARGIN) == HOLDS


def test_pairing_matters_a_shared_seed_effect_cancels():
    # a large per-seed shift common to both runs is noise for unpaired means, nothing for the paired difference
    shift = np.array([[-0.3], [0.0], [0.3]])
    base = np.tile(np.linspace(0.2, 0.8, 50), (3, 1)) + shift
    e = paired_difference(base + 0.02, base, n_boot=300)
    assert e.ci_low == pytest.approx(0.02) and e.ci_high == pytest.approx(0.02)


def test_per_seed_values_resample_seeds_only():
    e = estimate_of(np.array([0.1, 0.2, 0.3]), n_boot=500)
    assert e.n_problems is None and e.n_seeds == 3
    assert 0.1 <= e.ci_low <= e.value <= e.ci_high <= 0.3


def test_missing_values_are_not_testable():
    with pytest.raises(NotTestable, match="missing"):
        estimate_of(np.array([0.1, math.nan]), n_boot=10)
    with pytest.raises(ValueError, match="shapes"):
        paired_difference(np.zeros((2, 3)), np.zeros((2, 4)), n_boot=10)


def _claim(key="c", direction="greater"):
    return Claim(key, "X beats Y", "sec. 1, table 1", "50.1 vs 45.5", "mean@n of x minus y", direction, MARGIN)


def test_claims_table_has_a_verdict_in_every_row_and_the_reason_when_not_testable():
    results = [
        judge(_claim("a"), Estimate(0.03, 0.02, 0.04, 3, 128, "x 0.53 vs y 0.50")),
        judge(_claim("b", "less"), Estimate(0.03, 0.02, 0.04, 3, None)),
        not_testable(_claim("c"), "GPG is not implemented"),
    ]
    table = claims_table(results)
    assert list(table["verdict"]) == [f"**{HOLDS}**", f"**{DOES_NOT_HOLD}**", f"**{NOT_TESTABLE}**"]
    assert table["claim"].iloc[0] == "“X beats Y”"
    assert "+0.030 [+0.020, +0.040]" in table["ours"].iloc[0] and "3 seeds x 128 problems" in table["ours"].iloc[0]
    assert table["ours"].iloc[2] == "—" and "GPG is not implemented" in table["how ours is computed"].iloc[2]
    frame = claims_frame(results)
    assert frame["verdict"].tolist() == [HOLDS, DOES_NOT_HOLD, NOT_TESTABLE]
    assert math.isnan(frame["value"].iloc[2]) and frame["note"].iloc[2] == "GPG is not implemented"
    assert verdict_counts(results) == {HOLDS: 1, DOES_NOT_HOLD: 1, INCONCLUSIVE: 0, NOT_TESTABLE: 1}
