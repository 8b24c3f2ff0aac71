"""End to end: the whole DVC pipeline with the smoke profile, in a temporary copy of the repository."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rlvr_lib.papers.framework.claims import VERDICTS
from rlvr_lib.pipeline.smoke import reduced_papers

REPO = Path(__file__).resolve().parents[1]
# a baseline, methods with state or group statistics, one run of each method whose own settings a paper replication
# reads (ERPO's switches, TEPO's mask, OPEFO's lambda*, AER's tau and rho), and one paper run on each filtered
# training set (params.yaml's own entries: train_data erpo and tepo)
E2E_RUNS = ("grpo", "dapo", "erpo", "aer", "tepo", "opefo", "erpo_erpo_data", "tepo_no_kl")
CHANGED_RUN = "tepo_no_kl"  # the run whose setting the rerun test changes: one paper (TEPO) reads it
PAPERS = ("erpo", "cw_grpo", "tepo", "opefo", "aer", "summary")
pytestmark = pytest.mark.slow


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(cmd)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def smoke_repo(tmp_path_factory):
    """A copy of the committed repository with profile: smoke, after one `make repro` (its parallel path)."""
    root = tmp_path_factory.mktemp("e2e") / "repo"
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        # generated reports are rebuilt below; dvc.lock records the committed (default-profile) pipeline, none of
        # whose entries hold for the smoke profile, and at 150 runs its ~0.8 MB made every stage's lock rewrite
        # (pure-Python round-trip YAML) cost ~8 s
        if (REPO / rel).is_file() and not rel.startswith("reports/") and not rel.endswith("dvc.lock"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, root / rel)
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["profile"] = "smoke"
    params["seeds"] = [0, 1]  # two training seeds: every run trains and is evaluated twice
    # eight runs keep `make test` within its budget; every method trains for real in test_all_methods_train.py. The
    # paper replications read the runs that remain (their stages regenerated for them) and must all be built.
    params["papers"] = reduced_papers(params["papers"], params["methods"], E2E_RUNS)
    params["methods"] = {run: params["methods"][run] for run in E2E_RUNS}
    for entry in params["methods"].values():  # every run on the two seeds (a run's own seeds: tests/test_dvc_stages.py)
        entry.pop("seeds", None)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HF_HUB_OFFLINE": "1",
        "DVC_NO_ANALYTICS": "1",
        "GIT_AUTHOR_NAME": "ci",
        "GIT_AUTHOR_EMAIL": "ci@example.org",
        "GIT_COMMITTER_NAME": "ci",
        "GIT_COMMITTER_EMAIL": "ci@example.org",
    }
    # also deletes the folders of the runs left out
    run([sys.executable, "-m", "rlvr_lib.pipeline.dvc_stages"], root, env)
    assert sorted(p.name for p in (root / "pipelines").iterdir() if p.is_dir()) == sorted(E2E_RUNS)
    run(["git", "init", "-q"], root, env)
    run(["git", "add", "-A"], root, env)
    run(["git", "commit", "-qm", "smoke copy"], root, env)
    venv = Path(sys.executable).parent.parent  # `make repro` on this environment; -o: no reinstall into it
    run(["make", "repro", f"VENV={venv}", "-o", f"{venv}/.installed"], root, env)
    return root, env, params


def test_every_report_file_appears_with_finite_metrics(smoke_repo):
    root, _, params = smoke_repo
    runs = list(params["methods"])
    expected = [
        "reports/README.md",
        "reports/figures/training_dynamics.png",
        "reports/figures/entropy_quantiles.png",
        "reports/figures/pass_at_k_testbed.png",
        "reports/tables/results_testbed.md",
        "reports/tables/results_testbed.csv",
        "reports/testbed/README.md",
        "reports/testbed/properties.json",
        "reports/testbed/passk.png",
    ]
    for seed in params["seeds"]:
        expected += [f"reports/metrics/base/seed{seed}.json", f"reports/eval/base/seed{seed}/results.json"]
        expected += [f"models/base/seed{seed}/config.json", f"data/filtered/seed{seed}/index.json"]
        for run_name in runs:
            expected += [
                f"reports/metrics/{run_name}/seed{seed}.json",
                f"reports/training/{run_name}/seed{seed}/history.json",
                f"reports/training/{run_name}/seed{seed}/metrics.json",
                f"reports/notebooks/train_{run_name}_seed{seed}.ipynb",
                f"runs/{run_name}/seed{seed}/final/config.json",
            ]
    missing = [rel for rel in expected if not (root / rel).is_file() or (root / rel).stat().st_size == 0]
    assert not missing, missing
    for run_name in ["base", *runs]:
        for seed in params["seeds"]:
            metrics = json.loads((root / f"reports/metrics/{run_name}/seed{seed}.json").read_text())["testbed"]
            assert metrics and all(math.isfinite(v) for v in metrics.values()), (run_name, seed, metrics)
    readme = (root / "reports/README.md").read_text()
    assert all(name in readme for name in runs)
    assert "(testbed/README.md)" in readme
    summary = json.loads((root / "reports/testbed/properties.json").read_text())
    assert summary["seeds"] == params["seeds"] and set(summary["targets"]) == set(TARGET_NAMES)
    assert "| target | rule | met |" in (root / "reports/testbed/README.md").read_text()


TARGET_NAMES = ("base_mean", "base_pass", "entropy_ratio", "mean_gain", "sharpening")


def test_filter_stage_builds_each_set_and_runs_train_on_theirs(smoke_repo):
    root, _, params = smoke_repo
    train = [json.loads(line) for line in (root / "data/generated/train.jsonl").read_text().splitlines()]
    for seed in params["seeds"]:  # one set per training seed, filtered by that seed's base policy
        folder, report = root / f"data/filtered/seed{seed}", root / f"reports/data_filters/seed{seed}"
        index = json.loads((folder / "index.json").read_text())
        summary = json.loads((report / "filters.json").read_text())
        assert set(index) == {"erpo", "tepo"} and summary["not_built"] == []
        for name in index:
            rows = [json.loads(line) for line in (folder / f"{name}.jsonl").read_text().splitlines()]
            assert 0 < len(rows) == index[name]["rows"] < len(train) and all(r in train for r in rows), name
        erpo = summary["sets"]["erpo"]["counts"]
        assert erpo["input"] == len(train) > erpo["levels"] >= erpo["solution_length"] == index["erpo"]["rows"]
        tepo = summary["sets"]["tepo"]["counts"]
        assert tepo["all_correct"] + tepo["all_wrong"] + tepo["kept"] == len(train)
        assert summary["sets"]["tepo"]["settings"]["seed"] == seed
        assert "| levels [2, 3] |" in (report / "README.md").read_text()
    first = params["seeds"][0]
    assert f"(data_filters/seed{first}/README.md)" in (root / "reports/README.md").read_text()
    for run_name in params["methods"]:
        for seed in params["seeds"]:
            logged = yaml.safe_load((root / f"reports/training/{run_name}/seed{seed}/params.yaml").read_text())
            assert logged["train_data"] == (params["methods"][run_name] or {}).get("train_data", "full"), run_name


def stages_run(output: str) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", output))


def test_trained_models_shared_through_a_dvc_remote_make_a_clone_up_to_date(smoke_repo, tmp_path):
    """README "Sharing trained models": `dvc remote add -d`, `dvc push`; a clone then `dvc pull`s the models, data
    and runs it lacks (git-ignored) and DVC finds every stage of the smoke pipeline up to date there."""
    root, env, _ = smoke_repo
    run(["dvc", "remote", "add", "-d", "-f", "shared", str(tmp_path / "remote")], root, env)
    run(["dvc", "push", "-q"], root, env)
    run(["git", "add", "-A"], root, env)
    run(["git", "commit", "-qm", "results and the remote"], root, env)
    clone = tmp_path / "clone"
    run(["git", "clone", "-q", str(root), str(clone)], tmp_path, env)
    assert not (clone / "runs").exists() and not (clone / "models").exists()  # git-ignored: DVC's to bring
    run(["dvc", "pull", "-q"], clone, env)
    assert sorted(p.name for p in (clone / "runs").iterdir()) == sorted(E2E_RUNS)
    status = run(["dvc", "status"], clone, env).stdout
    assert "up to date" in status, status


def test_second_repro_does_nothing_and_one_param_reruns_one_method(smoke_repo):
    root, env, params = smoke_repo
    pairs = len(params["methods"]) * len(params["seeds"])
    lanes = run([sys.executable, "-m", "rlvr_lib.pipeline.repro_lanes", "--jobs", "2"], root, env).stdout
    assert f"{pairs} of {pairs} (run, seed) pairs are up to date" in lanes and "(run, seed) pairs: 0 to run" in lanes
    assert stages_run(run(["dvc", "repro"], root, env).stdout) == set()
    changed = dict(params)
    changed["methods"] = {**params["methods"], CHANGED_RUN: {**params["methods"][CHANGED_RUN], "eps_high": 0.3}}
    (root / "params.yaml").write_text(yaml.safe_dump(changed, sort_keys=False))
    ran = stages_run(run(["dvc", "repro"], root, env).stdout)

    # eval@<run>-<seed> reruns only where the retrained model differs (a clip bound may never bind in 2 steps); the
    # paper stages that read the run rerun (their params include methods.<run>), and the summary, which reads them
    def names(runs):  # every run name of a papers.<paper>.runs entry (a role's value is a name or a list of names)
        return {n for v in runs.values() for n in ([v] if isinstance(v, str) else v)}

    readers = {f"paper_{p}" for p in PAPERS if p != "summary" and CHANGED_RUN in names(params["papers"][p]["runs"])}
    assert readers == {"paper_tepo"}
    assert CHANGED_RUN not in params["papers"]["aer"]["pass_at_k"]["runs"]  # and no sampling study reads it
    stage = f"pipelines/{CHANGED_RUN}/dvc.yaml"
    maybe = {f"{stage}:eval@{seed}" for seed in (0, 1)}
    retrained = {f"{stage}:train@{seed}" for seed in (0, 1)}
    expected = {"check_params", *retrained, "report", "paper_summary"}
    assert ran - maybe == expected | readers


def test_every_run_made_a_real_update(smoke_repo):
    """Smoke rewards vary, so every method's first update has a finite, non-zero gradient and moves the weights."""
    import torch
    from safetensors.torch import load_file

    root, _, params = smoke_repo
    bases = {seed: load_file(root / f"models/base/seed{seed}/model.safetensors") for seed in params["seeds"]}
    base0, base1 = bases[params["seeds"][0]], bases[params["seeds"][1]]
    assert any(not torch.equal(base0[k], base1[k]) for k in base0), "the seeds' base policies are one model"
    tokenizers = {(root / f"models/base/seed{seed}/tokenizer.json").read_bytes() for seed in params["seeds"]}
    assert len(tokenizers) == 1, "the tokenizer must follow the top-level seed only"
    for run_name in params["methods"]:
        finals = []
        for seed in params["seeds"]:
            base = bases[seed]
            history = json.loads((root / f"reports/training/{run_name}/seed{seed}/history.json").read_text())
            norms = [row["grad_norm"] for row in history]
            assert all(math.isfinite(g) for g in norms) and any(g > 0 for g in norms), (run_name, seed, norms)
            finals.append(load_file(root / f"runs/{run_name}/seed{seed}/final/model.safetensors"))
            assert any(not torch.equal(base[k], finals[-1][k]) for k in base), f"{run_name}: weights equal the base's"
        assert any(not torch.equal(finals[0][k], finals[1][k]) for k in base), f"{run_name}: seeds gave one model"


