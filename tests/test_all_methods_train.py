"""Every registered method trains 3 steps on the tiny model with mixed rewards: a finite, non-zero gradient that
changes the weights, no NaN/inf, and its own logged quantities."""

import math
import warnings

import pytest
import torch
from conftest import coin_reward, config, dataset
from tiny import save_tiny
from transformers import AutoModelForCausalLM, AutoTokenizer

from rlvr_lib.methods import available_methods, build_method
from rlvr_lib.training.trainer import RLVRTrainer

pytestmark = pytest.mark.slow  # 13 tiny-model trainings (issue 12: `make test-fast` skips them)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


@pytest.mark.parametrize("name", available_methods())
def test_method_trains_three_steps(tmp_path, tiny_dir, name):
    method = build_method(name)
    # two optimizer steps per rollout batch for methods that need several updates, exactly one otherwise
    several = method.updates_per_batch == "several"
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the configuration must not make the method inert
        trainer = RLVRTrainer(
            model=AutoModelForCausalLM.from_pretrained(tiny_dir),
            processing_class=AutoTokenizer.from_pretrained(tiny_dir),
            reward_funcs=[coin_reward],
            train_dataset=dataset(32),
            method=method,
            args=config(tmp_path, max_steps=3, steps_per_generation=2 if several else 1, learning_rate=5e-3),
        )
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    steps = [row for row in trainer.state.log_history if "step_time" in row]
    assert len(steps) == 3
    for row in steps:
        for key, value in row.items():
            assert value is not None and math.isfinite(value), f"{name}: {key} = {value}"
    own = {k for row in steps for k in row if k.startswith(f"{name}/")}
    if name not in ("grpo", "dapo", "grpo_onpolicy"):  # the plain baselines have no quantities of their own
        assert own, f"{name} logged no '{name}/...' metric"
    assert any(row["reward_std"] > 0 for row in steps), f"{name}: rewards never varied"
    assert any(row["grad_norm"] > 0 for row in steps), f"{name}: zero gradient in every step"
    for param in trainer.model.parameters():
        assert param.isfinite().all()
    assert any(not torch.equal(p, old) for p, old in zip(trainer.model.parameters(), before, strict=True)), name
