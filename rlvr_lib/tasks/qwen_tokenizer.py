"""A Qwen2.5-compatible tokenizer folder built from the byte-level BPE ranks in ``qwen.tiktoken``.

No hub access is needed: ``shared/data/tokenizers/qwen.tiktoken`` holds the 151,643 ranks (one ``base64 rank``
line each); ``shared/data/PROVENANCE.md`` gives the rest of Qwen2/Qwen2.5's tokenizer, which this module
writes out exactly: the pre-tokenizer regex below, an NFC normaliser, byte-level mapping, and 22 added tokens
from id 151643 (``<|endoftext|>``, ``<|im_start|>``, ``<|im_end|>``, ...). Merges are recovered from the ranks the
way transformers' ``TikTokenConverter`` does it (every split of a token into two ranked halves, ordered by
rank), without needing the ``tiktoken`` package. The folder loads with ``AutoTokenizer.from_pretrained`` as
``Qwen2Tokenizer`` and carries Qwen2.5-Math's chat template (its default system prompt asks for a boxed answer).

Checks (PROVENANCE.md): "Hello, world!" -> [9707, 11, 1879, 0];
"The answer is $\\boxed{42}$." -> [785, 4226, 374, 57960, 79075, 90, 19, 17, 92, 12947].
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

# Qwen2's split regex (transformers.models.qwen2.tokenization_qwen2.PRETOKENIZE_REGEX; PROVENANCE.md).
PRETOKENIZE_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""  # noqa: E501
N_RANKS = 151_643
EMBEDDING_ROWS = 151_936  # rows of the Qwen2.5 models' embedding (ids above 151664 are padding rows)
# Added tokens of Qwen2.5 from id 151643, with whether each is "special" (skipped when decoding).
ADDED_TOKENS: tuple[tuple[str, bool], ...] = (
    ("<|endoftext|>", True),
    ("<|im_start|>", True),
    ("<|im_end|>", True),
    ("<|object_ref_start|>", True),
    ("<|object_ref_end|>", True),
    ("<|box_start|>", True),
    ("<|box_end|>", True),
    ("<|quad_start|>", True),
    ("<|quad_end|>", True),
    ("<|vision_start|>", True),
    ("<|vision_end|>", True),
    ("<|vision_pad|>", True),
    ("<|image_pad|>", True),
    ("<|video_pad|>", True),
    ("<tool_call>", False),
    ("</tool_call>", False),
    ("<|fim_prefix|>", False),
    ("<|fim_middle|>", False),
    ("<|fim_suffix|>", False),
    ("<|fim_pad|>", False),
    ("<|repo_name|>", False),
    ("<|file_sep|>", False),
)
MATH_SYSTEM_PROMPT = "Please reason step by step, and put your final answer within \\boxed{}."
# Qwen2.5-Math's chat template without the tool-calling branch: a system turn (the given one, else the
# default above), then each message as <|im_start|>role\ncontent<|im_end|>\n, then the assistant header.
CHAT_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>system\\n" + MATH_SYSTEM_PROMPT.replace("\\", "\\\\") + "<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if not (message['role'] == 'system' and loop.first) %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)
ID_CHECKS: dict[str, list[int]] = {
    "Hello, world!": [9707, 11, 1879, 0],
    "The answer is $\\boxed{42}$.": [785, 4226, 374, 57960, 79075, 90, 19, 17, 92, 12947],
}


def read_ranks(path: str | Path) -> dict[bytes, int]:
    """Token bytes -> rank from a tiktoken file (``base64 rank`` per line); checks ranks are 0..N-1."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"tiktoken file not found: {path} (expected shared/data/tokenizers/qwen.tiktoken)")
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(path.read_text(encoding="ascii").splitlines(), 1):
        if not line.strip():
            continue
        token, _, rank = line.partition(" ")
        try:
            ranks[base64.b64decode(token)] = int(rank)
        except ValueError as err:
            raise ValueError(f"{path}:{lineno}: not a 'base64 rank' line ({err})") from None
    if sorted(ranks.values()) != list(range(len(ranks))):
        raise ValueError(f"{path}: ranks are not 0..{len(ranks) - 1} without gaps or repeats")
    return ranks


