"""Tests of the synthetic testbed: generator, tokenizer, model and the base-policy build."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections import Counter

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
import torch
from conftest import TINY_TESTBED
from tokenizers import normalizers, pre_tokenizers
from transformers import AutoModelForCausalLM, AutoTokenizer

from rlvr_lib.testbed import (
    LEVELS,
    TestbedConfig,
    build_base_policy,
    build_model,
    build_tokenizer,
    make_splits,
    sample_solutions,
    to_records,
)
from rlvr_lib.testbed import sft as sft_module
from rlvr_lib.testbed import tokenizer as tokenizer_module
from rlvr_lib.testbed.generator import operands_of, sample_solution, slipped

TINY = TINY_TESTBED


# ----------------------------------------------------------------------------- generator
def replay(prompt: str, solution: str) -> tuple[int, int]:
    """Replay a worked solution: every step adds two numbers still available and writes their sum, right
    or off by 1-9 (a slip); the last number left is the boxed one. Returns (steps, slipped steps)."""
    match = re.fullmatch(r" (.+)\. \\boxed\{(-?\d+)\}", solution)
    assert match, solution
    pool, n_slipped = Counter(operands_of(prompt)), 0
    steps = match.group(1).split(", ")
    for step in steps:
        a, b, c = map(int, re.fullmatch(r"(\d+)\+(\d+)=(\d+)", step).groups())
        assert abs(c - (a + b)) <= 9, step
        n_slipped += c != a + b
        used = Counter([a, b])
        assert all(pool[x] >= n for x, n in used.items()), f"{step} uses a number that is not left"
        pool = pool - used + Counter([c])
    assert list(pool.elements()) == [int(match.group(2))]
    return len(steps), n_slipped


def check_solution(prompt: str, answer: str, solution: str) -> None:
    """A slip-free worked solution that ends in the right boxed answer."""
    assert replay(prompt, solution)[1] == 0, solution
    assert solution.endswith(f"\\boxed{{{answer}}}")


def test_splits_are_disjoint_and_deterministic():
    train, eval_ = make_splits(300, 60, seed=0)
    train2, eval2 = make_splits(300, 60, seed=0)
    assert train == train2 and eval_ == eval2
    assert (len(train), len(eval_)) == (300, 60)
    prompts = [p.prompt for p in train + eval_]
    assert len(set(prompts)) == len(prompts)  # no shared problem, no duplicate inside a split
    assert len({p.uid for p in train + eval_}) == len(prompts)
    other_train, other_eval = make_splits(300, 60, seed=1)
    assert {p.prompt for p in other_train} != {p.prompt for p in train}
    assert {p.prompt for p in other_eval} != {p.prompt for p in eval_}
    assert make_splits(50, 60, seed=0)[1] == eval_  # eval split does not depend on n_train
    assert Counter(p.level for p in eval_) == {1: 20, 2: 20, 3: 20}


def test_splits_respect_levels_and_reject_bad_ones():
    train, eval_ = make_splits(40, 10, seed=3, levels=[2])
    for p in train + eval_:
        assert p.level == 2 and len(operands_of(p.prompt)) == LEVELS[2].n_operands
        assert all(LEVELS[2].low <= x <= LEVELS[2].high for x in operands_of(p.prompt))
    with pytest.raises(ValueError, match="unknown levels"):
        make_splits(5, 5, seed=0, levels=(99,))
    with pytest.raises(ValueError, match="too few distinct"):
        make_splits(800, 0, seed=0, levels=(1,))  # level 1 has 9**3 = 729 problems


def test_solutions_are_correct_and_diverse():
    train, eval_ = make_splits(90, 30, seed=0)
    for p in train + eval_:
        assert p.prompt.startswith("Compute ") and p.prompt.endswith("\nAnswer:")
        assert p.answer == str(sum(operands_of(p.prompt)))
        assert p.solution.endswith(f"\\boxed{{{p.answer}}}")
        check_solution(p.prompt, p.answer, p.solution)
        for s in sample_solutions(p, 4, seed=0):
            check_solution(p.prompt, p.answer, s)
    four_distinct = next(p for p in train if p.level == 2 and len(set(operands_of(p.prompt))) == 4)
    sols = sample_solutions(four_distinct, 4, seed=0)
    assert len(set(sols)) == 4
    assert sols == sample_solutions(four_distinct, 4, seed=0)
    assert len(sample_solutions(four_distinct, 100, seed=0)) == 18  # 6 * 3 * 1 pair orders exist


def test_slips_write_wrong_sums_at_the_given_rate():
    problems = make_splits(400, 0, seed=0)[0]
    operands = [operands_of(p.prompt) for p in problems]
    assert [sample_solution(ops, random.Random(1)) for ops in operands] == [
        sample_solution(ops, random.Random(1), slip_rate=0.0) for ops in operands
    ]
    rng = random.Random(0)
    for p, ops in zip(problems, operands, strict=False):  # a slip at every step
        steps, n_slipped = replay(p.prompt, sample_solution(ops, rng, 1.0))
        assert n_slipped == steps == len(ops) - 1
    counts = [replay(p.prompt, sample_solution(ops, rng, 0.3)) for p, ops in zip(problems, operands, strict=False)]
    assert 0.25 < sum(s for _, s in counts) / sum(n for n, _ in counts) < 0.35
    offsets = Counter(slipped(20, rng) - 20 for _ in range(3600))
    assert set(offsets) == set(range(-9, 0)) | set(range(1, 10))
    assert max(offsets.values()) < 2 * min(offsets.values())  # uniform over the 18 offsets
    assert all(slipped(3, rng) >= 0 for _ in range(200))
    for s in sample_solutions(problems[0], 4, seed=0, slip_rate=0.5):
        replay(problems[0].prompt, s)
    with pytest.raises(ValueError, match="slip_rate"):
        sample_solution([1, 2], rng, slip_rate=1.5)


def test_to_records():
    train, _ = make_splits(6, 0, seed=0)
    records = to_records(train)
    assert [set(r) for r in records] == [{"prompt", "answer", "level", "uid"}] * 6
    assert [r["answer"] for r in records] == [p.answer for p in train]


# ----------------------------------------------------------------------------- tokenizer
PROBE = [
    "Compute 3+5+2+7.\nAnswer: 3+5=8, 8+2=10, 10+7=17. \\boxed{17}",
    "\\boxed{-12}",
    "\\frac{1}{2} + 3/4 = 1.25",
    "ünïcødé 日本語 🙂 e\u0301",
    "  two  spaces\n\nnewlines\tand tabs 000123",
    "<|endoftext|>",
]


CORPUS = [p.prompt + p.solution for p in make_splits(150, 0, seed=0)[0]]


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tok")
    build_tokenizer(CORPUS, 400, folder)
    return folder


def test_tokenizer_ids_survive_reload(tokenizer_dir):
    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    assert type(tok).__name__ == "Qwen2Tokenizer"
    trained = tokenizer_module.train_bpe(CORPUS, 400)  # the tokenizers object, before any wrapping
    for text in PROBE + CORPUS[:20]:
        ids = tok(text)["input_ids"]
        assert ids == trained.encode(text).ids, text
        assert tok.decode(ids) == normalizers.NFC().normalize_str(text)
    assert tok.eos_token == tok.pad_token == "<|endoftext|>"
    assert tok("<|endoftext|>")["input_ids"] == [tok.eos_token_id]


def test_digits_are_single_tokens(tokenizer_dir):
    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    ids = tok("9876543210")["input_ids"]
    assert [tok.decode([i]) for i in ids] == list("9876543210")
    prompt, completion = "Compute 1+2.\nAnswer:", " 1+2=3. \\boxed{3}"
    assert tok(prompt + completion)["input_ids"] == tok(prompt)["input_ids"] + tok(completion)["input_ids"]


def test_tokenizer_check_catches_a_foreign_pre_tokenizer(tmp_path, monkeypatch):
    original = tokenizer_module.train_bpe

    def whitespace_bpe(texts, vocab_size):
        tok = original(texts, vocab_size)
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        return tok

    monkeypatch.setattr(tokenizer_module, "train_bpe", whitespace_bpe)
    with pytest.raises(RuntimeError, match="differ after save/reload"):
        build_tokenizer(["Compute 1+2.\nAnswer: 1+2=3. \\boxed{3}"] * 10, 300, tmp_path)


# ----------------------------------------------------------------------------- model
def state_hash(model) -> str:
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().numpy().tobytes())
    return digest.hexdigest()


def test_model_is_seeded_and_reloads(tmp_path):
    kwargs = {"hidden_size": 32, "num_layers": 2, "num_heads": 2}
    a, b = build_model(300, seed=5, **kwargs), build_model(300, seed=5, **kwargs)
    assert state_hash(a) == state_hash(b)
    assert state_hash(build_model(300, seed=6, **kwargs)) != state_hash(a)
    assert a.config.vocab_size == 304 and a.config.tie_word_embeddings
    assert a.lm_head.weight.data_ptr() == a.model.embed_tokens.weight.data_ptr()
    assert a.dtype == torch.float32
    a.save_pretrained(tmp_path)
    loaded = AutoModelForCausalLM.from_pretrained(tmp_path)
    assert type(loaded).__name__ == "Qwen2ForCausalLM"
    assert state_hash(loaded) == state_hash(a)
    assert (loaded.generation_config.eos_token_id, loaded.generation_config.pad_token_id) == (0, 0)


# ----------------------------------------------------------------------------- base policy build
def test_build_base_policy_tiny(tmp_path):
    out = build_base_policy(tmp_path / "base", TestbedConfig(seed=1), **TINY)
    assert out == tmp_path / "base" and os.listdir(tmp_path) == ["base"]  # no temp folder left
    saved = json.loads((out / "testbed_config.json").read_text())
    assert saved["sft_steps"] == 2 and saved["seed"] == 1 and saved["levels"] == [1, 2]
    tok = AutoTokenizer.from_pretrained(out)
    model = AutoModelForCausalLM.from_pretrained(out)
    assert model.config.hidden_size == 32 and model.config.vocab_size >= len(tok) and model.config.use_cache
    untrained = build_model(len(tok), seed=1, hidden_size=32, num_layers=1, num_heads=2)
    assert state_hash(model) != state_hash(untrained)  # SFT changed the weights
    enc = tok(["Compute 1+2+3.\nAnswer:"], return_tensors="pt")
    gen = model.generate(**enc, max_new_tokens=4, do_sample=False)
    assert gen.shape[1] > enc["input_ids"].shape[1]


def test_policy_seed_changes_the_weights_but_not_the_tokenizer(tmp_path):
    """Per-seed base policies: model init and SFT follow policy_seed; task, SFT data and tokenizer follow seed."""
    built = {
        name: build_base_policy(tmp_path / name, TestbedConfig(seed=1, policy_seed=ps), **TINY)
        for name, ps in (("a", 5), ("a_again", 5), ("b", 6))
    }
    weights = {name: state_hash(AutoModelForCausalLM.from_pretrained(out)) for name, out in built.items()}
    assert weights["a"] == weights["a_again"] != weights["b"]
    tokenizers = {(out / "tokenizer.json").read_bytes() for out in built.values()}
    assert len(tokenizers) == 1


def test_build_base_policy_failure_leaves_nothing(tmp_path, monkeypatch):
    def broken_sft(*args, **kwargs):
        raise RuntimeError("sft exploded")

    monkeypatch.setattr(sft_module, "run_sft", broken_sft)
    with pytest.raises(RuntimeError, match="sft exploded"):
        build_base_policy(tmp_path / "base", **TINY)
    assert os.listdir(tmp_path) == []
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "old.txt").write_text("previous build")
    with pytest.raises(RuntimeError, match="sft exploded"):
        build_base_policy(tmp_path / "base", **TINY)
    assert os.listdir(tmp_path) == ["base"]
    assert os.listdir(tmp_path / "base") == ["old.txt"]


def test_config_accepts_yaml_style_values():
    cfg = TestbedConfig(levels=[1, 3])
    assert cfg.levels == (1, 3)
    with pytest.raises(TypeError):
        build_base_policy("unused", not_a_knob=1)
