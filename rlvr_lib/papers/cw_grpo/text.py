"""CW-GRPO's prose: the README's intro, the tables' and figures' captions, the decoding in words, and the
Discussion's own paragraphs, each with the numbers from the runs that support it (``fn(paper) -> str``)."""

import contextlib

import numpy as np

from rlvr_lib.papers.cw_grpo import measures as own
from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.base import _decoding_words
from rlvr_lib.papers.framework.claims import NotTestable, seed_values
from rlvr_lib.papers.framework.results import ACCURACY

INTRO = (
    "CW-GRPO (Wang et al., arXiv 2605.11538) computes each token's covariance c = (log pi - mean log pi)(A - mean "
    "A), down-weights extreme ones with a Gaussian kernel w = exp(-c^2 / 2 sigma^2) (sigma: the std of c), "
    "renormalises the weights to the token count and uses w A in GRPO's loss (sec. 2.3). The paper reports "
    "higher accuracy than GRPO and Clip-Cov (table 2), steadier entropy (fig. 1), a heavy tail of token "
    "covariances under GRPO (table 1, fig. 3), and that GRPO degrades at later checkpoints while CW-GRPO does "
    "not (table 3)."
)

CAPTIONS = {  # each table's and figure's caption line, by its file name
    "table2": "Compare CW-GRPO's mean@n with GRPO's and Clip-Cov's at the 90-step checkpoint (the verdicts'), then at "
    "180 steps; the paper's column is its five-benchmark average at 1.5B / 7B.",
    "figure1_entropy": "Compare each seed's entropy path across the three runs, not their mean: a dashed seed failed a "
    "health gate (below its base policy, or entropy past x2 of its start).",
    "table1_covariance_percentiles": f"Compare the top {own.TAIL_TOP:g}% with the top {own.TAIL_BODY:g}% of each "
    f"row: a ratio well above a Gaussian's (x{10**own.GAUSSIAN_DECADES:.1f}) is a heavy tail; the top 0.01% and the "
    "smallest covariance ('100%') fall apart for any distribution.",
    "table1_covariance_thresholds": "The same thresholds on log axes, the paper's GRPO dashed: compare the slopes "
    "between 1% and 40%, not the magnitudes (those depend on model, length and how much entropy a policy keeps).",
    "kernel_weights": "Compare the share of tokens the kernel down-weights with how much smaller CW-GRPO's gradient "
    "is than GRPO's, over training and on the identical first batch.",
    "fluctuation": "Compare the two fluctuation columns: over the first batch's entropy CW-GRPO looks less steady "
    "because its level is higher; over its own level the order can turn. The last columns: accuracy at the "
    "training temperature.",
    "sensitivity": "Read each row's d as what that change does to CW-GRPO against the same GRPO; rows that change a "
    "shared setting are not alternatives, so no verdict is re-judged on them.",
}


def discussion_notes(paper) -> list[str]:
    """The Discussion's paper-specific paragraphs (after the generated lists): each explanation with the numbers
    from the runs that support it, computed here (a quantity the runs do not give leaves its paragraph out)."""
    notes = []
    for note in (mechanism_note, temperature_note, correlation_note):
        with contextlib.suppress(NotTestable, KeyError, ValueError):
            notes.append(note(paper))
    return notes


def decoding_words(paper, shared: bool = False) -> str:
    """'temperature T, top-p P, n = N' of the verdicts' evaluation (``shared``: of the shared one)."""
    return _decoding_words(paper.params.eval.for_benchmark("", None if shared else paper.results.decoding))


def mean_accuracy(paper, run: str, seeds, decoding: str | None) -> np.ndarray:
    """Per seed mean@n of ``run`` over ``seeds`` at ``decoding`` (None: the shared one)."""
    with paper.results.at_decoding(decoding):
        return seed_values(paper.results.eval_table(run, ACCURACY, seeds))


