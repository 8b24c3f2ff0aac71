"""The files behind `dvc metrics show` and `dvc plots show`, and how dvc.yaml and .dvc/config declare them."""

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from rlvr_lib.reporting import dvc_views, report_stage
from rlvr_lib.settings.config import load_params
from rlvr_lib.settings.papers import PAPERS, paper_runs, run_roles

ROOT = Path(__file__).resolve().parent.parent


def histories() -> pd.DataFrame:
    """Two runs: grpo with seeds 0 and 1 (entropy 1 and 3 at every step), erpo with seed 0."""
    rows = [
        {"run": run, "seed": seed, "step": step, "entropy/mean": value, "reward": step / 10, "accuracy": 0.5}
        for run, seeds in {"grpo": {0: 1.0, 1: 3.0}, "erpo": {0: 2.0}}.items()
        for seed, value in seeds.items()
        for step in (1, 2, 3)
    ]
    return pd.DataFrame(rows)


def table() -> pd.DataFrame:
    """A ``rlvr_lib.reporting.main_page.results_table``'s columns that run_metrics reads."""
    return pd.DataFrame(
        {
            "run": ["base", "grpo"],
            **{f"mean@8{s}": [0.25, 0.5] for s in ("", "_ci_low", "_ci_high")},
            **{f"pass@8{s}": [0.5, 0.75] for s in ("", "_ci_low", "_ci_high")},
            **{f"response_length{s}": [50.0, 45.0] for s in ("", "_ci_low", "_ci_high")},
            "entropy_retained": [math.nan, 0.3],
            "train_accuracy": [math.nan, 0.6],
        }
    )


def test_run_metrics_are_the_headline_numbers():
    assert dvc_views.run_metrics({"testbed": table()}) == {
        "base": {"testbed": {"mean@8": 0.25, "pass@8": 0.5}},  # no entropy retained: the base is not trained
        "grpo": {"testbed": {"mean@8": 0.5, "pass@8": 0.75}, "entropy_retained": 0.3},
    }


def test_curves_are_seed_means_with_min_max_bands():
    frame = dvc_views.curves(histories(), ["grpo", "erpo"], "entropy/mean", ema_alpha=1.0)
    assert list(frame.columns) == list(dvc_views.CURVE_COLUMNS)
    grpo = frame[frame["run"] == "grpo"]
    assert (
        grpo["value"].tolist() == [2.0] * 3 and grpo["low"].tolist() == [1.0] * 3 and grpo["high"].tolist() == [3.0] * 3
    )
    assert frame["run"].drop_duplicates().tolist() == ["grpo", "erpo"]
    smoothed = dvc_views.curves(histories(), ["grpo"], "reward", ema_alpha=0.5)["value"].to_numpy()
    np.testing.assert_allclose(smoothed, [0.1, 0.15, 0.225])  # EMA: 0.5 * x_t + 0.5 * s_{t-1}
    with pytest.raises(ValueError, match=r"run 'dapo' has no training history to plot \(reports/training/dapo/\)"):
        dvc_views.curves(histories(), ["dapo"], "reward", ema_alpha=1.0)
    with pytest.raises(ValueError, match="run 'grpo' does not log 'kl'"):
        dvc_views.curves(histories(), ["grpo"], "kl", ema_alpha=1.0)


def test_write_replaces_both_folders(tmp_path):
    stale = tmp_path / "plots" / "old_group" / "entropy.csv"
    stale.parent.mkdir(parents=True)
    stale.write_text("step,run,value,low,high\n")
    files = dvc_views.render({"testbed": table()}, histories(), {"erpo": ["grpo", "erpo"]}, ema_alpha=1.0)
    dvc_views.write(tmp_path, files)
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == [
        "plots/erpo/accuracy.csv",
        "plots/erpo/entropy.csv",
        "plots/erpo/reward.csv",
        "run_metrics/base.json",
        "run_metrics/grpo.json",
    ]
    assert json.loads((tmp_path / "run_metrics" / "grpo.json").read_text())["entropy_retained"] == 0.3


def test_plot_groups_are_each_papers_runs_and_the_core_methods():
    params = load_params(ROOT / "params.yaml")
    groups = report_stage.plot_groups(params)
    assert [g for g in groups if "-" not in g] == ["erpo", "cw_grpo", "tepo", "opefo", "aer", "core"]
    assert groups["core"] == params.papers.summary.runs.methods
    for paper in PAPERS:  # every run of a paper is in one of its charts, none is base
        charts = [runs for name, runs in groups.items() if name.split("-")[0] == paper]
        assert {r for runs in charts for r in runs} == set(paper_runs(params.papers.paper(paper), trained_only=True))
        assert all("base" not in runs for runs in charts)


