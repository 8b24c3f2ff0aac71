"""TRL 1.16 GRPOTrainer with the loss and advantages delegated to a registered method.

The method plugs in through three hooks (``rlvr_lib.methods.base``):
1. ``rollout``: called in ``_generate_and_score_completions``, before TRL shuffles the generation batch
   into micro-batches, so whole groups are present (gathered across processes). It receives rewards,
   group ids, behaviour log-probs and entropies (one no-grad forward pass, or none: see ``DEFER_BEHAVIOUR``),
   reference log-probs and, when the method asks (``needs_entropy_change_factor``), a vocabulary-wide statistic
   per position from the same pass, and returns per-token advantages (B, T) plus per-row extras that travel with
   the rows.
2. ``loss``: replaces ``_compute_loss``; receives the current policy's log-probs and entropies with grad.
3. ``on_optimizer_step``: a callback after each optimizer step; the method's state is written to
   ``method_state.json`` in every checkpoint and read back on resume, with TRL's rollout buffer, so a run resumed
   from any checkpoint continues exactly as the uninterrupted run.

TRL's own KL term is disabled (``GRPOConfig.beta`` must stay 0): a method's KL coefficient is one of its
hyperparameters, and the trainer builds the reference model itself when the method (or KL logging) needs it.
"""

from __future__ import annotations

import copy
import os
import shutil
import time
import warnings
from typing import Any

import torch
import torch.nn.functional as F
from accelerate.utils import is_peft_model
from transformers import TrainerCallback
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR, rotate_checkpoints
from trl import GRPOTrainer
from trl.extras.profiling import profiling_context
from trl.trainer.utils import pad, use_adapter

from rlvr_lib.eval.sampling import sample_tokens
from rlvr_lib.files.atomic import write_json_atomic
from rlvr_lib.files.checkpoints import SAVING_DIR, naming_full_disk, seal_and_publish
from rlvr_lib.files.readers import read_json
from rlvr_lib.methods.base import LossBatch, Method, RolloutBatch
from rlvr_lib.methods.core import k3_kl, masked_mean, masked_quantiles
from rlvr_lib.training.length_buckets import token_logps_by_length, token_stats_by_length
from rlvr_lib.training.rollout_chunks import PresetDraws, generate_in_chunks, generate_with_processor

METHOD_STATE_FILE = "method_state.json"
ROLLOUT_BUFFER_FILE = "rollout_buffer_{}.pt"  # per process
EXTRA_PREFIX = "method_extra/"
ENTROPY_QUANTILES = (0.1, 0.5, 0.9)
REFERENCE_COPY_MAX_PARAMS = 100_000_000  # auto KL logging copies the policy only below this size
# text-config fields by which a model's LM head departs from logits = W h + b (TRL's fused head applies them;
# the trainer's own head pass for vocabulary statistics does not, so it refuses such models)
LOGIT_TRANSFORM_FIELDS = (
    "final_logit_softcapping",
    "logit_scale",
    "output_multiplier",
    "lm_head_multiplier",
    "logits_scaling",
)


class _MethodStepCallback(TrainerCallback):
    """Calls the method's third hook once per optimizer step and logs what it returns."""

    def __init__(self, trainer: RLVRTrainer):
        self.trainer = trainer

    def on_step_end(self, args, state, control, **kwargs):
        for key, value in self.trainer._step_diagnostics().items():
            self.trainer._metrics["train"][key].append(value)
        for key, value in self.trainer.method.on_optimizer_step().items():
            self.trainer._metrics["train"][key].append(float(value))


