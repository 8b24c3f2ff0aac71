"""A stage's outputs are published together or not at all: a failure in any move puts back every previous output."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from conftest import SMOKE_PARAMS

from rlvr_lib.files import atomic
from rlvr_lib.pipeline import stages
from rlvr_lib.workspace import layout


def digests(*roots: Path) -> dict[str, str]:
    """sha256 of every file under ``roots`` (files or folders), hidden ones included."""
    files = [p for r in roots for p in ([r] if r.is_file() else sorted(r.rglob("*"))) if p.is_file()]
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def fail_on_move_into(monkeypatch, target: Path) -> None:
    """Make ``os.replace`` inside rlvr_lib.files.atomic fail when it moves a staged output onto ``target``."""
    real = os.replace

    def replace(src, dst):
        if Path(dst) == target and not Path(src).name.endswith(".old"):
            raise OSError(f"planted failure moving {src} to {dst}")
        real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace)


def test_failed_second_move_restores_the_first(tmp_path, monkeypatch):
    (tmp_path / "out/folder").mkdir(parents=True)
    (tmp_path / "out/folder/a.txt").write_text("old a")
    (tmp_path / "out/file.json").write_text("old b")
    (tmp_path / "staged/folder").mkdir(parents=True)
    (tmp_path / "staged/folder/a.txt").write_text("new a")
    (tmp_path / "staged/file.json").write_text("new b")
    before = digests(tmp_path / "out")
    fail_on_move_into(monkeypatch, tmp_path / "out/file.json")
    with pytest.raises(OSError, match="planted failure"):
        atomic.publish(
            {
                tmp_path / "staged/folder": tmp_path / "out/folder",
                tmp_path / "staged/file.json": tmp_path / "out/file.json",
            }
        )
    assert digests(tmp_path / "out") == before  # no set-aside copy left behind either
    assert (tmp_path / "staged/folder/a.txt").read_text() == "new a"


def test_publish_replaces_all_and_leaves_no_set_aside_copy(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out/file.json").write_text("old")
    (tmp_path / "staged/folder").mkdir(parents=True)
    (tmp_path / "staged/folder/a.txt").write_text("new a")
    (tmp_path / "staged/file.json").write_text("new b")
    atomic.publish(
        {tmp_path / "staged/folder": tmp_path / "out/folder", tmp_path / "staged/file.json": tmp_path / "out/file.json"}
    )
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["file.json", "folder"]
    assert (tmp_path / "out/folder/a.txt").read_text() == "new a"
    assert (tmp_path / "out/file.json").read_text() == "new b"


def test_eval_stage_publishes_evaluation_and_metrics_together(light_workspace, set_params, monkeypatch):
    params = layout.enter_repo()
    stages.stage_eval(params, "base")
    outputs = (light_workspace / "reports/eval/base/seed0", light_workspace / "reports/metrics/base/seed0.json")
    before = digests(*outputs)
    set_params(eval={**SMOKE_PARAMS["eval"], "max_new_tokens": 8})  # another evaluation
    fail_on_move_into(monkeypatch, layout.METRICS_DIR / "base" / "seed0.json")
    with pytest.raises(OSError, match="planted failure"):
        stages.stage_eval(layout.enter_repo(), "base")
    assert digests(*outputs) == before
