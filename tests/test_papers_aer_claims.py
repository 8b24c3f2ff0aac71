"""AER's claims: every conjunctive claim is judged from parts quoted from it, and the pass@k quantities behind "across
all k" leave out the saturated k (every quote is checked against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import REPO

from rlvr_lib.eval.passk import pass_at_k
from rlvr_lib.papers.aer import Paper, text
from rlvr_lib.papers.aer import measures as aer_measures
from rlvr_lib.papers.aer.measures import min_gap
from rlvr_lib.papers.framework.claims import CONTRAST, NotRun, NotTestable
from rlvr_lib.papers.framework.declare import check_declared
from rlvr_lib.papers.framework.quotes import find_quote
from rlvr_lib.papers.framework.results import RunResults
from rlvr_lib.settings.config import load_params


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
    regimes = [run for run in r.tau_sweep if not 0.3 < paper.hparam(run, "tau") < 0.8]  # <= 0.3 and >= 0.8
    assert parts["tau_sweet_spot"] == [f"tau_{run}" for run in regimes]
    assert parts["tau_high_regime"] == ["tau_high_1_0", "tau_high_1_2"]
    assert parts["k50_aime24_mapped"] == [f"k50_mapped_vs_{o}" for o in (r.clip_higher, r.base, r.grpo)]
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
    estimate = aer_measures.min_gap_over_k(paper, r.aer, r.grpo)
    # k = 16 on: both within 2% of 1, left out; the worst of k = 1 .. 8 is k = 8 (AER 0.996 vs GRPO 0.900)
    worst = pass_at_k(256, 128, 8) - pass_at_k(256, 64, 8)
    assert worst < 0.25 and estimate.value == pytest.approx(worst) and "k = [1, 2, 4, 8]" in estimate.detail
    assert estimate.n_seeds == 3 and estimate.ci_low == estimate.ci_high == pytest.approx(worst)
    with_counts(paper, {r.aer: 256.0, r.grpo: 256.0})
    with pytest.raises(NotTestable, match="saturated"):
        aer_measures.min_gap_over_k(paper, r.aer, r.grpo)
    paper._done.pop("_large_k")


def test_helpers():
    assert RunResults.problem_level("L3-ab12cd34ef") == 3 and RunResults.problem_level("17") is None
    assert min_gap([31.4, 72.4], [27.1, 69.5]) == pytest.approx(2.9)


# ----------------------------------------------------------------------------- round 3 (R3-A*, a*): each fix pinned
import pandas as pd  # noqa: E402

from rlvr_lib.papers.aer.measures import (  # noqa: E402
    PAPER_K50_POSITION,
    after_crossing,
    entropy_by_share,
    initial_entropy,
    largest_rise_between_fifths,
    late_reward_gain,
)
from rlvr_lib.papers.framework import measures  # noqa: E402

PAPER_TEXT = (REPO.parent / "shared" / "papers" / "aer.txt") if (REPO.parent / "shared").exists() else None


def by_key(paper: Paper) -> dict:
    return {c.key: c for c in claims_of(paper)}


def history(entropy, reward=None) -> pd.DataFrame:
    """One seed's history with one row per rollout batch (1 update per batch)."""
    h = pd.DataFrame({"step": range(1, len(entropy) + 1), "entropy/mean": entropy})
    if reward is not None:
        h["reward"] = reward
    h.attrs[measures.UPDATES_ATTR] = 1
    return h


def test_k50_reads_a_discrete_measure_and_a_threshold_mapped_like_the_papers(paper):
    """R3-A1: log2 k50 is declared discrete (the framework refuses its zero-width interval), and a second threshold
    sits between the base's pass@1 and pass@n where the paper's 50% sits between 11.5 and 64.3."""
    claims = by_key(paper)
    r = paper.runs
    for suffix in ("", "_mapped"):
        for other in (r.clip_higher, r.base, r.grpo):
            assert claims[f"k50{suffix}_vs_{other}"].measure == "log2_k50"
    assert measures.MEASURES["log2_k50"].discrete
    assert PAPER_K50_POSITION == pytest.approx((50 - 11.5) / (64.3 - 11.5))
    with_counts(paper, {r.base: 64.0, r.grpo: 200.0, r.clip_higher: 200.0, r.aer: 200.0})
    p1, pn = pass_at_k(256, 64, 1), pass_at_k(256, 64, 256)
    assert aer_measures.mapped_k50_threshold(paper) == pytest.approx(p1 + PAPER_K50_POSITION * (pn - p1))
    paper._done.pop("_large_k")


