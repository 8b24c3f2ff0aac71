"""The verdict framework's shared checks, each planted and caught: a null that passes too, a measure that cannot
move (fixed by the task, calibrated, at a floor, zero variance), a failed seed hidden by the mean, an idle
mechanism, a verdict that hinges on a declared alternative, a margin above the paper's effect, a universal claim
refuted by one seed, an underpowered comparison, and a paper module that computes a shared concept itself."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from rlvr_lib.settings.papers import PAPERS

# Each shared concept has one definition (rlvr_lib.papers.framework.measures); a paper module that writes its own
# window, entropy scale or divergence limit fails here.
OWN_DEFINITIONS = {
    r"\.tail\(": "a tail window (measures.window / end_mean)",
    r"\.head\(": "an early window (measures.window / share)",
    r"\bTAIL_STEPS\b|\btail_steps\b": "a tail length (measures.TAIL_ROLLOUTS)",
    r"\bDIVERGENCE_ENTROPY_FACTOR\b": "the divergence limit (measures.ENTROPY_FACTOR)",
    r"(?<!measures\.)\bLOG_FACTOR\b": "the stability band (measures.stable / measures.LOG_FACTOR)",
    r"\.iloc\[0\]": "a first-step value (measures.rollouts)",
    r"math\.log\(|np\.log\(": "a log scale of its own (measures: log_entropy_retained, log_peak_entropy_ratio)",
    r"join\(map\(str": "a list of seeds (results.fmt_seeds, RunResults.seeds_text)",
    r"\.partition\(\"-\"\)": "a problem's level (RunResults.problem_level, level_values, compare_on_levels)",
    r"\"(diverged|idle)\" if": "a run's mark (RunResults.marks, label)",
    r"\.(min|max)\(axis=0\)|np\.(minimum|maximum|fmin|fmax)\(": "an order statistic over runs (judge run by run)",
}


def own_definitions(source: str) -> list[str]:
    """'line N: <what>' for each place a module defines a shared concept itself."""
    found = []
    for n, line in enumerate(source.splitlines(), 1):
        code = line.split("#", 1)[0]
        for pattern, what in OWN_DEFINITIONS.items():
            if re.search(pattern, code):
                found.append(f"line {n}: {what}")
    return found


@pytest.mark.parametrize("name", [*PAPERS, "summary"])
def test_no_paper_module_computes_a_shared_concept_itself(name):
    module = REPO / "rlvr_lib" / "papers" / name  # a module, or a folder of modules (issue 38: a paper is a folder)
    files = sorted(module.glob("*.py")) if module.is_dir() else [module.with_suffix(".py")]
    source = "".join(f.read_text() for f in files)
    assert own_definitions(source) == []


def test_a_planted_window_of_its_own_is_caught():
    planted = 'x = column(h, "entropy/mean").tail(5).mean()\nr = np.log(a / b)\n'
    assert len(own_definitions(planted)) == 2
    planted = 'cell = ", ".join(map(str, seeds))\nlevel = int(uid.partition("-")[0][1:])\nm = "diverged" if d else ""\n'
    assert [line.split(": ")[1].split(" (")[0] for line in own_definitions(planted)] == [
        "a list of seeds",
        "a problem's level",
        "a run's mark",
    ]
    # OPEFO's old pair gap: the per-seed min of two GRPO runs, biased even when every run is equal
    assert own_definitions("mine = values.min(axis=0)\nworst = np.maximum(a, b)\n") == [
        "line 1: an order statistic over runs (judge run by run)",
        "line 2: an order statistic over runs (judge run by run)",
    ]


# ----------------------------------------------------------------------------- the engine, on a fake paper
import contextlib  # noqa: E402
import math  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rlvr_lib.papers.framework import measures  # noqa: E402
from rlvr_lib.papers.framework.claims import (  # noqa: E402
    A_SEED_REFUTES,
    DOES_NOT_HOLD,
    EFFECT_EXCLUDED,
    HOLDS,
    IMMOVABLE,
    INCONCLUSIVE,
    INDISCRIMINATE,
    METHOD_FAILED,
    NOT_RUN,
    NOT_TESTABLE,
    RUN_FAILED,
    UNDERPOWERED,
    Claim,
    NotRun,
    estimate_of,
    judge,
    paired_difference,
)
from rlvr_lib.papers.framework.engine import evaluate, null_for  # noqa: E402
from rlvr_lib.papers.framework.gates import Gates, below_base  # noqa: E402
from rlvr_lib.papers.framework.results import Reads  # noqa: E402


class FakeResults:
    """Per-seed values of each run (its d for a one-arm claim), with RunResults' substitution and recording."""

    def __init__(self, values, methods=None, failing=None):
        self.values = values
        self.methods = methods or {}
        self.failing = failing or {}
        self.alias, self.reads = {}, []
        self.gates = self

    def failures(self, runs, gates):
        return [f"{r} seed 1: {self.failing[r]}" for r in runs if r in self.failing and gates]

    def method_of(self, run):
        return self.methods.get(run, run)

    def read(self, run):
        real = self.alias.get(run, run)
        for r in self.reads:
            r.add_run(real)
        if real not in self.values:
            raise NotRun(f"run '{real}' has no results yet", 3)
        return np.asarray(self.values[real], dtype=float)

    @contextlib.contextmanager
    def recording(self):
        reads = Reads()
        self.reads.append(reads)
        yield reads
        self.reads.pop()

    @contextlib.contextmanager
    def substituted(self, alias):
        saved, self.alias = self.alias, {**self.alias, **alias}
        yield
        self.alias = saved


