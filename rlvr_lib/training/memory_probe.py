"""Measure a paper profile's loss pass and optimizer step on the GPU, next to the memory estimate.

    python -m rlvr_lib memory-probe --params configs/tepo.yaml [--run tepo] [--rows N]
    accelerate launch --config_file configs/accelerate/fsdp2.yaml --num_processes 4 \\
        -m rlvr_lib memory-probe --params configs/tepo.yaml          # the sharded set-up

Builds a model of the profile's shape with random weights (its config.json when ``model.path`` is a local folder,
else the shape recorded in ``SHAPES``; no hub access), directly on the GPU in bf16, with TRL's fused LM head and the
trainer's gradient checkpointing, plus the frozen reference copy where the profile's method keeps one. AdamW's
states are allocated first (one step at learning rate 0, as after the first real step), then the peak counter is
reset and the probe runs one loss pass (``length_buckets.token_logps_by_length``, the trainer's own forward) at the
profile's micro-batch (``prompts_per_step x num_generations / (gradient_accumulation_steps x processes)`` rows,
or ``--rows``) and full sequence length (``data.max_prompt_tokens``, else 512, + ``train.max_completion_length``)
with random tokens, one row left-padded by a token (so the attention mask is built, as with real rows of
different lengths), and one AdamW step with gradient clipping. No generation. Prints, per card, the measured peak
(``torch.cuda.max_memory_allocated``; reserved in brackets) of the loss pass and of the step next to the
estimate's, and appends a JSON line to ``--json``. Under ``accelerate launch`` with an FSDP config every process
holds its shard (the reference copy sharded too) and the estimate is the sharded one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rlvr_lib.training.memory_estimate import GIB, TrainSetup, estimate_peak_memory, model_memory_from_config

# config.json of each model a profile names (architecture fields only; the probe's weights are random)
SHAPES = {
    "Qwen/Qwen2.5-1.5B": dict(
        model_type="qwen2", hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
        num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True, rope_theta=1e6,
    ),
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B": dict(
        model_type="qwen2", hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
        num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=False, rope_theta=1e4,
    ),
    "Qwen/Qwen2.5-7B": dict(
        model_type="qwen2", hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
        num_key_value_heads=4, vocab_size=152064, tie_word_embeddings=False, rope_theta=1e6,
    ),
    "Qwen/Qwen2.5-Math-7B": dict(
        model_type="qwen2", hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
        num_key_value_heads=4, vocab_size=152064, tie_word_embeddings=False, rope_theta=1e4,
    ),
    "Qwen/Qwen3-4B-Base": dict(
        model_type="qwen3", hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32,
        num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True, rope_theta=1e6,
    ),
}  # fmt: skip
DEFAULT_PROMPT_TOKENS = 512


def model_config(path: str, sequence_tokens: int, overrides: dict | None = None):
    """The transformers config of ``path`` (a local folder's config.json, else ``SHAPES``), long enough for
    ``sequence_tokens``; ``overrides``: fields to replace (a smaller shape, for tests)."""
    from transformers import AutoConfig

    overrides = dict(overrides or {})
    if (Path(path) / "config.json").exists():
        config = AutoConfig.from_pretrained(path, **overrides)
    elif path in SHAPES:
        fields = {**SHAPES[path], **overrides}
        config = AutoConfig.for_model(fields.pop("model_type"), **fields)
    else:
        raise ValueError(f"model.path {path!r}: neither a local model folder nor one of {sorted(SHAPES)}")
    config.max_position_embeddings = max(getattr(config, "max_position_embeddings", 0) or 0, sequence_tokens)
    config.use_cache = False
    return config


def probe_plan(
    params_file: str,
    run: str | None,
    rows: int | None,
    processes: int,
    sharded: bool,
    *,
    foreach: bool = False,
    reference: bool | None = None,
    overrides: dict | None = None,
    completion_tokens: int | None = None,
):
    """Everything the probe and its estimate need, from the profile (no model built)."""
    from rlvr_lib.methods import build_method
    from rlvr_lib.settings.config import load_params

    params = load_params(params_file)
    if run is None:
        stem = Path(params_file).stem
        run = stem if stem in params.runs else next(iter(params.runs))
    if run not in params.runs:
        raise ValueError(f"{params_file}: --run {run!r} is not an entry of 'methods'; runs: {', '.join(params.runs)}")
    spec = params.runs[run]
    cfg = params.train_config(run, params.seed if isinstance(params.seed, int) else 0)
    responses = cfg.prompts_per_step * cfg.num_generations
    micro = rows or max(1, responses // (cfg.gradient_accumulation_steps * processes))
    prompt_tokens = params.data.max_prompt_tokens or DEFAULT_PROMPT_TOKENS
    sequence = prompt_tokens + (completion_tokens or cfg.max_completion_length)
    method = build_method(spec.method, spec.hparams)
    if reference is None:
        reference = bool(method.needs_reference or cfg.log_reference_kl)
    reference = reference and not cfg.lora_r  # LoRA: the reference is the model with adapters off
    config = model_config(params.model.path, sequence, overrides)
    memory = model_memory_from_config(
        config, parameter_bytes=2 if cfg.bf16 else 4, lora_r=cfg.lora_r, reference=reference
    )
    setup = TrainSetup(
        micro_rows=micro,
        sequence_tokens=sequence,
        shards=processes if sharded else 1,
        master_bytes=4 if sharded and cfg.bf16 else 0,
        fused_optimizer=not foreach,
        gradient_checkpointing=cfg.gradient_checkpointing,
        activation_bytes=2 if cfg.bf16 else 4,
    )
    estimate = estimate_peak_memory(memory, chunk_rows=0, prompt_tokens=0, completion_tokens=0, setup=setup)
    return dict(
        run=run,
        method=spec.method,
        cfg=cfg,
        config=config,
        micro_rows=micro,
        prompt_tokens=prompt_tokens,
        sequence_tokens=sequence,
        reference=reference,
        estimate=estimate,
    )


def run_probe(plan: dict, *, foreach: bool = False, steps: int = 1) -> dict:
    """Build, warm the optimizer, then measure one loss pass and one optimizer step; returns this process's numbers."""
    import torch
    from accelerate import Accelerator
    from transformers import AutoModelForCausalLM
    from trl.trainer.utils import add_fused_lm_head

    from rlvr_lib.training.length_buckets import token_logps_by_length
    from rlvr_lib.training.trainer import RLVRTrainer

    cfg = plan["cfg"]
    accelerator = Accelerator(mixed_precision="bf16" if cfg.bf16 else "no")
    device = accelerator.device
    dtype = torch.bfloat16 if cfg.bf16 else torch.float32
    started = time.perf_counter()
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(plan["config"], dtype=dtype)
    add_fused_lm_head(model, outputs=("log_probs", "entropy"))
    if cfg.lora_r:
        from peft import LoraConfig, get_peft_model

        lora = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM")
        model = get_peft_model(model, lora)
    if cfg.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        if cfg.lora_r:
            model.enable_input_require_grads()
    reference = None
    if plan["reference"]:
        with torch.device(device):
            reference = AutoModelForCausalLM.from_config(plan["config"], dtype=dtype).eval().requires_grad_(False)
        add_fused_lm_head(reference)
    model.train()
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=1e-6,
        fused=not foreach and device.type == "cuda",
        foreach=foreach or None,
    )
    sharded = accelerator.is_fsdp2 or accelerator.distributed_type.name == "FSDP"
    if sharded:
        model, optimizer = accelerator.prepare(model, optimizer)
        if reference is not None:
            from rlvr_lib.training.sharding import shard_frozen

            reference = shard_frozen(reference, accelerator)
    build_s = time.perf_counter() - started
    for group in optimizer.param_groups:  # allocate AdamW's states, as after the first real step
        lr, group["lr"] = group["lr"], 0.0
        for p in group["params"]:
            p.grad = torch.zeros_like(p)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    for group in optimizer.param_groups:
        group["lr"] = lr

    rows, width, keep = plan["micro_rows"], plan["sequence_tokens"], plan["sequence_tokens"] - plan["prompt_tokens"]
    vocab = plan["config"].get_text_config().vocab_size
    generator = torch.Generator(device=device).manual_seed(accelerator.process_index)
    ids = torch.randint(0, vocab, (rows, width), device=device, generator=generator)
    mask = torch.ones_like(ids)
    mask[0, 0] = 0  # one left-padded row: the attention mask is materialised, as with real rows
    result = dict(process=accelerator.process_index, build_s=round(build_s, 1))
    meter = _Meter(device)
    result["resident_gib"] = meter.allocated()
    for _ in range(steps):
        meter.reset()
        t0 = time.perf_counter()
        if reference is not None:  # the reference's no-grad pass on the same rows (the trainer's, at rollout)
            with torch.no_grad():
                token_logps_by_length(
                    reference, ids, mask, keep, rows_per_bucket=RLVRTrainer.LENGTH_BUCKET_ROWS,
                    autocast=accelerator.autocast,
                )  # fmt: skip
        logps, entropies = token_logps_by_length(
            model, ids, mask, keep, rows_per_bucket=RLVRTrainer.LENGTH_BUCKET_ROWS, compute_entropy=True,
            autocast=accelerator.autocast,
        )  # fmt: skip
        loss = -(logps.float().mean()) + 0.0 * entropies.float().mean()
        accelerator.backward(loss)
        loss_pass = meter.peaks()
        meter.reset()
        accelerator.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        step_peak = meter.peaks()
        result.update(
            loss_pass_gib=round(loss_pass[0], 2),
            loss_pass_reserved_gib=round(loss_pass[1], 2),
            step_gib=round(step_peak[0], 2),
            step_reserved_gib=round(step_peak[1], 2),
            peak_gib=round(max(loss_pass[0], step_peak[0]), 2),
            seconds=round(time.perf_counter() - t0, 1),
            loss=float(loss.detach()),
        )
    result["resident_gib"] = round(result["resident_gib"], 2)
    return result


