"""How one claim is judged, the same way for every paper: compute, check what fixes the measure, gate on run health,
judge, test the null, and judge again under each declared alternative.

1. ``compute`` runs inside ``RunResults.recording``: the runs and measures it read are the claim's arms.
2. A measure the task fixes (``measures.Measure.fixed_by``) or the testbed was calibrated to produce for the arm's
   method (``calibrated``) makes the claim NOT TESTABLE HERE, whatever the numbers.
3. ``judge`` (``claims``): seeds, zero-width intervals, saturation, the branches, per-seed universal claims.
4. The gates the claim requires (``gates``) on every seed of every trained run read, one-sided: a failure withholds
   HOLDS (METHOD FAILED, the verdict the numbers gave kept beside it, never counted); a refutation or an inconclusive
   verdict stands, labelled with the failure.
5. A claim that holds is judged again with its null in place of its method arm (``null_for``); if the null holds
   too, the test cannot tell them apart: NOT TESTABLE HERE.
6. Each declared alternative of the paper whose run the claim read is substituted and the whole judgement repeated:
   the claim is ROBUST or HINGES ON the alternative. A claim that read accuracy or pass@k at the paper's own
   decoding is judged again at the shared one (``SHARED_DECODING``), the same way; one that read them at the shared
   decoding of a paper whose verdicts left its own (``verdicts_at: shared``) is judged again at the paper's
   (``PAPER_DECODING``), shown as the earlier reading of a choice made after the runs (``PaperBase.decoding_choice``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.claims import (
    AUTO_NULL,
    BEYOND,
    CONTRAST,
    COUNTED,
    FEW_SEEDS,
    FORMULA,
    HOLDS,
    IMMOVABLE,
    INDISCRIMINATE,
    METHOD_FAILED,
    NESTED,
    NOT_RUN,
    NOT_TESTABLE,
    PAPER_DECODING,
    RUN_FAILED,
    SHARED_DECODING,
    UNDERPOWERED,
    Claim,
    ClaimResult,
    Estimate,
    Formula,
    NotTestable,
    judge,
    not_testable,
    ours_text,
    robustness_text,
)
from rlvr_lib.papers.framework.declare import Measure
from rlvr_lib.papers.framework.guard import ComparisonRefused, settings_difference
from rlvr_lib.settings.papers import BASE_RUN

Compute = Callable[[], Estimate | ClaimResult]


def _judged(claim: Claim, compute: Compute, results) -> tuple[ClaimResult, list[str]]:
    """Steps 1-3: the result and the trained runs read (base left out)."""
    with results.recording() as reads:
        try:
            got = compute()
        except NotTestable as reason:
            return not_testable(claim, str(reason), reason.kind), [r for r in reads.runs if r != BASE_RUN]
    arms = [r for r in reads.runs if r != BASE_RUN]
    result = got if isinstance(got, ClaimResult) else judge(claim, got)
    fixed = immovable(claim, reads.measures, arms, results)
    if fixed and result.verdict in COUNTED:
        result = dataclasses.replace(result, verdict=NOT_TESTABLE, kind=IMMOVABLE, note=fixed, branch="fixed")
    if reads.decoding and not result.decoding:
        result = dataclasses.replace(result, decoding=reads.decoding)
    if reads.beside and not result.beside:
        result = dataclasses.replace(result, beside=reads.beside)
    return result, arms


def immovable(claim: Claim, read: list[str], arms: list[str], results) -> str:
    """Why the claim's measure cannot move on the testbed ('' when it can). What the task fixes for every run that
    works moves when a run breaks or never learns (a diverged run's answers run to the length cap; one that kept
    the base policy's short guesses answers shorter): not fixed where an arm failed the ``healthy`` or the
    ``learned`` gate."""
    names = [claim.measure] if claim.measure else read
    for name in names:
        m = measures.measure_of(name) or measures.eval_measure(name)
        if m is None:
            continue
        if m.fixed_by and not _broken(arms, results):
            return f"fixed by the task: {m.fixed_by}"
        if m.calibrated and arms and all(results.method_of(a) in m.calibrated_on for a in arms) and len(arms) == 1:
            return f"calibrated: {m.calibrated}"
    return ""


def _broken(arms: list[str], results) -> bool:
    try:
        return bool(results.gates.failures(arms, ("healthy", "learned")))
    except NotTestable:
        return False


def _gated(claim: Claim, result: ClaimResult, arms: list[str], results) -> ClaimResult:
    """Step 4, one-sided: a required gate failing on a seed of a run the claim read withholds HOLDS (METHOD FAILED,
    the verdict kept as ``ungated``); DOES NOT HOLD and INCONCLUSIVE stand, labelled with the failure (an
    inconclusive verdict on a failed run is not underpowered: more seeds would not help)."""
    if result.verdict not in COUNTED or not claim.requires:
        return result
    try:
        failed = results.gates.failures(arms, claim.requires)
    except NotTestable as reason:  # a seed not made yet: its health is unknown
        return not_testable(claim, str(reason), reason.kind)
    if not failed:
        return result
    failures = "; ".join(failed)
    if result.verdict == HOLDS:
        return dataclasses.replace(
            result, verdict=METHOD_FAILED, kind=RUN_FAILED, ungated=HOLDS, note=failures, gate_failures=failures
        )
    kind, note = result.kind, result.note
    if kind == UNDERPOWERED:
        kind = RUN_FAILED
        note = "; ".join(t for t in note.split("; ") if not t.startswith("underpowered:"))
    note = "; ".join(t for t in (note, f"stands on a failed run: {failures}") if t)
    return dataclasses.replace(result, kind=kind, note=note, gate_failures=failures)


def null_for(claim: Claim, arms: list[str], null_run: str | None, main_run: str) -> dict[str, str]:
    """The substitution that puts the claim's null run in its method's place ({} for none: a contrast, a no-op
    measure, a formula): a named run replaces the paper's own run (or the claim's first arm); ``AUTO_NULL`` applies
    to a claim on one trained run, replaced by the paper's ``null_run`` (by the base policy when it is that run)."""
    if not isinstance(claim.null, str) or claim.null == CONTRAST or not arms:
        return {}
    if claim.null == AUTO_NULL:
        if len(arms) != 1:
            return {}
        if null_run is None or arms[0] == null_run:
            return {arms[0]: BASE_RUN}
        return {arms[0]: null_run}
    target = main_run if main_run in arms else arms[0]
    return {} if target == claim.null else {target: claim.null}


