"""One RL run: a model folder + a registered method + training records -> a trained model and its history.

``TrainConfig`` (``rlvr_lib.settings.config``) holds the run-level settings; the method's own hyperparameters go to
``rlvr_lib.methods.build_method``. A run checkpoints into its output folder every ``save_steps`` and, started
again on the same folder, resumes exactly from the last complete checkpoint (weights, optimizer, scheduler, RNG
states, TRL's sampler position and rollout buffer, the reference-KL cadence, method state and log history).
"""

from __future__ import annotations

import os
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import torch
from accelerate.utils import is_peft_model
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig

from rlvr_lib.files.checkpoints import last_complete_checkpoint, naming_full_disk
from rlvr_lib.files.readers import check_safetensors, read_json
from rlvr_lib.methods import build_method
from rlvr_lib.settings.config import TrainConfig
from rlvr_lib.tasks.rewards import FORMAT_REWARDS, accuracy_reward
from rlvr_lib.training.memory_estimate import (
    TrainSetup,
    auto_generation_chunk,
    check_fits,
    estimate_peak_memory,
    fitting_settings,
    model_memory_from_config,
)
from rlvr_lib.training.progress import use_progress_bar
from rlvr_lib.training.trainer import RLVRTrainer


def resolved_rollout_generation(cfg: TrainConfig) -> str:
    """The generation option in use: ``auto`` is static_compile for full fine-tuning on a CUDA GPU, else default;
    vLLM overrides all."""
    if cfg.use_vllm:
        return "vllm"
    if cfg.rollout_generation == "auto":
        return "static_compile" if torch.cuda.is_available() and cfg.lora_r == 0 else "default"
    return cfg.rollout_generation


def grpo_config(cfg: TrainConfig, output_dir: Path, num_processes: int | None = None) -> GRPOConfig:
    """Translate a TrainConfig into TRL's GRPOConfig (which runs TRL's own checks: call it before any work).

    ``num_processes``: data-parallel processes (default: those of the current ``accelerate launch``, else 1).
    """
    if num_processes is None:
        from accelerate import PartialState

        num_processes = PartialState().num_processes
    responses = cfg.prompts_per_step * cfg.num_generations
    if responses % (cfg.gradient_accumulation_steps * num_processes):
        raise ValueError(
            f"train.prompts_per_step x train.num_generations = {responses} must be divisible by "
            f"gradient_accumulation_steps x processes = {cfg.gradient_accumulation_steps * num_processes}"
        )
    if cfg.bf16 and not torch.cuda.is_available():
        raise ValueError("train.bf16 needs a CUDA GPU; set it to false on a CPU machine")
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


MODEL_WEIGHTS = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


BASE_MODEL_HINT = (
    "(re)run its seed's base_model stage (`dvc repro -f base_model@<seed>`) or set model.path in params.yaml to a "
    "complete model folder"
)


def check_model_folder(path: str | Path, *, hint: str = BASE_MODEL_HINT, setting: str = "model.path") -> None:
    """A local model folder must hold config.json, a tokenizer and weights, safetensors weights complete (their
    headers are read); a hub id (``org/name``, no such folder here) is left to ``from_pretrained``, except offline
    (``HF_HUB_OFFLINE=1``, as the Makefile sets), where it must be in the Hugging Face cache, complete. Errors name
    the folder, file or hub id (and ``setting``, the params key that names it) and end with ``hint`` (how to make
    the folder again)."""
    folder = Path(path)
    if not folder.exists():
        if re.fullmatch(r"[\w.-]+/[\w.-]+", str(path)):
            from huggingface_hub import constants, is_offline_mode, snapshot_download
            from huggingface_hub.errors import LocalEntryNotFoundError

            if not is_offline_mode():
                return
            how = (
                f"download it with `hf download {path}` where the network is reachable (into the cache, "
                f"{constants.HF_HUB_CACHE}) or set {setting.split()[-1]} to a local model folder"
            )
            try:
                snapshot = snapshot_download(str(path), local_files_only=True)
            except LocalEntryNotFoundError:
                raise FileNotFoundError(
                    f"model '{path}' ({setting}) is not a local folder and is not in the Hugging Face cache, and "
                    f"HF_HUB_OFFLINE=1 downloads nothing: {how}"
                ) from None
            check_model_folder(snapshot, hint=f"model '{path}' ({setting}) is cached incompletely: {how}")
            return
        raise FileNotFoundError(f"model folder {folder} does not exist")
    missing = []
    if not (folder / "config.json").exists():
        missing.append("config.json")
    if not any((folder / name).exists() for name in TOKENIZER_FILES):
        missing.append(f"a tokenizer ({' or '.join(TOKENIZER_FILES)})")
    if not any((folder / name).exists() for name in MODEL_WEIGHTS):
        missing.append(f"weights ({' or '.join(MODEL_WEIGHTS)})")
    if missing:
        raise FileNotFoundError(f"model folder {folder} lacks {', '.join(missing)}: {hint}")
    for weights in safetensors_files(folder, hint=hint):
        check_safetensors(weights, hint=hint)