class FakePaper:
    def __init__(self, results, null="grpo", main="method", alternatives=None):
        self.results, self._null, self._main, self._alt = results, null, main, alternatives or {}

    def null_run(self):
        return self._null

    def main_run(self):
        return self._main

    def alternatives(self):
        return self._alt


def claim(**kw):
    base = dict(key="k", quote="q", source="s", paper_value="p", ours="o", direction="greater", margin=0.01)
    return Claim(**{**base, **kw})


def level(results, run):
    return lambda: estimate_of(results.read(run))


def test_a_null_that_passes_too_makes_the_claim_not_testable():
    # "the method keeps its entropy": the method's value is above 0, and so is GRPO's (the planted null passes)
    results = FakeResults({"method": [0.3, 0.35, 0.4], "grpo": [0.2, 0.25, 0.3]})
    r = evaluate(FakePaper(results), claim(), level(results, "method"))
    assert r.verdict == NOT_TESTABLE and r.kind == INDISCRIMINATE and "grpo in method's place passes too" in r.note
    # a null that fails keeps the verdict, and says so
    results.values["grpo"] = [-0.2, -0.25, -0.3]
    r = evaluate(FakePaper(results), claim(), level(results, "method"))
    assert r.verdict == HOLDS and r.null.startswith("grpo in method's place: does not hold")


def test_the_null_of_a_claim_about_the_null_run_itself_is_the_base_policy_and_a_contrast_needs_no_run():
    assert null_for(claim(), ["grpo"], "grpo", "method") == {"grpo": "base"}
    assert null_for(claim(null=None), ["method"], "grpo", "method") == {}
    assert null_for(claim(), ["method", "baseline"], "grpo", "method") == {}  # two arms: the contrast is the null
    assert null_for(claim(null="baseline"), ["method", "other"], "grpo", "method") == {"method": "baseline"}


def test_a_failed_seed_hidden_by_the_mean_gives_method_failed_with_the_ungated_verdict():
    results = FakeResults({"method": [0.3, 0.35, 0.4], "grpo": [-0.2, -0.1, -0.3]}, failing={"method": "x2.37"})
    r = evaluate(FakePaper(results), claim(), level(results, "method"))
    assert r.verdict == METHOD_FAILED and r.ungated == HOLDS and "method seed 1: x2.37" in r.note
    # a claim about failure declares no gate: the failed seed is its evidence
    r = evaluate(FakePaper(results), claim(requires=()), level(results, "method"))
    assert r.verdict == HOLDS


