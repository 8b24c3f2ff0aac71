"""The peak-memory estimate printed before training (rlvr_lib.memory_estimate), on hand-computed numbers."""

from __future__ import annotations

import pytest

from rlvr_lib.memory_estimate import ModelMemory, auto_generation_chunk, check_fits, estimate_peak_memory

MODEL = ModelMemory(
    weight_bytes=1000,
    trainable_bytes=100,
    reference_bytes=1000,
    kv_bytes_per_token=10,
    vocab_size=50,
    attention_heads=2,
    intermediate_size=8,
)


def test_components_and_peak():
    estimate = estimate_peak_memory(MODEL, chunk_rows=4, prompt_tokens=3, completion_tokens=5)
    assert estimate.kv_cache == 4 * (3 + 5) * 10 == 320
    assert estimate.prefill == 4 * 3 * (2 * 3 * 4 + 2 * 8 * 2) == 672
    assert estimate.logits == 4 * 50 * 4 * 6 == 4800
    assert (estimate.gradients, estimate.optimizer) == (100, 200)
    assert estimate.peak == 1000 + 1000 + 200 + (320 + 672 + 4800) == 7992
    small = estimate_peak_memory(MODEL, chunk_rows=1, prompt_tokens=1, completion_tokens=1)
    assert small.generation == 20 + 1 * (8 + 32) + 1200 and small.peak == 2200 + small.generation
    tiny_vocab = ModelMemory(**{**vars(MODEL), "vocab_size": 1})
    grads_bigger = estimate_peak_memory(tiny_vocab, chunk_rows=1, prompt_tokens=1, completion_tokens=1)
    assert grads_bigger.generation < grads_bigger.gradients and grads_bigger.peak == 2200 + 100  # gradients win


def test_auto_chunk():
    shape = dict(prompt_tokens=3, completion_tokens=5)
    # one row: 80 + 168 + 1200 = 1448 bytes; 0.75 * 10000 - 2200 fixed = 5300 -> 3 rows
    assert auto_generation_chunk(MODEL, device_bytes=10_000, rollout_rows=16, **shape) == 3
    assert auto_generation_chunk(MODEL, device_bytes=10_000, rollout_rows=2, **shape) == 2
    assert auto_generation_chunk(MODEL, device_bytes=10**12, rollout_rows=1024, **shape) == 256
    assert auto_generation_chunk(MODEL, device_bytes=100, rollout_rows=16, **shape) == 1


def test_check_fits_names_the_settings():
    estimate = estimate_peak_memory(MODEL, chunk_rows=4, prompt_tokens=3, completion_tokens=5)
    check_fits(estimate, 7992, "GPU")
    with pytest.raises(MemoryError, match=r"cannot fit GPU .*peak memory estimate .*train\.generation_chunk"):
        check_fits(estimate, 7991, "GPU")
