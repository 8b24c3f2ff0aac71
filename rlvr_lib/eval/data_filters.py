"""The papers' training-set filters, as functions of problem records (dicts with ``prompt``, ``answer``, ...).

- ERPO (erpo.txt sec. 5.1, L257: "filtering problems with difficulty levels 3 to 5"; App. A.3, L377: "we filtered
  out samples where the reference solutions exceeded 10% of the maximum output length"): ``erpo_filter``, built
  on ``rlvr_lib.tasks.data``'s ``filter_by_level`` and ``filter_by_solution_length`` (the real-file filters).
- TEPO (tepo.txt sec. 4.1, L212: "we removed prompts whose sampled responses were all correct or all wrong,
  following (Yu et al., 2025)", DAPO's dynamic sampling): ``group_outcome_filter`` on the correctness of sampled
  groups (``sample_correctness``). The paper drops groups online, at every rollout of the current policy; the
  filter_data stage applies it once, offline, with the base policy.

Every filter returns the kept rows (input order) and the row count after each rule, and raises ValueError when no
row is left. The stage that writes ``data/filtered/<name>.jsonl``: ``rlvr_lib.pipeline.stages.stage_filter_data``; the
choices on the testbed: docs/assumptions.md, "Training-set filters".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from rlvr_lib.tasks import data

Row = dict[str, Any]
ERPO_PAPER_FRACTION = 0.1  # App. A.3: "10% of the maximum output length"


def require_rows(rows: list[Row], what: str) -> list[Row]:
    """``rows`` unchanged, or ValueError saying that ``what`` left no problem."""
    if not rows:
        raise ValueError(f"{what} leaves no training problem (data_filters in params.yaml)")
    return rows


def with_solutions(rows: list[Row], solutions: dict[str, str]) -> list[Row]:
    """Each row with ``solution`` = ``solutions[row["uid"]]`` (the testbed's records carry no reference solution;
    its generator's ``Problem.solution`` is one). A uid without a solution is an error."""
    missing = [r.get("uid") for r in rows if r.get("uid") not in solutions]
    if missing:
        raise ValueError(
            f"{len(missing)} of {len(rows)} training problems (e.g. uid {missing[0]!r}) have no reference solution: "
            "data/generated/train.jsonl does not match params.yaml's data settings; rerun `dvc repro data`"
        )
    return [{**r, "solution": solutions[r["uid"]]} for r in rows]


def erpo_filter(
    rows: list[Row], tokenizer, *, levels: Sequence[int], max_length: int, fraction: float
) -> tuple[list[Row], dict[str, int]]:
    """ERPO's training set: rows at ``levels`` whose ``solution`` has at most ``fraction * max_length`` tokens.

    ``tokenizer``: the policy's (any HF tokenizer; lengths without special tokens). Returns (kept rows, counts
    ``{"input", "levels", "solution_length"}``: rows left after each rule).
    """
    at_levels = require_rows(data.filter_by_level(rows, levels), f"ERPO's level rule (levels {list(levels)})")
    kept = data.filter_by_solution_length(at_levels, tokenizer, max_output_tokens=max_length, fraction=fraction)
    require_rows(
        kept, f"ERPO's solution-length rule (at most {fraction:g} x {max_length} = {fraction * max_length:g} tokens)"
    )
    return kept, {"input": len(rows), "levels": len(at_levels), "solution_length": len(kept)}


def kept_at_fractions(lengths: Sequence[int], max_length: int, fractions: Sequence[float]) -> dict[float, int]:
    """How many of ``lengths`` (solution tokens) fit ``fraction * max_length``, per fraction: the length rule's
    effect at other fractions than the one applied."""
    return {f: sum(n <= f * max_length for n in lengths) for f in fractions}


def group_outcome_filter(rows: list[Row], correct: Sequence[Sequence[bool]]) -> tuple[list[Row], dict[str, int]]:
    """DAPO's dynamic-sampling rule: keep the rows whose group of sampled responses holds both a correct and a
    wrong one. ``correct[i]``: the correctness of row i's G >= 2 responses. Returns (kept rows, counts
    ``{"input", "all_correct", "all_wrong", "kept"}``)."""
    if len(correct) != len(rows):
        raise ValueError(f"got {len(correct)} groups of outcomes for {len(rows)} rows: one group per row")
    short = [i for i, group in enumerate(correct) if len(group) < 2]
    if short:
        raise ValueError(f"group {short[0]} has {len(correct[short[0]])} response(s): a group needs at least 2")
    kept = [r for r, group in zip(rows, correct, strict=True) if any(group) and not all(group)]
    counts = {
        "input": len(rows),
        "all_correct": sum(all(group) for group in correct),
        "all_wrong": sum(not any(group) for group in correct),
        "kept": len(kept),
    }
    require_rows(kept, "TEPO's group rule (no all-correct or all-wrong group)")
    return kept, counts


def sample_correctness(
    model,
    tokenizer,
    rows: list[Row],
    *,
    n: int,
    temperature: float,
    top_p: float,
    max_new_tokens: int,
    batch_size: int,
    seed: int,
) -> list[list[bool]]:
    """(len(rows), n): whether each of ``n`` responses sampled for a row's ``prompt`` is graded correct against
    its ``answer`` (``rlvr_lib.tasks.rewards.grade``, the training reward's grader)."""
    from rlvr_lib.eval.sampling import sample_completions
    from rlvr_lib.tasks.rewards import grade

    samples = sample_completions(
        model,
        tokenizer,
        [r["prompt"] for r in rows],
        n,
        temperature=temperature,
        top_p=top_p,
        max_new_tokens=max_new_tokens,
        batch_size=batch_size,
        seed=seed,
        desc="sampling groups",
    )
    return [
        [grade(c.text, str(r["answer"])).correct > 0 for c in group] for r, group in zip(rows, samples, strict=True)
    ]


def count_by(rows: list[Row], key: Callable[[Row], Any]) -> dict[str, int]:
    """Rows per value of ``key(row)`` (as text), sorted by value."""
    counts = Counter(key(r) for r in rows)
    return {str(k): counts[k] for k in sorted(counts)}


# ----------------------------------------------------------------------------- report
def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    cells = [[f"{v:,}" if isinstance(v, int) else str(v) for v in row] for row in rows]
    return [f"| {' | '.join(header)} |", f"|{'---|' * len(header)}", *(f"| {' | '.join(c)} |" for c in cells)]


def _breakdown(title: str, before: dict[str, int], after: dict[str, int]) -> list[str]:
    return ["", *_table([title, "before", "kept"], [(k, v, after.get(k, 0)) for k, v in before.items()])]


def report_markdown(summary: dict[str, Any]) -> str:
    """reports/data_filters/README.md from the filter_data stage's summary
    (``rlvr_lib.pipeline.stages.stage_filter_data``)."""
    lines = [
        "# Training-set filters",
        "",
        "Produced by the `filter_data` stage (`dvc repro filter_data`; settings: params.yaml `data_filters`; code: "
        '`rlvr_lib/eval/data_filters.py`; the choices: docs/assumptions.md, "Training-set filters"). Input: '
        f"`data/generated/train.jsonl`, {summary['input']['rows']:,} problems. A run trains on a set with "
        "`train_data: <set>` in its `methods` entry.",
    ]
    erpo, tepo = summary["sets"].get("erpo"), summary["sets"].get("tepo")
    if erpo:
        s, c = erpo["settings"], erpo["counts"]
        lengths = erpo["solution_tokens"]
        lines += [
            "",
            f"## ERPO: levels and solution length -> `{erpo['file']}`",
            "",
            'erpo.txt sec. 5.1 (L257) "filtering problems with difficulty levels 3 to 5"; App. A.3 (L377) "we '
            'filtered out samples where the reference solutions exceeded 10% of the maximum output length" (the '
            "paper: 8,441 problems left).",
            "",
            *_table(
                ["rule", "problems left"],
                [
                    ("training set", c["input"]),
                    (f"levels {s['levels']}", c["levels"]),
                    (
                        f"reference solution <= {s['fraction']:g} x {s['max_length']} = {s['budget']:g} tokens",
                        c["solution_length"],
                    ),
                ],
            ),
            *_breakdown("level", erpo["by_level"]["input"], erpo["by_level"]["kept"]),
            "",
            f"The length rule at other fractions, on the {c['levels']:,} problems at these levels (their reference "
            f"solutions have {lengths['min']}-{lengths['max']} tokens, median {lengths['median']:g}):",
            "",
            *_table(
                ["fraction of max_length", "budget (tokens)", "problems left", "which"],
                [
                    (f"{r['fraction']:.3g}", f"{r['fraction'] * s['max_length']:g}", r["kept"], r["rule"])
                    for r in erpo["kept_at"]
                ],
            ),
        ]
    if tepo:
        s, c = tepo["settings"], tepo["counts"]
        lines += [
            "",
            f"## TEPO / DAPO: no all-correct or all-wrong group -> `{tepo['file']}`",
            "",
            'tepo.txt sec. 4.1 (L212) "we removed prompts whose sampled responses were all correct or all wrong, '
            'following (Yu et al., 2025)". The paper drops such groups online, from every rollout batch of the '
            "current policy; here the base policy samples each training prompt once, before training (the offline "
            f"analogue): {s['n']} responses per prompt, temperature {s['temperature']:g}, top-p {s['top_p']:g}, at "
            f"most {s['max_new_tokens']} tokens, seed {s['seed']}, graded by the training reward's grader.",
            "",
            *_table(
                ["rule", "problems"],
                [
                    ("training set", c["input"]),
                    ("all responses correct (dropped)", c["all_correct"]),
                    ("all responses wrong (dropped)", c["all_wrong"]),
                    ("kept", c["kept"]),
                ],
            ),
        ]
        for name, split in tepo["breakdowns"].items():
            lines += _breakdown(name, split["input"], split["kept"])
    if summary["not_built"]:
        lines += ["", f"Not built (data_filters.<set>.enabled is false): {', '.join(summary['not_built'])}."]
    return "\n".join(lines) + "\n"
