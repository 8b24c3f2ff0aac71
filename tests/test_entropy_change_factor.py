"""OPEFO eq. 6 as an expectation over the vocabulary: e_t = E_{a~pi}[(1 - pi(a))^2 (log pi(a) + H)] per position.

Checked against a brute-force sum over the vocabulary (float64, a Python loop), in the pure function, in the
length-bucketed head pass (chunked: any chunk size gives the same numbers) and in the sampler's decoding loop.
"""

from __future__ import annotations

import math

import pytest
import torch
from tiny import tiny_model, tiny_tokenizer
from trl.trainer.utils import add_fused_lm_head

from rlvr_lib.eval.sampling import sample_tokens
from rlvr_lib.methods.core import expected_entropy_change_factor
from rlvr_lib.training.length_buckets import token_logps_by_length, token_stats_by_length


def brute_force(logits: torch.Tensor) -> torch.Tensor:
    """sum_a pi(a) (1 - pi(a))^2 (log pi(a) + H), one term per vocabulary entry, in float64. (..., V) -> (...)."""
    flat = logits.double().reshape(-1, logits.size(-1))
    out = torch.zeros(flat.size(0), dtype=torch.float64)
    for row in range(flat.size(0)):
        logp = torch.log_softmax(flat[row], -1)
        entropy = -sum(math.exp(lp) * lp for lp in logp.tolist())
        out[row] = sum(math.exp(lp) * (1 - math.exp(lp)) ** 2 * (lp + entropy) for lp in logp.tolist())
    return out.reshape(logits.shape[:-1])


# ----------------------------------------------------------------------------- the pure function
def test_hand_example_two_tokens():
    # p = (0.75, 0.25): H = 0.5623351; log p + H = (0.2746530, -0.8239593)
    # e = 0.75 * 0.25^2 * 0.2746530 + 0.25 * 0.75^2 * (-0.8239593) = 0.0128744 - 0.1158693 = -0.1029949
    logits = torch.log(torch.tensor([[0.75, 0.25]]))
    assert expected_entropy_change_factor(logits).item() == pytest.approx(-0.1029949, abs=1e-6)


def test_uniform_and_one_hot_give_zero_and_minus_inf_is_safe():
    assert expected_entropy_change_factor(torch.zeros(3, 17)).abs().max() < 1e-7  # log p + H = 0 everywhere
    one_hot = torch.tensor([[0.0, -math.inf, -math.inf]])  # top-p removed the rest: p = 1 on one token
    assert expected_entropy_change_factor(one_hot).item() == 0.0
    partly = torch.tensor([[0.3, -1.0, -math.inf, 2.0]])
    assert torch.allclose(expected_entropy_change_factor(partly), expected_entropy_change_factor(partly[:, [0, 1, 3]]))


@pytest.mark.parametrize("scale", [0.3, 2.0, 8.0])
def test_matches_brute_force_and_ignores_a_logit_shift(scale):
    g = torch.Generator().manual_seed(int(scale * 10))
    logits = scale * torch.randn(3, 5, 40, generator=g)
    e = expected_entropy_change_factor(logits)
    assert e.shape == (3, 5) and e.dtype == torch.float32
    assert torch.allclose(e.double(), brute_force(logits), atol=1e-5, rtol=0)
    assert torch.allclose(expected_entropy_change_factor(logits + 7.0), e, atol=1e-6)
    assert expected_entropy_change_factor(logits.double()).dtype == torch.float64


# ----------------------------------------------------------------------------- the chunked head pass
def padded_batch(prompt_lengths, completion_lengths, vocab, seed=0):
    """(ids, mask, T): left-padded prompts then right-padded completions, like TRL's scored batch."""
    g = torch.Generator().manual_seed(seed)
    p, t = max(prompt_lengths), max(completion_lengths)
    mask = torch.zeros(len(prompt_lengths), p + t, dtype=torch.long)
    for i, (pl, cl) in enumerate(zip(prompt_lengths, completion_lengths, strict=True)):
        mask[i, p - pl : p] = 1
        mask[i, p : p + cl] = 1
    return torch.randint(1, vocab, mask.shape, generator=g) * mask, mask, t


