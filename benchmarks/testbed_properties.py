"""Measure the testbed properties issue 9 asks for, for one task configuration, with 95% intervals.

Stages (``--stages``, default all, each writes ``<out>/<stage>.json`` and reuses what earlier stages left):

- ``base``: build the SFT base policy (``TestbedConfig(task=..., n_eval=..., **--testbed)``) into
  ``<out>/base`` unless it exists, then evaluate it on the eval split: mean@n and pass@k for k = 1..n,
  overall and per problem kind (plain sums / traps);
- ``grpo``: plain GRPO from the base at params.yaml's ``train`` section (``--train`` overrides) on the
  pipeline's training split, then the same evaluation; rollout entropy ratio = mean of the last 5 logged
  rollout batches / the first;
- ``perturb``: ERPO's fig. 1(b) protocol on the base policy (``rlvr_lib.analysis.perturbation``) on one
  correct response per eval problem, for both replacement modes.

``<out>/properties.json`` gathers the headline numbers and checks them against the targets.

    OMP_NUM_THREADS=1 python benchmarks/testbed_properties.py --out /tmp/tb_v3 --task v3 --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from rlvr_lib.settings.config import TestbedConfig, load_params  # noqa: E402
from rlvr_lib.settings.schema import build  # noqa: E402
from rlvr_lib.testbed import build_base_policy, make_splits, to_records  # noqa: E402
from rlvr_lib.testbed.properties import entropy_ratio, evaluate_by_kind, problem_kind, route_shares  # noqa: E402, F401

STAGES = ("base", "grpo", "perturb")
N_TRAIN_RL = 2000  # params.yaml data.testbed.n_train


def parse_pairs(pairs: list[str], flag: str) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"{flag} expects key=value, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


SAMPLING = {"temperature": 1.0, "top_p": 1.0, "max_new_tokens": 64, "batch_size": 256}


def load(model_dir: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.padding_side = "left"
    return AutoModelForCausalLM.from_pretrained(model_dir).eval(), tokenizer


def evaluate(model_dir: Path, problems: list[dict], n: int, seed: int) -> dict:
    """``properties.evaluate_by_kind`` at T = 1 with every k in 1..n, timed."""
    model, tokenizer = load(model_dir)
    started = time.perf_counter()
    result = evaluate_by_kind(model, tokenizer, problems, n=n, seed=seed, n_boot=1000, **SAMPLING)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    return result


def routes(model_dir: Path, problems: list[dict], n: int, seed: int) -> dict:
    """``properties.route_shares`` with ``n`` samples per problem."""
    model, tokenizer = load(model_dir)
    return route_shares(model, tokenizer, problems, n=n, seed=seed + 1, **SAMPLING)


def headline(metrics: dict, n: int) -> dict:
    return {k: metrics[k] for k in (f"mean@{n}", f"pass@{n}", "token_entropy", "response_length")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder for the base model, the GRPO run and the JSON results")
    parser.add_argument("--task", default="v3")
    parser.add_argument("--seed", type=int, default=0, help="data, SFT, RL and evaluation seed")
    parser.add_argument("--n-eval", type=int, default=256)
    parser.add_argument("--n", type=int, default=64, help="samples per eval problem")
    parser.add_argument("--testbed", action="append", default=[], metavar="KEY=VALUE", help="TestbedConfig knob")
    parser.add_argument("--train", action="append", default=[], metavar="KEY=VALUE", help="TrainConfig override")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()

    stages = args.stages.split(",")
    if set(stages) - set(STAGES):
        raise SystemExit(f"--stages: unknown {sorted(set(stages) - set(STAGES))}; known: {STAGES}")
    if args.threads:
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = build(
        TestbedConfig,
        {"task": args.task, "seed": args.seed, "n_eval": args.n_eval, **parse_pairs(args.testbed, "--testbed")},
        "--testbed",
    )
    train, held_out = make_splits(N_TRAIN_RL, args.n_eval, args.seed, cfg.levels, cfg.task)
    problems = to_records(held_out)
    base_dir, grpo_dir = out / "base", out / "grpo"

    if "base" in stages:
        if not (base_dir / "config.json").exists():
            started = time.perf_counter()
            build_base_policy(base_dir, cfg)
            print(f"SFT: {time.perf_counter() - started:.0f} s", flush=True)
        result = evaluate(base_dir, problems, args.n, args.seed)
        if cfg.task == "v3":
            result["routes"] = routes(base_dir, problems, 8, args.seed)
        (out / "base.json").write_text(
            json.dumps({"testbed": vars(cfg) | {"levels": list(cfg.levels)}, **result}, indent=1)
        )
        print(
            json.dumps(
                {
                    "base": headline(result["metrics"], args.n),
                    "by_kind": result["by_kind"],
                    "routes": result.get("routes"),
                }
            ),
            flush=True,
        )

    if "grpo" in stages:
        from rlvr_lib.settings.config import TrainConfig
        from rlvr_lib.training.train import build_trainer, train_method

        shared = load_params(Path(__file__).resolve().parents[1] / "params.yaml").train
        train_cfg = build(
            TrainConfig, {**vars(shared), "seed": args.seed, **parse_pairs(args.train, "--train")}, "--train"
        )
        started = time.perf_counter()
        trainer = build_trainer(base_dir, "grpo", {}, to_records(train), train_cfg, grpo_dir)
        history = train_method(trainer, grpo_dir)
        train_wall = time.perf_counter() - started
        result = evaluate(grpo_dir / "final", problems, args.n, args.seed)
        if cfg.task == "v3":
            result["routes"] = routes(grpo_dir / "final", problems, 8, args.seed)
        (out / "grpo.json").write_text(
            json.dumps(
                {
                    "train": vars(train_cfg),
                    "train_wall_s": round(train_wall, 1),
                    "dynamics": entropy_ratio(history),
                    **result,
                },
                indent=1,
            )
        )
        print(
            json.dumps(
                {
                    "grpo": headline(result["metrics"], args.n),
                    "dynamics": entropy_ratio(history),
                    "by_kind": result["by_kind"],
                    "routes": result.get("routes"),
                }
            ),
            flush=True,
        )

    if "perturb" in stages:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from rlvr_lib.analysis.perturbation import collect_correct_responses, perturbation_study

        tokenizer = AutoTokenizer.from_pretrained(base_dir)
        model = AutoModelForCausalLM.from_pretrained(base_dir).eval()
        responses = collect_correct_responses(model, tokenizer, problems, n=16, seed=args.seed)
        studies = {}
        for mode in ("uniform", "policy"):
            study = perturbation_study(model, tokenizer, responses, replacement=mode, seed=args.seed)
            study.pop("trials")
            studies[mode] = study
        (out / "perturb.json").write_text(json.dumps(studies, indent=1))
        print(json.dumps(studies), flush=True)

    summarise(out, args.n)


def summarise(out: Path, n: int) -> None:
    """properties.json: the headline numbers of whatever stages have run, with the targets' checks."""
    summary: dict = {}
    base = json.loads((out / "base.json").read_text()) if (out / "base.json").exists() else None
    grpo = json.loads((out / "grpo.json").read_text()) if (out / "grpo.json").exists() else None
    if base:
        m = base["metrics"]
        summary["base"] = {
            **headline(m, n),
            "by_kind": base["by_kind"],
            "routes": base.get("routes"),
            "target_mean_in_0.10_0.40": 0.10 <= m[f"mean@{n}"]["value"] <= 0.40,
            "target_pass_le_0.90": m[f"pass@{n}"]["value"] <= 0.90,
        }
        summary["pass_at_k_base"] = [m[f"pass@{k}"]["value"] for k in range(1, n + 1)]
    if grpo:
        m = grpo["metrics"]
        summary["grpo"] = {
            **headline(m, n),
            "by_kind": grpo["by_kind"],
            "routes": grpo.get("routes"),
            "dynamics": grpo["dynamics"],
            "target_entropy_ratio_le_0.35": grpo["dynamics"]["entropy_ratio"] <= 0.35,
        }
        summary["pass_at_k_grpo"] = [m[f"pass@{k}"]["value"] for k in range(1, n + 1)]
        if base:
            gain = m[f"mean@{n}"]["value"] - base["metrics"][f"mean@{n}"]["value"]
            lift = m[f"pass@{n}"]["value"] - base["metrics"][f"pass@{n}"]["value"]
            summary["grpo"].update(
                {
                    "mean_gain": gain,
                    "target_mean_gain_ge_0.15": gain >= 0.15,
                    "pass_gain": lift,
                    "target_sharpening_pass_gain_le_0.02": lift <= 0.02,
                }
            )
    if (out / "perturb.json").exists():
        summary["perturb"] = json.loads((out / "perturb.json").read_text())
    (out / "properties.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
