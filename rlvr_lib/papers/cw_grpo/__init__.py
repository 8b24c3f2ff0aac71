"""CW-GRPO (cw_grpo.txt, arXiv 2605.11538) on the testbed: table 2 (Base, GRPO, Clip-Cov, CW-GRPO at the paper's
step-100 checkpoint), fig. 1 (entropy, per seed), table 1 / fig. 3 (token covariance percentiles) and table 3
(accuracy at three checkpoints); the kernel's weights from the logs, and the sensitivity runs. ``paper`` holds the
class (name, title, the experiments in the report's order); ``claims`` declares every claim with its measure;
``measures`` holds the paper's constants, quantities and claim measures; ``tables`` and ``figures`` the experiments;
``text`` the intro, the captions and the Discussion's paragraphs."""

from .paper import Paper

__all__ = ["Paper"]