def span(values) -> str:
    values = np.asarray(list(values), dtype=float)
    low, high = f"{values.min():.3g}", f"{values.max():.3g}"
    return low if low == high else f"{low}-{high}"


def mechanism_note(paper) -> str:
    w = paper.kernel_weights()
    if w is None or len(w) == 0:
        raise NotTestable("no kernel logs")
    parts = []
    for run, rows in w.groupby("run", sort=False):
        removes = rows["kernel_removes"].dropna()
        if len(removes):
            parts.append(
                f"`{run}` on each batch against the same loss without the kernel ({len(removes)} seeds, "
                f"`log_gradient_cosine`): the kernel removes {span(100 * removes)}% of the gradient norm "
                f"(median over steps; cosine {span(rows['kernel_cosine'].dropna())})"
            )
        parts.append(
            f"`{run}` ({len(rows)} seeds): smallest w {span(rows['w_min'])}, mean w {span(rows['w_mean'])}, "
            f"{span(100 * rows['w_below_half'])}% of tokens with w < 0.5, largest w̃ of a batch at most "
            f"{rows['w_tilde_max_max'].max():.2f}; median gradient norm {span(rows['grad_norm_median'])} "
            f"against GRPO's {span(rows['grpo_grad_norm_median'])} on the same seeds (x"
            f"{span(rows['grad_norm_ratio'])} smaller in every seed)"
        )
    acc = paper.results.per_seed(paper.runs.cw_grpo, lambda h: float(measures.window(h, "accuracy", "early").mean()))
    end = paper.results.per_seed(paper.runs.cw_grpo, own.END_ACCURACY)
    first = w.drop_duplicates("seed")
    same = f"{int(first['same_first_batch'].sum())} of {len(first)} seeds"
    failed = paper.results.gates.run_failures(paper.runs.cw_grpo)
    peaked = f"{len([f for f in failed if 'peaked' in f])} of {len(paper.results.seeds_of(paper.runs.cw_grpo))}"
    return (
        "What the kernel does here, from its logs (table 'The kernel's weights and the gradient'): "
        + "; ".join(parts)
        + ". So the kernel zeroes a few tokens and leaves the rest near weight 1 (the renormalisation "
        f"lifts them to at most w̃ {span(w['w_tilde_max_median'])} on a median batch, not enough to enlarge "
        "the step), yet CW-GRPO's gradient is several times smaller than GRPO's. On the first rollout batch, "
        f"the same in both runs ({same}), the gradient norm is "
        f"x{span(first['grad_norm_step1_ratio'])} smaller with the kernel: reweighting the "
        f"{first['w_below_half'].mean():.1%} of tokens it puts below w 0.5 (mean over training) removes most of "
        "the gradient, so the few extreme-covariance tokens carry most of GRPO's gradient "
        "on this testbed (the kernel down-weights them; it does not only tame them). The 180-step run's rollout "
        "accuracy at the training temperature goes from "
        f"{acc.mean():.3f} (first 20% of rollout batches) to {end.mean():.3f} ({measures.TAIL_LABEL}), mean "
        f"over seeds: CW-GRPO barely learns. {kl_weight_text(paper, w)} In {peaked} seeds its rollout entropy "
        f"peaks past x2 of the start (the `healthy` gate), which the KL term (beta "
        f"{paper.hparam(paper.runs.cw_grpo, 'beta'):g}) does not prevent."
    )


