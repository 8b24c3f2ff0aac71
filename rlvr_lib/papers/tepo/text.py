"""TEPO's prose: the intro paragraph, the decoding in words and the Discussion's own paragraphs (``fn(paper) -> str``),
each with the numbers from the runs that support it (computed, not typed)."""

from __future__ import annotations

import numpy as np

from rlvr_lib.papers.framework.base import _decoding_words, fmt_ci
from rlvr_lib.papers.framework.claims import NotRun, NotTestable, format_number
from rlvr_lib.papers.framework.measures import TAIL_LABEL, end_mean, entropy_retained, log_ratio
from rlvr_lib.papers.framework.results import ACCURACY, fmt_seeds
from rlvr_lib.papers.tepo import measures
from rlvr_lib.papers.tepo.measures import FIRST_UPDATE_MASK_MAX, KL_EXCURSION, PAPER_STRUCTURE

INTRO = (
    "TEPO (Lin et al.) replaces PPO's token ratio by the geometric mean of a response's token ratios, "
    "w_i = exp(mean_t log(pi/pi_old)), applied to every token with GRPO's advantage and clipped at 1 ± eps "
    "(eps 0.2 here: the paper gives none), and adds a KL to the rollout policy only on tokens with positive "
    "advantage whose entropy falls (A > 0 and dH < 0, eq. 4), aggregated token-mean. The paper trains with 8 "
    "updates per rollout batch (4 mini-batches x 2 passes) and reports higher accuracy than GRPO/DAPO and the "
    "other baselines of table 1 (Clip-Cov, KL-Cov and the entropy-based advantage, which control entropy, and "
    "GSPO and GPG, which do not), steadier training, that a KL on every token hurts (panel A), that token-mean "
    "beats per-sequence aggregation (panel D), that its mask scope is the best (panel E), and peak accuracy at "
    "72 steps instead of 132 (table 4)."
)


def decoding_text(paper) -> str:
    """The decoding the accuracy columns read, in words: the paper's own where the verdicts read it, else the shared
    one with the paper's beside."""
    decoding, beside = paper.results.decoding, paper.results.beside
    shared = _decoding_words(paper.params.eval.for_benchmark(""))
    both = '"Evaluation at both decodings"'
    if decoding is None and beside is None:
        return f"at the shared decoding ({shared})"
    if decoding is None:
        own = _decoding_words(paper.params.eval.for_benchmark("", beside))
        return f"at the shared decoding ({shared}), which the verdicts read; the paper's `{beside}` ({own}) beside"
    own = _decoding_words(paper.params.eval.for_benchmark("", decoding))
    return f"at the paper's decoding `{decoding}` ({own}); at the shared one ({shared}) in {both}"


TRAINING_SET = (
    "TEPO's runs train on the `tepo` set: the problems whose base-policy groups mix correct and wrong "
    "answers, selected once before training (the offline analogue of the paper's online DAPO dynamic "
    "sampling). That changes the task as well as the method: a comparison against a run on the full set "
    "differs in both, which is why TEPO's baselines train on the same set."
)
GLOBAL_KL = (
    "The paper contradicts itself on a global KL: sec. 3.2.1's remark says the \"KL-Divergence constraint "
    'preserves stability while hurts performance", App. D that "adding a global KL-Divergence term often '
    'degrades stability". Both are tested on the same pair (the global-KL run at beta 0.001 against '
    "TEPO-w/o. KL, reward volatility), so at most one of `kl_remark_stability` and `kl_degrades_stability` "
    "can hold."
)


def discussion_notes(paper) -> list[str]:
    """The Discussion's paper-specific paragraphs (after the generated lists): the mechanism, each explanation
    with the numbers from the runs that support it (computed, not typed); a note the runs cannot give says why."""
    notes = []
    measured = (note_trust_region, note_sensitivity, note_structure, note_learning, note_panel_a)
    for note in (TRAINING_SET, *measured, GLOBAL_KL, note_decoding):
        try:
            notes.append(note if isinstance(note, str) else note(paper))
        except NotTestable as reason:
            notes.append(f"({note.__doc__.splitlines()[0]} Not available: {reason}.)")
    return notes


