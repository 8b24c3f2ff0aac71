"""Degenerate rollout batches every method must survive (shared by the per-method tests)."""
from __future__ import annotations

import torch

from rlvr_lib.methods import RolloutBatch

CASES = ("all_equal", "one_token", "masked_row", "single_response_groups")


def make_degenerate(batch: RolloutBatch, case: str) -> RolloutBatch:
    """Edit ``batch`` (at least 3 rows) in place into ``case`` and return it.

    all_equal: every reward 1 (zero group std); one_token: each response one token long; masked_row: row 2
    fully masked; single_response_groups: every response its own group.
    """
    if case == "all_equal":
        batch.rewards[:] = 1.0
    elif case == "one_token":
        batch.mask[:] = 0.0
        batch.mask[:, 0] = 1.0
    elif case == "masked_row":
        batch.mask[2] = 0.0
    elif case == "single_response_groups":
        batch.group_ids = torch.arange(batch.rewards.numel())
    else:
        raise ValueError(f"unknown degenerate case {case!r}; known: {CASES}")
    return batch
