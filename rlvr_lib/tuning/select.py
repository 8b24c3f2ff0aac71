"""The selection rule of issue 41's tuning, fixed before any tuning run (docs/assumptions.md, "Tuning: the equal
budget").

Per arm, among its configurations whose every tuning seed is healthy (``health``: the project's ``healthy`` gate,
``papers.framework.gates.health``, on the validation split), the one of highest validation mean@n, averaged over the
tuning seeds, is selected, with two exceptions:

- **tie to the literal transfer**: when the literal configuration is healthy and the winner's mean exceeds the
  literal's by at most one pooled standard error of a difference of two configurations' means,
  ``sqrt(2 * s2 / S)``, where ``s2`` is the mean over the arm's healthy configurations of each one's sample variance
  over its ``S`` tuning seeds (seed-to-seed noise pooled across the arm: two seeds alone give a poor variance), the
  literal is kept;
- **no healthy configuration**: the literal is kept and marked ``no_healthy``.

The input carries validation numbers only (``ValidationRow``): selection cannot read the evaluation split.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

import numpy as np


@dataclasses.dataclass(frozen=True)
class ValidationRow:
    """One tuning run's validation result: (arm, configuration, seed), its validation mean@n and its health ('' when
    healthy, else the gate's reason). ``literal``: the configuration is the run as committed."""

    arm: str
    config: int
    seed: int
    validation_mean: float
    health: str
    literal: bool


@dataclasses.dataclass(frozen=True)
class Selection:
    arm: str
    config: int
    literal_kept: bool  # the literal transfer stays (a tie, or no healthy configuration)
    no_healthy: bool
    reason: str
    means: dict[int, float]  # configuration -> validation mean over the tuning seeds


def select(rows: list[ValidationRow], seeds: list[int]) -> dict[str, Selection]:
    """The selected configuration of every arm in ``rows`` (each (arm, configuration) on every seed of ``seeds``)."""
    by_arm: dict[str, dict[int, dict[int, ValidationRow]]] = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        if type(row) is not ValidationRow:
            raise TypeError(f"select reads ValidationRow only (validation numbers), got {type(row).__name__}")
        if row.seed in by_arm[row.arm][row.config]:
            raise ValueError(f"tuning arm {row.arm} configuration {row.config} seed {row.seed} given twice")
        by_arm[row.arm][row.config][row.seed] = row
    return {arm: _select_arm(arm, configs, seeds) for arm, configs in by_arm.items()}


def _select_arm(arm: str, configs: dict[int, dict[int, ValidationRow]], seeds: list[int]) -> Selection:
    for config, per_seed in configs.items():
        missing = sorted(set(seeds) - set(per_seed))
        if missing:
            raise ValueError(f"tuning arm {arm} configuration {config}: no validation result for seed(s) {missing}")
    literals = [c for c, per_seed in configs.items() if any(r.literal for r in per_seed.values())]
    if len(literals) != 1:
        raise ValueError(f"tuning arm {arm}: {len(literals)} literal configurations, expected exactly 1")
    literal = literals[0]
    values = {c: np.array([per_seed[s].validation_mean for s in seeds]) for c, per_seed in configs.items()}
    means = {c: float(v.mean()) for c, v in values.items()}
    healthy = [c for c, per_seed in configs.items() if all(not per_seed[s].health for s in seeds)]
    if not healthy:
        return Selection(arm, literal, True, True, "no configuration healthy in every seed: literal kept", means)
    winner = max(healthy, key=lambda c: (means[c], c == literal))
    if winner == literal:
        return Selection(arm, literal, True, False, "the literal transfer has the highest validation mean", means)
    if literal not in healthy:
        return Selection(arm, winner, False, False, "highest validation mean; the literal is unhealthy", means)
    s2 = float(np.mean([values[c].var(ddof=1) for c in healthy])) if len(seeds) > 1 else math.inf
    se = math.sqrt(2 * s2 / len(seeds))
    gap = means[winner] - means[literal]
    if gap <= se:
        reason = f"configuration {winner} leads by {gap:+.3f}, within one pooled standard error ({se:.3f}): literal"
        return Selection(arm, literal, True, False, reason, means)
    reason = f"highest validation mean, {gap:+.3f} over the literal (pooled standard error {se:.3f})"
    return Selection(arm, winner, False, False, reason, means)