def test_a_paper_with_many_runs_is_split_by_role_with_its_references():
    """Issue 42: AER's 29 runs overlaid in one chart could not be told apart; each chart now holds whole roles (at
    most MAX_PLOT_RUNS runs unless one role is longer), with AER and GRPO in each for reference."""
    params = load_params(ROOT / "params.yaml")
    aer = {name: runs for name, runs in report_stage.plot_groups(params).items() if name.split("-")[0] == "aer"}
    assert len(aer) > 1 and "aer-tau_sweep" in aer
    roles = run_roles(params.papers.aer)
    for name, runs in aer.items():
        assert runs[:2] == ["aer", "grpo"], name
        assert len(runs) <= report_stage.MAX_PLOT_RUNS or any(set(r) == set(runs[2:]) for r in roles.values()), name
    assert set(roles["tau_sweep"]) <= set(aer["aer-tau_sweep"])  # a role is never cut across charts


def test_dvc_yaml_declares_one_metrics_folder_and_overlay_plots():
    """Per-run stages declare no DVC metrics or plots (the 307-row table, the 5,526-chart page); the root's do."""
    root = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    assert root["metrics"] == ["reports/run_metrics"]
    assert root["plots"] == [{"reports/plots": {"template": "runs", "x": "step", "y": "value"}}]
    report_outs = [next(iter(o)) for o in root["stages"]["report"]["outs"]]
    assert {"reports/run_metrics", "reports/plots"} <= set(report_outs)
    files = [ROOT / "dvc.yaml", *sorted((ROOT / "pipelines").glob("*/dvc.yaml"))]
    for path in files:
        for name, stage in yaml.safe_load(path.read_text())["stages"].items():
            body = stage.get("do", stage)
            assert not {"metrics", "plots"} & body.keys(), f"{path}: stage {name}"
    template = json.loads((ROOT / ".dvc" / "plots" / "runs.json").read_text())
    assert template["data"] == {"values": "<DVC_METRIC_DATA>"}


def test_plots_page_loads_no_script_from_the_network():
    config = (ROOT / ".dvc" / "config").read_text()
    found = re.search(r"html_template\s*=\s*(\S+)", config)
    assert found, ".dvc/config sets no plots.html_template"
    page = (ROOT / ".dvc" / found.group(1)).read_text()
    assert "{plot_divs}" in page and "{scripts}" not in page  # DVC puts its CDN <script src> tags at {scripts}
    assert not re.search(r"<script[^>]*\bsrc\s*=", page)
    for library in ("vega", "vega-lite", "vega-embed"):
        assert f"<!-- {library} " in page
    assert os.path.getsize(ROOT / ".dvc" / found.group(1)) < 2_000_000


def test_dvc_shows_the_written_files_with_the_committed_template(tmp_path):
    """`dvc metrics show` and `dvc plots show` on a tiny repository with the root dvc.yaml's metrics/plots, the
    .dvc/plots templates and .dvc/config: one metrics row per run, one chart per file, no script from the network."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    dvc = [sys.executable, "-m", "dvc"]
    subprocess.run([*dvc, "init", "-q"], cwd=tmp_path, check=True)
    shutil.copytree(ROOT / ".dvc" / "plots", tmp_path / ".dvc" / "plots")
    shutil.copy(ROOT / ".dvc" / "config", tmp_path / ".dvc" / "config")
    root = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump({"metrics": root["metrics"], "plots": root["plots"]}))
    files = dvc_views.render({"testbed": table()}, histories(), {"erpo": ["grpo", "erpo"]}, ema_alpha=1.0)
    dvc_views.write(tmp_path / "reports", files)
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    metrics = subprocess.run([*dvc, "metrics", "show", "--json"], cwd=tmp_path, capture_output=True, text=True, env=env)
    rows = json.loads(metrics.stdout)[""]["data"]
    assert sorted(rows) == ["reports/run_metrics/base.json", "reports/run_metrics/grpo.json"], metrics.stderr
    shown = subprocess.run([*dvc, "plots", "show"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert shown.returncode == 0, shown.stderr
    page = (tmp_path / "dvc_plots" / "index.html").read_text()
    assert page.count("vegaEmbed(") == 3 and not re.search(r"<script[^>]*\bsrc\s*=", page)
    assert '"run": "erpo"' in page and '"low"' in page  # the runs overlaid, with their bands
