"""``dvc exp show`` narrowed to a screen: the metrics of a few runs (or of one paper's runs) in each experiment.

``dvc exp show`` prints every metric of every run and every param: over 1,000 columns. This prints one row per
(experiment, run): its mean@n, pass@n and entropy retained (``reports/run_metrics/<run>.json``, the root dvc.yaml's
``metrics:``), and the value of each ``--param`` asked for.

    python -m rlvr_lib.pipeline.exp_table aer_tau_0_8 --param methods.aer_tau_0_8.tau   # one run and the param changed
    python -m rlvr_lib.pipeline.exp_table --paper aer                                     # every run of one paper
    python -m rlvr_lib.pipeline.exp_table grpo aer -- --all-commits                       # after --: dvc exp show
    options
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import subprocess
import sys

RUN_METRICS = "reports/run_metrics"
FIXED = ("Experiment", "rev", "Created")


def keep_pattern(runs: list[str], params: list[str]) -> str:
    """``dvc exp show --keep``'s regex (matched against whole column names) for the runs' metrics and the params."""
    metrics = [rf"{re.escape(RUN_METRICS)}/{re.escape(run)}\.json:.*" for run in runs]
    return "|".join([*FIXED, *metrics, *(re.escape(p) for p in params)])


def table(csv_text: str, runs: list[str], params: list[str]) -> list[list[str]]:
    """The rows to print (header first) from ``dvc exp show --csv``'s output narrowed to ``runs`` and ``params``."""
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    metric_names: list[str] = []
    for column in rows[0] if rows else []:
        for run in runs:
            prefix = f"{RUN_METRICS}/{run}.json:"
            if column.startswith(prefix) and column[len(prefix) :] not in metric_names:
                metric_names.append(column[len(prefix) :])
    out = [["experiment", "run", *metric_names, *params]]
    for row in rows:
        name = row.get("Experiment") or row.get("rev") or ""
        created = (row.get("Created") or "").replace("T", " ")[:16]
        label = f"{name} ({created})" if created and name not in ("workspace", "") else name or "workspace"
        for run in runs:
            values = [row.get(f"{RUN_METRICS}/{run}.json:{m}", "") for m in metric_names]
            out.append([label, run, *(short(v) for v in values), *(row.get(p, "") for p in params)])
    return out


def short(value: str) -> str:
    try:
        return f"{float(value):.4g}"
    except ValueError:
        return value or "-"


def render(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.exp_table", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="runs (keys of params.yaml methods, or base)")
    parser.add_argument("--paper", help="every run of this paper's papers.<paper>.runs")
    parser.add_argument("--param", action="append", default=[], help="a param's column, e.g. methods.aer.tau")
    args = parser.parse_args(argv)
    runs = list(args.runs)
    if args.paper:
        from rlvr_lib.settings.config import load_params
        from rlvr_lib.settings.papers import paper_runs

        params = load_params()
        if params.papers is None:
            parser.error("params.yaml has no papers section")
        try:
            runs += paper_runs(params.papers.paper(args.paper))
        except ValueError as err:
            parser.error(str(err))
    if not runs:
        parser.error("name a run or --paper")
    runs = list(dict.fromkeys(runs))
    cmd = ["dvc", "exp", "show", "--csv", "--drop", ".*", "--keep", keep_pattern(runs, args.param), *extra]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        print(done.stderr or done.stdout, file=sys.stderr)
        return done.returncode
    print(render(table(done.stdout, runs, args.param)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
