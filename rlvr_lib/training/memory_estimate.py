"""Peak GPU memory of a training run per card, estimated before the model is loaded, and the generation chunk that fits.

Counted (bytes per card):

- **Resident all run**: the policy's weights, a frozen reference copy where the trainer makes one, AdamW's two
  states of the trainable parameters. Sharded (accelerate FSDP, ``shards`` processes) each is divided by the shard
  count, and with bf16 mixed precision FSDP keeps fp32 master weights (accelerate upcasts the trainable parameters),
  so trainable weights, gradients and states count 4 bytes an element there; sharded, the bf16 parameters gathered
  for compute (two decoder layers, prefetch, and the root module's embeddings and LM head) come on top. Under LoRA
  the trainable parameters are PEFT's adapters, kept in float32 on a bf16 model (``get_peft_model``'s
  ``autocast_adapter_dtype``): their weights, gradients and states count ``LORA_ADAPTER_BYTES`` (4) an element.
- **One of three phases at a time**, the largest counted:
  1. a **generation chunk**: its KV cache for prompt + completion tokens (a static cache allocates all of it at once),
     the prefill's attention scores and MLP activations, and the sampling step's logits (float32, ``LOGIT_COPIES``
     copies). Gradients are freed between optimizer steps (the Trainer zeroes them to None), so a rollout and a
     backward pass never hold both;
  2. the **loss pass** at the micro-batch (``micro_rows`` rows of ``sequence_tokens`` tokens per device): with
     gradient checkpointing every decoder layer's input is kept (rows x tokens x hidden x layers, bf16), plus one
     layer's recomputation in the backward pass (per token ``ATTENTION_COPIES`` tensors of the attention block, of
     which ``ATTENTION_WIDTH_COPIES`` are as wide as the attention, num_attention_heads x head_dim, and the rest
     hidden-sized; ``QK_NORM_COPIES`` more of q's and of k's width where the model normalises q and k per head, as
     Qwen3 does; ``MLP_COPIES`` intermediate-sized; under LoRA, per adapted linear layer of the decoder layer, a bf16
     copy of its input and its rank-r lora_A output, below), the padded rows' attention mask (rows x tokens x tokens,
     bool),
     and TRL's chunked LM head (``trl.kernels.ChunkedLogProbFunction``: the hidden states it saves, its float32
     gradient of them and of the head's weight, and its logit tiles); the gradients grow as the backward pass goes,
     so the pass peaks either at the LM head's backward (all checkpoints held) or at the first layer's (all gradients
     held);
  3. the **optimizer step**: the gradients plus its temporaries (``torch.optim.AdamW(foreach=True)`` allocates one
     state-sized tensor per dtype group; the fused AdamW that transformers uses by default, ``adamw_torch_fused``,
     none).

**LoRA's recomputed layer** (PEFT's ``lora.Linear.forward``, ``target_modules="all-linear"``, no dropout, the config
rlvr_lib's trainer and memory-probe build): the frozen base layer saves no input (only its weight, which is no new
memory), but the adapter casts the input to its float32 weight's dtype and autocast casts that back to bf16 for
lora_A, a new tensor that lora_A saves; lora_B saves lora_A's rank-r output. Per token of the recomputed layer:
``ModelMemory.adapter_inputs`` (the adapted layers' input widths summed: q, k, v, gate and up hidden-sized, o_proj
num_attention_heads x head_dim, down_proj intermediate-sized; 5 x 1,536 + 1,536 + 8,960 = 18,176 for Qwen2.5-1.5B)
plus ``ModelMemory.adapter_outputs`` (rank x 7 adapted layers = 224 at r 32) elements of ``activation_bytes``; the
input copies only where the activations are narrower than the adapters (bf16). The layer's peak under LoRA is at the
end of its recomputation, in down_proj's adapter, where the float32 copy of down_proj's input (two
intermediate-sized bf16 tensors' bytes) stands in for the MLP's two intermediate-sized gradients of ``MLP_COPIES``
(not formed yet then), so that copy adds nothing. Measured on the CPU (two 4-layer Qwen2 shapes of
configs/erpo.yaml's family, hidden 384 / intermediate 2,240 and hidden 256 / attention 384 / intermediate 1,024; its
LoRA settings; the probe's code path, ``token_logps_by_length`` under bf16 autocast with gradient checkpointing;
every storage the loss pass allocates followed to its release): the peak of a LoRA layer's recomputation and
backward is full fine-tuning's (without its gradients) plus these two terms to within 1.1% (the rest: autocast's
bf16 casts of the adapter weights, a few MB a layer). For erpo's probe (16 rows x 2,560 tokens) they add 1.40 GiB
and the float32 adapters 0.21 GiB (the measured resident 3.29 GiB is now the estimate's): 11.97 -> 13.58 GiB against
the measured 13.98, 3% short; that 0.4 GiB is not itemised (the CPU stand-in does not run the GPU's attention and
LM-head kernels).

Not counted: the CUDA context (about 0.5 GiB, outside ``torch.cuda.max_memory_allocated``) and the allocator's
fragmentation (reserved minus allocated). The loss-pass terms were checked against measured peaks
(``python -m rlvr_lib memory-probe``; docs/gpu.md, benchmarks/gpu_results/issue31_probes.jsonl): every profile
within 5% (aer, whose Qwen3 attention is 4,096 wide on a hidden size of 2,560, at most 4% short since its
attention-width and q/k-norm tensors are counted; before, up to 12% short; LoRA (erpo) 3% short since the LoRA terms
above are counted; before, 17% short).

A run is refused before its model is loaded when the estimate times ``1 + REFUSAL_MARGIN`` exceeds the card (a
safety margin of 5% for what the estimate misses), with settings that would fit (``fitting_settings``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

GIB = 2**30
LOGIT_COPIES = 6  # float32 (rows, V) tensors alive in one sampling step
MEMORY_FRACTION = 0.75  # share of the device the estimate may fill when the chunk is chosen automatically
MAX_AUTO_CHUNK = 256  # rows: decoding a 1.5B model is compute-bound well before this on an H100 (docs/gpu.md)
# one decoder layer recomputed in the backward pass, per token: hidden-sized tensors (norm input in float32 = 2,
# norm output, q, k and v before and after the rotary embedding, attention output, o_proj output, residual, and
# their gradients as they pass) and intermediate-sized ones (gate, up, act(gate), act(gate) * up, and two gradients)
ATTENTION_COPIES = 12
# of those, the ones as wide as the attention (num_attention_heads x head_dim, which may differ from hidden_size:
# Qwen3-4B's 32 x 128 = 4,096 on 2,560): q after the rotary embedding, k and v repeated to the query heads (with a
# padded batch's mask SDPA does not group them), the attention output (SDPA's, saved by o_proj); counted at
# hidden_size, they and the q/k norms' tensors left aer's estimate 9-12% short of its measured peaks (docs/gpu.md
# section 0)
ATTENTION_WIDTH_COPIES = 4
# a per-head RMSNorm of q and of k (Qwen3's q_norm, k_norm) saves its float32 input (2 copies) and its normalised
# output, of q's width (num_attention_heads x head_dim) and of k's (num_key_value_heads x head_dim)
QK_NORM_COPIES = 3
MLP_COPIES = 6
# LoRA (PEFT, ``target_modules="all-linear"``): PEFT keeps the adapters of a bf16 model in float32
# (``get_peft_model``'s ``autocast_adapter_dtype``), so their weights, gradients and AdamW states count 4 bytes an
# element; and each adapted linear layer casts its input to the adapter's float32 and autocast casts that back to bf16
# for lora_A, a new tensor lora_A saves: per token of the recomputed layer one copy of every adapted layer's input
# (``ModelMemory.adapter_inputs``) and its rank-r lora_A output that lora_B saves (``ModelMemory.adapter_outputs``)
LORA_ADAPTER_BYTES = 4
HEAD_TOKEN_TILE = 4096  # trl.kernels.chunked_logprob.TOKEN_CHUNK_SIZE
HEAD_VOCAB_TILE = 32768  # trl.trainer.utils._CHUNKED_LOGPROB_CHUNK_SIZE
GATHERED_LAYERS = 2  # FSDP: the layer computing and the one prefetched
# a setting is suggested when its estimate fills at most this share of the card: the estimate fell up to 17% short
# of measured peaks before aer's Qwen3 attention-width and LoRA's adapter terms were counted (docs/gpu.md; now at
# most 4%), and the allocator reserves more (up to 13 GiB sharded)
SUGGESTION_FRACTION = 0.85
# a run is refused when its estimate times (1 + REFUSAL_MARGIN) exceeds the card: the estimate fell up to 4% short of
# the measured peaks of full fine-tuning (docs/gpu.md section 0, with the attention-width terms), and leaves out the
# CUDA context and the allocator's reserve
REFUSAL_MARGIN = 0.05
SETTINGS_TO_CHANGE = (
    "train.generation_chunk (fewer rows generated at a time), train.max_completion_length, train.lora_r (LoRA: "
    "no full gradients or optimizer states), model.path (a smaller model), or a method without a reference copy"
)
FSDP_CONFIG = "configs/accelerate/fsdp2.yaml"


@dataclass(frozen=True)
class ModelMemory:
    """What a loaded model puts on the device, and the shapes its generation and loss pass allocate by."""

    weight_bytes: int  # every parameter
    trainable_bytes: int  # parameters with requires_grad: their gradients, and AdamW's 2 states each
    reference_bytes: int  # a frozen reference copy (0: none, or LoRA's adapters-off reference)
    kv_bytes_per_token: int  # K and V of one token over all layers
    vocab_size: int
    attention_heads: int
    intermediate_size: int
    hidden_size: int = 0  # 0: no loss-pass terms
    attention_width: int = 0  # num_attention_heads x head_dim: q's and the attention output's width (0: hidden_size)
    key_value_width: int = 0  # num_key_value_heads x head_dim
    qk_norm: bool = False  # q and k normalised per head (Qwen3's q_norm, k_norm)
    num_layers: int = 0
    parameter_bytes: int = 2  # bytes per element of the weights as loaded
    embedding_bytes: int = 0  # input embedding + LM head (once if tied): FSDP's root module, gathered whole
    head_trainable: bool = True  # the LM head's weight has a gradient (not under LoRA)
    trainable_element_bytes: int = 0  # bytes per element of the trainable parameters (0: parameter_bytes; LoRA: 4)
    adapter_inputs: int = 0  # LoRA: the input widths of one decoder layer's adapted linear layers, summed
    adapter_outputs: int = 0  # LoRA: rank x the adapted linear layers of one decoder layer


@dataclass(frozen=True)
class TrainSetup:
    """How the loss pass runs on each device."""

    micro_rows: int = 0  # rows per device per forward/backward (per_device_train_batch_size); 0: no loss pass
    sequence_tokens: int = 0  # prompt + completion tokens of a row
    shards: int = 1  # FSDP processes sharding weights, gradients and optimizer states (1: not sharded)
    master_bytes: int = 0  # bytes per trainable element kept by the optimizer (0: the weights' own; FSDP bf16: 4)
    fused_optimizer: bool = True  # AdamW fused (transformers' default): no step temporaries
    gradient_checkpointing: bool = True
    padded: bool = True  # rows of different lengths: a (rows, 1, T, T) bool attention mask is built
    activation_bytes: int = 2


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per card for each component (``rlvr_lib.training.memory_estimate`` says what each counts)."""

    chunk_rows: int
    weights: int
    reference: int
    gradients: int
    optimizer: int
    kv_cache: int
    prefill: int
    logits: int
    micro_rows: int = 0
    shards: int = 1
    gathered: int = 0
    checkpoints: int = 0
    layer_recompute: int = 0
    attention_mask: int = 0
    lm_head: int = 0
    head_gradient: int = 0
    optimizer_step: int = 0
    num_layers: int = 1
    loss_pass_terms: bool = False

    @property
    def generation(self) -> int:
        return self.kv_cache + self.prefill + self.logits

    @property
    def loss_pass(self) -> int:
        """The loss pass's peak above the resident terms: the LM head's backward with every checkpoint held (the
        last layer's recomputation right after it), or the first layer's with every gradient held."""
        one_checkpoint = self.checkpoints // self.num_layers
        at_head = self.checkpoints + self.attention_mask + max(self.lm_head, self.head_gradient + self.layer_recompute)
        at_first_layer = self.gradients + one_checkpoint + self.attention_mask + self.layer_recompute
        return max(at_head, at_first_layer)

    @property
    def step(self) -> int:
        return self.gradients + self.optimizer_step

    @property
    def peak(self) -> int:
        resident = self.weights + self.reference + self.optimizer + self.gathered
        return resident + max(self.generation, self.loss_pass, self.step)

    def fits(self, device_bytes: int) -> bool:
        """Whether the run may start on a card of ``device_bytes``: the estimate times ``1 + REFUSAL_MARGIN``."""
        return self.peak * (1 + REFUSAL_MARGIN) <= device_bytes

    def summary(self) -> str:
        names = ["weights", "reference", "gradients", "optimizer", "kv_cache", "prefill", "logits"]
        if self.loss_pass_terms:
            names += ["checkpoints", "layer_recompute", "attention_mask", "lm_head", "optimizer_step", "gathered"]
        parts = ", ".join(f"{name} {getattr(self, name) / GIB:.2f}" for name in names)
        where = f"per card of {self.shards} (sharded)" if self.shards > 1 else "one card"
        phases = (
            f"; phases: generation {self.generation / GIB:.2f}, loss pass {self.loss_pass / GIB:.2f}, optimizer step "
            f"{self.step / GIB:.2f}"
            if self.loss_pass_terms
            else ""
        )
        micro = f", micro-batch {self.micro_rows} rows" if self.loss_pass_terms else ""
        return (
            f"peak memory estimate {self.peak / GIB:.2f} GiB {where} (generation chunk {self.chunk_rows} rows{micro}; "
            f"GiB: {parts}{phases})"
        )