def tail_accuracy(history) -> float:
    """A seed's rollout accuracy over the run's last batches (``end_mean``)."""
    return end_mean(history, "accuracy")


def note_trust_region(paper) -> str:
    """TEPO's trust region."""
    r, per_seed = paper.runs, paper.results.per_seed
    share, peak = per_seed(r.tepo, measures.excursion_share), per_seed(r.tepo, measures.kl_max)
    w_min, w_max = per_seed(r.tepo, measures.w_min), per_seed(r.tepo, measures.w_max)
    clip = per_seed(r.tepo, measures.clipped)
    beta_1 = measures.global_kl(paper, 1.0)
    acc_tepo = per_seed(r.tepo, tail_accuracy)
    acc_b1 = per_seed(beta_1, tail_accuracy)
    wmin_b1 = per_seed(beta_1, measures.w_min)
    both = [seed for seed in paper.results.seeds_of(beta_1) if seed in paper.results.seeds_of(r.tepo)]
    better = int(np.sum(per_seed(beta_1, tail_accuracy, both) > per_seed(r.tepo, tail_accuracy, both)))
    eps = (paper.hparam(r.tepo, "eps_low"), paper.hparam(r.tepo, "eps_high"))
    held_out = paper.compare(beta_1, r.tepo, ACCURACY, differs_in=("method.mask_scope", "method.beta"))
    grad = measures.history_log_ratio(paper, measures.grad_norm)
    return (
        f"Why TEPO loses to its baselines here, as far as the runs show: its trust region is loose. Its clip acts "
        f"on the geometric-mean weight w_i at 1 - {eps[0]:g} / 1 + {eps[1]:g} (an open choice, docs/assumptions.md "
        f"TEPO choice 1), which does not bound single tokens, at the learning rate tuned on GRPO with 2 updates "
        f"per rollout batch and 8 updates here. The per-token KL to the rollout policy (`tepo/kl`, a micro-batch's "
        f"mean of the k3 estimate exp(old - logp) - (old - logp) - 1, unbounded and dominated by the few tokens "
        f"whose probability fell by orders of magnitude) exceeds {KL_EXCURSION:g} nat in {_range(share, pct=True)} "
        f"of the optimizer steps of each seed (seeds {fmt_seeds(paper.results.seeds_of(r.tepo))}), with maxima "
        f"{_list(peak, 0)} (k3 estimates, not KLs); w_i ranges over "
        f"[{w_min.min():.2f}, {w_max.max():.2f}] and the clip removes {_range(clip, pct=True, digits=1)} of the "
        f"tokens. With the KL on every token at beta 1 (`{beta_1}`, panel A) the smallest w_i stays at "
        f"{_range(wmin_b1)} and the rollout accuracy over {TAIL_LABEL} is {_list(acc_b1)} per seed, "
        f"against TEPO's {_list(acc_tepo)}: a tighter trust region trains better in {better} of {len(both)} "
        "seeds here, though on the held-out "
        f"problems the gain is not resolved yet ({held_out.detail}, paired over seeds "
        f"{fmt_seeds(held_out.seeds)}: {fmt_ci(held_out.value, held_out.ci_low, held_out.ci_high)}). TEPO's mean "
        f"gradient norm is x{_geo(np.exp(grad.per_seed)):.2f} GRPO/DAPO's (`grad_norm`); "
        "whether the loose clip carries it is read from the sensitivity runs in the next paragraph. The table "
        '"TEPO\'s trust region" gives every TEPO run.'
    )


