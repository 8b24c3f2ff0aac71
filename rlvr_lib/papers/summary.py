"""Every method at the shared testbed settings: accuracy, pass@k, entropy retained and wall time per step against
GRPO, each method compared with GRPO pairwise (entropy on the log scale; runs with a failed seed marked, never
ranked above a healthy one); and every paper's verdicts, counted by category, side by side, with a takeaway
generated from them.

The summary makes no claim of its own: the papers' claims are judged in their reports, under each paper's protocol.
Here every method runs with its own hyperparameters (its paper's, ``methods:``) at the shared `train` settings; runs
whose training settings differ (the strictly on-policy methods at 1 update per rollout batch) form their own protocol
group, and only runs of one group are compared or ranked together (``rlvr_lib.papers.framework.guard``)."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd

from rlvr_lib.eval.passk import k_values
from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.base import MISSING, SHARED_PROTOCOL, PaperBase, experiment, fmt_ci
from rlvr_lib.papers.framework.claims import (
    COUNTED,
    DOES_NOT_HOLD,
    EFFECT_EXCLUDED,
    HOLDS,
    INCONCLUSIVE,
    METHOD_FAILED,
    NOT_RUN,
    NOT_TESTABLE,
    OPPOSITE,
    VERDICTS,
    Estimate,
    NotTestable,
    estimate_of,
)
from rlvr_lib.papers.framework.guard import METHOD, settings_difference
from rlvr_lib.papers.framework.output import PAPERS_DIR, WriteUp
from rlvr_lib.papers.framework.references import REFERENCES
from rlvr_lib.papers.framework.results import ACCURACY, step_time
from rlvr_lib.papers.framework.writeup import CAN_SAY, CANNOT_SAY, TESTBED_SCALE
from rlvr_lib.render import plots
from rlvr_lib.render.tables import markdown_table

LOG_RETAINED = "log entropy retained"
EXPLODED = "entropy past x2 of its start at the peak (diverged)"
FAILURE_KINDS = {  # a kind of gate failure -> the text its reason carries (rlvr_lib.papers.framework.gates)
    EXPLODED: "rollout entropy peaked",
    "below its base policy (diverged)": "below its base policy",
    "did not learn (under a share of GRPO's gain)": "did not learn",
    "idle (its mechanism never acted)": "non-zero on",
}
GATE_FAILURE = re.compile(r"(?:^|; )([\w.-]+) seed \d+: (.*?)(?=; [\w.-]+ seed \d+: |$)")
PROTOCOL_NOTE = (
    "Every method here trains at the shared testbed settings with its own paper's hyperparameters (the strictly "
    "on-policy ones at one update per rollout batch), so the summary compares methods under one protocol rather "
    "than each paper's; the papers' own settings are compared in their reports. CW-GRPO is therefore here at the "
    "shared 2 updates per rollout batch, unclipped, while its own report runs it at the paper's 1 update (each "
    "report marks the runs with a failed seed)."
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
        self.uncompared: list[str] = []  # methods the ranking could not compare with a GRPO run, with the reason

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
        """Paired-by-seed difference of ``quantity`` (an eval metric, or "log entropy retained")."""
        if quantity == LOG_RETAINED:
            return self.results.compare_history(
                a, b, measures.log_entropy_retained, differs_in=self.method_difference(a, b)
            )
        return self.compare(a, b, quantity, self.method_difference(a, b))

    def failed_seeds(self, run: str) -> str:
        """The run's seeds that fail the ``healthy`` gate ('' when none)."""
        return self.results.divergence(run)

    def reference_of(self, run: str) -> str | None:
        """The GRPO run of ``run``'s protocol group (the reference at the shared settings; GRPO on-policy among the
        strictly on-policy runs), None where the group has none."""
        group = self.protocol_groups().get(self.protocol(run), [])
        refs = [r for r in group if self.params.runs[r].method in measures.GRPO_METHODS]
        return self.runs.reference if self.runs.reference in refs else (refs[0] if refs else None)

    def versus_reference(self, run: str, quantity: str) -> tuple[Estimate | None, str]:
        """(d, 'above' | 'below' | 'not distinguishable') of ``run`` minus its protocol group's GRPO run."""
        ref = self.reference_of(run)
        if ref is None or run == ref:
            return None, ""
        d = self._paired(run, ref, quantity)
        side = "above" if d.ci_low > 0 else "below" if d.ci_high < 0 else "not distinguishable"
        return d, side

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
            seeds = self.results.seeds_of(run)
            row = {"run": run, "method": "—" if run == "base" else self.params.runs[run].method, **raw}
            row["n_seeds"] = len(seeds)
            shown = {"run": f"`{self.results.label(run)}`", "seeds": str(len(seeds)), "mean@n": cells[ACCURACY]}
            shown[f"pass@{k}"] = cells[f"pass@{k}"]
            if run == "base":
                shown.update({"minus " + ref: MISSING, "entropy retained": MISSING, "time / step vs " + ref: MISSING})
            else:
                d, _ = self.versus_reference(run, ACCURACY)
                logs = self.results.per_seed(run, measures.log_entropy_retained)
                t = self.time_ratio(run)
                row.update(
                    {
                        "minus_ref": d.value if d else float("nan"),
                        "minus_ref_ci_low": d.ci_low if d else float("nan"),
                        "minus_ref_ci_high": d.ci_high if d else float("nan"),
                        "log_entropy_retained": logs.mean(),
                        "time_ratio": t.value,
                        "time_ratio_ci_low": t.ci_low,
                        "time_ratio_ci_high": t.ci_high,
                        "failed_seeds": self.failed_seeds(run),
                    }
                )
                if d is not None and self.reference_of(run) == ref:
                    shown["minus " + ref] = fmt_ci(d.value, d.ci_low, d.ci_high)
                elif d is not None:
                    shown["minus " + ref] = f"{fmt_ci(d.value, d.ci_low, d.ci_high)} vs `{self.reference_of(run)}`"
                else:
                    shown["minus " + ref] = MISSING
                shown["entropy retained"] = (
                    f"x{np.exp(logs.mean()):.2f} ({', '.join(f'x{v:.2f}' for v in np.exp(logs))})"
                )
                shown["time / step vs " + ref] = fmt_ci(t.value, t.ci_low, t.ci_high, 2)
            shown["length"] = cells["response_length"]
            upd = self.results.updates_per_rollout(run)
            shown["updates / rollout"] = MISSING if upd is None else str(upd)
            raw_rows.append(row)
            shown_rows.append(shown)
        text = (
            f"mean@n and pass@{k}: mean over seeds and problems [95% t interval over seeds, on the logit scale so it "
            f"stays in [0, 1]]; seeds: the run's training seeds (each interval is over them); 'minus {ref}': paired "
            "difference over the seeds both trained, for runs of its protocol group only; entropy retained: rollout "
            f"entropy over {measures.TAIL_LABEL} / the first batch's, the geometric mean over seeds (the mean of the "
            "logs) and each seed's; time per step: each seed's mean wall time per optimizer step / "
            f"{ref}'s, mean [interval over seeds] (runs share a machine, so times carry its load). A run marked "
            "'(diverged)' has a seed below its own base policy or whose entropy passed x2 of its start."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "overview", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
        return pd.DataFrame(shown_rows)

    @experiment("Each method against GRPO, by protocol group")
    def ranking(self, heading: str) -> pd.DataFrame:
        """Pairwise with the reference (GRPO) instead of tie groups: a group led by a noisy or failed run says
        nothing; a paired difference to one fixed run does."""
        ref = self.runs.reference
        raw_rows, shown_rows = [], []
        self.uncompared = []
        try:
            k = max(x for x in k_values(self.results.samples(ref)))
        except (
            NotTestable
        ) as reason:  # the reference itself cannot be read (e.g. changed in params.yaml, not retrained)
            self.uncompared.append(f"every method ({reason})")
            self.report.section(heading, f"Not compared: {'; '.join(self.uncompared)}.")
            return pd.DataFrame()
        quantities = (ACCURACY, f"pass@{k}", LOG_RETAINED)
        for run in self.methods():
            own = self.reference_of(run)
            if own is None:
                self.uncompared.append(f"`{run}` (no GRPO run trains under its protocol)")
                continue
            if run == own:
                continue
            try:
                raw = {"run": run, "reference": own, "failed_seeds": self.failed_seeds(run)}
                shown = {
                    "run": f"`{self.results.label(run)}`",
                    "against": f"`{own}`",
                    "seeds": str(len(self.results.common_seeds(run, own))),
                }
                for quantity in quantities:
                    d, side = self.versus_reference(run, quantity)
                    raw.update({quantity: d.value, f"{quantity}_ci_low": d.ci_low, f"{quantity}_ci_high": d.ci_high})
                    raw[f"{quantity}_side"] = side
                    shown[f"{quantity} minus it"] = f"{fmt_ci(d.value, d.ci_low, d.ci_high)} {side}"
            except NotTestable as reason:  # e.g. its GRPO run changed in params.yaml and not retrained
                self.uncompared.append(f"`{run}` ({reason})")
                continue
            raw_rows.append(raw)
            shown_rows.append(shown)
        columns = ["run", "reference", "failed_seeds"] + [f"{q}{x}" for q in quantities for x in ("", "_side")]
        raw = pd.DataFrame(raw_rows, columns=list(dict.fromkeys([*columns, *(raw_rows[0] if raw_rows else [])])))
        # healthy runs first, then by the accuracy difference: a run with a failed seed never leads
        order = raw.assign(failed=raw["failed_seeds"] != "").sort_values(["failed", ACCURACY], ascending=[True, False])
        shown = pd.DataFrame(shown_rows).loc[order.index].reset_index(drop=True)
        self.report.section(
            heading,
            f"Each method minus the GRPO run of its protocol group ({ref} at the shared settings; GRPO on-policy for "
            "the strictly on-policy methods), paired by seed over the seeds both trained, with a 95% t interval: "
            "'above' / 'below' when the interval excludes 0, else 'not distinguishable'. Entropy: the "
            "difference of log entropy retained (0.69 = twice the entropy kept). Runs with a failed seed "
            "('(diverged)') are listed after the healthy ones."
            + (f" Not compared: {'; '.join(self.uncompared)}." if self.uncompared else ""),
        )
        self.report.add_table(heading, "versus_reference", order.drop(columns="failed"), shown)
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
            frames.append(pd.read_csv(path, keep_default_na=False, na_values=[""]).assign(paper_name=paper))
        claims = pd.concat(frames, ignore_index=True)
        for column in ("method_runs", "root_cause"):
            if column not in claims:
                raise ValueError(
                    f"claims.csv of every paper needs column '{column}': rerun the paper stages (dvc repro)"
                )
        for column in ("parent", "kind", "robustness", "arms", "method_runs", "root_cause", "gate_failures"):
            claims[column] = claims[column].fillna("") if column in claims else ""
        return claims

    def whole_claims(self) -> pd.DataFrame:
        """The claims counted (a conjunctive claim once, its parts not at all), with ``about``: whether a claim
        reads a run that switches its paper's mechanism on ('the method': claims.csv's ``method_runs``, declared per
        paper by ``framework.about.Mechanism``) or only baselines, ablations with the mechanism off and diagnostics
        ('other runs')."""
        claims = self.gathered_claims()
        whole = claims[claims["parent"] == ""].copy()
        whole["about"] = ["the method" if runs.strip() else "other runs" for runs in whole["method_runs"]]
        return whole

    def verdict_counts(self) -> pd.DataFrame:
        """paper x column: the claims with each verdict, 'does not hold' split by kind, and how many verdicts are
        robust to the paper's declared alternatives and how many hinge on one."""
        whole = self.whole_claims()
        rows = []
        for paper in self.settings.papers:
            mine = whole[whole["paper_name"] == paper]
            row = {"paper": paper, **{v: int((mine["verdict"] == v).sum()) for v in VERDICTS}}
            refuted = mine[mine["verdict"] == DOES_NOT_HOLD]
            row["of which: opposite effect"] = int((refuted["kind"] == OPPOSITE).sum())
            row["of which: paper's effect excluded"] = int((refuted["kind"] == EFFECT_EXCLUDED).sum())
            judged = mine[mine["verdict"].isin(COUNTED)]
            row["verdicts robust"] = int(judged["robustness"].str.startswith("robust").sum())
            row["verdicts that hinge"] = int(judged["robustness"].str.startswith("hinges").sum())
            row["holds, about the method"] = int(((mine["verdict"] == HOLDS) & (mine["about"] == "the method")).sum())
            roots = refuted["root_cause"]
            row["independent refutations"] = int(roots[roots != ""].nunique() + (roots == "").sum())
            row["claims"] = len(mine)
            rows.append(row)
        return pd.DataFrame(rows).set_index("paper")

    @experiment("Which claims hold, paper by paper")
    def paper_claims(self, heading: str) -> pd.DataFrame:
        counts = self.verdict_counts().reset_index()
        shown_counts = counts.assign(paper=[f"[{p}](../{p}/README.md)" for p in counts["paper"]])
        self.report.add_table(
            heading,
            "verdicts_by_paper",
            counts,
            shown_counts,
            "Verdicts per paper (claims; the parts of a conjunctive claim are not counted); 'does not hold' by kind; "
            "how many of the verdicts (holds, does not hold, inconclusive) are robust to the paper's declared "
            "alternatives and how many hinge on one; holding claims that read a run of the paper's own method.",
        )
        claims = self.gathered_claims()

        def interval(row) -> str:
            if pd.isna(row["value"]):
                return MISSING
            return f"{row['value']:+.3g} [{row['ci_low']:+.3g}, {row['ci_high']:+.3g}]"

        listing = pd.DataFrame(
            {
                "paper": claims["paper_name"],
                "claim": [
                    ("↳ " if p else "") + f"“{c}”" for p, c in zip(claims["parent"], claims["claim"], strict=True)
                ],
                "source": claims["source"],
                "d (ours)": claims["ours_definition"],
                "ours": [interval(row) for _, row in claims.iterrows()],
                "verdict": [
                    f"**{v}**" + (f" ({k})" if k else "")
                    for v, k in zip(claims["verdict"], claims["kind"], strict=True)
                ],
                "robustness": [r or MISSING for r in claims["robustness"]],
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
        self.report.add_text_file("takeaway.md", self.takeaway() + "\n")
        return self.report.write()

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

    def takeaway(self) -> str:
        """One paragraph generated from the comparisons with GRPO, the health marks and the verdicts."""
        ref = self.runs.reference
        try:
            table = self.ranking_frame()
        except NotTestable as reason:  # the whole comparison could not be made (e.g. its GRPO run not retrained)
            table = pd.DataFrame(columns=["run", "failed_seeds", f"{ACCURACY}_side", f"{LOG_RETAINED}_side"])
            self.uncompared = [f"every method ({reason})"]
        healthy = table[table["failed_seeds"] == ""]

        def names(rows: pd.DataFrame) -> str:
            return ", ".join(f"`{r}`" for r in rows["run"]) or "none"

        better = healthy[healthy[f"{ACCURACY}_side"] == "above"]
        worse = healthy[healthy[f"{ACCURACY}_side"] == "below"]
        tied = healthy[healthy[f"{ACCURACY}_side"] == "not distinguishable"]
        keeps = healthy[healthy[f"{LOG_RETAINED}_side"] == "above"]
        failed = table[table["failed_seeds"] != ""]
        counts = self.verdict_counts()
        total = counts.sum()
        return (
            f"**Takeaway** (generated from the tables below). Against GRPO under the same protocol (`{ref}`; GRPO "
            "on-policy for the on-policy methods), paired by seed: "
            f"more accurate (mean@n, interval above 0): {names(better)}; less accurate: {names(worse)}; not "
            f"distinguishable: {names(tied)}. Keeping more rollout entropy than GRPO (log scale): {names(keeps)}. "
            f"Runs with a failed seed (below its own base policy, or entropy past x2 of its start), not ranked: "
            f"{names(failed)}. "
            + (f"Not compared: {'; '.join(self.uncompared)}. " if self.uncompared else "")
            + f"Of the five papers' {int(total['claims'])} claims, {int(total[HOLDS])} hold "
            f"({int(total['holds, about the method'])} of them read a run with the paper's mechanism on), "
            f"{int(total[DOES_NOT_HOLD])} do not ({int(total['independent refutations'])} independent findings once "
            f"refutations that share a root cause count once; {int(total['of which: opposite effect'])} with the "
            f"opposite effect detected), {int(total[INCONCLUSIVE])} are inconclusive, {int(total[METHOD_FAILED])} "
            f"hold only on a run that failed, {int(total[NOT_TESTABLE])} are not testable here and "
            f"{int(total[NOT_RUN])} are not run; "
            f"{int(total['verdicts that hinge'])} verdicts hinge on a declared alternative."
        )

    def ranking_frame(self) -> pd.DataFrame:
        return self.report_table("versus_reference")

    def report_table(self, name: str) -> pd.DataFrame:
        self.run_all()
        for section in self.report.sections:
            for table in section.tables:
                if table.name == name:
                    return table.data
        raise NotTestable(f"the summary has no table '{name}'")

    def summary(self) -> str:
        counts = self.verdict_counts()
        total = counts.sum()
        judged = int(total[HOLDS] + total[DOES_NOT_HOLD] + total[INCONCLUSIVE])
        excluded = int(total["of which: paper's effect excluded"])
        return "\n".join(
            [
                self.takeaway(),
                "",
                f"- **Claims:** {int(total['claims'])} of five papers ("
                + "; ".join(f"{p}: {int(counts.loc[p, 'claims'])}" for p in counts.index)
                + f"); {judged} have a verdict on the testbed, of which {int(total['verdicts robust'])} are robust to "
                f"the papers' declared alternatives and {int(total['verdicts that hinge'])} hinge on one.",
                f"- **Holds:** {int(total[HOLDS])} ({int(total['holds, about the method'])} read a run with the "
                "paper's mechanism switched on; the others are about baselines, ablations with it off, or "
                f"diagnostics); **does not hold:** {int(total[DOES_NOT_HOLD])} "
                f"({int(total['independent refutations'])} independent: refutations that share a declared root cause, "
                "or stand on the same failed runs, count once; "
                f"{int(total['of which: opposite effect'])} opposite effect detected, {excluded} the paper's "
                "effect excluded).",
                f"- **Inconclusive:** {int(total[INCONCLUSIVE])} (each paper's Claims say which are underpowered).",
                f"- **Method failed:** {int(total[METHOD_FAILED])} (a run the claim reads failed a health gate on a "
                "seed); **not testable here:** "
                f"{int(total[NOT_TESTABLE])}; **not run:** {int(total[NOT_RUN])} (each paper's Limitations lists them "
                "with the reason or the cost).",
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
        lines = [
            f"- {p}: {int(counts.loc[p, HOLDS])} hold ({int(counts.loc[p, 'holds, about the method'])} about the "
            f"method's own run), {int(counts.loc[p, DOES_NOT_HOLD])} do not, {int(counts.loc[p, INCONCLUSIVE])} "
            f"inconclusive, {int(counts.loc[p, METHOD_FAILED])} on a failed run, {int(counts.loc[p, NOT_TESTABLE])} "
            f"not testable here, {int(counts.loc[p, NOT_RUN])} not run; {int(counts.loc[p, 'verdicts that hinge'])} "
            "verdicts hinge on a declared alternative" + "".join(f"; {c} ({n} claims)" for c, n in self.shared_roots(p))
            for p in counts.index
        ]
        across = (
            "Per paper (a holding claim about a baseline, an ablation with the mechanism off or a diagnostic says "
            "nothing about the paper's method, so those about a run with the mechanism on are counted apart; the "
            "refutations that share one root cause are named with it):"
        )
        return "\n\n".join([across, "\n".join(lines), self.synthesis(), PROTOCOL_NOTE])

    def shared_roots(self, paper: str) -> list[tuple[str, int]]:
        """(root cause, refutations) of ``paper`` for each cause two or more of its refutations share."""
        whole = self.whole_claims()
        roots = whole[(whole["paper_name"] == paper) & (whole["verdict"] == DOES_NOT_HOLD)]["root_cause"]
        counts = roots[roots != ""].value_counts(sort=False)
        return [(cause, int(n)) for cause, n in counts.items() if n > 1]

    def failed_methods(self) -> dict[str, dict[str, set[str]]]:
        """failure kind -> {paper: runs with the paper's mechanism on that failed it on some seed}, from every claim's
        ``gate_failures`` (kinds: ``FAILURE_KINDS``)."""
        out: dict[str, dict[str, set[str]]] = {kind: {} for kind in FAILURE_KINDS}
        for _, row in self.gathered_claims().iterrows():
            mine = set(row["method_runs"].split())
            for run, reason in GATE_FAILURE.findall(row["gate_failures"]):
                for kind, marker in FAILURE_KINDS.items():
                    if run in mine and marker in reason:
                        out[kind].setdefault(row["paper_name"], set()).add(run)
        return out

    def synthesis(self) -> str:
        """Across papers, generated from the claims' gate failures: which mechanisms diverge, fail to learn or stay
        idle on this model, and the reading they share."""
        failed = self.failed_methods()

        def listing(by_paper: dict[str, set[str]]) -> str:
            return "; ".join(f"{p}: {', '.join(f'`{r}`' for r in sorted(runs))}" for p, runs in by_paper.items())

        lines = [f"- {kind}: {listing(by_paper)}" for kind, by_paper in failed.items() if by_paper]
        if not lines:
            return "Across papers: no run with a paper's mechanism on failed a health gate."
        exploded = sorted(failed[EXPLODED])
        reading = (
            f" Runs of {', '.join(exploded)} with the mechanism on diverge here (entropy past x2): each such run "
            "pushed its entropy up on a 0.56M-parameter policy at learning rate 1e-4, 100x the papers' "
            "(docs/testbed.md), and nothing in its mechanism braked once the entropy had risen; these explosions are "
            "findings about the testbed's scale, not refutations at the papers'."
            if exploded
            else ""
        )
        return (
            "Across papers (generated from the claims' gate failures; runs with the paper's mechanism on):\n\n"
            + "\n".join(lines)
            + ("\n\n" + reading.strip() if reading else "")
        )

    def limitations(self) -> str:
        return "\n\n".join([TESTBED_SCALE, CAN_SAY, CANNOT_SAY])
