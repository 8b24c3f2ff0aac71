"""Testbed task v3: sums with a multiplication trap, three routes whose choice decides the reward.

Prompts keep v2's form; a third of them (``TRAP_SHARE``) hold one multiplication by 2 or 3 that is *not*
the first operation, ``"Compute 3+5*2+7.\\nAnswer:"`` (gold: usual precedence, 20). A worked solution
takes one of three routes, chosen at its first token:

- **left to right** (the common route): one operation per step in reading order, ``" 3+5=8, 8*2=16,
  16+7=23. \\boxed{23}"``. On a plain sum it is the right procedure; on a trap it ignores precedence and
  ends wrong unless slips happen to cancel (a dead end).
- **product first** (the rare route, taken with probability ``precedence_rate`` on traps only): the
  product, then left to right, ``" 5*2=10, 3+10=13, 13+7=20. \\boxed{20}"``. It is the only route that
  solves a trap. On a plain sum both procedures write the same text, so the fork exists on traps only.
- **guess** (``guess_rate``, on every problem): the answer without working, ``" \\boxed{21}"``, always
  off by 1-9 in the SFT data (a dead end that looks like a shortcut).

Every written sum is a slip (off by 1-9, ``generator.slipped``) with probability ``slip_rate``, and the
solution goes on from the written value; products (by 2 or 3) are always right, so a left-to-right
solution of a trap is a confident dead end rather than a noisy one. Steps are in a fixed order (v2's choice of pair,
which
never mattered for the answer, is gone), so the base policy's entropy sits where the reward depends on
it: the route fork, the guessed number and the step results.

Designed success probability of one SFT solution of a problem with ``n`` operands (slips ignored where
they cancel; ``route_success_probability`` computes it, the tests check it by sampling):
plain ``(1 - g) (1 - s)^(n-1)``; trap ``(1 - g) q (1 - s)^(n-2)`` (one of its ``n - 1`` steps is the product).
"""

from __future__ import annotations

import hashlib
import random
import re

from rlvr_lib.testbed.problems import LEVELS, Problem, slipped

TRAP_SHARE = 0.4  # P(a v3 problem holds a multiplication trap)
MULTIPLIERS = (2, 3)  # right factor of a trap's product (keeps products within two digits)
ROUTES = ("left_to_right", "product_first", "guess")
_PROMPT_RE = re.compile(r"Compute (\d+(?:[+*]\d+)+)\.\nAnswer:")


def format_prompt(operands: list[int], ops: list[str]) -> str:
    """``"Compute 3+5*2+7.\\nAnswer:"`` from operands ``[3, 5, 2, 7]`` and operators ``["+", "*", "+"]``."""
    if len(ops) != len(operands) - 1 or set(ops) - {"+", "*"}:
        raise ValueError(f"need len(operands) - 1 operators from '+', '*': got {operands}, {ops}")
    text = str(operands[0]) + "".join(f"{op}{x}" for op, x in zip(ops, operands[1:], strict=False))
    return f"Compute {text}.\nAnswer:"


def parse_prompt(prompt: str) -> tuple[list[int], list[str]]:
    """Inverse of ``format_prompt``: (operands, operators)."""
    match = _PROMPT_RE.fullmatch(prompt)
    if match is None:
        raise ValueError(f"not a v3 testbed prompt: {prompt!r}")
    tokens = re.split(r"([+*])", match.group(1))
    return [int(x) for x in tokens[0::2]], tokens[1::2]


def is_trap(prompt: str) -> bool:
    """Whether the prompt holds a multiplication (every v3 product is a trap: never the first operation)."""
    return "*" in parse_prompt(prompt)[1]


def evaluate(operands: list[int], ops: list[str]) -> int:
    """The value with the usual precedence (products first)."""
    terms, current = [], operands[0]
    for op, x in zip(ops, operands[1:], strict=False):
        if op == "*":
            current *= x
        else:
            terms.append(current)
            current = x
    return sum(terms) + current


def _apply(a: int, op: str, b: int) -> int:
    return a * b if op == "*" else a + b


def _step(a: int, op: str, b: int, rng: random.Random, slip_rate: float) -> tuple[str, int]:
    """One written step ``"a op b=c"``; a sum slips with probability ``slip_rate``, a product never."""
    value = _apply(a, op, b)
    if op == "+" and slip_rate and rng.random() < slip_rate:
        value = slipped(value, rng)
    return f"{a}{op}{b}={value}", value


def guessed(answer: int, rng: random.Random, offset_min: int = 1) -> int:
    """``answer`` off by a uniform offset of size ``offset_min .. offset_min + 8`` either way, kept >= 0."""
    if offset_min < 1:
        raise ValueError(f"guess_offset_min must be >= 1, got {offset_min}")
    if offset_min == 1:
        return slipped(answer, rng)
    while True:
        wrong = answer + rng.choice((-1, 1)) * rng.randint(offset_min, offset_min + 8)
        if wrong >= 0:
            return wrong


