"""Synthetic pipeline outputs for the paper modules (no training): every run's evaluation results and training
history on two seeds, and the sampling studies' files (reports/samples/) as the sampling stages write them.
Shared by the tests that build the paper reports."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import yaml
from conftest import REPO

from rlvr_lib import papers
from rlvr_lib.files.atomic import write_json_atomic
from rlvr_lib.papers.erpo import tables as erpo_tables
from rlvr_lib.papers.framework import sampling
from rlvr_lib.papers.framework.claims import NotTestable
from rlvr_lib.render import plots
from rlvr_lib.settings.config import load_params, read_yaml
from rlvr_lib.settings.papers import ALL_PAPERS, decodings_for_run

SEEDS = [0, 1]
HEADLINE_SEEDS = [0, 1, 2]  # the runs params.yaml gives their own (longer) seed list
STEPS = 12
N_PROBLEMS = 24


def history(run: str, method: str, seed: int, rng: np.random.Generator) -> list[dict]:
    rows = []
    entropy = 0.4
    for step in range(1, STEPS + 1):
        entropy *= 0.95 + 0.03 * rng.random()
        row = {
            "step": step,
            "reward": 0.3 + 0.02 * step + 0.05 * rng.random(),
            "accuracy": 0.3 + 0.02 * step + 0.05 * rng.random(),
            "loss": float(rng.standard_normal()),
            "entropy/mean": entropy,
            **{f"entropy/p{q}": entropy * q / 50 for q in (10, 50, 90)},
            "grad_norm": 1 + rng.random(),
            "kl_to_reference": 0.001 * step,
            "clip_ratio/region": 0.01 * rng.random(),
            "step_time": 0.5 + 0.1 * rng.random(),
            "completions/mean_length": 30 + rng.random(),
        }
        if method == "opefo":
            row.update(
                {"opefo/lambda": 0.2 * rng.random(), "opefo/flow_net": -rng.random(), "opefo/flow_net_rescaled": 0.0}
            )
            row.update({"opefo/flow_pos": rng.random(), "opefo/flow_neg": 1 + rng.random(), "opefo/frac_pos": 0.4})
        if method == "aer":
            row.update(
                {
                    "aer/entropy": entropy,
                    "aer/target_entropy": 0.16,
                    "aer/initial_entropy": 0.4,
                    "aer/alpha": 0.001 * step,
                }
            )
        if method == "tepo":  # none at each rollout batch's first update (of 8), where the policy is the rollout's
            mask_frac = 0.1 * rng.random()
            row["tepo/mask_frac"] = 0.0 if (step - 1) % 8 == 0 else mask_frac
        if method == "cw_grpo":
            for side, sign in (("pos", 1), ("neg", -1)):
                for p, v in zip((0.01, 1, 20, 40, 100), (5, 2, 0.5, 0.3, 0.01), strict=True):
                    row[f"cw_grpo/cov_{side}_top{p:g}pct"] = sign * v * (1 + 0.1 * rng.random())
        if method in ("grpo", "dapo") and run.endswith("8updates"):
            row.update(
                {
                    "entropy_flow/net": -rng.random(),
                    "entropy_flow/pos": rng.random(),
                    "entropy_flow/neg": 1 + rng.random(),
                    "entropy_flow/clipped_high": rng.random(),
                    "entropy_flow/clipped_low": -rng.random(),
                }
            )
        rows.append(row)
    return rows


def eval_results(params, seed: int, skill: float, rng: np.random.Generator, decoding: str | None = None) -> dict:
    """One seed's results.json, at the shared settings or at a paper's ``decoding``."""
    settings = {**params.eval.for_benchmark("testbed", decoding), "seed": seed, "batch_size": 8, "n_boot": 10}
    n = settings["n"]
    rows = []
    for i in range(N_PROBLEMS):
        c = int(rng.binomial(n, min(0.95, skill + 0.02 * (i % 5))))
        rows.append(
            {"uid": str(i), "n": n, "c": c, "n_formatted": n, "mean_length": 30 + rng.random(), "mean_entropy": 0.3}
        )
    settings["ks"] = [k for k in (1, 2, 4, 8, 16) if k <= n]
    return {"testbed": {"n_problems": N_PROBLEMS, "settings": settings, "metrics": {}, "per_problem": rows}}


def build_workspace(root: Path) -> Path:
    """Write params.yaml (every run on ``SEEDS``, the runs with their own seeds in params.yaml, the papers' headline
    runs, on ``SEEDS`` and one more, as there) and every run's reports under ``root``."""
    raw = copy.deepcopy(read_yaml(REPO / "params.yaml"))
    raw["seeds"] = SEEDS
    for entry in raw["methods"].values():  # the stand-in's seeds; more for the runs with their own list
        if "seeds" in entry:
            entry["seeds"] = HEADLINE_SEEDS
    raw["eval"]["n_boot"] = 60
    (root / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    params = load_params(root / "params.yaml")
    rng = np.random.default_rng(0)
    for i, run in enumerate(["base", *params.runs]):
        method = "base" if run == "base" else params.runs[run].method
        for seed in HEADLINE_SEEDS if run == "base" else params.runs[run].seeds:
            folder = root / "reports/eval" / run / f"seed{seed}"
            folder.mkdir(parents=True)
            (folder / "results.json").write_text(json.dumps(eval_results(params, seed, 0.2 + 0.01 * i, rng)))
            for decoding in decodings_for_run(params.papers, run):  # the papers' own decodings
                at = folder / "decodings" / decoding
                at.mkdir(parents=True)
                results = eval_results(params, seed, 0.25 + 0.01 * i, rng, decoding)
                (at / "results.json").write_text(json.dumps(results))
            if run != "base":
                logs = root / "reports/training" / run / f"seed{seed}"
                logs.mkdir(parents=True)
                (logs / "history.json").write_text(json.dumps(history(run, method, seed, rng)))
    return root


def perturbation_seed(seed: int) -> dict:
    """One seed's entry of reports/samples/erpo_perturbation.json, as ``sampling.run_perturbation`` writes it."""
    return {
        "seed": seed,
        "n_responses": 20,
        "n_trials": {"top": 20, "bottom": 20},
        "accuracy": {
            "top": {"value": 0.5, "ci_low": 0.4, "ci_high": 0.6},
            "bottom": {"value": 0.9, "ci_low": 0.85, "ci_high": 0.95},
        },
        "control_accuracy": {s: {"value": 0.95, "ci_low": 0.9, "ci_high": 1.0} for s in ("top", "bottom")},
        "difference_bottom_minus_top": {"value": 0.4, "ci_low": 0.3, "ci_high": 0.5},
        "mean_entropy": {"top": 1.2, "bottom": 0.01},
        "per_response": {
            "top": {"perturbed": [0.4 + 0.01 * seed, 0.6] * 10, "control": [0.9, 1.0] * 10},
            "bottom": {"perturbed": [0.85, 0.95 - 0.01 * seed] * 10, "control": [0.9, 1.0] * 10},
        },
    }


def write_samples(params) -> None:
    """reports/samples/*.json as the sampling stages write them (no model needed)."""
    rng = np.random.default_rng(1)
    settings = params.papers.aer.pass_at_k
    shape = (len(sampling.study_seeds("aer_pass_at_k", params)), settings.max_problems)
    counts = {run: rng.binomial(settings.n, 0.3 + 0.1 * i, size=shape).tolist() for i, run in enumerate(settings.runs)}
    per_seed = [perturbation_seed(s) for s in sampling.study_seeds("erpo_perturbation", params)]
    for name, results in (("aer_pass_at_k", {"counts": counts}), ("erpo_perturbation", {"per_seed": per_seed})):
        recorded = sampling.recorded_settings(name, params)
        write_json_atomic(sampling.study_path(name), {"study": name, "recorded": recorded, **results})


def stub_real_files(monkeypatch) -> None:
    """ERPO's count on the real files (App. A.3's filter) says they are not here."""

    def no_files(params, settings):
        raise NotTestable("the real files are not here")

    monkeypatch.setattr(erpo_tables, "count_real_data", no_files)


def record_figures(monkeypatch) -> list:
    """A list that gets every figure ``plots.new_figure`` makes from now on (while ``monkeypatch`` holds)."""
    figures = []
    make = plots.new_figure

    def recording(*args, **kwargs):
        fig, axes = make(*args, **kwargs)
        figures.append(fig)
        return fig, axes

    monkeypatch.setattr(plots, "new_figure", recording)
    return figures


def build_papers(workspace: Path, monkeypatch) -> dict:
    """Every paper's report built in ``workspace`` (the cwd from now on), ERPO's real-file count stubbed out:
    {name: (paper, README path)}."""
    monkeypatch.chdir(workspace)
    stub_real_files(monkeypatch)
    write_samples(load_params("params.yaml"))
    params = load_params("params.yaml")
    out = {}
    for name in ALL_PAPERS:  # summary last: it reads the others' claims
        paper = papers.open_paper(name, params)
        out[name] = (paper, paper.write())
    return out
