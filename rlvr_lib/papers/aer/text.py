"""AER's prose: the README's intro paragraph and the Discussion's paper-specific paragraphs (``fn(paper) -> str``
or a list of them), each explanation with the numbers from the runs that support it."""

from __future__ import annotations

import numpy as np

from rlvr_lib.papers.aer import measures
from rlvr_lib.papers.aer.measures import ENTROPY_MARGIN, initial_entropy, level_of, lowest_entropy
from rlvr_lib.papers.framework.claims import NotTestable, seed_values
from rlvr_lib.papers.framework.measures import ENTROPY_FACTOR, TAIL_LABEL, peak_entropy_ratio, rollouts
from rlvr_lib.papers.framework.results import ACCURACY
from rlvr_lib.settings.papers import BASE_RUN

INTRO = (
    "AER adds an entropy bonus lambda_t(q) H to GRPO's objective (eq. 7) with three components: C1, a "
    "difficulty-aware coefficient alpha_t max(0, rho - g(q)) / rho that is positive only for prompts whose group "
    "accuracy g(q) is below the pivot rho (eq. 9); C2, a target entropy H* = tau H_0 anchored to the first step's "
    "entropy (eq. 10); C3, a global coefficient alpha_t moved by eta sgn(H* - H_t) each iteration (eq. 11). The "
    "paper reports higher pass@1 and pass@32 than GRPO and four entropy baselines (table 1), higher pass@k up "
    "to k = 256 (tables 6-7, k50), gains from each component (table 2), a sweet spot at tau = 0.4 and higher "
    "accuracy for small rho (tables 8-9), and entropy held near the target (fig. 3)."
)


def discussion_notes(paper) -> list[str]:
    """The Discussion's paper-specific paragraphs (after the generated lists): each explanation with the numbers
    from the runs that support it."""
    return [
        *fig2_notes(paper),
        *idle_notes(paper),
        *controller_notes(paper),
        *explosion_notes(paper),
        *protocol_notes(paper),
    ]


def explosion_notes(paper) -> list[str]:
    """The C3 runs whose entropy passed the divergence limit: per seed, how far alpha_t had climbed when it did
    (eq. 11 raises alpha_t by eta per step while H_t < H*, and the bonus then carries the entropy past x2)."""
    rows = []
    for run in measures.c3_runs(paper):
        try:
            histories = paper.results.seed_histories(run)
        except NotTestable:  # not trained yet
            continue
        for seed, h in zip(paper.results.seeds_of(run), histories, strict=True):
            ratio = rollouts(h, "entropy/mean") / initial_entropy(h)
            past = ratio[ratio > ENTROPY_FACTOR]
            if past.empty:
                continue
            alpha = rollouts(h, "aer/alpha")
            step, top = past.index[0], alpha.idxmax()
            eta = paper.hparam(run, "eta")
            rows.append(
                f"`{run}` (tau {paper.hparam(run, 'tau'):g}) seed {seed}: alpha_t peaked at "
                f"{float(alpha.max()):.3f} at step {int(top)} (H_t {float(ratio.loc[top]):.2f} H_0 then) and was "
                f"still {float(alpha.loc[step]):.3f} when H_t passed x{ENTROPY_FACTOR:g} H_0 at step "
                f"{int(step)} ({float(alpha.loc[step]) / eta:.0f} steps of eta {eta:g} from 0); peak H_t "
                f"x{float(ratio.max()):.1f} H_0"
            )
    if not rows:
        return []
    return [
        "C3 runs whose entropy exploded (the `no_explosion_*` claims): "
        + "; ".join(rows)
        + ". eq. 11 lowers alpha_t by only eta per step once H_t is above H*, so the coefficient built up below "
        "the target keeps the bonus on for that many more steps while the entropy climbs."
    ]


