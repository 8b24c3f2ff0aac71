"""The papers' training-set filters (rlvr_lib.eval.data_filters) and the filter_data stage, on hand-made records."""

import json

import pytest
import yaml
from tiny import save_tiny, tiny_model, tiny_tokenizer

from rlvr_lib.eval import data_filters as filters
from rlvr_lib.pipeline import stages
from rlvr_lib.testbed import make_splits, to_records
from rlvr_lib.workspace import layout


def words(texts, add_special_tokens=False):
    """A stand-in tokenizer: one token per space-separated word."""
    return {"input_ids": [text.split() for text in texts]}


ROWS = [  # solution lengths in words: 2, 4, 6, 8, 10
    {"uid": f"u{level}", "prompt": f"p{level}", "answer": "1", "level": level, "solution": " ".join(["w"] * 2 * level)}
    for level in (1, 2, 3, 4, 5)
]


def test_erpo_filter_keeps_the_levels_then_the_short_solutions():
    kept, counts = filters.erpo_filter(ROWS, words, levels=[3, 4, 5], max_length=80, fraction=0.1)  # budget 8 words
    assert [r["uid"] for r in kept] == ["u3", "u4"]
    assert counts == {"input": 5, "levels": 3, "solution_length": 2}


def test_erpo_filter_can_keep_everything():
    kept, counts = filters.erpo_filter(ROWS, words, levels=[1, 2, 3, 4, 5], max_length=10, fraction=1.0)
    assert kept == ROWS and counts == {"input": 5, "levels": 5, "solution_length": 5}


@pytest.mark.parametrize(
    "levels,fraction,message",
    [
        ([6], 0.1, r"ERPO's level rule \(levels \[6\]\) leaves no training problem"),
        ([4, 5], 0.05, r"ERPO's solution-length rule \(at most 0.05 x 80 = 4 tokens\) leaves no training problem"),
    ],
)
def test_erpo_filter_that_keeps_nothing_says_which_rule(levels, fraction, message):
    with pytest.raises(ValueError, match=message):
        filters.erpo_filter(ROWS, words, levels=levels, max_length=80, fraction=fraction)


def test_erpo_filter_needs_levels_and_solutions():
    with pytest.raises(ValueError, match="have no 'solution' field"):
        filters.erpo_filter(
            [{k: v for k, v in r.items() if k != "solution"} for r in ROWS],
            words,
            levels=[5],
            max_length=80,
            fraction=1.0,
        )
    with pytest.raises(ValueError, match="have no 'level' field"):
        filters.erpo_filter([{"prompt": "p", "answer": "1"}], words, levels=[5], max_length=80, fraction=1.0)


def test_kept_at_fractions_counts_the_length_rule_at_each_fraction():
    assert filters.kept_at_fractions([2, 4, 6], 10, [0.1, 0.4, 0.6]) == {0.1: 0, 0.4: 2, 0.6: 3}


def test_with_solutions_attaches_by_uid_and_refuses_unknown_problems():
    rows = [{"uid": "a", "prompt": "p", "answer": "1"}]
    assert filters.with_solutions(rows, {"a": " 1. \\boxed{1}"})[0]["solution"] == " 1. \\boxed{1}"
    assert "solution" not in rows[0]
    with pytest.raises(ValueError, match=r"uid 'a'.*rerun `dvc repro data`"):
        filters.with_solutions(rows, {"b": "x"})


GROUP_ROWS = [{"uid": str(i), "prompt": f"p{i}", "answer": "1"} for i in range(4)]


def test_group_outcome_filter_drops_all_correct_and_all_wrong_groups():
    correct = [[True, True], [False, False], [True, False], [False, True, False]]
    kept, counts = filters.group_outcome_filter(GROUP_ROWS, correct)
    assert [r["uid"] for r in kept] == ["2", "3"]
    assert counts == {"input": 4, "all_correct": 1, "all_wrong": 1, "kept": 2}


def test_group_outcome_filter_keeps_every_mixed_group():
    kept, counts = filters.group_outcome_filter(GROUP_ROWS, [[True, False]] * 4)
    assert kept == GROUP_ROWS and counts["kept"] == 4


@pytest.mark.parametrize(
    "correct,message",
    [
        (
            [[True, True], [False, False], [True, True], [False, False]],
            r"TEPO's group rule .* leaves no training problem",
        ),
        ([[True, False]] * 3, r"got 3 groups of outcomes for 4 rows"),
        (
            [[True, False], [True], [True, False], [True, False]],
            r"group 1 has 1 response\(s\): a group needs at least 2",
        ),
    ],
)
def test_group_outcome_filter_refuses_empty_results_and_bad_groups(correct, message):
    with pytest.raises(ValueError, match=message):
        filters.group_outcome_filter(GROUP_ROWS, correct)


