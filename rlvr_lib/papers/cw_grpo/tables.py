"""CW-GRPO's tables (table 2, table 1 with its plot, the kernel's weights, the fluctuation, table 3, sensitivity):
each an ``@experiment`` taking ``(paper, heading)``, with its helpers."""

import contextlib
import math

import numpy as np
import pandas as pd

from rlvr_lib.papers.cw_grpo import measures as own
from rlvr_lib.papers.cw_grpo.text import CAPTIONS
from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.base import MISSING, experiment, fmt, fmt_ci
from rlvr_lib.papers.framework.claims import NotRun, NotTestable, seed_values
from rlvr_lib.papers.framework.guard import METHOD, settings_difference
from rlvr_lib.papers.framework.results import ACCURACY, fmt_seeds
from rlvr_lib.render import plots

# cw_grpo.txt table 2, Avg. of five benchmarks, pass@1 (%); table 3, MATH-500 accuracy (%) at steps 100 / 150 / 200,
# and its OlympiadBench column (no testbed counterpart)
PAPER_TABLE2 = {
    "Base": "48.9 (1.5B) / 41.4 (7B)",
    "GRPO": "52.6 / 44.1",
    "Clip-Cov": "53.6 / 44.7",
    "CW-GRPO": "55.3 / 46.7",
}
PAPER_TABLE3 = {"GRPO": [85.0, 82.0, 79.8], "CW-GRPO": [87.0, 86.2, 86.4]}
PAPER_TABLE3_OLYMPIAD = {"GRPO": [49.9, 49.9, 47.8], "CW-GRPO": [52.0, 53.9, 53.5]}


def clip_cov_activity(paper, run: str) -> tuple[float, float, float]:
    """(mean Clip-Cov selected tokens per rollout batch, mean response tokens per rollout batch, share of the
    batches with a token selected) over ``run``'s seeds, from its logs."""
    t, key = paper.params.runs[run].train, "clip_cov/selected_tokens"
    selected = paper.results.per_seed(run, lambda h: measures.whole_mean(h, key)).mean()
    length = paper.results.per_seed(run, lambda h: measures.whole_mean(h, "completions/mean_length"))
    active = paper.results.per_seed(run, lambda h: float((measures.rollouts(h, key) > 0).mean())).mean()
    return float(selected), float(np.mean(length * t.prompts_per_step * t.num_generations)), float(active)


@experiment("Table 2: accuracy")
def table2(paper, heading: str) -> pd.DataFrame:
    r = paper.runs
    g90, c90 = r.grpo_checkpoints[0], r.cw_grpo_checkpoints[0]
    raw_rows, shown_rows, missing = [], [], []
    at_90 = [("Base", r.base), ("GRPO", g90), ("Clip-Cov", r.clip_cov_table2), ("CW-GRPO", c90)]
    at_180 = [("GRPO", r.grpo), ("Clip-Cov", r.clip_cov), ("CW-GRPO", r.cw_grpo)]
    for checkpoint, rows in (("90 (paper 100: table 2's)", at_90), ("180 (paper 200)", at_180)):
        for label, run in rows:
            try:
                raw, shown = paper.eval_table([(label, run)], [ACCURACY], PAPER_TABLE2, "paper (Avg. pass@1, %)")
            except NotTestable as reason:  # a run not made yet: its row says so
                missing.append(f"`{run}`: {reason}.")
                raw = pd.DataFrame([{"row": label, "run": run}])
                shown = pd.DataFrame([{"row": label, "run": f"`{run}`", ACCURACY: "not run yet"}])
            raw.insert(0, "checkpoint", checkpoint)
            shown.insert(0, "step", checkpoint)
            shown.insert(3, "seeds", paper.results.seeds_text(run))
            raw_rows.append(raw)
            shown_rows.append(shown)
    raw = pd.concat(raw_rows, ignore_index=True)
    shown = pd.concat(shown_rows, ignore_index=True).rename(columns={ACCURACY: "pass@1 (mean@n)"}).fillna(MISSING)
    notes = []
    for run in (r.clip_cov_table2, r.clip_cov):
        try:
            sel, tokens, active = clip_cov_activity(paper, run)
        except NotTestable as reason:
            notes.append(f"`{run}`: {reason}.")
            continue
        notes.append(
            f"`{run}` detaches {sel:.2f} tokens per rollout batch on average, of about {tokens:,.0f} response "
            f"tokens ({sel / tokens:.1e} of them; some token on {active:.0%} of the batches): at the paper's "
            "ratio 2e-4 Clip-Cov is GRPO in all but a token."
        )
    text = (
        "Table 2 is the paper's step-100 checkpoint (of 200 steps by table 3, of 100 by table 5: the paper is "
        "inconsistent; we read 200): here the runs stopped at 90 of 180 steps (the "
        "verdicts' runs); the 180-step runs (the paper's step 200, fig. 1's) below them. mean@n at "
        f"{paper.decoding_words()} (the verdicts' decoding; the shared one is in 'Evaluation at both decodings'); "
        "`seeds`: the seeds each row averages (a comparison pairs the seeds both runs have). "
        + " ".join([*missing, *notes])
    )
    paper.report.section(heading, text)
    paper.report.add_table(heading, "table2", raw, shown, caption=CAPTIONS["table2"])
    return shown


