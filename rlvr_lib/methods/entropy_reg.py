"""Entropy regularisation with a fixed coefficient (OPEFO's "Entropy-Reg" baseline, opefo.txt sec. 6.1).

baselines.md, "Entropy regularisation (fixed coefficient)": loss = pg_loss - coef * agg(H), with agg the
same aggregation as the policy loss; OPEFO uses coef 0.01. pg_loss is GRPO's clipped surrogate (``grpo.py``),
H the current policy's per-token entropy (with gradient). Choices: ``docs/assumptions.md (baselines)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from rlvr_lib.methods.base import LossBatch, as_float, hparam
from rlvr_lib.methods.core import entropy_bonus_loss
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least


@register
class EntropyReg(GRPO):
    name = "entropy_reg"
    paper = "opefo.txt sec. 6.1 (Entropy-Reg, coefficient 0.01); semantics: baselines.md"

    @dataclass
    class Config(GRPO.Config):
        entropy_coef: float = hparam(0.01, "coefficient of the entropy bonus (opefo.txt sec. 6.1)")

        def __post_init__(self) -> None:
            super().__post_init__()
            require_at_least(self, 0.0, "entropy_coef")

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        pg_loss, metrics = super().loss(batch)
        bonus = entropy_bonus_loss(batch.entropies, batch.mask, self.cfg.entropy_coef, self.aggregator(batch))
        metrics[self.metric("bonus_loss")] = as_float(bonus)
        return pg_loss + bonus, metrics
