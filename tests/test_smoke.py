"""`make smoke` (issue 32): the whole pipeline at smoke sizes in a scratch copy, every paper stage, the workspace left
as it was (`git status` unchanged: its reports/, params.yaml and dvc.lock untouched)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import smoke
from rlvr_lib.settings.config import parse_params
from rlvr_lib.settings.papers import ALL_PAPERS, paper_runs


def committed_params() -> dict:
    return yaml.safe_load((REPO / "params.yaml").read_text())


def test_the_smoke_protocol_is_a_handful_of_runs_that_every_paper_reads():
    reduced = smoke.smoke_params(committed_params())
    assert reduced["profile"] == "smoke" and reduced["seeds"] == [0, 1]
    assert list(reduced["methods"]) == list(smoke.SMOKE_RUNS) and len(smoke.SMOKE_RUNS) <= 6
    assert all("seeds" not in entry for entry in reduced["methods"].values())
    params = parse_params(reduced)  # valid: every paper's runs are among the kept
    for paper in ALL_PAPERS:
        named = paper_runs(params.papers.paper(paper), trained_only=True)
        assert named and set(named) <= set(smoke.SMOKE_RUNS), paper
    # the sampled studies read kept runs too: ERPO's fig. 1(b) perturbs a stand-in on GRPO's set (the ERPO set)
    policy = params.papers.erpo.perturbation.policy
    assert policy in smoke.SMOKE_RUNS and params.runs[policy].train_data == "erpo"
    # each paper's own method trains on its own set in the smoke protocol
    assert params.runs["erpo_erpo_data"].train_data == "erpo" and params.runs["tepo_tepo_data"].train_data == "tepo"


def test_the_copy_leaves_out_the_committed_results_and_refuses_a_folder_it_did_not_make(tmp_path):
    assert smoke.copied("rlvr_lib/pipeline/smoke.py") and smoke.copied("params.yaml")
    assert not smoke.copied("reports/README.md") and not smoke.copied("dvc.lock")
    assert not smoke.copied("pipelines/grpo/dvc.lock")
    (tmp_path / "mine").mkdir()
    with pytest.raises(SystemExit, match="is not a smoke copy"):
        smoke.make_copy(REPO, tmp_path / "mine")
    with pytest.raises(SystemExit):
        smoke.main(["--dir", str(REPO / "smoke_here"), "--repo", str(REPO)])


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout


@pytest.mark.slow
@pytest.mark.skipif(not Path(sys.executable).with_name("dvc").exists(), reason="needs DVC and papermill")
def test_make_smoke_runs_every_paper_stage_in_a_scratch_copy_and_leaves_the_workspace_as_it_was(tmp_path):
    before = git_status()
    venv = Path(sys.executable).parent.parent  # this environment, taken as installed (-o: no reinstall)
    kernel = venv / "share/jupyter/kernels/python3/kernel.json"
    target = tmp_path / "smoke"
    # one training seed (SMOKE_ARGS): the same stages as the default two, in about two thirds of the time
    cmd = ["make", "smoke", f"VENV={venv}", f"SMOKE_DIR={target}", "SMOKE_ARGS=--seeds 0"]
    cmd += ["-o", f"{venv}/.installed", "-o", str(kernel)]
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert git_status() == before  # nothing of the workspace written
    assert "make smoke: done in" in done.stdout and f"The output lives in the scratch copy {target}" in done.stdout
    assert "x 1 seeds = 5 (run, seed) pairs" in done.stdout
    assert " ETA " in done.stdout  # the lane driver's progress lines
    for paper in ALL_PAPERS:
        assert (target / f"reports/papers/{paper}/README.md").is_file(), paper
    assert "## Which claims hold" in (target / "reports/README.md").read_text()
