"""ERPO's declared claims (rlvr_lib/papers/erpo/claims.py): the conjunctive claims' parts, the sized claims, the gates
and measures each declares, and the round-3 fixes, each pinned by a planted violation (every quote is checked
against the paper in tests/test_papers_claims.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, declared_claims

from rlvr_lib import papers
from rlvr_lib.papers.erpo import measures as erpo_measures
from rlvr_lib.papers.erpo import text as erpo_text
from rlvr_lib.papers.framework import measures, sampling
from rlvr_lib.papers.framework.claims import AUTO_NULL, CONTRAST, Formula, NotRun, NotTestable
from rlvr_lib.papers.framework.declare import check_declared
from rlvr_lib.settings.config import load_params
from rlvr_lib.settings.schema import SettingError

WHOLES = {  # conjunctive claim: its parts, as erpo.txt's sentences join them
    "perturbation": {"perturbation_top_drop", "perturbation_bottom_robust"},
    "average_metrics": {"average_acc", "average_fmt"},
    "rl_pass_growth": {"rl_pass_growth_grpo", "rl_pass_growth_erpo"},
    "reward_trajectory": {"reward_early_lower", "reward_late_higher"},
    "entropy_band": {"entropy_erpo_healthy", "entropy_erpo_vs_grpo", "entropy_grpo_collapse"},
    "kl": {"kl_higher", "kl_no_spikes"},
    "shorter": {"shorter_acc", "shorter_length"},
    "length_trend": {"length_early_higher", "length_late_lower", "length_trend_acc"},
    "outperforms_grpo_sft": {"outperforms_grpo", "outperforms_sft"},
    "zero_sum": {"zero_sum_code", "zero_sum_prevents_hacking"},
}


@pytest.fixture(scope="module")
def claims():
    return declared_claims("erpo")


@pytest.fixture(scope="module")
def by_key(claims):
    return {c.key: c for c in claims}


@pytest.fixture(scope="module")
def params():
    return load_params(REPO / "params.yaml")


@pytest.fixture()
def paper(params):
    return papers.open_paper("erpo", params)


def test_conjunctive_claims_are_judged_whole_from_their_parts(claims):
    parts: dict[str, set[str]] = {}
    for c in claims:
        if c.parent is not None:
            parts.setdefault(c.parent, set()).add(c.key)
    wholes = {c.key for c in claims if c.direction is None}
    assert parts == WHOLES
    assert wholes == set(WHOLES)
    assert len({c.key for c in claims}) == len(claims)


def test_the_top_entropy_drop_is_a_direction_of_material_size_not_equality_with_another_protocols_number(by_key):
    top = by_key["perturbation_top_drop"]  # R3-E3: a larger drop than 35.2% is the claim, not against it
    assert (top.direction, top.reference, top.paper_effect) == ("greater", 0.0, 0.352)
    assert 0 < top.margin_used <= 0.352


def test_the_entropy_band_is_measures_band_and_the_relative_claim_is_the_papers_ratio(by_key):
    assert erpo_measures.HEALTHY_BAND == pytest.approx(measures.LOG_FACTOR)  # one band, defined in measures.py
    assert erpo_measures.PAPER_ENTROPY_LOG_RATIO == pytest.approx(math.log(0.2 / 0.05))
    band = by_key["entropy_erpo_healthy"]
    assert band.direction == "equal" and band.reference == 0.0 and band.margin == pytest.approx(math.log(2.0))
    relative = by_key["entropy_erpo_vs_grpo"]  # R3-E1: ERPO's late entropy over GRPO's, on the log scale
    assert (relative.direction, relative.paper_effect) == ("greater", pytest.approx(math.log(4.0)))
    for key in ("entropy_erpo_healthy", "entropy_erpo_vs_grpo", "entropy_grpo_collapse"):
        assert by_key[key].measure == "log_entropy_retained", key


def test_claims_that_a_policy_which_did_not_move_would_pass_require_learned(by_key):
    # R3-E1 / E7: entropy kept, no gradient explosion, no KL spike, lower early reward
    for key in (
        "entropy_erpo_healthy",
        "entropy_erpo_vs_grpo",
        "grad_norm_stable",
        "kl_no_spikes",
        "reward_early_lower",
    ):
        assert "learned" in by_key[key].requires, key
    # claims about failure: the failed seed is the evidence
    assert "learned" in by_key["outcome_anchor"].requires  # the untrained base policy passes it too (round 4, E1)
    assert by_key["entropy_grpo_collapse"].requires == ()
    # accuracy claims: `learned` too, which withholds only a HOLDS (one-sided gates, issue 40): not learning stays
    # evidence against them (tests/test_papers_framework.py plants the refutation on a failed run)
    for key in ("average_acc", "outperforms_grpo", "reward_late_higher"):
        assert "learned" in by_key[key].requires, key


def test_never_and_length_claims_declare_how_they_are_judged(by_key):
    assert by_key["grad_norm_stable"].universal  # "no signs of gradient explosion": one seed refutes it
    assert by_key["shorter_length"].measure == "response_length"  # fixed by the task's format (R3-E7)
    assert by_key["length_early_higher"].measure == "train_response_length"
    assert by_key["length_late_lower"].measure == "train_response_length"
    assert isinstance(by_key["entropy_map"].null, Formula)  # built into the testbed: counted apart (round 4, E3)
    assert isinstance(by_key["rl_pass_growth_grpo"].null, Formula)  # GRPO's sharpening: the testbed's design (E3)
    assert by_key["rl_pass_growth_erpo"].null == CONTRAST  # ERPO's part stays a verdict
    assert by_key["perturbation_hubs"].null == CONTRAST  # the bottom-entropy perturbation, its other arm
    assert by_key["average_acc"].null == AUTO_NULL


def test_the_missing_claims_of_round_3_are_declared(by_key):
    # R3-E5: the anchor, components (i)-(ii), eq. 16, causality; R3-E6: the entropy map is computed
    for key in ("outcome_anchor", "gating_component", "bucket_component", "zero_sum_code", "causality"):
        assert key in by_key
    assert by_key["entropy_map"].reference == erpo_measures.MAP_CONTRAST
    # issue 33 item 5, the paper re-read: fig. 4's caption, the abstract's conciseness, sec. 5.4's growth in k
    prevents = by_key["prevents_mode_collapse"]
    assert prevents.universal and "learned" in prevents.requires and prevents.measure == "log_entropy_retained"
    assert by_key["concise_paths"].measure == "response_length"
    assert "passk_grows_with_k" in by_key


def test_zero_sum_prevents_hacking_reads_the_no_group_norm_ablation(paper, by_key):
    """Issue 33: eq. 16's claim that Norm_G prevents reward hacking reads `erpo_no_group_norm` (one switch off, an
    ablation like the others), NOT RUN while it has no results."""
    assert "erpo_no_group_norm" in paper.runs.ablations
    assert erpo_measures.ablation_switch(paper, "erpo_no_group_norm") == "use_group_norm"
    assert erpo_measures.ablation_run(paper, "use_group_norm") == "erpo_no_group_norm"
    assert "erpo_no_group_norm" in by_key["zero_sum_prevents_hacking"].ours
    # the ablation's hacking is the evidence; ERPO's side must have learned (a one-sided gate: it withholds HOLDS only)
    assert "learned" in by_key["zero_sum_prevents_hacking"].requires
    if not (REPO / "reports" / "eval" / "erpo_no_group_norm").exists():
        computes = {c.key: compute for c, compute in paper._claims}
        with pytest.raises(NotRun, match="erpo_no_group_norm"):
            computes["zero_sum_prevents_hacking"]()


def test_eq16_zero_sum_holds_on_the_method_code_and_a_planted_violation_is_caught(params):
    sums, variances = erpo_measures.zero_sum_check(params, "erpo_erpo_data")
    assert np.abs(sums).max() <= erpo_measures.ZERO_SUM_TOLERANCE
    assert np.all((variances > 0.99) | (variances == 0))  # each mixed group: variance 1 up to delta
    params.runs["erpo_erpo_data"].hparams["use_group_norm"] = False  # planted: eq. 10 without Norm_G
    try:
        planted, _ = erpo_measures.zero_sum_check(params, "erpo_erpo_data")
    finally:
        params.runs["erpo_erpo_data"].hparams.pop("use_group_norm")
    assert np.abs(planted).max() > erpo_measures.ZERO_SUM_TOLERANCE


def _study(control: list[float], perturbed: list[float]) -> dict:
    return {"control": control, "perturbed": perturbed}


def _seed(top_c, top_p, bottom_c, bottom_p) -> dict:
    return {
        "n_responses": len(top_c),
        "mean_entropy": {"top": 1.0, "bottom": 0.02},
        "per_response": {"top": _study(top_c, top_p), "bottom": _study(bottom_c, bottom_p)},
    }


def test_the_perturbation_drops_come_in_three_baselines_with_intervals_inside_their_range(paper):
    paper._done["_perturbation"] = [  # R3-E4's case: a t interval over 3 seeds would reach above 1
        _seed([0.5, 0.5], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]),
        _seed([1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.5, 0.5]),
        _seed([0.8, 0.8], [0.1, 0.1], [1.0, 1.0], [1.0, 1.0]),
    ]
    paper._done["_selection"] = "planted"
    assert erpo_measures.drops(paper, "top", "control") == pytest.approx([0.5, 1.0, 0.7])
    assert erpo_measures.drops(paper, "top", "relative") == pytest.approx([1.0, 1.0, 1 - 0.1 / 0.8])
    assert erpo_measures.drops(paper, "top", "correct") == pytest.approx([1.0, 1.0, 0.9])
    d = erpo_measures.perturbation_drop(paper, "bottom")
    assert -1.0 <= d.ci_low <= d.ci_high <= 1.0
    for label in erpo_measures.BASELINES.values():
        assert label in d.detail
    assert "selection: planted" in d.detail
    with pytest.raises(NotTestable, match="docs/testbed.md"):  # R3-E4: no redundant low-entropy tokens here
        erpo_measures.bottom_robust(paper)


def _write_study(root: Path, recorded: dict) -> None:
    path = root / sampling.study_path("erpo_perturbation")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"study": "erpo_perturbation", "recorded": recorded, "per_seed": []}))


def test_a_study_sampled_before_min_correct_is_used_and_says_its_selection(paper, params, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    want = sampling.recorded_settings("erpo_perturbation", params)
    before = {**want, "settings": {k: v for k, v in want["settings"].items() if k != "min_correct"}}
    _write_study(tmp_path, before)
    _, selection = erpo_measures.perturbation_file(paper)
    assert "any problem solved at least once" in selection and "dvc repro -s sample_erpo_perturbation" in selection
    _write_study(tmp_path, want)  # resampled with params.yaml's selection
    _, selection = erpo_measures.perturbation_file(paper)
    assert selection.startswith(f"problems solved at least {params.papers.paper('erpo').perturbation.min_correct}")
    _write_study(tmp_path, {**before, "settings": {**before["settings"], "frac": 0.5}})  # planted: another study
    with pytest.raises(NotTestable, match="rerun"):
        erpo_measures.perturbation_file(paper)


def test_the_selection_keeps_only_problems_solved_reliably(monkeypatch):
    from rlvr_lib.eval import sampling as eval_sampling
    from rlvr_lib.eval.sampling import Completion

    right, wrong = Completion("so \\boxed{7}", 5, 0.1), Completion("so \\boxed{3}", 5, 0.1)
    counts = {"p0": 12, "p1": 3, "p2": 16}

    def fake(model, tokenizer, prompts, n, **kwargs):
        return [[right] * counts[p] + [wrong] * (n - counts[p]) for p in prompts]

    monkeypatch.setattr(eval_sampling, "sample_completions", fake)
    problems = [{"prompt": p, "answer": "7"} for p in counts]
    kw = {"n": 16, "seed": 0, "max_new_tokens": 64, "temperature": 1.0, "batch_size": 8}
    kept = sampling.reliably_correct_responses(None, None, problems, min_correct=12, **kw)
    assert [(r["prompt"], r["n_correct"]) for r in kept] == [("p0", 12), ("p2", 16)]
    assert len(sampling.reliably_correct_responses(None, None, problems, min_correct=1, **kw)) == 3


def test_min_correct_above_the_samples_is_refused():
    from rlvr_lib.settings.papers import PerturbationSettings

    with pytest.raises(SettingError, match="min_correct"):
        PerturbationSettings(samples=4, min_correct=12)


def test_wall_time_and_the_sft_comparison_are_not_judged(paper, monkeypatch):
    # R3-E10: a shared machine's wall time; R3-E9: ERPO trains on top of SFT here, not beside it
    monkeypatch.setattr(paper.results, "per_seed", lambda run, fn, seeds=None: np.array([200.0, 210.0, 220.0]))
    with pytest.raises(NotTestable, match="shared machine"):
        erpo_measures.time_claim(paper)
    from rlvr_lib.papers.framework.claims import estimate_of

    monkeypatch.setattr(paper, "compare", lambda *a, **k: estimate_of(np.array([0.05, 0.05, 0.06])))
    with pytest.raises(NotTestable, match="siblings"):
        erpo_measures.outperforms_sft(paper)


def test_the_sigma_note_says_whether_any_tested_sigma_beats_grpo(paper, monkeypatch):
    from rlvr_lib.papers.framework.claims import estimate_of

    gaps = {"erpo_erpo_data": -0.3, "erpo_sigma_0_25": -0.004, "erpo_sigma_4": -0.38}
    monkeypatch.setattr(
        erpo_measures,
        "accuracy_vs",
        lambda paper, run, other: (estimate_of(np.array([gaps[run] - 0.1, gaps[run], gaps[run] + 0.1])), [0, 1, 2]),
    )
    monkeypatch.setattr(erpo_text, "gain", lambda paper, run, seeds: 0.05)
    monkeypatch.setattr(paper.results.gates, "check", lambda gate, run, seed: "did not learn")
    note = erpo_text.note_sigma(paper)
    assert "No tested sigma_target (1, 0.25, 4) makes ERPO beat GRPO" in note
    assert "3 of 3 seeds below the learned gate" in note
    gaps["erpo_sigma_0_25"] = 0.5  # planted: a sigma_target that beats GRPO
    assert "A tested sigma_target makes ERPO beat GRPO" in erpo_text.note_sigma(paper)


def test_no_caption_or_label_says_steps_for_rollout_batches_or_a_bootstrap_for_t_intervals():
    source = "".join(path.read_text() for path in sorted((REPO / "rlvr_lib" / "papers" / "erpo").glob("*.py")))
    assert "two-way bootstrap" not in source  # R3-E12: the intervals are Student t over seeds
    assert "last {TAIL} steps" not in source and "Rewards are in [0, 2]" not in source


def test_the_decoding_note_names_each_verdict_the_shared_decoding_changes(paper, monkeypatch):
    """Issue 33 item 6: the Discussion's decoding paragraph gives mean@n at both decodings and names the verdicts
    that change at the shared one (planted: one part that holds at top-p 0.95 and is inconclusive at top-p 1)."""
    from rlvr_lib.papers.framework.claims import ClaimResult
    from rlvr_lib.papers.framework.engine import SHARED_DECODING

    tables = {"top_p_0_95": 0.3, None: 0.2}
    monkeypatch.setattr(
        paper.results, "eval_table", lambda run, metric, seeds=None: np.full((3, 4), tables[paper.results.decoding])
    )
    monkeypatch.setattr(paper.results, "seeds_of", lambda run: [0, 1, 2])
    declared = {c.key: c for c, _ in paper._claims}
    part = ClaimResult(claim=declared["average_acc"], verdict="holds", by_alternative={SHARED_DECODING: "inconclusive"})
    whole = ClaimResult(claim=declared["average_metrics"], verdict="holds", parts=[part])
    monkeypatch.setattr(paper, "evaluate_claims", lambda: [whole])
    note = erpo_text.note_decoding(paper)
    assert f"{paper.runs.erpo} 0.300 against 0.200 (3 seeds)" in note
    assert "1 change: `average_acc` (holds here, inconclusive at the shared decoding)" in note
    part.by_alternative[SHARED_DECODING] = "holds"
    assert "none changes" in erpo_text.note_decoding(paper)


def test_the_perturbation_note_measures_why_no_problem_is_selected(paper, monkeypatch):
    """Issue 33 item 6: with no problem solved in min_correct of samples tries, the note counts, per seed, the
    evaluation problems the studied policy solves that often (planted: one problem in seed 1)."""
    table = np.full((2, 4), 0.2)
    table[1, 2] = 0.8
    monkeypatch.setattr(paper.results, "eval_table", lambda run, metric, seeds=None: table)
    note = erpo_text.no_reliable_problems(paper, NotTestable("seed 0: none"))
    assert "solves at least 75% of its samples on [0, 1] of 4 problems per seed" in note


def test_the_no_anchor_text_gives_the_ablations_numbers_per_seed(paper, monkeypatch):
    values = {"accuracy": 0.0, "format_rate": 0.0, "response_length": 64.0}
    monkeypatch.setattr(paper.results, "seeds_of", lambda run: [0, 1, 2])
    monkeypatch.setattr(paper.results, "eval_table", lambda run, metric, seeds=None: np.full((3, 4), values[metric]))
    monkeypatch.setattr(paper.results, "per_seed", lambda run, fn, seeds=None: np.array([5.0, 4.0, 2.0]))
    text = erpo_text.no_anchor_text(paper)
    assert "mean@n [0.0, 0.0, 0.0], format rate [0.0, 0.0, 0.0], response length [64.0, 64.0, 64.0] tokens" in text
    assert "late KL to the reference [5.0, 4.0, 2.0]" in text


def test_the_component_claims_are_judged_on_accuracy_not_on_the_length_their_detail_reads(by_key):
    """Each one-switch ablation claim reads the ablation's format rate and length for its detail; the verdict is on
    mean@n alone, so the length the task fixes must not make it 'metric cannot move' (planted: every read measure,
    healthy arms)."""
    from types import SimpleNamespace

    from rlvr_lib.papers.framework.engine import immovable

    healthy = SimpleNamespace(gates=SimpleNamespace(failures=lambda arms, gates: []))
    read = ["accuracy", "format_rate", "response_length"]
    for key in ("outcome_anchor", "gating_component", "bucket_component", "zero_sum_prevents_hacking"):
        assert immovable(by_key[key], read, ["erpo_erpo_data", "erpo_no_group_norm"], healthy) == "", key


def test_length_is_fixed_by_the_task_only_for_arms_that_learned(by_key):
    """Round 4 E2: a run that never learned keeps the base policy's short guesses, so its length moves; the length
    claims are 'metric cannot move' only when every arm passed `healthy` and `learned` (planted: one arm fails
    `learned` only)."""
    from types import SimpleNamespace

    from rlvr_lib.papers.framework.engine import immovable

    def gates(failing: str) -> SimpleNamespace:
        return SimpleNamespace(failures=lambda arms, names: [f"x seed 0: {failing}"] if failing in names else [])

    arms = ["erpo_erpo_data", "grpo_erpo_data"]
    for key in ("concise_paths", "shorter_length", "length_late_lower"):
        claim = by_key[key]
        assert immovable(claim, [], arms, SimpleNamespace(gates=gates("none"))).startswith("fixed by the task"), key
        for failing in ("healthy", "learned"):
            assert immovable(claim, [], arms, SimpleNamespace(gates=gates(failing))) == "", (key, failing)


def test_table1_names_the_decoding_of_each_column(paper, monkeypatch):
    """Round 4 E7: Acc is read at the paper's decoding and Fmt at the shared one; the headers and the caption say
    so and give Fmt at the paper's decoding (planted: format rate 0.5 for the base policy there, 1.0 for the rest)."""
    import pandas as pd

    def problem_rows(run, seeds=None, decoding=None):
        return [[{"n_formatted": 2 if run == paper.runs.base else 4, "n": 4}]]

    monkeypatch.setattr(paper.results, "problem_rows", problem_rows)
    frame = pd.DataFrame({"row": ["base"], "accuracy": ["0.2"], "format_rate": ["0.9"]})
    monkeypatch.setattr(type(paper), "eval_table", lambda self, *args: (frame, frame.copy()))
    shown = paper.table1()
    own = paper.results.decoding
    acc, fmt = f"Acc (mean@n, `{own}`, the paper's decoding)", "Fmt (boxed rate, the shared decoding)"
    assert list(shown.columns[1:]) == [acc, fmt]
    (table,) = paper.report.section(type(paper).table1.heading).tables
    assert f"at `{own}` Fmt is 0.500-1.000" in table.caption


