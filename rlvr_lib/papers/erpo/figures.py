"""ERPO's figures: fig. 1(b)'s perturbation study, fig. 4's training dynamics and fig. 5's response length and
training time (``@experiment`` functions of the paper, each with its table where the paper's figure has numbers)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_lib.papers.erpo.measures import BASELINES, drops, perturbation_study
from rlvr_lib.papers.framework.base import experiment, fmt, fmt_ci
from rlvr_lib.papers.framework.claims import bounded_t_interval
from rlvr_lib.papers.framework.results import ACCURACY, step_time, total_time
from rlvr_lib.render import plots


@experiment("Fig. 1(b): perturbing high- and low-entropy tokens")
def figure1b(paper, heading: str):
    p = paper.settings.perturbation
    studies = perturbation_study(paper)
    rows = []
    for which, label in (("top", f"top {p.frac:.0%} entropy"), ("bottom", f"bottom {p.frac:.0%} entropy")):
        mean, low, high, _ = bounded_t_interval(np.array([s["accuracy"][which]["value"] for s in studies]), (0.0, 1.0))
        rows.append(
            {
                "tokens perturbed": label,
                "accuracy": mean,
                "accuracy_ci_low": low,
                "accuracy_ci_high": high,
                "control_accuracy": float(np.mean([s["control_accuracy"][which]["value"] for s in studies])),
                "mean_entropy": float(np.mean([s["mean_entropy"][which] for s in studies])),
                "trials": int(sum(s["n_trials"][which] for s in studies)),
                **{f"drop_{b}": float(drops(paper, which, b).mean()) for b in BASELINES},
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
            **{f"drop {label}": [fmt(v) for v in raw[f"drop_{b}"]] for b, label in BASELINES.items()},
            "mean entropy of those tokens (nats)": [fmt(v) for v in raw["mean_entropy"]],
            "trials": raw["trials"],
        }
    )
    text = (
        f"Policy `{p.policy}` of each of {len(studies)} training seeds (sampled with its seed; accuracy: mean "
        "over seeds [t interval over the seeds, on the logit scale]); per seed, "
        f"{'-'.join(str(f(s['n_responses'] for s in studies)) for f in (min, max))} responses it answered "
        f"correctly, one per problem; selection: {paper._done['_selection']}; at each selected position the token "
        f"is replaced ({p.replacement}) and the "
        "policy regenerates the rest; the control keeps the token. Drops: control minus perturbed (against the "
        "control, the verdicts' baseline), 1 - perturbed / control (relative to the control) and 1 - perturbed "
        "(against the correct responses, the paper's baseline). Paper: Qwen2.5-3B, perturbing the top 5% "
        "drops accuracy by 35.2%, the bottom 5% barely matters."
    )
    paper.report.section(heading, text)
    paper.report.add_table(heading, "figure1b_perturbation", raw, shown)
    fig, (ax,) = plots.new_figure(1, ncols=1, panel_size=(5.0, 3.6))
    for i, row in raw.iterrows():
        ax.bar(i, row["accuracy"], color=plots.QUANTITY_COLORS[i], label=f"perturbed: {row['tokens perturbed']}")
        yerr = [[row["accuracy"] - row["accuracy_ci_low"]], [row["accuracy_ci_high"] - row["accuracy"]]]
        ax.errorbar(i, row["accuracy"], yerr=yerr, color="black", capsize=3)
        control = "control (token kept)" if i == 0 else None
        ax.plot([i - 0.4, i + 0.4], [row["control_accuracy"]] * 2, "--", color="black", linewidth=1, label=control)
    ax.set_xticks(range(len(raw)), raw["tokens perturbed"])
    ax.set_xlabel("tokens perturbed (by entropy rank)")
    ax.set_ylabel("accuracy (fraction)")
    ax.set_ylim(0, 1.05)
    plots.figure_legend(fig)
    plots.figure_title(fig, f"Paper fig. 1(b): perturbation study on `{p.policy}` (bars: 95% interval)")
    caption = (
        "The table as bars: accuracy after perturbation with its 95% interval over seeds, the dashed line its "
        "control; a bar far below its line is a token position the answer depends on."
    )
    paper.report.add_figure(heading, "figure1b_perturbation", fig, caption)
    return shown


@experiment("Fig. 4: training dynamics")
def figure4(paper, heading: str):
    """GRPO, ERPO and ERPO under each declared alternative of its open choice (sigma_target): the default does not
    learn on the testbed, so the alternative where it does is the curve fig. 4's claims are about."""
    r = paper.runs
    others = [swaps[r.erpo] for swaps in paper.alternatives().values() if r.erpo in swaps]
    sigma = {run: f"ERPO (sigma_target {paper.hparam(run, 'sigma_target'):g})" for run in (r.erpo, *others)}
    fig = paper.curves(
        [r.grpo, r.erpo, *others],
        [
            ("reward", "(a) reward", "linear"),
            ("entropy/mean", "(b) entropy (log scale)", "log"),
            ("grad_norm", "(c) grad norm", "linear"),
            ("kl_to_reference", "(d) KL to reference", "linear"),
        ],
        ema_alpha=paper.settings.ema_alpha,
        title=f"Paper fig. 4: ERPO vs GRPO (EMA {paper.settings.ema_alpha})",
        ncols=2,
        labels={r.grpo: "GRPO", **sigma},
    )
    learned = [
        f"{label}: {len(paper.results.gates.failures([run], ('learned',)))} of {len(paper.results.seeds_of(run))}"
        for run, label in sigma.items()
    ]
    caption = (
        "Compare ERPO's curves with GRPO's: reward, rollout entropy (does it collapse?), gradient norm and KL to the "
        "reference over training. sigma_target is not given by the paper: ERPO is drawn at the default and at each "
        f"declared alternative; seeds failing the `learned` gate: {'; '.join(learned)}. Fig. 4's entropy claims are "
        "about a run that learned."
    )
    paper.report.add_figure(heading, "figure4_training_dynamics", fig, caption)
    return fig


