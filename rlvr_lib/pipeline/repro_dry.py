"""``make repro DRY=1``: what the lane driver (``rlvr_lib.pipeline.repro_lanes``) would run, with an estimated time.

The driver decides each step's units when the steps before have finished; this predicts those decisions through
the driver's own ``select`` (one ``dvc status``, ``made_elsewhere``) with two differences, since nothing has run:

- a dependency DVC finds deleted counts as rebuilt by the steps before, unchanged (on a clone: the data, base
  policies and models the earlier steps rebuild byte for byte);
- a unit reading a stage the steps before will change (one with a changed dependency, parameter, command or
  committed output, or reading such a stage) runs, whatever DVC says now.

A stale stage that rebuilds byte for byte (a change that did not move its outputs) is listed, with what reads it,
though the real run then skips what reads it. A (run, seed) pair's time is README's Budgets estimate of it
(``rlvr_lib.pipeline.budgets``: its measured host time scaled to the 2-core machine, with make repro's overhead), so
the dry run and the Budgets table agree; any other stage's is its notebook's last recorded duration (papermill's, in
``reports/notebooks/``), else the median of its kind's. A step's units are spread over the lanes.

    python -m rlvr_lib.pipeline.repro_dry [--jobs N] [--paper NAME]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from rlvr_lib.pipeline.lineage import stage_lineages
from rlvr_lib.pipeline.repro_lanes import Plan, Unit, clock, plan, real_changes, select, stage_changes
from rlvr_lib.settings.config import load_params


class Graph:
    """DVC's stage graph, by address (``data``, ``pipelines/<run>/dvc.yaml:train@0``): what each stage reads
    (transitively) and its notebook."""

    def __init__(self) -> None:
        import networkx as nx
        from dvc.repo import Repo

        with Repo() as repo:
            graph = repo.index.graph
            self.order = [s.addressing for s in reversed(list(nx.topological_sort(graph)))]
            self.upstream = {s.addressing: {d.addressing for d in nx.descendants(graph, s)} for s in graph}
            self.notebook = {
                s.addressing: next((o.def_path for o in s.outs if str(o.def_path).endswith(".ipynb")), None)
                for s in graph
            }

    def scope(self, targets: list[str]) -> list[str]:
        """``targets`` and every stage they read, in DVC's order (all stages when ``targets`` is empty)."""
        if not targets:
            return list(self.order)
        wanted = set(targets).union(*(self.upstream[t] for t in targets))
        return [s for s in self.order if s in wanted]


def notebook_seconds(path: str | None, root: Path = Path(".")) -> float | None:
    """papermill's recorded duration of the executed notebook at ``path`` (None if absent or unrecorded)."""
    if path is None or not (root / path).is_file():
        return None
    return json.loads((root / path).read_text()).get("metadata", {}).get("papermill", {}).get("duration")


class Durations:
    """A stage's estimated seconds: its notebook's recorded duration, else the median of its kind's; a unit's, the
    Budgets estimate of its (run, seed) pair where it is one (``pairs``), else the sum of its stages'."""

    def __init__(self, graph: Graph, pairs: dict[tuple[str, int], float] | None = None) -> None:
        self.pairs = pairs or {}
        self.known = {s: notebook_seconds(nb) for s, nb in graph.notebook.items()}
        by_kind: dict[str, list[float]] = {}
        for stage, seconds in self.known.items():
            if seconds is not None:
                by_kind.setdefault(kind(stage), []).append(seconds)
        self.median = {k: statistics.median(v) for k, v in by_kind.items()}

    def __call__(self, stage: str) -> float:
        found = self.known.get(stage)
        return found if found is not None else self.median.get(kind(stage), 0.0)

    def unit(self, unit: Unit) -> float:
        pair = pair_of(unit)
        return self.pairs[pair] if pair in self.pairs else sum(map(self, unit.stages))


def pair_of(unit: Unit) -> tuple[str, int] | None:
    """(run, seed) of a pair unit (``pipelines/<run>/dvc.yaml:train@<seed>`` and its eval), else None."""
    kinds = {kind(s) for s in unit.stages}
    if kinds != {"train", "eval"}:
        return None
    train = next(s for s in unit.stages if kind(s) == "train")
    return train.split("/")[1], int(train.rsplit("@", 1)[1])


