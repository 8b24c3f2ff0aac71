"""Sharded (FSDP) training with 2 processes equals 1 process: losses and weights after a few optimizer steps.

A small Qwen2-shaped model (random weights, fp32, no mixed precision so the comparison is not one of bf16
rounding) trains ``STEPS`` AdamW steps on fixed random token rows through the trainer's own loss-pass forward
(``length_buckets.token_logps_by_length`` with TRL's fused LM head) and gradient clipping; every step's global
batch is the same ``ROWS`` rows, split over the processes (each process's loss is the mean over its rows, and
FSDP averages the gradients, so the update is the full batch's). Writes the per-step global losses and the full
weights (gathered) of process 0.

    accelerate launch --config_file configs/accelerate/fsdp2.yaml --mixed_precision no --num_processes 1 \\
        benchmarks/gpu_fsdp_equality.py run --out DIR/1
    accelerate launch --config_file configs/accelerate/fsdp2.yaml --mixed_precision no --num_processes 2 \\
        benchmarks/gpu_fsdp_equality.py run --out DIR/2
    python benchmarks/gpu_fsdp_equality.py compare DIR/1 DIR/2 [--tol 1e-5]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROWS, TOKENS, PROMPT, STEPS = 8, 96, 32, 4
SHAPE = dict(
    hidden_size=256, intermediate_size=512, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
    vocab_size=2048, max_position_embeddings=256, tie_word_embeddings=False,
)  # fmt: skip


def run(out: Path, optim: str = "adamw") -> None:
    import torch
    from accelerate import Accelerator
    from transformers import Qwen2Config, Qwen2ForCausalLM
    from trl.trainer.utils import add_fused_lm_head

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from rlvr_lib.training.length_buckets import token_logps_by_length

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    accelerator = Accelerator()
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(Qwen2Config(**SHAPE, attn_implementation="sdpa")).to(accelerator.device)
    model.gradient_checkpointing_enable()
    add_fused_lm_head(model, outputs=("log_probs", "entropy"))
    model.train()
    optimizer = (
        torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
        if optim == "adamw"
        else torch.optim.SGD(model.parameters(), lr=0.1)
    )
    model, optimizer = accelerator.prepare(model, optimizer)
    initial = {k: v.detach().float().cpu().clone() for k, v in accelerator.get_state_dict(model).items()}
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, SHAPE["vocab_size"], (STEPS, ROWS, TOKENS), generator=g)
    per = ROWS // accelerator.num_processes
    mine = slice(accelerator.process_index * per, (accelerator.process_index + 1) * per)
    losses = []
    for step in range(STEPS):
        rows = ids[step, mine].to(accelerator.device)
        mask = torch.ones_like(rows)
        logps, entropies = token_logps_by_length(
            model, rows, mask, TOKENS - PROMPT, rows_per_bucket=32, compute_entropy=True, autocast=accelerator.autocast
        )
        loss = -logps.mean() - 0.01 * entropies.mean()
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(accelerator.reduce(loss.detach(), reduction="mean")))
    state = accelerator.get_state_dict(model)
    if accelerator.is_main_process:
        out.mkdir(parents=True, exist_ok=True)
        torch.save({k: v.float().cpu() for k, v in state.items()}, out / "weights.pt")
        torch.save({k: v.float().cpu() for k, v in initial.items()}, out / "initial.pt")
        info = dict(optimizer=optim, processes=accelerator.num_processes, distributed=str(accelerator.distributed_type),
                    fsdp2=accelerator.is_fsdp2, device=str(accelerator.device), losses=losses)  # fmt: skip
        (out / "equality.json").write_text(json.dumps(info, indent=1))
        print(json.dumps(info))
    accelerator.wait_for_everyone()


def compare(a: Path, b: Path, tol: float) -> bool:
    import torch

    ia, ib = (json.loads((d / "equality.json").read_text()) for d in (a, b))
    wa, wb = (torch.load(d / "weights.pt") for d in (a, b))
    loss_diff = max(abs(x - y) for x, y in zip(ia["losses"], ib["losses"], strict=True))
    start = torch.load(a / "initial.pt")  # how far the steps moved the weights: what the equality is about
    moved = max(float((wa[k] - start[k]).abs().max()) for k in wa)
    diffs = {k: (wa[k] - wb[k]).abs() for k in wa}
    worst = max(diffs, key=lambda k: float(diffs[k].max()))
    weight_diff = float(diffs[worst].max())
    above = sum(int((d > tol).sum()) for d in diffs.values())
    elements = sum(d.numel() for d in diffs.values())
    ok = sorted(wa) == sorted(wb) and loss_diff <= tol and weight_diff <= tol
    print(
        f"{ia.get('optimizer', 'adamw')}: processes {ia['processes']} vs {ib['processes']}: {ia['distributed']} "
        f"(fsdp2 {ia['fsdp2']}) vs {ib['distributed']} (fsdp2 {ib['fsdp2']}), {ib['device']}"
    )
    print(f"losses {ia['losses']} vs {ib['losses']}: max |difference| {loss_diff:.3e}")
    print(
        f"weights ({len(wa)} tensors, moved by up to {moved:.3e} from the start): max |difference| {weight_diff:.3e} "
        f"(in {worst}); {above} of {elements} elements differ by more than {tol:g}"
    )
    print(f"tolerance {tol:g}: {'PASS' if ok else 'FAIL'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--optim", choices=["adamw", "sgd"], default="adamw")
    c = sub.add_parser("compare")
    c.add_argument("one", type=Path)
    c.add_argument("two", type=Path)
    c.add_argument("--tol", type=float, default=1e-5)
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.out, args.optim)
        return 0
    return 0 if compare(args.one, args.two, args.tol) else 1


if __name__ == "__main__":
    raise SystemExit(main())
