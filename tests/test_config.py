"""params.yaml validation: bad keys and values fail with messages naming them; smoke overrides apply."""

import subprocess
import sys
import typing

import pytest

from rlvr_lib.methods import build_method
from rlvr_lib.settings.config import (
    MIN_TESTBED_VOCAB,
    TESTBED_LEVELS,
    FormatReward,
    SchedulerName,
    TestbedTask,
    TrainConfig,
    deep_merge,
    load_params,
    parse_params,
    read_yaml,
)

BASE = {
    "profile": "default",
    "seed": 3,
    "methods": {"grpo": {}, "dapo": {"eps_high": 0.3}},
    "train": {"max_steps": 50},
    "eval": {"n": 8},
    "smoke": {"train": {"max_steps": 2}, "eval": {"n": 2}},
}


def test_parse_defaults_and_seed_propagation():
    p = parse_params(BASE)
    assert p.train.max_steps == 50 and p.train.seed == 3 and p.eval.n == 8
    assert sorted(p.runs) == ["dapo", "grpo"]
    assert p.runs["dapo"].method == "dapo" and p.runs["dapo"].hparams == {"eps_high": 0.3}
    assert p.runs["grpo"].train.max_steps == 50


def test_run_entries_name_ablations_and_override_training():
    p = parse_params(
        {
            **BASE,
            "methods": {"dapo_wide": {"method": "dapo", "eps_high": 0.4, "train": {"num_iterations": 2}}},
            "testbed_properties": {"run": "dapo_wide"},
        }
    )
    run = p.runs["dapo_wide"]
    assert run.method == "dapo" and run.hparams == {"eps_high": 0.4}
    assert run.train.num_iterations == 2 and run.train.max_steps == 50 and p.train.num_iterations == 1
    assert p.data.source == "testbed" and p.model.path is None


def test_smoke_profile_applies_overrides():
    p = parse_params({**BASE, "profile": "smoke"})
    assert p.train.max_steps == 2 and p.eval.n == 2


@pytest.mark.parametrize(
    "raw,message",
    [
        ({**BASE, "profile": "fast"}, r"profile must be one of \['default', 'smoke'\]"),
        ({**BASE, "methods": {"grpo2": {}}}, r"methods.grpo2.*registered methods: .*grpo"),
        ({**BASE, "methods": {"grpo": {"eps": 1}}}, r"unknown key\(s\) \[.methods\.grpo\.eps.\]; valid: .*eps_low"),
        ({**BASE, "train": {"max_step": 3}}, r"train.*max_step"),
        ({**BASE, "methods": {"x": {"method": "dapo", "train": {"top_p": 2}}}}, r"methods.x.*top_p"),
        ({**BASE, "train": {"warmup_steps": 10}}, r"warmup_steps.*constant_with_warmup"),
        ({**BASE, "eval": {"n": 4, "ks": [8]}}, r"eval.ks"),
        ({**BASE, "data": {"source": "hub"}}, r"data.source.*testbed"),
        ({**BASE, "bogus": 1}, r"bogus"),
        ({**BASE, "methods": {}}, r"methods"),
    ],
)
def test_invalid_params_name_the_key(raw, message):
    """With the method registry's check (as the pipeline loads params.yaml: ``workspace.layout.load_params``)."""
    with pytest.raises(ValueError, match=message):
        parse_params(raw, check_method=partial_build_method)


def partial_build_method(method, hparams, path):
    return build_method(method, hparams, path=path)


def test_settings_alone_do_not_check_method_hyperparameters():
    """The settings layer knows no method: an unknown method hyperparameter passes until the registry checks it."""
    raw = {**BASE, "methods": {"grpo": {"eps": 0.2}}}
    assert parse_params(raw).runs["grpo"].hparams == {"eps": 0.2}
    with pytest.raises(ValueError, match=r"methods\.grpo"):
        parse_params(raw, check_method=partial_build_method)


