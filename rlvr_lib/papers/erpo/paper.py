"""ERPO's paper object: its name and source, its claims and its experiments in the report's order (the order of
the class body), and its Discussion paragraphs, each bound from the folder's modules."""

from __future__ import annotations

from rlvr_lib.papers.base import PaperBase
from rlvr_lib.papers.erpo import claims, figures, tables, text


class Paper(PaperBase):
    name = "erpo"
    title = "ERPO: Token-Level Entropy-Regulated Policy Optimization — replication on the testbed"
    source = "../shared/papers/erpo.txt"
    intro = text.INTRO

    def __init__(self, params):
        super().__init__(params)
        r = self.runs
        self.rows = [("base", r.base), ("GRPO", r.grpo), ("ERPO", r.erpo)]  # tables 1-2 and fig. 5(a)

    declare_claims = claims.declare
    table1 = tables.table1
    table2 = tables.table2
    figure1b = figures.figure1b
    figure4 = figures.figure4
    figure5 = figures.figure5
    ablations = tables.ablations
    real_data = tables.real_data
    sensitivity = tables.sensitivity
    discussion_notes = text.discussion_notes
