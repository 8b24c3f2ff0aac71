"""One RL run: a model folder + a registered method + training records -> a trained model and its metrics.

``TrainConfig`` holds the run-level settings (what params.yaml's ``train`` section sets); the method's own
hyperparameters go to ``rlvr_lib.methods.build_method``. Metrics are logged every step through dvclive.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.integrations import DVCLiveCallback
from transformers.trainer_callback import ProgressCallback
try:
    from transformers.utils.notebook import NotebookProgressCallback
except ImportError:  # no IPython (e.g. a bare GPU machine): no notebook progress table to replace
    NotebookProgressCallback = None
from trl import GRPOConfig

from .methods import build_method
from .rewards import FORMAT_REWARDS, accuracy_reward
from .trainer import RLVRTrainer


ROLLOUT_GENERATION = ("default", "static_compile", "continuous_batching", "auto")


def resolved_rollout_generation(cfg: "TrainConfig") -> str:
    """The generation option in use: ``auto`` is static_compile for full fine-tuning on a CUDA GPU, else default;
    vLLM overrides all."""
    if cfg.use_vllm:
        return "vllm"
    if cfg.rollout_generation == "auto":
        return "static_compile" if torch.cuda.is_available() and cfg.lora_r == 0 else "default"
    return cfg.rollout_generation


@dataclass
class TrainConfig:
    """Run-level settings. One optimizer step sees ``prompts_per_step * num_generations`` responses."""

    max_steps: int = 200
    prompts_per_step: int = 8
    num_generations: int = 8
    max_completion_length: int = 64
    learning_rate: float = 1e-4
    lr_scheduler_type: str = "constant"
    warmup_steps: int | float = 0  # an int: steps; a float in (0, 1): fraction of all steps (transformers 5)
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    temperature: float = 1.0
    top_p: float = 1.0
    gradient_accumulation_steps: int = 1
    steps_per_generation: int | None = None  # None: = gradient_accumulation_steps (one update per rollout batch)
    num_iterations: int = 1  # passes over each rollout batch (PPO epochs)
    format_weight: float = 0.0  # weight of the format reward added to the accuracy reward
    format_reward: str = "boxed"  # issue 11: boxed (a closed \\boxed{}) | think (one <think>...</think>, CW-GRPO)
    num_train_epochs: float | None = None  # issue 11: passes over the training set (ERPO 1); None: max_steps
    lora_r: int = 0  # 0: full fine-tuning; > 0: LoRA of this rank on all linear layers
    lora_alpha: int = 64
    bf16: bool = False
    gradient_checkpointing: bool = False
    use_vllm: bool = False
    # issue 11: how TRL's transformers path generates rollouts (ignored with use_vllm): default (dynamic KV cache,
    # TRL's setting) | static_compile (static KV cache + torch.compile of the decoding step) | continuous_batching
    # (TRL's paged-attention option) | auto: static_compile for full fine-tuning on a CUDA GPU (measured 2.9x faster
    # rollouts, docs/gpu.md), default elsewhere (CPU; LoRA, where it was not measured)
    rollout_generation: str = "auto"
    # KL of the behaviour policy to the initial one, logged every step. None (auto): on where it costs no model
    # copy (LoRA: the reference is the model with adapters off; or the method keeps a reference anyway) or the
    # policy is small (< REFERENCE_COPY_MAX_PARAMS); off for full fine-tuning of a large model (issue 11)
    log_reference_kl: bool | None = None
    save_steps: int = 0  # 0: no intermediate checkpoints
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("max_steps", "prompts_per_step", "num_generations", "max_completion_length",
                     "gradient_accumulation_steps", "num_iterations"):
            if getattr(self, name) < 1:
                raise ValueError(f"train.{name} must be >= 1, got {getattr(self, name)}")
        if self.num_generations < 2:
            raise ValueError("train.num_generations must be >= 2: group-normalised advantages need a group")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"train.top_p must lie in (0, 1], got {self.top_p}")
        if self.temperature <= 0:
            raise ValueError(f"train.temperature must be > 0, got {self.temperature}")
        if self.warmup_steps > 0 and self.lr_scheduler_type == "constant":
            raise ValueError(
                "train.warmup_steps is ignored by lr_scheduler_type 'constant' (transformers' constant schedule "
                "has no warm-up): set lr_scheduler_type to 'constant_with_warmup'"
            )
        if self.format_reward not in FORMAT_REWARDS:
            raise ValueError(f"train.format_reward must be one of {sorted(FORMAT_REWARDS)}, got '{self.format_reward}'")
        if self.rollout_generation not in ROLLOUT_GENERATION:
            raise ValueError(f"train.rollout_generation must be one of {ROLLOUT_GENERATION}, got '{self.rollout_generation}'")
        if self.num_train_epochs is not None and self.num_train_epochs <= 0:
            raise ValueError(f"train.num_train_epochs must be > 0 or null, got {self.num_train_epochs}")
        if isinstance(self.warmup_steps, float) and not 0 <= self.warmup_steps < 1:
            raise ValueError(f"train.warmup_steps as a float is a fraction of all steps in [0, 1), got {self.warmup_steps}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "TrainConfig":
        valid = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - valid)
        if unknown:
            raise ValueError(f"unknown train setting(s) {unknown}; valid: {sorted(valid)}")
        return cls(**values)


def grpo_config(cfg: TrainConfig, output_dir: Path, num_processes: int = 1) -> GRPOConfig:
    """Translate a TrainConfig into TRL's GRPOConfig (CPU-safe defaults)."""
    if cfg.bf16 and not torch.cuda.is_available():  # checked here, not in TrainConfig: GPU profiles load on a CPU
        raise ValueError("train.bf16 needs a CUDA GPU; set it to false on a CPU machine")
    responses = cfg.prompts_per_step * cfg.num_generations
    if responses % (cfg.gradient_accumulation_steps * num_processes):
        raise ValueError(
            f"train.prompts_per_step x train.num_generations = {responses} must be divisible by "
            f"gradient_accumulation_steps x processes = {cfg.gradient_accumulation_steps * num_processes}"
        )
    return GRPOConfig(
        output_dir=str(output_dir),
        max_steps=-1 if cfg.num_train_epochs is not None else cfg.max_steps,
        num_train_epochs=cfg.num_train_epochs or 1.0,
        per_device_train_batch_size=responses // (cfg.gradient_accumulation_steps * num_processes),
        gradient_accumulation_steps=cfg.gradient_accumulation_steps,
        steps_per_generation=cfg.steps_per_generation,
        num_iterations=cfg.num_iterations,
        num_generations=cfg.num_generations,
        max_completion_length=cfg.max_completion_length,
        temperature=cfg.temperature,
        top_p=cfg.top_p,
        learning_rate=cfg.learning_rate,
        lr_scheduler_type=cfg.lr_scheduler_type,
        warmup_steps=cfg.warmup_steps,
        weight_decay=cfg.weight_decay,
        max_grad_norm=cfg.max_grad_norm,
        beta=0.0,  # the method owns its KL term
        bf16=cfg.bf16,
        use_cpu=not torch.cuda.is_available(),
        gradient_checkpointing=cfg.gradient_checkpointing,
        use_vllm=cfg.use_vllm,
        cache_implementation="static" if resolved_rollout_generation(cfg) == "static_compile" else None,
        use_transformers_continuous_batching=resolved_rollout_generation(cfg) == "continuous_batching",
        reward_weights=[1.0, cfg.format_weight],
        logging_steps=1,
        save_strategy="steps" if cfg.save_steps else "no",
        save_steps=cfg.save_steps or 500,
        report_to=[],
        seed=cfg.seed,
        data_seed=cfg.seed,
        disable_tqdm=False,
    )