def test_sample_correctness_grades_n_responses_per_row():
    tokenizer = tiny_tokenizer()
    model = tiny_model(tokenizer)
    rows = [{"prompt": "1+1=", "answer": "2"}, {"prompt": "2+3=", "answer": "5"}]
    got = filters.sample_correctness(
        model, tokenizer, rows, n=3, temperature=1.0, top_p=1.0, max_new_tokens=4, batch_size=4, seed=0
    )
    assert len(got) == 2 and all(len(group) == 3 and all(isinstance(c, bool) for c in group) for group in got)


# ----------------------------------------------------------------------------- the stage
@pytest.fixture
def testbed_repo(tmp_path, monkeypatch):
    """A repository folder with a small testbed training set and a tiny (untrained) base model."""
    tb = {"n_train": 30, "n_eval": 6, "levels": [1, 2, 3]}
    train, _ = make_splits(tb["n_train"], tb["n_eval"], 0, (1, 2, 3), "v3")
    (tmp_path / "data" / "generated").mkdir(parents=True)
    rows = "".join(json.dumps(r) + "\n" for r in to_records(train))
    (tmp_path / "data" / "generated" / "train.jsonl").write_text(rows)
    save_tiny(tmp_path / "models" / "base" / "seed0")
    params = {
        "seed": 0,
        "seeds": [0],
        "data": {"testbed": tb},
        "methods": {"grpo": {}},
        "train": {"max_completion_length": 64},
    }

    def write(data_filters):
        (tmp_path / "params.yaml").write_text(yaml.safe_dump({**params, "data_filters": data_filters}))
        monkeypatch.chdir(tmp_path)
        return layout.load_params()

    return tmp_path, write


def test_filter_data_stage_writes_the_enabled_sets_and_the_report(testbed_repo):
    root, write = testbed_repo
    params = write({"erpo": {"enabled": True, "levels": [2, 3], "fraction": 1.0}})
    summary = stages.stage_filter_data(params)
    kept = [json.loads(line) for line in (root / "data/filtered/seed0/erpo.jsonl").read_text().splitlines()]
    assert (
        len(kept) == 20
        and {r["level"] for r in kept} == {2, 3}
        and set(kept[0]) == {"prompt", "answer", "level", "uid"}
    )
    assert summary["sets"]["erpo"]["counts"] == {"input": 30, "levels": 20, "solution_length": 20}
    assert summary["not_built"] == ["tepo"] and not (root / "data/filtered/seed0/tepo.jsonl").exists()
    index = json.loads((root / "data/filtered/seed0/index.json").read_text())
    assert index["erpo"]["rows"] == 20
    readme = (root / "reports/data_filters/seed0/README.md").read_text()
    assert "| levels [2, 3] | 20 |" in readme and "| 0.1 | 6.4 | 0 |" in readme
    assert json.loads((root / "reports/data_filters/seed0/filters.json").read_text())["input"]["rows"] == 30
    assert layout.training_records("erpo") == kept


def test_a_levels_only_set_is_selected_from_the_full_set_when_a_run_trains(testbed_repo):
    """AER fig. 2's easy / hard sets (params.yaml level_sets): the full set's problems at the levels, no filter_data
    stage (its sets and the runs on them stay as they are)."""
    root, write = testbed_repo
    params = write({})
    assert params.level_sets.aer_easy.levels == [1] and params.level_sets.aer_hard.levels == [3]
    for name, level in (("aer_easy", 1), ("aer_hard", 3)):
        kept = layout.training_records(name, levels=[level])
        assert len(kept) == 10 and {r["level"] for r in kept} == {level}
        assert layout.training_data_file(name) == layout.training_data_file("full")
    with pytest.raises(ValueError, match="needs its levels"):
        layout.training_records("aer_easy")
    assert not (root / "data/filtered").exists()


def test_filter_data_stage_stops_on_an_empty_set_and_keeps_the_previous_outputs(testbed_repo):
    root, write = testbed_repo
    stages.stage_filter_data(write({"erpo": {"enabled": True, "levels": [2, 3], "fraction": 1.0}}))
    before = (root / "data/filtered/seed0/erpo.jsonl").read_text()
    with pytest.raises(ValueError, match="TEPO's group rule .* leaves no training problem"):  # untrained: all wrong
        stages.stage_filter_data(write({"erpo": {"enabled": True, "fraction": 1.0}, "tepo": {"enabled": True}}))
    assert (root / "data/filtered/seed0/erpo.jsonl").read_text() == before


def test_a_run_on_a_set_that_is_not_there_says_which_stage_to_run(testbed_repo):
    _, write = testbed_repo
    write({})
    with pytest.raises(
        FileNotFoundError, match=r"data/filtered/seed0/tepo.jsonl not found: run the filter_data@0 stage"
    ):
        layout.training_records("tepo")
