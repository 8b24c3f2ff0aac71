"""Claims, the verdict rule, seed-level intervals of paired differences, and the claims table.

A ``Claim`` is one sentence of a paper, quoted verbatim (``rlvr_lib.papers.quotes`` checks it against the paper's
text), that can be checked with a number: where it is (section / table / figure), the paper's own number, what we
compute instead (a difference d) and what the paper claims for d: its direction against a reference value (0, or a
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
NOT_TESTABLE = "not testable here"
VERDICTS = (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, NOT_TESTABLE)
Direction = Literal["greater", "less", "equal"]
DIRECTION_TEXT = {"greater": ">", "less": "<", "equal": "="}
LEVEL = 0.95
POWER = 0.80  # for the smallest detectable effect stated beside an inconclusive verdict
MIN_SEEDS = 3  # fewer seeds per arm: not testable (no verdict from one or two replications)
SATURATION = 0.02  # a bounded metric within 2% of its range from a bound is saturated there


class NotTestable(Exception):
    """Raised while computing a claim's number when the testbed cannot give one; the message is the reason."""


def unavailable(reason: str):
    """Raise ``NotTestable(reason)``: the compute function of a claim the testbed cannot test."""
    raise NotTestable(reason)


# ----------------------------------------------------------------------------- the rule
@dataclass(frozen=True)
class Branch:
    """One branch of the verdict rule: its text in ``VERDICT_RULE``, the verdict and an example that reaches it
    (``direction``, ``value``, ``low``, ``high``, ``margin``, with the reference 0)."""

    name: str
    text: str
    verdict: str
    example: tuple[Direction, float, float, float, float]


BRANCHES = (
    Branch(
        "material",
        "claimed d > ref: HOLDS if the interval lies above ref and the estimate exceeds ref by at least the margin "
        "(detected and material)",
        HOLDS,
        ("greater", 0.05, 0.02, 0.08, 0.01),
    ),
    Branch(
        "excluded",
        "claimed d > ref: DOES NOT HOLD if the interval lies below ref + margin (a material effect in the claimed "
        "direction is excluded: the opposite sign, or too small to matter)",
        DOES_NOT_HOLD,
        ("greater", 0.002, -0.004, 0.008, 0.01),
    ),
    Branch(
        "open",
        "claimed d > ref: INCONCLUSIVE otherwise (the interval reaches ref + margin but does not exclude ref, or the "
        "effect is detected but its estimate is below the margin)",
        INCONCLUSIVE,
        ("greater", 0.02, -0.01, 0.05, 0.01),
    ),
    Branch(
        "material_less",
        "claimed d < ref: HOLDS if the interval lies below ref and the estimate falls short of ref by at least the "
        "margin",
        HOLDS,
        ("less", -0.05, -0.08, -0.02, 0.01),
    ),
    Branch(
        "excluded_less",
        "claimed d < ref: DOES NOT HOLD if the interval lies above ref - margin",
        DOES_NOT_HOLD,
        ("less", 0.01, -0.005, 0.03, 0.01),
    ),
    Branch(
        "open_less",
        "claimed d < ref: INCONCLUSIVE otherwise",
        INCONCLUSIVE,
        ("less", -0.02, -0.05, 0.01, 0.01),
    ),
    Branch(
        "equivalent",
        "claimed d = ref (no material difference, or a stated size): HOLDS if the interval lies inside "
        "[ref - margin, ref + margin]",
        HOLDS,
        ("equal", 0.001, -0.005, 0.008, 0.01),
    ),
    Branch(
        "different",
        "claimed d = ref: DOES NOT HOLD if the interval lies wholly above ref + margin or wholly below ref - margin",
        DOES_NOT_HOLD,
        ("equal", 0.04, 0.02, 0.06, 0.01),
    ),
    Branch(
        "unresolved",
        "claimed d = ref: INCONCLUSIVE otherwise",
        INCONCLUSIVE,
        ("equal", 0.02, -0.005, 0.05, 0.01),
    ),
)
BRANCH = {b.name: b for b in BRANCHES}


