"""What each paper replication costs in a `make repro` (issue 10: "measured ... with per-paper figures").

Reads the run time papermill recorded in every executed notebook of ``reports/notebooks/`` (``metadata.papermill
.duration``: the stage's notebook from kernel start to its last cell, as it ran in the pipeline, two lanes on the
machine's cores) and params.yaml's ``papers`` and each run's seeds, and prints per paper: its runs, their train + eval
notebook minutes over all seeds, the paper stage's own minutes, and the minutes of the runs no other paper reads.
Shared stages (data, base policy, its evaluation, filters, testbed properties, report) are listed once. DVC's own
time between stages (about 26 s per train + eval pair on the 150-pair pipeline) is not in a notebook and not counted.

    python benchmarks/repro_cost.py [--root .]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from rlvr_lib.settings.config import load_params
from rlvr_lib.settings.papers import ALL_PAPERS, paper_runs

SHARED = ("data", "testbed_properties", "report")
PER_SEED = ("base_model", "filter_data", "eval_base")  # <stage>_seed<N>.ipynb, one per training seed


def notebook_minutes(path: Path) -> float:
    """Papermill's recorded run time of one executed notebook, in minutes."""
    if not path.is_file():
        raise SystemExit(f"{path} not found: run `make repro` first")
    duration = json.loads(path.read_text())["metadata"].get("papermill", {}).get("duration")
    if duration is None:
        raise SystemExit(f"{path}: no metadata.papermill.duration (not executed by papermill?)")
    return duration / 60


UNTIMED: set[str] = set()  # pairs made outside the pipeline's notebooks (benchmarks/train_pairs.sh): no durations


def run_minutes(notebooks: Path, run: str, seeds: list[int]) -> float:
    """Train + eval notebook minutes of one run over its seeds that have notebooks (the others go to UNTIMED)."""
    total = 0.0
    for s in seeds:
        pair = [notebooks / f"{kind}_{run}_seed{s}.ipynb" for kind in ("train", "eval")]
        if not any(p.is_file() for p in pair):
            UNTIMED.add(f"{run} seed {s}")
            continue
        total += sum(notebook_minutes(p) for p in pair)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."), help="repository with an executed reports/ (.)")
    args = parser.parse_args(argv)
    params = load_params(args.root / "params.yaml")
    notebooks = args.root / "reports" / "notebooks"
    seeds = {run: spec.seeds for run, spec in params.runs.items()}
    papers = {name: paper_runs(params.papers.paper(name), trained_only=True) for name in ALL_PAPERS}
    readers = Counter(run for runs in papers.values() for run in runs)  # how many papers read each run

    shared = {name: notebook_minutes(notebooks / f"{name}.ipynb") for name in SHARED}
    for name in PER_SEED:
        shared[name] = sum(notebook_minutes(notebooks / f"{name}_seed{s}.ipynb") for s in params.all_seeds)
    print(f"base seeds {params.all_seeds}; notebook minutes (papermill durations in {notebooks})\n")
    print("| shared stage | minutes |\n|---|---|")
    for name, minutes in shared.items():
        print(f"| {name} | {minutes:.1f} |")

    print("\n| paper | runs | train + eval pairs | runs' minutes | paper stage minutes | its own runs' minutes |")
    print("|---|---|---|---|---|---|")
    for name, runs in papers.items():
        minutes = {run: run_minutes(notebooks, run, seeds[run]) for run in runs}
        own = sum(m for run, m in minutes.items() if readers[run] == 1)
        stage = notebook_minutes(notebooks / f"paper_{name}.ipynb")
        pairs = sum(len(seeds[run]) for run in runs)
        print(f"| {name} | {len(runs)} | {pairs} | {sum(minutes.values()):.1f} | {stage:.1f} | {own:.1f} |")

    every_run = sorted(params.runs)
    total_runs = sum(run_minutes(notebooks, run, seeds[run]) for run in every_run)
    total_papers = sum(notebook_minutes(notebooks / f"paper_{name}.ipynb") for name in papers)
    total = total_runs + total_papers + sum(shared.values())
    print(
        f"\nall {len(every_run)} runs, {sum(map(len, seeds.values()))} pairs: {total_runs:.1f} notebook minutes; "
        f"paper stages "
        f"{total_papers:.1f}; shared stages {sum(shared.values()):.1f}; total {total:.1f} (one lane), "
        f"{total / 2:.1f} if two lanes stayed busy"
    )
    if UNTIMED:
        print(f"not counted: {len(UNTIMED)} pairs without stage notebooks (made by benchmarks/train_pairs.sh)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
