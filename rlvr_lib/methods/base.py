"""The interface every method implements: three hooks the trainer calls.

Shapes: B = responses in the batch, T = padded completion length. ``mask`` is float (B, T) with 1 on
completion tokens. The trainer (``rlvr_lib.training.trainer``) owns all glue; a method only sees tensors.

1. ``rollout(RolloutBatch) -> RolloutResult``: once per generation batch, whole groups present
   (gathered over processes), no gradient. Returns per-token advantages (B, T) and optional
   per-sequence extras (tensors with leading dim B) that travel with the rows to the loss.
2. ``loss(LossBatch) -> (loss, metrics)``: once per micro-batch, with the current policy's
   log-probs and entropies carrying gradients.
3. ``on_optimizer_step() -> metrics``: once per optimizer step; updates the method's state, which
   ``state_dict``/``load_state_dict`` save into and restore from every checkpoint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import torch
from torch import Tensor

from rlvr_lib.methods.core import Aggregation, StdKind, to_floats
from rlvr_lib.settings.schema import build, require_at_least, setting


@dataclass
class RolloutBatch:
    """What a method sees at rollout time (global batch, no gradient)."""

    rewards: Tensor  # (B,) total reward of each response
    group_ids: Tensor  # (B,) long, responses to the same prompt share an id
    mask: Tensor  # (B, T) float
    # (B, T) behaviour-policy log-prob of each sampled token and entropy of the next-token distribution; None
    # only for a method whose rollout does not read them (``Method.rollout_needs_behaviour``)
    logps: Tensor | None
    entropies: Tensor | None
    ref_logps: Tensor | None = None  # (B, T) reference-policy log-probs, when the method needs them
    accuracy: Tensor | None = None  # (B,) 1/0 correctness (the "accuracy" reward) when the reward has one
    # (B, T) behaviour-policy E_{a~pi}[(1 - pi(a))^2 (log pi(a) + H)] per position (opefo.txt eq. 6), computed from
    # the full next-token distribution in the behaviour pass, when the method's ``needs_entropy_change_factor``
    entropy_change_factors: Tensor | None = None


@dataclass
class RolloutResult:
    advantages: Tensor  # (B, T)
    extras: dict[str, Tensor] = field(default_factory=dict)  # each (B, ...)
    metrics: dict[str, float] = field(default_factory=dict)


@dataclass
class LossBatch:
    """What a method sees at loss time (one micro-batch, gradients through ``logps``/``entropies``).

    ``num_tokens`` and ``num_seqs`` are the normalisers that make a micro-batch's share of an
    aggregated loss exact under gradient accumulation: summing the micro-batch losses of one
    optimizer step gives the loss over the whole step's batch.
    """

    logps: Tensor  # (B, T) current policy, with grad
    entropies: Tensor  # (B, T) current policy, with grad
    old_logps: Tensor  # (B, T) behaviour policy (== logps.detach() when strictly on-policy)
    advantages: Tensor  # (B, T) from the rollout hook
    mask: Tensor  # (B, T) float
    num_tokens: float  # tokens in the optimizer step's batch, per process
    num_seqs: float  # sequences in the optimizer step's batch, per process
    max_completion_length: int
    ref_logps: Tensor | None = None
    extras: dict[str, Tensor] = field(default_factory=dict)
    # (B, T) E_{a~pi}[(1 - pi(a))^2 (log pi(a) + H)] per position (opefo.txt eq. 6) of the policy before this
    # optimizer step: filled by the trainer only under the ``log_realised_entropy_change`` diagnostic
    entropy_change_factors: Tensor | None = None


UpdatesPerBatch = Literal["any", "one", "several"]


def hparam(default: Any, help: str) -> Any:
    """A Config field with its default and a help text citing the paper (printed by ``python -m rlvr_lib methods``)."""
    return setting(default, help)


@dataclass
class SharedConfig:
    """Settings of every group-relative method: the GRPO advantage (Shao et al. 2024 eq. 3) and the loss reduction."""

    loss_agg: Aggregation = hparam(
        "seq-mean-token-mean", "reduction of the per-token loss (verl's modes, baselines.md); GRPO: per sequence"
    )
    scale_rewards: bool = hparam(True, "divide the group-centred reward by the group std (False: Dr. GRPO)")
    std_kind: StdKind = hparam("sample", "group std with Bessel's correction (TRL) or 'population' (1/G)")
    adv_eps: float = hparam(1e-4, "added to the group std (TRL 1.16; verl uses 1e-6)")

    def __post_init__(self) -> None:
        require_at_least(self, 0.0, "adv_eps")


class Method:
    """Base class: hyperparameters in a ``Config`` dataclass, state in plain attributes.

    ``Method(hparams, path=...)`` builds ``Config`` with ``rlvr_lib.settings.schema.build``: unknown keys, values of the
    wrong type (a string for a number, a bool for a float, a ``Literal`` choice outside its values) and the
    range checks of ``Config.__post_init__`` all raise ValueError naming ``<path>.<key>``.
    """

    name: ClassVar[str]
    paper: ClassVar[str]
    updates_per_batch: ClassVar[UpdatesPerBatch] = "any"
    # False in the body of a class whose ``rollout`` reads neither ``batch.logps`` nor ``batch.entropies``
    # (see ``rollout_needs_behaviour``)
    rollout_reads_behaviour: ClassVar[bool] = True
    # hyperparameters this method shares in name with others (GRPO's clip range, aggregation, KL coefficient) but whose
    # value is part of its definition (DAPO's clip-higher eps_high): a comparison of methods may differ in them
    # (rlvr_lib.papers.framework.guard); every other shared hyperparameter must be equal in a comparison
    defining_hparams: ClassVar[tuple[str, ...]] = ()

    @dataclass
    class Config:
        pass

    def __init__(self, hparams: Mapping[str, Any] | None = None, *, path: str | None = None):
        self.cfg = build(self.Config, hparams, self.name if path is None else path)

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return dataclasses.asdict(cls.Config())

    def metric(self, key: str) -> str:
        """The logged name of one of this method's own quantities: ``<method name>/<key>``."""
        return f"{self.name}/{key}"

    def prefixed(self, values: dict[str, float]) -> dict[str, float]:
        """``{key: value}`` -> ``{<method name>/key: value}``."""
        return {self.metric(k): v for k, v in values.items()}

    def own_metrics(self, values: dict[str, Tensor], dtype: torch.dtype = torch.float32) -> dict[str, float]:
        """``{key: scalar tensor}`` -> ``{<method name>/key: float}`` with one host sync (``core.to_floats``)."""
        return self.prefixed(to_floats(values, dtype))

    @property
    def needs_reference(self) -> bool:
        return False

    @property
    def needs_entropy_change_factor(self) -> bool:
        """Whether ``RolloutBatch.entropy_change_factors`` must be filled (a vocabulary-wide statistic that the
        trainer computes chunk by chunk in its behaviour pass; only then, since it costs an LM-head pass)."""
        return False

    @property
    def rollout_needs_behaviour(self) -> bool:
        """Whether ``rollout`` reads the behaviour log-probs and entropies. When it does not, the trainer may pass
        None for both and spare a no-grad forward over the rollout batch. Only the class that defines the
        ``rollout`` in use can say no (``rollout_reads_behaviour = False`` in its own body): a subclass or mixin
        that overrides ``rollout`` reads them unless it says so itself."""
        owner = next(k for k in type(self).__mro__ if "rollout" in vars(k))
        return vars(owner).get("rollout_reads_behaviour", True)

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        raise NotImplementedError

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        raise NotImplementedError

    def on_optimizer_step(self) -> dict[str, float]:
        return {}

    def unweighted_loss(self, batch: LossBatch) -> Tensor | None:
        """For a method that rescales its per-token policy-gradient terms (OPEFO): the same loss with every scale at
        1, on the same micro-batch, with grad (the trainer's ``log_gradient_cosine`` diagnostic compares the two
        gradients). None: the method has none."""
        return None

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state:
            raise ValueError(f"method '{self.name}' has no state but got keys {sorted(state)}")


def as_float(x: Tensor | float) -> float:
    return float(x.detach()) if isinstance(x, torch.Tensor) else float(x)
