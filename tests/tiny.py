"""A tiny Qwen2 model and character-level tokenizer for trainer tests (no download, seconds to build)."""

from __future__ import annotations

import string
from pathlib import Path

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

ALPHABET = string.digits + string.ascii_letters + " +-*/=.,:?\\{}()\n"


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    vocab = {"<|endoftext|>": 0, **{ch: i + 1 for i, ch in enumerate(ALPHABET)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<|endoftext|>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    tok.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>", padding_side="left"
    )


def tiny_qwen2(vocab_size: int, eos_id: int, pad_id: int, seed: int = 0, tie_word_embeddings: bool = True):
    """A 2-layer, 32-wide Qwen2 with seeded random weights."""
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=tie_word_embeddings,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        bos_token_id=None,
    )
    return Qwen2ForCausalLM(config)


def tiny_model(tokenizer, seed: int = 0) -> Qwen2ForCausalLM:
    return tiny_qwen2(len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id, seed)


def save_tiny(path: Path, seed: int = 0) -> Path:
    tokenizer = tiny_tokenizer()
    model = tiny_model(tokenizer, seed)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


# ----------------------------------------------------------------------------- character-level sampling tests
CHARS = list("0123456789+-*/=(){}\\ abdexo")


def char_tokenizer(chars: list[str]) -> PreTrainedTokenizerFast:
    """One token per character; '<eos>' (id 0) doubles as the pad token."""
    vocab = {"<eos>": 0, **{c: i + 1 for i, c in enumerate(chars)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<eos>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<eos>", pad_token="<eos>")


PROMPTS = ["1+1=", "(2*3)-4=", "9/3="]  # different lengths: exercises left padding
