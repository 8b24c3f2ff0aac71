"""ERPO's replication as a folder: ``paper`` holds the ``Paper`` class (its name and source, its experiments in
the report's order), ``claims`` every claim of the paper declared with its measure, ``measures`` the constants and
estimators only ERPO computes, ``tables`` and ``figures`` the experiments, ``text`` the intro and the
Discussion's paragraphs."""

from .paper import Paper

__all__ = ["Paper"]
