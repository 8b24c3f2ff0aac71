"""The peak-memory estimate printed before training (rlvr_lib.training.memory_estimate), on hand-computed numbers."""

from __future__ import annotations

import pytest

from rlvr_lib.training.memory_estimate import ModelMemory, auto_generation_chunk, check_fits, estimate_peak_memory

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


# --- the loss pass, sharding and the refusal (issue 31), on a tiny Qwen2 counted by hand
def tiny_config():
    from transformers import Qwen2Config

    return Qwen2Config(
        hidden_size=8, intermediate_size=16, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
        head_dim=4, vocab_size=32, tie_word_embeddings=False,
    )  # fmt: skip


def test_model_memory_from_config_counts_by_hand():
    from rlvr_lib.training.memory_estimate import model_memory_from_config

    # a layer: q 8x8 + 8 bias, k and v 8x4 + 4 each, o 8x8, gate/up/down 3 x 8x16, two norms of 8 -> 608
    layer = (64 + 8) + 2 * (32 + 4) + 64 + 3 * 128 + 16
    params = 2 * layer + 32 * 8 * 2 + 8  # + input embedding, LM head (untied), final norm
    memory = model_memory_from_config(tiny_config(), parameter_bytes=2, reference=True)
    assert (layer, params) == (608, 1736)
    assert memory.weight_bytes == memory.trainable_bytes == memory.reference_bytes == 2 * params
    assert memory.embedding_bytes == 2 * 512 and memory.kv_bytes_per_token == 2 * 2 * 1 * 4 * 2
    # LoRA r=2 on the 7 linear layers of each block (not the LM head): r x (in + out) each
    lora = 2 * 2 * ((8 + 8) + (8 + 4) + (8 + 4) + (8 + 8) + 3 * (8 + 16))
    adapted = model_memory_from_config(tiny_config(), parameter_bytes=2, lora_r=2, reference=True)
    assert adapted.trainable_bytes == 2 * lora == 1024 and adapted.weight_bytes == 2 * (params + lora)
    assert adapted.reference_bytes == 0 and not adapted.head_trainable  # LoRA's reference: adapters off


def test_loss_pass_terms_by_hand():
    from rlvr_lib.training.memory_estimate import TrainSetup, model_memory_from_config

    memory = model_memory_from_config(tiny_config(), parameter_bytes=2)
    setup = TrainSetup(micro_rows=2, sequence_tokens=10)  # 20 tokens, bf16 activations, checkpointing on
    e = estimate_peak_memory(memory, chunk_rows=0, prompt_tokens=0, completion_tokens=0, setup=setup)
    assert e.checkpoints == 2 * 20 * 8 * 2 == 640  # every layer's input
    assert e.layer_recompute == 20 * (12 * 8 + 6 * 16) * 2 == 7680
    assert e.attention_mask == 2 * 10 * 10 == 200
    # saved hidden states (2 x bf16) + their float32 gradient and its cast, the head's float32 weight gradient, and
    # two (20 tokens x 32 vocabulary) bf16 logit tiles
    assert e.lm_head == 20 * 8 * (2 + 2 + 4 + 2) + 32 * 8 * 4 + 2 * 20 * 32 * 2 == 5184
    assert e.head_gradient == 512 and e.optimizer_step == 0  # fused AdamW
    assert (e.weights, e.gradients, e.optimizer, e.gathered) == (3472, 3472, 6944, 0)
    # LM head's backward (all checkpoints): 640 + 200 + max(5184, 512 + 7680) = 9032; the first layer's (all
    # gradients): 3472 + 320 + 200 + 7680 = 11672
    assert e.loss_pass == 11672 and e.step == 3472
    assert e.peak == 3472 + 6944 + 11672 == 22088
    foreach = estimate_peak_memory(
        memory, chunk_rows=0, prompt_tokens=0, completion_tokens=0,
        setup=TrainSetup(micro_rows=2, sequence_tokens=10, fused_optimizer=False),
    )  # fmt: skip
    assert foreach.optimizer_step == 3472  # one state-sized temporary
    # sharded over 2 with fp32 master weights: trainable bytes x 2 / 2 shards; two layers and the embeddings
    # gathered in bf16
    sharded = estimate_peak_memory(
        memory, chunk_rows=0, prompt_tokens=0, completion_tokens=0,
        setup=TrainSetup(micro_rows=2, sequence_tokens=10, shards=2, master_bytes=4),
    )  # fmt: skip
    assert (sharded.weights, sharded.gradients, sharded.optimizer) == (3472, 3472, 6944)
    assert sharded.gathered == 2 * 1224 + 1024
    assert "per card of 2 (sharded)" in sharded.summary() and "loss pass" in sharded.summary()


