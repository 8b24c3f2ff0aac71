"""benchmarks/host_merge.py: a host's lock entries come home only when its inputs are ours (planted lock files)."""

from __future__ import annotations

import importlib.util

import pytest
import yaml
from conftest import REPO

spec = importlib.util.spec_from_file_location("host_merge", REPO / "benchmarks/host_merge.py")
host_merge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(host_merge)


def lock(path, stages):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"schema": "2.0", "stages": stages}))


def entry(deps, outs, cmd="x"):
    return {
        "cmd": cmd,
        "deps": [{"path": p, "md5": h} for p, h in deps],
        "outs": [{"path": p, "md5": h} for p, h in outs],
    }


BASE = entry(
    [("notebooks/base_model.ipynb", "code1")], [("models/base/seed0", "B0.dir"), ("reports/notebooks/b.ipynb", "n")]
)
PAIR = entry(
    [("models/base/seed0", "B0.dir"), ("data/generated", "D.dir")],
    [("runs/grpo/seed0", "R.dir"), ("reports/training/grpo/seed0/metrics.json", "m")],
)


@pytest.fixture
def trees(tmp_path):
    ours, host = tmp_path / "ours", tmp_path / "host"
    lock(ours / "dvc.lock", {"data": entry([], [("data/generated", "D.dir")]), "base_model@0": BASE})
    (ours / "pipelines/grpo").mkdir(parents=True)
    (ours / "pipelines/grpo/dvc.yaml").write_text("stages: {}\n")
    new_base = {**BASE, "deps": [{"path": "notebooks/base_model.ipynb", "md5": "code2"}]}  # today's code, same bytes
    new_base["outs"] = [BASE["outs"][0], {"path": "reports/notebooks/b.ipynb", "md5": "n2"}]
    lock(host / "dvc.lock", {"data": entry([], [("data/generated", "D.dir")]), "base_model@0": new_base})
    lock(host / "pipelines/grpo/dvc.lock", {"train@0": PAIR})
    for path in ("reports/training/grpo/seed0/metrics.json", "reports/notebooks/b.ipynb"):
        (host / path).parent.mkdir(parents=True, exist_ok=True)
        (host / path).write_text("{}")
    return ours, host


def test_a_pair_trained_from_our_base_policy_is_merged_with_its_outputs(trees):
    ours, host = trees
    assert host_merge.main([str(host), "--root", str(ours)]) == 0
    assert yaml.safe_load((ours / "pipelines/grpo/dvc.lock").read_text())["stages"]["train@0"] == PAIR
    assert yaml.safe_load((ours / "dvc.lock").read_text())["stages"]["base_model@0"]["deps"][0]["md5"] == "code2"
    assert (ours / "reports/training/grpo/seed0/metrics.json").is_file()
    assert not (ours / "runs").exists()  # cached outputs stay on the host


def test_a_host_base_policy_of_other_bytes_stops_everything(trees, capsys):
    ours, host = trees
    other = {**BASE, "outs": [{"path": "models/base/seed0", "md5": "OTHER.dir"}]}
    lock(host / "dvc.lock", {"base_model@0": other})
    assert host_merge.main([str(host), "--root", str(ours)]) == 2
    assert "did not use our base policies" in capsys.readouterr().err
    assert not (ours / "pipelines/grpo/dvc.lock").exists()


def test_a_pair_read_from_other_bytes_or_of_an_unknown_run_is_refused(trees, capsys):
    ours, host = trees
    lock(host / "pipelines/grpo/dvc.lock", {"train@0": {**PAIR, "deps": [{"path": "models/base/seed0", "md5": "X"}]}})
    assert host_merge.main([str(host), "--root", str(ours)]) == 2
    assert "trained from other base policies" in capsys.readouterr().err
    lock(host / "pipelines/grpo/dvc.lock", {"train@0": PAIR})
    lock(host / "pipelines/nope/dvc.lock", {"train@0": PAIR})
    assert host_merge.main([str(host), "--root", str(ours)]) == 2
    assert "a run params.yaml lacks" in capsys.readouterr().err


def test_adopting_the_hosts_base_policies_brings_their_bytes_and_checks_the_pairs_against_them(trees, capsys):
    ours, host = trees
    other = {**BASE, "outs": [{"path": "models/base/seed0", "md5": "HOST.dir"}]}
    lock(host / "dvc.lock", {"base_model@0": other})
    host_pair = {**PAIR, "deps": [{"path": "models/base/seed0", "md5": "HOST.dir"}]}
    lock(host / "pipelines/grpo/dvc.lock", {"train@0": host_pair})
    assert host_merge.main([str(host), "--root", str(ours), "--adopt-base"]) == 2  # its bytes are not in the results
    assert "lack models/base/seed0" in capsys.readouterr().err
    (host / "models/base/seed0").mkdir(parents=True)
    (host / "models/base/seed0/model.safetensors").write_bytes(b"w")
    assert host_merge.main([str(host), "--root", str(ours), "--adopt-base"]) == 0
    assert (ours / "models/base/seed0/model.safetensors").read_bytes() == b"w"
    assert yaml.safe_load((ours / "dvc.lock").read_text())["stages"]["base_model@0"] == other
    assert yaml.safe_load((ours / "pipelines/grpo/dvc.lock").read_text())["stages"]["train@0"] == host_pair
    assert yaml.safe_load((ours / "dvc.lock").read_text())["stages"]["data"]["outs"][0]["md5"] == "D.dir"


def test_a_parameter_dvc_wrote_as_1e_05_comes_home_a_float(trees):
    """DVC writes a lock in YAML 1.2, where ``1e-05`` is a float; read as YAML 1.1 (PyYAML) it is a string, and the
    merged entry would record a string where params.yaml has a float (DVC then finds the parameter changed)."""
    ours, host = trees
    (host / "pipelines/grpo/dvc.lock").write_text(
        yaml.safe_dump({"schema": "2.0", "stages": {"train@0": PAIR}}).replace(
            "stages:\n",
            "stages:\n  train@1:\n    cmd: x\n    params:\n      params.yaml:\n"
            "        methods.grpo:\n          tol: 1e-05\n",
            1,
        )
    )
    assert host_merge.main([str(host), "--root", str(ours)]) == 0
    from dvc.utils.serialize import load_yaml

    merged = load_yaml(ours / "pipelines/grpo/dvc.lock")["stages"]["train@1"]["params"]["params.yaml"]
    assert merged["methods.grpo"]["tol"] == 1e-05
