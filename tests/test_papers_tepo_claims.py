"""TEPO's declared claims: the conjunctive claims have the parts they are judged from, sized claims their size (no
results needed; every quote is checked against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import pytest
from conftest import declared_claims

CONJUNCTIONS = {  # conjunctive claim -> its parts (params.yaml's runs)
    "table1": {
        "acc_vs_dapo_8updates_tepo_data",
        "acc_vs_clip_cov_8updates_tepo_data",
        "acc_vs_kl_cov_8updates_tepo_data",
        "acc_vs_ent_adv_tepo_data",
        "acc_vs_gspo_tepo_data",
        "acc_vs_gpg",
    },
    "panel_a": {"panel_a_beta_1", "panel_a_beta_0_1", "panel_a_beta_0_01", "panel_a_beta_0_001", "panel_a_beta_0_0001"},
    "kl_remark": {"kl_remark_stability", "kl_remark_performance"},
    "panel_b": {"panel_b_max_entropy", "panel_b_min_entropy"},
    "panel_c": {"panel_c_cispo", "panel_c_prefix_is"},
    "panel_d": {"panel_d_seq_mean_token_mean", "panel_d_seq_mean_token_sum"},
    "panel_e": {"panel_e_vs_none", "panel_e_vs_neg_adv_entropy_up", "panel_e_vs_either"},
    "table4": {"table4_at_72", "table4_at_132"},
    "reward": {"reward_steadier", "reward_higher"},
    "stability_exploration": {"stability", "exploration"},
}


@pytest.fixture(scope="module")
def claims():
    return declared_claims("tepo")


def test_conjunctions_and_their_parts(claims):
    wholes = {c.key for c in claims if c.direction is None}
    parts: dict[str, set[str]] = {}
    for c in claims:
        if c.parent is not None:
            parts.setdefault(c.parent, set()).add(c.key)
    assert wholes == set(CONJUNCTIONS)
    assert parts == CONJUNCTIONS
    assert len({c.key for c in claims}) == len(claims)


def test_sized_claims_are_tested_on_their_size(claims):
    by_key = {c.key: c for c in claims}
    assert (by_key["panel_a_beta_1"].direction, by_key["panel_a_beta_1"].reference) == ("equal", 0.0)
    assert (by_key["panel_a_beta_0_1"].direction, by_key["panel_a_beta_0_1"].reference) == ("equal", -0.046)
    assert (by_key["gain_size"].direction, by_key["gain_size"].reference) == ("equal", 0.02)
    assert "5.96" in by_key["panel_a_beta_0_1"].paper_value  # the table's own drop beside the stated 4.6