def estimate_peak_memory(
    model: ModelMemory,
    *,
    chunk_rows: int,
    prompt_tokens: int,
    completion_tokens: int,
    activation_bytes: int = 2,
    setup: TrainSetup | None = None,
) -> MemoryEstimate:
    """The components for a generation chunk of ``chunk_rows`` rows of ``prompt_tokens`` (the longest, padded)
    + ``completion_tokens`` tokens, and (``setup``) the loss pass and optimizer step; ``activation_bytes`` per
    element of the prefill activations (2: bf16)."""
    setup = setup or TrainSetup()
    shards = max(1, setup.shards)
    element = model.parameter_bytes
    trainable = model.trainable_bytes
    if setup.master_bytes:  # FSDP mixed precision: fp32 master copies of the trainable parameters
        trainable = trainable // (model.trainable_element_bytes or element) * setup.master_bytes
    weights = (model.weight_bytes - model.trainable_bytes + trainable) // shards
    estimate = dict(
        chunk_rows=chunk_rows,
        weights=weights,
        reference=model.reference_bytes // shards,
        gradients=trainable // shards,
        optimizer=2 * trainable // shards,
        kv_cache=chunk_rows * (prompt_tokens + completion_tokens) * model.kv_bytes_per_token,
        prefill=chunk_rows
        * prompt_tokens
        * (model.attention_heads * prompt_tokens * 4 + 2 * model.intermediate_size * activation_bytes),
        logits=chunk_rows * model.vocab_size * 4 * LOGIT_COPIES,
        shards=shards,
        optimizer_step=0 if setup.fused_optimizer else trainable // shards,
    )
    layers = max(1, model.num_layers)
    if setup.micro_rows and model.hidden_size:
        a = setup.activation_bytes
        tokens = setup.micro_rows * setup.sequence_tokens
        hidden, inter, vocab = model.hidden_size, model.intermediate_size, model.vocab_size
        width = model.attention_width or hidden
        attention = (ATTENTION_COPIES - ATTENTION_WIDTH_COPIES) * hidden + ATTENTION_WIDTH_COPIES * width
        if model.qk_norm:
            attention += QK_NORM_COPIES * (width + model.key_value_width)
        # LoRA: the bf16 copy of each adapted layer's input (only where the activations are narrower than the
        # adapters: PEFT's cast to float32 and autocast's back) and each lora_A output
        adapters = model.adapter_outputs + (model.adapter_inputs if a < (model.trainable_element_bytes or a) else 0)
        recompute = tokens * (attention + MLP_COPIES * inter + adapters) * a
        head_tokens = min(tokens, HEAD_TOKEN_TILE)
        head_grad_weight = vocab * hidden * 4 if model.head_trainable else 0  # float32 accumulator
        estimate.update(
            micro_rows=setup.micro_rows,
            checkpoints=layers * tokens * hidden * a if setup.gradient_checkpointing else layers * recompute,
            layer_recompute=recompute,
            attention_mask=setup.micro_rows * setup.sequence_tokens**2 if setup.padded else 0,
            # saved: the final hidden states and their masked copy; backward: their float32 gradient and its cast,
            # the head weight's float32 gradient, and a (token tile x vocabulary tile) logit buffer each way
            lm_head=tokens * hidden * (2 * a + 4 + a)
            + head_grad_weight
            + 2 * head_tokens * min(vocab, HEAD_VOCAB_TILE) * a,
            head_gradient=vocab * hidden * a if model.head_trainable else 0,
            gathered=(
                GATHERED_LAYERS * (model.weight_bytes - model.embedding_bytes) // layers // element * a
                + model.embedding_bytes // element * a
                if shards > 1
                else 0
            ),
            num_layers=layers,
            loss_pass_terms=True,
        )
    return MemoryEstimate(**estimate)


