"""Issue 41's tuning: the declared search space (equal budget, known settings, literal included), the selection rule
(validation only, healthy only, ties to the literal, no healthy -> literal marked) and the validation split's
disjointness from training, SFT and evaluation by problem content. Fast: no training."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from conftest import REPO

from rlvr_lib.settings.config import read_yaml
from rlvr_lib.tuning import validation
from rlvr_lib.tuning.select import ValidationRow, select
from rlvr_lib.tuning.space import parse_space
from rlvr_lib.workspace.layout import load_params

SEEDS = [0, 1]


@pytest.fixture(scope="module")
def committed():
    return read_yaml(REPO / "params.yaml"), load_params(REPO / "params.yaml")


def space_of(raw, params):
    return parse_space(raw, params)


def test_committed_space_is_equal_and_includes_the_literal(committed):
    space = space_of(*committed)
    summary = ["grpo", "grpo_onpolicy", "dapo", "entropy_reg", "clip_cov", "kl_cov", "gspo", "ent_adv", "erpo"]
    assert set(summary + ["cw_grpo", "tepo", "opefo", "aer", "erpo_erpo_data", "tepo_tepo_data"]) <= set(space.arms)
    for arm, configs in space.arms.items():
        assert len(configs) == space.budget == 9, arm
        assert sum(c.literal for c in configs) == 1, arm
        assert configs[len(configs) // 2].literal, f"{arm}: the literal transfer is the middle of the grid"
    assert "tau" not in {name for c in space.arms["aer"] for name in c.values}  # a claim variable is never tuned


@pytest.mark.parametrize("values", [[3.0e-5, 1.0e-4], [3.0e-5, 1.0e-4, 3.0e-4, 1.0e-3], [3.0e-4, 1.0e-3, 3.0e-3]])
def test_unequal_budget_or_missing_literal_fails_naming_the_arm(committed, values):
    raw, params = copy.deepcopy(committed[0]), committed[1]
    raw["tuning"]["arms"]["erpo"]["train"]["learning_rate"] = values  # 6 or 12 configurations, or no literal 1e-4
    with pytest.raises(ValueError, match=r"tuning\.arms\.erpo"):
        space_of(raw, params)


def test_budget_8_and_10_both_fail(committed):
    raw, params = copy.deepcopy(committed[0]), committed[1]
    arms = raw["tuning"]["arms"]
    arms["dapo"] = {"train": {"learning_rate": [3.0e-5, 1.0e-4]}, "eps_high": [0.2, 0.24, 0.28, 0.36]}  # 8
    arms["erpo"] = {"train": {"learning_rate": [3.0e-5, 1.0e-4]}, "sigma_target": [0.25, 0.5, 1.0, 2.0, 4.0]}  # 10
    with pytest.raises(ValueError) as err:
        space_of(raw, params)
    assert "tuning.arms.dapo has 8" in str(err.value) and "tuning.arms.erpo has 10" in str(err.value)


def test_unknown_setting_and_bad_type_are_named(committed):
    raw, params = copy.deepcopy(committed[0]), committed[1]
    raw["tuning"]["arms"]["erpo"]["sigma_targt"] = raw["tuning"]["arms"]["erpo"].pop("sigma_target")
    with pytest.raises(ValueError, match=r"tuning\.arms\.erpo\.sigma_targt.*did you mean 'sigma_target'"):
        space_of(raw, params)
    raw, params = copy.deepcopy(committed[0]), committed[1]
    raw["tuning"]["arms"]["dapo"]["eps_high"] = [0.24, 0.28, "wide"]
    with pytest.raises(ValueError, match=r"tuning\.arms\.dapo configuration 2 .*eps_high"):
        space_of(raw, params)


def test_configuration_entry_applies_overrides_and_tuning_seeds(committed):
    raw, params = committed
    config = space_of(raw, params).arms["tepo_tepo_data"][8]
    entry = config.entry(raw["methods"], SEEDS)
    assert entry["eps_low"] == entry["eps_high"] == 0.4 and entry["train"]["learning_rate"] == 3.0e-4
    assert entry["train"]["steps_per_generation"] == 4 and entry["train_data"] == "tepo" and entry["seeds"] == SEEDS
    assert raw["methods"]["tepo_tepo_data"].get("eps_low") is None  # the committed entry is untouched


# ----------------------------------------------------------------------------- selection
def rows(arm: str, table: dict[int, tuple[list[float], list[str]]], literal: int = 4) -> list[ValidationRow]:
    return [
        ValidationRow(arm, config, seed, value, health, config == literal)
        for config, (values, healths) in table.items()
        for seed, value, health in zip(SEEDS, values, healths, strict=True)
    ]


OK = ["", ""]


def test_winner_on_validation_not_on_evaluation():
    # configuration 7 is the best on the evaluation split (0.9) but not on validation: never read, never selected
    results = {4: ([0.40, 0.42], [0.50, 0.50]), 5: ([0.60, 0.62], [0.55, 0.55]), 7: ([0.45, 0.47], [0.90, 0.90])}
    validation = {c: (v, OK) for c, (v, _) in results.items()}
    chosen = select(rows("a", validation), SEEDS)["a"]
    assert chosen.config == 5 and not chosen.literal_kept
    assert [f.name for f in dataclasses.fields(ValidationRow)] == [
        "arm", "config", "seed", "validation_mean", "health", "literal"
    ]  # fmt: skip

    @dataclasses.dataclass(frozen=True)
    class WithEvaluation(ValidationRow):
        evaluation_mean: float = 0.0

    with pytest.raises(TypeError, match="ValidationRow only"):
        select([WithEvaluation("a", 7, s, 0.1, "", False, 0.9) for s in SEEDS], SEEDS)


def test_unhealthy_winner_is_skipped():
    table = {4: ([0.40, 0.42], OK), 5: ([0.60, 0.62], OK), 6: ([0.80, 0.82], ["", "rollout entropy peaked at x3"])}
    chosen = select(rows("a", table), SEEDS)["a"]
    assert chosen.config == 5


def test_tie_within_pooled_noise_goes_to_the_literal():
    table = {4: ([0.40, 0.50], OK), 5: ([0.46, 0.52], OK), 6: ([0.30, 0.40], OK)}  # pooled se 0.071 > gap 0.04
    chosen = select(rows("a", table), SEEDS)["a"]
    assert chosen.config == 4 and chosen.literal_kept and not chosen.no_healthy
    table[5] = ([0.60, 0.70], OK)  # gap 0.20 > se
    assert select(rows("a", table), SEEDS)["a"].config == 5


def test_no_healthy_configuration_keeps_the_literal_marked():
    bad = ["mean@n below its base policy", ""]
    table = {4: ([0.1, 0.1], bad), 5: ([0.6, 0.6], bad)}
    chosen = select(rows("a", table), SEEDS)["a"]
    assert chosen.config == 4 and chosen.literal_kept and chosen.no_healthy


def test_a_missing_seed_is_an_error():
    with pytest.raises(ValueError, match="configuration 5: no validation result for seed"):
        select(rows("a", {4: ([0.4, 0.4], OK)}) + [ValidationRow("a", 5, 0, 0.5, "", False)], SEEDS)


# ----------------------------------------------------------------------------- validation split
def split_sets(params):
    from rlvr_lib.testbed import make_splits, to_records

    tb = params.data.testbed
    train, held_out = make_splits(tb.n_train, tb.n_eval, params.testbed_seed, tuple(tb.levels), tb.task)
    sft = [{"prompt": p} for p in validation.sft_prompts(params)]
    return {"train": to_records(train), "eval_testbed": to_records(held_out), "sft": sft}


def test_validation_split_is_disjoint_by_content(committed):
    raw, params = committed
    others = split_sets(params)
    rows = validation.validation_records(params, validation.validation_size(raw), others)
    assert len(rows) == 256 and {r["level"] for r in rows} == set(params.data.testbed.levels)
    assert not validation.overlaps(rows, others)
    assert rows == validation.validation_records(params, 256, others)  # deterministic
    # a planted overlap: a training problem written with other case and spacing (another uid) is found by content
    planted = {
        **others["train"][7],
        "prompt": "  " + others["train"][7]["prompt"].upper().replace(" ", "   "),
        "uid": "x",
    }
    assert f"train: {planted['prompt']!r}" in validation.overlaps([*rows, planted], others)


def test_validation_records_refuse_an_overlap_the_generator_let_through(committed, monkeypatch):
    from rlvr_lib.testbed.problems import Problem

    _, params = committed
    others = split_sets(params)
    leaked = others["eval_testbed"][0]
    problem = Problem("L9-x", leaked["prompt"] + " ", leaked["answer"], leaked["level"], "")
    monkeypatch.setattr(validation, "validation_split", lambda *args: [problem])
    with pytest.raises(ValueError, match="share their content with another split.*eval_testbed"):
        validation.validation_records(params, 1, others)


def test_smoke_profile_and_files_source(committed):
    raw, params = copy.deepcopy(committed[0]), committed[1]
    assert validation.validation_size({**raw, "profile": "smoke"}) == 16
    files = dataclasses.replace(params, data=dataclasses.replace(params.data, source="files"))
    with pytest.raises(ValueError, match="data.source is 'files'"):
        validation.validation_records(files, 16, {})


# ----------------------------------------------------------------------------- stages and the dry run
def test_tuning_dvc_files(committed, tmp_path):
    import yaml

    from rlvr_lib.pipeline import dvc_stages, tune_dvc

    raw, params = committed
    space = space_of(raw, params)
    files = tune_dvc.generated_files(params, raw, space)
    assert len(files) == len(space.arms) + 1
    stages = yaml.safe_load(files[REPO.joinpath("pipelines/tune/erpo_erpo_data/dvc.yaml").relative_to(REPO)])["stages"]
    assert list(stages) == [f"{kind}_{k}" for k in range(9) for kind in ("train", "eval")]
    train, evaluate = stages["train_8"], stages["eval_8"]
    assert train["foreach"] == evaluate["foreach"] == SEEDS
    assert (
        "-p arm erpo_erpo_data -p config 8" in train["do"]["cmd"] and "data/filtered/seed${item}" in train["do"]["deps"]
    )
    assert "data/validation" in evaluate["do"]["deps"] and "data/generated" not in evaluate["do"]["deps"]
    assert list(evaluate["do"]["outs"][0]) == ["reports/tuning/erpo_erpo_data/8/seed${item}"]
    # dvc_stages' clean-up of runs no longer in params.yaml leaves the tuning folder alone
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert dvc_stages.stale_run_folders(tmp_path, {}) == []


def test_tune_dry_lists_every_configuration_and_the_cost(capsys):
    from rlvr_lib.__main__ import main

    assert main(["tune", "--dry", "--root", str(REPO)]) == 0
    out = capsys.readouterr().out
    assert "27 arms x 9 configurations x 2 seeds [0, 1] = 486 (run, seed) pairs" in out
    assert out.count("(literal transfer)") == 27 and "host:" in out and "2-core machine" in out
    assert "  8  train.learning_rate=0.0003, eps_low+eps_high=0.4/0.4" in out
    assert (
        "tuned protocol: 27 arms at their runs' seeds = at most 119 pairs (no reports/tuning/selection.json yet" in out
    )
    assert "  tuned__grpo: seeds [0, 1, 2, 3, 4], 5 pairs, " in out
