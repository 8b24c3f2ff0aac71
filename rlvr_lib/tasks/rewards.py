"""Final-answer extraction, time-bounded grading with math-verify, and TRL reward functions.

``grade(completion, gold)`` takes the last ``\\boxed{}`` of the completion and compares it with the gold answer:

1. plain numbers on both sides ("025", "-3", "27.0", "1,000") are compared exactly as decimals;
2. pathological answers (too long, braces nested too deep, power towers, huge exponents or factorials) score 0
   with a logged reason, before any sympy work;
3. everything else goes to ``math_verify.parse`` (each side wrapped in ``$...$``) and ``math_verify.verify``
   (gold first), under a wall-clock budget of ``GRADE_TIMEOUT_S``: in the main thread by a one-shot SIGALRM
   timer, in any other thread by a per-thread worker subprocess that is killed when the budget runs out
   (signals only work in the main thread). A call over budget scores 0 and is logged.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

log = logging.getLogger(__name__)

GRADE_TIMEOUT_S = 3.0  # wall-clock budget of the math-verify step of one grade() call
WORKER_START_TIMEOUT_S = 60.0  # time a worker subprocess may take to import math-verify
MAX_ANSWER_CHARS = 1000  # longest gold answer in the shared data: 210 characters
MAX_BRACE_DEPTH = 10  # deepest gold answer in the shared data: 3
MAX_NUMBER_DIGITS = 6  # longest exponent/factorial argument accepted: 999999


@dataclass(frozen=True)
class GradeResult:
    """``correct`` and ``formatted`` are 1.0 or 0.0; ``reason`` says how the grade was reached."""

    correct: float
    formatted: float
    reason: str


# ----------------------------------------------------------------------------- extraction
_BOX_RE = re.compile(r"\\(?:boxed|fbox|framebox)\s*\{")


def _brace_group(text: str, start: int) -> str | None:
    """Content from ``start`` (just after an opening brace) to its matching brace; None if unbalanced.

    A backslash escapes the next character, so ``\\{`` and ``\\}`` do not count.
    """
    depth, i = 1, start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start:i]
        i += 1
    return None


def extract_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (or ``\\fbox{...}``, ``\\framebox{...}``); None if absent or unclosed."""
    matches = list(_BOX_RE.finditer(text))
    return _brace_group(text, matches[-1].end()) if matches else None


# ----------------------------------------------------------------------------- cheap checks
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|[+-]?\.\d+")
_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$")
_THIN_SPACE_GROUP = re.compile(r"(?<=\d)\\[,!](?=\d{3}(?!\d))")  # 1\,000 -> 1000 (math-verify reads 1*0)
_POWER_TOWER = re.compile(r"\^\s*\{?\s*\d+(?:\.\d+)?\s*\^")  # a^{9^...}, a^9^...: numeric towers
_BIG_EXPONENT = re.compile(r"\^\s*\{?\s*[+-]?\d{" + str(MAX_NUMBER_DIGITS + 1) + ",}")
_BIG_FACTORIAL = re.compile(r"\d{" + str(MAX_NUMBER_DIGITS + 1) + r",}\s*\}?\s*!")


def _normalise(answer: str) -> str:
    """Strip whitespace and unescaped ``$`` (OlympiadBench golds read ``$69$,$84$``); join thin-space groups."""
    return _THIN_SPACE_GROUP.sub("", _UNESCAPED_DOLLAR.sub("", answer)).strip()


def _plain_number(answer: str) -> Decimal | None:
    return Decimal(answer.replace(",", "")) if _PLAIN_NUMBER.fullmatch(answer) else None


def _brace_depth(answer: str) -> int:
    depth = deepest = 0
    for ch in re.sub(r"\\.", "", answer):
        depth += (ch == "{") - (ch == "}")
        deepest = max(deepest, depth)
    return deepest


def pathology(answer: str) -> str | None:
    """Why ``answer`` is too costly to hand to sympy, or None if it looks safe."""
    if len(answer) > MAX_ANSWER_CHARS:
        return f"{len(answer)} characters > MAX_ANSWER_CHARS={MAX_ANSWER_CHARS}"
    if (depth := _brace_depth(answer)) > MAX_BRACE_DEPTH:
        return f"brace depth {depth} > MAX_BRACE_DEPTH={MAX_BRACE_DEPTH}"
    if _POWER_TOWER.search(answer):
        return "power tower"
    if _BIG_EXPONENT.search(answer) or _BIG_FACTORIAL.search(answer):
        return f"exponent or factorial argument with more than {MAX_NUMBER_DIGITS} digits"
    return None


