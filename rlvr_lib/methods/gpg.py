"""GPG (Chu et al. 2025, "GPG: A Simple and Strong Reinforcement Learning Baseline for Model Reasoning"): TEPO's
table 1 / table 3 panel C row "w. GPG (remove IS)".

tepo.txt describes it as the variant "which removes the reference model and abandons importance sampling" (sec. 4.1,
L245), "treating all tokens uniformly" (L361), "GPG uses REINFORCE for straightforward training" (L376). As verl
implements it (``adv_estimator: gpg``, ``policy_loss.loss_mode: gpg``; TEPO trains with verl, L212), per token of
response i:

    A_i     = alpha * (r_i - mean_{group(i)} r)                     (no std division; f_norm 1)
    alpha   = B / max(1, #{j : r_j != 0})                            (B responses of the rollout batch)
    L_{i,t} = -A_i * logp_{i,t}                                      (REINFORCE: no ratio, no clip, no KL)

aggregated token-mean (1 / sum_i |o_i|). No importance weight corrects the later updates of a rollout batch for
the policy having moved: that is what "abandons importance sampling" means when GPG runs with TEPO's 8 updates per
rollout batch (4 mini-batches x 2 passes), as the paper's GPG row does. ``alpha`` is verl's correction (it counts
the responses with a non-zero reward); ``'none'`` gives alpha = 1. ``docs/assumptions.md (baselines, GPG)``.

Shapes: B responses, T padded completion tokens, ``mask`` float (B, T).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, Method, RolloutBatch, RolloutResult, SharedConfig, hparam
from rlvr_lib.methods.core import Aggregation, Aggregator, bad_choice, group_normalized_advantages
from rlvr_lib.methods.registry import register

AlphaMode = Literal["nonzero_reward", "none"]


def gpg_alpha(rewards: Tensor, mode: AlphaMode = "nonzero_reward") -> Tensor:
    """verl's GPG correction alpha = B / max(1, number of responses with a non-zero reward), rewards (B,) -> ()."""
    if mode == "none":
        return torch.ones((), dtype=torch.float32, device=rewards.device)
    if mode != "nonzero_reward":
        raise bad_choice("alpha", mode, AlphaMode)
    return rewards.numel() / torch.count_nonzero(rewards).clamp(min=1).float()


@register
class GPG(Method):
    name = "gpg"
    paper = "Chu et al. 2025 (GPG), as tepo.txt L245 / L361 / L376 describe it and verl implements it"
    defining_hparams = ("scale_rewards",)  # its advantage r - mean(r) (a comparison may differ in it)
    rollout_reads_behaviour = False  # the advantage reads the rewards only

    @dataclass
    class Config(SharedConfig):
        loss_agg: Aggregation = hparam("token-mean", "verl's GPG: token-mean (1 / sum_i |o_i|)")
        scale_rewards: bool = hparam(False, "GPG's advantage r - mean(r), no division by the group std (verl)")
        adv_eps: float = hparam(1e-6, "verl's epsilon (unused without the std division)")
        alpha: AlphaMode = hparam("nonzero_reward", "verl's correction B / #(r != 0) over the rollout batch; 'none': 1")

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        c = self.cfg
        adv = group_normalized_advantages(
            batch.rewards, batch.group_ids, scale=c.scale_rewards, std_kind=c.std_kind, eps=c.adv_eps
        )
        alpha = gpg_alpha(batch.rewards, c.alpha)
        return RolloutResult(
            advantages=(alpha * adv)[:, None].expand_as(batch.mask).contiguous(),
            metrics=self.own_metrics({"alpha": alpha}),
        )

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        per_token = -batch.advantages * batch.logps
        loss = Aggregator(c.loss_agg, batch.num_tokens, batch.num_seqs, batch.max_completion_length)(
            per_token, batch.mask
        )
        return loss, {}
