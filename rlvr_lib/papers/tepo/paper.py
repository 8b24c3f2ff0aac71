"""TEPO's ``Paper``: its name and sources, its runs' roles, and the claims, experiments (in the report's order) and
Discussion bound from the folder's modules."""

from __future__ import annotations

from rlvr_lib.papers.framework.about import Mechanism, RootCause
from rlvr_lib.papers.framework.base import PaperBase
from rlvr_lib.papers.framework.claims import ISSUE40, Fixed
from rlvr_lib.papers.tepo import claims, figures, tables, text
from rlvr_lib.papers.tepo.measures import LABELS


class Paper(PaperBase):
    name = "tepo"
    title = "TEPO: Token-Level Policy Optimization via Sequence-Level Likelihood — replication on the testbed"
    source = "../shared/papers/tepo.txt"
    intro = text.INTRO
    declare_claims = claims.declare
    mechanism = Mechanism("tepo")  # every TEPO run (its panels change the mask, KL or surrogate around w_i)
    root_causes = (
        RootCause(
            "one comparison, TEPO minus GRPO/DAPO",
            ("table1", "gain_size", "seed_consistency", "delta_h_trade"),
            text.deficit_hinges,
        ),
        RootCause("one measure, TEPO's reward volatility", ("reward", "stability_exploration", "stability_marked")),
        RootCause(
            "re-tests of one sentence under settings the paper does not use (sensitivity runs)",
            ("eps_sensitivity", "unclipped_sensitivity", "lr_sensitivity"),
        ),
    )
    decoding_choice = Fixed(
        ISSUE40,
        after_runs=True,
        what="the accuracy and pass@k verdicts moved from greedy (the paper's decoding, where the base policy sits at "
        "a ceiling the task sets: it solves the plain sums and no trap) to the shared sampled decoding, the only other "
        "one every TEPO run was evaluated at",
    )

    def label(self, run: str) -> str:
        return LABELS.get(self.params.runs[run].method, run)

    def null_run(self) -> str | None:
        """TEPO's GRPO role is its GRPO/DAPO baseline (8 updates per rollout batch, TEPO's training set)."""
        return self.runs.grpo_dapo

    def trained_runs(self) -> list[str]:
        """The TEPO runs (the method and its ablations), in the order of table 3."""
        r = self.runs
        return [r.tepo, r.no_kl, *r.global_kl, *r.aggregation, *r.kl_scope]

    # the experiments, in the report's order
    table1 = tables.table1
    table3 = tables.table3
    table4 = tables.table4
    trust_region = tables.trust_region
    figures = figures.figures

    discussion_notes = text.discussion_notes
    decoding_note = tables.ceiling_text