def test_the_summary_and_fig4_give_the_entropy_where_erpo_learns(paper, monkeypatch):
    """Round 4 E5: where ERPO learns (the sigma_target alternative whose seeds pass `learned`), the root-cause
    paragraph gives its entropy against GRPO's and fig. 4 draws that run (planted: retained -1.0 vs GRPO's -1.2 per
    seed, the default failing on every seed)."""
    from rlvr_lib.papers.framework.claims import ClaimResult

    r = paper.runs
    name, alternative = next((n, swaps[r.erpo]) for n, swaps in paper.alternatives().items() if r.erpo in swaps)
    failing = {r.erpo: ["seed 0"] * 3}
    monkeypatch.setattr(paper.results.gates, "failures", lambda runs, gates: failing.get(runs[0], []))
    monkeypatch.setattr(paper.results, "seeds_of", lambda run: [0, 1, 2])
    monkeypatch.setattr(paper.results, "common_seeds", lambda *runs: [0, 1, 2])
    retained = {alternative: [-1.0, -0.9, -1.1], r.grpo: [-1.2, -1.1, -1.3]}
    monkeypatch.setattr(paper.results, "per_seed", lambda run, fn, seeds=None: np.asarray(retained[run]))
    declared = {c.key: c for c, _ in paper._claims}
    prevents = ClaimResult(claim=declared["prevents_mode_collapse"], verdict="method failed")
    prevents.by_alternative[name] = "does not hold"
    monkeypatch.setattr(paper, "evaluate_claims", lambda: [prevents])
    text = erpo_text.did_not_learn(paper)
    assert "where it learns its entropy falls like GRPO's: log entropy retained -1.000 against GRPO's -1.200" in text
    assert "`prevents_mode_collapse` does not hold there" in text
    drawn = []
    monkeypatch.setattr(type(paper), "curves", lambda self, runs, *a, **k: drawn.extend(runs) or plt_figure())
    paper.figure4()
    assert alternative in drawn


