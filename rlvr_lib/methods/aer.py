"""AER: Adaptive Entropy Regularization (aer.txt sec. 4.2, eq. 7-11).

    J = J_GRPO + E_q[ lambda_t(q) * H(pi(.|q)) ]                        (eq. 7; H = mean token entropy, eq. 4)
    g(q) = group accuracy of the m responses to q                        (eq. 8)
    lambda_t(q) = alpha_t * max(0, rho - g(q)) / (rho + eps) + alpha_t * 1[rho = 0 and g(q) = 0]   (eq. 9, C1)
    H* = tau * H_0,  H_0 = policy entropy at the first training step     (eq. 10, C2)
    alpha_{t+1} = max(0, alpha_t + eta * sign(H* - H_t))                 (eq. 11, C3)

The per-response coefficient multiplies the entropy BEFORE aggregation (baselines.md). The rollout hook,
which sees whole groups, computes the difficulty weight f(q) = lambda_t(q) / alpha_t and the batch entropy
H_t; the loss multiplies f(q) by the current alpha_t, and ``on_optimizer_step`` applies eq. 11.

Ablations (aer.txt table 2): ``difficulty_aware=False`` gives every prompt f = 1 (C2&C3 only);
``adaptive_alpha=False`` freezes alpha at ``alpha_init`` (C1 only; with both off: the fixed coefficient, which
may be 0: GRPO, fig. 2's coefficient 0).
Defaults tau 0.4, rho 0.2, eta 0.005 (App. A.2, table 3); alpha_0 is not given (``alpha_init``).
Choices and their sources: ``docs/assumptions.md (aer)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, RolloutBatch, RolloutResult, hparam
from rlvr_lib.methods.core import (
    Aggregation,
    Aggregator,
    entropy_bonus_loss,
    group_index,
    group_sum,
    masked_mean,
    to_floats,
)
from rlvr_lib.methods.grpo import GRPO
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require, require_at_least, require_between

EXTRA_WEIGHT = "aer_difficulty_weight"
EntropyStat = Literal["token-mean", "seq-mean-token-mean"]


# ----------------------------------------------------------------------------- pure functions
def group_accuracy(correct: Tensor, group_ids: Tensor) -> Tensor:
    """g(q) (eq. 8): mean 1/0 correctness of each response's group, broadcast back to rows. (B,) -> (B,)."""
    index, n = group_index(group_ids)
    correct = correct.float()
    mean = group_sum(correct, index, n) / group_sum(torch.ones_like(correct), index, n)
    return mean[index]


def difficulty_weight(g: Tensor, rho: float, eps: float = 1e-8) -> Tensor:
    """f(q) = max(0, rho - g) / (rho + eps) + 1[rho = 0 and g = 0], so that lambda_t(q) = alpha_t * f(q) (eq. 9).

    g: (B,) group accuracies in [0, 1]. Returns (B,) in [0, 1]; 0 for every prompt with g >= rho.
    """
    weight = (rho - g).clamp(min=0) / (rho + eps)
    if rho == 0:
        weight = weight + (g == 0).to(weight.dtype)
    return weight


def policy_entropy(entropies: Tensor, mask: Tensor, stat: EntropyStat = "token-mean") -> Tensor:
    """Scalar policy entropy of a batch (H_0 and H_t of eq. 10-11); entropies, mask: (B, T).

    "token-mean": mean over all valid tokens (what verl logs as the actor entropy). "seq-mean-token-mean":
    mean over responses (with at least one token) of each response's mean token entropy (aer.txt eq. 4).
    """
    entropies = entropies.detach()
    if stat == "token-mean":
        return masked_mean(entropies, mask)
    lengths = mask.sum(-1)
    per_seq = (entropies * mask).sum(-1) / lengths.clamp(min=1.0)
    return masked_mean(per_seq, (lengths > 0).to(per_seq.dtype))


def alpha_update(alpha: float, target: float, entropy: float, eta: float) -> float:
    """Eq. 11: alpha_{t+1} = max(0, alpha_t + eta * sign(H* - H_t)); sign(0) = 0 leaves alpha unchanged."""
    diff = target - entropy
    sign = (diff > 0) - (diff < 0)
    return max(0.0, alpha + eta * sign)


