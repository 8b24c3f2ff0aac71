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

from rlvr_lib.tasks.records import read_jsonl
from rlvr_lib.tasks.rewards import extract_boxed

log = logging.getLogger(__name__)

DATA_ROOT_ENV = "RLVR_DATA_ROOT"
_REPO_ROOT = Path(__file__).resolve().parents[2]
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
    return {
        "uid": f"math500/{r['unique_id']}",
        "problem": r["problem"],
        "answer": r["answer"],
        "solution": r["solution"],
        "level": int(r["level"]),
        "subject": r["subject"],
    }


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
    return {
        "uid": f"minerva/{r['idx']}",
        "problem": r["problem"],
        "answer": answer,
        "solution": r["solution"],
        "subject": r["type"],
    }


def _olympiadbench(i: int, r: dict) -> Row:
    return {
        "uid": f"olympiadbench/{r['id']}",
        "problem": r["question"],
        "answer": r["final_answer"][0],
        "solution": r["solution"][0],
        "subject": r["subfield"],
        "answer_type": r["answer_type"],
        "unit": r["unit"],
        "is_multiple_answer": bool(r["is_multiple_answer"]),
    }


def _gsm8k(split: str) -> RowParser:
    def parse(i: int, r: dict) -> Row:
        answer, solution = _gsm8k_answer(r["answer"])
        return {"uid": f"gsm8k_{split}/{i}", "problem": r["question"], "answer": answer, "solution": solution}

    return parse


def _math_train(i: int, r: dict) -> Row | None:
    if r["answer"] is None or not str(r["answer"]).strip():  # rows 886, 1009, 5328, 5330 have no answer
        return None
    return {
        "uid": f"math_train/{i}",
        "problem": r["problem"],
        "answer": r["answer"],
        "level": int(r["difficulty"]),
        "subject": r["type"],
    }


def _math12k(i: int, r: dict) -> Row | None:
    if not str(r["answer"]).strip():  # rows 1165 and 8125 have no answer
        return None
    return {"uid": f"math12k/{i}", "problem": r["problem"], "answer": str(r["answer"])}


def _math_hendrycks(split: str) -> RowParser:
    """MATH with worked solutions; rows without a boxed answer are skipped (train: algebra/24014, algebra/25040,
    number_theory/7115, number_theory/7117); "Level ?" (train: geometry/377, geometry/471) becomes level None."""

    def parse(i: int, r: dict) -> Row | None:
        if r["answer"] is None or not str(r["answer"]).strip():
            return None
        level = int(r["level"][-1]) if r["level"][-1].isdigit() else None
        return {
            "uid": f"math_{split}/{r['id']}",
            "problem": r["problem"],
            "answer": str(r["answer"]),
            "solution": r["solution"],
            "level": level,
            "subject": r["type"],
        }

    return parse


def _aime_1983_2023(i: int, r: dict) -> Row:
    return {
        "uid": f"aime_1983_2023/{r['year']}-{r['problem_number']}-{i}",
        "problem": r["problem"],
        "answer": _number_text(r["answer"]),
        "solution": r["solution"],
    }


def _dapo_math_17k(i: int, r: dict) -> Row:
    return {
        "uid": f"dapo_math_17k/{i}",
        "problem": r["prompt"][0]["content"],
        "answer": str(r["reward_model"]["ground_truth"]),
    }


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
# Files that are parts of a training set assembled by ``load_training_set`` (not loadable alone by name).
_PARTS: dict[str, tuple[str, RowParser]] = {
    "math_hendrycks_train": ("math_hendrycks/train.jsonl", _math_hendrycks("train")),
    "math_hendrycks_test": ("math_hendrycks/test.jsonl", _math_hendrycks("test")),
    "aime_1983_2023": ("aime_1983_2023/aime.json", _aime_1983_2023),
}


def _math_full(data_root) -> list[Row]:
    """MATH train + test with worked solutions, minus the 500 MATH-500 test problems (ERPO's source; 12,000 rows
    before the level filter; at levels 3-5: 8,888, PROVENANCE.md)."""
    math500 = {
        r["uid"].removeprefix("math500/test/").removesuffix(".json") for r in load_benchmark("math500", data_root)
    }
    train = _load("training set part", _PARTS, "math_hendrycks_train", data_root, None)
    test = [
        r
        for r in _load("training set part", _PARTS, "math_hendrycks_test", data_root, None)
        if r["uid"].removeprefix("math_test/") not in math500
    ]
    return train + test


def _deepscaler_present(data_root) -> list[Row]:
    """The parts of the DeepScaleR training mix present in shared/data: its MATH train file and AIME 1983-2023
    (AMC, Omni-MATH and STILL are absent)."""
    return load_training_set("math_train", data_root) + _load(
        "training set part", _PARTS, "aime_1983_2023", data_root, None
    )


# Training sets assembled from several files: name -> loader(data_root).
COMPOSITE_SETS: dict[str, Callable[[Any], list[Row]]] = {
    "math_full": _math_full,
    "deepscaler_present": _deepscaler_present,
}


# ----------------------------------------------------------------------------- public loaders
def load_benchmark(name: str, data_root: str | os.PathLike | None = None, *, limit: int | None = None) -> list[Row]:
    """Rows of evaluation set ``name`` (one of ``BENCHMARKS``); ``limit`` keeps the first N (e.g. Minerva 40)."""
    return _load("benchmark", BENCHMARKS, name, data_root, limit)


