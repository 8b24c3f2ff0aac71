"""Seeded, batched sampling with a KV-cached decoding loop, recording the entropy of the sampling distribution.

Entropy: at every generated position the loop applies the temperature and top-p warpers to the model's logits
and records H = -sum p log p (nats) of the softmax it then samples from: the entropy of the distribution
actually sampled (temperature- and top-p-processed), not of the raw model distribution, with no extra forward
pass. Nothing from ``model.generation_config`` (top_k, repetition penalty, ...) enters the distribution.
Speed: finished rows leave the batch (see ``sample_tokens``), which HF ``generate`` does not do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import DynamicCache, LogitsProcessorList, TemperatureLogitsWarper, TopPLogitsWarper

from rlvr_lib.methods.core import expected_entropy_change_factor


@dataclass(frozen=True)
class Completion:
    """One sample: decoded ``text`` (special tokens removed), ``n_tokens`` generated up to and including the
    first eos (``max_new_tokens`` if none), and ``entropy``, the mean per-token entropy (nats) over those tokens."""

    text: str
    n_tokens: int
    entropy: float


def _eos_ids(model, tokenizer) -> list[int]:
    """Token ids that end a completion (model's generation config and tokenizer); checks there is a pad token."""
    ids = model.generation_config.eos_token_id
    ids = [] if ids is None else [ids] if isinstance(ids, int) else list(ids)
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    if not ids:
        raise ValueError("tokenizer: neither the tokenizer nor model.generation_config defines an eos token")
    if tokenizer.pad_token_id is None:
        raise ValueError("tokenizer has no pad token; set one first, e.g. tokenizer.pad_token = tokenizer.eos_token")
    return ids


# Compact the batch (drop finished rows from the cache and the next forward) once this share of it has finished.
COMPACT_FRACTION = 0.25


def sampling_warpers(temperature: float, top_p: float) -> LogitsProcessorList:
    """The temperature and top-p warpers (none at temperature 1 and top-p 1; greedy decoding, temperature 0, warps
    nothing: it takes the argmax of the raw logits)."""
    processors = LogitsProcessorList()
    if temperature not in (0.0, 1.0):
        processors.append(TemperatureLogitsWarper(float(temperature)))
    if top_p < 1.0:
        processors.append(TopPLogitsWarper(float(top_p)))
    return processors


def draw_by_uniform(probs: torch.Tensor, uniforms: torch.Tensor) -> torch.Tensor:
    """Inverse-CDF draw: per row the first token whose cumulative probability exceeds ``u`` times the row's total.

    Args: probs (rows, V), uniforms (rows,) in [0, 1). Returns (rows,) long. A zero-probability token is never
    drawn; the draw is exactly distributed as ``probs`` and depends on nothing but its row's probabilities and u.
    """
    cumulative = probs.float().cumsum(-1)
    targets = uniforms.to(cumulative) * cumulative[:, -1]
    drawn = torch.searchsorted(cumulative, targets[:, None], right=True).squeeze(1)
    return drawn.clamp(max=probs.size(-1) - 1)


class SampledTokens(NamedTuple):
    """What ``sample_tokens`` returns; (B, max_new_tokens) tensors are 0 (pad for ``tokens``) after a row's end."""

    tokens: torch.Tensor  # (B, max_new_tokens) long
    lengths: torch.Tensor  # (B,) long
    logps: torch.Tensor  # (B, max_new_tokens) log-prob of each drawn token
    entropies: torch.Tensor  # (B, max_new_tokens) entropy (nats) of the distribution it was drawn from
    entropy_change_factors: torch.Tensor | None = None  # (B, max_new_tokens), when asked for


@torch.no_grad()
def sample_tokens(
    model,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    *,
    temperature: float,
    top_p: float,
    max_new_tokens: int,
    eos_ids: list[int],
    pad_token_id: int,
    entropy_change_factors: bool = False,
    uniforms: torch.Tensor | None = None,
) -> SampledTokens:
    """Sample one completion per left-padded prompt row with a KV-cached decoding loop that stops computing
    finished rows.

    Args:
        input_ids, attention_mask: (B, P) left-padded prompts.
    Returns ``tokens`` (B, max_new_tokens), pad after each row's end; ``lengths`` (B,), tokens up to and including
    the first eos (``max_new_tokens`` if none); ``logps`` and ``entropies`` (B, max_new_tokens): per generated
    token, the log-probability of the drawn token and the entropy (nats) of the distribution it was drawn from
    (temperature- and top-p-processed), 0 after the row's end. ``temperature`` 0 is greedy decoding: each row
    takes the argmax of the logits (no random draw, ``uniforms`` unused), and ``logps`` / ``entropies`` are those of
    the unwarped distribution (temperature 1), the degenerate argmax distribution having none. With
    ``entropy_change_factors``, also ``entropy_change_factors`` (B, max_new_tokens): OPEFO's
    e_t = E_{a ~ pi}[(1 - pi(a))^2 (log pi(a) + H)] of that same distribution
    (``methods.core.expected_entropy_change_factor``, opefo.txt eq. 6), computed from the step's (rows, V) logits,
    so no (B, T, V) tensor is ever held; else None. Returned as a ``SampledTokens``.
    ``uniforms`` (B, max_new_tokens) in [0, 1): row r's token at step t is ``draw_by_uniform`` with
    ``uniforms[r, t]`` instead of a ``torch.multinomial`` draw, so a row's sample depends on its own numbers only,
    not on which rows share its batch (``rlvr_lib.training.rollout_chunks``: chunked rollouts equal unchunked ones).

    Each step applies the temperature and top-p warpers to the last logits and draws the next token from their
    softmax with ``torch.multinomial``; position ids count the real tokens (left padding ignored). This is what HF
    ``generate`` does (with top_k 0), and without compaction the draws are identical (tests/test_sampling_speed.py).
    Unlike ``generate``, rows that have produced an eos leave the batch (cache included) once ``COMPACT_FRACTION``
    of it has finished, so for the same seed the samples differ from ``generate``'s (same distribution, fewer
    random draws per step).
    """
    rows = input_ids.size(0)
    device = input_ids.device
    mask = attention_mask
    positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
    cache = DynamicCache(config=model.config)
    logits = model(
        input_ids=input_ids, attention_mask=mask, position_ids=positions, cache=cache, use_cache=True, logits_to_keep=1
    ).logits[:, -1]
    warpers = sampling_warpers(temperature, top_p)
    eos = torch.tensor(eos_ids, device=device)
    tokens = torch.full((rows, max_new_tokens), pad_token_id, dtype=torch.long, device=device)
    lengths = torch.full((rows,), max_new_tokens, dtype=torch.long, device=device)
    token_logps = torch.zeros(rows, max_new_tokens, device=device)
    token_entropies = torch.zeros(rows, max_new_tokens, device=device)
    token_factors = torch.zeros(rows, max_new_tokens, device=device) if entropy_change_factors else None
    batch_rows = torch.arange(rows, device=device)  # the original row of each row in the batch
    running = torch.ones(rows, dtype=torch.bool, device=device)  # rows of the batch still generating
    next_position = positions[:, -1:] + 1
    for step in range(max_new_tokens):
        scores = warpers(None, logits)
        probs = torch.softmax(scores.float(), dim=-1)
        entropy = torch.special.entr(probs).sum(-1)  # entr(0) = 0 for top-p-masked tokens
        if temperature == 0:
            sampled = scores.argmax(-1)
        elif uniforms is None:
            sampled = torch.multinomial(probs, num_samples=1).squeeze(1)
        else:
            sampled = draw_by_uniform(probs, uniforms[batch_rows, step])
        logp = torch.log_softmax(scores.float(), dim=-1).gather(1, sampled[:, None]).squeeze(1)
        live = batch_rows[running]
        tokens[live, step] = sampled[running]
        token_logps[live, step] = logp[running]
        token_entropies[live, step] = entropy[running]
        if token_factors is not None:
            token_factors[live, step] = expected_entropy_change_factor(scores[running])
        ended = running & torch.isin(sampled, eos)
        lengths[batch_rows[ended]] = step + 1
        running &= ~ended
        if step + 1 == max_new_tokens or not running.any():
            break
        if (~running).sum() >= COMPACT_FRACTION * running.numel():
            keep = running.nonzero().squeeze(1)
            cache.batch_select_indices(keep)
            batch_rows, sampled, mask, next_position = batch_rows[keep], sampled[keep], mask[keep], next_position[keep]
            running = running[keep]
        mask = torch.cat([mask, mask.new_ones(mask.size(0), 1)], dim=1)
        logits = model(
            input_ids=sampled[:, None], attention_mask=mask, position_ids=next_position, cache=cache, use_cache=True
        ).logits[:, -1]
        next_position = next_position + 1
    return SampledTokens(tokens, lengths, token_logps, token_entropies, token_factors)


def _generate_batch(
    model, tokenizer, prompts: list[str], *, temperature: float, top_p: float, max_new_tokens: int, eos_ids: list[int]
) -> list[Completion]:
    """Sample one completion per prompt (prompts may repeat) with ``sample_tokens``."""
    enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
    tokens, lengths, _, entropies, _ = sample_tokens(
        model,
        enc["input_ids"],
        enc["attention_mask"],
        temperature=temperature,
        top_p=top_p,
        max_new_tokens=max_new_tokens,
        eos_ids=eos_ids,
        pad_token_id=tokenizer.pad_token_id,
    )
    mean_entropy = entropies.sum(1) / lengths
    lengths_list = lengths.tolist()
    rows = [row[:n] for row, n in zip(tokens.tolist(), lengths_list, strict=True)]
    texts = tokenizer.batch_decode(rows, skip_special_tokens=True)
    return [Completion(t, n, float(h)) for t, n, h in zip(texts, lengths_list, mean_entropy.tolist(), strict=False)]


def _check_args(prompts, n, temperature, top_p, max_new_tokens, batch_size) -> None:
    if not prompts or not all(isinstance(p, str) for p in prompts):
        raise ValueError("prompts must be a non-empty list of strings")
    for name, value in (("n", n), ("max_new_tokens", max_new_tokens), ("batch_size", batch_size)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not temperature >= 0:
        raise ValueError(f"temperature must be >= 0 (0: greedy decoding), got {temperature}")
    if temperature == 0 and n != 1:
        raise ValueError(f"greedy decoding (temperature 0) gives one completion per prompt: n must be 1, got {n}")
    if not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")


def sample_completions(
    model,
    tokenizer,
    prompts: list[str],
    n: int,
    *,
    temperature: float = 1.0,
    top_p: float = 1.0,
    max_new_tokens: int,
    batch_size: int,
    seed: int = 0,
    desc: str = "sampling",
) -> list[list[Completion]]:
    """``n`` sampled completions for each prompt -> (len(prompts), n) nested list.

    Each prompt is repeated ``n`` times and the flat list is generated in batches of ``batch_size`` sequences,
    left-padded, prompts tokenised without special tokens (apply any chat template beforehand). Batch b is
    seeded from ``seed`` alone, inside ``torch.random.fork_rng`` (the caller's RNG state is untouched): the same
    seed, batch size and device give the same samples. Works on CPU and CUDA (inputs go to ``model.device``).
    """
    _check_args(prompts, n, temperature, top_p, max_new_tokens, batch_size)
    eos_ids = _eos_ids(model, tokenizer)
    jobs = [i for i in range(len(prompts)) for _ in range(n)]
    starts = range(0, len(jobs), batch_size)
    batch_seeds = np.random.default_rng(seed).integers(0, 2**63 - 1, size=len(starts))
    devices = [model.device] if model.device.type == "cuda" else []
    results: list[list[Completion]] = [[] for _ in prompts]
    was_training, padding_side = model.training, tokenizer.padding_side
    model.eval()
    tokenizer.padding_side = "left"
    try:
        with torch.random.fork_rng(devices=devices):
            for start, batch_seed in zip(tqdm(starts, desc=desc, unit="batch"), batch_seeds, strict=False):
                torch.manual_seed(int(batch_seed))
                batch = jobs[start : start + batch_size]
                completions = _generate_batch(
                    model,
                    tokenizer,
                    [prompts[i] for i in batch],
                    temperature=temperature,
                    top_p=top_p,
                    max_new_tokens=max_new_tokens,
                    eos_ids=eos_ids,
                )
                for i, completion in zip(batch, completions, strict=False):
                    results[i].append(completion)
    finally:
        model.train(was_training)
        tokenizer.padding_side = padding_side
    return results
