"""CW-GRPO (cw_grpo.txt, arXiv 2605.11538) on the testbed: table 2 (GRPO, Clip-Cov, CW-GRPO), fig. 1 (entropy),
table 1 / fig. 3 (token covariance percentiles) and table 3 (accuracy at three checkpoints)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import plots
from . import external
from .base import MISSING, PaperBase, experiment, fmt, fmt_ci
from .claims import Estimate, NotTestable, estimate_of
from .results import ACCURACY, column, entropy_retained

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
# For a half-normal |z|, the value exceeded by 1% of draws over the one exceeded by 40%: q(0.99) / q(0.60)
HALF_NORMAL_RATIO = 2.5758293035489004 / 0.8416212335729143


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

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        r = self.runs
        self.claim(
            "acc_vs_grpo",
            "Our covariance-weighted GRPO consistently outperforms vanilla GRPO across both model scales",
            "sec. 3.2, table 2",
            "Avg. 55.3 vs 52.6 (1.5B), 46.7 vs 44.1 (7B)",
            f"mean@n (pass@1) of {r.cw_grpo} minus {r.grpo}",
            "greater",
            0.01,
            lambda: self.compare(r.cw_grpo, r.grpo, ACCURACY),
        )
        self.claim(
            "acc_vs_clip_cov",
            "GRPO + Gaussian Reweight (ours) ... 55.3 ... Clip-Cov ... 53.6",
            "table 2",
            "Avg. 55.3 vs 53.6 (1.5B), 46.7 vs 44.7 (7B)",
            f"mean@n of {r.cw_grpo} minus {r.clip_cov}",
            "greater",
            0.01,
            lambda: self.compare(r.cw_grpo, r.clip_cov, ACCURACY),
        )
        self.claim(
            "entropy_level",
            "our proposed method maintains entropy at a reasonable level",
            "sec. 3.2, fig. 1",
            "no number (fig. 1)",
            f"entropy retained (last 5 steps / step 1) of {r.cw_grpo} minus {r.grpo}, per seed",
            "greater",
            0.05,
            lambda: self.results.compare_history(r.cw_grpo, r.grpo, entropy_retained),
        )
        self.claim(
            "entropy_stability",
            "vanilla GRPO exhibits significant entropy instability",
            "sec. 3.2, fig. 1",
            "no number (fig. 1)",
            f"entropy fluctuation (mean |step-to-step change| / step-1 entropy) of {r.cw_grpo} minus {r.grpo}",
            "less",
            0.005,
            lambda: self.results.compare_history(r.cw_grpo, r.grpo, entropy_fluctuation, digits=4),
        )
        first_g, last_g = r.grpo_checkpoints[0], r.grpo_checkpoints[-1]
        first_c, last_c = r.cw_grpo_checkpoints[0], r.cw_grpo_checkpoints[-1]
        self.claim(
            "grpo_degrades",
            "vanilla GRPO's entropy instability leads to performance degradation (from 85.0% to 79.8% on MATH-500)",
            "sec. 3.2, table 3",
            "85.0 -> 82.0 -> 79.8 (MATH-500)",
            f"mean@n of {last_g} (last checkpoint) minus {first_g} (first)",
            "less",
            0.01,
            lambda: self.compare(last_g, first_g, ACCURACY),
        )
        self.claim(
            "cw_consistent",
            "our method maintains consistent performance (86.2%-87.0%) across all checkpoints",
            "sec. 3.2, table 3",
            "87.0 -> 86.2 -> 86.4 (MATH-500)",
            f"mean@n of {last_c} (last checkpoint) minus {first_c} (first)",
            "equal",
            0.01,
            lambda: self.compare(last_c, first_c, ACCURACY),
        )
        for i, (g, c) in enumerate(zip(r.grpo_checkpoints[:-1], r.cw_grpo_checkpoints[:-1], strict=True)):
            step = self.settings.paper_steps[i]
            self.claim(
                f"checkpoint_{i}",
                "CW-GRPO ... at each checkpoint above GRPO",
                f"table 3 (step {step})",
                f"{PAPER_TABLE3['CW-GRPO'][i]} vs {PAPER_TABLE3['GRPO'][i]} (MATH-500)",
                f"mean@n of {c} minus {g}",
                "greater",
                0.01,
                lambda g=g, c=c: self.compare(c, g, ACCURACY),
            )
        for side in ("positive", "negative"):
            self.claim(
                f"heavy_tail_{side}",
                "a small fraction of tokens possess large-magnitude covariance values, which disproportionately "
                "dominate the overall covariance",
                "sec. 2.2, table 1, fig. 3",
                f"GRPO {side}: top 1% {PAPER_TABLE1[side][1.0]}, top 40% {PAPER_TABLE1[side][40.0]} (ratio "
                f"{PAPER_TABLE1[side][1.0] / PAPER_TABLE1[side][40.0]:.1f})",
                f"under {r.grpo}: |top-1% threshold| / |top-40% threshold| of the {side} covariances (per-step "
                f"thresholds averaged over training), minus {HALF_NORMAL_RATIO:.2f}, the ratio of a half-normal "
                "(heavier-tailed than Gaussian when > 0), per seed",
                "greater",
                0.5,
                lambda side=side: self._tail_ratio(r.grpo, side),
            )

    def covariance_table(self, run: str) -> pd.DataFrame:
        """Table 1 of ``run`` per seed: rows positive / negative, one column per top percent (NotTestable when the
        run did not log them)."""
        prefix = self.params.runs[run].method
        per_seed = [
            external.covariance_percentile_table(h, prefix, self.settings.covariance_top_percents)
            for h in self.results.seed_histories(run)
        ]
        return per_seed

    def _tail_ratio(self, run: str, side: str) -> Estimate:
        ratios = []
        for table in self.covariance_table(run):
            row = table.loc[side]
            ratios.append(abs(row["top 1%"]) / abs(row["top 40%"]))
        ratios = np.asarray(ratios)
        return estimate_of(ratios - HALF_NORMAL_RATIO, detail=f"ratio {ratios.mean():.2f}")

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
            title=f"Fig. 1: policy entropy (EMA {self.settings.ema_alpha}; band: seeds' min-max)",
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
            fig, axes = plots._new_figure(2, ncols=2, panel_size=(4.2, 3.2))
            colors = plots.run_colors([r.grpo, r.cw_grpo])
            for ax, side in zip(axes, ("positive", "negative"), strict=True):
                for row in (x for x in raw_rows if x["side"] == side):
                    ax.plot(
                        percents,
                        [abs(row[f"top {p:g}%"]) for p in percents],
                        "o-",
                        color=colors[row["run"]],
                        label=row["run"],
                    )
                ax.plot(
                    percents,
                    [abs(PAPER_TABLE1[side][float(p)]) for p in percents],
                    "s--",
                    color="grey",
                    label="paper GRPO",
                )
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_xlabel("top share of tokens (%)")
                ax.set_ylabel("|covariance threshold|")
                ax.set_title(side)
                ax.legend()
            self.report.add_figure(heading, "figure3_covariance_thresholds", fig)
        return pd.DataFrame(shown_rows)

    def checkpoint_equality(self, short: str, long: str) -> str:
        """Whether ``short``'s history equals the first steps of ``long``'s (same seed): the shorter run is then
        exactly the longer run's checkpoint."""
        diffs = []
        for hs, hl in zip(self.results.seed_histories(short), self.results.seed_histories(long), strict=True):
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
            "rewards and losses."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "table3_checkpoints", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
        return pd.DataFrame(shown_rows)