# ----------------------------------------------------------------------------- math-verify, time-bounded
class _TimeoutDisabledFilter(logging.Filter):
    """Drop math-verify's warning that its timeouts are off: grade() bounds the time itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Timeout is disabled" not in record.getMessage()


for _name in ("math_verify.parser", "math_verify.grader"):
    logging.getLogger(_name).addFilter(_TimeoutDisabledFilter())


def _math_verify_module():
    """math_verify, imported on first use: it pulls in sympy (about a second), which grading plain numbers (every
    testbed answer) never needs. Callers import it before any time budget starts."""
    import math_verify

    return math_verify


def _math_verify(gold: str, answer: str) -> bool:
    """math-verify equivalence of two normalised answers, without any time limit."""
    mv = _math_verify_module()
    gold_parsed = mv.parse(f"${gold}$", parsing_timeout=None)
    answer_parsed = mv.parse(f"${answer}$", parsing_timeout=None)
    return bool(gold_parsed and answer_parsed and mv.verify(gold_parsed, answer_parsed, timeout_seconds=None))


class _Deadline(BaseException):
    """Raised by SIGALRM; a BaseException so that math-verify's ``except Exception`` blocks let it through."""


def _math_verify_main_thread(gold: str, answer: str, budget: float) -> bool | None:
    """``_math_verify`` under a one-shot SIGALRM timer; None on timeout. Restores any outer timer."""

    def on_alarm(signum, frame):
        raise _Deadline

    started = time.monotonic()
    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        try:
            return _math_verify(gold, answer)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Deadline:
        return None
    finally:
        signal.signal(signal.SIGALRM, old_handler)
        if old_delay > 0:
            remaining = old_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-6), old_interval)


class _Worker:
    """A subprocess running ``worker_loop``: one JSON line in ([gold, answer]), one JSON line out (bool)."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH")])
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from rlvr_lib.tasks.rewards import worker_loop; worker_loop()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        if self._read_line(WORKER_START_TIMEOUT_S) != "ready":
            self.close()
            raise RuntimeError("rlvr_lib.tasks.rewards: grading worker subprocess failed to start")

    def _read_line(self, timeout: float) -> str | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline().strip() if ready else None

    def __call__(self, gold: str, answer: str, budget: float) -> bool | None:
        self.proc.stdin.write(json.dumps([gold, answer]) + "\n")
        self.proc.stdin.flush()
        line = self._read_line(budget)
        return None if line is None else json.loads(line)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()

    def __del__(self) -> None:  # the thread that owned this worker has ended
        if self.proc.returncode is None:
            self.close()


_thread_state = threading.local()


def _math_verify_in_worker(gold: str, answer: str, budget: float) -> bool | None:
    """``_math_verify`` in this thread's worker subprocess; None on timeout (the worker is then killed)."""
    worker = getattr(_thread_state, "worker", None)
    if worker is None or worker.proc.poll() is not None:
        worker = _thread_state.worker = _Worker()
    result = worker(gold, answer, budget)
    if result is None:
        worker.close()
        _thread_state.worker = None
    return result


def worker_loop() -> None:
    """Body of the grading subprocess: answer requests from stdin until it closes."""
    replies, sys.stdout = sys.stdout, sys.stderr  # stray prints must not corrupt the protocol
    _math_verify_module()  # before "ready": the import is start-up time, not a request's budget
    print("ready", file=replies, flush=True)
    for line in sys.stdin:
        gold, answer = json.loads(line)
        try:
            result = _math_verify(gold, answer)
        except Exception:  # a crash inside sympy is a wrong answer, not a dead worker
            result = False
        print(json.dumps(result), file=replies, flush=True)


def _bounded_math_verify(gold: str, answer: str, budget: float) -> bool | None:
    _math_verify_module()  # the first call's import must not count against the budget
    if threading.current_thread() is threading.main_thread():
        return _math_verify_main_thread(gold, answer, budget)
    return _math_verify_in_worker(gold, answer, budget)


