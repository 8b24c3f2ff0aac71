"""Per-token log-probs and entropies of padded prompt+completion rows, computed in buckets of similar length.

TRL scores a batch as one (B, L) block: L is the longest prompt plus the longest completion, so every row pays
for the padding of the others (on the testbed about a quarter of the positions are padding). Here rows are
sorted by (completion length, prompt length), cut into buckets of ``rows_per_bucket`` rows, and each bucket
drops the columns that are padding in all of its rows. Each kept position gets the absolute position id it has
in the full block (``arange(L)``, what the model uses when none is given), so the result equals the full-block
forward up to float rounding (different matrix shapes; measured max |difference| ~1e-6 on the testbed model).
Positions outside the mask are 0, as in TRL's fused LM head.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import torch
import torch.nn.functional as F


def length_buckets(
    attention_mask: torch.Tensor, logits_to_keep: int, rows_per_bucket: int
) -> list[tuple[torch.Tensor, int, int]]:
    """Buckets ``(rows, start, stop)``: row indices (sorted by completion then prompt length) and the column
    range ``[start, stop)`` holding every unmasked position of those rows.

    Args:
        attention_mask: (B, L), 1 on real tokens; the last ``logits_to_keep`` columns are the completion.
        logits_to_keep: completion width T (1 <= T < L).
        rows_per_bucket: rows per bucket (the last bucket may hold fewer).
    ``start`` never passes the first completion column and ``stop`` keeps at least one completion column, so
    each bucket scores completion columns ``[L - T, stop)``.
    """
    if attention_mask.dim() != 2:
        raise ValueError(f"attention_mask must be (B, L), got shape {tuple(attention_mask.shape)}")
    width = attention_mask.size(1)
    if not 1 <= logits_to_keep < width:
        raise ValueError(f"logits_to_keep must lie in [1, {width - 1}] for {width} columns, got {logits_to_keep}")
    if rows_per_bucket < 1:
        raise ValueError(f"rows_per_bucket must be >= 1, got {rows_per_bucket}")
    prompt_width = width - logits_to_keep
    mask = attention_mask.bool()
    completion_length = mask[:, prompt_width:].sum(1)
    prompt_length = mask[:, :prompt_width].sum(1)
    order = torch.argsort(completion_length * (prompt_width + 1) + prompt_length, stable=True)
    columns = torch.arange(width, device=attention_mask.device)
    buckets = []
    for first in range(0, order.numel(), rows_per_bucket):
        rows = order[first : first + rows_per_bucket]
        used = mask[rows].any(0)
        start = int(columns[used].min()) if used.any() else prompt_width
        stop = int(columns[used].max()) + 1 if used.any() else prompt_width + 1
        buckets.append((rows, min(start, prompt_width), max(stop, prompt_width + 1)))
    return buckets


def token_logps_by_length(
    model,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    logits_to_keep: int,
    *,
    rows_per_bucket: int,
    compute_entropy: bool = False,
    autocast: Callable[[], AbstractContextManager] | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-probs (B, T) of the completion tokens (and entropies (B, T) if asked) under ``model``, bucket by bucket.

    ``model`` must carry TRL's fused LM head (``trl.trainer.utils.add_fused_lm_head``, outputs log_probs and
    entropy), as the GRPOTrainer's policy and reference do; the call is the one TRL's
    ``_get_per_token_logps_and_entropies`` makes (labels -100 outside the completion mask) plus ``position_ids``.
    ``autocast``: a factory of the context each forward runs in (the trainer's ``accelerator.autocast``).
    Differentiable: gradients flow to ``model`` when grad is enabled.
    """
    width = input_ids.size(1)
    prompt_width = width - logits_to_keep
    logps, entropies, rows_done = [], [], []
    for rows, start, stop in length_buckets(attention_mask, logits_to_keep, rows_per_bucket):
        ids, mask = input_ids[rows, start:stop], attention_mask[rows, start:stop]
        keep = stop - prompt_width
        labels = ids.masked_fill(mask == 0, -100)
        labels[:, :-keep] = -100
        positions = torch.arange(start, stop, device=ids.device).expand(rows.numel(), -1)
        with autocast() if autocast is not None else nullcontext():
            out = model(input_ids=ids, attention_mask=mask, position_ids=positions, labels=labels, fused_lm_head=True)
        logps.append(F.pad(out.log_probs[:, -keep:], (0, logits_to_keep - keep)))
        if compute_entropy:
            entropies.append(F.pad(out.entropy[:, -keep:], (0, logits_to_keep - keep)))
        rows_done.append(rows)
    order = torch.cat(rows_done)
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(order.numel(), device=order.device)
    return torch.cat(logps)[inverse], torch.cat(entropies)[inverse] if compute_entropy else None


