"""ERPO's prose: the README's intro paragraph and the Discussion's paper-specific paragraphs (``fn(paper) -> str``,
each with the numbers from the runs)."""

from __future__ import annotations

from functools import partial

import numpy as np

from rlvr_lib.papers.erpo import measures
from rlvr_lib.papers.framework import measures as shared
from rlvr_lib.papers.framework.claims import Estimate, NotRun, NotTestable, paired_difference, seed_values
from rlvr_lib.papers.framework.engine import SHARED_DECODING
from rlvr_lib.papers.framework.results import ACCURACY

INTRO = (
    "ERPO (Yu et al., arXiv 2603.28204) replaces GRPO's sequence advantage by token advantages: an implicit "
    "progress signal s = beta (log pi - log pi_ref) (eq. 7), z-scored within relative-position buckets (eq. 9), "
    "gated by the token's entropy W = sigmoid(gamma Norm_G(H)) (eq. 8) and anchored to the sign of the outcome "
    "advantage, added to A_i and renormalised per group (eq. 10). The paper reports higher accuracy and format "
    "rate than GRPO (table 1), higher pass@k (table 2), that perturbing high-entropy tokens hurts far more than "
    "low-entropy ones (fig. 1(b)), retained entropy (fig. 4) and shorter answers at no extra training time "
    "(fig. 5). Rows: `base` (the testbed's supervised base policy, which plays both Base and SFT), GRPO, ERPO."
)


def discussion_notes(paper) -> list[str]:
    """The Discussion's paper-specific paragraphs (after the generated lists): why ERPO fails here, what the
    open sigma_target decides, the perturbation study's baselines, the pass@k reading and the step-1 noise,
    each with the numbers from the runs."""
    notes = []
    for fn in (note_decoding, note_sigma, note_why, note_perturbation, note_pass_growth, note_psi):
        try:
            notes.append(fn(paper))
        except NotTestable as reason:
            notes.append(f"({fn.__name__.removeprefix('note_')}: not computed: {reason})")
    return notes


def interval(d: Estimate) -> str:
    return f"{d.value:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]"


LATE_KL = partial(shared.end_mean, key="kl_to_reference")  # one seed's KL to the reference over the end window


def gain(paper, run: str, seeds: list[int]) -> float:
    base = paper.results.eval_table(paper.runs.base, ACCURACY, seeds).mean()
    return float(paper.results.eval_table(run, ACCURACY, seeds).mean() - base)


def note_sigma(paper) -> str:
    r = paper.runs
    rows, beats, tested = [], [], []
    for run in [r.erpo, *r.sensitivity]:
        sigma = paper.hparam(run, "sigma_target")
        try:
            d, seeds = measures.accuracy_vs(paper, run, r.grpo)
            failed = [s for s in seeds if paper.results.gates.check("learned", run, s)]
            run_gain, grpo_gain = gain(paper, run, seeds), gain(paper, r.grpo, seeds)
        except NotTestable as reason:
            rows.append(f"sigma_target {sigma:g}: {reason}")
            continue
        tested.append(f"{sigma:g}")
        beats.append(d.ci_low > 0)
        rows.append(
            f"sigma_target {sigma:g} ({len(seeds)} seeds): mean@n minus GRPO {interval(d)}, gain over base "
            f"{run_gain:+.3f} against GRPO's {grpo_gain:+.3f}, {len(failed)} of {len(seeds)} seeds below the learned "
            "gate"
        )
    verdict = "A tested sigma_target makes ERPO beat GRPO"
    if not any(beats):
        verdict = f"No tested sigma_target ({', '.join(tested)}) makes ERPO beat GRPO"
    return (
        "ERPO's sigma_target (the std its token signal Psi is rescaled to, eq. 10) is not given by the paper; "
        "the verdicts use the method's default 1, and the declared alternatives x1/4 and x4 are judged beside "
        "each verdict (the robustness column). "
        + "; ".join(rows)
        + f". {verdict}; at the default ERPO fails to learn, so its accuracy verdicts (does not hold) are "
        "conditional on sigma_target = 1, and its entropy verdicts are method failed there (a policy that did "
        "not move keeps its entropy without the method keeping it)."
    )