def test_a_failed_gate_withholds_holds_only_and_a_refutation_on_the_failed_run_stands_labelled():
    # CW-GRPO below GRPO in every seed, on a run one of whose seeds fails a gate: the refutation is the evidence
    results = FakeResults({"method": [-0.14, -0.12, -0.16], "grpo": [0.0, 0.0, 0.0]}, failing={"method": "x5.06"})
    r = evaluate(FakePaper(results), claim(null=None), level(results, "method"))
    assert r.verdict == DOES_NOT_HOLD and r.gate_failures == "method seed 1: x5.06"
    assert "stands on a failed run: method seed 1: x5.06" in r.note
    # an inconclusive verdict between failed runs stands too, but is not "underpowered": more seeds won't help
    results.values["method"] = [-0.1, 0.05, 0.12]
    r = evaluate(FakePaper(results), claim(null=None, paper_effect=0.004), level(results, "method"))
    assert r.verdict == INCONCLUSIVE and r.kind == RUN_FAILED and "underpowered" not in r.note
    # the default gates include `learned`: every claim about what the method does when it works
    assert "learned" in claim().requires


def test_a_shortfall_inside_sampling_noise_is_not_below_base():
    rng = np.random.default_rng(0)
    base = rng.binomial(16, 0.4, 256) / 16  # 256 problems, mean@16
    noisy = np.clip(base - 0.012 + rng.normal(0, 0.2, 256), 0, 1)  # CW-GRPO seed 3: 0.012 below, z about -1
    assert below_base(noisy, base) == ""
    clear = np.clip(base - 0.1 + rng.normal(0, 0.05, 256), 0, 1)
    assert below_base(clear, base).startswith("mean@n") and "over 256 problems" in below_base(clear, base)


def test_a_verdict_that_hinges_on_a_declared_alternative_says_so():
    values = {"method": [0.05, 0.06, 0.07], "method_alt": [-0.2, 0.1, 0.3], "grpo": [-1.0, -1.1, -1.2]}
    results = FakeResults(values)
    paper = FakePaper(results, alternatives={"sigma:0.25": {"method": "method_alt"}})
    r = evaluate(paper, claim(), level(results, "method"))
    assert r.verdict == HOLDS and r.robustness.startswith("hinges on sigma:0.25: inconclusive")
    values["method_alt"] = [0.05, 0.07, 0.06]
    assert evaluate(paper, claim(), level(results, "method")).robustness == "robust (sigma:0.25)"
    # an alternative whose run the claim does not read does not apply
    assert evaluate(paper, claim(), level(results, "grpo")).robustness == ""
    # one whose run is not made yet decides nothing and says why
    del values["method_alt"]
    r = evaluate(paper, claim(), level(results, "method"))
    assert (
        r.robustness.startswith("sigma:0.25 not applicable: run 'method_alt' has no results yet")
        and not r.by_alternative
    )


def test_an_alternative_under_which_the_measure_is_constant_is_not_applicable():
    """Round 4 T8: TEPO's clipped share is 0 by construction under the unclipped surrogate; judged there, the claim
    "lower clip ratio" would hold whatever the runs did."""
    values = {"method": [0.05, 0.06, 0.07], "method_alt": [0.30, 0.31, 0.29], "grpo": [-1.0, -1.1, -1.2]}
    results = FakeResults(values)
    paper = FakePaper(results, alternatives={"unclipped": {"method": "method_alt"}})
    assert evaluate(paper, claim(), level(results, "method")).by_alternative == {"unclipped": HOLDS}
    constant = claim(constant_under=(("unclipped", "clips no token"),))
    r = evaluate(paper, constant, level(results, "method"))
    assert r.robustness == "unclipped not applicable: clips no token" and not r.by_alternative


def test_under_an_alternative_the_guard_checks_the_runs_actually_read(tmp_path):
    from rlvr_lib.papers.framework.claims import NotTestable
    from rlvr_lib.papers.framework.results import RunResults
    from rlvr_lib.settings.config import load_params

    params = load_params(REPO / "params.yaml")
    results = RunResults(params, ["erpo_erpo_data", "erpo_no_entropy_gate", "erpo_sigma_0_25"])
    results.check("erpo_erpo_data", "erpo_no_entropy_gate", ("method.use_entropy_gate",))  # one change: allowed
    with results.substituted({"erpo_erpo_data": "erpo_sigma_0_25"}), pytest.raises(NotTestable, match="sigma_target"):
        results.check("erpo_erpo_data", "erpo_no_entropy_gate", ("method.use_entropy_gate",))  # now two changes