def kl_weight_text(paper, w) -> str:
    """Round 4 C8: what the smaller gradient can explain. Adam normalises a global gradient scale, so its size
    alone does not; its direction (the kernel's cosine) and the larger relative weight of the unchanged beta KL
    term can, and the beta 0 sensitivity run tests the second (mean@n with and without the KL term)."""
    r = paper.runs
    cosine = w["kernel_cosine"].dropna()
    text = (
        "The gradient's size alone does not explain it (Adam largely normalises a global gradient scale): what "
        "the logs support is a change of direction"
        + (f" (cosine {span(cosine)} against the loss without the kernel)" if len(cosine) else "")
        + f" and a relative weight of the unchanged beta KL term x{span(w['grad_norm_ratio'])} larger, as the "
        "policy gradient is that much smaller."
    )
    no_kl = next((run for run in r.sensitivity if paper.hparam(run, "beta") == 0), None)
    if no_kl is None:
        return text
    try:
        seeds = paper.results.common_seeds(no_kl, r.cw_grpo)
        without, with_kl = (
            mean_accuracy(paper, run, seeds, paper.results.decoding).mean() for run in (no_kl, r.cw_grpo)
        )
    except NotTestable:  # the beta 0 run not trained yet
        return text
    return (
        f"{text} Without the KL term (`{no_kl}`, beta 0) mean@n is {without:.3f} against {with_kl:.3f} with it "
        f"({len(seeds)} seeds, `{paper.results.decoding}`), which partly tests the second."
    )


def temperature_note(paper) -> str:
    """The evaluation decoding (R3-C3): CW-GRPO minus GRPO at the paper's decoding (the verdicts') and at the
    shared one, what each run gains from the cooler sampler, the rollouts' accuracy at the training temperature
    and the end entropy that explains the gains, all from the runs."""
    r = paper.runs
    decoding, base = paper.results.decoding, r.base
    out, narrower, same_sign, gains_more = [], [], [], []
    for cw, grpo in ((r.cw_grpo_checkpoints[0], r.grpo_checkpoints[0]), (r.cw_grpo, r.grpo)):
        seeds = paper.results.common_seeds(cw, grpo)
        acc = {(run, at): mean_accuracy(paper, run, seeds, at) for run in (cw, grpo) for at in (decoding, None)}
        d_own, d_shared = acc[cw, decoding] - acc[grpo, decoding], acc[cw, None] - acc[grpo, None]
        roll = {run: paper.results.per_seed(run, own.END_ACCURACY, seeds) for run in (cw, grpo)}
        entropy = {run: float(paper.results.per_seed(run, own.END_ENTROPY, seeds).mean()) for run in (cw, grpo)}
        narrower.append(abs(d_own.mean()) < abs(d_shared.mean()))
        gains_more.append(bool(entropy[cw] > entropy[grpo] and d_own.mean() > d_shared.mean()))
        same_sign.append(bool(np.sign(d_own.mean()) == np.sign(d_shared.mean())))
        out.append(
            f"`{cw}` minus `{grpo}` ({len(seeds)} paired seeds): mean@n {d_own.mean():+.3f} at `{decoding}`, "
            f"{d_shared.mean():+.3f} at the shared decoding (negative in {int((d_own < 0).sum())} and "
            f"{int((d_shared < 0).sum())} of {len(seeds)} seeds), {(roll[cw] - roll[grpo]).mean():+.3f} in rollout "
            f"accuracy at the training temperature ({measures.TAIL_LABEL}, training problems); the cooler sampler adds "
            f"{(acc[cw, decoding] - acc[cw, None]).mean():+.3f} to CW-GRPO and "
            f"{(acc[grpo, decoding] - acc[grpo, None]).mean():+.3f} "
            f"to GRPO, whose rollout entropy ends at {entropy[grpo]:.3f} against CW-GRPO's {entropy[cw]:.3f} "
            f"({measures.TAIL_LABEL})"
        )
    base_seeds = paper.results.seeds_of(base)
    base_gain = (mean_accuracy(paper, base, base_seeds, decoding) - mean_accuracy(paper, base, base_seeds, None)).mean()
    return (
        f"The evaluation decoding (R3-C3): the paper trains at temperature 0.7 and gives no evaluation "
        f"temperature; the verdicts read a second evaluation of the same models at `{decoding}` "
        f"({decoding_words(paper)}), the shared one ({decoding_words(paper, shared=True)}) is their robustness "
        "column. " + "; ".join(out) + f". The base policy gains {base_gain:+.3f}. The gap is "
        f"{'narrower' if all(narrower) else 'not always narrower'} at `{decoding}` and "
        f"{'of the same sign' if all(same_sign) else 'not always of the same sign'} at both decodings"
        + (
            ": the higher-entropy CW-GRPO policy gains more from the cooler sampler than GRPO's lower-entropy one"
            + (", not enough to change the gap's sign." if all(same_sign) else ".")
            if all(gains_more)
            else "."
        )
    )


