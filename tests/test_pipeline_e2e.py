"""End to end: the whole DVC pipeline with the smoke profile, built once by `make smoke` in a scratch copy of the
repository (README step 3), then checked, rerun and changed there."""

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
from rlvr_lib.pipeline.smoke import SMOKE_RUNS

REPO = Path(__file__).resolve().parents[1]
# `make smoke`'s own runs (README step 3 as it is): GRPO, the methods with state or group statistics (AER's alpha,
# OPEFO's lambda*) and each filtered training set's paper method (ERPO's, TEPO's); every paper stage finds its runs
E2E_RUNS = SMOKE_RUNS
# one seed (`make smoke SMOKE_ARGS="--seeds 0"`, issue 42): what needs two seeds (each seed its own base policy, one
# tokenizer, a run's settings per seed, the default plan's seeds) is checked in tests/test_smoke.py and test_testbed.py
E2E_SEEDS = (0,)
CHANGED_RUN = "tepo_tepo_data"  # the run whose setting the rerun test changes: one paper (TEPO) reads it
PAPERS = ("erpo", "cw_grpo", "tepo", "opefo", "aer", "summary")
pytestmark = pytest.mark.slow


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(cmd)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def smoke_build(tmp_path_factory):
    """`make smoke` (README step 3, as a user types it, in a scratch folder): its copy of the repository (committed
    files without reports/ and the dvc.lock files, profile: smoke, its runs on E2E_SEEDS, the papers' runs replaced by
    their stand-ins among them), built by the lane driver of `make repro`. The one whole-pipeline build of the suite:
    the tests below check both what `make smoke` promises and what the pipeline makes. Returns (copy, make's stdout,
    the workspace's `git status` before)."""
    before = git_status()
    target = tmp_path_factory.mktemp("e2e") / "repo"
    venv = Path(sys.executable).parent.parent  # this environment, taken as installed (-o: no reinstall)
    kernel = venv / "share/jupyter/kernels/python3/kernel.json"
    cmd = [
        "make",
        "smoke",
        f"VENV={venv}",
        f"SMOKE_DIR={target}",
        f"SMOKE_ARGS=--seeds {' '.join(map(str, E2E_SEEDS))}",
    ]
    cmd += ["-o", f"{venv}/.installed", "-o", str(kernel)]
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return target, done.stdout, before


@pytest.fixture(scope="module")
def smoke_repo(smoke_build):
    """The copy `make smoke` built, its environment for further `make repro`/`dvc` calls, and its params."""
    root, _, _ = smoke_build
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
    params = yaml.safe_load((root / "params.yaml").read_text())
    return root, env, params


def test_make_smoke_builds_the_reduced_protocol_in_its_copy_and_leaves_the_workspace_as_it_was(smoke_build):
    """README step 3 (issue 32): the whole pipeline at smoke sizes in a scratch copy, every paper stage and the main
    page, the workspace left as it was (`git status` unchanged: its reports/, params.yaml and dvc.lock untouched)."""
    target, stdout, before = smoke_build
    assert git_status() == before  # nothing of the workspace written
    assert "make smoke: done in" in stdout and f"The output lives in the scratch copy {target}" in stdout
    assert f"x seeds {list(E2E_SEEDS)} = {len(E2E_SEEDS) * len(E2E_RUNS)} pairs, then" in stdout
    assert " ETA " in stdout  # the lane driver's progress lines
    params = yaml.safe_load((target / "params.yaml").read_text())
    assert (
        params["profile"] == "smoke"
        and params["seeds"] == list(E2E_SEEDS)
        and list(params["methods"]) == list(E2E_RUNS)
    )
    assert all("seeds" not in entry for entry in params["methods"].values())  # every run on the smoke seeds
    # the runs left out have no stage folder (python -m rlvr_lib.pipeline.dvc_stages deletes them)
    assert sorted(p.name for p in (target / "pipelines").iterdir() if p.is_dir()) == sorted(E2E_RUNS)
    for paper in PAPERS:
        assert (target / f"reports/papers/{paper}/README.md").is_file(), paper
    assert "## Which claims hold" in (target / "reports/README.md").read_text()


def test_after_the_build_every_stage_is_current_by_its_lock_and_every_result_names_its_origin(smoke_repo):
    """Lineage (issue 39): DVC's lock entries describe what was made, read without DVC (`lineage status`), and each
    training log and evaluation carries its origin record, which the report stages accepted."""
    root, env, params = smoke_repo
    status = subprocess.run(
        [sys.executable, "-m", "rlvr_lib.pipeline.lineage", "status"], cwd=root, env=env, capture_output=True, text=True
    )
    assert status.returncode == 0, status.stdout[-3000:] + status.stderr[-3000:]
    assert " 0 stale " in status.stdout and " 0 without a lock entry" in status.stdout
    for run in E2E_RUNS:
        for seed in params["seeds"]:
            for folder, stage in ((f"reports/training/{run}", "train"), (f"reports/eval/{run}", "eval")):
                origin = json.loads((root / folder / f"seed{seed}/origin.json").read_text())
                assert origin["stage"] == f"pipelines/{run}/dvc.yaml:{stage}@{seed}"
                assert origin["commit"] and origin["machine"]["lanes"] >= 1 and origin["machine"]["threads"] == 1
                code = {path: md5 for path, md5 in origin["deps"].items() if path.startswith("rlvr_lib/")}
                assert code and all(md5 for md5 in code.values())


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


