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
    # a sampling stage's dependency is the run's folder (dvc.yaml: runs/grpo): it reads every seed's model
    lineages[-1] = entry("dvc.yaml:testbed_properties", deps=["runs/grpo", "runs/grpo_other"])
    run, skipped = repro_lanes.made_elsewhere(units, sampling, lineages)
    assert [u.name for u in run] == ["grpo seed 0", "grpo seed 1", "erpo seed 0"] and skipped == []


def test_real_changes_drop_deleted_dependencies_when_settled_and_absent_outputs_on_request():
    status = [
        {"changed deps": {"data/generated": "deleted", "rlvr_lib/testbed": "modified"}},
        {"changed outs": {"models/base/seed0": "not in cache"}},
        "changed command",
    ]
    assert repro_lanes.real_changes(status, settled=False) == status
    assert repro_lanes.real_changes(status, settled=True)[0] == {"changed deps": {"rlvr_lib/testbed": "modified"}}
    kept = [{"changed deps": {"rlvr_lib/testbed": "modified"}}, "changed command"]
    assert repro_lanes.real_changes(status, settled=True, own_outputs=False) == kept
    absent_only = [{"changed deps": {"runs/grpo": "deleted"}}, {"changed outs": {"runs/x/seed0": "not in cache"}}]
    assert repro_lanes.real_changes(absent_only, settled=True, own_outputs=False) == []


def test_a_dry_selection_counts_deleted_inputs_as_rebuilt_and_runs_what_reads_a_change(monkeypatch):
    """repro_lanes.select as the dry run calls it: a unit changed only by deleted inputs waits for no one; one
    reading a changed stage runs; made_elsewhere still decides the pairs DVC finds out of date."""
    units = pair_units({"grpo": [0, 1], "aer": [0]})
    status = {
        units[0].stages[0]: [{"changed deps": {"models/base/seed0": "deleted"}}],  # only its input absent: waits
        units[1].stages[0]: [{"changed outs": {"runs/grpo/seed1": "not in cache"}}],  # its model absent
    }
    phase = repro_lanes.Phase("pairs", units, elsewhere=True)
    lookup = lambda stages: {s: status[s] for s in stages if s in status}  # noqa: E731
    seen = []

    def made_elsewhere(todo, sampling, lineages):
        seen.append([u.name for u in todo])
        return [], todo  # every candidate current by its lock entries

    monkeypatch.setattr(repro_lanes, "made_elsewhere", made_elsewhere)
    forced = lambda unit: unit.name == "aer seed 0"  # noqa: E731  (reads a stage the base step changes)
    run, skipped = repro_lanes.select(phase, [], lambda: [], forced=forced, status=lookup)
    assert seen == [["grpo seed 1"]]  # the forced unit is not a candidate for "made elsewhere"
    assert [u.name for u in run] == ["aer seed 0"] and [u.name for u in skipped] == ["grpo seed 1"]
    run, _ = repro_lanes.select(phase, [], lambda: [], status=lookup)  # the real run: the deleted input counts
    assert seen[-1] == ["grpo seed 0", "grpo seed 1"] and run == []


def test_the_plan_is_the_drivers_steps_in_order_and_the_last_repro_skips_absent_data():
    from conftest import REPO

    from rlvr_lib.settings.config import load_params

    params = load_params(REPO / "params.yaml")
    whole = repro_lanes.plan(params, None)
    assert [p.what for p in whole.phases] == [
        "shared data",
        "base policies (per seed)",
        "(run, seed) pairs",
        "sampling stages",
        "paper stages",
    ]
    assert whole.phases[0].units == [Unit("data", ("check_params", "data"))]
    assert [p.elsewhere for p in whole.phases] == [False, False, True, False, False]
    assert whole.last == ["dvc", "repro", "--allow-missing"]
    one = repro_lanes.plan(params, "opefo")
    assert one.last == ["dvc", "repro", "--allow-missing", "paper_opefo"]
    assert [u.stages for u in one.phases[-1].units] == [("paper_opefo",)]
    with pytest.raises(ValueError, match="--paper 'nope': not a paper"):
        repro_lanes.plan(params, "nope")


