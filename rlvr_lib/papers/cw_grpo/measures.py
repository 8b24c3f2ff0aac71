"""CW-GRPO's constants, quantities and claim measures (``fn(paper, ...) -> Estimate``): the entropy fluctuation (over
the run's own entropy level), the within-method correlation of fluctuation and accuracy over checkpoints, the
covariance tail in decades, the kernel's weights. Windows, entropy scales and health:
``rlvr_lib.papers.framework.measures``."""

import functools

import numpy as np
import pandas as pd
from scipy import stats

from rlvr_lib.methods.covariance import SHARE_TOP_PERCENT, share_key
from rlvr_lib.papers.framework import external, measures
from rlvr_lib.papers.framework.claims import (
    Estimate,
    NotRun,
    NotTestable,
    estimate_of,
    exact,
    not_run,
    seed_values,
    unavailable,
)
from rlvr_lib.papers.framework.results import ACCURACY, fmt_seeds

PAPER_TABLE1 = {  # cw_grpo.txt table 1: GRPO, DeepSeek-R1-Distill-Qwen-1.5B, 50 steps
    "positive": {0.01: 11.52, 1.0: 3.32, 20.0: 0.58, 40.0: 0.33, 100.0: 0.06},
    "negative": {0.01: -13.62, 1.0: -3.34, 20.0: -0.36, 40.0: -0.22, 100.0: -0.04},
}
SIDES = ("positive", "negative")
MAX_STEPS = "train.max_steps"  # what a checkpoint run differs in from the longer run of its method
ENTROPY = "entropy/mean"
# Table 1's tail, in decades: the threshold of the top TAIL_TOP% of a side's tokens over that of the top TAIL_BODY%
# (a typical token: table 1's 40% column). The top 0.01% is the single largest token of a testbed batch, and the
# "100%" column is the smallest covariance of a side, near 0 for any distribution, so neither can tell a heavy tail
# from a light one; the top 1% over the top 40% can: a Gaussian c gives GAUSSIAN_DECADES.
TAIL_TOP, TAIL_BODY = 1.0, 40.0
GAUSSIAN_DECADES = float(np.log10(stats.norm.ppf(1 - TAIL_TOP / 200) / stats.norm.ppf(1 - TAIL_BODY / 200)))
PAPER_DECADES = {  # table 1's own top 1% / top 40%, per side
    side: float(np.log10(abs(PAPER_TABLE1[side][TAIL_TOP] / PAPER_TABLE1[side][TAIL_BODY]))) for side in SIDES
}
# Fig. 3's "disproportionately dominate": the share of the total |c| of a batch that its top 1% of tokens by |c|
# carry, against what a Gaussian c gives, exp(-q^2 / 2) with q its 99.5% quantile (0.036); by at least 5 points of
# the total (the paper's fig. 3 gives no share).
GAUSSIAN_SHARE = float(np.exp(-(stats.norm.ppf(1 - SHARE_TOP_PERCENT / 200) ** 2) / 2))
SHARE_MARGIN = 0.05
HANDFUL = 0.05  # "the handful of extreme covariance tokens": under 1 in 20 of a batch's tokens down-weighted (w < 0.5)
INTACT = 0.05  # "leaves ... moderate-covariance tokens intact": the mean kernel weight within 5% of 1
GRADIENT_RATIO = "gradient_cosine/norm_ratio"  # ||g(CW-GRPO)|| / ||g(no kernel)||, same batch (log_gradient_cosine)
GRADIENT_COSINE = "gradient_cosine/weighted_vs_unweighted"
END_ACCURACY = functools.partial(measures.end_mean, key="accuracy")  # rollouts' accuracy at the training temperature
END_ENTROPY = functools.partial(measures.end_mean, key=ENTROPY)
# The project's stable band on the log scale, read from the shared measure: the log entropy retained of an entropy
# that ends at ``measures.ENTROPY_FACTOR`` x its first batch (log 2; ``measures.stable`` is the same test).
_ENDS = [1.0] + [measures.ENTROPY_FACTOR] * measures.TAIL_ROLLOUTS
STABLE_BAND = measures.log_entropy_retained(pd.DataFrame({"step": range(1, len(_ENDS) + 1), ENTROPY: _ENDS}))


