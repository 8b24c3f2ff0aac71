"""Bad input, as a new user writes it: every case fails before any work, with a message naming the offending
key, file or row, and leaves the outputs of earlier runs byte for byte as they were. No training runs here."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from rlvr_lib.pipeline import stages
from rlvr_lib.reporting import report_stage
from rlvr_lib.settings.config import load_params
from rlvr_lib.workspace import layout

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
    # issue 21 B: no non-finite or out-of-range number reaches a run
    "learning rate infinite": (
        {"train": {**TRAIN, "learning_rate": float("inf")}},
        "train.learning_rate must be a finite number, got inf",
    ),
    "learning rate beyond the float range": (
        {"train": {**TRAIN, "learning_rate": 10**400}},
        "train.learning_rate must be a finite number",
    ),
    "eval temperature infinite": ({"eval": {"temperature": float("inf")}}, "eval.temperature must be a finite number"),
    "method hyperparameter not a number": (
        {"methods": {"grpo": {"eps_high": float("nan")}}},
        "methods.grpo.eps_high must be a finite number, got nan",
    ),
    "seed beyond numpy's range": ({"seeds": [0, 2**32]}, "seeds[1] must lie in [0, 4294967295] (numpy's seed range)"),
    "negative seed": ({"seed": -1}, "seed must lie in [0, 4294967295] (numpy's seed range), got -1"),
    "absurd eval n": ({"eval": {"n": 10**9}}, "eval.n must be <= 65536 (samples per problem"),
    "absurd bootstrap": ({"eval": {"n_boot": 10**9}}, "eval.n_boot must be <= 1000000 (bootstrap resamples"),
    # D: every section checked by check_params, with its key path
    "measured run unknown": ({"testbed_properties": {"run": "grpoo"}}, "testbed_properties.run: unknown run 'grpoo'"),
    "per-run seed": (
        {"methods": {"grpo": {"train": {"seed": 3}}}},
        "methods.grpo.train.seed: training seeds come from the top-level `seeds`",
    ),
    "shared train seed": ({"train": {**TRAIN, "seed": 3}}, "train.seed: training seeds come from the top-level"),
    "per-benchmark override of no benchmark": (
        {"eval": {"per_benchmark": {"aime24": {"n": 4}}}},
        "eval.per_benchmark.aime24: 'aime24' is not an evaluated benchmark; evaluated: ['testbed']",
    ),
    "smoke section bad under the default profile": (
        {"smoke": {"train": {"learning_rate": -1.0}}},
        "smoke.train.learning_rate must be > 0",
    ),
    "smoke section misspelled": ({"smoke": {"trian": {"max_steps": 2}}}, "unknown key(s) ['smoke.trian']"),
    "vocabulary below the tokenizer's": (
        {"model": {"testbed": {"vocab_size": 100}}},
        "model.testbed.vocab_size must be >= 257, got 100",
    ),
    # J-M: keys YAML reads as numbers or booleans, errors of the smoke profile
    "run name read as a number": ({"methods": {"grpo": {}, 123: {}}}, "methods.123: YAML read this key as the number"),
    "run name read as a boolean": (
        {"methods": {"grpo": {}, False: {}}},
        "methods.False: YAML read this key as the boolean False",
    ),
    "smoke error under the smoke profile": (
        {"profile": "smoke", "smoke": {"eval": {"n": 0}}},
        "smoke.eval.n must be > 0",
    ),
}


@pytest.mark.parametrize("sections, message", list(PARAMS_CASES.values()), ids=list(PARAMS_CASES))
def test_bad_params_are_named_and_touch_nothing(repo, set_params, sections, message):
    set_params(**sections)
    before = snapshot(repo)
    with pytest.raises(ValueError) as err:
        stages.stage_train(layout.enter_repo(), "grpo", 0)
    assert message in str(err.value)
    assert snapshot(repo) == before


def test_hand_written_exponent_is_a_float_not_an_error(repo):
    (repo / "params.yaml").write_text(
        (repo / "params.yaml").read_text().replace("learning_rate: 0.001", "learning_rate: 1e-4")
    )
    assert load_params().train.learning_rate == 1e-4


def params_text_fails(repo, text: str, message: str) -> None:
    """params.yaml written as ``text`` stops the train stage with ``message``, outputs untouched."""
    (repo / "params.yaml").write_text(text)
    before = snapshot(repo)
    with pytest.raises(ValueError) as err:
        stages.stage_train(layout.enter_repo(), "grpo", 0)
    assert message in str(err.value)
    assert snapshot(repo) == before


def test_duplicate_section_named_with_both_lines(repo):
    """Issue 21 C: PyYAML keeps the last of two `train:` sections (DVC rejects the file); we name both lines."""
    lines = (repo / "params.yaml").read_text().splitlines()
    first = next(i for i, line in enumerate(lines, start=1) if line.startswith("train:"))
    text = "\n".join([*lines, "train:", "  max_steps: 2", ""])
    params_text_fails(repo, text, f"params.yaml: duplicate key 'train' at lines {first} and {len(lines) + 1}")


def test_duplicate_nested_key_named_with_both_lines(repo):
    text = (repo / "params.yaml").read_text().replace("  max_steps: 4\n", "  max_steps: 4\n  max_steps: 8\n")
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if t == "  max_steps: 4")
    params_text_fails(repo, text, f"params.yaml: duplicate key 'max_steps' at lines {line} and {line + 1}")


def test_run_named_no_is_named_not_a_type_error(repo):
    """Issue 21 J: `no:` is a boolean to YAML 1.1; the error names the key instead of a TypeError in sorted()."""
    text = (repo / "params.yaml").read_text().replace("  grpo: {}\n", "  grpo: {}\n  no: {}\n  123: {}\n")
    params_text_fails(repo, text, "methods.False: YAML read this key as the boolean False, not a name")


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "params.yaml: the file is empty; it must map the settings' sections"),
        ("# only a comment\n", "params.yaml: the file is empty"),
        ("- seeds\n- methods\n", "params.yaml: expected a mapping of settings at the top level, got a list"),
        ("seeds: [0]\nmethods: [grpo]\n", "methods must be a mapping, got ['grpo'] (list)"),
    ],
    ids=["empty", "comment only", "a list", "methods a list"],
)
def test_empty_or_misshapen_params_file(repo, text, message):
    """Issue 21 L: the library's message (DVC would stop earlier, at dvc.yaml's ${methods}: `make repro` and the
    README run check-params first)."""
    params_text_fails(repo, text, message)


def test_check_params_of_another_file_leaves_the_pipeline_record(repo, tmp_path, capsys):
    """Issue 21 M: checking configs/<paper>.yaml must not rewrite reports/params_check.txt (a dvc.yaml output)."""
    from rlvr_lib.__main__ import main

    record = repo / "reports/params_check.txt"
    record.write_text("params.yaml: valid\n")
    other = tmp_path / "other.yaml"
    other.write_text((repo / "params.yaml").read_text())
    before = snapshot(repo)
    assert main(["check-params", "--params", str(other)]) == 0
    assert snapshot(repo) == before
    assert capsys.readouterr().out == f"{other}: valid\n"
    assert main(["check-params", "--params", str(other), "--out", str(tmp_path / "record.txt")]) == 0
    assert (tmp_path / "record.txt").read_text() == f"{other}: valid\n" and snapshot(repo) == before
    other.write_text("train: {learning_rate: .inf}\n")
    assert main(["check-params", "--params", str(other)]) == 2
    assert "train.learning_rate must be a finite number" in capsys.readouterr().err
    assert snapshot(repo) == before


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
        stages.stage_train(layout.enter_repo(), "grpo")
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
        (
            b'{"prompt": "1+1", "answer": "2"}\n{"prompt": "2+2", "answer": ["4"]}\n',
            "train.jsonl:2: field 'answer' must be a string, got ['4'] (list)",
        ),
        (
            b'{"prompt": "1+1", "answer": "2"}\n{"prompt": "2+2", "answer": "\\\\frac{4"}\n',
            "train.jsonl:2: field 'answer' '\\\\frac{4' has unbalanced braces",
        ),
        (
            b'{"prompt": "1+1", "answer": "2^{2^{2^{2}}}"}\n',
            "train.jsonl:1: field 'answer' '2^{2^{2^{2}}}' is rejected by the grader (power tower): every response "
            "would score 0",
        ),
        (
            b'{"prompt": "1+1", "answer": "2"}\n{"prompt": "2+2", "answer": "\\\\text{}"}\n',
            "train.jsonl:2: field 'answer' '\\\\text{}' cannot be parsed by math-verify: every response would score 0",
        ),
        (b'{"prompt": 5, "answer": "2"}\n', "train.jsonl:1: field 'prompt' must be a string, got int"),
    ],
    ids=[
        "truncated line",
        "missing answer",
        "empty prompt",
        "not an object",
        "not utf-8",
        "empty file",
        "answer a list",
        "answer unbalanced",
        "answer the grader rejects",
        "answer math-verify cannot parse",
        "prompt a number",
    ],
)
def test_bad_training_data_names_file_and_row(repo, content, message):
    corrupt_train_file(repo, content)
    train_stage_fails(repo, ValueError, message)


def test_prompt_beyond_the_context_named_before_training(repo):
    """Issue 21 F: the tiny model has 128 positions; a prompt of 200 tokens would train with garbage positions."""
    long_prompt = json.dumps({"prompt": "1+" * 100, "answer": "2"}).encode()
    corrupt_train_file(repo, b'{"prompt": "1+1", "answer": "2"}\n' + long_prompt + b"\n")
    train_stage_fails(
        repo,
        ValueError,
        "train.jsonl:2: field 'prompt' has 200 tokens; with train.max_completion_length = 48 the model's context "
        "of 128 positions",
    )


def test_prompt_beyond_the_context_named_before_evaluation(repo):
    (repo / "data/generated/eval_testbed.jsonl").write_text(json.dumps({"prompt": "1+" * 100, "answer": "2"}) + "\n")
    before = snapshot(repo)
    with pytest.raises(ValueError, match=r"eval_testbed.jsonl:1: field 'prompt' has 200 tokens; with eval.max_new_tok"):
        stages.stage_eval(layout.enter_repo(), "base")
    assert snapshot(repo) == before


def test_data_stage_rejects_an_answer_the_grader_cannot_score(repo, monkeypatch):
    """Issue 21 F at the data stage: every written set is checked before data/generated is replaced."""
    from rlvr_lib import testbed

    def with_bad_answer(problems):
        rows = [{"prompt": p.prompt, "answer": p.answer, "level": p.level, "uid": p.uid} for p in problems]
        rows[1]["answer"] = [rows[1]["answer"]]
        return rows

    monkeypatch.setattr(testbed, "to_records", with_bad_answer)
    before = snapshot(repo)
    with pytest.raises(ValueError, match=r"data stage: the 'train' set, problem \S+: field 'answer' must be a string"):
        stages.stage_data(layout.enter_repo())
    assert snapshot(repo) == before


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
        stages.stage_eval(layout.enter_repo(), "base")
    assert snapshot(repo) == before


def stage_fails_naming(repo, stage, exc, *messages):
    """``stage()`` raises ``exc`` whose message holds each of ``messages``; no output changed."""
    before = snapshot(repo)
    with pytest.raises(exc) as err:
        stage()
    for message in messages:
        assert message in str(err.value)
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    "content, messages",
    [
        ('{"testbed": {"settings": {"n": 2, "tempe', ["reports/eval/grpo/seed0/results.json:1:35: not valid JSON"]),
        ("[1, 2]", ["reports/eval/grpo/seed0/results.json: expected a JSON object (a mapping), got a JSON array"]),
        ('{"testbed": [1]}', ["reports/eval/grpo/seed0/results.json: field 'testbed'", "must be a JSON object"]),
    ],
    ids=["truncated", "a list", "a list inside"],
)
def test_corrupt_results_file_is_named(repo, content, messages):
    (repo / "reports/eval/base/seed0").mkdir(parents=True)
    (repo / "reports/eval/base/seed0/results.json").write_text("{}")
    (repo / "reports/eval/grpo/seed0/results.json").write_text(content)
    params = layout.enter_repo()
    stage_fails_naming(
        repo,
        lambda: report_stage.stage_report(params),
        ValueError,
        *messages,
        "dvc repro -f pipelines/grpo/dvc.yaml:eval@0",
    )


@pytest.mark.parametrize(
    "content, message",
    [
        ('[{"step": 1, "loss": 0.5}, {"step": 2, "lo', "reports/training/grpo/seed0/history.json:1:40: not valid JSON"),
        ('{"step": 1}', "reports/training/grpo/seed0/history.json: expected a JSON array (a list), got a JSON object"),
    ],
    ids=["truncated", "a mapping"],
)
def test_corrupt_history_file_is_named(repo, content, message):
    (repo / "reports/eval/base/seed0").mkdir(parents=True)
    (repo / "reports/eval/base/seed0/results.json").write_text("{}")
    (repo / "reports/training/grpo/seed0/history.json").write_text(content)
    params = layout.enter_repo()
    stage_fails_naming(repo, lambda: report_stage.stage_report(params), ValueError, message)


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def test_truncated_trained_model_is_named_with_the_stage_to_rerun(repo):
    final = repo / "runs/grpo/seed0/final"
    for source in (repo / "models/base/seed0").iterdir():
        (final / source.name).write_bytes(source.read_bytes())
    truncate(final / "model.safetensors")
    params = layout.enter_repo()
    stage_fails_naming(
        repo,
        lambda: stages.stage_eval(params, "grpo"),
        ValueError,
        "runs/grpo/seed0/final/model.safetensors: not a complete safetensors file",
        "rerun its train stage (`dvc repro -f pipelines/grpo/dvc.yaml:train@0`)",
    )


def test_truncated_base_model_is_named_with_the_stage_to_rerun(repo):
    truncate(repo / "models/base/seed0/model.safetensors")
    params = layout.enter_repo()
    stage_fails_naming(
        repo,
        lambda: stages.stage_train(params, "grpo", 0),
        ValueError,
        "models/base/seed0/model.safetensors: not a complete safetensors file",
        "`dvc repro -f base_model@0`",
    )


def test_empty_data_set_rejected_at_the_data_stage(repo, set_params):
    set_params(
        data={"source": "files", "train_set": "gsm8k", "benchmarks": ["math500"], "max_eval": 2, "train_levels": [3]}
    )  # gsm8k has no MATH levels: nothing is left
    before = snapshot(repo)
    with pytest.raises(ValueError, match="level"):
        stages.stage_data(layout.enter_repo())
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    "run, message",
    [
        ("nosuchrun", "run 'nosuchrun' is not an entry of params.yaml 'methods'; runs: grpo"),
    ],
)
def test_unknown_run_is_named_with_the_valid_ones(repo, run, message):
    params = layout.enter_repo()
    for stage in (stages.stage_train, stages.stage_eval):
        with pytest.raises(ValueError) as err:
            stage(params, run)
        assert message in str(err.value)


def test_untrained_run_says_which_stage_to_run(repo, set_params):
    set_params(methods={"grpo": {}, "dapo": {}})
    with pytest.raises(FileNotFoundError, match=r"run `dvc repro pipelines/dapo/dvc.yaml:train@0` first"):
        stages.stage_eval(layout.enter_repo(), "dapo")


def test_report_refuses_evaluations_with_other_settings(repo):
    params = layout.enter_repo()
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
        report_stage.stage_report(params)


# ----------------------------------------------------------------------------- the command line (issue 38, item 5)
def cli(args: list[str], cwd: Path, **env_vars: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", **env_vars}
    return subprocess.run(
        [sys.executable, "-m", "rlvr_lib", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def one_error_line(done: subprocess.CompletedProcess, *expected: str) -> str:
    """The run ended with exit status 2 and one ``error: ...`` line, the last of stderr, holding ``expected``; no
    traceback."""
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out[-3000:]
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert done.returncode == 2 and len(errors) == 1 and done.stderr.strip().splitlines()[-1] == errors[0], out[-3000:]
    for text in expected:
        assert text in errors[0], errors[0]
    return errors[0]


def bad_profile(tmp_path: Path, case: str) -> Path:
    """A copy of configs/aer.yaml as a hand edit leaves it: a list left open (malformed YAML) or a misspelt key."""
    text = (REPO / "configs/aer.yaml").read_text(encoding="utf-8")
    assert "\ntrain:\n" in text
    edit = "  max_steps: [1, 2\n" if case == "malformed" else "  max_stepz: 2\n"
    path = tmp_path / "configs" / "aer.yaml"
    path.parent.mkdir()
    path.write_text(text.replace("\ntrain:\n", "\ntrain:\n" + edit, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "case, expected",
    [
        ("malformed", ["not valid YAML at line", "expected ',' or ']'"]),
        ("unknown key", ["unknown key(s) ['train.max_stepz']"]),
        ("missing file", ["not found"]),
    ],
)
def test_memory_probe_names_bad_input_in_one_error_line(tmp_path, case, expected):
    """Issue 38 item 5: `memory-probe` was handed off before the block that turns errors into one line, so a
    malformed profile ended in a traceback."""
    path = bad_profile(tmp_path, case) if case != "missing file" else tmp_path / "configs/nosuch.yaml"
    done = cli(["memory-probe", "--params", str(path), "--estimate-only"], cwd=tmp_path)
    one_error_line(done, *expected, *([str(path)] if case != "unknown key" else []))


def test_train_names_a_malformed_profile_in_one_error_line(tmp_path):
    path = bad_profile(tmp_path, "malformed")
    (tmp_path / "params.yaml").write_text((REPO / "params.yaml").read_text())  # the repository root for enter_repo
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    one_error_line(cli(["train", "aer", "--params", "configs/aer.yaml"], cwd=tmp_path), str(path.relative_to(tmp_path)))
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing written


def test_qwen_tokenizer_names_a_missing_ranks_file(tmp_path, capsys):
    from rlvr_lib.__main__ import main

    assert main(["qwen-tokenizer", str(tmp_path / "out"), "--tiktoken", str(tmp_path / "none.tiktoken")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: tiktoken file not found: ") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("cache", ["empty", "without weights"])
def test_train_names_a_hub_model_missing_offline(tmp_path, cache):
    """Issue 38 item 5: `python -m rlvr_lib train erpo --params configs/erpo.yaml` with no model files ended in
    transformers' OSError traceback. Offline (HF_HUB_OFFLINE=1, as the Makefile sets) the hub id is looked up in the
    Hugging Face cache first: one error line names it, the params key and how to get it; nothing is written."""
    import yaml

    profile = tmp_path / "configs/erpo.yaml"
    profile.parent.mkdir()
    text = (REPO / "configs/erpo.yaml").read_text(encoding="utf-8")
    model = yaml.safe_load(text)["model"]["path"]
    assert not Path(model).exists() and model.count("/") == 1  # a hub id
    profile.write_text(text.replace("bf16: true", "bf16: false"))  # no CUDA here: the bf16 check would come first
    (tmp_path / "params.yaml").write_text((REPO / "params.yaml").read_text())  # the repository root for enter_repo
    cache_dir = tmp_path / "hf" / "hub"
    if cache == "without weights":  # an interrupted download: config.json alone
        commit = "0" * 40
        entry = cache_dir / f"models--{model.replace('/', '--')}"
        (entry / "refs").mkdir(parents=True)
        (entry / "refs/main").write_text(commit)
        (entry / "snapshots" / commit).mkdir(parents=True)
        (entry / "snapshots" / commit / "config.json").write_text("{}")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    done = cli(
        ["train", "erpo", "--params", "configs/erpo.yaml"], cwd=tmp_path, HF_HOME=str(tmp_path / "hf"),
        HF_HUB_CACHE=str(cache_dir),
    )  # fmt: skip
    expected = [f"model '{model}' (configs/erpo.yaml model.path)", f"`hf download {model}`", "set model.path"]
    if cache == "empty":
        expected.append("is not a local folder and is not in the Hugging Face cache")
    else:
        expected += ["lacks a tokenizer", "weights", "is cached incompletely"]
    one_error_line(done, *expected)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing written
