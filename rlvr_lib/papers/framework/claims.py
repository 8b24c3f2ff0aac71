"""Claims, the verdict rule, seed-level intervals of paired differences, and the claims table.

A ``Claim`` is one sentence of a paper, quoted verbatim (``rlvr_lib.papers.framework.quotes`` checks it against the
paper's text), that can be checked with a number: where it is (section / table / figure), the paper's own number, what
we compute instead (a difference d) and what the paper claims for d: its direction against a reference value (0, or a
size the paper states, e.g. 0 for "collapses to 0%"), and the margin, the smallest effect that would matter. A
conjunctive claim is judged as a whole from its parts (``parts``), which are nested under it and not counted.

The verdict follows ``BRANCHES``, fixed before any result; ``VERDICT_RULE`` (printed in every report) is written
from the same list, and ``verdict`` returns the branch that fired, so the text and the code cannot drift apart (a
test runs every branch's example).

Intervals: a seed is one replication of the whole pipeline (its own base policy, RL run and evaluation sample), so
the unit of uncertainty is the seed. Every d is reduced to one value per seed (a paired difference: the mean over
the evaluation problems of run a's seed-s value minus run b's, so the problem noise sits inside each seed's value),
and its 95% interval is Student's t over those per-seed values (n - 1 degrees of freedom).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

HOLDS = "holds"
DOES_NOT_HOLD = "does not hold"
INCONCLUSIVE = "inconclusive"
METHOD_FAILED = "method failed"
NOT_TESTABLE = "not testable here"
NOT_RUN = "not run"
VERDICTS = (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, METHOD_FAILED, NOT_TESTABLE, NOT_RUN)
COUNTED = (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE)  # the verdicts on the paper; the others say why there is none
# the kind of each verdict (the claims table's `kind` column)
OPPOSITE = "opposite effect detected"
EFFECT_EXCLUDED = "paper's effect excluded"
DIFFERENCE = "a difference detected"
UNDERPOWERED = "underpowered"
SPANS = "interval spans both"
A_SEED_REFUTES = "a seed refutes it"
INDISCRIMINATE = "does not tell the method from its null"
IMMOVABLE = "metric cannot move"
FEW_SEEDS = "too few seeds"
BEYOND = "beyond the testbed"
NESTED = "nested prefixes of one run"
NO_HEADROOM = "the paper's effect exceeds what this measure can show"
RUN_FAILED = (
    "run failed"  # a gate failed: HOLDS is withheld (METHOD FAILED); an open verdict says more seeds won't help
)
Direction = Literal["greater", "less", "equal"]
DIRECTION_TEXT = {"greater": ">", "less": "<", "equal": "="}
LEVEL = 0.95
POWER = 0.80  # for the smallest detectable effect stated beside an inconclusive verdict
MIN_SEEDS = 3  # fewer seeds per arm: not testable (no verdict from one or two replications)
SATURATION = 0.02  # a bounded metric within 2% of its range from a bound is saturated there
UNDERPOWER_FACTOR = 2.0  # inconclusive with a detectable effect over 2x the paper's: underpowered
MAX_SEEDS_SHOWN = 1000


class NotTestable(Exception):
    """Raised while computing a claim's number when the testbed cannot give one; the message is the reason and
    ``kind`` what kind of reason (``BEYOND``: the testbed cannot measure it; ``IMMOVABLE``: the metric cannot move)."""

    def __init__(self, reason: str, kind: str = BEYOND):
        super().__init__(reason)
        self.kind = kind


class NotRun(NotTestable):
    """Raised for a claim the testbed could test but the project has not run: the reason names the runs and
    ``cost`` the (run, seed) pairs they would take."""

    def __init__(self, reason: str, cost: int):
        super().__init__(f"{reason} (cost: {cost} (run, seed) pair{'s' if cost != 1 else ''})", "not run")
        self.cost = cost


def unavailable(reason: str, kind: str = BEYOND):
    """Raise ``NotTestable(reason, kind)``: the compute function of a claim the testbed cannot test."""
    raise NotTestable(reason, kind)


def not_run(reason: str, cost: int):
    """Raise ``NotRun``: the compute function of a claim whose runs the project has not made."""
    raise NotRun(reason, cost)


# ----------------------------------------------------------------------------- the rule
@dataclass(frozen=True)
class Branch:
    """One branch of the verdict rule: its text in ``VERDICT_RULE``, the verdict, its kind and an example that
    reaches it (``direction``, ``value``, ``low``, ``high``, ``margin``, ``effect``, with the reference 0)."""

    name: str
    text: str
    verdict: str
    kind: str
    example: tuple[Direction, float, float, float, float, float | None]


BRANCHES = (
    Branch(
        "material",
        "claimed d > ref: HOLDS if the interval lies above ref and the estimate exceeds ref by at least the margin "
        "(detected and material)",
        HOLDS,
        "",
        ("greater", 0.05, 0.02, 0.08, 0.01, None),
    ),
    Branch(
        "opposite",
        "claimed d > ref: DOES NOT HOLD (opposite effect detected) if the interval lies below ref",
        DOES_NOT_HOLD,
        OPPOSITE,
        ("greater", -0.05, -0.08, -0.02, 0.01, None),
    ),
    Branch(
        "effect_excluded",
        "claimed d > ref: DOES NOT HOLD (paper's effect excluded) if the interval lies below ref + the paper's "
        "effect (the margin where the paper gives no number)",
        DOES_NOT_HOLD,
        EFFECT_EXCLUDED,
        ("greater", 0.002, -0.004, 0.008, 0.01, 0.02),
    ),
    Branch(
        "open",
        "claimed d > ref: INCONCLUSIVE otherwise",
        INCONCLUSIVE,
        "",
        ("greater", 0.02, -0.01, 0.05, 0.01, None),
    ),
    Branch(
        "material_less",
        "claimed d < ref: HOLDS if the interval lies below ref and the estimate falls short of ref by at least the "
        "margin",
        HOLDS,
        "",
        ("less", -0.05, -0.08, -0.02, 0.01, None),
    ),
    Branch(
        "opposite_less",
        "claimed d < ref: DOES NOT HOLD (opposite effect detected) if the interval lies above ref",
        DOES_NOT_HOLD,
        OPPOSITE,
        ("less", 0.05, 0.02, 0.08, 0.01, None),
    ),
    Branch(
        "effect_excluded_less",
        "claimed d < ref: DOES NOT HOLD (paper's effect excluded) if the interval lies above ref - the paper's "
        "effect (the margin where the paper gives no number)",
        DOES_NOT_HOLD,
        EFFECT_EXCLUDED,
        ("less", 0.001, -0.005, 0.008, 0.01, None),
    ),
    Branch(
        "open_less",
        "claimed d < ref: INCONCLUSIVE otherwise",
        INCONCLUSIVE,
        "",
        ("less", -0.02, -0.05, 0.01, 0.01, None),
    ),
    Branch(
        "equivalent",
        "claimed d = ref (no material difference, or a stated size): HOLDS if the interval lies inside "
        "[ref - margin, ref + margin]",
        HOLDS,
        "",
        ("equal", 0.001, -0.005, 0.008, 0.01, None),
    ),
    Branch(
        "different",
        "claimed d = ref: DOES NOT HOLD (a difference detected) if the interval lies wholly above ref + margin or "
        "wholly below ref - margin",
        DOES_NOT_HOLD,
        DIFFERENCE,
        ("equal", 0.04, 0.02, 0.06, 0.01, None),
    ),
    Branch(
        "unresolved",
        "claimed d = ref: INCONCLUSIVE otherwise",
        INCONCLUSIVE,
        "",
        ("equal", 0.02, -0.005, 0.05, 0.01, None),
    ),
)
BRANCH = {b.name: b for b in BRANCHES}


def capped_margin(margin: float, paper_effect: float | None) -> float:
    """A margin never exceeds the paper's own stated effect for the comparison."""
    return margin if paper_effect is None else min(margin, abs(paper_effect))