def correlation_note(paper) -> str:
    r = paper.runs
    every = [*r.grpo_checkpoints, *r.cw_grpo_checkpoints]
    seeds, fluct, accuracy = own.fluctuation_and_accuracy(paper, every)
    between = own.spearman_per_seed(fluct, accuracy)  # the round-3 verdict's reading: evidence
    within = {label: own.within_method_correlation(paper, runs).per_seed for label, runs in own.checkpoint_methods(r)}
    per_seed = ", ".join(f"seed {s}: {v:+.2f}" for s, v in zip(seeds, between, strict=True))
    inside = "; ".join(f"{k} {', '.join(f'{v:+.2f}' for v in vals)}" for k, vals in within.items())
    acc = {run: float(accuracy[:, i].mean()) for i, run in enumerate(every)}
    steady = {run: fluct[:, i].mean() for i, run in enumerate(every)}
    ordered = min(acc[x] for x in r.grpo_checkpoints) > max(acc[x] for x in r.cw_grpo_checkpoints)
    order = (
        "every GRPO checkpoint beats every CW-GRPO one on these seeds"
        if ordered
        else "the methods' checkpoints overlap in accuracy"
    )
    along = [
        label
        for label, runs in own.checkpoint_methods(r)
        if bool(np.all(np.diff([acc[x] for x in runs]) > 0)) and bool(np.all(np.diff([steady[x] for x in runs]) > 0))
    ]
    confound = (
        f" Within {', '.join(along)} both the fluctuation and mean@n rise from checkpoint to checkpoint: the "
        "within-method correlation there also follows training length."
        if along
        else ""
    )
    return (
        "Entropy and accuracy across checkpoints (R3-C1): over all six checkpoint runs of a seed the rank "
        f"correlation of fluctuation and mean@n is {per_seed}. That pooled number mostly says which method is "
        f"more accurate ({order}), so the claim is judged within each "
        f"method, over its own three checkpoints (Pearson's r): per seed {inside}." + confound
    )


def checkpoint_reversal(paper) -> str:
    """Round 4 C10: each method's mean@n at its later checkpoints minus its first (the verdicts' decoding, per
    seed on the seeds both ran), against the paper's table 3 (GRPO falls, CW-GRPO holds): one Summary line."""
    decoding, parts, falls = paper.results.decoding, {}, {}
    for label, runs in own.checkpoint_methods(paper.runs):
        diffs = []
        for later in runs[1:]:
            seeds = paper.results.common_seeds(later, runs[0])
            diffs.append(mean_accuracy(paper, later, seeds, decoding) - mean_accuracy(paper, runs[0], seeds, decoding))
        values = np.concatenate(diffs)
        falls[label] = (int((values < 0).sum()), len(values))
        parts[label] = "; ".join(
            f"`{later}` {', '.join(f'{v:+.3f}' for v in d)}" for later, d in zip(runs[1:], diffs, strict=True)
        )
    (g, g_n), (c, c_n) = falls["GRPO"], falls["CW-GRPO"]
    return (
        f"**Checkpoints (table 3) in the other direction.** From its first checkpoint, CW-GRPO's mean@n falls in {c} "
        f"of {c_n} (seed, later checkpoint) pairs ({parts['CW-GRPO']}) and GRPO's in {g} of {g_n} ({parts['GRPO']}), "
        f"at `{decoding}`: the paper's table 3 has GRPO falling and CW-GRPO holding."
    )