def test_a_measure_fixed_by_the_task_or_calibrated_is_not_testable():
    results = FakeResults({"method": [1.0, 1.2, 1.1], "grpo": [0.1, 0.2, 0.3]}, methods={"grpo": "grpo"})
    r = evaluate(FakePaper(results), claim(measure="response_length"), level(results, "method"))
    assert r.verdict == NOT_TESTABLE and r.kind == IMMOVABLE and "fixed by the task" in r.note
    # GRPO's entropy level is what the budget was calibrated to produce: a one-arm claim on a GRPO run
    r = evaluate(FakePaper(results, null=None), claim(measure="log_entropy_retained"), level(results, "grpo"))
    assert r.verdict == NOT_TESTABLE and "calibrated" in r.note


def test_a_zero_variance_discrete_metric_and_a_floor_give_no_verdict():
    k50 = estimate_of(np.array([0.0, 0.0, 0.0]) - np.array([2.0, 2.0, 2.0]))
    assert judge(claim(direction="less"), k50).kind == IMMOVABLE
    floor = paired_difference(np.full((3, 4), 0.0), np.full((3, 4), 0.005), bounds=(0.0, 1.0))
    assert judge(claim(), floor).verdict == NOT_TESTABLE


def test_a_margin_above_the_papers_effect_is_capped_and_the_effect_must_be_excluded():
    # AER vs Clip-Cov: upper bound +0.0057, paper's effect +0.004, declared margin 0.01
    e = estimate_of(np.array([-0.19, -0.09, 0.0]))
    e = type(e)(-0.090, -0.185, 0.0057, 3, None, "", e.se, per_seed=e.per_seed)
    r = judge(claim(paper_effect=0.004), e)
    assert r.verdict == INCONCLUSIVE and "margin capped at the paper's effect" in r.note
    r = judge(claim(paper_effect=0.004, margin=0.004), type(e)(-0.09, -0.185, 0.003, 3, None, "", e.se))
    assert r.verdict == DOES_NOT_HOLD and r.kind == EFFECT_EXCLUDED


def test_an_inconclusive_comparison_far_below_its_power_is_underpowered():
    r = judge(claim(paper_effect=0.004), estimate_of(np.array([-0.1, 0.05, 0.12])))
    assert r.verdict == INCONCLUSIVE and r.kind == UNDERPOWERED and "seeds would detect the paper's effect" in r.note


def test_a_universal_claim_is_refuted_by_one_seed():
    # "prevents explosion": log peak ratio below log 2 in every seed; one seed at x25.7 refutes it
    e = estimate_of(np.log([1.2, 25.7, 1.5]) - measures.LOG_FACTOR, seeds=[0, 1, 2])
    r = judge(claim(direction="less", universal=True), e)
    assert r.verdict == DOES_NOT_HOLD and r.kind == A_SEED_REFUTES and "seed 1" in r.note
    e = estimate_of(np.log([1.2, 1.3, 1.5]) - measures.LOG_FACTOR, seeds=[0, 1, 2])
    assert judge(claim(direction="less", universal=True), e).verdict == HOLDS


def test_a_run_not_made_yet_is_not_run_with_its_cost():
    results = FakeResults({})

    def compute():
        raise NotRun("run 'x' has no results.json for seed(s) 3, 4 yet", 2)

    r = evaluate(FakePaper(results), claim(), compute)
    assert r.verdict == NOT_RUN and "cost: 2 (run, seed) pairs" in r.note


def test_a_bounded_levels_interval_stays_inside_its_range():
    from rlvr_lib.papers.framework.claims import bounded_t_interval, t_interval

    per_seed = np.array([0.02, 0.9, 0.14])  # aer_tau_0_8-like: a t interval runs below 0 and above 1
    _, low, high, _ = t_interval(per_seed)
    assert low < 0 < 1 < high
    mean, low, high, _ = bounded_t_interval(per_seed, (0.0, 1.0))
    assert 0 <= low <= mean <= high <= 1


