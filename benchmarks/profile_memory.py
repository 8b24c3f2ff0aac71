"""Does every paper profile in configs/ fit one 80 GB GPU at its own completion length? For each profile, the
generation chunk `train.generation_chunk: null` picks there (``memory_estimate.auto_generation_chunk``) and the peak
memory estimate at that chunk (``memory_estimate``: an estimate, not a bound; docs/gpu.md compares it with measured
peaks). CPU only: the models' shapes are those of their Hugging Face config.json files (no download).

    python benchmarks/profile_memory.py [--device-gib 79.2] [--prompt-tokens 512]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from rlvr_lib.config import load_params
from rlvr_lib.memory_estimate import GIB, ModelMemory, auto_generation_chunk, estimate_peak_memory

PROFILES = ["erpo", "cw_grpo", "tepo", "opefo", "aer"]
LORA_TARGETS = 7  # q, k, v, o, gate, up, down: every linear layer of a block


@dataclass(frozen=True)
class Shape:
    """A decoder's shape, from the model's config.json on the Hugging Face hub."""

    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tied: bool  # tie_word_embeddings

    def parameters(self) -> int:
        q_out = self.heads * self.head_dim
        kv_out = self.kv_heads * self.head_dim
        attention = self.hidden * q_out + 2 * self.hidden * kv_out + q_out * self.hidden
        block = attention + 3 * self.hidden * self.intermediate + 2 * self.hidden
        return self.layers * block + self.vocab * self.hidden * (1 if self.tied else 2) + self.hidden

    def lora_parameters(self, r: int) -> int:
        q_out, kv_out = self.heads * self.head_dim, self.kv_heads * self.head_dim
        pairs = [
            (self.hidden, q_out),
            (self.hidden, kv_out),
            (self.hidden, kv_out),
            (q_out, self.hidden),
            (self.hidden, self.intermediate),
            (self.hidden, self.intermediate),
            (self.intermediate, self.hidden),
        ]
        assert len(pairs) == LORA_TARGETS
        return self.layers * r * sum(i + o for i, o in pairs)


SHAPES = {  # config.json of each model named by a profile
    "Qwen/Qwen2.5-1.5B": Shape(1536, 8960, 28, 12, 2, 128, 151936, True),
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B": Shape(1536, 8960, 28, 12, 2, 128, 151936, False),
    "Qwen/Qwen2.5-7B": Shape(3584, 18944, 28, 28, 4, 128, 152064, False),
    "Qwen/Qwen2.5-Math-7B": Shape(3584, 18944, 28, 28, 4, 128, 152064, False),
    "Qwen/Qwen3-4B-Base": Shape(2560, 9728, 36, 32, 8, 128, 151936, True),
}


def profile_row(name: str, device_bytes: int, prompt_tokens: int) -> dict:
    params = load_params(f"configs/{name}.yaml", check_methods=False)
    t, spec = params.train, params.runs[name]
    shape = SHAPES[params.model.path]
    n = shape.parameters()
    trainable = shape.lora_parameters(t.lora_r) if t.lora_r else n
    reference = n if (spec.hparams.get("beta") or 0) > 0 and not t.lora_r else 0  # LoRA: adapters off is the reference
    element = 2 if t.bf16 else 4
    model = ModelMemory(
        weight_bytes=(n + (trainable if t.lora_r else 0)) * element,
        trainable_bytes=trainable * element,
        reference_bytes=reference * element,
        kv_bytes_per_token=shape.layers * 2 * shape.kv_heads * shape.head_dim * 2,
        vocab_size=shape.vocab,
        attention_heads=shape.heads,
        intermediate_size=shape.intermediate,
    )
    updates = (t.steps_per_generation or t.gradient_accumulation_steps) // t.gradient_accumulation_steps
    rows = t.prompts_per_step * t.num_generations * updates
    tokens = dict(prompt_tokens=prompt_tokens, completion_tokens=t.max_completion_length)
    chunk = auto_generation_chunk(model, device_bytes=device_bytes, rollout_rows=rows, **tokens)
    estimate = estimate_peak_memory(model, chunk_rows=chunk, **tokens)
    return {
        "profile": name,
        "model": f"{params.model.path} ({n / 1e9:.2f}B{', LoRA r=' + str(t.lora_r) if t.lora_r else ''})",
        "rollout rows": rows,
        "completion tokens": t.max_completion_length,
        "reference copy": "yes" if reference else "no",
        "auto chunk (rows)": chunk,
        "estimate (GiB)": f"{estimate.peak / GIB:.1f}",
        "fits": "yes" if estimate.peak <= device_bytes else "no",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device-gib", type=float, default=79.2, help="the GPU's memory (an H100 80GB: 79.2 GiB)")
    parser.add_argument("--prompt-tokens", type=int, default=512, help="the longest prompt of a rollout batch")
    args = parser.parse_args(argv)
    rows = [profile_row(p, int(args.device_gib * GIB), args.prompt_tokens) for p in PROFILES]
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows:
        print("| " + " | ".join(str(v) for v in row.values()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