def verdict(
    direction: Direction,
    value: float,
    low: float,
    high: float,
    margin: float,
    reference: float = 0.0,
    effect: float | None = None,
):
    """(verdict, branch name) of ``BRANCHES`` for a claimed ``direction`` of d against ``reference``, the
    estimate ``value``, its interval [low, high], the ``margin`` and the paper's ``effect`` (None: the margin
    stands for it when deciding whether the paper's effect is excluded)."""
    if direction not in DIRECTION_TEXT:
        raise ValueError(f"direction must be one of {list(DIRECTION_TEXT)}, got {direction!r}")
    if any(math.isnan(x) for x in (value, low, high)) or low > high or not low <= value <= high:
        raise ValueError(f"not an estimate inside its interval: {value} in [{low}, {high}]")
    if not margin >= 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    value, low, high = value - reference, low - reference, high - reference
    size = margin if effect is None else abs(effect)
    if direction == "equal":
        if -margin <= low and high <= margin:
            return HOLDS, "equivalent"
        if low > margin or high < -margin:
            return DOES_NOT_HOLD, "different"
        return INCONCLUSIVE, "unresolved"
    if direction == "greater":
        if low > 0 and value >= margin:
            return HOLDS, "material"
        if high < 0:
            return DOES_NOT_HOLD, "opposite"
        if high < size:
            return DOES_NOT_HOLD, "effect_excluded"
        return INCONCLUSIVE, "open"
    if high < 0 and value <= -margin:
        return HOLDS, "material_less"
    if low > 0:
        return DOES_NOT_HOLD, "opposite_less"
    if low > -size:
        return DOES_NOT_HOLD, "effect_excluded_less"
    return INCONCLUSIVE, "open_less"


