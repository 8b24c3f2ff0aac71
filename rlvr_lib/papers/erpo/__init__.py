"""ERPO (erpo.txt, arXiv 2603.28204) on the testbed: tables 1-2, fig. 1(b), figs. 4-5, one ablation per component
and App. A.3's data filter counted on the real MATH files (both tables only: the paper claims neither).

The paper compares ERPO with Base, SFT and GRPO (no ablation section); SFT is the testbed base policy itself (the
base is built by supervised warm-up), so table 1's rows are base / GRPO / ERPO. Every run trains on ERPO's training
set (``train_data: erpo``: its level and solution-length filter on the testbed, the filter_data stage). Windows,
scales and health gates are ``rlvr_lib.papers.measures`` and ``gates``; the open choice sigma_target is a declared
alternative (params.yaml ``papers.erpo.alternatives``: x1/4 and x4 of the default 1).

The folder: ``paper`` binds the ``Paper`` class (name, source, experiments in the report's order); ``claims``
declares every claim with its measure; ``measures`` holds the constants and the estimators only ERPO computes;
``tables`` and ``figures`` the experiments; ``text`` the intro and the Discussion's paragraphs.
"""

from rlvr_lib.papers.erpo.paper import Paper

__all__ = ["Paper"]
