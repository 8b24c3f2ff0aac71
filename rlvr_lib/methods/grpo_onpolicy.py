"""GRPO, strict on-policy (OPEFO's baseline, opefo.txt sec. 4 and 6.1): one update per rollout batch.

With one update per rollout batch the policy that is trained is the policy that sampled, so the PPO ratio
is identically 1 and the clip never acts. opefo.txt writes the objective without ratio or clip (eq. 2, and
the fig. 3 code ``pg_terms = -log_prob * advantages``), the REINFORCE form used here:

    L_t = -A_t * log pi(y_t | s_t)        aggregated by ``loss_agg`` (token-mean: fig. 3's ``.mean()``).

Its gradient equals GRPO's clipped loss at ratio 1. OPEFO (``opefo.py``) is this loss with the per-token
terms rescaled; at lambda* = 0 it is exactly this method (opefo.txt table 2 caption).
Choices and their sources: ``docs/assumptions.md (opefo)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, SharedConfig, hparam
from rlvr_lib.methods.core import Aggregation
from rlvr_lib.methods.grpo import GRPO, log_entropy_flow_field, log_percentiles_field, log_realised_entropy_change_field
from rlvr_lib.methods.registry import register


def reinforce_loss(logps: Tensor, advantages: Tensor) -> Tensor:
    """Per-token REINFORCE loss -A_t * log p_t (opefo.txt eq. 2; fig. 3 ``pg_terms``).

    logps: (B, T) current-policy log-probs of the sampled tokens (with grad); advantages: (B, T) or (B, 1).
    Returns (B, T). No ratio, no clip: only valid when ``logps`` belong to the sampling policy.
    """
    return -advantages * logps


@register
class GRPOOnPolicy(GRPO):
    """GRPO advantages (eq. 3 of opefo.txt) with the on-policy REINFORCE loss; no reference, no KL."""

    name = "grpo_onpolicy"
    paper = "opefo.txt sec. 4 and 6.1 ('GRPO (Strict on-policy)'); fig. 3 with lambda* = 0"
    updates_per_batch = "one"

    @dataclass
    class Config(SharedConfig):
        loss_agg: Aggregation = hparam(
            "token-mean", "fig. 3 reduces with a plain mean over tokens: token-mean is its masked form"
        )
        log_percentiles: bool = log_percentiles_field()
        log_entropy_flow: bool = log_entropy_flow_field()
        log_realised_entropy_change: bool = log_realised_entropy_change_field()

    @property
    def needs_reference(self) -> bool:
        return False

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        per_token = reinforce_loss(batch.logps, batch.advantages)
        return self.aggregator(batch)(per_token, batch.mask), self.entropy_flow_diagnostics(
            batch, self.unit_ratio(batch)
        )

    @staticmethod
    def unit_ratio(batch: LossBatch) -> Tensor:
        """The importance ratio of a strictly on-policy update: 1 everywhere, (B, T)."""
        return torch.ones_like(batch.mask)
