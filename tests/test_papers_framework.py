"""The verdict framework's shared checks, each planted and caught: a null that passes too, a measure that cannot
move (fixed by the task, calibrated, at a floor, zero variance), a failed seed hidden by the mean, an idle
mechanism, a verdict that hinges on a declared alternative, a margin above the paper's effect, a universal claim
refuted by one seed, an underpowered comparison, and a paper module that computes a shared concept itself."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from rlvr_lib.papers.config import PAPERS

# Each shared concept has one definition (rlvr_lib.papers.measures); a paper module that writes its own window,
# entropy scale or divergence limit fails here.
OWN_DEFINITIONS = {
    r"\.tail\(": "a tail window (measures.window / end_mean)",
    r"\.head\(": "an early window (measures.window / share)",
    r"\bTAIL_STEPS\b|\btail_steps\b": "a tail length (measures.TAIL_ROLLOUTS)",
    r"\bDIVERGENCE_ENTROPY_FACTOR\b": "the divergence limit (measures.ENTROPY_FACTOR)",
    r"\bLOG_FACTOR\b": "the stability band (measures.stable / measures.LOG_FACTOR)",
    r"\.iloc\[0\]": "a first-step value (measures.rollouts)",
    r"math\.log\(|np\.log\(": "a log scale of its own (measures: log_entropy_retained, log_peak_entropy_ratio)",
}


def own_definitions(source: str) -> list[str]:
    """'line N: <what>' for each place a module defines a shared concept itself."""
    found = []
    for n, line in enumerate(source.splitlines(), 1):
        code = line.split("#", 1)[0]
        for pattern, what in OWN_DEFINITIONS.items():
            if re.search(pattern, code):
                found.append(f"line {n}: {what}")
    return found


@pytest.mark.parametrize("name", [*PAPERS, "summary"])
def test_no_paper_module_computes_a_shared_concept_itself(name):
    source = (REPO / "rlvr_lib" / "papers" / f"{name}.py").read_text()
    assert own_definitions(source) == []


def test_a_planted_window_of_its_own_is_caught():
    planted = 'x = column(h, "entropy/mean").tail(5).mean()\nr = np.log(a / b)\n'
    assert len(own_definitions(planted)) == 2
