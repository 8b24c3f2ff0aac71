"""CW-GRPO: Covariance-aware GRPO with Gaussian-kernel advantage reweighting (Wang et al., arXiv 2605.11538;
``cw_grpo.txt`` section 2.3).

Per token (the paper's equations are unnumbered; names follow section 2.3):

- centred covariance  c_{i,t} = (logp_{i,t} - mean(logp)) * (A_i - mean(A));
- Gaussian kernel     w_{i,t} = exp(-c_{i,t}^2 / (2 sigma^2)), sigma = std of {c_{i,t}};
- normalisation       w_tilde_{i,t} = w_{i,t} * N / sum_{j,k} w_{j,k}, N = sum_j |o_j|;
- loss                l_{i,t} = rho_{i,t} * (w_tilde_{i,t} * A_i) - beta * KL_{i,t}, aggregated
                      1/G sum_i 1/|o_i| sum_t (seq-mean-token-mean).

The weights are constants (no gradient). The paper's l_{i,t} has no clip; ``use_clip=True`` gives GRPO's
clipped surrogate on the reweighted advantages. Open choices (scope of the statistics, centring of A,
which log-probs, clip) are ``Config`` fields; ``docs/assumptions.md (cw_grpo)`` gives the reasons.

Shapes: B responses, T padded tokens, ``mask`` float (B, T); ``index`` (B,) dense segment ids (the groups,
or all zeros for batch scope). Nothing loops over tokens or groups in Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, RolloutBatch, RolloutResult, hparam
from rlvr_lib.methods.core import (
    AdvCentering,
    Aggregation,
    StdKind,
    bad_choice,
    clip_metrics,
    group_index,
    group_mean_std,
    group_sum,
    ppo_clip_loss,
    to_floats,
    token_covariance,
)
from rlvr_lib.methods.covariance import TOP_PERCENTS, percentile_metrics, share_metrics
from rlvr_lib.methods.covariance import covariance_percentiles as side_percentiles
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.registry import register

Scope = Literal["group", "batch"]
# Table 1 / fig. 3 of the paper: covariance magnitude at the top 0.01 %, 1 %, 20 %, 40 %, 100 % of tokens.
COV_TOP_PERCENTS = TOP_PERCENTS
EXTRA_SEQ_ADV = "cw_seq_adv"  # (B,) GRPO advantages A_i, with logp_source 'current' or ``log_gradient_cosine``


# ----------------------------------------------------------------------------- pure functions
def scope_index(group_ids: Tensor, scope: Scope) -> tuple[Tensor, int]:
    """Dense segment ids (B,) over which means, sigma and N are taken: the prompt groups or the whole batch."""
    if scope == "group":
        return group_index(group_ids)
    if scope == "batch":
        return torch.zeros_like(group_ids, dtype=torch.long), 1
    raise bad_choice("scope", scope, Scope)


def gaussian_kernel_weights(
    cov: Tensor, mask: Tensor, index: Tensor, n_segments: int, std_kind: StdKind = "sample"
) -> tuple[Tensor, Tensor]:
    """w_{i,t} = exp(-c^2 / (2 sigma^2)) with sigma the std of the segment's masked c, (B, T) in (0, 1].

    A segment whose covariances are all equal (sigma = 0, e.g. a group with equal rewards, where c = 0) gets
    w = 1: nothing in it is extreme. Masked positions get 0. Returns (w, sigma (n_segments,)).
    """
    mask = mask.to(cov.dtype)
    _, sigma = group_mean_std(cov, index, n_segments, weight=mask, std_kind=std_kind)
    var = (sigma**2)[index, None]
    exponent = torch.where(
        var > 0, cov * cov / (2.0 * var.clamp(min=torch.finfo(cov.dtype).tiny)), torch.zeros_like(cov)
    )
    return torch.exp(-exponent) * mask, sigma


def normalize_weights(w: Tensor, mask: Tensor, index: Tensor, n_segments: int) -> Tensor:
    """w_tilde_{i,t} = w_{i,t} * N / sum w, N = number of masked tokens of the segment, (B, T).

    Within each segment the w_tilde sum to N (mean 1), so the expected loss scale is unchanged.
    """
    mask = mask.to(w.dtype)
    n_tok = group_sum(mask.sum(-1), index, n_segments)
    w_sum = group_sum((w * mask).sum(-1), index, n_segments)
    scale = torch.where(w_sum > 0, n_tok / w_sum.clamp(min=torch.finfo(w.dtype).tiny), torch.ones_like(w_sum))
    return w * scale[index, None] * mask


def covariance_percentiles(cov: Tensor, mask: Tensor, top_percents=COV_TOP_PERCENTS) -> dict[str, float]:
    """Table 1 of the paper: the covariance at the top p % of positive and of negative tokens, and each side's share.

    For positive c the value above which p % of the positive covariances lie (quantile 1 - p/100); for
    negative c the value below which p % of the negative ones lie (quantile p/100); ``analysis.covariance``
    on the masked entries. A side with no tokens (e.g. every group has equal rewards) is left out rather than
    logged as NaN. Keys without the method prefix: ``cov_{pos,neg}_top<p>pct``, ``cov_{pos,neg}_share``.
    """
    return percentile_metrics(side_percentiles(cov[mask.bool()], top_percents))


def covariance_weighted_advantages(
    logps: Tensor,
    seq_adv: Tensor,
    mask: Tensor,
    index: Tensor,
    n_segments: int,
    *,
    adv_centering: AdvCentering = "token",
    std_kind: StdKind = "sample",
) -> tuple[Tensor, dict[str, Tensor]]:
    """Section 2.3 end to end: (logps (B, T), A (B,)) -> reweighted token advantages w_tilde * A_i (B, T).

    Runs without gradient. Returns the advantages and the intermediates (cov, w, w_tilde, sigma).
    """
    with torch.no_grad():
        mask = mask.to(logps.dtype)
        cov = token_covariance(logps, seq_adv, mask, index, n_segments, adv_centering=adv_centering)
        w, sigma = gaussian_kernel_weights(cov, mask, index, n_segments, std_kind)
        w_tilde = normalize_weights(w, mask, index, n_segments)
        adv = w_tilde * seq_adv.to(logps.dtype)[:, None]
    return adv, {"cov": cov, "w": w, "w_tilde": w_tilde, "sigma": sigma}


def weight_metrics(parts: dict[str, Tensor], mask: Tensor, percentiles: bool = True) -> dict[str, float]:
    """Weight spread (min/mean/max/std of the raw kernel weights w), the covariance and its percentiles.

    One host sync for the spread; the percentiles (a sort of the batch's covariances) add two more. Keys
    without the method prefix.
    """
    w, wt, cov = parts["w"], parts["w_tilde"], parts["cov"]
    mask = mask.to(w.dtype)
    valid = mask.bool()
    if not valid.any():
        return {}
    n = mask.sum().clamp(min=1.0)
    w_mean = (w * mask).sum() / n
    inf = torch.tensor(float("inf"), dtype=w.dtype, device=w.device)
    values = {
        "w_min": torch.where(valid, w, inf).min(),
        "w_mean": w_mean,
        "w_max": torch.where(valid, w, -inf).max(),
        "w_std": (((w - w_mean) ** 2 * mask).sum() / n).sqrt(),
        "w_below_half_frac": ((w < 0.5).to(w.dtype) * mask).sum() / n,
        "w_tilde_max": torch.where(valid, wt, -inf).max(),
        "cov_mean": (cov * mask).sum() / n,
        "cov_abs_mean": (cov.abs() * mask).sum() / n,
        "sigma_mean": parts["sigma"].mean(),
    }
    out = to_floats(values, w.dtype)
    if percentiles:
        out.update(covariance_percentiles(cov, mask))
        out.update(share_metrics(cov[valid]))  # fig. 3: the share of the total |c| its top 1% of tokens carry
    return out


# ----------------------------------------------------------------------------- the method
@register
class CWGRPO(GRPO):
    name = "cw_grpo"
    paper = "Wang et al. 2026, CW-GRPO (arXiv 2605.11538), sec. 2.3"
    updates_per_batch = "any"

    @dataclass
    class Config(GRPO.Config):
        beta: float = hparam(0.04, "l_{i,t} carries -beta*KL, value not given: GRPO's (DeepSeekMath) / Open-RS-era TRL")
        kl_ratio_correction: bool = hparam(False, "l_{i,t} has plain beta*KL_{i,t} (sec. 2.3)")
        loss_agg: Aggregation = hparam("seq-mean-token-mean", "1/G sum_i 1/|o_i| sum_t (sec. 2.3)")
        use_clip: bool = hparam(False, "l_{i,t} = rho * (w_tilde * A_i): no clip in the paper's equations")
        scope: Scope = hparam("group", "means, sigma, N per prompt group (N = sum_{j=1}^G |o_j|) or the batch")
        adv_centering: AdvCentering = hparam(
            "token", "mean(A) over the scope's tokens, or over its responses ('response')"
        )
        logp_source: Literal["behaviour", "current"] = hparam(
            "behaviour", "logp in c: rollout (behaviour) policy, or the current policy at loss time"
        )
        log_percentiles: bool = hparam(
            True,
            "table-1 percentiles of this method's c each rollout (logp_source 'behaviour' only; the loss is unchanged)",
        )
        log_gradient_cosine: bool = hparam(
            False,
            "diagnostic: each optimizer step, the cosine and norm ratio between the gradient of this loss and of the "
            "same loss without the kernel (w_tilde = 1: GRPO's advantages A_i, the same KL term) on the same batch "
            "(`gradient_cosine/*`; 1 - norm_ratio: the share of the gradient norm the kernel removes); the "
            "parameters and random state are unchanged",
        )

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        c = self.cfg
        seq_adv = self.sequence_advantages(batch)
        mask = batch.mask
        if c.logp_source == "current":
            # Weights come from the current policy at loss time; the micro-batch needs the segment ids.
            index, _ = scope_index(batch.group_ids, c.scope)
            adv = seq_adv[:, None].expand_as(mask).contiguous()
            return RolloutResult(advantages=adv, extras={"cw_segment": index, EXTRA_SEQ_ADV: seq_adv})
        index, n = scope_index(batch.group_ids, c.scope)
        adv, parts = covariance_weighted_advantages(
            batch.logps.detach().float(),
            seq_adv,
            mask,
            index,
            n,
            adv_centering=c.adv_centering,
            std_kind=c.std_kind,
        )
        extras = {EXTRA_SEQ_ADV: seq_adv} if c.log_gradient_cosine else {}
        return RolloutResult(
            advantages=adv, extras=extras, metrics=self.prefixed(weight_metrics(parts, mask, c.log_percentiles))
        )

    def unweighted_loss(self, batch: LossBatch) -> Tensor:
        """The loss on the same micro-batch without the kernel (w_tilde = 1): GRPO's advantages A_i (B,), the same
        ratio, clip choice and KL term (the trainer's ``log_gradient_cosine`` diagnostic), with grad."""
        seq_adv = batch.extras[EXTRA_SEQ_ADV].to(batch.logps.dtype)[:, None].expand_as(batch.mask)
        eps_low, eps_high = (self.cfg.eps_low, self.cfg.eps_high) if self.cfg.use_clip else (math.inf, math.inf)
        per_token, info = ppo_clip_loss(batch.logps, batch.old_logps, seq_adv, eps_low, eps_high)
        kl, _ = self.kl_term(batch, info["ratio"])
        return self.aggregator(batch)(per_token + kl, batch.mask)

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        metrics: dict[str, float] = {}
        if c.logp_source == "current":
            index, n = group_index(batch.extras["cw_segment"])  # the segments present in this micro-batch
            adv, parts = covariance_weighted_advantages(
                batch.logps.detach().float(),
                batch.extras[EXTRA_SEQ_ADV],
                batch.mask,
                index,
                n,
                adv_centering=c.adv_centering,
                std_kind=c.std_kind,
            )
            batch = replace(batch, advantages=adv)
            metrics.update(self.prefixed(weight_metrics(parts, batch.mask, percentiles=False)))
        eps_low, eps_high = (c.eps_low, c.eps_high) if c.use_clip else (math.inf, math.inf)
        per_token, info = ppo_clip_loss(batch.logps, batch.old_logps, batch.advantages, eps_low, eps_high)
        kl, kl_metrics = self.kl_term(batch, info["ratio"])
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        flows = self.entropy_flow_diagnostics(batch, info["ratio"], info["clipped_low"], info["clipped_high"])
        return loss, {**metrics, **kl_metrics, **clip_metrics(info, batch.mask), **flows}
