"""Advantages and method state with N processes equal those with 1 process on the same rollout batch (issue 11).

The methods that need whole-group statistics (ERPO, CW-GRPO) or global state (AER) see, in the trainer's
rollout hook, a batch gathered over processes. This script builds one fixed global rollout batch (rewards,
behaviour and reference log-probs, entropies, ragged completion lengths), gives each process its rows padded
to ITS OWN longest completion (as TRL does), runs ``RLVRTrainer.apply_rollout_hook`` and the optimizer-step
hook for three rollout batches, and saves the gathered advantages, extras and method state.

    accelerate launch --num_processes 2 benchmarks/dist_equality.py run --out DIR/2     # GPUs (NCCL)
    torchrun --nproc_per_node 2 benchmarks/dist_equality.py run --out DIR/2 --cpu      # CPUs (gloo)
    python benchmarks/dist_equality.py run --out DIR/1 [--cpu]
    python benchmarks/dist_equality.py compare DIR/1 DIR/2 [--tol 1e-5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

METHODS = {"erpo": {}, "cw_grpo": {}, "aer": {}, "grpo": {}}
B, G, T, P, VOCAB = 16, 4, 12, 3, 24  # responses, group size, max completion, prompt length, vocabulary
ENTROPY_SCALES = (1.0, 0.2, 0.2)  # three rollout batches; the low entropy of the last two raises AER's alpha


def global_batch(seed: int, entropy_scale: float = 1.0):
    """One rollout batch as the trainer sees it after gathering: (rewards (B, 2), lengths (B,), logps, entropies,
    ref_logps (B, T)), including an all-correct and an all-wrong group. ``entropy_scale`` < tau moves AER's alpha."""
    import torch

    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(2, T + 1, (B,), generator=g)
    lengths[0] = T
    accuracy = torch.randint(0, 2, (B,), generator=g).float()
    accuracy[0:G] = 1.0
    accuracy[G : 2 * G] = 0.0
    rewards = torch.stack([accuracy, torch.ones(B)], dim=1)
    logps = -3 * torch.rand(B, T, generator=g)
    entropies = 2 * entropy_scale * torch.rand(B, T, generator=g)
    ref_logps = logps + 0.3 * torch.randn(B, T, generator=g)
    return rewards, lengths, logps, entropies, ref_logps