# ----------------------------------------------------------------------------- the gates, on fake histories
class GateResults:
    """Two seeds of one run: seed 1 below its base policy and its entropy peaking at x3 mid-run."""

    runs = ["base", "run", "grpo", "aer_idle"]

    @contextlib.contextmanager
    def at_decoding(self, decoding):  # the gates read the shared evaluation (one here)
        yield

    def __init__(self):
        from types import SimpleNamespace

        spec = SimpleNamespace(train=SimpleNamespace(max_steps=180), train_data="full")
        self.params = SimpleNamespace(runs=dict.fromkeys(self.runs[1:], spec))
        ent = {0: [0.2, 0.18, 0.15, 0.1], 1: [0.2, 0.6, 0.3, 0.2]}  # seed 1's end is x1.0, its peak x3
        self.h = {
            (run, s): pd.DataFrame({"step": [1, 2, 3, 4], "entropy/mean": ent[s], "aer/alpha": [0.0] * 4})
            for run in self.runs[1:]
            for s in (0, 1)
        }
        self.acc = {
            ("base", 0): 0.2,
            ("base", 1): 0.2,
            ("run", 0): 0.5,
            ("run", 1): 0.15,
            ("grpo", 0): 0.6,
            ("grpo", 1): 0.6,
            ("aer_idle", 0): 0.25,
            ("aer_idle", 1): 0.3,
        }

    def seeds_of(self, run):
        return [0, 1]

    def method_of(self, run):
        return "aer" if run == "aer_idle" else "grpo"

    def eval_table(self, run, metric, seeds):
        return np.full((1, 16), self.acc[(run, seeds[0])])  # 16 problems, each at the seed's mean@n

    def seed_histories(self, run, seeds):
        return [self.h[(run, s)] for s in seeds]


def test_the_gates_find_a_failed_seed_an_idle_mechanism_and_a_run_that_did_not_learn():
    gates = Gates(GateResults(), "grpo")
    failed = gates.failures(["run"], ("healthy",))
    assert failed == [
        "run seed 1: mean@n 0.150 below its base policy's 0.200 (-0.050 [-0.050, -0.050] over 16 problems); "
        "rollout entropy peaked at x3.00 of its first batch"
    ]
    assert "non-zero on 0% of rollout batches" in gates.failures(["aer_idle"], ("active",))[0]
    assert gates.failures(["grpo"], ("active",)) == []  # GRPO has no mechanism to check
    learned = gates.failures(["aer_idle"], ("learned",))
    assert len(learned) == 2 and "did not learn" in learned[0]  # +0.05 and +0.10 of GRPO's +0.40


def test_learned_is_measured_against_a_grpo_run_as_long_and_a_missing_seed_is_not_run():
    from types import SimpleNamespace

    results = GateResults()
    results.runs = [*results.runs, "grpo_90"]
    short = SimpleNamespace(train=SimpleNamespace(max_steps=90), train_data="full")
    results.params.runs = {**results.params.runs, "run": short, "grpo_90": short}
    results.acc.update({("grpo_90", 0): 0.3, ("grpo_90", 1): 0.3})
    gates = Gates(results, "grpo")
    assert gates.reference_for("run") == "grpo_90" and gates.reference_for("aer_idle") == "grpo"
    failed = gates.failures(["run"], ("learned",))  # seed 0: +0.30 of grpo_90's +0.10; seed 1: -0.05
    assert len(failed) == 1 and failed[0].startswith("run seed 1") and "of grpo_90's +0.100" in failed[0]
    results.seeds_of = lambda run: [0] if run == "grpo_90" else [0, 1]
    with pytest.raises(NotRun, match="needs grpo_90 seed 1"):
        Gates(results, "grpo").failures(["run"], ("learned",))


