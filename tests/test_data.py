"""Benchmark and training-set loaders on the shared files (row counts and fields from PROVENANCE.md)."""

import os
from pathlib import Path

import pytest

from rlvr_lib.tasks import data
from rlvr_lib.tasks.data import (
    DEFAULT_TEMPLATE,
    dedupe,
    filter_by_level,
    filter_by_solution_length,
    format_prompt,
    load_benchmark,
    load_training_set,
)
from rlvr_lib.tasks.rewards import extract_boxed

SHARED = Path(os.environ.get("RLVR_DATA_ROOT") or Path(__file__).resolve().parents[1].parent / "shared" / "data")
pytestmark = pytest.mark.skipif(not (SHARED / "PROVENANCE.md").is_file(), reason=f"no shared data at {SHARED}")

BENCHMARK_ROWS = {
    "math500": 500,
    "aime24": 30,
    "aime25": 30,
    "amc23": 40,
    "minerva": 272,
    "olympiadbench": 675,
    "gsm8k": 1319,
}
# PROVENANCE.md counts minus rows without an answer: math_train 4 (886, 1009, 5328, 5330), math12k 2.
TRAINING_ROWS = {"math_train": 7470, "math12k": 11998, "dapo_math_17k": 17917, "gsm8k": 7473}


@pytest.mark.parametrize("name, rows", BENCHMARK_ROWS.items())
def test_benchmark_row_counts_and_fields(name, rows):
    loaded = load_benchmark(name, SHARED)
    assert len(loaded) == rows
    assert len({r["uid"] for r in loaded}) == rows
    for r in loaded:
        assert isinstance(r["problem"], str) and r["problem"].strip()
        assert isinstance(r["answer"], str) and r["answer"].strip()


@pytest.mark.parametrize("name, rows", TRAINING_ROWS.items())
def test_training_row_counts_and_fields(name, rows):
    loaded = load_training_set(name, SHARED)
    assert len(loaded) == rows
    assert all(isinstance(r["answer"], str) and r["answer"].strip() for r in loaded)


def test_field_mapping():
    assert load_benchmark("aime24", SHARED)[7]["answer"] == "025"  # leading zero kept
    aime25 = load_benchmark("aime25", SHARED)
    assert aime25[0]["answer"] == "70"
    assert not any("Please reason step by step" in r["problem"] for r in aime25)
    assert load_benchmark("amc23", SHARED)[0]["answer"] == "27"
    minerva = load_benchmark("minerva", SHARED)
    assert all(r["answer"] == extract_boxed(r["solution"]) for r in minerva)
    assert minerva[0]["answer"] == "1.6"
    olympiad = load_benchmark("olympiadbench", SHARED)[0]
    assert olympiad["problem"].startswith("Xenia and Sergey") and olympiad["answer"] == "2"
    gsm8k = load_benchmark("gsm8k", SHARED)
    assert gsm8k[0]["answer"] == "18"
    assert not any("," in r["answer"] or "#" in r["answer"] for r in gsm8k)
    math500 = load_benchmark("math500", SHARED)[0]
    assert math500["uid"] == "math500/test/precalculus/807.json" and math500["level"] == 2
    dapo = load_training_set("dapo_math_17k", SHARED)[0]
    assert dapo["answer"] == "34" and dapo["problem"].startswith("In triangle $ABC$")


def test_limit_keeps_the_first_rows():
    first40 = load_benchmark("minerva", SHARED, limit=40)
    assert first40 == load_benchmark("minerva", SHARED)[:40]
    with pytest.raises(ValueError, match="limit"):
        load_benchmark("minerva", SHARED, limit=0)


def test_data_root_from_environment(monkeypatch):
    monkeypatch.setenv(data.DATA_ROOT_ENV, str(SHARED))
    assert len(load_benchmark("aime24")) == 30
    monkeypatch.delenv(data.DATA_ROOT_ENV)
    assert data.resolve_data_root() == SHARED


