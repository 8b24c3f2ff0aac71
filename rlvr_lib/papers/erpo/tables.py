"""ERPO's tables: table 1 (accuracy, format rate), table 2 (pass@k), the one-switch ablations, App. A.3's data
filter counted on the real MATH files and the sigma_target sensitivity (``@experiment`` functions of the paper)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rlvr_lib.papers.erpo.measures import COMPONENT, ablation_switch, cached
from rlvr_lib.papers.framework.base import MISSING, experiment, fmt, fmt_ci
from rlvr_lib.papers.framework.claims import Estimate, NotRun, NotTestable
from rlvr_lib.papers.framework.measures import log_entropy_retained
from rlvr_lib.papers.framework.results import ACCURACY

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


@experiment("Table 1: accuracy and format rate")
def table1(paper, heading: str) -> pd.DataFrame:
    raw, shown = paper.eval_table(paper.rows, [ACCURACY, "format_rate"], PAPER_TABLE1, "paper (avg. over 4 sets, %)")
    own = paper.results.decoding_of(ACCURACY)
    acc_at = "the shared decoding" if own is None else f"`{own}`, the paper's decoding"
    shown = shown.rename(
        columns={ACCURACY: f"Acc (mean@n, {acc_at})", "format_rate": "Fmt (boxed rate, the shared decoding)"}
    )
    caption = (
        f"Acc: mean accuracy over the n evaluation samples of each problem, at {acc_at}; Fmt: share of samples with "
        "a closed \\boxed{}, at the decoding shared by every report (format rate, length and entropy are read there "
        "for every paper)"
        + ("" if own is None else f"; at `{own}` Fmt is {format_range(paper, own)}")
        + ". Mean over seeds and problems [95% Student t interval over the per-seed means]."
    )
    paper.report.add_table(heading, "table1", raw, shown, caption)
    return shown


def format_range(paper, decoding: str) -> str:
    """'<lowest>-<highest>' of the rows' format rates (mean over seeds and problems) at ``decoding``."""
    rates = [
        np.mean([[r["n_formatted"] / r["n"] for r in rows] for rows in paper.results.problem_rows(run, None, decoding)])
        for _, run in paper.rows
    ]
    return f"{min(rates):.3f}-{max(rates):.3f}"


@experiment("Table 2: pass@k")
def table2(paper, heading: str) -> pd.DataFrame:
    ks = paper.settings.pass_at_k
    raw, shown = paper.eval_table(paper.rows, [f"pass@{k}" for k in ks])
    paper_values = {
        label: ", ".join(f"{PAPER_TABLE2_AMC_7B[label].get(k, MISSING)}" for k in ks) for label, _ in paper.rows
    }
    shown["paper (AMC23, 7B, %)"] = [paper_values[label] for label, _ in paper.rows]
    caption = f"Unbiased pass@k for k in {ks} from the n samples per problem ({MISSING}: k > n)."
    paper.report.add_table(heading, "table2_pass_at_k", raw, shown, caption)
    return shown


@experiment("Ablations: one component off at a time")
def ablations(paper, heading: str) -> pd.DataFrame:
    r = paper.runs
    rows, raw_rows = [], []
    for run in [r.erpo, *r.ablations]:
        switch = "none (full ERPO)" if run == r.erpo else ablation_switch(paper, run)
        row = {"run": f"`{run}`", "switched off": switch, "component": COMPONENT.get(switch, MISSING)}
        try:
            value, low, high = paper.results.eval_summary(run, ACCURACY)
            retained = paper.results.per_seed(run, log_entropy_retained).mean()
        except NotRun:  # an ablation not trained yet: its row says so
            if run == r.erpo:
                raise
            not_run = dict.fromkeys(("mean@n", "minus ERPO (paired)", "log entropy retained"), MISSING)
            rows.append({**row, "run": f"`{run}` (not run)", "component": COMPONENT[switch], **not_run})
            continue
        d = Estimate(math.nan, math.nan, math.nan, 0)  # ERPO's own row: no difference
        if run != r.erpo:
            d = paper.compare(run, r.erpo, ACCURACY, differs_in=(f"method.{switch}",))
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
                "log_entropy_retained": retained,
            }
        )
        rows.append(
            {
                **row,
                "mean@n": fmt_ci(value, low, high),
                "minus ERPO (paired)": fmt_ci(d.value, d.ci_low, d.ci_high),  # ERPO's own row: MISSING
                "log entropy retained": fmt(retained, 2),
            }
        )
    shown = pd.DataFrame(rows)
    caption = (
        "The paper has no ablation; its abstract names three components (i-iii) and eq. 7's progress signal is "
        "the fourth ingredient. Each run turns one `use_*` switch off (docs/assumptions.md, ERPO)."
    )
    paper.report.add_table(heading, "ablations", pd.DataFrame(raw_rows), shown, caption)
    return shown


@experiment("App. A.3: the training-set filter on the real MATH files")
def real_data(paper, heading: str) -> pd.DataFrame:
    rd = paper.settings.real_data
    try:
        c = cached(paper, "_counts", lambda: count_real_data(paper.params, rd))
    except NotTestable as reason:
        paper.report.section(heading, f"Not counted: {reason}.")
        return pd.DataFrame()
    raw = pd.DataFrame([c])
    steps = [
        (f"{rd.train_set} (MATH train + test, MATH-500 removed)", f"{c['loaded']:,}"),
        (f"levels {rd.levels}", f"{c['levels']:,}"),
        (f"solution <= {rd.fraction:g} x {rd.max_length} = {c['budget']:g} Qwen2.5 tokens", f"{c['kept']:,}"),
        ("the paper (App. A.3)", f"{c['paper']:,}"),
        (f"solution budget that would keep {c['paper']:,}", f"{c['budget_for_paper']} tokens"),
    ]
    shown = pd.DataFrame(steps, columns=["step", "problems"])
    paper.report.section(heading, c["note"])
    paper.report.add_table(heading, "real_data_filter", raw, shown)
    return shown


def count_real_data(params, settings) -> dict:
    """App. A.3's filter on the real files: rows after the level filter and after the solution-length filter with
    the Qwen2.5 tokenizer, and the budget that would keep the paper's count. NotTestable without the files."""
    from rlvr_lib.tasks import data as real_data

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


@experiment("Sensitivity: sigma_target")
def sensitivity(paper, heading: str) -> pd.DataFrame:
    """ERPO with sigma_target (eq. 10's target std of Psi, not given in the paper) at 1/4 and 4 times ours."""
    return paper.sensitivity_table(heading, paper.runs.erpo, paper.runs.grpo, paper.runs.sensitivity)