# The checks that run before and after the branches, in order (printed in every report's rule).
CHECKS = (
    f"Too few seeds: an arm with fewer than {MIN_SEEDS} seeds gives NOT TESTABLE HERE ({FEW_SEEDS}).",
    "Metric cannot move (NOT TESTABLE HERE): a zero-width interval (every seed the same value) never yields a "
    f"verdict; a bounded metric whose arms all sit within {SATURATION:.0%} of one bound is saturated; a measure the "
    "task fixes (answer length in the testbed's fixed format) or that the testbed's budget was calibrated to produce "
    "(GRPO's entropy level) is not evidence (rlvr_lib.papers.framework.measures).",
    "A margin never exceeds the paper's own stated effect for the comparison (it is capped there).",
    "Headroom: a bounded measure's reachable d on the arms compared is [lower bound - baseline, upper bound - "
    "baseline] (e.g. at most 1 minus the baseline's value for a rate); where the paper's effect (or the size it "
    "states) lies outside it, NOT TESTABLE HERE (the paper's effect exceeds what this measure can show), unless the "
    "verdict does not rest on the effect's size (HOLDS, or an opposite effect detected).",
    "Run health, per seed (rlvr_lib.papers.framework.gates): every seed of every run a claim reads must not end below "
    "its own seed's base policy (a paired t test over the evaluation problems: the 95% interval of the seed's "
    "per-problem difference from its base lies below 0; a shortfall inside sampling noise is no failure), its "
    "rollout entropy must never pass x2 its first batch (peak, not end), the method's mechanism must have acted "
    "(AER's alpha, Clip-Cov's and KL-Cov's selected tokens), and the run must have learned (at least a quarter of "
    "GRPO's gain over base on the same seed; every claim about what the method does when it works). The gates are "
    "one-sided: a failed gate withholds HOLDS only (what a failed run can reach trivially: METHOD FAILED, naming the "
    "seeds and how they failed, the verdict without the gate shown, never counted); a refutation or an inconclusive "
    "verdict stands, labelled with the failure (an inconclusive one is not called underpowered: more seeds of a "
    "failed run would not help). A claim about failure (an explosion, a collapse, reward hacking) declares no gate.",
    'A universal claim ("prevents", "never") is judged per seed: HOLDS if every seed is on the claimed side '
    "of ref, DOES NOT HOLD (a seed refutes it) if one is not.",
    "Null: every claim declares its null: the run the paper says the method beats (a two-arm claim's contrast "
    "arm), GRPO for a property of one run, the base policy for a property of GRPO's own run (its training history "
    "frozen at the first rollout batch), or a no-op form of the mechanism (e.g. a kernel w = 1). The claim is judged "
    "again on its null (shown beside it); if it holds and the null passes too: NOT TESTABLE HERE (the test does not "
    "tell the method from its null). A claim true by the definition of its measure is a PROPERTY OF THE FORMULA "
    "(NOT TESTABLE HERE, counted apart). Measures over nested prefixes of one run (checkpoints of one trajectory "
    "read over growing windows) are refused (NOT TESTABLE HERE).",
    f"Beside an inconclusive verdict: the smallest |d - ref| the seeds could detect ({LEVEL:.0%} two-sided, "
    f"{POWER:.0%} power); over {UNDERPOWER_FACTOR:g}x the paper's effect (or the margin) it is UNDERPOWERED, with "
    "about how many seeds would detect the paper's effect.",
    "Robustness: every verdict is computed again under each declared alternative of the paper (params.yaml "
    "`papers.<paper>.alternatives`: an open choice whose other value has runs); a verdict is ROBUST if it is the "
    "same under all, else it HINGES ON the alternative, with both verdicts.",
    "Dated choices: each claim's measure, window and reading carries the commit or protocol at which it was fixed "
    "(claims.csv `fixed_at`); one fixed after this protocol's runs existed is marked CHOSEN AFTER THE RUNS in its row, "
    "with its verdict under the earlier reading beside it.",
    "NOT RUN: a claim the testbed could test with runs the project has not made, with their cost in (run, seed) "
    "pairs. NOT TESTABLE HERE otherwise names what the testbed cannot measure.",
)


def _rule_text() -> str:
    lines = [
        "Verdict rule (rlvr_lib.papers.framework.claims, one line per branch and check of the code). The branches, "
        "the margins "
        "and the log-scale entropy bands were declared in code before this protocol's runs; the checks after the "
        "branches (health gates, nulls, immovable measures, declared alternatives, margin caps, per-seed universal "
        "claims) were added after them, in answer to the third review, with thresholds fixed before the verdicts were "
        "recomputed (x2 and the base policy are the project's earlier definitions of divergence).",
        "Each claim is tested on a difference d (e.g. the method's accuracy minus its baseline's, the two runs "
        "differing only in what the claim is about) against a reference ref (0, or the size the paper states), with a "
        "margin, the smallest effect that matters. A seed replicates the whole pipeline (its own base policy, RL run "
        f"and evaluation sample); d's {LEVEL:.0%} interval is Student's t over the per-seed values of d (paired by "
        "seed; each seed's value averages the evaluation problems; a bounded level's interval is computed on the logit "
        "scale and stays in range); entropy ratios are compared on the log scale.",
    ]
    lines += [f"- {b.text}." for b in BRANCHES]
    lines += [f"- {c}" for c in CHECKS]
    lines += [
        "- A conjunctive claim is judged whole from its parts: DOES NOT HOLD if a part does not hold, else METHOD "
        "FAILED, NOT RUN, NOT TESTABLE HERE or INCONCLUSIVE if a part is (in that order), else HOLDS.",
        "Runs share the testbed's training settings (the report's setup table lists where they differ from the "
        "paper's); method hyperparameters are the paper's where it gives them (docs/assumptions.md lists the open "
        "ones). Nothing is tuned to make a claim hold.",
    ]
    return "\n".join(lines)


VERDICT_RULE = _rule_text()


def combine(verdicts: Sequence[str]) -> str:
    """The verdict of a conjunctive claim from its parts' verdicts (``VERDICT_RULE``)."""
    if not verdicts:
        raise ValueError("a conjunctive claim needs at least one part")
    for v in (DOES_NOT_HOLD, METHOD_FAILED, NOT_RUN, NOT_TESTABLE, INCONCLUSIVE):
        if v in verdicts:
            return v
    return HOLDS


