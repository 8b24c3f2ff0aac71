"""AER's figures: fig. 2(a, b) (a fixed coefficient trained on one level, as a table), fig. 3 (training dynamics)
and H_t against its target with alpha_t; each an ``@experiment`` function of the paper."""

from __future__ import annotations

import math

import pandas as pd

from rlvr_lib.papers.aer.measures import fig3_runs, initial_entropy, level_of
from rlvr_lib.papers.framework.base import experiment, fmt_ci
from rlvr_lib.papers.framework.claims import NotTestable, bounded_t_interval, t_interval
from rlvr_lib.papers.framework.measures import peak_entropy_ratio, rollouts
from rlvr_lib.papers.framework.results import ACCURACY
from rlvr_lib.render import plots


@experiment("Fig. 2(a, b): a fixed coefficient trained on one level")
def figure2(paper, heading: str) -> pd.DataFrame:
    """Fig. 2(a, b)'s runs: the fixed coefficient 0 / 0.01 / 0.1 trained on the easiest and on the hardest level,
    each evaluated on the problems of its level (mean@n and response length, 95% t interval over seeds), with
    its entropy peak and the `healthy` gate's mark."""
    raw_rows, shown_rows = [], []
    for run in [*paper.runs.fig2_easy, *paper.runs.fig2_hard]:
        row = {"run": run, "level": level_of(paper, run), "coefficient": paper.hparam(run, "alpha_init")}
        try:
            acc = paper.results.level_values(run, ACCURACY, paper.results.training_levels(run))
            length = paper.results.level_values(run, "response_length", paper.results.training_levels(run))
            peak = paper.results.per_seed(run, peak_entropy_ratio)
            # the `healthy` gate only: a fixed coefficient has no controller to be idle (coefficient 0 is
            # GRPO by design, which the `active` gate would mark 'idle')
            mark = paper.results.marks(run, idle=False)
        except NotTestable as reason:  # NotRun included: a run not trained yet
            raw_rows.append({**row, "accuracy": math.nan, "mark": "not run"})
            shown_rows.append({**row, "run": f"`{run}` (not run)", "mean@n on its level": str(reason)})
            continue
        a, lo, hi, _ = bounded_t_interval(acc, (0.0, 1.0))
        ln, llo, lhi, _ = t_interval(length)
        raw_rows.append(
            {
                **row,
                "accuracy": a,
                "ci_low": lo,
                "ci_high": hi,
                "response_length": ln,
                "peak_entropy_ratio": float(peak.max()),
                "seeds": len(acc),
                "mark": mark,
            }
        )
        shown_rows.append(
            {
                "level": row["level"],
                "coefficient": f"{row['coefficient']:g}",
                "run": f"`{run}`" + (f" ({mark})" if mark else ""),
                "mean@n on its level": fmt_ci(a, lo, hi),
                "response length on its level": f"{ln:.1f} [{llo:.1f}, {lhi:.1f}]",
                "entropy peak / first batch (largest seed)": f"x{float(peak.max()):.2f}",
                "seeds": len(acc),
            }
        )
    raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
    paper.report.add_table(
        heading,
        "figure2_level_sets",
        raw,
        shown,
        "Each run trains on one testbed level only and is evaluated on the evaluation problems of that level "
        "(fig. 2's two datasets: the easiest and the hardest level). diverged: the `healthy` gate (whole-set "
        "mean@n below the seed's base policy, or the rollout entropy past x2 of its first batch).",
    )
    return shown


@experiment("Fig. 3: training dynamics")
def figure3(paper, heading: str):
    fig = paper.curves(
        [*fig3_runs(paper), paper.runs.aer],
        [
            ("reward", "(b) reward", "linear"),
            ("entropy/mean", "(c) policy entropy", "log"),
            ("completions/mean_length", "(e) response length", "linear"),
        ],
        ema_alpha=0.3,
        title="Paper fig. 3(b, c, e): GRPO, Clip-Higher and AER, the figure's curves (EMA 0.3; (f), the test "
        "score, is not logged in training)",
        ncols=3,
    )
    paper.report.add_figure(heading, "figure3_training_dynamics", fig)
    return fig


@experiment("Entropy against its target, with alpha_t")
def entropy_target(paper, heading: str):
    run, grpo = paper.runs.aer, paper.runs.grpo
    tau = paper.hparam(run, "tau")
    fig, (ax, coefficient) = plots.new_figure(2, ncols=1, panel_size=(5.6, 2.6), sharex=True)
    style = paper.styles[run]
    for i, h in enumerate(paper.results.seed_histories(run)):
        series = rollouts(h, "entropy/mean")
        ax.plot(
            series.index,
            series / initial_entropy(h),
            color=style.color,
            linewidth=0.9,
            alpha=0.7,
            label=f"{run}, one line per seed" if i == 0 else None,
        )
        alpha = rollouts(h, "aer/alpha")
        coefficient.plot(alpha.index, alpha, color=style.color, linewidth=0.9, alpha=0.7)
    grpo_curves = [rollouts(h, "entropy/mean") / initial_entropy(h) for h in paper.results.seed_histories(grpo)]
    mean = pd.concat(grpo_curves, axis=1).mean(axis=1)
    ax.plot(
        mean.index,
        mean,
        color=paper.styles[grpo].color,
        linewidth=1.4,
        linestyle="--",
        label=f"{grpo}, mean over seeds",
    )
    ax.axhline(tau, color=plots.PAPER_COLOR, linestyle=":", linewidth=1.0, label=f"H* = {tau:g} H_0")
    ax.set_ylabel("rollout entropy / H_0")
    ax.set_xlabel("training step")
    plots.panel_title(ax, "(a) entropy against its target, per seed")
    coefficient.set_ylabel("alpha_t")
    plots.panel_title(coefficient, "(b) entropy coefficient, per seed")
    coefficient.set_xlabel("training step")
    plots.figure_legend(fig)
    plots.figure_title(fig, f"{run}: H_t / H_0 against H* per seed (GRPO for reference), and alpha_t")
    paper.report.add_figure(
        heading,
        "entropy_target_alpha",
        fig,
        "Each seed's rollout entropy relative to its own first batch: AER is GRPO until its entropy first "
        "reaches the target (alpha_0 = 0), undershoots it, and is turned back by alpha_t; the Discussion gives "
        "each seed's numbers.",
    )
    return fig
