"""rlvr_lib.pipeline.repro_lanes: the units, the ETA arithmetic, progress lines and failure handling (a fake runner)."""

from __future__ import annotations

import threading

import pytest

from rlvr_lib.pipeline import repro_lanes
from rlvr_lib.pipeline.repro_lanes import Unit, UnitFailed, clock, eta_seconds, pair_units, run_units, seed_units


def test_units_name_each_pair_and_its_stages_in_the_runs_dvc_file():
    units = pair_units({"grpo": [0, 1], "aer": [4]})
    assert [u.name for u in units] == ["grpo seed 0", "grpo seed 1", "aer seed 4"]
    assert units[2].stages == ("pipelines/aer/dvc.yaml:train@4", "pipelines/aer/dvc.yaml:eval@4")
    assert seed_units([3])[0].stages == ("base_model@3", "filter_data@3", "eval_base@3")


def test_eta_is_the_mean_duration_times_the_remaining_units_over_the_lanes():
    assert eta_seconds([], 10, 2) is None
    assert eta_seconds([60.0, 120.0], 10, 2) == 90.0 * 10 / 2
    assert eta_seconds([60.0], 1, 4) == 60.0  # one unit left keeps one lane busy, not a quarter of one
    assert eta_seconds([60.0], 0, 2) == 0.0
    assert clock(3725.4) == "1:02:05" and clock(-3) == "0:00:00"


def test_one_progress_line_per_finished_unit_with_done_total_and_eta():
    lines = []
    units = [Unit(f"run seed {n}", (f"s{n}",)) for n in range(3)]
    run_units(units, 2, lambda unit: 0, "pairs", say=lines.append)
    assert lines[0].endswith("pairs: 3 to run, 2 at a time")
    progress = lines[1:]
    assert len(progress) == 3 and [line.split()[1] for line in progress] == ["1/3", "2/3", "3/3"]
    assert all("| elapsed 0:00:0" in line and "| ETA " in line for line in progress)
    assert progress[-1].endswith("ETA 0:00:00")


def test_a_failed_unit_starts_nothing_new_lets_the_running_finish_and_names_itself(monkeypatch, tmp_path):
    monkeypatch.setattr(repro_lanes, "LOG_DIR", tmp_path)
    started, release = [], threading.Event()

    def runner(unit):
        started.append(unit.name)
        if unit.name == "slow":
            release.wait(5)
            return 0
        release.set()
        return 2

    lines = []
    units = [Unit("slow", ("a",)), Unit("bad", ("pipelines/x/dvc.yaml:train@1",)), Unit("never", ("c",))]
    with pytest.raises(UnitFailed, match=r"pairs: bad failed \(stages pipelines/x/dvc.yaml:train@1\); see .*bad.log"):
        run_units(units, 2, runner, "pairs", say=lines.append)
    assert "never" not in started
    assert any("FAILED: bad (2)" in line for line in lines)
    assert any(" 1/3 slow done" in line for line in lines)  # the running unit finished and was counted


def test_a_runner_that_raises_counts_as_a_failure():
    def runner(unit):
        raise OSError("dvc not found")

    with pytest.raises(UnitFailed, match="only failed"):
        run_units([Unit("only", ("a",))], 1, runner, "pairs", say=lambda line: None)


def test_lanes_must_be_positive(capsys):
    with pytest.raises(SystemExit):
        repro_lanes.main(["--jobs", "0"])
    assert "--jobs and --threads must be >= 1, got 0 and 1" in capsys.readouterr().err


def test_sampling_units_are_the_stages_of_dvc_yaml_that_read_trained_models():
    import yaml
    from conftest import REPO

    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    units = repro_lanes.sampling_units(with_papers=True)
    named = [s for u in units for s in u.stages]
    assert all(len(u.stages) == 1 for u in units) and all(s in stages for s in named)
    single = {n: s for n, s in stages.items() if "foreach" not in s}  # the per-seed stages are seed_units' lanes
    reads_models = {n for n, s in single.items() if any(str(d).startswith(("runs/", "models/")) for d in s["deps"])}
    assert reads_models == set(named)  # every other stage sampling a model is a lane of its own, and only those
    assert [u.stages for u in repro_lanes.sampling_units(with_papers=False)] == [("testbed_properties",)]


def test_paper_units_are_the_five_paper_stages_and_leave_the_summary_to_the_last_repro():
    import yaml
    from conftest import REPO

    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    named = [s for u in repro_lanes.paper_units(with_papers=True) for s in u.stages]
    assert sorted(named) == sorted(n for n in stages if n.startswith("paper_") and n != "paper_summary")
    summary_deps = [str(d) for d in stages["paper_summary"]["deps"]]
    assert any(d.startswith("reports/papers/erpo") for d in summary_deps)  # it reads a paper stage's output
    for name in named:  # no paper stage reads another's output: they can run side by side
        assert not any(str(d).startswith("reports/papers/") for d in stages[name]["deps"]), name
    assert repro_lanes.paper_units(with_papers=False) == []


def test_pairs_made_elsewhere_are_not_rerun_unless_a_sampling_stage_reads_their_absent_model():
    from rlvr_lib.pipeline.lineage import StageLineage

    def entry(address, state="current", absent=(), deps=()):
        dvcfile, name = address.split(":")
        return StageLineage(address, dvcfile, name, state, absent=list(absent), deps=list(deps))

    units = pair_units({"grpo": [0, 1], "erpo": [0]})
    lineages = [
        entry("pipelines/grpo/dvc.yaml:train@0", absent=["runs/grpo/seed0"]),
        entry("pipelines/grpo/dvc.yaml:eval@0", absent=["runs/grpo/seed0"]),
        entry("pipelines/grpo/dvc.yaml:train@1", absent=["runs/grpo/seed1"]),
        entry("pipelines/grpo/dvc.yaml:eval@1", absent=["runs/grpo/seed1"]),
        entry("pipelines/erpo/dvc.yaml:train@0", state="stale"),
        entry("pipelines/erpo/dvc.yaml:eval@0"),
        entry("dvc.yaml:testbed_properties", deps=["runs/grpo/seed1", "reports/training/grpo"]),
    ]
    sampling = [Unit("testbed properties", ("testbed_properties",))]
    run, skipped = repro_lanes.made_elsewhere(units, sampling, lineages)
    assert [u.name for u in skipped] == ["grpo seed 0"]  # current, its model read by nothing
    assert [u.name for u in run] == ["grpo seed 1", "erpo seed 0"]  # its model is sampled; stale
    run, skipped = repro_lanes.made_elsewhere(units, [], lineages[:4])  # no lineage for erpo: it runs
    assert [u.name for u in run] == ["erpo seed 0"]
