"""Which runs are 'the paper's method' (``framework.about.Mechanism``), refutations grouped by root cause
(``RootCause`` and the failed runs they stand on), the Summary's closing paragraph, the summary's counts from them, and
the main page's health and protocol columns (issue 40, item 6)."""

from __future__ import annotations

import importlib

import pandas as pd
import pytest
from conftest import REPO

from rlvr_lib.methods import build_method
from rlvr_lib.papers.framework.about import Mechanism, RootCause
from rlvr_lib.papers.framework.base import PaperBase
from rlvr_lib.papers.framework.claims import DOES_NOT_HOLD, HOLDS, Claim, ClaimResult
from rlvr_lib.papers.framework.writeup import bottom_line, shared_roots
from rlvr_lib.papers.summary import Paper as Summary
from rlvr_lib.reporting import main_page
from rlvr_lib.settings.config import load_params
from rlvr_lib.settings.papers import PAPERS

PARAMS = load_params(REPO / "params.yaml")


def test_a_baseline_run_of_the_methods_registered_name_is_not_the_method():
    """Planted: AER's fixed coefficient is method `aer` with both components off (the baseline AER replaces)."""
    aer = importlib.import_module("rlvr_lib.papers.aer.paper").Paper.mechanism
    assert not aer.on(PARAMS.runs["aer_fixed_coeff_0_1"])
    assert "switches aer's mechanism off" in aer.why(PARAMS.runs["aer_fixed_coeff_0_1"])
    assert aer.on(PARAMS.runs["aer"]) and aer.on(PARAMS.runs["aer_c1_only"])  # C1 alone is on
    assert not aer.on(PARAMS.runs["grpo"])
    opefo = importlib.import_module("rlvr_lib.papers.opefo.paper").Paper.mechanism
    static = [r for r, s in PARAMS.runs.items() if s.method == "opefo" and s.hparams.get("lambda_mode") == "static"]
    assert static and not any(opefo.on(PARAMS.runs[r]) for r in static)


@pytest.mark.parametrize("paper", PAPERS)
def test_each_papers_off_switch_differs_from_its_methods_defaults(paper):
    """A run that does not set a key trains with the default: were the default an off value, every run that leaves it
    unset would silently count as the mechanism off."""
    mechanism = importlib.import_module(f"rlvr_lib.papers.{paper}.paper").Paper.mechanism
    assert isinstance(mechanism, Mechanism) and mechanism.method == paper
    defaults = build_method(mechanism.method, {}).cfg
    for switch in mechanism.off:
        assert any(getattr(defaults, k) != v for k, v in switch.items()), switch


def _result(key, verdict, arms=(), gate_failures=""):
    c = Claim(key, "q", "s", "p", "o", "greater", 0.01)
    return ClaimResult(c, verdict, arms=tuple(arms), gate_failures=gate_failures)


class _Paper:
    name = "aer"
    params = PARAMS
    mechanism = importlib.import_module("rlvr_lib.papers.aer.paper").Paper.mechanism
    root_causes = (RootCause("one comparison", ("a", "b")),)
    _mark_about = PaperBase._mark_about


def test_refutations_are_grouped_by_declared_cause_and_by_the_failed_runs_they_stand_on():
    seeds = PARAMS.runs["aer_tau_0_6"].seeds
    failed = "; ".join(f"aer_tau_0_6 seed {s}: rollout entropy peaked at x9.78 of its first batch" for s in seeds)
    one_seed = f"aer seed {PARAMS.runs['aer'].seeds[0]}: mean@n 0.1 below its base policy's"
    results = [
        _result("a", DOES_NOT_HOLD, ["aer", "grpo"]),
        _result("b", DOES_NOT_HOLD, ["aer", "aer_clip_cov"]),
        _result("c", DOES_NOT_HOLD, ["aer_tau_0_6"], failed),
        _result("d", DOES_NOT_HOLD, ["aer_tau_0_6", "grpo"], failed),
        _result("e", DOES_NOT_HOLD, ["aer", "grpo"], one_seed),  # one failed seed labels it, explains nothing
        _result("f", HOLDS, ["aer_fixed_coeff_0_1", "aer_fixed_coeff_0_01"]),  # the fixed coefficient: a baseline
        _result("g", HOLDS, ["aer", "grpo"]),
    ]
    paper = _Paper()
    paper._mark_about(results)
    by_key = {r.claim.key: r for r in results}
    assert by_key["a"].root_cause == by_key["b"].root_cause == "one comparison"
    assert by_key["c"].root_cause == by_key["d"].root_cause and "`aer_tau_0_6`" in by_key["c"].root_cause
    assert by_key["e"].root_cause == ""
    assert by_key["f"].method_runs == () and by_key["g"].method_runs == ("aer",)
    refuted = [r for r in results if r.verdict == DOES_NOT_HOLD]
    assert shared_roots(refuted)[0].startswith("2 of the 5 share one root cause, one comparison: `a`, `b`.")
    line = bottom_line(paper, results)
    assert "1 of the 2 holding claims read a run with the paper's mechanism on (`g`)" in line
    assert "5 claims do not hold, 3 independent findings" in line


