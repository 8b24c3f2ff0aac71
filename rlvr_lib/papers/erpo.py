"""ERPO (erpo.txt, arXiv 2603.28204) on the testbed: tables 1-2, fig. 1(b), figs. 4-5, one ablation per component,
and App. A.3's data filter counted on the real MATH files.

The paper compares ERPO with Base, SFT and GRPO (no ablation section); SFT is the testbed base policy itself (the
base is built by supervised warm-up), so table 1's rows are base / GRPO / ERPO. Every run trains on ERPO's training
set (``train_data: erpo``: its level and solution-length filter on the testbed, the filter_data stage).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import plots
from .base import MISSING, PaperBase, experiment, fmt, fmt_ci
from .claims import ClaimResult, Estimate, NotTestable, estimate_of, judge
from .results import ACCURACY, entropy_retained, step_time, tail_mean, total_time

PAPER_TABLE1 = {  # erpo.txt table 1, "Average" columns: Acc, Fmt (%), per scale
    "base": "Acc 8.23 / Fmt 82.29 (7B)",
    "GRPO": "Acc 19.43 / Fmt 96.01 (7B); 12.17 / 93.93 (3B)",
    "ERPO": "Acc 20.70 / Fmt 96.98 (7B); 14.10 / 96.51 (3B)",
}
PAPER_TABLE2_AMC_7B = {  # erpo.txt table 2, AMC 23, Qwen2.5-7B: pass@2, 4, 8, 16 (%)
    "base": {2: 38.15, 4: 54.06, 8: 67.42, 16: 77.50},
    "GRPO": {2: 60.81, 4: 71.62, 8: 79.25, 16: 82.50},
    "ERPO": {2: 63.40, 4: 75.22, 8: 84.21, 16: 90.00},
}
ABLATION_SWITCHES = (
    "use_entropy_gate",
    "use_implicit_progress",
    "use_bucket_norm",
    "use_outcome_anchor",
    "use_psi_rescale",
    "use_group_norm",
)
COMPONENT = {
    "use_entropy_gate": "(i) entropy-aware gating, eq. 8",
    "use_bucket_norm": "(ii) bucket-based implicit normalisation, eq. 9",
    "use_outcome_anchor": "(iii) result-anchored advantage synthesis, eq. 10",
    "use_implicit_progress": "the implicit progress signal s, eq. 7",
    "use_psi_rescale": "the rescale of Psi, Alg. 1 line 19",
    "use_group_norm": "Norm_G of eq. 10",
}
TAIL = 5


class Paper(PaperBase):
    name = "erpo"
    title = "ERPO: Token-Level Entropy-Regulated Policy Optimization — replication on the testbed"
    source = "../shared/papers/erpo.txt"
    intro = (
        "ERPO (Yu et al., arXiv 2603.28204) replaces GRPO's sequence advantage by token advantages: an implicit "
        "progress signal s = beta (log pi - log pi_ref) (eq. 7), z-scored within relative-position buckets (eq. 9), "
        "gated by the token's entropy W = sigmoid(gamma Norm_G(H)) (eq. 8) and anchored to the sign of the outcome "
        "advantage, added to A_i and renormalised per group (eq. 10). The paper reports higher accuracy and format "
        "rate than GRPO (table 1), higher pass@k (table 2), that perturbing high-entropy tokens hurts far more than "
        "low-entropy ones (fig. 1(b)), retained entropy (fig. 4) and shorter answers at no extra training time "
        "(fig. 5). Rows: `base` (the testbed's supervised base policy, which plays both Base and SFT), GRPO, ERPO."
    )

    def __init__(self, params):
        super().__init__(params)
        r = self.runs
        self.rows = [("base", r.base), ("GRPO", r.grpo), ("ERPO", r.erpo)]

    # ------------------------------------------------------------------ helpers
    def ablation_switch(self, run: str) -> str:
        """The one use_* switch that run ``run`` turns off (the ablation's label)."""
        spec = self.params.runs[run]
        off = [k for k in ABLATION_SWITCHES if spec.hparams.get(k) is False]
        if spec.method != "erpo" or len(off) != 1:
            return f"{spec.method}: not a one-switch ERPO ablation"
        return off[0]

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        r = self.runs
        acc = f"mean@n of {r.erpo} minus {r.grpo} (accuracy over n samples = unbiased pass@1)"
        self.claim(
            "acc_vs_grpo",
            "ERPO ... consistently outperforms GRPO across all average metrics",
            "sec. 5.3, table 1 (Acc)",
            "Acc (avg.) 20.70 vs 19.43 (7B), 14.10 vs 12.17 (3B), 9.31 vs 8.75 (1.5B)",
            acc,
            "greater",
            0.01,
            lambda: self.compare(r.erpo, r.grpo, ACCURACY),
        )
        self.claim(
            "fmt_vs_grpo",
            "the format consistency rate (Fmt) also shows a steady improvement across all benchmarks",
            "sec. 5.3, table 1 (Fmt)",
            "Fmt (avg.) 96.98 vs 96.01 (7B), 96.51 vs 93.93 (3B)",
            f"format rate (boxed answers) of {r.erpo} minus {r.grpo}",
            "greater",
            0.01,
            lambda: self.compare(r.erpo, r.grpo, "format_rate"),
        )
        for k in self.settings.pass_at_k:
            paper = PAPER_TABLE2_AMC_7B["ERPO"].get(k), PAPER_TABLE2_AMC_7B["GRPO"].get(k)
            self.claim(
                f"pass{k}_vs_grpo",
                "ERPO consistently outperforms GRPO under the same parameter scale across most sampling settings",
                f"sec. 5.4, table 2 (pass@{k})",
                f"AMC23 7B pass@{k}: {paper[0]} vs {paper[1]}" if paper[0] else "table 2",
                f"pass@{k} (unbiased, from the n eval samples) of {r.erpo} minus {r.grpo}",
                "greater",
                0.01,
                lambda k=k: self.compare(r.erpo, r.grpo, f"pass@{k}"),
            )
        p = self.settings.perturbation
        self.claim(
            "perturbation",
            "perturbing high entropy token leads to a sharp 35.2% drop in inference accuracy ..., while the model "
            "remains highly robust to perturbations of low entropy steps",
            "sec. 1, fig. 1(b)",
            "35.2% drop (top 5%) vs robust (bottom 5%); p < 0.001",
            f"accuracy after perturbing the bottom {p.frac:.0%} entropy tokens minus after the top {p.frac:.0%}, "
            f"responses of `{p.policy}` it answered correctly (interval over responses: one policy)",
            "greater",
            0.02,
            self._perturbation_claim,
        )
        self.claim(
            "entropy_retained",
            "ERPO maintains a healthy entropy level between 0.2 and 0.4 in the late stages, whereas GRPO suffers "
            "from entropy collapse",
            "sec. 5.6, fig. 4(b)",
            "late entropy 0.2-0.4 (ERPO) vs 0.05 (GRPO)",
            f"entropy retained (rollout entropy, last {TAIL} steps / step 1) of {r.erpo} minus {r.grpo}, per seed",
            "greater",
            0.05,
            lambda: self.results.compare_history(r.erpo, r.grpo, entropy_retained),
        )
        self.claim(
            "kl_higher",
            "our KL divergence is slightly higher than that of standard GRPO",
            "sec. 5.6, fig. 4(d)",
            "slightly higher (no number)",
            f"KL to the reference (k3, mean over the last {TAIL} steps) of {r.erpo} minus {r.grpo}, per seed",
            "greater",
            0.0,
            lambda: self.results.compare_history(r.erpo, r.grpo, lambda h: tail_mean(h, "kl_to_reference", TAIL), 4),
        )
        self.claim(
            "shorter",
            "our models achieve higher accuracy while maintaining shorter sequence lengths",
            "sec. 5.7, fig. 5(a)",
            "shorter at the best checkpoint (7B, no number)",
            f"mean response length (tokens) in evaluation of {r.erpo} minus {r.grpo}",
            "less",
            1.0,
            lambda: self.compare(r.erpo, r.grpo, "response_length"),
        )
        self.claim(
            "time",
            "the total training time for ERPO is comparable to GRPO with almost no increase",
            "sec. 5.7, fig. 5(b)",
            "comparable (no number)",
            f"mean wall time per optimizer step of {r.erpo} / {r.grpo} - 1, per seed (runs share the machine: noisy)",
            "equal",
            0.1,
            self._time_claim,
        )
        for run in r.ablations:
            switch = self.ablation_switch(run)
            self.claim(
                f"ablation_{run}",
                "ERPO introduces three synergistic components",
                "abstract; no ablation in the paper",
                "not reported",
                f"mean@n of {r.erpo} minus {run} ({switch} off: {COMPONENT.get(switch, switch)})",
                "greater",
                0.01,
                lambda run=run: self.compare(r.erpo, run, ACCURACY),
            )
        rd = self.settings.real_data
        self.claim(
            "filter_count",
            "The final processed training set contains 8,441 valid instances",
            "App. A.3",
            f"{rd.paper_count:,} (MATH levels 3-5, solutions <= {rd.fraction:g} x {rd.max_length} tokens)",
            f"our count on {rd.train_set} minus {rd.paper_count} (Qwen2.5 tokenizer; exact, no interval)",
            "equal",
            round(0.01 * rd.paper_count),
            self._count_claim,
        )

    def _perturbation_claim(self) -> Estimate:
        study = self.perturbation_study()
        d = study["difference_bottom_minus_top"]
        top, bottom = study["accuracy"]["top"]["value"], study["accuracy"]["bottom"]["value"]
        return Estimate(
            d["value"],
            d["ci_low"],
            d["ci_high"],
            1,
            study["n_responses"],
            f"accuracy {bottom:.3f} (bottom perturbed) vs {top:.3f} (top perturbed); responses",
        )

    def _time_claim(self) -> Estimate:
        r = self.runs
        a = self.results.per_seed(r.erpo, step_time)
        b = self.results.per_seed(r.grpo, step_time)
        return estimate_of(
            a / b - 1,
            n_boot=self.results.n_boot,
            detail=f"{r.erpo} {a.mean():.3f} s vs {r.grpo} {b.mean():.3f} s per step",
        )

    def _count_claim(self) -> ClaimResult | Estimate:
        counts = self.real_data_counts()
        d = counts["kept"] - counts["paper"]
        estimate = Estimate(float(d), float(d), float(d), 0, None, f"{counts['kept']:,} kept of {counts['levels']:,}")
        return judge(self._claim_of("filter_count"), estimate, note=counts["note"])

    def _claim_of(self, key: str):
        return next(c for c, _ in self._claims if c.key == key)

    # ------------------------------------------------------------------ experiments
    @experiment("Table 1: accuracy and format rate")
    def table1(self, heading: str) -> pd.DataFrame:
        raw, shown = self.eval_table(self.rows, [ACCURACY, "format_rate"], PAPER_TABLE1, "paper (avg. over 4 sets, %)")
        shown = shown.rename(columns={ACCURACY: "Acc (mean@n)", "format_rate": "Fmt (boxed rate)"})
        self.report.add_table(
            heading,
            "table1",
            raw,
            shown,
            "Acc: mean accuracy over the n evaluation samples of each problem; Fmt: share of samples with a closed "
            "\\boxed{}. Mean over seeds and problems [95% two-way bootstrap interval].",
        )
        return shown

    @experiment("Table 2: pass@k")
    def table2(self, heading: str) -> pd.DataFrame:
        ks = self.settings.pass_at_k
        raw, shown = self.eval_table(self.rows, [f"pass@{k}" for k in ks])
        paper = {
            label: ", ".join(f"{PAPER_TABLE2_AMC_7B[label].get(k, MISSING)}" for k in ks) for label, _ in self.rows
        }
        shown["paper (AMC23, 7B, %)"] = [paper[label] for label, _ in self.rows]
        self.report.add_table(
            heading,
            "table2_pass_at_k",
            raw,
            shown,
            f"Unbiased pass@k for k in {ks} from the n samples per problem ({MISSING}: k > n).",
        )
        return shown

    def perturbation_study(self) -> dict:
        """fig. 1(b)'s study on the settings' policy (cached): ``rlvr_lib.analysis.perturbation``."""
        if "_perturbation" not in self._done:
            try:
                self._done["_perturbation"] = run_perturbation(self.params, self.settings.perturbation)
            except NotTestable as reason:
                self._done["_perturbation"] = reason
        if isinstance(self._done["_perturbation"], NotTestable):
            raise self._done["_perturbation"]
        return self._done["_perturbation"]

    @experiment("Fig. 1(b): perturbing high- and low-entropy tokens")
    def figure1b(self, heading: str):
        p = self.settings.perturbation
        study = self.perturbation_study()
        rows = []
        for which, label in (("top", f"top {p.frac:.0%} entropy"), ("bottom", f"bottom {p.frac:.0%} entropy")):
            acc, ctrl = study["accuracy"][which], study["control_accuracy"][which]
            rows.append(
                {
                    "tokens perturbed": label,
                    "accuracy": acc["value"],
                    "accuracy_ci_low": acc["ci_low"],
                    "accuracy_ci_high": acc["ci_high"],
                    "control_accuracy": ctrl["value"],
                    "mean_entropy": study["mean_entropy"][which],
                    "trials": study["n_trials"][which],
                }
            )
        raw = pd.DataFrame(rows)
        shown = pd.DataFrame(
            {
                "tokens perturbed": raw["tokens perturbed"],
                "accuracy after perturbation": [
                    fmt_ci(a, lo, hi) for a, lo, hi in raw[["accuracy", "accuracy_ci_low", "accuracy_ci_high"]].values
                ],
                "control (token kept, rest regenerated)": [fmt(v) for v in raw["control_accuracy"]],
                "mean entropy of those tokens (nats)": [fmt(v) for v in raw["mean_entropy"]],
                "trials": raw["trials"],
            }
        )
        text = (
            f"Policy `{p.policy}`; {study['n_responses']} responses it answered correctly (one per problem, from "
            f"{p.samples} samples each); at each selected position the token is replaced ({p.replacement}) and the "
            "policy regenerates the rest; the control keeps the token. Paper: Qwen2.5-3B, perturbing the top 5% "
            "drops accuracy by 35.2%, the bottom 5% barely matters."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "figure1b_perturbation", raw, shown)
        fig, (ax,) = plots._new_figure(1, ncols=1, panel_size=(4.4, 3.2))
        for i, row in raw.iterrows():
            ax.bar(i, row["accuracy"], color=plots.PALETTE[i])
            ax.errorbar(
                i,
                row["accuracy"],
                yerr=[[row["accuracy"] - row["accuracy_ci_low"]], [row["accuracy_ci_high"] - row["accuracy"]]],
                color="black",
                capsize=3,
            )
            ax.plot([i - 0.4, i + 0.4], [row["control_accuracy"]] * 2, "k--", linewidth=1)
        ax.set_xticks(range(len(raw)), raw["tokens perturbed"])
        ax.set_ylabel("accuracy after regeneration")
        ax.set_ylim(0, 1.05)
        ax.set_title("fig. 1(b): perturbation study (dashed: control)")
        self.report.add_figure(heading, "figure1b_perturbation", fig)
        return shown

    @experiment("Fig. 4: training dynamics")
    def figure4(self, heading: str):
        r = self.runs
        fig = self.curves(
            [r.grpo, r.erpo],
            [
                ("reward", "(a) reward", "linear"),
                ("entropy/mean", "(b) entropy (symlog)", "symlog"),
                ("grad_norm", "(c) grad norm", "linear"),
                ("kl_to_reference", "(d) KL to reference", "linear"),
            ],
            ema_alpha=self.settings.ema_alpha,
            title=f"ERPO vs GRPO (EMA alpha = {self.settings.ema_alpha}; raw faint; band: seeds' min-max)",
        )
        self.report.add_figure(heading, "figure4_training_dynamics", fig)
        return fig

    @experiment("Fig. 5: response length and training time")
    def figure5(self, heading: str):
        r = self.runs
        trained = [("GRPO", r.grpo), ("ERPO", r.erpo)]
        raw_eval, shown_eval = self.eval_table(self.rows, [ACCURACY, "response_length"])
        raw_t, shown_t = self.seed_values_table(
            trained, {"total training time (s)": total_time, "time per step (s)": step_time}
        )
        self.report.add_table(heading, "figure5a_accuracy_length", raw_eval, shown_eval, "(a) accuracy and length")
        self.report.add_table(heading, "figure5b_training_time", raw_t, shown_t, "(b) training time, mean (per seed)")
        fig, axes = plots._new_figure(3, ncols=3, panel_size=(4.0, 3.2))
        colors = plots.run_colors([run for _, run in self.rows])
        for label, run in self.rows:
            acc, length = self.results.eval_summary(run, ACCURACY)[0], self.results.eval_summary(run, "response_length")
            axes[0].errorbar(
                length[0], acc, xerr=[[length[0] - length[1]], [length[2] - length[0]]], fmt="o", color=colors[run]
            )
            axes[0].annotate(label, (length[0], acc), textcoords="offset points", xytext=(4, 4))
        axes[0].set_xlabel("response length (tokens)")
        axes[0].set_ylabel("accuracy (mean@n)")
        axes[0].set_title("(a) accuracy vs length")
        for i, (_, run) in enumerate(trained):
            values = self.results.per_seed(run, total_time)
            axes[1].bar(i, values.mean(), color=colors[run])
            self.per_seed_points(axes[1], i, values, colors[run])
        axes[1].set_xticks(range(len(trained)), [label for label, _ in trained])
        axes[1].set_ylabel("seconds")
        axes[1].set_title("(b) total training time")
        for label, run in trained:
            plots._plot_curve(
                axes[2],
                self.results.history(run),
                "completions/mean_length",
                colors[run],
                label,
                self.settings.ema_alpha,
            )
        axes[2].set_xlabel("step")
        axes[2].set_title(f"(c) rollout length (EMA {self.settings.ema_alpha})")
        axes[2].legend()
        self.report.add_figure(heading, "figure5_length_time", fig)
        return fig

    @experiment("Ablations: one component off at a time")
    def ablations(self, heading: str) -> pd.DataFrame:
        r = self.runs
        rows = []
        raw_rows = []
        for run in [r.erpo, *r.ablations]:
            value, low, high = self.results.eval_summary(run, ACCURACY)
            switch = "none (full ERPO)" if run == r.erpo else self.ablation_switch(run)
            retained = self.results.per_seed(run, entropy_retained).mean()
            if run == r.erpo:
                diff = MISSING
                d = Estimate(math.nan, math.nan, math.nan, 0)
            else:
                d = self.compare(run, r.erpo, ACCURACY)
                diff = fmt_ci(d.value, d.ci_low, d.ci_high)
            raw_rows.append(
                {
                    "run": run,
                    "switch_off": switch,
                    "accuracy": value,
                    "accuracy_ci_low": low,
                    "accuracy_ci_high": high,
                    "minus_erpo": d.value,
                    "minus_erpo_ci_low": d.ci_low,
                    "minus_erpo_ci_high": d.ci_high,
                    "entropy_retained": retained,
                }
            )
            rows.append(
                {
                    "run": f"`{run}`",
                    "switched off": switch,
                    "component": COMPONENT.get(switch, MISSING),
                    "mean@n": fmt_ci(value, low, high),
                    "minus ERPO (paired)": diff,
                    "entropy retained": fmt(retained),
                }
            )
        shown = pd.DataFrame(rows)
        self.report.add_table(
            heading,
            "ablations",
            pd.DataFrame(raw_rows),
            shown,
            "The paper has no ablation; its abstract names three components (i-iii) and eq. 7's progress signal is "
            "the fourth ingredient. Each run turns one `use_*` switch off (docs/assumptions.md, ERPO).",
        )
        return shown

    def real_data_counts(self) -> dict:
        if "_counts" not in self._done:
            try:
                self._done["_counts"] = count_real_data(self.params, self.settings.real_data)
            except NotTestable as reason:
                self._done["_counts"] = reason
        if isinstance(self._done["_counts"], NotTestable):
            raise self._done["_counts"]
        return self._done["_counts"]

    @experiment("App. A.3: the training-set filter on the real MATH files")
    def real_data(self, heading: str) -> pd.DataFrame:
        rd = self.settings.real_data
        try:
            c = self.real_data_counts()
        except NotTestable as reason:
            self.report.section(heading, f"Not counted: {reason}.")
            return pd.DataFrame()
        raw = pd.DataFrame([c])
        shown = pd.DataFrame(
            [
                {"step": f"{rd.train_set} (MATH train + test, MATH-500 removed)", "problems": f"{c['loaded']:,}"},
                {"step": f"levels {rd.levels}", "problems": f"{c['levels']:,}"},
                {
                    "step": f"solution <= {rd.fraction:g} x {rd.max_length} = {c['budget']:g} Qwen2.5 tokens",
                    "problems": f"{c['kept']:,}",
                },
                {"step": "the paper (App. A.3)", "problems": f"{c['paper']:,}"},
                {
                    "step": f"solution budget that would keep {c['paper']:,}",
                    "problems": f"{c['budget_for_paper']} tokens",
                },
            ]
        )
        self.report.section(heading, c["note"])
        self.report.add_table(heading, "real_data_filter", raw, shown)
        return shown


# ----------------------------------------------------------------------------- computations
def policy_path(params, policy: str) -> str:
    from .. import pipeline

    return pipeline.model_for_run(params, policy, params.seeds[0])  # base: the first seed's base policy


def run_perturbation(params, settings) -> dict:
    """``rlvr_lib.analysis.perturbation`` on the first ``max_problems`` evaluation problems of every set."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .. import pipeline
    from ..analysis.perturbation import collect_correct_responses, perturbation_study

    path = policy_path(params, settings.policy)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    if torch.cuda.is_available():
        model = model.to("cuda")
    problems = [p for rows in pipeline.eval_sets().values() for p in rows]
    if settings.max_problems is not None:
        problems = problems[: settings.max_problems]
    e = params.eval
    responses = collect_correct_responses(
        model,
        tokenizer,
        problems,
        n=settings.samples,
        max_new_tokens=e.max_new_tokens,
        temperature=e.temperature,
        batch_size=e.batch_size,
        seed=settings.seed,
    )
    if not responses:
        raise NotTestable(f"the policy answered none of {len(problems)} problems correctly in {settings.samples} tries")
    study = perturbation_study(
        model,
        tokenizer,
        responses,
        frac=settings.frac,
        replacement=settings.replacement,
        max_new_tokens=e.max_new_tokens,
        temperature=e.temperature,
        batch_size=e.batch_size,
        seed=settings.seed,
        n_boot=e.n_boot,
    )
    study.pop("trials")
    return study


def count_real_data(params, settings) -> dict:
    """App. A.3's filter on the real files: rows after the level filter and after the solution-length filter with
    the Qwen2.5 tokenizer, and the budget that would keep the paper's count. NotTestable without the files."""
    from .. import data as real_data

    if not settings.enabled:
        raise NotTestable("papers.erpo.real_data.enabled is false")
    root = real_data.resolve_data_root(params.data.root)
    needed = [root / "math_hendrycks" / "train.jsonl", root / "tokenizers" / "qwen.tiktoken"]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        raise NotTestable(f"the real files are not here ({', '.join(missing)}; set data.root or $RLVR_DATA_ROOT)")
    rows = real_data.filter_by_level(real_data.load_training_set(settings.train_set, root), settings.levels)
    tokenizer = real_data.length_tokenizer(None, root)
    lengths = np.sort(real_data.token_lengths(tokenizer, [r["solution"] for r in rows]))
    budget = settings.fraction * settings.max_length
    kept = int((lengths <= budget).sum())
    loaded = len(real_data.load_training_set(settings.train_set, root))
    paper = settings.paper_count
    needed_budget = int(lengths[paper - 1]) if paper <= len(lengths) else None
    note = (
        f"{kept:,} of {len(rows):,} level-{settings.levels} problems have a reference solution of at most "
        f"{budget:g} Qwen2.5 tokens (the paper's '10% of the maximum output length' read literally); the paper "
        f"reports {paper:,}. Keeping {paper:,} would take a budget of "
        + (f"{needed_budget} tokens" if needed_budget else f"more problems than the {len(rows):,} at these levels")
        + ", so the paper's base set or its counting differs (docs/assumptions.md, ERPO's solution-length filter)."
    )
    return {
        "loaded": loaded,
        "levels": len(rows),
        "budget": budget,
        "kept": kept,
        "paper": paper,
        "budget_for_paper": needed_budget if needed_budget is not None else MISSING,
        "note": note,
    }
