"""Math benchmarks and training sets, loaded by path from the shared data directory (never copied).

Every loader returns ``list[dict]`` rows with at least ``uid`` (str, ``"<name>/<id>"``), ``problem`` (str, the
bare problem text) and ``answer`` (str, the gold final answer), plus per-set extras (``level``, ``subject``,
``solution`` ...). Field choices follow ``shared/data/PROVENANCE.md``. Turn a row into a model prompt with
``format_prompt(row["problem"])``.
"""
from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from .records import read_jsonl
from .rewards import extract_boxed

log = logging.getLogger(__name__)

DATA_ROOT_ENV = "RLVR_DATA_ROOT"
_REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TEMPLATE = "{problem}\nPlease reason step by step, and put your final answer within \\boxed{}."
_AIME25_SUFFIX = "\nPlease reason step by step, and put your final answer within \\boxed{}."

Row = dict[str, Any]
RowParser = Callable[[int, dict], Row]


# ----------------------------------------------------------------------------- paths and files
def resolve_data_root(data_root: str | os.PathLike | None = None) -> Path:
    """``data_root`` if given, else ``$RLVR_DATA_ROOT``, else ``<repo>/../shared/data``."""
    if data_root is not None:
        return Path(data_root)
    if os.environ.get(DATA_ROOT_ENV):
        return Path(os.environ[DATA_ROOT_ENV])
    return _REPO_ROOT.parent / "shared" / "data"


def _read_records(path: Path) -> list[dict]:
    """Records of a .jsonl, .json (list) or .parquet file."""
    if path.suffix == ".jsonl":
        return read_jsonl(path)
    if path.suffix == ".json":
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ValueError(f"{path}: not a readable JSON file ({err})") from None
    if path.suffix == ".parquet":
        return pd.read_parquet(path).to_dict(orient="records")
    raise ValueError(f"path: unsupported file type {path.suffix!r} ({path})")


def _load(kind: str, table: dict[str, tuple[str, RowParser]], name: str, data_root, limit: int | None) -> list[Row]:
    if name not in table:
        raise ValueError(f"unknown {kind} name {name!r}; valid names: {', '.join(sorted(table))}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be a positive integer or None, got {limit!r}")
    root = resolve_data_root(data_root)
    rel_path, parse_row = table[name]
    path = root / rel_path
    if not path.is_file():
        raise FileNotFoundError(
            f"{kind} {name!r}: file not found: {path}. Point the loader at the shared math data directory "
            f"(the one holding PROVENANCE.md) by setting the environment variable {DATA_ROOT_ENV} or the "
            f"params entry data.root (data root in use: {root})."
        )
    records = _read_records(path)
    rows = [row for i, rec in enumerate(records) if (row := parse_row(i, rec)) is not None]
    return rows[:limit] if limit is not None else rows