def test_the_tail_window_counts_rollout_batches_not_logged_rows():
    # AER's aer/entropy repeats the rollout value on every update: 2 updates per rollout batch
    h = pd.DataFrame({"step": range(1, 13), "aer/entropy": [v for v in range(6) for _ in (0, 1)]})
    h.attrs[measures.UPDATES_ATTR] = 2
    assert list(measures.window(h, "aer/entropy", "end")) == [1, 2, 3, 4, 5]
    assert measures.end_mean(h, "aer/entropy") == 3.0
    assert math.isclose(measures.paper_share(100, 500), 0.2)


# ----------------------------------------------------------------------------- the setup table
def test_the_setup_table_says_differs_when_a_value_differs():
    import dataclasses

    from rlvr_lib.papers.framework.setup import setup_table
    from rlvr_lib.settings.config import load_params

    params = load_params(REPO / "params.yaml")
    rows = setup_table("tepo", params, "tepo_tepo_data").set_index("setting")
    assert rows.loc["updates per rollout batch", "differs"] == "no"  # params.yaml makes the paper's 4 x 2
    assert "evaluation decoding" in rows.index and "ratio clip (what it acts on)" in rows.index
    # plant the structure the runs had before (8 mini-batches x 1 pass, also 8 updates): the row differs
    spec = params.runs["tepo_tepo_data"]
    spec.train = dataclasses.replace(
        spec.train, steps_per_generation=8 * spec.train.gradient_accumulation_steps, num_iterations=1
    )
    rows = setup_table("tepo", params, "tepo_tepo_data").set_index("setting")
    assert rows.loc["updates per rollout batch", "differs"] == "yes"
    assert rows.loc["updates per rollout batch"].iloc[-2].startswith("8 (8 mini-batches x 1 pass)")


def test_a_papers_effect_above_the_headroom_is_not_testable():
    from rlvr_lib.papers.framework.claims import NO_HEADROOM

    # AER's pass@32: GRPO at 0.843 leaves 0.157; the paper's +0.162 cannot be shown, so "effect excluded" is no verdict
    a = np.array([[0.80, 0.85], [0.83, 0.79], [0.84, 0.86]])
    b = np.array([[0.85, 0.84], [0.84, 0.85], [0.83, 0.85]])
    e = paired_difference(a, b, bounds=(0.0, 1.0))
    r = judge(claim(paper_effect=0.162), e)
    assert r.verdict == NOT_TESTABLE and r.kind == NO_HEADROOM and "+0.157" in r.note
    # inside the headroom the same numbers are a verdict
    assert judge(claim(paper_effect=0.05), e).verdict == DOES_NOT_HOLD
    # a refutation that does not rest on the effect's size stands
    worse = paired_difference(a - 0.3, b, bounds=(0.0, 1.0))
    assert judge(claim(paper_effect=0.162), worse).kind == "opposite effect detected"


# ----------------------------------------------------------------------------- nulls, formulas, prefixes, dates
def test_a_claim_true_by_its_formula_is_counted_apart():
    from rlvr_lib.papers.framework.claims import FORMULA, Formula

    results = FakeResults({"method": [0.3, 0.35, 0.4], "grpo": [-0.2, -0.1, -0.3]})
    r = evaluate(
        FakePaper(results), claim(null=Formula("eq. 9: {g < 0.2} is inside {g < 1}")), level(results, "method")
    )
    assert r.verdict == NOT_TESTABLE and r.kind == FORMULA and r.ungated == HOLDS and "eq. 9" in r.note


def test_a_no_op_kernel_that_passes_too_makes_the_claim_not_testable():
    from rlvr_lib.papers.framework.declare import measure, null_value

    # kernel_handful: every seed's share of tokens with w < 0.5 under 5%; a kernel w = 1 has share 0 and passes too
    results = FakeResults({"method": [0.0096, 0.0082, 0.009]})
    noop = measure(null_value, 0.0, "a kernel w = 1")
    c = claim(direction="less", reference=0.05, margin=0.0, universal=True, null=noop, requires=())
    r = evaluate(FakePaper(results), c, level(results, "method"))
    assert r.verdict == NOT_TESTABLE and r.kind == INDISCRIMINATE and r.null.startswith("no-op null_value: holds")


