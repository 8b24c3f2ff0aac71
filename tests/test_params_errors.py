"""A bad params.yaml is named without a traceback and deletes nothing (issue 32): `python -m
rlvr_lib.pipeline.dvc_stages`
reports it as check-params does; under plain `dvc repro` an empty file is called empty (DVC's interpolation of
dvc.yaml reads nothing from params.yaml) and a failed check leaves the committed reports/params_check.txt."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import dvc_stages, smoke

BAD_PARAMS = {
    "empty": ("", "the file is empty"),
    "method typo": (None, "methods.dapo: unknown method 'dapoo'"),
    "unknown run in a paper": (None, "papers.erpo.runs.grpo: unknown run 'grpo_erpo_dta'"),
}


def bad_params(case: str) -> str:
    text, _ = BAD_PARAMS[case]
    if text is not None:
        return text
    raw = (REPO / "params.yaml").read_text(encoding="utf-8")
    if case == "method typo":
        return raw.replace("\n  dapo: {}\n", "\n  dapo: {method: dapoo}\n")
    return raw.replace("grpo: grpo_erpo_data", "grpo: grpo_erpo_dta")


@pytest.mark.parametrize("case", ["empty", "unknown run in a paper"])
def test_dvc_stages_names_a_bad_params_file_without_a_traceback(tmp_path, case, capsys):
    (tmp_path / "params.yaml").write_text(bad_params(case))
    shutil.copy2(REPO / "dvc.yaml", tmp_path / "dvc.yaml")
    assert dvc_stages.main(["--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and BAD_PARAMS[case][1] in err and "Traceback" not in err
    assert not (tmp_path / "pipelines").exists()  # nothing written


def test_the_root_dvc_yaml_interpolates_nothing_from_params_yaml():
    """DVC fills ${...} before any stage runs: a key read from params.yaml there stops `dvc repro` with DVC's
    'Could not find' on an empty or misshapen file, before check_params can name the problem."""
    text = (REPO / "dvc.yaml").read_text()
    names = {name.split(".")[0] for name in re.findall(r"\$\{([^}]+)\}", text)}
    from_vars = {"papermill", "item", *yaml.safe_load((REPO / "pipelines/seeds.yaml").read_text())}
    assert names <= from_vars, names - from_vars


@pytest.fixture(scope="module")
def workspace_copy(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The committed files of the workspace (no reports but the params check record), a git repository."""
    root = tmp_path_factory.mktemp("params") / "repo"
    smoke.make_copy(REPO, root)
    (root / "reports").mkdir()
    shutil.copy2(REPO / "reports/params_check.txt", root / "reports/params_check.txt")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["DVC_NO_ANALYTICS"] = "1"
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root, env


@pytest.mark.skipif(not Path(sys.executable).with_name("dvc").exists(), reason="needs DVC")
@pytest.mark.parametrize("case", ["empty", "method typo"])
def test_dvc_repro_names_a_bad_params_file_and_keeps_the_check_record(workspace_copy, case):
    root, env = workspace_copy
    record = (REPO / "reports/params_check.txt").read_text()
    (root / "params.yaml").write_text(bad_params(case))
    cmd = ["dvc", "repro"] if case == "empty" else ["dvc", "repro", "check_params"]
    done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode != 0 and BAD_PARAMS[case][1] in out, out[-3000:]
    assert "Could not find" not in out and "Traceback" not in out
    assert (root / "reports/params_check.txt").read_text() == record  # persist: the committed record stays