# ----------------------------------------------------------------------------- claims and estimates
AUTO_NULL = "auto"  # a one-arm claim's null: the paper's GRPO run (the base policy for a claim about GRPO itself)
CONTRAST = "contrast"  # a two-arm claim's null is its second arm (d = 0 there by construction)
FORMULA = "property of the formula"  # the kind of a claim true by construction: counted apart, not a verdict


@dataclass(frozen=True)
class Fixed:
    """When a claim's measure, window and reading were fixed: ``at`` (a commit or protocol). ``after_runs``: fixed
    after this protocol's runs existed (the verdict row says 'chosen after the runs', ``what`` says what changed);
    ``earlier``: the earlier reading, judged beside it (a ``declare.Measure``), or ``earlier_verdict``: its verdict
    as the report at that commit gave it, where its measure is no longer computed (a reading the framework now
    refuses)."""

    at: str
    after_runs: bool = False
    what: str = ""
    earlier: object = None
    earlier_verdict: str = ""


RUNS = "98025dc2"  # the full protocol's runs (reports/training, reports/eval), on which the reports' verdicts stand
BEFORE_RUNS = Fixed(f"before the full protocol's runs ({RUNS}); reviewed in rounds 1-3")
ROUND3 = "3c7fe14c (round 3, after the runs)"
ISSUE40 = "issue 40, 2026-11-28 (after the runs)"


@dataclass(frozen=True)
class Formula:
    """A claim's declared null when the claim holds by the definition of what it measures (``reason``: why): its
    number is shown, its verdict is NOT TESTABLE HERE (``FORMULA``), counted apart."""

    reason: str


DEFAULT_GATES = ("healthy", "active", "learned")  # rlvr_lib.papers.framework.gates; () for a claim about failure


@dataclass(frozen=True)
class Claim:
    """One checkable sentence of a paper.

    ``quote``: the paper's words, verbatim ("..." marks an elision); ``source``: section / table / figure;
    ``paper_value``: the paper's number(s) as text; ``ours``: what we compute (the difference d whose interval
    decides); ``direction``: what the paper claims for d against ``reference``; ``margin``: the smallest
    |d - reference| that matters, in d's units (capped at ``paper_effect``); ``paper_effect``: the paper's own effect
    in d's units where it has one; ``key``: a short unique id. A part of a conjunctive claim has its parent's key as
    ``parent``. ``null`` (declared for every claim with a measure): the run judged in the method's place
    (``AUTO_NULL``, a run, or ``"base"``: the base policy, whose training history is its run's first rollout batch
    frozen), ``CONTRAST`` (a two-arm claim: the second arm), a no-op form of the mechanism (a
    ``declare.Measure`` computing d as the no-op gives it, e.g. a kernel w = 1), or ``Formula`` (true by
    construction); None: undeclared (tests/test_papers_framework.py fails it);
    ``requires``: the health gates every run the claim reads must pass (``rlvr_lib.papers.framework.gates``);
    ``measure``: the registered measure d is built on (``rlvr_lib.papers.framework.measures``: its bounds, scale and
    what fixes it); ``universal``: judged per seed (one seed on the wrong side refutes it); ``constant_under``: the
    declared alternatives under which the measure is constant by construction in one arm (e.g. a clipped share under
    an unclipped surrogate), each with why: never judged under them (the robustness column says not applicable).
    """

    key: str
    quote: str
    source: str
    paper_value: str
    ours: str
    direction: Direction | None  # None: a conjunctive claim, judged from its parts
    margin: float
    reference: float = 0.0
    paper_effect: float | None = None
    parent: str | None = None
    null: object = AUTO_NULL
    requires: tuple[str, ...] = DEFAULT_GATES
    measure: str = ""
    universal: bool = False
    fixed: Fixed = BEFORE_RUNS
    constant_under: tuple[tuple[str, str], ...] = ()  # (alternative, why the measure is constant under it)

    def __post_init__(self) -> None:
        if self.direction is not None and self.direction not in DIRECTION_TEXT:
            raise ValueError(f"claim {self.key}: direction must be one of {list(DIRECTION_TEXT)} or None (a whole)")
        if not self.margin >= 0:
            raise ValueError(f"claim {self.key}: margin must be >= 0, got {self.margin}")

    @property
    def margin_used(self) -> float:
        return capped_margin(self.margin, self.paper_effect)

    @property
    def claimed(self) -> str:
        if self.direction is None:
            return "every part holds"
        ref = f"{self.reference:g}"
        band = f" ± {self.margin_used:g}" if self.direction == "equal" else f", margin {self.margin_used:g}"
        return f"{'every seed: ' if self.universal else ''}d {DIRECTION_TEXT[self.direction]} {ref}{band}"


@dataclass(frozen=True)
class Estimate:
    """Our number for a claim: the mean of the per-seed values of d with its interval, over ``n_seeds`` seeds (and
    ``n_problems`` problems inside each seed's value; None: a training-history quantity); ``detail`` says what it is
    made of (e.g. 'erpo 0.612 vs grpo 0.598'); ``se``: its standard error; ``arms``: the compared quantities' means
    and ``bounds`` their range when bounded (saturation); ``exact``: a count or a computed fact, no sampling;
    ``per_seed``: d's value per seed (``seeds`` names them when known)."""

    value: float
    ci_low: float
    ci_high: float
    n_seeds: int
    n_problems: int | None = None
    detail: str = ""
    se: float = math.nan
    arms: tuple[float, ...] = ()
    bounds: tuple[float, float] | None = None
    exact: bool = False
    per_seed: tuple[float, ...] = ()
    seeds: tuple[int, ...] = ()


