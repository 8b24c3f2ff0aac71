"""Claims, the verdict rule, paired differences with the two-way bootstrap, and the claims table.

A ``Claim`` is one sentence of a paper that can be checked with a number: its words (quoted), where it is
(section / table / figure), the paper's own number, what we compute instead and the direction the paper claims
for it. Every claim is tested on a *difference* d (e.g. ERPO's accuracy minus GRPO's, per seed and problem, or a
quantity minus a reference value), and the verdict follows ``VERDICT_RULE``, fixed here before any result:

- ``greater`` (the paper claims d > 0): **holds** when the 95% interval of d lies above 0; **does not hold** when
  it lies below 0, or when it lies inside [-margin, margin] (too small to matter); **inconclusive** otherwise.
- ``less``: the mirror image.
- ``equal`` (the paper claims no material difference, e.g. "comparable training time"): **holds** when the
  interval lies inside [-margin, margin]; **does not hold** when it lies wholly outside that band (above +margin
  or below -margin); **inconclusive** otherwise.
- **not testable here**: the testbed cannot measure it (the reason is given); no number is made up.

Intervals: a difference of two runs is paired by training seed and by problem (both runs' seed-s models are
sampled with seed s on the same problems) and gets the 95% percentile interval of the two-way bootstrap over seeds
and problems (``rlvr_lib.eval.crossed_bootstrap_ci``); a quantity of the training history has one value per seed,
so its interval resamples seeds only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from ..eval.passk import crossed_bootstrap_ci

HOLDS = "holds"
DOES_NOT_HOLD = "does not hold"
INCONCLUSIVE = "inconclusive"
NOT_TESTABLE = "not testable here"
VERDICTS = (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, NOT_TESTABLE)
Direction = Literal["greater", "less", "equal"]
DIRECTION_TEXT = {"greater": "> 0", "less": "< 0", "equal": "= 0 (within the margin)"}
LEVEL = 0.95

VERDICT_RULE = """\
Verdict rule (fixed before any result is computed; rlvr_lib.papers.claims):
Each claim is tested on a difference d: ours minus the paper's comparison (e.g. ERPO's accuracy minus GRPO's), or
a quantity minus a stated reference value. Its 95% interval comes from a two-way bootstrap over training seeds and
evaluation problems, paired by seed and problem (rlvr_lib.eval.crossed_bootstrap_ci); a training-history quantity
has one value per seed, so its interval resamples seeds only. Each claim states its margin: the smallest
difference that would matter (e.g. 0.01 = one point of accuracy).
- claimed d > 0: HOLDS if the interval lies above 0; DOES NOT HOLD if it lies below 0 or inside [-margin, +margin];
  INCONCLUSIVE otherwise.
- claimed d < 0: the mirror image.
- claimed d = 0 (no material difference): HOLDS if the interval lies inside [-margin, +margin]; DOES NOT HOLD if it
  lies wholly above +margin or below -margin; INCONCLUSIVE otherwise.
- NOT TESTABLE HERE: the testbed cannot measure the claim (the reason is given); no number is put in its place.
Methods are run with their papers' settings and the shared budget; nothing is tuned to make a claim hold."""


class NotTestable(Exception):
    """Raised while computing a claim's number when the testbed cannot give one; the message is the reason."""


def unavailable(reason: str):
    """Raise ``NotTestable(reason)``: the compute function of a claim the testbed cannot test."""
    raise NotTestable(reason)


@dataclass(frozen=True)
class Claim:
    """One checkable sentence of a paper.

    ``quote``: the paper's words; ``source``: section / table / figure; ``paper_value``: the paper's number(s) as
    text; ``ours``: what we compute (the difference d whose interval decides); ``direction``: the sign the paper
    claims for d; ``margin``: the smallest |d| that matters, in d's units; ``key``: a short unique id.
    """

    key: str
    quote: str
    source: str
    paper_value: str
    ours: str
    direction: Direction
    margin: float

    def __post_init__(self) -> None:
        if self.direction not in DIRECTION_TEXT:
            raise ValueError(f"claim {self.key}: direction must be one of {list(DIRECTION_TEXT)}")
        if not self.margin >= 0:
            raise ValueError(f"claim {self.key}: margin must be >= 0, got {self.margin}")


