"""Issue 41's tuned protocol, from planted tuning results (no training): the ``select`` stage writes
reports/tuning/selection.json (validation only, unhealthy winners skipped), the tuned runs carry the selected settings
and their arms' seeds, their generated DVC stages name the selection file, an arm whose selection has its committed
run's settings is not retrained, and a missing or wrong selection file is an error naming the file and field."""

from __future__ import annotations

import copy
import json
import re

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import repro_lanes, tune_dry, tune_dvc
from rlvr_lib.pipeline.tune_select import stage_tune_select
from rlvr_lib.pipeline.tuned_stages import selections, tuned_params
from rlvr_lib.settings.config import read_yaml
from rlvr_lib.settings.papers import decodings_for_run
from rlvr_lib.tuning.selection_file import SELECTION_FILE
from rlvr_lib.tuning.space import RUN_PREFIX, parse_space
from rlvr_lib.tuning.tuned import tuned_name
from rlvr_lib.workspace.layout import load_params

# two arms, each grid learning rate (slowest) x max_grad_norm / sigma_target, configuration 4 the literal;
# erpo_erpo_data (ERPO's headline run) is also evaluated at ERPO's own decoding
ARMS = ["grpo", "erpo_erpo_data"]
PROBLEMS = 12
BASE_C = 4  # the base policy: 4 of 16 correct on every problem (mean 0.25)
# (arm, configuration) -> its per-seed validation mean (seed 0, seed 1); every other configuration: 0.30
PLANTED = {
    ("grpo", 4): (0.40, 0.41),  # the literal
    ("grpo", 5): (0.60, 0.62),  # the validation winner
    ("grpo", 7): (0.31, 0.32),  # the winner on the evaluation split (planted under reports/eval below)
    ("erpo_erpo_data", 8): (0.80, 0.82),  # the highest validation mean, but its rollout entropy explodes in seed 1
    ("erpo_erpo_data", 2): (0.55, 0.57),  # the best healthy configuration
    ("erpo_erpo_data", 0): (0.00, 0.00),  # below its base policy in both seeds
}
EXPLODES = {("erpo_erpo_data", 8, 1)}