def exact(value: float, detail: str = "") -> Estimate:
    """A number with no sampling error (a count, a property of the code or the data)."""
    return Estimate(float(value), float(value), float(value), 0, None, detail, 0.0, exact=True)


@dataclass
class ClaimResult:
    claim: Claim
    verdict: str
    estimate: Estimate | None = None
    note: str = ""
    paper: str = field(default="")
    branch: str = ""
    parts: list[ClaimResult] = field(default_factory=list)
    kind: str = ""
    robustness: str = ""  # "robust", "hinges on <alternative>: ...", or "" (no alternative applies)
    ungated: str = ""  # the verdict the numbers give without the health gate (method failed only)
    gate_failures: str = ""  # the failed gates a verdict that stands is labelled with ('<run> seed <s>: <reason>')
    null: str = ""  # the null's result, where one was judged
    arms: tuple[str, ...] = ()  # the trained runs the claim read
    by_alternative: dict[str, str] = field(default_factory=dict)  # declared alternative -> the verdict under it
    decoding: str = ""  # the paper's own evaluation decoding, when the claim read accuracy or pass@k at it
    beside: str = ""  # the paper's own decoding, judged beside a claim that read accuracy or pass@k at the shared one
    method_runs: tuple[str, ...] = ()  # the arms that switch the paper's mechanism on (``about.Mechanism``)
    root_cause: str = ""  # the cause a refutation shares with others of the paper (``about.RootCause``)
    chosen: str = ""  # 'chosen after the runs (<when>): <what>; earlier reading: <verdict>' (``Fixed.after_runs``)


def seed_values(values: np.ndarray) -> np.ndarray:
    """(S,) per-seed values of a (S,) vector or a (S, P) seeds x problems table (the mean over problems)."""
    table = np.asarray(values, dtype=float)
    if table.ndim == 1:
        table = table[:, None]
    if table.ndim != 2 or 0 in table.shape:
        raise ValueError(f"expected a non-empty (seeds,) or (seeds, problems) array, got shape {table.shape}")
    if np.isnan(table).any():
        raise NotTestable("the quantity is missing (NaN) for some seed or problem")
    return table.mean(axis=1)


def t_interval(per_seed: np.ndarray, level: float = LEVEL) -> tuple[float, float, float, float]:
    """(mean, low, high, standard error) of Student's t interval over (S,) per-seed values; S = 1 gives an
    infinite interval (one replication says nothing about the spread)."""
    x = np.asarray(per_seed, dtype=float)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, -math.inf, math.inf, math.inf
    se = float(x.std(ddof=1) / math.sqrt(len(x)))
    half = float(stats.t.ppf(0.5 + level / 2, len(x) - 1)) * se
    return mean, mean - half, mean + half, se


def detectable_effect(se: float, n_seeds: int, level: float = LEVEL, power: float = POWER) -> float:
    """The smallest |d| a two-sided t test at ``level`` detects with ``power`` given the standard error."""
    if n_seeds < 2 or not math.isfinite(se):
        return math.inf
    df = n_seeds - 1
    return float((stats.t.ppf(0.5 + level / 2, df) + stats.t.ppf(power, df)) * se)


def estimate_of(
    values: np.ndarray,
    *,
    detail: str = "",
    arms: Sequence[float] = (),
    bounds: tuple[float, float] | None = None,
    level_bounds: tuple[float, float] | None = None,
    seeds: Sequence[int] = (),
) -> Estimate:
    """Mean of a (seeds, problems) or (seeds,) table of d with its t interval over the per-seed values. NaN
    entries raise ``NotTestable`` (the quantity is missing for some seed or problem). ``level_bounds``: d is a
    level of a metric with that range (its interval on the logit scale, ``bounded_t_interval``)."""
    table = np.asarray(values, dtype=float)
    per_seed = seed_values(table)
    if level_bounds is not None:
        mean, low, high, se = bounded_t_interval(per_seed, level_bounds)
    else:
        mean, low, high, se = t_interval(per_seed)
    n_problems = table.shape[1] if table.ndim == 2 else None
    return Estimate(
        mean,
        low,
        high,
        len(per_seed),
        n_problems,
        detail,
        se,
        tuple(float(a) for a in arms),
        bounds,
        per_seed=tuple(float(v) for v in per_seed),
        seeds=tuple(int(s) for s in seeds),
    )


def bounded_t_interval(per_seed: np.ndarray, bounds: tuple[float, float], level: float = LEVEL):
    """(mean, low, high, se) of a bounded level: the t interval of the per-seed values on the logit scale of
    ``bounds``, mapped back, so it stays inside the range (values at a bound are moved in by 0.1% of it)."""
    lo, hi = bounds
    x = (np.asarray(per_seed, dtype=float) - lo) / (hi - lo)
    eps = 1e-3
    z = np.log(np.clip(x, eps, 1 - eps) / (1 - np.clip(x, eps, 1 - eps)))
    _, zl, zh, _ = t_interval(z, level)
    mean, _, _, se = t_interval(per_seed, level)

    def back(v: float) -> float:
        if math.isinf(v):
            return lo if v < 0 else hi
        return lo + (hi - lo) / (1 + math.exp(-v))

    return mean, min(back(zl), mean), max(back(zh), mean), se


