"""Where does a testbed policy's token entropy sit? Mean entropy per kind of token in sampled completions.

Samples ``--samples`` completions per problem (T = 1, seeded), computes each generated token's entropy from
the policy's logits and assigns it to the kind of text the token writes (``token_kind``): the first or the
second number of a step (the forks: which pair to add), a sum (computation, where slips happen), the boxed
answer, or anything else (``+``, ``=``, spaces, ``\\boxed{``, EOS). Prints one JSON line per kind: tokens per
completion, mean entropy and share of the total. The table in docs/testbed.md comes from this script.

    dvc repro data base_model@0          # on a fresh clone: the data and training seed 0's base policy first
    python benchmarks/entropy_by_position.py --model models/base/seed0 --data data/generated/eval_testbed.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections import defaultdict

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from rlvr_lib.tasks.records import read_problems  # noqa: E402

KINDS = ("first number", "second number", "sum", "boxed answer", "other")
_FIELD_START = {",": "first number", " ": "first number", "+": "second number", "=": "sum", "{": "boxed answer"}


def token_kind(prefix: str, piece: str) -> str:
    """Kind of the token ``piece`` written after the completion text ``prefix`` (``KINDS``).

    A token whose text starts with a digit belongs to the number it starts or continues; that number's kind
    is decided by the character before its first digit: ``,``/space (or nothing) -> first number of a step,
    ``+`` -> second number, ``=`` -> sum, ``{`` -> boxed answer.
    """
    if not piece[:1].isdigit():
        return "other"
    before = re.sub(r"\d+$", "", prefix)
    return _FIELD_START.get(before[-1:] or " ", "other")


@torch.no_grad()
def entropy_by_kind(
    model, tokenizer, prompts: list[str], samples: int, max_new_tokens: int, seed: int, batch_size: int = 32
) -> dict[str, dict[str, float]]:
    """Per kind: ``tokens_per_completion``, ``mean_entropy`` (nats) and ``share`` of all generated tokens' entropy."""
    torch.manual_seed(seed)
    sums, counts, completions = defaultdict(float), defaultdict(int), 0
    for start in range(0, len(prompts), batch_size):
        enc = tokenizer(prompts[start : start + batch_size], return_tensors="pt", padding=True)
        out = model.generate(
            **enc,
            do_sample=True,
            temperature=1.0,
            top_p=1.0,
            top_k=0,
            max_new_tokens=max_new_tokens,
            num_return_sequences=samples,
            output_logits=True,
            return_dict_in_generate=True,
            pad_token_id=tokenizer.pad_token_id,
        )
        logp = torch.stack(out.logits, 1).float().log_softmax(-1)  # (B*samples, T, V)
        entropy = -(logp.exp() * logp).sum(-1)  # (B*samples, T)
        generated = out.sequences[:, enc["input_ids"].shape[1] :]
        for row, ent in zip(generated.tolist(), entropy.tolist(), strict=False):
            completions += 1
            text = ""
            for token_id, h in zip(row, ent, strict=False):
                piece = tokenizer.decode([token_id])
                kind = "other" if token_id == tokenizer.eos_token_id else token_kind(text, piece)
                sums[kind] += h
                counts[kind] += 1
                if token_id == tokenizer.eos_token_id:
                    break
                text += piece
    total = sum(sums.values())
    return {
        k: {
            "tokens_per_completion": counts[k] / completions,
            "mean_entropy": sums[k] / max(counts[k], 1),
            "share": sums[k] / total,
        }
        for k in KINDS
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a model folder (e.g. models/base/seed0 or a run's final/)")
    parser.add_argument("--data", required=True, help="JSONL with a `prompt` field (testbed problems)")
    parser.add_argument("--samples", type=int, default=4, help="completions per problem")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    tokenizer = AutoTokenizer.from_pretrained(args.model, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(args.model).eval()
    prompts = [row["prompt"] for row in read_problems(args.data)]
    result = entropy_by_kind(model, tokenizer, prompts, args.samples, args.max_new_tokens, args.seed)
    for kind, stats in result.items():
        print(json.dumps({"model": args.model, "kind": kind, **{k: round(v, 4) for k, v in stats.items()}}))


if __name__ == "__main__":
    main()
