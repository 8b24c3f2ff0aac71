"""CW-GRPO's declared claims (rlvr_lib/papers/cw_grpo.py): the conjunctive claims' parts and the sized and band
claims (every quote is checked against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import declared_claims

REPO = Path(__file__).resolve().parents[1]
WHOLES = {  # conjunctive claim: its parts, as cw_grpo.txt's sentences join them
    "heavy_tail": {"heavy_tail_share", "heavy_tail_entropy"},
    "entropy": {"entropy_reasonable", "entropy_grpo_unstable"},
    "checkpoints": {"grpo_degrades", "cw_consistent_cw_grpo_1update_135steps", "cw_consistent_cw_grpo_1update"},
}


@pytest.fixture(scope="module")
def claims():
    return declared_claims("cw_grpo")


def test_conjunctive_claims_are_judged_whole_from_their_parts(claims):
    parts: dict[str, set[str]] = {}
    for c in claims:
        if c.parent is not None:
            parts.setdefault(c.parent, set()).add(c.key)
    assert parts == WHOLES
    assert {c.key for c in claims if c.direction is None} == set(WHOLES)
    assert len({c.key for c in claims}) == len(claims)


def test_sized_and_band_claims(claims):
    by_key = {c.key: c for c in claims}
    drop = by_key["grpo_degrades"]  # 85.0 -> 79.8: tested on that size
    assert (drop.direction, drop.reference, drop.paper_effect) == ("equal", -0.052, -0.052)
    band = by_key["entropy_reasonable"]  # a diverging run (entropy x2 or more) falls outside the band
    assert band.direction == "equal" and band.reference == 0.0  # log ratio within log 2: [0.5, 2.0]
    assert band.margin == pytest.approx(math.log(2.0))


def test_table3_premise_says_whether_grpo_entropy_swings_low_to_high_as_the_paper_says():
    from rlvr_lib.papers.cw_grpo import Paper

    flat = Paper.table3_premise([0.017, 0.018, 0.015])
    assert "0.017 → 0.018 → 0.015" in flat and "no low-then-high swing" in flat
    assert "49.9, 49.9, 47.8" in flat  # the paper's OlympiadBench column, named as having no counterpart
    assert "as the paper's low-then-high" in Paper.table3_premise([0.02, 0.01, 0.05])