def safetensors_files(folder: Path, *, hint: str) -> list[Path]:
    """The safetensors weight files of a model folder: model.safetensors or the shards its index names."""
    if (folder / "model.safetensors").exists():
        return [folder / "model.safetensors"]
    index = folder / "model.safetensors.index.json"
    if not index.exists():
        return []
    weight_map = read_json(index, dict, hint=hint).get("weight_map")
    if not isinstance(weight_map, dict):
        raise ValueError(f"{index}: field 'weight_map' must be a JSON object (tensor name -> shard file): {hint}")
    return [folder / name for name in sorted(set(weight_map.values()))]


def records_dataset(records: list[dict[str, Any]]) -> Dataset:
    """Dataset with the columns the trainer and rewards read: ``prompt`` (text) and ``answer``."""
    if not records:
        raise ValueError("no training records")
    for i, row in enumerate(records):
        missing = {"prompt", "answer"} - set(row)
        if missing:
            raise ValueError(f"training record {i} lacks field(s) {sorted(missing)}")
    return Dataset.from_list([{"prompt": r["prompt"], "answer": str(r["answer"])} for r in records])


def build_trainer(
    model_path: str | Path,
    method_name: str,
    method_hparams: dict[str, Any],
    records: list[dict[str, Any]],
    cfg: TrainConfig,
    output_dir: str | Path,
) -> RLVRTrainer:
    """Everything is checked (method, TRL config, model folder, records) before the model is loaded."""
    method = build_method(method_name, method_hparams)
    args = grpo_config(cfg, Path(output_dir))
    check_model_folder(model_path)
    dataset = records_dataset(records)
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    tokenizer.padding_side = "left"
    chunk = plan_memory(model_path, method, cfg, args, tokenizer, [r["prompt"] for r in records])  # before loading
    model = AutoModelForCausalLM.from_pretrained(model_path)
    peft_config = None
    if cfg.lora_r > 0:
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=cfg.lora_r, lora_alpha=cfg.lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM"
        )
    trainer = RLVRTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[accuracy_reward, FORMAT_REWARDS[cfg.format_reward]],
        args=args,
        train_dataset=dataset,
        peft_config=peft_config,
        method=method,
        log_reference_kl=cfg.log_reference_kl,
        reference_kl_every=cfg.reference_kl_every,
        compile_generation=resolved_rollout_generation(cfg) == "static_compile",
    )
    trainer.generation_chunk = chunk
    use_progress_bar(trainer)
    return trainer


def plan_memory(model_path, method, cfg: TrainConfig, args: GRPOConfig, tokenizer, prompts: list[str]) -> int | None:
    """The generation chunk (``train.generation_chunk``, or on a GPU the automatic one), after printing the peak
    memory estimate per card (``rlvr_lib.training.memory_estimate``, from the model's config.json on a meta-device
    skeleton: nothing loaded yet); on a GPU, ``MemoryError`` naming settings that would fit when the estimate exceeds
    the card. Under ``accelerate launch`` with an FSDP config the estimate is the sharded one."""
    import os

    from accelerate import PartialState
    from transformers import AutoConfig

    from rlvr_lib.training.trainer import REFERENCE_COPY_MAX_PARAMS

    state = PartialState()
    processes = state.num_processes
    sharded = os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true" and processes > 1
    config = AutoConfig.from_pretrained(model_path)
    dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None) or torch.float32
    element = (getattr(torch, dtype) if isinstance(dtype, str) else dtype).itemsize
    skeleton = model_memory_from_config(config, parameter_bytes=element, lora_r=cfg.lora_r)
    small = skeleton.weight_bytes // element < REFERENCE_COPY_MAX_PARAMS
    auto_kl = cfg.log_reference_kl if cfg.log_reference_kl is not None else small
    reference = not cfg.lora_r and (method.needs_reference or auto_kl)

    def model_memory(lora: bool):
        r = (cfg.lora_r or 32) if lora else cfg.lora_r
        return model_memory_from_config(config, parameter_bytes=element, lora_r=r, reference=reference and not r)

    prompt_tokens = max(len(ids) for ids in tokenizer(prompts, add_special_tokens=False)["input_ids"])
    rollout_rows = args.per_device_train_batch_size * args.steps_per_generation
    shape = dict(prompt_tokens=prompt_tokens, completion_tokens=cfg.max_completion_length)

    def setup(rows: int, shards: int) -> TrainSetup:
        return TrainSetup(
            micro_rows=rows,
            sequence_tokens=prompt_tokens + cfg.max_completion_length,
            shards=shards,
            master_bytes=4 if shards > 1 and cfg.bf16 else 0,
            fused_optimizer=str(getattr(args.optim, "value", args.optim)).endswith("fused"),
            gradient_checkpointing=cfg.gradient_checkpointing,
            activation_bytes=2 if cfg.bf16 else 4,
        )

    memory = model_memory(lora=False)
    here = setup(args.per_device_train_batch_size, processes if sharded else 1)
    device = state.device
    chunk = cfg.generation_chunk
    device_bytes = torch.cuda.get_device_properties(device).total_memory if device.type == "cuda" else 0
    if device.type == "cuda" and chunk is None:
        chunk = auto_generation_chunk(memory, device_bytes=device_bytes, rollout_rows=rollout_rows, setup=here, **shape)
    estimate = estimate_peak_memory(memory, chunk_rows=min(chunk or rollout_rows, rollout_rows), setup=here, **shape)
    if state.is_main_process:
        print(
            f"rollout batch {rollout_rows} rows of <= {prompt_tokens} prompt + {cfg.max_completion_length} completion "
            f"tokens per process; {estimate.summary()}"
        )
    if device.type == "cuda" and not cfg.use_vllm and not estimate.fits(device_bytes):

        def estimate_for(rows: int, shards: int, lora: bool):
            m, s = model_memory(lora), setup(rows, shards)
            rows_now = auto_generation_chunk(m, device_bytes=device_bytes, rollout_rows=rollout_rows, setup=s, **shape)
            return estimate_peak_memory(m, chunk_rows=cfg.generation_chunk or rows_now, setup=s, **shape)

        alternatives = fitting_settings(
            estimate_for,
            device_bytes=device_bytes,
            responses=cfg.prompts_per_step * cfg.num_generations,
            accumulation=cfg.gradient_accumulation_steps,
            processes=processes,
            sharded=sharded,
        )
        check_fits(estimate, device_bytes, torch.cuda.get_device_name(device), alternatives)
    return chunk


