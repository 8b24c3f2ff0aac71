"""Do two independent `make repro` runs agree within their intervals? (issue 9, item 3: "check the intervals
against reality").

Reads ``reports/tables/results_<benchmark>.csv`` of two repository copies (each from its own fresh-clone
``make repro``) and prints, per run and metric, both values with their 95% intervals and whether they agree:
each run's value lies inside the other run's interval. Also compares the models' bytes (the base policy and
every run's final weights), which says what was bitwise reproducible between the two.

    python benchmarks/compare_repros.py /tmp/repro1 /tmp/repro2 [--benchmark testbed] [--metrics mean@16 pass@16]
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import pandas as pd


def read_table(root: Path, benchmark: str) -> pd.DataFrame:
    path = root / "reports" / "tables" / f"results_{benchmark}.csv"
    if not path.exists():
        raise SystemExit(f"{path} not found: run `make repro` in {root} first")
    return pd.read_csv(path).set_index("run")


def agreement(a: pd.DataFrame, b: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """One row per (run, metric) present in both tables: both values and intervals, and ``agree`` (each value
    inside the other's interval)."""
    rows = []
    for run in a.index.intersection(b.index):
        for metric in metrics:
            va, vb = a.at[run, metric], b.at[run, metric]
            la, ha = a.at[run, f"{metric}_ci_low"], a.at[run, f"{metric}_ci_high"]
            lb, hb = b.at[run, f"{metric}_ci_low"], b.at[run, f"{metric}_ci_high"]
            rows.append(
                {
                    "run": run,
                    "metric": metric,
                    "A": f"{va:.3f} [{la:.3f}, {ha:.3f}]",
                    "B": f"{vb:.3f} [{lb:.3f}, {hb:.3f}]",
                    "B - A": round(vb - va, 3),
                    "agree": bool(la <= vb <= ha and lb <= va <= hb),
                }
            )
    return pd.DataFrame(rows)


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.exists() else None


def weights_equal(a: Path, b: Path) -> pd.DataFrame:
    """Per model folder, ``models/base/seed<N>`` and ``runs/<run>/seed<N>/final``: are the weight files identical?"""
    bases = sorted(p.relative_to(a) for p in (a / "models/base").glob("seed*"))
    folders = bases + sorted(p.relative_to(a) for p in (a / "runs").glob("*/seed*/final"))
    rows = []
    for folder in folders:
        da, db = digest(a / folder / "model.safetensors"), digest(b / folder / "model.safetensors")
        rows.append({"model": str(folder), "A": da, "B": db, "identical": da is not None and da == db})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--benchmark", default="testbed")
    parser.add_argument("--metrics", nargs="+", default=None, help="default: mean@n and pass@n of the table")
    args = parser.parse_args()
    a, b = read_table(args.a, args.benchmark), read_table(args.b, args.benchmark)
    metrics = args.metrics or [c for c in a.columns if c.split("@")[0] in ("mean", "pass") and "_ci_" not in c]
    table = agreement(a, b, metrics)
    print(table.to_markdown(index=False))
    print(f"\n{int(table['agree'].sum())} of {len(table)} (run, metric) pairs agree within their intervals")
    weights = weights_equal(args.a, args.b)
    if weights.empty:  # e.g. fresh clones: the models are DVC outputs, not in git
        print(f"\nno model folders (models/base/seed*, runs/*/seed*/final) in {args.a}: weights not compared")
        return
    print()
    print(weights.to_markdown(index=False))
    print(f"\n{int(weights['identical'].sum())} of {len(weights)} models bitwise identical")


if __name__ == "__main__":
    main()
