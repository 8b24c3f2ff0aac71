"""A small byte-level BPE trained from scratch with exactly Qwen2's normaliser and pre-tokenizer.

transformers 5 loads a qwen2 folder's tokenizer as ``Qwen2Tokenizer``, which rebuilds the pipeline
(NFC, the ``PRETOKENIZE_REGEX`` split, ByteLevel) around the saved vocab and merges; training with the
same pipeline keeps ids identical after a reload. The regex isolates every digit, so numbers are
tokenised digit by digit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, normalizers, pre_tokenizers, trainers
from tokenizers.models import BPE
from transformers import AutoTokenizer
from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX, Qwen2Tokenizer

EOS = "<|endoftext|>"

# Texts checked for identical ids after save/reload, beyond the training corpus.
PROBE_TEXTS = (
    "Compute 12+7+30.\nAnswer: 12+7=19, 19+30=49. \\boxed{49}",
    "\\boxed{-12}",
    "\\frac{3}{4} = 0.75, 1/2 + 1/3 = 5/6",
    "Ünïcödé: 日本語, émoji 🙂, e\u0301 (NFD)",
    "  leading spaces\n\n\ttabs\r\nand 1234567890",
    f"text{EOS}after",
)


def train_bpe(texts: Iterable[str], vocab_size: int) -> Tokenizer:
    """Byte-level BPE with Qwen2's NFC normaliser, regex split + ByteLevel pre-tokenizer and decoder."""
    tok = Tokenizer(BPE(unk_token=None, byte_fallback=False, fuse_unk=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    return tok


def to_qwen2(tok: Tokenizer) -> Qwen2Tokenizer:
    """Wrap the trained vocab and merges as the class transformers 5 loads them as (eos = pad = unk = EOS)."""
    model = json.loads(tok.to_str())["model"]
    return Qwen2Tokenizer(vocab=model["vocab"], merges=[tuple(m) for m in model["merges"]])


def build_tokenizer(texts: list[str], vocab_size: int, out_dir: str | Path) -> Qwen2Tokenizer:
    """Train, save into ``out_dir`` and check that ``AutoTokenizer`` reloads it with identical ids.

    Raises ``RuntimeError`` if any of ``texts[:200]`` or ``PROBE_TEXTS`` tokenises differently after
    the reload (or differently from the trained ``tokenizers`` object).
    """
    raw = train_bpe(texts, vocab_size)
    tokenizer = to_qwen2(raw)
    tokenizer.save_pretrained(out_dir)
    reloaded = AutoTokenizer.from_pretrained(out_dir)
    for text in [*texts[:200], *PROBE_TEXTS]:
        ids = raw.encode(text).ids
        if tokenizer(text)["input_ids"] != ids or reloaded(text)["input_ids"] != ids:
            raise RuntimeError(f"tokenizer ids differ after save/reload ({type(reloaded).__name__}) on {text!r}")
    return tokenizer
