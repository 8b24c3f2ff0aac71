"""Every paper module builds its report from synthetic pipeline outputs (no training): each experiment runs, each
claim gets a verdict, the folder is complete. The sampling parts (ERPO's perturbation study, AER's pass@k with many
samples, ERPO's count on the real files) are replaced by stand-ins here; the e2e test runs them for real."""

from __future__ import annotations

import copy
import csv
import json
import re

import numpy as np
import pytest
import yaml
from conftest import REPO

from rlvr_lib import papers
from rlvr_lib.atomic import write_json_atomic
from rlvr_lib.config import load_params, read_yaml
from rlvr_lib.papers import erpo, sampling
from rlvr_lib.papers.claims import VERDICTS, NotTestable, flatten
from rlvr_lib.papers.config import ALL_PAPERS, PAPERS, paper_runs

SEEDS = [0, 1]
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
        if method == "tepo":
            row["tepo/mask_frac"] = 0.1 * rng.random()
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


def eval_results(params, seed: int, skill: float, rng: np.random.Generator) -> dict:
    n = params.eval.n
    rows = []
    for i in range(N_PROBLEMS):
        c = int(rng.binomial(n, min(0.95, skill + 0.02 * (i % 5))))
        rows.append(
            {"uid": str(i), "n": n, "c": c, "n_formatted": n, "mean_length": 30 + rng.random(), "mean_entropy": 0.3}
        )
    settings = {**params.eval.for_benchmark("testbed"), "seed": seed, "batch_size": 8, "n_boot": 10}
    settings["ks"] = [1, 2, 4, 8, 16]
    return {"testbed": {"n_problems": N_PROBLEMS, "settings": settings, "metrics": {}, "per_problem": rows}}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("papers")
    raw = copy.deepcopy(read_yaml(REPO / "params.yaml"))
    raw["seeds"] = SEEDS
    for entry in raw["methods"].values():  # every run on the stand-in's seeds
        entry.pop("seeds", None)
    raw["eval"]["n_boot"] = 60
    (root / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    params = load_params(root / "params.yaml", check_methods=False)
    rng = np.random.default_rng(0)
    for i, run in enumerate(["base", *params.runs]):
        method = "base" if run == "base" else params.runs[run].method
        for seed in SEEDS:
            folder = root / "reports/eval" / run / f"seed{seed}"
            folder.mkdir(parents=True)
            (folder / "results.json").write_text(json.dumps(eval_results(params, seed, 0.2 + 0.01 * i, rng)))
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


@pytest.fixture()
def built(workspace, monkeypatch):
    monkeypatch.chdir(workspace)

    def no_files(params, settings):
        raise NotTestable("the real files are not here")

    monkeypatch.setattr(erpo, "count_real_data", no_files)
    write_samples(load_params("params.yaml", check_methods=False))
    params = load_params("params.yaml", check_methods=False)
    out = {}
    for name in ALL_PAPERS:  # summary last: it reads the others' claims
        paper = papers.open_paper(name, params)
        out[name] = (paper, paper.write())
    return workspace, out


def test_every_paper_writes_a_complete_report_with_a_verdict_per_claim(built):
    root, out = built
    for name in ALL_PAPERS:
        paper, readme_path = out[name]
        folder = root / "reports/papers" / name
        assert readme_path == folder.relative_to(root) / "README.md"
        readme = (folder / "README.md").read_text()
        assert readme.index("Verdict rule") < readme.index("## Claims") + 200 < len(readme)
        claims = list(csv.DictReader((folder / "claims.csv").open()))
        assert len(claims) == len(paper.declared_claims()), name
        assert (len(claims) == 0) == (name == "summary"), name  # the summary gathers the papers' claims, makes none
        assert all(row["verdict"] in VERDICTS for row in claims), name
        assert all(row["note"] for row in claims if row["verdict"] == "not testable here"), name
        links = re.findall(r"\]\(((?:tables|figures)/[^)]+)\)", readme)
        assert links and all((folder / rel).is_file() for rel in links), name
        for experiment in paper.experiments():  # every experiment left a section in the README
            assert f"## {getattr(type(paper), experiment).heading}" in readme, (name, experiment)
        assert not list((root / "reports/papers").glob(".staging*"))


def test_claims_pair_runs_and_use_the_declared_runs(built):
    _, out = built
    aer_paper = out["aer"][0]
    results = {r.claim.key: r for r in flatten(aer_paper.evaluate_claims())}
    e = results["pass1_vs_grpo"].estimate
    assert e.n_seeds == len(SEEDS) and e.n_problems == N_PROBLEMS
    assert results["passk_32_vs_grpo"].estimate.n_seeds == min(3, len(SEEDS))  # papers.aer.pass_at_k.n_seeds
    assert results["passk_32_vs_grpo"].verdict == "not testable here"  # the stand-in pass@32 is 1.0: saturated
    assert results["k50_aime24"].verdict in VERDICTS and results["k50_aime24"].parts  # judged whole from its parts
    erpo_results = {r.claim.key: r for r in out["erpo"][0].evaluate_claims()}
    hubs = erpo_results["perturbation_hubs"]  # one study per seed's base policy: the t interval is over seeds
    assert hubs.verdict == "not testable here" and hubs.estimate.n_seeds == len(SEEDS) < 3  # two seeds: no verdict
    assert hubs.estimate.value == pytest.approx(np.mean([0.4 - 0.01 * s for s in SEEDS]))  # top minus bottom drop
    tepo_results = {r.claim.key: r for r in flatten(out["tepo"][0].evaluate_claims())}
    assert tepo_results["acc_vs_gpg"].verdict == "not testable here"


def test_summary_gathers_every_paper_claim(built):
    root, _ = built
    rows = list(csv.DictReader((root / "reports/papers/summary/tables/all_claims.csv").open()))
    per_paper = {
        name: len(list(csv.DictReader((root / f"reports/papers/{name}/claims.csv").open()))) for name in PAPERS
    }
    assert len(rows) == sum(per_paper.values())
    assert {row["paper_name"] for row in rows} == set(PAPERS)


def test_paper_notebooks_call_their_module_and_print_the_rule_before_results():
    for name in ALL_PAPERS:
        nb = json.loads((REPO / f"notebooks/papers/{name}.ipynb").read_text())
        sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"]]
        code = [s for c, s in zip(nb["cells"], sources, strict=True) if c["cell_type"] == "code"]
        assert nb["cells"][1]["metadata"].get("tags") == ["parameters"], name
        assert f'papers.open_paper("{name}", params)' in "\n".join(code)
        rule = next(i for i, s in enumerate(code) if "verdict_rule()" in s)
        first_result = next(i for i, s in enumerate(code) if re.search(r"show\(paper\.(?!declared_claims)", s))
        assert rule < first_result, name
        assert "paper.write()" in code[-1]


def test_open_paper_errors():
    params = load_params(REPO / "params.yaml", check_methods=False)
    with pytest.raises(ValueError, match="unknown paper"):
        papers.open_paper("ppo", params)
    params.papers = None
    with pytest.raises(ValueError, match="no 'papers' section"):
        papers.open_paper("erpo", params)


def test_every_declared_run_has_reports_in_the_workspace(workspace):
    params = load_params(workspace / "params.yaml", check_methods=False)
    for name in ALL_PAPERS:
        for run in paper_runs(params.papers.paper(name)):
            assert (workspace / "reports/eval" / run / "seed0/results.json").is_file()


def test_sampling_study_missing_or_stale_names_the_stage_to_run(workspace, monkeypatch):
    monkeypatch.chdir(workspace)
    params = load_params("params.yaml", check_methods=False)
    write_samples(params)
    assert sampling.load_study("aer_pass_at_k", params)["counts"]  # as written
    path = sampling.study_path("aer_pass_at_k")
    saved = path.read_text()
    path.unlink()
    with pytest.raises(NotTestable, match=r"reports/samples/aer_pass_at_k.json is not here: run `dvc repro sample_aer"):
        sampling.load_study("aer_pass_at_k", params)
    path.write_text(saved)
    raw = read_yaml("params.yaml")
    raw["papers"]["aer"]["pass_at_k"]["n"] = 128  # sampled with n = 256, asked for 128
    (workspace / "other.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    other = load_params("other.yaml", check_methods=False)
    with pytest.raises(NotTestable, match=r'was sampled with .*"n": 256.*params.yaml now gives .*"n": 128.*rerun'):
        sampling.load_study("aer_pass_at_k", other)


def test_run_study_writes_what_load_study_reads_and_nothing_when_sampling_fails(workspace, monkeypatch):
    monkeypatch.chdir(workspace)
    params = load_params("params.yaml", check_methods=False)
    seeds = sampling.study_seeds("erpo_perturbation", params)
    monkeypatch.setattr(sampling, "run_perturbation", lambda p, s, seeds: [perturbation_seed(x) for x in seeds])
    path = sampling.run_study("erpo_perturbation", params)
    assert [s["seed"] for s in sampling.load_study("erpo_perturbation", params)["per_seed"]] == seeds
    before = path.read_bytes()

    def fails(p, s, seeds):
        raise FileNotFoundError("no base model in models/base/seed0")

    monkeypatch.setattr(sampling, "run_perturbation", fails)
    with pytest.raises(FileNotFoundError, match="models/base/seed0"):
        sampling.run_study("erpo_perturbation", params)
    assert path.read_bytes() == before  # the previous results stay whole