def fig2_notes(paper) -> list[str]:
    """Fig. 2(a, b)'s level-set runs: each coefficient's accuracy on its level per seed, and what the `healthy`
    gate (which reads the whole evaluation set and the run's own first batch) says of a run trained on one
    level: its numbers, so a misfire would show."""
    r = paper.runs
    out = []
    for name, runs in (("easiest", r.fig2_easy), ("hardest", r.fig2_hard)):
        if len(runs) < 3:
            continue
        try:
            rows = [
                f"coefficient {paper.hparam_text(run, 'alpha_init')} "
                f"{np.round(paper.results.level_values(run, ACCURACY, paper.results.training_levels(run)), 3).tolist()}"
                for run in runs
            ]
            checks = {run: health_numbers(paper, run) for run in runs}
        except NotTestable as reason:  # NotRun included: the runs are not trained yet
            out.append(f"Fig. 2 on the {name} level ({', '.join(runs)}): {reason}.")
            continue
        level = level_of(paper, runs[0])
        passing = [run for run in runs if not checks[run]["failed"]]
        failing = [run for run in runs if checks[run]["failed"]]
        gate = (
            "the `healthy` gate (mean@n on the whole evaluation set not below the seed's base policy, rollout "
            f"entropy never past x{ENTROPY_FACTOR:g} its first batch) passes every seed of "
            + ", ".join(
                f"`{run}` (whole-set mean@n {checks[run]['acc'].min():.3f}-{checks[run]['acc'].max():.3f} against "
                f"the base's {checks[run]['base'].min():.3f}-{checks[run]['base'].max():.3f}, entropy peak "
                f"x{checks[run]['peak'].max():.2f})"
                for run in passing
            )
            if passing
            else "the `healthy` gate passes no run"
        )
        fails = "; ".join(
            f"it fails `{run}` in {len(checks[run]['failed'])} of {len(checks[run]['acc'])} seeds (entropy peak "
            f"x{checks[run]['peak'].min():.2f}-x{checks[run]['peak'].max():.2f}, whole-set mean@n "
            f"{checks[run]['acc'].min():.3f}-{checks[run]['acc'].max():.3f})"
            for run in failing
        )
        out.append(
            f"Fig. 2 on the {name} testbed level ({level}), trained and evaluated there, mean@n on the level per seed: "
            + "; ".join(rows)
            + f". On these runs, each trained on one level, {gate}"
            + (f"; {fails}, an explosion its claims take as the evidence (they declare no gate)" if fails else "")
            + "."
        )
    return out


def health_numbers(paper, run: str) -> dict:
    """Per seed of ``run``: the `healthy` gate's inputs (whole-set mean@n at the shared decoding, the base's,
    the entropy peak over the first batch) and the seeds it fails."""
    seeds = paper.results.seeds_of(run)
    with paper.results.at_decoding(None):
        acc = seed_values(paper.results.eval_table(run, ACCURACY, seeds))
        base = seed_values(paper.results.eval_table(BASE_RUN, ACCURACY, seeds))
    peak = paper.results.per_seed(run, peak_entropy_ratio, seeds)
    failed = [s for s in seeds if paper.results.gates.check("healthy", run, s)]
    return {"acc": acc, "base": base, "peak": peak, "failed": failed}


def idle_notes(paper) -> list[str]:
    """Which AER runs never switched the bonus on (their ``active`` gate fails on a seed): those seeds are GRPO."""
    runs = list(dict.fromkeys([paper.runs.aer, *paper.runs.tau_sweep, *paper.runs.rho_sweep]))
    idle = []
    for run in runs:
        try:
            paper.results.seed_histories(run)  # a run not trained yet is no idle run (NotRun)
            failed = paper.results.gates.failures([run], ("active",))
        except NotTestable:
            continue
        if failed:
            idle.append(f"`{run}` ({'; '.join(failed)})")
    if not idle:
        return ["Every AER run switched its entropy bonus on (alpha_t > 0 on at least 10% of rollout batches)."]
    return [
        f"{', '.join(idle)}: the target tau * H_0 was never binding, so alpha_t stayed at alpha_0 = 0 and the "
        "run is GRPO (eq. 11); its claims are METHOD FAILED (the `active` gate) and its rows in the sweeps are "
        "marked 'idle'. " + tau_between_note(paper)
    ]


