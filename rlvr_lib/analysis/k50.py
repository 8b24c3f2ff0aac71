"""AER's sample-efficiency number k_50 = min{k : Pass@k >= 50%} (aer.txt sec. 5, L425: "On AIME2025 ... GRPO does
not reach 50% by k = 256").

Taken over the k values at which pass@k was evaluated (the project's grid 1, 2, 4, ..., n; no interpolation between
them, as the paper reports only powers of two), with pass@k as a fraction in [0, 1]. None when the curve never
reaches the threshold within its largest k.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def k50(curve: Mapping[int, float] | Sequence[tuple[int, float]], threshold: float = 0.5) -> int | None:
    """Smallest evaluated k with pass@k >= ``threshold``, or None if there is none.

    curve: {k: pass@k} or (k, pass@k) pairs, k positive integers without repeats (any order), pass@k in [0, 1]
    (NaN not allowed). threshold in (0, 1]: 0.5 for k_50.
    """
    pairs = list(curve.items()) if isinstance(curve, Mapping) else [tuple(p) for p in curve]
    if not pairs:
        raise ValueError("the pass@k curve is empty")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must lie in (0, 1], got {threshold}")
    ks = [k for k, _ in pairs]
    if len(set(ks)) != len(ks) or any(not isinstance(k, int) or isinstance(k, bool) or k < 1 for k in ks):
        raise ValueError(f"k values must be distinct positive integers, got {ks}")
    for k, value in pairs:
        if math.isnan(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"pass@{k} must lie in [0, 1] (a fraction), got {value}")
    reached = [k for k, value in pairs if value >= threshold]
    return min(reached) if reached else None


def passk_curve(metrics: Mapping[str, float]) -> dict[int, float]:
    """{k: value} from a flat metric mapping with ``pass@<k>`` keys (as ``eval.evaluate`` names them); other
    keys are ignored."""
    out = {}
    for name, value in metrics.items():
        if name.startswith("pass@") and name[5:].isdigit():
            out[int(name[5:])] = float(value)
    return out
