"""OPEFO's declared claims: the conjunctive claims are judged whole, sized claims test the paper's size, and each
round-3 fix (reviews/round3_tepo_opefo.md, R3-O1..O13) is pinned here by a check that a planted violation fails
(every quote is checked against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import ast
import functools
import math

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, declared_claims

from rlvr_lib.papers import opefo
from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.claims import BEYOND, HOLDS, Estimate, NotRun, NotTestable, judge
from rlvr_lib.papers.framework.declare import check_declared
from rlvr_lib.papers.opefo import claims as opefo_claims
from rlvr_lib.papers.opefo import measures as opefo_measures
from rlvr_lib.papers.opefo import text as opefo_text

FOLDER = REPO / "rlvr_lib" / "papers" / "opefo"

CONJUNCTIONS = {  # conjunctive claim -> the number of its parts
    "collapse_fig2a": 6,
    "net_flow_fig2b": 4,
    "flow_drives_entropy": 2,
    "clipped_tokens": 2,
    "imbalance": 2,
    "first_order_tracks": 3,
    "best_overall": 6,
    "second_best_margin": 2,
    "gain_over_onpolicy": 2,
    "grpo_collapse": 2,
    "clip_higher_partial": 2,
    "opefo_stable": 4,
    "most_stable": 6,
    "reward_trends": 7,
    "grpo_highest_reward": 20,  # one part per (GRPO run, rival): no min/max over the two GRPO runs (issue 40)
    "opefo_reward": 2,
    "opefo_length": 2,
    "static_scaling": 2,
    "one_sided": 4,
    "lambda_shape": 2,
}


@pytest.fixture(scope="module")
def claims():
    return declared_claims("opefo")


@pytest.fixture(scope="module")
def by_key(claims):
    return {c.key: c for c in claims}


@functools.cache
def paper():
    from rlvr_lib import papers
    from rlvr_lib.settings.config import load_params

    return papers.open_paper("opefo", load_params(REPO / "params.yaml"))


def computes(key: str):
    return next(fn for c, fn in paper()._claims if c.key == key)


def history(entropy, updates: int = 1, **keys) -> pd.DataFrame:
    """A synthetic training history: one rollout batch per ``updates`` steps, rollout keys on the batch's first row,
    per-update keys (``keys``, one value per step) on every row."""
    steps = len(entropy) * updates
    frame = pd.DataFrame({"step": np.arange(1, steps + 1)})
    column = np.full(steps, np.nan)
    column[::updates] = entropy
    frame["entropy/mean"] = column
    for key, values in keys.items():
        frame[key] = values
    frame.attrs[measures.UPDATES_ATTR] = updates
    return frame


def test_conjunctions_have_their_parts_and_parts_are_not_claims_alone(claims):
    keys = {c.key for c in claims}
    wholes = {c.key for c in claims if c.direction is None}
    assert wholes == set(CONJUNCTIONS)
    parts = {k: [c.key for c in claims if c.parent == k] for k in wholes}
    assert {k: len(v) for k, v in parts.items()} == CONJUNCTIONS
    assert all(c.parent in wholes for c in claims if c.parent is not None)
    assert len(keys) == len(claims)  # one row per claim or part


def test_every_claim_declares_a_named_measure():
    """Issue 38: each claim's measure is a shared measure or a module-level function of the folder's measures.py."""
    for key, declared in paper().declared_measures.items():
        check_declared("opefo", key, declared)


def test_the_claims_module_holds_declarations_only():
    """No lambda in claims.py: every computation has a name in measures.py (or is a shared measure)."""
    tree = ast.parse((FOLDER / "claims.py").read_text())
    assert not [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Lambda)]


def test_sized_gains_are_tested_in_their_direction_so_a_larger_gain_is_no_refutation(by_key):
    """Round-4 O3: a gain in Qwen's points is tested as d > 0 with the paper's size as its effect (as TEPO's
    ``gain_size``): a testbed gain of +0.08 must not read 'a difference detected' against the paper's 0.023."""
    larger = Estimate(0.08, 0.06, 0.10, 5, 256, "", 0.007)
    for key, size in (("gain_7b", 0.023), ("margin_7b", 0.017)):
        claim = by_key[key]
        assert (claim.direction, claim.reference, claim.paper_effect) == ("greater", 0.0, size)
        assert judge(claim, larger).verdict == HOLDS
        assert claim.fixed.after_runs and "direction" in claim.fixed.what
    assert "copy of table 1's GRPO (8 updates) row" in by_key["static_scaling"].paper_value


