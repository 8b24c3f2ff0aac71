"""Pure tensor functions shared by the methods (in the spirit of verl's ``core_algos.py``).

Shapes: B responses, T padded completion tokens, ``mask`` float (B, T). Nothing here loops over
tokens in Python; group statistics use ``group_ids`` (B,) and scatter-adds, so groups need not be
contiguous.
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor

Aggregation = Literal["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm"]
AGGREGATIONS = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm")
StdKind = Literal["sample", "population"]


# ----------------------------------------------------------------------------- masked statistics
def masked_mean(x: Tensor, mask: Tensor) -> Tensor:
    """Mean of ``x`` over ``mask`` (any shape); 0 when the mask is empty."""
    return (x * mask).sum() / mask.sum().clamp(min=1.0)


def masked_quantiles(x: Tensor, mask: Tensor, qs: tuple[float, ...]) -> list[float]:
    """Quantiles of the masked entries of ``x``; NaN for an empty mask."""
    values = x[mask.bool()].detach().float()
    if values.numel() == 0:
        return [float("nan")] * len(qs)
    ordered = values.sort().values  # sort-based: works on any device and beyond torch.quantile's size limit
    positions = torch.tensor(qs, dtype=values.dtype, device=values.device) * (values.numel() - 1)
    low, high = positions.floor().long(), positions.ceil().long()
    frac = positions - low
    return (ordered[low] * (1 - frac) + ordered[high] * frac).tolist()


def group_index(group_ids: Tensor) -> tuple[Tensor, int]:
    """Map arbitrary group ids (B,) to dense indices 0..G-1. Returns (index (B,), number of groups)."""
    uniq, index = torch.unique(group_ids, return_inverse=True)
    return index, int(uniq.numel())


def group_sum(x: Tensor, index: Tensor, n_groups: int) -> Tensor:
    """Sum of rows of ``x`` (B, ...) per group -> (n_groups, ...)."""
    out = torch.zeros((n_groups, *x.shape[1:]), dtype=x.dtype, device=x.device)
    return out.index_add_(0, index, x)


def group_mean_std(
    x: Tensor, index: Tensor, n_groups: int, weight: Tensor | None = None, std_kind: StdKind = "sample"
) -> tuple[Tensor, Tensor]:
    """Per-group mean and std of ``x`` (B, ...) with optional 0/1 ``weight`` of the same shape.

    All non-batch dimensions are pooled (so for (B, T) input the statistic is over all tokens of a
    group). Returns tensors of shape (n_groups,). ``std_kind='sample'`` uses Bessel's correction and
    gives 0 for a group with a single element.
    """
    weight = torch.ones_like(x) if weight is None else weight
    flat_x = (x * weight).reshape(x.shape[0], -1).sum(-1)
    flat_w = weight.reshape(x.shape[0], -1).sum(-1)
    count = group_sum(flat_w, index, n_groups)
    mean = group_sum(flat_x, index, n_groups) / count.clamp(min=1.0)
    centred = (x - mean[index].view(-1, *([1] * (x.dim() - 1)))) * weight
    sq = group_sum((centred**2).reshape(x.shape[0], -1).sum(-1), index, n_groups)
    denom = (count - 1.0) if std_kind == "sample" else count
    std = torch.where(denom > 0, sq / denom.clamp(min=1.0), torch.zeros_like(sq)).sqrt()
    return mean, std


# ----------------------------------------------------------------------------- advantages
def group_normalized_advantages(
    rewards: Tensor, group_ids: Tensor, *, scale: bool = True, std_kind: StdKind = "sample", eps: float = 1e-4
) -> Tensor:
    """GRPO advantage A_i = (r_i - mean_G r) / (std_G r + eps); Dr. GRPO when ``scale=False``.

    rewards, group_ids: (B,). Returns (B,). A singleton or constant group gives A = 0. The defaults
    (Bessel std, eps 1e-4) are TRL 1.16's; verl uses eps 1e-6.
    """
    index, n = group_index(group_ids)
    mean, std = group_mean_std(rewards.float(), index, n, std_kind=std_kind)
    adv = rewards.float() - mean[index]
    return adv / (std[index] + eps) if scale else adv


# ----------------------------------------------------------------------------- per-token losses
def ppo_clip_loss(
    logps: Tensor, old_logps: Tensor, advantages: Tensor, eps_low: float, eps_high: float
) -> tuple[Tensor, dict[str, Tensor]]:
    """Token-level PPO clipped surrogate, L = -min(rho*A, clip(rho, 1-eps_low, 1+eps_high)*A).

    logps, old_logps, advantages: (B, T) (advantages may be (B, 1)). Returns the per-token loss
    (B, T) and boolean masks of low/high-clipped tokens (those whose gradient the clip removes).
    """
    ratio = torch.exp(logps - old_logps)
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    loss = -torch.min(ratio * advantages, clipped * advantages)
    low = (ratio < 1 - eps_low) & (advantages < 0)
    high = (ratio > 1 + eps_high) & (advantages > 0)
    return loss, {"ratio": ratio, "clipped_low": low, "clipped_high": high}


def k3_kl(logps: Tensor, ref_logps: Tensor) -> Tensor:
    """Per-token k3 estimator of KL(pi || pi_ref): exp(ref - logp) - (ref - logp) - 1, (B, T)."""
    diff = ref_logps - logps
    return torch.exp(diff) - diff - 1


def entropy_bonus_loss(entropies: Tensor, mask: Tensor, coef: Tensor | float, agg: "Aggregator") -> Tensor:
    """-coef * agg(H): ``coef`` a float, (B, 1) per response or (B, T) per token, applied before aggregation."""
    return -agg(coef * entropies, mask) if torch.is_tensor(coef) else -coef * agg(entropies, mask)


# ----------------------------------------------------------------------------- aggregation
class Aggregator:
    """Reduces a per-token loss (B, T) to a scalar, exact under gradient accumulation.

    ``num_tokens``/``num_seqs`` are the token and sequence counts of the whole optimizer step's
    batch on this process, so per-micro-batch results add up to the full-batch value.
    """

    def __init__(self, mode: Aggregation, num_tokens: float, num_seqs: float, max_len: int):
        if mode not in AGGREGATIONS:
            raise ValueError(f"loss aggregation must be one of {AGGREGATIONS}, got '{mode}'")
        self.mode, self.num_tokens, self.num_seqs, self.max_len = mode, num_tokens, num_seqs, max_len

    def __call__(self, per_token: Tensor, mask: Tensor) -> Tensor:
        return aggregate(per_token, mask, self.mode, self.num_tokens, self.num_seqs, self.max_len)


def aggregate(
    per_token: Tensor, mask: Tensor, mode: Aggregation, num_tokens: float, num_seqs: float, max_len: int
) -> Tensor:
    """verl's loss aggregation modes (baselines.md):

    token-mean: sum(L*m) / num_tokens; seq-mean-token-mean: sum_i (sum_t L*m / |o_i|) / num_seqs;
    seq-mean-token-sum: sum_i sum_t L*m / num_seqs; seq-mean-token-sum-norm: sum(L*m) / (num_seqs * max_len)
    (Dr. GRPO's constant normaliser).
    """
    masked = per_token * mask
    if mode == "token-mean":
        return masked.sum() / max(num_tokens, 1.0)
    if mode == "seq-mean-token-mean":
        return (masked.sum(-1) / mask.sum(-1).clamp(min=1.0)).sum() / max(num_seqs, 1.0)
    if mode == "seq-mean-token-sum":
        return masked.sum() / max(num_seqs, 1.0)
    if mode == "seq-mean-token-sum-norm":
        return masked.sum() / (max(num_seqs, 1.0) * max_len)
    raise ValueError(f"loss aggregation must be one of {AGGREGATIONS}, got '{mode}'")


def clip_metrics(info: dict[str, Tensor], mask: Tensor) -> dict[str, float]:
    """Fractions of completion tokens clipped low / high by PPO."""
    low = masked_mean(info["clipped_low"].float(), mask)
    high = masked_mean(info["clipped_high"].float(), mask)
    return {"clip_ratio/low": float(low), "clip_ratio/high": float(high), "clip_ratio/region": float(low + high)}
