"""GRPO (Shao et al. 2024) and DAPO clip-higher (Yu et al. 2025), as ``../shared/notes/baselines.md`` states them.

Advantage: A_i = (r_i - mean_G r) / (std_G r + eps), broadcast to every token of response i.
Loss per token: -min(rho*A, clip(rho, 1-eps_low, 1+eps_high)*A) + beta * KL_k3(pi || pi_ref) [* rho],
aggregated by ``loss_agg``. DAPO is the same loss with eps_high 0.28 and token-mean aggregation.
With default settings both equal TRL 1.16's ``loss_type="grpo"`` / ``"dapo"`` losses (parity test).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from ..schema import require_at_least
from .base import LossBatch, Method, RolloutBatch, RolloutResult, SharedConfig, hparam
from .core import Aggregation, Aggregator, clip_metrics, group_normalized_advantages, k3_kl, masked_mean, ppo_clip_loss
from .registry import register


@dataclass
class ReferenceKLConfig(SharedConfig):
    """SharedConfig plus the KL-to-reference penalty beta * KL_k3(pi || pi_ref) of GRPO (DeepSeekMath eq. 4)."""

    beta: float = hparam(0.0, "KL-to-reference coefficient (k3 estimator); 0: no reference model")
    kl_ratio_correction: bool = hparam(True, "multiply the k3 KL by rho (TRL's use_bias_correction_kl)")

    def __post_init__(self) -> None:
        super().__post_init__()
        require_at_least(self, 0.0, "beta")


@register
class GRPO(Method):
    name = "grpo"
    paper = "Shao et al. 2024 (DeepSeekMath); semantics: baselines.md"
    rollout_reads_behaviour = False  # advantages from rewards alone

    @dataclass
    class Config(ReferenceKLConfig):
        eps_low: float = hparam(0.2, "PPO clip: rho below 1 - eps_low is clipped (DeepSeekMath eq. 3)")
        eps_high: float = hparam(0.2, "PPO clip: rho above 1 + eps_high is clipped (DAPO clip-higher: 0.28)")

        def __post_init__(self) -> None:
            super().__post_init__()
            require_at_least(self, 0.0, "eps_low", "eps_high")

    @property
    def needs_reference(self) -> bool:
        return self.cfg.beta > 0

    def sequence_advantages(self, batch: RolloutBatch) -> Tensor:
        """(B,) group-normalised advantages."""
        c = self.cfg
        return group_normalized_advantages(
            batch.rewards, batch.group_ids, scale=c.scale_rewards, std_kind=c.std_kind, eps=c.adv_eps
        )

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        adv = self.sequence_advantages(batch)
        return RolloutResult(advantages=adv[:, None].expand_as(batch.mask).contiguous())

    def aggregator(self, batch: LossBatch) -> Aggregator:
        return Aggregator(self.cfg.loss_agg, batch.num_tokens, batch.num_seqs, batch.max_completion_length)

    def kl_term(self, batch: LossBatch, ratio: Tensor) -> tuple[Tensor | float, dict[str, float]]:
        """beta * per-token k3 KL (B, T), ratio-weighted when ``kl_ratio_correction``; 0 when beta = 0."""
        if self.cfg.beta == 0:
            return 0.0, {}
        kl = k3_kl(batch.logps, batch.ref_logps)
        weighted = kl * ratio if self.cfg.kl_ratio_correction else kl
        return self.cfg.beta * weighted, {"kl": float(masked_mean(kl.detach(), batch.mask))}

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        per_token, info = ppo_clip_loss(batch.logps, batch.old_logps, batch.advantages, c.eps_low, c.eps_high)
        kl, metrics = self.kl_term(batch, info["ratio"])
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        return loss, {**metrics, **clip_metrics(info, batch.mask)}


@register
class DAPO(GRPO):
    name = "dapo"
    paper = "Yu et al. 2025 (DAPO), clip-higher + token-mean; semantics: baselines.md"

    @dataclass
    class Config(GRPO.Config):
        eps_high: float = hparam(0.28, "clip-higher (DAPO sec. 3.1)")
        loss_agg: Aggregation = hparam("token-mean", "token-level loss (DAPO sec. 3.3)")
