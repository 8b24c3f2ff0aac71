"""RLVRTrainer's speed changes (benchmarks/step_profile.py) leave the numbers hook 1 sees unchanged."""

from __future__ import annotations

import os

import pytest
import torch
from conftest import config
from datasets import Dataset
from tiny import save_tiny
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOTrainer
from trl.trainer.utils import add_fused_lm_head

from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.opefo import OPEFO
from rlvr_lib.training.length_buckets import token_logps_by_length
from rlvr_lib.training.trainer import RLVRTrainer

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


def accuracy(prompts, completions, answer, **kwargs):
    return [float(c.strip().startswith(a)) for c, a in zip(completions, answer, strict=False)]


class RecordingGRPO(GRPO):
    name = "grpo"

    def __init__(self, **hparams):
        super().__init__(**hparams)
        self.batches = []

    def rollout(self, batch):
        self.batches.append(batch)
        return super().rollout(batch)


@pytest.mark.parametrize(
    "steps_per_generation,bucket_rows,from_sampler",
    [(1, 32, False), (2, 32, False), (2, 3, False), (1, 32, True), (2, 3, True)],
)
def test_behaviour_numbers_cost_at_most_one_forward(
    tmp_path, tiny_dir, steps_per_generation, bucket_rows, from_sampler, monkeypatch
):
    """Hook 1's behaviour log-probs and entropies come from the sampler (``BEHAVIOUR_FROM_SAMPLER``: no forward)
    or from a single no-grad policy forward per generation batch (TRL's own when it runs one, else the hook's:
    bit for bit the length-bucketed forward); either way TRL's one-block forward up to float rounding."""
    monkeypatch.setattr(RLVRTrainer, "LENGTH_BUCKET_ROWS", bucket_rows)  # 3: several buckets per forward
    monkeypatch.setattr(RLVRTrainer, "BEHAVIOUR_FROM_SAMPLER", from_sampler)
    method = RecordingGRPO()
    args = config(tmp_path, max_steps=2, steps_per_generation=steps_per_generation, beta=0.0, learning_rate=1e-6)
    trainer = RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[accuracy],
        args=args,
        method=method,
        log_reference_kl=True,
        train_dataset=Dataset.from_list([{"prompt": f"{i}+{i}=", "answer": str(2 * i)} for i in range(16)]),
    )
    policy_forwards, scored = [], []
    original_forward = trainer.model.forward  # TRL's fused-head forward

    def counting_forward(*args, **kwargs):
        if kwargs.get("fused_lm_head") and not torch.is_grad_enabled():
            policy_forwards.append(kwargs["input_ids"].size(0))  # rows scored (a call per length bucket)
        return original_forward(*args, **kwargs)

    original_hook = trainer.apply_rollout_hook

    def recording_hook(output):
        scored.append({k: v.clone() for k, v in output.items() if isinstance(v, torch.Tensor)})
        return original_hook(output)

    trainer.apply_rollout_hook = recording_hook
    trainer.model.forward = counting_forward
    trainer.train()

    generations = 2 // steps_per_generation
    assert len(method.batches) == len(scored) == generations
    # the policy scores each rollout once (no-grad), or never when the sampler's numbers serve
    assert sum(policy_forwards) == (0 if from_sampler else 1) * generations * 8 * steps_per_generation
    # The first generation batch was scored by the initial policy: redo that forward, one chunk, on a fresh copy.
    initial = AutoModelForCausalLM.from_pretrained(tiny_dir)
    add_fused_lm_head(initial, outputs=("log_probs", "entropy"))
    out, batch = scored[0], method.batches[0]
    input_ids = torch.cat([out["prompt_ids"], out["completion_ids"]], 1)
    attention_mask = torch.cat([out["prompt_mask"], out["completion_mask"]], 1)
    keep = out["completion_ids"].size(1)
    with torch.no_grad():
        logps, entropies = token_logps_by_length(
            initial, input_ids, attention_mask, keep, compute_entropy=True, rows_per_bucket=bucket_rows
        )
        block_logps, block_entropies, _ = GRPOTrainer._get_per_token_logps_and_entropies(
            trainer, initial, input_ids, attention_mask, keep, compute_entropy=True
        )
    if not from_sampler:
        assert torch.equal(batch.logps, logps)
        assert torch.equal(batch.entropies, entropies)
    assert (batch.logps != 0).sum() == out["completion_mask"].sum()  # every completion token scored, nothing else
    assert torch.allclose(batch.logps, block_logps, atol=1e-5, rtol=0)
    assert torch.allclose(batch.entropies, block_entropies, atol=1e-5, rtol=0)


def scored_completions(tmp_path, tiny_dir, fast_sampler: bool, monkeypatch) -> list[torch.Tensor]:
    monkeypatch.setattr(RLVRTrainer, "FAST_SAMPLER", fast_sampler)
    args = config(
        tmp_path,
        output_dir=str(tmp_path / f"out{fast_sampler}"),
        max_completion_length=8,
        max_steps=2,
        beta=0.0,
        learning_rate=1e-6,
    )
    trainer = RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[accuracy],
        args=args,
        method=GRPO(),
        log_reference_kl=False,
        train_dataset=Dataset.from_list([{"prompt": f"{i}+{i}=", "answer": str(2 * i)} for i in range(16)]),
    )
    seen = []
    original_hook = trainer.apply_rollout_hook

    def recording_hook(output):
        seen.append((output["completion_ids"].clone(), output["completion_mask"].clone()))
        return original_hook(output)

    trainer.apply_rollout_hook = recording_hook
    trainer.train()
    return seen