@pytest.fixture(scope="module")
def scored():
    """The tiny model with TRL's fused head, a padded batch, and each completion position's logits (full forward)."""
    tok = tiny_tokenizer()
    model = tiny_model(tok)
    add_fused_lm_head(model, temperature=0.7, outputs=("log_probs", "entropy"))
    ids, mask, t = padded_batch([3, 6, 4, 6, 2, 5, 6, 1], [1, 9, 3, 2, 2, 8, 4, 5], vocab=len(tok))
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask).logits[:, -t - 1 : -1] / 0.7  # (B, T, V): fine here
    return model, ids, mask, t, logits


@pytest.mark.parametrize("rows_per_bucket", [1, 3, 64])
def test_head_pass_matches_the_fused_head_and_brute_force(scored, rows_per_bucket):
    model, ids, mask, t, logits = scored
    with torch.no_grad():
        fused_logps, fused_entropies = token_logps_by_length(
            model, ids, mask, t, rows_per_bucket=rows_per_bucket, compute_entropy=True
        )
    logps, entropies, factors = token_stats_by_length(
        model.base_model, model.get_output_embeddings(), ids, mask, t, rows_per_bucket=rows_per_bucket, temperature=0.7
    )
    completion = mask[:, -t:].bool()
    assert logps.shape == entropies.shape == factors.shape == (ids.size(0), t)
    assert torch.allclose(logps, fused_logps, atol=1e-5, rtol=0)
    assert torch.allclose(entropies, fused_entropies, atol=1e-5, rtol=0)
    assert torch.allclose(factors[completion].double(), brute_force(logits[completion]), atol=1e-5, rtol=0)
    assert (factors[~completion] == 0).all() and (logps[~completion] == 0).all()
    assert factors[completion].abs().max() > 1e-4  # not trivially zero


def test_chunk_size_does_not_change_the_numbers(scored):
    """Up to float rounding: 1 position per chunk and 1..3 rows of V are bit-identical here; one chunk for all
    positions differs by ~1e-6 (another matmul shape)."""
    model, ids, mask, t, _ = scored
    vocab = model.get_output_embeddings().weight.size(0)
    runs = [
        token_stats_by_length(
            model.base_model,
            model.get_output_embeddings(),
            ids,
            mask,
            t,
            rows_per_bucket=3,
            temperature=0.7,
            chunk_elements=chunk,
        )
        for chunk in (1, vocab, 3 * vocab, 2**26)  # 1 position per chunk (also below one row of V) ... all at once
    ]
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            assert torch.allclose(a, b, atol=1e-5, rtol=0)  # float rounding of differently shaped matmuls (~1e-6)


# ----------------------------------------------------------------------------- the sampler
def test_sampler_factors_match_a_forward_of_each_row():
    tok = tiny_tokenizer()
    model = tiny_model(tok, seed=1).eval()
    enc = tok(["1+1=", "(2*3)-4=", "9/3="] * 2, return_tensors="pt", padding=True)
    kwargs = dict(temperature=0.8, top_p=1.0, max_new_tokens=7, eos_ids=[tok.eos_token_id], pad_token_id=0)
    torch.manual_seed(3)
    plain = sample_tokens(model, enc["input_ids"], enc["attention_mask"], **kwargs)
    torch.manual_seed(3)
    out = sample_tokens(model, enc["input_ids"], enc["attention_mask"], entropy_change_factors=True, **kwargs)
    assert plain.entropy_change_factors is None
    for a, b in zip(plain[:4], out[:4], strict=True):  # asking for the factors draws the same tokens
        assert torch.equal(a, b)
    for row in range(out.tokens.size(0)):
        prompt = enc["input_ids"][row][enc["attention_mask"][row].bool()]
        n = int(out.lengths[row])
        sequence = torch.cat([prompt, out.tokens[row, :n]])
        with torch.no_grad():  # one unpadded row: the reference, with the full (L, V) logits
            logits = model(input_ids=sequence[None]).logits[0, prompt.numel() - 1 : -1] / 0.8
        expected = brute_force(logits)
        assert torch.allclose(out.entropy_change_factors[row, :n].double(), expected, atol=1e-5, rtol=0)
        assert (out.entropy_change_factors[row, n:] == 0).all()
