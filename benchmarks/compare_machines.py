"""The same (run, seed) pairs trained on two machines from the same base policies and code: how far apart do they
end? Compares the evaluation results (mean@n) and the first logged grad-norm of two reports/ folders.

    python benchmarks/compare_machines.py REPORTS_A REPORTS_B [--runs grpo,dapo]

Prints, per pair, both machines' mean@n and first-step grad-norm, then per run the mean over seeds on each machine,
the paired difference B - A with its 95% t interval over seeds, and the seeds' standard deviation on machine A (the
seed-to-seed variance the verdicts' intervals already carry) for scale.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
from scipy import stats


def mean_at_n(reports: Path, run: str, seed: int) -> float:
    metrics = json.loads((reports / "eval" / run / f"seed{seed}" / "results.json").read_text())["testbed"]["metrics"]
    (key,) = [k for k in metrics if k.startswith("mean@")]
    return float(metrics[key]["value"])


def first_grad_norm(reports: Path, run: str, seed: int) -> float:
    history = json.loads((reports / "training" / run / f"seed{seed}" / "history.json").read_text())
    return float(next(row["grad_norm"] for row in history if "grad_norm" in row))


def common_pairs(a: Path, b: Path, runs: list[str] | None) -> dict[str, list[int]]:
    """run -> the seeds evaluated in both folders."""
    out = {}
    for run_dir in sorted((a / "eval").iterdir()):
        if run_dir.name == "base" or (runs and run_dir.name not in runs):
            continue
        seeds = [
            int(s.name[4:])
            for s in sorted(run_dir.glob("seed*"))
            if (b / "eval" / run_dir.name / s.name / "results.json").exists()
        ]
        if seeds:
            out[run_dir.name] = seeds
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--runs", type=lambda s: s.split(","), default=None)
    args = parser.parse_args(argv)
    pairs = common_pairs(args.a, args.b, args.runs)
    if not pairs:
        parser.error(f"no (run, seed) pair evaluated in both {args.a} and {args.b}")
    print("run seed | mean@n A  B | first grad-norm A  B")
    for run, seeds in pairs.items():
        for s in seeds:
            ma, mb = mean_at_n(args.a, run, s), mean_at_n(args.b, run, s)
            ga, gb = first_grad_norm(args.a, run, s), first_grad_norm(args.b, run, s)
            print(f"{run} {s} | {ma:.4f} {mb:.4f} | {ga:.8f} {gb:.8f}")
    print("\nrun (seeds) | mean A | mean B | B - A [95% t interval] | seeds' sd on A")
    for run, seeds in pairs.items():
        a = np.array([mean_at_n(args.a, run, s) for s in seeds])
        b = np.array([mean_at_n(args.b, run, s) for s in seeds])
        d = b - a
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.inf
        sd = a.std(ddof=1) if len(a) > 1 else math.nan
        print(
            f"{run} ({len(seeds)}) | {a.mean():.4f} | {b.mean():.4f} | {d.mean():+.4f} [{d.mean() - half:+.4f}, "
            f"{d.mean() + half:+.4f}] | {sd:.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