def verdict(direction: Direction, value: float, low: float, high: float, margin: float, reference: float = 0.0):
    """(verdict, branch name) of ``BRANCHES`` for a claimed ``direction`` of d against ``reference``, the
    estimate ``value`` and its interval [low, high]."""
    if direction not in DIRECTION_TEXT:
        raise ValueError(f"direction must be one of {list(DIRECTION_TEXT)}, got {direction!r}")
    if any(math.isnan(x) for x in (value, low, high)) or low > high or not low <= value <= high:
        raise ValueError(f"not an estimate inside its interval: {value} in [{low}, {high}]")
    if not margin >= 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    value, low, high = value - reference, low - reference, high - reference
    if direction == "equal":
        if -margin <= low and high <= margin:
            return HOLDS, "equivalent"
        if low > margin or high < -margin:
            return DOES_NOT_HOLD, "different"
        return INCONCLUSIVE, "unresolved"
    if direction == "greater":
        if low > 0 and value >= margin:
            return HOLDS, "material"
        if high < margin:
            return DOES_NOT_HOLD, "excluded"
        return INCONCLUSIVE, "open"
    if high < 0 and value <= -margin:
        return HOLDS, "material_less"
    if low > -margin:
        return DOES_NOT_HOLD, "excluded_less"
    return INCONCLUSIVE, "open_less"