def budget_pair_seconds(root: Path = Path(".")) -> dict[tuple[str, int], float]:
    """Each params.yaml pair's 2-core seconds as README's Budgets estimates it (the median rate)."""
    from rlvr_lib.pipeline import budgets

    params = load_params(root / "params.yaml")
    pairs = [(run, s) for run, spec in params.runs.items() for s in spec.seeds]
    return {pair: times[1] for pair, times in budgets.rates(root, budgets.load(root), pairs).pair.items()}


def kind(stage: str) -> str:
    """``pipelines/grpo/dvc.yaml:train@3`` -> ``train``."""
    return stage.split(":")[-1].split("@")[0]


def lanes_seconds(units: list[float], lanes: int) -> float:
    """Wall time of units of these durations, longest first, each to the lane that frees first."""
    free = [0.0] * max(1, min(lanes, len(units)))
    for seconds in sorted(units, reverse=True):
        free[free.index(min(free))] += seconds
    return max(free) if units else 0.0


def dry_run(
    steps: Plan,
    lanes: int,
    lineages: Callable[[], list],
    say: Callable[[str], None] = print,
    pair_seconds: dict[tuple[str, int], float] | None = None,
) -> float:
    """Print each step's units to run (and those skipped as made elsewhere) with the estimated time (``pair_seconds``:
    each pair's, else its stages' notebooks'), then the final ``dvc repro``'s stages; returns the estimated seconds
    in all."""
    graph = Graph()
    seconds_of = Durations(graph, pair_seconds)
    changing: set[str] = set()
    in_units = {s for phase in steps.phases for u in phase.units for s in u.stages}
    rest = [s for s in graph.scope(steps.targets) if s not in in_units]
    known = stage_changes([*in_units, *rest])  # one `dvc status` (one per step in the real run, as each starts)

    def status(stages: list[str]) -> dict[str, list]:
        return {s: known[s] for s in stages if s in known}

    def reads_changing(stage: str) -> bool:
        return bool(graph.upstream.get(stage, set()) & changing)

    def changes(stage: str) -> bool:
        """Whether ``stage`` will write other outputs than those recorded (not only rebuild absent ones)."""
        return bool(real_changes(known.get(stage, []), settled=True, own_outputs=False)) or reads_changing(stage)

    source = "pairs: README's Budgets estimates; other stages: " if pair_seconds else ""
    say(f"{steps.what} --dry: {lanes} lanes; times from {source}the notebooks' recorded durations")

    def forced(unit: Unit) -> bool:
        return any(map(reads_changing, unit.stages))

    total = 0.0
    for phase in steps.phases:
        todo, skipped = select(phase, steps.sampling, lineages, forced=forced, status=status)
        for stage in (s for u in todo for s in u.stages):  # in order: a unit's later stages read its earlier ones
            if changes(stage):
                changing.add(stage)
        took = lanes_seconds([seconds_of.unit(u) for u in todo], lanes)
        total += took
        up_to_date = len(phase.units) - len(todo) - len(skipped)
        say(
            f"{phase.what}: {len(todo)} to run, {up_to_date} up to date, {len(skipped)} made elsewhere (not rerun); "
            f"about {clock(took)}"
        )
        for unit in todo:
            say(f"  {unit.name}: {' '.join(unit.stages)}")
    last: list[str] = []
    for stage in rest:  # --allow-missing: a stage whose only change is absent data is skipped
        if changes(stage):
            changing.add(stage)
            last.append(stage)
    took = sum(map(seconds_of, last))
    total += took
    say(f"then {' '.join(steps.last)}: {len(last)} stages ({' '.join(last) or 'none'}); about {clock(took)}")
    say(f"{steps.what}: about {clock(total)} in all ({lanes} lanes)")
    return total


def main(argv: list[str] | None = None) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.repro_dry", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=cores, help=f"lanes (default: the cores, {cores})")
    parser.add_argument("--paper", default=None, help="one paper only: erpo, cw_grpo, tepo, opefo, aer or summary")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    try:
        steps = plan(load_params(), args.paper)
    except ValueError as err:
        parser.error(str(err))
    dry_run(steps, args.jobs, functools.cache(stage_lineages), pair_seconds=budget_pair_seconds())
    return 0


if __name__ == "__main__":
    sys.exit(main())