def test_fig2_and_the_intro_claim_are_tested_on_the_coefficient_runs(paper):
    """R3-A2: fig. 2's coefficient-0.1 claim reads the fixed-coefficient runs (no health gate: the explosion is the
    evidence), and the intro's small / large coefficient claim is declared."""
    claims = by_key(paper)
    for key in ("fig2_large_accuracy", "fig2_large_length", "large_coefficient_explodes"):
        assert claims[key].requires == ()
    assert claims["fig2_large_length"].measure == "response_length"
    assert claims["large_coefficient_explodes"].universal
    assert claims["small_coefficient_collapses"].parent == "coefficient_sensitivity"


def test_fig2_reads_the_level_set_runs_on_their_own_level(paper, monkeypatch):
    """Issue 33: fig. 2(a, b) trains the fixed coefficient 0 / 0.01 / 0.1 on the easiest / the hardest level only
    (one change, the coefficient: 0 is AER with both components off, i.e. GRPO) and reads the eval problems of that
    level; a planted result on the other levels is not read."""
    r = paper.runs
    claims = by_key(paper)
    for runs, level in ((r.fig2_easy, [1]), (r.fig2_hard, [3])):
        assert [paper.hparam(run, "alpha_init") for run in runs] == [0.0, 0.01, 0.1]
        assert all(paper.results.training_levels(run) == level for run in runs)
    assert [c.key for c in claims.values() if c.parent == "fig2_hard_set"] == ["fig2_hard_accuracy", "fig2_hard_length"]
    assert claims["fig2_easy_set"].direction == "less" and claims["fig2_hard_accuracy"].direction == "greater"
    for key in ("fig2_hard_accuracy", "fig2_easy_set"):
        # coefficient 0 has no alpha, so no "active" gate; the null is the contrast arm (coefficient 0 in place of
        # the coefficient the claim reads: no difference, issue 40's null for every claim)
        assert claims[key].null == CONTRAST and "active" not in claims[key].requires
    big = [c.key for c in claims.values() if c.parent == "fig2_large_coefficient"]
    assert {"fig2_large_accuracy_easy", "fig2_large_accuracy_hard"} <= set(big)
    for name in ("easy", "hard"):  # the length half of the sentence on each level too; the explosion is the evidence
        length = claims[f"fig2_large_length_{name}"]
        assert length.parent == "fig2_large_coefficient" and length.measure == "response_length"
        assert length.requires == () and length.direction == "greater"
    uids = ["L1-a", "L3-b", "L3-c", "L2-d"]
    tables = {  # (seeds, problems) mean@n: the 0.01 run gains 0.2 on level 3 and loses on levels 1-2 (not read)
        r.fig2_hard[0]: [[0.9, 0.2, 0.4, 0.5], [0.8, 0.3, 0.3, 0.5], [0.9, 0.1, 0.5, 0.5]],
        r.fig2_hard[1]: [[0.1, 0.4, 0.6, 0.0], [0.1, 0.5, 0.5, 0.0], [0.1, 0.3, 0.7, 0.0]],
    }
    checked = []
    monkeypatch.setattr(paper.results, "check", lambda a, b, differs_in: checked.append(differs_in))
    monkeypatch.setattr(paper.results, "uids", lambda run: uids)
    monkeypatch.setattr(paper.results, "common_seeds", lambda *runs: [0, 1, 2])
    monkeypatch.setattr(paper.results, "eval_table", lambda run, metric, seeds: np.asarray(tables[run]))
    d = paper.results.compare_on_levels(r.fig2_hard[1], r.fig2_hard[0], "accuracy", ("method.alpha_init",))
    assert d.value == pytest.approx(0.2) and checked == [("method.alpha_init",)]
    with pytest.raises(ValueError, match="one level set"):
        paper.results.compare_on_levels(r.fig2_hard[1], r.fig2_easy[0], "accuracy", ("method.alpha_init",))