def paired_difference(
    a: np.ndarray,
    b: np.ndarray,
    *,
    labels: Sequence[str] = ("a", "b"),
    digits: int = 3,
    bounds: tuple[float, float] | None = None,
    seeds: Sequence[int] = (),
) -> Estimate:
    """d = a - b paired by seed (and problem): both (S, P) or both (S,). ``detail`` gives each side's mean; with
    ``bounds`` (the metric's range) the interval is kept inside the range of a difference."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired difference of tables with shapes {a.shape} and {b.shape}")
    detail = f"{labels[0]} {a.mean():.{digits}f} vs {labels[1]} {b.mean():.{digits}f}"
    e = estimate_of(a - b, detail=detail, arms=(float(a.mean()), float(b.mean())), bounds=bounds, seeds=seeds)
    if bounds is None:
        return e
    width = bounds[1] - bounds[0]
    return dataclasses.replace(e, ci_low=max(e.ci_low, -width), ci_high=min(e.ci_high, width))


def saturation(estimate: Estimate) -> str | None:
    """The reason a bounded metric cannot show a difference (every arm within ``SATURATION`` of one bound)."""
    if estimate.bounds is None or not estimate.arms:
        return None
    lo, hi = estimate.bounds
    width = SATURATION * (hi - lo)
    arms = ", ".join(f"{a:.3f}" for a in estimate.arms)
    if all(a >= hi - width for a in estimate.arms):
        return f"saturated: every arm is at the ceiling ({arms} of at most {hi:g})"
    if all(a <= lo + width for a in estimate.arms):
        return f"saturated: every arm is at the floor ({arms} of at least {lo:g})"
    return None


def headroom_shortfall(claim: Claim, estimate: Estimate) -> str:
    """Why the paper's effect lies outside what a bounded two-arm measure can reach ('' when it does not): d = a - b
    of a measure in [lo, hi] reaches [lo - b, hi - b] on the baseline b's value; the claimed size is ref + effect
    ("greater"), ref - effect ("less") or ref ("equal" to a stated size)."""
    if claim.direction is None or estimate.bounds is None or len(estimate.arms) != 2:
        return ""
    effect = claim.paper_effect
    if effect is None and not (claim.direction == "equal" and claim.reference != 0):
        return ""
    lo, hi = estimate.bounds
    base = estimate.arms[1]
    reach_low, reach_high = lo - base, hi - base
    size = {"greater": claim.reference + abs(effect or 0), "less": claim.reference - abs(effect or 0)}.get(
        claim.direction, claim.reference
    )
    if reach_low <= size <= reach_high:
        return ""
    room = f"at most {format_number(reach_high)} ({hi:g} - the baseline's {base:.3f})"
    if size < reach_low:
        room = f"at least {format_number(reach_low)} ({lo:g} - the baseline's {base:.3f})"
    return f"{NO_HEADROOM}: the paper's size {format_number(size)} against d {room}"


def seeds_to_detect(se: float, n_seeds: int, effect: float, level: float = LEVEL, power: float = POWER) -> int:
    """About how many seeds would detect ``effect`` given the seed-level spread behind ``se`` over ``n_seeds``."""
    sd = se * math.sqrt(n_seeds)
    if not math.isfinite(sd) or effect <= 0:
        return MAX_SEEDS_SHOWN
    for n in range(2, MAX_SEEDS_SHOWN):
        if detectable_effect(sd / math.sqrt(n), n, level, power) <= effect:
            return n
    return MAX_SEEDS_SHOWN


def judge(claim: Claim, estimate: Estimate, note: str = "") -> ClaimResult:
    """The verdict of ``claim`` on ``estimate`` (``VERDICT_RULE``): too few seeds, a zero-width interval or a
    saturated metric is not testable; a universal claim is judged per seed; an inconclusive verdict notes the
    smallest detectable effect beside the paper's and whether the seeds were too few to see it."""
    if claim.direction is None:
        raise ValueError(f"claim {claim.key} is judged from its parts (judge_whole), not on an estimate")
    margin = claim.margin_used
    if margin < claim.margin:
        note = _join(f"margin capped at the paper's effect ({format_number(margin)}; declared {claim.margin:g})", note)
    if not estimate.exact and estimate.n_seeds < MIN_SEEDS:
        reason = f"{estimate.n_seeds} seed{'s' if estimate.n_seeds != 1 else ''}; a verdict needs {MIN_SEEDS} per arm"
        return ClaimResult(claim, NOT_TESTABLE, estimate, _join(reason, note), branch="seeds", kind=FEW_SEEDS)
    saturated = saturation(estimate)
    if saturated:
        return ClaimResult(claim, NOT_TESTABLE, estimate, _join(saturated, note), branch="saturated", kind=IMMOVABLE)
    if not estimate.exact and estimate.ci_low == estimate.ci_high:
        reason = (
            f"every seed gives the same value ({format_number(estimate.value)}): a zero-width interval from a "
            "metric that cannot move is no evidence"
        )
        return ClaimResult(claim, NOT_TESTABLE, estimate, _join(reason, note), branch="zero_width", kind=IMMOVABLE)
    if claim.universal:
        return _judge_per_seed(claim, estimate, margin, note)
    short = headroom_shortfall(claim, estimate)
    got, branch = verdict(
        claim.direction,
        estimate.value,
        estimate.ci_low,
        estimate.ci_high,
        margin,
        claim.reference,
        claim.paper_effect,
    )
    kind = BRANCH[branch].kind
    if short and branch not in ("material", "material_less", "opposite", "opposite_less"):
        return ClaimResult(claim, NOT_TESTABLE, estimate, _join(short, note), branch="headroom", kind=NO_HEADROOM)
    if got == INCONCLUSIVE:
        effect = margin if claim.paper_effect is None else abs(claim.paper_effect)
        mde = detectable_effect(estimate.se, estimate.n_seeds)
        paper = "" if claim.paper_effect is None else f" (the paper's effect: {format_number(claim.paper_effect)})"
        note = _join(f"the seeds could detect |d - ref| >= {format_number(mde)}{paper}", note)
        kind = SPANS
        if effect > 0 and mde > UNDERPOWER_FACTOR * effect:
            n = seeds_to_detect(estimate.se, estimate.n_seeds, effect)
            what = "the paper's effect" if claim.paper_effect is not None else "the margin"
            more = f"about {n}" if n < MAX_SEEDS_SHOWN else f"over {MAX_SEEDS_SHOWN}"
            note = _join(f"underpowered: {more} seeds would detect {what}", note)
            kind = UNDERPOWERED
    return ClaimResult(claim, got, estimate, note, branch=branch, kind=kind)


