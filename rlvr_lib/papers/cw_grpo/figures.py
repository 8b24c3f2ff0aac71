"""CW-GRPO's figures: fig. 1 (rollout entropy, one line per seed) and table 1 drawn on log axes."""

from rlvr_lib import plots
from rlvr_lib.papers import measures
from rlvr_lib.papers.base import experiment
from rlvr_lib.papers.claims import NotTestable
from rlvr_lib.papers.cw_grpo.measures import ENTROPY, PAPER_TABLE1, SIDES


@experiment("Fig. 1: entropy during training")
def figure1(paper, heading: str):
    r = paper.runs
    runs = [("GRPO", r.grpo), ("Clip-Cov", r.clip_cov), ("CW-GRPO", r.cw_grpo)]
    fig, axes = plots.new_figure(len(runs), ncols=len(runs), panel_size=(4.4, 3.4), sharey=True)
    for ax, (label, run) in zip(axes, runs, strict=True):
        try:
            histories = paper.results.seed_histories(run)
        except NotTestable:
            plots.not_logged(ax, ENTROPY)
            continue
        style = paper.styles[run]
        for seed, h in zip(paper.results.seeds_of(run), histories, strict=True):
            series = measures.rollouts(h, ENTROPY)
            failed = paper.results.gates.check("healthy", run, seed)
            smooth = plots.ema(series, paper.settings.ema_alpha)
            ax.plot(
                series.index,
                smooth,
                color=style.color,
                linestyle="--" if failed else "-",
                linewidth=1.2,
                label=f"seed {seed}" + (" (failed a gate)" if failed else ""),
            )
            ax.annotate(f"s{seed}", (series.index[-1], smooth.to_numpy()[-1]), fontsize=7, color=style.color)
        ax.set_title(f"{label} ({run})", fontsize=9)
        plots.label_step_axes(ax, ENTROPY)
        ax.legend(fontsize=7, loc="upper left")
    plots.figure_title(fig, f"Paper fig. 1: rollout entropy per seed (EMA {paper.settings.ema_alpha})")
    paper.report.add_figure(
        heading,
        "figure1_entropy",
        fig,
        caption="Compare each seed's entropy path across the three runs, not their mean: a dashed seed failed a "
        "health gate (below its base policy, or entropy past x2 of its start).",
    )
    return fig


def covariance_thresholds(paper, heading: str, raw_rows: list[dict], percents) -> None:
    """Table 1 as a plot (``raw_rows``: its rows per run and side), added to the table's section."""
    fig, axes = plots.new_figure(2, ncols=2, panel_size=(4.2, 3.2))
    for ax, side in zip(axes, SIDES, strict=True):
        for row in (x for x in raw_rows if x["side"] == side):
            ax.plot(
                percents,
                [abs(row[f"top {p:g}%"]) for p in percents],
                label=row["run"],
                **paper.styles[row["run"]].points(),
            )
        ax.plot(
            percents,
            [abs(PAPER_TABLE1[side][float(p)]) for p in percents],
            "s--",
            color=plots.PAPER_COLOR,
            label="paper GRPO (table 1)",
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("top share of tokens (%)")
        ax.set_ylabel("|covariance threshold| (a.u.)")
        ax.set_title(f"{side} covariances")
    plots.figure_legend(fig)
    plots.figure_title(fig, "Table 1 as a plot: covariance threshold of each top share (not the paper's fig. 3)")
    paper.report.add_figure(
        heading,
        "table1_covariance_thresholds",
        fig,
        caption="The same thresholds on log axes, the paper's GRPO dashed: compare the slopes between 1% and "
        "40%, not the magnitudes (those depend on model, length and how much entropy a policy keeps).",
    )
