"""TEPO's figures: the training curves of figs. 2-3 (an ``@experiment`` taking ``(paper, heading)``)."""

from __future__ import annotations

import dataclasses

from rlvr_lib.papers.framework.base import experiment
from rlvr_lib.render import plots


@experiment("Figs. 2-3: clip ratio, response length, reward, gradient norm, entropy, KL to the rollout policy")
def figures(paper, heading: str):
    r = paper.runs
    fig = paper.curves(
        [r.grpo_dapo, r.tepo, r.no_kl],
        [
            ("clip_ratio/region", "fig. 2(a) clipped-token fraction", "linear"),
            ("completions/mean_length", "fig. 2(b) tokens per response", "linear"),
            ("reward", "fig. 3(a) reward", "linear"),
            ("grad_norm", "fig. 3(b) gradient norm", "linear"),
            ("entropy/mean", "rollout entropy", "linear"),
            ("tepo/kl", "per-token KL to the rollout policy", "log"),
        ],
        ema_alpha=paper.settings.ema_alpha,
        title=f"Paper figs. 2-3: TEPO vs GRPO/DAPO and TEPO-w/o. KL (EMA {paper.settings.ema_alpha})",
        ncols=3,
        # TEPO-w/o. KL is a variant of TEPO (its navy, dashed): its own colour tells the two apart (round-4 T6)
        styles={r.no_kl: dataclasses.replace(paper.styles[r.no_kl], color=plots.QUANTITY_COLORS[1])},
    )
    paper.report.add_figure(
        heading,
        "figures2_3",
        fig,
        caption="Compare TEPO with GRPO/DAPO and TEPO-w/o. KL over training: the clipped share, the tokens per "
        "response (which the answer format fixes), the reward (fig. 3(a): steadier and higher in the paper), the "
        "gradient norm, the rollout entropy and TEPO's KL to the rollout policy (log scale; it drops to ~1e-8 at "
        "the first update of each rollout batch, where the policy is the rollout policy).",
    )
    return fig