def train_method(trainer: RLVRTrainer, output_dir: str | Path) -> list[dict[str, float]]:
    """Train with ``trainer`` (``build_trainer``, same ``output_dir``); returns the per-step log history.

    Checkpoints (``save_steps``) go to ``output_dir``, each made visible only once complete; when ``output_dir``
    already holds one, training resumes from the last complete one (``rlvr_lib.files.checkpoints``: broken ones are
    removed, with a message naming them). The final model (LoRA adapters merged) is saved to
    ``output_dir/final`` with the method's state, written under a temporary name, then renamed.
    """
    output_dir = Path(output_dir)
    checkpoint = last_complete_checkpoint(output_dir, remove_broken=trainer.accelerator.is_main_process)
    trainer.accelerator.wait_for_everyone()
    if checkpoint is not None:
        print(f"resuming from {checkpoint}")
    trainer.train(resume_from_checkpoint=checkpoint)
    history = training_history(trainer.state.log_history)
    # FSDP: the full weights are gathered by every process (a collective), and saved by the main one
    full_state = trainer.accelerator.get_state_dict(trainer.model) if trainer.is_fsdp_enabled else None
    if not trainer.accelerator.is_main_process:  # `accelerate launch`: the main process saves
        trainer.accelerator.wait_for_everyone()
        return history

    final, partial = output_dir / "final", output_dir / "final.partial"
    shutil.rmtree(partial, ignore_errors=True)
    merged = trainer.model.merge_and_unload() if is_peft_model(trainer.model) else trainer.model
    with naming_full_disk(output_dir, "the final model"):
        if full_state is not None:  # FSDP's fp32 master weights, saved in the dtype the model was loaded in
            unwrapped = trainer.accelerator.unwrap_model(merged)
            dtype = getattr(unwrapped.config, "dtype", None) or torch.float32
            dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
            full_state = {k: v.to(dtype) if v.is_floating_point() else v for k, v in full_state.items()}
            unwrapped.save_pretrained(partial, state_dict=full_state)
        else:
            merged.save_pretrained(partial)
        trainer.processing_class.save_pretrained(partial)
        trainer.save_method_state(partial)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(partial, final)
    trainer.accelerator.wait_for_everyone()
    return history


def training_history(log_history: list[dict[str, Any]]) -> list[dict[str, float]]:
    """The per-step rows of TRL's log history (those with ``step_time``; the end-of-training summary is left out)."""
    return [row for row in log_history if "step_time" in row]


def write_training_logs(history: list[dict[str, float]], live_dir: str | Path, params: dict[str, Any]) -> None:
    """dvclive's metrics.json, plots and params.yaml for a finished run, one step per history row.

    Written once, from the history (which checkpoints carry), so a resumed run logs each step exactly once and
    an interrupted run leaves no partial metrics where ``dvc metrics show`` reads. Without dvclive (a bare GPU
    machine) it warns and writes nothing: history.json still holds every step.
    """
    try:
        from dvclive import Live
    except ImportError:
        warnings.warn(
            f"dvclive is not installed: no DVCLive logs in {live_dir} (history.json is still written)", stacklevel=2
        )
        return
    from dvclive.plots import Metric
    from dvclive.utils import standardize_metric_name

    live = Live(dir=str(live_dir), save_dvc_exp=False, dvcyaml=False, report=None)
    live.log_params(params)
    for row in history:
        live.step = int(row["step"])
        for key, value in row.items():
            if key != "step" and Metric.could_log(value):
                live.log_metric(standardize_metric_name(key, "dvclive.huggingface"), value)
    live.end()
