"""``python -m rlvr_lib tune --dry``: every tuning arm, its configurations and what they cost, before anything runs.

A configuration's (run, seed) pair is costed as its arm's own pair with that seed (``budgets.rates``: measured host
time, or its history's summed step time scaled, or the median pair's): the settings tuned (learning rate, a loss
coefficient, the gradient clip) leave the work per step unchanged, and the validation split is as large as the
evaluation split. Host lane-hours: the pairs' summed time on one lane of the host that trained the committed runs;
2-core hours: ``make repro``'s 2-core estimate (the host time x the measured 2-core / host ratio, plus the per-pair
overhead) over its lanes, with the ratio's quartiles as the range.

Then the tuned protocol: each arm's tuned run at the arm's own seeds, costed as the arm's committed pairs. Before the
``select`` stage has written ``reports/tuning/selection.json`` every arm counts (an upper bound: an arm whose
selection has its committed run's settings is not retrained, ``tuning.tuned``); after it, the selection's tuned runs
only, listed for the lane driver by ``python -m rlvr_lib tune --tuned-pairs`` (one ``tuned__<arm>:<seed>`` a line).
"""

from __future__ import annotations

from pathlib import Path

from rlvr_lib.pipeline import budgets
from rlvr_lib.pipeline.tuned_stages import selections
from rlvr_lib.settings.config import Params, read_yaml
from rlvr_lib.tuning.selection_file import SELECTION_FILE
from rlvr_lib.tuning.space import Space, parse_space
from rlvr_lib.tuning.tuned import tuned_name
from rlvr_lib.workspace.layout import load_params


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f}"


def plan(root: Path = Path(".")) -> str:
    """The dry run's text (``root``: the repository root, holding params.yaml and docs/budgets.yaml)."""
    params = load_params(root / "params.yaml")
    space = parse_space(read_yaml(root / "params.yaml"), params)
    return plan_text(root, params, space)


def tuned_runs(root: Path, params: Params, space: Space) -> dict[str, str] | None:
    """arm -> the run the tuned protocol reads, from ``root``'s selection file (None before the select stage)."""
    if not (root / SELECTION_FILE).is_file():
        return None
    return {arm: s.run for arm, s in selections(params, root)[0].items()}


def tuned_pairs(root: Path = Path(".")) -> list[str]:
    """The tuned protocol's pairs to train, ``tuned__<arm>:<seed>`` (a lane driver's ``--pairs-file``), from the
    selection file (an error naming it when it is missing)."""
    params = load_params(root / "params.yaml")
    chosen, _ = selections(params, root)
    return [f"{s.run}:{seed}" for arm, s in chosen.items() if s.run != arm for seed in params.runs[arm].seeds]


def plan_text(root: Path, params: Params, space: Space) -> str:
    data = budgets.load(root)
    pairs = [(arm, seed) for arm in space.arms for seed in space.seeds]
    arm_pairs = [(arm, seed) for arm in space.arms for seed in params.runs[arm].seeds]
    costed = list(dict.fromkeys(pairs + arm_pairs))
    rates = budgets.rates(root, data, costed)
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
        f"  pair times: {rates.logged} of the arms' {len(costed)} (arm, seed) pairs measured on a host, "
        f"{rates.untrained} at the median pair's; 2-core / host ratio {rates.ratio[1]:.2f} "
        f"(quartiles {rates.ratio[0]:.2f}-{rates.ratio[2]:.2f}); docs/budgets.md",
        "  then: the select stage (pipelines/tune/dvc.yaml:select) writes reports/tuning/selection.json; stages: "
        "python -m rlvr_lib.pipeline.tune_dvc",
        "",
        *_tuned_lines(root, params, space, rates, lanes),
    ]
    return "\n".join(lines)


def _tuned_lines(root: Path, params: Params, space: Space, rates: budgets.Rates, lanes: int) -> list[str]:
    runs = tuned_runs(root, params, space)
    known = runs is not None
    trained = [arm for arm in space.arms if not known or runs[arm] != arm]
    n_pairs = sum(len(params.runs[arm].seeds) for arm in trained)
    host = sum(rates.host[(arm, s)] for arm in trained for s in params.runs[arm].seeds)
    two_core = [sum(rates.pair[(arm, s)][i] for arm in trained for s in params.runs[arm].seeds) for i in range(3)]
    head = (
        f"tuned protocol (from {SELECTION_FILE}): {len(trained)} tuned runs at their arms' seeds = {n_pairs} pairs"
        if known
        else f"tuned protocol: {len(trained)} arms at their runs' seeds = at most {n_pairs} pairs (no {SELECTION_FILE} "
        "yet; an arm whose selection has its committed run's settings is not retrained)"
    )
    lines = [head + ", evaluated on the evaluation split like every run"]
    for arm in space.arms:
        seeds = params.runs[arm].seeds
        if known and runs[arm] == arm:
            lines.append(f"  {arm}: the committed run (its selection has its settings), not retrained")
        else:
            cost = sum(rates.host[(arm, s)] for s in seeds)
            lines.append(f"  {tuned_name(arm)}: seeds {seeds}, {len(seeds)} pairs, {_hours(cost)} host lane-h")
    low, mid, high = (_hours(t / lanes) for t in two_core)
    return lines + [
        f"  host: {_hours(host)} lane-hours ({host / 3600 / 64:.1f} h on a 64-lane host); 2-core machine, "
        f"{lanes} lanes: {mid} h ({low} to {high})",
        "  stages: python -m rlvr_lib.pipeline.tune_dvc --tuned; pairs file for the lane driver: "
        "python -m rlvr_lib tune --tuned-pairs > F, then python -m rlvr_lib.pipeline.repro_lanes --pairs-file F",
    ]