def _number_text(x: Any) -> str:
    """Answer as text: 27.0 -> '27', 70 -> '70', strings unchanged."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _gsm8k_answer(text: str) -> tuple[str, str]:
    """(final answer with commas removed, worked solution) of a GSM8K ``answer`` field."""
    solution, _, final = text.rpartition("#### ")
    return final.strip().replace(",", ""), solution.strip()


# ----------------------------------------------------------------------------- row parsers
def _math500(i: int, r: dict) -> Row:
    return {"uid": f"math500/{r['unique_id']}", "problem": r["problem"], "answer": r["answer"],
            "solution": r["solution"], "level": int(r["level"]), "subject": r["subject"]}


def _aime24(i: int, r: dict) -> Row:
    return {"uid": f"aime24/{r['id']}", "problem": r["problem"], "answer": r["answer"], "solution": r["solution"]}


def _aime25(i: int, r: dict) -> Row:
    prompt = r["prompt"]
    if not prompt.endswith(_AIME25_SUFFIX):
        raise ValueError(f"aime25 row {i}: prompt lacks the expected instruction suffix")
    return {"uid": f"aime25/{i}", "problem": prompt[: -len(_AIME25_SUFFIX)], "answer": _number_text(r["answer"])}


def _amc23(i: int, r: dict) -> Row:
    return {"uid": f"amc23/{r['id']}", "problem": r["problem"], "answer": _number_text(r["answer"])}


def _minerva(i: int, r: dict) -> Row:
    answer = extract_boxed(r["solution"])
    if answer is None:
        raise ValueError(f"minerva row {i}: no \\boxed{{}} answer in solution")
    return {"uid": f"minerva/{r['idx']}", "problem": r["problem"], "answer": answer,
            "solution": r["solution"], "subject": r["type"]}


def _olympiadbench(i: int, r: dict) -> Row:
    return {"uid": f"olympiadbench/{r['id']}", "problem": r["question"], "answer": r["final_answer"][0],
            "solution": r["solution"][0], "subject": r["subfield"], "answer_type": r["answer_type"],
            "unit": r["unit"], "is_multiple_answer": bool(r["is_multiple_answer"])}


def _gsm8k(split: str) -> RowParser:
    def parse(i: int, r: dict) -> Row:
        answer, solution = _gsm8k_answer(r["answer"])
        return {"uid": f"gsm8k_{split}/{i}", "problem": r["question"], "answer": answer, "solution": solution}
    return parse


def _math_train(i: int, r: dict) -> Row | None:
    if r["answer"] is None or not str(r["answer"]).strip():  # rows 886, 1009, 5328, 5330 have no answer
        return None
    return {"uid": f"math_train/{i}", "problem": r["problem"], "answer": r["answer"],
            "level": int(r["difficulty"]), "subject": r["type"]}


def _math12k(i: int, r: dict) -> Row | None:
    if not str(r["answer"]).strip():  # rows 1165 and 8125 have no answer
        return None
    return {"uid": f"math12k/{i}", "problem": r["problem"], "answer": str(r["answer"])}


def _dapo_math_17k(i: int, r: dict) -> Row:
    return {"uid": f"dapo_math_17k/{i}", "problem": r["prompt"][0]["content"],
            "answer": str(r["reward_model"]["ground_truth"])}


BENCHMARKS: dict[str, tuple[str, RowParser]] = {
    "math500": ("math500/test.jsonl", _math500),
    "aime24": ("aime24/test.jsonl", _aime24),
    "aime25": ("aime25/aime25.jsonl", _aime25),
    "amc23": ("amc23/test.jsonl", _amc23),
    "minerva": ("minerva_math/test.jsonl", _minerva),
    "olympiadbench": ("olympiadbench/test.jsonl", _olympiadbench),
    "gsm8k": ("gsm8k/test.jsonl", _gsm8k("test")),
}
TRAINING_SETS: dict[str, tuple[str, RowParser]] = {
    "math_train": ("math_train/deepscaler_math_train.json", _math_train),
    "math12k": ("math12k/train.parquet", _math12k),
    "dapo_math_17k": ("dapo_math_17k/dapo_math_17k.parquet", _dapo_math_17k),
    "gsm8k": ("gsm8k/train.jsonl", _gsm8k("train")),
}


# ----------------------------------------------------------------------------- public loaders
def load_benchmark(name: str, data_root: str | os.PathLike | None = None, *, limit: int | None = None) -> list[Row]:
    """Rows of evaluation set ``name`` (one of ``BENCHMARKS``); ``limit`` keeps the first N (e.g. Minerva 40)."""
    return _load("benchmark", BENCHMARKS, name, data_root, limit)


def load_training_set(name: str, data_root: str | os.PathLike | None = None, *, limit: int | None = None) -> list[Row]:
    """Rows of training set ``name`` (one of ``TRAINING_SETS``); ``math_train`` rows carry ``level`` (0-5)."""
    return _load("training set", TRAINING_SETS, name, data_root, limit)


def format_prompt(problem: str, template: str = DEFAULT_TEMPLATE) -> str:
    """``template`` with ``{problem}`` replaced (plain replacement, so ``\\boxed{}`` needs no escaping)."""
    if "{problem}" not in template:
        raise ValueError("template must contain the placeholder '{problem}'")
    return template.replace("{problem}", problem)


# ----------------------------------------------------------------------------- filters
def _require_key(rows: list[Row], key: str, hint: str) -> None:
    missing = sum(key not in r for r in rows)
    if missing:
        raise ValueError(f"{missing} of {len(rows)} rows have no {key!r} field ({hint})")


def filter_by_level(rows: list[Row], levels: Iterable[int] = (3, 4, 5)) -> list[Row]:
    """Rows whose MATH ``level`` is in ``levels`` (ERPO trains on levels 3-5)."""
    _require_key(rows, "level", "only math_train and math500 carry MATH levels")
    keep = set(levels)
    return [r for r in rows if r["level"] in keep]


def filter_by_solution_length(
    rows: list[Row], tokenizer, *, max_output_tokens: int, fraction: float = 0.1, key: str = "solution"
) -> list[Row]:
    """Rows whose reference solution has at most ``fraction * max_output_tokens`` tokens (ERPO: 10% of 2048).

    ``tokenizer`` is any HF tokenizer; lengths are counted without special tokens.
    """
    if max_output_tokens < 1:
        raise ValueError(f"max_output_tokens must be >= 1, got {max_output_tokens}")
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    _require_key(rows, key, "none of the shared training files carries reference solutions except gsm8k")
    if not rows:
        return []
    lengths = [len(ids) for ids in tokenizer([r[key] for r in rows], add_special_tokens=False)["input_ids"]]
    budget = fraction * max_output_tokens
    return [r for r, n in zip(rows, lengths) if n <= budget]


def dedupe(rows: list[Row], key: str = "problem") -> list[Row]:
    """First row of each distinct ``key`` text (whitespace-normalised), in input order.

    Texts that repeat with different ``answer`` values are ambiguous and dropped altogether (logged).
    """
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(re.sub(r"\s+", " ", r[key]).strip(), []).append(r)
    conflicting = {k for k, g in groups.items() if len({str(r["answer"]).strip() for r in g}) > 1}
    if conflicting:
        log.info("dedupe: dropped %d %s texts that repeat with different answers", len(conflicting), key)
    return [g[0] for k, g in groups.items() if k not in conflicting]
