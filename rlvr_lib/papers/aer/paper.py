"""AER's ``Paper``: its name and source, its claims (claims.py) and its experiments bound in the report's order."""

from rlvr_lib.papers.aer import claims, figures, tables, text
from rlvr_lib.papers.framework.base import PaperBase


class Paper(PaperBase):
    name = "aer"
    title = "AER: Adaptive Entropy Regularization — replication on the testbed"
    source = "../shared/papers/aer.txt"
    intro = text.INTRO

    declare_claims = claims.declare
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