def test_second_repro_does_nothing(smoke_repo):
    """After the build, the lane driver finds every pair up to date and `dvc repro` runs no stage. (One setting
    changed reruns exactly its run's pairs and what reads them: the README experiment test below.)"""
    root, env, params = smoke_repo
    pairs = len(params["methods"]) * len(params["seeds"])
    lanes = run([sys.executable, "-m", "rlvr_lib.pipeline.repro_lanes", "--jobs", "2"], root, env).stdout
    assert f"{pairs} of {pairs} (run, seed) pairs are up to date" in lanes and "(run, seed) pairs: 0 to run" in lanes
    assert stages_run(run(["dvc", "repro"], root, env).stdout) == set()


def test_every_run_made_a_real_update(smoke_repo):
    """Smoke rewards vary, so every method's first update has a finite, non-zero gradient and moves the weights."""
    import torch
    from safetensors.torch import load_file

    root, _, params = smoke_repo
    bases = {seed: load_file(root / f"models/base/seed{seed}/model.safetensors") for seed in params["seeds"]}
    for run_name in params["methods"]:
        for seed in params["seeds"]:
            base = bases[seed]
            history = json.loads((root / f"reports/training/{run_name}/seed{seed}/history.json").read_text())
            norms = [row["grad_norm"] for row in history]
            assert all(math.isfinite(g) for g in norms) and any(g > 0 for g in norms), (run_name, seed, norms)
            final = load_file(root / f"runs/{run_name}/seed{seed}/final/model.safetensors")
            assert any(not torch.equal(base[k], final[k]) for k in base), f"{run_name}: weights equal the base's"


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


def readme_experiment() -> list[str]:
    """The README's first experiment command (``python -m rlvr_lib.pipeline.experiment ...``), as arguments, up to
    its comment."""
    import shlex

    lines = (REPO / "README.md").read_text().splitlines()
    first = next(line for line in lines if line.startswith("python -m rlvr_lib.pipeline.experiment "))
    return shlex.split(first.split("#")[0])


def paper_readers(params: dict, run_name: str) -> set[str]:
    """The paper stages whose ``papers.<paper>.runs`` name ``run_name`` (a role's value is a name or a list)."""

    def names(runs):
        return {n for v in runs.values() for n in ([v] if isinstance(v, str) else v)}

    return {f"paper_{p}" for p in PAPERS if p != "summary" and run_name in names(params["papers"][p]["runs"])}


def test_the_readmes_experiment_runs_on_a_clone_through_its_paper_stage_and_report(smoke_repo, tmp_path):
    """README "Experiments" at smoke size, one run, one seed, on a clone of the built copy (no data, models or runs).
    On the clone as it is (an empty DVC cache), the dry run lists the data and the base policy to build first. With
    the build's DVC cache (a clone after `dvc pull`), the experiment runs: the data and base policy come from DVC's
    run cache, the one pair trains, then exactly the stages that read it (the paper stage, the summary and the main
    report) run, and no other pair; the experiment, kept by `dvc exp branch` and `git merge`, holds them. The README's
    run and setting become the smoke protocol's run no study samples (one pair to train) and one of its settings."""
    root, env, params = smoke_repo
    run(["git", "add", "-A"], root, env)
    run(["git", "commit", "-qm", "the smoke results", "--allow-empty"], root, env)
    clone = tmp_path / "clone"
    run(["git", "clone", "-q", str(root), str(clone)], tmp_path, env)
    args = readme_experiment()  # python -m rlvr_lib.pipeline.experiment RUN -S 'methods.RUN.KEY=VALUE' ...
    assert args[:3] == ["python", "-m", "rlvr_lib.pipeline.experiment"] and args[4] == "-S", args
    assert args[5].startswith(f"methods.{args[3]}.") and "--seeds" not in args, args
    entry = yaml.safe_load((clone / "params.yaml").read_text())["methods"][CHANGED_RUN]
    new = ("" if "eps_high" in entry else "+") + f"methods.{CHANGED_RUN}.eps_high=0.31"
    cmd = [sys.executable, *args[1:3], CHANGED_RUN, "-S", new, "--seeds", "0", "-n", "smoke_exp"]
    pair = {f"pipelines/{CHANGED_RUN}/dvc.yaml:{stage}@0" for stage in ("train", "eval")}
    readers = paper_readers(params, CHANGED_RUN)
    assert readers == {"paper_tepo"}
    assert CHANGED_RUN not in params["papers"]["aer"]["pass_at_k"]["runs"]  # and no sampling study reads it
    listed = run([*cmd, "--dry"], clone, env).stdout
    upstream = {"check_params", "data", "base_model@0", "filter_data@0"}
    downstream = readers | {"paper_summary", "report"}
    assert set(re.findall(r"^  (\S+)$", listed, re.M)) == upstream | pair | downstream, listed
    shutil.copytree(root / ".dvc/cache", clone / ".dvc/cache", dirs_exist_ok=True, copy_function=os.link)
    ran = stages_run(run(cmd, clone, env).stdout)
    # its eval reruns only where the retrained model differs (a clip bound may never bind in 2 steps: DVC's run cache
    # then restores the evaluation); check_params reruns on the changed params.yaml
    assert ran - {f"pipelines/{CHANGED_RUN}/dvc.yaml:eval@0"} == {
        "check_params",
        f"pipelines/{CHANGED_RUN}/dvc.yaml:train@0",
        *readers,
        "paper_summary",
        "report",
    }, sorted(ran)
    run(["dvc", "exp", "branch", "smoke_exp", "exp-smoke"], clone, env)
    run(["git", "merge", "-q", "--ff-only", "exp-smoke"], clone, env)
    kept = yaml.safe_load((clone / "params.yaml").read_text())["methods"][CHANGED_RUN]
    assert kept["eps_high"] == 0.31
    origin = json.loads((clone / f"reports/training/{CHANGED_RUN}/seed0/origin.json").read_text())  # the new pair's
    assert origin["params"][f"methods.{CHANGED_RUN}"]["eps_high"] == 0.31, origin["params"]