def test_a_root_cause_naming_an_unknown_claim_is_refused():
    paper = _Paper()
    paper.root_causes = (RootCause("typo", ("a", "zz")),)
    with pytest.raises(ValueError, match=r"root cause 'typo' names unknown claim\(s\) \['zz'\]"):
        paper._mark_about([_result("a", DOES_NOT_HOLD)])


class _Summary:
    whole_claims = Summary.whole_claims
    failed_methods = Summary.failed_methods
    synthesis = Summary.synthesis

    def __init__(self, frame):
        self.frame = frame

    def gathered_claims(self):
        return self.frame


def test_the_summary_counts_a_claim_as_the_method_only_when_a_run_switches_the_mechanism_on():
    """Planted: a holding claim reads only AER's fixed-coefficient runs (method `aer`, mechanism off): 'other
    runs'; the synthesis names the exploded runs with the mechanism on, not a baseline that exploded."""
    frame = pd.DataFrame(
        {
            "paper_name": ["aer", "aer", "opefo"],
            "parent": ["", "", ""],
            "verdict": [HOLDS, HOLDS, DOES_NOT_HOLD],
            "arms": ["aer_fixed_coeff_0_1 aer_fixed_coeff_0_01", "aer grpo", "opefo grpo_onpolicy"],
            "method_runs": ["", "aer", "opefo"],
            "gate_failures": [
                "aer_fixed_coeff_0_1 seed 0: rollout entropy peaked at x20.1 of its first batch",
                "",
                "opefo seed 0: rollout entropy peaked at x8.0 of its first batch; opefo seed 1: mean@n 0.05 below its "
                "base policy's 0.2 (-0.15 [-0.2, -0.1] over 256 problems)",
            ],
        }
    )
    summary = _Summary(frame)
    assert summary.whole_claims()["about"].tolist() == ["other runs", "the method", "the method"]
    text = summary.synthesis()
    assert "opefo: `opefo`" in text and "aer_fixed_coeff" not in text
    assert "below its base policy (diverged): opefo: `opefo`" in text


def test_the_main_pages_table_marks_diverged_and_idle_runs_and_gives_the_protocol():
    evals = pd.DataFrame(
        [
            {"run": run, "benchmark": "b", "metric": m, "value": 0.5, "ci_low": 0.4, "ci_high": 0.6}
            for run in ("base", "opefo", "aer_tau_0_2", "grpo")
            for m in ("mean@4", "pass@4", "response_length")
        ]
    ).assign(n_problems=4, n_samples=4, n_seeds=3)
    histories = pd.DataFrame(columns=["run", "seed", "step"])
    info = pd.DataFrame(
        {
            "health": ["diverged", "idle", ""],
            "updates_per_rollout": [1, 2, 2],
            "train_data": ["full", "full", "full"],
        },
        index=["opefo", "aer_tau_0_2", "grpo"],
    )
    table = main_page.results_table(evals, histories, "b", info)
    shown = main_page.format_table(table).set_index("seeds", drop=False)
    assert shown["run"].tolist() == ["base", "opefo (diverged)", "aer_tau_0_2 (idle)", "grpo"]
    assert shown["protocol"].tolist() == [main_page.MISSING, "1 / full", "2 / full", "2 / full"]
    with pytest.raises(ValueError, match=r"run_info has no column\(s\) \['train_data'\]"):
        main_page.results_table(evals, histories, "b", info.drop(columns="train_data"))
