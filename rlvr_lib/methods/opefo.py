"""OPEFO: On-Policy Entropy Flow Optimization (opefo.txt sec. 5, eq. 6-9, fig. 3).

Per token, the first-order entropy change of a strict on-policy update (eq. 6, eta dropped: it cancels in
eq. 9), in one of two forms (``delta_h``, default ``sampled``: sec. 5.1 estimates it "for each generated token y_t"):

    sampled:      dH_t = -A_t * (1 - p_t)^2 * (log p_t + H_t),   p_t = pi(y_t | s_t), H_t = entropy at s_t
                  (the sampled token y_t ~ pi: a one-sample estimate of eq. 6's expectation);
    expectation:  dH_t = -A_t * e_t,   e_t = E_{a ~ pi(.|s_t)}[(1 - pi(a))^2 (log pi(a) + H_t)]
                  (eq. 6 as written: a sum over the vocabulary, which the trainer computes from the logits in its
                  behaviour pass, chunk by chunk, and passes as ``RolloutBatch.entropy_change_factors``).
                  e_t <= 0 for every distribution (``core.expected_entropy_change_factor``), so this form puts
                  exactly the positive-advantage tokens in S+: it reduces to reweighting by the sign of A_t.

S+ = {dH > 0} (entropy-increasing), S- = {dH < 0} (sec. 5.1). The balancing coefficient (eq. 9)

    lambda* = (sum_{S-} |dH| - sum_{S+} dH) / (sum_{S-} |dH| + sum_{S+} dH)        in [-1, 1]

makes the rescaled flow vanish: (1 + lambda*) sum_{S+} dH + (1 - lambda*) sum_{S-} dH = 0 (eq. 8). The loss
(eq. 7, fig. 3) is the on-policy REINFORCE term -A_t * log p_t times (1 + lambda*) on S+ and (1 - lambda*)
on S-, unchanged elsewhere (dH = 0), with no ratio, clip or reference; one update per rollout batch.

Ablations (opefo.txt table 2): ``lambda_mode="static"`` (fixed lambda = ``static_lambda``, 0.001),
``balance_sides="pos"`` (S+ only) or ``"neg"`` (S- only). Open choices (``docs/assumptions.md (opefo)``):
``lambda_scope`` (rollout batch, the paper's "batch", or micro-batch, what fig. 3 computes on the tensor it
is given), ``loss_agg`` (fig. 3's ``.mean()`` -> token-mean) and ``delta_h`` (above).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor

from rlvr_lib.methods.base import LossBatch, RolloutBatch, RolloutResult, hparam
from rlvr_lib.methods.core import token_entropy_change
from rlvr_lib.methods.grpo_onpolicy import GRPOOnPolicy, reinforce_loss
from rlvr_lib.methods.registry import register
from rlvr_lib.settings.schema import require_at_least, require_between

BalanceSides = Literal["both", "pos", "neg"]
DeltaH = Literal["sampled", "expectation"]
EXTRA_WEIGHT = "opefo_weight"
EXTRA_FACTOR = "opefo_entropy_change_factor"


# ----------------------------------------------------------------------------- pure functions
def entropy_change(logps: Tensor, entropies: Tensor, advantages: Tensor, mask: Tensor) -> Tensor:
    """Sampled-token first-order entropy change dH_t = -A_t (1 - p_t)^2 (log p_t + H_t) (eq. 6, eta = 1).

    logps, entropies, mask: (B, T); advantages (B, T) or (B, 1). Inputs are detached (dH is a diagnostic
    weight, opefo.txt sec. 3.3). Returns (B, T), 0 at masked positions. ``core.token_entropy_change`` with w = A.
    """
    return token_entropy_change(logps, entropies, advantages, mask)


def expected_entropy_change(factors: Tensor, advantages: Tensor, mask: Tensor) -> Tensor:
    """Eq. 6 as written (eta = 1): dH_t = -A_t * e_t with e_t = E_{a ~ pi}[(1 - pi(a))^2 (log pi(a) + H_t)].

    factors: (B, T) e_t of the behaviour policy (``core.expected_entropy_change_factor`` of each position's logits);
    advantages (B, T) or (B, 1); mask (B, T). Detached. Returns (B, T), 0 at masked positions.
    """
    return -advantages.detach() * factors.detach() * mask


def flow_sums(delta_h: Tensor) -> tuple[Tensor, Tensor]:
    """(sum_{S+} dH, sum_{S-} |dH|) over all entries of ``delta_h`` (0 at masked positions). Scalars."""
    return delta_h.clamp(min=0).sum(), (-delta_h).clamp(min=0).sum()


def balance_coefficient(pos_flow: Tensor, neg_flow: Tensor, eps: float = 1e-12) -> Tensor:
    """lambda* = (neg - pos) / max(neg + pos, eps) (eq. 9; fig. 3 clamps the denominator at eps). In [-1, 1]."""
    return (neg_flow - pos_flow) / (neg_flow + pos_flow).clamp(min=eps)


def flow_weights(delta_h: Tensor, lam: Tensor | float, sides: BalanceSides = "both") -> Tensor:
    """Per-token scale of the policy-gradient term (eq. 7): 1 + lam on S+, 1 - lam on S-, 1 elsewhere.

    delta_h: (B, T); lam: scalar. ``sides`` "pos" / "neg" rescale only S+ / only S- (table 2 one-sided
    ablations). Returns (B, T), no gradient.
    """
    pos = (delta_h > 0).to(delta_h.dtype) if sides in ("both", "pos") else torch.zeros_like(delta_h)
    neg = (delta_h < 0).to(delta_h.dtype) if sides in ("both", "neg") else torch.zeros_like(delta_h)
    return 1.0 + lam * (pos - neg)


def opefo_loss(logps: Tensor, advantages: Tensor, weights: Tensor) -> Tensor:
    """Per-token OPEFO loss -A_t * log p_t * w_t (fig. 3: ``pg_terms`` rescaled in place). (B, T)."""
    return reinforce_loss(logps, advantages) * weights


# ----------------------------------------------------------------------------- method
@register
class OPEFO(GRPOOnPolicy):
    name = "opefo"
    paper = "opefo.txt (On-Policy Entropy Flow Optimization), eq. 6-9 and fig. 3"
    updates_per_batch = "one"

    @dataclass
    class Config(GRPOOnPolicy.Config):
        lambda_mode: Literal["adaptive", "static"] = hparam(
            "adaptive", "lambda* of eq. 9; 'static': a fixed lambda (table 2 'Static Scaling')"
        )
        static_lambda: float = hparam(
            0.001, "lambda when static: the average lambda* over training (table 2, sec. 6.4)"
        )
        balance_sides: BalanceSides = hparam("both", "rescale S+ and S-, or only one side (table 2 'pos' / 'neg')")
        lambda_scope: Literal["rollout-batch", "micro-batch"] = hparam(
            "rollout-batch", "sec. 5.3 'computed directly from the current batch'; fig. 3 uses the tensor given"
        )
        lambda_eps: float = hparam(1e-12, "fig. 3 clamp_min(eps) of eq. 9's denominator")
        log_gradient_cosine: bool = hparam(
            False,
            "diagnostic (sec. 5.2 'preserves the original optimization direction'): each optimizer step, the cosine "
            "between the gradient of this loss and of the unweighted one (lambda* = 0, strict on-policy GRPO's) of "
            "the same batch, `gradient_cosine/weighted_vs_unweighted`; the parameters and random state are unchanged",
        )
        delta_h: DeltaH = hparam(
            "sampled",
            "eq. 6 at each generated token y_t (sec. 5.1, L206), or 'expectation': the E over the vocabulary as eq. 6 "
            "is written (then S+ is exactly the tokens with A > 0: e_t <= 0 always)",
        )

        def __post_init__(self) -> None:
            super().__post_init__()
            require_between(self, "static_lambda", -1.0, 1.0)
            require_at_least(self, 0.0, "lambda_eps", strict=True)

    @property
    def needs_entropy_change_factor(self) -> bool:
        return self.cfg.delta_h == "expectation"

    def balance(
        self, logps: Tensor, entropies: Tensor, advantages: Tensor, mask: Tensor, factors: Tensor | None = None
    ) -> tuple[Tensor, dict[str, float]]:
        """Weights (B, T) and the flow metrics for one scope of tokens (rollout batch or micro-batch).

        ``factors`` (B, T): the e_t of ``delta_h="expectation"``. In that mode the metrics also carry
        ``lambda_sampled``, the eq. 9 coefficient the sampled-token form would give on the same tokens.
        """
        c = self.cfg
        sampled = entropy_change(logps, entropies, advantages, mask)
        extra = {}
        if c.delta_h == "expectation":
            if factors is None:
                raise ValueError(
                    "opefo: delta_h='expectation' needs RolloutBatch.entropy_change_factors (the trainer fills them "
                    "when the method's needs_entropy_change_factor is True)"
                )
            delta_h = expected_entropy_change(factors, advantages, mask)
            extra["lambda_sampled"] = balance_coefficient(*flow_sums(sampled), c.lambda_eps)
        else:
            delta_h = sampled
        pos_flow, neg_flow = flow_sums(delta_h)
        if c.lambda_mode == "adaptive":
            lam = balance_coefficient(pos_flow, neg_flow, c.lambda_eps)
        else:
            lam = torch.tensor(c.static_lambda, dtype=delta_h.dtype, device=delta_h.device)
        weights = flow_weights(delta_h, lam, c.balance_sides)
        n_valid = mask.sum().clamp(min=1.0)
        return weights, self.own_metrics(
            {
                "lambda": lam,
                "flow_pos": pos_flow,
                "flow_neg": neg_flow,
                "flow_net": pos_flow - neg_flow,
                "flow_net_rescaled": (weights * delta_h).sum(),
                "frac_pos": (delta_h > 0).sum() / n_valid,
                "frac_neg": (delta_h < 0).sum() / n_valid,  # dH = 0 if masked
                **extra,
            }
        )

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        result = super().rollout(batch)
        factors = batch.entropy_change_factors if self.cfg.delta_h == "expectation" else None
        if self.cfg.lambda_scope == "rollout-batch":
            weights, metrics = self.balance(batch.logps, batch.entropies, result.advantages, batch.mask, factors)
            result.metrics.update(metrics)
            result.extras[EXTRA_WEIGHT] = weights
        elif factors is not None:  # the loss needs them per micro-batch (behaviour = current policy: on-policy)
            result.extras[EXTRA_FACTOR] = factors
        return result

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        if self.cfg.lambda_scope == "rollout-batch":
            weights, metrics = batch.extras[EXTRA_WEIGHT], {}
        else:  # pi^k of eq. 6 is the current policy, which is the behaviour policy when strictly on-policy
            factors = batch.extras.get(EXTRA_FACTOR)
            weights, metrics = self.balance(batch.logps, batch.entropies, batch.advantages, batch.mask, factors)
        per_token = opefo_loss(batch.logps, batch.advantages, weights)
        # the update's weight on token t is w_t * A_t (ratio 1): its net flow is eq. 8's left side
        metrics = {**metrics, **self.entropy_flow_diagnostics(batch, weights)}
        return self.aggregator(batch)(per_token, batch.mask), metrics

    def unweighted_loss(self, batch: LossBatch) -> Tensor:
        """Eq. 7 at lambda* = 0 (every w_t = 1): strict on-policy GRPO's loss on the same micro-batch, with grad."""
        return self.aggregator(batch)(reinforce_loss(batch.logps, batch.advantages), batch.mask)
