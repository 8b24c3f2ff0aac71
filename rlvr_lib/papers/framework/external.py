"""The analysis functions of ``rlvr_lib.analysis`` that the paper modules call, behind one thin import each.

They come from the ``paper-analysis`` branch (covariance percentiles, convergence step, k50); until it is merged,
an import fails and the claim that needs the function is reported as not testable here, naming what is missing.
Each wrapper states the interface it expects: wiring the merged functions means adjusting these few lines only.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import pandas as pd

from rlvr_lib.papers.framework.claims import NotTestable

BRANCH = "paper-analysis"


def _function(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(f"rlvr_lib.analysis{module}"), name)
    except (ImportError, AttributeError):
        raise NotTestable(
            f"needs rlvr_lib.analysis{module}.{name} (branch {BRANCH}), which is not in this checkout"
        ) from None


def covariance_percentile_table(
    history: pd.DataFrame, prefix: str, top_percents: Sequence[float], steps: slice | None = None
) -> pd.DataFrame:
    """cw_grpo.txt table 1 from a run's logged ``<prefix>/cov_<side>_top<p>pct`` series: rows positive / negative,
    one column per top percent (``rlvr_lib.methods.covariance.percentile_table``). NotTestable when the run did
    not log them (``log_percentiles``)."""
    table = _function(".covariance", "percentile_table")
    try:
        return table(history, prefix, top_percents, steps)
    except KeyError as err:
        raise NotTestable(
            f"the '{prefix}' history has no covariance percentiles ({err.args[0]}): set "
            f"methods.<run>.log_percentiles: true"
        ) from None


def k50(ks: Sequence[int], pass_at_k: Sequence[float], threshold: float = 0.5) -> int | None:
    """aer.txt App. C.3: the smallest k with pass@k >= threshold, None when no k reaches it
    (``rlvr_lib.analysis.k50.k50``)."""
    result = _function(".k50", "k50")(list(zip(ks, pass_at_k, strict=True)), threshold=threshold)
    return None if result is None else int(result)
