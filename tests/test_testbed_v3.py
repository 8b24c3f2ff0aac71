"""Tests of testbed task v3 (rlvr_lib/testbed/task_v3.py): seeded splits, traps, routes at their designed rates."""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
from conftest import TINY_TESTBED

from rlvr_lib.tasks.rewards import grade
from rlvr_lib.testbed import TestbedConfig, build_base_policy, make_splits
from rlvr_lib.testbed.generator import LEVELS
from rlvr_lib.testbed.sft import sft_records
from rlvr_lib.testbed.task_v3 import (
    MULTIPLIERS,
    ROUTES,
    TRAP_SHARE,
    classify_route,
    evaluate,
    format_prompt,
    guessed,
    is_trap,
    parse_prompt,
    route_success_probability,
    sample_solutions,
    solve,
)

RATES = {"slip_rate": 0.3, "precedence_rate": 0.1, "guess_rate": 0.15}


def replay(prompt: str, solution: str) -> tuple[str, int, int]:
    """Replay a worked v3 solution: returns (route, steps, slipped steps). Checks that every step applies an
    operator of the prompt to numbers still in the expression, writes the result right or off by 1-9, and
    that the boxed number is the last one left."""
    operands, ops = parse_prompt(prompt)
    guess = re.fullmatch(r" \\boxed\{(\d+)\}", solution)
    if guess:
        assert int(guess.group(1)) != evaluate(operands, ops)
        return "guess", 0, 0
    match = re.fullmatch(r" (.+)\. \\boxed\{(\d+)\}", solution)
    assert match, solution
    nums, ops, n_slipped, route = list(operands), list(ops), 0, "left_to_right"
    steps = match.group(1).split(", ")
    for i, step in enumerate(steps):
        a, op, b, c = re.fullmatch(r"(\d+)([+*])(\d+)=(\d+)", step).groups()
        a, b, c = int(a), int(b), int(c)
        j = next(j for j in range(len(ops)) if (nums[j], ops[j], nums[j + 1]) == (a, op, b))
        if j > 0:
            assert i == 0 and op == "*", f"{step}: only a first step may skip ahead, to the product"
            route = "product_first"
        true = a * b if op == "*" else a + b
        assert c != true and abs(c - true) <= 9 and op == "+" or c == true, f"{step}: only a sum may slip"
        n_slipped += c != true
        nums[j : j + 2] = [c]
        del ops[j]
    assert nums == [int(match.group(2))]
    return route, len(steps), n_slipped


def test_splits_are_seeded_disjoint_and_hold_traps():
    train, eval_ = make_splits(600, 300, seed=0, task="v3")
    assert (train, eval_) == make_splits(600, 300, seed=0, task="v3")
    assert make_splits(50, 300, seed=0, task="v3")[1] == eval_  # eval split does not depend on n_train
    assert make_splits(600, 300, seed=1, task="v3")[1] != eval_
    assert not {p.prompt for p in train} & {p.prompt for p in eval_}
    assert make_splits(600, 300, seed=0)[1] != eval_  # v2 is still the default task
    problems = train + eval_
    traps = [p for p in problems if is_trap(p.prompt)]
    assert abs(len(traps) / len(problems) - TRAP_SHARE) < 0.06  # distinct prompts thin level 1's traps a little
    for p in problems:
        operands, ops = parse_prompt(p.prompt)
        assert len(operands) == LEVELS[p.level].n_operands and p.answer == str(evaluate(operands, ops))
        assert ops.count("*") <= 1 and ops[0] == "+"  # a product is never the first operation
        if "*" in ops:
            assert operands[ops.index("*") + 1] in MULTIPLIERS
        assert replay(p.prompt, p.solution)[2] == 0 and p.solution.endswith(f"\\boxed{{{p.answer}}}")
    with pytest.raises(ValueError, match="unknown testbed task"):
        make_splits(5, 5, seed=0, task="v9")


def test_prompt_round_trip_and_precedence():
    assert format_prompt([3, 5, 2, 7], ["+", "*", "+"]) == "Compute 3+5*2+7.\nAnswer:"
    assert parse_prompt("Compute 3+5*2+7.\nAnswer:") == ([3, 5, 2, 7], ["+", "*", "+"])
    assert evaluate([3, 5, 2, 7], ["+", "*", "+"]) == 20 and evaluate([3, 5, 2], ["+", "+"]) == 10
    with pytest.raises(ValueError, match="not a v3 testbed prompt"):
        parse_prompt("Compute 3-5.\nAnswer:")
    with pytest.raises(ValueError, match="operators"):
        format_prompt([1, 2], ["+", "+"])


def test_routes_solve_what_they_are_designed_to():
    rng = random.Random(0)
    for p in make_splits(300, 0, seed=0, task="v3")[0]:
        operands, ops = parse_prompt(p.prompt)
        left = solve(operands, ops, "left_to_right", rng)
        assert (grade(left, p.answer).correct == 1.0) == (not is_trap(p.prompt))  # traps: a dead end
        assert replay(p.prompt, left) == ("left_to_right", len(operands) - 1, 0)
        guess = solve(operands, ops, "guess", rng)
        assert grade(guess, p.answer).correct == 0.0 and replay(p.prompt, guess)[0] == "guess"
        if is_trap(p.prompt):
            first = solve(operands, ops, "product_first", rng)
            assert grade(first, p.answer).correct == 1.0
            assert replay(p.prompt, first) == ("product_first", len(operands) - 1, 0)
        else:
            with pytest.raises(ValueError, match="needs a product"):
                solve(operands, ops, "product_first", rng)
    with pytest.raises(ValueError, match="unknown route"):
        solve([1, 2, 3], ["+", "+"], "sideways", rng)


