"""The Qwen2.5 tokenizer folder built from shared/data/tokenizers/qwen.tiktoken (PROVENANCE.md's id checks)."""

from __future__ import annotations

import base64

import pytest

from rlvr_lib.tasks.data import resolve_data_root
from rlvr_lib.tasks.qwen_tokenizer import (
    ADDED_TOKENS,
    ID_CHECKS,
    N_RANKS,
    read_ranks,
    save_qwen_tokenizer,
    vocab_and_merges,
)

TIKTOKEN = resolve_data_root() / "tokenizers" / "qwen.tiktoken"
needs_file = pytest.mark.skipif(not TIKTOKEN.is_file(), reason=f"{TIKTOKEN} not present (set RLVR_DATA_ROOT)")


@pytest.fixture(scope="module")
def qwen_tokenizer(tmp_path_factory):
    from transformers import AutoTokenizer

    folder = save_qwen_tokenizer(TIKTOKEN, tmp_path_factory.mktemp("qwen_tok"))
    return AutoTokenizer.from_pretrained(str(folder))


@needs_file
def test_provenance_id_checks_after_reload(qwen_tokenizer):
    assert type(qwen_tokenizer).__name__ == "Qwen2Tokenizer"
    for text, ids in ID_CHECKS.items():
        assert qwen_tokenizer(text, add_special_tokens=False)["input_ids"] == ids
        assert qwen_tokenizer.decode(ids) == text


@needs_file
def test_special_tokens_and_round_trip(qwen_tokenizer):
    assert qwen_tokenizer.eos_token_id == qwen_tokenizer.pad_token_id == 151643
    assert [qwen_tokenizer.convert_tokens_to_ids(t) for t, _ in ADDED_TOKENS] == list(range(N_RANKS, N_RANKS + 22))
    assert qwen_tokenizer.convert_tokens_to_ids("<|im_end|>") == 151645
    text = "Étude: x² + 3y = 7\n\n  两个数之和是 $\\frac{1}{2}$ <|im_end|>"
    ids = qwen_tokenizer(text, add_special_tokens=False)["input_ids"]
    assert 151645 in ids  # added tokens are matched inside text
    assert qwen_tokenizer.decode(ids) == text
    assert max(ids) < 151_936


@needs_file
def test_chat_template_is_qwen_math(qwen_tokenizer):
    text = qwen_tokenizer.apply_chat_template(
        [{"role": "user", "content": "1+1?"}], tokenize=False, add_generation_prompt=True
    )
    assert text == (
        "<|im_start|>system\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n"
        "<|im_start|>user\n1+1?<|im_end|>\n<|im_start|>assistant\n"
    )
    own = qwen_tokenizer.apply_chat_template(
        [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}], tokenize=False
    )
    assert own == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n"


def test_merges_rebuild_every_multibyte_token(tmp_path):
    # four single bytes, two merged tokens: "ab" (rank 4) and "abc" (rank 5) = ("ab","c") or ("a","bc")? only ab+c
    ranks = {b"a": 0, b"b": 1, b"c": 2, b" ": 3, b"ab": 4, b"abc": 5}
    vocab, merges = vocab_and_merges(ranks)
    assert vocab == {"a": 0, "b": 1, "c": 2, "Ġ": 3, "ab": 4, "abc": 5}
    assert merges == [("a", "b"), ("ab", "c")]
    path = tmp_path / "r.tiktoken"
    path.write_text("\n".join(f"{base64.b64encode(t).decode()} {r}" for t, r in ranks.items()))
    assert read_ranks(path) == ranks


def test_read_ranks_rejects_gaps(tmp_path):
    path = tmp_path / "bad.tiktoken"
    path.write_text(f"{base64.b64encode(b'a').decode()} 0\n{base64.b64encode(b'b').decode()} 2\n")
    with pytest.raises(ValueError, match="without gaps"):
        read_ranks(path)
    with pytest.raises(FileNotFoundError, match="qwen.tiktoken"):
        read_ranks(tmp_path / "missing")