def test_every_claim_with_a_measure_declares_its_null_and_a_planted_undeclared_one_fails():
    from rlvr_lib import papers
    from rlvr_lib.papers.framework.declare import undeclared_nulls
    from rlvr_lib.settings.config import load_params

    params = load_params(REPO / "params.yaml")
    paper = papers.open_paper("cw_grpo", params)
    assert undeclared_nulls(paper) == []
    key = paper.claim(
        key="planted",
        quote="q",
        source="s",
        paper_value="p",
        ours="o",
        direction="greater",
        margin=0.0,
        compute=paper.declared_measures["acc_vs_grpo"],
        null=None,
    )
    assert undeclared_nulls(paper) == [key]
    for name in PAPERS:
        assert undeclared_nulls(papers.open_paper(name, params)) == [], name


def test_a_measure_over_nested_prefixes_of_one_run_is_refused_and_equal_windows_pass():
    from rlvr_lib.papers.framework.measures import equal_windows, nested_prefixes
    from rlvr_lib.settings.config import load_params

    class Checkpoints:  # GRPO's 90- and 180-step runs: one trajectory, differing only in train.max_steps
        params = load_params(REPO / "params.yaml")

    def fluctuation(history):
        return 0.0

    reads = Reads()
    reads.history_fns = [("grpo_cw_90steps", fluctuation), ("grpo_cw", fluctuation)]
    arms = ["grpo_cw_90steps", "grpo_cw"]
    assert "nested prefixes of one run" in nested_prefixes(Checkpoints, arms, reads)
    equal_windows(fluctuation)
    assert nested_prefixes(Checkpoints, arms, reads) == ""
    # two methods at one length are no prefixes
    reads.history_fns = [("cw_grpo_1update", len), ("grpo_cw", len)]
    assert nested_prefixes(Checkpoints, ["cw_grpo_1update", "grpo_cw"], reads) == ""


def test_a_reading_chosen_after_the_runs_is_marked_with_its_earlier_verdict():
    from rlvr_lib.papers.framework.claims import Fixed
    from rlvr_lib.papers.framework.declare import measure, null_value

    results = FakeResults({"method": [0.001, -0.002, 0.0], "grpo": [-0.2, -0.1, -0.3]})
    earlier = measure(null_value, 0.3, "the end window")
    moved = Fixed("3c7fe14c", after_runs=True, what="window moved", earlier=earlier)
    c = claim(direction="equal", margin=0.05, fixed=moved, null="grpo")
    r = evaluate(FakePaper(results), c, level(results, "method"))
    assert r.verdict == HOLDS and r.chosen.startswith("3c7fe14c: window moved; the earlier reading: does not hold")
    assert evaluate(FakePaper(results), claim(direction="equal", margin=0.05), level(results, "method")).chosen == ""


def test_a_grpo_with_its_own_train_override_leaves_the_summary_ranking_naming_what_it_cannot_compare():
    import dataclasses

    from rlvr_lib import papers
    from rlvr_lib.settings.config import load_params

    params = load_params(REPO / "params.yaml")
    grpo = params.runs["grpo"]
    params.runs["grpo"] = dataclasses.replace(grpo, train=dataclasses.replace(grpo.train, learning_rate=2e-4))
    summary = papers.open_paper("summary", params)
    summary.ranking()  # raised KeyError: 'failed_seeds' when no method had a GRPO run to compare with
    assert summary.uncompared and "grpo" in summary.uncompared[0]  # named: not retrained, or no GRPO in its group
    assert "Not compared:" in summary.report.sections[-1].text


def test_a_setup_row_joining_several_settings_names_each_source():
    """AER review finding 13: the learning-rate row printed 'ours: not given; verl's default' without saying which
    setting each source was for."""
    from rlvr_lib.papers.framework.setup import _source

    sources = {
        "train.learning_rate": "table 3",
        "train.lr_scheduler_type": "ours: not given",
        "train.warmup_steps": "x",
    }
    keys = ("train.learning_rate", "train.lr_scheduler_type", "train.warmup_steps")
    assert _source(sources, keys, "aer") == "table 3; lr scheduler type: ours: not given; warmup steps: x"
    assert _source({}, keys, "aer").startswith("the profile's default")