class _ShareNotLogged(NotTestable):
    """The run predates the logged top-1% share of |c| (``analysis.covariance.share_metrics``)."""


def checkpoint_methods(runs) -> tuple[tuple[str, list[str]], ...]:
    """(label, checkpoint runs) of GRPO and of CW-GRPO (table 3's rows)."""
    return ("GRPO", runs.grpo_checkpoints), ("CW-GRPO", runs.cw_grpo_checkpoints)


def fluctuation(history: pd.DataFrame) -> float:
    """The paper's "entropy fluctuation" as declared here: the mean |change of the rollout entropy from one rollout
    batch to the next| over the run's mean rollout entropy (per-batch sampling noise scales with the entropy level,
    so the step-to-step change is read relative to it)."""
    series = measures.rollouts(history, ENTROPY)
    return float(series.diff().abs().mean() / series.mean())


def fluctuation_over_first(history: pd.DataFrame) -> float:
    """The round-3 reading (evidence only): mean |step-to-step change| over the first rollout batch's entropy,
    which tracks the entropy level (review R3-C2: r = 0.87 with mean H / H_1 over 21 run-seeds)."""
    series = measures.rollouts(history, ENTROPY)
    first = measures.end_mean(history, ENTROPY) / measures.entropy_retained(history)
    return float(series.diff().abs().mean() / first)


def tail_decades(table: pd.DataFrame, side: str) -> float:
    """Decades between the top ``TAIL_TOP``% and the top ``TAIL_BODY``% covariance thresholds of one seed's table 1,
    on ``side`` (positive or negative)."""
    return float(np.log10(abs(table.loc[side, f"top {TAIL_TOP:g}%"] / table.loc[side, f"top {TAIL_BODY:g}%"])))


def full_range_decades(table: pd.DataFrame) -> float:
    """Decades between table 1's top 0.01% and its "100%" threshold (the smallest covariance of a side), the smaller
    side: evidence only (the smallest of thousands of continuous values is near 0 whatever the tail)."""
    return float(np.log10(min(abs(table.loc[side, "top 0.01%"] / table.loc[side, "top 100%"]) for side in SIDES)))


