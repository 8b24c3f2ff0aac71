"""What AER's claim declarations share (``claims.py``, ``sweep_claims.py``): the keyword sets of a claim by what it
claims, and the choices of reading dated after the runs (``Fixed``), each with its earlier reading."""

from __future__ import annotations

from rlvr_lib.papers.aer import measures
from rlvr_lib.papers.aer.measures import ACCURACY_MARGIN, LENGTH_MARGIN, LOG_ENTROPY_MARGIN
from rlvr_lib.papers.framework.claims import ROUND3, Fixed
from rlvr_lib.papers.framework.declare import measure

# What most claims share, by what they claim:
GAIN = {"direction": "greater", "margin": ACCURACY_MARGIN}  # above the other arm by more than a point
LOG_ENTROPY = {"margin": LOG_ENTROPY_MARGIN, "measure": "log_entropy_retained"}  # entropy levels, on the log scale
LENGTH = {"margin": LENGTH_MARGIN, "measure": "response_length"}  # the eval response length (fixed by the task)
EVERY_SEED = {"margin": 0.0, "universal": True}  # a universal claim: each seed on the claimed side of the reference

ALPHA = ("method.alpha_init",)  # what two fig. 2 runs on one level set differ in: the fixed coefficient


NARROWED = Fixed(
    ROUND3,
    after_runs=True,
    what="'the baselines' narrowed from every table-1 baseline to fig. 3's GRPO and Clip-Higher",
    earlier_verdict="against every table-1 baseline: does not hold (reports/papers/aer/claims.csv at 3fffc347: "
    "against Clip-Cov -0.091 [-0.167, -0.014]; on today's runs -0.063 [-0.121, -0.004], round-4 review 6)",
)


def after_crossing(paper) -> Fixed:
    """When AER's 'at the target' window was chosen, and its earlier reading (the run's end window)."""
    aer = paper.runs.aer
    return Fixed(
        ROUND3,
        after_runs=True,
        what="the window moved from the run's end to the rollout batches after H_t first reaches H*",
        earlier=measure(measures.end_gap_to_target, aer, paper.hparam(aer, "tau")),
    )
