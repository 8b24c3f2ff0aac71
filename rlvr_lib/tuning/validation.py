"""The validation split of issue 41's tuning: testbed problems disjoint, by content, from every problem a policy
trains on (the RL training split, the base policies' SFT problems) and from the evaluation split.

Content, not uid: two problems are the same when their prompts are equal after ``normalise`` (case and whitespace
folded), so that a renamed or re-identified duplicate still counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rlvr_lib.settings.config import Params, deep_merge
from rlvr_lib.testbed.generator import make_splits, to_records, validation_split

VALIDATION_DIR = "data/validation"
VALIDATION_FILE = f"{VALIDATION_DIR}/validation.jsonl"
FILES_SOURCE = (
    "params.yaml data.source is 'files': there is no validation split, since only the testbed's generator draws "
    "problems disjoint from training and evaluation, and a slice of the real training file would change the training "
    "set every committed run read; tuning runs with data.source: testbed"
)
VALIDATION_SET = "validation"  # the set's name in the tuning evaluations (reports/tuning/<arm>/<k>/seed<N>/)


def normalise(prompt: str) -> str:
    """A prompt's content: lower case, runs of whitespace as one space, no leading or trailing space."""
    return " ".join(prompt.lower().split())


def validation_size(raw: Mapping[str, Any]) -> int:
    """params.yaml ``tuning.validation.n`` (the smoke profile's when it is selected)."""
    if raw.get("profile") == "smoke":  # as space.selected_profile (not imported: this stage needs no method)
        raw = deep_merge(dict(raw), raw.get("smoke") or {})
    n = ((raw.get("tuning") or {}).get("validation") or {}).get("n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"params.yaml tuning.validation.n must be a positive integer (validation problems), got {n!r}")
    return n


def sft_prompts(params: Params) -> set[str]:
    """The prompts of the base policies' SFT problems (the same for every training seed: the task seed draws them)."""
    cfg = params.testbed_build(params.all_seeds[0])
    train, _ = make_splits(cfg.n_train, cfg.n_eval, cfg.seed, cfg.levels, cfg.task)
    return {p.prompt for p in train}


def overlaps(validation: Iterable[Mapping[str, Any]], others: Mapping[str, Iterable[Mapping[str, Any]]]) -> list[str]:
    """'<set>: <prompt>' for every validation problem whose content is a problem of one of ``others`` (set name ->
    rows with a ``prompt``); empty when the split is disjoint."""
    mine = {normalise(r["prompt"]): r["prompt"] for r in validation}
    found = []
    for name, rows in others.items():
        found += [f"{name}: {mine[key]!r}" for key in sorted({normalise(r["prompt"]) for r in rows} & set(mine))]
    return found


def validation_records(params: Params, n: int, others: Mapping[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """``n`` testbed validation rows, levels mixed evenly, none sharing content with ``others`` (set name -> rows:
    the data stage's training and evaluation sets, the SFT problems): the generator skips their prompts, and the
    drawn rows are then checked by content (``overlaps``)."""
    if params.data.source != "testbed":
        raise ValueError(FILES_SOURCE)
    tb = params.data.testbed
    exclude = {r["prompt"] for rows in others.values() for r in rows}
    rows = to_records(validation_split(n, params.testbed_seed, tuple(tb.levels), tb.task, exclude))
    found = overlaps(rows, others)
    if found:
        raise ValueError(
            f"validation split: {len(found)} problem(s) share their content with another split: {found[:5]}"
        )
    return rows