def note_why(paper) -> str:
    r = paper.runs
    parts = []
    for run in r.ablations:
        switch = measures.ablation_switch(paper, run)
        try:
            d, seeds = measures.accuracy_vs(paper, run, r.erpo)
        except NotRun:  # an ablation not trained yet
            parts.append(f"{switch} off: not run")
            continue
        parts.append(f"{switch} off {interval(d)} ({len(seeds)} seeds)")
    kl = {run: paper.results.per_seed(run, LATE_KL).mean() for run in (r.erpo, r.grpo)}
    no_progress = measures.ablation_run(paper, "use_implicit_progress")
    flips, spread = (
        {run: paper.results.per_seed(run, partial(shared.whole_mean, key=key)).mean() for run in (r.erpo, no_progress)}
        for key in ("erpo/sign_flip_frac", "erpo/adv_within_seq_std")
    )
    try:
        d, seeds = measures.accuracy_vs(paper, no_progress, r.grpo)
        recovers = f"{no_progress} minus {r.grpo} {interval(d)}, {len(seeds)} seeds"
    except NotTestable as reason:  # a run not trained yet
        recovers = f"against {r.grpo}: {reason}"
    return (
        "Why ERPO fails here (mean@n of each one-switch ablation minus full ERPO): "
        + "; ".join(parts)
        + ". Switching the implicit progress term off recovers GRPO-level accuracy ("
        + recovers
        + "), while the gate and the "
        "bucket normalisation change nothing the seeds can detect: the progress term s = beta (log pi - "
        "log pi_ref) (eq. 7), rescaled to sigma_target and weighted by eta, is what stops ERPO learning at the "
        f"default, and the policy stays near its reference (late KL {kl[r.erpo]:.4f} against GRPO's "
        f"{kl[r.grpo]:.4f}, over {shared.TAIL_LABEL}). It does not act by reversing the outcome's sign: "
        f"only {flips[r.erpo]:.1%} of anchored tokens get an advantage of the other sign ({flips[no_progress]:.1%} "
        "without the term); it spreads the advantages within each response (their within-response std "
        f"{spread[r.erpo]:.3f} against {spread[no_progress]:.3f} without the term, means over training), "
        "tied to each token's own log-ratio to the reference. The sigma_target paragraph shows the same through "
        "the term's scale. " + no_anchor_text(paper)
    )


def no_anchor_text(paper) -> str:
    """What the no-anchor ablation did, per seed: its accuracy, format rate, length against the cap and its
    late KL to the reference (the unsigned term rewards departing from the reference)."""
    try:
        run = measures.ablation_run(paper, "use_outcome_anchor")
        seeds = paper.results.seeds_of(run)
        acc = seed_values(paper.results.eval_table(run, ACCURACY, seeds))
        fmt_rate = seed_values(paper.results.eval_table(run, "format_rate", seeds))  # always the shared decoding's
        length = seed_values(paper.results.eval_table(run, "response_length", seeds))
        kl = paper.results.per_seed(run, LATE_KL, seeds)
    except NotTestable as reason:  # NotRun included
        return f"(The no-anchor ablation: {reason}.)"
    return (
        f"Without the outcome anchor the term is unsigned and rewards any departure from the reference: `{run}` "
        f"per seed ends at mean@n {np.round(acc, 3).tolist()}, format rate {np.round(fmt_rate, 3).tolist()}, "
        f"response length {np.round(length, 1).tolist()} tokens (cap {paper.params.eval.max_new_tokens}) and late "
        f"KL to the reference {np.round(kl, 2).tolist()}: it optimises the token signal into unterminated, "
        "wrong answers (the outcome_anchor claim)."
    )


def note_perturbation(paper) -> str:
    p = paper.settings.perturbation
    try:
        studies = measures.perturbation_study(paper)
    except NotTestable as reason:
        return no_reliable_problems(paper, reason)
    control = {
        which: float(np.mean([s["control_accuracy"][which]["value"] for s in studies])) for which in ("top", "bottom")
    }
    baselines = measures.baselines_text
    return (
        f"{studied_policy(paper)} Fig. 1(b)'s drops depend on the baseline they are measured against (selection: "
        f"{paper._done['_selection']}): top-entropy drop {baselines(paper, 'top')}; bottom-entropy drop "
        f"{baselines(paper, 'bottom')}; top minus bottom {baselines(paper, None)}. The controls (token "
        f"kept, rest regenerated) score {control['top']:.3f} at the top-{p.frac:.0%} positions and "
        f"{control['bottom']:.3f} at the bottom ones (means over seeds); the verdicts use the declared baseline "
        "(against the control)."
    )


