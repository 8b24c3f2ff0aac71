"""Analysis: measurements on runs and samples that the papers' figures use (EMA smoothing, convergence steps, the
entropy flow of OPEFO, k at 50% coverage, ERPO's perturbation study). Imports ``eval`` and the layers below it."""
