"""The analysis functions of the lower layers that the paper modules call with a paper's errors: covariance
percentiles (``rlvr_lib.methods.covariance``) and k50 (``rlvr_lib.analysis.k50``). A run that did not log what a
function needs makes the claim not testable here, naming the setting that logs it."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from rlvr_lib.analysis import k50 as k50_module
from rlvr_lib.methods.covariance import percentile_table
from rlvr_lib.papers.framework.claims import NotTestable


def covariance_percentile_table(
    history: pd.DataFrame, prefix: str, top_percents: Sequence[float], steps: slice | None = None
) -> pd.DataFrame:
    """cw_grpo.txt table 1 from a run's logged ``<prefix>/cov_<side>_top<p>pct`` series: rows positive / negative,
    one column per top percent (``rlvr_lib.methods.covariance.percentile_table``). NotTestable when the run did
    not log them (``log_percentiles``)."""
    try:
        return percentile_table(history, prefix, top_percents, steps)
    except KeyError as err:
        raise NotTestable(
            f"the '{prefix}' history has no covariance percentiles ({err.args[0]}): set "
            f"methods.<run>.log_percentiles: true"
        ) from None


def k50(ks: Sequence[int], pass_at_k: Sequence[float], threshold: float = 0.5) -> int | None:
    """aer.txt App. C.3: the smallest k with pass@k >= threshold, None when no k reaches it
    (``rlvr_lib.analysis.k50.k50``)."""
    result = k50_module.k50(list(zip(ks, pass_at_k, strict=True)), threshold=threshold)
    return None if result is None else int(result)
