"""Peak GPU memory of a training run, estimated before it starts, and the generation chunk that fits.

Counted (bytes): the policy's weights, a frozen reference copy where the trainer makes one, the gradients and
AdamW's two states of the trainable parameters (in their own dtype, as ``torch.optim.AdamW`` keeps them), and one
generation chunk: its KV cache for prompt + completion tokens (a static cache allocates all of it at once), the
prefill's attention scores and MLP activations, and the sampling step's logits (float32, ``LOGIT_COPIES`` copies:
logits, warped scores, probabilities, cumulative sums, ...). Gradients are freed between optimizer steps (the
Trainer zeroes them to None), so a rollout and a backward pass never hold both: the peak is the weights, the
reference and the optimizer plus the larger of the gradients and the generation chunk. Not counted: the loss
pass's activations (gradient checkpointing keeps them small; TRL's fused LM head never holds (B, T, V) logits),
the CUDA context and the allocator's fragmentation; the prefill term assumes materialised attention scores, which
SDPA's kernels often avoid. So it is an estimate, not a bound: on one H100 (docs/gpu.md section 1) it gave 46.1 GiB
for aer's proof run (nvidia-smi peak 28.1 GiB), 27.3 for grpo (22.1) and 13.3 for grpo in 32-row chunks (20.0).
A run is refused when the estimate exceeds the device's memory.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 2**30
LOGIT_COPIES = 6  # float32 (rows, V) tensors alive in one sampling step
MEMORY_FRACTION = 0.75  # share of the device the estimate may fill when the chunk is chosen automatically
MAX_AUTO_CHUNK = 256  # rows: decoding a 1.5B model is compute-bound well before this on an H100 (docs/gpu.md)
SETTINGS_TO_CHANGE = (
    "train.generation_chunk (fewer rows generated at a time), train.max_completion_length, train.lora_r (LoRA: "
    "no full gradients or optimizer states), model.path (a smaller model), or a method without a reference copy"
)


@dataclass(frozen=True)
class ModelMemory:
    """What a loaded model puts on the device, and the shapes its generation allocates by."""

    weight_bytes: int  # every parameter
    trainable_bytes: int  # parameters with requires_grad: their gradients, and AdamW's 2 states each
    reference_bytes: int  # a frozen reference copy (0: none, or LoRA's adapters-off reference)
    kv_bytes_per_token: int  # K and V of one token over all layers
    vocab_size: int
    attention_heads: int
    intermediate_size: int


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per component (``rlvr_lib.memory_estimate`` says what each counts) for ``chunk_rows`` rows."""

    chunk_rows: int
    weights: int
    reference: int
    gradients: int
    optimizer: int
    kv_cache: int
    prefill: int
    logits: int

    @property
    def generation(self) -> int:
        return self.kv_cache + self.prefill + self.logits

    @property
    def peak(self) -> int:
        return self.weights + self.reference + self.optimizer + max(self.gradients, self.generation)

    def summary(self) -> str:
        parts = ", ".join(
            f"{name} {getattr(self, name) / GIB:.2f}"
            for name in ("weights", "reference", "gradients", "optimizer", "kv_cache", "prefill", "logits")
        )
        return f"peak memory estimate {self.peak / GIB:.2f} GiB (generation chunk {self.chunk_rows} rows; GiB: {parts})"


def estimate_peak_memory(
    model: ModelMemory, *, chunk_rows: int, prompt_tokens: int, completion_tokens: int, activation_bytes: int = 2
) -> MemoryEstimate:
    """The components for a generation chunk of ``chunk_rows`` rows of ``prompt_tokens`` (the longest, padded)
    + ``completion_tokens`` tokens; ``activation_bytes`` per element of the prefill activations (2: bf16)."""
    return MemoryEstimate(
        chunk_rows=chunk_rows,
        weights=model.weight_bytes,
        reference=model.reference_bytes,
        gradients=model.trainable_bytes,
        optimizer=2 * model.trainable_bytes,
        kv_cache=chunk_rows * (prompt_tokens + completion_tokens) * model.kv_bytes_per_token,
        prefill=chunk_rows
        * prompt_tokens
        * (model.attention_heads * prompt_tokens * 4 + 2 * model.intermediate_size * activation_bytes),
        logits=chunk_rows * model.vocab_size * 4 * LOGIT_COPIES,
    )


def auto_generation_chunk(
    model: ModelMemory, *, device_bytes: int, rollout_rows: int, prompt_tokens: int, completion_tokens: int
) -> int:
    """The most rows (at most ``rollout_rows`` and ``MAX_AUTO_CHUNK``) whose estimate stays within
    ``MEMORY_FRACTION`` of ``device_bytes``; at least 1 (``check_fits`` then refuses what does not fit)."""
    shape = dict(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    one_row = estimate_peak_memory(model, chunk_rows=1, **shape)
    fixed = one_row.weights + one_row.reference + one_row.optimizer
    rows = int((MEMORY_FRACTION * device_bytes - fixed) // one_row.generation)
    return max(1, min(rows, rollout_rows, MAX_AUTO_CHUNK))


def check_fits(estimate: MemoryEstimate, device_bytes: int, device_name: str) -> None:
    """Raise ``MemoryError`` naming the settings to change when the estimate exceeds the device's memory."""
    if estimate.peak > device_bytes:
        raise MemoryError(
            f"this run cannot fit {device_name} ({device_bytes / GIB:.1f} GiB): {estimate.summary()}. Change "
            f"{SETTINGS_TO_CHANGE}"
        )