@dataclass(frozen=True)
class Estimate:
    """Our number for a claim: the mean difference d with its interval, and what it is made of (``detail``,
    e.g. 'erpo 0.612 vs grpo 0.598'), over ``n_seeds`` seeds and ``n_problems`` problems (None: history)."""

    value: float
    ci_low: float
    ci_high: float
    n_seeds: int
    n_problems: int | None = None
    detail: str = ""


@dataclass
class ClaimResult:
    claim: Claim
    verdict: str
    estimate: Estimate | None = None
    note: str = ""
    paper: str = field(default="")


def verdict(direction: Direction, low: float, high: float, margin: float) -> str:
    """The verdict of ``VERDICT_RULE`` for a claimed ``direction`` and the interval [low, high] of d."""
    if direction not in DIRECTION_TEXT:
        raise ValueError(f"direction must be one of {list(DIRECTION_TEXT)}, got {direction!r}")
    if math.isnan(low) or math.isnan(high) or low > high:
        raise ValueError(f"not an interval: [{low}, {high}]")
    inside = -margin <= low and high <= margin
    if direction == "equal":
        if inside:
            return HOLDS
        return DOES_NOT_HOLD if (low > margin or high < -margin) else INCONCLUSIVE
    if direction == "less":
        low, high = -high, -low
    if low > 0:
        return HOLDS
    if high < 0 or inside:
        return DOES_NOT_HOLD
    return INCONCLUSIVE


def judge(claim: Claim, estimate: Estimate, note: str = "") -> ClaimResult:
    return ClaimResult(claim, verdict(claim.direction, estimate.ci_low, estimate.ci_high, claim.margin), estimate, note)


def not_testable(claim: Claim, reason: str) -> ClaimResult:
    return ClaimResult(claim, NOT_TESTABLE, None, reason)


# ----------------------------------------------------------------------------- estimates
def seeds_by_problems(values: np.ndarray) -> np.ndarray:
    """``values`` as a (seeds, problems) table: a (S,) vector of per-seed values becomes (S, 1)."""
    table = np.asarray(values, dtype=float)
    if table.ndim == 1:
        table = table[:, None]
    if table.ndim != 2 or 0 in table.shape:
        raise ValueError(f"expected a non-empty (seeds,) or (seeds, problems) array, got shape {table.shape}")
    return table


def estimate_of(values: np.ndarray, *, n_boot: int, seed: int = 0, detail: str = "") -> Estimate:
    """Mean of a (seeds, problems) or (seeds,) table of differences with its 95% two-way bootstrap interval.
    NaN entries are not allowed (raise ``NotTestable``: the quantity is missing for some seed or problem)."""
    table = seeds_by_problems(values)
    if np.isnan(table).any():
        raise NotTestable("the quantity is missing (NaN) for some seed or problem")
    low, high = crossed_bootstrap_ci(table, n_boot=n_boot, seed=seed, level=LEVEL)
    n_problems = table.shape[1] if np.asarray(values).ndim == 2 else None
    return Estimate(float(table.mean()), low, high, table.shape[0], n_problems, detail)


