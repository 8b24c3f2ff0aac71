"""ERPO: Token-Level Entropy-Regulated Policy Optimization (Yu et al., arXiv 2603.28204; ``erpo.txt``).

Token advantages replace GRPO's sequence advantage (section 4, eq. 6-10, Algorithm 1):

1. implicit progress ``s = beta_progress * (logp - ref_logp)`` (eq. 7), behaviour policy, no gradient;
2. entropy gate ``W = sigmoid(gamma * (H - mu_G(H)) / (sigma_G(H) + delta))`` over the tokens of the group (eq. 8);
3. relative-position bucket ``k = floor(t / |o_i| * K)`` (Alg. 1 line 10) and the z-score of ``s`` within
   (group, bucket) (eq. 9);
4. ``Psi_hat = W * sgn(A_i) * s_tilde``, rescaled so its std over the active tokens is ``sigma_target``
   (eq. 10, Alg. 1 line 19);
5. ``A_final = Norm_G(A_i + eta * Psi)``: z-score over all tokens of the group (eq. 10, eq. 16).

The loss is GRPO's clipped surrogate (eq. 5) with these token advantages plus ``beta`` times the k3 KL to
the reference (eq. 4). The paper has no ablation section; the switches ``use_*`` turn off the three
components its abstract names (Entropy-aware Gating, Bucket-based Implicit Normalization, Result-anchored
Advantage Synthesis) and the two normalisation steps of eq. 10 one at a time. Every choice the paper leaves
open is a ``Config`` field; ``docs/assumptions.md (erpo)`` gives the reasons for each default.

Shapes: B responses, T padded completion tokens, ``mask`` float (B, T); ``index`` (B,) dense group ids
0..n_groups-1 (``core.group_index``). Nothing loops over tokens or groups in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

from rlvr_lib.methods.base import RolloutBatch, RolloutResult, hparam
from rlvr_lib.methods.core import (
    Aggregation,
    StdKind,
    bad_choice,
    group_index,
    group_mean_std,
    masked_mean,
    std_from_moments,
    to_floats,
)
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least

ActiveTokens = Literal["mask", "anchored"]


# ----------------------------------------------------------------------------- settings
@dataclass
class ERPOConfig(GRPO.Config):
    """ERPO's settings (sec. 5.1, table 3; open choices: docs/assumptions.md (erpo)), read by
    ``erpo_token_advantages``."""

    beta_progress: float = hparam(0.1, "eq. 7 implicit progress scale (sec. 5.1)")
    gamma: float = hparam(5.0, "eq. 8 gate sharpness (sec. 5.1)")
    eta: float = hparam(0.2, "eq. 10 weight of the process signal (sec. 5.1)")
    beta: float = hparam(0.001, "KL-to-reference coefficient (table 3)")
    loss_agg: Aggregation = hparam("token-mean", "eq. 5: 1/sum|o_i| sum_i sum_t")
    kl_ratio_correction: bool = hparam(False, "eq. 5 has plain beta*KL (TRL 1.16 would multiply by rho)")
    num_buckets: int = hparam(4, "K relative-position buckets (Alg. 1 line 10), not given: sec. 4.3's four stages")
    sigma_target: float = hparam(1.0, "eq. 10 target std of Psi, not given")
    delta: float = hparam(1e-4, "the paper's 'small constant' in eq. 8-10 (adv_eps is eq. 3's)")
    position_base: Literal[0, 1] = hparam(1, "t in {1..|o_i|} (eq. 3/5); 0: Python positions")
    active_tokens: ActiveTokens = hparam(
        "mask", "eq. 10's 'active' tokens: all completion tokens, or 'anchored' (sgn(A_i) != 0)"
    )
    psi_scale_scope: Literal["batch", "group"] = hparam(
        "batch", "eq. 10's std(Psi_hat_active) has no group subscript: over the batch, or per group"
    )
    use_entropy_gate: bool = hparam(True, "component (i), W (eq. 8); off: W = 1")
    use_implicit_progress: bool = hparam(True, "eq. 7 signal; off: s_tilde = 1 (Psi = W * sgn(A))")
    use_bucket_norm: bool = hparam(True, "component (ii), per-(group, bucket) z-score (eq. 9); off: per group")
    use_outcome_anchor: bool = hparam(True, "component (iii), sgn(A_i) (eq. 10); off: 1")
    use_psi_rescale: bool = hparam(True, "Alg. 1 line 19; off: Psi = Psi_hat")
    use_group_norm: bool = hparam(True, "Norm_G of eq. 10; off: A_i + eta * Psi")

    def __post_init__(self) -> None:
        super().__post_init__()
        require_at_least(self, 0.0, "beta_progress", "sigma_target", "delta", strict=True)
        require_at_least(self, 0.0, "gamma", "eta")
        require_at_least(self, 1, "num_buckets")


# ----------------------------------------------------------------------------- pure functions
def segment_mean_std(
    x: Tensor, segments: Tensor, n_segments: int, mask: Tensor, std_kind: StdKind = "sample"
) -> tuple[Tensor, Tensor]:
    """Mean and std of the masked entries of ``x`` (B, T) within each segment.

    ``segments`` (B, T) long in 0..n_segments-1 assigns every token to a segment (its value at masked-out
    positions is irrelevant). Two passes of ``index_add_`` (mean, then centred squares). Returns two
    (n_segments,) tensors; an empty segment has mean 0 and std 0, a one-token segment std 0 with
    ``std_kind='sample'``.
    """
    seg, m = segments.reshape(-1), mask.reshape(-1).to(x.dtype)
    xm = x.reshape(-1) * m
    count = torch.zeros(n_segments, dtype=x.dtype, device=x.device).index_add_(0, seg, m)
    total = torch.zeros_like(count).index_add_(0, seg, xm)
    mean = total / count.clamp(min=1.0)
    centred = (x.reshape(-1) - mean[seg]) * m
    sq = torch.zeros_like(count).index_add_(0, seg, centred * centred)
    return mean, std_from_moments(sq, count, std_kind)


def group_token_zscore(
    x: Tensor, mask: Tensor, index: Tensor, n_groups: int, delta: float, std_kind: StdKind = "sample"
) -> Tensor:
    """Norm_G: (x - mean_G) / (std_G + delta), statistics over all masked tokens of each group.

    Used for the entropy calibration inside the gate (eq. 8, Alg. 1 line 13) and for the final
    normalisation (eq. 10, Alg. 1 line 20), after which each group's tokens have mean 0 and, up to
    ``delta``, variance 1 (eq. 16). x, mask: (B, T); index: (B,). Returns (B, T), 0 on masked positions.
    """
    mean, std = group_mean_std(x, index, n_groups, weight=mask, std_kind=std_kind)
    return (x - mean[index, None]) / (std[index, None] + delta) * mask


def implicit_progress(logps: Tensor, ref_logps: Tensor, mask: Tensor, beta_progress: float) -> Tensor:
    """Eq. 7: s_{i,t} = beta_progress * (log pi(o_t) - log pi_ref(o_t)), (B, T), 0 on masked positions."""
    return beta_progress * (logps - ref_logps) * mask


def entropy_gate(
    entropies: Tensor,
    mask: Tensor,
    index: Tensor,
    n_groups: int,
    gamma: float,
    delta: float,
    std_kind: StdKind = "sample",
) -> Tensor:
    """Eq. 8: W_{i,t} = sigmoid(gamma * (H_{i,t} - mu_{H,G}) / (sigma_{H,G} + delta)), (B, T) in (0, 1).

    mu and sigma are taken over all completion tokens of the group. Masked positions get 0.
    """
    z = group_token_zscore(entropies, mask, index, n_groups, delta, std_kind)
    return torch.sigmoid(gamma * z) * mask


def relative_position_buckets(mask: Tensor, num_buckets: int, position_base: int = 1) -> Tensor:
    """Alg. 1 line 10: k = floor(t / |o_i| * K), (B, T) long in 0..K-1.

    t counts completion tokens from ``position_base`` (1: the paper's t in {1..|o_i|}; 0: Python-style
    positions); |o_i| = mask.sum(-1). Integer arithmetic (floor(t*K / |o_i|)) avoids float rounding at bucket
    edges. With t 1-based the last token gives k = K, which Alg. 1 line 14 (k in {0..K-1}) has no bucket for:
    it joins bucket K-1. Masked positions get bucket 0 (their value is never used).
    """
    m = mask.to(torch.long)
    t = torch.cumsum(m, dim=-1) - 1 + position_base  # position of each completion token
    length = m.sum(-1, keepdim=True).clamp(min=1)
    k = torch.div(t * num_buckets, length, rounding_mode="floor").clamp(0, num_buckets - 1)
    return k * m


def bucket_normalize(
    s: Tensor,
    mask: Tensor,
    index: Tensor,
    n_groups: int,
    buckets: Tensor,
    num_buckets: int,
    delta: float,
    std_kind: StdKind = "sample",
) -> Tensor:
    """Eq. 9: s_tilde = (s - mu_{k,G}) / (sigma_{k,G} + delta) within each (group, bucket) cell, (B, T).

    The cell statistics pool the bucket-k tokens of all G responses of the group. A cell with a single
    token (sample std 0) gives s_tilde = 0 there.
    """
    cells = index[:, None] * num_buckets + buckets
    mean, std = segment_mean_std(s, cells, n_groups * num_buckets, mask, std_kind)
    return (s - mean[cells]) / (std[cells] + delta) * mask


def active_token_mask(mask: Tensor, anchor: Tensor, which: ActiveTokens) -> Tensor:
    """Tokens over which eq. 10's std(Psi_hat_active) is taken, (B, T) float.

    ``which='mask'``: every completion token. ``'anchored'``: only tokens of responses whose outcome anchor
    is non-zero (sgn(A_i) != 0), i.e. excluding groups with equal rewards, where Psi_hat is 0 by construction.
    anchor: (B,).
    """
    if which == "mask":
        return mask
    if which == "anchored":
        return mask * (anchor != 0).to(mask.dtype)[:, None]
    raise bad_choice("active_tokens", which, ActiveTokens)


def rescale_to_target_std(
    psi_hat: Tensor,
    active: Tensor,
    sigma_target: float,
    delta: float,
    index: Tensor | None = None,
    n_groups: int = 1,
    std_kind: StdKind = "sample",
) -> tuple[Tensor, Tensor]:
    """Eq. 10 / Alg. 1 line 19: Psi = sigma_target * Psi_hat / (std(Psi_hat over active tokens) + delta).

    No re-centring (a rescale only). With ``index`` None the std is one number over the active tokens of the
    whole batch; with ``index`` (B,) it is taken per group. Returns (Psi (B, T), the std(s) used).
    """
    if index is None:
        index, n_groups = torch.zeros(psi_hat.shape[0], dtype=torch.long, device=psi_hat.device), 1
    _, std = group_mean_std(psi_hat, index, n_groups, weight=active, std_kind=std_kind)
    return sigma_target * psi_hat / (std[index, None] + delta), std


def erpo_token_advantages(
    seq_adv: Tensor,
    logps: Tensor,
    ref_logps: Tensor | None,
    entropies: Tensor,
    mask: Tensor,
    index: Tensor,
    n_groups: int,
    c: ERPOConfig,
) -> tuple[Tensor, dict[str, Tensor]]:
    """Algorithm 1, lines 5-20: sequence advantages (B,) -> ERPO token advantages (B, T), settings from ``c``.

    seq_adv: GRPO advantages A_i^group (B,) (eq. 3); logps, ref_logps, entropies, mask: (B, T) of the
    behaviour policy (no gradient); index: (B,) dense group ids. Returns the final advantages (0 on masked
    positions) and the intermediate tensors (W, s, s_tilde, Psi_hat, Psi, active, psi_hat_std) for metrics
    and tests. Ablations: a switched-off component becomes the identity of the product in Psi_hat
    (W = 1, s_tilde = 1, sgn(A_i) = 1), ``use_bucket_norm=False`` z-scores s over the whole group (K = 1),
    ``use_psi_rescale=False`` keeps Psi = Psi_hat and ``use_group_norm=False`` returns A_i + eta * Psi.
    """
    mask = mask.to(logps.dtype)
    seq_adv = seq_adv.to(logps.dtype)
    delta, std_kind = c.delta, c.std_kind
    gate = entropy_gate(entropies, mask, index, n_groups, c.gamma, delta, std_kind) if c.use_entropy_gate else mask
    if c.use_implicit_progress:
        if ref_logps is None:
            raise ValueError("ERPO's implicit progress (eq. 7) needs reference log-probs")
        s = implicit_progress(logps, ref_logps, mask, c.beta_progress)
        k = c.num_buckets if c.use_bucket_norm else 1
        buckets = relative_position_buckets(mask, k, c.position_base)
        s_tilde = bucket_normalize(s, mask, index, n_groups, buckets, k, delta, std_kind)
    else:
        s = torch.zeros_like(mask)
        s_tilde = mask
    anchor = torch.sign(seq_adv) if c.use_outcome_anchor else torch.ones_like(seq_adv)
    psi_hat = gate * anchor[:, None] * s_tilde * mask
    active = active_token_mask(mask, anchor, c.active_tokens)
    if c.use_psi_rescale:
        scope_index = index if c.psi_scale_scope == "group" else None
        psi, psi_hat_std = rescale_to_target_std(
            psi_hat, active, c.sigma_target, delta, scope_index, n_groups, std_kind
        )
    else:
        psi, psi_hat_std = (
            psi_hat,
            group_mean_std(psi_hat, torch.zeros_like(index), 1, weight=active, std_kind=std_kind)[1],
        )
    combined = (seq_adv[:, None] + c.eta * psi) * mask
    final = group_token_zscore(combined, mask, index, n_groups, delta, std_kind) if c.use_group_norm else combined
    parts = {
        "gate": gate,
        "s": s,
        "s_tilde": s_tilde,
        "psi_hat": psi_hat,
        "psi": psi,
        "active": active,
        "psi_hat_std": psi_hat_std,
        "anchor": anchor,
    }
    return final, parts


def erpo_metrics(final: Tensor, seq_adv: Tensor, mask: Tensor, parts: dict[str, Tensor]) -> dict[str, float]:
    """Diagnostics (floats, one host sync, keys without the method prefix): gate statistics, implicit
    progress, Psi spread, and how far the token advantages move away from the sequence advantage."""
    mask = mask.to(final.dtype)
    gate, active = parts["gate"], parts["active"]
    anchored = mask * (seq_adv != 0).to(mask.dtype)[:, None]
    zeros = torch.zeros(mask.shape[0], dtype=torch.long, device=mask.device)
    _, psi_std = group_mean_std(parts["psi"], zeros, 1, weight=active)
    flipped = (torch.sign(final) != torch.sign(seq_adv)[:, None]).to(mask.dtype)
    lengths = mask.sum(-1).clamp(min=1.0)
    row_mean = (final * mask).sum(-1) / lengths
    within = (((final - row_mean[:, None]) ** 2 * mask).sum(-1) / lengths).sqrt()
    rows = (mask.sum(-1) > 0).to(mask.dtype)
    values = {
        "gate_mean": masked_mean(gate, mask),
        "gate_open_frac": masked_mean((gate > 0.5).to(mask.dtype), mask),
        "gate_high_frac": masked_mean((gate > 0.9).to(mask.dtype), mask),
        "progress_mean": masked_mean(parts["s"], mask),
        "psi_hat_std": parts["psi_hat_std"].mean(),
        "psi_std": psi_std[0],
        "active_frac": active.sum() / mask.sum().clamp(min=1.0),
        "adv_abs_mean": masked_mean(final.abs(), mask),
        "adv_within_seq_std": (within * rows).sum() / rows.sum().clamp(min=1.0),
        "sign_flip_frac": masked_mean(flipped, anchored),
    }
    return to_floats(values, final.dtype)


def _at_least_fp32(x: Tensor) -> Tensor:
    """Detached copy in float32, or float64 if it already is (statistics in half precision lose too much)."""
    x = x.detach()
    return x if x.dtype == torch.float64 else x.float()


# ----------------------------------------------------------------------------- the method
@register
class ERPO(GRPO):
    name = "erpo"
    paper = "Yu et al. 2026, ERPO (arXiv 2603.28204), sec. 4, eq. 6-10, Algorithm 1"
    updates_per_batch = "any"

    Config = ERPOConfig

    @property
    def needs_reference(self) -> bool:
        return self.cfg.use_implicit_progress or self.cfg.beta > 0

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        seq_adv = self.sequence_advantages(batch)
        index, n_groups = group_index(batch.group_ids)
        logps = _at_least_fp32(batch.logps)
        ref = _at_least_fp32(batch.ref_logps) if batch.ref_logps is not None else None
        final, parts = erpo_token_advantages(
            seq_adv, logps, ref, _at_least_fp32(batch.entropies), batch.mask, index, n_groups, self.cfg
        )
        metrics = self.prefixed(erpo_metrics(final, seq_adv.to(final.dtype), batch.mask.to(final.dtype), parts))
        metrics.update(self.covariance_diagnostics(batch, seq_adv))
        return RolloutResult(advantages=final, metrics=metrics)
