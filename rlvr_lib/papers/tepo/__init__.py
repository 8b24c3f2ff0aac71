"""TEPO (../shared/papers/tepo.txt) on the testbed, one file per kind of content: ``paper`` is the ``Paper`` class
(name, sources, the runs' roles, and the claims, experiments and Discussion bound in the report's order);
``claims`` declares every claim of the paper in its order, each naming its measure; ``measures`` holds the
constants and what only TEPO computes (history quantities, the claims' measures ``fn(paper, ...)``, the update
structure each seed was made with); ``tables`` and ``figures`` are the experiments (tables 1, 3, 4, TEPO's trust
region; figs. 2-3); ``text`` is the prose (the intro, the decoding in words, the Discussion's paragraphs)."""

from .paper import Paper

__all__ = ["Paper"]
