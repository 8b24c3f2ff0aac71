"""AER's ``Paper``: its name and source, its claims (claims.py) and its experiments bound in the report's order."""

from rlvr_lib.papers.aer import claims, figures, tables, text
from rlvr_lib.papers.framework.about import Mechanism, RootCause
from rlvr_lib.papers.framework.base import PaperBase


class Paper(PaperBase):
    name = "aer"
    title = "AER: Adaptive Entropy Regularization — replication on the testbed"
    source = "../shared/papers/aer.txt"
    intro = text.INTRO

    declare_claims = claims.declare
    # AER's mechanism: C1 (difficulty_aware) or C2 & C3 (adaptive_alpha); both off is the fixed-coefficient baseline
    mechanism = Mechanism("aer", off=({"adaptive_alpha": False, "difficulty_aware": False},))
    root_causes = (
        RootCause("one comparison, AER minus GRPO on pass@1", ("table1_vs_baselines", "aer_best_of_table2")),
    )
    discussion_notes = text.discussion_notes

    # the experiments, in the report's order
    figure2 = figures.figure2
    table1 = tables.table1
    pass_at_large_k = tables.pass_at_large_k
    figure3 = figures.figure3
    table2 = tables.table2
    table8 = tables.table8
    table9 = tables.table9
    entropy_target = figures.entropy_target
    sensitivity = tables.sensitivity