# ----------------------------------------------------------------------------- the framework's declarations
def test_opefo_is_judged_against_strict_on_policy_grpo():
    """OPEFO trains strictly on-policy: its null (and the ``learned`` gate's reference) is ``grpo_onpolicy``, not the
    8-update GRPO of the base class's default."""
    assert paper().null_run() == paper().runs.grpo_onpolicy != paper().runs.grpo
    assert paper().results.gates.grpo == paper().runs.grpo_onpolicy


def test_the_eq6_expectation_form_is_a_declared_alternative_of_the_opefo_run():
    """R3-O1: every claim reading `opefo` is judged again with the expectation form's run in its place."""
    assert paper().alternatives() == {"delta_h:expectation": {"opefo": "opefo_delta_h_expectation"}}


def test_grpo_entropy_levels_are_declared_on_a_calibrated_measure(by_key):
    """R3-O4: the budget was chosen so that GRPO's entropy ends near 0.33; a one-arm level of it is the calibration."""
    for key in ("near_zero_grpo_8updates", "near_zero_grpo_onpolicy", "collapse_grpo_8updates"):
        assert measures.MEASURES[by_key[key].measure].calibrated_on == measures.GRPO_METHODS, key
    assert by_key["collapse_grpo_onpolicy"].measure == "entropy_retained"


def test_length_claims_are_declared_on_the_fixed_length_measure(by_key):
    for key in ("length_saturates", "entropy_reg_length", "opefo_longer"):
        assert measures.MEASURES[by_key[key].measure].fixed_by, key


def test_stability_and_failure_claims_are_universal_and_ungated(by_key):
    """A failed seed is the evidence for "stable" / "no inflation" / "controlled": judged per seed, no gate."""
    for key in ("opefo_stable_band", "opefo_no_inflation", "opefo_reward_stable", "zero_flow_flat_entropy"):
        claim = by_key[key]
        assert claim.universal and claim.requires == (), key
        assert (claim.direction, claim.reference) == ("less", measures.ENTROPY_FACTOR), key
    assert by_key["opefo_controlled"].universal and by_key["opefo_controlled"].requires == ()


def test_entropy_kept_needs_a_run_that_learned(by_key):
    for key in ("opefo_not_deterministic", "clip_higher_mitigates"):
        assert "learned" in by_key[key].requires, key
        assert by_key[key].measure == "log_entropy_retained", key


def test_claims_about_grpo_itself_read_the_base_policy_as_their_null(by_key):
    """A claim about GRPO's own dynamics has no method to replace with GRPO: its null is the base policy (the run
    frozen at its first rollout batch), never the other GRPO run in its place (strict on-policy GRPO for the 8-update
    run, which would compare GRPO with GRPO)."""
    for key, claim in by_key.items():
        if claim.direction is not None and key.endswith(("_grpo_8updates", "_grpo_onpolicy")):
            if key.startswith(("acc_vs", "most_stable_vs")):
                continue
            assert claim.null == "base", (key, claim.null)


# ----------------------------------------------------------------------------- one definition per concept
def test_the_first_50_steps_map_by_the_papers_own_500(by_key):
    """R3-O12: one step mapping (``measures.paper_share``): 50 of the profile's 500 steps, not 45 of 180."""
    assert opefo_measures.FIRST_50 == measures.paper_share(50, 500) == 0.1
    assert opefo_measures.AFTER_400 == 0.8
    assert "first 10%" in by_key["sharp_drop_grpo_onpolicy"].ours


def test_windows_count_rollout_batches_and_keep_every_update():
    """``span``: the batches of ``measures.share``, with every update's row of a per-update quantity."""
    h = history([1.0] * 10, updates=4, **{"entropy_flow/net": np.arange(40, dtype=float)})
    rows = opefo_measures.span(h, "entropy_flow/net", 0.0, 0.2)  # the first 2 of 10 batches: 8 updates
    assert rows.index.tolist() == list(range(1, 9))
    assert opefo_measures.span(h, "entropy_flow/net", 0.9, 1.0).index.tolist() == [37, 38, 39, 40]