def reliable(paper, run: str) -> tuple[np.ndarray, list[int]]:
    """``run``'s (seeds, problems) mean@n at the shared decoding (the study's own sampling) and, per seed, how many
    evaluation problems it solves in at least ``min_correct`` of ``samples`` tries."""
    p = paper.settings.perturbation
    with paper.results.at_decoding(None):
        table = paper.results.eval_table(run, ACCURACY)
    return table, (table >= p.min_correct / p.samples).sum(axis=1).astype(int).tolist()


def studied_policy(paper) -> str:
    """Which policy fig. 1(b) perturbs and why (the paper's is its pretrained model)."""
    p, base = paper.settings.perturbation, paper.runs.base
    if p.policy == base:
        return "The study perturbs the base policies, as the paper perturbs its pretrained model."
    n = len(paper.results.seeds_of(base))
    return (
        f"The study perturbs `{p.policy}`'s final models, not the base policies the paper's pre-RL model "
        f"corresponds to: on the {n} base policies the selection ({p.min_correct} of {p.samples}) finds "
        f"{reliable(paper, base)[1]} evaluation problems per seed, on `{p.policy}` "
        f"{reliable(paper, p.policy)[1]} (docs/assumptions.md, ERPO fig. 1(b)); its high-entropy tokens are "
        "a trained policy's."
    )


def no_reliable_problems(paper, reason: NotTestable) -> str:
    """Why fig. 1(b) has no problems: how many evaluation problems the studied policy solves in at least
    ``min_correct`` of ``samples`` tries at the shared decoding (the study's own sampling), per seed."""
    p = paper.settings.perturbation
    try:
        table, counts = reliable(paper, p.policy)
    except NotTestable:
        return f"Fig. 1(b) is not computed: {reason}."
    return (
        f"Fig. 1(b) is not computed: {reason} (papers.erpo.perturbation.min_correct {p.min_correct} of "
        f"{p.samples}). On the evaluation set the same `{p.policy}` policy solves at least "
        f"{p.min_correct / p.samples:.0%} of its samples on {counts} of {table.shape[1]} problems per seed (mean@n "
        f"{seed_values(table).mean():.3f}): the policy has almost no problem it solves reliably, so the "
        "study's selection leaves nothing to perturb."
    )


def note_pass_growth(paper) -> str:
    r, k = paper.runs, max(paper.settings.pass_at_k)

    def over_base(run: str, metric: str) -> str:
        return interval(
            paired_difference(paper.results.eval_table(run, metric), paper.results.eval_table(r.base, metric))
        )

    out = [f"{run} {over_base(run, f'pass@{k}')}" for run in (r.grpo, r.erpo)]
    gains = [f"{run} mean@n {over_base(run, ACCURACY)}" for run in (r.grpo, r.erpo)]
    return (
        "rl_pass_growth reads 'improvement' as the growth of pass@k with k; the testbed was built to show real "
        "RLVR's sharpening (mean@k up, pass@k at large k flat or down; docs/testbed.md), and the runs show it: "
        "gain over the base policy " + "; ".join(gains) + f", against pass@{k}: " + "; ".join(out) + ". So GRPO's "
        "part fails by design (a property of the testbed, counted apart: the claim stands on ERPO's part), and the "
        "paper's own table 2 grows less for RL than for Base at 7B and 3B AMC23."
    )


