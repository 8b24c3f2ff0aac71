"""RLVRTrainer: parity with TRL's stock grpo/dapo losses, hook calls, method state in checkpoints."""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass

import pytest
import torch
from conftest import config, dataset, exact_match
from tiny import save_tiny
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOTrainer

from rlvr_lib.methods import build_method
from rlvr_lib.methods.base import RolloutResult
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.training.trainer import METHOD_STATE_FILE, RLVRTrainer

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


def loss_inputs(model, tokenizer, beta: float, seed: int = 0):
    """A batch as _generate_and_score_completions returns it, with off-policy old log-probs so clipping acts."""
    g = torch.Generator().manual_seed(seed)
    b, p, t = 8, 4, 6
    vocab = len(tokenizer)
    prompt_ids = torch.randint(1, vocab, (b, p), generator=g)
    completion_ids = torch.randint(1, vocab, (b, t), generator=g)
    completion_mask = torch.ones(b, t, dtype=torch.long)
    completion_mask[0, 3:] = 0
    completion_mask[5, 1:] = 0
    with torch.no_grad():
        ids = torch.cat([prompt_ids, completion_ids], 1)
        logits = model(ids).logits[:, p - 1 : -1]
        logps = torch.log_softmax(logits, -1).gather(-1, completion_ids[..., None]).squeeze(-1)
    inputs = {
        "prompt_ids": prompt_ids,
        "prompt_mask": torch.ones(b, p, dtype=torch.long),
        "completion_ids": completion_ids,
        "completion_mask": completion_mask,
        "advantages": torch.randn(b, generator=g),
        "num_items_in_batch": completion_mask.sum(),
        "old_per_token_logps": logps + 0.4 * torch.randn(b, t, generator=g),
    }
    if beta:
        inputs["ref_per_token_logps"] = logps + 0.2 * torch.randn(b, t, generator=g)
    return inputs


def loss_and_grads(trainer, model, inputs):
    model.train()
    model.zero_grad()
    trainer.current_gradient_accumulation_steps = trainer.args.gradient_accumulation_steps
    loss = trainer._compute_loss(model, dict(inputs))
    loss.backward()
    return loss.detach(), [p.grad.clone() for p in model.parameters() if p.grad is not None]


@pytest.mark.parametrize(
    "loss_type,method_name,hparams,trl_kwargs",
    [
        ("grpo", "grpo", {}, {}),
        ("grpo", "grpo", {"beta": 0.04}, {"beta": 0.04}),
        ("dapo", "dapo", {}, {"epsilon_high": 0.28}),
        ("dapo", "dapo", {"beta": 0.04}, {"epsilon_high": 0.28, "beta": 0.04}),
    ],
)
def test_loss_and_gradient_parity_with_trl(tmp_path, tiny_dir, loss_type, method_name, hparams, trl_kwargs):
    tokenizer = AutoTokenizer.from_pretrained(tiny_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_dir)
    common = dict(gradient_accumulation_steps=2, steps_per_generation=2)
    stock = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[exact_match],
        train_dataset=dataset(),
        args=config(tmp_path, loss_type=loss_type, **common, **trl_kwargs),
    )
    ours = RLVRTrainer(
        model=copy.deepcopy(model),
        processing_class=tokenizer,
        reward_funcs=[exact_match],
        train_dataset=dataset(),
        args=config(tmp_path, **common),
        method=build_method(method_name, hparams),
        log_reference_kl=False,
    )
    inputs = loss_inputs(model, tokenizer, trl_kwargs.get("beta", 0.0))
    stock_loss, stock_grads = loss_and_grads(stock, stock.model, inputs)
    our_loss, our_grads = loss_and_grads(ours, ours.model, inputs)
    assert abs(stock_loss.item()) > 1e-4  # a non-trivial loss: the comparison means something
    assert (our_loss - stock_loss).abs().item() <= 1e-6
    assert len(our_grads) == len(stock_grads) > 0
    assert max((a - b).abs().max().item() for a, b in zip(our_grads, stock_grads, strict=False)) <= 1e-6
    assert ours._metrics["train"]["clip_ratio/region"][-1] > 0  # the perturbed old log-probs engage the clip