def note_sensitivity(paper) -> str:
    """The sensitivity runs: the trust region changed, everything else TEPO's."""
    r, per_seed = paper.runs, paper.results.per_seed
    base_grad = per_seed(r.grpo_dapo, measures.grad_norm)
    parts, missing = [], []
    for key, what in (
        ("eps_gspo", "with GSPO's clip bounds on w_i"),
        ("unclipped", "without the clip (Algorithm 1)"),
        ("lr_8", "at lr/8 on both arms"),
    ):
        try:
            run, other = measures.sensitivity_runs(paper, key)
            d = measures.sensitivity(paper, key)  # NOT RUN while either arm is not made
            share, peak = per_seed(run, measures.excursion_share), per_seed(run, measures.kl_max)
            ratio = _geo(per_seed(run, measures.grad_norm) / per_seed(other, measures.grad_norm))
        except NotTestable as reason:
            cost = f", {reason.cost} (run, seed) pairs" if isinstance(reason, NotRun) else ""
            missing.append(f"{what} (`{key}`{cost})")
            continue
        failed = "; ".join(
            f"seed {seed}: {why}"
            for seed in paper.results.seeds_of(run)
            if (why := paper.results.gates.healthy(run, seed))
        )
        parts.append(
            f"{what} (`{run}` against `{other}`): held-out mean@n {fmt_ci(d.value, d.ci_low, d.ci_high)}, "
            f"above in {sum(v > 0 for v in d.per_seed)} of {len(d.per_seed)} seeds; `tepo/kl` past "
            f"{KL_EXCURSION:g} nat in {_range(share, pct=True)} of the steps (maxima {_list(peak, 1)}, k3 "
            "estimates); mean "
            f"gradient norm x{ratio:.2f} the other arm's" + (f" (failed seeds: {failed})" if failed else "")
        )
    shares = per_seed(r.tepo, measures.excursion_share)
    d = measures.versus_baseline(paper, r.grpo_dapo)
    text = (
        "The trust region changed and nothing else (papers.tepo.runs.sensitivity; the first two are declared "
        "alternatives of every claim reading TEPO, robust / hinges on in the claims table). At its default (clip "
        f"1 +- 0.2 on w_i) TEPO minus GRPO/DAPO is {fmt_ci(d.value, d.ci_low, d.ci_high)}, `tepo/kl` passes "
        f"{KL_EXCURSION:g} nat in {_range(shares, pct=True)} of the steps and the mean gradient norm is "
        f"x{_geo(per_seed(r.tepo, measures.grad_norm) / base_grad):.2f} GRPO/DAPO's; "
    )
    text += "; ".join(parts) if parts else "no sensitivity run is made yet"
    text += "."
    if missing:
        text += " Not made yet: " + "; ".join(missing) + "."
    return text


def note_structure(paper) -> str:
    """The update structure and the mask at the first update of each rollout batch."""
    r = paper.runs
    first, rest = [], []
    for run in (r.tepo, *r.kl_scope):
        pairs = np.array([measures.mask_by_update(h) for h in paper.results.seed_histories(run)])
        first.append(f"`{run}` {_range(pairs[:, 0], pct=True, digits=3)}")
        rest.append(_range(pairs[:, 1], pct=True, digits=1))
    compared = "; ".join(f"{a} at the first update vs {b} at the others" for a, b in zip(first, rest, strict=True))
    made = "; ".join(f"`{run}`: {measures.structure_of(paper, run)}" for run in (r.tepo, *r.kl_scope))
    tol = paper.hparam(r.tepo, "entropy_change_tol")
    first_dh, first_kl = (
        _range(paper.results.per_seed(r.tepo, lambda h, key=key: measures.first_update_abs(h, key)), digits=1, kind="e")
        for key in ("tepo/entropy_change_mean", "tepo/kl")
    )
    noisy = [m for m in (measures.mask_on_noise(paper, run) for run in (r.tepo, *r.kl_scope)) if m]
    if not noisy:
        verdict = (
            f"at the first update the mask selects at most {FIRST_UPDATE_MASK_MAX:.1%} of the tokens in every "
            "seed (the bound the mask claims require), the few tokens whose rounding passes the tolerance."
        )
    else:
        verdict = (
            f"at the first update the mask still selects tokens ({'; '.join(noisy)}): single tokens' |dH| passes "
            "the tolerance though the signed means do not (a mean of signed differences can cancel)."
        )
    return (
        f"The paper's 8 updates per rollout batch are {PAPER_STRUCTURE}, and so are params.yaml's; the runs' "
        f"histories were made with (as each seed's training recorded) {made}. With 2 passes the mask sees a "
        "token's own update from the second pass on. At the first update of each rollout batch the policy is the "
        f"rollout policy: there `tepo/kl` averages {first_kl} in absolute value and the micro-batch's signed mean "
        f"of dH (`tepo/entropy_change_mean`) {first_dh} in absolute value per seed of `{r.tepo}` (dH there is the "
        f"sampler's entropy against the training forward pass's), against the tolerance `entropy_change_tol` "
        f"{tol:g}. The mask fraction (`tepo/mask_frac`, per seed) is {compared}: {verdict} The claims about which "
        f"tokens the mask selects (panel E, `panel_e_drop`, `mask_entropy`) are judged on seeds made at "
        f"{PAPER_STRUCTURE} whose mask selects at most {FIRST_UPDATE_MASK_MAX:.1%} of the tokens at the first "
        "update, NOT RUN otherwise. `abrupt_updates` is judged whatever the structure: it asks whether the KL term "
        "keeps the policy nearer the rollout policy (the clip's share of tokens), whichever tokens the mask selects."
    )


