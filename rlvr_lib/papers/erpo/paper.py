"""ERPO (erpo.txt, arXiv 2603.28204) on the testbed: tables 1-2, fig. 1(b), figs. 4-5, one ablation per component
and App. A.3's data filter counted on the real MATH files (both tables only: the paper claims neither).

The paper compares ERPO with Base, SFT and GRPO (no ablation section); SFT is the testbed base policy itself (the
base is built by supervised warm-up), so table 1's rows are base / GRPO / ERPO. Every run trains on ERPO's training
set (``train_data: erpo``: its level and solution-length filter on the testbed, the filter_data stage). Windows,
scales and health gates are ``rlvr_lib.papers.framework.measures`` and ``gates``; the open choice sigma_target is a
declared alternative (params.yaml ``papers.erpo.alternatives``: x1/4 and x4 of the default 1). The class binds the
folder's claims, experiments (in the report's order: the order of the class body) and Discussion paragraphs.
"""

from __future__ import annotations

from rlvr_lib.papers.erpo import claims, figures, tables, text
from rlvr_lib.papers.framework.about import Mechanism, RootCause
from rlvr_lib.papers.framework.base import PaperBase


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
    mechanism = Mechanism("erpo")  # every ERPO run (an ablation switches one component off, the rest acts)
    root_causes = (
        RootCause(
            "ERPO did not learn at sigma_target 1",
            (
                "average_metrics",
                "shorter",
                "length_trend",
                "outperforms_grpo_sft",
                "passk_vs_grpo",
                "reward_trajectory",
                "kl",
            ),
            text.did_not_learn,
        ),
    )
    table1 = tables.table1
    table2 = tables.table2
    figure1b = figures.figure1b
    figure4 = figures.figure4
    figure5 = figures.figure5
    ablations = tables.ablations
    real_data = tables.real_data
    sensitivity = tables.sensitivity
    discussion_notes = text.discussion_notes