def test_stability_is_a_factor_either_way():
    """x4 up and x1/4 down are equally unstable (the planted one-sided test would pass the collapse)."""
    up = history([0.2] + [0.8] * 9)
    down = history([0.2] + [0.05] * 9)
    assert opefo_measures.entropy_factor(up) == pytest.approx(4.0)
    assert opefo_measures.entropy_factor(down) == pytest.approx(4.0)
    assert not measures.stable(math.log(opefo_measures.entropy_factor(down)))


def test_roughness_is_relative_step_change_over_rollout_batches():
    h = history([1.0, 2.0, 1.0, 2.0], updates=8)
    assert opefo_measures.roughness(h) == pytest.approx((1.0 + 0.5 + 1.0) / 3)


def test_between_batch_confound_is_negative_for_independent_batches():
    """R3-O5: entropies of independent batches give corr(H_t, H_t+1 - H_t) near -0.7 with no flow at all."""
    rng = np.random.default_rng(0)
    assert opefo_measures.between_batch_confound(history(rng.normal(1.0, 0.1, 400))) < -0.5


# ----------------------------------------------------------------------------- the claims
def unlogged_histories(monkeypatch):
    """Planted: runs trained before the logging switches, whose histories have no realised change and no cosine."""
    results = paper().results
    entropy = lambda s: np.linspace(1.0, 0.2, 40) + 0.01 * np.sin(np.arange(40) + s)  # noqa: E731
    monkeypatch.setattr(results, "seed_histories", lambda run, seeds=None: [history(entropy(s)) for s in range(3)])


def test_flow_tracks_and_the_premise_name_the_same_batch_runs_they_need(monkeypatch):
    """R3-O5 / R3-O2: the between-batch correlation is not a test; while the runs predate the logging switch the
    same-batch design is not run, naming the switch and the runs to train again, with its cost."""
    unlogged_histories(monkeypatch)
    for key in ("flow_tracks_grpo_onpolicy", "same_batch_tracking", "same_batch_tracking_expectation"):
        with pytest.raises(NotRun, match="log_realised_entropy_change") as raised:
            computes(key)()
        assert raised.value.cost == opefo_measures.SEEDS


def test_gradient_direction_is_not_run_without_its_log(monkeypatch):
    unlogged_histories(monkeypatch)
    with pytest.raises(NotRun, match="log_gradient_cosine"):  # R3-O13
        computes("preserves_direction")()


def same_batch_history(n: int = 40, noise: float = 0.0, seed: int = 0, **extra) -> pd.DataFrame:
    """Per-update realised changes that are dH per token x 0.01 plus ``noise``, 100 tokens an update."""
    rng = np.random.default_rng(seed)
    dh = rng.normal(0.0, 1.0, n)
    keys = {
        opefo_measures.FLOW + "net": dh * 100,
        opefo_measures.FLOW_EXPECTATION: -dh * 100,  # the other form: anti-correlated, planted
        opefo_measures.REALISED_TOKENS: np.full(n, 100.0),
        opefo_measures.REALISED: 0.01 * dh + rng.normal(0.0, noise, n),
        **extra,
    }
    return history(np.ones(n), **keys)


def test_tracking_is_the_correlation_of_the_realised_change_with_dh_per_token():
    h = same_batch_history()
    assert opefo_measures.tracking_correlation(h, opefo_measures.FLOW + "net") == pytest.approx(1.0)
    assert opefo_measures.tracking_correlation(h, opefo_measures.FLOW_EXPECTATION) == pytest.approx(-1.0)
    noisy = same_batch_history(400, noise=10.0)
    assert abs(opefo_measures.tracking_correlation(noisy, opefo_measures.FLOW + "net")) < 0.2
    with pytest.raises(opefo_measures.NotLogged):  # a run from before the switch
        opefo_measures.tracking_correlation(history(np.ones(5)), opefo_measures.FLOW + "net")


def test_same_batch_claims_read_the_logged_series(monkeypatch):
    """Planted: histories that log the realised change make the parts numbers (tracking in the sampled form, its
    opposite in the expectation form), and the cosine claim reads the logged cosine."""
    results = paper().results
    monkeypatch.setattr(
        results,
        "seed_histories",
        lambda run, seeds=None: [
            same_batch_history(seed=s, **{opefo_measures.COSINE: np.full(40, 0.95 + 0.01 * s)}) for s in range(3)
        ],
    )
    sampled = computes("same_batch_tracking")()
    assert sampled.value == pytest.approx(1.0)
    assert computes("same_batch_tracking_expectation")().value == pytest.approx(-1.0)
    assert computes("flow_tracks_grpo_8updates")().value == pytest.approx(1.0)
    assert computes("preserves_direction")().value == pytest.approx(0.96)
    sentence = opefo_text.same_batch_sentence(paper())  # the Discussion cites the measured numbers, not "not run"
    assert "`grpo_onpolicy` r = +1.00 (sampled form), -1.00 (expectation form)" in sentence
    assert "not run" not in sentence


