"""The report's prose sections that are computed from its results: the Summary (five lines from the claims'
verdicts), the Discussion (the verdicts that do not hold, the divergence marks, the sensitivity tables, plus fixed
text on mechanisms) and the Limitations (the testbed's scale against the papers', the claims not testable here with
each reason). Sentences are generated from the results, so they stay true when the numbers change."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .claims import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE, ClaimResult, NotTestable
from .config import paper_runs
from .references import REFERENCES
from .results import ACCURACY, RETAINED_FLOOR, entropy_retained

if TYPE_CHECKING:
    from .base import PaperBase

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

# Fixed text on mechanisms the reviews ask each report to state (the generated sentences come beside it).
MECHANISMS: dict[str, str] = {
    "erpo": (
        "ERPO's sigma_target (the std its token signal Psi is rescaled to, eq. 10) is not given by the paper; the "
        "verdicts use the method's default and the sigma_target sensitivity runs show whether a verdict depends on it. "
        "With a small sigma_target ERPO's advantages approach GRPO's after the group normalisation of eq. 10; with a "
        "large one the sign of a token's advantage can differ from its response's outcome."
    ),
    "cw_grpo": (
        "CW-GRPO reweights advantages but keeps their sign. Its weights are renormalised to mean 1 over the "
        "tokens, so damping a few extreme tokens raises the weight of all others above 1; with one update per "
        "rollout batch and no clip (the paper's setting) nothing bounds the step beyond the KL term. The "
        "sensitivity runs (no KL, 2 updates unclipped and clipped) separate the KL, the update count and the clip."
    ),
    "tepo": (
        "TEPO's runs train on the `tepo` set: the problems whose base-policy groups mix correct and wrong answers, "
        "selected once before training (the offline analogue of the paper's online DAPO dynamic sampling). That "
        "changes the task as well as the method: a comparison against a run on the full set differs in both, which "
        "is why TEPO's baselines train on the same set. TEPO's mask and KL act only with several updates per "
        "rollout batch (w_i = 1 and Delta H = 0 at one update), so its runs make 8, as the paper does."
    ),
    "opefo": (
        "OPEFO is strictly on-policy (one update per rollout batch, no ratio, clip or reference), so it is compared "
        "with GRPO strict on-policy at the same settings; the 8-update baselines differ in the update count as well "
        "as the method. lambda* cancels the first-order net entropy flow of the batch (eq. 8); a first-order "
        "cancellation does not bound the realised change of a finite step, which the entropy curves show."
    ),
    "aer": (
        "AER's coefficient alpha_t moves by eta per step towards the target (eq. 11) from alpha_0 = 0 (not given by "
        "the paper). While the entropy stays above tau * H_0 the coefficient stays at 0 and the run is GRPO: a tau "
        "whose target is never reached gives a run identical to GRPO, not a test of AER. With eta fixed per step "
        "and a budget of a few hundred steps, the controller acts on a shorter time scale than the paper's 30 "
        "epochs; the eta sensitivity runs scale it to the run's length."
    ),
    "summary": (
        "Every method here trains at the shared testbed settings with its own paper's hyperparameters, so the "
        "summary compares methods under one protocol rather than each paper's; the papers' own settings are "
        "compared in their reports."
    ),
}


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


def _reasons(results: Sequence[ClaimResult]) -> str:
    """The not-testable claims counted by the kind of reason (the note's words before its first colon)."""
    kinds: dict[str, int] = {}
    for r in results:
        head = r.note.split(":", 1)[0].strip()
        kind = head if ":" in r.note and len(head) <= 40 else "other reasons"
        kinds[kind] = kinds.get(kind, 0) + 1
    return "; ".join(f"{kind} ({n})" for kind, n in sorted(kinds.items(), key=lambda x: -x[1])) or "none"


def summary_lines(paper: PaperBase, results: Sequence[ClaimResult]) -> list[str]:
    """Five lines: what was tested (with the citation), what holds, what does not, what is inconclusive, what
    could not be tested and why."""
    ref = REFERENCES[paper.name]
    holds = _by_verdict(results, HOLDS)
    fails = _by_verdict(results, DOES_NOT_HOLD)
    open_ = _by_verdict(results, INCONCLUSIVE)
    untestable = _by_verdict(results, NOT_TESTABLE)
    whole = [r for r in results if r.claim.parent is None]
    return [
        f"- **Tested:** {len(whole)} claims of {ref.markdown()} On the testbed (a small from-scratch policy on "
        "one-digit sums; see Setup and Limitations), each judged by the verdict rule under Claims.",
        f"- **Holds ({len(holds)}):** {_listing(holds)}.",
        f"- **Does not hold ({len(fails)}):** {_listing(fails)}.",
        f"- **Inconclusive ({len(open_)}):** {_listing(open_)} (the seeds' interval leaves the claimed effect open).",
        f"- **Not testable here ({len(untestable)}):** {_reasons(untestable)} (each claim with its reason under "
        "Limitations).",
    ]


def discussion(paper: PaperBase, results: Sequence[ClaimResult]) -> str:
    """What the results mean: the claims that do not hold with their differences, the runs marked diverged, the
    sensitivity tables' differences, and the paper's fixed mechanism text."""
    parts = []
    fails = _by_verdict(results, DOES_NOT_HOLD)
    if fails:
        lines = [f"- {_name(r)}: {_interval(r) or 'see its parts'}{'; ' + r.note if r.note else ''}" for r in fails]
        parts.append("Claims that do not hold, with the difference that decided:\n\n" + "\n".join(lines))
    else:
        parts.append("No claim of this report is refuted by the testbed's runs.")
    diverged = []
    for run in paper_runs(paper.settings, trained_only=True):
        try:
            why = paper.results.divergence(run)
        except NotTestable as error:  # a run without results cannot be diagnosed; say so instead of guessing
            diverged.append(f"- `{run}`: not diagnosed ({error})")
            continue
        if why:
            diverged.append(f"- `{run}`: {why}")
    parts.append(
        "Runs marked '(diverged)' (accuracy ending below the base policy's, or rollout entropy past the divergence "
        "factor; `results.divergence`), where a comparison with them measures a failure of training rather than "
        "the claimed effect:\n\n" + "\n".join(diverged)
        if diverged
        else "No run of this report is marked diverged (accuracy below the base policy's, or entropy past the "
        "divergence factor)."
    )
    sensitivity = _sensitivity_sentences(paper)
    if sensitivity:
        parts.append(sensitivity)
    parts.extend(note for note in PAPER_NOTES.get(paper.name, lambda p: [])(paper))
    parts.append(MECHANISMS[paper.name])
    return "\n\n".join(parts)


def _sensitivity_sentences(paper: PaperBase) -> str:
    """One sentence per sensitivity row: whether its difference to the baseline is above, below or not
    distinguishable from 0."""
    lines = []
    for section in paper.report.sections:
        for table in section.tables:
            if table.name != "sensitivity" or "d" not in table.data.columns:
                continue
            for _, row in table.data.iterrows():
                if math.isnan(row["d"]):
                    continue
                side = (
                    "above the baseline"
                    if row["d_low"] > 0
                    else "below the baseline"
                    if row["d_high"] < 0
                    else "not distinguishable from the baseline"
                )
                changed = row["changes"] or "the verdict's settings"
                d = f"d = {row['d']:.3g} [{row['d_low']:.3g}, {row['d_high']:.3g}]"
                lines.append(f"- `{row['run']}` ({changed}): {d}, {side}")
    if not lines:
        return ""
    return (
        "Sensitivity (the section of that name under Evidence; the verdicts stay with the pre-declared settings): "
        "mean@n minus the baseline's for each variant:\n\n" + "\n".join(lines)
    )


def _aer_notes(paper: PaperBase) -> list[str]:
    """Which AER runs never switched the bonus on (alpha_t = 0 at every step of every seed): those runs are GRPO."""
    runs = list(dict.fromkeys([paper.runs.aer, *paper.runs.tau_sweep, *paper.runs.rho_sweep]))
    idle = []
    for run in runs:
        try:
            histories = paper.results.seed_histories(run)
        except NotTestable:
            continue
        alphas = [h["aer/alpha"].dropna() for h in histories if "aer/alpha" in h.columns]
        if alphas and all(len(a) and float(a.abs().max()) == 0.0 for a in alphas):
            idle.append(f"`{run}`")
    if not idle:
        return ["Every AER run switched its entropy bonus on (alpha_t > 0 at some step of some seed)."]
    return [
        f"{', '.join(idle)}: alpha_t stayed 0 at every step of every seed, so the target tau * H_0 was never binding "
        "and the run is GRPO (eq. 11 from alpha_0 = 0); its rows in the sweeps measure GRPO, not that tau or rho."
    ]


def _opefo_notes(paper: PaperBase) -> list[str]:
    """OPEFO's run beside its runs with the other eq. 6 estimator (``delta_h``), which differ in nothing else: where
    the two forms end (mean@n, entropy retained), the diagnosis of a collapse or an explosion of either."""
    lines = []
    for run in [paper.runs.opefo, *paper.runs.delta_h_variants]:
        try:
            accuracy = paper.results.eval_summary(run, ACCURACY)[0]
            ratios = np.maximum(paper.results.per_seed(run, entropy_retained), RETAINED_FLOOR)
            retained = float(np.exp(np.mean(np.log(ratios))))
        except NotTestable:
            continue
        lines.append(
            f"- `{run}` (`delta_h: {paper.hparam(run, 'delta_h')}`): mean@n {accuracy:.3f}, rollout entropy x"
            f"{retained:.2f} of its first step (geometric mean over seeds)"
        )
    if len(lines) < 2:
        return []
    return [
        "The two eq. 6 estimators, the runs otherwise identical: the per-token form `sampled` (sec. 5.1, 'for each "
        "generated token y_t') puts each token in S+ or S- by one sample's log-probability, so the split and lambda* "
        "carry that sample's noise; with the `expectation` form dH_t takes the sign of A_t (its factor is never "
        "positive, docs/assumptions.md), so it reduces to reweighting positive against negative samples:\n\n"
        + "\n".join(lines)
    ]


PAPER_NOTES = {"aer": _aer_notes, "opefo": _opefo_notes}


def limitations(paper: PaperBase, results: Sequence[ClaimResult]) -> str:
    untestable = _by_verdict(results, NOT_TESTABLE)
    listing = (
        "\n".join(f"- {_name(r)}: {r.note}" for r in untestable)
        if untestable
        else "- none: every claim of this report has a verdict on the testbed."
    )
    return "\n\n".join([TESTBED_SCALE, CAN_SAY, CANNOT_SAY, "Claims not testable here, with the reason:\n\n" + listing])
