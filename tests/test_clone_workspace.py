"""A fresh clone is a working workspace (issue 22): it has the committed reports but no models/, runs/ or
data/generated/ (git-ignored), yet every paper notebook runs from the committed results and rewrites its report byte
for byte (``git status`` stays clean), and the README's dry runs list the stages they would run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import REPO

from rlvr_lib.settings.papers import ALL_PAPERS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(sys.executable).with_name("papermill").exists(), reason="needs papermill and DVC"),
]


def make_clone(root: Path) -> tuple[Path, dict[str, str]]:
    subprocess.run(["git", "clone", "-q", str(REPO), str(root)], check=True)
    env = {  # the code is the environment's rlvr_lib (in CI: the checkout under test, the clone's commit); the
        # notebooks work in the repository holding the cwd (pipeline.repo_root): the clone
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HF_HUB_OFFLINE": "1",
        "DVC_NO_ANALYTICS": "1",
        # ERPO counts App. A.3's filter on the real files beside the checkout the tests run from (../shared/data)
        "RLVR_DATA_ROOT": os.environ.get("RLVR_DATA_ROOT", str(REPO.parent / "shared" / "data")),
    }
    return root, env


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    return make_clone(tmp_path_factory.mktemp("clone") / "repo")


@pytest.fixture(scope="module")
def dry_runs(tmp_path_factory) -> Future:
    """The README's dry runs, one after another (they share DVC's repository lock) in a clone of their own (`dvc exp
    run -S` edits params.yaml there while it runs), started at once so that they run beside the notebooks: a future
    of [(command, exit status, output)]."""
    root, env = make_clone(tmp_path_factory.mktemp("dry") / "repo")

    def run_all() -> list[tuple[str, int, str]]:
        out = []
        for command in readme_dry_runs():
            args = [sys.executable, *(a.strip("'") for a in command.split()[1:])]
            result = subprocess.run(
                args, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
            out.append((command, result.returncode, result.stdout))
        return out

    pool = ThreadPoolExecutor(max_workers=1)
    yield pool.submit(run_all)
    pool.shutdown()


def test_a_clone_has_the_reports_but_no_models_runs_or_generated_data(clone):
    root, _ = clone
    assert not any((root / path).exists() for path in ("models", "runs", "data/generated"))
    assert all((root / "reports/papers" / paper / "README.md").is_file() for paper in ALL_PAPERS)


def test_every_paper_notebook_runs_on_a_clone_and_rewrites_its_report_byte_for_byte(clone, dry_runs, tmp_path):
    root, env = clone  # (dry_runs: started here so they run beside the notebooks)

    def run(paper: str) -> subprocess.CompletedProcess:
        out = tmp_path / f"{paper}.ipynb"  # the executed copy outside the clone: only the report folder is compared
        cmd = ["papermill", "--cwd", ".", "--no-progress-bar", "-k", "python3", f"notebooks/papers/{paper}.ipynb", out]
        return subprocess.run([str(c) for c in cmd], cwd=root, env=env, capture_output=True, text=True)

    papers = [p for p in ALL_PAPERS if p != "summary"]
    with ThreadPoolExecutor(max_workers=2) as pool:  # the summary reads the others' claims: it runs last
        results = dict(zip(papers, pool.map(run, papers), strict=True))
    results["summary"] = run("summary")
    failed = {p: r.stderr[-3000:] for p, r in results.items() if r.returncode}
    assert not failed, failed
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    assert status == "", f"the notebooks changed committed files (rerun the paper stages and commit):\n{status}"
    for paper in ALL_PAPERS:  # the executed notebook draws every figure its README shows
        cells = json.loads((tmp_path / f"{paper}.ipynb").read_text())["cells"]
        pngs = [o for c in cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        readme = (root / "reports/papers" / paper / "README.md").read_text()
        assert len(pngs) == len(re.findall(r"!\[[^\]]*\]\(figures/", readme)) > 0, paper


def readme_dry_runs() -> list[str]:
    """The README's ``python -m rlvr_lib.pipeline.dvc_dry ...`` commands."""
    lines = (REPO / "README.md").read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.startswith("python -m rlvr_lib.pipeline.dvc_dry ")]


def test_the_readmes_dry_runs_list_stages_on_a_clone(dry_runs):
    results = dry_runs.result()
    assert results, "the README names no dvc_dry command"
    for command, status, output in results:
        assert status == 0, f"{command}:\n{output[-3000:]}"
        stages = re.findall(r"Running stage '([^']+)'", output)
        assert stages, f"{command} listed no stage:\n{output[-2000:]}"
