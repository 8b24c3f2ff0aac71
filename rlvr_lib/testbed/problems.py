"""The testbed's problems: difficulty levels, the problem record, and the slipped sums of its worked solutions
(shared by both tasks, ``generator``'s sums and ``task_v3``'s sums with a trap)."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    n_operands: int
    low: int
    high: int  # operands are drawn uniformly from [low, high]


# Levels 1-3 (one-digit operands) make the default mix; 4-5 add two-digit operands, which the default base
# policy never sees in SFT (an earlier default mix with level 4 left GRPO little signal: docs/testbed.md).
LEVELS: dict[int, Level] = {
    1: Level(3, 1, 9),
    2: Level(4, 1, 9),
    3: Level(5, 1, 9),
    4: Level(3, 10, 99),
    5: Level(4, 10, 99),
}


@dataclass(frozen=True)
class Problem:
    uid: str
    prompt: str  # plain text the policy sees; the completion starts right after it
    answer: str
    level: int
    solution: str  # one sampled worked solution (starts with a space, ends with \boxed{answer})


SLIP_OFFSETS = tuple(d for d in range(-9, 10) if d)


def slipped(total: int, rng: random.Random) -> int:
    """``total`` off by a uniform nonzero offset in [-9, 9], resampled until the result is >= 0."""
    while True:
        wrong = total + rng.choice(SLIP_OFFSETS)
        if wrong >= 0:
            return wrong
