"""ERPO's fig. 1(b) perturbation study: are a policy's high-entropy tokens the ones its answers hinge on?

erpo.txt sec. 1 and fig. 1(b): take responses the policy answers correctly, perturb the top 5% highest-entropy
tokens of each response or the bottom 5%, let the policy regenerate, and compare the final accuracy. Choices
the paper leaves open, each a parameter here:

- ``frac``: share of a response's tokens perturbed per set, ``k = max(1, ceil(frac * L))`` of its ``L``
  tokens (the terminating EOS is not a candidate);
- one *trial* per selected position: the response is kept up to that token, the token is replaced, and the
  policy regenerates the rest at ``temperature`` within the original completion budget
  (``max_new_tokens`` counts the kept and replaced tokens). A trial is correct if the grader accepts it;
- ``replacement``: ``"uniform"`` (a token drawn uniformly from the vocabulary, special tokens and the
  original excluded: the paper's "random replacement", read literally) or ``"policy"`` (drawn from the
  policy's own next-token distribution with the original token removed and renormalised: the most likely
  *other* continuation, so the perturbation stays on the policy's support);
- entropy: of the policy's next-token distribution at temperature 1 (nats), from one forward pass.

Accuracy per set is the mean over responses of the mean over their trials, with a 95% percentile-bootstrap
interval over responses; the difference (bottom minus top) gets a paired bootstrap interval. A *control*
trial at each selected position keeps the original token and regenerates the rest the same way: its
accuracy is what regeneration alone costs from there (the policy's own slips after that point).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from rlvr_lib.eval.passk import bootstrap_ci
from rlvr_lib.tasks.rewards import grade

REPLACEMENTS = ("uniform", "policy")
SETS = ("top", "bottom")


def select_positions(entropy: torch.Tensor, frac: float, which: str) -> list[int]:
    """Positions of the ``max(1, ceil(frac * L))`` highest (``which="top"``) or lowest (``"bottom"``) entries.

    ``entropy``: (L,) per-token entropy of one response. Ties go to the earlier position. Returned sorted.
    """
    if entropy.ndim != 1 or entropy.numel() == 0:
        raise ValueError(f"entropy must be a non-empty 1-D tensor, got shape {tuple(entropy.shape)}")
    if not 0.0 < frac <= 1.0:
        raise ValueError(f"frac must be in (0, 1], got {frac}")
    if which not in SETS:
        raise ValueError(f"which must be one of {SETS}, got {which!r}")
    k = max(1, math.ceil(frac * entropy.numel()))
    values = entropy.double() if which == "bottom" else -entropy.double()
    order = torch.from_numpy(np.lexsort((np.arange(values.numel()), values.cpu().numpy())))  # value, then position
    return sorted(order[:k].tolist())


def replacement_token(
    logits: torch.Tensor, original: int, mode: str, banned: Sequence[int], generator: torch.Generator
) -> int:
    """A token other than ``original`` for one position. ``logits``: (V,) the policy's next-token logits there.

    ``"uniform"``: uniform over the ids in ``[0, V)`` except ``original`` and ``banned`` (special tokens).
    ``"policy"``: softmax(logits) with ``original`` and ``banned`` zeroed, renormalised (uniform over the
    allowed ids if the policy puts no mass on them).
    """
    if mode not in REPLACEMENTS:
        raise ValueError(f"replacement must be one of {REPLACEMENTS}, got {mode!r}")
    allowed = torch.ones(logits.shape[-1], dtype=torch.bool)
    allowed[[original, *banned]] = False
    if not allowed.any():
        raise ValueError("no token is left to replace with")
    weights = allowed.double()
    if mode == "policy":
        probs = torch.softmax(logits.double().cpu(), dim=-1) * allowed
        if probs.sum() > 0:
            weights = probs
    return int(torch.multinomial(weights / weights.sum(), 1, generator=generator))


@dataclass(frozen=True)
class Trial:
    """One regeneration: the response index, the set, the position, the token put there (the original one in
    a control trial), the text, whether it is graded correct and whether the token was replaced."""

    response: int
    which: str
    position: int
    token: int
    text: str
    correct: bool
    perturbed: bool


@torch.no_grad()
def token_entropies(model, prompt_ids: list[int], completion_ids: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """(entropy (L,), logits (L, V)) of the policy's next-token distribution at each completion token."""
    ids = torch.tensor([prompt_ids + completion_ids], device=model.device)
    logits = model(input_ids=ids).logits[0, len(prompt_ids) - 1 : -1].float()  # predicts completion_ids
    entropy = torch.special.entr(torch.softmax(logits, dim=-1)).sum(-1)
    return entropy.cpu(), logits.cpu()


@torch.no_grad()
def _regenerate(
    model,
    tokenizer,
    prefixes: list[list[int]],
    max_new_tokens: int,
    temperature: float,
    eos_ids: list[int],
    batch_size: int,
) -> list[list[int]]:
    """Sampled continuations (token ids, up to and without the first EOS) of left-padded ``prefixes``."""
    out: list[list[int]] = []
    pad = tokenizer.pad_token_id
    for start in range(0, len(prefixes), batch_size):
        batch = prefixes[start : start + batch_size]
        width = max(map(len, batch))
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in batch], device=model.device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in batch], device=model.device)
        gen = model.generate(
            input_ids=ids,
            attention_mask=mask,
            do_sample=True,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            top_p=1.0,
            top_k=0,
            repetition_penalty=1.0,
            eos_token_id=eos_ids,
            pad_token_id=pad,
        )[:, width:].tolist()
        for row in gen:
            cut = next((i for i, t in enumerate(row) if t in eos_ids), len(row))
            out.append(row[:cut])
    return out