def test_deep_merge_does_not_mutate():
    base = {"a": {"b": 1, "c": [1]}, "d": 2}
    merged = deep_merge(base, {"a": {"b": 5}})
    assert merged == {"a": {"b": 5, "c": [1]}, "d": 2} and base["a"]["b"] == 1


def test_importing_config_imports_neither_torch_nor_trl():
    code = (
        "import sys, rlvr_lib.settings.config; "
        "print(sorted(m for m in ('torch', 'trl', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_choices_written_out_in_config_agree_with_their_sources():
    from transformers import SchedulerType

    from rlvr_lib.tasks.rewards import FORMAT_REWARDS
    from rlvr_lib.testbed.generator import LEVELS, TASKS

    assert set(typing.get_args(SchedulerName)) == {s.value for s in SchedulerType}
    assert set(typing.get_args(FormatReward)) == set(FORMAT_REWARDS)
    assert TESTBED_LEVELS == tuple(sorted(LEVELS))
    assert typing.get_args(TestbedTask) == TASKS


def test_smallest_testbed_vocabulary_is_what_the_tokenizer_always_holds():
    from rlvr_lib.testbed.tokenizer import train_bpe

    assert train_bpe(["Answer Answer"], vocab_size=2).get_vocab_size() == MIN_TESTBED_VOCAB
    assert train_bpe(["Answer Answer"], vocab_size=MIN_TESTBED_VOCAB + 1).get_vocab_size() == MIN_TESTBED_VOCAB + 1


def test_both_profiles_are_checked_whatever_profile_selects():
    """Issue 21 D and K: a bad smoke override fails under profile default too, named smoke.<key>."""
    bad_smoke = {**BASE, "smoke": {"train": {"max_steps": 0}}}
    for profile in ("default", "smoke"):
        with pytest.raises(ValueError, match=r"^smoke\.train\.max_steps must be > 0"):
            parse_params({**bad_smoke, "profile": profile})
    with pytest.raises(ValueError, match=r"^train\.max_steps must be > 0"):  # the file as written: no prefix
        parse_params({**BASE, "profile": "smoke", "train": {"max_steps": 0}, "smoke": {"train": {"max_steps": 2}}})
    for key, value in (("profile", "default"), ("smoke", {})):
        with pytest.raises(ValueError, match=rf"smoke\.{key}: the smoke profile cannot set '{key}'"):
            parse_params({**BASE, "smoke": {key: value}})


def test_duplicate_keys_are_named_with_both_lines_but_merge_keys_may_be_overridden(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("methods:\n  grpo: {}\neval:\n  n: 4\n  top_p: 1.0\n  n: 8\n")
    with pytest.raises(ValueError, match=r"params\.yaml: duplicate key 'n' at lines 4 and 6$"):
        read_yaml(path)
    path.write_text("shared: &s {n: 4, top_p: 1.0}\nmerged:\n  <<: *s\n  n: 8\n")
    assert read_yaml(path)["merged"] == {"n": 8, "top_p": 1.0}


def test_yaml_numbers_without_a_dot_are_floats(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("methods: {grpo: {}}\ntrain: {learning_rate: 1e-4, max_grad_norm: 5E+1}\n")
    p = load_params(path)
    assert p.train.learning_rate == 1e-4 and p.train.max_grad_norm == 50.0


def test_typed_leaves():
    p = parse_params(
        {**BASE, "data": {"testbed": {"n_eval": 7, "levels": [2]}}, "model": {"testbed": {"sft_steps": 3}}}
    )
    assert p.data.testbed.n_eval == 7 and p.model.testbed.sft_steps == 3
    build = p.testbed_build(5)
    assert (build.seed, build.policy_seed, build.n_eval, build.levels, build.sft_steps) == (3, 5, 7, (2,), 3)
    assert isinstance(TrainConfig().learning_rate, float)


def test_eval_per_benchmark_overrides_and_new_data_keys():
    p = parse_params(
        {
            **BASE,
            "eval": {"n": 4, "per_benchmark": {"aime24": {"n": 32, "temperature": 0.6}}},
            "data": {
                "source": "files",
                "benchmarks": ["math500", "aime24"],
                "eval_limits": {"minerva": 40},
                "dedupe": True,
                "max_solution_tokens": 204.8,
            },
        }
    )
    assert p.eval.for_benchmark("aime24") == {
        "n": 32,
        "ks": None,
        "temperature": 0.6,
        "top_p": 1.0,
        "max_new_tokens": 64,
    }
    assert p.eval.for_benchmark("math500")["n"] == 4
    with pytest.raises(ValueError, match="per_benchmark.aime24.*unknown.*batch"):
        parse_params({**BASE, "eval": {"per_benchmark": {"aime24": {"batch_size": 3}}}})
    with pytest.raises(ValueError, match="eval.per_benchmark.aime24 gives invalid settings: top_p"):
        parse_params({**BASE, "eval": {"per_benchmark": {"aime24": {"top_p": 0}}}})
    with pytest.raises(ValueError, match="prompt_template"):
        parse_params({**BASE, "data": {"prompt_template": "no placeholder"}})
    with pytest.raises(ValueError, match="eval_limits"):
        parse_params({**BASE, "data": {"eval_limits": {"minerva": 0}}})
    with pytest.raises(ValueError, match="format_reward"):
        parse_params({**BASE, "train": {"format_reward": "xml"}})
    with pytest.raises(ValueError, match="warmup_steps.*fraction"):
        parse_params({**BASE, "train": {"warmup_steps": 1.5, "lr_scheduler_type": "cosine"}})


def test_train_data_names_the_training_set_of_a_run():
    filters = {"erpo": {"enabled": True}}
    p = parse_params(
        {**BASE, "data_filters": filters, "methods": {"grpo": {}, "g": {"method": "grpo", "train_data": "erpo"}}}
    )
    assert p.runs["grpo"].train_data == "full" and p.runs["g"].train_data == "erpo"
    assert p.runs["g"].hparams == {}  # a reserved key, not a method hyperparameter
    assert p.data_filters.erpo.enabled and not p.data_filters.tepo.enabled
    assert p.data_filters.erpo.levels == [3, 4, 5] and p.data_filters.erpo.fraction == 0.1  # the paper's words


@pytest.mark.parametrize(
    "changes,message",
    [
        (
            {"methods": {"g": {"method": "grpo", "train_data": "math"}}},
            r"methods\.g\.train_data: unknown training set 'math'; valid: 'full'.*erpo, tepo",
        ),
        (
            {"methods": {"g": {"method": "grpo", "train_data": "tepo"}}},
            r"methods\.g\.train_data: the 'tepo' set is not built; set data_filters\.tepo\.enabled: true",
        ),
        ({"data_filters": {"tepo": {"num_generations": 1}}}, r"data_filters\.tepo\.num_generations must be >= 2"),
        ({"data_filters": {"erpo": {"fraction": 0}}}, r"data_filters\.erpo\.fraction must lie in \(0\.0, 1\.0\]"),
        ({"data_filters": {"erpo": {"levels": []}}}, r"data_filters\.erpo\.levels must name at least one level"),
        ({"data_filters": {"dapo": {}}}, r"unknown key\(s\) \['data_filters\.dapo'\]"),
    ],
)
def test_bad_training_sets_and_filters_name_the_key(changes, message):
    with pytest.raises(ValueError, match=message):
        parse_params({**BASE, **changes})


def test_tepo_filter_takes_the_shared_rollout_settings_unless_set():
    p = parse_params(
        {**BASE, "train": {"num_generations": 4, "temperature": 0.7}, "data_filters": {"tepo": {"top_p": 0.9}}}
    )
    got = p.data_filters.tepo.sampling(p.train, seed=5)
    assert got == {"n": 4, "temperature": 0.7, "top_p": 0.9, "max_new_tokens": 64, "seed": 5, "batch_size": 256}
