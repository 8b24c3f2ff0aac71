"""Ent-Adv (Cheng et al. 2025, "Reasoning with exploration: an entropy perspective"), baselines.md "Ent-Adv".

    A'_t = A_t + min(alpha * sg[H_t], |A_t| / kappa)

with A_t the GRPO advantage and H_t the behaviour policy's entropy at token t (rollout hook, no gradient).
The clipped surrogate is GRPO's, unchanged. Defaults alpha 0.4, kappa 2 are AER's (aer.txt table 3 /
App. A.2); TEPO lists alpha 4e-4 (tepo.txt sec. 4.1). Choices: ``docs/assumptions.md (baselines)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rlvr_lib.methods.base import RolloutBatch, RolloutResult, hparam
from rlvr_lib.methods.core import masked_mean
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least


def entropy_advantage_term(advantages: Tensor, entropies: Tensor, alpha: float, kappa: float) -> Tensor:
    """psi_t = min(alpha * sg[H_t], |A_t| / kappa); advantages (B, T) or (B, 1), entropies (B, T) -> (B, T).

    Non-negative for alpha >= 0 (H >= 0); never more than |A_t|/kappa, so it cannot flip a negative advantage's
    sign when kappa > 1, and it is 0 where A_t = 0 (e.g. all-equal rewards in a group).
    """
    return torch.minimum(alpha * entropies.detach(), advantages.abs() / kappa)


@register
class EntAdv(GRPO):
    name = "ent_adv"
    paper = "Cheng et al. 2025 (entropy-based advantage); values from aer.txt App. A.2"

    @dataclass
    class Config(GRPO.Config):
        alpha: float = hparam(0.4, "entropy weight in min(alpha * H_t, |A_t| / kappa) (aer.txt App. A.2; TEPO: 4e-4)")
        kappa: float = hparam(2.0, "cap |A_t| / kappa of the entropy term (aer.txt App. A.2, tepo.txt sec. 4.1)")

        def __post_init__(self) -> None:
            super().__post_init__()
            require_at_least(self, 0.0, "alpha")
            require_at_least(self, 0.0, "kappa", strict=True)

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        adv = self.sequence_advantages(batch)[:, None]
        psi = entropy_advantage_term(adv, batch.entropies, self.cfg.alpha, self.cfg.kappa)
        bound_binds = (self.cfg.alpha * batch.entropies >= adv.abs() / self.cfg.kappa).float()
        metrics = self.own_metrics(
            {"bonus_mean": masked_mean(psi, batch.mask), "bonus_capped_frac": masked_mean(bound_binds, batch.mask)},
            psi.dtype,
        )
        metrics.update(self.covariance_diagnostics(batch, adv[:, 0]))
        return RolloutResult(advantages=(adv + psi).contiguous(), metrics=metrics)
