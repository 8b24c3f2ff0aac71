"""AER's claims: every conjunctive claim is judged from parts quoted from it, and the pass@k quantities behind "across
all k" leave out the saturated k (every quote is checked against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import REPO

from rlvr_lib.config import load_params
from rlvr_lib.eval.passk import pass_at_k
from rlvr_lib.papers.aer import Paper, min_gap, problem_level
from rlvr_lib.papers.claims import NotTestable
from rlvr_lib.papers.quotes import find_quote


@pytest.fixture(scope="module")
def paper() -> Paper:
    return Paper(load_params(REPO / "params.yaml"))


def structure_faults(claims) -> list[str]:
    """Parts whose parent is not a conjunction declared before them, conjunctions without parts, and parts whose
    quote is not words of their parent's quote."""
    faults, wholes = [], {}
    for c in claims:
        if c.direction is None:
            wholes[c.key] = c
        elif c.parent is not None:
            if c.parent not in wholes:
                faults.append(f"{c.key}: parent {c.parent} is not a conjunction declared before it")
            elif find_quote(c.quote, wholes[c.parent].quote):
                faults.append(f"{c.key}: its quote is not words of {c.parent}'s")
    with_parts = {c.parent for c in claims if c.parent}
    faults += [f"{key}: a conjunction without parts" for key in wholes if key not in with_parts]
    return faults


def claims_of(paper: Paper):
    return [c for c, _ in paper._claims]


def test_conjunctions_are_judged_from_parts_quoted_from_them(paper):
    claims = claims_of(paper)
    assert structure_faults(claims) == []
    parts = {}
    for c in claims:
        if c.parent:
            parts.setdefault(c.parent, []).append(c.key)
    r = paper.runs
    assert parts["table1_vs_baselines"] == [
        f"{kind}_vs_{b}" for b in [r.grpo, *r.baselines] for kind in ("pass1", "passk")
    ]
    assert parts["passk_all_k"] == [f"passk_all_k_vs_{o}" for o in (r.base, r.grpo, r.clip_higher)]
    assert parts["k50_aime24"] == [f"k50_vs_{o}" for o in (r.clip_higher, r.base, r.grpo)]
    c3 = parts["c3_prevents_collapse_and_explosion"]
    assert {f"no_explosion_{run}" for run in r.tau_sweep} <= set(c3) and f"no_collapse_{r.aer}" in c3
    assert parts["aer_best_of_table2"] == ["aer_vs_c2c3", "aer_vs_c1", "aer_vs_grpo_table2", "aer_vs_fixed"]
    assert parts["tau_sweet_spot"] == [f"tau_{run}" for run in r.tau_sweep]
    keys = [c.key for c in claims]
    assert len(keys) == len(set(keys))


def test_a_planted_structure_fault_is_caught(paper):
    claims = claims_of(paper)
    i = next(i for i, c in enumerate(claims) if c.parent == "passk_all_k")
    stitched = dataclasses.replace(claims[i], quote="higher pass@1 than every baseline")
    orphan = dataclasses.replace(claims[i], key="orphan", parent="no_such_claim")
    faults = structure_faults([*claims[:i], stitched, orphan, *claims[i + 1 :]])
    assert faults == [
        f"{claims[i].key}: its quote is not words of passk_all_k's",
        "orphan: parent no_such_claim is not a conjunction declared before it",
    ]


def with_counts(paper: Paper, counts: dict[str, float]) -> Paper:
    """``paper`` with the pass@k samples replaced: every seed and problem of run ``r`` has ``counts[r]`` correct."""
    p = paper.settings.pass_at_k
    paper._done["_large_k"] = {run: np.full((3, 4), c) for run, c in counts.items()}
    assert p.n == 256
    return paper


def test_min_gap_over_k_leaves_out_saturated_k_and_finds_the_worst(paper):
    r = paper.runs
    with_counts(paper, {r.aer: 128.0, r.grpo: 64.0})
    estimate = paper._min_gap_over_k(r.aer, r.grpo)
    # k = 16 on: both within 2% of 1, left out; the worst of k = 1 .. 8 is k = 8 (AER 0.996 vs GRPO 0.900)
    worst = pass_at_k(256, 128, 8) - pass_at_k(256, 64, 8)
    assert worst < 0.25 and estimate.value == pytest.approx(worst) and "k = [1, 2, 4, 8]" in estimate.detail
    assert estimate.n_seeds == 3 and estimate.ci_low == estimate.ci_high == pytest.approx(worst)
    with_counts(paper, {r.aer: 256.0, r.grpo: 256.0})
    with pytest.raises(NotTestable, match="saturated"):
        paper._min_gap_over_k(r.aer, r.grpo)
    paper._done.pop("_large_k")


def test_helpers():
    assert problem_level("L3-ab12cd34ef") == 3 and problem_level("17") is None
    assert min_gap([31.4, 72.4], [27.1, 69.5]) == pytest.approx(2.9)