def auto_generation_chunk(
    model: ModelMemory,
    *,
    device_bytes: int,
    rollout_rows: int,
    prompt_tokens: int,
    completion_tokens: int,
    setup: TrainSetup | None = None,
) -> int:
    """The most rows (at most ``rollout_rows`` and ``MAX_AUTO_CHUNK``) whose estimate stays within
    ``MEMORY_FRACTION`` of ``device_bytes``; at least 1 (``check_fits`` then refuses what does not fit)."""
    shape = dict(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, setup=setup)
    one_row = estimate_peak_memory(model, chunk_rows=1, **shape)
    fixed = one_row.weights + one_row.reference + one_row.optimizer + one_row.gathered
    rows = int((MEMORY_FRACTION * device_bytes - fixed) // one_row.generation)
    return max(1, min(rows, rollout_rows, MAX_AUTO_CHUNK))


def fitting_settings(
    estimate_for: Callable[[int, int, bool], MemoryEstimate],
    *,
    device_bytes: int,
    responses: int,
    accumulation: int,
    processes: int,
    sharded: bool,
    lora_rank: int = 32,
) -> list[str]:
    """Settings under which the estimate fits ``device_bytes``, each keeping the paper's ``responses`` per optimizer
    step: ``estimate_for(micro_rows, shards, lora)`` gives the estimate of one alternative. Tried: a smaller
    micro-batch with more gradient accumulation on the same GPUs; sharding over 2, 4 or 8 GPUs (FSDP), at the
    largest micro-batch that fits; LoRA of rank ``lora_rank`` on one GPU. "Fits": within ``SUGGESTION_FRACTION`` of
    ``device_bytes``."""
    device_bytes = int(SUGGESTION_FRACTION * device_bytes)
    found = []
    shards_now = processes if sharded else 1
    micro = responses // (accumulation * processes)
    for rows in range(micro - 1, 0, -1):
        if responses % (rows * processes) == 0 and estimate_for(rows, shards_now, False).peak <= device_bytes:
            found.append(
                f"train.gradient_accumulation_steps: {responses // (rows * processes)} (micro-batch {rows} rows per "
                f"device instead of {micro}; the same {responses} responses per optimizer step)"
            )
            break
    for gpus in (2, 4, 8):
        if sharded and gpus <= processes:
            continue
        for rows in range(responses // gpus, 0, -1):
            if responses % (rows * gpus) == 0 and estimate_for(rows, gpus, False).peak <= device_bytes:
                found.append(
                    f"{gpus} GPUs sharded (FSDP): accelerate launch --config_file {FSDP_CONFIG} --num_processes {gpus} "
                    f"-m rlvr_lib train RUN, with train.gradient_accumulation_steps: {responses // (rows * gpus)} "
                    f"(micro-batch {rows} rows per device)"
                )
                break
        if len(found) and found[-1].startswith(f"{gpus} GPUs"):
            break  # the fewest GPUs that fit
    if estimate_for(min(micro, responses), 1, True).peak <= device_bytes:
        found.append(
            f"train.lora_r: {lora_rank} (LoRA on one GPU, micro-batch {micro} rows: no full gradients or optimizer "
            "states; not the papers' full fine-tuning)"
        )
    return found


def check_fits(
    estimate: MemoryEstimate, device_bytes: int, device_name: str, alternatives: list[str] | tuple[str, ...] = ()
) -> None:
    """Raise ``MemoryError`` naming the settings to change (``alternatives``: ones that would fit, from
    ``fitting_settings``) when the estimate with its safety margin (``MemoryEstimate.fits``) exceeds the device's
    memory."""
    if not estimate.fits(device_bytes):
        would_fit = (
            f" Settings that would fit, by the same estimate (within {SUGGESTION_FRACTION:.0%} of the card): "
            + "; ".join(alternatives)
            + "."
            if alternatives
            else " No micro-batch, GPU count (up to 8, sharded) or LoRA alone fits by the estimate."
        )
        raise MemoryError(
            f"this run cannot fit {device_name} ({device_bytes / GIB:.1f} GiB): {estimate.summary()}; with the "
            f"refusal's safety margin of {REFUSAL_MARGIN:.0%} for what the estimate leaves out "
            f"(memory_estimate.REFUSAL_MARGIN), {estimate.peak * (1 + REFUSAL_MARGIN) / GIB:.2f} GiB.{would_fit} "
            f"Otherwise change {SETTINGS_TO_CHANGE}"
        )


def model_memory_from_config(
    config, *, parameter_bytes: int, lora_r: int = 0, reference: bool = False, cache_bytes: int = 2
) -> ModelMemory:
    """``ModelMemory`` of a causal LM of ``config`` (a transformers config), counted on a meta-device skeleton (no
    weights allocated, no download): every parameter at ``parameter_bytes``, LoRA adapters of rank ``lora_r`` on
    every linear layer of the decoder (trainable, the base frozen), a reference copy when ``reference`` (never
    under LoRA: its reference is the model with adapters off)."""
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        skeleton = AutoModelForCausalLM.from_config(config)
    text = skeleton.config.get_text_config()
    params = sum(p.numel() for p in skeleton.parameters())
    embeddings = {
        id(p): p.numel()
        for m in (skeleton.get_input_embeddings(), skeleton.get_output_embeddings())
        for p in m.parameters()
    }
    lora = adapted = adapted_inputs = 0
    if lora_r:
        head = skeleton.get_output_embeddings()
        for module in skeleton.modules():
            if isinstance(module, torch.nn.Linear) and module is not head:
                lora += lora_r * (module.in_features + module.out_features)
                adapted += 1
                adapted_inputs += module.in_features
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    kv_heads = getattr(text, "num_key_value_heads", None) or text.num_attention_heads
    qk_norm = any(name.rsplit(".", 1)[-1] == "q_norm" for name, _ in skeleton.named_modules())
    layers = max(1, text.num_hidden_layers)
    return ModelMemory(
        weight_bytes=params * parameter_bytes + lora * LORA_ADAPTER_BYTES,
        trainable_bytes=lora * LORA_ADAPTER_BYTES if lora_r else params * parameter_bytes,
        reference_bytes=params * parameter_bytes if reference and not lora_r else 0,
        kv_bytes_per_token=text.num_hidden_layers * 2 * kv_heads * head_dim * cache_bytes,
        vocab_size=text.vocab_size,
        attention_heads=text.num_attention_heads,
        intermediate_size=getattr(text, "intermediate_size", 4 * text.hidden_size),
        hidden_size=text.hidden_size,
        attention_width=text.num_attention_heads * head_dim,
        key_value_width=kv_heads * head_dim,
        qk_norm=qk_norm,
        num_layers=text.num_hidden_layers,
        parameter_bytes=parameter_bytes,
        embedding_bytes=sum(embeddings.values()) * parameter_bytes,
        head_trainable=not lora_r,
        trainable_element_bytes=LORA_ADAPTER_BYTES if lora_r else parameter_bytes,
        adapter_inputs=adapted_inputs // layers,
        adapter_outputs=lora_r * adapted // layers,
    )