class RLVRTrainer(GRPOTrainer):
    """GRPOTrainer whose advantages and loss come from ``method``.

    Args:
        method: a registered method instance (``rlvr_lib.methods.build_method``).
        log_reference_kl: log the behaviour policy's KL to the initial policy every step, building a frozen
            reference even when the method does not need one. None (auto): on when that costs no model copy
            (a PEFT model, whose reference is the model with adapters off, or a method that keeps a reference
            anyway) or the policy has fewer than ``REFERENCE_COPY_MAX_PARAMS`` parameters; off otherwise, since
            the copy of a full fine-tuned large model costs its weights again in GPU memory.
        reference_kl_every: with ``log_reference_kl``, log the KL on rollout batches 1, 1 + N, 1 + 2N, ... only
            (each costs a reference forward pass); a method that needs the reference gets it on every batch.
        compile_generation: let transformers compile the decoding step (TRL sets ``disable_compile=True``); meant
            with ``GRPOConfig.cache_implementation="static"``, where it makes rollouts several times faster on a GPU.
        generation_chunk: rows per generation call (None: the whole rollout batch at once); a chunk's KV cache and
            logits are all the rollout holds at a time, and the samples are the same for any chunk
            (``rlvr_lib.training.rollout_chunks``). An attribute: ``train.build_trainer`` sets it from the memory
            estimate.
        Every other argument goes to ``trl.GRPOTrainer``.
    """

    LENGTH_BUCKET_ROWS = 32  # rows per length bucket of a forward pass (speed; 0: TRL's one-block forward)
    FAST_SAMPLER = True  # rollouts with rlvr_lib's decoding loop (speed; False: HF generate, TRL's default)
    BEHAVIOUR_FROM_SAMPLER = True  # behaviour log-probs/entropies from that loop, not a forward (top_p 1 only)
    DEFER_BEHAVIOUR = True  # entropy metrics from the loss pass when nothing else needs the behaviour forward

    def __init__(
        self,
        *args: Any,
        method: Method,
        log_reference_kl: bool | None = None,
        reference_kl_every: int = 1,
        compile_generation: bool = False,
        generation_chunk: int | None = None,
        **kwargs: Any,
    ):
        training_args = kwargs.get("args")
        if training_args is not None and training_args.beta != 0.0:
            raise ValueError(
                "GRPOConfig.beta must be 0 with RLVRTrainer: set the KL coefficient as the method's "
                f"hyperparameter (e.g. beta for '{method.name}') instead"
            )
        if training_args is not None and str(training_args.eval_strategy) not in ("no", "IntervalStrategy.NO"):
            raise ValueError(
                "RLVRTrainer does not run TRL's evaluation loop (its rollouts would update method state such as "
                "AER's entropy target): set eval_strategy='no' and evaluate with rlvr_lib.eval"
            )
        super().__init__(*args, **kwargs)
        self.method = method
        self.generation_chunk = generation_chunk
        self._rewards_per_func: torch.Tensor | None = None
        self._realised_batches: list[tuple] = []  # log_realised_entropy_change: this optimizer step's micro-batches
        self._gradient_pair: list[torch.Tensor] | None = None  # log_gradient_cosine: this step's two gradients
        self._diagnostic_s = 0.0  # wall time of this step's diagnostics inside TRL's step_time
        self._pending_entropies: dict[str, Any] | None = None  # DEFER_BEHAVIOUR: the loss pass's, until complete
        if log_reference_kl is None:
            small = sum(p.numel() for p in self.model.parameters()) < REFERENCE_COPY_MAX_PARAMS
            log_reference_kl = is_peft_model(self.model) or method.needs_reference or small
        self.log_reference_kl = log_reference_kl
        if reference_kl_every < 1:
            raise ValueError(f"reference_kl_every must be >= 1, got {reference_kl_every}")
        self.reference_kl_every = reference_kl_every
        self._rollout_batches = 0  # rollout batches scored so far (train mode), for the KL logging cadence
        self._uses_reference = method.needs_reference or log_reference_kl
        if self._uses_reference and not is_peft_model(self.model):
            reference = copy.deepcopy(self.model).eval().requires_grad_(False)
            if self.is_fsdp_enabled:  # sharded layer by layer like the policy (configs/accelerate/fsdp2.yaml)
                from rlvr_lib.training.sharding import shard_frozen

                self.ref_model = shard_frozen(reference, self.accelerator)
            else:
                self.ref_model = self.accelerator.prepare_model(reference, evaluation_mode=True)
        if compile_generation and getattr(self, "generation_config", None) is not None:
            self.generation_config.disable_compile = False
        self.add_callback(_MethodStepCallback(self))
        self._warn_if_inert()

    # ------------------------------------------------------------------ configuration checks
    @property
    def updates_per_rollout_batch(self) -> float:
        """Optimizer steps taken on one generation batch."""
        return self.args.steps_per_generation * self.num_iterations / self.args.gradient_accumulation_steps

    def _warn_if_inert(self) -> None:
        updates = self.updates_per_rollout_batch
        kind = self.method.updates_per_batch
        if kind == "several" and updates <= 1:
            warnings.warn(
                f"method '{self.method.name}' needs several updates per rollout batch to act (its off-policy terms "
                f"vanish when policy == behaviour), but this configuration makes {updates:g}: raise num_iterations "
                "or steps_per_generation",
                stacklevel=2,
            )
        if kind == "one" and updates != 1:
            warnings.warn(
                f"method '{self.method.name}' is defined for exactly one update per rollout batch, but this "
                f"configuration makes {updates:g}: set num_iterations=1 and steps_per_generation equal to "
                "gradient_accumulation_steps",
                stacklevel=2,
            )

    # ------------------------------------------------------------------ hook 1: rollout
    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        self._rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        return self._rewards_per_func  # (B_global, n_reward_funcs)

    def _reference_logps(self, input_ids, attention_mask, logits_to_keep) -> torch.Tensor:
        if self.ref_model is not None:
            return self._get_per_token_logps_and_entropies(
                self.ref_model,
                input_ids,
                attention_mask,
                logits_to_keep,
                batch_size=self.args.per_device_train_batch_size,
            )[0]
        model = self.accelerator.unwrap_model(self.model)  # PEFT: the reference is the model without adapters
        with use_adapter(model, adapter_name="ref" if "ref" in model.peft_config else None):
            return self._get_per_token_logps_and_entropies(
                self.model, input_ids, attention_mask, logits_to_keep, batch_size=self.args.per_device_train_batch_size
            )[0]

    def _gather_rows(self, x: torch.Tensor | None, pad: float = 0.0) -> torch.Tensor | None:
        """Concatenate a (B_local, T_local) tensor over processes, padding T to the largest."""
        if x is None or self.accelerator.num_processes == 1:
            return x
        return self.accelerator.gather(self.accelerator.pad_across_processes(x, dim=1, pad_index=pad))

    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        """Text rollouts sampled with temperature and top-p only, ``generation_chunk`` rows at a time
        (``rlvr_lib.training.rollout_chunks``: the same samples for any chunk); anything else (vLLM, continuous
        batching, images, other warpers or generation kwargs) goes to TRL's generation as it is, in one call.

        Each chunk runs HF ``generate`` (TRL's transformers path, with ``rollout_chunks.PresetDraws`` choosing the
        tokens) or, on the CPU without a static cache, ``rlvr_lib.eval.sampling.sample_tokens`` (``FAST_SAMPLER``;
        measured faster there only). That loop stops computing rows that have ended and computes the per-token
        log-probs and entropies of softmax(logits / temperature) as it draws; with top_p = 1 they are kept in
        ``_sampled`` and replace TRL's behaviour forward (``_sampled_behaviour``), with the method's entropy-change
        factors when it needs them. Returns what TRL's transformers path returns: per row the completion ids up
        to and including the first eos, and no sampling log-probs (TRL would take them for vLLM's
        importance-sampling correction). Logs the generation's wall time as ``timing/generation_s``.
        """
        presettable = not (
            self.use_vllm
            or self.use_transformers_continuous_batching
            or images
            or multimodal_fields
            or has_tool_images
            or self.args.generation_kwargs
            or self.top_k
            or self.min_p
            or self.repetition_penalty != 1.0
        )
        if not presettable:
            return super()._generate_single_turn(
                prompt_ids, images, multimodal_fields, num_generations, has_tool_images=has_tool_images
            )
        started = time.perf_counter()
        completions = self._generate_chunked(prompt_ids, images, multimodal_fields, num_generations, has_tool_images)
        mode = "train" if self.model.training else "eval"
        self._metrics[mode]["timing/generation_s"].append(time.perf_counter() - started)  # .tolist() synchronised
        return completions, None

    def _generate_chunked(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images):
        """Per row the completion ids, ``generation_chunk`` rows at a time (``_generate_single_turn``)."""
        device = self.accelerator.device
        rows, steps = len(prompt_ids), self.max_completion_length
        if self.FAST_SAMPLER and device.type == "cpu" and not self.args.cache_implementation:
            parts = generate_in_chunks(self._sample_chunk(prompt_ids), rows, self.generation_chunk, steps, device)
            sampled = type(parts[0])(*(None if p[0] is None else torch.cat(p) for p in zip(*parts, strict=True)))
            if self.BEHAVIOUR_FROM_SAMPLER and self.top_p == 1.0:
                self._sampled = sampled
            return [row[:n] for row, n in zip(sampled.tokens.tolist(), sampled.lengths.tolist(), strict=True)]

        def generate_chunk(rows_slice, uniforms):
            processor = PresetDraws(uniforms, self.temperature, self.top_p)
            with generate_with_processor(self.accelerator.unwrap_model(self.model_wrapped), processor):
                return super(RLVRTrainer, self)._generate_single_turn(
                    prompt_ids[rows_slice], images, multimodal_fields, num_generations, has_tool_images
                )[0]

        parts = generate_in_chunks(generate_chunk, rows, self.generation_chunk, steps, device)
        return [completion for part in parts for completion in part]

    def _sample_chunk(self, prompt_ids):
        """``sample_tokens`` for a chunk of the left-padded prompts (padded to the whole batch's width)."""
        prompts = [torch.tensor(ids) for ids in prompt_ids]
        device = self.accelerator.device
        input_ids = pad(prompts, padding_value=self._tokenizer.pad_token_id, padding_side="left").to(device)
        attention_mask = pad([torch.ones_like(t) for t in prompts], padding_value=0, padding_side="left").to(device)

        def sample_chunk(rows_slice, uniforms):
            with profiling_context(self, "rlvr_lib.sample_tokens"):
                return sample_tokens(
                    self.accelerator.unwrap_model(self.model),
                    input_ids[rows_slice],
                    attention_mask[rows_slice],
                    temperature=self.temperature,
                    top_p=self.top_p,
                    max_new_tokens=self.max_completion_length,
                    eos_ids=self.eos_token_ids,
                    pad_token_id=self._tokenizer.pad_token_id,
                    entropy_change_factors=self.method.needs_entropy_change_factor,
                    uniforms=uniforms,
                )

        return sample_chunk

    def _sampled_behaviour(self, input_ids, attention_mask, logits_to_keep):
        """The sampler's log-probs, entropies and entropy-change factors (each (B, T); factors None unless the
        method needs them) for a scored batch, or None if they are not of its rows."""
        sampled, self._sampled = getattr(self, "_sampled", None), None
        if sampled is None or self.accelerator.num_processes != 1:  # several processes: not tested, forward instead
            return None
        tokens, lengths, logps, entropies, factors = sampled
        completion_mask = attention_mask[:, -logits_to_keep:]
        width = min(logits_to_keep, tokens.size(1))
        if (
            tokens.size(0) != input_ids.size(0)
            or not torch.equal(completion_mask.sum(1), lengths)
            or not torch.equal(
                (tokens[:, :width] * completion_mask[:, :width]),
                input_ids[:, -logits_to_keep:][:, :width] * completion_mask[:, :width],
            )
        ):
            return None
        pad_right = logits_to_keep - width
        return tuple(None if x is None else F.pad(x[:, :width], (0, pad_right)) for x in (logps, entropies, factors))

    def _generate_and_score_completions(self, inputs):
        self._behaviour_forward, self._sampled, self._scoring = None, None, True
        try:
            output = super()._generate_and_score_completions(inputs)
        finally:
            self._scoring = False
        return self.apply_rollout_hook(output)

    def _get_per_token_logps_and_entropies(
        self,
        model,
        input_ids,
        attention_mask,
        logits_to_keep,
        batch_size=None,
        compute_entropy=False,
        compute_aux_loss=False,
        **kwargs,
    ):
        """TRL's per-token log-probs/entropies, with three speed changes (measured by benchmarks/step_profile.py).

        1. Text-only batches run in buckets of similar length without their shared padding
           (``rlvr_lib.training.length_buckets``; ``LENGTH_BUCKET_ROWS`` rows each, 0: TRL's one-block forward). Same
           numbers up to float rounding (~1e-6: the matrix shapes differ, the position ids do not).
        2. When TRL scores a generation batch with the policy (its behaviour log-probs, computed when a batch
           serves several optimizer steps), that forward also keeps the entropies, and hook 1 reuses it instead
           of running a second identical no-grad forward (``_behaviour_stats``).
        3. With ``BEHAVIOUR_FROM_SAMPLER``, that scoring takes the log-probs and entropies the sampler computed
           while drawing the tokens (the behaviour policy's, KV-cached: equal to a forward up to float rounding).
        """
        scoring = getattr(self, "_scoring", False) and model is self.model and not torch.is_grad_enabled()
        with_entropy = compute_entropy or scoring
        sampled = self._sampled_behaviour(input_ids, attention_mask, logits_to_keep) if scoring else None
        factors = None
        if sampled is not None and (sampled[2] is not None or not self.method.needs_entropy_change_factor):
            (logps, entropies, factors), aux_loss = sampled, None  # 3. the sampler's own numbers: no forward at all
        elif scoring and self.method.needs_entropy_change_factor:  # the behaviour pass with the method's factors
            (logps, entropies, factors), aux_loss = (
                self._behaviour_stats_forward(input_ids, attention_mask, logits_to_keep),
                None,
            )
        elif self.LENGTH_BUCKET_ROWS and not compute_aux_loss and all(v is None for v in kwargs.values()):
            logps, entropies = token_logps_by_length(
                model,
                input_ids,
                attention_mask,
                logits_to_keep,
                rows_per_bucket=self.LENGTH_BUCKET_ROWS,
                compute_entropy=with_entropy,
                autocast=self.accelerator.autocast,
            )
            aux_loss = None
        else:  # images or MoE aux loss: TRL's own forward (the scoring one as one chunk, like hook 1's)
            logps, entropies, aux_loss = super()._get_per_token_logps_and_entropies(
                model,
                input_ids,
                attention_mask,
                logits_to_keep,
                batch_size=None if scoring else batch_size,
                compute_entropy=with_entropy,
                compute_aux_loss=compute_aux_loss,
                **kwargs,
            )
        if scoring:
            self._behaviour_forward = (input_ids, attention_mask, logits_to_keep, logps, entropies, factors)
        return logps, entropies if compute_entropy else None, aux_loss

    def _behaviour_stats_forward(self, input_ids, attention_mask, logits_to_keep):
        """Log-probs, entropies and entropy-change factors (each (B, T)) of the policy, no grad, one forward.

        ``length_buckets.token_stats_by_length``: the backbone in length buckets, then the LM head chunk by chunk
        (at most ``chunk_elements`` logits at a time, never (B, T, V)), at the sampling temperature. Refuses models
        whose head scales or soft-caps its logits (``LOGIT_TRANSFORM_FIELDS``), which only TRL's fused head applies.
        """
        model = self.accelerator.unwrap_model(self.model)
        causal = model.get_base_model() if is_peft_model(model) else model
        text_config = causal.config.get_text_config()
        transforms = {f: getattr(text_config, f) for f in LOGIT_TRANSFORM_FIELDS if getattr(text_config, f, None)}
        if transforms:
            raise NotImplementedError(
                f"method '{self.method.name}' needs vocabulary statistics from the trainer's own LM-head pass, which "
                f"does not apply this model's logit transforms {transforms}"
            )
        return token_stats_by_length(
            causal.base_model,
            causal.get_output_embeddings(),
            input_ids,
            attention_mask,
            logits_to_keep,
            rows_per_bucket=self.LENGTH_BUCKET_ROWS or input_ids.size(0),
            temperature=self.temperature,
            autocast=self.accelerator.autocast,
        )

    def _behaviour_stats(self, input_ids, attention_mask, logits_to_keep, forward: bool = True):
        """Behaviour log-probs, entropies (B, T) and, when the method needs them, entropy-change factors (B, T)
        (else None) of a scored batch: TRL's forward if it ran on these inputs, else the sampler's, else a forward
        of our own; (None, None, None) instead of that forward when not ``forward``."""
        needs_factors = self.method.needs_entropy_change_factor
        cached, self._behaviour_forward = getattr(self, "_behaviour_forward", None), None
        if (
            cached is not None
            and cached[2] == logits_to_keep
            and torch.equal(cached[0], input_ids)
            and torch.equal(cached[1], attention_mask)
            and (cached[5] is not None or not needs_factors)
        ):
            return cached[3], cached[4], cached[5]
        sampled = self._sampled_behaviour(input_ids, attention_mask, logits_to_keep)
        if sampled is not None and (sampled[2] is not None or not needs_factors):
            return sampled  # one update per batch: TRL ran no behaviour forward, the sampler's values serve
        if needs_factors:
            return self._behaviour_stats_forward(input_ids, attention_mask, logits_to_keep)
        if not forward:
            return None, None, None
        logps, entropies, _ = self._get_per_token_logps_and_entropies(
            self.model, input_ids, attention_mask, logits_to_keep, compute_entropy=True
        )
        return logps, entropies, None

    def _can_defer_behaviour(self, output: dict[str, Any], mode: str) -> bool:
        """Whether the behaviour log-probs and entropies of this rollout batch may be left uncomputed: nothing reads
        them now (the method's rollout, the reference KL metric) and the loss pass will see the behaviour policy
        itself. The latter holds when TRL ran no behaviour forward: it skips it exactly when every micro-batch of
        a generation batch is computed before the next optimizer step (gradient_accumulation_steps a multiple of
        steps_per_generation x num_iterations), so policy == behaviour there and the loss pass's entropies (with
        grad, detached) are the behaviour entropies up to float rounding; ``_compute_loss`` logs their metrics
        once it has seen all the batch's rows (``_defer_entropy_metrics``)."""
        return (
            self.DEFER_BEHAVIOUR
            and mode == "train"
            and "old_per_token_logps" not in output
            and not self._uses_reference
            and not self.method.rollout_needs_behaviour
            and not self.method.needs_entropy_change_factor
        )

    def _defer_entropy_metrics(self, entropies: torch.Tensor, mask: torch.Tensor) -> None:
        """Collect one micro-batch's (rows, T) entropies; log the rollout batch's entropy metrics with its last."""
        pending = self._pending_entropies
        if pending is None:
            return
        pending["parts"].append((entropies.detach().float(), mask.float()))
        pending["seen"] += entropies.size(0)
        if pending["seen"] < pending["rows"]:
            return
        self._pending_entropies = None
        width = max(e.size(1) for e, _ in pending["parts"])
        entropies = torch.cat([F.pad(e, (0, width - e.size(1))) for e, _ in pending["parts"]])
        mask = torch.cat([F.pad(m, (0, width - m.size(1))) for _, m in pending["parts"]])
        self._log_entropy_metrics("train", self._gather_rows(entropies), self._gather_rows(mask))

    def apply_rollout_hook(self, output: dict[str, Any]) -> dict[str, Any]:
        """Hook 1 on a scored generation batch (TRL's output dict; rewards from ``_calculate_rewards``)."""
        mode = "train" if self.model.training else "eval"
        completion_ids = output["completion_ids"]
        input_ids = torch.cat([output["prompt_ids"], completion_ids], dim=1)
        attention_mask = torch.cat([output["prompt_mask"], output["completion_mask"]], dim=1)
        logits_to_keep = completion_ids.size(1)
        mask = output["completion_mask"].float()
        if "tool_mask" in output:
            mask = mask * output["tool_mask"]

        log_kl_now = self.log_reference_kl and self._rollout_batches % self.reference_kl_every == 0
        if mode == "train":
            self._rollout_batches += 1
        defer = self._can_defer_behaviour(output, mode)
        with torch.no_grad():
            logps, entropies, factors = self._behaviour_stats(
                input_ids, attention_mask, logits_to_keep, forward=not defer
            )
            ref_logps = (
                self._reference_logps(input_ids, attention_mask, logits_to_keep)
                if self.method.needs_reference or log_kl_now
                else None
            )
        self._pending_entropies = {"rows": mask.size(0), "seen": 0, "parts": []} if entropies is None else None
        if "old_per_token_logps" in output:  # several updates per batch: behaviour log-probs are needed in the loss
            output["old_per_token_logps"] = logps
        if self.method.needs_reference:
            output["ref_per_token_logps"] = ref_logps

        num_generations = self.num_generations if mode == "train" else self.num_generations_eval
        rewards_per_func = self._rewards_per_func
        weights = self.reward_weights.to(rewards_per_func.device)
        rewards = torch.nan_to_num((rewards_per_func * weights).nansum(dim=1), nan=0.0)
        accuracy = None
        if "accuracy" in self.reward_func_names:
            accuracy = torch.nan_to_num(rewards_per_func[:, self.reward_func_names.index("accuracy")], nan=0.0)
        global_mask = self._gather_rows(mask)
        global_ref_logps = self._gather_rows(ref_logps)
        batch = RolloutBatch(
            rewards=rewards,
            group_ids=torch.arange(rewards.numel(), device=rewards.device) // num_generations,
            mask=global_mask,
            logps=self._gather_rows(logps),
            entropies=self._gather_rows(entropies),
            ref_logps=global_ref_logps if self.method.needs_reference else None,
            accuracy=accuracy,
            entropy_change_factors=self._gather_rows(factors),
        )
        result = self.method.rollout(batch)

        rows = slice(self.accelerator.process_index * mask.size(0), (self.accelerator.process_index + 1) * mask.size(0))
        output["advantages"] = result.advantages[rows, :logits_to_keep]
        for key, value in result.extras.items():
            value = value[rows]
            if value.dim() >= 2 and value.size(1) == global_mask.size(1):
                value = value[:, :logits_to_keep]
            output[EXTRA_PREFIX + key] = value
        self._log_rollout_metrics(mode, batch, global_ref_logps, result.metrics)
        return output

    def _log_rollout_metrics(
        self, mode: str, batch: RolloutBatch, ref_logps: torch.Tensor | None, method_metrics: dict[str, float]
    ) -> None:
        metrics = self._metrics[mode]
        if batch.entropies is not None:  # else logged from the loss pass (_defer_entropy_metrics)
            self._log_entropy_metrics(mode, batch.entropies, batch.mask)
        if batch.accuracy is not None:
            metrics["accuracy"].append(float(batch.accuracy.float().mean()))
        if ref_logps is not None:
            metrics["kl_to_reference"].append(float(masked_mean(k3_kl(batch.logps, ref_logps), batch.mask)))
        for key, value in method_metrics.items():
            metrics[key].append(float(value))

    def _log_entropy_metrics(self, mode: str, entropies: torch.Tensor, mask: torch.Tensor) -> None:
        """The behaviour policy's token entropy over a whole rollout batch (global rows): mean and quantiles."""
        metrics = self._metrics[mode]
        metrics["entropy/mean"].append(float(masked_mean(entropies, mask)))
        quantiles = masked_quantiles(entropies, mask, ENTROPY_QUANTILES)
        for q, value in zip(ENTROPY_QUANTILES, quantiles, strict=True):
            metrics[f"entropy/p{int(q * 100)}"].append(value)

    # ------------------------------------------------------------------ hook 2: loss
    def _compute_loss(self, model, inputs):
        prompt_ids, prompt_mask = inputs["prompt_ids"], inputs["prompt_mask"]
        completion_ids, completion_mask = inputs["completion_ids"], inputs["completion_mask"]
        input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
        attention_mask = torch.cat([prompt_mask, completion_mask], dim=1)
        logits_to_keep = completion_ids.size(1)
        mask = completion_mask.float() if "tool_mask" not in inputs else completion_mask * inputs["tool_mask"]

        logps, entropies, aux_loss = self._get_per_token_logps_and_entropies(
            model,
            input_ids,
            attention_mask,
            logits_to_keep,
            compute_entropy=True,
            compute_aux_loss=self.aux_loss_enabled,
        )
        mode = "train" if self.model.training else "eval"
        if mode == "train":
            self._defer_entropy_metrics(entropies, mask)
        factors = None
        if mode == "train" and self.logs_realised_entropy_change:
            started = time.perf_counter()
            before, factors = self._diagnostic_stats(input_ids, attention_mask, logits_to_keep)
            self._realised_batches.append((input_ids, attention_mask, logits_to_keep, mask.detach().float(), before))
            self._diagnostic_s += time.perf_counter() - started
        grad_accum = self.current_gradient_accumulation_steps if mode == "train" else 1
        tokens_per_process = inputs["num_items_in_batch"].float() / self.accelerator.num_processes
        if mode == "train":  # num_items_in_batch spans the generation batch: rescale to one optimizer step
            tokens_per_process = tokens_per_process * grad_accum / self.args.steps_per_generation
        advantages = inputs["advantages"]
        if advantages.dim() == 1:
            advantages = advantages[:, None].expand_as(logps)
        old_logps = inputs.get("old_per_token_logps")
        batch = LossBatch(
            logps=logps,
            entropies=entropies,
            old_logps=logps.detach() if old_logps is None else old_logps,
            advantages=advantages,
            mask=mask,
            num_tokens=float(tokens_per_process),
            num_seqs=float(logps.size(0) * grad_accum),
            max_completion_length=self.max_completion_length,
            ref_logps=inputs.get("ref_per_token_logps"),
            extras={k[len(EXTRA_PREFIX) :]: v for k, v in inputs.items() if k.startswith(EXTRA_PREFIX)},
            entropy_change_factors=factors,
        )
        loss, method_metrics = self.method.loss(batch)
        if mode == "train" and self.logs_gradient_cosine:
            self._accumulate_gradient_pair(model, loss, self.method.unweighted_loss(batch))
        if self.aux_loss_enabled:
            loss = loss + self.router_aux_loss_coef * aux_loss / grad_accum

        method_metrics = {"entropy/current": float(masked_mean(entropies.detach(), mask)), **method_metrics}
        keys = sorted(method_metrics)  # same order on every process: reduce is a collective
        values = torch.tensor([method_metrics[k] for k in keys], device=logps.device, dtype=torch.float32)
        values = self.accelerator.reduce(values, reduction="mean")
        for key, value in zip(keys, values.tolist(), strict=False):
            self._metrics[mode][key].append(value)
        return loss

    # ------------------------------------------------------------------ diagnostic: realised entropy change
    @property
    def logs_realised_entropy_change(self) -> bool:
        """The method's ``log_realised_entropy_change`` switch (methods of the GRPO family; False for the others)."""
        return bool(getattr(self.method.cfg, "log_realised_entropy_change", False))

    def _diagnostic_stats(self, input_ids, attention_mask, logits_to_keep) -> tuple[torch.Tensor, torch.Tensor]:
        """Entropies and eq. 6 entropy-change factors (each (B, T)) of the current policy on a micro-batch: one
        no-grad forward (``_behaviour_stats_forward``) with the random state saved and restored, so the run's
        trajectory (parameters, optimizer, samples) is the run without the diagnostic."""
        device = self.accelerator.device
        devices = [device] if device.type == "cuda" else []
        with torch.no_grad(), torch.random.fork_rng(devices=devices):
            _, entropies, factors = self._behaviour_stats_forward(input_ids, attention_mask, logits_to_keep)
        return entropies, factors

    @property
    def logs_gradient_cosine(self) -> bool:
        """The method's ``log_gradient_cosine`` switch (OPEFO; False for the others)."""
        return bool(getattr(self.method.cfg, "log_gradient_cosine", False))

    def _accumulate_gradient_pair(self, model, loss: torch.Tensor, unweighted: torch.Tensor | None) -> None:
        """Under ``log_gradient_cosine``: add this micro-batch's gradients of the method's loss and of its
        unweighted counterpart (``Method.unweighted_loss``) w.r.t. the trainable parameters to the step's sums.
        ``torch.autograd.grad`` with the graph retained: nothing is written to ``.grad``, and the training backward
        that follows is the same; the random state is saved and restored."""
        if unweighted is None:
            raise ValueError(f"method '{self.method.name}' has no unweighted loss to compare its gradient with")
        started = time.perf_counter()
        params = [p for p in model.parameters() if p.requires_grad]
        devices = [self.accelerator.device] if self.accelerator.device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices):
            pair = [
                torch.cat(
                    [
                        (torch.zeros_like(p) if g is None else g).detach().float().reshape(-1)
                        for p, g in zip(
                            params, torch.autograd.grad(x, params, retain_graph=True, allow_unused=True), strict=True
                        )
                    ]
                )
                for x in (loss, unweighted)
            ]
        self._gradient_pair = (
            pair if self._gradient_pair is None else [a + b for a, b in zip(self._gradient_pair, pair, strict=True)]
        )
        self._diagnostic_s += time.perf_counter() - started

    def _step_diagnostics(self) -> dict[str, float]:
        """The optimizer step's diagnostics (``_realised_entropy_change``, the gradient cosine) and the wall time
        they took inside TRL's ``step_time`` (``timing/diagnostics_s``, which ``papers.framework.results.step_time``
        subtracts). {} when no diagnostic is on."""
        out = self._realised_entropy_change()
        pair, self._gradient_pair = self._gradient_pair, None
        if pair is not None:
            weighted, unweighted = (self.accelerator.reduce(g, reduction="sum") for g in pair)
            norms = weighted.double().norm(), unweighted.double().norm()
            cosine = float(weighted.double() @ unweighted.double() / (norms[0] * norms[1]).clamp(min=1e-30))
            out["gradient_cosine/weighted_vs_unweighted"] = cosine
            out["gradient_cosine/norm_ratio"] = float(norms[0] / norms[1].clamp(min=1e-30))
        if out:
            out["timing/diagnostics_s"] = self._diagnostic_s
        self._diagnostic_s = 0.0
        return out

    def _realised_entropy_change(self) -> dict[str, float]:
        """At an optimizer step's end, under ``log_realised_entropy_change``: the mean token entropy of the step's
        own batch (its micro-batches on this process, the same tokens) under the policy before the step and after
        it, both from ``_diagnostic_stats`` (one forward each: the same numerics), means over processes.
        ``realised_entropy/{before,after,change,tokens}``; compare ``change`` with the step's first-order flows
        (``entropy_flow/net``, ``entropy_flow/net_expectation``: sums over the same tokens). {} when off."""
        batches, self._realised_batches = self._realised_batches, []
        if not batches:
            return {}
        before_sum = after_sum = tokens = 0.0
        for input_ids, attention_mask, logits_to_keep, mask, before in batches:
            after, _ = self._diagnostic_stats(input_ids, attention_mask, logits_to_keep)
            before_sum += float((before.float() * mask).sum())
            after_sum += float((after.float() * mask).sum())
            tokens += float(mask.sum())
        values = torch.tensor([before_sum, after_sum, tokens], device=self.accelerator.device, dtype=torch.float64)
        before_sum, after_sum, tokens = self.accelerator.reduce(values, reduction="sum").tolist()
        before, after = before_sum / max(tokens, 1.0), after_sum / max(tokens, 1.0)
        processes = self.accelerator.num_processes
        return {
            "realised_entropy/before": before,
            "realised_entropy/after": after,
            "realised_entropy/change": after - before,
            "realised_entropy/tokens": tokens / processes,  # per process, as the flows' sums
        }

    # ------------------------------------------------------------------ hook 3: state in checkpoints
    def save_method_state(self, folder: str | os.PathLike) -> None:
        """Write ``method_state.json`` (method name + state) into ``folder``: the one writer of that file, used by
        every checkpoint and by the final model."""
        write_json_atomic(
            os.path.join(folder, METHOD_STATE_FILE), {"method": self.method.name, "state": self.method.state_dict()}
        )

    def _get_output_dir(self, trial):
        """Where transformers writes checkpoints: the staging folder while ``_save_checkpoint`` runs."""
        return getattr(self, "_saving_into", None) or super()._get_output_dir(trial=trial)

    def _save_checkpoint(self, model, trial):
        """transformers' checkpoint plus the method state and, per process, the trainer state TRL and this class
        keep between steps (rollout buffer, micro-step and rollout-batch counters), written aside and renamed to
        ``checkpoint-N`` only when complete (``rlvr_lib.files.checkpoints``); a full disk is named as such."""
        run_dir = super()._get_output_dir(trial=trial)
        staging = os.path.join(run_dir, SAVING_DIR)
        name = f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}"
        if self.args.should_save:
            shutil.rmtree(staging, ignore_errors=True)  # an earlier save cut short
        self.accelerator.wait_for_everyone()
        with naming_full_disk(run_dir, f"checkpoint {name}"):
            self._saving_into = staging
            try:
                super()._save_checkpoint(model, trial)
            finally:
                self._saving_into = None
            folder = os.path.join(staging, name)
            if self.args.should_save:
                self.save_method_state(folder)
            # a checkpoint inside a rollout batch resumes on the rest of that batch, as the uninterrupted run does,
            # and the reference-KL cadence (reference_kl_every) goes on from where it was
            torch.save(
                {
                    "step": self._step,
                    "buffered_inputs": self._buffered_inputs,
                    "rollout_batches": self._rollout_batches,
                },
                os.path.join(folder, ROLLOUT_BUFFER_FILE.format(self.accelerator.process_index)),
            )
            self.accelerator.wait_for_everyone()
            if self.args.should_save:
                seal_and_publish(folder, os.path.join(run_dir, name))
                rotate_checkpoints(
                    run_dir, self.args.save_total_limit, self.state.best_model_checkpoint, use_mtime=True
                )
        self.accelerator.wait_for_everyone()

    def _load_optimizer_and_scheduler(self, checkpoint):
        super()._load_optimizer_and_scheduler(checkpoint)
        if checkpoint is None:
            return
        path = os.path.join(checkpoint, METHOD_STATE_FILE)
        saved = read_json(path, dict, hint=f"remove {checkpoint} to resume from the one before")
        if saved.get("method") != self.method.name:
            raise ValueError(f"{path} holds the state of method {saved.get('method')!r}, not '{self.method.name}'")
        self.method.load_state_dict(saved["state"])
        buffer_path = os.path.join(checkpoint, ROLLOUT_BUFFER_FILE.format(self.accelerator.process_index))
        if not os.path.exists(buffer_path):
            raise FileNotFoundError(f"resuming from {checkpoint}: {os.path.basename(buffer_path)} is missing")
        buffer = torch.load(buffer_path, map_location=self.accelerator.device, weights_only=False)
        self._step, self._buffered_inputs = buffer["step"], buffer["buffered_inputs"]
        self._rollout_batches = buffer["rollout_batches"]
