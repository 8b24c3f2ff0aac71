"""Pure tensor functions shared by the methods (in the spirit of verl's ``core_algos.py``).

Shapes: B responses, T padded completion tokens, ``mask`` float (B, T). Nothing here loops over
tokens in Python; group statistics use ``group_ids`` (B,) and scatter-adds, so groups need not be
contiguous.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import torch
from torch import Tensor

Aggregation = Literal["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm"]
StdKind = Literal["sample", "population"]
KLEstimator = Literal["k1", "k2", "k3"]
AdvCentering = Literal["token", "response"]


def bad_choice(name: str, value: Any, kind: Any) -> ValueError:
    """The error a pure function raises for a string outside its ``Literal`` ``kind`` (method Configs are
    checked earlier, by ``rlvr_lib.settings.schema.build``)."""
    return ValueError(f"{name} must be one of {list(get_args(kind))}, got {value!r}")


def to_floats(values: dict[str, Tensor], dtype: torch.dtype = torch.float32) -> dict[str, float]:
    """{name: scalar tensor} -> {name: float} with one host sync (one ``stack`` in ``dtype``, one ``tolist``)."""
    if not values:
        return {}
    return dict(zip(values, torch.stack([v.detach().to(dtype) for v in values.values()]).tolist(), strict=True))


# ----------------------------------------------------------------------------- masked statistics
def masked_mean(x: Tensor, mask: Tensor) -> Tensor:
    """Mean of ``x`` over ``mask`` (any shape); 0 when the mask is empty."""
    return (x * mask).sum() / mask.sum().clamp(min=1.0)


def masked_quantiles(x: Tensor, mask: Tensor, qs: tuple[float, ...]) -> list[float]:
    """Quantiles of the masked entries of ``x``; NaN for an empty mask."""
    values = x[mask.bool()].detach().float()
    if values.numel() == 0:
        return [float("nan")] * len(qs)
    ordered = values.sort().values  # sort-based: works on any device and beyond torch.quantile's size limit
    positions = torch.tensor(qs, dtype=values.dtype, device=values.device) * (values.numel() - 1)
    low, high = positions.floor().long(), positions.ceil().long()
    frac = positions - low
    return (ordered[low] * (1 - frac) + ordered[high] * frac).tolist()


def group_index(group_ids: Tensor) -> tuple[Tensor, int]:
    """Map arbitrary group ids (B,) to dense indices 0..G-1. Returns (index (B,), number of groups)."""
    uniq, index = torch.unique(group_ids, return_inverse=True)
    return index, int(uniq.numel())


def group_sum(x: Tensor, index: Tensor, n_groups: int) -> Tensor:
    """Sum of rows of ``x`` (B, ...) per group -> (n_groups, ...)."""
    out = torch.zeros((n_groups, *x.shape[1:]), dtype=x.dtype, device=x.device)
    return out.index_add_(0, index, x)


def group_mean_std(
    x: Tensor, index: Tensor, n_groups: int, weight: Tensor | None = None, std_kind: StdKind = "sample"
) -> tuple[Tensor, Tensor]:
    """Per-group mean and std of ``x`` (B, ...) with optional 0/1 ``weight`` of the same shape.

    All non-batch dimensions are pooled (so for (B, T) input the statistic is over all tokens of a
    group). Returns tensors of shape (n_groups,). ``std_kind='sample'`` uses Bessel's correction and
    gives 0 for a group with a single element.
    """
    weight = torch.ones_like(x) if weight is None else weight
    flat_x = (x * weight).reshape(x.shape[0], -1).sum(-1)
    flat_w = weight.reshape(x.shape[0], -1).sum(-1)
    count = group_sum(flat_w, index, n_groups)
    mean = group_sum(flat_x, index, n_groups) / count.clamp(min=1.0)
    centred = (x - mean[index].view(-1, *([1] * (x.dim() - 1)))) * weight
    sq = group_sum((centred**2).reshape(x.shape[0], -1).sum(-1), index, n_groups)
    return mean, std_from_moments(sq, count, std_kind)


def std_from_moments(sq_sum: Tensor, count: Tensor, std_kind: StdKind = "sample") -> Tensor:
    """std = sqrt(sum of squared deviations / (count - 1)) (``'sample'``, Bessel) or / count (``'population'``).

    sq_sum, count: any shape, the same. 0 where that denominator is <= 0 (empty segments; one element with
    ``'sample'``). Used by ``group_mean_std`` and ERPO's (group, bucket) cells (erpo.txt eq. 8-10).
    """
    denom = (count - 1.0) if std_kind == "sample" else count
    return torch.where(denom > 0, sq_sum / denom.clamp(min=1.0), torch.zeros_like(sq_sum)).sqrt()


def token_covariance(
    logps: Tensor,
    advantages: Tensor,
    mask: Tensor,
    index: Tensor | None = None,
    n_segments: int = 1,
    *,
    means: tuple[Tensor, Tensor] | None = None,
    adv_centering: AdvCentering = "token",
) -> Tensor:
    """Per-token centred covariance c_t = (logp_t - mean(logp)) * (A_t - mean(A)), (B, T), 0 on masked positions.

    Cui et al. 2025's covariance (baselines.md "Clip-Cov", "KL-Cov") and CW-GRPO's c_{i,t} (cw_grpo.txt sec. 2.3).
    logps, mask: (B, T); advantages: (B, T) per token or (B,) per response. Inputs are detached. The means are
    taken over the valid tokens of one segment:

    - ``index`` None: the whole tensor is one segment (verl: the micro-batch), means by ``masked_mean``; or
      ``means`` = (mean logp, mean A) given as scalars / (1,) tensors (e.g. over the rollout batch);
    - ``index`` (B,) dense segment ids 0..n_segments-1 (prompt groups, or zeros for the batch): per-segment
      means; mean(A) counts A_i once per token (``adv_centering='token'``, as Cui et al.'s covariance) or
      once per response with at least one token (``'response'``, needs (B,) advantages).
    """
    logps, advantages = logps.detach(), advantages.detach().to(logps.dtype)
    mask = mask.to(logps.dtype)
    adv = advantages[:, None] if advantages.dim() == 1 else advantages  # (B, 1) or (B, T)
    if index is None:
        if means is None:
            means = (masked_mean(logps, mask), masked_mean(adv.expand_as(mask), mask))
        return (logps - means[0]) * (adv - means[1]) * mask
    logp_mean, _ = group_mean_std(logps, index, n_segments, weight=mask)
    if adv_centering == "token":
        adv_mean, _ = group_mean_std(adv.expand_as(mask), index, n_segments, weight=mask)
    elif adv_centering == "response":
        has_tokens = (mask.sum(-1) > 0).to(logps.dtype)
        adv_mean, _ = group_mean_std(advantages, index, n_segments, weight=has_tokens)
    else:
        raise bad_choice("adv_centering", adv_centering, AdvCentering)
    return (logps - logp_mean[index, None]) * (adv - adv_mean[index, None]) * mask


def token_entropy_change(logps: Tensor, entropies: Tensor, weights: Tensor, mask: Tensor) -> Tensor:
    """First-order entropy change of a policy-gradient update at the sampled token (eta = 1), (B, T):

        dH_t = -w_t * (1 - p_t)^2 * (log p_t + H_t),        p_t = exp(logp_t), H_t the entropy at that position.

    opefo.txt eq. 6 evaluated at the sampled token (a one-sample estimate of its expectation over a ~ pi), with the
    policy-gradient weight w_t: A_t strictly on-policy (eq. 6), I_clip * r_t * A_t under a clipped ratio (Hao et al.
    2025b, as opefo.txt App. A, L566, quotes it). logps, entropies, mask: (B, T); weights (B, T) or (B, 1).
    Inputs are detached (a diagnostic, L181); 0 at masked positions.
    """
    logps, entropies, weights = logps.detach(), entropies.detach(), weights.detach()
    one_minus_p = -torch.expm1(logps)  # 1 - exp(logp), accurate when p is near 1
    return -weights * one_minus_p.square() * (logps + entropies) * mask


def entropy_flow_by_clip_side(
    logps: Tensor,
    entropies: Tensor,
    advantages: Tensor,
    ratio: Tensor,
    clipped_low: Tensor,
    clipped_high: Tensor,
    mask: Tensor,
    factors: Tensor | None = None,
) -> dict[str, Tensor]:
    """Sums of token entropy changes for opefo.txt fig. 2(b) and 2(c), over one batch of tokens. Scalars.

    With dH_t = ``token_entropy_change`` at weight r_t * A_t (the update's weight before the clip removes it):
    ``net`` = sum of dH_t over the tokens the clip keeps (weight I_clip r_t A_t: the first-order entropy change of
    this update, fig. 2(b)'s "net dH per update step"), ``pos`` / ``neg`` its entropy-increasing part and the
    magnitude of its entropy-decreasing part, and ``clipped_high`` / ``clipped_low`` = sum of dH_t over the tokens
    clipped at the upper / lower bound (fig. 2(c): the entropy change those tokens would have made, which the clip
    removes). logps, entropies (current policy), ratio, clipped_low/high (boolean, from ``ppo_clip_loss``), mask:
    (B, T) (ratio may be (B, 1)); advantages (B, T) or (B, 1). Strictly on-policy, r = 1 and nothing is clipped, so
    ``net`` is eq. 6's sum over the batch at the sampled tokens.

    With ``factors`` (B, T), the per-position e_t of ``expected_entropy_change_factor`` (eq. 6 as written, an
    expectation over the vocabulary), also ``net_expectation`` = sum over the kept tokens of -r_t A_t e_t: the
    same update's first-order entropy change in eq. 6's expectation form.
    """
    mask = mask.to(logps.dtype)
    delta_h = token_entropy_change(logps, entropies, ratio.detach() * advantages, mask)
    high, low = clipped_high.to(mask.dtype) * mask, clipped_low.to(mask.dtype) * mask
    keep = 1.0 - torch.maximum(high, low)
    kept = delta_h * keep
    flows = {
        "net": kept.sum(),
        "pos": kept.clamp(min=0).sum(),
        "neg": (-kept).clamp(min=0).sum(),
        "clipped_high": (delta_h * high).sum(),
        "clipped_low": (delta_h * low).sum(),
    }
    if factors is not None:
        weights = (ratio.detach() * advantages.detach()).expand_as(mask)
        flows["net_expectation"] = (-weights * factors.detach().to(mask.dtype) * mask * keep).sum()
    return flows


def expected_entropy_change_factor(logits: Tensor) -> Tensor:
    """e = E_{a ~ pi}[(1 - pi(a))^2 (log pi(a) + H)] over the last dimension, pi = softmax(logits), H its entropy.

    opefo.txt eq. 6 (L175) is dH_t = -eta * E_{a ~ pi^k(.|s_t)}[A_t (1 - pi(a))^2 (log pi(a) + H_t)]; A_t does not
    depend on a, so dH_t = -eta * A_t * e_t with this per-position factor of the next-token distribution alone.
    logits: (..., V), any float dtype (computed in float32, or float64 if given). Returns (...). Tokens with
    pi(a) = 0 (logits -inf, e.g. removed by top-p) contribute 0. Since E[log pi(a) + H] = 0, e = 0 for a uniform
    or a one-hot distribution. No gradient is intended (a diagnostic weight, L181); callers run it under no_grad.

    e <= 0 for every distribution: with X = pi(A), A ~ pi, g(X) = (1 - X)^2 is non-increasing and h(X) = log X + H
    non-decreasing in X, and E[h(X)] = 0, so e = E[g(X) h(X)] = Cov(g(X), h(X)) <= 0 (Chebyshev's association
    inequality: two functions of one variable, monotone in opposite directions, have non-positive covariance).
    Hence sign(dH_t) = sign(A_t) in eq. 6 as written (docs/assumptions.md, OPEFO ``delta_h``).
    """
    logits = logits if logits.dtype == torch.float64 else logits.float()
    logp = torch.log_softmax(logits, dim=-1)
    p = logp.exp()
    entropy = torch.special.entr(p).sum(-1, keepdim=True)  # entr(0) = 0
    terms = p * (1.0 - p).square() * (logp + entropy)
    return torch.where(p > 0, terms, torch.zeros_like(terms)).sum(-1)


# ----------------------------------------------------------------------------- advantages
def group_normalized_advantages(
    rewards: Tensor, group_ids: Tensor, *, scale: bool = True, std_kind: StdKind = "sample", eps: float = 1e-4
) -> Tensor:
    """GRPO advantage A_i = (r_i - mean_G r) / (std_G r + eps); Dr. GRPO when ``scale=False``.

    rewards, group_ids: (B,). Returns (B,). A singleton or constant group gives A = 0, also with eps = 0
    (where 0/0 would be NaN: such a group carries no signal). The defaults (Bessel std, eps 1e-4) are TRL 1.16's;
    verl uses eps 1e-6.
    """
    index, n = group_index(group_ids)
    mean, std = group_mean_std(rewards.float(), index, n, std_kind=std_kind)
    adv = rewards.float() - mean[index]
    if not scale:
        return adv
    denom = std[index] + eps
    return torch.where(denom > 0, adv / denom, torch.zeros_like(adv))


# ----------------------------------------------------------------------------- per-token losses
def ppo_clip_loss(
    logps: Tensor, old_logps: Tensor, advantages: Tensor, eps_low: float, eps_high: float
) -> tuple[Tensor, dict[str, Tensor]]:
    """Token-level PPO clipped surrogate, L = -min(rho*A, clip(rho, 1-eps_low, 1+eps_high)*A).

    logps, old_logps, advantages: (B, T) (advantages may be (B, 1)). Returns the per-token loss
    (B, T) and boolean masks of low/high-clipped tokens (those whose gradient the clip removes).
    """
    ratio = torch.exp(logps - old_logps)
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    loss = -torch.min(ratio * advantages, clipped * advantages)
    low = (ratio < 1 - eps_low) & (advantages < 0)
    high = (ratio > 1 + eps_high) & (advantages > 0)
    return loss, {"ratio": ratio, "clipped_low": low, "clipped_high": high}


def sequence_log_ratio(logps: Tensor, old_logps: Tensor, mask: Tensor) -> Tensor:
    """log s_i = sum_t (logp - old_logp) m / max(1, sum_t m): the log of the geometric mean of token ratios.

    logps (with or without grad), old_logps, mask: (B, T) -> (B,); 0 for a fully masked row. GSPO's sequence
    ratio (baselines.md "GSPO") and TEPO's w_i (tepo.txt sec. 3.3.1, Alg. 1 lines 9-11).
    """
    return ((logps - old_logps) * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)


def k1_kl(logps: Tensor, target_logps: Tensor) -> Tensor:
    """Per-token k1 estimator of KL(pi || pi_target): logp - target, (B, T) (unbiased, can be negative)."""
    return logps - target_logps


def k2_kl(logps: Tensor, target_logps: Tensor) -> Tensor:
    """Per-token k2 estimator of KL(pi || pi_target): (logp - target)^2 / 2, (B, T)."""
    diff = logps - target_logps
    return 0.5 * diff * diff


def k3_kl(logps: Tensor, ref_logps: Tensor) -> Tensor:
    """Per-token k3 estimator of KL(pi || pi_ref): exp(ref - logp) - (ref - logp) - 1, (B, T), >= 0.

    GRPO's KL penalty (DeepSeekMath eq. 4, TRL and verl ``low_var_kl``), ERPO eq. 4, TEPO eq. 4's default.
    """
    diff = ref_logps - logps
    return torch.exp(diff) - diff - 1


KL_ESTIMATORS = {"k1": k1_kl, "k2": k2_kl, "k3": k3_kl}


def kl_estimate(logps: Tensor, target_logps: Tensor, estimator: KLEstimator = "k3") -> Tensor:
    """Per-token estimate of KL(pi_theta || pi_target) from the sampled token (Schulman's k1 / k2 / k3), (B, T),
    differentiable in ``logps``."""
    if estimator not in KL_ESTIMATORS:
        raise bad_choice("kl_estimator", estimator, KLEstimator)
    return KL_ESTIMATORS[estimator](logps, target_logps)


def entropy_bonus_loss(entropies: Tensor, mask: Tensor, coef: Tensor | float, agg: Aggregator) -> Tensor:
    """-coef * agg(H): ``coef`` a float, (B, 1) per response or (B, T) per token, applied before aggregation."""
    return -agg(coef * entropies, mask) if torch.is_tensor(coef) else -coef * agg(entropies, mask)


# ----------------------------------------------------------------------------- aggregation
class Aggregator:
    """Reduces a per-token loss (B, T) to a scalar, exact under gradient accumulation.

    ``num_tokens``/``num_seqs`` are the token and sequence counts of the whole optimizer step's
    batch on this process, so per-micro-batch results add up to the full-batch value.
    """

    def __init__(self, mode: Aggregation, num_tokens: float, num_seqs: float, max_len: int):
        self.mode, self.num_tokens, self.num_seqs, self.max_len = mode, num_tokens, num_seqs, max_len

    def __call__(self, per_token: Tensor, mask: Tensor) -> Tensor:
        return aggregate(per_token, mask, self.mode, self.num_tokens, self.num_seqs, self.max_len)


def aggregate(
    per_token: Tensor, mask: Tensor, mode: Aggregation, num_tokens: float, num_seqs: float, max_len: int
) -> Tensor:
    """verl's loss aggregation modes (baselines.md):

    token-mean: sum(L*m) / num_tokens; seq-mean-token-mean: sum_i (sum_t L*m / |o_i|) / num_seqs;
    seq-mean-token-sum: sum_i sum_t L*m / num_seqs; seq-mean-token-sum-norm: sum(L*m) / (num_seqs * max_len)
    (Dr. GRPO's constant normaliser).
    """
    masked = per_token * mask
    if mode == "token-mean":
        return masked.sum() / max(num_tokens, 1.0)
    if mode == "seq-mean-token-mean":
        return (masked.sum(-1) / mask.sum(-1).clamp(min=1.0)).sum() / max(num_seqs, 1.0)
    if mode == "seq-mean-token-sum":
        return masked.sum() / max(num_seqs, 1.0)
    if mode == "seq-mean-token-sum-norm":
        return masked.sum() / (max(num_seqs, 1.0) * max_len)
    raise bad_choice("loss aggregation", mode, Aggregation)


def clip_metrics(info: dict[str, Tensor], mask: Tensor) -> dict[str, float]:
    """Fractions of completion tokens clipped low / high by PPO."""
    low = masked_mean(info["clipped_low"].float(), mask)
    high = masked_mean(info["clipped_high"].float(), mask)
    return to_floats({"clip_ratio/low": low, "clip_ratio/high": high, "clip_ratio/region": low + high}, low.dtype)
