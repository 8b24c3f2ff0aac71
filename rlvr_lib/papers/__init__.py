"""One replication per paper: its tables, figures and claims regenerated from the pipeline's outputs.

``notebooks/papers/<paper>.ipynb`` (one DVC stage ``paper_<paper>`` each) call ``open_paper(name, params)`` and
then the paper's experiments one by one; ``write()`` puts everything in ``reports/papers/<paper>/`` (README.md with
the claims table and figures, tables as .md + .csv, figures as .png).

- ``config``: the typed ``papers:`` section of params.yaml (which runs each paper uses, its settings);
- ``claims``: a claim (quote, source, the paper's number, how ours is computed, claimed direction, null, gates,
  measure), the verdict rule (``VERDICT_RULE``) and its categories, paired differences with Student-t intervals over
  seeds, the claims table;
- ``measures``: one definition per window, scale and quantity, with what fixes each; ``gates``: per-seed run health;
  ``engine``: how one claim is judged (gates, immovable measures, nulls, declared alternatives);
- ``results``: the runs' evaluation results and training histories, per seed;
- ``output``: a paper's report folder, written atomically;
- ``erpo``, ``cw_grpo``, ``tepo``, ``opefo``, ``aer``, ``summary``: one module per paper;
- ``external``: the analysis functions of ``rlvr_lib.analysis`` these modules call, behind one thin import each;
- ``dvc_stages``: the ``paper_<name>`` stages of dvc.yaml, generated from ``papers:`` and checked against it.

Importing this package imports neither torch nor pandas; the paper modules do.
"""

from __future__ import annotations

import importlib
from typing import Any

from rlvr_lib.papers.config import ALL_PAPERS, PAPERS

__all__ = ["ALL_PAPERS", "PAPERS", "open_paper"]


def open_paper(name: str, params: Any) -> Any:
    """The analysis object of paper ``name`` (``rlvr_lib.papers.<name>.Paper``) on params' runs."""
    if name not in ALL_PAPERS:
        raise ValueError(f"unknown paper '{name}'; papers: {list(ALL_PAPERS)}")
    if params.papers is None:
        raise ValueError("params.yaml has no 'papers' section: nothing says which runs the papers use")
    module = importlib.import_module(f"{__name__}.{name}")
    return module.Paper(params)
