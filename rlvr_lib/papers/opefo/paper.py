"""OPEFO's ``Paper``: its name, source and intro, the run it is judged against, its claims and its experiments in
the report's order (the order of the class body), and the Discussion's notes."""

from __future__ import annotations

from rlvr_lib.papers.framework.about import Mechanism
from rlvr_lib.papers.framework.base import PaperBase
from rlvr_lib.papers.opefo import claims, figures, tables, text


class Paper(PaperBase):
    name = "opefo"
    title = "OPEFO: On-Policy Entropy Flow Optimization — replication on the testbed"
    source = "../shared/papers/opefo.txt"
    intro = text.INTRO

    def null_run(self) -> str | None:
        """OPEFO trains strictly on-policy (one update per rollout batch): a property claim on one of its runs is
        judged against strict on-policy GRPO, also the reference of the ``learned`` gate."""
        return self.runs.grpo_onpolicy

    def summary(self) -> str:
        """The generated Summary, then how far its headline rests on the eq. 6 form (``text.form_line``)."""
        return "\n\n".join(t for t in (super().summary(), text.form_line(self)) if t)

    declare_claims = claims.declare
    mechanism = Mechanism("opefo", off=({"lambda_mode": "static"},))  # a static lambda is table 2's ablation
    table1 = tables.table1
    table2 = tables.table2
    figure2 = figures.figure2
    figure4 = figures.figure4
    figure5 = figures.figure5
    delta_h_forms = tables.delta_h_forms
    discussion_notes = text.discussion_notes
