"""rlvr_lib.papers.framework.claims: the verdict rule (every branch, and the printed rule equals the code), seed-level t
intervals, minimum seeds, saturation, sized and conjunctive claims, the claims table; the comparison guard
(rlvr_lib.papers.framework.guard) and the verbatim-quote check (rlvr_lib.papers.framework.quotes)."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from conftest import REPO, declared_claims
from scipy import stats

from rlvr_lib.papers.framework import guard, quotes
from rlvr_lib.papers.framework.claims import (
    BRANCHES,
    DOES_NOT_HOLD,
    HOLDS,
    INCONCLUSIVE,
    MIN_SEEDS,
    NOT_TESTABLE,
    VERDICT_RULE,
    VERDICTS,
    Claim,
    Estimate,
    NotTestable,
    claims_frame,
    claims_table,
    combine,
    detectable_effect,
    estimate_of,
    exact,
    judge,
    judge_whole,
    not_testable,
    paired_difference,
    verdict,
    verdict_counts,
)
from rlvr_lib.settings.papers import PAPERS

MARGIN = 0.01


# ----------------------------------------------------------------------------- the rule
@pytest.mark.parametrize("branch", BRANCHES, ids=lambda b: b.name)
def test_every_branch_of_the_printed_rule_is_the_code(branch):
    """Each line of VERDICT_RULE is one branch; its example reaches exactly that branch and verdict."""
    direction, value, low, high, margin, effect = branch.example
    assert verdict(direction, value, low, high, margin, effect=effect) == (branch.verdict, branch.name)
    assert f"- {branch.text}." in VERDICT_RULE


def test_every_branch_is_reachable_and_no_other_exists():
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(3000):
        direction = rng.choice(["greater", "less", "equal"])
        low, high = sorted(rng.normal(0, 0.05, 2))
        value = rng.uniform(low, high)
        seen.add(verdict(direction, value, low, high, MARGIN)[1])
    assert seen == {b.name for b in BRANCHES}


@pytest.mark.parametrize(
    ("direction", "value", "low", "high", "expected"),
    [
        ("greater", 0.05, 0.02, 0.08, HOLDS),  # detected and material
        ("greater", 0.004, 0.001, 0.007, DOES_NOT_HOLD),  # detected but the whole interval is below the margin
        ("greater", 0.008, 0.001, 0.015, INCONCLUSIVE),  # detected, estimate below the margin, could still matter
        ("greater", 0.015, 0.001, 0.03, HOLDS),
        ("greater", -0.03, -0.05, -0.02, DOES_NOT_HOLD),  # the other direction
        ("greater", 0.01, -0.02, 0.05, INCONCLUSIVE),  # straddles 0
        ("greater", 0.02, 0.0, 0.05, INCONCLUSIVE),  # touching 0 does not exclude it
        ("less", -0.05, -0.08, -0.02, HOLDS),
        ("less", 0.03, 0.02, 0.05, DOES_NOT_HOLD),
        ("less", -0.004, -0.008, 0.005, DOES_NOT_HOLD),  # a material decrease is excluded
        ("less", -0.01, -0.05, 0.02, INCONCLUSIVE),
        ("equal", 0.001, -0.005, 0.008, HOLDS),
        ("equal", 0.03, 0.02, 0.05, DOES_NOT_HOLD),
        ("equal", -0.03, -0.05, -0.02, DOES_NOT_HOLD),
        ("equal", 0.02, -0.005, 0.05, INCONCLUSIVE),
    ],
)
def test_verdict_cases(direction, value, low, high, expected):
    assert verdict(direction, value, low, high, MARGIN)[0] == expected


def test_a_stated_size_is_the_reference():
    # "collapses to 0%": the run's accuracy d = acc - 0 within +-0.05 holds; an interval far from 0 excludes it
    assert verdict("equal", 0.01, 0.0, 0.02, 0.05, reference=0.0)[0] == HOLDS
    assert verdict("equal", 0.40, 0.35, 0.45, 0.05, reference=0.0)[0] == DOES_NOT_HOLD
    # "a 2x speed-up": a ratio of 1.3 [1.2, 1.4] excludes 2 (and anything within 0.1 of it)
    assert verdict("greater", 1.3, 1.2, 1.4, 0.1, reference=2.0)[0] == DOES_NOT_HOLD
    assert verdict("greater", 2.5, 2.2, 2.8, 0.1, reference=2.0)[0] == HOLDS


def test_verdict_rejects_bad_input():
    with pytest.raises(ValueError, match="direction"):
        verdict("up", 0.5, 0.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="inside its interval"):
        verdict("greater", 0.5, 1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="inside its interval"):
        verdict("greater", 2.0, 0.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="inside its interval"):
        verdict("greater", math.nan, 0.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="margin"):
        Claim("k", "q", "s", "p", "o", "greater", -1.0)
    with pytest.raises(ValueError, match="direction"):
        Claim("k", "q", "s", "p", "o", "sideways", 0.1)


# ----------------------------------------------------------------------------- intervals
def test_the_interval_is_students_t_over_the_per_seed_paired_differences():
    rng = np.random.default_rng(0)
    a = rng.random((5, 40))
    b = a - 0.1 + 0.05 * rng.standard_normal((5, 40))
    e = paired_difference(a, b, labels=("x", "y"))
    per_seed = (a - b).mean(axis=1)
    half = stats.t.ppf(0.975, 4) * per_seed.std(ddof=1) / math.sqrt(5)
    assert e.value == pytest.approx(per_seed.mean())
    assert (e.ci_low, e.ci_high) == pytest.approx((per_seed.mean() - half, per_seed.mean() + half))
    assert (e.n_seeds, e.n_problems) == (5, 40) and e.arms == pytest.approx((a.mean(), b.mean()))
    assert e.detail.startswith("x 0.") and " vs y " in e.detail


def test_three_seeds_give_more_than_their_min_and_max():
    # the percentile bootstrap of 3 values is at most [min, max]; the t interval is wider: seed variance is real
    e = estimate_of(np.array([0.1, 0.2, 0.3]))
    assert e.ci_low < 0.1 and e.ci_high > 0.3
    assert e.n_problems is None and e.n_seeds == 3


def test_pairing_matters_a_shared_seed_effect_cancels():
    shift = np.array([[-0.3], [0.0], [0.3]])
    base = np.tile(np.linspace(0.2, 0.8, 50), (3, 1)) + shift
    e = paired_difference(base + 0.02, base)
    assert e.ci_low == pytest.approx(0.02) and e.ci_high == pytest.approx(0.02)


def test_missing_values_are_not_testable():
    with pytest.raises(NotTestable, match="missing"):
        estimate_of(np.array([0.1, math.nan, 0.2]))
    with pytest.raises(ValueError, match="shapes"):
        paired_difference(np.zeros((2, 3)), np.zeros((2, 4)))


def test_detectable_effect_shrinks_with_seeds():
    assert detectable_effect(0.01, 3) > detectable_effect(0.01, 5) > 0
    assert detectable_effect(0.01, 1) == math.inf


# ----------------------------------------------------------------------------- judging
def _claim(key="c", direction="greater", **kw):
    return Claim(key, "X beats Y", "sec. 1, table 1", "50.1 vs 45.5", "mean@n of x minus y", direction, MARGIN, **kw)


def test_fewer_than_three_seeds_is_not_testable_whatever_the_interval():
    one = estimate_of(np.array([[0.5, 0.6]]))  # one seed: an infinite interval, and no verdict
    two = estimate_of(np.array([0.20, 0.21]))
    for e in (one, two):
        r = judge(_claim(), e)
        assert r.verdict == NOT_TESTABLE and f"needs {MIN_SEEDS} per arm" in r.note
    assert judge(_claim(), estimate_of(np.array([0.20, 0.21, 0.22]))).verdict == HOLDS


def test_a_saturated_metric_is_not_testable():
    at_ceiling = paired_difference(np.full((3, 4), 0.995), np.full((3, 4), 0.99), bounds=(0.0, 1.0))
    r = judge(_claim(), at_ceiling)
    assert r.verdict == NOT_TESTABLE and "ceiling" in r.note
    at_floor = paired_difference(np.full((3, 4), 0.0), np.full((3, 4), 0.01), bounds=(0.0, 1.0))
    assert "floor" in judge(_claim(), at_floor).note
    one_high = paired_difference(np.full((3, 4), 0.995), np.full((3, 4), 0.5) + [[0.0], [0.01], [0.02]], bounds=(0, 1))
    assert judge(_claim(), one_high).verdict == HOLDS  # only one arm at the ceiling: a real difference


def test_inconclusive_states_the_detectable_effect_beside_the_papers():
    e = estimate_of(np.array([-0.02, 0.03, 0.05]))
    r = judge(_claim(paper_effect=0.046), e)
    assert r.verdict == INCONCLUSIVE
    assert "could detect |d - ref| >= +0." in r.note and "the paper's effect: +0.046" in r.note


def test_an_exact_number_needs_no_seeds():
    r = judge(_claim(direction="equal", reference=8441), exact(8441, "8,441 kept"))
    assert r.verdict == HOLDS and r.branch == "equivalent"


def test_conjunctive_claims_are_judged_whole_and_counted_once():
    assert combine([HOLDS, HOLDS]) == HOLDS
    assert combine([HOLDS, DOES_NOT_HOLD, NOT_TESTABLE]) == DOES_NOT_HOLD
    assert combine([HOLDS, NOT_TESTABLE, INCONCLUSIVE]) == NOT_TESTABLE
    assert combine([HOLDS, INCONCLUSIVE]) == INCONCLUSIVE
    whole = Claim("both", "higher accuracy while maintaining shorter lengths", "s", "p", "o", None, 0.0)
    parts = [
        judge(_claim("acc", parent="both"), estimate_of(np.array([-0.4, -0.38, -0.39]))),
        judge(_claim("len", "less", parent="both"), estimate_of(np.array([-3.0, -2.5, -2.8]))),
    ]
    r = judge_whole(whole, parts)
    assert [p.verdict for p in parts] == [DOES_NOT_HOLD, HOLDS] and r.verdict == DOES_NOT_HOLD
    assert r.note == "does not hold: acc"  # the part that decided it
    assert verdict_counts([r]) == {**dict.fromkeys(VERDICTS, 0), DOES_NOT_HOLD: 1}
    table = claims_table([r])
    assert len(table) == 3 and table["claim"].iloc[1].startswith("↳ ")
    assert table["claimed"].iloc[0] == "every part holds"
    assert claims_frame([r])["parent"].tolist() == ["", "both", "both"]
    with pytest.raises(ValueError, match="judged from its parts"):
        judge(whole, parts[0].estimate)


def test_claims_table_has_a_verdict_in_every_row_and_the_reason_when_not_testable():
    results = [
        judge(_claim("a"), Estimate(0.03, 0.02, 0.04, 3, 128, "x 0.53 vs y 0.50", 0.002)),
        judge(_claim("b", "less"), Estimate(0.03, 0.02, 0.04, 3, None, "", 0.002)),
        not_testable(_claim("c"), "GPG is not implemented"),
    ]
    table = claims_table(results)
    assert list(table["verdict"]) == [
        f"**{HOLDS}**",
        f"**{DOES_NOT_HOLD}** (opposite effect detected)",
        f"**{NOT_TESTABLE}** (beyond the testbed)",
    ]
    assert table["claim"].iloc[0] == "“X beats Y”"
    assert "+0.030 [+0.020, +0.040]" in table["ours"].iloc[0] and "3 seeds x 128 problems" in table["ours"].iloc[0]
    assert table["ours"].iloc[2] == "—" and "GPG is not implemented" in table["how ours is computed"].iloc[2]
    frame = claims_frame(results)
    assert frame["verdict"].tolist() == [HOLDS, DOES_NOT_HOLD, NOT_TESTABLE]
    assert math.isnan(frame["value"].iloc[2]) and frame["note"].iloc[2] == "GPG is not implemented"
    assert verdict_counts(results) == {**dict.fromkeys(VERDICTS, 0), HOLDS: 1, DOES_NOT_HOLD: 1, NOT_TESTABLE: 1}


# ----------------------------------------------------------------------------- the comparison guard
@pytest.fixture(scope="module")
def params():
    from rlvr_lib.settings import config

    return config.load_params(REPO / "params.yaml")


def test_the_guard_names_every_extra_setting(params):
    # grpo_8updates (OPEFO's, verl's token loss) differs from grpo in its update count and aggregation
    with pytest.raises(guard.ComparisonRefused) as refused:
        guard.check_comparison(params, "grpo_8updates", "grpo", ["method"])
    assert "train.steps_per_generation (8 vs 2)" in str(refused.value)
    assert "method.loss_agg ('token-mean' vs 'seq-mean-token-mean')" in str(refused.value)
    guard.check_comparison(params, "grpo_8updates", "grpo", ["train.steps_per_generation", "method.loss_agg"])


def test_the_guard_requires_shared_hyperparameters_to_be_equal(params):
    # ERPO's KL coefficient (0.001) and aggregation (token-mean) are GRPO hyperparameters too: a baseline with
    # GRPO's defaults differs in them, which "method" does not cover; ERPO's own switches are its method
    diff = guard.undeclared(params, "erpo", "grpo", ["method"])
    assert {"method.beta", "method.loss_agg"} <= set(diff)
    assert not any(k.startswith("method.use_") for k in diff)  # ERPO-only hyperparameters are the method
    assert "method.log_percentiles" not in guard.settings_difference(params, "grpo", "dapo")  # logging only


def test_the_guard_refuses_a_different_training_set(params):
    with pytest.raises(guard.ComparisonRefused, match="train_data"):
        guard.check_comparison(params, "grpo_erpo_data", "dapo", ["method"])
    guard.check_comparison(params, "base", "grpo_8updates", ["method"])  # the base policy is not a run's setting


# ----------------------------------------------------------------------------- verbatim quotes
PAPER = (
    "We find that  ERPO\nconsistently improves accuracy. It also keeps the entropy (Fig. 4) stable, by \\+2\\.7 points."
)


def test_a_verbatim_quote_matches_across_line_breaks_and_elisions():
    assert quotes.find_quote("ERPO consistently improves accuracy", PAPER) == []
    assert quotes.find_quote("ERPO consistently ... keeps the entropy ... stable", PAPER) == []
    assert quotes.find_quote("ERPO consistently improves accuracy…stable,", PAPER) == []
    assert quotes.find_quote("by +2.7 points", PAPER) == [] == quotes.find_quote("by \\+2\\.7 points", PAPER)


def test_a_paraphrase_or_a_wrong_order_is_caught():
    assert quotes.find_quote("ERPO always improves accuracy", PAPER) == ["ERPO always improves accuracy"]
    assert quotes.find_quote("stable ... ERPO consistently", PAPER) == ["ERPO consistently"]
    assert quotes.find_quote("...", PAPER) == ["..."]


def test_a_methods_defining_hyperparameters_are_the_method(params):
    import copy
    import dataclasses

    # DAPO's clip-higher eps_high and token-level loss define it: DAPO vs GRPO differs in the method only
    assert guard.undeclared(params, "dapo", "grpo", ["method"]) == {}
    planted = copy.copy(params)
    planted.runs = {**params.runs, "dapo_kl": dataclasses.replace(params.runs["dapo"], hparams={"beta": 0.01})}
    assert set(guard.undeclared(planted, "dapo_kl", "grpo", ["method"])) == {"method.beta"}  # a KL term is not DAPO


@pytest.mark.parametrize("name", PAPERS)
def test_every_quote_is_the_papers_own_words_and_a_planted_paraphrase_is_caught(name):
    """Every claim and part each paper declares quotes ../shared/papers/<paper>.txt verbatim."""
    source = REPO / importlib.import_module(f"rlvr_lib.papers.{name}").Paper.source
    if not source.is_file():
        pytest.skip(f"the paper's text is not here: {source}")
    claims = declared_claims(name)
    assert claims and quotes.check_quotes({c.key: c.quote for c in claims}, source) == {}
    first = claims[0]
    word = next(w for w in first.quote.split() if len(w) > 4 and w.isalpha())
    planted = {first.key: first.quote.replace(word, word.upper() + "S", 1)}
    assert list(quotes.check_quotes(planted, source)) == [first.key]


def test_log_entropy_retained_is_finite_for_a_collapsed_run():
    import pandas as pd

    from rlvr_lib.papers.framework.results import LOG_FACTOR, RETAINED_FLOOR, log_entropy_retained

    history = pd.DataFrame({"step": range(1, 7), "entropy/mean": [0.4, 0.0, 0.0, 0.0, 0.0, 0.0]})
    collapsed = log_entropy_retained(history)
    assert collapsed == pytest.approx(math.log(RETAINED_FLOOR)) and collapsed < -LOG_FACTOR
    grown = pd.DataFrame({"step": range(1, 7), "entropy/mean": [0.2, 0.4, 0.8, 0.8, 0.8, 0.8]})
    exploded = log_entropy_retained(grown)  # last 5 steps (0.4 + 4 x 0.8) / 5 over the first 0.2: x3.6
    assert exploded == pytest.approx(math.log(3.6)) and exploded > LOG_FACTOR


def test_a_word_hyphenated_across_the_pdfs_line_break_is_found_whole():
    text = "096 OPEFO achieves the\n099 most stable entropy dynamics among strong base-  \n100 lines. Overall\n"
    assert quotes.find_quote("the most stable entropy dynamics among strong baselines", text) == []
    assert quotes.find_quote("the most stable entropy dynamics among weak baselines", text) != []  # verbatim only
