"""Every method under one protocol: accuracy, pass@k, entropy retained, wall time per step relative to GRPO, a
ranking with intervals, the claims about the shared baselines that several papers' tables make, and the verdicts of
every paper's claims side by side."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import plots
from ..eval.passk import k_values
from .base import MISSING, PaperBase, experiment, fmt, fmt_ci
from .claims import VERDICTS, Estimate, estimate_of
from .output import PAPERS_DIR
from .results import ACCURACY, entropy_retained, step_time

# Claims about the shared baselines that several papers' tables make (method -> what each paper reports, avg. %)
BASELINE_CLAIMS = {
    "clip_cov": (
        "Clip-Cov",
        "CW-GRPO t.2 53.6 vs 52.6; AER t.1 55.0 vs 46.0; OPEFO t.1 50.7 vs 45.5; TEPO t.1 31.64 vs 30.85 (GRPO/DAPO)",
    ),
    "kl_cov": ("KL-Cov", "AER t.1 48.4 vs 46.0; OPEFO t.1 50.5 vs 45.5; TEPO t.1 31.60 vs 30.85 (GRPO/DAPO)"),
    "dapo": ("Clip-higher", "AER t.1 51.3 vs 46.0; OPEFO t.1 49.8 vs 45.5"),
    "entropy_reg": ("Entropy-Reg", "OPEFO t.1 47.8 vs 45.5"),
    "ent_adv": ("Ent-Adv", "AER t.1 46.3 vs 46.0 (8B), 40.7 vs 43.9 (4B); TEPO t.1 31.62 vs 30.85 (GRPO/DAPO)"),
    "gspo": ("GSPO", "TEPO t.1 31.33 vs 30.85 (GRPO/DAPO)"),
    "grpo_onpolicy": ("GRPO strict on-policy", "OPEFO t.1 50.1 vs 45.5"),
}


class Paper(PaperBase):
    name = "summary"
    title = "Every method under one protocol — summary of the five replications"
    source = "../shared/papers/"
    intro = (
        "All methods trained from the same base policy with the same budget, data and evaluation (each with its "
        "own settings from `methods:`), compared on accuracy, pass@k, entropy retained and wall time per step "
        "relative to GRPO; then a ranking with bootstrap intervals, the claims about the shared baselines that "
        "several papers' tables make, and every paper's claims with their verdicts."
    )

    def methods(self) -> list[str]:
        return list(self.runs.methods)

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        ref = self.runs.reference
        for run in self.methods():
            method = self.params.runs[run].method
            if method not in BASELINE_CLAIMS or run == ref:
                continue
            label, papers = BASELINE_CLAIMS[method]
            self.claim(
                f"{run}_vs_{ref}",
                f"{label} improves on GRPO (the tables of the papers that run it)",
                "several papers' tables",
                papers,
                f"mean@n of {run} minus {ref} (the shared protocol)",
                "greater",
                0.01,
                lambda run=run: self.compare(run, ref, ACCURACY),
            )

    def time_ratio(self, run: str) -> Estimate:
        a = self.results.per_seed(run, step_time)
        b = self.results.per_seed(self.runs.reference, step_time)
        return estimate_of(a / b)

    # ------------------------------------------------------------------ experiments
    @experiment("All methods, one protocol")
    def overview(self, heading: str) -> pd.DataFrame:
        ref = self.runs.reference
        k = max(x for x in k_values(self.results.samples(ref)))
        raw_rows, shown_rows = [], []
        for run in [self.runs.base, *self.methods()]:
            raw, cells = self.eval_cells(run, [ACCURACY, f"pass@{k}", "response_length"])
            row = {"run": run, "method": "—" if run == "base" else self.params.runs[run].method, **raw}
            shown = {"run": f"`{run}`", "mean@n": cells[ACCURACY], f"pass@{k}": cells[f"pass@{k}"]}
            if run == "base":
                shown.update({"minus " + ref: MISSING, "entropy retained": MISSING, "time / step vs " + ref: MISSING})
            else:
                d = self.compare(run, ref) if run != ref else None
                retained = self.results.per_seed(run, entropy_retained)
                t = self.time_ratio(run)
                row.update(
                    {
                        "minus_ref": d.value if d else 0.0,
                        "minus_ref_ci_low": d.ci_low if d else 0.0,
                        "minus_ref_ci_high": d.ci_high if d else 0.0,
                        "entropy_retained": retained.mean(),
                        "time_ratio": t.value,
                        "time_ratio_ci_low": t.ci_low,
                        "time_ratio_ci_high": t.ci_high,
                    }
                )
                shown["minus " + ref] = MISSING if d is None else fmt_ci(d.value, d.ci_low, d.ci_high)
                shown["entropy retained"] = fmt(retained.mean())
                shown["time / step vs " + ref] = fmt_ci(t.value, t.ci_low, t.ci_high, 2)
            shown["length"] = cells["response_length"]
            upd = self.results.updates_per_rollout(run)
            shown["updates / rollout"] = MISSING if upd is None else str(upd)
            raw_rows.append(row)
            shown_rows.append(shown)
        text = (
            f"mean@n and pass@{k}: mean over seeds and problems [95% two-way interval]; 'minus {ref}': paired "
            "difference; entropy retained: rollout entropy of the last 5 steps / step 1, mean over seeds; time per "
            f"step: each seed's mean wall time per optimizer step / {ref}'s, mean [interval over seeds] (runs share "
            "a 2-core machine, so times carry its load)."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "overview", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
        return pd.DataFrame(shown_rows)

    @experiment("Ranking by accuracy, with intervals")
    def ranking(self, heading: str) -> pd.DataFrame:
        runs = [self.runs.base, *self.methods()]
        tables = np.stack([self.results.eval_table(run, ACCURACY) for run in runs])  # (M, S, P)
        means = tables.mean(axis=(1, 2))
        rng = np.random.default_rng(0)
        n_boot = self.params.eval.n_boot
        _, n_seeds, n_problems = tables.shape
        ranks = np.empty((n_boot, len(runs)))
        for b in range(n_boot):
            s = rng.integers(0, n_seeds, n_seeds)
            p = rng.integers(0, n_problems, n_problems)
            boot = tables[:, s][:, :, p].mean(axis=(1, 2))
            ranks[b] = (-boot).argsort().argsort() + 1
        low, high = np.quantile(ranks, [0.025, 0.975], axis=0)
        order = np.argsort(-means)
        raw = pd.DataFrame(
            {
                "run": [runs[i] for i in order],
                "accuracy": means[order],
                "rank": np.arange(1, len(runs) + 1),
                "rank_ci_low": low[order],
                "rank_ci_high": high[order],
            }
        )
        shown = pd.DataFrame(
            {
                "rank": raw["rank"],
                "run": [f"`{r}`" for r in raw["run"]],
                "mean@n": [fmt(v) for v in raw["accuracy"]],
                "rank, 95% interval": [
                    f"{int(a)}-{int(b)}" for a, b in zip(raw["rank_ci_low"], raw["rank_ci_high"], strict=True)
                ],
            }
        )
        self.report.section(
            heading,
            "Rank intervals: the 2.5-97.5% percentiles of each run's rank over bootstrap replicates that resample "
            "seeds and problems jointly for all runs (the pairing kept).",
        )
        self.report.add_table(heading, "ranking", raw, shown)
        return shown

    @experiment("pass@k")
    def pass_at_k(self, heading: str):
        runs = [self.runs.base, *self.methods()]
        n = self.results.samples(self.runs.reference)
        ks = k_values(n)
        colors = plots.run_colors(runs)
        fig, (ax,) = plots._new_figure(1, ncols=1, panel_size=(6.0, 4.2))
        for run in runs:
            values = [self.results.eval_summary(run, f"pass@{k}")[0] for k in ks]
            ax.plot(ks, values, "--" if run == "base" else "-", marker="o", ms=3, color=colors[run], label=run)
        ax.set_xscale("log", base=2)
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.set_xlabel("k")
        ax.set_ylabel("pass@k")
        ax.set_title("pass@k, every method (mean over seeds and problems)")
        ax.legend(fontsize=7, ncols=2)
        self.report.add_figure(heading, "pass_at_k", fig)
        return fig

    def gathered_claims(self) -> pd.DataFrame:
        frames = []
        for paper in self.settings.papers:
            path = PAPERS_DIR / paper / "claims.csv"
            if not path.exists():
                raise FileNotFoundError(f"{path} not found: run `dvc repro paper_{paper}` first")
            frames.append(pd.read_csv(path).assign(paper_name=paper))
        return pd.concat(frames, ignore_index=True)

    @experiment("Which claims hold, paper by paper")
    def paper_claims(self, heading: str) -> pd.DataFrame:
        claims = self.gathered_claims()
        whole = claims[claims["parent"].isna() | (claims["parent"] == "")]  # a conjunctive claim counts once
        counts = (
            whole.groupby("paper_name")["verdict"]
            .value_counts()
            .unstack(fill_value=0)
            .reindex(columns=VERDICTS, fill_value=0)
        )
        counts = counts.reindex(self.settings.papers).reset_index().rename(columns={"paper_name": "paper"})
        counts["claims"] = counts[list(VERDICTS)].sum(axis=1)
        shown_counts = counts.assign(paper=[f"[{p}](../{p}/README.md)" for p in counts["paper"]])
        self.report.add_table(
            heading,
            "verdicts_by_paper",
            counts,
            shown_counts,
            "Verdicts per paper (claims; the parts of a conjunctive claim are not counted).",
        )

        def interval(row) -> str:
            if pd.isna(row["value"]):
                return MISSING
            return f"{row['value']:+.3g} [{row['ci_low']:+.3g}, {row['ci_high']:+.3g}]"

        listing = pd.DataFrame(
            {
                "paper": claims["paper_name"],
                "claim": [f"“{c}”" for c in claims["claim"]],
                "source": claims["source"],
                "d (ours)": claims["ours_definition"],
                "ours": [interval(row) for _, row in claims.iterrows()],
                "verdict": [f"**{v}**" for v in claims["verdict"]],
            }
        )
        self.report.add_table(heading, "all_claims", claims, listing, "Every claim of every paper.")
        return shown_counts
