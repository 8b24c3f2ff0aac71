"""Time one training update of every registered method against ``grpo`` on the same model and batch.

One batch is generated once (testbed prompts, the testbed model); then, in interleaved rounds, each method
runs what differs between methods on that batch: the rollout hook (behaviour + reference forward passes and
the method's advantages), the loss forward/backward and the optimizer step. Generation is identical code
for every method, so it is timed once and reported separately; the full-step ratio adds it back.

    dvc repro data base_model@0          # on a fresh clone: the data and training seed 0's base policy first
    python benchmarks/method_overhead.py --model models/base/seed0 [--rounds 15] [--methods grpo erpo ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from rlvr_lib.methods import available_methods, build_method  # noqa: E402
from rlvr_lib.settings.config import TrainConfig  # noqa: E402
from rlvr_lib.tasks.rewards import accuracy_reward, format_reward  # noqa: E402
from rlvr_lib.testbed import make_splits, to_records  # noqa: E402
from rlvr_lib.training.train import grpo_config, records_dataset  # noqa: E402
from rlvr_lib.training.trainer import RLVRTrainer  # noqa: E402


def make_trainer(model_dir: Path, method_name: str, cfg: TrainConfig, records, out: Path) -> RLVRTrainer:
    method = build_method(method_name)
    train_cfg = dataclasses.replace(cfg, steps_per_generation=2 if method.updates_per_batch == "several" else None)
    return RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(model_dir),
        processing_class=AutoTokenizer.from_pretrained(model_dir),
        reward_funcs=[accuracy_reward, format_reward],
        args=grpo_config(train_cfg, out / method_name),
        train_dataset=records_dataset(records),
        method=method,
    )


def update_step(trainer: RLVRTrainer, scored: dict, rewards_per_func: torch.Tensor) -> float:
    """Seconds for rollout hook + loss forward/backward + optimizer step on a fixed scored batch."""
    trainer.model.train()
    start = time.perf_counter()
    trainer._rewards_per_func = rewards_per_func
    inputs = trainer.apply_rollout_hook(dict(scored))
    trainer.current_gradient_accumulation_steps = 1
    loss = trainer._compute_loss(trainer.model, inputs)
    loss.backward()
    trainer.optimizer.step()
    trainer.optimizer.zero_grad()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=Path("models/base/seed0"))
    parser.add_argument("--methods", nargs="*", default=available_methods())
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--generations", type=int, default=8)
    parser.add_argument("--max-completion-length", type=int, default=64)
    parser.add_argument("--out", type=Path, default=Path("/tmp/rlvr_overhead"))
    args = parser.parse_args()
    if not (args.model / "config.json").exists():
        raise SystemExit(f"no model at {args.model}: run `dvc repro data base_model@0` first or pass --model PATH")
    torch.manual_seed(0)
    records = to_records(make_splits(n_train=64, n_eval=1, seed=0)[0])
    cfg = TrainConfig(
        prompts_per_step=args.prompts,
        num_generations=args.generations,
        max_completion_length=args.max_completion_length,
        max_steps=1,
    )
    methods = ["grpo"] + [m for m in args.methods if m != "grpo"]
    trainers = {m: make_trainer(args.model, m, cfg, records, args.out) for m in methods}
    for trainer in trainers.values():
        trainer.create_optimizer_and_scheduler(num_training_steps=1)

    # One generation batch, shared by every method.
    reference = trainers["grpo"]
    reference.model.train()
    batch = next(iter(reference.get_train_dataloader()))
    start = time.perf_counter()
    scored = super(RLVRTrainer, reference)._generate_and_score_completions(batch)
    generation_s = time.perf_counter() - start
    rewards_per_func = reference._rewards_per_func

    times = {m: [] for m in methods}
    for _ in range(2):  # warm-up
        for m in methods:
            update_step(trainers[m], scored, rewards_per_func)
    for _ in range(args.rounds):
        for m in methods:  # interleaved, so drift in machine speed hits every method alike
            times[m].append(update_step(trainers[m], scored, rewards_per_func))

    base = statistics.median(times["grpo"])
    tokens = int(scored["completion_mask"].sum())
    print(
        f"batch: {scored['completion_ids'].shape[0]} responses, {tokens} completion tokens; "
        f"generation {generation_s:.3f} s (same for every method); {args.rounds} rounds, torch threads "
        f"{torch.get_num_threads()}"
    )
    print(f"{'method':<15}{'update s (median)':>19}{'update ratio':>14}{'full-step ratio':>17}")
    for m in methods:
        med = statistics.median(times[m])
        print(f"{m:<15}{med:>19.4f}{med / base:>14.3f}{(generation_s + med) / (generation_s + base):>17.3f}")


if __name__ == "__main__":
    main()