def spearman_per_seed(fluct: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Per seed (rows), Spearman's rho of fluctuation and accuracy over the checkpoint runs (columns)."""
    return np.asarray([stats.spearmanr(f, a).statistic for f, a in zip(fluct, accuracy, strict=True)], dtype=float)


def pearson_per_seed(fluct: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Per seed (rows), Pearson's r of fluctuation and accuracy over one method's checkpoints (columns): over three
    checkpoints a rank correlation takes only four values (-1, -0.5, 0.5, 1), a zero-width interval when the seeds
    agree, so the within-method test uses r, which is continuous."""
    return np.asarray([stats.pearsonr(f, a).statistic for f, a in zip(fluct, accuracy, strict=True)], dtype=float)


def covariance_table(paper, run: str, percents=None, steps: slice | None = None) -> list[pd.DataFrame]:
    """Table 1 of ``run`` per seed (``percents``: the settings' top percents; ``steps``: all): rows positive /
    negative, one column per top percent (NotTestable when the run did not log them)."""
    prefix, percents = paper.params.runs[run].method, percents or paper.settings.covariance_top_percents
    return [external.covariance_percentile_table(h, prefix, percents, steps) for h in paper.results.seed_histories(run)]


# ----------------------------------------------------------------------------- the claims' measures
def tail_excess(paper, run: str, side: str) -> Estimate:
    """``heavy_tail_<side>``: per seed, table 1's tail on ``side`` in decades beyond a Gaussian c's."""
    tables = covariance_table(paper, run)
    decades = np.asarray([tail_decades(t, side) for t in tables]) - GAUSSIAN_DECADES
    # the paper's table 1 is GRPO's first 50 of its 200 steps (table 3's budget): the same share of ours
    last = measures.step_at_share(paper.results.max_steps(run), measures.paper_share(50, 200))
    early_tables = covariance_table(paper, run, [TAIL_TOP, TAIL_BODY], slice(1, last))
    early = [tail_decades(t, side) - GAUSSIAN_DECADES for t in early_tables]
    return estimate_of(
        decades,
        detail=f"{run}, {side} side: per seed {np.round(decades + GAUSSIAN_DECADES, 3).tolist()} decades (Gaussian "
        f"{GAUSSIAN_DECADES:.3f}); top 0.01% over all (round 3's reading, which any continuous c passes): "
        f"{np.round([full_range_decades(t) for t in tables], 2).tolist()} decades; over steps 1-{last} (the "
        f"paper's 50 of 200): {np.round(early, 3).tolist()} beyond the Gaussian",
        seeds=paper.results.seeds_of(run),
    )


def fluctuation_and_accuracy(paper, runs: list[str]) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The seeds every run of ``runs`` has, and per seed (rows) and run (columns) its fluctuation and mean@n."""
    seeds = paper.results.common_seeds(*runs)
    fluct = np.stack([paper.results.per_seed(run, fluctuation, seeds) for run in runs], axis=1)
    accuracy = np.stack([seed_values(paper.results.eval_table(run, ACCURACY, seeds)) for run in runs], axis=1)
    return seeds, fluct, accuracy


def within_method_correlation(paper, runs: list[str]) -> Estimate:
    """``entropy_correlates``' parts: per seed, Pearson's r of fluctuation and mean@n over one method's checkpoints."""
    seeds, fluct, accuracy = fluctuation_and_accuracy(paper, runs)
    r = pearson_per_seed(fluct, accuracy)
    ranks = np.round(spearman_per_seed(fluct, accuracy), 2).tolist()
    return estimate_of(
        r,
        detail=f"r per seed {np.round(r, 3).tolist()} over {len(runs)} checkpoints, seeds {seeds}; Spearman {ranks}",
        level_bounds=(-1.0, 1.0),
        seeds=seeds,
    )


def distinct_history(paper, a: str, b: str, fn) -> Estimate:
    """``compare_history`` of two runs that must be two (a reduced protocol may stand one run in for both)."""
    if paper.results.resolve(a) == paper.results.resolve(b):
        unavailable(f"'{a}' and '{b}' read the same run here: the comparison would compare a run with itself")
    return paper.results.compare_history(a, b, fn, digits=3)


def scope_effect(paper, scope_batch: str, default: str) -> Estimate:
    """``hyperparameter_free``: mean@n of the scope-batch run minus the default's. Under the scope alternative
    (which reads the scope-batch run for the default) the claim would compare a run with itself: not
    applicable there."""
    if paper.results.resolve(scope_batch) == paper.results.resolve(default):
        unavailable("under the scope alternative this claim compares the alternative's run with itself")
    return paper.compare(scope_batch, default, ACCURACY, differs_in=("method.scope",))


def tail_share(paper, run: str) -> Estimate:
    """``heavy_tail_share``: per seed, the mean over rollout batches of the top-1% share of |c| minus a Gaussian
    c's; NOT RUN while the run's history predates the logged share."""
    key = f"grpo/{share_key()}"

    def share(h: pd.DataFrame) -> float:
        if key not in h.columns or h[key].isna().all():
            raise _ShareNotLogged(key)
        return measures.whole_mean(h, key) - GAUSSIAN_SHARE

    try:
        return paper.single_run(run, share)
    except (_ShareNotLogged, NotRun):  # seeds trained before the share was logged, or not trained yet
        not_run(
            f"{run} logs the covariance thresholds of table 1, not the share of the total |covariance| the top "
            f"tokens carry (fig. 3): `{key}` (the sum of |c| over the top 1% of tokens over the sum over all, "
            f"each rollout batch), which `log_percentiles` now logs: {run} must be trained again (seeds "
            f"{fmt_seeds(paper.params.runs[run].seeds)})",
            len(paper.params.runs[run].seeds),
        )


# ----------------------------------------------------------------------------- sec. 2.3: the weights' normalisation
NORMALISED_TOLERANCE = 1e-9  # sec. 2.3 checked in float64: a relative error this small is none


def weights_normalised(paper, run: str) -> Estimate:
    """Sec. 2.3's "to maintain the expected loss, we normalize the weights" on the method code: the largest
    |sum of w_tilde over a scope's tokens / N - 1| (N its token count), ``rlvr_lib.methods.cw_grpo`` on a random
    batch with ``run``'s settings (exact)."""
    sums, counts = normalisation_check(paper.params, run)
    return exact(
        float(np.abs(sums / counts - 1).max()),
        detail=f"per-scope sums of w_tilde {np.round(sums, 9).tolist()} against N {counts.astype(int).tolist()}",
    )


def normalisation_check(params, run: str, groups: int = 4, size: int = 6, length: int = 12):
    """(sums of w_tilde, token counts N) per scope segment of ``run``'s kernel (``scope``, ``adv_centering``,
    ``std_kind``) on ``groups`` random groups of ``size`` responses (random lengths, rewards, log-probs, float64)."""
    import torch

    from rlvr_lib.methods import build_method
    from rlvr_lib.methods.core import group_mean_std, group_sum
    from rlvr_lib.methods.cw_grpo import covariance_weighted_advantages, scope_index

    spec = params.runs[run]
    if spec.method != "cw_grpo":  # e.g. a smoke protocol's stand-in run: no covariance kernel to check
        raise NotTestable(f"{run} trains method {spec.method}, not cw_grpo: no covariance-weight kernel to check")
    cfg = build_method(spec.method, spec.hparams).cfg
    g = torch.Generator().manual_seed(0)
    batch = groups * size
    group_ids = torch.arange(groups).repeat_interleave(size)
    lengths = torch.randint(3, length + 1, (batch,), generator=g)
    mask = (torch.arange(length)[None, :] < lengths[:, None]).double()
    rewards = torch.randint(0, 2, (batch,), generator=g).double()
    rewards[:size] = torch.tensor([1.0, 0.0] * (size // 2))  # a mixed group at least
    mean, std = group_mean_std(rewards, group_ids, groups)
    seq_adv = (rewards - mean[group_ids]) / (std[group_ids] + 1e-4)
    logps = -torch.rand(batch, length, generator=g, dtype=torch.float64) * 3
    index, n = scope_index(group_ids, cfg.scope)
    _, parts = covariance_weighted_advantages(
        logps, seq_adv, mask, index, n, adv_centering=cfg.adv_centering, std_kind=cfg.std_kind
    )
    sums = group_sum((parts["w_tilde"] * mask).sum(-1), index, n)
    return sums.numpy(), group_sum(mask.sum(-1), index, n).numpy()


# ----------------------------------------------------------------------------- table 3: the premise of the degradation
PREMISE_ABSENT = "premise absent"  # the kind of a claim whose stated cause never occurs on the testbed


@measures.equal_windows
def end_entropy(history: pd.DataFrame) -> float:
    """Rollout entropy over the last rollout batches before a checkpoint (a window of equal length at each)."""
    return measures.end_mean(history, ENTROPY)


def degradation(paper, checkpoints: list[str]) -> Estimate:
    """``grpo_degrades``: mean@n of the last checkpoint run minus the first, paired by seed, where its premise holds:
    GRPO's entropy unstable across the checkpoints (some seed's end entropy at a later checkpoint outside x2 of its
    first checkpoint's, the project's stable band). Without it the claim's cause is absent: NOT TESTABLE HERE
    (``PREMISE_ABSENT``), the difference and the entropies in the reason."""
    first, last = checkpoints[0], checkpoints[-1]
    seeds = paper.results.common_seeds(*checkpoints)
    ends = np.array([paper.results.per_seed(run, end_entropy, seeds) for run in checkpoints])  # (C, S)
    ratios = ends[1:] / ends[0]
    swing = float(max(ratios.max(), 1 / ratios.min()))  # the largest change, up or down, as a factor
    d = paper.compare(last, first, ACCURACY, differs_in=(MAX_STEPS,))
    if swing <= measures.ENTROPY_FACTOR:
        unavailable(
            f"the paper's cause, GRPO's entropy instability, never occurs here: its rollout entropy at the "
            f"checkpoints {' / '.join(f'{e:.3f}' for e in ends.mean(axis=1))} (mean over seeds {fmt_seeds(seeds)}; "
            f"the largest change from the first checkpoint x{swing:.2f}, inside x2 in every seed); mean@n "
            f"of {last} minus {first} {d.value:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]",
            PREMISE_ABSENT,
        )
    return d
