"""Answer extraction, grading (equivalences, fast path, pathological inputs, threads) and TRL reward functions."""

import pickle
import signal
import threading
import time

import pytest

from rlvr_lib.tasks import rewards
from rlvr_lib.tasks.rewards import GradeResult, accuracy_reward, extract_boxed, format_reward, grade

EQUIVALENT = [
    ("\\frac{1}{2}", "0.5"),
    ("0.5", "\\frac{1}{2}"),
    ("\\frac{1}{2}", "1/2"),
    ("1/2", "\\dfrac{1}{2}"),
    ("\\dfrac{3}{4}", "0.75"),
    ("\\frac{\\sqrt2}{2}", "\\sqrt{2}/2"),
    ("\\frac{3\\sqrt{3}}{4}", "\\frac{3}{4}\\sqrt3"),
    ("25", "025"),  # AIME gold without, answer with leading zero
    ("025", "25"),  # aime24 golds keep the leading zero
    ("-3", "-3.0"),
    ("-\\frac{1}{2}", "-0.5"),
    ("27", "27.0"),  # amc23 golds are floats
    ("1000", "1,000"),
    ("32348", "\\$32,\\!348"),
    ("1\\,000", "1000"),
    ("\\$18.90", "18.9"),
    ("10\\%", "10"),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3,\\pi/2)"),
    ("x^2+1", "1+x^2"),
    ("\\text{(C)}", "C"),
    ("$69$,$84$", "84, 69"),  # OlympiadBench multi-answer gold with dollar signs
]
NOT_EQUIVALENT = [
    ("-3", "3"),
    ("2", "3"),
    ("25", "250"),
    ("\\frac{1}{3}", "0.333"),
    ("\\sqrt{2}", "1.414"),
    ("(1,2)", "[1,2]"),
    ("\\frac{1}{2}", "\\frac{1}{3}"),
]
PATHOLOGICAL = [
    "9^{9^{9^{9}}}",
    "2^{10^{10}}",
    "9^{99999999}",
    "1000000000!",
    "\\frac{" * 60 + "1" + "}{2}" * 60,
    "{" * 300 + "1" + "}" * 300,
    "+".join(["x"] * 3000),
]


@pytest.mark.parametrize("gold, answer", EQUIVALENT)
def test_equivalent_answers_are_correct(gold, answer):
    result = grade(f"Step by step ... so the answer is $\\boxed{{{answer}}}$.", gold)
    assert result == GradeResult(1.0, 1.0, result.reason), result


@pytest.mark.parametrize("gold, answer", NOT_EQUIVALENT)
def test_different_answers_are_wrong(gold, answer):
    result = grade(f"\\boxed{{{answer}}}", gold)
    assert (result.correct, result.formatted) == (0.0, 1.0), result


def test_plain_numbers_take_the_fast_path():
    assert grade("\\boxed{025}", "25").reason == "numeric match"
    assert grade("\\boxed{-7}", "7").reason == "numeric mismatch"


def test_missing_box_is_unformatted():
    assert grade("The answer is 25.", "25") == GradeResult(0.0, 0.0, "no boxed answer")
    assert grade("\\boxed{25", "25").formatted == 0.0  # unclosed box


@pytest.mark.parametrize("gold", ["8+4i", "\\frac{1}{2}", "\\sqrt{3}", "(1, 2)", "x^2+1"])
def test_gold_answers_math_verify_parses_are_accepted(gold):
    """Real benchmark answers (MATH's '8+4i'): gold_answer_error must not call them unparseable."""
    assert rewards.gold_answer_error(gold) is None


def test_empty_gold_is_rejected():
    with pytest.raises(ValueError, match="gold"):
        grade("\\boxed{1}", " ")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("\\boxed{\\left\\{ 1, \\frac{2}{3} \\right\\}}", "\\left\\{ 1, \\frac{2}{3} \\right\\}"),
        ("first \\boxed{1}, then \\boxed{2}", "2"),
        ("\\boxed{1} and finally \\fbox{7}", "7"),
        ("\\boxed {5}", "5"),
        ("\\boxed{}", ""),
        ("no box here", None),
        ("\\boxed{12", None),
    ],
)
def test_extract_boxed(text, expected):
    assert extract_boxed(text) == expected


def test_last_boxed_wins():
    assert grade("\\boxed{3} no wait, \\boxed{4}", "4").correct == 1.0
    assert grade("\\boxed{4} no wait, \\boxed{3}", "4").correct == 0.0


def _timed_grade(answer: str) -> tuple[GradeResult, float]:
    start = time.monotonic()
    result = grade(f"\\boxed{{{answer}}}", "5")
    return result, time.monotonic() - start


def _in_thread(fn, *args):
    out = {}
    thread = threading.Thread(target=lambda: out.update(value=fn(*args)))
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()
    return out["value"]


@pytest.mark.parametrize("answer", PATHOLOGICAL)
@pytest.mark.parametrize("where", ["main", "thread"])
def test_pathological_answers_score_zero_fast(answer, where, caplog):
    result, elapsed = _timed_grade(answer) if where == "main" else _in_thread(_timed_grade, answer)
    assert result.correct == 0.0 and "rejected" in result.reason
    assert elapsed < 5.0
    assert "rejected" in caplog.text