def test_initial_entropy_is_tested_per_factor(paper):
    """R3-A3: temperature and dataset from existing runs, the base model with its reason."""
    claims = by_key(paper)
    parts = [c.key for c in claims.values() if c.parent == "fig2c_initial_entropy"]
    assert parts == ["initial_entropy_temperature", "initial_entropy_dataset", "initial_entropy_base_model"]
    assert paper.runs.temperature_grpo == "grpo_cw" and paper.runs.data_grpo == "grpo_erpo_data"
    assert initial_entropy(history([0.3, 0.2, 0.1])) == pytest.approx(0.3)


def test_c3_is_judged_per_seed_on_the_peak_with_grpo_in_its_place(paper):
    """R3-A4: every C3 part is universal; explosion reads the peak (a transient explosion counts) with only the
    `active` gate; collapse keeps the null (GRPO)."""
    claims = by_key(paper)
    parts = [c for c in claims.values() if c.parent == "c3_prevents_collapse_and_explosion"]
    assert parts and all(c.universal for c in parts)
    for c in parts:
        if c.key.startswith("no_explosion_"):
            assert c.requires == ("active",) and c.measure == "log_peak_entropy_ratio"
            assert c.reference == measures.ENTROPY_FACTOR
        else:
            assert "active" in c.requires and c.null == "auto"
    exploded_and_back = history([1.0, 3.0, 1.0, 0.9])
    assert measures.peak_entropy_ratio(exploded_and_back) == pytest.approx(3.0)
    assert measures.entropy_retained(exploded_and_back) < measures.ENTROPY_FACTOR  # the end window hides it


def test_an_idle_controller_fails_its_claims_and_tau_0_3_is_a_sweep_run(paper):
    """R3-A5: claims on AER runs keep the `active` gate; tau 0.3 is a run of the sweep (issue 33)."""
    claims = by_key(paper)
    for run in paper.runs.tau_sweep:
        if f"tau_{run}" in claims:
            assert "active" in claims[f"tau_{run}"].requires
        assert "active" in claims[f"no_collapse_{run}"].requires
    assert claims["tau_aer_tau_0_3"].parent == "tau_sweet_spot"


def test_table_8s_taus_are_runs_and_their_claims_read_them(paper):
    """Issue 33: table 8's tau 0.3, 0.5, 0.6, 1.0 and 1.2 are sweep runs (1.2 above eq. 10's (0, 1), as table 8);
    the plateau and the high regime read them; a tau with no run is NOT RUN naming the run to add."""
    taus = sorted(paper.hparam(run, "tau") for run in paper.runs.tau_sweep)
    assert taus == [0.2, 0.3, 0.5, 0.6, 0.8, 1.0, 1.2]
    assert aer_measures.tau_run(paper, 1.2) == "aer_tau_1_2" and aer_measures.tau_run(paper, 0.5) == "aer_tau_0_5"
    with pytest.raises(NotRun, match="aer_tau_0_7") as missing:
        aer_measures.tau_run(paper, 0.7)
    assert missing.value.cost == 3
    claims = by_key(paper)
    assert claims["tau_plateau"].direction == "equal"
    assert claims["tau_high_1_2"].paper_effect == pytest.approx(0.01)  # 54.1 - 53.1 points
    inflated = [c.key for c in claims.values() if c.parent == "tau_inflates_entropy"]
    assert inflated == ["tau_entropy_aer_tau_0_8", "tau_entropy_aer_tau_1_0", "tau_entropy_aer_tau_1_2"]
    computes = {c.key: compute for c, compute in paper._claims}
    if not (REPO / "reports" / "eval" / "aer_tau_0_5").exists():
        with pytest.raises(NotRun):
            computes["tau_plateau"]()


def test_margins_are_capped_where_the_paper_states_an_effect(paper):
    """R3-A6: every comparison with a paper number carries it as paper_effect (the framework caps the margin)."""
    claims = by_key(paper)
    stated = [k for k in claims if k.startswith(("pass1_vs_", "passk_vs_", "aer_vs_", "rho_aer_", "k50_"))]
    stated.remove("k50_aime25")  # AIME2025: beyond the testbed, no comparison
    stated += ["fixed_vs_grpo", "c2c3_vs_fixed", "headroom_vs_clip_higher", "tau_aer_tau_0_2", "tau_aer_tau_0_8"]
    missing = [k for k in stated if claims[k].direction is not None and claims[k].paper_effect is None]
    assert missing == []