@experiment("Fig. 5: response length and training time")
def figure5(paper, heading: str):
    r, ema = paper.runs, paper.settings.ema_alpha
    trained = [("GRPO", r.grpo), ("ERPO", r.erpo)]
    raw_eval, shown_eval = paper.eval_table(paper.rows, [ACCURACY, "response_length"])
    raw_t, shown_t = paper.seed_values_table(
        trained, {"total training time (s)": total_time, "time per step (s)": step_time}
    )
    paper.report.add_table(heading, "figure5a_accuracy_length", raw_eval, shown_eval, "(a) accuracy and length")
    paper.report.add_table(heading, "figure5b_training_time", raw_t, shown_t, "(b) training time, mean (per seed)")
    fig, axes = plots.new_figure(3, ncols=3, panel_size=(4.0, 3.2))
    for label, run in paper.rows:
        acc, length = paper.results.eval_summary(run, ACCURACY)[0], paper.results.eval_summary(run, "response_length")
        xerr = [[length[0] - length[1]], [length[2] - length[0]]]
        axes[0].errorbar(length[0], acc, xerr=xerr, label=label, **{**paper.styles[run].points(), "linestyle": "none"})
    axes[0].set_xlabel("response length (tokens)")
    axes[0].set_ylabel("accuracy (mean@n)")
    plots.panel_title(axes[0], "(a) accuracy vs length (95% interval)")
    for i, (_, run) in enumerate(trained):
        values = paper.results.per_seed(run, total_time)
        axes[1].bar(i, values.mean(), color=paper.styles[run].color)
        paper.per_seed_points(axes[1], i, values, paper.styles[run].color)
    axes[1].set_xticks(range(len(trained)), [label for label, _ in trained])
    axes[1].set_xlabel("run (points: seeds)")
    axes[1].set_ylabel("total training time (s)")
    plots.panel_title(axes[1], "(b) total training time")
    for label, run in trained:
        history = paper.results.history(run)
        plots.plot_curve(axes[2], history, "completions/mean_length", paper.styles[run], label, ema)
    plots.label_step_axes(axes[2], "completions/mean_length")
    plots.panel_title(axes[2], f"(c) rollout length (EMA {ema})")
    plots.figure_legend(fig)
    plots.figure_title(fig, f"Paper fig. 5: response length and training time ({plots.BAND_NOTE})")
    paper.report.add_figure(heading, "figure5_length_time", fig)
    return fig
