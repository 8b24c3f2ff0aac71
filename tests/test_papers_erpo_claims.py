"""ERPO's declared claims (rlvr_lib/papers/erpo.py): the conjunctive claims' parts and the sized claims (every
quote is checked against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import declared_claims

REPO = Path(__file__).resolve().parents[1]
WHOLES = {  # conjunctive claim: its parts, as erpo.txt's sentences join them
    "perturbation": {"perturbation_top_drop", "perturbation_bottom_robust"},
    "average_metrics": {"average_acc", "average_fmt"},
    "rl_pass_growth": {"rl_pass_growth_grpo", "rl_pass_growth_erpo"},
    "reward_trajectory": {"reward_early_lower", "reward_late_higher"},
    "entropy_band": {"entropy_erpo_healthy", "entropy_grpo_collapse"},
    "kl": {"kl_higher", "kl_no_spikes"},
    "shorter": {"shorter_acc", "shorter_length"},
    "length_trend": {"length_early_higher", "length_late_lower", "length_trend_acc"},
    "outperforms_grpo_sft": {"outperforms_grpo", "outperforms_sft"},
}


@pytest.fixture(scope="module")
def claims():
    return declared_claims("erpo")


def test_conjunctive_claims_are_judged_whole_from_their_parts(claims):
    parts: dict[str, set[str]] = {}
    for c in claims:
        if c.parent is not None:
            parts.setdefault(c.parent, set()).add(c.key)
    wholes = {c.key for c in claims if c.direction is None}
    assert parts == WHOLES
    assert wholes == set(WHOLES)
    assert len({c.key for c in claims}) == len(claims)


def test_sized_claims_are_tested_on_the_papers_size(claims):
    by_key = {c.key: c for c in claims}
    top = by_key["perturbation_top_drop"]
    assert (top.direction, top.reference, top.paper_effect) == ("equal", 0.352, 0.352)
    band = by_key["entropy_erpo_healthy"]  # a diverging run (entropy x2 or more) falls outside the band
    assert band.direction == "equal" and band.reference == 0.0  # log ratio within log 2: [0.5, 2.0]
    assert band.margin == pytest.approx(math.log(2.0))