def token_stats_by_length(
    backbone,
    head: torch.nn.Module,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    logits_to_keep: int,
    *,
    rows_per_bucket: int,
    temperature: float = 1.0,
    chunk_elements: int = 2**26,
    autocast: Callable[[], AbstractContextManager] | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """No-grad log-probs, entropies and OPEFO entropy-change factors (each (B, T)) of the completion tokens.

    The same buckets and position ids as ``token_logps_by_length``, but the LM head is applied here rather than by
    TRL's fused head, because the fused head computes only a fixed set of statistics: ``backbone`` (the model's
    ``base_model``, returning ``last_hidden_state``) runs once per bucket, and its hidden states at the completion
    positions pass through ``head`` (the output embedding) in chunks of at most ``chunk_elements`` logits, so no
    tensor larger than (chunk, V) is formed. Per position, of softmax(logits / ``temperature``): the log-prob of
    the label, the entropy, and e_t = E_{a ~ pi}[(1 - pi(a))^2 (log pi(a) + H)]
    (``methods.core.expected_entropy_change_factor``; opefo.txt eq. 6). Positions outside the mask are 0. Equal to
    the fused head's log-probs and entropies up to float rounding (for a head that is a plain linear map divided
    by the temperature: no logit soft-capping or scaling, which the caller checks).
    """
    from rlvr_lib.methods.core import expected_entropy_change_factor

    batch, width = input_ids.shape
    prompt_width = width - logits_to_keep
    device = input_ids.device
    logps = torch.zeros(batch, logits_to_keep, device=device)
    entropies = torch.zeros_like(logps)
    factors = torch.zeros_like(logps)
    vocab = head.weight.size(0)
    chunk = max(1, chunk_elements // vocab)
    with torch.no_grad():
        for rows, start, stop in length_buckets(attention_mask, logits_to_keep, rows_per_bucket):
            ids, mask = input_ids[rows, start:stop], attention_mask[rows, start:stop]
            keep = stop - prompt_width
            positions = torch.arange(start, stop, device=device).expand(rows.numel(), -1)
            with autocast() if autocast is not None else nullcontext():
                hidden = backbone(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False)
            hidden = hidden.last_hidden_state[:, -keep - 1 : -1]  # the state before each completion token
            valid = mask[:, -keep:].bool()
            states, labels = hidden[valid], ids[:, -keep:][valid]
            out = torch.zeros(3, states.size(0), device=device)
            for first in range(0, states.size(0), chunk):
                part = slice(first, first + chunk)
                with autocast() if autocast is not None else nullcontext():
                    logits = head(states[part].to(head.weight.dtype))
                logits = logits.float() / temperature
                logp_all = torch.log_softmax(logits, dim=-1)
                out[0, part] = logp_all.gather(1, labels[part, None]).squeeze(1)
                out[1, part] = torch.special.entr(logp_all.exp()).sum(-1)
                out[2, part] = expected_entropy_change_factor(logits)
            for target, values in zip((logps, entropies, factors), out, strict=True):
                block = torch.zeros(rows.numel(), keep, device=device)
                block[valid] = values
                target[rows, :keep] = block
    return logps, entropies, factors
