"""OPEFO (opefo.txt, On-Policy Entropy Flow Optimization) on the testbed: table 1 (baselines with 8 updates per
rollout batch, GRPO strict on-policy and OPEFO with 1), table 2 (lambda ablations), fig. 2 (entropy, net dH per
step, dH of clipped tokens), fig. 4 (entropy, reward, length), fig. 5 (lambda* over steps) and lambda* statistics.

Fig. 2(b)-(c) need the entropy flows of GRPO-family runs, logged when their ``log_entropy_flow`` switch is on
(``entropy_flow/net``, ``entropy_flow/clipped_high``, ``entropy_flow/clipped_low``: paper-analysis branch);
OPEFO's own flows are always logged (``opefo/flow_*``).

The folder: ``paper.py`` holds the ``Paper`` class (name, intro, null run, the experiments in the report's order);
``claims.py`` every claim as a declaration with its margin, in the paper's order; ``measures.py`` the history keys,
windows and the paper's numbers, and the estimators the claims name; ``tables.py`` tables 1 and 2 and the two eq. 6
forms side by side; ``figures.py`` fig. 2, 4 and 5; ``text.py`` the intro and the Discussion's notes.
"""

from rlvr_lib.papers.opefo.paper import Paper

__all__ = ["Paper"]