def _results(mean: float) -> dict:
    """A validation results.json whose per-problem correct counts (of 16) average ``mean``, to the nearest count."""
    total = round(mean * 16 * PROBLEMS)
    counts = [total // PROBLEMS + (i < total % PROBLEMS) for i in range(PROBLEMS)]
    return {"validation": {"per_problem": [{"uid": f"v{i}", "c": c, "n": 16} for i, c in enumerate(counts)]}}


def _write(path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def plant(root, planted=PLANTED, explodes=EXPLODES) -> None:
    for seed in (0, 1):
        base = {
            "validation": {"per_problem": [{"uid": f"v{i}", "c": BASE_C + i % 2, "n": 16} for i in range(PROBLEMS)]}
        }
        _write(root / f"reports/tuning/base/seed{seed}/results.json", base)
        for arm in ARMS:
            for k in range(9):
                mean = planted.get((arm, k), (0.30, 0.30))[seed]
                _write(root / f"reports/tuning/{arm}/{k}/seed{seed}/results.json", _results(mean))
                peak = 3.0 if (arm, k, seed) in explodes else 1.0
                history = [{"step": s, "entropy/mean": 0.5 * (peak if s > 12 else 1.0)} for s in range(1, 25)]
                _write(root / f"reports/training/{RUN_PREFIX}{arm}__{k}/seed{seed}/history.json", history)
    # the evaluation split: configuration 7 of grpo far ahead there; the select stage never reads it
    for name in (f"{RUN_PREFIX}grpo__7", "grpo"):
        _write(root / f"reports/eval/{name}/seed0/results.json", {"eval_testbed": {"per_problem": []}, "mean": 0.99})


@pytest.fixture(scope="module")
def committed_space():
    params = load_params(REPO / "params.yaml")
    return parse_space(read_yaml(REPO / "params.yaml"), params)


@pytest.fixture()
def root(tmp_path):
    raw = read_yaml(REPO / "params.yaml")
    raw["tuning"]["arms"] = {arm: raw["tuning"]["arms"][arm] for arm in ARMS}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    plant(tmp_path)
    return tmp_path


def select_in(root):
    params = load_params(root / "params.yaml")
    return params, stage_tune_select(params, root)


def test_select_stage_writes_the_expected_winners(root):
    _, runs = select_in(root)
    written = json.loads((root / SELECTION_FILE).read_text())
    grpo, erpo = written["arms"]["grpo"], written["arms"]["erpo_erpo_data"]
    assert (grpo["config"], grpo["literal"], grpo["literal_kept"]) == (5, 4, False)  # not 7, the evaluation winner
    assert grpo["settings"] == {"train.learning_rate": 1.0e-4, "train.max_grad_norm": 3.0}
    assert erpo["config"] == 2 and erpo["settings"] == {"train.learning_rate": 3.0e-5, "sigma_target": 4.0}
    assert "rollout entropy peaked" in erpo["configs"][8]["seeds"]["1"]["health"]  # 8 skipped: unhealthy
    assert "below its base policy" in erpo["configs"][0]["seeds"]["0"]["health"]
    assert (
        runs
        == {"grpo": "tuned__grpo", "erpo_erpo_data": "tuned__erpo_erpo_data"}
        == {a: written["arms"][a]["run"] for a in ARMS}
    )
    readme = (root / "reports/tuning/README.md").read_text()

    def mean(entry, k):
        return f"{entry['configs'][k]['mean']:.3f}"

    assert (
        f"| grpo | {mean(grpo, 0)} | " in readme and f"**{mean(grpo, 5)}**" in readme and f"{mean(grpo, 4)} L" in readme
    )
    assert f"{mean(erpo, 8)} x" in readme and f"{mean(erpo, 0)} x" in readme and f"**{mean(erpo, 2)}**" in readme
    assert "`tuned__erpo_erpo_data`" in readme and "0.99" not in (root / SELECTION_FILE).read_text()


def test_tuned_run_carries_the_selection_and_the_arms_seeds(root):
    params, _ = select_in(root)
    tuned, run = tuned_params(params, "erpo_erpo_data", root)
    spec = tuned.runs[run]
    assert run == "tuned__erpo_erpo_data" and spec.method == "erpo" and spec.hparams["sigma_target"] == 4.0
    assert spec.train.learning_rate == 3.0e-5 and spec.seeds == params.runs["erpo_erpo_data"].seeds == [0, 1, 2, 3, 4]
    assert spec.train_data == params.runs["erpo_erpo_data"].train_data
    # evaluated at the decodings of the papers that read its arm
    assert decodings_for_run(tuned.papers, run) == decodings_for_run(params.papers, "erpo_erpo_data") != []
    assert tuned.runs["erpo_erpo_data"] == params.runs["erpo_erpo_data"]  # the committed run is untouched


def test_generated_stages_name_the_selection(root):
    params, _ = select_in(root)
    assert tune_dvc.write(root, tuned=True) == [f"wrote pipelines/tuned__{arm}/dvc.yaml" for arm in ARMS]
    stages = yaml.safe_load((root / "pipelines/tuned__grpo/dvc.yaml").read_text())["stages"]
    assert list(stages) == ["train", "eval"]
    for kind, stage in stages.items():
        do = stage["do"]
        assert stage["foreach"] == params.runs["grpo"].seeds == [0, 1, 2, 3, 4]
        assert "reports/tuning/selection.json" in do["deps"] and "notebooks/tuned.ipynb" in do["deps"]
        assert (
            f"notebooks/tuned.ipynb reports/notebooks/{kind}_tuned__grpo_seed${{item}}.ipynb -p arm grpo" in do["cmd"]
        )
        assert not any("tuned__" in p for p in do["params"])  # params.yaml has no methods.tuned__grpo
    assert {"methods.grpo", "tuning.arms.grpo"} <= set(stages["train"]["do"]["params"])
    assert {"runs/tuned__grpo/seed${item}": {"persist": True}} in stages["train"]["do"]["outs"]
    assert {"reports/eval/tuned__grpo/seed${item}": tune_dvc.NO_CACHE} in stages["eval"]["do"]["outs"]
    erpo = yaml.safe_load((root / "pipelines/tuned__erpo_erpo_data/dvc.yaml").read_text())["stages"]
    assert "data/filtered/seed${item}" in erpo["train"]["do"]["deps"]  # its arm's training set
    assert "papers.erpo.eval_decoding" in erpo["eval"]["do"]["params"]  # its arm's paper decoding
    assert tune_dvc.differences(root, tuned=True) == []
    # the select stage: every validation evaluation and history in, the selection out
    raw = read_yaml(root / "params.yaml")
    files = tune_dvc.generated_files(params, raw, tune_dvc.parse_space(raw, params))
    select = yaml.safe_load(files[tune_dvc.TUNE_PIPELINES / "dvc.yaml"])["stages"]["select"]
    assert {"reports/tuning/erpo_erpo_data/8/seed1", "reports/tuning/base/seed0"} <= set(select["deps"])
    assert "reports/training/tune__erpo_erpo_data__8/seed1/history.json" in select["deps"]
    assert not any(d.startswith("reports/eval") for d in select["deps"])
    assert select["outs"][0] == {"reports/tuning/selection.json": tune_dvc.NO_CACHE}


def test_lanes_run_the_tuned_pairs(root, monkeypatch):
    params, _ = select_in(root)
    pairs = tune_dry.tuned_pairs(root)
    assert pairs == [f"tuned__grpo:{s}" for s in range(5)] + [f"tuned__erpo_erpo_data:{s}" for s in range(5)]
    with pytest.raises(ValueError, match="unknown run 'tuned__grpo'"):
        repro_lanes.parse_pairs(pairs, repro_lanes.run_seeds(params))
    monkeypatch.chdir(root)  # the lane driver runs in the repository root
    assert repro_lanes.with_tuned_runs(params, ["grpo:0"]) is params  # no tuned pair: the selection is not read
    lanes = repro_lanes.parse_pairs(pairs, repro_lanes.run_seeds(repro_lanes.with_tuned_runs(params, pairs)))
    units = repro_lanes.pair_units(lanes)
    assert units[0].stages == ("pipelines/tuned__grpo/dvc.yaml:train@0", "pipelines/tuned__grpo/dvc.yaml:eval@0")


def test_dry_run_costs_the_selections_tuned_runs(committed_space, monkeypatch):
    # the committed search space (whose pairs docs/budgets.yaml costs), with a selection keeping one arm's literal
    runs = {arm: arm if arm == "erpo_erpo_data" else tuned_name(arm) for arm in committed_space.arms}
    monkeypatch.setattr(tune_dry, "tuned_runs", lambda *args: runs)
    text = tune_dry.plan(REPO)
    assert "tuned protocol (from reports/tuning/selection.json): 26 tuned runs at their arms' seeds = 114 pairs" in text
    assert "\n  erpo_erpo_data: the committed run (its selection has its settings), not retrained\n" in text
    assert "\n  tuned__grpo_erpo_data: seeds [0, 1, 2, 3, 4], 5 pairs, " in text


def test_a_literal_selection_is_not_retrained(root):
    planted = {**PLANTED, ("erpo_erpo_data", 2): (0.30, 0.30), ("erpo_erpo_data", 4): (0.50, 0.52)}
    plant(root, planted)
    params, runs = select_in(root)
    assert runs == {"grpo": "tuned__grpo", "erpo_erpo_data": "erpo_erpo_data"}
    chosen, _ = selections(params, root)
    assert chosen["erpo_erpo_data"].config.literal and chosen["erpo_erpo_data"].run == "erpo_erpo_data"
    with pytest.raises(ValueError, match=r"arms\.erpo_erpo_data\.run is 'erpo_erpo_data'.*no tuned run to train"):
        tuned_params(params, "erpo_erpo_data", root)
    (root / "pipelines/tuned__erpo_erpo_data").mkdir(parents=True)
    (root / "pipelines/tuned__erpo_erpo_data/dvc.yaml").write_text(tune_dvc.HEADER.format(what="x"))
    assert "deleted pipelines/tuned__erpo_erpo_data/ (a tuned run the selection no longer trains)" in tune_dvc.write(
        root, True
    )
    assert tune_dry.tuned_pairs(root) == [f"tuned__grpo:{s}" for s in range(5)]


def _edit(root, change) -> None:
    data = json.loads((root / SELECTION_FILE).read_text())
    change(data)
    (root / SELECTION_FILE).write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["arms"].update(grpo_typo=copy.deepcopy(d["arms"]["grpo"])), r"arms\.grpo_typo: not an arm"),
        (lambda d: d["arms"].pop("erpo_erpo_data"), r"arms: no selection for erpo_erpo_data"),
        (lambda d: d["arms"]["grpo"].update(config=9), r"arms\.grpo\.config: 9 is not a configuration"),
        (lambda d: d["arms"]["grpo"].update(config="5"), r"arms\.grpo\.config: '5'"),
        (lambda d: d["arms"]["grpo"].update(config=6), r"arms\.grpo\.settings: .* not configuration 6"),
        (
            lambda d: d["arms"]["erpo_erpo_data"].update(run="erpo_erpo_data"),
            r"arms\.erpo_erpo_data\.run: 'erpo_erpo_data', where params.yaml now makes",
        ),
    ],
)
def test_a_wrong_selection_names_the_file_and_field(root, change, message):
    params, _ = select_in(root)
    _edit(root, change)
    with pytest.raises(ValueError, match=f"{re.escape(str(root / SELECTION_FILE))}: {message}"):
        tuned_params(params, "grpo", root)


def test_a_missing_selection_names_the_file(root):
    params = load_params(root / "params.yaml")
    with pytest.raises(FileNotFoundError, match=r"reports/tuning/selection\.json not found.*select stage"):
        tuned_params(params, "grpo", root)
    with pytest.raises(FileNotFoundError, match=r"selection\.json not found"):
        tune_dvc.write(root, tuned=True)
    assert tune_dvc.main(["--root", str(root), "--tuned"]) == 2
