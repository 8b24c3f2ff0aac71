"""JSON-lines files of problems: read with errors that name the file, the line and the field."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

PROBLEM_FIELDS = ("prompt", "answer")


def read_jsonl(path: str | Path, required: Iterable[str] = (), *, hint: str = "") -> list[dict[str, Any]]:
    """Rows of a .jsonl file; each must be a JSON object holding ``required`` fields.

    Errors name the file and the 1-based line: a truncated or malformed line, a row that is not an object, a
    missing or empty field, bytes that are not UTF-8. ``hint`` (e.g. "run `dvc repro data`") is added when the
    file is missing.
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
        rows.append(row)
    return rows


def read_problems(path: str | Path, *, hint: str = "") -> list[dict[str, Any]]:
    """Problems (``prompt`` and ``answer`` in every row) of a .jsonl file; an empty file is an error."""
    rows = read_jsonl(path, PROBLEM_FIELDS, hint=hint)
    if not rows:
        raise ValueError(f"{path}: no problems in the file" + (f" ({hint})" if hint else ""))
    return rows
