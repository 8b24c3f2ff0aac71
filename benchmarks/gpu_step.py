"""GPU step benchmark (issue 11): our ``grpo`` against stock TRL ``GRPOTrainer``, and every method against ``grpo``.

A randomly initialised model of Qwen2.5-Math-1.5B's shape (151,936-row vocabulary, the real Qwen2.5 tokenizer
built from ``qwen.tiktoken``), MATH-500 prompts, bf16. Random weights never emit EOS, so every completion runs
to ``--max-completion-length``: the step is a worst case for generation, identical for both trainers.

Subcommands:
  model     build the model + tokenizer folder:      gpu_step.py model OUT --data-root DATA
  one       time one configuration in THIS process:  gpu_step.py one --impl ours|trl --model M ...
            (prints one ``RESULT {json}`` line: per-step wall times, generation times, tokens, peak memory)
  compare   run ``one`` for several configurations, each in its own process, alternating, repeated;
            prints medians with min-max spread and ratios to the first configuration
  table     the table of ``compare`` from its ``--log`` files (several calls' repeats together)
  methods   one process, one rollout batch: time every method's update (rollout hook + loss + backward +
            optimizer step, micro-batched as training does) against grpo's, and its peak memory
  rollout   generation alone (model.generate) with a transformers option (default | static | static_compile | paged)

Each configuration is timed in its own process: a second trainer built in one process generated ~4x slower
(seen on an H200, stock TRL too). Step times vary by +-25% (generation dominates): read medians of repeats.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

QWEN25_MATH_1_5B = dict(  # config.json of Qwen/Qwen2.5-Math-1.5B
    vocab_size=151936,
    hidden_size=1536,
    intermediate_size=8960,
    num_hidden_layers=28,
    num_attention_heads=12,
    num_key_value_heads=2,
    max_position_embeddings=4096,
    rope_theta=10000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
    bos_token_id=151643,
    eos_token_id=151643,
    use_sliding_window=False,
)


# ----------------------------------------------------------------------------- model
def build_model(out: Path, data_root: str | None, seed: int = 0) -> Path:
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from rlvr_lib.tasks.data import resolve_data_root
    from rlvr_lib.tasks.qwen_tokenizer import save_qwen_tokenizer

    save_qwen_tokenizer(resolve_data_root(data_root) / "tokenizers" / "qwen.tiktoken", out)
    torch.manual_seed(seed)
    config = Qwen2Config(**QWEN25_MATH_1_5B, pad_token_id=151643)
    with torch.device("cuda" if torch.cuda.is_available() else "cpu"):
        model = Qwen2ForCausalLM(config).to(torch.bfloat16)
    model.generation_config.eos_token_id = 151643
    model.save_pretrained(out)
    print(f"model: {sum(p.numel() for p in model.parameters()) / 1e9:.3f}B parameters -> {out}")
    return out


def sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def peak_gib(reserved: bool = False) -> float:
    import torch

    if not torch.cuda.is_available():
        return 0.0
    return (torch.cuda.max_memory_reserved() if reserved else torch.cuda.max_memory_allocated()) / 2**30


def reset_peak() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()


def model_dtype():
    import torch

    return torch.bfloat16 if torch.cuda.is_available() else torch.float32


def math500_records(data_root: str | None, n: int) -> list[dict]:
    from rlvr_lib.tasks.data import format_prompt, load_benchmark

    rows = load_benchmark("math500", data_root)
    rows = (rows * (n // len(rows) + 1))[:n]
    return [{"prompt": format_prompt(r["problem"]), "answer": r["answer"]} for r in rows]


# ----------------------------------------------------------------------------- one configuration
def add_shape_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True)
    p.add_argument("--data-root", default=None)
    p.add_argument("--method", default="grpo")
    p.add_argument("--prompts", type=int, default=8)
    p.add_argument("--generations", type=int, default=8)
    p.add_argument("--grad-accum", type=int, default=1)
    p.add_argument("--steps-per-generation", type=int, default=None)
    p.add_argument("--max-completion-length", type=int, default=1024)
    p.add_argument("--lora-r", type=int, default=0)
    p.add_argument("--gradient-checkpointing", action="store_true")
    p.add_argument("--log-reference-kl", choices=["auto", "on", "off"], default="auto")
    p.add_argument("--generation", choices=["default", "static_compile", "continuous_batching"], default="default")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--warmup-steps", type=int, default=1, help="leading steps left out of the medians")
    p.add_argument(
        "--behaviour-forward",
        action="store_true",
        help="ours: always run hook 1's no-grad behaviour forward (RLVRTrainer.DEFER_BEHAVIOUR = False, as before)",
    )


def train_config(args):
    import torch

    from rlvr_lib.settings.config import TrainConfig

    return TrainConfig(
        max_steps=args.steps,
        prompts_per_step=args.prompts,
        num_generations=args.generations,
        gradient_accumulation_steps=args.grad_accum,
        steps_per_generation=args.steps_per_generation,
        max_completion_length=args.max_completion_length,
        learning_rate=1e-6,
        bf16=torch.cuda.is_available(),
        gradient_checkpointing=args.gradient_checkpointing,
        lora_r=args.lora_r,
        lora_alpha=2 * max(args.lora_r, 1),
        log_reference_kl={"auto": None, "on": True, "off": False}[args.log_reference_kl],
        rollout_generation=args.generation,
    )


def cmd_one(args) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOTrainer

    from rlvr_lib.methods import build_method
    from rlvr_lib.tasks.rewards import accuracy_reward, format_reward
    from rlvr_lib.training.train import grpo_config, records_dataset
    from rlvr_lib.training.trainer import RLVRTrainer

    cfg = train_config(args)
    out = Path(os.environ.get("GPU_STEP_TMP", "/tmp/gpu_step")) / f"{args.impl}_{args.method}_{os.getpid()}"
    targs = grpo_config(cfg, out)  # the generation option too (cache_implementation / continuous batching)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=model_dtype())
    peft_config = None
    if cfg.lora_r:
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=cfg.lora_r, lora_alpha=cfg.lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM"
        )
    common = dict(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[accuracy_reward, format_reward],
        train_dataset=records_dataset(math500_records(args.data_root, 4096)),
        peft_config=peft_config,
    )
    if args.impl == "trl":
        targs.loss_type = "grpo"  # the stock loss our grpo reproduces (tests/test_trainer.py parity)
        trainer = GRPOTrainer(args=targs, **common)
        if args.generation == "static_compile":
            trainer.generation_config.disable_compile = False  # as RLVRTrainer(compile_generation=True) does
    else:
        RLVRTrainer.DEFER_BEHAVIOUR = not args.behaviour_forward
        trainer = RLVRTrainer(
            args=targs,
            method=build_method(args.method),
            log_reference_kl=cfg.log_reference_kl,
            compile_generation=args.generation == "static_compile",
            **common,
        )

    gen_times: list[float] = []
    original = GRPOTrainer._generate_single_turn

    def timed_generate(self, *a, **k):
        sync()
        t0 = time.perf_counter()
        result = original(self, *a, **k)
        sync()
        gen_times.append(time.perf_counter() - t0)
        return result

    GRPOTrainer._generate_single_turn = timed_generate
    step_times: list[float] = []

    class StepTimer(TrainerCallback):
        def on_step_begin(self, *a, **k):
            sync()
            self.t0 = time.perf_counter()

        def on_step_end(self, *a, **k):
            sync()
            step_times.append(time.perf_counter() - self.t0)

    trainer.add_callback(StepTimer())
    reset_peak()
    trainer.train()
    logs = [row for row in trainer.state.log_history if "completions/mean_length" in row]
    responses = cfg.prompts_per_step * cfg.num_generations
    tokens = [row["completions/mean_length"] * responses for row in logs]
    result = {
        "impl": args.impl,
        "method": args.method,
        "generation": args.generation,
        "lora_r": cfg.lora_r,
        "gradient_checkpointing": cfg.gradient_checkpointing,
        "reference_model": getattr(trainer, "ref_model", None) is not None,
        "log_reference_kl": getattr(trainer, "log_reference_kl", None),
        "responses_per_step": responses,
        "step_s": step_times,
        "generation_s": gen_times,
        "completion_tokens_per_step": tokens,
        "peak_allocated_gib": peak_gib(),
        "peak_reserved_gib": peak_gib(reserved=True),
        "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
        "warmup_steps": args.warmup_steps,
        "behaviour_forward": args.behaviour_forward,
    }
    print("RESULT " + json.dumps(result), flush=True)


# ----------------------------------------------------------------------------- compare (one process each)
def summarise(result: dict) -> dict:
    w = result["warmup_steps"]
    steps = result["step_s"][w:] or result["step_s"]
    tokens = result["completion_tokens_per_step"][w:] or result["completion_tokens_per_step"]
    gens = result["generation_s"][w:] or result["generation_s"] or [float("nan")]  # none: not HF generate (CPU)
    step = statistics.median(steps)
    return {
        "step_s": step,
        "tokens_per_s": statistics.median(tokens) / step,
        "peak_gib": result["peak_allocated_gib"],
        "reserved_gib": result["peak_reserved_gib"],
        "generation_s": statistics.median(gens),
        # one generation per step here (one update per rollout batch): the rest of the step, step by step
        "rest_s": statistics.median(s - g for s, g in zip(steps, gens, strict=False)),
    }


def cmd_compare(args) -> None:
    configs = [c.strip() for c in args.configs]
    names = [c.split("=", 1)[0] for c in configs]
    runs: dict[str, list[dict]] = {n: [] for n in names}
    log = open(args.log, "a") if args.log else None
    start = time.perf_counter()
    for r in range(args.repeats):
        pairs = list(zip(names, configs, strict=True))
        order = pairs if r % 2 == 0 else pairs[::-1]  # alternate
        for name, spec in order:
            if args.deadline and time.perf_counter() - start > args.deadline:
                print(f"deadline ({args.deadline:g} s): {name} repeat {r} not started", flush=True)
                continue
            extra = spec.split("=", 1)[1]
            cmd = [sys.executable, __file__, "one", *shlex.split(args.common), *shlex.split(extra)]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            line = next((out for out in proc.stdout.splitlines() if out.startswith("RESULT ")), None)
            if line is None:
                print(f"{name} (repeat {r}) FAILED rc={proc.returncode}\n{proc.stderr[-3000:]}", flush=True)
                continue
            result = json.loads(line[len("RESULT ") :])
            runs[name].append(result)
            s = summarise(result)
            print(
                f"[repeat {r}] {name}: step {s['step_s']:.2f} s, gen {s['generation_s']:.2f} s, "
                f"{s['tokens_per_s']:.0f} tok/s, peak {s['peak_gib']:.2f} GiB ({time.perf_counter() - t0:.0f} s wall)",
                flush=True,
            )
            if log:
                log.write(json.dumps({"name": name, "repeat": r, **result}) + "\n")
                log.flush()
    print_table(runs, names[0])


def print_table(runs: dict[str, list[dict]], base: str) -> None:
    def stats(name, key):
        values = [summarise(r)[key] for r in runs[name]]
        return (statistics.median(values), min(values), max(values)) if values else (float("nan"),) * 3

    gpus = sorted({r["gpu"] for rs in runs.values() for r in rs})
    print(f"\nGPU: {', '.join(gpus) or '?'}; medians over repeats (each repeat: median of its timed steps), [min-max]")
    print(
        "| config | repeats | step s | generation s | step - generation s | tokens/s | peak GiB (alloc / reserved) "
        "| step / base | rest / base | peak / base |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    b_step, b_rest, b_peak = (stats(base, k)[0] for k in ("step_s", "rest_s", "peak_gib"))
    for name in runs:
        st, ge, re, tk, pk, rs = (
            stats(name, k) for k in ("step_s", "generation_s", "rest_s", "tokens_per_s", "peak_gib", "reserved_gib")
        )
        print(
            f"| {name} | {len(runs[name])} | {st[0]:.2f} [{st[1]:.2f}-{st[2]:.2f}] | "
            f"{ge[0]:.2f} [{ge[1]:.2f}-{ge[2]:.2f}] | {re[0]:.3f} [{re[1]:.3f}-{re[2]:.3f}] | "
            f"{tk[0]:.0f} [{tk[1]:.0f}-{tk[2]:.0f}] | {pk[0]:.2f} / {rs[0]:.2f} | {st[0] / b_step:.3f} | "
            f"{re[0] / b_rest:.3f} | {pk[0] / b_peak if b_peak else float('nan'):.3f} |"
        )


def cmd_table(args) -> None:
    """``compare``'s table from its jsonl logs; configurations in first-seen order, the first is the base."""
    runs: dict[str, list[dict]] = {}
    for path in args.logs:
        for line in Path(path).read_text().splitlines():
            row = json.loads(line)
            runs.setdefault(row["name"], []).append(row)
    if args.base:
        runs = {args.base: runs.pop(args.base), **runs}
    print_table(runs, next(iter(runs)))


