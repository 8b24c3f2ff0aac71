"""Bad input, as a new user writes it: every case fails before any work, with a message naming the offending
key, file or row, and leaves the outputs of earlier runs byte for byte as they were. No training runs here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rlvr_lib import pipeline
from rlvr_lib.config import load_params

OUTPUT_DIRS = ("runs", "reports", "data/generated", "models/base")


def snapshot(root: Path) -> dict[str, str]:
    """sha256 and mtime of every file under the stage output folders."""
    out = {}
    for folder in OUTPUT_DIRS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file():
                out[str(path.relative_to(root))] = (
                    f"{hashlib.sha256(path.read_bytes()).hexdigest()}:{path.stat().st_mtime_ns}"
                )
    return out


@pytest.fixture
def repo(light_workspace):
    """The workspace with earlier outputs of a run 'grpo' in place (stand-ins: the checks must fail first)."""
    for rel, text in {
        "runs/grpo/seed0/final/config.json": "{}",
        "reports/training/grpo/seed0/metrics.json": "{}",
        "reports/training/grpo/seed0/history.json": "[]",
        "reports/eval/grpo/seed0/results.json": "{}",
        "reports/metrics/grpo/seed0.json": "{}",
    }.items():
        (light_workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (light_workspace / rel).write_text(text)
    return light_workspace


TRAIN = {
    "max_steps": 4,
    "prompts_per_step": 2,
    "num_generations": 4,
    "max_completion_length": 48,
    "learning_rate": 1e-3,
}

# (sections of params.yaml to overlay, text that the error must contain)
PARAMS_CASES = {
    "learning rate not a number": (
        {"train": {**TRAIN, "learning_rate": "abc"}},
        "train.learning_rate must be a number",
    ),
    "bool as learning rate": ({"train": {**TRAIN, "learning_rate": True}}, "train.learning_rate must be a number"),
    "negative learning rate": ({"train": {**TRAIN, "learning_rate": -1.0}}, "train.learning_rate must be > 0"),
    "accumulation not dividing": (
        {"train": {**TRAIN, "gradient_accumulation_steps": 3}},
        "train.gradient_accumulation_steps (3) must divide",
    ),
    "partial groups": (
        {"train": {**TRAIN, "prompts_per_step": 1, "gradient_accumulation_steps": 4, "steps_per_generation": 2}},
        "train.steps_per_generation gives a rollout batch of 2",
    ),
    "zero steps per generation": (
        {"train": {**TRAIN, "steps_per_generation": 0}},
        "train.steps_per_generation must be > 0",
    ),
    "unknown scheduler": ({"train": {**TRAIN, "lr_scheduler_type": "bogus"}}, "train.lr_scheduler_type must be one of"),
    "scale_rewards as a string": ({"methods": {"grpo": {"scale_rewards": "false"}}}, "methods.grpo.scale_rewards"),
    "negative lora rank": ({"train": {**TRAIN, "lora_r": -1}}, "train.lora_r must be >= 0"),
    "negative save steps": ({"train": {**TRAIN, "save_steps": -5}}, "train.save_steps must be >= 0"),
    "no evaluation problems": ({"data": {"testbed": {"n_eval": 0}}}, "data.testbed.n_eval must be > 0"),
    "no training problems": ({"data": {"testbed": {"n_train": 0}}}, "data.testbed.n_train must be > 0"),
    "unknown testbed level": (
        {"data": {"testbed": {"levels": [1, 9]}}},
        "data.testbed.levels has unknown level(s) [9]",
    ),
    "level not an integer": ({"data": {"testbed": {"levels": ["one"]}}}, "data.testbed.levels[0] must be an integer"),
    "eval n as a string": ({"eval": {"n": "4"}}, "eval.n must be an integer, got '4'"),
    "eval n_boot zero": ({"eval": {"n_boot": 0}}, "eval.n_boot must be > 0"),
    "eval ks beyond n": ({"eval": {"n": 4, "ks": [8]}}, "eval.ks must be a non-empty list in [1, n=4]"),
    "eval top_p above one": ({"eval": {"top_p": 1.5}}, "eval.top_p must lie in (0, 1]"),
    "seed as a string": ({"seed": "abc"}, "seed must be an integer, got 'abc'"),
    "aer tau as a string": ({"methods": {"aer": {"tau": "0.5"}}}, "methods.aer.tau"),
    "misspelled top-level key": ({"trian": {"max_steps": 3}}, "unknown key(s) ['trian']"),
    "misspelled train key": ({"train": {**TRAIN, "max_step": 3}}, "unknown key(s) ['train.max_step']"),
    "unknown method": ({"methods": {"grpo2": {}}}, "methods.grpo2: unknown method 'grpo2'"),
    "unknown hyperparameter": ({"methods": {"grpo": {"eps": 0.1}}}, "unknown key(s) ['methods.grpo.eps']"),
    "run train override bad": ({"methods": {"x": {"method": "dapo", "train": {"top_p": 2}}}}, "methods.x.train.top_p"),
    "run name with a slash": ({"methods": {"a/b": {"method": "grpo"}}}, "methods.a/b: a run name uses letters"),
    "run entry not a mapping": ({"methods": {"grpo": 3}}, "methods.grpo must be a mapping"),
    "empty methods": ({"methods": {}}, "params 'methods' must map run names"),
    "seed not in seeds": (
        {"seeds": [1, 2]},
        "seed 0 is not one of methods.grpo.seeds (default: the top-level seeds) in params.yaml: [1, 2]",
    ),
    "duplicate seeds": ({"seeds": [0, 0]}, "seeds must be a non-empty list of distinct integers"),
    "seeds in the smoke profile": ({"smoke": {"seeds": [0]}}, "smoke.seeds: seeds define dvc.yaml's stages"),
    "unknown profile": ({"profile": "fast"}, "profile must be one of ['default', 'smoke']"),
    "unknown data source": ({"data": {"source": "hub"}}, "data.source must be one of ['testbed', 'files']"),
    "benchmarks empty": ({"data": {"benchmarks": []}}, "data.benchmarks must name at least one"),
    "model testbed heads": (
        {"model": {"testbed": {"hidden_size": 30, "num_heads": 4}}},
        "model.testbed.hidden_size (30) must be divisible by num_heads (4)",
    ),
    "slip rate one": ({"model": {"testbed": {"slip_rate": 1.0}}}, "model.testbed.slip_rate must lie in [0, 1)"),
    "warm-up with constant schedule": ({"train": {**TRAIN, "warmup_steps": 5}}, "train.warmup_steps is ignored"),
    "temperature zero": ({"train": {**TRAIN, "temperature": 0}}, "train.temperature must be > 0"),
    "one generation": ({"train": {**TRAIN, "num_generations": 1}}, "train.num_generations must be >= 2"),
    "section not a mapping": ({"eval": [1, 2]}, "eval must be a mapping, got [1, 2]"),
    "unknown training set": (
        {"methods": {"grpo": {"train_data": "math35"}}},
        "methods.grpo.train_data: unknown training set 'math35'",
    ),
    "training set not built": (
        {"methods": {"grpo": {"train_data": "erpo"}}},
        "methods.grpo.train_data: the 'erpo' set is not built; set data_filters.erpo.enabled: true",
    ),
    "filter group of one": ({"data_filters": {"tepo": {"num_generations": 1}}}, "data_filters.tepo.num_generations"),
}


@pytest.mark.parametrize("sections, message", list(PARAMS_CASES.values()), ids=list(PARAMS_CASES))
def test_bad_params_are_named_and_touch_nothing(repo, set_params, sections, message):
    set_params(**sections)
    before = snapshot(repo)
    with pytest.raises(ValueError) as err:
        pipeline.stage_train(pipeline.enter_repo(), "grpo", 0)
    assert message in str(err.value)
    assert snapshot(repo) == before


def test_hand_written_exponent_is_a_float_not_an_error(repo):
    (repo / "params.yaml").write_text(
        (repo / "params.yaml").read_text().replace("learning_rate: 0.001", "learning_rate: 1e-4")
    )
    assert load_params().train.learning_rate == 1e-4


def test_params_file_not_yaml(repo):
    (repo / "params.yaml").write_text("train: {max_steps: [1, 2\n")
    with pytest.raises(ValueError, match=r"params.yaml: not valid YAML"):
        load_params()


def test_params_file_not_utf8(repo):
    (repo / "params.yaml").write_bytes(b"seed: 0\nprofile: \xff\xfe\n")
    with pytest.raises(ValueError, match=r"params.yaml: not UTF-8"):
        load_params()


def train_stage_fails(repo, exc, message):
    before = snapshot(repo)
    with pytest.raises(exc) as err:
        pipeline.stage_train(pipeline.enter_repo(), "grpo")
    assert message in str(err.value)
    assert snapshot(repo) == before


def test_empty_model_folder(repo, set_params, tmp_path):
    (tmp_path / "empty").mkdir()
    set_params(model={"path": str(tmp_path / "empty")})
    train_stage_fails(repo, FileNotFoundError, f"model folder {tmp_path / 'empty'} lacks config.json")


def test_model_folder_without_weights(repo, set_params, tmp_path):
    folder = tmp_path / "half"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        (folder / name).write_bytes((repo / "models/base/seed0" / name).read_bytes())
    set_params(model={"path": str(folder)})
    train_stage_fails(repo, FileNotFoundError, "lacks weights")


def test_missing_model_folder(repo, set_params, tmp_path):
    set_params(model={"path": str(tmp_path / "nowhere")})
    train_stage_fails(repo, FileNotFoundError, "does not exist")


def corrupt_train_file(repo, text: bytes) -> None:
    (repo / "data/generated/train.jsonl").write_bytes(text)


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"prompt": "1+1", "answer": "2"}\n{"prompt": "2+2", "ans', "train.jsonl:2: not valid JSON"),
        (b'{"prompt": "1+1", "answer": "2"}\n{"prompt": "2+2"}\n', "train.jsonl:2: row lacks field 'answer'"),
        (
            b'{"prompt": "1+1", "answer": "2"}\n\n{"prompt": "", "answer": "4"}\n',
            "train.jsonl:3: field 'prompt' is empty",
        ),
        (b'{"prompt": "1+1", "answer": "2"}\n["a list"]\n', "train.jsonl:2: expected a JSON object"),
        (b'{"prompt": "1+1", "answer": "2"}\n{"prompt": "\xff", "answer": "4"}\n', "train.jsonl:2: not UTF-8"),
        (b"", "train.jsonl: no problems in the file"),
    ],
    ids=["truncated line", "missing answer", "empty prompt", "not an object", "not utf-8", "empty file"],
)
def test_bad_training_data_names_file_and_row(repo, content, message):
    corrupt_train_file(repo, content)
    train_stage_fails(repo, ValueError, message)


def test_training_set_smaller_than_a_rollout_batch(repo, set_params):
    corrupt_train_file(repo, b'{"prompt": "1+1", "answer": "2"}\n')
    set_params(train={**TRAIN, "steps_per_generation": 2})
    train_stage_fails(repo, ValueError, "holds 1 problems, fewer than one rollout batch of 4 prompts")


def test_missing_training_data(repo):
    (repo / "data/generated/train.jsonl").unlink()
    train_stage_fails(repo, FileNotFoundError, "run the data stage first")


def test_missing_filtered_set_says_which_stage_to_run(repo, set_params):
    set_params(methods={"grpo": {"train_data": "tepo"}}, data_filters={"tepo": {"enabled": True}})
    train_stage_fails(
        repo, FileNotFoundError, "data/filtered/seed0/tepo.jsonl not found: run the filter_data@0 stage first"
    )


def test_empty_benchmark_file_named_before_sampling(repo):
    (repo / "data/generated/eval_testbed.jsonl").write_text("")
    before = snapshot(repo)
    with pytest.raises(ValueError, match="eval_testbed.jsonl: no problems in the file"):
        pipeline.stage_eval(pipeline.enter_repo(), "base")
    assert snapshot(repo) == before


def test_empty_data_set_rejected_at_the_data_stage(repo, set_params):
    set_params(
        data={"source": "files", "train_set": "gsm8k", "benchmarks": ["math500"], "max_eval": 2, "train_levels": [3]}
    )  # gsm8k has no MATH levels: nothing is left
    before = snapshot(repo)
    with pytest.raises(ValueError, match="level"):
        pipeline.stage_data(pipeline.enter_repo())
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    "run, message",
    [
        ("nosuchrun", "run 'nosuchrun' is not an entry of params.yaml 'methods'; runs: grpo"),
    ],
)
def test_unknown_run_is_named_with_the_valid_ones(repo, run, message):
    params = pipeline.enter_repo()
    for stage in (pipeline.stage_train, pipeline.stage_eval):
        with pytest.raises(ValueError) as err:
            stage(params, run)
        assert message in str(err.value)


def test_untrained_run_says_which_stage_to_run(repo, set_params):
    set_params(methods={"grpo": {}, "dapo": {}})
    with pytest.raises(FileNotFoundError, match=r"run `dvc repro train@dapo-0` first"):
        pipeline.stage_eval(pipeline.enter_repo(), "dapo")


def test_report_refuses_evaluations_with_other_settings(repo):
    params = pipeline.enter_repo()
    settings = {"n": 99, "temperature": 1.0, "top_p": 1.0, "max_new_tokens": 48, "seed": 0}
    for run in ("base", "grpo"):
        path = repo / "reports/eval" / run / "seed0" / "results.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"testbed": {"settings": settings}}))
    with pytest.raises(
        ValueError,
        match=r"reports/eval/base/seed0/results.json \(testbed\) was evaluated with other "
        r"settings.*n=99 \(params: 2\).*dvc repro eval_base@0",
    ):
        pipeline.stage_report(params)