def _device_name() -> str:
    import torch

    return torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"


class _Meter:
    """CUDA's allocator counters in GiB (zeros on the CPU, where the probe only checks that the code runs)."""

    def __init__(self, device):
        import torch

        self.cuda = torch.cuda if device.type == "cuda" else None

    def allocated(self) -> float:
        if self.cuda is None:
            return 0.0
        self.cuda.synchronize()
        return self.cuda.memory_allocated() / GIB

    def reset(self) -> None:
        if self.cuda is not None:
            self.cuda.synchronize()
            self.cuda.reset_peak_memory_stats()

    def peaks(self) -> tuple[float, float]:
        if self.cuda is None:
            return 0.0, 0.0
        self.cuda.synchronize()
        return self.cuda.max_memory_allocated() / GIB, self.cuda.max_memory_reserved() / GIB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib memory-probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", required=True, help="a paper profile, e.g. configs/tepo.yaml")
    parser.add_argument("--run", default=None, help="the methods entry (default: the paper's own, else the first)")
    parser.add_argument("--rows", type=int, default=None, help="micro-batch rows per device (default: the profile's)")
    parser.add_argument(
        "--reference", action="store_true", help="keep a reference copy even where the profile's method keeps none"
    )
    parser.add_argument("--foreach", action="store_true", help="torch.optim.AdamW(foreach=True) instead of fused")
    parser.add_argument("--json", default=None, help="append the result as one JSON line to this file")
    parser.add_argument(
        "--completion-tokens", type=int, default=None, help="instead of train.max_completion_length (a shorter check)"
    )
    parser.add_argument("--cpu", action="store_true", help="run on the CPU (a code check: no memory measured)")
    parser.add_argument(
        "--shape",
        default=None,
        help="JSON of config fields replacing the profile's model shape (a small model, for a code check)",
    )
    parser.add_argument("--estimate-only", action="store_true", help="print the estimate; build nothing")
    args = parser.parse_args(argv)
    try:
        shape = json.loads(args.shape) if args.shape else None
    except ValueError as err:
        raise ValueError(f"--shape {args.shape!r}: not a JSON object of config fields ({err})") from None
    from accelerate import PartialState

    state = PartialState()
    sharded = os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true" and state.num_processes > 1
    plan = probe_plan(
        args.params,
        args.run,
        args.rows,
        state.num_processes,
        sharded,
        foreach=args.foreach,
        reference=args.reference or None,
        overrides=shape,
        completion_tokens=args.completion_tokens,
    )
    estimate = plan["estimate"]
    head = (
        f"{args.params} run {plan['run']} ({plan['method']}): {plan['micro_rows']} rows x {plan['sequence_tokens']} "
        f"tokens per device, {state.num_processes} process(es){' sharded (FSDP)' if sharded else ''}, reference "
        f"copy: {'yes' if plan['reference'] else 'no'}"
    )
    if state.is_main_process:
        print(head)
        print(f"estimate (no generation): {estimate.summary()}", flush=True)
    if args.estimate_only:
        return 0
    import torch

    if not torch.cuda.is_available() and not args.cpu:
        print(
            "error: memory-probe measures a CUDA GPU; none is visible (--estimate-only prints the estimate)",
            file=sys.stderr,
        )
        return 2
    try:
        result = run_probe(plan, foreach=args.foreach)
    except torch.OutOfMemoryError as err:
        print(
            f"OUT OF MEMORY on process {state.process_index} ({_device_name()}): "
            f"{str(err).splitlines()[0]}; the estimate was {estimate.peak / GIB:.2f} GiB",
            flush=True,
        )
        os._exit(3)  # the other processes are stopped by accelerate launch
    result.update(
        params=args.params,
        run=plan["run"],
        micro_rows=plan["micro_rows"],
        sequence_tokens=plan["sequence_tokens"],
        processes=state.num_processes,
        sharded=sharded,
        reference=plan["reference"],
        optimizer="adamw foreach" if args.foreach else "adamw fused",
        device=_device_name(),
        estimate_gib=round(estimate.peak / GIB, 2),
        estimate_loss_pass_gib=round(
            (estimate.weights + estimate.reference + estimate.optimizer + estimate.gathered + estimate.loss_pass) / GIB,
            2,
        ),
        estimate_step_gib=round(
            (estimate.weights + estimate.reference + estimate.optimizer + estimate.gathered + estimate.step) / GIB, 2
        ),
    )
    print(
        f"process {result['process']} ({result['device']}): measured peak {result['peak_gib']:.2f} GiB (loss pass "
        f"{result['loss_pass_gib']:.2f} [reserved {result['loss_pass_reserved_gib']:.2f}], optimizer step "
        f"{result['step_gib']:.2f}); estimate {result['estimate_gib']:.2f} GiB (loss pass "
        f"{result['estimate_loss_pass_gib']:.2f}, step {result['estimate_step_gib']:.2f}); ratio "
        f"{result['peak_gib'] / max(result['estimate_gib'], 1e-9):.3f}; build {result['build_s']} s, pass + step "
        f"{result['seconds']} s",
        flush=True,
    )
    if args.json:
        with open(args.json, "a") as out:
            out.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
