"""Every method at the shared testbed settings: accuracy, pass@k, entropy retained and wall time per step against
GRPO; rankings by protocol group with tie groups (no strict order the intervals do not support); and every paper's
verdicts, counted as claims, side by side.

The summary makes no claim of its own: the papers' claims are judged in their reports, under each paper's protocol.
Here every method runs with its own hyperparameters (its paper's, ``methods:``) at the shared `train` settings; runs
whose training settings differ (the strictly on-policy methods at 1 update per rollout batch) form their own protocol
group, and only runs of one group are compared or ranked together (``rlvr_lib.papers.guard``)."""

from __future__ import annotations

import dataclasses

import pandas as pd

from .. import plots
from ..eval.passk import k_values
from ..report import markdown_table
from .base import MISSING, SHARED_PROTOCOL, PaperBase, experiment, fmt, fmt_ci
from .claims import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE, VERDICTS, Estimate, estimate_of
from .guard import METHOD, settings_difference
from .output import PAPERS_DIR, WriteUp
from .references import REFERENCES
from .results import ACCURACY, entropy_retained, step_time
from .writeup import CAN_SAY, CANNOT_SAY, TESTBED_SCALE

PROTOCOL_NOTE = (
    "Every method here trains at the shared testbed settings with its own paper's hyperparameters, so the "
    "summary compares methods under one protocol rather than each paper's; the papers' own settings are "
    "compared in their reports."
)


