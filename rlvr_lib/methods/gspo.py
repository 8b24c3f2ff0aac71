"""GSPO (Zheng et al. 2025, "Group Sequence Policy Optimization"), verl's token form (baselines.md, "GSPO").

    log s_i   = mean_t (logp_t - old_logp_t)                           over the valid tokens of response i
    log s_i,t = sg[log s_i] + logp_t - sg[logp_t]                      (same value as s_i, per-token gradient)
    L_t       = max(-A_t * s_i,t, -A_t * clip(s_i,t, 1 - eps_low, 1 + eps_high)),  aggregated seq-mean-token-mean.
verl clamps log s_i,t at 10 before the exp (``max_log_ratio``). With one update per rollout batch s_i = 1:
the clip cannot act and the gradient is GRPO's, so GSPO needs several updates (``updates_per_batch``).

Clip defaults 3e-4 / 4e-4 are the GSPO paper's (v2, sec. 5.1, as TRL's paper index and ms-swift quote them):
a sequence ratio is a geometric mean of token ratios, so it stays orders of magnitude closer to 1 than a token
ratio and 0.2 would almost never clip. See ``docs/assumptions.md (baselines)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, hparam
from rlvr_lib.methods.core import Aggregation, clip_metrics, ppo_clip_loss, sequence_log_ratio
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least


def gspo_token_log_ratio(logps: Tensor, old_logps: Tensor, mask: Tensor, max_log_ratio: float = 10.0) -> Tensor:
    """verl's token form log s_i,t = sg[log s_i] + logp_t - sg[logp_t], clamped above at ``max_log_ratio``.

    (B, T) -> (B, T). Its value is log s_i at every token; its gradient is that of logp_t.
    """
    seq = sequence_log_ratio(logps.detach(), old_logps, mask)
    return torch.clamp(seq[:, None] + logps - logps.detach(), max=max_log_ratio)


@register
class GSPO(GRPO):
    name = "gspo"
    paper = "Zheng et al. 2025 (GSPO), verl's token form: baselines.md"
    defining_hparams = ("eps_low", "eps_high")  # the sequence-ratio clip range
    updates_per_batch = "several"

    @dataclass
    class Config(GRPO.Config):
        eps_low: float = hparam(3e-4, "sequence-ratio clip (GSPO paper v2 sec. 5.1)")
        eps_high: float = hparam(4e-4, "sequence-ratio clip (GSPO paper v2 sec. 5.1)")
        loss_agg: Aggregation = hparam("seq-mean-token-mean", "GSPO aggregates per sequence (baselines.md)")
        max_log_ratio: float = hparam(10.0, "verl's clamp of log s_i,t before the exp")

        def __post_init__(self) -> None:
            super().__post_init__()
            require_at_least(self, 0.0, "max_log_ratio", strict=True)

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        log_ratio = gspo_token_log_ratio(batch.logps, batch.old_logps, batch.mask, c.max_log_ratio)
        # ppo_clip_loss takes log-probs and forms exp(logps - old_logps): feed it the sequence log-ratio and 0.
        per_token, info = ppo_clip_loss(log_ratio, torch.zeros_like(log_ratio), batch.advantages, c.eps_low, c.eps_high)
        kl, metrics = self.kl_term(batch, info["ratio"])
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        seq_ratio = info["ratio"].detach()[:, 0]  # s_i, identical on every token of a response
        own = self.own_metrics(
            {"seq_ratio_mean": seq_ratio.mean(), "seq_ratio_max_dev": (seq_ratio - 1).abs().max()}, seq_ratio.dtype
        )
        flows = self.entropy_flow_diagnostics(batch, info["ratio"], info["clipped_low"], info["clipped_high"])
        return loss, {**metrics, **clip_metrics(info, batch.mask), **own, **flows}
