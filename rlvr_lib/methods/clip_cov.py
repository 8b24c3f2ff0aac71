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
The covariance is ``core.token_covariance``; its means, shared with KL-Cov (``kl_cov.py``), come from here.
Choices: ``docs/assumptions.md (baselines)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, RolloutBatch, RolloutResult, hparam
from rlvr_lib.methods.core import Aggregation, clip_metrics, masked_mean, ppo_clip_loss, token_covariance
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require, require_between

CovMeanScope = Literal["micro-batch", "rollout-batch"]
EXTRA_MEAN_ADV = "cov_mean_adv"
EXTRA_MEAN_LOGP = "cov_mean_logp"


# ----------------------------------------------------------------------------- pure functions
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


def covariance_means(scope: CovMeanScope, extras: dict[str, Tensor]) -> tuple[Tensor, Tensor] | None:
    """The (mean logp, mean A) to centre the covariance with: None (micro-batch: ``core.token_covariance``
    takes the tensor's own means) or the rollout-batch values from extras, each (1,)."""
    if scope == "micro-batch":
        return None
    return extras[EXTRA_MEAN_LOGP][:1], extras[EXTRA_MEAN_ADV][:1]


def cov_mean_scope_field() -> CovMeanScope:
    """The ``cov_mean_scope`` setting of Clip-Cov and KL-Cov."""
    return hparam("micro-batch", "means of A and logp over the micro-batch tensor (verl) or the whole rollout batch")


def covariance(batch: LossBatch, scope: CovMeanScope) -> Tensor:
    """cov_t of Clip-Cov and KL-Cov (baselines.md) for one micro-batch, (B, T), 0 on masked positions."""
    return token_covariance(batch.logps, batch.advantages, batch.mask, means=covariance_means(scope, batch.extras))


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
    defining_hparams = ("eps_low", "eps_high")  # the recipe's ratio clip, under its covariance clip

    @dataclass
    class Config(GRPO.Config):
        eps_low: float = hparam(1.0, "PPO clip, Cui et al. recipe (baselines.md; aer.txt table 3 c_l = 1.0)")
        eps_high: float = hparam(1.0, "PPO clip (aer.txt table 3 c_h = 1.0)")
        loss_agg: Aggregation = hparam("token-mean", "Cui et al. recipe (baselines.md)")
        clip_cov_ratio: float = hparam(2e-4, "fraction of valid tokens whose loss is zeroed (aer.txt table 3)")
        clip_cov_lb: float = hparam(1.0, "lower covariance bound of the candidates (verl)")
        clip_cov_ub: float = hparam(5.0, "upper covariance bound of the candidates (verl)")
        cov_mean_scope: CovMeanScope = cov_mean_scope_field()

        def __post_init__(self) -> None:
            super().__post_init__()
            require_between(self, "clip_cov_ratio", 0.0, 1.0)
            require(
                self.clip_cov_lb < self.clip_cov_ub,
                "clip_cov_lb",
                f"must be < clip_cov_ub, got {self.clip_cov_lb} >= {self.clip_cov_ub}",
            )

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        per_token, info = ppo_clip_loss(batch.logps, batch.old_logps, batch.advantages, c.eps_low, c.eps_high)
        cov = covariance(batch, c.cov_mean_scope)
        candidates = clip_cov_candidates(
            cov, batch.mask, info["clipped_low"] | info["clipped_high"], c.clip_cov_lb, c.clip_cov_ub
        )
        selected = random_subset(candidates, selection_count(c.clip_cov_ratio, int(batch.mask.sum().item())))
        per_token = per_token * (~selected).to(per_token.dtype)  # zeroed, still counted by the aggregator
        kl, metrics = self.kl_term(batch, info["ratio"])
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        metrics.update(self.own_metrics({"selected_tokens": selected.sum(), "candidate_tokens": candidates.sum()}))
        flows = self.entropy_flow_diagnostics(batch, info["ratio"], info["clipped_low"], info["clipped_high"])
        return loss, {**metrics, **clip_metrics(info, batch.mask), **flows}