@pytest.mark.parametrize("where", ["main", "thread"])
def test_time_budget_holds_without_the_guards(where, monkeypatch, caplog):
    """With the cheap guards off, the math-verify step itself is cut at GRADE_TIMEOUT_S in any thread."""
    monkeypatch.setattr(rewards, "pathology", lambda answer: None)
    monkeypatch.setattr(rewards, "GRADE_TIMEOUT_S", 1.0)
    handler_before = signal.getsignal(signal.SIGALRM)

    def run():
        assert grade("\\boxed{1/2}", "0.5").correct == 1.0  # starts this thread's worker outside the timing
        return _timed_grade("9^{9^{9^{9}}}")

    result, elapsed = run() if where == "main" else _in_thread(run)
    assert result.correct == 0.0 and result.reason.startswith("timeout")
    assert elapsed < 5.0
    assert "math-verify over" in caplog.text
    assert signal.getsignal(signal.SIGALRM) is handler_before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_worker_recovers_after_timeout(monkeypatch):
    monkeypatch.setattr(rewards, "pathology", lambda answer: None)
    monkeypatch.setattr(rewards, "GRADE_TIMEOUT_S", 1.0)

    def run():
        grade("\\boxed{9^{9^{9^{9}}}}", "5")
        return grade("\\boxed{\\frac{1}{2}}", "0.5")

    assert _in_thread(run).correct == 1.0


def test_threaded_grading_matches_main_thread():
    pairs = EQUIVALENT[:6] + NOT_EQUIVALENT[:3]
    expected = [grade(f"\\boxed{{{a}}}", g) for g, a in pairs]
    assert _in_thread(lambda: [grade(f"\\boxed{{{a}}}", g) for g, a in pairs]) == expected


def test_trl_reward_functions():
    completions = ["so \\boxed{025}", "I think \\boxed{7}", "no idea"]
    answers = [25, "8", "1"]
    assert accuracy_reward(["p"] * 3, completions, completion_ids=None, answer=answers) == [1.0, 0.0, 0.0]
    assert format_reward(["p"] * 3, completions, answer=answers) == [1.0, 1.0, 0.0]
    assert (accuracy_reward.__name__, format_reward.__name__) == ("accuracy", "format")  # rewards/accuracy/mean
    assert pickle.loads(pickle.dumps(accuracy_reward)) is accuracy_reward


def test_trl_reward_functions_accept_conversations():
    completions = [[{"role": "assistant", "content": "\\boxed{\\frac{1}{2}}"}]]
    assert accuracy_reward([[{"role": "user", "content": "q"}]], completions, answer=["0.5"]) == [1.0]


def test_accuracy_reward_needs_answer_column():
    with pytest.raises(ValueError, match="answer"):
        accuracy_reward(["p"], ["\\boxed{1}"])
    with pytest.raises(ValueError, match="answer"):
        accuracy_reward(["p", "q"], ["\\boxed{1}", "\\boxed{2}"], answer=["1"])


def plain_integer_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """(gold, answer) pairs of plain integers as models write them: signs, leading zeros, near misses."""
    import random

    rng = random.Random(seed)
    pairs = [
        ("0", "-0"),
        ("-0", "+0"),
        ("7", "+7"),
        ("007", "7"),
        ("-12", "-012"),
        ("10", "1"),
        ("1", "10"),
        ("-5", "5"),
        ("123456789012345678901234567890", "123456789012345678901234567891"),
    ]
    while len(pairs) < n:
        gold = rng.choice([rng.randint(0, 99), rng.randint(-999, 999), rng.randint(0, 10**9)])
        answer = rng.choice([gold, gold, gold + rng.choice([-10, -1, 1, 9]), -gold, gold * 10])

        def write(value: int) -> str:
            text = str(abs(value))
            text = "0" * rng.choice([0, 0, 0, 1, 2]) + text
            sign = "-" if value < 0 else rng.choice(["", "", "+"])
            return sign + text

        pairs.append((write(gold), write(answer)))
    return pairs


def test_fast_path_agrees_with_math_verify_on_plain_integers():
    """The exact fast path (plain numbers compared as decimals) gives math-verify's verdict on every plain-integer
    pair, including signs, leading zeros and near misses."""
    pairs = plain_integer_pairs(400)
    assert sum(int(g) == int(a) for g, a in pairs) > 100 and sum(int(g) != int(a) for g, a in pairs) > 100
    for gold, answer in pairs:
        result = grade(f"so \\boxed{{{answer}}}", gold)
        assert result.reason.startswith("numeric"), (gold, answer, result)
        assert result.correct == float(rewards._math_verify(gold, answer)), (gold, answer, result)


def test_think_format_reward():
    from rlvr_lib.tasks.rewards import FORMAT_REWARDS

    think = FORMAT_REWARDS["think"]
    texts = [
        "<think> a </think> <answer>1</answer>",
        "no tags",
        "</think> x <think>",
        "<think> a <think> b </think>",
        [{"role": "assistant", "content": "<think>x</think>"}],
    ]
    assert think(None, texts) == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert think.__name__ == FORMAT_REWARDS["boxed"].__name__ == "format"
