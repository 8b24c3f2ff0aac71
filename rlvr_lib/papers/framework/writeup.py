"""The report's prose sections that are computed from its results: the Summary (five lines from the claims'
verdicts), the Discussion (the verdicts that do not hold, the divergence marks, the sensitivity tables, plus fixed
text on mechanisms) and the Limitations (the testbed's scale against the papers', the claims not testable here with
each reason). Sentences are generated from the results, so they stay true when the numbers change."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rlvr_lib.papers.framework.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    INCONCLUSIVE,
    METHOD_FAILED,
    NOT_RUN,
    NOT_TESTABLE,
    ClaimResult,
    NotTestable,
)
from rlvr_lib.papers.framework.references import REFERENCES
from rlvr_lib.settings.papers import paper_runs

TESTBED_SCALE = (
    "The testbed is a 2-layer transformer of about 0.56M parameters (`model.testbed`), trained from scratch and "
    "supervised on one-digit sums with a multiplication trap (docs/testbed.md), whose answers are about 30 tokens. "
    "The papers train 1.5B-14B pretrained LLMs on competition mathematics with 2k-8k-token reasoning."
)
CAN_SAY = (
    "What it can say: whether a method's mechanism does what its equations say on a policy that collapses its "
    "entropy under GRPO within the budget (the direction of entropy, of accuracy against a baseline trained the same "
    "way, and the logged internals such as lambda*, alpha_t, covariance percentiles or masks), with seeds that "
    "replicate the whole pipeline and intervals over them."
)
CANNOT_SAY = (
    "What it cannot say: anything about scale (model size, long reasoning chains, many-step credit assignment over "
    "thousands of tokens), about the papers' benchmarks or their absolute numbers, about effects that need "
    "pretrained knowledge (a wrong intermediate step a larger model could recover from), or about wall time at the "
    "papers' scale. A claim that holds here is evidence that the mechanism works on a small policy, not that the "
    "paper's table replicates; one that does not hold here may still hold at scale, and the Discussion says what "
    "the testbed's runs show about why."
)


def _name(result: ClaimResult) -> str:
    return f"`{result.claim.key}` ({result.claim.source})"


def _interval(result: ClaimResult) -> str:
    e = result.estimate
    if e is None or e.value is None or math.isnan(e.value):
        return ""
    return f"d = {e.value:.3g} [{e.ci_low:.3g}, {e.ci_high:.3g}]"


def _by_verdict(results: Sequence[ClaimResult], verdict: str) -> list[ClaimResult]:
    return [r for r in results if r.claim.parent is None and r.verdict == verdict]


def _listing(results: Sequence[ClaimResult]) -> str:
    return "; ".join(_name(r) for r in results) if results else "none"


def _kinds(results: Sequence[ClaimResult]) -> str:
    """The claims counted by kind (``ClaimResult.kind``), e.g. 'opposite effect detected (2); ...'."""
    kinds: dict[str, int] = {}
    for r in results:
        kinds[r.kind or "see its parts"] = kinds.get(r.kind or "see its parts", 0) + 1
    return "; ".join(f"{kind} ({n})" for kind, n in sorted(kinds.items(), key=lambda x: -x[1]))


def summary_lines(paper: Any, results: Sequence[ClaimResult]) -> list[str]:
    """Lines from the verdicts: what was tested (with the citation), then one line per verdict category with its
    claims and their kinds, and how many verdicts hinge on a declared alternative."""
    ref = REFERENCES[paper.name]
    whole = [r for r in results if r.claim.parent is None]
    judged = [r for r in whole if r.verdict in (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE)]
    hinging = [r for r in judged if r.robustness.startswith("hinges")]
    lines = [
        f"- **Claims:** {len(whole)} claim{'s' if len(whole) != 1 else ''} of {ref.inline()}. {len(judged)} have a "
        "verdict on the testbed (a small from-scratch policy on one-digit sums; see Setup and Limitations); the "
        "others say why there is none. "
        f"{len(hinging)} of the {len(judged)} verdicts {'hinges' if len(hinging) == 1 else 'hinge'} on a declared "
        "alternative (Discussion).",
    ]
    for category, tail in (
        (HOLDS, ""),
        (DOES_NOT_HOLD, ""),
        (INCONCLUSIVE, ""),
        (METHOD_FAILED, " (a run the claim reads failed a health gate on some seed: Discussion)"),
        (NOT_TESTABLE, " (each with its reason under Limitations)"),
        (NOT_RUN, " (each with its cost under Limitations)"),
    ):
        found = _by_verdict(results, category)
        if not found and category in (METHOD_FAILED, NOT_RUN):
            continue
        kinds = f" — {_kinds(found)}" if found and category not in (HOLDS,) else ""
        lines.append(f"- **{category.capitalize()} ({len(found)}):** {_listing(found)}{kinds}{tail}.")
        if category == DOES_NOT_HOLD:
            lines.extend(f"  - {line}" for line in shared_roots(found))
    return [*lines, "", bottom_line(paper, results)]


def _roots(refuted: Sequence[ClaimResult]) -> dict[str, list[ClaimResult]]:
    """Declared root cause -> the refutations that share it (causes in the order first met)."""
    roots: dict[str, list[ClaimResult]] = {}
    for r in refuted:
        if r.root_cause:
            roots.setdefault(r.root_cause, []).append(r)
    return roots


def shared_roots(refuted: Sequence[ClaimResult]) -> list[str]:
    """One line per declared root cause that two or more refutations share ('k of the n share one root cause: ...')."""
    return [
        f"{len(rs)} of the {len(refuted)} share one root cause, {cause}: {', '.join(f'`{r.claim.key}`' for r in rs)}."
        for cause, rs in _roots(refuted).items()
        if len(rs) > 1
    ]


def bottom_line(paper: Any, results: Sequence[ClaimResult]) -> str:
    """The Summary's closing paragraph, generated from the verdicts: what replicated (the claims that hold on a run
    that switches the paper's mechanism on), what did not (refutations, grouped by their declared root causes into
    independent findings), and why (each shared cause's evidence from the runs)."""
    whole = [r for r in results if r.claim.parent is None]
    holds = [r for r in whole if r.verdict == HOLDS]
    about = [r for r in holds if r.method_runs]
    refuted = [r for r in whole if r.verdict == DOES_NOT_HOLD]
    roots = _roots(refuted)
    alone = [r for r in refuted if not r.root_cause]
    independent = len(roots) + len(alone)
    replicated = (
        f"{len(about)} of the {len(holds)} holding claims read a run with the paper's mechanism on ("
        + (", ".join(f"`{r.claim.key}`" for r in about) or "none")
        + ")"
        if holds
        else "no claim holds"
    )
    did_not = (
        f"{len(refuted)} claims do not hold, {independent} independent finding{'s' if independent != 1 else ''}: "
        + "; ".join(
            [
                *(f"{cause} ({len(rs)} claim{'s' if len(rs) > 1 else ''})" for cause, rs in roots.items()),
                *(f"`{r.claim.key}`" for r in alone),
            ]
        )
        if refuted
        else "no claim is refuted"
    )
    why = [text for root in paper.root_causes if root.cause in roots and (text := root.evidence(paper))]
    return f"**What replicated, what did not, and why.** What replicated: {replicated}. What did not: {did_not}." + (
        f" Why: {' '.join(why)}" if why else ""
    )


def discussion(paper: Any, results: Sequence[ClaimResult]) -> str:
    """What the results mean: the claims that do not hold with their differences and kinds, the claims whose runs
    failed (per seed), the verdicts that hinge on a declared alternative, and the paper's own notes
    (``paper.discussion_notes``: each explanation with the numbers that support it)."""
    parts = []
    fails = _by_verdict(results, DOES_NOT_HOLD)
    if fails:
        lines = [
            f"- {_name(r)} ({r.kind or 'see its parts'}): {_interval(r) or 'see its parts'}"
            + (f"; {r.note}" if r.note else "")
            for r in fails
        ]
        parts.append("Claims that do not hold, with the difference that decided:\n\n" + "\n".join(lines))
    else:
        parts.append("No claim of this report is refuted by the testbed's runs.")
    failed = _by_verdict(results, METHOD_FAILED)
    if failed:
        lines = [f"- {_name(r)}: {r.note} (without the gate: {r.ungated or 'see its parts'})" for r in failed]
        parts.append(
            "Claims whose runs failed (rlvr_lib.papers.framework.gates, per seed); the verdict the numbers would give "
            "without "
            "the gate is shown and not counted:\n\n" + "\n".join(lines)
        )
    hinging = [r for r in results if r.claim.parent is None and r.robustness.startswith("hinges")]
    if hinging:
        lines = [f"- {_name(r)}: {r.robustness}" for r in hinging]
        parts.append(
            "Verdicts that hinge on a declared alternative (params.yaml `alternatives`):\n\n" + "\n".join(lines)
        )
    health = []
    for run in paper_runs(paper.settings, trained_only=True):
        try:
            why = paper.results.divergence(run)
        except NotTestable as error:  # a run without results cannot be diagnosed; say so instead of guessing
            health.append(f"- `{run}`: not diagnosed ({error})")
            continue
        if why:
            health.append(f"- `{run}`: {why}")
    parts.append(
        "Runs with a failed seed (below its own base policy, or rollout entropy past x2 of its first batch at its "
        "peak; marked '(diverged)' in the tables):\n\n" + "\n".join(health)
        if health
        else "No seed of any run of this report failed (each at or above its base policy, entropy never past x2)."
    )
    parts.extend(paper.discussion_notes())
    return "\n\n".join(parts)


def limitations(paper: Any, results: Sequence[ClaimResult]) -> str:
    untestable = _by_verdict(results, NOT_TESTABLE)
    listing = (
        "\n".join(f"- {_name(r)} ({r.kind}): {r.note}" for r in untestable)
        if untestable
        else "- none: every claim of this report has a verdict on the testbed."
    )
    parts = [TESTBED_SCALE, CAN_SAY, CANNOT_SAY, "Claims not testable here, with the reason:\n\n" + listing]
    unrun = _by_verdict(results, NOT_RUN)
    if unrun:
        parts.append(
            "Claims the testbed could test with runs the project has not made, with their cost:\n\n"
            + "\n".join(f"- {_name(r)}: {r.note}" for r in unrun)
        )
    return "\n\n".join(parts)
