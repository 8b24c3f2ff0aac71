"""GRPO (Shao et al. 2024) and DAPO clip-higher (Yu et al. 2025), as ``../shared/notes/baselines.md`` states them.

Advantage: A_i = (r_i - mean_G r) / (std_G r + eps), broadcast to every token of response i.
Loss per token: -min(rho*A, clip(rho, 1-eps_low, 1+eps_high)*A) + beta * KL_k3(pi || pi_ref) [* rho],
aggregated by ``loss_agg``. DAPO is the same loss with eps_high 0.28 and token-mean aggregation.
With default settings both equal TRL 1.16's ``loss_type="grpo"`` / ``"dapo"`` losses (parity test).

Two opt-in diagnostics, shared by every method built on ``GRPO`` (they never change a loss or an advantage):
``log_percentiles`` logs CW-GRPO's table-1 token-covariance percentiles each rollout batch
(``covariance_diagnostics``), ``log_entropy_flow`` logs opefo.txt fig. 2(b)/(c)'s entropy flows each micro-batch
(``entropy_flow_diagnostics``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, Method, RolloutBatch, RolloutResult, SharedConfig, hparam
from rlvr_lib.methods.core import (
    Aggregation,
    Aggregator,
    clip_metrics,
    entropy_flow_by_clip_side,
    group_index,
    group_normalized_advantages,
    k3_kl,
    masked_mean,
    ppo_clip_loss,
    to_floats,
    token_covariance,
)
from rlvr_lib.methods.covariance import covariance_percentiles, percentile_metrics, share_metrics
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least

ENTROPY_FLOW_PREFIX = "entropy_flow/"  # one name for every method, so runs compare in one figure


def log_percentiles_field(default: bool = False):
    """The ``log_percentiles`` switch (a Config field of every method built on GRPO)."""
    return hparam(
        default,
        "diagnostic: log cw_grpo.txt table 1's token-covariance percentiles (c of CW-GRPO: behaviour log-probs, "
        "per prompt group) each rollout batch; the loss is unchanged",
    )


def log_entropy_flow_field():
    """The ``log_entropy_flow`` switch (a Config field of every method built on GRPO)."""
    return hparam(
        False,
        "diagnostic: log opefo.txt fig. 2(b)/(c)'s entropy flows (net dH of the update, dH of upper- and "
        "lower-clipped tokens) each micro-batch; the loss is unchanged",
    )


def log_realised_entropy_change_field():
    """The ``log_realised_entropy_change`` switch (a Config field of every method built on GRPO; read by the
    trainer, ``RLVRTrainer._realised_entropy_change``)."""
    return hparam(
        False,
        "diagnostic: at each optimizer step, the mean token entropy of the step's own batch before and after the "
        "step (no-grad forwards, ``realised_entropy/*``) beside the step's first-order dH of opefo.txt eq. 6 in both "
        "forms (``entropy_flow/net``: at the sampled token; ``entropy_flow/net_expectation``: over the vocabulary); "
        "the loss, the parameters and the random state are unchanged",
    )


@dataclass
class ReferenceKLConfig(SharedConfig):
    """SharedConfig plus the KL-to-reference penalty beta * KL_k3(pi || pi_ref) of GRPO (DeepSeekMath eq. 4)."""

    beta: float = hparam(0.0, "KL-to-reference coefficient (k3 estimator); 0: no reference model")
    kl_ratio_correction: bool = hparam(True, "multiply the k3 KL by rho (TRL's use_bias_correction_kl)")

    def __post_init__(self) -> None:
        super().__post_init__()
        require_at_least(self, 0.0, "beta")


@register
class GRPO(Method):
    name = "grpo"
    paper = "Shao et al. 2024 (DeepSeekMath); semantics: baselines.md"
    rollout_reads_behaviour = False  # advantages from rewards alone

    @dataclass
    class Config(ReferenceKLConfig):
        eps_low: float = hparam(0.2, "PPO clip: rho below 1 - eps_low is clipped (DeepSeekMath eq. 3)")
        eps_high: float = hparam(0.2, "PPO clip: rho above 1 + eps_high is clipped (DAPO clip-higher: 0.28)")
        log_percentiles: bool = log_percentiles_field()
        log_entropy_flow: bool = log_entropy_flow_field()
        log_realised_entropy_change: bool = log_realised_entropy_change_field()

        def __post_init__(self) -> None:
            super().__post_init__()
            require_at_least(self, 0.0, "eps_low", "eps_high")

    @property
    def needs_reference(self) -> bool:
        return self.cfg.beta > 0

    def sequence_advantages(self, batch: RolloutBatch) -> Tensor:
        """(B,) group-normalised advantages."""
        c = self.cfg
        return group_normalized_advantages(
            batch.rewards, batch.group_ids, scale=c.scale_rewards, std_kind=c.std_kind, eps=c.adv_eps
        )

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        adv = self.sequence_advantages(batch)
        return RolloutResult(
            advantages=adv[:, None].expand_as(batch.mask).contiguous(), metrics=self.covariance_diagnostics(batch, adv)
        )

    def covariance_diagnostics(self, batch: RolloutBatch, seq_adv: Tensor) -> dict[str, float]:
        """With ``log_percentiles``: ``<method>/cov_{pos,neg}_top<p>pct``, ``cov_{pos,neg}_share`` and
        ``cov_abs_top1pct_share`` (fig. 3's share of the total |c| its top 1% of tokens carry; ``analysis.covariance``)
        of c_{i,t} = (logp - mean logp)(A_i - mean A), means over each prompt group's tokens (CW-GRPO's c with its
        default scope and centring, cw_grpo.txt sec. 2.3), behaviour log-probs and the (B,) GRPO advantages
        ``seq_adv``. Costs one copy of the batch's covariances to the host; {} when off."""
        if not self.cfg.log_percentiles:
            return {}
        index, n_groups = group_index(batch.group_ids)
        cov = token_covariance(batch.logps.detach().float(), seq_adv.float(), batch.mask, index, n_groups)
        valid = cov[batch.mask.bool()]
        return self.prefixed({**percentile_metrics(covariance_percentiles(valid)), **share_metrics(valid)})

    def entropy_flow_diagnostics(
        self, batch: LossBatch, ratio: Tensor, clipped_low: Tensor | None = None, clipped_high: Tensor | None = None
    ) -> dict[str, float]:
        """With ``log_entropy_flow``: ``entropy_flow/{net,pos,neg,clipped_high,clipped_low}``
        (``core.entropy_flow_by_clip_side`` at the current policy's detached log-probs and entropies, the loss's
        advantages and ratio, and the clip's masks; None: nothing clipped), scaled so that TRL's mean over the
        optimizer step's micro-batches is the step's sum (per process; a mean over processes). {} when off.
        Also on under ``log_realised_entropy_change``, with ``entropy_flow/net_expectation`` (eq. 6's expectation
        form, from ``batch.entropy_change_factors``, which the trainer fills under that switch)."""
        if not (self.cfg.log_entropy_flow or getattr(self.cfg, "log_realised_entropy_change", False)):
            return {}
        none = torch.zeros_like(batch.mask, dtype=torch.bool)
        flows = entropy_flow_by_clip_side(
            batch.logps,
            batch.entropies,
            batch.advantages,
            ratio,
            none if clipped_low is None else clipped_low,
            none if clipped_high is None else clipped_high,
            batch.mask,
            batch.entropy_change_factors,
        )
        micro_batches = batch.num_seqs / max(batch.mask.size(0), 1)
        return {ENTROPY_FLOW_PREFIX + k: v * micro_batches for k, v in to_floats(flows).items()}

    def aggregator(self, batch: LossBatch) -> Aggregator:
        return Aggregator(self.cfg.loss_agg, batch.num_tokens, batch.num_seqs, batch.max_completion_length)

    def kl_term(self, batch: LossBatch, ratio: Tensor) -> tuple[Tensor | float, dict[str, float]]:
        """beta * per-token k3 KL (B, T), ratio-weighted when ``kl_ratio_correction``; 0 when beta = 0."""
        if self.cfg.beta == 0:
            return 0.0, {}
        kl = k3_kl(batch.logps, batch.ref_logps)
        weighted = kl * ratio if self.cfg.kl_ratio_correction else kl
        return self.cfg.beta * weighted, {"kl": float(masked_mean(kl.detach(), batch.mask))}

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        c = self.cfg
        per_token, info = ppo_clip_loss(batch.logps, batch.old_logps, batch.advantages, c.eps_low, c.eps_high)
        kl, metrics = self.kl_term(batch, info["ratio"])
        loss = self.aggregator(batch)(per_token + kl, batch.mask)
        flows = self.entropy_flow_diagnostics(batch, info["ratio"], info["clipped_low"], info["clipped_high"])
        return loss, {**metrics, **clip_metrics(info, batch.mask), **flows}


@register
class DAPO(GRPO):
    name = "dapo"
    paper = "Yu et al. 2025 (DAPO), clip-higher + token-mean; semantics: baselines.md"
    defining_hparams = ("eps_high", "loss_agg")  # clip-higher and the token-level loss (DAPO sec. 3.1, 3.3)

    @dataclass
    class Config(GRPO.Config):
        eps_high: float = hparam(0.28, "clip-higher (DAPO sec. 3.1)")
        loss_agg: Aggregation = hparam("token-mean", "token-level loss (DAPO sec. 3.3)")