def _null(paper, claim: Claim, compute: Compute, arms: list[str]) -> tuple[str, ClaimResult] | None:
    """(what the null is, the claim judged on it), or None where the null is the contrast arm (d = 0 there)."""
    if isinstance(claim.null, Measure):
        try:
            return f"no-op {claim.null.name.rsplit('.', 1)[-1]}", judge(claim, claim.null.bind(paper)())
        except NotTestable as reason:
            return "no-op", not_testable(claim, str(reason), reason.kind)
    swap = null_for(claim, arms, paper.null_run(), paper.main_run())
    if not swap:
        return None
    ((run, null),) = swap.items()
    return f"{null} in {run}'s place", _under(claim, compute, paper.results, swap)


def evaluate(paper, claim: Claim, compute: Compute) -> ClaimResult:
    """Steps 1-6 for one claim of ``paper`` (a ``PaperBase``)."""
    results = paper.results
    raw, arms = _judged(claim, compute, results)
    if len(arms) > 1 and raw.verdict in COUNTED:
        nested = measures.nested_prefixes(results, arms, getattr(results, "last_reads", None))
        if nested:
            raw = dataclasses.replace(raw, verdict=NOT_TESTABLE, kind=NESTED, branch="nested", note=nested)
    result = _gated(claim, raw, arms, results)
    if isinstance(claim.null, Formula) and result.verdict in COUNTED:
        result = dataclasses.replace(
            result, verdict=NOT_TESTABLE, kind=FORMULA, branch="formula", ungated=result.verdict, note=claim.null.reason
        )
    if result.verdict in (*COUNTED, METHOD_FAILED):
        shadow = _null(paper, claim, compute, arms)
        if shadow is not None:
            what, got = shadow
            result.null = f"{what}: {got.verdict} ({ours_text(got)})"
            if result.verdict == HOLDS and got.verdict == HOLDS:
                result = dataclasses.replace(
                    result,
                    verdict=NOT_TESTABLE,
                    kind=INDISCRIMINATE,
                    branch="null",
                    note=f"the test does not tell the claim from its null: {what} passes too",
                )
        elif claim.null in (CONTRAST, AUTO_NULL) and len(arms) > 1:
            result.null = f"the contrast arm {arms[-1]} (d = 0 there by construction)"
    result.chosen = chosen_text(paper, claim)
    result.robustness = robustness(paper, claim, compute, arms, result)
    result.arms = tuple(arms)
    return result