class CountingMethod(GRPO):
    """GRPO that records every hook call and keeps a step counter as its checkpointed state."""

    name = "counting"

    @dataclass
    class Config(GRPO.Config):
        pass

    def __init__(self, hparams=None):
        super().__init__(hparams)
        self.calls = {"rollout": 0, "loss": 0, "step": 0}
        self.steps_seen = 0
        self.last_rollout = None

    def rollout(self, batch):
        self.calls["rollout"] += 1
        self.last_rollout = batch
        result = super().rollout(batch)
        return RolloutResult(
            result.advantages, extras={"row": torch.arange(batch.mask.size(0))}, metrics={"counting/x": 1.0}
        )

    def loss(self, batch):
        self.calls["loss"] += 1
        assert batch.logps.requires_grad and batch.entropies.requires_grad
        assert batch.extras["row"].shape == (batch.mask.size(0),)
        return super().loss(batch)

    def on_optimizer_step(self):
        self.calls["step"] += 1
        self.steps_seen += 1
        return {"counting/steps_seen": self.steps_seen}

    def state_dict(self):
        return {"steps_seen": self.steps_seen}

    def load_state_dict(self, state):
        self.steps_seen = state["steps_seen"]


def make_trainer(tmp_path, tiny_dir, method, **overrides):
    return RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[exact_match],
        train_dataset=dataset(),
        method=method,
        args=config(tmp_path, max_steps=2, save_strategy="steps", save_steps=1, **overrides),
    )


