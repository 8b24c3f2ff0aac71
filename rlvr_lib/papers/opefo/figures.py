"""OPEFO's figures: fig. 2 (entropy and first-order entropy flows), fig. 4 (training dynamics) and fig. 5 with the
lambda* statistics of sec. 6.4 (``@experiment`` functions of ``(paper, heading)``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from rlvr_lib.papers.framework.base import MISSING, experiment, fmt
from rlvr_lib.papers.opefo.measures import (
    FLOW,
    delta_h,
    form_runs,
    has,
    label,
    lambda_stats,
    span_mean,
    table1_rows,
)
from rlvr_lib.render import plots

ZERO_SPREAD = "frac_reward_zero_std"  # share of a rollout batch's groups whose rewards are all equal


@experiment("Fig. 2: entropy, net entropy flow, flow of clipped tokens")
def figure2(paper, heading: str):
    r = paper.runs
    alpha = paper.settings.ema_alpha
    fig, axes = plots.new_figure(4, ncols=4, panel_size=(3.6, 3.3))
    notes = []
    for run in (r.grpo, r.grpo_onpolicy):
        history = paper.results.history(run)
        plots.plot_curve(axes[0], history, "entropy/mean", paper.styles[run], label(paper, run), alpha)
        if has(history, FLOW + "net"):
            plots.plot_curve(axes[1], history, FLOW + "net", paper.styles[run], label(paper, run), alpha)
        else:
            notes.append(f"`{run}` logs no `{FLOW}net` (set `methods.{run}.log_entropy_flow: true`)")
    opefo = paper.results.history(r.opefo)
    if has(opefo, "opefo/flow_net"):
        plots.plot_curve(axes[2], opefo, "opefo/flow_net", paper.styles[r.opefo], label(paper, r.opefo), alpha)
        plots.label_step_axes(axes[2], "opefo/flow_net")
    else:
        plots.not_logged(axes[2], "opefo/flow_net")
    history = paper.results.history(r.clip_higher)
    sides = (("clipped_high", "-", plots.QUANTITY_COLORS[0]), ("clipped_low", "--", plots.QUANTITY_COLORS[1]))
    for side, linestyle, color in sides:
        key = FLOW + side
        if has(history, key):
            table = plots.seed_table(history, key)
            axes[3].plot(
                table.index,
                plots.ema(table.mean(axis=1), alpha),
                linestyle,
                color=color,
                label=f"{r.clip_higher}: {side.replace('_', ' ')}",
            )
        else:
            notes.append(f"`{r.clip_higher}` logs no `{key}`")
    plots.panel_title(axes[0], "(a) rollout entropy")
    plots.panel_title(axes[1], "(b) net dH per step, sampled-token eq. 6")
    plots.panel_title(axes[2], "(c) OPEFO's own net dH (its eq. 6 form, before rescaling)")
    plots.panel_title(axes[3], f"(d) dH of clipped tokens ({r.clip_higher})")
    plots.label_step_axes(axes[0], "entropy/mean")
    for ax in (axes[1], axes[3]):
        ax.set_xlabel("training step")
        ax.axhline(0, color=plots.REFERENCE_COLOR, linewidth=0.8)
    axes[1].set_ylabel("net dH (a.u.)")
    axes[3].set_ylabel("dH summed, clipped (a.u.)")
    plots.figure_legend(fig)
    form = paper.hparam(r.opefo, "delta_h")
    estimators = (
        "(b) and (c) are both eq. 6 at the sampled token, (c) on OPEFO's own updates"
        if form == "sampled"
        else f"(c) is eq. 6 in OPEFO's `{form}` form, (b) at the sampled token: compare shapes, not values"
    )
    plots.figure_title(
        fig,
        f"Paper fig. 2: entropy and first-order entropy change dH (eta dropped; EMA {alpha}; lines: mean over "
        f"seeds). {estimators}.",
    )
    text = f"EMA {alpha}; mean over seeds. {flat_flow_note(paper)}" + (
        " Missing: " + "; ".join(notes) + "." if notes else ""
    )
    paper.report.section(heading, text)
    paper.report.add_figure(heading, "figure2_entropy_flow", fig)
    return fig


def flat_flow_note(paper) -> str:
    """Why OPEFO's net flow (panel (c)) sits near 0 late in training where its reward collapsed (round-4 O10): the
    share of groups with no reward spread (A = 0 for every sample, so no flow at all) over the second half of
    training, OPEFO against strict on-policy GRPO, mean over seeds."""
    r = paper.runs
    shares = {
        run: float(paper.results.per_seed(run, lambda h: span_mean(h, ZERO_SPREAD, 0.5, 1.0)).mean())
        for run in (r.opefo, r.grpo_onpolicy)
    }
    return (
        f"Panel (c) near 0 is not a balanced flow alone: over the second half of training {shares[r.opefo]:.2f} of "
        f"`{r.opefo}`'s groups have no reward spread (every A = 0, no flow), against {shares[r.grpo_onpolicy]:.2f} "
        f"of `{r.grpo_onpolicy}`'s (`{ZERO_SPREAD}`, mean over seeds)."
    )


@experiment("Fig. 4: training dynamics")
def figure4(paper, heading: str):
    r, alpha = paper.runs, paper.settings.ema_alpha
    runs = [run for _, run in table1_rows(paper) if run != r.base] + list(r.delta_h_variants)
    labels = {run: label(paper, run) for run in runs}
    labels[r.opefo] = f"OPEFO (eq. 6 {paper.hparam(r.opefo, 'delta_h')}, the verdicts' run)"
    for run in r.delta_h_variants:
        labels[run] = f"OPEFO (eq. 6 {paper.hparam(run, 'delta_h')}, the alternative)"
    panels = [
        ("entropy/mean", "(a) policy entropy", "log"),
        ("reward", "(b) training reward", "linear"),
        ("completions/mean_length", "(c) response length", "linear"),
    ]
    title = f"Paper fig. 4: training dynamics (EMA {alpha})"
    fig = paper.curves(runs, panels, ema_alpha=alpha, title=title, ncols=2, labels=labels)
    fig.set_size_inches(9.0, 8.5)  # room for each panel's y label below the title (R3-O11)
    paper.report.section(
        heading,
        "Both eq. 6 forms of OPEFO are drawn: the verdicts' run (`sampled`) and the declared alternative "
        "(`expectation`), whose verdicts are the claims table's robustness column.",
    )
    paper.report.add_figure(heading, "figure4_training_dynamics", fig)
    return fig


@experiment("Fig. 5 and sec. 6.4: lambda* over training")
def figure5(paper, heading: str) -> pd.DataFrame:
    alpha, lam = paper.settings.ema_alpha, paper.settings.paper_lambda_mean
    runs = form_runs(paper)
    raw_rows, shown_rows = [], []
    for run in runs:
        stats = [lambda_stats(h) for h in paper.results.seed_histories(run)]
        mean = {k: float(np.mean([s[k] for s in stats])) for k in stats[0]}
        raw_rows.append({"run": run, "delta_h": delta_h(paper, run), **mean})
        shown_rows.append({"run": f"`{run}`", "eq. 6": delta_h(paper, run), **{k: fmt(v, 4) for k, v in mean.items()}})
    paper_row = {"run": "paper", "eq. 6": "not stated (fig. 3 takes delta_H as an input)", "mean": fmt(lam, 4)}
    shown_rows.append(
        {**paper_row, **dict.fromkeys(("median", "min", "max"), MISSING), "share_positive": "1 ('remains positive')"}
    )
    paper.report.section(
        heading,
        "lambda* statistics over the training steps, averaged over seeds. Each run's eq. 6 form is its "
        "`delta_h`: eq. 6 at each generated token (`sampled`, the default: sec. 5.1 'for each generated token') or "
        "eq. 6 as written, the expectation over the vocabulary with A_t fixed (`expectation`): two different "
        "quantities, not an estimand and its estimate.",
    )
    paper.report.add_table(heading, "lambda_statistics", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
    fig = paper.curves(
        runs,
        [("opefo/lambda", "lambda*", "linear"), ("opefo/flow_net_rescaled", "rescaled net flow (eq. 8)", "linear")],
        ema_alpha=alpha,
        title=f"Paper fig. 5: lambda* over steps (EMA {alpha})",
        ncols=2,
        references={"opefo/lambda": (lam, "paper's mean lambda* (sec. 6.4)")},
        labels={run: f"{run} (eq. 6 {paper.hparam(run, 'delta_h')})" for run in runs},
    )
    flow_axis = fig.axes[1]  # values of order 1e-6: tick labels carry their exponent, no offset text over the title
    flow_axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0e}" if v else "0"))
    flow_axis.set_ylabel("rescaled net dH (a.u.)")
    fig.set_size_inches(9.0, 5.2)  # room for the y labels below the title (R3-O11)
    paper.report.add_figure(heading, "figure5_lambda", fig)
    return pd.DataFrame(shown_rows)