class Paper(PaperBase):
    name = "summary"
    title = "Every method under one protocol — summary of the five replications"
    source = "../shared/papers/"
    intro = (
        "Every method at the shared testbed settings, each with its own paper's hyperparameters: seed s of every run "
        "starts from the seed-s base policy and is evaluated on the same held-out problems. Runs are compared and "
        "ranked only within a protocol group (the same training settings); rankings show tie groups, not an order "
        "the intervals do not support. The papers' claims are judged in their own reports; this one gathers their "
        "verdicts."
    )

    def methods(self) -> list[str]:
        return list(self.runs.methods)

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        """None: the summary gathers the papers' verdicts (``paper_claims``) and makes no claim of its own."""

    # ------------------------------------------------------------------ protocol groups
    def protocol(self, run: str) -> str:
        """The run's training protocol: its resolved `train` settings and training set, as text."""
        spec = self.params.runs[run]
        train = {k: v for k, v in dataclasses.asdict(spec.train).items() if k != "seed"}
        shared = {k: v for k, v in dataclasses.asdict(self.params.train).items() if k != "seed"}
        changed = {k: v for k, v in train.items() if shared.get(k) != v}
        text = ", ".join(f"{k}={v}" for k, v in sorted(changed.items())) or "the shared `train` settings"
        return text + ("" if spec.train_data == "full" else f"; training set {spec.train_data}")

    def protocol_groups(self) -> dict[str, list[str]]:
        """{protocol: runs} of the summary's methods, in the order of ``methods``."""
        groups: dict[str, list[str]] = {}
        for run in self.methods():
            groups.setdefault(self.protocol(run), []).append(run)
        return groups

    def method_difference(self, a: str, b: str) -> tuple[str, ...]:
        """What two runs of one protocol group may differ in: the method and any of its hyperparameters (each method
        keeps its own paper's)."""
        return (METHOD, *[k for k in settings_difference(self.params, a, b) if k.startswith("method.")])

    def _paired(self, a: str, b: str, quantity: str) -> Estimate:
        if quantity == "entropy retained":
            return self.results.compare_history(a, b, entropy_retained, differs_in=self.method_difference(a, b))
        return self.compare(a, b, quantity, self.method_difference(a, b))

    def tie_groups(self, runs: list[str], quantity: str) -> list[tuple[str, float, int]]:
        """(run, mean, tie group) best first: a group starts at the best run not yet placed and holds every run whose
        paired difference to that leader has a 95% t interval reaching 0 (not distinguishable from it)."""
        means = {run: self._mean(run, quantity) for run in runs}
        order = sorted(runs, key=lambda r: -means[r])
        out, group, leader = [], 0, None
        for run in order:
            if leader is None or self._paired(leader, run, quantity).ci_low > 0:
                group, leader = group + 1, run
            out.append((run, means[run], group))
        return out

    def _mean(self, run: str, quantity: str) -> float:
        if quantity == "entropy retained":
            return float(self.results.per_seed(run, entropy_retained).mean())
        return self.results.eval_summary(run, quantity)[0]

    def time_ratio(self, run: str) -> Estimate:
        seeds = self.results.common_seeds(run, self.runs.reference)  # paired by seed
        a = self.results.per_seed(run, step_time, seeds)
        b = self.results.per_seed(self.runs.reference, step_time, seeds)
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
                same_group = self.protocol(run) == self.protocol(ref)
                d = self._paired(run, ref, ACCURACY) if run != ref and same_group else None
                retained = self.results.per_seed(run, entropy_retained)
                t = self.time_ratio(run)
                row.update(
                    {
                        "minus_ref": d.value if d else float("nan"),
                        "minus_ref_ci_low": d.ci_low if d else float("nan"),
                        "minus_ref_ci_high": d.ci_high if d else float("nan"),
                        "entropy_retained": retained.mean(),
                        "time_ratio": t.value,
                        "time_ratio_ci_low": t.ci_low,
                        "time_ratio_ci_high": t.ci_high,
                    }
                )
                if d is not None:
                    shown["minus " + ref] = fmt_ci(d.value, d.ci_low, d.ci_high)
                else:
                    shown["minus " + ref] = MISSING if run == ref else "another protocol"
                shown["entropy retained"] = fmt(retained.mean())
                shown["time / step vs " + ref] = fmt_ci(t.value, t.ci_low, t.ci_high, 2)
            shown["length"] = cells["response_length"]
            upd = self.results.updates_per_rollout(run)
            shown["updates / rollout"] = MISSING if upd is None else str(upd)
            raw_rows.append(row)
            shown_rows.append(shown)
        text = (
            f"mean@n and pass@{k}: mean over seeds and problems [95% t interval over seeds]; 'minus {ref}': paired "
            "difference, for runs of its protocol group only; entropy retained: rollout entropy of the last 5 steps / "
            "step 1, mean over seeds; time per "
            f"step: each seed's mean wall time per optimizer step / {ref}'s, mean [interval over seeds] (runs share "
            "a 2-core machine, so times carry its load)."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "overview", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
        return pd.DataFrame(shown_rows)

    @experiment("Rankings by protocol group, with tie groups")
    def ranking(self, heading: str) -> pd.DataFrame:
        ref = self.runs.reference
        k = max(x for x in k_values(self.results.samples(ref)))
        quantities = (ACCURACY, f"pass@{k}", "entropy retained")
        raw_rows, shown_rows = [], []
        for protocol, runs in self.protocol_groups().items():
            for quantity in quantities:
                for rank, (run, mean, group) in enumerate(self.tie_groups(runs, quantity), start=1):
                    raw_rows.append(
                        {
                            "protocol": protocol,
                            "quantity": quantity,
                            "order": rank,
                            "run": run,
                            "mean": mean,
                            "tie_group": group,
                        }
                    )
        raw = pd.DataFrame(raw_rows)
        for (protocol, quantity), rows in raw.groupby(["protocol", "quantity"], sort=False):
            groups = rows.groupby("tie_group", sort=True)["run"].apply(lambda r: ", ".join(f"`{x}`" for x in r))
            shown_rows.append(
                {
                    "protocol": protocol,
                    "ranked by": quantity,
                    "tie groups, best first (within a group: not distinguishable from its best run)": " > ".join(
                        f"{{{g}}}" for g in groups
                    ),
                }
            )
        shown = pd.DataFrame(shown_rows)
        self.report.section(
            heading,
            "Within each protocol group, runs are ordered by their mean over seeds (and problems); a tie group starts "
            "at the best run not yet placed and holds every run whose paired difference to that run has a 95% t "
            "interval over seeds reaching 0. A higher group is distinguishable from the next; the order inside a "
            "group is not a finding. Entropy retained: the rollout entropy of the last 5 steps over step 1's (higher "
            "is not better by itself).",
        )
        self.report.add_table(heading, "ranking", raw, shown)
        return shown

    @experiment("pass@k")
    def pass_at_k(self, heading: str):
        runs = [self.runs.base, *self.methods()]
        n = self.results.samples(self.runs.reference)
        ks = k_values(n)
        fig, (ax,) = plots.new_figure(1, ncols=1, panel_size=(6.4, 4.2))
        for run in runs:
            values = [self.results.eval_summary(run, f"pass@{k}")[0] for k in ks]
            ax.plot(ks, values, label=run, **self.styles[run].points())
        plots.pass_at_k_axes(ax, list(ks))
        plots.figure_legend(fig)
        plots.figure_title(fig, "pass@k, every method (mean over seeds and problems)")
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

    # ------------------------------------------------------------------ the write-up (no claims of its own)
    def write(self):
        """As every paper's report, with the papers' verdict counts in the Claims section."""
        self.run_all()
        self.evaluate_claims()
        counts = self.paper_claims()
        self.report.writeup = WriteUp(
            self.summary(),
            self.method(),
            self.setup(),
            self.discussion(),
            self.limitations(),
            claims=self.claims_counts_markdown(counts),
        )
        return self.report.write()

    def verdict_counts(self) -> pd.DataFrame:
        """paper x verdict: the number of claims (conjunctive claims once, their parts not at all)."""
        claims = self.gathered_claims()
        whole = claims[claims["parent"].isna() | (claims["parent"] == "")]
        counts = whole.groupby("paper_name")["verdict"].value_counts().unstack(fill_value=0)
        return counts.reindex(index=self.settings.papers, columns=list(VERDICTS), fill_value=0)

    @staticmethod
    def claims_counts_markdown(shown_counts: pd.DataFrame) -> str:
        return "\n".join(
            [
                "The summary makes no claim of its own; each paper's claims are judged in its report. Per paper, "
                "the number of claims with each verdict (a conjunctive claim counts once):",
                "",
                markdown_table(shown_counts),
                "Every claim with its verdict: [tables/all_claims.md](tables/all_claims.md).",
            ]
        )

    def _top_groups(self) -> list[str]:
        """Per protocol group, the runs of the first tie group by mean@n."""
        out = []
        for protocol, runs in self.protocol_groups().items():
            leaders = [run for run, _, group in self.tie_groups(runs, ACCURACY) if group == 1]
            out.append(f"{', '.join(f'`{r}`' for r in leaders)} (protocol: {protocol}, {len(runs)} runs)")
        return out

    def summary(self) -> str:
        counts = self.verdict_counts()
        total = counts.sum()
        return "\n".join(
            [
                f"- **Tested:** {int(total.sum())} claims of five papers ("
                + "; ".join(f"{p}: {int(counts.loc[p].sum())}" for p in counts.index)
                + "), and every method under one protocol (Setup).",
                f"- **Holds:** {int(total[HOLDS])} claims; **does not hold:** {int(total[DOES_NOT_HOLD])}.",
                f"- **Inconclusive:** {int(total[INCONCLUSIVE])} (the seeds' intervals leave the effect open).",
                f"- **Not testable here:** {int(total[NOT_TESTABLE])} (scale, benchmarks or quantities the testbed "
                "does not have; each paper's Limitations lists them with the reason).",
                "- **Best by mean@n (first tie group, not distinguishable from the best run):** "
                + "; ".join(self._top_groups())
                + ".",
            ]
        )

    def main_run(self) -> str:
        return self.runs.reference

    def setup(self) -> str:
        """The one protocol: the shared `train` settings, and the protocol groups the runs fall into."""
        shared = {k: v for k, v in dataclasses.asdict(self.params.train).items() if k != "seed"}
        groups = [
            f"- {protocol}: {', '.join(f'`{r}`' for r in runs)}" for protocol, runs in self.protocol_groups().items()
        ]
        citations = [f"- {REFERENCES[p].markdown()}" for p in self.settings.papers]
        return "\n".join(
            [
                SHARED_PROTOCOL,
                "",
                "Every method trains at the shared `train` settings below with its own hyperparameters (its "
                "`methods:` entry over its defaults); how each paper's own settings differ from these is the setup "
                "table of that paper's report.",
                "",
                markdown_table(pd.DataFrame(list(shared.items()), columns=["train setting", "value"])),
                "Protocol groups (runs are compared and ranked only within one):",
                "",
                *groups,
                "",
                "The papers:",
                "",
                *citations,
            ]
        )

    def discussion(self) -> str:
        counts = self.verdict_counts()
        share = counts[HOLDS] / counts.sum(axis=1).where(counts.sum(axis=1) > 0)
        tested = counts.sum(axis=1) - counts[NOT_TESTABLE]
        lines = [
            f"- {p}: {int(counts.loc[p, HOLDS])} of {int(tested[p])} testable claims hold, "
            f"{int(counts.loc[p, DOES_NOT_HOLD])} do not, {int(counts.loc[p, INCONCLUSIVE])} are inconclusive; "
            f"{int(counts.loc[p, NOT_TESTABLE])} are not testable here"
            for p in counts.index
        ]
        total = counts.sum()
        testable = int(total.sum() - total[NOT_TESTABLE])
        most = share.idxmax() if share.notna().any() and share.max() > 0 else None
        across = (
            f"Across the papers, {int(total[HOLDS])} of the {testable} claims the testbed can test hold and "
            f"{int(total[DOES_NOT_HOLD])} do not; {int(total[NOT_TESTABLE])} of {int(total.sum())} claims need "
            "what the testbed does not have."
            + (f" The largest share of holding claims (of all its claims) is {most}'s." if most is not None else "")
            + " A claim that holds here says the mechanism works on a small policy that collapses its entropy; "
            "the papers' headline numbers are not testable at this scale."
        )
        return "\n\n".join([across, "\n".join(lines), PROTOCOL_NOTE])

    def limitations(self) -> str:
        return "\n\n".join([TESTBED_SCALE, CAN_SAY, CANNOT_SAY])
