"""Seeded generator of the synthetic verifiable task: add a list of integers.

Prompt ``"Compute 3+5+2+7.\\nAnswer:"``; a worked solution combines two of the remaining numbers per step,
``" 3+5=8, 8+2=10, 10+7=17. \\boxed{17}"``. Which pair to combine is a decision point (a solution sampled
for SFT picks one uniformly); the sums are deterministic steps. Difficulty grows with the number of
operands and their size (``LEVELS``).

SFT solutions may contain *slips* (``slip_rate``): a step's sum is written off by 1-9 (``8+5=15``) and the
solution goes on from the wrong number, as a careless solver's would. The base policy learns to slip about
as often, so part of its entropy sits at the sums and decides the reward: the kind that RL removes first.
"""

from __future__ import annotations

import hashlib
import random
import re

from rlvr_lib.testbed import task_v3
from rlvr_lib.testbed.problems import LEVELS, Problem, slipped


def format_prompt(operands: list[int]) -> str:
    return f"Compute {'+'.join(map(str, operands))}.\nAnswer:"


def operands_of(prompt: str) -> list[int]:
    """Inverse of ``format_prompt``."""
    match = re.fullmatch(r"Compute ([\d+]+)\.\nAnswer:", prompt)
    if match is None:
        raise ValueError(f"not a testbed prompt: {prompt!r}")
    return [int(x) for x in match.group(1).split("+")]


def sample_solution(operands: list[int], rng: random.Random, slip_rate: float = 0.0) -> str:
    """One worked solution: repeatedly add a uniformly chosen pair of the remaining numbers.

    The pair is written in list order and its sum takes the place of the first of the two, so
    always choosing the first pair is plain left-to-right addition. Each sum is written wrong
    (``slipped``) with probability ``slip_rate``; later steps use the written sum.
    """
    if not 0.0 <= slip_rate <= 1.0:
        raise ValueError(f"slip_rate must be in [0, 1], got {slip_rate}")
    nums, steps = list(operands), []
    while len(nums) > 1:
        i, j = sorted(rng.sample(range(len(nums)), 2))
        total = nums[i] + nums[j]
        if slip_rate and rng.random() < slip_rate:
            total = slipped(total, rng)
        steps.append(f"{nums[i]}+{nums[j]}={total}")
        nums[i] = total
        del nums[j]
    return f" {', '.join(steps)}. \\boxed{{{nums[0]}}}"


def sample_solutions(problem: Problem, k: int, seed: int, slip_rate: float = 0.0) -> list[str]:
    """Up to ``k`` distinct worked solutions of ``problem`` (fewer when fewer exist), deterministic per seed."""
    rng = random.Random(f"{seed}/{problem.uid}")
    operands, found = operands_of(problem.prompt), {}
    for _ in range(20 * k):
        found.setdefault(sample_solution(operands, rng, slip_rate), None)
        if len(found) == k:
            break
    return list(found)


def make_problem(level: int, rng: random.Random) -> Problem:
    spec = LEVELS[level]
    operands = [rng.randint(spec.low, spec.high) for _ in range(spec.n_operands)]
    prompt = format_prompt(operands)
    uid = f"L{level}-{hashlib.sha1(prompt.encode()).hexdigest()[:10]}"
    return Problem(uid, prompt, str(sum(operands)), level, sample_solution(operands, rng))


TASKS = ("v2", "v3")  # v2: this module's sums; v3: task_v3 (sums with a multiplication trap and routes)


def _problem_maker(task: str):
    """The ``make_problem(level, rng)`` of ``task``."""
    if task == "v2":
        return make_problem
    if task == "v3":
        return task_v3.make_problem
    raise ValueError(f"unknown testbed task {task!r}; known: {TASKS}")


def _sample_distinct(
    n: int, rng: random.Random, levels: tuple[int, ...], exclude: set[str], task: str = "v2"
) -> list[Problem]:
    """``n`` problems with levels cycling through ``levels``, none of whose prompt is in ``exclude``."""
    make = _problem_maker(task)
    out: list[Problem] = []
    seen = set(exclude)
    for idx in range(n):
        for _ in range(1000):
            problem = make(levels[idx % len(levels)], rng)
            if problem.prompt not in seen:
                break
        else:
            raise ValueError(f"level {levels[idx % len(levels)]} has too few distinct problems for n={n}")
        seen.add(problem.prompt)
        out.append(problem)
    return out


def make_splits(
    n_train: int, n_eval: int, seed: int, levels: tuple[int, ...] = (1, 2, 3), task: str = "v2"
) -> tuple[list[Problem], list[Problem]]:
    """Disjoint train and eval problems (no shared prompt), levels mixed evenly, deterministic per seed.

    ``task`` (``TASKS``) picks the problem generator. The eval split depends only on
    ``(n_eval, seed, levels, task)``, not on ``n_train``.
    """
    levels = tuple(levels)
    unknown = set(levels) - set(LEVELS)
    if unknown:
        raise ValueError(f"unknown levels {sorted(unknown)}; known: {sorted(LEVELS)}")
    eval_problems = _sample_distinct(n_eval, random.Random(f"{seed}/eval"), levels, set(), task)
    train = _sample_distinct(n_train, random.Random(f"{seed}/train"), levels, {p.prompt for p in eval_problems}, task)
    return train, eval_problems


def validation_split(n: int, seed: int, levels: tuple[int, ...], task: str, exclude_prompts: set[str]) -> list[Problem]:
    """``n`` problems for selecting hyperparameters (issue 41), levels mixed evenly, from their own random stream
    (``<seed>/validation``: ``make_splits``' splits are unchanged), none of whose prompt is in ``exclude_prompts``
    (the training, SFT and evaluation prompts)."""
    levels = tuple(levels)
    unknown = set(levels) - set(LEVELS)
    if unknown:
        raise ValueError(f"unknown levels {sorted(unknown)}; known: {sorted(LEVELS)}")
    return _sample_distinct(n, random.Random(f"{seed}/validation"), levels, set(exclude_prompts), task)


def to_records(problems: list[Problem]) -> list[dict]:
    """The dataset rows the trainer and evaluator use: prompt, answer, level, uid."""
    return [{"prompt": p.prompt, "answer": p.answer, "level": p.level, "uid": p.uid} for p in problems]