def test_lanes_take_the_longest_units_first_each_to_the_lane_that_frees_first():
    from rlvr_lib.pipeline.repro_dry import kind, lanes_seconds

    assert lanes_seconds([], 2) == 0.0
    assert lanes_seconds([60.0, 60.0, 60.0], 2) == 120.0
    assert lanes_seconds([100.0, 10.0, 10.0, 10.0], 2) == 100.0
    assert lanes_seconds([30.0], 4) == 30.0
    assert kind("pipelines/grpo/dvc.yaml:train@3") == "train" and kind("paper_aer") == "paper_aer"


def test_a_dry_runs_pair_takes_the_budgets_estimate_and_other_units_their_notebooks():
    """make repro DRY=1 and README's Budgets give a pair one time (rlvr_lib.pipeline.budgets); a unit that is no
    pair sums its stages' recorded notebook durations."""
    from conftest import REPO

    from rlvr_lib.pipeline.repro_dry import Durations, budget_pair_seconds, pair_of
    from rlvr_lib.settings.config import load_params

    pair = Unit("opefo seed 2", ("pipelines/opefo/dvc.yaml:train@2", "pipelines/opefo/dvc.yaml:eval@2"))
    study = Unit("study aer_pass_at_k", ("sample_aer_pass_at_k",))
    assert pair_of(pair) == ("opefo", 2) and pair_of(study) is None
    budgets = budget_pair_seconds(REPO)
    assert len(budgets) == sum(len(spec.seeds) for spec in load_params(REPO / "params.yaml").runs.values())

    class Graph:
        notebook = {"sample_aer_pass_at_k": None, "pipelines/opefo/dvc.yaml:train@2": None}

    durations = Durations(Graph(), budgets)
    durations.known = {"sample_aer_pass_at_k": 40.0, "pipelines/opefo/dvc.yaml:train@2": 5.0}
    assert durations.unit(pair) == budgets["opefo", 2] != 5.0
    assert durations.unit(study) == 40.0


def _driven_units(monkeypatch, tmp_path, argv: list[str]) -> list[tuple[str, ...]]:
    """The stages of every unit ``main(argv)`` hands its runner (DVC's status faked: all out of date)."""
    from conftest import REPO

    calls: list[tuple[str, ...]] = []
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(repro_lanes, "LOG_DIR", tmp_path)
    monkeypatch.setattr(repro_lanes.subprocess, "run", lambda *a, **k: calls.append(("final", *a[0])))
    monkeypatch.setattr(repro_lanes, "changed_units", lambda units, **kw: list(units))
    monkeypatch.setattr(repro_lanes, "made_elsewhere", lambda todo, sampling, lineages: (todo, []))
    monkeypatch.setattr(repro_lanes, "stage_lineages", lambda: [])

    def runner(unit):
        calls.append(unit.stages)
        return 0

    monkeypatch.setattr(repro_lanes, "dvc_runner", lambda env: runner)
    assert repro_lanes.main(["--jobs", "1", *argv]) == 0
    return calls


def test_only_the_listed_pairs_their_seeds_base_policies_and_the_named_studies_run(monkeypatch, tmp_path):
    listed = tmp_path / "pairs.txt"
    listed.write_text("# a comment\nerpo_sigma_0_25:3\n\ngrpo:0  # trailing comment\ngrpo:0\n")
    studies = ["--studies", "erpo_perturbation", "testbed_properties"]
    calls = _driven_units(monkeypatch, tmp_path, ["--pairs-file", str(listed), *studies])
    data = [("check_params", "data")]
    base = [u.stages for u in seed_units([0, 3])]
    pairs = [u.stages for u in pair_units({"erpo_sigma_0_25": [3], "grpo": [0]})]
    studied = [("sample_erpo_perturbation",), ("testbed_properties",)]
    assert calls == [*data, *base, *pairs, *studied]  # no paper stage, no final dvc repro
    calls = _driven_units(monkeypatch, tmp_path, ["--only", "grpo:4"])
    assert calls == [*data, *(u.stages for u in seed_units([4])), *(u.stages for u in pair_units({"grpo": [4]}))]


