"""CW-GRPO's claims (rlvr_lib/papers/cw_grpo.py): every quote verbatim in cw_grpo.txt, and the conjunctive claims'
parts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rlvr_lib.config import load_params
from rlvr_lib.papers import quotes
from rlvr_lib.papers.cw_grpo import Paper

REPO = Path(__file__).resolve().parents[1]
PAPER_TEXT = REPO / Paper.source  # ../shared/papers/cw_grpo.txt
WHOLES = {  # conjunctive claim: its parts, as cw_grpo.txt's sentences join them
    "heavy_tail": {"heavy_tail_share", "heavy_tail_entropy"},
    "entropy": {"entropy_reasonable", "entropy_grpo_unstable"},
    "checkpoints": {"grpo_degrades", "cw_consistent_cw_grpo_1update_135steps", "cw_consistent_cw_grpo_1update"},
}


@pytest.fixture(scope="module")
def claims():
    paper = Paper(load_params(REPO / "params.yaml", check_methods=False))
    return [claim for claim, _ in paper._claims]


def paper_text() -> str:
    if not PAPER_TEXT.is_file():
        pytest.skip(f"the paper's text is not here: {PAPER_TEXT}")
    return PAPER_TEXT.read_text(encoding="utf-8")


def test_every_quote_is_verbatim_in_the_paper(claims):
    text = paper_text()
    assert {c.key: quotes.find_quote(c.quote, text) for c in claims if quotes.find_quote(c.quote, text)} == {}


def test_a_planted_stitched_quote_is_caught(claims):
    text = paper_text()
    planted = dataclasses.replace(
        claims[0], quote=r"GRPO \+ Gaussian Reweight \(ours\) ... 55\.3 ... Clip\-Cov ... 53\.6"
    )
    assert quotes.find_quote(planted.quote, text) != []  # the old table-cell stitch: Clip-Cov's 53.6 comes first
    unescaped = claims[0].quote.replace("\\-", "-")  # Markdown's escapes are not the paper's words: either matches
    assert quotes.find_quote(unescaped, text) == []


def test_conjunctive_claims_are_judged_whole_from_their_parts(claims):
    parts: dict[str, set[str]] = {}
    for c in claims:
        if c.parent is not None:
            parts.setdefault(c.parent, set()).add(c.key)
    assert parts == WHOLES
    assert {c.key for c in claims if c.direction is None} == set(WHOLES)
    assert len({c.key for c in claims}) == len(claims)


def test_sized_and_band_claims(claims):
    by_key = {c.key: c for c in claims}
    drop = by_key["grpo_degrades"]  # 85.0 -> 79.8: tested on that size
    assert (drop.direction, drop.reference, drop.paper_effect) == ("equal", -0.052, -0.052)
    band = by_key["entropy_reasonable"]  # a diverging run (entropy x2 or more) falls outside the band
    assert band.direction == "equal" and band.reference + band.margin == pytest.approx(2.0)
