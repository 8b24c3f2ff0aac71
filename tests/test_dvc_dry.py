"""rlvr_lib.pipeline.dvc_dry: a dry run lists the stages of a chain whose intermediate output is missing (DVC #9818)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not Path(sys.executable).with_name("dvc").exists(), reason="needs DVC")

DVC_YAML = """stages:
  make:
    cmd: mkdir -p out && cp source.txt out/a.txt
    deps: [source.txt]
    outs: [out]
  use:
    cmd: cp out/a.txt result.txt
    deps: [out]
    outs: [result.txt]
"""


def repo(tmp_path: Path) -> tuple[Path, dict]:
    env = {
        **os.environ,
        "DVC_NO_ANALYTICS": "1",
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),  # this checkout's rlvr_lib, whatever the environment's editable install points at
    }
    for cmd in (["git", "init", "-q"], ["dvc", "init", "-q"]):
        subprocess.run(cmd, cwd=tmp_path, env=env, check=True)
    (tmp_path / "source.txt").write_text("x\n")
    (tmp_path / "dvc.yaml").write_text(DVC_YAML)
    return tmp_path, env


def test_dry_run_lists_both_stages_where_plain_dvc_fails(tmp_path):
    root, env = repo(tmp_path)
    plain = subprocess.run(["dvc", "repro", "--dry"], cwd=root, env=env, capture_output=True, text=True)
    assert plain.returncode != 0 and "No such file or directory" in plain.stdout + plain.stderr  # DVC #9818
    dry = [sys.executable, "-m", "rlvr_lib.pipeline.dvc_dry", "repro", "--dry"]
    fixed = subprocess.run(dry, cwd=root, env=env, capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Running stage 'make'" in fixed.stdout and "Running stage 'use'" in fixed.stdout
    assert not (root / "out").exists() and not (root / "result.txt").exists()  # a dry run ran nothing
