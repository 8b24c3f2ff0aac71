"""Opening a notebook is not editing it (issue 32): every committed notebook names the kernelspec that `make install`
registers, and that kernel starts without the TCP-encryption and IProgress warnings in the stage logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from rlvr_lib.pipeline import kernelspec


def test_every_committed_notebook_names_the_installed_kernelspec():
    """The environment's python3 kernel (`make install`: python -m rlvr_lib.pipeline.kernelspec install) is the one the
    notebooks store, so JupyterLab has nothing to rewrite on opening them."""
    notebooks = kernelspec.committed_notebooks(REPO)
    assert len(notebooks) > 14  # notebooks/ and reports/notebooks/
    assert kernelspec.mismatches(notebooks, kernelspec.installed_spec()) == []


def test_a_notebook_with_another_kernelspec_is_named(tmp_path):
    nb = json.loads((REPO / "notebooks/papers/tepo.ipynb").read_text())
    nb["metadata"]["kernelspec"]["display_name"] = "Python 3 (ipykernel)"  # what `ipykernel install` registers
    planted = tmp_path / "tepo.ipynb"
    planted.write_text(json.dumps(nb))
    problems = kernelspec.mismatches([REPO / "notebooks/papers/tepo.ipynb", planted], kernelspec.KERNELSPEC)
    assert len(problems) == 1 and problems[0].startswith(f"{planted}: kernelspec")


def test_the_makefile_registers_the_kernelspec_of_the_notebooks():
    makefile = (REPO / "Makefile").read_text()
    assert "python -m rlvr_lib.pipeline.kernelspec install" in makefile and "ipykernel install" not in makefile


@pytest.mark.skipif(not Path(sys.executable).with_name("papermill").exists(), reason="needs papermill")
def test_the_registered_kernel_runs_a_stage_notebook_without_the_two_warnings(tmp_path):
    """A kernel registered as `make install` does, in a prefix of its own, runs a notebook under papermill (as every
    stage does) without ipykernel's TCP warning in the log nor tqdm's IProgress warning in the executed copy."""
    kernelspec.install(tmp_path / "prefix")
    nb = {
        "cells": [{"cell_type": "code", "metadata": {}, "source": "import tqdm.auto\nprint('ran')", "outputs": []}],
        "metadata": {"kernelspec": kernelspec.KERNELSPEC, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "in.ipynb").write_text(json.dumps(nb))
    env = {**os.environ, "JUPYTER_PATH": str(tmp_path / "prefix" / "share" / "jupyter")}
    env.pop("PYTHONWARNINGS", None)
    papermill = Path(sys.executable).with_name("papermill")
    cmd = [str(papermill), "--log-output", "--no-progress-bar", "-k", "python3", "in.ipynb", "out.ipynb"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stdout + done.stderr
    executed = (tmp_path / "out.ipynb").read_text()
    assert "ran" in log and "without encryption" not in log, log[-3000:]
    assert "IProgress not found" not in log + executed


def test_the_six_paper_notebooks_have_an_index_of_their_own():
    from rlvr_lib.settings.papers import ALL_PAPERS

    index = (REPO / "reports/notebooks/README.md").read_text()
    for paper in ALL_PAPERS:
        for link in (
            f"(paper_{paper}.ipynb)",
            f"(../../notebooks/papers/{paper}.ipynb)",
            f"(../papers/{paper}/README.md)",
        ):
            assert link in index, (paper, link)
    assert "(reports/notebooks/README.md)" in (REPO / "README.md").read_text()