def _judge_per_seed(claim: Claim, estimate: Estimate, margin: float, note: str) -> ClaimResult:
    """A universal claim: every seed on the claimed side of ref (within ±margin for "="), or the seeds that refute."""
    values = estimate.per_seed
    if not values:
        raise ValueError(f"claim {claim.key} is universal but its estimate has no per-seed values")
    names = estimate.seeds or tuple(range(len(values)))
    ref = claim.reference

    def ok(v: float) -> bool:
        if claim.direction == "greater":
            return v > ref
        if claim.direction == "less":
            return v < ref
        return abs(v - ref) <= margin

    bad = [f"seed {s}: {format_number(v)}" for s, v in zip(names, values, strict=True) if not ok(v)]
    if bad:
        return ClaimResult(
            claim, DOES_NOT_HOLD, estimate, _join("refuted by " + ", ".join(bad), note), "per_seed", kind=A_SEED_REFUTES
        )
    return ClaimResult(claim, HOLDS, estimate, _join(f"every one of {len(values)} seeds", note), "per_seed")


def not_testable(claim: Claim, reason: str, kind: str = BEYOND) -> ClaimResult:
    if kind == "not run":
        return ClaimResult(claim, NOT_RUN, None, reason, branch="not run", kind="not run")
    return ClaimResult(claim, NOT_TESTABLE, None, reason, branch="not testable", kind=kind)


def judge_whole(claim: Claim, parts: Sequence[ClaimResult], note: str = "") -> ClaimResult:
    """A conjunctive claim's result from its parts' results (``combine``), the parts nested under it; its note names
    the parts that decided it (those with the whole's verdict, unless every part holds)."""
    got = combine([p.verdict for p in parts])
    kind = ""
    if got != HOLDS:
        deciding = [p for p in parts if p.verdict == got]
        note = _join(f"{got}: {', '.join(p.claim.key for p in deciding)}", note)
        kind = deciding[0].kind
    arms = tuple(dict.fromkeys(a for p in parts for a in p.arms))
    names = list(dict.fromkeys(n for p in parts for n in p.by_alternative))
    by_alternative = {n: combine([p.by_alternative.get(n, p.verdict) for p in parts]) for n in names}
    decoding = next((p.decoding for p in parts if p.decoding), "")
    beside = next((p.beside for p in parts if p.beside), "")
    whole = ClaimResult(
        claim,
        got,
        None,
        note,
        branch="whole",
        parts=list(parts),
        kind=kind,
        arms=arms,
        decoding=decoding,
        beside=beside,
    )
    if got in (*COUNTED, METHOD_FAILED):  # a whole without a verdict has no robustness either
        whole.by_alternative = by_alternative
        whole.robustness = robustness_text(got, by_alternative)
    return whole


SHARED_DECODING = "the shared decoding"  # robustness's name for a claim judged at params.yaml eval's own settings
PAPER_DECODING = (
    "the paper's decoding"  # robustness's name for a claim read at the shared decoding, judged at the paper's
)


def robustness_text(primary: str, by_alternative: dict[str, str], details: dict[str, str] | None = None) -> str:
    """'robust (a, b)' when every alternative gives ``primary``, 'hinges on a: <verdict> ...; <primary> at the
    default' naming each that does not ('at the paper's decoding' when only ``SHARED_DECODING`` differs), '' when
    no alternative applies."""
    if not by_alternative:
        return ""
    hinges = [
        f"{name}: {v}" + (f" ({details[name]})" if details and name in details else "")
        for name, v in by_alternative.items()
        if v != primary
    ]
    if not hinges:
        return f"robust ({', '.join(by_alternative)})"
    hinging = {name for name, v in by_alternative.items() if v != primary}
    if hinging == {SHARED_DECODING}:
        where = "at the paper's decoding"
    elif hinging == {PAPER_DECODING}:
        where = "at the shared decoding"
    else:
        where = "at the default" + (" and the paper's decoding" if SHARED_DECODING in hinging else "")
    return f"hinges on {'; '.join(hinges)}; {primary} {where}"


def _join(*texts: str) -> str:
    return "; ".join(t for t in texts if t)


