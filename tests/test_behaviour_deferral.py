"""RLVRTrainer.DEFER_BEHAVIOUR: with one update per rollout batch and a method whose rollout reads no behaviour
log-probs or entropies (grpo and the methods that inherit its rollout), hook 1 runs no policy forward, and the
entropy metrics come from the loss pass; everything else (completions, losses, logged entropies up to float
rounding) is what the forward-running hook gives."""

from __future__ import annotations

import dataclasses
import os

import pytest
import torch
from conftest import config, dataset, exact_match, rollout_batch
from tiny import save_tiny
from transformers import AutoModelForCausalLM, AutoTokenizer

from rlvr_lib.methods import available_methods, build_method
from rlvr_lib.training.trainer import RLVRTrainer

os.environ.setdefault("HF_HUB_OFFLINE", "1")

NO_BEHAVIOUR = {"grpo", "dapo", "grpo_onpolicy", "gspo", "entropy_reg", "gpg"}  # rewards only (GRPO.rollout, GPG)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


def test_which_methods_read_behaviour():
    assert {m for m in available_methods() if not build_method(m).rollout_needs_behaviour} == NO_BEHAVIOUR


@pytest.mark.parametrize("name", sorted(NO_BEHAVIOUR))
def test_rollout_without_behaviour_is_unchanged(name):
    batch = rollout_batch(seed=3)
    full = build_method(name).rollout(batch)
    bare = build_method(name).rollout(dataclasses.replace(batch, logps=None, entropies=None))
    assert torch.equal(full.advantages, bare.advantages)
    assert full.extras.keys() == bare.extras.keys() and full.metrics == bare.metrics


def train(tmp_path, tiny_dir, monkeypatch, defer: bool, method: str, **overrides):
    monkeypatch.setattr(RLVRTrainer, "FAST_SAMPLER", False)  # HF generate: no sampler values (the GPU's case)
    monkeypatch.setattr(RLVRTrainer, "DEFER_BEHAVIOUR", defer)
    args = config(
        tmp_path, output_dir=str(tmp_path / f"out{defer}"), max_steps=2, beta=0.0, learning_rate=1e-3, **overrides
    )
    trainer = RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[exact_match],
        args=args,
        method=build_method(method),
        log_reference_kl=False,
        train_dataset=dataset(),
    )
    no_grad_forwards = []
    original_forward = trainer.model.forward

    def counting_forward(*a, **k):
        if k.get("fused_lm_head") and not torch.is_grad_enabled():
            no_grad_forwards.append(k["input_ids"].size(0))
        return original_forward(*a, **k)

    trainer.model.forward = counting_forward
    trainer.train()
    rows = [r for r in trainer.state.log_history if "loss" in r]
    return rows, sum(no_grad_forwards)


@pytest.mark.parametrize(
    "method,overrides,deferred",
    [
        ("grpo", {}, True),  # one micro-batch per rollout batch
        ("grpo", {"gradient_accumulation_steps": 2, "steps_per_generation": 2}, True),  # two, one update
        ("dapo", {"gradient_accumulation_steps": 4, "steps_per_generation": 2}, True),  # two batches per update
        ("grpo", {"steps_per_generation": 2}, False),  # two updates: TRL's behaviour forward serves
        ("ent_adv", {}, False),  # its rollout reads the entropies
    ],
)
def test_deferred_behaviour_forward(tmp_path, tiny_dir, monkeypatch, method, overrides, deferred):
    ran, forwards_ran = train(tmp_path, tiny_dir, monkeypatch, False, method, **overrides)
    kept, forwards_kept = train(tmp_path, tiny_dir, monkeypatch, True, method, **overrides)
    assert forwards_ran > 0
    assert forwards_kept == (0 if deferred else forwards_ran)
    assert len(ran) == len(kept) == 2
    for a, b in zip(ran, kept, strict=True):
        assert a["loss"] == pytest.approx(b["loss"], abs=1e-6)
        assert a.keys() == b.keys()
        for key in ("completions/mean_length", "entropy/mean", "entropy/p10", "entropy/p50", "entropy/p90"):
            if key in a:  # logged with each generation batch (same samples, same entropies up to rounding)
                assert b[key] == pytest.approx(a[key], abs=1e-5), key
    assert any("entropy/mean" in row for row in kept)
