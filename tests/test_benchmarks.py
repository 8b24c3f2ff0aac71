"""Tests of the measurement helpers in benchmarks/ that docs/testbed.md's tables come from."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest
from conftest import config
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
        ["first number"]
        + ["second number"] * 2
        + ["sum"] * 2  # 3+15=18
        + ["first number"] * 2
        + ["second number"]
        + ["sum"] * 2  # 18+2=21
        + ["boxed answer"] * 2  # \boxed{21}
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


# ----------------------------------------------------------------------------- step_profile.py
_PROFILE_SPEC = importlib.util.spec_from_file_location(
    "step_profile", Path(__file__).parents[1] / "benchmarks" / "step_profile.py"
)
step_profile = importlib.util.module_from_spec(_PROFILE_SPEC)
_PROFILE_SPEC.loader.exec_module(step_profile)


class FakeClock:
    """A clock that only moves when told to, so timings are exact."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def test_region_timer_is_exclusive_and_steps_add_up():
    clock = FakeClock()
    timer = step_profile.RegionTimer(clock)
    timer.boundary()
    clock.advance(0.5)  # outside any region: the step's "rest"
    with timer.region("generation"):
        clock.advance(1.0)
        with timer.region("rollout forward"):  # nested: counted here only
            clock.advance(0.25)
        clock.advance(0.5)
    timer.boundary()
    with timer.region("generation"):
        clock.advance(2.0)
    timer.boundary()

    first, second = timer.steps
    assert first == {"generation": 1.5, "rollout forward": 0.25, step_profile.OTHER: 0.5, "total": 2.25}
    assert second == {"generation": 2.0, step_profile.OTHER: 0.0, "total": 2.0}
    assert timer.totals == {"generation": 3.5, "rollout forward": 0.25}
    for step in timer.steps:
        assert sum(v for k, v in step.items() if k != "total") == pytest.approx(step["total"])


def test_region_timer_keeps_time_of_a_region_that_raises():
    clock = FakeClock()
    timer = step_profile.RegionTimer(clock)
    with pytest.raises(RuntimeError):
        with timer.region("generation"):
            clock.advance(1.0)
            raise RuntimeError("boom")
    assert timer.totals["generation"] == 1.0 and timer.current() is None


def test_wrap_times_calls_under_a_name_chosen_per_call():
    clock = FakeClock()
    timer = step_profile.RegionTimer(clock)

    class Work:
        def run(self, seconds, label):
            clock.advance(seconds)
            return label

    work = Work()
    assert timer.wrap(work, "run", lambda seconds, label: label)
    assert not timer.wrap(work, "missing", "x")
    assert work.run(1.0, "a") == "a" and work.run(2.0, "b") == "b"
    assert work.run(4.0, None) is None  # None: no region of its own
    assert timer.totals == {"a": 1.0, "b": 2.0}


def test_summarise_steps_skips_warm_up_and_splits_step_kinds():
    steps = [{"generation": 9.0, "total": 10.0, step_profile.OTHER: 1.0}]  # warm-up, skipped
    for _ in range(3):
        steps.append({"generation": 0.6, "loss forward": 0.1, step_profile.OTHER: 0.1, "total": 0.8})
        steps.append({"loss forward": 0.1, step_profile.OTHER: 0.1, "total": 0.2})
    summary = step_profile.summarise_steps(steps, skip=1)
    assert summary["steps"] == 6
    assert summary["mean_step_s"] == pytest.approx(0.5)
    assert summary["median_generating_step_s"] == pytest.approx(0.8)
    assert summary["median_reusing_step_s"] == pytest.approx(0.2)
    assert sum(summary["parts_mean_s"].values()) == pytest.approx(summary["mean_step_s"])
    assert set(summary["parts_mean_s"]) == set(step_profile.STEP_PARTS)
    with pytest.raises(ValueError, match="no steps left"):
        step_profile.summarise_steps(steps, skip=7)


def test_instrumented_trainer_accounts_for_every_step(tmp_path):
    """On a real (tiny) RLVRTrainer run: each named part is seen where expected, and the steps' parts add up to
    the steps, whose sum stays within the training wall time."""
    import time

    from datasets import Dataset

    from rlvr_lib.methods import build_method
    from rlvr_lib.training.trainer import RLVRTrainer

    def accuracy(prompts, completions, answer, **kwargs):
        return [float(c.strip().startswith(a)) for c, a in zip(completions, answer, strict=False)]

    tok = tiny_tokenizer()
    args = config(tmp_path, max_steps=4, steps_per_generation=2, beta=0.0, learning_rate=1e-6)
    trainer = RLVRTrainer(
        model=tiny_model(tok),
        processing_class=tok,
        reward_funcs=[accuracy],
        args=args,
        train_dataset=Dataset.from_list([{"prompt": f"{i}+{i}=", "answer": str(2 * i)} for i in range(16)]),
        method=build_method("grpo"),
        log_reference_kl=True,
    )
    timer = step_profile.RegionTimer()
    step_profile.instrument_trainer(trainer, timer)
    started = time.perf_counter()
    trainer.train()
    timer.boundary()
    wall = time.perf_counter() - started

    assert len(timer.steps) == 4
    for step in timer.steps:
        assert sum(v for k, v in step.items() if k != "total") == pytest.approx(step["total"])
        assert all(v >= 0 for v in step.values())
    assert [step.get("generation", 0.0) > 0 for step in timer.steps] == [True, False, True, False]
    for part in set(step_profile.STEP_PARTS) - {"generation", step_profile.OTHER}:  # every timed part shows up
        assert timer.totals[part] > 0, part
    assert sum(s["total"] for s in timer.steps) <= wall  # set-up before the first step is in no step