def test_classify_route_reads_the_route_of_any_solution():
    rng = random.Random(1)
    for p in make_splits(200, 0, seed=2, task="v3")[0]:
        operands, ops = parse_prompt(p.prompt)
        for route in ROUTES:
            if route == "product_first" and "*" not in ops:
                continue
            assert classify_route(p.prompt, solve(operands, ops, route, rng, slip_rate=0.5)) == route
    prompt = "Compute 3+5*2+7.\nAnswer:"
    assert classify_route(prompt, " 5+2=7, 3+7=10. \\boxed{10}") == "other"
    assert classify_route(prompt, " the answer") == "other"


def test_sft_solutions_follow_the_designed_route_slip_and_success_rates():
    problems = make_splits(1500, 0, seed=0, task="v3")[0]
    assert sample_solutions(problems[0], 4, 0, **RATES) == sample_solutions(problems[0], 4, 0, **RATES)
    routes, sums, slips = {"plain": Counter(), "trap": Counter()}, 0, 0
    correct = {"plain": [], "trap": []}
    for p in problems:
        kind = "trap" if is_trap(p.prompt) else "plain"
        for s in sample_solutions(p, 4, 0, **RATES):
            route, n_steps, n_slipped = replay(p.prompt, s)
            routes[kind][route] += 1
            sums, slips = sums + n_steps - s.count("*"), slips + n_slipped
            designed = route_success_probability(len(parse_prompt(p.prompt)[0]), kind == "trap", **RATES)
            correct[kind].append((grade(s, p.answer).correct, designed))
    assert abs(slips / sums - RATES["slip_rate"]) < 0.02
    for counts in routes.values():
        total = sum(counts.values())
        assert abs(counts["guess"] / total - RATES["guess_rate"]) < 0.025
    trap_total = sum(routes["trap"].values())
    assert routes["plain"]["product_first"] == 0
    assert abs(routes["trap"]["product_first"] / trap_total - (1 - 0.15) * 0.1) < 0.025
    for kind, pairs in correct.items():  # the share of correct SFT solutions is the designed one
        observed = sum(c for c, _ in pairs) / len(pairs)
        designed = sum(d for _, d in pairs) / len(pairs)
        assert abs(observed - designed) < 0.03, (kind, observed, designed)
    assert sum(c for c, _ in correct["trap"]) / len(correct["trap"]) < 0.06  # traps: rarely solved in SFT data
    with pytest.raises(ValueError, match="precedence_rate"):
        sample_solutions(problems[0], 1, 0, slip_rate=0.3, precedence_rate=1.5, guess_rate=0.0)


def test_guesses_are_off_by_the_configured_offsets():
    rng = random.Random(0)
    assert {guessed(30, rng) - 30 for _ in range(2000)} == set(range(-9, 0)) | set(range(1, 10))
    assert {guessed(30, rng, 10) - 30 for _ in range(2000)} == set(range(-18, -9)) | set(range(10, 19))
    assert all(guessed(5, rng, 10) >= 15 for _ in range(200))  # never negative: only the upward offsets fit
    with pytest.raises(ValueError, match="guess_offset_min"):
        guessed(5, rng, 0)
    problem = make_splits(3, 0, seed=0, task="v3")[0][0]
    far = sample_solutions(problem, 50, 0, slip_rate=0.0, precedence_rate=0.0, guess_rate=1.0, guess_offset_min=10)
    assert all(abs(int(s[len(" \\boxed{") : -1]) - int(problem.answer)) >= 10 for s in far)


def test_sft_records_of_v3_keep_duplicates():
    problems = make_splits(20, 0, seed=0, task="v3")[0]
    records = sft_records(problems, 5, 0, 0.0, task="v3", precedence_rate=0.0, guess_rate=0.0)
    assert len(records) == 100  # without slips or routes every solution is the same, and all are kept
    assert {r["completion"] for r in records[:5]} == {problems[0].solution}


TINY = TINY_TESTBED


def test_config_task_and_tiny_v3_build(tmp_path):
    from rlvr_lib.settings.schema import build

    with pytest.raises(ValueError, match="model.testbed.task must be one of"):
        build(TestbedConfig, {"task": "v4"}, "model.testbed")
    assert TestbedConfig().task == "v3" and TestbedConfig().solutions_per_problem == 4
    assert TestbedConfig(task="v2").solutions_per_problem == 2
    out = build_base_policy(tmp_path / "base", TestbedConfig(task="v3"), **TINY)
    saved = json.loads((out / "testbed_config.json").read_text())
    assert saved["task"] == "v3" and saved["precedence_rate"] == TestbedConfig().precedence_rate


def test_pipeline_takes_the_task_from_data_testbed(tmp_path, monkeypatch):
    from rlvr_lib.pipeline.stages import stage_data
    from rlvr_lib.settings.config import parse_params
    from rlvr_lib.tasks.records import read_jsonl

    base = {"methods": {"grpo": {}}, "data": {"testbed": {"n_train": 30, "n_eval": 12}}}
    assert parse_params(base).testbed_build(0).task == "v3"  # the default
    params = parse_params({**base, "data": {"testbed": {"n_train": 30, "n_eval": 12, "task": "v3"}}})
    assert params.testbed_build(0).task == "v3" and params.testbed_build(0).solutions_per_problem == 4
    monkeypatch.chdir(tmp_path)
    stage_data(params)
    rows = read_jsonl(tmp_path / "data/generated/train.jsonl") + read_jsonl(
        tmp_path / "data/generated/eval_testbed.jsonl"
    )
    assert any("*" in r["prompt"] for r in rows)
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['model.testbed.task'\]"):
        parse_params({**base, "model": {"testbed": {"task": "v3"}}})
