"""Seeded, batched sampling with HF ``generate``, recording the entropy of the sampling distribution.

Entropy: a logits processor placed after the temperature and top-p warpers sees, at every generated position,
the exact logits that ``generate`` samples from, and records H = -sum p log p (nats) of their softmax. It is the
entropy of the distribution actually sampled (temperature- and top-p-processed), not of the raw model
distribution, and needs no extra forward pass. Temperature and top-p are applied by our own processors;
``top_k``, ``repetition_penalty`` and the model's other sampling defaults are neutralised so that nothing from
``model.generation_config`` changes the distribution.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import LogitsProcessor, LogitsProcessorList, TemperatureLogitsWarper, TopPLogitsWarper


@dataclass(frozen=True)
class Completion:
    """One sample: decoded ``text`` (special tokens removed), ``n_tokens`` generated up to and including the
    first eos (``max_new_tokens`` if none), and ``entropy``, the mean per-token entropy (nats) over those tokens."""

    text: str
    n_tokens: int
    entropy: float


class _EntropyRecorder(LogitsProcessor):
    """Last logits processor: appends the entropy (B,) of softmax(scores) per step; leaves scores unchanged."""

    def __init__(self) -> None:
        self.steps: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(scores.float(), dim=-1)
        self.steps.append(torch.special.entr(probs).sum(-1))  # entr(0) = 0 for top-p-masked tokens
        return scores


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


def _generate_batch(model, tokenizer, prompts: list[str], *, temperature: float, top_p: float,
                    max_new_tokens: int, eos_ids: list[int]) -> list[Completion]:
    """Sample one completion per prompt (prompts may repeat)."""
    enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
    recorder = _EntropyRecorder()
    processors = LogitsProcessorList()
    if temperature != 1.0:
        processors.append(TemperatureLogitsWarper(float(temperature)))
    if top_p < 1.0:
        processors.append(TopPLogitsWarper(float(top_p)))
    processors.append(recorder)
    out = model.generate(
        **enc, do_sample=True, max_new_tokens=max_new_tokens, logits_processor=processors,
        temperature=1.0, top_p=1.0, top_k=0, repetition_penalty=1.0,  # neutral: our processors do the work
        eos_token_id=eos_ids, pad_token_id=tokenizer.pad_token_id,
    )
    ids = out[:, enc["input_ids"].shape[1]:]  # (B, T)
    entropy = torch.stack(recorder.steps, dim=1)  # (B, T)
    is_eos = torch.isin(ids, torch.tensor(eos_ids, device=ids.device))
    first_eos = torch.where(is_eos.any(1), is_eos.int().argmax(1) + 1, ids.shape[1])  # (B,) lengths
    mask = torch.arange(ids.shape[1], device=ids.device)[None, :] < first_eos[:, None]
    mean_entropy = (entropy * mask).sum(1) / first_eos
    lengths = first_eos.tolist()
    texts = tokenizer.batch_decode([row[:m] for row, m in zip(ids.tolist(), lengths)], skip_special_tokens=True)
    return [Completion(t, m, float(h)) for t, m, h in zip(texts, lengths, mean_entropy.tolist())]


def _check_args(prompts, n, temperature, top_p, max_new_tokens, batch_size) -> None:
    if not prompts or not all(isinstance(p, str) for p in prompts):
        raise ValueError("prompts must be a non-empty list of strings")
    for name, value in (("n", n), ("max_new_tokens", max_new_tokens), ("batch_size", batch_size)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")


def sample_completions(
    model, tokenizer, prompts: list[str], n: int, *, temperature: float = 1.0, top_p: float = 1.0,
    max_new_tokens: int, batch_size: int, seed: int = 0, desc: str = "sampling",
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
            for start, batch_seed in zip(tqdm(starts, desc=desc, unit="batch"), batch_seeds):
                torch.manual_seed(int(batch_seed))
                batch = jobs[start:start + batch_size]
                completions = _generate_batch(model, tokenizer, [prompts[i] for i in batch], temperature=temperature,
                                              top_p=top_p, max_new_tokens=max_new_tokens, eos_ids=eos_ids)
                for i, completion in zip(batch, completions):
                    results[i].append(completion)
    finally:
        model.train(was_training)
        tokenizer.padding_side = padding_side
    return results
