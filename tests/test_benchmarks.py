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
