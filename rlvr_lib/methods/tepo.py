"""TEPO: Token-level policy optimization via sequence-level likelihood (Lin et al.; ``tepo.txt`` eq. 4,
Algorithm 1, App. D).

Per token of response i (eq. 4):

    J_{i,t} = min(w_i * A_{i,t}, clip(w_i, 1-eps_low, 1+eps_high) * A_{i,t})     (eq. 4: eps_low = eps_high = eps)
              - beta * KL(pi_theta || pi_old)_{i,t} * M_{i,t}
    w_i     = exp(1/|o_i| sum_t (logp_{i,t} - old_logp_{i,t}))      (sec. 3.3.1: geometric mean of token ratios)
    M_{i,t} = 1 if A_{i,t} > 0 and Delta H_{i,t} < 0 else 0          (Delta H = current - behaviour entropy)

aggregated token-mean over all tokens of the batch (eq. 4's 1/sum|o_i|; table 3 panel D). The gradient flows
through w_i into every token of the response. With a single update per rollout batch w_i = 1, Delta H = 0 and
KL(pi || pi_old) = 0, so the mask and the KL are inert: TEPO needs several updates per rollout batch
(the paper uses 8: 4 mini-batches x 2 passes). The ablations of table 3 are ``mask_scope`` (panel E, plus "all"
for panel A's undifferentiated KL), ``kl_target`` (panel A's KL to the reference), ``entropy_coef`` (panel B's
undifferentiated entropy regularisation: loss += -entropy_coef * agg(H_{i,t}), H the current policy's entropy (B, T)
with gradient, agg = ``loss_agg``; > 0 is "Max-Entropy", < 0 "Min-Entropy"; the paper gives no coefficient) and
``loss_agg`` (panel D). Panel C's importance-sampling variants are ``surrogate``: ``'cispo'`` (the sequence
weight clipped inside a stop-gradient, times A log pi) and ``'prefix_is'`` (eq. 4's clipped surrogate with the
weight w_{i,j<=t} of the prefix up to token t, (B, T), in place of w_i).

Logged (``tepo/``, per micro-batch): w_mean / w_min / w_max, mask_frac, entropy_change_mean (mean dH over the
completion tokens), entropy_change_pos_adv / entropy_change_neg_adv (mean dH over the tokens with A > 0 / A < 0, 0
when there are none: sec. 3.2.2-3.2.3's sign of dH by the sign of A), kl and kl_masked when the KL term is on.
``docs/assumptions.md (tepo)`` gives the reasons for every default.

Shapes: B responses, T padded completion tokens, ``mask`` float (B, T). No Python loops over tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, Method, RolloutBatch, RolloutResult, SharedConfig, hparam
from rlvr_lib.methods.core import (
    Aggregation,
    Aggregator,
    KLEstimator,
    bad_choice,
    clip_metrics,
    entropy_bonus_loss,
    group_normalized_advantages,
    kl_estimate,
    masked_mean,
    ppo_clip_loss,
    sequence_log_ratio,
)
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least

MaskScope = Literal["pos_adv_entropy_down", "none", "neg_adv_entropy_up", "either", "all"]
Surrogate = Literal["ppo", "eq4_literal", "unclipped", "cispo", "prefix_is"]
LOG_W_CLAMP = 20.0  # |log w_i| bound before exp (verl clamps token log-ratios to [-20, 20] likewise)


# ----------------------------------------------------------------------------- pure functions
def sequence_log_weight(logps: Tensor, old_logps: Tensor, mask: Tensor) -> Tensor:
    """Sec. 3.3.1 / Alg. 1 lines 9-11: log w_i = 1/|o_i| sum_t (logp - old_logp) * mask, (B,).

    Differentiable in ``logps``. A fully masked row gives 0 (w = 1). ``core.sequence_log_ratio`` (GSPO's log s_i)
    clamped to +-LOG_W_CLAMP.
    """
    return sequence_log_ratio(logps, old_logps, mask).clamp(-LOG_W_CLAMP, LOG_W_CLAMP)


def sequence_clip_surrogate(
    log_w: Tensor, advantages: Tensor, eps_low: float, eps_high: float, surrogate: Surrogate = "ppo"
) -> tuple[Tensor, dict[str, Tensor]]:
    """The policy term of eq. 4 as a per-token LOSS (negated objective), (B, T).

    log_w: (B,); advantages: (B, T). ``'ppo'``: -min(w*A, clip(w)*A) (PPO's pessimistic bound with the
    sequence weight, as GSPO); ``'eq4_literal'``: -min(w, clip(w)) * A, eq. 4 typeset literally (for A < 0 this
    is the optimistic bound); ``'unclipped'``: -w*A (Algorithm 1 line 15). Returns the loss and the info dict
    of ``core.ppo_clip_loss`` (ratio = w (B, 1), boolean clipped_low/high (B, T): tokens whose gradient the
    clip removes).
    """
    if surrogate == "ppo":
        return ppo_clip_loss(log_w[:, None], torch.zeros_like(log_w)[:, None], advantages, eps_low, eps_high)
    w = torch.exp(log_w)[:, None]
    if surrogate == "eq4_literal":
        clipped = torch.clamp(w, 1 - eps_low, 1 + eps_high)
        loss = -torch.minimum(w, clipped) * advantages
        high = (w > 1 + eps_high).expand_as(advantages) & (advantages != 0)
        low = torch.zeros_like(high)
    elif surrogate == "unclipped":
        loss = -w * advantages
        low = high = torch.zeros_like(advantages, dtype=torch.bool)
    else:
        raise bad_choice("surrogate", surrogate, Surrogate)
    return loss, {"ratio": w, "clipped_low": low, "clipped_high": high}


def prefix_log_weight(logps: Tensor, old_logps: Tensor, mask: Tensor) -> Tensor:
    """Table 3 panel C's prefix importance sampling (sec. 4.3 b.-c., table 5): log w_{i,j<=t} = 1/|y_{i,j<=t}|
    sum_{j<=t} (logp_{i,j} - old_logp_{i,j}), the geometric mean of the token ratios of the prefix up to token t,
    (B, T), clamped to +-LOG_W_CLAMP. Masked tokens add nothing and are not counted; differentiable in ``logps``."""
    diff = ((logps - old_logps) * mask).cumsum(-1)
    count = mask.cumsum(-1).clamp(min=1.0)
    return (diff / count).clamp(-LOG_W_CLAMP, LOG_W_CLAMP)


def cispo_surrogate(
    log_w: Tensor, logps: Tensor, advantages: Tensor, eps_low: float, eps_high: float
) -> tuple[Tensor, dict[str, Tensor]]:
    """Table 3 panel C's CISPO (sec. 4.3 b., Chen et al. 2025): per-token LOSS -sg[clip(w_i, 1-eps_low,
    1+eps_high)] * A_{i,t} * logp_{i,t}, (B, T).

    log_w: (B,) TEPO's sequence weight (tepo.txt writes sg[w_i]: the subscript is the response's); logps,
    advantages: (B, T). The weight is clipped inside the stop-gradient, as CISPO does (L376: "clipped, detached
    importance weights"), so no token loses its gradient: clipped_low / clipped_high mark the tokens (A != 0) whose
    weight the clip bounds. Without the clip the gradient, w_i * A * grad logp_{i,t} per token, equals the
    ``'unclipped'`` surrogate's under token-mean.
    """
    w = torch.exp(log_w.detach())[:, None]
    weight = torch.clamp(w, 1 - eps_low, 1 + eps_high)
    loss = -weight * advantages * logps
    acts = (advantages != 0).expand_as(logps)
    return loss, {"ratio": w, "clipped_low": (w < 1 - eps_low) & acts, "clipped_high": (w > 1 + eps_high) & acts}


def entropy_kl_mask(advantages: Tensor, entropy_change: Tensor, scope: MaskScope, tol: float = 0.0) -> Tensor:
    """M_{i,t} of eq. 4 and the table 3 panel E / panel A variants, float (B, T) of 0/1.

    Delta H counts as negative below -tol and positive above tol (tol = 0: the paper's strict signs).
    ``'pos_adv_entropy_down'``: A > 0 and dH < 0 (TEPO). ``'neg_adv_entropy_up'``: A < 0 and dH > 0.
    ``'either'``: the union of the two misalignments (sec. 3.3.2). ``'none'``: all 0 (TEPO-w/o. KL).
    ``'all'``: all 1 (panel A, undifferentiated KL).
    """
    down, up = entropy_change < -tol, entropy_change > tol
    pos, neg = advantages > 0, advantages < 0
    if scope == "pos_adv_entropy_down":
        m = pos & down
    elif scope == "neg_adv_entropy_up":
        m = neg & up
    elif scope == "either":
        m = (pos & down) | (neg & up)
    elif scope == "none":
        m = torch.zeros_like(pos)
    elif scope == "all":
        m = torch.ones_like(pos)
    else:
        raise bad_choice("mask_scope", scope, MaskScope)
    return m.to(entropy_change.dtype)


# ----------------------------------------------------------------------------- the method
@register
class TEPO(Method):
    name = "tepo"
    paper = "Lin et al., TEPO (token-level policy optimization via sequence-level likelihood), eq. 4, Alg. 1, App. D"
    defining_hparams = ("beta", "loss_agg")  # its masked KL coefficient and its aggregation (table 3 panels A, D)
    updates_per_batch = "several"

    @dataclass
    class Config(SharedConfig):
        eps_low: float = hparam(0.2, "eq. 4's single eps (clip(w, 1 - eps, 1 + eps)); no value given: PPO's/GRPO's 0.2")
        eps_high: float = hparam(0.2, "eq. 4's single eps (symmetric); 0.28 is the GRPO/DAPO baselines' (sec. 4.1)")
        beta: float = hparam(0.001, "KL coefficient, sec. 4.1, Qwen2.5-7B (1.0 for Qwen3-14B)")
        kl_estimator: KLEstimator = hparam("k3", "per-token KL estimator in eq. 4")
        mask_scope: MaskScope = hparam("pos_adv_entropy_down", "M_{i,t} of eq. 4 (table 3 panel E); 'all': panel A")
        kl_target: Literal["old", "ref"] = hparam(
            "old", "eq. 4: KL(pi_theta || pi_old); 'ref': KL to the reference model (table 3 panel A)"
        )
        surrogate: Surrogate = hparam(
            "ppo",
            "min(w*A, clip(w)*A); 'eq4_literal': min(w, clip(w))*A; 'unclipped': w*A (Alg. 1); table 3 panel C: "
            "'cispo': sg[clip(w)]*A*log pi, 'prefix_is': min(w_t*A, clip(w_t)*A) with w_t the prefix's weight",
        )
        entropy_change_tol: float = hparam(0.0, "|dH| <= tol counts as no change (0: strict signs of eq. 4)")
        loss_agg: Aggregation = hparam(
            "token-mean", "eq. 4: 1/sum|o_i|; table 3 panel D: seq-mean-token-mean / seq-mean-token-sum"
        )
        adv_eps: float = hparam(1e-6, "verl's GRPO epsilon (eq. 9 has none)")
        entropy_coef: float = hparam(
            0.0,
            "table 3 panel B: loss += -coef * agg(H) (current policy's entropy, with gradient, TEPO's aggregation): "
            "> 0 maximises entropy ('Max-Entropy'), < 0 minimises it ('Min-Entropy'); 0: none (eq. 4)",
        )

        def __post_init__(self) -> None:
            super().__post_init__()
            require_at_least(self, 0.0, "eps_low", "eps_high", "beta", "entropy_change_tol")

    @property
    def needs_reference(self) -> bool:
        c = self.cfg
        return c.kl_target == "ref" and c.beta > 0 and c.mask_scope != "none"

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        c = self.cfg
        adv = group_normalized_advantages(
            batch.rewards, batch.group_ids, scale=c.scale_rewards, std_kind=c.std_kind, eps=c.adv_eps
        )
        return RolloutResult(
            advantages=adv[:, None].expand_as(batch.mask).contiguous(),
            extras={"behaviour_entropies": batch.entropies.detach()},
        )

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        mask = batch.mask
        log_w = sequence_log_weight(batch.logps, batch.old_logps, mask)
        if c.surrogate == "cispo":
            policy, info = cispo_surrogate(log_w, batch.logps, batch.advantages, c.eps_low, c.eps_high)
        elif c.surrogate == "prefix_is":
            log_w_prefix = prefix_log_weight(batch.logps, batch.old_logps, mask)
            policy, info = ppo_clip_loss(
                log_w_prefix, torch.zeros_like(log_w_prefix), batch.advantages, c.eps_low, c.eps_high
            )
        else:
            policy, info = sequence_clip_surrogate(log_w, batch.advantages, c.eps_low, c.eps_high, c.surrogate)
        d_entropy = batch.entropies.detach() - batch.extras["behaviour_entropies"]
        m = entropy_kl_mask(batch.advantages, d_entropy, c.mask_scope, c.entropy_change_tol) * mask
        w = torch.exp(log_w.detach())
        values = {
            "w_mean": w.mean(),
            "w_min": w.min(),
            "w_max": w.max(),
            "mask_frac": masked_mean(m, mask),
            "entropy_change_mean": masked_mean(d_entropy, mask),
            # Lemma 3.2 / Theorem 3.1's sign of dH by the sign of A (claim `entropy_sign`)
            "entropy_change_pos_adv": masked_mean(d_entropy, mask * (batch.advantages > 0)),
            "entropy_change_neg_adv": masked_mean(d_entropy, mask * (batch.advantages < 0)),
        }
        per_token = policy
        if c.beta > 0 and c.mask_scope != "none":
            target = batch.ref_logps if c.kl_target == "ref" else batch.old_logps
            if target is None:
                raise ValueError("tepo with kl_target='ref' needs reference log-probs")
            kl = kl_estimate(batch.logps, target, c.kl_estimator)
            per_token = per_token + c.beta * kl * m
            values["kl"] = masked_mean(kl.detach(), mask)
            values["kl_masked"] = masked_mean(kl.detach(), m)
        agg = Aggregator(c.loss_agg, batch.num_tokens, batch.num_seqs, batch.max_completion_length)
        loss = agg(per_token, mask)
        if c.entropy_coef != 0:
            bonus = entropy_bonus_loss(batch.entropies, mask, c.entropy_coef, agg)
            values["entropy_bonus_loss"] = bonus.detach()
            loss = loss + bonus
        metrics = self.own_metrics(values)
        return loss, {**metrics, **clip_metrics(info, mask)}
