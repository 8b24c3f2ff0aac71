"""The evaluation sampler's decoding loop: HF generate's samples when nothing is compacted, and compaction of
finished rows changes which rows are computed, not what a row generates."""

import pytest
import torch
from tiny import CHARS, PROMPTS, char_tokenizer, tiny_qwen2

from rlvr_lib.eval import sampling


@pytest.fixture(scope="module")
def tok():
    return char_tokenizer(CHARS)


@pytest.fixture(scope="module")
def model():
    return tiny_qwen2(len(CHARS) + 1, eos_id=0, pad_id=0, tie_word_embeddings=False).eval()


def texts(model, tok, prompts, **kwargs):
    return [c.text for c in sampling._generate_batch(model, tok, prompts, eos_ids=[tok.eos_token_id], **kwargs)]


def test_without_compaction_the_loop_draws_what_generate_draws(model, tok, monkeypatch):
    monkeypatch.setattr(sampling, "COMPACT_FRACTION", 2.0)  # never compact
    prompts = [p for p in PROMPTS for _ in range(6)]
    tok.padding_side = "left"
    for seed in range(3):
        torch.manual_seed(seed)
        ours = texts(model, tok, prompts, temperature=1.0, top_p=1.0, max_new_tokens=12)
        torch.manual_seed(seed)
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        out = model.generate(
            **enc,
            do_sample=True,
            max_new_tokens=12,
            temperature=1.0,
            top_p=1.0,
            top_k=0,
            eos_token_id=[tok.eos_token_id],
            pad_token_id=tok.pad_token_id,
        )
        theirs = tok.batch_decode(out[:, enc["input_ids"].size(1) :], skip_special_tokens=True)
        assert ours == theirs


@pytest.mark.parametrize("fraction", [0.0, 0.5])
def test_compaction_keeps_each_rows_completion(model, tok, monkeypatch, fraction):
    """Near-greedy sampling (temperature 1e-3) makes each row's completion a function of its prompt alone, so
    dropping finished rows from the batch must not change any row's text, length or entropy."""
    tok.padding_side = "left"
    prompts = [p for p in PROMPTS for _ in range(4)] + ["7", "1+2+3+4=", "x"]
    stops = [tok.eos_token_id] + tok.convert_tokens_to_ids(list("0123"))  # so that rows end at different steps
    kwargs = dict(temperature=1e-3, top_p=1.0, max_new_tokens=16, eos_ids=stops)
    monkeypatch.setattr(sampling, "COMPACT_FRACTION", 2.0)
    torch.manual_seed(0)
    full = sampling._generate_batch(model, tok, prompts, **kwargs)
    monkeypatch.setattr(sampling, "COMPACT_FRACTION", fraction)
    torch.manual_seed(0)
    compacted = sampling._generate_batch(model, tok, prompts, **kwargs)
    assert [c.text for c in compacted] == [c.text for c in full]
    assert [c.n_tokens for c in compacted] == [c.n_tokens for c in full]
    assert [c.entropy for c in compacted] == pytest.approx([c.entropy for c in full], abs=1e-5)
    assert len({c.n_tokens for c in full}) > 1  # rows finish at different steps: compaction happened