def _rule_text() -> str:
    lines = [
        "Verdict rule (fixed before any result is computed; rlvr_lib.papers.claims, one line per branch of the code):",
        "Each claim is tested on a difference d (e.g. the method's accuracy minus its baseline's, the two runs "
        "differing only in what the claim is about) against a reference ref (0, or the size the paper states), with a "
        "margin, the smallest effect that matters. A seed replicates the whole pipeline (its own base policy, RL run "
        f"and evaluation sample); d's {LEVEL:.0%} interval is Student's t over the per-seed values of d (paired by "
        "seed; each seed's value averages the evaluation problems).",
    ]
    lines += [f"- {b.text}." for b in BRANCHES]
    lines += [
        f"- NOT TESTABLE HERE: the testbed cannot measure the claim, an arm has fewer than {MIN_SEEDS} seeds, or both "
        f"arms of a bounded metric sit within {SATURATION:.0%} of the same bound (saturated); the reason is given and "
        "no number is put in its place.",
        "- A conjunctive claim is judged whole from its parts: DOES NOT HOLD if a part does not hold, else NOT "
        "TESTABLE if a part is not testable, else INCONCLUSIVE if a part is inconclusive, else HOLDS.",
        f"- Beside an inconclusive verdict: the smallest |d - ref| the seeds could detect ({LEVEL:.0%} two-sided, "
        f"{POWER:.0%} power).",
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
    for v in (DOES_NOT_HOLD, NOT_TESTABLE, INCONCLUSIVE):
        if v in verdicts:
            return v
    return HOLDS


# ----------------------------------------------------------------------------- claims and estimates
@dataclass(frozen=True)
class Claim:
    """One checkable sentence of a paper.

    ``quote``: the paper's words, verbatim ("..." marks an elision); ``source``: section / table / figure;
    ``paper_value``: the paper's number(s) as text; ``ours``: what we compute (the difference d whose interval
    decides); ``direction``: what the paper claims for d against ``reference``; ``margin``: the smallest
    |d - reference| that matters, in d's units; ``paper_effect``: the paper's own effect in d's units where it has
    one (shown beside an inconclusive verdict's detectable effect); ``key``: a short unique id. A part of a
    conjunctive claim has its parent's key as ``parent``.
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

    def __post_init__(self) -> None:
        if self.direction is not None and self.direction not in DIRECTION_TEXT:
            raise ValueError(f"claim {self.key}: direction must be one of {list(DIRECTION_TEXT)} or None (a whole)")
        if not self.margin >= 0:
            raise ValueError(f"claim {self.key}: margin must be >= 0, got {self.margin}")

    @property
    def claimed(self) -> str:
        if self.direction is None:
            return "every part holds"
        ref = f"{self.reference:g}"
        band = f" ± {self.margin:g}" if self.direction == "equal" else f", margin {self.margin:g}"
        return f"d {DIRECTION_TEXT[self.direction]} {ref}{band}"


@dataclass(frozen=True)
class Estimate:
    """Our number for a claim: the mean of the per-seed values of d with its interval, over ``n_seeds`` seeds (and
    ``n_problems`` problems inside each seed's value; None: a training-history quantity); ``detail`` says what it is
    made of (e.g. 'erpo 0.612 vs grpo 0.598'); ``se``: its standard error; ``arms``: the compared quantities' means
    and ``bounds`` their range when bounded (saturation); ``exact``: a count or a computed fact, no sampling."""

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
) -> Estimate:
    """Mean of a (seeds, problems) or (seeds,) table of d with its t interval over the per-seed values. NaN
    entries raise ``NotTestable`` (the quantity is missing for some seed or problem)."""
    table = np.asarray(values, dtype=float)
    per_seed = seed_values(table)
    mean, low, high, se = t_interval(per_seed)
    n_problems = table.shape[1] if table.ndim == 2 else None
    return Estimate(mean, low, high, len(per_seed), n_problems, detail, se, tuple(float(a) for a in arms), bounds)


def paired_difference(
    a: np.ndarray,
    b: np.ndarray,
    *,
    labels: Sequence[str] = ("a", "b"),
    digits: int = 3,
    bounds: tuple[float, float] | None = None,
) -> Estimate:
    """d = a - b paired by seed (and problem): both (S, P) or both (S,). ``detail`` gives each side's mean."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired difference of tables with shapes {a.shape} and {b.shape}")
    detail = f"{labels[0]} {a.mean():.{digits}f} vs {labels[1]} {b.mean():.{digits}f}"
    return estimate_of(a - b, detail=detail, arms=(float(a.mean()), float(b.mean())), bounds=bounds)


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


def judge(claim: Claim, estimate: Estimate, note: str = "") -> ClaimResult:
    """The verdict of ``claim`` on ``estimate`` (``VERDICT_RULE``): too few seeds or a saturated metric is not
    testable; an inconclusive verdict notes the smallest detectable effect beside the paper's."""
    if claim.direction is None:
        raise ValueError(f"claim {claim.key} is judged from its parts (judge_whole), not on an estimate")
    if not estimate.exact and estimate.n_seeds < MIN_SEEDS:
        reason = f"{estimate.n_seeds} seed{'s' if estimate.n_seeds != 1 else ''}; a verdict needs {MIN_SEEDS} per arm"
        return ClaimResult(claim, NOT_TESTABLE, estimate, _join(reason, note), branch="seeds")
    saturated = saturation(estimate)
    if saturated:
        return ClaimResult(claim, NOT_TESTABLE, estimate, _join(saturated, note), branch="saturated")
    got, branch = verdict(
        claim.direction, estimate.value, estimate.ci_low, estimate.ci_high, claim.margin, claim.reference
    )
    if got == INCONCLUSIVE:
        mde = detectable_effect(estimate.se, estimate.n_seeds)
        paper = "" if claim.paper_effect is None else f" (the paper's effect: {format_number(claim.paper_effect)})"
        note = _join(f"the seeds could detect |d - ref| >= {format_number(mde)}{paper}", note)
    return ClaimResult(claim, got, estimate, note, branch=branch)


def not_testable(claim: Claim, reason: str) -> ClaimResult:
    return ClaimResult(claim, NOT_TESTABLE, None, reason, branch="not testable")


def judge_whole(claim: Claim, parts: Sequence[ClaimResult], note: str = "") -> ClaimResult:
    """A conjunctive claim's result from its parts' results (``combine``), the parts nested under it; its note names
    the parts that decided it (those with the whole's verdict, unless every part holds)."""
    got = combine([p.verdict for p in parts])
    if got != HOLDS:
        deciding = ", ".join(p.claim.key for p in parts if p.verdict == got)
        note = _join(f"{got}: {deciding}", note)
    return ClaimResult(claim, got, None, note, branch="whole", parts=list(parts))


def _join(*texts: str) -> str:
    return "; ".join(t for t in texts if t)


# ----------------------------------------------------------------------------- the table
TABLE_COLUMNS = ("claim", "source", "paper", "claimed", "ours", "verdict", "how ours is computed")
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
    "branch",
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
                "branch": r.branch,
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
                "verdict": r.verdict if part else f"**{r.verdict}**",
                "how ours is computed": c.ours + (f" — {r.note}" if r.note else ""),
            }
        )
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


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