def test_refusal_names_settings_that_fit():
    from rlvr_lib.training.memory_estimate import (
        SUGGESTION_FRACTION,
        TrainSetup,
        fitting_settings,
        model_memory_from_config,
    )

    def estimate_for(rows, shards, lora):
        memory = model_memory_from_config(tiny_config(), parameter_bytes=2, lora_r=1 if lora else 0)
        setup = TrainSetup(micro_rows=rows, sequence_tokens=64, shards=shards, master_bytes=4 if shards > 1 else 0)
        return estimate_peak_memory(memory, chunk_rows=1, prompt_tokens=8, completion_tokens=56, setup=setup)

    now = estimate_for(8, 1, False)  # 16 responses per step, accumulation 2, one GPU: 8 rows per micro-batch
    device = now.peak - 1
    assert estimate_for(4, 1, False).peak <= SUGGESTION_FRACTION * device < estimate_for(8, 1, False).peak
    alternatives = fitting_settings(
        estimate_for, device_bytes=device, responses=16, accumulation=2, processes=1, sharded=False, lora_rank=1
    )
    assert alternatives[0].startswith(
        "train.gradient_accumulation_steps: 4 (micro-batch 4 rows per device instead of 8"
    )
    assert any(
        a.startswith("2 GPUs sharded (FSDP): accelerate launch --config_file configs/accelerate/fsdp2.yaml")
        for a in alternatives
    )
    # LoRA is named when only LoRA fits (a stand-in estimate: 10 bytes with LoRA, 1000 without)
    only_lora = fitting_settings(
        lambda rows, shards, lora: type("E", (), {"peak": 10 if lora else 1000})(),
        device_bytes=100, responses=16, accumulation=2, processes=1, sharded=False, lora_rank=32,
    )  # fmt: skip
    assert len(only_lora) == 1 and only_lora[0].startswith("train.lora_r: 32 (LoRA on one GPU, micro-batch 8 rows")
    with pytest.raises(MemoryError) as refused:
        check_fits(now, device, "a small GPU", alternatives)
    message = str(refused.value)
    assert "cannot fit a small GPU" in message and "micro-batch 8 rows" in message
    assert "would fit, by the same estimate (within 85% of the card): train.gradient_accumulation_steps: 4" in message
    assert "--num_processes 2" in message
    with pytest.raises(MemoryError, match="No micro-batch, GPU count"):
        check_fits(now, 10, "a tiny GPU", [])


def test_memory_probe_estimate_only(capsys):
    """`python -m rlvr_lib memory-probe --estimate-only` prints the estimate that docs/gpu.md section 0 compares with
    the measured peak (tepo, 4 rows of 2,024 + 8,192 tokens, one card: 69.33 GiB), building no model."""
    from rlvr_lib.__main__ import main

    assert main(["memory-probe", "--params", "configs/tepo.yaml", "--rows", "4", "--estimate-only"]) == 0
    out = capsys.readouterr().out
    assert "4 rows x 10216 tokens per device, 1 process(es)" in out
    assert "peak memory estimate 69.33 GiB one card" in out and "loss pass 26.77" in out
