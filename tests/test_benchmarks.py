"""Tests of the measurement helpers in benchmarks/ that docs/testbed.md's tables come from."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from tiny import tiny_model, tiny_tokenizer

_SPEC = importlib.util.spec_from_file_location(
    "entropy_by_position", Path(__file__).parents[1] / "benchmarks" / "entropy_by_position.py"
)
entropy_by_position = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(entropy_by_position)


def test_token_kind_follows_the_solution_format():
    completion = " 3+15=18, 18+2=21. \\boxed{21}"
    kinds = [entropy_by_position.token_kind(completion[:i], ch) for i, ch in enumerate(completion)]
    digits = {i: k for i, k in enumerate(kinds) if completion[i].isdigit()}
    assert [digits[i] for i in sorted(digits)] == (
        ["first number"] + ["second number"] * 2 + ["sum"] * 2      # 3+15=18
        + ["first number"] * 2 + ["second number"] + ["sum"] * 2    # 18+2=21
        + ["boxed answer"] * 2                                      # \boxed{21}
    )
    assert {k for i, k in enumerate(kinds) if not completion[i].isdigit()} == {"other"}
    assert entropy_by_position.token_kind(" 3.", "5") == "other"  # a digit after anything else


def test_entropy_by_kind_adds_up():
    tok = tiny_tokenizer()
    model = tiny_model(tok).eval()
    prompts = ["Compute 1+2+3.\nAnswer:", "Compute 4+5.\nAnswer:"]
    a = entropy_by_position.entropy_by_kind(model, tok, prompts, samples=3, max_new_tokens=12, seed=0)
    b = entropy_by_position.entropy_by_kind(model, tok, prompts, samples=3, max_new_tokens=12, seed=0)
    assert a == b  # seeded
    assert list(a) == list(entropy_by_position.KINDS)
    assert sum(v["share"] for v in a.values()) == pytest.approx(1.0)
    assert 0 < sum(v["tokens_per_completion"] for v in a.values()) <= 12
    assert all(0 <= v["mean_entropy"] <= math.log(len(tok)) + 1e-6 for v in a.values())


_PROPS_SPEC = importlib.util.spec_from_file_location(
    "testbed_properties", Path(__file__).parents[1] / "benchmarks" / "testbed_properties.py"
)
testbed_properties = importlib.util.module_from_spec(_PROPS_SPEC)
_PROPS_SPEC.loader.exec_module(testbed_properties)


def test_testbed_properties_entropy_ratio_and_summary(tmp_path):
    history = [{"loss": 1.0}] + [{"entropy/mean": e, "accuracy": 0.1 * i} for i, e in enumerate([0.4, 0.3, 0.2, 0.1,
                                                                                              0.1, 0.1, 0.1, 0.1])]
    dyn = testbed_properties.entropy_ratio(history)
    assert dyn["entropy_first"] == 0.4 and dyn["entropy_last5"] == pytest.approx(0.1)
    assert dyn["entropy_ratio"] == pytest.approx(0.25) and dyn["rollout_batches"] == 8
    with pytest.raises(SystemExit, match="rollout batches"):
        testbed_properties.entropy_ratio(history[:5])
    assert testbed_properties.problem_kind("Compute 1+2*3.\nAnswer:") == "trap"
    n = 2

    def metrics(mean, passes):
        out = {f"pass@{k}": {"value": v} for k, v in zip((1, 2), passes)}
        return {**out, f"mean@{n}": {"value": mean}, "token_entropy": {"value": 0.2}, "response_length": {"value": 9}}

    import json
    (tmp_path / "base.json").write_text(json.dumps({"metrics": metrics(0.2, [0.2, 0.85]), "by_kind": {}}))
    (tmp_path / "grpo.json").write_text(json.dumps({"metrics": metrics(0.4, [0.4, 0.8]), "by_kind": {},
                                                    "dynamics": dyn}))
    testbed_properties.summarise(tmp_path, n)
    summary = json.loads((tmp_path / "properties.json").read_text())
    assert summary["base"]["target_mean_in_0.10_0.40"] and summary["base"]["target_pass_le_0.90"]
    assert summary["grpo"]["mean_gain"] == pytest.approx(0.2) and summary["grpo"]["target_mean_gain_ge_0.15"]
    assert summary["grpo"]["target_sharpening_pass_gain_le_0.02"] and summary["grpo"]["target_entropy_ratio_le_0.35"]
    assert summary["pass_at_k_grpo"] == [0.4, 0.8]
