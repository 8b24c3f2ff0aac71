"""``python -m rlvr_lib tune --dry``: every tuning arm, its configurations and what they cost, before anything runs.

A configuration's (run, seed) pair is costed as its arm's own pair with that seed (``budgets.rates``: measured host
time, or its history's summed step time scaled, or the median pair's): the settings tuned (learning rate, a loss
coefficient, the gradient clip) leave the work per step unchanged, and the validation split is as large as the
evaluation split. Host lane-hours: the pairs' summed time on one lane of the host that trained the committed runs;
2-core hours: ``make repro``'s 2-core estimate (the host time x the measured 2-core / host ratio, plus the per-pair
overhead) over its lanes, with the ratio's quartiles as the range.
"""

from __future__ import annotations

from pathlib import Path

from rlvr_lib.pipeline import budgets
from rlvr_lib.settings.config import Params, read_yaml
from rlvr_lib.tuning.space import Space, parse_space
from rlvr_lib.workspace.layout import load_params


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f}"


def plan(root: Path = Path(".")) -> str:
    """The dry run's text (``root``: the repository root, holding params.yaml and docs/budgets.yaml)."""
    params = load_params(root / "params.yaml")
    space = parse_space(read_yaml(root / "params.yaml"), params)
    return plan_text(root, params, space)


def plan_text(root: Path, params: Params, space: Space) -> str:
    data = budgets.load(root)
    pairs = [(arm, seed) for arm in space.arms for seed in space.seeds]
    rates = budgets.rates(root, data, pairs)
    lanes = data["pair_times"]["lanes"]
    n_pairs = len(space.configs()) * len(space.seeds)
    lines = [
        f"tuning (params.yaml `tuning`): {len(space.arms)} arms x {space.budget} configurations x "
        f"{len(space.seeds)} seeds {space.seeds} = {n_pairs} (run, seed) pairs, each evaluated on the "
        f"{space.validation_n}-problem validation split only; nothing has run",
        "",
    ]
    host_total, two_core = 0.0, [0.0, 0.0, 0.0]
    for arm, configs in space.arms.items():
        spec = params.runs[arm]
        host = len(configs) * sum(rates.host[(arm, s)] for s in space.seeds)
        lane = [len(configs) * sum(rates.pair[(arm, s)][i] for s in space.seeds) for i in range(3)]
        host_total += host
        two_core = [two_core[i] + lane[i] for i in range(3)]
        lines.append(
            f"{arm} (method {spec.method}, train_data {spec.train_data}, {spec.train.max_steps} steps): "
            f"{len(configs) * len(space.seeds)} pairs, {_hours(host)} host lane-h, {_hours(lane[1])} 2-core lane-h"
        )
        for c in configs:
            lines.append(f"  {c.index}  {c.label()}{'  (literal transfer)' if c.literal else ''}")
    lines += [
        "",
        f"total: {n_pairs} pairs and {len(space.seeds)} base-policy validation evaluations (eval_base, seconds each)",
        f"  host: {_hours(host_total)} lane-hours ({host_total / 3600 / 64:.1f} h on a 64-lane host)",
        f"  2-core machine, {lanes} lanes: {_hours(two_core[1] / lanes)} h "
        f"({_hours(two_core[0] / lanes)} to {_hours(two_core[2] / lanes)})",
        f"  pair times: {rates.logged} of the arms' {len(pairs)} (arm, seed) pairs measured on a host, "
        f"{rates.untrained} at the median pair's; 2-core / host ratio {rates.ratio[1]:.2f} "
        f"(quartiles {rates.ratio[0]:.2f}-{rates.ratio[2]:.2f}); docs/budgets.md",
        "  then: the selected configuration of each arm trains at its run's seeds on the evaluation split "
        "(rlvr_lib/tuning/select.py); stages: python -m rlvr_lib.pipeline.tune_dvc",
    ]
    return "\n".join(lines)