def perturbation_study(
    model,
    tokenizer,
    responses: Sequence[dict],
    *,
    frac: float = 0.05,
    replacement: str = "uniform",
    max_new_tokens: int = 64,
    temperature: float = 1.0,
    batch_size: int = 256,
    seed: int = 0,
    n_boot: int = 1000,
) -> dict:
    """Run the protocol on ``responses`` (dicts with ``prompt``, ``completion`` text and ``answer``).

    The responses should be ones the policy answers correctly (``collect_correct_responses``). Returns
    ``{"settings", "n_responses", "n_trials" (perturbed, per set), "accuracy": {set: {value, ci_low, ci_high}},
    "control_accuracy": {set: {...}}, "difference_bottom_minus_top": {...}, "mean_entropy": {set: mean
    entropy of the selected tokens}, "trials": [Trial, ...]}``.
    """
    if not responses:
        raise ValueError("responses must be a non-empty list of dicts with prompt, completion and answer")
    eos_ids = [tokenizer.eos_token_id]
    banned = sorted(set(tokenizer.all_special_ids))
    generator = torch.Generator().manual_seed(seed)
    jobs, entropies = [], {s: [] for s in SETS}
    for r, item in enumerate(responses):
        prompt_ids = tokenizer(item["prompt"], add_special_tokens=False)["input_ids"]
        completion_ids = tokenizer(item["completion"], add_special_tokens=False)["input_ids"]
        if not completion_ids or len(completion_ids) >= max_new_tokens:
            raise ValueError(
                f"responses[{r}]: completion of {len(completion_ids)} tokens, need 1..{max_new_tokens - 1}"
            )
        entropy, logits = token_entropies(model, prompt_ids, completion_ids)
        for which in SETS:
            for t in select_positions(entropy, frac, which):
                # ids past the tokenizer's (the model's vocabulary is padded to a multiple of 8) decode to nothing
                token = replacement_token(
                    logits[t, : len(tokenizer)], completion_ids[t], replacement, banned, generator
                )
                jobs.append((r, which, t, token, True, prompt_ids, completion_ids[:t] + [token]))
                jobs.append((r, which, t, completion_ids[t], False, prompt_ids, completion_ids[: t + 1]))
                entropies[which].append(float(entropy[t]))
    with torch.random.fork_rng(devices=[model.device] if model.device.type == "cuda" else []):
        torch.manual_seed(seed)
        continuations = _regenerate(
            model, tokenizer, [p + kept for *_, p, kept in jobs], max_new_tokens, temperature, eos_ids, batch_size
        )
    trials = []
    for (r, which, t, token, perturbed, _, kept), cont in zip(jobs, continuations, strict=False):
        text = tokenizer.decode(kept + cont[: max_new_tokens - len(kept)], skip_special_tokens=True)
        correct = grade(text, str(responses[r]["answer"])).correct == 1.0
        trials.append(Trial(r, which, t, token, text, correct, perturbed))

    def per_response(which: str, perturbed: bool) -> np.ndarray:  # (R,) mean over each response's trials
        hits = np.zeros(len(responses))
        counts = np.zeros(len(responses))
        for tr in trials:
            if tr.which == which and tr.perturbed == perturbed:
                hits[tr.response] += tr.correct
                counts[tr.response] += 1
        return hits / counts

    def summary(values: np.ndarray) -> dict:
        low, high = bootstrap_ci(values, n_boot=n_boot, seed=seed)
        return {"value": float(values.mean()), "ci_low": low, "ci_high": high}

    accuracy = {which: per_response(which, True) for which in SETS}
    diff = accuracy["bottom"] - accuracy["top"]
    return {
        "settings": {
            "frac": frac,
            "replacement": replacement,
            "max_new_tokens": max_new_tokens,
            "temperature": temperature,
            "seed": seed,
            "n_boot": n_boot,
        },
        "n_responses": len(responses),
        "n_trials": {s: sum(tr.which == s and tr.perturbed for tr in trials) for s in SETS},
        "accuracy": {which: summary(values) for which, values in accuracy.items()},
        "control_accuracy": {which: summary(per_response(which, False)) for which in SETS},
        "difference_bottom_minus_top": summary(diff),
        "mean_entropy": {s: float(np.mean(entropies[s])) for s in SETS},
        "trials": trials,
    }


def collect_correct_responses(
    model,
    tokenizer,
    problems: Sequence[dict],
    *,
    n: int,
    max_new_tokens: int = 64,
    temperature: float = 1.0,
    batch_size: int = 256,
    seed: int = 0,
) -> list[dict]:
    """At most one correct sampled response per problem (the first of ``n`` samples that the grader accepts).

    ``problems``: dicts with ``prompt`` and ``answer``. Returns dicts with ``prompt``, ``completion``, ``answer``.
    """
    from rlvr_lib.eval.sampling import sample_completions

    samples = sample_completions(
        model,
        tokenizer,
        [p["prompt"] for p in problems],
        n,
        temperature=temperature,
        max_new_tokens=max_new_tokens,
        batch_size=batch_size,
        seed=seed,
        desc="sampling responses",
    )
    out = []
    for problem, completions in zip(problems, samples, strict=False):
        for c in completions:
            if c.n_tokens < max_new_tokens and grade(c.text, str(problem["answer"])).correct == 1.0:
                out.append({"prompt": problem["prompt"], "completion": c.text, "answer": problem["answer"]})
                break
    return out
