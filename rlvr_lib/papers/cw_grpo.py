"""CW-GRPO (cw_grpo.txt, arXiv 2605.11538) on the testbed: table 2 (Base, GRPO, Clip-Cov, CW-GRPO at the paper's
step-100 checkpoint), fig. 1 (entropy, per seed), table 1 / fig. 3 (token covariance percentiles) and table 3
(accuracy at three checkpoints); the kernel's weights from the logs, and the sensitivity runs.

Every window, entropy scale and health notion comes from ``rlvr_lib.papers.measures`` and ``gates``; the module's own
quantities are the paper's: the entropy fluctuation (normalised by the run's own entropy level), the within-method
rank correlation of fluctuation and accuracy over checkpoints, the covariance tail in decades, and the kernel's
weight shares."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from .. import plots
from ..analysis.covariance import SHARE_TOP_PERCENT, share_key
from . import external, measures
from .base import MISSING, PaperBase, _decoding_words, experiment, fmt, fmt_ci
from .claims import Estimate, NotRun, NotTestable, estimate_of, not_run, seed_values, unavailable
from .guard import METHOD, settings_difference
from .results import ACCURACY

PAPER_TABLE2 = {  # cw_grpo.txt table 2, Avg. of five benchmarks, pass@1 (%)
    "Base": "48.9 (1.5B) / 41.4 (7B)",
    "GRPO": "52.6 / 44.1",
    "Clip-Cov": "53.6 / 44.7",
    "CW-GRPO": "55.3 / 46.7",
}
PAPER_TABLE1 = {  # cw_grpo.txt table 1: GRPO, DeepSeek-R1-Distill-Qwen-1.5B, 50 steps
    "positive": {0.01: 11.52, 1.0: 3.32, 20.0: 0.58, 40.0: 0.33, 100.0: 0.06},
    "negative": {0.01: -13.62, 1.0: -3.34, 20.0: -0.36, 40.0: -0.22, 100.0: -0.04},
}
PAPER_TABLE3 = {  # cw_grpo.txt table 3: MATH-500 accuracy (%) at steps 100 / 150 / 200
    "GRPO": [85.0, 82.0, 79.8],
    "CW-GRPO": [87.0, 86.2, 86.4],
}
PAPER_TABLE3_OLYMPIAD = {  # its OlympiadBench column: no testbed counterpart
    "GRPO": [49.9, 49.9, 47.8],
    "CW-GRPO": [52.0, 53.9, 53.5],
}
MAX_STEPS = "train.max_steps"  # what a checkpoint run differs in from the longer run of its method
ENTROPY = "entropy/mean"
# Table 1's tail, in decades: the threshold of the top TAIL_TOP% of a side's tokens over that of the top TAIL_BODY%
# (a typical token: table 1's 40% column). The top 0.01% is the single largest token of a testbed batch, and the
# "100%" column is the smallest covariance of a side, near 0 for any distribution, so neither can tell a heavy tail
# from a light one; the top 1% over the top 40% can: a Gaussian c gives GAUSSIAN_DECADES.
TAIL_TOP, TAIL_BODY = 1.0, 40.0
GAUSSIAN_DECADES = float(np.log10(stats.norm.ppf(1 - TAIL_TOP / 200) / stats.norm.ppf(1 - TAIL_BODY / 200)))
PAPER_DECADES = {  # table 1's own top 1% / top 40%, per side
    side: float(np.log10(abs(PAPER_TABLE1[side][TAIL_TOP] / PAPER_TABLE1[side][TAIL_BODY])))
    for side in ("positive", "negative")
}
# Fig. 3's "disproportionately dominate": the share of the total |c| of a batch that its top 1% of tokens by |c|
# carry, against what a Gaussian c gives, exp(-q^2 / 2) with q its 99.5% quantile (0.036); by at least 5 points of
# the total (the paper's fig. 3 gives no share).
GAUSSIAN_SHARE = float(np.exp(-(stats.norm.ppf(1 - SHARE_TOP_PERCENT / 200) ** 2) / 2))
SHARE_MARGIN = 0.05
HANDFUL = 0.05  # "the handful of extreme covariance tokens": under 1 in 20 of a batch's tokens down-weighted (w < 0.5)
INTACT = 0.05  # "leaves ... moderate-covariance tokens intact": the mean kernel weight within 5% of 1
# The second evaluation at the paper's training temperature 0.7 (cw_grpo.txt sec. 3.1; the paper gives no
# evaluation temperature): the trained models' evaluations it needs, per run, with the base policy's for the gates.
GRADIENT_RATIO = "gradient_cosine/norm_ratio"  # ||g(CW-GRPO)|| / ||g(no kernel)||, same batch (log_gradient_cosine)
GRADIENT_COSINE = "gradient_cosine/weighted_vs_unweighted"


def _stable_band() -> float:
    """The project's stable band on the log scale, read from the shared measure: the log entropy retained of an
    entropy that ends at ``measures.ENTROPY_FACTOR`` x its first batch (log 2; ``measures.stable`` is the same test)."""
    ends = [1.0] + [measures.ENTROPY_FACTOR] * measures.TAIL_ROLLOUTS
    return measures.log_entropy_retained(pd.DataFrame({"step": range(1, len(ends) + 1), ENTROPY: ends}))


STABLE_BAND = _stable_band()


class _ShareNotLogged(NotTestable):
    """The run predates the logged top-1% share of |c| (``analysis.covariance.share_metrics``)."""


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


def tail_decades(table: pd.DataFrame) -> float:
    """Decades between the top ``TAIL_TOP``% and the top ``TAIL_BODY``% covariance thresholds of one seed's table 1,
    the smaller of the two sides (both sides must show the tail)."""
    sides = [
        abs(table.loc[side, f"top {TAIL_TOP:g}%"] / table.loc[side, f"top {TAIL_BODY:g}%"])
        for side in ("positive", "negative")
    ]
    return float(np.log10(min(sides)))


def full_range_decades(table: pd.DataFrame) -> float:
    """Decades between table 1's top 0.01% and its "100%" threshold (the smallest covariance of a side), the smaller
    side: evidence only (the smallest of thousands of continuous values is near 0 whatever the tail)."""
    sides = [abs(table.loc[side, "top 0.01%"] / table.loc[side, "top 100%"]) for side in ("positive", "negative")]
    return float(np.log10(min(sides)))


def spearman_per_seed(fluct: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Per seed (rows), Spearman's rho of fluctuation and accuracy over the checkpoint runs (columns)."""
    return np.asarray([stats.spearmanr(f, a).statistic for f, a in zip(fluct, accuracy, strict=True)], dtype=float)