def note_learning(paper) -> str:
    """How much TEPO learned."""
    r, per_seed = paper.runs, paper.results.per_seed
    reward_t, reward_d = per_seed(r.tepo, measures.reward), per_seed(r.grpo_dapo, measures.reward)
    kept_t, kept_d = per_seed(r.tepo, entropy_retained), per_seed(r.grpo_dapo, entropy_retained)
    d = measures.versus_baseline(paper, r.grpo_dapo)
    signs = ", ".join(f"seed {s}: {format_number(v)}" for s, v in zip(d.seeds, d.per_seed, strict=True))
    return (
        f"TEPO keeps more rollout entropy than GRPO/DAPO (x{_geo(kept_t):.3f} vs x{_geo(kept_d):.3f} of the first "
        f"batch, geometric means), but it also learned less: its mean training reward is {reward_t.mean():.3f} "
        f"against {reward_d.mean():.3f}. Entropy kept by a policy that moved less is partly entropy not spent, so "
        "TEPO's larger entropy retained (`exploration`) is weak evidence for the mechanism even where the "
        "`learned` gate passes (it asks only for a quarter of GRPO/DAPO's gain). Held-out mean@n, TEPO minus "
        f"GRPO/DAPO per seed: {signs}: TEPO is below in {sum(v < 0 for v in d.per_seed)} of {len(d.per_seed)} "
        "seeds, so the paper's 'consistent trend' (`seed_consistency`) runs the other way here."
    )


def note_panel_a(paper) -> str:
    """Panel A per seed."""
    parts, majority, n = [], [], len(paper.runs.global_kl)
    for run in paper.runs.global_kl:
        d = measures.versus_no_kl(paper, run, "method.beta")
        above = sum(v > 0 for v in d.per_seed)
        beta = paper.hparam(run, "beta")
        if above * 2 > len(d.per_seed):
            majority.append(f"{beta:g}")
        parts.append(f"beta {beta:g}: {above} of {len(d.per_seed)} ({', '.join(format_number(v) for v in d.per_seed)})")
    return (
        "Panel A per seed (mean@n of the global-KL run minus TEPO-w/o. KL; seeds above / seeds, then each seed): "
        + "; ".join(parts)
        + f". A KL on every token beats no KL in most seeds at {len(majority)} of the {n} betas"
        + (f" ({', '.join(majority)})" if majority else "")
        + "; the paper reports a drop at every beta (and 0% at beta 1)."
    )