# ----------------------------------------------------------------------------- grading
def grade(completion: str, gold: str) -> GradeResult:
    """Grade the last ``\\boxed{}`` answer of ``completion`` against the ``gold`` answer (bare, no box).

    Never raises on model output and returns within about ``GRADE_TIMEOUT_S`` seconds, from any thread.
    """
    if not isinstance(gold, str) or not gold.strip():
        raise ValueError(f"gold: expected a non-empty answer string, got {gold!r}")
    boxed = extract_boxed(completion)
    if boxed is None:
        return GradeResult(0.0, 0.0, "no boxed answer")
    answer, gold = _normalise(boxed), _normalise(gold)
    if not answer:
        return GradeResult(0.0, 1.0, "empty boxed answer")
    gold_num, answer_num = _plain_number(gold), _plain_number(answer)
    if gold_num is not None and answer_num is not None:
        same = gold_num == answer_num
        return GradeResult(float(same), 1.0, "numeric match" if same else "numeric mismatch")
    for role, text in (("gold", gold), ("answer", answer)):
        if (why := pathology(text)) is not None:
            log.warning("grade: %s rejected (%s): %.200s", role, why, text)
            return GradeResult(0.0, 1.0, f"{role} rejected: {why}")
    try:
        same = _bounded_math_verify(gold, answer, GRADE_TIMEOUT_S)
    except Exception as exc:  # math-verify / sympy crash on odd input
        log.warning("grade: math-verify raised %r on gold %.100r vs answer %.100r", exc, gold, answer)
        return GradeResult(0.0, 1.0, f"math-verify error: {type(exc).__name__}")
    if same is None:
        log.warning("grade: math-verify over %.1f s on gold %.100r vs answer %.100r", GRADE_TIMEOUT_S, gold, answer)
        return GradeResult(0.0, 1.0, f"timeout after {GRADE_TIMEOUT_S} s")
    return GradeResult(float(same), 1.0, "math-verify match" if same else "math-verify mismatch")


def gold_answer_error(gold: object) -> str | None:
    """Why ``grade`` can never score a response correct against gold answer ``gold``, or None when it can.

    The gold must be a non-empty string with balanced braces that ``grade`` does not reject as pathological and
    math-verify parses (parsed as ``grade`` parses it). Plain numbers need no math-verify; any other answer costs
    one parse (about 7 ms; bounded by ``GRADE_TIMEOUT_S`` in the main thread).
    """
    if not isinstance(gold, str):
        return f"must be a string, got {gold!r} ({type(gold).__name__}); the grader compares one answer text"
    text = _normalise(gold)
    if not text:
        return "is empty"
    shown = repr(gold[:80]) + ("..." if len(gold) > 80 else "")
    if _brace_group(text + "}", 0) != text:
        return f"{shown} has unbalanced braces: no response can box it, every response would score 0"
    if _plain_number(text) is not None:
        return None
    if (why := pathology(text)) is not None:
        return f"{shown} is rejected by the grader ({why}): every response would score 0"
    try:
        # math-verify's timeout is signal.alarm's whole seconds: a float makes it fail inside and return [] (no parse)
        parsed = _math_verify_module().parse(f"${text}$", parsing_timeout=math.ceil(GRADE_TIMEOUT_S))
    except Exception as exc:  # math-verify / sympy crash on odd input
        return f"{shown} makes math-verify fail ({type(exc).__name__}): every response would score 0"
    return None if parsed else f"{shown} cannot be parsed by math-verify: every response would score 0"


# ----------------------------------------------------------------------------- TRL reward functions
def _completion_text(completion) -> str:
    """Text of a TRL completion: a string, or a conversation (list of messages) whose last message is used."""
    if isinstance(completion, str):
        return completion
    return completion[-1]["content"]


def _gold_answers(kwargs: dict, n: int) -> list[str]:
    if "answer" not in kwargs:
        raise ValueError("reward function needs the dataset column 'answer' (passed by TRL as kwargs['answer'])")
    answers = kwargs["answer"]
    if len(answers) != n:
        raise ValueError(f"answer: {len(answers)} gold answers for {n} completions")
    return [str(a) for a in answers]


def _grades(completions, kwargs: dict) -> list[GradeResult]:
    golds = _gold_answers(kwargs, len(completions))
    return [grade(_completion_text(c), g) for c, g in zip(completions, golds, strict=False)]


def accuracy_reward(prompts, completions, completion_ids=None, **kwargs) -> list[float]:
    """TRL reward: 1.0 where the last boxed answer equals the gold ``answer`` column, else 0.0."""
    return [g.correct for g in _grades(completions, kwargs)]


def format_reward(prompts, completions, completion_ids=None, **kwargs) -> list[float]:
    """TRL reward: 1.0 where the completion contains a closed ``\\boxed{}``, else 0.0. Needs no gold answer."""
    return [float(extract_boxed(_completion_text(c)) is not None) for c in completions]


def think_format_reward(prompts, completions, completion_ids=None, **kwargs) -> list[float]:
    """TRL reward: 1.0 where the completion holds exactly one ``<think>`` followed by one ``</think>``, else 0.0.

    CW-GRPO's format reward (App. C: "1.0 when the output contains properly matched <think> tags").
    """

    def matched(text: str) -> bool:
        return (
            text.count("<think>") == 1
            and text.count("</think>") == 1
            and text.index("<think>") < text.index("</think>")
        )

    return [float(matched(_completion_text(c))) for c in completions]


accuracy_reward.__name__ = "accuracy"  # TRL logs rewards/<__name__>/mean
format_reward.__name__ = "format"
think_format_reward.__name__ = "format"
FORMAT_REWARDS = {"boxed": format_reward, "think": think_format_reward}