def plt_figure():
    import matplotlib.pyplot as plt

    return plt.figure()


def test_every_claim_declares_a_named_measure(paper):
    """Issue 38 item 2: each claim's measure is a shared measure or a function of rlvr_lib/papers/erpo/measures.py,
    declared with measure(fn, *args), so the claims module holds declarations only."""
    assert paper.declared_measures
    for key, declared in paper.declared_measures.items():
        check_declared("erpo", key, declared)


def test_the_claims_module_has_no_lambda():
    assert "lambda" not in (REPO / "rlvr_lib" / "papers" / "erpo" / "claims.py").read_text()


def test_the_claims_missing_in_round_4_are_declared(by_key, paper, monkeypatch):
    """Round 4 E8: sec. 4.4's 'confident tokens penalized' on the logged sign flips (GRPO's no-op flips nothing),
    sec. 1's selective gate (eq. 8, a property of the formula, its open share shown) and sec. 4.5.1's eqs. 11-15 (a
    derivation); planted: about 2% of anchored tokens flip in every seed."""
    import pandas as pd

    from rlvr_lib.papers.framework.claims import FORMULA, judge

    penalized = by_key["confident_penalized"]
    assert (penalized.direction, penalized.margin) == ("equal", 0.01) and penalized.fixed.after_runs
    assert isinstance(by_key["gate_selective"].null, Formula) and isinstance(
        by_key["entropy_regularization"].null, Formula
    )
    histories = [pd.DataFrame({"step": [1, 2], "erpo/sign_flip_frac": [0.02, f]}) for f in (0.019, 0.02, 0.021)]
    monkeypatch.setattr(paper.results, "seeds_of", lambda run: [0, 1, 2])
    monkeypatch.setattr(paper.results, "seed_histories", lambda run, seeds=None: histories)
    computes = {c.key: f for c, f in paper._claims}
    assert judge(penalized, computes["confident_penalized"]()).verdict == "does not hold"
    with pytest.raises(NotTestable) as err:
        computes["entropy_regularization"]()
    assert err.value.kind == FORMULA
