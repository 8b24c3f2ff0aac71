"""AER (aer.txt, Adaptive Entropy Regularization) on the testbed: table 1, tables 6-7 (pass@k to k = n, k50),
fig. 3 (training dynamics), table 2 (components), tables 8-9 (tau and rho sweeps) and H_t against its target.

``paper.py`` binds the paper's ``Paper`` (its claims, experiments and prose, in the report's order); ``claims.py``
declares every claim in the paper's order, each naming its measure; ``measures.py`` holds the margins, the paper's
numbers and what only AER computes (history quantities, run roles, pass@k with many samples, k50); ``tables.py``
and ``figures.py`` are the experiments; ``text.py`` the intro and the Discussion's paper-specific paragraphs.
"""

from .paper import Paper

__all__ = ["Paper"]