def test_missing_file_names_path_and_remedy(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        load_benchmark("math500", tmp_path)
    message = str(err.value)
    assert str(tmp_path / "math500" / "test.jsonl") in message
    assert "RLVR_DATA_ROOT" in message and "data.root" in message


def test_unknown_names_list_valid_ones():
    with pytest.raises(ValueError, match="aime24.*math500"):
        load_benchmark("math5000", SHARED)
    with pytest.raises(ValueError, match="dapo_math_17k"):
        load_training_set("openr1", SHARED)


def test_format_prompt():
    prompt = format_prompt("What is $1+1$?")
    assert prompt.startswith("What is $1+1$?") and "\\boxed{}" in prompt and "step by step" in prompt
    assert format_prompt("Q", "Problem: {problem}\nAnswer:") == "Problem: Q\nAnswer:"
    assert "{problem}" in DEFAULT_TEMPLATE
    with pytest.raises(ValueError, match="template"):
        format_prompt("Q", "no placeholder")


def test_filter_by_level():
    rows = load_training_set("math_train", SHARED)
    kept = filter_by_level(rows)
    assert kept and all(r["level"] in (3, 4, 5) for r in kept)
    assert len(kept) == sum(r["level"] >= 3 for r in rows)
    with pytest.raises(ValueError, match="level"):
        filter_by_level(load_training_set("math12k", SHARED, limit=5))


class WordTokenizer:
    """Stand-in for an HF tokenizer: one token per whitespace-separated word."""

    def __call__(self, texts, add_special_tokens=True):
        return {"input_ids": [t.split() for t in texts]}


def test_filter_by_solution_length():
    rows = [{"problem": "p", "answer": "1", "solution": " ".join(["w"] * n)} for n in (5, 10, 11, 300)]
    kept = filter_by_solution_length(rows, WordTokenizer(), max_output_tokens=100, fraction=0.1)
    assert [len(r["solution"].split()) for r in kept] == [5, 10]
    gsm8k = load_training_set("gsm8k", SHARED, limit=50)
    assert 0 < len(filter_by_solution_length(gsm8k, WordTokenizer(), max_output_tokens=600)) < 50
    with pytest.raises(ValueError, match="solution"):
        filter_by_solution_length(
            load_training_set("math_train", SHARED, limit=3), WordTokenizer(), max_output_tokens=2048
        )
    with pytest.raises(ValueError, match="fraction"):
        filter_by_solution_length(rows, WordTokenizer(), max_output_tokens=100, fraction=0.0)


def test_dedupe():
    rows = [
        {"problem": "a  b", "answer": "1"},
        {"problem": "a b", "answer": "1"},
        {"problem": "c", "answer": "2"},
        {"problem": "c", "answer": "3"},
        {"problem": "d", "answer": "4"},
    ]
    assert dedupe(rows) == [rows[0], rows[4]]
    # PROVENANCE.md: 17,188 distinct problem texts, 12 of them with conflicting answers
    assert len(dedupe(load_training_set("dapo_math_17k", SHARED))) == 17188 - 12


# ----------------------------------------------------------------------------- paper training sets (issue 11)
def test_math_full_is_math_without_math500():
    rows = load_training_set("math_full", SHARED)
    assert len(rows) == 12000 - 4  # MATH train + test minus MATH-500; 4 train rows have no boxed answer
    math500 = {r["problem"] for r in load_benchmark("math500", SHARED)}
    assert not any(r["problem"] in math500 for r in rows)
    assert all(r["solution"] and r["answer"] for r in rows)
    # PROVENANCE.md: 8,888 at levels 3-5; the 4 answerless rows are levels 3 and 5
    assert len(filter_by_level(rows)) == 8888 - 4
    assert sum(r["level"] is None for r in rows) == 2  # "Level ?"


def test_deepscaler_present_parts():
    rows = load_training_set("deepscaler_present", SHARED)
    assert len(rows) == 7470 + 975
    assert rows[-1]["uid"].startswith("aime_1983_2023/") and len({r["uid"] for r in rows}) == len(rows)


def test_build_training_rows_reports_each_step():
    rows, steps = data.build_training_rows(
        "math_full",
        SHARED,
        levels=(3, 4, 5),
        max_solution_tokens=60,
        max_prompt_tokens=40,
        template="Q: {problem}",
        max_rows=100,
        tokenizer=WordTokenizer(),
    )
    assert list(steps) == ["loaded", "levels", "solution_length", "prompt_length", "max_rows"]
    assert (
        steps["loaded"]
        > steps["levels"]
        > steps["solution_length"]
        > steps["prompt_length"]
        >= steps["max_rows"]
        == 100
    )
    assert all(len(r["solution"].split()) <= 60 and len(r["prompt"].split()) <= 40 for r in rows)
    assert all(r["prompt"] == "Q: " + r["problem"] for r in rows)
    with pytest.raises(ValueError, match="tokenizer"):
        data.build_training_rows("math_full", SHARED, max_solution_tokens=60)


def test_contamination_exact_and_normalised():
    train = [{"problem": "Find $x$ if $2x = 4$."}, {"problem": "What is 1+1?"}]
    evaluation = [{"problem": " What is 1+1? "}, {"problem": "Find $x$ if $2x=4$ ."}, {"problem": "New one"}]
    assert data.contamination(train, evaluation) == {"n_eval": 3, "exact": 1, "normalised": 2}
    assert data.normalise_problem("A \\, B\\!c") == "abc"


def test_erpo_training_set_with_the_qwen_tokenizer():
    """ERPO's set (App. A.3): MATH levels 3-5, solutions <= 10% of 2,048 Qwen2.5 tokens (paper: 8,441 left)."""
    if not (SHARED / "tokenizers" / "qwen.tiktoken").is_file():
        pytest.skip("no qwen.tiktoken")
    rows, steps = data.build_training_rows(
        "math_full", SHARED, levels=(3, 4, 5), max_solution_tokens=204.8, tokenizer=data.length_tokenizer(None, SHARED)
    )
    assert steps == {"loaded": 11996, "levels": 8884, "solution_length": 4736}


def test_files_data_stage_reports_counts_and_contamination():
    from rlvr_lib.pipeline.stages import files_data
    from rlvr_lib.settings.config import DataConfig

    cfg = DataConfig(
        source="files",
        root=str(SHARED),
        train_set="dapo_math_17k",
        dedupe=True,
        benchmarks=["aime24", "minerva"],
        eval_limits={"minerva": 40},
        prompt_template="P: {problem}",
    )
    train, benchmarks, report = files_data(cfg)
    assert report["train_steps"] == {"loaded": 17917, "dedupe": 17176}
    assert len(train) == 17176 and train[0]["prompt"].startswith("P: ")
    assert {k: len(v) for k, v in benchmarks.items()} == {"aime24": 30, "minerva": 40}
    assert benchmarks["aime24"][0]["prompt"].startswith("P: ")
    contamination = report["contamination"]
    assert sorted(contamination) == sorted(data.BENCHMARKS)  # every benchmark present, not only evaluated ones
    assert contamination["minerva"]["n_eval"] == 40 and contamination["gsm8k"]["n_eval"] == 1319
    for counts in contamination.values():
        assert 0 <= counts["exact"] <= counts["normalised"] <= counts["n_eval"]