def test_tuning_runs_every_configuration_and_seed_once_longest_arm_first(monkeypatch, tmp_path, capsys):
    from conftest import REPO

    from rlvr_lib.pipeline import budgets, tune_dvc
    from rlvr_lib.pipeline.tuning_stages import space_of
    from rlvr_lib.settings.config import load_params

    written = []
    monkeypatch.setattr(tune_dvc, "write", lambda root: written.append(root) or [])  # not into the repository
    calls = _driven_units(monkeypatch, tmp_path, ["--tuning"])
    space, _ = space_of(load_params(REPO / "params.yaml"), str(REPO / "params.yaml"))
    seeds = space.seeds
    assert written and calls[0] == ("check_params", "data", "validation_data")
    assert calls[1 : 1 + len(seeds)] == [u.stages for u in seed_units(seeds)]
    assert calls[1 + len(seeds) : 1 + 2 * len(seeds)] == [(f"pipelines/tune/dvc.yaml:eval_base@{n}",) for n in seeds]
    assert calls[-1] == ("pipelines/tune/dvc.yaml:select",)
    runs = calls[1 + 2 * len(seeds) : -1]
    expected = {
        (f"pipelines/tune/{c.arm}/dvc.yaml:train_{c.index}@{n}", f"pipelines/tune/{c.arm}/dvc.yaml:eval_{c.index}@{n}")
        for c in space.configs()
        for n in seeds
    }
    assert len(runs) == len(expected) and set(runs) == expected  # each once, nothing else (no final repro)
    host = budgets.rates(REPO, budgets.load(REPO), [(a, n) for a in space.arms for n in seeds]).host
    cost = [sum(host[(stages[0].split("/")[2], n)] for n in seeds) for stages in runs]
    assert cost == sorted(cost, reverse=True)
    listed = tmp_path / "todo.txt"
    listed.write_text("tune__grpo__4:1\ntune__aer__0:0\n")  # a host's share: these alone, still longest first
    calls = _driven_units(monkeypatch, tmp_path, ["--tuning", "--pairs-file", str(listed)])
    first = {"aer": "pipelines/tune/aer/dvc.yaml:train_0@0", "grpo": "pipelines/tune/grpo/dvc.yaml:train_4@1"}
    arm_cost = {arm: sum(host[(arm, n)] for n in seeds) for arm in first}
    assert [c[0] for c in calls[1 + 2 * len(seeds) :]] == [first[a] for a in sorted(first, key=lambda a: -arm_cost[a])]
    # (a host's share: no selection after it)
    listed.write_text("grpo:0\n")  # a protocol run, not a tuning run
    with pytest.raises(SystemExit):
        repro_lanes.main(["--tuning", "--pairs-file", str(listed)])
    assert "unknown run 'grpo'" in capsys.readouterr().err


def test_after_the_deadline_no_unit_starts_and_the_final_repro_waits(monkeypatch, tmp_path):
    assert _driven_units(monkeypatch, tmp_path, ["--only", "grpo:0", "grpo:1", "--deadline", "0"]) == []
    assert _driven_units(monkeypatch, tmp_path, ["--deadline", "0"]) == []  # the whole protocol: no final repro either
    whole = _driven_units(monkeypatch, tmp_path, ["--paper", "opefo"])
    assert whole[-1] == ("final", "dvc", "repro", "--allow-missing", "paper_opefo")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--only", "grpoo:0"], "unknown run 'grpoo'"),
        (["--only", "dapo:9"], "seed '9' is not one of dapo's seeds"),
        (["--only", "grpo:0", "--studies", "nope"], "--studies: unknown nope"),
        (["--studies", "erpo_perturbation"], "--studies goes with --only"),
        (["--only", "grpo:0", "--paper", "aer"], "exclude each other"),
        (["--tuning", "--only", "grpo:0"], "--tuning excludes"),
    ],
)
def test_bad_pair_lists_are_named(monkeypatch, capsys, argv, message):
    from conftest import REPO

    monkeypatch.chdir(REPO)
    with pytest.raises(SystemExit):
        repro_lanes.main(argv)
    assert message in capsys.readouterr().err