def test_misspelled_key_stops_dvc_repro(smoke_repo):
    root, env, params = smoke_repo
    (root / "params.yaml").write_text(yaml.safe_dump({**params, "trian": {"max_steps": 3}}, sort_keys=False))
    result = subprocess.run(["dvc", "repro"], cwd=root, env=env, capture_output=True, text=True)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert result.returncode != 0
    assert "unknown key(s) ['trian']" in result.stdout + result.stderr
    assert stages_run(result.stdout) == {"check_params"}


def test_every_paper_stage_writes_its_report_with_a_verdict_in_every_claim_row(smoke_repo):
    root, _, _ = smoke_repo
    main_readme = (root / "reports/README.md").read_text()
    assert main_readme.index("## Which claims hold") < main_readme.index("## Results")
    assert main_readme.index("## Results") < main_readme.index("## Runs and settings")
    run_metrics = json.loads((root / "reports/run_metrics/grpo.json").read_text())  # `dvc metrics show`
    assert math.isfinite(run_metrics["entropy_retained"]), run_metrics
    plot_files = sorted(p.name for p in (root / "reports/plots/core").iterdir())  # `dvc plots show`
    assert plot_files == ["accuracy.csv", "entropy.csv", "reward.csv"]
    for paper in PAPERS:
        folder = root / "reports/papers" / paper
        readme = (folder / "README.md").read_text()
        assert f"(papers/{paper}/README.md)" in main_readme
        assert "Verdict rule" in readme and "## Claims" in readme, paper
        claims = list(csv.DictReader((folder / "claims.csv").open()))
        assert bool(claims) == (paper != "summary"), f"{paper}: claims (the summary makes none of its own)"
        assert all(row["verdict"] in VERDICTS for row in claims), (paper, [row["verdict"] for row in claims])
        assert all(row["note"] for row in claims if row["verdict"] == "not testable here"), paper  # a reason each
        table = (folder / "claims.md").read_text().splitlines()[2:] if claims else []
        assert len(table) == len(claims)
        for line, row in zip(table, claims, strict=True):  # a claim's verdict in bold, its parts' plain (and its kind)
            assert (f"**{row['verdict']}**" if not row["parent"] else f"| {row['verdict']}") in line, (paper, line)
        links = re.findall(r"\]\(((?:tables|figures)/[^)]+)\)", readme)
        assert links and all((folder / rel).is_file() for rel in links), paper
        assert (root / f"reports/notebooks/paper_{paper}.ipynb").is_file()
