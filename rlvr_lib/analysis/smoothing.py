"""The exponential moving average of ERPO's figures (erpo.txt fig. 3: "smoothed with EMA (alpha = 0.2)"; fig. 4 and
fig. 5(c): "smoothed with EMA (alpha = 0.12) while raw data is shown in light colors").

The paper gives only "EMA (alpha = ...)". We read alpha as the textbook smoothing factor, the weight of the newest
value:

    s_0 = x_0,        s_t = alpha * x_t + (1 - alpha) * s_{t-1},

so alpha = 1 is the raw curve and alpha = 0.12 is heavy smoothing: the weight of a value k steps back is
alpha (1 - alpha)^k, the centre of mass of those weights lies (1 - alpha) / alpha = 7.3 steps back and the
equivalent span is (2 - alpha) / alpha = 15.7 steps. There is no start-up bias correction (s_0 = x_0). A NaN
(a step where the quantity was not logged) leaves the average unchanged and is shown as that average; leading NaNs
stay NaN. This equals pandas' ``Series.ewm(alpha=alpha, adjust=False, ignore_na=True).mean()``. The other common
reading, TensorBoard's "smoothing" slider (the weight of the *past*, s_t = w s_{t-1} + (1 - w) x_t), would make
0.12 almost raw; we do not use it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

ERPO_EMA_ALPHA = 0.12  # erpo.txt fig. 4 and fig. 5(c)
ERPO_EVAL_EMA_ALPHA = 0.2  # erpo.txt fig. 3 (benchmark accuracy curves)


def ema(values, alpha: float = ERPO_EMA_ALPHA):
    """Exponential moving average s_t = alpha * x_t + (1 - alpha) * s_{t-1}, s_0 = the first logged value.

    values: a pd.Series (returned as a Series with the same index), or any 1-D sequence (returned as a float
    np.ndarray). alpha in (0, 1]: the weight of the newest value (module docstring). NaN entries hold the previous
    average; leading NaNs stay NaN.
    """
    if not 0 < alpha <= 1:
        raise ValueError(f"EMA alpha must lie in (0, 1], got {alpha}")
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"ema smooths one 1-D series, got shape {x.shape}")
    out = np.full_like(x, np.nan)
    average = math.nan
    for i, value in enumerate(x):
        if not math.isnan(value):
            average = value if math.isnan(average) else alpha * value + (1.0 - alpha) * average
        out[i] = average
    return pd.Series(out, index=values.index, name=values.name) if isinstance(values, pd.Series) else out
