"""Lineage (issue 39): DVC's hashes computed without DVC, each stage's standing read from the lock files alone, origin
records, result-neutral declarations, and the refresh of lock entries that DVC itself then finds up to date."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import lineage as pipeline_lineage
from rlvr_lib.workspace import lineage

DVC = Path(sys.executable).with_name("dvc")
needs_dvc = pytest.mark.skipif(not DVC.exists(), reason="needs DVC")


def test_dvc_md5_is_dvcs_own_hash_of_a_file_and_a_folder(tmp_path, monkeypatch):
    from dvc_data.hashfile.build import build
    from dvc_data.hashfile.db import HashFileDB
    from dvc_objects.fs.local import LocalFileSystem

    monkeypatch.chdir(tmp_path)
    (tmp_path / "d/sub").mkdir(parents=True)
    (tmp_path / "d/x.txt").write_text("a\n")
    (tmp_path / "d/sub/y").write_bytes(b"\x00\x01bb")
    (tmp_path / "d/sub-a").mkdir()  # "sub-a/z" sorts before "sub/y" as DVC orders paths ('-' < '/'), after as parts
    (tmp_path / "d/sub-a/z").write_text("z\n")
    (tmp_path / "f").write_text("c\n")
    fs = LocalFileSystem()
    odb = HashFileDB(fs, str(tmp_path / "cache"))
    for path in ("d", "f"):
        _, meta, obj = build(odb, path, fs, "md5")
        assert lineage.dvc_md5(path) == lineage.Hash(obj.hash_info.value, meta.size, meta.nfiles)
    assert lineage.dvc_md5("missing") is None


def test_dvcignore_patterns_leave_compiled_python_and_dvclive_folders_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dvcignore").write_text("# comment\nreports/training/*/seed*/plots/\n__pycache__/\n*.pyc\n")
    (tmp_path / "code/__pycache__").mkdir(parents=True)
    (tmp_path / "code/a.py").write_text("x = 1\n")
    before = lineage.dvc_md5("code")
    (tmp_path / "code/__pycache__/a.cpython-311.pyc").write_bytes(b"\x00")
    (tmp_path / "code/b.pyc").write_bytes(b"\x00")
    assert lineage.dvc_md5("code") == before
    logs = tmp_path / "reports/training/grpo/seed0"
    (logs / "plots").mkdir(parents=True)
    (logs / "history.json").write_text("[]\n")
    run = lineage.dvc_md5("reports/training/grpo")
    (logs / "plots/x.tsv").write_text("1\n")
    assert lineage.dvc_md5("reports/training/grpo") == run
    (tmp_path / "code/a.py").write_text("x = 2\n")
    assert lineage.dvc_md5("code") != before  # a planted change is seen


def test_neutral_declarations_join_chains_and_nothing_else():
    entries = [
        {"date": "d", "why": "w", "golden": "g", "deps": {"rlvr_lib/training": ["a", "b"]}},
        {
            "date": "d",
            "why": "w",
            "golden": "g",
            "deps": {"rlvr_lib/training": ["b", "c"], "rlvr_lib/eval": ["x", "y"]},
        },
    ]
    classes = lineage.equivalent_hashes(entries)
    assert lineage.same_result("rlvr_lib/training", "a", "c", classes)
    assert not lineage.same_result("rlvr_lib/training", "a", "x", classes)
    assert not lineage.same_result("rlvr_lib/eval", "a", "c", classes)  # per path
    assert lineage.same_result("rlvr_lib/methods", "m", "m", classes)


def test_a_malformed_neutral_file_is_named(tmp_path):
    path = tmp_path / "neutral.yaml"
    path.write_text(yaml.safe_dump([{"date": "d", "why": "w", "deps": {}}]))
    with pytest.raises(ValueError, match=r"neutral.yaml: change 1 lacks golden"):
        lineage.read_neutral(path)
    path.write_text(yaml.safe_dump([{"date": "d", "why": "w", "golden": "g", "deps": {"rlvr_lib/x": "abc"}}]))
    with pytest.raises(ValueError, match=r"change 1, deps.rlvr_lib/x: expected \[old md5, new md5\]"):
        lineage.read_neutral(path)


def test_origin_records_name_the_run_seed_and_changed_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rlvr_lib/training").mkdir(parents=True)
    (tmp_path / "rlvr_lib/training/a.py").write_text("x = 1\n")
    (tmp_path / "data").mkdir()
    made = tmp_path / "reports/training/grpo/seed3"
    made.mkdir(parents=True)
    record = lineage.origin_record("pipelines/grpo/dvc.yaml:train@3", ["rlvr_lib/training", "data"], {"seed": 0}, {})
    assert record["machine"]["lanes"] == 1 and record["machine"]["cores"] >= 1 and record["machine"]["cpu"]
    lineage.write_origin(made, record)
    unmade = tmp_path / "reports/training/grpo/seed4"
    unmade.mkdir()
    assert lineage.check_origins("grpo", {3: made, 4: unmade}, neutral=[]) == 1  # seed 4: no record
    (tmp_path / "data/new.jsonl").write_text("{}\n")  # a data input is another stage's output: not checked here
    assert lineage.origin_differences(made, neutral=[]) == []
    old = record["deps"]["rlvr_lib/training"]
    (tmp_path / "rlvr_lib/training/a.py").write_text("x = 2\n")
    new = lineage.current_md5("rlvr_lib/training")
    with pytest.raises(lineage.StaleResult, match=r"run 'grpo' seed 3 .*rlvr_lib/training: made with .*, now "):
        lineage.check_origins("grpo", {3: made}, neutral=[])
    declared = [{"date": "d", "why": "w", "golden": "g", "deps": {"rlvr_lib/training": [old, new]}}]
    assert lineage.check_origins("grpo", {3: made}, neutral=declared) == 0


# ----------------------------------------------------------------------------- a planted pipeline under DVC
DVC_YAML = {
    "stages": {
        "data": {
            "cmd": "mkdir -p data && cp rlvr_lib/src.py data/made.txt",
            "deps": ["rlvr_lib/src.py"],
            "outs": ["data"],
        },
        "train": {
            "foreach": [0],
            "do": {
                "cmd": "mkdir -p reports && cat data/made.txt rlvr_lib/src.py > reports/r${item}.txt",
                "deps": ["rlvr_lib/src.py", "data"],
                "params": ["lr"],
                "outs": [{"reports/r${item}.txt": {"cache": False}}],
            },
        },
    }
}


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A DVC repository with a data stage (cached output) and a train@0 stage (code, data, a param, a committed
    output), reproduced once."""
    monkeypatch.chdir(tmp_path)
    subprocess.run([str(DVC), "init", "--no-scm", "-q"], check=True)
    (tmp_path / "rlvr_lib").mkdir()
    (tmp_path / "rlvr_lib/src.py").write_text("print(1)\n")
    (tmp_path / "params.yaml").write_text("lr: 0.1\n")
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump(DVC_YAML))
    subprocess.run([str(DVC), "repro", "-q"], check=True, capture_output=True)
    return tmp_path


