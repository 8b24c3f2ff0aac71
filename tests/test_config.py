"""params.yaml validation: bad keys and values fail with messages naming them; smoke overrides apply."""
import pytest

from rlvr_lib.config import deep_merge, parse_params

BASE = {"profile": "default", "seed": 3, "methods": {"grpo": {}, "dapo": {"eps_high": 0.3}},
        "train": {"max_steps": 50}, "eval": {"n": 8}, "smoke": {"train": {"max_steps": 2}, "eval": {"n": 2}}}


def test_parse_defaults_and_seed_propagation():
    p = parse_params(BASE)
    assert p.train.max_steps == 50 and p.train.seed == 3 and p.eval.n == 8
    assert sorted(p.runs) == ["dapo", "grpo"]
    assert p.runs["dapo"].method == "dapo" and p.runs["dapo"].hparams == {"eps_high": 0.3}
    assert p.runs["grpo"].train.max_steps == 50


def test_run_entries_name_ablations_and_override_training():
    p = parse_params({**BASE, "methods": {"dapo_wide": {"method": "dapo", "eps_high": 0.4, "train": {"num_iterations": 2}}}})
    run = p.runs["dapo_wide"]
    assert run.method == "dapo" and run.hparams == {"eps_high": 0.4}
    assert run.train.num_iterations == 2 and run.train.max_steps == 50 and p.train.num_iterations == 1
    assert p.data.source == "testbed" and p.model.path is None


def test_smoke_profile_applies_overrides():
    p = parse_params({**BASE, "profile": "smoke"})
    assert p.train.max_steps == 2 and p.eval.n == 2


@pytest.mark.parametrize("raw,message", [
    ({**BASE, "profile": "fast"}, r"profile.*\('default', 'smoke'\)"),
    ({**BASE, "methods": {"grpo2": {}}}, r"methods.grpo2.*registered methods: .*grpo"),
    ({**BASE, "methods": {"grpo": {"eps": 1}}}, r"methods.grpo.*unknown hyperparameter.*eps_low"),
    ({**BASE, "train": {"max_step": 3}}, r"train.*max_step"),
    ({**BASE, "methods": {"x": {"method": "dapo", "train": {"top_p": 2}}}}, r"methods.x.*top_p"),
    ({**BASE, "train": {"warmup_steps": 10}}, r"warmup_steps.*constant_with_warmup"),
    ({**BASE, "eval": {"n": 4, "ks": [8]}}, r"eval.ks"),
    ({**BASE, "data": {"source": "hub"}}, r"data.source.*testbed"),
    ({**BASE, "bogus": 1}, r"bogus"),
    ({**BASE, "methods": {}}, r"methods"),
])
def test_invalid_params_name_the_key(raw, message):
    with pytest.raises(ValueError, match=message):
        parse_params(raw)


def test_deep_merge_does_not_mutate():
    base = {"a": {"b": 1, "c": [1]}, "d": 2}
    merged = deep_merge(base, {"a": {"b": 5}})
    assert merged == {"a": {"b": 5, "c": [1]}, "d": 2} and base["a"]["b"] == 1


def test_eval_per_benchmark_overrides_and_new_data_keys():
    p = parse_params({**BASE, "eval": {"n": 4, "per_benchmark": {"aime24": {"n": 32, "temperature": 0.6}}},
                      "data": {"eval_limits": {"minerva": 40}, "dedupe": True, "max_solution_tokens": 204.8}})
    assert p.eval.for_benchmark("aime24") == {"n": 32, "ks": None, "temperature": 0.6, "top_p": 1.0, "max_new_tokens": 64}
    assert p.eval.for_benchmark("math500")["n"] == 4
    with pytest.raises(ValueError, match="per_benchmark.aime24.*unknown.*batch"):
        parse_params({**BASE, "eval": {"per_benchmark": {"aime24": {"batch_size": 3}}}})
    with pytest.raises(ValueError, match="eval.top_p"):
        parse_params({**BASE, "eval": {"per_benchmark": {"aime24": {"top_p": 0}}}})
    with pytest.raises(ValueError, match="prompt_template"):
        parse_params({**BASE, "data": {"prompt_template": "no placeholder"}})
    with pytest.raises(ValueError, match="eval_limits"):
        parse_params({**BASE, "data": {"eval_limits": {"minerva": 0}}})
    with pytest.raises(ValueError, match="format_reward"):
        parse_params({**BASE, "train": {"format_reward": "xml"}})
    with pytest.raises(ValueError, match="warmup_steps.*fraction"):
        parse_params({**BASE, "train": {"warmup_steps": 1.5, "lr_scheduler_type": "cosine"}})