def test_same_batch_claims_are_declared(by_key):
    closely = by_key["same_batch_tracking"]
    assert (closely.direction, closely.reference) == ("greater", opefo_claims.CLOSELY_TRACKS)
    assert by_key["same_batch_tracking_expectation"].parent == "first_order_tracks"
    assert by_key["flow_tracks_grpo_onpolicy"].reference == opefo_claims.TRACKS
    assert by_key["preserves_direction"].reference == opefo_claims.SAME_DIRECTION


def test_lambda_mean_is_tested_against_the_papers_number(by_key):
    """R3-O7: lambda* is a dimensionless ratio; its mean is tested against 0.001, not declared untestable."""
    claim = by_key["lambda_mean"]
    assert (claim.direction, claim.reference, claim.margin) == ("equal", 0.001, opefo_claims.LAMBDA_MARGIN)


def test_the_runner_up_is_the_papers_not_a_per_seed_best(by_key):
    """R3-O8: no per-seed max / min over the other runs (winner's curse); margin_7b is against Clip-Cov."""
    source = "".join(f.read_text() for f in sorted(FOLDER.glob("*.py")))
    assert "_versus_best" not in source and "_group_gap" not in source
    assert "clip_cov_8updates" in by_key["margin_7b"].ours
    assert {c.key for c in declared_claims("opefo") if c.parent == "most_stable"} == {
        f"most_stable_vs_{run}" for run in ("grpo_8updates", "grpo_onpolicy", *paper().runs.baselines)
    }


def test_paper_values_and_quotes_read_the_paper_right(by_key):
    """R3-O9: OPEFO is best in 12 of 12 columns; R3-O10: quotes are whole sentences."""
    assert "12 of 12" in by_key["robust_across"].paper_value
    assert by_key["margin_4b"].quote.startswith("On Qwen2.5-Math-7B and Qwen3-Base-4B")
    assert all(not c.quote.rstrip(".").endswith("-") and "- ..." not in c.quote for c in by_key.values())  # issue 33.7
    assert "strong baselines" in by_key["most_stable"].source


def test_practical_claims_are_declared(by_key):
    """R3-O13: sec. 5.4's overhead (at most 5% slower) and sec. 5.2's optimization direction."""
    overhead = by_key["negligible_overhead"]
    assert (overhead.direction, overhead.reference) == ("less", opefo_claims.NEGLIGIBLE)
    assert "preserves the original optimization direction" in by_key["preserves_direction"].quote


def test_entropy_reg_growth_is_tested_by_the_step_mapping_not_called_beyond_the_budget(by_key):
    """R3-O12 / R3-O4: 'after approximately 400 steps' is the last 20% of training by the one mapping."""
    assert "last 20%" in by_key["entropy_reg_grows"].ours
    try:
        computes("entropy_reg_grows")()
    except NotTestable as reason:
        assert reason.kind != BEYOND  # not run (seeds pending) at most, never 'beyond the testbed'


def test_the_intro_and_captions_do_not_call_the_forms_an_estimand_and_its_estimate():
    """R3-O1 / R3-O10: the default is the sampled form; the two forms estimate different quantities."""
    assert "Our eq. 6 is the expectation over the vocabulary, as written" not in opefo.Paper.intro
    assert "different quantities" in opefo.Paper.intro
    source = "".join(f.read_text() for f in sorted(FOLDER.glob("*.py")))
    assert "noise of one sample" not in source
    assert "Entropy-Reg keeps the shared one" not in source
    # R3-O2: the Discussion's untested step-size explanation is gone; its notes are computed from the runs
    assert "a first-order cancellation does not bound the realised change" not in source
    assert {"stability_note", "premise_note", "lambda_note", "hinging_parts_note"} <= set(vars(opefo_text))


