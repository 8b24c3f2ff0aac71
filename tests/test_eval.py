"""Sampling and benchmark evaluation on a tiny random Qwen2 with a character-level tokenizer."""

import csv
import json

import pytest
import torch
from tiny import CHARS, PROMPTS, char_tokenizer, tiny_qwen2

from rlvr_lib.eval import CSV_COLUMNS, Completion, evaluate, evaluate_benchmark, sample_completions, write_results


@pytest.fixture(scope="module")
def tok():
    return char_tokenizer(CHARS)


@pytest.fixture(scope="module")
def model():
    return tiny_qwen2(len(CHARS) + 1, eos_id=0, pad_id=0, tie_word_embeddings=False)


def test_shapes_lengths_and_texts(model, tok):
    out = sample_completions(model, tok, PROMPTS, 5, temperature=1.0, max_new_tokens=10, batch_size=4, seed=0)
    assert len(out) == len(PROMPTS) and all(len(row) == 5 for row in out)
    for c in (c for row in out for c in row):
        assert isinstance(c, Completion)
        assert 1 <= c.n_tokens <= 10
        assert c.entropy >= 0.0
        # one token per character, plus the eos token when there is one (certainly so when it stopped early)
        assert len(c.text) == c.n_tokens - 1 if c.n_tokens < 10 else len(c.text) in (9, 10)


def test_eos_stops_a_completion():
    """With 3 tokens, eos is likely at every step: some samples stop early, none continue past eos."""
    tok = char_tokenizer(["a", "b"])
    model = tiny_qwen2(3, eos_id=0, pad_id=0, tie_word_embeddings=False)
    out = sample_completions(model, tok, ["ab"], 16, max_new_tokens=12, batch_size=16, seed=0)
    lengths = [c.n_tokens for c in out[0]]
    assert min(lengths) < 12
    for c in out[0]:
        assert set(c.text) <= {"a", "b"}
        assert len(c.text) == c.n_tokens - 1 if c.n_tokens < 12 else len(c.text) in (11, 12)


def test_same_seed_same_samples(model, tok):
    kwargs = dict(temperature=0.7, top_p=0.9, max_new_tokens=8, batch_size=4)
    torch.manual_seed(123)
    before = torch.rand(1)
    a = sample_completions(model, tok, PROMPTS, 3, seed=7, **kwargs)
    b = sample_completions(model, tok, PROMPTS, 3, seed=7, **kwargs)
    c = sample_completions(model, tok, PROMPTS, 3, seed=8, **kwargs)
    assert a == b
    assert a != c
    torch.manual_seed(123)
    assert torch.equal(torch.rand(1), before)  # the caller's RNG stream is not consumed (fork_rng)


