"""Length-bucketed forward passes: every row once, every real token kept, same numbers as one padded block."""

from __future__ import annotations

import pytest
import torch
from tiny import tiny_model, tiny_tokenizer
from trl.trainer.utils import add_fused_lm_head

from rlvr_lib.training.length_buckets import length_buckets, token_logps_by_length


def padded_batch(prompt_lengths, completion_lengths, vocab, seed=0):
    """(ids, mask, T): left-padded prompts then right-padded completions, like TRL's scored batch."""
    g = torch.Generator().manual_seed(seed)
    p, t = max(prompt_lengths), max(completion_lengths)
    mask = torch.zeros(len(prompt_lengths), p + t, dtype=torch.long)
    for i, (pl, cl) in enumerate(zip(prompt_lengths, completion_lengths, strict=False)):
        mask[i, p - pl : p] = 1
        mask[i, p : p + cl] = 1
    ids = torch.randint(1, vocab, mask.shape, generator=g) * mask
    return ids, mask, t


def test_buckets_cover_each_row_once_and_all_its_tokens():
    _, mask, t = padded_batch([3, 5, 4, 5, 2, 3, 5], [1, 7, 3, 0, 2, 6, 4], vocab=10)
    width = mask.size(1)
    buckets = length_buckets(mask, t, rows_per_bucket=3)
    rows = torch.cat([r for r, _, _ in buckets])
    assert sorted(rows.tolist()) == list(range(mask.size(0)))
    assert [r.numel() for r, _, _ in buckets] == [3, 3, 1]
    for r, start, stop in buckets:
        assert start <= width - t < stop  # at least one completion column, none cut from the completion start
        outside = mask[r].clone()
        outside[:, start:stop] = 0
        assert outside.sum() == 0  # nothing real left out
    completion = mask[:, width - t :].sum(1)
    assert completion[rows].tolist() == sorted(completion.tolist())  # sorted by completion length
    assert buckets[0][2] - buckets[0][1] < width  # the short rows' bucket is narrower than the block


@pytest.mark.parametrize(
    "bad,match",
    [
        ((torch.ones(3), 1, 1), "must be"),
        ((torch.ones(2, 4), 4, 1), "logits_to_keep"),
        ((torch.ones(2, 4), 2, 0), "rows_per_bucket"),
    ],
)
def test_bad_arguments_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        length_buckets(*bad)


def block_forward(model, ids, mask, t):
    """TRL's one-block scoring call (GRPOTrainer._get_per_token_logps_and_entropies without chunks)."""
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :-t] = -100
    out = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    return out.log_probs[:, -t:], out.entropy[:, -t:]


@pytest.mark.parametrize("rows_per_bucket", [1, 3, 64])
def test_bucketed_forward_matches_the_padded_block(rows_per_bucket):
    tok = tiny_tokenizer()
    model = tiny_model(tok)
    add_fused_lm_head(model, outputs=("log_probs", "entropy"))
    ids, mask, t = padded_batch([3, 6, 4, 6, 2, 5, 6, 1], [1, 9, 3, 2, 2, 8, 4, 5], vocab=len(tok))

    block_logps, block_entropies = block_forward(model, ids, mask, t)
    block_loss = (block_logps * block_entropies).sum()
    block_grads = torch.autograd.grad(block_loss, list(model.parameters()))
    logps, entropies = token_logps_by_length(model, ids, mask, t, rows_per_bucket=rows_per_bucket, compute_entropy=True)
    grads = torch.autograd.grad((logps * entropies).sum(), list(model.parameters()))

    assert logps.shape == entropies.shape == (ids.size(0), t)
    assert torch.allclose(logps, block_logps, atol=1e-5, rtol=0)
    assert torch.allclose(entropies, block_entropies, atol=1e-5, rtol=0)
    completion_mask = mask[:, -t:].bool()
    assert (logps[~completion_mask] == 0).all() and (entropies[~completion_mask] == 0).all()
    assert (logps[completion_mask] < 0).all()
    for g, bg in zip(grads, block_grads, strict=False):
        assert torch.allclose(g, bg, atol=1e-5, rtol=1e-4)
    logps_only, none = token_logps_by_length(model, ids, mask, t, rows_per_bucket=rows_per_bucket)
    assert none is None and torch.equal(logps_only, logps.detach())
