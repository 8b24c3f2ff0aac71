"""Contamination of every training set against every evaluation set in shared/data (issue 11).

Prints a markdown table: for each training set (as each paper profile builds it, and every raw set) and each
benchmark, the number of benchmark problems whose text occurs in the training set exactly / after
normalisation (``rlvr_lib.tasks.data.normalise_problem``).

    python benchmarks/contamination.py [DATA_ROOT]    # default: $RLVR_DATA_ROOT, else ../shared/data

A missing data file is named, with the data root looked in (no traceback).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from rlvr_lib.pipeline.stages import files_data
from rlvr_lib.settings.config import load_params
from rlvr_lib.tasks import data

ROOT = Path(__file__).resolve().parents[1]


def main(root: str | None = None) -> None:
    # each problem text normalised once for the whole table, not once per (training set, benchmark) pair: the sets
    # share most of their problems (the profiles are built from the raw sets) and each meets every benchmark, here
    # and in files_data's report; data.contamination looks normalise_problem up in its module (3 min -> 40 s)
    data.normalise_problem = functools.cache(data.normalise_problem)
    # and Qwen2.5's tokenizer for the profiles' length filters built once, not once per profile (5 s each)
    data.length_tokenizer = functools.cache(data.length_tokenizer)
    sets: dict[str, list[dict]] = {}
    for paper in ("erpo", "cw_grpo", "tepo", "opefo", "aer"):
        cfg = load_params(ROOT / "configs" / f"{paper}.yaml").data
        cfg.root = root
        train, _, report = files_data(cfg)
        sets[f"{paper} profile ({cfg.train_set}: {report['train_steps']})"] = train
    for name in [*data.TRAINING_SETS, *data.COMPOSITE_SETS]:
        sets[name] = data.load_training_set(name, root)
    benchmarks = {name: data.load_benchmark(name, root) for name in data.BENCHMARKS}
    print("| training set | rows | " + " | ".join(f"{b} ({len(r)})" for b, r in benchmarks.items()) + " |")
    print("|---|---|" + "---|" * len(benchmarks))
    for name, train in sets.items():
        cells = []
        for rows in benchmarks.values():
            c = data.contamination(train, rows)
            cells.append(f"{c['exact']} / {c['normalised']}")
        print(f"| {name} | {len(train)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    try:
        main(sys.argv[1] if len(sys.argv) > 1 else None)
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}\n(the data root: DATA_ROOT, else $RLVR_DATA_ROOT, else ../shared/data)", file=sys.stderr)
        sys.exit(2)