# ----------------------------------------------------------------------------- method
@register
class AER(GRPO):
    name = "aer"
    paper = "aer.txt (Adaptive Entropy Regularization), sec. 4.2 eq. 7-11, App. A.2"

    @dataclass
    class Config(GRPO.Config):
        tau: float = hparam(
            0.4, "eq. 10 reduction ratio: target entropy H* = tau * H_0 (table 3); > 0 (table 8 runs up to 1.2)"
        )
        rho: float = hparam(0.2, "eq. 9 pivot accuracy: prompts with g(q) < rho get the bonus (table 3)")
        eta: float = hparam(0.005, "eq. 11 step size of alpha (table 3)")
        alpha_init: float = hparam(0.0, "alpha_0: not given by the paper (docs/assumptions.md (aer))")
        eps: float = hparam(1e-8, "eq. 9 denominator constant ('typically 1e-8')")
        difficulty_aware: bool = hparam(True, "C1 (table 2); False: lambda_t(q) = alpha_t for every prompt")
        adaptive_alpha: bool = hparam(True, "C2 & C3 (table 2); False: alpha stays alpha_init")
        bonus_agg: Aggregation = hparam(
            "seq-mean-token-mean", "eq. 7 + eq. 4: mean over responses of each response's mean token entropy"
        )
        entropy_stat: EntropyStat = hparam("token-mean", "H_0 and H_t of eq. 10-11 (verl's logged entropy)")
        alpha_update_every: Literal["optimizer-step", "rollout-batch"] = hparam(
            "optimizer-step", "eq. 11 after every optimizer step, or once per rollout batch"
        )
        accuracy_source: Literal["accuracy", "reward"] = hparam(
            "accuracy", "g(q) (eq. 8) from the 1/0 accuracy reward, or from the total reward"
        )

        def __post_init__(self) -> None:
            super().__post_init__()
            # eq. 10 says tau in (0, 1) (L140) but table 8 runs tau up to 1.2 (L429): any tau > 0
            require_at_least(self, 0.0, "tau", strict=True)
            require_between(self, "rho", 0.0, 1.0)
            require_at_least(self, 0.0, "eta", "alpha_init")
            require_at_least(self, 0.0, "eps", strict=True)
            # A fixed coefficient 0 (both components off) is GRPO itself: fig. 2's coefficient 0, one setting away
            # from its other coefficients; C1 alone at 0 would be a mistaken C1 run.
            require(
                self.adaptive_alpha or self.alpha_init > 0 or not self.difficulty_aware,
                "alpha_init",
                "must be > 0 when adaptive_alpha=False and difficulty_aware=True (the coefficient stays alpha_init; "
                "e.g. 0.01, OPEFO's Entropy-Reg value)",
            )

    def __init__(self, hparams: Mapping[str, Any] | None = None, *, path: str | None = None):
        super().__init__(hparams, path=path)
        self.alpha = float(self.cfg.alpha_init)
        self.initial_entropy: float | None = None  # H_0
        self.entropy: float | None = None  # H_t, the latest measurement
        self.pending = False  # H_t measured by a rollout and not yet used by eq. 11
        self.steps = 0  # optimizer steps seen

    @property
    def target_entropy(self) -> float | None:
        return None if self.initial_entropy is None else self.cfg.tau * self.initial_entropy

    def _state_metrics(self) -> dict[str, float]:
        nan = float("nan")
        return {
            self.metric("alpha"): self.alpha,
            self.metric("target_entropy"): nan if self.target_entropy is None else self.target_entropy,
            self.metric("entropy"): nan if self.entropy is None else self.entropy,
        }

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        c = self.cfg
        if c.alpha_update_every == "rollout-batch" and self.pending:
            self._update_alpha()  # eq. 11 for the iteration that just ended, before this one uses alpha
        result = super().rollout(batch)
        if c.accuracy_source == "accuracy":
            if batch.accuracy is None:
                raise ValueError(
                    "aer: the rollout batch has no 'accuracy' reward for g(q) (eq. 8); add a reward function "
                    "named 'accuracy' or set accuracy_source='reward'"
                )
            correct = batch.accuracy
        else:
            correct = batch.rewards
        g = group_accuracy(correct, batch.group_ids)
        weight = difficulty_weight(g, c.rho, c.eps) if c.difficulty_aware else torch.ones_like(g)
        entropy = policy_entropy(batch.entropies, batch.mask, c.entropy_stat)
        index, n_groups = group_index(batch.group_ids)
        hard = (group_sum((weight > 0).float(), index, n_groups) > 0).float().mean()
        entropy, hard = to_floats({"entropy": entropy, "hard": hard}).values()
        self.entropy, self.pending = entropy, True
        if self.initial_entropy is None:
            self.initial_entropy = entropy  # eq. 10: H_0 from the first training step
        result.extras[EXTRA_WEIGHT] = weight
        result.metrics = {
            **result.metrics,
            **self._state_metrics(),
            self.metric("initial_entropy"): self.initial_entropy,
            self.metric("frac_prompts_nonzero_coef"): hard if self.alpha > 0 else 0.0,
            self.metric("frac_prompts_below_pivot"): hard,
        }
        return result

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        pg_loss, metrics = super().loss(batch)
        if self.alpha == 0:  # lambda_t(q) = 0 for every prompt: no bonus to add
            return pg_loss, metrics
        coef = self.alpha * batch.extras[EXTRA_WEIGHT].to(batch.entropies.dtype)[:, None]  # (B, 1) lambda_t(q)
        agg = Aggregator(self.cfg.bonus_agg, batch.num_tokens, batch.num_seqs, batch.max_completion_length)
        return pg_loss + entropy_bonus_loss(batch.entropies, batch.mask, coef, agg), metrics

    def _update_alpha(self) -> None:
        """Eq. 11 with the latest measured H_t (C2 & C3); a no-op before the first measurement or when frozen."""
        if self.cfg.adaptive_alpha and self.entropy is not None and self.target_entropy is not None:
            self.alpha = alpha_update(self.alpha, self.target_entropy, self.entropy, self.cfg.eta)
        self.pending = False

    def on_optimizer_step(self) -> dict[str, float]:
        self.steps += 1
        if self.cfg.alpha_update_every == "optimizer-step":
            self._update_alpha()
        return self._state_metrics()

    def state_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "initial_entropy": self.initial_entropy,
            "entropy": self.entropy,
            "pending": self.pending,
            "steps": self.steps,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        missing = {"alpha", "initial_entropy", "entropy", "pending", "steps"} - set(state)
        if missing:
            raise ValueError(f"method '{self.name}': state lacks {sorted(missing)}")
        self.alpha = float(state["alpha"])
        self.initial_entropy = None if state["initial_entropy"] is None else float(state["initial_entropy"])
        self.entropy = None if state["entropy"] is None else float(state["entropy"])
        self.pending = bool(state["pending"])
        self.steps = int(state["steps"])
