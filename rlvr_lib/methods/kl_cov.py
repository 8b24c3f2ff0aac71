"""KL-Cov (Cui et al. 2025, "The Entropy Mechanism of RL for Reasoning LMs") as verl implements it.

baselines.md, "KL-Cov":
    cov_t as in Clip-Cov (``clip_cov.token_covariance``); the top-k valid tokens by SIGNED covariance,
    k = max(1, int(ratio * N)) (ratio 2e-3, the 7B value), get
        L_t = -A_t * rho_t + coef * |logp_t - old_logp_t|          (coef 1, the paper's value, not verl's 0.1)
    and every other token the UNCLIPPED surrogate L_t = -A_t * rho_t.  Aggregation: token-mean (recipe).
With one update per rollout batch logp == old_logp, so the penalty and its gradient vanish and KL-Cov is the
plain (unclipped) policy gradient: ``updates_per_batch = "several"``. Choices: ``docs/assumptions.md (baselines)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from .base import LossBatch, check_positive, check_probability
from .clip_cov import (
    RolloutCovarianceMeans,
    check_cov_scope,
    covariance_means,
    selection_count,
    token_covariance,
)
from .core import AGGREGATIONS, masked_mean
from .grpo import GRPO
from .registry import register


def top_covariance_tokens(cov: Tensor, mask: Tensor, k: int) -> Tensor:
    """Boolean (B, T) mask of the k valid tokens with the largest signed covariance (ties: any of them).

    cov, mask: (B, T). ``k`` must not exceed the number of valid tokens (``selection_count`` ensures it).
    """
    flat = cov.reshape(-1).masked_fill(mask.reshape(-1) <= 0, float("-inf"))
    chosen = torch.zeros_like(flat, dtype=torch.bool)
    if k > 0:
        chosen[flat.topk(k).indices] = True
    return chosen.view_as(cov)


def kl_cov_loss(
    logps: Tensor, old_logps: Tensor, advantages: Tensor, selected: Tensor, coef: float
) -> tuple[Tensor, Tensor]:
    """Per-token KL-Cov loss (baselines.md): -A*rho everywhere, + coef*|logp - old_logp| on ``selected``.

    logps (with grad), old_logps, advantages: (B, T); selected: bool (B, T). Returns (loss (B, T), rho (B, T)).
    """
    log_ratio = logps - old_logps
    ratio = torch.exp(log_ratio)
    penalty = coef * log_ratio.abs() * selected.to(logps.dtype)
    return -advantages * ratio + penalty, ratio


@register
class KLCov(RolloutCovarianceMeans, GRPO):
    name = "kl_cov"
    paper = "Cui et al. 2025 (KL-Cov), verl semantics with the paper's coefficient: baselines.md"
    updates_per_batch = "several"

    @dataclass
    class Config:
        kl_cov_ratio: float = 2e-3  # 7B value (2e-4 for 32B); a fraction, not the original code's percentage
        kl_cov_coef: float = 1.0  # Cui et al. and aer.txt table 3 (lambda_kl = 1.0); verl's default is 0.1
        cov_mean_scope: str = "micro-batch"  # verl: means over the micro-batch tensor given
        loss_agg: str = "token-mean"  # Cui et al. recipe (baselines.md)
        beta: float = 0.0  # KL-to-reference coefficient (k3); the recipe uses none
        kl_ratio_correction: bool = True
        scale_rewards: bool = True
        std_kind: str = "sample"
        adv_eps: float = 1e-4

    def validate(self) -> None:
        c = self.cfg
        check_probability("kl_cov_ratio", c.kl_cov_ratio)
        check_positive("kl_cov_coef", c.kl_cov_coef, strict=False)
        check_positive("beta", c.beta, strict=False)
        check_cov_scope(c.cov_mean_scope)
        if c.loss_agg not in AGGREGATIONS:
            raise ValueError(f"loss_agg must be one of {AGGREGATIONS}, got '{c.loss_agg}'")
        if c.std_kind not in ("sample", "population"):
            raise ValueError(f"std_kind must be 'sample' or 'population', got '{c.std_kind}'")

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        means = covariance_means(c.cov_mean_scope, batch.extras)
        cov = token_covariance(batch.advantages, batch.logps, batch.mask, means)
        selected = top_covariance_tokens(cov, batch.mask, selection_count(c.kl_cov_ratio, int(batch.mask.sum().item())))
        per_token, ratio = kl_cov_loss(batch.logps, batch.old_logps, batch.advantages, selected, c.kl_cov_coef)
        kl, metrics = self.kl_term(batch, ratio)
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        abs_log_ratio = masked_mean((batch.logps.detach() - batch.old_logps).abs(), batch.mask)
        values = torch.stack([selected.sum().float(), abs_log_ratio.float()]).tolist()
        metrics.update({f"{self.name}/selected_tokens": values[0], f"{self.name}/abs_log_ratio": values[1]})
        return loss, metrics
