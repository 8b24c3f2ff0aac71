"""The CW-GRPO replication's class: its name and text, its claims, experiments (report order) and prose hooks."""

from rlvr_lib.papers.cw_grpo import claims, figures, tables, text
from rlvr_lib.papers.framework.about import Mechanism
from rlvr_lib.papers.framework.base import PaperBase


class Paper(PaperBase):
    name = "cw_grpo"
    title = "CW-GRPO: Covariance-Aware GRPO with Gaussian-Kernel Advantage Reweighting — replication on the testbed"
    source = "../shared/papers/cw_grpo.txt"
    intro = text.INTRO

    declare_claims = claims.declare
    mechanism = Mechanism("cw_grpo")  # every CW-GRPO run (scope and steps vary, the kernel acts)
    table2 = tables.table2
    figure1 = figures.figure1
    table1 = tables.table1
    kernel_weights = tables.kernel_weights
    fluctuation_table = tables.fluctuation_table
    table3 = tables.table3
    sensitivity = tables.sensitivity
    discussion_notes = text.discussion_notes

    def summary(self) -> str:
        """The shared Summary, then table 3's checkpoints read the other way (``text.checkpoint_reversal``)."""
        return f"{super().summary()}\n\n{text.checkpoint_reversal(self)}"

    decoding_words = text.decoding_words