@experiment("Table 1 / fig. 3: token covariance percentiles")
def table1(paper, heading: str) -> pd.DataFrame:
    r = paper.runs
    percents = paper.settings.covariance_top_percents
    columns = [(p, f"top {p:g}%") for p in percents]
    raw_rows, shown_rows, notes, means, entropy = [], [], [], {}, {}
    for label, run in (("GRPO", r.grpo), ("CW-GRPO", r.cw_grpo)):
        try:
            tables = own.covariance_table(paper, run)
        except NotTestable as reason:
            notes.append(f"`{run}`: {reason}.")
            continue
        mean = means[label] = sum(tables) / len(tables)
        for side in own.SIDES:
            raw_rows.append({"run": run, "side": side, **{c: mean.loc[side, c] for _, c in columns}})
            shown_rows.append({"row": f"{label} ({side})", **{c: fmt(mean.loc[side, c], 4) for _, c in columns}})
    for side in own.SIDES:
        paper_row = {c: fmt(own.PAPER_TABLE1[side].get(float(p), math.nan), 2) for p, c in columns}
        shown_rows.append({"row": f"paper GRPO ({side})", **paper_row})
    text = (
        "Each cell: the covariance threshold beyond which that share of the positive (negative) tokens lies, per "
        "rollout batch, averaged over training steps and seeds (`rlvr_lib.methods.covariance`). The paper's "
        "come from 50 steps of GRPO on DeepSeek-R1-Distill-Qwen-1.5B; magnitudes depend on the model and length."
    )
    for label, run in (("GRPO", r.grpo), ("CW-GRPO", r.cw_grpo)):
        with contextlib.suppress(NotTestable, KeyError):
            entropy[label] = float(paper.results.per_seed(run, lambda h: measures.whole_mean(h, own.ENTROPY)).mean())
    paper.report.section(heading, " ".join([text, *notes, table1_direction(means, entropy)]))
    raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
    name = "table1_covariance_percentiles"
    paper.report.add_table(heading, name, raw, shown, caption=CAPTIONS[name])
    if raw_rows:  # the same table as a plot
        fig, axes = plots.new_figure(2, ncols=2, panel_size=(4.2, 3.2))
        for ax, side in zip(axes, own.SIDES, strict=True):
            for row in (x for x in raw_rows if x["side"] == side):
                style = paper.styles[row["run"]].points()
                ax.plot(percents, [abs(row[c]) for _, c in columns], label=row["run"], **style)
            paper_line = [abs(own.PAPER_TABLE1[side][float(p)]) for p in percents]
            ax.plot(percents, paper_line, "s--", color=plots.PAPER_COLOR, label="paper GRPO (table 1)")
            ax.set(xscale="log", yscale="log", xlabel="top share of tokens (%)", ylabel="|covariance threshold| (a.u.)")
            ax.set_title(f"{side} covariances")
        plots.figure_legend(fig)
        plots.figure_title(fig, "Table 1 as a plot: covariance threshold of each top share (not the paper's fig. 3)")
        name = "table1_covariance_thresholds"
        paper.report.add_figure(heading, name, fig, caption=CAPTIONS[name])
    return shown