# ----------------------------------------------------------------------------- methods (update cost)
def cmd_methods(args) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOTrainer
    from trl.trainer.utils import split_tensor_dict

    from rlvr_lib.methods import available_methods, build_method
    from rlvr_lib.tasks.rewards import accuracy_reward, format_reward
    from rlvr_lib.training.train import grpo_config, records_dataset
    from rlvr_lib.training.trainer import RLVRTrainer

    cfg = dataclasses.replace(train_config(args), log_reference_kl=True)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=model_dtype())
    trainer = RLVRTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[accuracy_reward, format_reward],
        args=grpo_config(cfg, Path("/tmp/gpu_step/methods")),
        method=build_method("grpo"),
        log_reference_kl=True,
        train_dataset=records_dataset(math500_records(args.data_root, 512)),
    )
    trainer.create_optimizer_and_scheduler(num_training_steps=1)
    trainer.model.train()
    batch = next(iter(trainer.get_train_dataloader()))
    sync()
    t0 = time.perf_counter()
    scored = GRPOTrainer._generate_and_score_completions(trainer, batch)  # TRL's, without our hook
    sync()
    generation_s = time.perf_counter() - t0
    rewards = trainer._rewards_per_func
    micro = cfg.gradient_accumulation_steps

    def update(method_name: str) -> float:
        method = build_method(method_name)
        trainer.method = method
        trainer._uses_reference = method.needs_reference  # the KL-logging forward is not a method cost
        sync()
        start = time.perf_counter()
        trainer._rewards_per_func = rewards
        trainer._behaviour_cache = None
        inputs = trainer.apply_rollout_hook(dict(scored))
        trainer.current_gradient_accumulation_steps = micro
        for mb in split_tensor_dict(inputs, micro):
            with trainer.accelerator.autocast():
                loss = trainer._compute_loss(trainer.model, mb)
            trainer.accelerator.backward(loss)
        trainer.optimizer.step()
        trainer.optimizer.zero_grad(set_to_none=True)
        sync()
        return time.perf_counter() - start

    methods = ["grpo"] + [m for m in (args.methods or available_methods()) if m != "grpo"]
    times = {m: [] for m in methods}
    peaks = {m: 0.0 for m in methods}
    for m in methods:  # warm-up
        update(m)
    for _ in range(args.rounds):
        for m in methods:
            reset_peak()
            times[m].append(update(m))
            peaks[m] = max(peaks[m], peak_gib())
    tokens = int(scored["completion_mask"].sum())
    base = statistics.median(times["grpo"])
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"
    print(
        f"GPU: {gpu}; batch {scored['completion_ids'].shape[0]} responses x "
        f"{scored['completion_ids'].shape[1]} tokens ({tokens} completion tokens), {micro} micro-batches; generation "
        f"{generation_s:.2f} s (same for every method); {args.rounds} rounds"
    )
    print("| method | update s (median [min-max]) | update / grpo | full step / grpo | peak GiB |")
    print("|---|---|---|---|---|")
    for m in methods:
        med = statistics.median(times[m])
        print(
            f"| {m} | {med:.3f} [{min(times[m]):.3f}-{max(times[m]):.3f}] | {med / base:.3f} | "
            f"{(generation_s + med) / (generation_s + base):.3f} | {peaks[m]:.2f} |"
        )