def _byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map used by byte-level BPE vocabularies."""
    printable = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def vocab_and_merges(ranks: dict[bytes, int]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Byte-level vocabulary and the merges that rebuild each token, ordered by the merged token's rank.

    A token of rank r is the merge of every split (left, right) whose halves are both ranked; the splits are
    ordered by (rank(left), rank(right)) as in transformers' TikTokenConverter.
    """
    table = _byte_to_unicode()

    def text(b: bytes) -> str:
        return "".join(table[x] for x in b)

    vocab = {text(tok): rank for tok, rank in ranks.items()}
    merges: list[tuple[int, int, int, bytes, bytes]] = []
    for tok, rank in ranks.items():
        for i in range(1, len(tok)):
            left, right = tok[:i], tok[i:]
            if left in ranks and right in ranks:
                merges.append((rank, ranks[left], ranks[right], left, right))
    merges.sort(key=lambda m: m[:3])
    return vocab, [(text(m[3]), text(m[4])) for m in merges]


def build_tokenizer(tiktoken_path: str | Path):
    """The ``tokenizers.Tokenizer`` of Qwen2.5 (BPE + NFC + Qwen2 split + byte level + added tokens)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import BPE

    ranks = read_ranks(tiktoken_path)
    if len(ranks) != N_RANKS:
        raise ValueError(f"{tiktoken_path}: expected {N_RANKS} Qwen ranks, found {len(ranks)}")
    vocab, merges = vocab_and_merges(ranks)
    tok = Tokenizer(BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    for content, special in ADDED_TOKENS:
        added = AddedToken(content, special=special, normalized=False, single_word=False, lstrip=False, rstrip=False)
        (tok.add_special_tokens if special else tok.add_tokens)([added])
    expected = {content: N_RANKS + i for i, (content, _) in enumerate(ADDED_TOKENS)}
    got = {content: tok.token_to_id(content) for content in expected}
    if got != expected:
        raise ValueError(f"added-token ids differ from Qwen2.5's: {got}")
    return tok


def save_qwen_tokenizer(tiktoken_path: str | Path, out_dir: str | Path) -> Path:
    """Write a tokenizer folder (tokenizer.json, tokenizer_config.json, ...) loadable by AutoTokenizer.

    The id checks of PROVENANCE.md are run on the folder as reloaded by ``AutoTokenizer`` before returning;
    a mismatch raises ``ValueError`` (and the folder is left for inspection).
    """
    from transformers import PreTrainedTokenizerFast

    out_dir = Path(out_dir)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=build_tokenizer(tiktoken_path),
        eos_token="<|endoftext|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        bos_token=None,
        model_max_length=131072,
        clean_up_tokenization_spaces=False,
        split_special_tokens=False,
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out_dir)
    config_path = out_dir / "tokenizer_config.json"
    config = json.loads(config_path.read_text())
    config["tokenizer_class"] = "Qwen2Tokenizer"  # what the Qwen2.5 hub folders declare
    config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False))
    check_ids(out_dir)
    return out_dir


def check_ids(folder: str | Path) -> None:
    """Raise ValueError unless ``AutoTokenizer.from_pretrained(folder)`` gives PROVENANCE.md's ids."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(folder))
    for text, ids in ID_CHECKS.items():
        got = tok(text, add_special_tokens=False)["input_ids"]
        if got != ids:
            raise ValueError(f"{folder}: {text!r} -> {got}, expected {ids} (PROVENANCE.md)")
    for i, (content, _) in enumerate(ADDED_TOKENS):
        if tok.convert_tokens_to_ids(content) != N_RANKS + i:
            raise ValueError(f"{folder}: {content} has id {tok.convert_tokens_to_ids(content)}, expected {N_RANKS + i}")
