"""Clip-Cov (Cui et al. 2025, "The Entropy Mechanism of RL for Reasoning LMs") as verl implements it.

baselines.md, "Clip-Cov":
    cov_t = (A_t - mean(A)) * (logp_t - mean(logp))          means over the valid tokens of the tensor given
    candidates = {t : lb < cov_t < ub, t not already clipped by PPO}            (lb 1, ub 5)
    a uniformly RANDOM subset of min(max(1, int(ratio * N)), |candidates|) candidates (ratio 2e-4, N = valid
    tokens of the tensor given) gets its policy loss multiplied by 0; those tokens stay in the denominator.
The loss is otherwise the PPO-clip surrogate with the paper recipe's eps_low = eps_high = 1 and token-mean
aggregation (baselines.md "Recipe values"; aer.txt table 3: c_l = c_h = 1.0, rho_clip = 0.0002).

verl computes the covariance on the micro-batch tensor it is given; ``cov_mean_scope="rollout-batch"``
instead centres with means over the whole rollout batch (behaviour log-probs, computed in the rollout hook).
The covariance helpers here are shared with KL-Cov (``kl_cov.py``). Choices: ``docs/assumptions.md (baselines)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from .base import LossBatch, RolloutBatch, RolloutResult, check_probability
from .core import clip_metrics, masked_mean, ppo_clip_loss
from .grpo import GRPO
from .registry import register

COV_MEAN_SCOPES = ("micro-batch", "rollout-batch")
EXTRA_MEAN_ADV = "cov_mean_adv"
EXTRA_MEAN_LOGP = "cov_mean_logp"


# ----------------------------------------------------------------------------- pure functions
def token_covariance(
    advantages: Tensor, logps: Tensor, mask: Tensor, means: tuple[Tensor, Tensor] | None = None
) -> Tensor:
    """Per-token covariance term cov_t = (A_t - mean A) * (logp_t - mean logp) (baselines.md, Clip-Cov).

    advantages, logps, mask: (B, T); gradients are not taken (inputs are detached). ``means`` = (mean A,
    mean logp) as scalars or (1,) tensors; when None they are the masked means over the valid tokens of the
    tensors given (verl: the micro-batch). Returns (B, T); entries at masked positions are meaningless.
    """
    advantages, logps = advantages.detach(), logps.detach()
    if means is None:
        means = (masked_mean(advantages, mask), masked_mean(logps, mask))
    return (advantages - means[0]) * (logps - means[1])


def selection_count(ratio: float, num_valid: int) -> int:
    """verl's k = max(1, int(ratio * N)) for N valid tokens; 0 when there are none."""
    return max(1, int(ratio * num_valid)) if num_valid > 0 else 0


def clip_cov_candidates(cov: Tensor, mask: Tensor, ppo_clipped: Tensor, lb: float, ub: float) -> Tensor:
    """Boolean (B, T): valid tokens with lb < cov < ub that PPO has not already clipped (baselines.md)."""
    return (cov > lb) & (cov < ub) & (mask > 0) & ~ppo_clipped


def random_subset(candidates: Tensor, k: int, generator: torch.Generator | None = None) -> Tensor:
    """Boolean mask (same shape) of a uniformly random subset of min(k, #candidates) candidate entries.

    Vectorised (no ``nonzero``, no host sync): i.i.d. U[0,1) keys on candidates, -1 elsewhere; the k
    largest keys that are >= 0 are chosen, which is a uniform random k-subset of the candidates.
    """
    flat = candidates.reshape(-1)
    k = min(k, flat.numel())
    if k <= 0:
        return torch.zeros_like(candidates, dtype=torch.bool)
    keys = torch.rand(flat.shape, generator=generator, device=flat.device).masked_fill_(~flat, -1.0)
    values, index = keys.topk(k)
    chosen = torch.zeros_like(flat, dtype=torch.bool).scatter_(0, index, values >= 0)
    return chosen.view_as(candidates)