@pytest.mark.parametrize("temperature", [1.0, 0.6])
def test_entropy_is_that_of_the_tempered_distribution(model, tok, temperature):
    """With one new token, the recorded entropy depends only on the prompt: recompute it with a forward pass."""
    out = sample_completions(model, tok, ["1+1="], 1, temperature=temperature, max_new_tokens=1, batch_size=1, seed=0)
    ids = tok("1+1=", add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        logits = model(ids).logits[0, -1] / temperature
    expected = torch.special.entr(torch.softmax(logits, -1)).sum().item()
    assert out[0][0].n_tokens == 1
    assert out[0][0].entropy == pytest.approx(expected, rel=1e-4)


def test_top_p_lowers_entropy(model, tok):
    full = sample_completions(model, tok, PROMPTS, 2, top_p=1.0, max_new_tokens=1, batch_size=6, seed=0)
    nucleus = sample_completions(model, tok, PROMPTS, 2, top_p=0.5, max_new_tokens=1, batch_size=6, seed=0)
    for row_full, row_nucleus in zip(full, nucleus, strict=False):
        assert row_nucleus[0].entropy < row_full[0].entropy


@pytest.mark.parametrize(
    "kwargs, bad",
    [
        ({"n": 0}, "n"),
        ({"batch_size": 0}, "batch_size"),
        ({"max_new_tokens": 0}, "max_new_tokens"),
        ({"temperature": -0.5}, "temperature"),
        ({"temperature": 0.0, "n": 2}, "greedy"),
        ({"top_p": 1.5}, "top_p"),
    ],
)
def test_sampling_argument_errors(model, tok, kwargs, bad):
    args = dict(n=1, max_new_tokens=2, batch_size=1) | kwargs
    with pytest.raises(ValueError, match=bad):
        sample_completions(model, tok, PROMPTS, **args)


def test_evaluate_and_write_results(model, tok, tmp_path):
    problems = [{"prompt": p, "answer": "2", "uid": f"p{i}"} for i, p in enumerate(PROMPTS)]
    result = evaluate_benchmark(model, tok, problems, n=4, max_new_tokens=6, batch_size=8, seed=0, n_boot=50)
    assert result["n_problems"] == 3
    assert set(result["metrics"]) == {
        "pass@1",
        "pass@2",
        "pass@4",
        "mean@4",
        "format_rate",
        "response_length",
        "token_entropy",
    }
    for m in result["metrics"].values():
        assert m["ci_low"] <= m["value"] <= m["ci_high"]
    assert [r["uid"] for r in result["per_problem"]] == ["p0", "p1", "p2"]
    assert all(r["n"] == 4 and 0 <= r["c"] <= 4 for r in result["per_problem"])

    json_path, csv_path = write_results({"toy": result, "toy2": result}, tmp_path / "out")
    assert json.loads(json_path.read_text())["toy"]["metrics"] == result["metrics"]
    with csv_path.open() as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 2 * len(result["metrics"])
    assert {r["benchmark"] for r in rows} == {"toy", "toy2"}
    assert [p.name for p in (tmp_path / "out").iterdir()] and not list((tmp_path / "out").glob(".*tmp"))


def test_metrics_from_known_completions(monkeypatch):
    """Grading and aggregation, with the sampler replaced by fixed completions."""
    texts = {"a": ["\\boxed{2}", "\\boxed{3}", "2", "\\boxed{2.0}"], "b": ["\\boxed{5}"] * 4}

    def fake_sampler(model, tokenizer, prompts, n, **kwargs):
        return [[Completion(t, 3, 0.5) for t in texts[p]] for p in prompts]

    monkeypatch.setattr(evaluate, "sample_completions", fake_sampler)
    problems = [{"prompt": "a", "answer": "2"}, {"prompt": "b", "answer": "2"}]
    result = evaluate_benchmark(None, None, problems, n=4, ks=[1, 4], max_new_tokens=3, batch_size=4, n_boot=100)
    metrics = result["metrics"]
    assert [r["c"] for r in result["per_problem"]] == [2, 0]
    assert metrics["pass@1"]["value"] == pytest.approx((2 / 4 + 0) / 2)
    assert metrics["pass@4"]["value"] == pytest.approx(0.5)
    assert metrics["mean@4"]["value"] == metrics["pass@1"]["value"]
    assert metrics["format_rate"]["value"] == pytest.approx((3 / 4 + 1) / 2)
    assert metrics["response_length"]["value"] == 3.0
    assert metrics["token_entropy"]["value"] == 0.5


def test_evaluate_argument_errors(model, tok):
    with pytest.raises(ValueError, match="prompt"):
        evaluate_benchmark(model, tok, [{"answer": "1"}], n=2, max_new_tokens=2, batch_size=2)
    with pytest.raises(ValueError, match="ks"):
        evaluate_benchmark(model, tok, [{"prompt": "1", "answer": "1"}], n=2, ks=[4], max_new_tokens=2, batch_size=2)


def test_write_results_leaves_no_partial_files(tmp_path):
    bad = {"toy": {"metrics": {"pass@1": {"value": object(), "ci_low": 0, "ci_high": 1}}}}
    with pytest.raises(TypeError):
        write_results(bad, tmp_path)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="results"):
        write_results({}, tmp_path)


def test_tokenizer_without_pad_token_is_rejected(model):
    tok = char_tokenizer(CHARS)
    tok.pad_token = None
    with pytest.raises(ValueError, match="pad token"):
        sample_completions(model, tok, PROMPTS, 1, max_new_tokens=2, batch_size=1)
