"""TEPO's ``Paper``: its name and sources, its runs' roles, and the claims, experiments (in the report's order) and
Discussion bound from the folder's modules."""

from __future__ import annotations

from rlvr_lib.papers.framework.base import PaperBase
from rlvr_lib.papers.tepo import claims, figures, tables, text
from rlvr_lib.papers.tepo.measures import LABELS


class Paper(PaperBase):
    name = "tepo"
    title = "TEPO: Token-Level Policy Optimization via Sequence-Level Likelihood — replication on the testbed"
    source = "../shared/papers/tepo.txt"
    intro = text.INTRO
    declare_claims = claims.declare

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