# ----------------------------------------------------------------------------- the table
TABLE_COLUMNS = ("claim", "source", "paper", "claimed", "ours", "verdict", "robustness", "how ours is computed")
CSV_COLUMNS = (
    "paper_name",
    "key",
    "parent",
    "claim",
    "source",
    "paper_value",
    "ours_definition",
    "direction",
    "reference",
    "margin",
    "value",
    "ci_low",
    "ci_high",
    "n_seeds",
    "n_problems",
    "detail",
    "verdict",
    "kind",
    "branch",
    "robustness",
    "ungated_verdict",
    "gate_failures",
    "null_result",
    "fixed_at",
    "chosen_after_runs",
    "arms",
    "method_runs",
    "root_cause",
    "decoding",
    "note",
)


def format_number(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    magnitude = abs(value)
    if value == 0:
        return f"{0:.{digits}f}"
    if magnitude < 10**-digits:
        return f"{value:+.1e}"
    if magnitude >= 1000:
        return f"{value:+,.0f}"
    return f"{value:+.{digits}f}"


def ours_text(result: ClaimResult) -> str:
    """'d [low, high] (detail; N seeds)' or '—' when there is no number."""
    e = result.estimate
    if e is None:
        return "—"
    if e.exact:
        return f"{format_number(e.value)} (exact{'; ' + e.detail if e.detail else ''})"
    size = f"{e.n_seeds} seed{'s' if e.n_seeds != 1 else ''}" + (f" x {e.n_problems} problems" if e.n_problems else "")
    inner = "; ".join(x for x in (e.detail, size) if x)
    return f"{format_number(e.value)} [{format_number(e.ci_low)}, {format_number(e.ci_high)}] ({inner})"


def flatten(results: Sequence[ClaimResult]) -> list[ClaimResult]:
    """Every claim followed by its parts (the table's row order)."""
    out = []
    for r in results:
        out.append(r)
        out.extend(r.parts)
    return out


def claims_frame(results: Sequence[ClaimResult]) -> pd.DataFrame:
    """One row per claim and per part of a conjunctive claim, ``CSV_COLUMNS`` (numbers unformatted)."""
    rows = []
    for r in flatten(results):
        e, c = r.estimate, r.claim
        rows.append(
            {
                "paper_name": r.paper,
                "key": c.key,
                "parent": c.parent or "",
                "claim": c.quote,
                "source": c.source,
                "paper_value": c.paper_value,
                "ours_definition": c.ours,
                "direction": c.direction,
                "reference": c.reference,
                "margin": c.margin,
                "value": e.value if e else math.nan,
                "ci_low": e.ci_low if e else math.nan,
                "ci_high": e.ci_high if e else math.nan,
                "n_seeds": e.n_seeds if e else None,
                "n_problems": e.n_problems if e else None,
                "detail": e.detail if e else "",
                "verdict": r.verdict,
                "kind": r.kind,
                "branch": r.branch,
                "robustness": r.robustness,
                "ungated_verdict": r.ungated,
                "gate_failures": r.gate_failures,
                "fixed_at": c.fixed.at,
                "chosen_after_runs": r.chosen,
                "null_result": r.null,
                "arms": " ".join(r.arms),
                "method_runs": " ".join(r.method_runs),
                "root_cause": r.root_cause,
                "decoding": r.decoding,
                "note": r.note,
            }
        )
    return pd.DataFrame(rows, columns=list(CSV_COLUMNS))


def claims_table(results: Sequence[ClaimResult]) -> pd.DataFrame:
    """The claims table as text cells (``TABLE_COLUMNS``); a conjunctive claim's parts follow it, marked '↳'."""
    rows = []
    for r in flatten(results):
        c = r.claim
        part = c.parent is not None
        rows.append(
            {
                "claim": ("↳ " if part else "") + f"“{c.quote}”",
                "source": c.source,
                "paper": c.paper_value,
                "claimed": c.claimed,
                "ours": ours_text(r),
                "verdict": verdict_text(r, bold=not part),
                "robustness": r.robustness or "—",
                "how ours is computed": c.ours
                + (f" (evaluated at the paper's decoding, `{r.decoding}`)" if r.decoding else "")
                + (f" (evaluated at the shared decoding; the paper's `{r.beside}` beside)" if r.beside else "")
                + (f" — {r.note}" if r.note else "")
                + (f" — null: {r.null}" if r.null else "")
                + (f" — **chosen after the runs**: {r.chosen}" if r.chosen else ""),
            }
        )
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def verdict_text(result: ClaimResult, bold: bool = False) -> str:
    """'**verdict** (kind)': the verdict and what kind of verdict it is."""
    head = f"**{result.verdict}**" if bold else result.verdict
    return f"{head} ({result.kind})" if result.kind else head


def verdict_counts(results: Sequence[ClaimResult]) -> dict[str, int]:
    """Verdicts of the claims (a conjunctive claim counts once, its parts not at all)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for r in results:
        if r.claim.parent is None:
            counts[r.verdict] += 1
    return counts


def declared_claims_table(claims: Sequence[Claim]) -> pd.DataFrame:
    """The claims as declared, before any result: what is tested and how it will be judged."""
    return pd.DataFrame(
        [
            {
                "claim": ("↳ " if c.parent else "") + f"“{c.quote}”",
                "source": c.source,
                "paper": c.paper_value,
                "d (ours)": c.ours,
                "claimed": c.claimed,
            }
            for c in claims
        ]
    )