# ----------------------------------------------------------------------------- rollout options
def cmd_rollout(args) -> None:
    """Tokens/s of model.generate (or generate_batch) on MATH-500 prompts, one option per process."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=model_dtype()).cuda().eval()
    prompts = [r["prompt"] for r in math500_records(args.data_root, args.batch)]
    enc = tokenizer(prompts, return_tensors="pt", padding=True).to("cuda")
    gen = dict(
        max_new_tokens=args.new_tokens,
        do_sample=True,
        temperature=1.0,
        top_p=1.0,
        top_k=0,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    times = []
    for rep in range(args.repeats + 1):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.no_grad():
            if args.option == "paged":
                out = model.generate_batch(
                    inputs=[ids[m.bool()].tolist() for ids, m in zip(enc.input_ids, enc.attention_mask, strict=False)],
                    generation_config=GenerationConfig(**gen),
                )
                n_tokens = sum(len(o.generated_tokens) for o in out.values())
            else:
                kwargs = {}
                if args.option in ("static", "static_compile"):
                    kwargs["cache_implementation"] = "static"
                if args.option == "static":
                    kwargs["disable_compile"] = True  # what TRL passes
                out = model.generate(**enc, **gen, **kwargs)
                n_tokens = int((out[:, enc.input_ids.shape[1] :] != tokenizer.pad_token_id).sum())
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        print(
            f"{args.option} rep {rep}: {times[-1]:.2f} s, {n_tokens} tokens, {n_tokens / times[-1]:.0f} tok/s",
            flush=True,
        )
    best = statistics.median(times[1:])  # first call compiles / warms up
    print(
        "RESULT "
        + json.dumps(
            {
                "option": args.option,
                "batch": args.batch,
                "new_tokens": args.new_tokens,
                "first_s": times[0],
                "median_s": best,
                "tokens_per_s": n_tokens / best,
                "gpu": torch.cuda.get_device_name(),
            }
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("model")
    p.add_argument("out", type=Path)
    p.add_argument("--data-root", default=None)
    p = sub.add_parser("one")
    p.add_argument("--impl", choices=["ours", "trl"], default="ours")
    add_shape_args(p)
    p = sub.add_parser("compare")
    p.add_argument("--common", default="", help="arguments of `one` shared by every configuration")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--log", default=None)
    p.add_argument("--deadline", type=float, default=0, help="start no configuration after this many seconds")
    p.add_argument("configs", nargs="+", help="NAME='one-arguments', e.g. trl='--impl trl' ours='--impl ours'")
    p = sub.add_parser("table")
    p.add_argument("logs", nargs="+")
    p.add_argument("--base", default=None, help="the configuration the ratios divide by (default: the first)")
    p = sub.add_parser("methods")
    add_shape_args(p)
    p.add_argument("--methods", nargs="*", default=None)
    p.add_argument("--rounds", type=int, default=3)
    p = sub.add_parser("rollout")
    p.add_argument("--model", required=True)
    p.add_argument("--data-root", default=None)
    p.add_argument("--option", choices=["default", "static", "static_compile", "paged"], default="default")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--new-tokens", type=int, default=256)
    p.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    {
        "model": lambda a: build_model(a.out, a.data_root),
        "one": cmd_one,
        "compare": cmd_compare,
        "table": cmd_table,
        "methods": cmd_methods,
        "rollout": cmd_rollout,
    }[args.cmd](args)


if __name__ == "__main__":
    main()