def test_fast_sampler_draws_what_generate_draws_when_nothing_is_compacted(tmp_path, tiny_dir, monkeypatch):
    """With compaction off, rlvr_lib's rollout loop reproduces TRL's HF-generate rollouts token for token over a
    short run (so it samples the same distribution); with it on, the rollouts are valid completions too."""
    from rlvr_lib.eval import sampling

    monkeypatch.setattr(sampling, "COMPACT_FRACTION", 2.0)
    fast = scored_completions(tmp_path, tiny_dir, True, monkeypatch)
    stock = scored_completions(tmp_path, tiny_dir, False, monkeypatch)
    assert len(fast) == len(stock) == 2
    for (ids, mask), (stock_ids, stock_mask) in zip(fast, stock, strict=False):
        assert torch.equal(mask, stock_mask)
        assert torch.equal(ids * mask, stock_ids * stock_mask)


class RecordingOPEFO(OPEFO):
    name = "opefo"

    def __init__(self, **hparams):
        super().__init__(hparams)
        self.batches = []

    def rollout(self, batch):
        self.batches.append(batch)
        return super().rollout(batch)


@pytest.mark.filterwarnings("ignore:method 'opefo' is defined for exactly one update")
@pytest.mark.parametrize(
    "steps_per_generation,from_sampler,fast_sampler",
    [(1, True, True), (1, False, True), (2, False, True), (2, True, True), (1, True, False)],
)
def test_entropy_change_factors_reach_the_method(
    tmp_path, tiny_dir, steps_per_generation, from_sampler, fast_sampler, monkeypatch
):
    """OPEFO's ``delta_h="expectation"`` gets e_t = E_{a~pi}[(1 - pi(a))^2 (log pi(a) + H)] of the behaviour policy at
    every completion position, from whichever pass gives the behaviour numbers (the sampler's loop; the hook's own
    forward; TRL's scoring forward when a batch serves several updates; HF generate then a forward): equal to a
    brute-force sum over the vocabulary of the initial policy's logits on the first batch."""
    monkeypatch.setattr(RLVRTrainer, "LENGTH_BUCKET_ROWS", 3)
    monkeypatch.setattr(RLVRTrainer, "BEHAVIOUR_FROM_SAMPLER", from_sampler)
    monkeypatch.setattr(RLVRTrainer, "FAST_SAMPLER", fast_sampler)
    head_passes = []
    stats_forward = RLVRTrainer._behaviour_stats_forward

    def counting_stats_forward(self, *args):
        head_passes.append(args[0].size(0))
        return stats_forward(self, *args)

    monkeypatch.setattr(RLVRTrainer, "_behaviour_stats_forward", counting_stats_forward)
    method = RecordingOPEFO(delta_h="expectation")
    args = config(
        tmp_path, max_steps=2, steps_per_generation=steps_per_generation, beta=0.0, learning_rate=1e-6, temperature=0.9
    )
    trainer = RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[accuracy],
        args=args,
        method=method,
        log_reference_kl=False,
        train_dataset=Dataset.from_list([{"prompt": f"{i}+{i}=", "answer": str(2 * i)} for i in range(16)]),
    )
    scored = []
    original_hook = trainer.apply_rollout_hook

    def recording_hook(output):
        scored.append({k: v.clone() for k, v in output.items() if isinstance(v, torch.Tensor)})
        return original_hook(output)

    trainer.apply_rollout_hook = recording_hook
    trainer.train()
    assert "opefo/lambda" in trainer.state.log_history[0]
    generations = 2 // steps_per_generation
    # one behaviour pass per generation batch, which is the sampler's loop when its numbers serve
    assert len(method.batches) == generations
    assert head_passes == ([] if from_sampler and fast_sampler else [8 * steps_per_generation] * generations)

    out, batch = scored[0], method.batches[0]
    input_ids = torch.cat([out["prompt_ids"], out["completion_ids"]], 1)
    attention_mask = torch.cat([out["prompt_mask"], out["completion_mask"]], 1)
    keep = out["completion_ids"].size(1)
    initial = AutoModelForCausalLM.from_pretrained(tiny_dir)
    with torch.no_grad():  # the whole (B, T, V) logits: the brute-force reference on a tiny model
        logits = initial(input_ids=input_ids, attention_mask=attention_mask).logits[:, -keep - 1 : -1].double() / 0.9
    logp = torch.log_softmax(logits, -1)
    p = logp.exp()
    expected = (p * (1 - p) ** 2 * (logp + -(p * logp).sum(-1, keepdim=True))).sum(-1)
    completion = out["completion_mask"].bool()
    factors = batch.entropy_change_factors
    assert factors is not None and factors.shape == batch.logps.shape
    assert torch.allclose(factors[completion].double(), expected[completion], atol=1e-5, rtol=0)
    assert (factors[~completion] == 0).all()
    assert torch.allclose(
        batch.logps[completion].double(),
        logp.gather(-1, out["completion_ids"][..., None])[..., 0][completion],
        atol=1e-5,
    )