def test_fig3_has_one_reading_for_b_c_and_e(paper):
    """R3-A7: reward, entropy and length panels compare AER with GRPO and Clip-Higher only."""
    r = paper.runs
    assert aer_measures.fig3_runs(paper) == [r.grpo, r.clip_higher]
    parts = [c.key for c in claims_of(paper) if c.parent == "reward_higher"]
    assert parts == [f"reward_vs_{b}" for b in aer_measures.fig3_runs(paper)]


def test_length_claims_read_a_measure_the_task_fixes(paper):
    """R3-A8: every length claim declares its length measure (fixed by the task: not testable here)."""
    claims = by_key(paper)
    lengths = [c for c in claims.values() if c.direction is not None and "length" in c.ours]
    assert lengths and all(measures.MEASURES[c.measure].fixed_by for c in lengths)


def test_throughout_training_is_the_window_after_the_first_crossing():
    """R3-A9: the batches from the first at or below the target on; a run that never gets there has none."""
    series = pd.Series([1.0, 0.6, 0.35, 0.45, 0.38], index=[1, 3, 5, 7, 9])
    assert after_crossing(series, 0.4).tolist() == [0.35, 0.45, 0.38]
    assert after_crossing(series, 0.1).empty


def test_the_early_window_is_a_share_of_training_and_grpo_entropy_is_calibrated(paper):
    """R3-A10: "first 100 steps" is a share (the paper's >= 500 steps), and the claim reads a calibrated measure."""
    claims = by_key(paper)
    assert measures.MEASURES[claims["grpo_entropy_drop"].measure].calibrated
    assert "20%" in claims["grpo_entropy_drop"].ours
    h = history([1.0] * 10 + [0.5] * 40)  # 50 batches: the first 20% are batches 1-10
    assert entropy_by_share(h, 0.2) == pytest.approx(1.0)
    assert entropy_by_share(h, 0.4) == pytest.approx(0.5)


def test_entropy_levels_are_compared_on_the_log_scale(paper):
    """a2: no claim compares raw entropy ratios (grpo_entropy_drop is a level against 1/2, calibrated)."""
    raw = [c.key for c in claims_of(paper) if c.measure == "entropy_retained" and c.key != "grpo_entropy_drop"]
    assert raw == []
    for key in ("higher_entropy", "band_vs_grpo", "clip_higher_mitigates", "tau_entropy_aer_tau_0_8"):
        assert by_key(paper)[key].measure == "log_entropy_retained"


def test_part_quotes_start_at_a_word(paper):
    """a8: a part's quote starts at a word of the paper (no half of a hyphenated word)."""
    if PAPER_TEXT is None:
        pytest.skip("the papers are not checked out beside the repository")
    text = " ".join(PAPER_TEXT.read_text(encoding="utf-8").split())

    def mid_word(quote: str) -> bool:
        first = quote.split("...")[0].strip()
        at = text.find(first)
        return at > 0 and text[at - 1].isalnum()

    assert [c.key for c in claims_of(paper) if c.parent and mid_word(c.quote)] == []
    assert mid_word("aining higher entropy")  # a planted mid-word start is caught
    assert by_key(paper)["higher_entropy"].quote == "higher entropy"  # not "taining ..." (a page's hyphenation)


def test_missing_claims_are_declared(paper):
    """a9: sec. 3's monotone decrease, fig. 3(f)'s continuous improvement, sec. 5.3's many hard questions."""
    claims = by_key(paper)
    assert claims["grpo_entropy_monotone"].universal
    assert "continuously_improve" in claims
    assert any(k.startswith("rho_many_hard_") for k in claims)
    # issue 33 item 5: the three sentences, quoted whole (verbatim: tests/test_papers_claims.py), on existing runs
    assert claims["coefficient_sensitivity"].quote == (
        "Small coefficients cannot prevent entropy collapse, whereas excessively large coefficients may induce "
        "entropy explosion"
    )
    assert (
        claims["grpo_entropy_monotone"].quote
        == "policy entropy decreases monotonically without any entropy intervention"
    )
    assert claims["rho_many_hard_aer_rho_1"].quote == "an overly large ρ makes many questions “hard,”"
    falling = history([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])
    assert largest_rise_between_fifths(falling) < 0
    rising = history([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.6, 0.7])
    assert largest_rise_between_fifths(rising) > 0
    improving = history([1.0] * 10, reward=[0.0] * 6 + [0.2, 0.2, 0.5, 0.5])
    assert late_reward_gain(improving) == pytest.approx(0.3)