def load_training_set(name: str, data_root: str | os.PathLike | None = None, *, limit: int | None = None) -> list[Row]:
    """Rows of training set ``name`` (one of ``TRAINING_SETS`` or ``COMPOSITE_SETS``); ``math_train`` and
    ``math_full`` rows carry ``level``, ``math_full`` rows a worked ``solution``."""
    if name in COMPOSITE_SETS:
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be a positive integer or None, got {limit!r}")
        rows = COMPOSITE_SETS[name](data_root)
        return rows[:limit] if limit is not None else rows
    if name not in TRAINING_SETS:
        raise ValueError(
            f"unknown training set name {name!r}; valid names: {', '.join(sorted([*TRAINING_SETS, *COMPOSITE_SETS]))}"
        )
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
    _require_key(rows, "level", "only math_train, math_full and math500 carry MATH levels")
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
    _require_key(rows, key, "training sets with reference solutions: math_full, gsm8k")
    budget = fraction * max_output_tokens
    return [r for r, n in zip(rows, token_lengths(tokenizer, [r[key] for r in rows]), strict=False) if n <= budget]


def token_lengths(tokenizer, texts: list[str]) -> list[int]:
    """Token count of each text, without special tokens."""
    if not texts:
        return []
    return [len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]


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


def filter_by_prompt_length(rows: list[Row], tokenizer, *, max_tokens: int, key: str = "prompt") -> list[Row]:
    """Rows whose formatted ``prompt`` has at most ``max_tokens`` tokens (verl's overlong-prompt filter)."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    _require_key(rows, key, "format the prompts first")
    return [r for r, n in zip(rows, token_lengths(tokenizer, [r[key] for r in rows]), strict=False) if n <= max_tokens]


# ----------------------------------------------------------------------------- contamination
def normalise_problem(text: str) -> str:
    """Problem text for a loose match: NFKC, lower case, only letters and digits kept (so spacing, ``$``,
    punctuation and LaTeX spacing commands such as ``\\,`` or ``\\!`` do not hide a copy)."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"\\[,;:! ]", "", text)
    return "".join(ch for ch in text if ch.isalnum())


def contamination(train: list[Row], evaluation: list[Row]) -> dict[str, int]:
    """How many evaluation problems also occur in the training rows.

    ``exact``: identical problem text (outer whitespace stripped); ``normalised``: identical after
    ``normalise_problem`` (includes the exact ones). Counts are of evaluation problems, out of ``n_eval``.
    """
    exact_train = {r["problem"].strip() for r in train}
    norm_train = {normalise_problem(r["problem"]) for r in train}
    exact = sum(r["problem"].strip() in exact_train for r in evaluation)
    normalised = sum(normalise_problem(r["problem"]) in norm_train for r in evaluation)
    return {"n_eval": len(evaluation), "exact": exact, "normalised": normalised}


# ----------------------------------------------------------------------------- a paper's training set
def length_tokenizer(name: str | None, data_root=None):
    """Tokenizer for the length filters: a folder or hub id, or (None) Qwen2.5's built from
    ``<data root>/tokenizers/qwen.tiktoken`` (the tokenizer of every Qwen2.5 model the papers train)."""
    if name is not None:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(name)
    from transformers import PreTrainedTokenizerFast

    from rlvr_lib.tasks.qwen_tokenizer import build_tokenizer

    return PreTrainedTokenizerFast(
        tokenizer_object=build_tokenizer(resolve_data_root(data_root) / "tokenizers" / "qwen.tiktoken")
    )


def build_training_rows(
    train_set: str,
    data_root=None,
    *,
    levels: Iterable[int] | None = None,
    dedupe_problems: bool = False,
    max_solution_tokens: float | None = None,
    max_prompt_tokens: int | None = None,
    template: str = DEFAULT_TEMPLATE,
    max_rows: int | None = None,
    tokenizer=None,
) -> tuple[list[Row], dict[str, int]]:
    """A paper's training set: load, keep ``levels``, deduplicate, drop long reference solutions and long
    prompts, format prompts, keep the first ``max_rows``. Returns the rows (with ``prompt``) and the row count
    after each step (``loaded``, ``levels``, ``dedupe``, ``solution_length``, ``prompt_length``, ``max_rows``;
    a step that is off is absent). ``tokenizer`` is needed only by the two length filters."""
    rows = load_training_set(train_set, data_root)
    counts = {"loaded": len(rows)}
    if levels is not None:
        rows = filter_by_level(rows, tuple(levels))
        counts["levels"] = len(rows)
    if dedupe_problems:
        rows = dedupe(rows)
        counts["dedupe"] = len(rows)
    if (max_solution_tokens is not None or max_prompt_tokens is not None) and tokenizer is None:
        raise ValueError("the solution/prompt length filters need a tokenizer")
    if max_solution_tokens is not None:
        _require_key(rows, "solution", "training sets with reference solutions: math_full, gsm8k")
        rows = [
            r
            for r, n in zip(rows, token_lengths(tokenizer, [r["solution"] for r in rows]), strict=True)
            if n <= max_solution_tokens
        ]
        counts["solution_length"] = len(rows)
    rows = [{**r, "prompt": format_prompt(r["problem"], template)} for r in rows]
    if max_prompt_tokens is not None:
        rows = filter_by_prompt_length(rows, tokenizer, max_tokens=max_prompt_tokens)
        counts["prompt_length"] = len(rows)
    if max_rows is not None:
        rows = rows[:max_rows]
        counts["max_rows"] = len(rows)
    return rows, counts
