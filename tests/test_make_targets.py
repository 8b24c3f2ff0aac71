"""The Makefile's one-paper and JupyterLab targets (issue 32): `make repro PAPER=<x>` runs that paper's pairs in lanes,
the stage it needs and nothing else; `make lab` adds --allow-root as root whatever LAB_ARGS holds; `make repro` and
`make smoke` default to one lane per core, whatever OMP_NUM_THREADS holds."""

from __future__ import annotations

import os
import subprocess

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import repro_lanes
from rlvr_lib.settings.config import load_params
from rlvr_lib.settings.papers import PAPERS, paper_runs


def make_dry(*args: str, env: dict[str, str] | None = None) -> str:
    """`make -n` of the repository's Makefile, the environment taken as installed (-o: nothing is reinstalled)."""
    stamp = [
        a for target in (".venv/.installed", ".venv/share/jupyter/kernels/python3/kernel.json") for a in ("-o", target)
    ]
    done = subprocess.run(["make", "-n", *stamp, *args], cwd=REPO, capture_output=True, text=True, check=True, env=env)
    return done.stdout


@pytest.mark.parametrize("lab_args", ["", "--no-browser --ip 0.0.0.0", "--allow-root --port 8890"])
def test_make_lab_adds_allow_root_for_root_whatever_lab_args_holds(lab_args):
    root = make_dry("lab", "USER_ID=0", f"LAB_ARGS={lab_args}")
    assert "jupyter lab --config=configs/jupyter/jupyter_lab_config.py --allow-root" in root and lab_args in root
    assert "--allow-root" not in make_dry("lab", "USER_ID=1000", "LAB_ARGS=--no-browser")


def test_make_repro_paper_passes_the_paper_to_the_lane_driver():
    assert "rlvr_lib.pipeline.repro_lanes --jobs 2 --paper tepo" in make_dry("repro", "PAPER=tepo", "JOBS=2")
    assert "--paper" not in make_dry("repro", "JOBS=2")


def test_the_default_lanes_are_the_cores_whatever_omp_num_threads_says():
    """GNU nproc reports OMP_NUM_THREADS when it is set (the test suite sets 1 for its processes): the lanes are
    processes, one per core, each setting its own threads."""
    cores = len(os.sched_getaffinity(0))
    for threads in ("1", "3"):
        env = {**os.environ, "OMP_NUM_THREADS": threads, "OMP_THREAD_LIMIT": threads}
        assert f"rlvr_lib.pipeline.repro_lanes --jobs {cores}" in make_dry("repro", env=env)
        assert f"rlvr_lib.pipeline.smoke --dir /tmp/x --jobs {cores}" in make_dry("smoke", "SMOKE_DIR=/tmp/x", env=env)


@pytest.fixture(scope="module")
def params():
    return load_params(REPO / "params.yaml")


@pytest.mark.parametrize("paper", PAPERS)
def test_one_paper_runs_its_own_pairs_studies_and_stage(params, paper):
    runs, studies, papers = repro_lanes.paper_scope(paper, params)
    assert list(runs) == paper_runs(params.papers.paper(paper), trained_only=True)
    assert all(runs[r] == params.runs[r].seeds for r in runs)  # each on its own seeds
    assert [u.stages for u in papers] == [(f"paper_{paper}",)]
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    deps = [str(d) for d in stages[f"paper_{paper}"]["deps"]]
    for unit in studies:  # the studies it runs are those its stage reads
        assert any(d.startswith("reports/samples/") and unit.stages[0].removeprefix("sample_") in d for d in deps)


def test_the_summary_runs_every_paper_it_gathers_first(params):
    runs, _, papers = repro_lanes.paper_scope("summary", params)
    gathered = params.papers.summary.papers
    assert [u.stages[0] for u in papers] == [f"paper_{p}" for p in gathered]  # paper_summary: the final dvc repro
    every = {r for p in [*gathered, "summary"] for r in paper_runs(params.papers.paper(p), trained_only=True)}
    assert set(runs) == every


def test_an_unknown_paper_is_named(capsys):
    with pytest.raises(SystemExit):
        repro_lanes.main(["--paper", "erp"])
    err = capsys.readouterr().err
    assert "--paper 'erp': not a paper (did you mean 'erpo'?); valid: erpo, cw_grpo, tepo, opefo, aer, summary" in err