def note_decoding(paper) -> str:
    """The paper's decoding (top-p) against the shared one: each run's mean@n at both, and the verdicts that
    change when judged at the shared decoding."""
    own = paper.results.decoding
    if own is None:
        raise NotTestable("the paper is evaluated at the shared decoding")
    r, rows = paper.runs, []
    for run in (r.base, r.grpo, r.erpo):
        seeds = paper.results.seeds_of(run)
        at = {}
        for d in (own, None):
            with paper.results.at_decoding(d):
                at[d] = seed_values(paper.results.eval_table(run, ACCURACY, seeds))
        rows.append(f"{run} {at[own].mean():.3f} against {at[None].mean():.3f} ({len(seeds)} seeds)")
    changed = []
    for result in paper.evaluate_claims():
        for item in [result, *result.parts]:
            other = item.by_alternative.get(SHARED_DECODING)
            if other is not None and other != item.verdict:
                changed.append(f"`{item.claim.key}` ({item.verdict} here, {other} at the shared decoding)")
    return (
        f"Decoding: the verdicts read the paper's `{own}` (App. A.3); mean@n there against the shared decoding: "
        + "; ".join(rows)
        + ". Of the verdicts judged at both, "
        + (f"{len(changed)} change: " + "; ".join(changed) if changed else "none changes")
        + " (the claims table's robustness column)."
    )


def note_psi(paper) -> str:
    r = paper.runs
    hat, psi = (
        paper.results.per_seed(r.erpo, partial(measures.first_batch, key=key))
        for key in ("erpo/psi_hat_std", "erpo/psi_std")
    )
    return (
        "At the first rollout batch the policy is its reference, so s should be 0; the sampler's and the "
        "reference forward's log-probs differ by float noise, and Alg. 1 line 19's rescale blows that noise up "
        f"to sigma_target: per seed std(Psi_hat) {np.round(hat, 5).tolist()} becomes std(Psi) "
        f"{np.round(psi, 2).tolist()} at step 1 (docs/assumptions.md, ERPO). The method follows Alg. 1 as "
        "written and is not changed after its runs; the noise enters the first rollout batch only (its updates "
        f"are 2 of the run's {paper.params.runs[r.erpo].train.max_steps} steps)."
    )


def did_not_learn(paper) -> str:
    """Evidence of the root cause 'ERPO did not learn at sigma_target 1': the ``learned`` gate on ERPO's run, per
    seed, against its sigma_target 0.25 alternative."""
    run = paper.runs.erpo
    seeds = paper.results.seeds_of(run)
    failed = paper.results.gates.failures([run], ("learned",))
    text = (
        f"`{run}` (sigma_target {paper.hparam(run, 'sigma_target'):g}, not given by the paper) fails the `learned` "
        f"gate on {len(failed)} of {len(seeds)} seeds (its gain over the base policy is under "
        f"{shared.LEARNED_SHARE:g} of GRPO's), so its refutations describe a policy that did not move"
    )
    name, alternative = next(((n, swaps[run]) for n, swaps in paper.alternatives().items() if run in swaps), ("", None))
    if alternative is None:
        return text + "."
    other = paper.results.gates.failures([alternative], ("learned",))
    return (
        f"{text}; at sigma_target {paper.hparam(alternative, 'sigma_target'):g} (`{alternative}`) "
        f"{len(other)} of {len(paper.results.seeds_of(alternative))} seeds fail it (Discussion)"
        + ("." if other else f", and {entropy_where_learned(paper, name, alternative)}.")
    )


def entropy_where_learned(paper, name: str, alternative: str) -> str:
    """Fig. 4's entropy claim where ERPO learns (the declared alternative ``name``, run ``alternative``, e.g.
    sigma_target 0.25): its log entropy retained against GRPO's on the shared seeds, and `prevents_mode_collapse`'s
    verdict there."""
    grpo = paper.runs.grpo
    seeds = paper.results.common_seeds(alternative, grpo)
    values = [paper.results.per_seed(run, shared.log_entropy_retained, seeds) for run in (alternative, grpo)]
    d = paired_difference(*values)
    verdicts = {r.claim.key: r for r in paper.evaluate_claims()}
    under = verdicts["prevents_mode_collapse"].by_alternative.get(name, "")
    there = f"; `prevents_mode_collapse` {under} there" if under else ""
    return (
        f"where it learns its entropy falls like GRPO's: log entropy retained {values[0].mean():+.3f} against "
        f"GRPO's {values[1].mean():+.3f}, ERPO minus GRPO {interval(d)} ({len(seeds)} seeds){there} (fig. 4)"
    )