_PROPS_SPEC = importlib.util.spec_from_file_location(
    "testbed_properties", Path(__file__).parents[1] / "benchmarks" / "testbed_properties.py"
)
testbed_properties = importlib.util.module_from_spec(_PROPS_SPEC)
_PROPS_SPEC.loader.exec_module(testbed_properties)


def test_testbed_properties_entropy_ratio_and_summary(tmp_path):
    history = [{"loss": 1.0}] + [
        {"entropy/mean": e, "accuracy": 0.1 * i} for i, e in enumerate([0.4, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1])
    ]
    dyn = testbed_properties.entropy_ratio(history)
    assert dyn["entropy_first"] == 0.4 and dyn["entropy_last"] == pytest.approx(0.1)
    assert dyn["entropy_ratio"] == pytest.approx(0.25) and dyn["rollout_batches"] == 8
    with pytest.raises(ValueError, match="rollout batches"):
        testbed_properties.entropy_ratio(history[:5])
    assert testbed_properties.problem_kind("Compute 1+2*3.\nAnswer:") == "trap"
    n = 2

    def metrics(mean, passes):
        out = {f"pass@{k}": {"value": v} for k, v in zip((1, 2), passes, strict=False)}
        return {**out, f"mean@{n}": {"value": mean}, "token_entropy": {"value": 0.2}, "response_length": {"value": 9}}

    import json

    (tmp_path / "base.json").write_text(json.dumps({"metrics": metrics(0.2, [0.2, 0.85]), "by_kind": {}}))
    (tmp_path / "grpo.json").write_text(
        json.dumps({"metrics": metrics(0.4, [0.4, 0.8]), "by_kind": {}, "dynamics": dyn})
    )
    testbed_properties.summarise(tmp_path, n)
    summary = json.loads((tmp_path / "properties.json").read_text())
    assert summary["base"]["target_mean_in_0.10_0.40"] and summary["base"]["target_pass_le_0.90"]
    assert summary["grpo"]["mean_gain"] == pytest.approx(0.2) and summary["grpo"]["target_mean_gain_ge_0.15"]
    assert summary["grpo"]["target_sharpening_pass_gain_le_0.02"] and summary["grpo"]["target_entropy_ratio_le_0.35"]
    assert summary["pass_at_k_grpo"] == [0.4, 0.8]


def _load_benchmark(name: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compare_repros_agreement_needs_each_value_inside_the_others_interval():
    import pandas as pd

    compare = _load_benchmark("compare_repros")

    def table(value, low, high):
        return pd.DataFrame(
            {"run": ["grpo"], "mean@16": [value], "mean@16_ci_low": [low], "mean@16_ci_high": [high]}
        ).set_index("run")

    assert compare.agreement(table(0.50, 0.45, 0.55), table(0.52, 0.47, 0.57), ["mean@16"])["agree"].item()
    # 0.56 is outside A's interval although A's 0.50 lies inside B's
    assert not compare.agreement(table(0.50, 0.45, 0.55), table(0.56, 0.48, 0.62), ["mean@16"])["agree"].item()


def test_repro_cost_sums_papermill_durations_of_a_runs_notebooks(tmp_path):
    cost = _load_benchmark("repro_cost")
    for kind, seed, seconds in [("train", 0, 60.0), ("eval", 0, 12.0), ("train", 1, 90.0), ("eval", 1, 18.0)]:
        notebook = {"cells": [], "metadata": {"papermill": {"duration": seconds}}}
        (tmp_path / f"{kind}_grpo_seed{seed}.ipynb").write_text(json.dumps(notebook))
    assert cost.run_minutes(tmp_path, "grpo", [0, 1]) == pytest.approx(3.0)
    assert cost.run_minutes(tmp_path, "grpo", [0]) == pytest.approx(1.2)
    assert cost.run_minutes(tmp_path, "grpo", [0, 2]) == pytest.approx(1.2)  # seed 2 made outside the notebooks
    assert "grpo seed 2" in cost.UNTIMED
    (tmp_path / "eval_grpo_seed3.ipynb").write_text(json.dumps({"cells": [], "metadata": {"papermill": {}}}))
    with pytest.raises(SystemExit, match="train_grpo_seed3.ipynb not found"):  # half a pair: an error
        cost.run_minutes(tmp_path, "grpo", [3])
    (tmp_path / "report.ipynb").write_text(json.dumps({"cells": [], "metadata": {}}))
    with pytest.raises(SystemExit, match="no metadata.papermill.duration"):
        cost.notebook_minutes(tmp_path / "report.ipynb")