def chosen_text(paper, claim: Claim) -> str:
    """'<when>: <what>; earlier reading: <verdict> (<ours>)' for a claim whose reading was chosen after the runs ('' for
    one fixed before them)."""
    fixed = claim.fixed
    if not fixed.after_runs:
        return ""
    earlier = fixed.earlier_verdict
    if isinstance(fixed.earlier, Measure):
        got, arms = _judged(claim, fixed.earlier.bind(paper), paper.results)
        got = _gated(claim, got, arms, paper.results)
        earlier = f"{got.verdict}{f' ({got.kind})' if got.kind else ''}, {ours_text(got)}"
    return f"{fixed.at}: {fixed.what}" + (f"; the earlier reading: {earlier}" if earlier else "")


def decoding_choice(paper, earlier: str) -> str:
    """'<when>: <what>; the earlier reading, at `<decoding>`: <earlier>' for a claim of a paper whose verdicts left
    its own decoding after the runs (``paper.decoding_choice``, a ``Fixed``); '' for any other paper."""
    fixed = getattr(paper, "decoding_choice", None)
    if fixed is None:
        return ""
    return f"{fixed.at}: {fixed.what}; the earlier reading, at `{paper.results.beside}`: {earlier}"


def _under(claim: Claim, compute: Compute, results, alias: Mapping[str, str], gated: bool = False) -> ClaimResult:
    """The claim judged with the runs of ``alias`` read in place of its keys."""
    with results.substituted(alias):
        try:
            result, arms = _judged(claim, compute, results)
        except (ComparisonRefused, ValueError) as err:
            return not_testable(claim, f"not comparable under the substitution: {err}")
        return _gated(claim, result, arms, results) if gated else result


def check_alternative(params, name: str, swaps: Mapping[str, str]) -> None:
    """An alternative changes method settings only (what the open choice is about): anything shared that
    differs makes it a different experiment, refused with the settings named."""
    for run, other in swaps.items():
        shared = [k for k in settings_difference(params, other, run) if not k.startswith("method")]
        if shared:
            raise ValueError(
                f"alternative '{name}': run '{other}' differs from '{run}' in shared settings {shared}, not only in "
                "the open choice"
            )


def robustness(paper, claim: Claim, compute: Compute, arms: list[str], result: ClaimResult) -> str:
    """'robust' when every applicable alternative gives the same verdict, 'hinges on ...' naming each that does
    not, '' when none applies (the claim reads none of the alternatives' runs). An alternative whose runs are not
    made yet, whose comparison the guard refuses (it would change a second thing) or under which the claim's measure is
    constant by construction (``claim.constant_under``) is 'not applicable', with its reason, and decides nothing.
    Records each applicable alternative's verdict in ``result.by_alternative``."""
    applicable = {name: swaps for name, swaps in paper.alternatives().items() if any(run in arms for run in swaps)}
    if result.decoding:
        applicable[SHARED_DECODING] = {}
    if result.beside:
        applicable[PAPER_DECODING] = {}
    if not applicable or result.verdict not in (*COUNTED, METHOD_FAILED):
        return ""
    details, skipped = {}, []
    constant = dict(claim.constant_under)
    for name, swaps in applicable.items():
        if name in constant:
            skipped.append(f"{name} not applicable: {constant[name]}")
            continue
        if name in (SHARED_DECODING, PAPER_DECODING):
            with paper.results.at_decoding(result.beside or None):
                other = _under(claim, compute, paper.results, {}, gated=True)
            if name == PAPER_DECODING:
                earlier = f"{other.verdict}{f' ({other.kind})' if other.kind else ''}, {ours_text(other)}"
                result.chosen = "; ".join(t for t in (result.chosen, decoding_choice(paper, earlier)) if t)
        else:
            other = _under(claim, compute, paper.results, swaps, gated=True)
        if other.verdict in (NOT_RUN, NOT_TESTABLE) and other.kind in (NOT_RUN, BEYOND, FEW_SEEDS):
            skipped.append(f"{name} not applicable: {other.note}")
            continue
        result.by_alternative[name] = other.verdict
        details[name] = ours_text(other)
    text = robustness_text(result.verdict, result.by_alternative, details)
    return "; ".join(t for t in (text, *skipped) if t)