def table1_direction(means: dict[str, pd.DataFrame], entropy: dict[str, float] | None = None) -> str:
    """Which run's covariance thresholds are larger, column by column (R3-C10): the kernel damps extreme
    covariances of each batch, so table 1's direction is not the mechanism's aim read off directly. ``entropy``:
    each run's mean rollout entropy over training, cited as the reason where given."""
    if not {"GRPO", "CW-GRPO"} <= set(means):
        return ""
    g, c = means["GRPO"], means["CW-GRPO"]
    cells = [(side, col) for side in own.SIDES for col in g.columns]
    larger = [x for x in cells if abs(c.loc[x]) > abs(g.loc[x])]
    pos1 = f"top {own.TAIL_TOP:g}%"
    return (
        f"Direction: CW-GRPO's thresholds are larger than GRPO's in {len(larger)} of {len(cells)} cells (its "
        f"positive top {own.TAIL_TOP:g}% {fmt(c.loc['positive', pos1], 3)} vs GRPO's {fmt(g.loc['positive', pos1], 3)}"
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
def kernel_weights(paper, heading: str) -> pd.DataFrame:
    """Per seed, from the logs: the kernel's w range, the share of tokens with w < 0.5, the largest renormalised
    weight, and the median gradient norm against GRPO's on the same seed (R3-C9)."""
    r = paper.runs
    raw_rows, shown_rows = [], []
    for cw, grpo in ((r.cw_grpo_checkpoints[0], r.grpo_checkpoints[0]), (r.cw_grpo, r.grpo)):
        for seed in paper.results.common_seeds(cw, grpo):
            (h,), (hg,) = paper.results.seed_histories(cw, [seed]), paper.results.seed_histories(grpo, [seed])
            w = {
                k: measures.rollouts(h, f"cw_grpo/{k}") for k in ("w_min", "w_mean", "w_below_half_frac", "w_tilde_max")
            }
            norm, grpo_norm = measures.rollouts(h, "grad_norm"), measures.rollouts(hg, "grad_norm")
            row = {
                "run": cw,
                "seed": seed,
                "w_min": float(w["w_min"].min()),
                "w_mean": float(w["w_mean"].mean()),
                "w_below_half": float(w["w_below_half_frac"].mean()),
                "w_tilde_max_median": float(w["w_tilde_max"].median()),
                "w_tilde_max_max": float(w["w_tilde_max"].max()),
                "grad_norm_median": float(norm.median()),
                "grpo_run": grpo,
                "grpo_grad_norm_median": float(grpo_norm.median()),
            }
            row["grad_norm_ratio"] = row["grpo_grad_norm_median"] / row["grad_norm_median"]
            # optimizer step 1: the same policy and, with the same seed, the same rollout batch in both runs
            # (checked on its reward), so the ratio is what the kernel's reweighting removes from one batch
            row["same_first_batch"] = bool(
                measures.rollouts(h, "reward").loc[1] == measures.rollouts(hg, "reward").loc[1]
            )
            row["grad_norm_step1"], row["grpo_grad_norm_step1"] = float(norm.loc[1]), float(grpo_norm.loc[1])
            row["grad_norm_step1_ratio"] = row["grpo_grad_norm_step1"] / row["grad_norm_step1"]
            # every batch, where logged (`log_gradient_cosine`): the kernel's gradient against the same loss
            # without it on the same batch and policy
            row["kernel_removes"] = row["kernel_cosine"] = math.nan
            if own.GRADIENT_RATIO in h.columns and h[own.GRADIENT_RATIO].notna().any():
                row["kernel_removes"] = float(1.0 - measures.column(h, own.GRADIENT_RATIO).median())
                row["kernel_cosine"] = float(measures.column(h, own.GRADIENT_COSINE).median())
            raw_rows.append(row)
            shown = {
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
            shown_rows.append(shown)
    paper.report.section(
        heading,
        "From the rollout logs of each seed (every rollout batch): the raw kernel weight w in (0, 1], the share of "
        "response tokens it puts below 0.5, the largest renormalised weight w̃ = w N / sum w of a batch, and the "
        "median gradient norm (before clipping at 1.0) against the GRPO run of the same length and seed; at "
        "optimizer step 1 both runs start from the same policy and draw the same rollout batch (same seed; "
        "checked on its reward), so there the two gradient norms differ only by the kernel's reweighting. Where "
        "a run logs it (`log_gradient_cosine`), every optimizer step compares the gradient of CW-GRPO's loss with "
        "that of the same loss without the kernel (w̃ = 1, the same KL term) on the same batch: the share of the "
        f"gradient norm the kernel removes is 1 - `{own.GRADIENT_RATIO}` (median over steps), beside the median "
        f"cosine `{own.GRADIENT_COSINE}`.",
    )
    raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
    paper.report.add_table(heading, "kernel_weights", raw, shown, caption=CAPTIONS["kernel_weights"])
    return raw


@experiment("Entropy fluctuation and the training-temperature accuracy")
def fluctuation_table(paper, heading: str) -> pd.DataFrame:
    """Per run and seed: the declared fluctuation (over the run's mean entropy), the round-3 one (over the first
    batch's) beside it as evidence, log entropy retained, and the rollouts' accuracy at the training temperature
    0.7 early and at the end (R3-C2, R3-C3)."""
    r = paper.runs
    rows = [(label, run) for label, runs in own.checkpoint_methods(r) for run in runs] + [("Clip-Cov", r.clip_cov)]
    quantities = {
        "fluctuation / mean H (declared)": own.fluctuation,
        "fluctuation / first H (round 3)": own.fluctuation_over_first,
        "log entropy retained": measures.log_entropy_retained,
        "rollout accuracy T 0.7, first 20%": lambda h: float(measures.window(h, "accuracy", "early").mean()),
        f"rollout accuracy T 0.7, {measures.TAIL_LABEL}": own.END_ACCURACY,
    }
    raw, shown = paper.seed_values_table(rows, quantities)
    shown.insert(2, "seeds", [paper.results.seeds_text(run) for _, run in rows])
    paper.report.section(
        heading,
        "Per run: the mean over seeds (each seed's value in brackets). The declared fluctuation divides the mean "
        "|change of rollout entropy between batches| by the run's own mean entropy; the round-3 reading divided "
        "it by the first batch's entropy and so tracked the entropy level. The rollouts' accuracy is sampled at "
        "the training temperature 0.7 on training problems (the evaluations sample held-out problems at "
        f"{paper.decoding_words()}, the verdicts', and at {paper.decoding_words(shared=True)}).",
    )
    paper.report.add_table(heading, "fluctuation", raw, shown, caption=CAPTIONS["fluctuation"])
    return raw


def checkpoint_equality(paper, short: str, long: str) -> str:
    """Whether ``short``'s history equals the first steps of ``long``'s (same seed): the shorter run is then
    exactly the longer run's checkpoint."""
    diffs, seeds = [], paper.results.common_seeds(short, long)
    pairs = zip(paper.results.seed_histories(short, seeds), paper.results.seed_histories(long, seeds), strict=True)
    for hs, hl in pairs:
        n = len(hs)
        for key in ("reward", "loss"):
            if key in hs.columns and key in hl.columns:
                a, b = hs[key].to_numpy(float), hl[key].to_numpy(float)[:n]
                diffs.append(float(np.nanmax(np.abs(a - b))) if len(b) == n else math.inf)
    worst = max(diffs) if diffs else math.nan
    return "yes" if worst <= 1e-6 else f"no (max |difference| of reward/loss {worst:.3g})"


@experiment("Table 3: accuracy at three checkpoints")
def table3(paper, heading: str) -> pd.DataFrame:
    r = paper.runs
    raw_rows, shown_rows = [], []
    every = [*r.grpo_checkpoints, *r.cw_grpo_checkpoints]
    shared = paper.results.common_seeds(*every)
    for label, runs in own.checkpoint_methods(r):
        for i, run in enumerate(runs):
            acc, low, high = paper.results.eval_summary(run, ACCURACY)
            on_shared = float(seed_values(paper.results.eval_table(run, ACCURACY, shared)).mean())
            entropy = paper.results.per_seed(run, own.END_ENTROPY)
            steps = paper.results.max_steps(run)
            same = MISSING if run == runs[-1] else checkpoint_equality(paper, run, runs[-1])
            raw = {
                "method": label,
                "run": run,
                "step": steps,
                "paper_step": paper.settings.paper_steps[i],
                "seeds": paper.results.seeds_text(run),
                "accuracy": acc,
                "ci_low": low,
                "ci_high": high,
                "accuracy_shared_seeds": on_shared,
                "entropy_end": entropy.mean(),
            }
            shown = {
                "method": label,
                "run": f"`{paper.results.label(run)}`",
                "step (paper's)": f"{steps} ({paper.settings.paper_steps[i]})",
                "seeds": paper.results.seeds_text(run),
                "mean@n": fmt_ci(acc, low, high),
                f"mean@n, seeds {fmt_seeds(shared)}": fmt(on_shared),
                f"rollout entropy ({measures.TAIL_LABEL})": fmt(entropy.mean()),
                "paper (MATH-500, %)": fmt(PAPER_TABLE3[label][i], 1) if i < len(PAPER_TABLE3[label]) else MISSING,
                "= the full run's checkpoint": same,
            }
            raw_rows.append(raw)
            shown_rows.append(shown)
    text = (
        "The paper evaluates checkpoints at steps 100, 150 and 200; here each checkpoint is a run stopped at that "
        "share of the budget (`train.max_steps` of the run). With the same seed, data order and a constant "
        "learning rate it is the longer run's checkpoint exactly; the last column checks that from the logged "
        "rewards and losses. The runs' seeds differ ("
        + "; ".join(f"`{run}` {len(paper.results.seeds_of(run))}" for run in every)
        + "): the column over the seeds every checkpoint has compares like with like, as the claims do (paired "
        "by seed). " + table3_premise([row["entropy_end"] for row in raw_rows if row["method"] == "GRPO"])
    )
    paper.report.section(heading, text)
    paper.report.add_table(heading, "table3_checkpoints", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
    return pd.DataFrame(shown_rows)


def table3_premise(grpo_entropy: list[float]) -> str:
    """What the testbed says of table 3's premise: the paper labels both methods' step 150 "entropy low" and step
    200 "entropy high" and blames GRPO's accuracy drop on that instability; ``grpo_entropy`` is GRPO's rollout entropy
    at the three checkpoints (mean of the last 5 rollout batches)."""
    values = " → ".join(fmt(v) for v in grpo_entropy)
    if grpo_entropy[-1] > grpo_entropy[-2]:
        shape = "rising from the second checkpoint to the last, as the paper's low-then-high"
    else:
        shape = "not rising from the second checkpoint to the last: no low-then-high swing like the paper's"
    olympiad = "; ".join(f"{m} {', '.join(fmt(v, 1) for v in vs)}" for m, vs in PAPER_TABLE3_OLYMPIAD.items())
    return (
        'The paper\'s premise: its table 3 marks step 150 "entropy low" and step 200 "entropy high" for both '
        "methods (CW-GRPO's rows too, so the marks do not single out GRPO) and its text says \"vanilla GRPO's "
        "entropy instability leads to performance degradation\". Here GRPO's rollout "
        f"entropy at the three checkpoints is {values} ({shape}); where it stays inside x2 of the first checkpoint's "
        "in every seed, the degradation part of `checkpoints` is not testable (premise absent). The paper's "
        "OlympiadBench column "
        f"({olympiad}) has no counterpart: the testbed has one evaluation set."
    )


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
def sensitivity(paper, heading: str) -> pd.DataFrame:
    """CW-GRPO without the KL term, and at 2 updates per rollout batch unclipped (as written) and clipped; each
    row labelled by the kind of setting it changes (R3-C8)."""
    r, decoding = paper.runs, paper.results.decoding
    raw_rows, shown_rows = [], []
    for run in [r.cw_grpo, *r.sensitivity]:
        changes = {} if run == r.cw_grpo else settings_difference(paper.params, run, r.cw_grpo)
        retained = float(paper.results.per_seed(run, measures.log_entropy_retained).mean())
        changed = ", ".join(f"{k.split('.', 1)[-1]} {vb!r} -> {va!r}" for k, (va, vb) in changes.items())
        raw = {"run": run, "changes": changed, "kind": change_kind(changes)}
        shown = {
            "run": f"`{paper.results.label(run)}`",
            "changed from the verdicts' run": changed or "—",
            "kind of change": raw["kind"],
            "seeds": paper.results.seeds_text(run),
            "log entropy retained": fmt(retained),
        }
        for suffix, label, at in (("", f"`{decoding}` (the verdicts')", decoding), ("_shared", "shared", None)):
            with paper.results.at_decoding(at):
                try:  # a run's evaluation at a decoding may still be under way: its cells say so
                    acc, low, high = paper.results.eval_summary(run, ACCURACY)
                    d = paper.compare(run, r.grpo, ACCURACY, (METHOD, *changes))
                    cell = (acc, low, high, d.value, d.ci_low, d.ci_high)
                    shown[f"mean@n, {label}"], shown[f"d vs `{r.grpo}`, {label}"] = fmt_ci(*cell[:3]), fmt_ci(*cell[3:])
                except NotRun as reason:
                    cell = (math.nan,) * 6
                    shown[f"mean@n, {label}"] = shown[f"d vs `{r.grpo}`, {label}"] = f"not run ({reason})"
            names = (ACCURACY, "ci_low", "ci_high", "d", "d_low", "d_high")
            raw.update({f"{name}{suffix}": value for name, value in zip(names, cell, strict=True)})
        raw_rows.append({**raw, "log_entropy_retained": retained})
        shown_rows.append(shown)
    paper.report.section(
        heading,
        f"Each row changes settings of `{r.cw_grpo}`; the verdicts stay with its pre-declared settings. d: mean@n "
        f"minus `{r.grpo}`'s, paired by seed, with a 95% t interval, at the verdicts' decoding "
        f"({paper.decoding_words()}) and the shared one ({paper.decoding_words(shared=True)}). The β and update-count"
        " rows change settings "
        "the GRPO baseline shares (β 0.04, one update per rollout batch): their d mixes the method with that "
        "change, so they show what the change does to CW-GRPO, not whether a verdict hinges on an open choice; "
        "for that reason the paper declares no alternative (params.yaml `papers.cw_grpo.alternatives`). A run "
        "marked (diverged) has a seed that failed the `healthy` gate.",
    )
    raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
    paper.report.add_table(heading, "sensitivity", raw, shown, caption=CAPTIONS["sensitivity"])
    return shown