def test_divergence_note_reads_the_logs_and_states_only_what_they_show(monkeypatch):
    """Issue 33 item 6: the Discussion's explanation of the sampled form's divergence cites the realised change per
    update, lambda*, the S+ share and the gradient cosine; a reading the planted numbers do not show is not made."""
    results = paper().results

    def planted(run, seeds=None, explode=True):
        inflates = run == paper().runs.opefo
        end = 8.0 if (inflates and explode) else 0.3
        extra = {
            opefo_measures.LAMBDA: np.full(40, 0.27 if inflates else 0.05),
            "opefo/frac_pos": np.full(40, 0.16 if inflates else 0.38),
            opefo_measures.COSINE: np.full(40, 0.67 if inflates else 0.99),
        }
        out = []
        for s in range(3):
            h = same_batch_history(seed=s, noise=5.0, **extra)
            h[opefo_measures.REALISED] = h[opefo_measures.REALISED] + (0.5 if inflates and explode else -0.5)
            h["entropy/mean"] = np.geomspace(1.0, end, 40)
            out.append(h)
        return out

    monkeypatch.setattr(results, "seed_histories", planted)
    note = opefo_text.divergence_note(paper())[0]
    assert "mean lambda* 0.270, 16.0% of tokens in S+, gradient cosine with lambda* = 0 0.670" in note
    assert "whose updates raise the entropy of their own batch on average (`opefo`)" in note
    assert "cosine 0.670 against 0.990" in note
    assert "does not track the realised change" in note  # noise 5.0: r near 0 in both forms
    # no form explodes: the reading that ties the explosion to each update's change is not made
    monkeypatch.setattr(results, "seed_histories", lambda run, seeds=None: planted(run, seeds, explode=False))
    quiet = opefo_text.divergence_note(paper())[0]
    assert "Read together: the form" not in quiet and "turns the gradient further" not in quiet


def test_static_machine_note_names_the_retrained_run_and_its_numbers():
    """The run retrained on another machine is named with its per-seed mean@n at both decodings (committed runs)."""
    note = opefo_text.static_machine_note(paper())
    if not note:  # the report reads another run for table 2's static lambda
        return
    assert opefo_measures.RETRAINED_ON_HOST in note[0] and "2-core machine" in note[0]
    assert "seed 0: " in note[0] and "shared)" in note[0]


def test_decoding_note_gives_each_runs_gain_and_the_verdicts_kept(monkeypatch):
    """The decoding paragraph is computed: planted evaluations 0.1 apart give a gain of +0.100 for every run, and the
    verdicts kept / changed at the shared decoding are counted from the robustness column."""
    from types import SimpleNamespace

    p = paper()
    monkeypatch.setattr(
        opefo_measures,
        "accuracy_at",
        lambda paper, run, decoding, seeds=None: np.full(3, 0.5 if decoding is None else 0.6),
    )
    planted = {
        "a": SimpleNamespace(robustness="robust (the shared decoding)"),
        "b": SimpleNamespace(robustness="hinges on the shared decoding: inconclusive; holds at the paper's"),
        "c": SimpleNamespace(robustness="robust (delta_h:expectation)"),
    }
    monkeypatch.setattr(opefo_text, "results_by_key", lambda paper: planted)
    note = opefo_text.decoding_note(p)[0]
    assert f"`{p.runs.grpo_onpolicy}` +0.100 (from 0.500)" in note
    assert "1 keep their verdict at the shared decoding and 1 change" in note


def test_entropy_reg_growth_is_judged_only_where_the_bonus_acted():
    """Round-4 O4: a bonus that has not moved the entropy (Entropy-Reg within x1.1 of GRPO's log entropy retained)
    cannot show the paper's late regime: NOT TESTABLE, and its growth is not read; where it acted, it is."""
    import contextlib
    from types import SimpleNamespace

    def stub(moved: float):
        results = SimpleNamespace(
            unrecorded=contextlib.nullcontext,
            compare_history=lambda *a, **k: Estimate(moved, moved - 0.01, moved + 0.01, 5),
        )
        return SimpleNamespace(results=results, single_run=lambda run, fn: Estimate(-0.1, -0.2, 0.0, 5, detail="x"))

    with pytest.raises(NotTestable) as reason:
        opefo_measures.bonus_growth(stub(0.05), "entropy_reg_8updates", "grpo_8updates")
    assert reason.value.kind == BEYOND and "ln 1.1" in str(reason.value)
    got = opefo_measures.bonus_growth(stub(0.12), "entropy_reg_8updates", "grpo_8updates")
    assert got.value == -0.1 and "the bonus acted: log entropy retained +0.120" in got.detail