def test_the_tuned_fixed_coefficient_is_not_read_as_the_claims_runs(paper):
    """Table 2's selection reads the grid's reward; only the selected run is an arm (a diverged grid run's health
    gate does not fail the claim)."""
    try:
        with paper.results.recording() as reads:
            tuned = aer_measures.tuned_fixed_coeff(paper)
    except NotTestable:
        pytest.skip("no training histories here")
    assert tuned in paper.runs.fixed_coeff_grid and reads.runs == []


def test_the_fig2_note_gives_the_healthy_gates_inputs_on_level_set_runs(paper, monkeypatch):
    """Issue 33 item 6: the healthy gate reads the whole evaluation set and the run's own first batch; on a run
    trained on one level the Discussion gives those numbers per run, so a misfire shows. Planted: coefficient 0 and
    0.01 healthy (whole-set mean@n above the base's, entropy flat), 0.1 exploding (x20)."""
    r = paper.runs
    uids = ["L1-a", "L1-b", "L3-c", "L2-d"]
    tables = {
        "base": [[0.2] * 4] * 3,
        r.fig2_easy[0]: [[0.9, 0.7, 0.1, 0.1]] * 3,
        r.fig2_easy[1]: [[0.8, 0.8, 0.2, 0.2]] * 3,
        r.fig2_easy[2]: [[0.4, 0.4, 0.1, 0.1]] * 3,
    }
    flat, exploding = history([1.0, 0.9, 0.8]), history([1.0, 5.0, 20.0])
    monkeypatch.setattr(paper.runs, "fig2_hard", [])
    monkeypatch.setattr(paper.results, "uids", lambda run: uids)
    monkeypatch.setattr(paper.results, "seeds_of", lambda run: [0, 1, 2])
    monkeypatch.setattr(paper.results, "eval_table", lambda run, metric, seeds=None: np.asarray(tables[run]))
    monkeypatch.setattr(
        paper.results,
        "seed_histories",
        lambda run, seeds=None: [exploding if run == r.fig2_easy[2] else flat] * 3,
    )
    monkeypatch.setattr(paper.results.gates, "_cache", {})
    notes = text.fig2_notes(paper)
    assert notes[0].startswith("Fig. 2 on the easiest testbed level (1)")
    assert "coefficient 0 [0.8, 0.8, 0.8]" in notes[0] and "coefficient 0.1 [0.4, 0.4, 0.4]" in notes[0]
    assert (
        f"`{r.fig2_easy[0]}` (whole-set mean@n 0.450-0.450 against the base's 0.200-0.200, entropy peak x1.00)"
        in (notes[0])
    )
    assert f"it fails `{r.fig2_easy[2]}` in 3 of 3 seeds (entropy peak x20.00-x20.00" in notes[0]


def test_the_explosion_note_gives_alpha_t_when_the_entropy_passed_the_limit(paper, monkeypatch):
    """Issue 33 item 6: a C3 run whose entropy passed x2 is explained by alpha_t's numbers, per seed."""
    h = history([1.0, 0.5, 0.9, 2.5, 4.0])
    h["aer/alpha"] = [0.0, 0.02, 0.03, 0.025, 0.02]
    run = paper.runs.tau_sweep[-1]
    monkeypatch.setattr(aer_measures, "c3_runs", lambda paper: [run])
    monkeypatch.setattr(paper.results, "seeds_of", lambda r: [0])
    monkeypatch.setattr(paper.results, "seed_histories", lambda r, seeds=None: [h])
    (note,) = text.explosion_notes(paper)
    eta = paper.hparam(run, "eta")
    assert "alpha_t peaked at 0.030 at step 3 (H_t 0.90 H_0 then) and was still 0.025 when H_t passed x2" in note
    assert f"at step 4 ({0.025 / eta:.0f} steps of eta {eta:g} from 0); peak H_t x4.0 H_0" in note


def test_every_claim_declares_a_named_measure(paper):
    """Issue 38 item 2: each claim's measure is a shared measure or a function of the folder's measures.py."""
    assert paper.declared_measures
    for key, declared in paper.declared_measures.items():
        check_declared("aer", key, declared)


def test_the_claims_module_holds_declarations_only():
    """Issue 38 item 2: rlvr_lib/papers/aer/claims.py computes nothing itself (no lambda)."""
    source = (REPO / "rlvr_lib" / "papers" / "aer" / "claims.py").read_text()
    assert "lambda" not in source
