"""The selection rule's input read from the tuning stages' files: one ``ValidationRow`` per (arm, configuration,
tuning seed), its validation mean@n (``reports/tuning/<arm>/<k>/seed<N>/results.json``) and its health
(``health.seed_health`` against ``reports/tuning/base/seed<N>`` and the run's training history). Nothing under
``reports/eval`` is read.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rlvr_lib.files.readers import read_json
from rlvr_lib.settings.config import Params
from rlvr_lib.tuning.health import seed_health
from rlvr_lib.tuning.select import ValidationRow
from rlvr_lib.tuning.space import Config, Space
from rlvr_lib.tuning.validation import VALIDATION_SET

TUNING_REPORTS = Path("reports/tuning")
TRAINING_LOGS = Path("reports/training")


def problem_means(folder: Path) -> dict[str, float]:
    """uid -> mean@n on the validation split of one evaluation folder (its results.json)."""
    results = read_json(folder / "results.json", dict)
    if VALIDATION_SET not in results:
        raise ValueError(f"{folder}/results.json: no '{VALIDATION_SET}' set: not a tuning evaluation")
    return {r["uid"]: r["c"] / r["n"] for r in results[VALIDATION_SET]["per_problem"]}


def row(root: Path, params: Params, config: Config, seed: int) -> ValidationRow:
    """One configuration's tuning seed, read and gated."""
    mine = problem_means(root / TUNING_REPORTS / config.arm / str(config.index) / f"seed{seed}")
    base = problem_means(root / TUNING_REPORTS / "base" / f"seed{seed}")
    if set(mine) != set(base):
        raise ValueError(
            f"tuning arm {config.arm} configuration {config.index} seed {seed}: other problems than the base's"
        )
    uids = sorted(mine)
    history = read_json(root / TRAINING_LOGS / config.run / f"seed{seed}" / "history.json", list)
    t = params.runs[config.arm].train
    updates = t.rollout_micro_batches // t.gradient_accumulation_steps * t.num_iterations
    values, base_values = np.array([mine[u] for u in uids]), np.array([base[u] for u in uids])
    health = seed_health(values, base_values, history, updates)
    return ValidationRow(config.arm, config.index, seed, float(values.mean()), health, config.literal)


def validation_rows(root: Path, params: Params, space: Space) -> list[ValidationRow]:
    """Every (arm, configuration, tuning seed)'s row; a missing file is an error naming it."""
    return [row(root, params, config, seed) for config in space.configs() for seed in space.seeds]
