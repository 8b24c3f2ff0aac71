"""KL-Cov (Cui et al. 2025, "The Entropy Mechanism of RL for Reasoning LMs") as verl implements it.

baselines.md, "KL-Cov":
    cov_t as in Clip-Cov (``core.token_covariance``); the top-k valid tokens by SIGNED covariance,
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

from rlvr_lib.methods.base import LossBatch, hparam
from rlvr_lib.methods.clip_cov import (
    CovMeanScope,
    RolloutCovarianceMeans,
    cov_mean_scope_field,
    covariance,
    selection_count,
)
from rlvr_lib.methods.core import Aggregation, masked_mean
from rlvr_lib.methods.grpo import (
    GRPO,
    ReferenceKLConfig,
    log_entropy_flow_field,
    log_percentiles_field,
    log_realised_entropy_change_field,
)
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least, require_between


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
    class Config(ReferenceKLConfig):
        """No PPO clip (eps_low / eps_high): KL-Cov's surrogate is unclipped."""

        loss_agg: Aggregation = hparam("token-mean", "Cui et al. recipe (baselines.md)")
        kl_cov_ratio: float = hparam(
            2e-3, "fraction of valid tokens penalised: 7B value (2e-4 for 32B), not the original code's percentage"
        )
        kl_cov_coef: float = hparam(1.0, "Cui et al. and aer.txt table 3 (lambda_kl = 1.0); verl's default is 0.1")
        cov_mean_scope: CovMeanScope = cov_mean_scope_field()
        log_percentiles: bool = log_percentiles_field()
        log_entropy_flow: bool = log_entropy_flow_field()
        log_realised_entropy_change: bool = log_realised_entropy_change_field()

        def __post_init__(self) -> None:
            super().__post_init__()
            require_between(self, "kl_cov_ratio", 0.0, 1.0)
            require_at_least(self, 0.0, "kl_cov_coef")

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        cov = covariance(batch, c.cov_mean_scope)
        selected = top_covariance_tokens(cov, batch.mask, selection_count(c.kl_cov_ratio, int(batch.mask.sum().item())))
        per_token, ratio = kl_cov_loss(batch.logps, batch.old_logps, batch.advantages, selected, c.kl_cov_coef)
        kl, metrics = self.kl_term(batch, ratio)
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        abs_log_ratio = masked_mean((batch.logps.detach() - batch.old_logps).abs(), batch.mask)
        metrics.update(self.own_metrics({"selected_tokens": selected.sum(), "abs_log_ratio": abs_log_ratio}))
        return loss, {**metrics, **self.entropy_flow_diagnostics(batch, ratio)}  # no clip: nothing clipped
