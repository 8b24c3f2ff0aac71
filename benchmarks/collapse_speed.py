"""How fast does a training configuration collapse token entropy? One run, one JSON line of its dynamics.

Trains ``--method`` (default ``grpo``) from ``--model`` on ``--data`` with ``TrainConfig`` overrides given as
``--set key=value`` (JSON values), then prints the first-step and final rollout entropy (final: mean of the
last 3 generation batches), their ratio, the rollout accuracy over the first and last 10 generation batches,
the final KL to the reference and the wall time. Used to choose the default training budget; each call is
one point of the table in docs/testbed.md.

    dvc repro data base_model@0          # on a fresh clone: the data and training seed 0's base policy first
    python benchmarks/collapse_speed.py --model models/base/seed0 --data data/generated/train.jsonl \
        --set learning_rate=7e-5 --set max_steps=240 [--threads 1] [--out /tmp/collapse]

It needs at least 3 rollout batches (max_steps / steps_per_generation >= 3): the final entropy is their mean.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from rlvr_lib.settings.config import TrainConfig  # noqa: E402
from rlvr_lib.settings.schema import build  # noqa: E402
from rlvr_lib.tasks.records import read_problems  # noqa: E402
from rlvr_lib.training.train import build_trainer, train_method  # noqa: E402

DEFAULTS = {
    "max_steps": 120,
    "prompts_per_step": 8,
    "num_generations": 8,
    "max_completion_length": 64,
    "learning_rate": 7e-5,
    "steps_per_generation": 2,
}  # params.yaml's default `train` section


def parse_overrides(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--set expects key=value, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value  # a bare string, e.g. lr_scheduler_type=constant_with_warmup
    return out


def summarise(history: list[dict], window: int = 10) -> dict:
    """Entropy and accuracy dynamics from the rows that carry rollout metrics (one per generation batch)."""
    rows = [r for r in history if "entropy/mean" in r]
    if len(rows) < 3:
        raise SystemExit(f"only {len(rows)} generation batches were logged: train for more steps")
    entropy = [r["entropy/mean"] for r in rows]
    accuracy = [r["accuracy"] for r in rows]
    final = statistics.mean(entropy[-3:])
    return {
        "generation_batches": len(rows),
        "entropy_first": entropy[0],
        "entropy_final": final,
        "entropy_ratio": final / entropy[0],
        "accuracy_first": statistics.mean(accuracy[:window]),
        "accuracy_final": statistics.mean(accuracy[-window:]),
        "kl_to_reference_final": rows[-1].get("kl_to_reference"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="base model folder (e.g. models/base/seed0)")
    parser.add_argument("--data", required=True, help="training records, JSON lines with prompt and answer")
    parser.add_argument("--method", default="grpo")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="TrainConfig override")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--out", default=None, help="run folder (default: a temporary folder, removed)")
    args = parser.parse_args()

    if args.threads:
        torch.set_num_threads(args.threads)
    data = Path(args.data)
    if not data.exists():
        raise SystemExit(f"--data {data} does not exist: run `dvc repro data` first")
    overrides = parse_overrides(args.set)
    cfg = build(TrainConfig, {**DEFAULTS, **overrides}, "--set")
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        out = Path(args.out or tmp)
        history = train_method(build_trainer(args.model, args.method, {}, read_problems(data), cfg, out), out)
        wall = time.perf_counter() - started
    print(
        json.dumps(
            {
                "method": args.method,
                "model": args.model,
                "overrides": overrides,
                **summarise(history),
                "wall_s": round(wall, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
