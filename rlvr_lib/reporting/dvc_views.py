"""The compact files that ``dvc metrics show`` and ``dvc plots show`` read (the root dvc.yaml's ``metrics:`` and
``plots:``), written by the report stage.

- ``run_metrics/<run>.json``: each run's headline numbers, per benchmark mean@n and pass@K (K the largest
  evaluated), and the entropy retained (last steps / first step): ``dvc metrics show`` prints one row per run.
- ``plots/<group>/<quantity>.csv``: for each group of runs (one paper's runs, or the summary's core methods) and
  each training quantity of ``PLOT_QUANTITIES``, long rows ``step, run, value, low, high``: the mean over seeds of
  each seed's EMA-smoothed curve and its min-max band over seeds. ``dvc plots show`` draws one chart per file, the
  runs overlaid with their bands (template ``.dvc/plots/runs.json``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from rlvr_lib.files.atomic import publish, staging_dir, write_atomic
from rlvr_lib.render.plots import ema

METRICS_DIR = "run_metrics"
PLOTS_DIR = "plots"
PLOT_QUANTITIES = {"entropy": "entropy/mean", "reward": "reward", "accuracy": "accuracy"}  # file stem -> history key
CURVE_COLUMNS = ("step", "run", "value", "low", "high")


def run_metrics(tables: Mapping[str, pd.DataFrame]) -> dict[str, dict]:
    """``{run: {benchmark: {mean@n: v, pass@K: v}, "entropy_retained": v}}`` from
    ``rlvr_lib.reporting.main_page.results_table``
    of each benchmark (``tables``: benchmark -> table); NaN values (the base policy's entropy) are left out."""
    out: dict[str, dict] = {}
    for benchmark, table in tables.items():
        headline = [c for c in table.columns if c.startswith(("mean@", "pass@")) and f"{c}_ci_low" in table.columns]
        for values in table.to_dict("records"):
            entry = out.setdefault(values["run"], {})
            entry[benchmark] = {metric: round(float(values[metric]), 6) for metric in headline}
            if not math.isnan(values["entropy_retained"]):
                entry["entropy_retained"] = round(float(values["entropy_retained"]), 6)
    return out


def curves(histories: pd.DataFrame, runs: Sequence[str], key: str, ema_alpha: float) -> pd.DataFrame:
    """``CURVE_COLUMNS`` rows of ``runs`` (in that order) for history key ``key``: per step the mean over seeds of
    each seed's EMA-smoothed (``ema_alpha``) curve, and the band's ``low``/``high`` (min and max over seeds).
    ``histories``: ``rlvr_lib.render.tables.load_histories``. Raises ValueError naming a run without history or key."""
    frames = []
    for run in runs:
        history = histories[histories["run"] == run]
        if history.empty:
            raise ValueError(f"run '{run}' has no training history to plot (reports/training/{run}/)")
        if key not in history.columns or history[key].isna().all():
            raise ValueError(f"run '{run}' does not log '{key}' (reports/training/{run}/seed*/history.json)")
        smoothed = history.pivot_table(index="step", columns="seed", values=key).apply(ema, alpha=ema_alpha)
        frames.append(
            pd.DataFrame(
                {
                    "step": smoothed.index,
                    "run": run,
                    "value": smoothed.mean(axis=1).to_numpy(),
                    "low": smoothed.min(axis=1).to_numpy(),
                    "high": smoothed.max(axis=1).to_numpy(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)[list(CURVE_COLUMNS)]


def render(
    tables: Mapping[str, pd.DataFrame],
    histories: pd.DataFrame,
    groups: Mapping[str, Sequence[str]],
    ema_alpha: float,
) -> dict[str, bytes]:
    """Every file in memory: path relative to the reports folder -> content. ``groups``: group name -> its runs."""
    files = {
        f"{METRICS_DIR}/{run}.json": (json.dumps(entry, indent=1) + "\n").encode()
        for run, entry in run_metrics(tables).items()
    }
    for group, runs in groups.items():
        for stem, key in PLOT_QUANTITIES.items():
            frame = curves(histories, runs, key, ema_alpha)
            files[f"{PLOTS_DIR}/{group}/{stem}.csv"] = frame.to_csv(index=False, float_format="%.6g").encode()
    return files


def write(out_dir: str | Path, files: Mapping[str, bytes]) -> None:
    """Replace ``out_dir``'s ``run_metrics/`` and ``plots/`` folders by ``files`` (``render``) as a whole: files
    of runs or groups no longer rendered go, and an error while writing leaves the previous folders in place."""
    out = Path(out_dir)
    with staging_dir(out, "dvc_views") as staged:
        for folder in (METRICS_DIR, PLOTS_DIR):
            (staged / folder).mkdir()
        for rel, data in files.items():
            write_atomic(staged / rel, data)
        publish({staged / folder: out / folder for folder in (METRICS_DIR, PLOTS_DIR)})