def records_dataset(records: list[dict[str, Any]]) -> Dataset:
    """Dataset with the columns the trainer and rewards read: ``prompt`` (text) and ``answer``."""
    for i, row in enumerate(records):
        missing = {"prompt", "answer"} - set(row)
        if missing:
            raise ValueError(f"training record {i} lacks field(s) {sorted(missing)}")
    return Dataset.from_list([{"prompt": r["prompt"], "answer": str(r["answer"])} for r in records])


def train_method(
    model_path: str | Path,
    method_name: str,
    method_hparams: dict[str, Any],
    records: list[dict[str, Any]],
    cfg: TrainConfig,
    output_dir: str | Path,
    live_dir: str | Path | None = None,
) -> list[dict[str, float]]:
    """Train ``method_name`` from ``model_path``; save the final model to ``output_dir/final``.

    Returns the per-step log history (also written to ``output_dir/history.json``). The final folder
    appears only when training finished (written under a temporary name, then renamed).
    """
    model_path, output_dir = Path(model_path), Path(output_dir)
    if not (model_path / "config.json").exists():
        raise FileNotFoundError(
            f"no model at {model_path} (config.json missing): run the base_model stage or set model.path in params.yaml"
        )
    method = build_method(method_name, **method_hparams)
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(model_path)
    peft_config = None
    if cfg.lora_r > 0:
        from peft import LoraConfig

        peft_config = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM")

    from accelerate import PartialState

    state = PartialState()  # several processes under `accelerate launch`: one writes, all train
    callbacks = []
    if live_dir is not None and state.is_main_process:
        try:
            from dvclive import Live
        except ImportError:  # a bare GPU machine: history.json still records every step
            warnings.warn(f"dvclive is not installed: no DVCLive logs in {live_dir} (history.json is still written)")
        else:
            live = Live(dir=str(live_dir), save_dvc_exp=False, dvcyaml=False)
            live.log_params({"method": method_name, **method.defaults(), **method_hparams, **dataclasses.asdict(cfg)})
            callbacks.append(DVCLiveCallback(live=live))
    trainer = RLVRTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[accuracy_reward, FORMAT_REWARDS[cfg.format_reward]],
        args=grpo_config(cfg, output_dir, num_processes=state.num_processes),
        train_dataset=records_dataset(records),
        callbacks=callbacks,
        peft_config=peft_config,
        method=method,
        log_reference_kl=cfg.log_reference_kl,
        compile_generation=resolved_rollout_generation(cfg) == "static_compile",
    )
    if NotebookProgressCallback is not None and trainer.pop_callback(NotebookProgressCallback) is not None:
        # In a notebook kernel transformers re-renders an HTML table of every logged step at every step; under
        # papermill each render is saved, which makes long runs quadratic. A tqdm bar + one log line per step instead.
        trainer.add_callback(ProgressCallback)
    trainer.train()
    history = [row for row in trainer.state.log_history if "step_time" in row]

    if not state.is_main_process:
        state.wait_for_everyone()
        return history
    final, partial = output_dir / "final", output_dir / "final.partial"
    shutil.rmtree(partial, ignore_errors=True)
    merged = trainer.model.merge_and_unload() if peft_config is not None else trainer.model
    merged.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    (partial / "method_state.json").write_text(json.dumps({"method": method_name, "state": method.state_dict()}))
    shutil.rmtree(final, ignore_errors=True)
    os.replace(partial, final)
    (output_dir / "history.json").write_text(json.dumps(history, indent=1))
    state.wait_for_everyone()
    return history