def standing(root: Path) -> dict[str, pipeline_lineage.StageLineage]:
    return {e.name: e for e in pipeline_lineage.stage_lineages(root)}


def dvc_status(root: Path) -> dict:
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        return repo.status()


@needs_dvc
def test_a_reproduced_pipeline_is_current_and_a_missing_cached_output_is_only_absent(planted):
    stages = standing(planted)
    assert {n: e.state for n, e in stages.items()} == {"data": "current", "train@0": "current"}
    import shutil

    shutil.rmtree(planted / "data")  # a clone: the cached output is not there
    stages = standing(planted)
    assert stages["train@0"].state == "current" and stages["train@0"].absent == ["data"]
    assert stages["data"].state == "current" and stages["data"].absent == ["data"]
    assert dvc_status(planted)  # where DVC itself calls the dependency "deleted"


@needs_dvc
def test_each_kind_of_change_is_named(planted):
    (planted / "params.yaml").write_text("lr: 0.2\n")
    stages = standing(planted)
    assert stages["train@0"].reasons == ["params params.yaml:lr modified"] and not stages["train@0"].refreshable
    (planted / "params.yaml").write_text("lr: 0.1\n")
    (planted / "reports/r0.txt").write_text("edited by hand\n")
    assert standing(planted)["train@0"].reasons[0].startswith("output reports/r0.txt: recorded ")
    (planted / "dvc.lock").write_text(
        yaml.safe_dump(
            {"schema": "2.0", "stages": {"data": yaml.safe_load((planted / "dvc.lock").read_text())["stages"]["data"]}}
        )
    )
    assert standing(planted)["train@0"].state == "unlocked"