def test_two_step_run_calls_hooks_and_checkpoints_method_state(tmp_path, tiny_dir):
    method = CountingMethod()
    trainer = make_trainer(tmp_path, tiny_dir, method, gradient_accumulation_steps=2, steps_per_generation=2)
    trainer.train()
    assert method.calls == {"rollout": 2, "loss": 4, "step": 2}
    batch = method.last_rollout
    assert batch.rewards.shape == batch.group_ids.shape == (16,)  # the whole generation batch, not a micro-batch
    assert torch.equal(batch.group_ids, torch.arange(16) // 4)
    assert batch.entropies.shape == batch.logps.shape == batch.mask.shape
    logged = trainer.state.log_history[0]
    for key in (
        "entropy/mean",
        "entropy/p10",
        "entropy/p50",
        "entropy/p90",
        "accuracy",
        "kl_to_reference",
        "clip_ratio/region",
        "grad_norm",
        "step_time",
        "completions/mean_length",
        "counting/steps_seen",
    ):
        assert key in logged, key

    checkpoint = tmp_path / "out" / "checkpoint-1"
    saved = json.loads((checkpoint / METHOD_STATE_FILE).read_text())
    assert saved == {"method": "counting", "state": {"steps_seen": 1}}

    resumed_method = CountingMethod()
    resumed = make_trainer(tmp_path, tiny_dir, resumed_method, gradient_accumulation_steps=2, steps_per_generation=2)
    resumed.train(resume_from_checkpoint=str(checkpoint))
    assert resumed_method.steps_seen == 2  # restored to 1, then one more step
    assert resumed_method.calls["step"] == 1


def test_resume_refuses_state_of_another_method(tmp_path, tiny_dir):
    make_trainer(tmp_path, tiny_dir, CountingMethod()).train()
    other = make_trainer(tmp_path, tiny_dir, build_method("grpo"))
    with pytest.raises(ValueError, match="method 'counting'"):
        other.train(resume_from_checkpoint=str(tmp_path / "out" / "checkpoint-1"))


def test_trl_beta_is_rejected(tmp_path, tiny_dir):
    with pytest.raises(ValueError, match="hyperparameter"):
        make_trainer(tmp_path, tiny_dir, build_method("grpo"), beta=0.1)


def test_inert_configuration_warns(tmp_path, tiny_dir):
    class SeveralUpdates(CountingMethod):
        updates_per_batch = "several"

    with pytest.warns(UserWarning, match="several updates per rollout batch"):
        make_trainer(tmp_path, tiny_dir, SeveralUpdates())


def test_trl_eval_loop_is_rejected(tmp_path, tiny_dir):
    with pytest.raises(ValueError, match="eval_strategy"):
        make_trainer(tmp_path, tiny_dir, build_method("grpo"), eval_strategy="steps", eval_steps=1)


def test_reference_kl_logging_auto_rule(tmp_path, tiny_dir):
    from peft import LoraConfig

    import rlvr_lib.training.trainer as trainer_module

    assert make_trainer(tmp_path, tiny_dir, build_method("grpo")).log_reference_kl  # tiny model: copy is cheap
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(trainer_module, "REFERENCE_COPY_MAX_PARAMS", 10)  # pretend the model is large
        full = make_trainer(tmp_path, tiny_dir, build_method("grpo"))
        assert not full.log_reference_kl and full.ref_model is None  # no copy of a large model by default
        assert make_trainer(tmp_path, tiny_dir, build_method("grpo", {"beta": 0.01})).ref_model is not None
        lora = RLVRTrainer(
            model=AutoModelForCausalLM.from_pretrained(tiny_dir),
            processing_class=AutoTokenizer.from_pretrained(tiny_dir),
            reward_funcs=[exact_match],
            train_dataset=dataset(),
            method=build_method("grpo"),
            args=config(tmp_path, max_steps=1, learning_rate=1e-2),
            peft_config=LoraConfig(r=4, lora_alpha=8, target_modules="all-linear"),
        )
        assert lora.log_reference_kl and lora.ref_model is None  # the reference is the model with adapters off
        lora.train()
        assert "kl_to_reference" in lora.state.log_history[0]


def test_reference_kl_logged_on_every_nth_rollout_batch(tmp_path, tiny_dir):
    def kl_steps(method, every):
        trainer = RLVRTrainer(
            model=AutoModelForCausalLM.from_pretrained(tiny_dir),
            processing_class=AutoTokenizer.from_pretrained(tiny_dir),
            reward_funcs=[exact_match],
            train_dataset=dataset(),
            method=method,
            args=config(tmp_path, max_steps=5, logging_steps=1),
            reference_kl_every=every,
        )
        trainer.train()
        return [row["step"] for row in trainer.state.log_history if "kl_to_reference" in row]

    assert kl_steps(build_method("grpo"), 1) == [1, 2, 3, 4, 5]
    assert kl_steps(build_method("grpo"), 2) == [1, 3, 5]  # rollout batches 1, 3, 5 (one per step here)
    method = CountingMethod({"beta": 0.01})  # a method that uses the reference gets it on every batch
    kl_steps(method, 3)
    assert method.last_rollout.ref_logps is not None
    with pytest.raises(ValueError, match="reference_kl_every must be >= 1"):
        kl_steps(build_method("grpo"), 0)


def test_rollout_generation_options(tmp_path, monkeypatch):
    import rlvr_lib.training.train as train_module
    from rlvr_lib.settings.config import TrainConfig
    from rlvr_lib.training.train import grpo_config, resolved_rollout_generation

    cpu = TrainConfig()
    assert cpu.rollout_generation == "auto" and resolved_rollout_generation(cpu) == "default"
    args = grpo_config(cpu, tmp_path)
    assert args.cache_implementation is None and not args.use_transformers_continuous_batching
    monkeypatch.setattr(train_module.torch.cuda, "is_available", lambda: True)  # pretend a GPU for the rule
    assert resolved_rollout_generation(TrainConfig()) == "static_compile"
    assert resolved_rollout_generation(TrainConfig(lora_r=8)) == "default"  # not measured under LoRA
    assert resolved_rollout_generation(TrainConfig(use_vllm=True)) == "vllm"
    monkeypatch.undo()
    paged = grpo_config(TrainConfig(rollout_generation="continuous_batching"), tmp_path)
    assert paged.use_transformers_continuous_batching
    static = grpo_config(TrainConfig(rollout_generation="static_compile"), tmp_path)
    assert static.cache_implementation == "static"
    from rlvr_lib.settings.schema import build

    with pytest.raises(ValueError, match="train.rollout_generation must be one of"):
        build(TrainConfig, {"rollout_generation": "fast"}, "train")


def test_compile_generation_flag(tmp_path, tiny_dir):
    trainer = make_trainer(tmp_path, tiny_dir, build_method("grpo"), cache_implementation="static")
    assert trainer.generation_config.disable_compile  # TRL's own setting
    compiled = RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[exact_match],
        train_dataset=dataset(),
        method=build_method("grpo"),
        compile_generation=True,
        args=config(tmp_path, max_steps=1, cache_implementation="static"),
    )
    assert not compiled.generation_config.disable_compile
    assert compiled.generation_config.cache_implementation == "static"