def paired_difference(
    a: np.ndarray, b: np.ndarray, *, n_boot: int, seed: int = 0, labels: Sequence[str] = ("a", "b"), digits: int = 3
) -> Estimate:
    """d = a - b paired by seed (and problem): both (S, P) or both (S,). ``detail`` gives each side's mean."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired difference of tables with shapes {a.shape} and {b.shape}")
    detail = f"{labels[0]} {a.mean():.{digits}f} vs {labels[1]} {b.mean():.{digits}f}"
    return estimate_of(a - b, n_boot=n_boot, seed=seed, detail=detail)


# ----------------------------------------------------------------------------- the table
TABLE_COLUMNS = (
    "claim",
    "source",
    "paper",
    "claimed",
    "ours",
    "verdict",
    "how ours is computed",
)
CSV_COLUMNS = (
    "paper_name",
    "key",
    "claim",
    "source",
    "paper_value",
    "ours_definition",
    "direction",
    "margin",
    "value",
    "ci_low",
    "ci_high",
    "n_seeds",
    "n_problems",
    "detail",
    "verdict",
    "note",
)


def format_number(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    magnitude = abs(value)
    if value == 0:
        return f"{0:.{digits}f}"
    if magnitude < 10**-digits:
        return f"{value:+.1e}"
    if magnitude >= 1000:
        return f"{value:+,.0f}"
    return f"{value:+.{digits}f}"


def ours_text(result: ClaimResult) -> str:
    """'d [low, high] (detail; N seeds)' or the reason it is not testable."""
    e = result.estimate
    if e is None:
        return "—"
    if e.n_seeds == 0:
        size = "exact"
    else:
        size = f"{e.n_seeds} seed{'s' if e.n_seeds != 1 else ''}" + (
            f" x {e.n_problems} problems" if e.n_problems else ""
        )
    inner = "; ".join(x for x in (e.detail, size) if x)
    return f"{format_number(e.value)} [{format_number(e.ci_low)}, {format_number(e.ci_high)}] ({inner})"


def claims_frame(results: Sequence[ClaimResult]) -> pd.DataFrame:
    """One row per claim with ``CSV_COLUMNS`` (numbers unformatted)."""
    rows = []
    for r in results:
        e = r.estimate
        rows.append(
            {
                "paper_name": r.paper,
                "key": r.claim.key,
                "claim": r.claim.quote,
                "source": r.claim.source,
                "paper_value": r.claim.paper_value,
                "ours_definition": r.claim.ours,
                "direction": r.claim.direction,
                "margin": r.claim.margin,
                "value": e.value if e else math.nan,
                "ci_low": e.ci_low if e else math.nan,
                "ci_high": e.ci_high if e else math.nan,
                "n_seeds": e.n_seeds if e else None,
                "n_problems": e.n_problems if e else None,
                "detail": e.detail if e else "",
                "verdict": r.verdict,
                "note": r.note,
            }
        )
    return pd.DataFrame(rows, columns=list(CSV_COLUMNS))


def claims_table(results: Sequence[ClaimResult]) -> pd.DataFrame:
    """The claims table as text cells (``TABLE_COLUMNS``): quoted claim, source, the paper's number, the claimed
    sign of d with the margin, ours (mean d [95% interval]), the verdict (bold), how ours is computed + note."""
    rows = []
    for r in results:
        c = r.claim
        how = c.ours + (f" — {r.note}" if r.note else "")
        rows.append(
            {
                "claim": f"“{c.quote}”",
                "source": c.source,
                "paper": c.paper_value,
                "claimed": f"d {DIRECTION_TEXT[c.direction]}, margin {c.margin:g}",
                "ours": ours_text(r),
                "verdict": f"**{r.verdict}**",
                "how ours is computed": how,
            }
        )
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def verdict_counts(results: Sequence[ClaimResult]) -> dict[str, int]:
    counts = dict.fromkeys(VERDICTS, 0)
    for r in results:
        counts[r.verdict] += 1
    return counts


def declared_claims_table(claims: Sequence[Claim]) -> pd.DataFrame:
    """The claims as declared, before any result: what is tested and how it will be judged."""
    return pd.DataFrame(
        [
            {
                "claim": f"“{c.quote}”",
                "source": c.source,
                "paper": c.paper_value,
                "d (ours)": c.ours,
                "claimed": f"d {DIRECTION_TEXT[c.direction]}, margin {c.margin:g}",
            }
            for c in claims
        ]
    )
