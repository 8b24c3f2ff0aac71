"""Rollouts generated a chunk of rows at a time, equal to one unchunked call with the same seed.

A rollout batch of B prompts x T new tokens generated in one call holds the KV cache and the logits of all B rows
at once (aer's profile: 1,024 rows). Here rows go through ``chunk`` at a time. So that the chunk size changes
nothing but memory and speed, every random number is fixed before the first chunk: one (B, T) table of uniforms
from a private generator, seeded by a single draw from the global CPU generator, and row r's token at step t is
the inverse-CDF draw of its sampling distribution at ``uniforms[r, t]`` (``eval.sampling.draw_by_uniform``),
whoever shares its batch. The global generators are restored after the chunks (``torch.random.fork_rng``), so a
rollout consumes the same randomness however it is chunked and the rollouts after it are equal too
(tests/test_rollout_chunks.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import torch
from transformers import LogitsProcessor, LogitsProcessorList

from rlvr_lib.eval.sampling import draw_by_uniform, sampling_warpers

Chunk = TypeVar("Chunk")


def chunk_slices(rows: int, chunk: int | None) -> list[slice]:
    """Consecutive row ranges of at most ``chunk`` rows covering ``range(rows)`` (None: one range)."""
    if chunk is not None and chunk < 1:
        raise ValueError(f"generation chunk must be >= 1 rows, got {chunk}")
    step = rows if chunk is None else chunk
    return [slice(start, min(start + step, rows)) for start in range(0, rows, max(step, 1))]


def rollout_uniforms(rows: int, steps: int, device: torch.device) -> torch.Tensor:
    """(rows, steps) uniforms in [0, 1) from a generator seeded by one draw of the global CPU generator."""
    seed = int(torch.randint(0, 2**62, (1,)).item())
    generator = torch.Generator(device=device).manual_seed(seed)
    return torch.rand(rows, steps, generator=generator, device=device)


def generate_in_chunks(
    generate_chunk: Callable[[slice, torch.Tensor], Chunk], rows: int, chunk: int | None, steps: int, device
) -> list[Chunk]:
    """``generate_chunk(rows_slice, uniforms)`` for each chunk of rows, with ``uniforms`` (chunk rows, steps) its
    rows of the rollout's table; the global RNG states are as after one draw, whatever happened inside."""
    uniforms = rollout_uniforms(rows, steps, device)
    devices = [device] if torch.device(device).type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        return [generate_chunk(rows_slice, uniforms[rows_slice]) for rows_slice in chunk_slices(rows, chunk)]


class PresetDraws(LogitsProcessor):
    """For HF ``generate``: draws each row's next token with ``draw_by_uniform`` from its temperature/top-p
    distribution and returns scores that leave ``generate``'s own sampling no choice (0 there, -inf elsewhere;
    the warpers ``generate`` applies afterwards keep a one-token distribution as it is).

    Args: uniforms (rows, max_new_tokens), the rows of the batch ``generate`` is called with.
    """

    def __init__(self, uniforms: torch.Tensor, temperature: float, top_p: float):
        self.uniforms, self.step, self.warpers = uniforms, 0, sampling_warpers(temperature, top_p)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        probs = torch.softmax(self.warpers(input_ids, scores).float(), dim=-1)
        drawn = draw_by_uniform(probs, self.uniforms[:, self.step])
        self.step += 1
        return torch.full_like(scores, float("-inf")).scatter_(1, drawn[:, None], 0.0)


@contextmanager
def generate_with_processor(model, processor: LogitsProcessor) -> Iterator[None]:
    """``model.generate`` called with ``logits_processor=[processor]`` while inside (an instance attribute that
    shadows the class's method; PEFT models pass it on to their base model)."""
    model.generate = functools.partial(type(model).generate, model, logits_processor=LogitsProcessorList([processor]))
    try:
        yield
    finally:
        del model.generate
