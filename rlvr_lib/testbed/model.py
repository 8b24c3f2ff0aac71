"""A small Qwen2-architecture causal LM built from scratch (fp32, tied embeddings, seeded)."""

from __future__ import annotations

import torch
from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM


def build_model(
    vocab_size: int,
    *,
    seed: int,
    hidden_size: int = 128,
    num_layers: int = 3,
    num_heads: int = 4,
    max_positions: int = 256,
    eos_token_id: int = 0,
) -> Qwen2ForCausalLM:
    """Randomly initialised Qwen2ForCausalLM; the same arguments give the same weights bit for bit.

    ``vocab_size`` is rounded up to a multiple of 8. ``eos_token_id`` doubles as the pad id (as in Qwen2).
    """
    if hidden_size % num_heads or (hidden_size // num_heads) % 2:
        raise ValueError(f"hidden_size {hidden_size} must split into {num_heads} heads of even size")
    config = Qwen2Config(
        vocab_size=-(-vocab_size // 8) * 8,
        hidden_size=hidden_size,
        intermediate_size=4 * hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_heads,
        max_position_embeddings=max_positions,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=eos_token_id,
        pad_token_id=eos_token_id,
        dtype="float32",
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=eos_token_id, pad_token_id=eos_token_id, bos_token_id=None)
    return model
