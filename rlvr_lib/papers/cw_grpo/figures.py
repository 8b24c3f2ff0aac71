"""CW-GRPO's fig. 1: rollout entropy during training, one line per seed (table 1's plot: ``tables.table1``)."""

from rlvr_lib.papers.cw_grpo.measures import ENTROPY
from rlvr_lib.papers.cw_grpo.text import CAPTIONS
from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.base import experiment
from rlvr_lib.papers.framework.claims import NotTestable
from rlvr_lib.render import plots


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
            smooth, dash = plots.ema(series, paper.settings.ema_alpha), "--" if failed else "-"
            line = f"seed {seed}" + (" (failed a gate)" if failed else "")
            ax.plot(series.index, smooth, color=style.color, linestyle=dash, linewidth=1.2, label=line)
            ax.annotate(f"s{seed}", (series.index[-1], smooth.to_numpy()[-1]), fontsize=7, color=style.color)
        ax.set_title(f"{label} ({run})", fontsize=9)
        plots.label_step_axes(ax, ENTROPY)
        ax.legend(fontsize=7, loc="upper left")
    plots.figure_title(fig, f"Paper fig. 1: rollout entropy per seed (EMA {paper.settings.ema_alpha})")
    paper.report.add_figure(heading, "figure1_entropy", fig, caption=CAPTIONS["figure1_entropy"])
    return fig
