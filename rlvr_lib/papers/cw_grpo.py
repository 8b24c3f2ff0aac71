"""CW-GRPO (cw_grpo.txt, arXiv 2605.11538) on the testbed: table 2 (GRPO, Clip-Cov, CW-GRPO), fig. 1 (entropy),
table 1 / fig. 3 (token covariance percentiles) and table 3 (accuracy at three checkpoints)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from .. import plots
from . import external
from .base import MISSING, PaperBase, experiment, fmt, fmt_ci
from .claims import Estimate, NotTestable, estimate_of, seed_values, unavailable
from .results import ACCURACY, DIVERGENCE_ENTROPY_FACTOR, LOG_FACTOR, column, log_entropy_retained

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


def entropy_fluctuation(history: pd.DataFrame) -> float:
    """Mean |change of the rollout entropy from one step to the next| / the first step's entropy."""
    series = column(history, "entropy/mean")
    return float(series.diff().abs().mean() / series.iloc[0])


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

    def discussion_notes(self) -> list[str]:
        """The Discussion's paper-specific paragraphs (after the generated lists): the mechanism, each explanation
        with the numbers from the runs that support it."""
        return [
            (
                "CW-GRPO reweights advantages but keeps their sign. Its weights are renormalised to mean 1 over the "
                "tokens, so damping a few extreme tokens raises the weight of all others above 1; with one update per "
                "rollout batch and no clip (the paper's setting) nothing bounds the step beyond the KL term. The "
                "sensitivity runs (no KL, 2 updates unclipped and clipped) separate the KL, the update count and the "
                "clip."
            )
        ]

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        """Every claim of cw_grpo.txt's analysis (sec. 2.2) and results (sec. 3.2), in the paper's order. Quotes
        keep the text file's escapes (``\\-``, ``\\.``, ``\\(``): they are its words as stored."""
        r = self.runs
        g90, c90 = r.grpo_checkpoints[0], r.cw_grpo_checkpoints[0]
        self.conjunction(
            key="heavy_tail",
            quote=r"we observe that a small fraction of tokens possess large\-magnitude covariance values, which "
            r"disproportionately dominate the overall covariance and precipitate unstable entropy dynamics",
            source="sec. 2.2, table 1, fig. 3",
            paper_value="table 1: top 0.01% 11.52 / -13.62, top 1% 3.32 / -3.34, all 0.06 / -0.04 (GRPO, 50 steps)",
            ours="the share of the total |covariance| carried by the top tokens, and its effect on entropy",
        )
        self.claim(
            key="heavy_tail_share",
            quote=r"a small fraction of tokens possess large\-magnitude covariance values, which disproportionately "
            r"dominate the overall covariance",
            source="sec. 2.2, fig. 3 (cumulative contribution)",
            paper_value="fig. 3 only (no share given)",
            ours="not computed",
            direction="greater",
            margin=0.0,
            compute=lambda: unavailable(
                "not logged: the runs log per-step covariance percentile thresholds (table 1, shown as a table), "
                "not the share of the total |covariance| the top tokens carry (fig. 3)"
            ),
            part_of="heavy_tail",
        )
        self.claim(
            key="heavy_tail_entropy",
            quote="precipitate unstable entropy dynamics",
            source="sec. 2.2",
            paper_value="no number",
            ours="not computed",
            direction="greater",
            margin=0.0,
            compute=lambda: unavailable(
                "a causal claim with no run to test it: none removes only the extreme tokens' updates (CW-GRPO "
                "reweights every token)"
            ),
            part_of="heavy_tail",
        )
        # Table 2's gains over GRPO are 2.7 and 2.6 points of average pass@1; one point (0.01) is the smallest that
        # matters. The table's numbers are its step-100 checkpoint (= table 3's first row): our first checkpoint.
        self.claim(
            key="acc_vs_grpo",
            quote=r"Our covariance\-weighted GRPO consistently outperforms vanilla GRPO across both model scales and "
            "all "
            r"evaluation benchmarks",
            source="sec. 3.2, table 2",
            paper_value="Avg. 55.3 vs 52.6 (1.5B), 46.7 vs 44.1 (7B); its own table has CW-GRPO below GRPO on 1.5B "
            "AIME24 "
            "(30.0 vs 33.3) and 7B Minerva (32.0 vs 33.1)",
            ours=f"mean@n (pass@1) of {c90} minus {g90} (table 2 = the step-100 checkpoint; the testbed has one scale "
            "and one evaluation set)",
            direction="greater",
            margin=0.01,
            compute=lambda: self.compare(c90, g90, ACCURACY),
            paper_effect=0.027,
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
        )
        self.claim(
            key="gain_7b",
            quote=r"for the 7B Qwen2\.5\-Math model, our approach delivers a \+2\.4 point improvement on average",
            source="sec. 3.2, table 2",
            paper_value="+2.4 in the text, but its table gives 46.7 - 44.1 = 2.6; table 2's '(+4.3)' over Base is "
            "46.7 - 41.4 "
            "= 5.3",
            ours="not computed",
            direction="equal",
            margin=0.0,
            compute=lambda: unavailable("scale and benchmark: Qwen2.5-Math-7B-Instruct on five named benchmarks"),
            reference=0.024,
            paper_effect=0.024,
        )
        self.conjunction(
            key="entropy",
            quote=r"our proposed method maintains entropy at a reasonable level, effectively balancing exploration and "
            r"exploitation, while vanilla GRPO exhibits significant entropy instability",
            source="sec. 3.2, fig. 1",
            paper_value="fig. 1 only (no number)",
            ours=f"{r.cw_grpo}'s entropy within a band, and GRPO's entropy less steady than {r.cw_grpo}'s",
        )
        # "reasonable": neither collapsed (below half its start) nor diverged (past results' divergence factor 2):
        # the band [0.5, 2.0]: within a factor of 2 of the start, |log ratio| <= log 2, which a diverging run fails.
        self.claim(
            key="entropy_reasonable",
            quote=r"our proposed method maintains entropy at a reasonable level",
            source="fig. 1",
            paper_value="no number",
            ours=f"entropy retained (rollout entropy over the last 5 steps / step 1) of {r.cw_grpo}, per seed (band "
            f"[0.5, {DIVERGENCE_ENTROPY_FACTOR:g}], on the log scale)",
            direction="equal",
            margin=LOG_FACTOR,
            compute=lambda: self.single_run(r.cw_grpo, log_entropy_retained),
            part_of="entropy",
        )
        # 0.005 of the first step's entropy per step: the smallest difference in step-to-step wobble that matters
        self.claim(
            key="entropy_grpo_unstable",
            quote="vanilla GRPO exhibits significant entropy instability",
            source="fig. 1",
            paper_value="no number",
            ours=f"entropy fluctuation (mean |step-to-step change| / step-1 entropy) of {r.cw_grpo} minus {r.grpo}",
            direction="less",
            margin=0.005,
            compute=lambda: self.results.compare_history(r.cw_grpo, r.grpo, entropy_fluctuation, digits=4),
            part_of="entropy",
        )
        # a rank correlation weaker than 0.2 in size is not one that matters
        self.claim(
            key="entropy_correlates",
            quote="stable entropy correlates with better reasoning performance",
            source="sec. 3.2, table 3",
            paper_value="table 3: GRPO 85.0 / 82.0 / 79.8 with entropy 'low' then 'high'; CW-GRPO 87.0 / 86.2 / 86.4",
            ours="Spearman correlation, over the six checkpoint runs of one seed, of entropy fluctuation (up to the "
            "checkpoint) and mean@n, per seed (stable entropy, better accuracy: < 0)",
            direction="less",
            margin=0.2,
            compute=self._entropy_accuracy_correlation,
        )
        self.conjunction(
            key="checkpoints",
            quote=r"vanilla GRPO’s entropy instability leads to performance degradation \(from 85\.0% to 79\.8% on "
            r"MATH\-500\), while our method maintains consistent performance \(86\.2%\-87\.0%\) across all "
            r"checkpoints",
            source="sec. 3.2, table 3",
            paper_value="GRPO 85.0 -> 82.0 -> 79.8, CW-GRPO 87.0 -> 86.2 -> 86.4 (MATH-500, steps 100 / 150 / 200)",
            ours="mean@n across the checkpoint runs of GRPO and of CW-GRPO",
        )
        first_g, last_g = r.grpo_checkpoints[0], r.grpo_checkpoints[-1]
        # the paper's drop is 5.2 points; a drop less than half as large (or more than 1.5 times) is another size
        self.claim(
            key="grpo_degrades",
            quote=r"vanilla GRPO’s entropy instability leads to performance degradation \(from 85\.0% to 79\.8% on "
            r"MATH\-500\)",
            source="table 3",
            paper_value="79.8 - 85.0 = -5.2 (MATH-500)",
            ours=f"mean@n of {last_g} (last checkpoint) minus {first_g} (first); the entropy cause is not tested",
            direction="equal",
            margin=0.026,
            compute=lambda: self.compare(last_g, first_g, ACCURACY, differs_in=(MAX_STEPS,)),
            reference=-0.052,
            paper_effect=-0.052,
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
                ours=f"mean@n of {later} minus {first_c} (first checkpoint)",
                direction="equal",
                margin=0.01,
                compute=lambda later=later: self.compare(later, first_c, ACCURACY, differs_in=(MAX_STEPS,)),
                part_of="checkpoints",
            )

    def _entropy_accuracy_correlation(self) -> Estimate:
        runs = [*self.runs.grpo_checkpoints, *self.runs.cw_grpo_checkpoints]
        seeds = sorted(set.intersection(*(set(self.results.seeds_of(run)) for run in runs)))  # a row per seed all ran
        fluctuation = np.stack([self.results.per_seed(run, entropy_fluctuation, seeds) for run in runs], axis=1)
        accuracy = np.stack([seed_values(self.results.eval_table(run, ACCURACY, seeds)) for run in runs], axis=1)
        rho = np.asarray([stats.spearmanr(f, a).statistic for f, a in zip(fluctuation, accuracy, strict=True)])
        return estimate_of(rho, detail=f"over {len(runs)} checkpoint runs per seed")

    def covariance_table(self, run: str) -> pd.DataFrame:
        """Table 1 of ``run`` per seed: rows positive / negative, one column per top percent (NotTestable when the
        run did not log them)."""
        prefix = self.params.runs[run].method
        per_seed = [
            external.covariance_percentile_table(h, prefix, self.settings.covariance_top_percents)
            for h in self.results.seed_histories(run)
        ]
        return per_seed

    # ------------------------------------------------------------------ experiments
    @experiment("Table 2: accuracy")
    def table2(self, heading: str) -> pd.DataFrame:
        r = self.runs
        rows = [("Base", r.base), ("GRPO", r.grpo), ("Clip-Cov", r.clip_cov), ("CW-GRPO", r.cw_grpo)]
        raw, shown = self.eval_table(rows, [ACCURACY], PAPER_TABLE2, "paper (Avg. pass@1, %)")
        shown = shown.rename(columns={ACCURACY: "pass@1 (mean@n)"})
        self.report.add_table(heading, "table2", raw, shown)
        return shown

    @experiment("Fig. 1: entropy during training")
    def figure1(self, heading: str):
        r = self.runs
        fig = self.curves(
            [r.grpo, r.clip_cov, r.cw_grpo],
            [("entropy/mean", "rollout token entropy (nats)", "linear")],
            ema_alpha=self.settings.ema_alpha,
            title=f"Paper fig. 1: policy entropy (EMA {self.settings.ema_alpha})",
            ncols=1,
        )
        self.report.add_figure(heading, "figure1_entropy", fig)
        return fig

    @experiment("Table 1 / fig. 3: token covariance percentiles")
    def table1(self, heading: str) -> pd.DataFrame:
        r = self.runs
        percents = self.settings.covariance_top_percents
        raw_rows, shown_rows, notes = [], [], []
        for label, run in (("GRPO", r.grpo), ("CW-GRPO", r.cw_grpo)):
            try:
                tables = self.covariance_table(run)
            except NotTestable as reason:
                notes.append(f"`{run}`: {reason}.")
                continue
            mean = sum(tables) / len(tables)
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
        self.report.section(heading, " ".join([text, *notes]))
        self.report.add_table(
            heading, "table1_covariance_percentiles", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
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
            self.report.add_figure(heading, "table1_covariance_thresholds", fig)
        return pd.DataFrame(shown_rows)

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
        for label, runs in (("GRPO", r.grpo_checkpoints), ("CW-GRPO", r.cw_grpo_checkpoints)):
            for i, run in enumerate(runs):
                acc, low, high = self.results.eval_summary(run, ACCURACY)
                entropy = self.results.per_seed(run, lambda h: float(column(h, "entropy/mean").tail(5).mean()))
                steps = self.results.max_steps(run)
                same = MISSING if run == runs[-1] else self.checkpoint_equality(run, runs[-1])
                raw_rows.append(
                    {
                        "method": label,
                        "run": run,
                        "step": steps,
                        "paper_step": self.settings.paper_steps[i],
                        "accuracy": acc,
                        "ci_low": low,
                        "ci_high": high,
                        "entropy_last5": entropy.mean(),
                    }
                )
                shown_rows.append(
                    {
                        "method": label,
                        "run": f"`{run}`",
                        "step (paper's)": f"{steps} ({self.settings.paper_steps[i]})",
                        "mean@n": fmt_ci(acc, low, high),
                        "rollout entropy (last 5 steps)": fmt(entropy.mean()),
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
            "rewards and losses. "
            + self.table3_premise([row["entropy_last5"] for row in raw_rows if row["method"] == "GRPO"])
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "table3_checkpoints", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
        return pd.DataFrame(shown_rows)

    @staticmethod
    def table3_premise(grpo_entropy: list[float]) -> str:
        """What the testbed says of table 3's premise: the paper labels GRPO's step 150 "entropy low" and step 200
        "entropy high" and blames the accuracy drop on that instability; ``grpo_entropy`` is GRPO's rollout entropy
        at the three checkpoints (mean of the last 5 steps)."""
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

    @experiment("Sensitivity: the KL term, the update count and the clip")
    def sensitivity(self, heading: str) -> pd.DataFrame:
        """CW-GRPO without the KL term, and at 2 updates per rollout batch unclipped (as written) and clipped."""
        return self.sensitivity_table(heading, self.runs.cw_grpo, self.runs.grpo, self.runs.sensitivity)
