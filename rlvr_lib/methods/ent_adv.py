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

from .base import RolloutBatch, RolloutResult, check_positive
from .core import masked_mean
from .grpo import GRPO
from .registry import register


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
        alpha: float = 0.4  # aer.txt App. A.2 (TEPO lists 4e-4)
        kappa: float = 2.0  # aer.txt App. A.2 and tepo.txt sec. 4.1

    def validate(self) -> None:
        super().validate()
        check_positive("alpha", self.cfg.alpha, strict=False)
        check_positive("kappa", self.cfg.kappa)

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        adv = self.sequence_advantages(batch)[:, None]
        psi = entropy_advantage_term(adv, batch.entropies, self.cfg.alpha, self.cfg.kappa)
        bound_binds = (self.cfg.alpha * batch.entropies >= adv.abs() / self.cfg.kappa).float()
        stats = torch.stack([masked_mean(psi, batch.mask), masked_mean(bound_binds, batch.mask)]).tolist()
        metrics = {f"{self.name}/bonus_mean": stats[0], f"{self.name}/bonus_capped_frac": stats[1]}
        return RolloutResult(advantages=(adv + psi).contiguous(), metrics=metrics)
