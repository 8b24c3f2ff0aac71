"""OPEFO's declared claims: the conjunctive claims are judged whole and sized claims test the paper's size (every
quote is checked against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import pytest
from conftest import declared_claims

CONJUNCTIONS = {  # conjunctive claim -> the number of its parts
    "collapse_fig2a": 6,
    "net_flow_fig2b": 4,
    "flow_drives_entropy": 2,
    "clipped_tokens": 2,
    "imbalance": 2,
    "best_overall": 6,
    "second_best_margin": 2,
    "gain_over_onpolicy": 2,
    "grpo_collapse": 2,
    "clip_higher_partial": 2,
    "opefo_stable": 4,
    "reward_trends": 7,
    "grpo_highest_reward": 2,
    "opefo_reward": 2,
    "opefo_length": 2,
    "static_scaling": 2,
    "one_sided": 4,
    "lambda_shape": 2,
}


@pytest.fixture(scope="module")
def claims():
    return declared_claims("opefo")


def test_conjunctions_have_their_parts_and_parts_are_not_claims_alone(claims):
    keys = {c.key for c in claims}
    wholes = {c.key for c in claims if c.direction is None}
    assert wholes == set(CONJUNCTIONS)
    parts = {k: [c.key for c in claims if c.parent == k] for k in wholes}
    assert {k: len(v) for k, v in parts.items()} == CONJUNCTIONS
    assert all(c.parent in wholes for c in claims if c.parent is not None)
    assert len(keys) == len(claims)  # one row per claim or part


def test_sized_claims_test_the_papers_size(claims):
    by_key = {c.key: c for c in claims}
    assert (by_key["gain_7b"].direction, by_key["gain_7b"].reference) == ("equal", 0.023)
    assert (by_key["margin_7b"].direction, by_key["margin_7b"].reference) == ("equal", 0.017)
    assert by_key["gain_7b"].paper_effect == 0.023
    assert "copy of table 1's GRPO (8 updates) row" in by_key["static_scaling"].paper_value