def tau_between_note(paper) -> str:
    lowest = paper.results.per_seed(paper.runs.grpo, lowest_entropy)  # the floor a target must lie above to bind
    default = paper.hparam(paper.runs.aer, "tau")
    between = [run for run in paper.runs.tau_sweep if lowest.min() < paper.hparam(run, "tau") < default]
    return (
        f"A tau binds only above GRPO's lowest entropy, {lowest.min():.2f}-{lowest.max():.2f} H_0 over its "
        f"{len(lowest)} seeds: tau 0.3 (table 8's other under-reduction value) binds in {int((lowest < 0.3).sum())} of "
        f"{len(lowest)}, tau 0.35 in {int((lowest < 0.35).sum())} (the sweep's runs between that floor and the default "
        f"{default:g}: {', '.join(f'`{run}`' for run in between) or 'none'})."
    )


def controller_notes(paper) -> list[str]:
    """alpha_t's activity per seed of the AER run, and its undershoot below the target: measured, not assumed."""
    run = paper.runs.aer
    try:
        histories = paper.results.seed_histories(run)
    except NotTestable:
        return []
    rows, under = [], 0
    tau = paper.hparam(run, "tau")
    for seed, h in zip(paper.results.seeds_of(run), histories, strict=True):
        alpha = rollouts(h, "aer/alpha")
        on = alpha[alpha > 0]
        first = int(on.index[0]) if len(on) else None
        lowest = lowest_entropy(h)
        under += lowest < tau - ENTROPY_MARGIN
        rows.append(
            f"seed {seed}: alpha_t > 0 from step {first} on {len(on)} of {len(alpha)} rollout batches, peak "
            f"{float(alpha.max()):.3f}, last {float(alpha.to_numpy()[-1]):.3f}, lowest H_t {lowest:.2f} H_0"
        )
    grpo_end = paper.results.per_seed(paper.runs.grpo, measures.end_entropy)
    return [
        f"`{run}` is plain GRPO until its entropy first reaches H* = {tau:g} H_0 (alpha_0 = 0): "
        + "; ".join(rows)
        + f". {under} of {len(rows)} seeds undershoot the target by more than {ENTROPY_MARGIN:g} H_0 before "
        "alpha_t turns the entropy back: the post-crossing mean of `entropy_at_target` averages over the "
        "undershoot, whose lowest values are shown beside it. The target binds at all because GRPO's entropy "
        f"falls below it within the budget (2 layers, {paper.params.runs[paper.runs.grpo].train.max_steps} steps; "
        f"docs/testbed.md): {paper.runs.grpo}'s entropy over {TAIL_LABEL} is "
        f"{np.round(grpo_end, 2).tolist()} H_0 per seed, against the target {tau:g} H_0."
    ]


def protocol_notes(paper) -> list[str]:
    eta = paper.hparam(paper.runs.sensitivity[0], "eta")
    return [
        "The paper reports each method at the checkpoint with the highest AIME2025 pass@1, validated every 20 "
        "steps (App. A.2): the checkpoint is chosen on a test benchmark, which favours every AIME2025 number of "
        "tables 1 and 7 and k50 on AIME2025 (the maximum of about 30 noisy evaluations). The testbed reports the "
        "final model of every run, chosen on nothing.",
        "eta: the paper gives eta = 0.005 per iteration (table 3) over 30 epochs of DeepScaleR; `aer_eta_scaled` (eta "
        f"{eta:g}) scaled it by App. C's 'fewer than 500 steps', which caps only the supplementary 30B / Llama runs, "
        "so its basis is a misreading; it is kept as a declared alternative of eq. 11's step size (params.yaml "
        f"`papers.aer.alternatives`), a x{eta / paper.hparam(paper.runs.aer, 'eta'):.1f} step, and every verdict that "
        "reads `aer` says whether it hinges on it. alpha_t is updated after every optimizer step (2 per rollout batch, "
        "from the same H_t), twice per iteration of the paper's workflow.",
    ]