def pearson_per_seed(fluct: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Per seed (rows), Pearson's r of fluctuation and accuracy over one method's checkpoints (columns): over three
    checkpoints a rank correlation takes only four values (-1, -0.5, 0.5, 1), a zero-width interval when the seeds
    agree, so the within-method test uses r, which is continuous."""
    return np.asarray([stats.pearsonr(f, a).statistic for f, a in zip(fluct, accuracy, strict=True)], dtype=float)


class Paper(PaperBase):
    name = "cw_grpo"
    title = "CW-GRPO: Covariance-Aware GRPO with Gaussian-Kernel Advantage Reweighting — replication on the testbed"
    source = "../shared/papers/cw_grpo.txt"
    intro = (
        "CW-GRPO (Wang et al., arXiv 2605.11538) computes each token's covariance c = (log pi - mean log pi)(A - mean "
        "A), down-weights extreme ones with a Gaussian kernel w = exp(-c^2 / 2 sigma^2) (sigma: the std of c), "
        "renormalises the weights to the token count and uses w A in GRPO's loss (sec. 2.3). The paper reports "
        "higher accuracy than GRPO and Clip-Cov (table 2), steadier entropy (fig. 1), a heavy tail of token "
        "covariances under GRPO (table 1, fig. 3), and that GRPO degrades at later checkpoints while CW-GRPO does "
        "not (table 3)."
    )

    def null_run(self) -> str | None:
        """The paper's GRPO (``grpo_cw``: its KL term, one update per rollout batch, G 12, T 0.7)."""
        return self.runs.grpo

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        """Every claim of cw_grpo.txt's introduction (sec. 1), method (sec. 2.2-2.3) and results (sec. 3.2), in the
        paper's order. Quotes keep the text file's escapes (``\\-``, ``\\.``, ``\\(``): they are its words as
        stored."""
        r = self.runs
        g90, c90 = r.grpo_checkpoints[0], r.cw_grpo_checkpoints[0]
        self.conjunction(
            key="heavy_tail",
            quote=r"we observe that a small fraction of tokens possess large\-magnitude covariance values, which "
            r"disproportionately dominate the overall covariance and precipitate unstable entropy dynamics",
            source="sec. 2.2, table 1, fig. 3",
            paper_value="table 1: top 0.01% 11.52 / -13.62, top 1% 3.32 / -3.34, top 40% 0.33 / -0.22, all 0.06 / "
            "-0.04 (GRPO, 50 steps)",
            ours="GRPO's covariance tail in decades (table 1), the share it carries, and its effect on entropy",
        )
        # "large-magnitude": table 1's top 1% threshold over its top 40% (a typical token), in decades, against what
        # a Gaussian c gives (0.486); the paper's own table is 0.52 decades (positive) and 0.83 (negative) beyond it.
        self.claim(
            key="heavy_tail_magnitude",
            quote=r"a small fraction of tokens possess large\-magnitude covariance values",
            source="sec. 2.2, table 1",
            paper_value=f"table 1: top 1% / top 40% = {10 ** PAPER_DECADES['positive']:.1f}x (positive), "
            f"{10 ** PAPER_DECADES['negative']:.1f}x (negative): {PAPER_DECADES['positive']:.2f} / "
            f"{PAPER_DECADES['negative']:.2f} decades; a Gaussian c gives {GAUSSIAN_DECADES:.3f}",
            ours=f"decades between the top {TAIL_TOP:g}% and the top {TAIL_BODY:g}% covariance thresholds of "
            f"{r.grpo} (table 1 per seed, the smaller side) minus a Gaussian's {GAUSSIAN_DECADES:.3f}",
            direction="greater",
            margin=0.25,
            compute=lambda: self._tail_excess(r.grpo),
            paper_effect=min(PAPER_DECADES.values()) - GAUSSIAN_DECADES,
            null=None,  # an observation about GRPO itself
            part_of="heavy_tail",
        )
        self.claim(
            key="heavy_tail_share",
            quote="which disproportionately dominate the overall covariance",
            source="sec. 2.2, fig. 3 (cumulative contribution)",
            paper_value="fig. 3 only (no share given)",
            ours=f"share of the total |c| of a rollout batch carried by its top {SHARE_TOP_PERCENT:g}% of tokens by "
            f"|c| (`grpo/{share_key()}`, both signs), mean over training, per seed, of {r.grpo}, minus a Gaussian "
            f"c's {GAUSSIAN_SHARE:.3f} (a light tail's top 1% already carries that much)",
            direction="greater",
            margin=SHARE_MARGIN,
            compute=lambda: self._tail_share(r.grpo),
            null=None,
            part_of="heavy_tail",
        )
        self.claim(
            key="heavy_tail_entropy",
            quote="precipitate unstable entropy dynamics",
            source="sec. 2.2",
            paper_value="no number",
            ours=f"entropy fluctuation (`fluctuation`: mean |change of the rollout entropy between batches| over its "
            f"mean) of {r.clip_cov_extreme} (GRPO with the updates of up to 1% of the tokens, those of covariance "
            f"above 0.5, detached: Clip-Cov at {r.clip_cov}'s settings) minus {r.grpo}'s, paired by seed: removing "
            "the extreme tokens steadies the entropy",
            direction="less",
            margin=0.05,  # as entropy_grpo_unstable: 0.05 of the entropy level per rollout batch
            compute=lambda: self._distinct_history(r.clip_cov_extreme, r.grpo, fluctuation),
            null=None,
            part_of="heavy_tail",
        )
        # The kernel's own description (sec. 2.3), checked on the weights it logs each rollout batch of the table-2
        # run: a property of the mechanism on every batch, true or false whatever the run learned (no gate).
        self.conjunction(
            key="kernel_filters",
            quote="The Gaussian kernel softly filters out the handful of extreme covariance tokens ... yet leaves "
            r"informative moderate\-covariance tokens intact",
            source="sec. 2.3",
            paper_value="no number",
            ours=f"{c90}'s kernel weights: the share of tokens it down-weights, and the mean weight",
        )
        self.claim(
            key="kernel_handful",
            quote="softly filters out the handful of extreme covariance tokens",
            source="sec. 2.3",
            paper_value="no number ('the handful')",
            ours=f"share of a rollout batch's tokens with kernel weight w < 0.5 (`cw_grpo/w_below_half_frac`), mean "
            f"over training, per seed, of {c90}: every seed under {HANDFUL:g}",
            direction="less",
            margin=0.0,
            compute=lambda: self._weights(c90, "cw_grpo/w_below_half_frac"),
            reference=HANDFUL,
            null=None,
            requires=(),
            universal=True,
            part_of="kernel_filters",
        )
        self.claim(
            key="kernel_intact",
            quote=r"leaves informative moderate\-covariance tokens intact",
            source="sec. 2.3",
            paper_value="no number",
            ours=f"mean kernel weight w over a rollout batch's tokens (`cw_grpo/w_mean`), mean over training, minus 1, "
            f"per seed, of {c90}: every seed within ±{INTACT:g}",
            direction="equal",
            margin=INTACT,
            compute=lambda: self._weights(c90, "cw_grpo/w_mean", shift=-1.0),
            null=None,
            requires=(),
            universal=True,
            part_of="kernel_filters",
        )
        self.claim(
            key="hyperparameter_free",
            quote=r"improving the balance between exploration and exploitation in a hyperparameter\-free way",
            source="sec. 1",
            paper_value="no number",
            ours=f"mean@n of {r.scope_batch} (sigma, mean(logp), mean(A) and N over the rollout batch) minus {c90}'s "
            "(over each prompt group, the default): the kernel has no tuned constant, but the scope of its statistics "
            "is a choice the paper leaves open (docs/assumptions.md, CW-GRPO choice 1); hyperparameter-free: the "
            "result does not depend on it, within one point",
            direction="equal",
            margin=0.01,
            compute=lambda: self._scope_effect(r.scope_batch, c90),
            null=None,
        )
        # Table 2's gains over GRPO are 2.7 and 2.6 points of average pass@1; one point (0.01) is the smallest that
        # matters. The table's numbers are its step-100 checkpoint (= table 3's first row): our first checkpoint.
        acc_quote = (
            r"Our covariance\-weighted GRPO consistently outperforms vanilla GRPO across both model scales and all "
            r"evaluation benchmarks"
        )
        self.claim(
            key="acc_vs_grpo",
            quote=acc_quote,
            source="sec. 3.2, table 2",
            paper_value="Avg. 55.3 vs 52.6 (1.5B), 46.7 vs 44.1 (7B); its own table has CW-GRPO below GRPO on 1.5B "
            "AIME24 (30.0 vs 33.3) and 7B Minerva (32.0 vs 33.1)",
            ours=f"mean@n (pass@1) of {c90} minus {g90} (table 2 = the step-100 checkpoint; one "
            "scale, one evaluation set)",
            direction="greater",
            margin=0.01,
            compute=lambda: self.compare(c90, g90, ACCURACY),
            paper_effect=0.027,
            null=None,  # the contrast is GRPO itself
            measure=ACCURACY,
        )
        clip_quote = r"Clip\-Cov ... 53\.6 \(\+4\.7\) ... GRPO \+ Gaussian Reweight \(ours\) ... 55\.3 \(\+6\.4\)"
        self.claim(
            key="acc_vs_clip_cov",
            quote=clip_quote,
            source="table 2",
            paper_value="Avg. 55.3 vs 53.6 (1.5B: +1.7), 46.7 vs 44.7 (7B: +2.0)",
            ours=f"mean@n of {c90} minus {r.clip_cov_table2} (table 2's checkpoint, 90 of 180 steps)",
            direction="greater",
            margin=0.01,
            compute=lambda: self.compare(c90, r.clip_cov_table2, ACCURACY),
            paper_effect=0.017,
            null=None,
            measure=ACCURACY,
        )
        self.claim(
            key="gain_1_5b",
            quote=r"our method achieves an average improvement of \+2\.7 points over vanilla GRPO, with particularly "
            r"notable gains on AMC23",
            source="sec. 3.2, table 2",
            paper_value="55.3 - 52.6 = 2.7 (AMC23 +10.0; Minerva +2.6, about MATH-500's +2.0 and OlympiadBench's +2.1)",
            ours="not computed",
            direction="equal",
            margin=0.0,
            compute=lambda: unavailable("scale and benchmark: DeepSeek-R1-Distill-Qwen-1.5B on five named benchmarks"),
            reference=0.027,
            paper_effect=0.027,
            null=None,
        )
        self.claim(
            key="gain_7b",
            quote=r"for the 7B Qwen2\.5\-Math model, our approach delivers a \+2\.4 point improvement on average",
            source="sec. 3.2, table 2",
            paper_value="+2.4 in the text, but its table gives 46.7 - 44.1 = 2.6; table 2's '(+4.3)' over Base is "
            "46.7 - 41.4 = 5.3",
            ours="not computed",
            direction="equal",
            margin=0.0,
            compute=lambda: unavailable("scale and benchmark: Qwen2.5-Math-7B-Instruct on five named benchmarks"),
            reference=0.024,
            paper_effect=0.024,
            null=None,
        )
        self.conjunction(
            key="entropy",
            quote=r"our proposed method maintains entropy at a reasonable level, effectively balancing exploration and "
            r"exploitation, while vanilla GRPO exhibits significant entropy instability",
            source="sec. 3.2, fig. 1",
            paper_value="fig. 1 only (no number)",
            ours=f"CW-GRPO's entropy within x2 of its start at both checkpoints, in every seed, and GRPO's entropy "
            f"fluctuation above {r.cw_grpo}'s",
        )
        # "reasonable": the project's one definition of a stable entropy (measures.stable: within x2 of the start,
        # both ways), per seed ("maintains"). A seed whose entropy explodes is the evidence against the claim, so the
        # `healthy` gate (entropy peak) is not required; "learned" is: entropy kept by a policy that did not move is
        # not entropy kept by the method.
        for run, null in ((c90, g90), (r.cw_grpo, r.grpo)):
            self.claim(
                key=f"entropy_reasonable_{run}",
                quote="our proposed method maintains entropy at a reasonable level",
                source="fig. 1",
                paper_value="no number",
                ours=f"log entropy retained ({measures.TAIL_LABEL} over the first) of {run}, per seed: every seed "
                "within ±log 2 (x2 either way)",
                direction="equal",
                margin=STABLE_BAND,
                compute=lambda run=run: self.single_run(run, measures.log_entropy_retained),
                null=null,  # GRPO of the same length: does the band tell CW-GRPO from it?
                requires=("learned",),
                measure="log_entropy_retained",
                universal=True,
                part_of="entropy",
            )
        # fluctuation relative to the run's own entropy level (the paper's "fluctuation", declared here after
        # round 3); 0.05 of the level per rollout batch is the smallest difference in wobble that matters. The
        # entropy path is the evidence (an exploding CW-GRPO seed counts against the claim): no gate.
        self.claim(
            key="entropy_grpo_unstable",
            quote="vanilla GRPO exhibits significant entropy instability",
            source="fig. 1",
            paper_value="no number",
            ours=f"entropy fluctuation (mean |change between rollout batches| / mean rollout entropy) of {r.cw_grpo} "
            f"minus {r.grpo}, paired by seed",
            direction="less",
            margin=0.05,
            compute=lambda: self.results.compare_history(r.cw_grpo, r.grpo, fluctuation, digits=3),
            null=None,
            requires=(),
            part_of="entropy",
        )
        # within one method, across its checkpoints (R3-C1): between methods the correlation restates which method
        # is more accurate. A rank correlation weaker than 0.2 in size is not one that matters. Unstable, failed
        # checkpoints are data points of the claim, not reasons to withhold it: no gate.
        self.conjunction(
            key="entropy_correlates",
            quote="stable entropy correlates with better reasoning performance",
            source="sec. 3.2, table 3",
            paper_value="table 3: GRPO 85.0 / 82.0 / 79.8 with entropy 'low' then 'high'; CW-GRPO 87.0 / 86.2 / 86.4",
            ours="within each method, over its three checkpoints: the correlation of entropy fluctuation and mean@n",
        )
        for label, runs in (("grpo", r.grpo_checkpoints), ("cw_grpo", r.cw_grpo_checkpoints)):
            self.claim(
                key=f"entropy_correlates_{label}",
                quote="stable entropy correlates with better reasoning performance",
                source="sec. 3.2, table 3",
                paper_value="table 3 (no correlation given)",
                ours=f"Pearson's r, per seed, over {', '.join(runs)} (one method's checkpoints), of entropy "
                "fluctuation up to the checkpoint and mean@n (stable entropy, better accuracy: < 0)",
                direction="less",
                margin=0.2,
                compute=lambda runs=runs: self._within_method_correlation(runs),
                null=None,
                requires=(),
                part_of="entropy_correlates",
            )
        checkpoints_quote = (
            r"vanilla GRPO’s entropy instability leads to performance degradation \(from 85\.0% to 79\.8% on "
            r"MATH\-500\), while our method maintains consistent performance \(86\.2%\-87\.0%\) across all "
            r"checkpoints"
        )
        self.conjunction(
            key="checkpoints",
            quote=checkpoints_quote,
            source="sec. 3.2, table 3",
            paper_value="GRPO 85.0 -> 82.0 -> 79.8, CW-GRPO 87.0 -> 86.2 -> 86.4 (MATH-500, steps 100 / 150 / 200)",
            ours="mean@n across the checkpoint runs of GRPO and of CW-GRPO, paired by seed",
        )
        first_g, last_g = r.grpo_checkpoints[0], r.grpo_checkpoints[-1]
        # the paper's drop is 5.2 points; a drop less than half as large (or more than 1.5 times) is another size
        self.claim(
            key="grpo_degrades",
            quote=r"vanilla GRPO’s entropy instability leads to performance degradation \(from 85\.0% to 79\.8% on "
            r"MATH\-500\)",
            source="table 3",
            paper_value="79.8 - 85.0 = -5.2 (MATH-500)",
            ours=f"mean@n of {last_g} (last checkpoint) minus {first_g} (first), on the seeds both ran; the entropy "
            "cause is not tested",
            direction="equal",
            margin=0.026,
            compute=lambda: self.compare(last_g, first_g, ACCURACY, differs_in=(MAX_STEPS,)),
            reference=-0.052,
            paper_effect=-0.052,
            null=None,
            measure=ACCURACY,
            part_of="checkpoints",
        )
        first_c = r.cw_grpo_checkpoints[0]
        for later in r.cw_grpo_checkpoints[1:]:
            # the paper's checkpoints span 0.8 points; within one point (0.01) of the first is "consistent"
            self.claim(
                key=f"cw_consistent_{later}",
                quote=r"our method maintains consistent performance \(86\.2%\-87\.0%\) across all checkpoints",
                source="table 3",
                paper_value="87.0 / 86.2 / 86.4 (MATH-500)",
                ours=f"mean@n of {later} minus {first_c} (first checkpoint), on the seeds both ran",
                direction="equal",
                margin=0.01,
                compute=lambda later=later: self.compare(later, first_c, ACCURACY, differs_in=(MAX_STEPS,)),
                null=None,
                measure=ACCURACY,
                part_of="checkpoints",
            )

    # ------------------------------------------------------------------ claim quantities
    def _tail_excess(self, run: str) -> Estimate:
        tables = self.covariance_table(run)
        decades = np.asarray([tail_decades(t) for t in tables]) - GAUSSIAN_DECADES
        # the paper's table 1 is GRPO's first 50 of its 200 steps (table 3's budget): the same share of ours
        last = measures.step_at_share(self.results.max_steps(run), measures.paper_share(50, 200))
        early = [
            tail_decades(
                external.covariance_percentile_table(
                    h, self.params.runs[run].method, [TAIL_TOP, TAIL_BODY], slice(1, last)
                )
            )
            - GAUSSIAN_DECADES
            for h in self.results.seed_histories(run)
        ]
        return estimate_of(
            decades,
            detail=f"{run}: per seed {np.round(decades + GAUSSIAN_DECADES, 3).tolist()} decades (Gaussian "
            f"{GAUSSIAN_DECADES:.3f}); top 0.01% over all (round 3's reading, which any continuous c passes): "
            f"{np.round([full_range_decades(t) for t in tables], 2).tolist()} decades; over steps 1-{last} (the "
            f"paper's 50 of 200): {np.round(early, 3).tolist()} beyond the Gaussian",
            seeds=self.results.seeds_of(run),
        )

    def _weights(self, run: str, key: str, shift: float = 0.0) -> Estimate:
        values = self.results.per_seed(run, lambda h: measures.whole_mean(h, key)) + shift
        return estimate_of(
            values, detail=f"{run}: per seed {np.round(values, 4).tolist()}", seeds=self.results.seeds_of(run)
        )

    def _within_method_correlation(self, runs: list[str]) -> Estimate:
        seeds = self.results.common_seeds(*runs)
        fluct = np.stack([self.results.per_seed(run, fluctuation, seeds) for run in runs], axis=1)
        accuracy = np.stack([seed_values(self.results.eval_table(run, ACCURACY, seeds)) for run in runs], axis=1)
        r = pearson_per_seed(fluct, accuracy)
        ranks = np.round(spearman_per_seed(fluct, accuracy), 2).tolist()
        return estimate_of(
            r,
            detail=f"r per seed {np.round(r, 3).tolist()} over {len(runs)} checkpoints, seeds {seeds}; "
            f"Spearman {ranks}",
            level_bounds=(-1.0, 1.0),
            seeds=seeds,
        )

    def between_method_correlation(self) -> np.ndarray:
        """Per seed, rho over both methods' six checkpoints together (the round-3 verdict's reading: evidence)."""
        runs = [*self.runs.grpo_checkpoints, *self.runs.cw_grpo_checkpoints]
        seeds = self.results.common_seeds(*runs)
        fluct = np.stack([self.results.per_seed(run, fluctuation, seeds) for run in runs], axis=1)
        accuracy = np.stack([seed_values(self.results.eval_table(run, ACCURACY, seeds)) for run in runs], axis=1)
        return spearman_per_seed(fluct, accuracy)

    def covariance_table(self, run: str) -> list[pd.DataFrame]:
        """Table 1 of ``run`` per seed: rows positive / negative, one column per top percent (NotTestable when the
        run did not log them)."""
        prefix = self.params.runs[run].method
        return [
            external.covariance_percentile_table(h, prefix, self.settings.covariance_top_percents)
            for h in self.results.seed_histories(run)
        ]

    def discussion_notes(self) -> list[str]:
        """The Discussion's paper-specific paragraphs (after the generated lists): each explanation with the numbers
        from the runs that support it, computed here (a quantity the runs do not give leaves its paragraph out)."""
        notes = []
        for note in (self._mechanism_note, self._temperature_note, self._correlation_note):
            try:
                notes.append(note())
            except (NotTestable, KeyError, ValueError):
                continue
        return notes

    def decoding_words(self, shared: bool = False) -> str:
        """'temperature T, top-p P, n = N' of the verdicts' evaluation (``shared``: of the shared one)."""
        return _decoding_words(self.params.eval.for_benchmark("", None if shared else self.results.decoding))

    def _mean_accuracy(self, run: str, seeds, decoding: str | None) -> np.ndarray:
        """Per seed mean@n of ``run`` over ``seeds`` at ``decoding`` (None: the shared one)."""
        with self.results.at_decoding(decoding):
            return seed_values(self.results.eval_table(run, ACCURACY, seeds))

    @staticmethod
    def _span(values) -> str:
        values = np.asarray(list(values), dtype=float)
        low, high = f"{values.min():.3g}", f"{values.max():.3g}"
        return low if low == high else f"{low}-{high}"

    def _distinct_history(self, a: str, b: str, fn) -> Estimate:
        """``compare_history`` of two runs that must be two (a reduced protocol may stand one run in for both)."""
        if self.results.resolve(a) == self.results.resolve(b):
            unavailable(f"'{a}' and '{b}' read the same run here: the comparison would compare a run with itself")
        return self.results.compare_history(a, b, fn, digits=3)

    def _scope_effect(self, scope_batch: str, default: str) -> Estimate:
        """``hyperparameter_free``: mean@n of the scope-batch run minus the default's. Under the scope alternative
        (which reads the scope-batch run for the default) the claim would compare a run with itself: not
        applicable there."""
        if self.results.resolve(scope_batch) == self.results.resolve(default):
            unavailable("under the scope alternative this claim compares the alternative's run with itself")
        return self.compare(scope_batch, default, ACCURACY, differs_in=("method.scope",))

    def _tail_share(self, run: str) -> Estimate:
        """``heavy_tail_share``: per seed, the mean over rollout batches of the top-1% share of |c| minus a Gaussian
        c's; NOT RUN while the run's history predates the logged share."""
        key = f"grpo/{share_key()}"

        def share(h: pd.DataFrame) -> float:
            if key not in h.columns or h[key].isna().all():
                raise _ShareNotLogged(key)
            return measures.whole_mean(h, key) - GAUSSIAN_SHARE

        try:
            return self.single_run(run, share)
        except (_ShareNotLogged, NotRun):  # seeds trained before the share was logged, or not trained yet
            not_run(
                f"{run} logs the covariance thresholds of table 1, not the share of the total |covariance| the top "
                f"tokens carry (fig. 3): `{key}` (the sum of |c| over the top 1% of tokens over the sum over all, "
                f"each rollout batch), which `log_percentiles` now logs: {run} must be trained again (seeds "
                f"{', '.join(map(str, self.params.runs[run].seeds))})",
                len(self.params.runs[run].seeds),
            )

    def _mechanism_note(self) -> str:
        w = self.kernel_weights()
        if w is None or len(w) == 0:
            raise NotTestable("no kernel logs")
        parts = []
        for run, rows in w.groupby("run", sort=False):
            removes = rows["kernel_removes"].dropna()
            if len(removes):
                parts.append(
                    f"`{run}` on each batch against the same loss without the kernel ({len(removes)} seeds, "
                    f"`log_gradient_cosine`): the kernel removes {self._span(100 * removes)}% of the gradient norm "
                    f"(median over steps; cosine {self._span(rows['kernel_cosine'].dropna())})"
                )
            parts.append(
                f"`{run}` ({len(rows)} seeds): smallest w {self._span(rows['w_min'])}, "
                f"mean w {self._span(rows['w_mean'])}, "
                f"{self._span(100 * rows['w_below_half'])}% of tokens with w < 0.5, largest w̃ of a batch at most "
                f"{rows['w_tilde_max_max'].max():.2f}; median gradient norm {self._span(rows['grad_norm_median'])} "
                f"against GRPO's {self._span(rows['grpo_grad_norm_median'])} on the same seeds (x"
                f"{self._span(rows['grad_norm_ratio'])} smaller in every seed)"
            )
        acc = self.results.per_seed(self.runs.cw_grpo, lambda h: float(measures.window(h, "accuracy", "early").mean()))
        end = self.results.per_seed(self.runs.cw_grpo, lambda h: measures.end_mean(h, "accuracy"))
        first = w.drop_duplicates("seed")
        same = f"{int(first['same_first_batch'].sum())} of {len(first)} seeds"
        failed = self.results.gates.run_failures(self.runs.cw_grpo)
        peaked = f"{len([f for f in failed if 'peaked' in f])} of {len(self.results.seeds_of(self.runs.cw_grpo))}"
        return (
            "What the kernel does here, from its logs (table 'The kernel's weights and the gradient'): "
            + "; ".join(parts)
            + ". So the kernel zeroes a few tokens and leaves the rest near weight 1 (the renormalisation "
            f"lifts them to at most w̃ {self._span(w['w_tilde_max_median'])} on a median batch, not enough to enlarge "
            "the step), yet CW-GRPO's gradient is several times smaller than GRPO's. On the first rollout batch, "
            f"the same in both runs ({same}), the gradient norm is "
            f"x{self._span(first['grad_norm_step1_ratio'])} smaller with the kernel: reweighting the "
            f"{first['w_below_half'].mean():.1%} of tokens it puts below w 0.5 (mean over training) removes most of "
            "the gradient, so the few extreme-covariance tokens carry most of GRPO's gradient "
            "on this testbed (the kernel down-weights them; it does not only tame them). The 180-step run's rollout "
            "accuracy at the training temperature goes from "
            f"{acc.mean():.3f} (first 20% of rollout batches) to {end.mean():.3f} ({measures.TAIL_LABEL}), mean "
            "over seeds: with most of its gradient gone, CW-GRPO barely learns, and "
            f"in {peaked} seeds its rollout entropy peaks past x2 of the start (the `healthy` gate), which the KL term "
            f"(beta {self.hparam(self.runs.cw_grpo, 'beta'):g}) does not prevent."
        )

    def _temperature_note(self) -> str:
        """The evaluation decoding (R3-C3): CW-GRPO minus GRPO at the paper's decoding (the verdicts') and at the
        shared one, what each run gains from the cooler sampler, the rollouts' accuracy at the training temperature
        and the end entropy that explains the gains, all from the runs."""
        r = self.runs
        own, base = self.results.decoding, r.base
        out, narrower, same_sign, gains_more = [], [], [], []
        for cw, grpo in ((r.cw_grpo_checkpoints[0], r.grpo_checkpoints[0]), (r.cw_grpo, r.grpo)):
            seeds = self.results.common_seeds(cw, grpo)

            def end(h):
                return measures.end_mean(h, "accuracy")

            acc = {(run, at): self._mean_accuracy(run, seeds, at) for run in (cw, grpo) for at in (own, None)}
            d_own, d_shared = acc[cw, own] - acc[grpo, own], acc[cw, None] - acc[grpo, None]
            d_roll = self.results.per_seed(cw, end, seeds) - self.results.per_seed(grpo, end, seeds)
            entropy = {
                run: float(self.results.per_seed(run, lambda h: measures.end_mean(h, ENTROPY), seeds).mean())
                for run in (cw, grpo)
            }
            narrower.append(abs(d_own.mean()) < abs(d_shared.mean()))
            gains_more.append(bool(entropy[cw] > entropy[grpo] and d_own.mean() > d_shared.mean()))
            same_sign.append(bool(np.sign(d_own.mean()) == np.sign(d_shared.mean())))
            out.append(
                f"`{cw}` minus `{grpo}` ({len(seeds)} paired seeds): mean@n {d_own.mean():+.3f} at `{own}`, "
                f"{d_shared.mean():+.3f} at the shared decoding (negative in {int((d_own < 0).sum())} and "
                f"{int((d_shared < 0).sum())} of {len(seeds)} seeds), {d_roll.mean():+.3f} in rollout accuracy at "
                f"the training temperature ({measures.TAIL_LABEL}, training problems); the cooler sampler adds "
                f"{(acc[cw, own] - acc[cw, None]).mean():+.3f} to CW-GRPO and "
                f"{(acc[grpo, own] - acc[grpo, None]).mean():+.3f} "
                f"to GRPO, whose rollout entropy ends at {entropy[grpo]:.3f} against CW-GRPO's {entropy[cw]:.3f} "
                f"({measures.TAIL_LABEL})"
            )
        base_seeds = self.results.seeds_of(base)
        base_gain = (self._mean_accuracy(base, base_seeds, own) - self._mean_accuracy(base, base_seeds, None)).mean()
        return (
            f"The evaluation decoding (R3-C3): the paper trains at temperature 0.7 and gives no evaluation "
            f"temperature; the verdicts read a second evaluation of the same models at `{own}` "
            f"({self.decoding_words()}), the shared one ({self.decoding_words(shared=True)}) is their robustness "
            "column. " + "; ".join(out) + f". The base policy gains {base_gain:+.3f}. The gap is "
            f"{'narrower' if all(narrower) else 'not always narrower'} at `{own}` and "
            f"{'of the same sign' if all(same_sign) else 'not always of the same sign'} at both decodings"
            + (
                ": the higher-entropy CW-GRPO policy gains more from the cooler sampler than GRPO's lower-entropy one"
                + (", not enough to change the gap's sign." if all(same_sign) else ".")
                if all(gains_more)
                else "."
            )
        )

    def _correlation_note(self) -> str:
        between = self.between_method_correlation()
        r = self.runs
        seeds = self.results.common_seeds(*r.grpo_checkpoints, *r.cw_grpo_checkpoints)
        within = {
            label: self._within_method_correlation(runs).per_seed
            for label, runs in (("GRPO", r.grpo_checkpoints), ("CW-GRPO", r.cw_grpo_checkpoints))
        }
        per_seed = ", ".join(f"seed {s}: {v:+.2f}" for s, v in zip(seeds, between, strict=True))
        inside = "; ".join(f"{k} {', '.join(f'{v:+.2f}' for v in vals)}" for k, vals in within.items())
        acc = {
            run: float(seed_values(self.results.eval_table(run, ACCURACY, seeds)).mean())
            for run in [*r.grpo_checkpoints, *r.cw_grpo_checkpoints]
        }
        ordered = min(acc[x] for x in r.grpo_checkpoints) > max(acc[x] for x in r.cw_grpo_checkpoints)
        order = (
            "every GRPO checkpoint beats every CW-GRPO one on these seeds"
            if ordered
            else "the methods' checkpoints overlap in accuracy"
        )
        steps_along = {
            label: bool(np.all(np.diff([acc[x] for x in runs]) > 0))
            and bool(np.all(np.diff([self.results.per_seed(x, fluctuation, seeds).mean() for x in runs]) > 0))
            for label, runs in (("GRPO", r.grpo_checkpoints), ("CW-GRPO", r.cw_grpo_checkpoints))
        }
        along = [k for k, v in steps_along.items() if v]
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

    # ------------------------------------------------------------------ experiments
    def seeds_text(self, run: str) -> str:
        return ", ".join(map(str, self.results.seeds_of(run)))

    def clip_cov_activity(self, run: str) -> tuple[float, float, float]:
        """(mean Clip-Cov selected tokens per rollout batch, mean response tokens per rollout batch, share of the
        batches with a token selected) over ``run``'s seeds, from its logs."""
        t = self.params.runs[run].train
        selected, tokens, active = [], [], []
        for h in self.results.seed_histories(run):
            sel = measures.rollouts(h, "clip_cov/selected_tokens")
            length = measures.rollouts(h, "completions/mean_length")
            selected.append(float(sel.mean()))
            tokens.append(float(length.mean()) * t.prompts_per_step * t.num_generations)
            active.append(float((sel > 0).mean()))
        return float(np.mean(selected)), float(np.mean(tokens)), float(np.mean(active))

    @experiment("Table 2: accuracy")
    def table2(self, heading: str) -> pd.DataFrame:
        r = self.runs
        g90, c90 = r.grpo_checkpoints[0], r.cw_grpo_checkpoints[0]
        raw_rows, shown_rows, missing = [], [], []
        for checkpoint, rows in (
            (
                "90 (paper 100: table 2's)",
                [("Base", r.base), ("GRPO", g90), ("Clip-Cov", r.clip_cov_table2), ("CW-GRPO", c90)],
            ),
            ("180 (paper 200)", [("GRPO", r.grpo), ("Clip-Cov", r.clip_cov), ("CW-GRPO", r.cw_grpo)]),
        ):
            for label, run in rows:
                try:
                    raw, shown = self.eval_table([(label, run)], [ACCURACY], PAPER_TABLE2, "paper (Avg. pass@1, %)")
                except NotTestable as reason:  # a run not made yet: its row says so
                    missing.append(f"`{run}`: {reason}.")
                    raw = pd.DataFrame([{"row": label, "run": run}])
                    shown = pd.DataFrame([{"row": label, "run": f"`{run}`", ACCURACY: "not run yet"}])
                raw.insert(0, "checkpoint", checkpoint)
                shown.insert(0, "step", checkpoint)
                shown.insert(3, "seeds", self.seeds_text(run))
                raw_rows.append(raw)
                shown_rows.append(shown)
        raw = pd.concat(raw_rows, ignore_index=True)
        shown = pd.concat(shown_rows, ignore_index=True).rename(columns={ACCURACY: "pass@1 (mean@n)"}).fillna(MISSING)
        notes = []
        for run in (r.clip_cov_table2, r.clip_cov):
            try:
                sel, tokens, active = self.clip_cov_activity(run)
            except NotTestable as reason:
                notes.append(f"`{run}`: {reason}.")
                continue
            notes.append(
                f"`{run}` detaches {sel:.2f} tokens per rollout batch on average, of about {tokens:,.0f} response "
                f"tokens ({sel / tokens:.1e} of them; some token on {active:.0%} of the batches): at the paper's "
                "ratio 2e-4 Clip-Cov is GRPO in all but a token."
            )
        text = (
            "Table 2 is the paper's step-100 checkpoint of 200 steps: here the runs stopped at 90 of 180 steps (the "
            "verdicts' runs); the 180-step runs (the paper's step 200, fig. 1's) below them. mean@n at "
            f"{self.decoding_words()} (the verdicts' decoding; the shared one is in 'Evaluation at both decodings'); "
            "`seeds`: the seeds each row averages (a comparison pairs the seeds both runs have). "
            + " ".join([*missing, *notes])
        )
        self.report.section(heading, text)
        self.report.add_table(
            heading,
            "table2",
            raw,
            shown,
            caption="Compare CW-GRPO's mean@n with GRPO's and Clip-Cov's at the 90-step checkpoint (the verdicts'), "
            "then at 180 steps; the paper's column is its five-benchmark average at 1.5B / 7B.",
        )
        return shown

    @experiment("Fig. 1: entropy during training")
    def figure1(self, heading: str):
        r = self.runs
        runs = [("GRPO", r.grpo), ("Clip-Cov", r.clip_cov), ("CW-GRPO", r.cw_grpo)]
        fig, axes = plots.new_figure(len(runs), ncols=len(runs), panel_size=(4.4, 3.4), sharey=True)
        for ax, (label, run) in zip(axes, runs, strict=True):
            try:
                histories = self.results.seed_histories(run)
            except NotTestable:
                plots.not_logged(ax, ENTROPY)
                continue
            style = self.styles[run]
            for seed, h in zip(self.results.seeds_of(run), histories, strict=True):
                series = measures.rollouts(h, ENTROPY)
                failed = self.results.gates.check("healthy", run, seed)
                ax.plot(
                    series.index,
                    plots.ema(series, self.settings.ema_alpha),
                    color=style.color,
                    linestyle="--" if failed else "-",
                    linewidth=1.2,
                    label=f"seed {seed}" + (" (failed a gate)" if failed else ""),
                )
                ax.annotate(
                    f"s{seed}",
                    (series.index[-1], plots.ema(series, self.settings.ema_alpha).to_numpy()[-1]),
                    fontsize=7,
                    color=style.color,
                )
            ax.set_title(f"{label} ({run})", fontsize=9)
            plots.label_step_axes(ax, ENTROPY)
            ax.legend(fontsize=7, loc="upper left")
        plots.figure_title(fig, f"Paper fig. 1: rollout entropy per seed (EMA {self.settings.ema_alpha})")
        self.report.add_figure(
            heading,
            "figure1_entropy",
            fig,
            caption="Compare each seed's entropy path across the three runs, not their mean: a dashed seed failed a "
            "health gate (below its base policy, or entropy past x2 of its start).",
        )
        return fig

    @experiment("Table 1 / fig. 3: token covariance percentiles")
    def table1(self, heading: str) -> pd.DataFrame:
        r = self.runs
        percents = self.settings.covariance_top_percents
        raw_rows, shown_rows, notes, means = [], [], [], {}
        for label, run in (("GRPO", r.grpo), ("CW-GRPO", r.cw_grpo)):
            try:
                tables = self.covariance_table(run)
            except NotTestable as reason:
                notes.append(f"`{run}`: {reason}.")
                continue
            mean = sum(tables) / len(tables)
            means[label] = mean
            for side in ("positive", "negative"):
                raw_rows.append(
                    {"run": run, "side": side, **{f"top {p:g}%": mean.loc[side, f"top {p:g}%"] for p in percents}}
                )
                shown_rows.append(
                    {
                        "row": f"{label} ({side})",
                        **{f"top {p:g}%": fmt(mean.loc[side, f"top {p:g}%"], 4) for p in percents},
                    }
                )
        for side in ("positive", "negative"):
            shown_rows.append(
                {
                    "row": f"paper GRPO ({side})",
                    **{f"top {p:g}%": fmt(PAPER_TABLE1[side].get(float(p), math.nan), 2) for p in percents},
                }
            )
        text = (
            "Each cell: the covariance threshold beyond which that share of the positive (negative) tokens lies, per "
            "rollout batch, averaged over training steps and seeds (`rlvr_lib.analysis.covariance`). The paper's "
            "come from 50 steps of GRPO on DeepSeek-R1-Distill-Qwen-1.5B; magnitudes depend on the model and length."
        )
        entropy = {}
        for label, run in (("GRPO", r.grpo), ("CW-GRPO", r.cw_grpo)):
            try:
                entropy[label] = float(self.results.per_seed(run, lambda h: measures.whole_mean(h, ENTROPY)).mean())
            except (NotTestable, KeyError):
                continue
        self.report.section(heading, " ".join([text, *notes, self.table1_direction(means, entropy)]))
        self.report.add_table(
            heading,
            "table1_covariance_percentiles",
            pd.DataFrame(raw_rows),
            pd.DataFrame(shown_rows),
            caption=f"Compare the top {TAIL_TOP:g}% with the top {TAIL_BODY:g}% of each row: a ratio well above a "
            f"Gaussian's (x{10**GAUSSIAN_DECADES:.1f}) is a heavy tail; the top 0.01% and the smallest covariance "
            "('100%') fall apart for any distribution.",
        )
        if raw_rows:
            fig, axes = plots.new_figure(2, ncols=2, panel_size=(4.2, 3.2))
            for ax, side in zip(axes, ("positive", "negative"), strict=True):
                for row in (x for x in raw_rows if x["side"] == side):
                    ax.plot(
                        percents,
                        [abs(row[f"top {p:g}%"]) for p in percents],
                        label=row["run"],
                        **self.styles[row["run"]].points(),
                    )
                ax.plot(
                    percents,
                    [abs(PAPER_TABLE1[side][float(p)]) for p in percents],
                    "s--",
                    color=plots.PAPER_COLOR,
                    label="paper GRPO (table 1)",
                )
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_xlabel("top share of tokens (%)")
                ax.set_ylabel("|covariance threshold| (a.u.)")
                ax.set_title(f"{side} covariances")
            plots.figure_legend(fig)
            plots.figure_title(
                fig, "Table 1 as a plot: covariance threshold of each top share (not the paper's fig. 3)"
            )
            self.report.add_figure(
                heading,
                "table1_covariance_thresholds",
                fig,
                caption="The same thresholds on log axes, the paper's GRPO dashed: compare the slopes between 1% and "
                "40%, not the magnitudes (those depend on model, length and how much entropy a policy keeps).",
            )
        return pd.DataFrame(shown_rows)

    @staticmethod
    def table1_direction(means: dict[str, pd.DataFrame], entropy: dict[str, float] | None = None) -> str:
        """Which run's covariance thresholds are larger, column by column (R3-C10): the kernel damps extreme
        covariances of each batch, so table 1's direction is not the mechanism's aim read off directly. ``entropy``:
        each run's mean rollout entropy over training, cited as the reason where given."""
        if not {"GRPO", "CW-GRPO"} <= set(means):
            return ""
        g, c = means["GRPO"], means["CW-GRPO"]
        cells = [(side, col) for side in ("positive", "negative") for col in g.columns]
        larger = [x for x in cells if abs(c.loc[x]) > abs(g.loc[x])]
        pos1 = f"top {TAIL_TOP:g}%"
        return (
            f"Direction: CW-GRPO's thresholds are larger than GRPO's in {len(larger)} of {len(cells)} cells (its "
            f"positive top {TAIL_TOP:g}% {fmt(c.loc['positive', pos1], 3)} vs GRPO's {fmt(g.loc['positive', pos1], 3)}"
            f", x{abs(c.loc['positive', pos1] / g.loc['positive', pos1]):.1f}). The kernel does not shrink the "
            "covariances it sees: it down-weights the extreme ones in the loss of their batch, and CW-GRPO's policy "
            + (
                f"keeps more entropy (mean rollout entropy over training {entropy['CW-GRPO']:.3f} against GRPO's "
                f"{entropy['GRPO']:.3f}, mean over seeds), hence larger |logp - mean logp| and larger c. "
                if entropy and {"GRPO", "CW-GRPO"} <= set(entropy) and entropy["CW-GRPO"] > entropy["GRPO"]
                else "is another policy (its entropy not logged higher than GRPO's): the thresholds compare spreads. "
            )
            + "Table 1 thus compares two policies' spread, not the kernel's effect within a batch "
            "(that is the `kernel_filters` claim, from the weights it logs)."
        )

    @experiment("The kernel's weights and the gradient")
    def kernel_weights(self, heading: str) -> pd.DataFrame:
        """Per seed, from the logs: the kernel's w range, the share of tokens with w < 0.5, the largest renormalised
        weight, and the median gradient norm against GRPO's on the same seed (R3-C9)."""
        r = self.runs
        pairs = [(r.cw_grpo_checkpoints[0], r.grpo_checkpoints[0]), (r.cw_grpo, r.grpo)]
        raw_rows, shown_rows = [], []
        for cw, grpo in pairs:
            for seed in self.results.common_seeds(cw, grpo):
                (h,), (hg,) = self.results.seed_histories(cw, [seed]), self.results.seed_histories(grpo, [seed])
                row = {
                    "run": cw,
                    "seed": seed,
                    "w_min": float(measures.rollouts(h, "cw_grpo/w_min").min()),
                    "w_mean": measures.whole_mean(h, "cw_grpo/w_mean"),
                    "w_below_half": measures.whole_mean(h, "cw_grpo/w_below_half_frac"),
                    "w_tilde_max_median": float(measures.rollouts(h, "cw_grpo/w_tilde_max").median()),
                    "w_tilde_max_max": float(measures.rollouts(h, "cw_grpo/w_tilde_max").max()),
                    "grad_norm_median": float(measures.rollouts(h, "grad_norm").median()),
                    "grpo_run": grpo,
                    "grpo_grad_norm_median": float(measures.rollouts(hg, "grad_norm").median()),
                }
                row["grad_norm_ratio"] = row["grpo_grad_norm_median"] / row["grad_norm_median"]
                # optimizer step 1: the same policy and, with the same seed, the same rollout batch in both runs
                # (checked on its reward), so the ratio is what the kernel's reweighting removes from one batch
                row["same_first_batch"] = bool(
                    measures.rollouts(h, "reward").loc[1] == measures.rollouts(hg, "reward").loc[1]
                )
                row["grad_norm_step1"] = float(measures.rollouts(h, "grad_norm").loc[1])
                row["grpo_grad_norm_step1"] = float(measures.rollouts(hg, "grad_norm").loc[1])
                row["grad_norm_step1_ratio"] = row["grpo_grad_norm_step1"] / row["grad_norm_step1"]
                # every batch, where logged (`log_gradient_cosine`): the kernel's gradient against the same loss
                # without it on the same batch and policy
                row["kernel_removes"] = row["kernel_cosine"] = math.nan
                if GRADIENT_RATIO in h.columns and h[GRADIENT_RATIO].notna().any():
                    row["kernel_removes"] = float(1.0 - measures.column(h, GRADIENT_RATIO).median())
                    row["kernel_cosine"] = float(measures.column(h, GRADIENT_COSINE).median())
                raw_rows.append(row)
                shown_rows.append(
                    {
                        "run": f"`{cw}`",
                        "seed": str(seed),
                        "w min": fmt(row["w_min"]),
                        "mean w": fmt(row["w_mean"]),
                        "share w < 0.5": f"{row['w_below_half']:.2%}",
                        "largest w̃ (median / max over batches)": f"{row['w_tilde_max_median']:.3f} / "
                        f"{row['w_tilde_max_max']:.3f}",
                        "median grad norm": fmt(row["grad_norm_median"]),
                        "GRPO's (same seed)": f"{fmt(row['grpo_grad_norm_median'])} (`{grpo}`)",
                        "GRPO / CW-GRPO": f"x{row['grad_norm_ratio']:.1f}",
                        "step 1 grad norm, CW-GRPO / GRPO (same batch?)": f"{fmt(row['grad_norm_step1'])} / "
                        f"{fmt(row['grpo_grad_norm_step1'])} ({'yes' if row['same_first_batch'] else 'no'})",
                        "grad norm the kernel removes, same batch (median; cosine)": MISSING
                        if math.isnan(row["kernel_removes"])
                        else f"{row['kernel_removes']:.1%} ({row['kernel_cosine']:.3f})",
                    }
                )
        self.report.section(
            heading,
            "From the rollout logs of each seed (every rollout batch): the raw kernel weight w in (0, 1], the share of "
            "response tokens it puts below 0.5, the largest renormalised weight w̃ = w N / sum w of a batch, and the "
            "median gradient norm (before clipping at 1.0) against the GRPO run of the same length and seed; at "
            "optimizer step 1 both runs start from the same policy and draw the same rollout batch (same seed; "
            "checked on its reward), so there the two gradient norms differ only by the kernel's reweighting. Where "
            "a run logs it (`log_gradient_cosine`), every optimizer step compares the gradient of CW-GRPO's loss with "
            "that of the same loss without the kernel (w̃ = 1, the same KL term) on the same batch: the share of the "
            f"gradient norm the kernel removes is 1 - `{GRADIENT_RATIO}` (median over steps), beside the median "
            f"cosine `{GRADIENT_COSINE}`.",
        )
        raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
        self.report.add_table(
            heading,
            "kernel_weights",
            raw,
            shown,
            caption="Compare the share of tokens the kernel down-weights with how much smaller CW-GRPO's gradient is "
            "than GRPO's, over training and on the identical first batch.",
        )
        return raw

    @experiment("Entropy fluctuation and the training-temperature accuracy")
    def fluctuation_table(self, heading: str) -> pd.DataFrame:
        """Per run and seed: the declared fluctuation (over the run's mean entropy), the round-3 one (over the first
        batch's) beside it as evidence, log entropy retained, and the rollouts' accuracy at the training temperature
        0.7 early and at the end (R3-C2, R3-C3)."""
        r = self.runs
        rows = [("GRPO", run) for run in r.grpo_checkpoints] + [("CW-GRPO", run) for run in r.cw_grpo_checkpoints]
        rows += [("Clip-Cov", r.clip_cov)]
        quantities = {
            "fluctuation / mean H (declared)": fluctuation,
            "fluctuation / first H (round 3)": fluctuation_over_first,
            "log entropy retained": measures.log_entropy_retained,
            "rollout accuracy T 0.7, first 20%": lambda h: float(measures.window(h, "accuracy", "early").mean()),
            f"rollout accuracy T 0.7, {measures.TAIL_LABEL}": lambda h: measures.end_mean(h, "accuracy"),
        }
        raw, shown = self.seed_values_table(rows, quantities)
        shown.insert(2, "seeds", [self.seeds_text(run) for _, run in rows])
        self.report.section(
            heading,
            "Per run: the mean over seeds (each seed's value in brackets). The declared fluctuation divides the mean "
            "|change of rollout entropy between batches| by the run's own mean entropy; the round-3 reading divided "
            "it by the first batch's entropy and so tracked the entropy level. The rollouts' accuracy is sampled at "
            "the training temperature 0.7 on training problems (the evaluations sample held-out problems at "
            f"{self.decoding_words()}, the verdicts', and at {self.decoding_words(shared=True)}).",
        )
        self.report.add_table(
            heading,
            "fluctuation",
            raw,
            shown,
            caption="Compare the two fluctuation columns: over the first batch's entropy CW-GRPO looks less steady "
            "because its level is higher; over its own level the order can turn. The last columns: accuracy at the "
            "training temperature.",
        )
        return raw

    def checkpoint_equality(self, short: str, long: str) -> str:
        """Whether ``short``'s history equals the first steps of ``long``'s (same seed): the shorter run is then
        exactly the longer run's checkpoint."""
        diffs, seeds = [], self.results.common_seeds(short, long)
        pairs = zip(self.results.seed_histories(short, seeds), self.results.seed_histories(long, seeds), strict=True)
        for hs, hl in pairs:
            n = len(hs)
            for key in ("reward", "loss"):
                if key in hs.columns and key in hl.columns:
                    a, b = hs[key].to_numpy(float), hl[key].to_numpy(float)[:n]
                    diffs.append(float(np.nanmax(np.abs(a - b))) if len(b) == n else math.inf)
        worst = max(diffs) if diffs else math.nan
        return "yes" if worst <= 1e-6 else f"no (max |difference| of reward/loss {worst:.3g})"

    @experiment("Table 3: accuracy at three checkpoints")
    def table3(self, heading: str) -> pd.DataFrame:
        r = self.runs
        raw_rows, shown_rows = [], []
        every = [*r.grpo_checkpoints, *r.cw_grpo_checkpoints]
        shared = self.results.common_seeds(*every)
        for label, runs in (("GRPO", r.grpo_checkpoints), ("CW-GRPO", r.cw_grpo_checkpoints)):
            for i, run in enumerate(runs):
                acc, low, high = self.results.eval_summary(run, ACCURACY)
                on_shared = float(seed_values(self.results.eval_table(run, ACCURACY, shared)).mean())
                entropy = self.results.per_seed(run, lambda h: measures.end_mean(h, ENTROPY))
                steps = self.results.max_steps(run)
                same = MISSING if run == runs[-1] else self.checkpoint_equality(run, runs[-1])
                raw_rows.append(
                    {
                        "method": label,
                        "run": run,
                        "step": steps,
                        "paper_step": self.settings.paper_steps[i],
                        "seeds": self.seeds_text(run),
                        "accuracy": acc,
                        "ci_low": low,
                        "ci_high": high,
                        "accuracy_shared_seeds": on_shared,
                        "entropy_end": entropy.mean(),
                    }
                )
                shown_rows.append(
                    {
                        "method": label,
                        "run": f"`{self.results.label(run)}`",
                        "step (paper's)": f"{steps} ({self.settings.paper_steps[i]})",
                        "seeds": self.seeds_text(run),
                        "mean@n": fmt_ci(acc, low, high),
                        f"mean@n, seeds {', '.join(map(str, shared))}": fmt(on_shared),
                        f"rollout entropy ({measures.TAIL_LABEL})": fmt(entropy.mean()),
                        "paper (MATH-500, %)": fmt(PAPER_TABLE3[label][i], 1)
                        if i < len(PAPER_TABLE3[label])
                        else MISSING,
                        "= the full run's checkpoint": same,
                    }
                )
        text = (
            "The paper evaluates checkpoints at steps 100, 150 and 200; here each checkpoint is a run stopped at that "
            "share of the budget (`train.max_steps` of the run). With the same seed, data order and a constant "
            "learning rate it is the longer run's checkpoint exactly; the last column checks that from the logged "
            "rewards and losses. The runs' seeds differ ("
            + "; ".join(f"`{run}` {len(self.results.seeds_of(run))}" for run in every)
            + "): the column over the seeds every checkpoint has compares like with like, as the claims do (paired "
            "by seed). " + self.table3_premise([row["entropy_end"] for row in raw_rows if row["method"] == "GRPO"])
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "table3_checkpoints", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
        return pd.DataFrame(shown_rows)

    @staticmethod
    def table3_premise(grpo_entropy: list[float]) -> str:
        """What the testbed says of table 3's premise: the paper labels GRPO's step 150 "entropy low" and step 200
        "entropy high" and blames the accuracy drop on that instability; ``grpo_entropy`` is GRPO's rollout entropy
        at the three checkpoints (mean of the last 5 rollout batches)."""
        values = " → ".join(fmt(v) for v in grpo_entropy)
        if grpo_entropy[-1] > grpo_entropy[-2]:
            shape = "rising from the second checkpoint to the last, as the paper's low-then-high"
        else:
            shape = "not rising from the second checkpoint to the last: no low-then-high swing like the paper's"
        olympiad = "; ".join(f"{m} {', '.join(fmt(v, 1) for v in vs)}" for m, vs in PAPER_TABLE3_OLYMPIAD.items())
        return (
            'The paper\'s premise: its table 3 marks GRPO\'s step 150 "entropy low" and step 200 "entropy high" and '
            "says \"vanilla GRPO's entropy instability leads to performance degradation\". Here GRPO's rollout "
            f"entropy at the three checkpoints is {values} ({shape}); the `checkpoints` claim tests the degradation, "
            "not this cause. The paper's OlympiadBench column "
            f"({olympiad}) has no counterpart: the testbed has one evaluation set."
        )

    @staticmethod
    def change_kind(changes: dict) -> str:
        """Whether a sensitivity row changes only CW-GRPO's own settings (an alternative of the method) or a
        setting the GRPO baseline shares (R3-C8): the KL coefficient and the update count are shared, so such a row
        is another experiment, not an alternative, and its d against GRPO is not like for like."""
        if not changes:
            return "— (the verdicts' run)"
        shared = [k.split(".", 1)[-1] for k in changes if k.startswith("train.") or k == "method.beta"]
        if shared:
            return f"shared setting ({', '.join(shared)}; GRPO keeps the verdicts' value): not an alternative"
        return "CW-GRPO's own setting: an alternative"

    @experiment("Sensitivity: the KL term, the update count and the clip")
    def sensitivity(self, heading: str) -> pd.DataFrame:
        """CW-GRPO without the KL term, and at 2 updates per rollout batch unclipped (as written) and clipped; each
        row labelled by the kind of setting it changes (R3-C8)."""
        r = self.runs
        raw_rows, shown_rows = [], []
        for run in [r.cw_grpo, *r.sensitivity]:
            changes = {} if run == r.cw_grpo else settings_difference(self.params, run, r.cw_grpo)
            retained = self.results.per_seed(run, measures.log_entropy_retained)
            cells = {}
            for label, at in ((f"`{self.results.decoding}` (the verdicts')", self.results.decoding), ("shared", None)):
                with self.results.at_decoding(at):
                    try:  # a run's evaluation at a decoding may still be under way: its cells say so
                        acc, low, high = self.results.eval_summary(run, ACCURACY)
                        d = self.compare(run, r.grpo, ACCURACY, (METHOD, *changes))
                        cells[label] = (acc, low, high, d.value, d.ci_low, d.ci_high)
                    except NotRun as reason:
                        cells[label] = f"not run ({reason})"
            changed = ", ".join(f"{k.split('.', 1)[-1]} {vb!r} -> {va!r}" for k, (va, vb) in changes.items())
            kind = self.change_kind(changes)
            raw_rows.append(
                {
                    "run": run,
                    "changes": changed,
                    "kind": kind,
                    **{
                        f"{name}{suffix}": value
                        for suffix, cell in zip(("", "_shared"), cells.values(), strict=True)
                        for name, value in zip(
                            (ACCURACY, "ci_low", "ci_high", "d", "d_low", "d_high"),
                            (math.nan,) * 6 if isinstance(cell, str) else cell,
                            strict=True,
                        )
                    },
                    "log_entropy_retained": float(retained.mean()),
                }
            )
            shown_rows.append(
                {
                    "run": f"`{self.results.label(run)}`",
                    "changed from the verdicts' run": changed or "—",
                    "kind of change": kind,
                    "seeds": self.seeds_text(run),
                    "log entropy retained": fmt(float(retained.mean())),
                    **{
                        f"{column}, {label}": cell if isinstance(cell, str) else fmt_ci(*cell[i : i + 3])
                        for label, cell in cells.items()
                        for column, i in (("mean@n", 0), (f"d vs `{r.grpo}`", 3))
                    },
                }
            )
        self.report.section(
            heading,
            f"Each row changes settings of `{r.cw_grpo}`; the verdicts stay with its pre-declared settings. d: mean@n "
            f"minus `{r.grpo}`'s, paired by seed, with a 95% t interval, at the verdicts' decoding "
            f"({self.decoding_words()}) and the shared one ({self.decoding_words(shared=True)}). The β and update-count"
            " rows change settings "
            "the GRPO baseline shares (β 0.04, one update per rollout batch): their d mixes the method with that "
            "change, so they show what the change does to CW-GRPO, not whether a verdict hinges on an open choice; "
            "for that reason the paper declares no alternative (params.yaml `papers.cw_grpo.alternatives`). A run "
            "marked (diverged) has a seed that failed the `healthy` gate.",
        )
        raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
        self.report.add_table(
            heading,
            "sensitivity",
            raw,
            shown,
            caption="Read each row's d as what that change does to CW-GRPO against the same GRPO; rows that change a "
            "shared setting are not alternatives, so no verdict is re-judged on them.",
        )
        return shown
