"""JSON-lines files of problems: read with errors that name the file, the line and the field.

A problem's ``prompt`` must be text and its ``answer`` a gold answer the grader can score
(``rlvr_lib.tasks.rewards.gold_answer_error``): a problem nobody can solve would silently score 0 in training and
evaluation. A stage that knows its model adds a prompt-length check (``prompt_fits``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

PROBLEM_FIELDS = ("prompt", "answer")
RowCheck = Callable[[dict[str, Any]], str | None]  # what is wrong with a row (naming the field), or None


def read_jsonl(
    path: str | Path, required: Iterable[str] = (), *, hint: str = "", check: RowCheck | None = None
) -> list[dict[str, Any]]:
    """Rows of a .jsonl file; each must be a JSON object holding ``required`` fields and pass ``check``.

    Errors name the file and the 1-based line: a truncated or malformed line, a row that is not an object, a
    missing or empty field, what ``check`` finds wrong, bytes that are not UTF-8. ``hint`` (e.g. "run `dvc repro
    data`") is added when the file is missing.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} not found" + (f": {hint}" if hint else ""))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    required = tuple(required)
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not valid JSON ({err.msg} at column {err.colno})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
        for name in required:
            if name not in row:
                raise ValueError(f"{path}:{number}: row lacks field '{name}' (fields: {sorted(row)})")
            if row[name] is None or (isinstance(row[name], str) and not row[name].strip()):
                raise ValueError(f"{path}:{number}: field '{name}' is empty")
        if check is not None and (problem := check(row)) is not None:
            raise ValueError(f"{path}:{number}: {problem}")
        rows.append(row)
    return rows


def problem_error(row: dict[str, Any]) -> str | None:
    """What is wrong with a problem's ``prompt`` or ``answer`` (naming the field), or None."""
    from rlvr_lib.tasks.rewards import gold_answer_error  # math-verify: imported only where problems are read

    if not isinstance(row["prompt"], str):
        return f"field 'prompt' must be a string, got {type(row['prompt']).__name__}"
    why = gold_answer_error(row["answer"])
    return None if why is None else f"field 'answer' {why}"


def check_problems(rows: Iterable[dict[str, Any]], where: str) -> None:
    """``problem_error`` of rows not read from a file (the data stage's); errors name ``where`` and the row's uid."""
    for i, row in enumerate(rows, start=1):
        if (problem := problem_error(row)) is not None:
            raise ValueError(f"{where}, problem {row.get('uid', i)}: {problem}")


def prompt_fits(model_path: str, max_new_tokens: int, setting: str) -> RowCheck | None:
    """A row check: the prompt's tokens (the model's tokenizer) and ``max_new_tokens`` (params key ``setting``) fit
    the model's context (``max_position_embeddings``; None for a model without one)."""
    from transformers import AutoConfig, AutoTokenizer

    context = getattr(AutoConfig.from_pretrained(model_path), "max_position_embeddings", None)
    if context is None:
        return None
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    budget = context - max_new_tokens

    def check(row: dict[str, Any]) -> str | None:
        n = len(tokenizer(row["prompt"], add_special_tokens=False)["input_ids"])
        if n <= budget:
            return None
        return (
            f"field 'prompt' has {n} tokens; with {setting} = {max_new_tokens} the model's context of {context} "
            f"positions ({model_path}) leaves room for {max(budget, 0)} (drop long prompts with "
            f"data.max_prompt_tokens, or lower {setting})"
        )

    return check


def read_problems(path: str | Path, *, hint: str = "", check: RowCheck | None = None) -> list[dict[str, Any]]:
    """Problems of a .jsonl file, each checked by ``problem_error`` and ``check``; an empty file is an error."""

    def problem_and_check(row: dict[str, Any]) -> str | None:
        return problem_error(row) or (check(row) if check else None)

    rows = read_jsonl(path, PROBLEM_FIELDS, hint=hint, check=problem_and_check)
    if not rows:
        raise ValueError(f"{path}: no problems in the file" + (f" ({hint})" if hint else ""))
    return rows
