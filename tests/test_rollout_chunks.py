"""Rollouts generated in chunks (``train.generation_chunk``, ``rlvr_lib.training.rollout_chunks``) equal the unchunked
rollout with the same seed, token for token, with the same log-probs, entropies and entropy-change factors (up to
float rounding: the model's matrix products see other batch sizes, ~1e-6 here), on
both generation paths (the CPU sampler and HF generate, the GPU's), and leave the global RNG where it would be."""

from __future__ import annotations

import os
from contextlib import nullcontext

import pytest
import torch
from conftest import config, dataset, exact_match
from tiny import save_tiny
from transformers import AutoModelForCausalLM, AutoTokenizer

from rlvr_lib.eval.sampling import draw_by_uniform
from rlvr_lib.methods import build_method
from rlvr_lib.training.rollout_chunks import chunk_slices
from rlvr_lib.training.trainer import RLVRTrainer

os.environ.setdefault("HF_HUB_OFFLINE", "1")

PROMPTS = [f"{i}+{i * 7}=" for i in range(12)]  # 4-6 characters: ragged left padding


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


def trainer(tmp_path, tiny_dir, chunk, method="opefo"):
    """opefo with eq. 6's expectation form: its rollout needs the entropy-change factors, so the sampler computes
    them too."""
    return RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[exact_match],
        args=config(tmp_path, output_dir=str(tmp_path / f"out{chunk}"), max_completion_length=24),
        method=build_method(method, {"delta_h": "expectation"} if method == "opefo" else None),
        log_reference_kl=False,
        train_dataset=dataset(),
        generation_chunk=chunk,
    )


def rollout(trainer, seed=0):
    """Two rollouts after seeding (the second checks the RNG state the first leaves)."""
    ids = [trainer.processing_class(p, add_special_tokens=False)["input_ids"] for p in PROMPTS]
    torch.manual_seed(seed)
    out = []
    for _ in range(2):
        completions, _ = trainer._generate_single_turn(ids, None, {}, 4)
        out.append((completions, getattr(trainer, "_sampled", None)))
    return out


def test_chunk_slices():
    assert chunk_slices(10, 4) == [slice(0, 4), slice(4, 8), slice(8, 10)]
    assert chunk_slices(10, None) == [slice(0, 10)] and chunk_slices(3, 8) == [slice(0, 3)]
    with pytest.raises(ValueError, match="generation chunk must be >= 1"):
        chunk_slices(10, 0)


def test_draw_by_uniform_is_the_inverse_cdf():
    probs = torch.tensor([[0.2, 0.0, 0.5, 0.3], [0.0, 0.0, 1.0, 0.0]])
    expected = {0.0: [0, 2], 0.19: [0, 2], 0.2: [2, 2], 0.69: [2, 2], 0.7: [3, 2], 0.999: [3, 2]}
    for u, tokens in expected.items():
        assert draw_by_uniform(probs, torch.full((2,), u)).tolist() == tokens


@pytest.mark.parametrize("chunk", [1, 5])
def test_sampler_chunks_equal_one_call(tmp_path, tiny_dir, chunk):
    whole = rollout(trainer(tmp_path, tiny_dir, None))
    chunked = rollout(trainer(tmp_path, tiny_dir, chunk))
    assert len({len(c) for c in whole[0][0]}) > 1  # ragged completions: some rows end early
    for (completions, sampled), (chunked_completions, chunked_sampled) in zip(whole, chunked, strict=True):
        assert completions == chunked_completions
        assert sampled.entropy_change_factors is not None
        assert torch.equal(chunked_sampled.tokens, sampled.tokens)
        assert torch.equal(chunked_sampled.lengths, sampled.lengths)
        for name in ("logps", "entropies", "entropy_change_factors"):  # equal up to float rounding (batch shapes)
            torch.testing.assert_close(getattr(chunked_sampled, name), getattr(sampled, name), rtol=0, atol=1e-5)
    assert whole[0][0] != whole[1][0]  # the second rollout draws new numbers


def test_generate_chunks_equal_one_call(tmp_path, tiny_dir, monkeypatch):
    monkeypatch.setattr(RLVRTrainer, "FAST_SAMPLER", False)  # HF generate: the GPU's path
    whole = rollout(trainer(tmp_path, tiny_dir, None, method="grpo"))
    chunked = rollout(trainer(tmp_path, tiny_dir, 5, method="grpo"))
    assert [c for c, _ in whole] == [c for c, _ in chunked]
    assert whole[0][0] != whole[1][0]


def test_multinomial_chunks_differ(tmp_path, tiny_dir, monkeypatch):
    """The planted violation: chunks drawing with generate's own multinomial sampling are not the same rollout."""
    monkeypatch.setattr(RLVRTrainer, "FAST_SAMPLER", False)
    monkeypatch.setattr("rlvr_lib.training.trainer.generate_with_processor", lambda model, processor: nullcontext())
    whole = rollout(trainer(tmp_path, tiny_dir, None, method="grpo"))
    chunked = rollout(trainer(tmp_path, tiny_dir, 5, method="grpo"))
    assert [c for c, _ in whole] != [c for c, _ in chunked]