def note_decoding(paper) -> str:
    """The two decodings: the verdicts' (shared) and the paper's (greedy) with the ceiling it sits at."""
    r, own = paper.runs, paper.results.beside
    if own is None:
        raise NotTestable("TEPO's verdicts read its own decoding: no ceiling is stated")
    rows = [r.grpo_dapo, *r.baselines, r.tepo]
    shared = {run: paper.results.eval_summary(run, ACCURACY)[0] for run in [r.base, *rows]}
    d_shared = measures.versus_baseline(paper, r.grpo_dapo)
    with paper.results.at_decoding(own):
        greedy = {run: paper.results.eval_summary(run, ACCURACY)[0] for run in [r.base, *rows]}
        d_own = measures.versus_baseline(paper, r.grpo_dapo)
    ceiling = measures.greedy_ceiling(paper)
    trained = list(dict.fromkeys([*rows, *paper.trained_runs()]))
    at_or_below = [run for run in trained if measures.at_paper_decoding(paper, run)[0] <= ceiling.mean()]
    words = _decoding_words(paper.params.eval.for_benchmark("", own))
    shared_words = _decoding_words(paper.params.eval.for_benchmark(""))
    fixed = paper.decoding_choice
    return (
        f"The two decodings. The verdicts read the shared decoding ({shared_words}); the paper's `{own}` ({words}; "
        "the paper: greedy on MATH-500, Minerva and OlympiadBench, T 0.6 with 32 samples on AIME/AMC, which the "
        f"testbed's one held-out set does not have) is shown beside ({fixed.at}: {fixed.what}). At `{own}` the base "
        f"policy's mean@1 is {ceiling.mean():.3f} in the mean (per seed {', '.join(f'{v:.3f}' for v in ceiling)}), "
        "the share of plain sums: its greedy path solves every plain sum and no trap, so that level is a ceiling the "
        f"task sets, and {len(at_or_below)} of the {len(trained)} trained runs here end at or below it. Sampled, "
        f"the base's mean@n is {shared[r.base]:.3f} and GRPO/DAPO's {shared[r.grpo_dapo]:.3f} "
        f"({shared[r.grpo_dapo] - shared[r.base]:+.3f}; at `{own}` {greedy[r.grpo_dapo] - greedy[r.base]:+.3f}). "
        f"TEPO minus GRPO/DAPO is {fmt_ci(d_shared.value, d_shared.ci_low, d_shared.ci_high)} at the shared decoding "
        f"and {fmt_ci(d_own.value, d_own.ci_low, d_own.ci_high)} at `{own}`."
    )


def _range(values, pct: bool = False, digits: int = 2, kind: str = "f") -> str:
    """'lo-hi' of ``values`` (``kind`` e: scientific), in percent with ``pct``."""
    lo, hi = float(np.min(values)), float(np.max(values))
    if pct:
        return f"{100 * lo:.{digits}f}-{100 * hi:.{digits}f}%"
    return f"{lo:.{digits}{kind}}-{hi:.{digits}{kind}}"


def _list(values, digits: int = 3) -> str:
    return " / ".join(f"{v:.{digits}f}" for v in values)


def _geo(values) -> float:
    """The geometric mean of positive ratios (on the log scale ratios are compared on)."""
    return float(np.exp(np.mean(log_ratio(values, 1.0))))


def deficit_hinges(paper) -> str:
    """Evidence of the root cause 'one comparison, TEPO minus GRPO/DAPO': its size at the default clip and under each
    declared alternative of eq. 4's clip (eps is not given by the paper)."""
    r = paper.runs
    d = measures.versus_baseline(paper, r.grpo_dapo)
    parts = [f"TEPO minus GRPO/DAPO is {fmt_ci(d.value, d.ci_low, d.ci_high)} at eps 0.2 on w_i"]
    for name, swaps in paper.alternatives().items():
        if r.tepo in swaps:
            with paper.results.substituted(swaps):
                e = measures.versus_baseline(paper, r.grpo_dapo)
            parts.append(f"{fmt_ci(e.value, e.ci_low, e.ci_high)} under {name}")
    return f"{', '.join(parts)}: no TEPO gain, and the size of its deficit hinges on eq. 4's clip."