def tiny_model_and_tokenizer():
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    vocab = {"<|endoftext|>": 0, **{chr(97 + i): i + 1 for i in range(VOCAB - 1)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<|endoftext|>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>", padding_side="left"
    )
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(
        Qwen2Config(
            vocab_size=VOCAB,
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=64,
            eos_token_id=0,
            pad_token_id=0,
            bos_token_id=None,
        )
    )
    return model, tokenizer


def accuracy(prompts, completions, **kwargs):
    return [0.0] * len(completions)


def fmt(prompts, completions, **kwargs):
    return [1.0] * len(completions)


accuracy.__name__, fmt.__name__ = "accuracy", "format"


def cmd_run(args) -> None:
    import torch
    from accelerate import PartialState
    from datasets import Dataset
    from trl import GRPOConfig

    from rlvr_lib.methods import build_method
    from rlvr_lib.training.trainer import RLVRTrainer

    state = PartialState(cpu=args.cpu)
    n, rank = state.num_processes, state.process_index
    if B % n:
        raise SystemExit(f"{B} responses do not split over {n} processes")
    rows = slice(rank * B // n, (rank + 1) * B // n)
    results = {}
    for name, hparams in METHODS.items():
        model, tokenizer = tiny_model_and_tokenizer()
        trainer = RLVRTrainer(
            model=model,
            processing_class=tokenizer,
            reward_funcs=[accuracy, fmt],
            method=build_method(name, **hparams),
            train_dataset=Dataset.from_list([{"prompt": "ab", "answer": "1"}] * B),
            log_reference_kl=False,
            args=GRPOConfig(
                output_dir=tempfile.mkdtemp(),
                per_device_train_batch_size=B // n,
                num_generations=G,
                max_completion_length=T,
                use_cpu=args.cpu,
                bf16=False,
                report_to=[],
                beta=0.0,
                gradient_checkpointing=False,
                save_strategy="no",
                logging_steps=1,
            ),
        )
        device = trainer.accelerator.device
        trainer.model.train()
        per_iteration = []
        for it, scale in enumerate(ENTROPY_SCALES):
            rewards, lengths, logps, entropies, ref_logps = global_batch(seed=100 * it + 7, entropy_scale=scale)
            local_len = lengths[rows]
            t_local = int(local_len.max())  # this process pads to its own longest completion
            mask = (torch.arange(t_local)[None, :] < local_len[:, None]).long()
            local = {
                k: v[rows, :t_local].to(device)
                for k, v in {"logps": logps, "entropies": entropies, "ref": ref_logps}.items()
            }

            def fake_forward(model, input_ids, attention_mask, logits_to_keep, *a, trainer=trainer, local=local, **k):
                if trainer.ref_model is not None and model is trainer.ref_model:
                    return local["ref"], None, None
                return local["logps"], local["entropies"], None

            trainer._get_per_token_logps_and_entropies = fake_forward
            trainer._rewards_per_func = rewards.to(device)
            output = {
                "prompt_ids": torch.ones(mask.size(0), P, dtype=torch.long, device=device),
                "prompt_mask": torch.ones(mask.size(0), P, dtype=torch.long, device=device),
                "completion_ids": torch.randint(1, VOCAB, mask.shape, device=device) * mask.to(device),
                "completion_mask": mask.to(device),
                "advantages": torch.zeros(mask.size(0), device=device),
                "num_items_in_batch": mask.sum().to(device),
            }
            output = trainer.apply_rollout_hook(output)
            gathered = {"advantages": trainer._gather_rows(output["advantages"].float())}
            for key, value in output.items():
                if key.startswith("method_extra/"):
                    value = value.float()
                    gathered[key] = (
                        trainer._gather_rows(value) if value.dim() == 2 else trainer.accelerator.gather(value)
                    )
            step_metrics = trainer.method.on_optimizer_step()
            per_iteration.append(
                {
                    **{k: v.cpu().tolist() for k, v in gathered.items()},
                    "mask": (torch.arange(T)[None, :] < lengths[:, None]).float().tolist(),
                    "state": trainer.method.state_dict(),
                    "step_metrics": step_metrics,
                }
            )
        results[name] = per_iteration
    if state.is_main_process:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "equality.json").write_text(json.dumps({"processes": n, "device": str(device), "results": results}))
        print(f"wrote {out / 'equality.json'} ({n} processes on {device})")
    state.wait_for_everyone()


def _max_diff(a, b, mask=None) -> float:
    import torch

    a, b = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)
    width = min(a.shape[-1], b.shape[-1]) if a.dim() == 2 else None
    if width is not None:  # padding past a process's longest row differs; compare the completion tokens
        a, b = a[:, :width], b[:, :width]
        if mask is not None:
            m = torch.tensor(mask, dtype=torch.float64)[:, :width]
            a, b = a * m, b * m
    return float((a - b).abs().max())


def _state_diff(a, b) -> float:
    worst = 0.0
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            worst = max(worst, abs(float(x) - float(y)))
        elif x != y:
            return float("inf")
    return worst


def compare(dir_a: str, dir_b: str, tol: float) -> bool:
    a = json.loads((Path(dir_a) / "equality.json").read_text())
    b = json.loads((Path(dir_b) / "equality.json").read_text())
    print(
        f"{a['processes']} process(es) on {a['device']}  vs  {b['processes']} process(es) on {b['device']}; tol {tol:g}"
    )
    print("| method | rollout | max |adv diff| | max |extra diff| | max |state diff| | state (N processes) |")
    print("|---|---|---|---|---|---|")
    ok = True
    for name in a["results"]:
        for it, (x, y) in enumerate(zip(a["results"][name], b["results"][name], strict=False)):
            adv = _max_diff(x["advantages"], y["advantages"], x["mask"])
            extra = max(
                [
                    _max_diff(x[k], y[k], x["mask"] if len(torch_shape(x[k])) == 2 else None)
                    for k in x
                    if k.startswith("method_extra/")
                ]
                or [0.0]
            )
            state = _state_diff(x["state"], y["state"])
            ok &= adv <= tol and extra <= tol and state <= tol
            print(f"| {name} | {it} | {adv:.2e} | {extra:.2e} | {state:.2e} | {json.dumps(y['state'])} |")
    print("PASS" if ok else "FAIL")
    return ok


def torch_shape(x) -> tuple:
    shape = []
    while isinstance(x, list):
        shape.append(len(x))
        x = x[0] if x else None
    return tuple(shape)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--out", required=True)
    p.add_argument("--cpu", action="store_true")
    p = sub.add_parser("compare")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, default=1e-5)
    args = parser.parse_args()
    if args.cmd == "run":
        cmd_run(args)
    else:
        sys.exit(0 if compare(args.a, args.b, args.tol) else 1)


if __name__ == "__main__":
    main()
