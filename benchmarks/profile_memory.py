"""How many GPUs each paper profile in configs/ needs: the peak memory estimate per card
(``rlvr_lib.training.memory_estimate``:
resident weights, reference copy and AdamW states, then the largest of a generation chunk, the loss pass at the
micro-batch and the optimizer step) for 1 GPU and for 2, 4 and 8 GPUs sharded with FSDP
(configs/accelerate/fsdp2.yaml), at the profile's own batch: per-device micro-batch = prompts_per_step x
num_generations / (gradient_accumulation_steps x GPUs), gradient accumulation as in the profile. CPU only: the
models' shapes are those of their config.json (``memory_probe.SHAPES``; no download), prompts of
``data.max_prompt_tokens`` (else 512) tokens, the generation chunk the trainer picks automatically there.

    python benchmarks/profile_memory.py [--device-gib 79.2]
"""

from __future__ import annotations

import argparse

from rlvr_lib.settings.config import load_params
from rlvr_lib.training.memory_estimate import (
    GIB,
    TrainSetup,
    auto_generation_chunk,
    estimate_peak_memory,
    model_memory_from_config,
)
from rlvr_lib.training.memory_probe import DEFAULT_PROMPT_TOKENS, model_config

PROFILES = ["erpo", "cw_grpo", "tepo", "opefo", "aer"]
GPU_COUNTS = (1, 2, 4, 8)


def profile_rows(name: str, device_bytes: int) -> list[dict]:
    from rlvr_lib.methods import build_method

    params = load_params(f"configs/{name}.yaml")
    t, spec = params.train, params.runs[name]
    prompt = params.data.max_prompt_tokens or DEFAULT_PROMPT_TOKENS
    config = model_config(params.model.path, prompt + t.max_completion_length)
    reference = bool(build_method(spec.method, spec.hparams).needs_reference or t.log_reference_kl) and not t.lora_r
    memory = model_memory_from_config(config, parameter_bytes=2, lora_r=t.lora_r, reference=reference)
    responses = t.prompts_per_step * t.num_generations
    rows = []
    for gpus in GPU_COUNTS:
        if responses % (t.gradient_accumulation_steps * gpus):
            continue
        micro = responses // (t.gradient_accumulation_steps * gpus)
        setup = TrainSetup(
            micro_rows=micro, sequence_tokens=prompt + t.max_completion_length, shards=gpus,
            master_bytes=4 if gpus > 1 else 0, gradient_checkpointing=t.gradient_checkpointing,
        )  # fmt: skip
        rollout = micro * (t.steps_per_generation or t.gradient_accumulation_steps)
        shape = dict(prompt_tokens=prompt, completion_tokens=t.max_completion_length, setup=setup)
        chunk = auto_generation_chunk(memory, device_bytes=device_bytes, rollout_rows=rollout, **shape)
        e = estimate_peak_memory(memory, chunk_rows=chunk, **shape)
        rows.append(
            {
                "profile": name,
                "model": params.model.path + (f" (LoRA r={t.lora_r})" if t.lora_r else ""),
                "reference copy": "yes" if reference else "no",
                "GPUs": gpus if gpus == 1 else f"{gpus} (FSDP)",
                "micro-batch per GPU (rows x tokens)": f"{micro} x {prompt + t.max_completion_length}",
                "gradient accumulation": t.gradient_accumulation_steps,
                "estimate per card (GiB)": f"{e.peak / GIB:.1f}",
                "of which loss pass (GiB)": f"{e.loss_pass / GIB:.1f}",
                "fits": "yes" if e.fits(device_bytes) else "no",
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device-gib", type=float, default=79.2, help="the GPU's memory (an H100 80GB: 79.2 GiB)")
    args = parser.parse_args(argv)
    rows = [row for p in PROFILES for row in profile_rows(p, int(args.device_gib * GIB))]
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows:
        print("| " + " | ".join(str(v) for v in row.values()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