def solve(
    operands: list[int],
    ops: list[str],
    route: str,
    rng: random.Random,
    slip_rate: float = 0.0,
    guess_offset_min: int = 1,
) -> str:
    """The worked solution of one route (``ROUTES``); ``product_first`` needs a product in ``ops``."""
    if route == "guess":
        return f" \\boxed{{{guessed(evaluate(operands, ops), rng, guess_offset_min)}}}"
    nums, ops = list(operands), list(ops)
    steps = []
    if route == "product_first":
        if "*" not in ops:
            raise ValueError(f"route product_first needs a product: {operands}, {ops}")
        i = ops.index("*")
        text, value = _step(nums[i], "*", nums[i + 1], rng, slip_rate)
        steps.append(text)
        nums[i : i + 2] = [value]
        del ops[i]
    elif route != "left_to_right":
        raise ValueError(f"unknown route {route!r}; known: {ROUTES}")
    value = nums[0]
    for op, x in zip(ops, nums[1:], strict=False):
        text, value = _step(value, op, x, rng, slip_rate)
        steps.append(text)
    return f" {', '.join(steps)}. \\boxed{{{value}}}"


def _check_rates(**rates: float) -> None:
    for name, rate in rates.items():
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {rate}")


def choose_route(trap: bool, rng: random.Random, precedence_rate: float, guess_rate: float) -> str:
    """The SFT data's route: guess with ``guess_rate``; else product first with ``precedence_rate`` on traps."""
    if rng.random() < guess_rate:
        return "guess"
    if trap and rng.random() < precedence_rate:
        return "product_first"
    return "left_to_right"


def route_success_probability(
    n_operands: int, trap: bool, *, slip_rate: float, precedence_rate: float, guess_rate: float
) -> float:
    """Designed P(an SFT solution is correct), counting slip-free solutions of a correct route only."""
    _check_rates(slip_rate=slip_rate, precedence_rate=precedence_rate, guess_rate=guess_rate)
    clean = (1.0 - slip_rate) ** (n_operands - 1 - int(trap))  # products never slip
    return (1.0 - guess_rate) * (precedence_rate if trap else 1.0) * clean


def sample_solutions(
    problem: Problem,
    k: int,
    seed: int,
    *,
    slip_rate: float,
    precedence_rate: float,
    guess_rate: float,
    guess_offset_min: int = 1,
) -> list[str]:
    """``k`` independent SFT solutions (duplicates kept, so the route and slip rates hold as designed)."""
    _check_rates(slip_rate=slip_rate, precedence_rate=precedence_rate, guess_rate=guess_rate)
    rng = random.Random(f"{seed}/{problem.uid}")
    operands, ops = parse_prompt(problem.prompt)
    trap = "*" in ops
    return [
        solve(operands, ops, choose_route(trap, rng, precedence_rate, guess_rate), rng, slip_rate, guess_offset_min)
        for _ in range(k)
    ]


def classify_route(prompt: str, completion: str) -> str:
    """The route a completion takes (``ROUTES``), read from its start; ``"other"`` if it fits none."""
    operands, ops = parse_prompt(prompt)
    text = completion.lstrip()
    if text.startswith("\\boxed"):
        return "guess"
    match = re.match(r"(\d+)([+*])(\d+)=", text)
    if match is None:
        return "other"
    first = (int(match.group(1)), match.group(2), int(match.group(3)))
    if first == (operands[0], ops[0], operands[1]):
        return "left_to_right"
    if "*" in ops and first == (operands[ops.index("*")], "*", operands[ops.index("*") + 1]):
        return "product_first"
    return "other"


def make_problem(level: int, rng: random.Random) -> Problem:
    """A v3 problem with ``LEVELS[level]``'s operands; a trap (``TRAP_SHARE``) multiplies at a later step."""
    spec = LEVELS[level]
    operands = [rng.randint(spec.low, spec.high) for _ in range(spec.n_operands)]
    ops = ["+"] * (spec.n_operands - 1)
    if rng.random() < TRAP_SHARE:
        i = rng.randrange(1, spec.n_operands - 1)  # never the first operation: left to right must fail
        ops[i] = "*"
        operands[i + 1] = rng.choice(MULTIPLIERS)
    prompt = format_prompt(operands, ops)
    uid = f"L{level}-{hashlib.sha1(prompt.encode()).hexdigest()[:10]}"
    answer = evaluate(operands, ops)
    return Problem(
        uid, prompt, str(answer), level, solve(operands, ops, "product_first" if "*" in ops else "left_to_right", rng)
    )