@needs_dvc
def test_refresh_declares_a_code_change_and_dvc_then_finds_the_stage_up_to_date(planted):
    (planted / "rlvr_lib/src.py").write_text("print(1)  # a comment: result-neutral\n")
    stages = standing(planted)
    train = stages["train@0"]
    assert train.state == "stale" and train.refreshable and list(train.code_changes) == ["rlvr_lib/src.py"]
    assert not stages["data"].refreshable or stages["data"].kind == "data"
    changes = pipeline_lineage.declare_neutral(planted, list(stages.values()), "a comment")
    assert list(changes) == ["rlvr_lib/src.py"]
    assert pipeline_lineage.refresh_locks(planted, list(stages.values())) == 2  # data and train@0
    assert {e.state for e in standing(planted).values()} == {"current"}
    assert dvc_status(planted) == {}  # DVC's own verdict on the rewritten lock
    neutral = lineage.read_neutral(planted / lineage.NEUTRAL_FILE)
    assert (
        neutral[-1]["why"] == "a comment"
        and neutral[-1]["deps"]["rlvr_lib/src.py"][1] == train.code_changes["rlvr_lib/src.py"][1]
    )


# ----------------------------------------------------------------------------- the committed pipeline
NEEDS_NO_MODEL = ("check_params", "paper_", "report")  # stages whose commands read only committed files


@pytest.fixture(scope="module")
def committed(request):
    if not DVC.exists():
        pytest.skip("needs DVC")
    import os

    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return pipeline_lineage.stage_lineages(REPO)
    finally:
        os.chdir(cwd)


def test_the_committed_stages_that_read_only_committed_files_are_current(committed):
    cheap = [e for e in committed if e.name.startswith(NEEDS_NO_MODEL)]
    assert len(cheap) >= 8
    assert [(e.address, e.state, e.reasons) for e in cheap if e.state != "current"] == []


@pytest.mark.xfail(
    strict=True,
    reason="issue 39 item 4: the committed results were trained outside DVC at older commits; the whole make repro "
    "under lineage regenerates them (strict: this fails once they are current, so the mark must go then)",
)
def test_every_committed_stage_is_current(committed):
    assert [(e.address, e.state) for e in committed if e.state != "current"] == []


def test_origin_records_are_json_objects_with_their_stage(tmp_path):
    path = lineage.write_origin(tmp_path, {"stage": "dvc.yaml:eval_base@0", "deps": {}})
    assert json.loads(path.read_text())["stage"] == "dvc.yaml:eval_base@0"


@needs_dvc
def test_the_golden_runs_vouch_only_for_results_made_by_the_code_they_were_made_with(planted):
    made_with = lineage.code_files(planted)  # the golden references made with the code that made the results
    (planted / "rlvr_lib/src.py").write_text("print(1)  # a comment\n")
    stages = list(standing(planted).values())
    assert {e.name for e in pipeline_lineage.vouched(stages, made_with, [])} == {"data", "train@0"}
    later = lineage.code_files(planted)  # references remade after the results: they say nothing of the old code
    assert pipeline_lineage.vouched(stages, later, []) == []
    old, new = stages[0].code_changes["rlvr_lib/src.py"]
    earlier = [{"date": "d", "why": "w", "golden": "g", "deps": {"rlvr_lib/src.py": [old, new]}}]
    assert len(pipeline_lineage.vouched(stages, later, earlier)) == 2  # unless declared neutral before


@needs_dvc
def test_the_summary_counts_stages_by_standing_by_cause_and_by_kind(planted):
    import shutil

    shutil.rmtree(planted / "data")  # a clone: the cached output is not there
    (planted / "params.yaml").write_text("lr: 0.2\n")
    (planted / "rlvr_lib/src.py").write_text("print(2)\n")
    lines = pipeline_lineage.summary_lines(pipeline_lineage.stage_lineages(planted))
    assert len(lines) == 5
    assert lines[0].startswith("2 stages: 0 current, 2 stale, 0 without a lock entry; 2 with cached outputs")
    assert lines[1] == "stale by changed dependency (stages): rlvr_lib/src.py 2"  # one count per stage, not per reason
    assert lines[2] == "stale by changed parameter: lr 1; by changed committed output: none"
    assert lines[3] == "by kind: data 1 (1 stale); train 1 (1 stale)"
    assert "make repro DRY=1" in lines[4]
    assert pipeline_lineage.cause("output reports/eval/base/seed0: recorded a, now b") == ("output", "reports/eval")