def rollout_covariance_means(advantages: Tensor, logps: Tensor, mask: Tensor) -> dict[str, Tensor]:
    """Rollout-batch means of A and behaviour logp over all valid tokens, as (B,) extras (one value repeated)."""
    b = mask.shape[0]
    return {
        EXTRA_MEAN_ADV: masked_mean(advantages.float(), mask).expand(b).contiguous(),
        EXTRA_MEAN_LOGP: masked_mean(logps.float(), mask).expand(b).contiguous(),
    }


def covariance_means(scope: str, extras: dict[str, Tensor]) -> tuple[Tensor, Tensor] | None:
    """The means to centre the covariance with: None (micro-batch) or the rollout-batch values from extras."""
    if scope == "micro-batch":
        return None
    return extras[EXTRA_MEAN_ADV][:1], extras[EXTRA_MEAN_LOGP][:1]


def check_cov_scope(scope: str) -> None:
    if scope not in COV_MEAN_SCOPES:
        raise ValueError(f"cov_mean_scope must be one of {COV_MEAN_SCOPES}, got '{scope}'")


# ----------------------------------------------------------------------------- method
class RolloutCovarianceMeans:
    """Mixin of Clip-Cov and KL-Cov: with ``cov_mean_scope="rollout-batch"`` the rollout hook stores the rollout
    batch's means of A and log p, which ``covariance_means`` hands to the loss."""

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        result = super().rollout(batch)
        if self.cfg.cov_mean_scope == "rollout-batch":
            result.extras.update(rollout_covariance_means(result.advantages, batch.logps, batch.mask))
        return result


@register
class ClipCov(RolloutCovarianceMeans, GRPO):
    name = "clip_cov"
    paper = "Cui et al. 2025 (Clip-Cov), verl semantics: baselines.md"

    @dataclass
    class Config(GRPO.Config):
        eps_low: float = 1.0  # Cui et al. recipe (baselines.md); aer.txt table 3 c_l = 1.0
        eps_high: float = 1.0  # aer.txt table 3 c_h = 1.0
        loss_agg: str = "token-mean"  # Cui et al. recipe (baselines.md)
        clip_cov_ratio: float = 2e-4  # fraction of valid tokens whose loss is zeroed
        clip_cov_lb: float = 1.0
        clip_cov_ub: float = 5.0
        cov_mean_scope: str = "micro-batch"  # verl: means over the micro-batch tensor given

    def validate(self) -> None:
        super().validate()
        c = self.cfg
        check_probability("clip_cov_ratio", c.clip_cov_ratio)
        if not c.clip_cov_lb < c.clip_cov_ub:
            raise ValueError(f"clip_cov_lb must be < clip_cov_ub, got {c.clip_cov_lb} >= {c.clip_cov_ub}")
        check_cov_scope(c.cov_mean_scope)

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        per_token, info = ppo_clip_loss(batch.logps, batch.old_logps, batch.advantages, c.eps_low, c.eps_high)
        means = covariance_means(c.cov_mean_scope, batch.extras)
        cov = token_covariance(batch.advantages, batch.logps, batch.mask, means)
        candidates = clip_cov_candidates(
            cov, batch.mask, info["clipped_low"] | info["clipped_high"], c.clip_cov_lb, c.clip_cov_ub
        )
        selected = random_subset(candidates, selection_count(c.clip_cov_ratio, int(batch.mask.sum().item())))
        per_token = per_token * (~selected).to(per_token.dtype)  # zeroed, still counted by the aggregator
        kl, metrics = self.kl_term(batch, info["ratio"])
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        counts = torch.stack([selected.sum(), candidates.sum()]).float().tolist()
        metrics.update({f"{self.name}/selected_tokens": counts[0], f"{self.name}/candidate_tokens": counts[1]})
        return loss, {**metrics, **clip_metrics(info, batch.mask)}
