"""One tuning seed's health: the papers' ``healthy`` gate (``papers.framework.gates.health``), read on the validation
split, so that selection and the reports call the same seeds diverged."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_lib.papers.framework import gates, measures


def seed_health(problems: np.ndarray, base: np.ndarray, history: list[dict], updates_per_rollout: int) -> str:
    """'' when healthy, else why: ``problems`` (validation problems,) mean@n of the tuned policy, ``base`` the same
    of its seed's base policy, ``history`` its training log rows (history.json), ``updates_per_rollout`` optimizer
    steps per rollout batch (the rollout entropy is read once per batch)."""
    frame = pd.DataFrame(history).sort_values("step").reset_index(drop=True)
    frame.attrs[measures.UPDATES_ATTR] = updates_per_rollout
    return gates.health(np.asarray(problems, dtype=float), np.asarray(base, dtype=float), lambda: frame)
