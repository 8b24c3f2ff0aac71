"""The interface every method implements: three hooks the trainer calls.

Shapes: B = responses in the batch, T = padded completion length. ``mask`` is float (B, T) with 1 on
completion tokens. The trainer (``rlvr_lib.trainer``) owns all glue; a method only sees tensors.

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
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import torch
from torch import Tensor


@dataclass
class RolloutBatch:
    """What a method sees at rollout time (global batch, no gradient)."""

    rewards: Tensor  # (B,) total reward of each response
    group_ids: Tensor  # (B,) long, responses to the same prompt share an id
    mask: Tensor  # (B, T) float
    logps: Tensor  # (B, T) behaviour-policy log-prob of each sampled token
    entropies: Tensor  # (B, T) behaviour-policy entropy of the next-token distribution
    ref_logps: Tensor | None = None  # (B, T) reference-policy log-probs, when the method needs them
    accuracy: Tensor | None = None  # (B,) 1/0 correctness (the "accuracy" reward) when the reward has one


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


UpdatesPerBatch = Literal["any", "one", "several"]


class Method:
    """Base class: hyperparameters in a ``Config`` dataclass, state in plain attributes."""

    name: ClassVar[str]
    paper: ClassVar[str]
    updates_per_batch: ClassVar[UpdatesPerBatch] = "any"

    @dataclass
    class Config:
        pass

    def __init__(self, **hparams: Any):
        valid = {f.name for f in dataclasses.fields(self.Config)}
        unknown = sorted(set(hparams) - valid)
        if unknown:
            raise ValueError(
                f"method '{self.name}': unknown hyperparameter(s) {unknown}; valid: {sorted(valid)}"
            )
        self.cfg = self.Config(**hparams)
        self.validate()

    def validate(self) -> None:
        """Raise ValueError naming the bad hyperparameter."""

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return dataclasses.asdict(cls.Config())

    @property
    def needs_reference(self) -> bool:
        return False

    def rollout(self, batch: RolloutBatch) -> RolloutResult:
        raise NotImplementedError

    def loss(self, batch: LossBatch) -> tuple[Tensor, dict[str, float]]:
        raise NotImplementedError

    def on_optimizer_step(self) -> dict[str, float]:
        return {}

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state:
            raise ValueError(f"method '{self.name}' has no state but got keys {sorted(state)}")


def check_probability(name: str, value: float, *, low: float = 0.0, high: float = 1.0) -> None:
    if not low <= value <= high:
        raise ValueError(f"{name} must lie in [{low}, {high}], got {value}")


def check_positive(name: str, value: float, *, strict: bool = True) -> None:
    if value < 0 or (strict and value == 0):
        raise ValueError(f"{name} must be {'> 0' if strict else '>= 0'}, got {value}")


def as_float(x: Tensor | float) -> float:
    return float(x.detach()) if isinstance(x, torch.Tensor) else float(x)
