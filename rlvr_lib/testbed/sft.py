"""Supervised warm-up that turns the random model into the base policy, and the one-call testbed build.

``build_base_policy`` generates the task, trains the tokenizer, builds the model, runs a short SFT with
TRL's ``SFTTrainer`` on prompt/completion pairs (loss on the completion only, EOS appended) and saves
model + tokenizer. The SFT is deliberately short: the base policy must stay uncertain and leave room
for RL (see ``TestbedConfig``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from pathlib import Path

from datasets import Dataset
from transformers import PreTrainedModel, PreTrainedTokenizerBase
from trl import SFTConfig, SFTTrainer

from rlvr_lib.settings.config import TestbedConfig
from rlvr_lib.testbed import task_v3
from rlvr_lib.testbed.generator import Problem, make_splits, sample_solutions
from rlvr_lib.testbed.model import build_model
from rlvr_lib.testbed.tokenizer import build_tokenizer


def sft_records(
    problems: list[Problem],
    k: int,
    seed: int,
    slip_rate: float = 0.0,
    *,
    task: str = "v2",
    precedence_rate: float = 0.0,
    guess_rate: float = 0.0,
    guess_offset_min: int = 1,
) -> list[dict[str, str]]:
    """Prompt/completion rows: v2, ``k`` distinct solutions per problem (fewer when fewer exist); v3, ``k``
    independent ones (``task_v3.sample_solutions``: routes and slips at the designed rates)."""
    if task == "v3":
        return [
            {"prompt": p.prompt, "completion": s}
            for p in problems
            for s in task_v3.sample_solutions(
                p,
                k,
                seed,
                slip_rate=slip_rate,
                precedence_rate=precedence_rate,
                guess_rate=guess_rate,
                guess_offset_min=guess_offset_min,
            )
        ]
    return [{"prompt": p.prompt, "completion": s} for p in problems for s in sample_solutions(p, k, seed, slip_rate)]


def policy_seed(cfg: TestbedConfig) -> int:
    """The seed of model initialisation and SFT training: ``cfg.policy_seed``, or ``cfg.seed`` when it is None (the
    task, the SFT solutions and the tokenizer always follow ``cfg.seed``)."""
    return cfg.seed if cfg.policy_seed is None else cfg.policy_seed


def run_sft(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, records: list[dict[str, str]], cfg: TestbedConfig
) -> None:
    """Train ``model`` in place: completion-only NLL, AdamW, linear decay, CPU fp32, seeded."""
    with tempfile.TemporaryDirectory() as scratch:
        args = SFTConfig(
            output_dir=scratch,
            max_steps=cfg.sft_steps,
            per_device_train_batch_size=cfg.batch_size,
            learning_rate=cfg.lr,
            lr_scheduler_type="linear",
            warmup_steps=cfg.warmup_steps,
            weight_decay=0.0,
            seed=policy_seed(cfg),
            data_seed=policy_seed(cfg),
            use_cpu=True,
            bf16=False,
            activation_checkpointing=False,  # TRL defaults gradient_checkpointing (its old name) to True
            save_strategy="no",
            logging_steps=max(1, cfg.sft_steps // 5),
            disable_tqdm=True,
            report_to=[],
            dataloader_num_workers=0,
        )
        trainer = SFTTrainer(
            model=model, args=args, train_dataset=Dataset.from_list(records), processing_class=tokenizer
        )
        trainer.train()
    model.config.use_cache = True  # the Trainer sets it to args.use_cache (False); keep the saved config standard


def build_base_policy(out_dir: str | Path, config: TestbedConfig | None = None, **knobs) -> Path:
    """Build the base policy into ``out_dir`` (model, tokenizer, ``testbed_config.json``); returns the path.

    ``knobs`` override fields of ``config`` (default ``TestbedConfig()``). Everything is written to a
    temporary sibling folder that replaces ``out_dir`` only once complete, so a failure leaves
    ``out_dir`` as it was.
    """
    cfg = dataclasses.replace(config or TestbedConfig(), **knobs)
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        train, _ = make_splits(cfg.n_train, cfg.n_eval, cfg.seed, cfg.levels, cfg.task)
        records = sft_records(
            train,
            cfg.solutions_per_problem,
            cfg.seed,
            cfg.slip_rate,
            task=cfg.task,
            precedence_rate=cfg.precedence_rate,
            guess_rate=cfg.guess_rate,
            guess_offset_min=cfg.guess_offset_min,
        )
        tokenizer = build_tokenizer([r["prompt"] + r["completion"] for r in records], cfg.vocab_size, tmp)
        model = build_model(
            len(tokenizer),
            seed=policy_seed(cfg),
            hidden_size=cfg.hidden_size,
            num_layers=cfg.num_layers,
            num_heads=cfg.num_heads,
            eos_token_id=tokenizer.eos_token_id,
        )
        run_sft(model, tokenizer, records, cfg)
        model.save_pretrained(tmp)  # next to the tokenizer that build_tokenizer saved and checked
        (tmp / "testbed_config.json").write_text(json.dumps(dataclasses.asdict(cfg), indent=2) + "\n")
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out_dir
