"""Every setting of the project, typed to the leaves: the lowest layer, like TRL's ``grpo_config.py``.

``load_params`` reads params.yaml, applies the ``smoke`` overrides when ``profile: smoke`` and builds the typed
sections below through ``rlvr_lib.settings.schema.build``: every key is type- and range-checked when the file is loaded,
and an error names the key path (``train.learning_rate``, ``methods.aer.tau``). Importing this module imports
neither torch nor TRL, nor anything of rlvr_lib but ``settings``: the method registry checks each run's hyperparameters
through ``check_method`` (``rlvr_lib.workspace.layout.load_params``).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml

from rlvr_lib.settings.names import did_you_mean
from rlvr_lib.settings.schema import (
    Bounds,
    SampleCount,
    Seed,
    SettingError,
    build,
    require,
    require_at_least,
    require_between,
    setting,
)

Profile = Literal["default", "smoke"]
MethodCheck = Callable[[str, dict[str, Any], str], Any]  # (method, hyperparameters, key path): raises when invalid
DataSource = Literal["testbed", "files"]
# rlvr_lib.tasks.rewards.FORMAT_REWARDS (tests/test_config.py checks they agree)
FormatReward = Literal["boxed", "think"]
RolloutGeneration = Literal["default", "static_compile", "continuous_batching", "auto"]
PER_BENCHMARK_KEYS = ("n", "ks", "temperature", "top_p", "max_new_tokens")
DECODING_KEYS = ("n", "ks", "temperature", "top_p")  # what a paper's own decoding may change (eval.decodings)
# transformers.SchedulerType's values (tests/test_config.py checks the two agree)
SchedulerName = Literal[
    "linear",
    "cosine",
    "cosine_with_restarts",
    "polynomial",
    "constant",
    "constant_with_warmup",
    "inverse_sqrt",
    "reduce_lr_on_plateau",
    "cosine_with_min_lr",
    "cosine_warmup_with_min_lr",
    "warmup_stable_decay",
    "greedy",
]
TestbedTask = Literal["v2", "v3"]  # rlvr_lib.testbed.generator.TASKS (tests/test_config.py checks they agree)
TESTBED_LEVELS = (1, 2, 3, 4, 5)  # rlvr_lib.testbed.generator.LEVELS (tests/test_config.py checks the two agree)
# rlvr_lib.testbed.tokenizer's BPE starts from the 256 byte-level symbols and the end-of-text token, so a smaller
# vocabulary is never reached (tests/test_config.py checks the count)
MIN_TESTBED_VOCAB = 257
RESERVED_RUN_KEYS = ("method", "train", "train_data", "seeds")
MAX_SEED = 2**32 - 1  # numpy.random.seed accepts 0 .. 2**32 - 1
TESTBED_BENCHMARK = "testbed"  # the eval set of data.source: testbed (data/generated/eval_testbed.jsonl)
FULL_SET = "full"  # data/generated/train.jsonl, the data stage's training set
# the filter_data stage's sets, data/filtered/<name>.jsonl (rlvr_lib.eval.data_filters)
FILTERED_SETS = ("erpo", "tepo")
# levels-only sets, selected from the full set when a run trains (params.yaml `level_sets`; no filter_data stage)
LEVEL_SETS = ("aer_easy", "aer_hard")


# ----------------------------------------------------------------------------- testbed
@dataclass
class TestbedDataConfig:
    """params.yaml ``data.testbed``: the synthetic task's RL and evaluation splits."""

    __test__ = False  # not a pytest test class

    n_train: int = setting(2000, "RL training problems")
    n_eval: int = setting(256, "held-out evaluation problems (never shared with training or SFT)")
    levels: list[int] = setting(
        help="difficulty levels in the mix (rlvr_lib.testbed.generator.LEVELS)", factory=lambda: [1, 2, 3]
    )
    seed: Seed | None = setting(None, "seed of the splits; null: params.yaml's top-level seed")
    task: TestbedTask = setting(
        "v3",
        "v2: sums of one-digit numbers; v3: sums with a multiplication trap and "
        "solution routes of designed success (docs/testbed.md); drives the base too",
    )

    def __post_init__(self) -> None:
        require_at_least(self, 0, "n_train", "n_eval", strict=True)
        require(bool(self.levels), "levels", "must name at least one level")
        bad = sorted(set(self.levels) - set(TESTBED_LEVELS))
        require(not bad, "levels", f"has unknown level(s) {bad}; valid: {list(TESTBED_LEVELS)}")


@dataclass
class TestbedModelConfig:
    """params.yaml ``model.testbed``: the from-scratch tokenizer, model and SFT warm-up of the base policy."""

    __test__ = False

    n_train: int = setting(1500, "SFT problems (the evaluation split is held out)")
    solutions_per_problem: int | None = setting(
        None, "worked solutions per SFT problem; null: 2 distinct ones (v2), 4 independent ones (v3)"
    )
    slip_rate: float = setting(0.3, "P(a step of an SFT solution writes a wrong sum); docs/testbed.md")
    precedence_rate: float = setting(0.03, "v3: P(an SFT solution of a trap takes the product-first route)")
    guess_rate: float = setting(0.15, "v3: P(an SFT solution guesses the answer without working; always wrong)")
    guess_offset_min: int = setting(1, "v3: a guess is off by guess_offset_min .. guess_offset_min + 8")
    vocab_size: int = setting(512, "BPE vocabulary upper bound; the small corpus yields fewer tokens")
    hidden_size: int = setting(128, "model width (128 with 2 layers: 0.56M parameters)")
    num_layers: int = setting(2, "transformer layers (2: faster and collapses faster than 3, docs/testbed.md)")
    num_heads: int = setting(4, "attention heads")
    sft_steps: int = setting(800, "SFT optimizer steps (docs/testbed.md: the base policy they give)")
    batch_size: int = setting(64, "SFT batch size")
    lr: float = setting(1e-3, "SFT peak learning rate (linear decay)")
    warmup_steps: int = setting(20, "SFT warm-up steps")

    def __post_init__(self) -> None:
        require_at_least(
            self,
            0,
            "n_train",
            "solutions_per_problem",
            "vocab_size",
            "hidden_size",
            "num_layers",
            "num_heads",
            "sft_steps",
            "batch_size",
            "lr",
            strict=True,
        )
        require_at_least(self, 0, "warmup_steps")
        require(0 <= self.slip_rate < 1, "slip_rate", f"must lie in [0, 1), got {self.slip_rate}")
        for name in ("precedence_rate", "guess_rate"):
            require_between(self, name, 0.0, 1.0)
        require_at_least(self, 1, "guess_offset_min")
        require(
            self.vocab_size >= MIN_TESTBED_VOCAB,
            "vocab_size",
            f"must be >= {MIN_TESTBED_VOCAB}, got {self.vocab_size}: the byte-level BPE starts from 256 byte symbols "
            "and the end-of-text token, so the tokenizer always holds at least that many",
        )
        require(
            self.hidden_size % self.num_heads == 0,
            "hidden_size",
            f"({self.hidden_size}) must be divisible by num_heads ({self.num_heads})",
        )


@dataclass
class TestbedConfig(TestbedModelConfig):
    """Every knob of one testbed build: the model settings plus the split the SFT data must not overlap."""

    __test__ = False

    seed: Seed = setting(0, "seed of the task, the SFT solutions and the tokenizer")
    policy_seed: Seed | None = setting(None, "seed of model initialisation and SFT training (null: seed)")
    n_eval: int = setting(256, "held-out evaluation problems")
    levels: tuple[int, ...] = setting((1, 2, 3), "difficulty levels")
    task: TestbedTask = setting("v3", "the task (data.testbed.task)")

    def __post_init__(self) -> None:
        super().__post_init__()
        self.levels = tuple(self.levels)
        if self.solutions_per_problem is None:
            self.solutions_per_problem = 4 if self.task == "v3" else 2


# ----------------------------------------------------------------------------- params sections
@dataclass
class DataConfig:
    """params.yaml ``data``: where training and evaluation problems come from."""

    source: DataSource = setting("testbed", "testbed: the synthetic task; files: real sets under `root`")
    root: str | None = setting(None, "data root for `files` (null: $RLVR_DATA_ROOT, else ../shared/data)")
    testbed: TestbedDataConfig = setting(help="the synthetic task's splits", factory=TestbedDataConfig)
    train_set: str = setting("math_train", "files: training set name (rlvr_lib.tasks.data)")
    train_levels: list[int] | None = setting(None, "files: keep these MATH levels (ERPO: [3, 4, 5])")
    max_train: int | None = setting(None, "files: keep the first N training problems (null: all)")
    benchmarks: list[str] = setting(help="files: evaluation sets (rlvr_lib.tasks.data)", factory=lambda: ["math500"])
    max_eval: int | None = setting(None, "files: problems per benchmark (null: all)")
    eval_limits: dict[str, int] = setting(
        help="files: first N problems of a benchmark (ERPO: minerva 40)", factory=dict
    )
    prompt_template: str | None = setting(
        None, "files: prompt with a {problem} placeholder (null: rlvr_lib.tasks.data's)"
    )
    dedupe: bool = setting(False, "files: drop repeated problem texts (and texts repeated with different answers)")
    max_solution_tokens: float | None = setting(
        None, "files: keep problems whose reference solution has at most this many tokens (ERPO's length filter)"
    )
    max_prompt_tokens: int | None = setting(
        None, "files: drop problems whose prompt is longer (verl's overlong filter)"
    )
    tokenizer: str | None = setting(
        None, "files: tokenizer of the length filters (null: Qwen2.5's, from qwen.tiktoken)"
    )

    def __post_init__(self) -> None:
        require_at_least(self, 0, "max_train", "max_eval", "max_solution_tokens", "max_prompt_tokens", strict=True)
        require(bool(self.benchmarks), "benchmarks", "must name at least one evaluation set")
        require(
            self.prompt_template is None or "{problem}" in self.prompt_template,
            "prompt_template",
            "must contain the placeholder '{problem}'",
        )
        bad = {k: v for k, v in self.eval_limits.items() if v < 1}
        require(not bad, "eval_limits", f"must map benchmarks to positive integers, got {bad}")


@dataclass
class ModelConfig:
    """params.yaml ``model``."""

    path: str | None = setting(
        None, "null: build the testbed base policy (base_model stage); else a model folder or hub id"
    )
    testbed: TestbedModelConfig = setting(help="the testbed base policy's build", factory=TestbedModelConfig)


@dataclass
class TrainConfig:
    """params.yaml ``train``: run-level settings. One optimizer step sees ``prompts_per_step * num_generations``
    responses; a rollout batch feeds ``steps_per_generation / gradient_accumulation_steps`` optimizer steps."""

    max_steps: int = setting(200, "optimizer steps")
    prompts_per_step: int = setting(8, "prompts per optimizer step")
    num_generations: SampleCount = setting(8, "responses per prompt (the group size G)")
    max_completion_length: int = setting(64, "completion tokens at most")
    learning_rate: float = setting(1e-4, "AdamW learning rate")
    lr_scheduler_type: SchedulerName = setting("constant", "transformers scheduler name")
    warmup_steps: int | float = setting(
        0,
        "learning-rate warm-up: steps (an integer) or a fraction of all steps (a float in [0, 1)); needs a "
        "*_with_warmup or decaying schedule",
    )
    weight_decay: float = setting(0.0, "AdamW weight decay")
    max_grad_norm: float = setting(1.0, "gradient-norm clip")
    temperature: float = setting(1.0, "rollout sampling temperature")
    top_p: float = setting(1.0, "rollout nucleus sampling")
    gradient_accumulation_steps: int = setting(1, "micro-batches per optimizer step")
    steps_per_generation: int | None = setting(
        None, "micro-batches per rollout batch (null: = gradient_accumulation_steps, one update per rollout batch)"
    )
    num_iterations: int = setting(1, "passes over each rollout batch (PPO epochs)")
    format_weight: float = setting(0.0, "weight of the format reward added to the accuracy reward")
    format_reward: FormatReward = setting("boxed", "boxed: a closed \\boxed{}; think: one <think>...</think> (CW-GRPO)")
    num_train_epochs: float | None = setting(None, "passes over the training set (ERPO: 1); null: max_steps")
    lora_r: int = setting(0, "0: full fine-tuning; > 0: LoRA of this rank on all linear layers")
    lora_alpha: int = setting(64, "LoRA alpha")
    bf16: bool = setting(False, "bf16 mixed precision (CUDA only)")
    gradient_checkpointing: bool = setting(False, "recompute activations in the backward pass")
    use_vllm: bool = setting(False, "generate with vLLM (`pip install -e '.[gpu]'`)")
    rollout_generation: RolloutGeneration = setting(
        "auto",
        "how TRL generates rollouts without vLLM: default (dynamic KV cache) | static_compile (static KV "
        "cache + torch.compile of the decoding step) | continuous_batching (TRL's paged option) | auto: "
        "static_compile for full fine-tuning on a CUDA GPU (2.9x faster rollouts, docs/gpu.md), else default",
    )
    generation_chunk: int | None = setting(
        None,
        "rollout rows generated at a time without vLLM: a rollout holds one chunk's KV cache and logits, and any "
        "chunk gives the same samples; null: the most rows whose peak-memory estimate fills at most 75% of the "
        "GPU (at most 256; printed at start), the whole rollout batch on the CPU",
    )
    log_reference_kl: bool | None = setting(
        None,
        "log KL to the frozen base policy; null (auto): where it costs no model copy (LoRA, or a method that "
        "keeps a reference) or the policy has < 100M parameters",
    )
    reference_kl_every: int = setting(
        1,
        "log that KL on every N-th rollout batch only (a reference forward pass each time); a method that uses "
        "the reference in its update gets it on every batch",
    )
    save_steps: int = setting(0, "checkpoint every N optimizer steps (0: none; a rerun resumes from the last one)")
    seed: Seed = setting(0, "seed of RL sampling and initialisation")

    def __post_init__(self) -> None:
        require_at_least(
            self,
            0,
            "max_steps",
            "prompts_per_step",
            "num_generations",
            "max_completion_length",
            "learning_rate",
            "gradient_accumulation_steps",
            "steps_per_generation",
            "num_iterations",
            "temperature",
            "max_grad_norm",
            "lora_alpha",
            "reference_kl_every",
            "generation_chunk",
            strict=True,
        )
        require_at_least(
            self, 0, "warmup_steps", "weight_decay", "format_weight", "lora_r", "save_steps", "num_train_epochs"
        )
        require(
            not isinstance(self.warmup_steps, float) or self.warmup_steps < 1,
            "warmup_steps",
            f"as a float is a fraction of all steps in [0, 1), got {self.warmup_steps}",
        )
        require(self.num_generations >= 2, "num_generations", "must be >= 2: group-normalised advantages need a group")
        require(0 < self.top_p <= 1, "top_p", f"must lie in (0, 1], got {self.top_p}")
        require(
            not (self.warmup_steps > 0 and self.lr_scheduler_type == "constant"),
            "warmup_steps",
            "is ignored by lr_scheduler_type 'constant' (transformers' constant schedule has no warm-up): set "
            "lr_scheduler_type to 'constant_with_warmup'",
        )
        responses = self.prompts_per_step * self.num_generations
        require(
            responses % self.gradient_accumulation_steps == 0,
            "gradient_accumulation_steps",
            f"({self.gradient_accumulation_steps}) must divide prompts_per_step x num_generations = {responses}",
        )
        generation_batch = responses // self.gradient_accumulation_steps * self.rollout_micro_batches
        require(
            generation_batch % self.num_generations == 0,
            "steps_per_generation",
            f"gives a rollout batch of {generation_batch} responses (per-device batch "
            f"{responses // self.gradient_accumulation_steps} x {self.rollout_micro_batches} micro-batches), which "
            f"must hold whole groups of num_generations = {self.num_generations} (TRL's generation_batch_size rule)",
        )

    @property
    def rollout_micro_batches(self) -> int:
        """Micro-batches per rollout batch (TRL's ``steps_per_generation`` after its default)."""
        return self.steps_per_generation or self.gradient_accumulation_steps

    @property
    def rollout_prompts(self) -> int:
        """Prompts per rollout batch: a training set with fewer gives TRL's sampler no batch at all."""
        return self.prompts_per_step * self.rollout_micro_batches // self.gradient_accumulation_steps


@dataclass
class ErpoFilterConfig:
    """params.yaml ``data_filters.erpo``: erpo.txt sec. 5.1 and App. A.3 (L257, L377), "difficulty levels 3 to 5" and
    "we filtered out samples where the reference solutions exceeded 10% of the maximum output length". Defaults
    are the paper's words; params.yaml sets the testbed's analogue (docs/assumptions.md, "Training-set filters")."""

    enabled: bool = setting(False, "build data/filtered/erpo.jsonl (a run trains on it with `train_data: erpo`)")
    levels: list[int] = setting(help="levels kept (MATH: 3-5, the upper 3 of its 5)", factory=lambda: [3, 4, 5])
    max_length: int | None = setting(None, "maximum output length in tokens (null: train.max_completion_length)")
    fraction: float = setting(
        0.1, "drop a problem whose reference solution has more tokens than this share of max_length (App. A.3: 10%)"
    )

    def __post_init__(self) -> None:
        require(bool(self.levels), "levels", "must name at least one level")
        require_at_least(self, 0, "max_length", strict=True)
        require_between(self, "fraction", 0.0, 1.0, low_open=True)


@dataclass
class TepoFilterConfig:
    """params.yaml ``data_filters.tepo``: tepo.txt sec. 4.1 (L212), "we removed prompts whose sampled responses were
    all correct or all wrong, following (Yu et al., 2025)" (DAPO's dynamic sampling). The paper filters online with
    the current policy; this is its offline analogue: the base policy samples every training prompt once, before
    training. Null settings take the shared ``train`` values (the paper's rollout settings)."""

    enabled: bool = setting(False, "build data/filtered/tepo.jsonl (a run trains on it with `train_data: tepo`)")
    num_generations: SampleCount | None = setting(
        None, "responses per prompt (null: train.num_generations; tepo.txt: 8)"
    )
    temperature: float | None = setting(None, "sampling temperature (null: train.temperature; tepo.txt: 1.0)")
    top_p: float | None = setting(None, "nucleus sampling (null: train.top_p)")
    max_new_tokens: int | None = setting(None, "completion tokens at most (null: train.max_completion_length)")
    seed: Seed | None = setting(None, "sampling seed (null: the training seed whose base policy filters)")
    batch_size: int = setting(256, "sequences per generate call")

    def __post_init__(self) -> None:
        require_at_least(self, 0, "temperature", "max_new_tokens", "batch_size", strict=True)
        require(
            self.num_generations is None or self.num_generations >= 2,
            "num_generations",
            f"must be >= 2 (one response is always all correct or all wrong), got {self.num_generations}",
        )
        require(self.top_p is None or 0 < self.top_p <= 1, "top_p", f"must lie in (0, 1], got {self.top_p}")

    def sampling(self, train: TrainConfig, seed: int) -> dict[str, Any]:
        """``n``, ``temperature``, ``top_p``, ``max_new_tokens``, ``seed``, ``batch_size`` with the nulls resolved."""
        return {
            "n": _or(self.num_generations, train.num_generations),
            "temperature": _or(self.temperature, train.temperature),
            "top_p": _or(self.top_p, train.top_p),
            "max_new_tokens": _or(self.max_new_tokens, train.max_completion_length),
            "seed": _or(self.seed, seed),
            "batch_size": self.batch_size,
        }


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


@dataclass
class LevelSetConfig:
    """params.yaml ``level_sets.<name>``: a training set of the full set's problems at ``levels`` only (no other
    rule), selected when a run with ``train_data: <name>`` trains (``rlvr_lib.eval.data_filters.level_filter``)."""

    levels: list[int] = setting(help="the levels kept", factory=list)

    def __post_init__(self) -> None:
        require(bool(self.levels), "levels", "must name at least one level")


@dataclass
class LevelSetsConfig:
    """params.yaml ``level_sets``: aer.txt sec. 3, fig. 2(a, b) trains GRPO with fixed entropy coefficients on an
    easy set (GSM8K) and on a hard one (AIME + AMC, footnote 1); the testbed's analogues are its easiest and its
    hardest level (docs/assumptions.md, "Training-set filters"). Selected from data/generated/train.jsonl at training
    time, so the filter_data stage (and every run on its sets) is untouched."""

    aer_easy: LevelSetConfig = setting(
        help="aer.txt fig. 2(a): the easy training set (GSM8K there; the testbed's easiest level)",
        factory=lambda: LevelSetConfig(levels=[1]),
    )
    aer_hard: LevelSetConfig = setting(
        help="aer.txt fig. 2(b): the hard training set (AIME + AMC there; the testbed's hardest level)",
        factory=lambda: LevelSetConfig(levels=[3]),
    )


@dataclass
class DataFiltersConfig:
    """params.yaml ``data_filters``: the papers' training-set filters, one set each (the filter_data stage)."""

    erpo: ErpoFilterConfig = setting(help="erpo.txt: levels and solution length", factory=ErpoFilterConfig)
    tepo: TepoFilterConfig = setting(
        help="tepo.txt / DAPO: no all-correct or all-wrong groups", factory=TepoFilterConfig
    )


@dataclass
class EvalConfig:
    """params.yaml ``eval``: sampling settings of the pass@k evaluation."""

    n: SampleCount = setting(16, "samples per problem")
    ks: list[int] | None = setting(None, "pass@k for these k (null: 1, 2, 4, ..., n)")
    temperature: float = setting(1.0, "sampling temperature (0: greedy decoding, n must be 1)")
    top_p: float = setting(1.0, "nucleus sampling")
    max_new_tokens: int = setting(64, "completion tokens at most")
    batch_size: int = setting(256, "sequences per generate call")
    n_boot: Annotated[int, Bounds(None, 10**6, "bootstrap resamples; 1000 to 10000 are usual")] = setting(
        1000, "bootstrap resamples of the 95% intervals"
    )
    per_benchmark: dict[str, dict[str, Any]] = setting(
        help="overrides of n / ks / temperature / top_p / max_new_tokens per benchmark (OPEFO: avg@32 on AIME)",
        factory=dict,
    )

    decodings: dict[str, dict[str, Any]] = setting(
        help="second evaluations of the same models at a paper's own decoding: name -> overrides of n / ks / "
        "temperature / top_p (a paper names one with papers.<paper>.eval_decoding; its runs are evaluated at it too)",
        factory=dict,
    )

    def for_benchmark(self, name: str, decoding: str | None = None) -> dict[str, Any]:
        """Sampling settings for benchmark ``name``: the shared ones, then ``decodings[decoding]``'s overrides (none
        for None), then the benchmark's ``per_benchmark`` overrides."""
        if decoding is not None and decoding not in self.decodings:
            raise ValueError(f"eval.decodings has no decoding '{decoding}'; declared: {sorted(self.decodings)}")
        shared = {k: getattr(self, k) for k in PER_BENCHMARK_KEYS}
        return {**shared, **self.decodings.get(decoding, {}), **self.per_benchmark.get(name, {})}

    def at_decoding(self, decoding: str | None) -> EvalConfig:
        """This configuration with ``decodings[decoding]``'s overrides applied to the shared settings (itself for
        None); ``per_benchmark`` kept."""
        if decoding is None:
            return self
        self.for_benchmark("", decoding)  # names an unknown decoding
        return dataclasses.replace(self, **self.decodings[decoding], decodings={})

    def __post_init__(self) -> None:
        for bench, overrides in self.per_benchmark.items():
            unknown = sorted(set(overrides) - set(PER_BENCHMARK_KEYS))
            require(
                not unknown,
                f"per_benchmark.{bench}",
                f"has unknown key(s) {unknown}; valid: {list(PER_BENCHMARK_KEYS)}",
            )
            try:
                build(EvalConfig, {**self.for_benchmark(bench), "per_benchmark": {}}, "")
            except ValueError as err:
                raise SettingError(f"per_benchmark.{bench}", f"gives invalid settings: {err}") from None
        for name, overrides in self.decodings.items():
            unknown = sorted(set(overrides) - set(DECODING_KEYS))
            require(not unknown, f"decodings.{name}", f"has unknown key(s) {unknown}; valid: {list(DECODING_KEYS)}")
            try:
                build(EvalConfig, {**self.for_benchmark("", None), **overrides, "per_benchmark": {}}, "")
            except ValueError as err:
                raise SettingError(f"decodings.{name}", f"gives invalid settings: {err}") from None
        require_at_least(self, 0, "n", "max_new_tokens", "batch_size", "n_boot", strict=True)
        require_at_least(self, 0, "temperature")
        require(
            self.temperature > 0 or self.n == 1,
            "n",
            f"greedy decoding (temperature 0) gives one completion per problem: n must be 1, got {self.n}",
        )
        require(0 < self.top_p <= 1, "top_p", f"must lie in (0, 1], got {self.top_p}")
        if self.ks is not None:
            require(
                bool(self.ks) and all(1 <= k <= self.n for k in self.ks),
                "ks",
                f"must be a non-empty list in [1, n={self.n}], got {self.ks}",
            )


@dataclass
class PropertiesConfig:
    """params.yaml ``testbed_properties``: the testbed's measured properties (docs/testbed.md; the base policy
    and one run's seeds, sampled more densely than the shared evaluation)."""

    run: str = setting("grpo", "the plain-GRPO run whose seeds are measured (an entry of `methods`)")
    n: SampleCount = setting(64, "samples per eval problem (pass@k for every k = 1..n)")
    entropy_last: int = setting(5, "rollout entropy ratio: mean of the last this many rollout batches / the first")
    route_samples: SampleCount = setting(8, "v3: samples per eval problem for the route shares")
    perturb_samples: SampleCount = setting(16, "perturbation study: samples per problem to find one correct response")
    perturb_frac: float = setting(0.05, "perturbation study: share of a response's tokens perturbed (top / bottom)")

    def __post_init__(self) -> None:
        require_at_least(self, 0, "n", "entropy_last", "route_samples", "perturb_samples", strict=True)
        require(0 < self.perturb_frac <= 0.5, "perturb_frac", f"must lie in (0, 0.5], got {self.perturb_frac}")


@dataclass
class RunSpec:
    """One training run: an entry of params.yaml's ``methods`` mapping.

    The entry's key names the run; reserved keys inside it: ``method`` (the registered method, default: the key
    itself, so ablations like ``opefo_static: {method: opefo, lambda_mode: static}`` need no code) and ``train``
    (overrides of the shared ``train`` section for this run) and ``train_data`` (its training set: ``full``, the
    default, a set of the filter_data stage, ``FILTERED_SETS``, or a levels-only set, ``LEVEL_SETS``) and
    ``seeds`` (its training seeds, default the top-level ``seeds``). Every other key is a method hyperparameter.
    """

    name: str
    method: str
    hparams: dict[str, Any]
    train: TrainConfig
    train_data: str = FULL_SET
    seeds: list[int] = dataclasses.field(default_factory=lambda: [0])


@dataclass
class Params:
    profile: Profile
    seed: int  # the data splits, the tokenizer and the SFT solutions (shared by every training seed)
    seeds: list[int]  # default training seeds: a run trains and is evaluated once per seed (methods.<run>.seeds)
    data: DataConfig
    model: ModelConfig
    train: TrainConfig
    runs: dict[str, RunSpec]
    eval: EvalConfig
    testbed_properties: PropertiesConfig
    data_filters: DataFiltersConfig = dataclasses.field(default_factory=DataFiltersConfig)
    level_sets: LevelSetsConfig = dataclasses.field(default_factory=LevelSetsConfig)
    papers: Any = None  # rlvr_lib.settings.papers.PapersConfig, or None without a `papers` section
    file: str = dataclasses.field(default="params.yaml", compare=False)  # the file read (errors name its settings)

    def testbed_build(self, policy_seed: int) -> TestbedConfig:
        """The build settings of training seed ``policy_seed``'s base policy: the model section plus the data split
        it must hold out; model initialisation and SFT training use ``policy_seed``."""
        tb = self.data.testbed
        return TestbedConfig(
            **vars(self.model.testbed),
            seed=self.testbed_seed,
            policy_seed=policy_seed,
            n_eval=tb.n_eval,
            levels=tb.levels,
            task=tb.task,
        )

    @property
    def all_seeds(self) -> list[int]:
        """Every run's training seeds together, sorted: the seeds of the base policies (``models/base/seed<N>``)."""
        return sorted({seed for spec in self.runs.values() for seed in spec.seeds})

    def train_config(self, run: str, seed: int) -> TrainConfig:
        """Run ``run``'s settings with training seed ``seed`` (one of the run's ``seeds``)."""
        seeds = self.runs[run].seeds
        if seed not in seeds:
            raise ValueError(
                f"seed {seed} is not one of the seeds {seeds} of run '{run}' (params.yaml methods.{run}.seeds)"
            )
        return dataclasses.replace(self.runs[run].train, seed=seed)

    @property
    def testbed_seed(self) -> int:
        return self.seed if self.data.testbed.seed is None else self.data.testbed.seed


@dataclass
class _TopLevel:
    """The top-level keys of params.yaml (``methods`` and ``smoke`` are checked on their own)."""

    profile: Profile = "default"
    seed: Seed = 0
    seeds: list[Seed] = dataclasses.field(default_factory=lambda: [0])
    data: dict[str, Any] | None = None
    data_filters: dict[str, Any] | None = None
    level_sets: dict[str, Any] | None = None
    model: dict[str, Any] | None = None
    train: dict[str, Any] | None = None
    methods: dict[str, Any] | None = None
    eval: dict[str, Any] | None = None
    testbed_properties: dict[str, Any] | None = None
    papers: dict[str, Any] | None = None
    tuning: dict[str, Any] | None = None  # checked by rlvr_lib.tuning.space (no training stage reads it)
    smoke: dict[str, Any] | None = None


# ----------------------------------------------------------------------------- loading
def deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Recursively overlay ``overrides`` on ``base`` (a new dict; lists and scalars replace)."""
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


SEED_KEY_MESSAGE = (
    "training seeds come from the top-level `seeds` (every run trains once per seed) and the data and base-policy "
    "seed from the top-level `seed`: remove this key"
)


def parse_params(raw: dict[str, Any], *, check_method: MethodCheck | None = None) -> Params:
    """Validate a params mapping (as read from params.yaml) and return typed sections.

    Both profiles are checked whatever ``profile`` selects: the settings as written and the settings with the
    ``smoke`` overrides applied (whose errors name ``smoke.<key>``); the selected one is returned.
    ``check_method(method, hyperparameters, path)`` also checks each run's method hyperparameters (the pipeline
    passes the method registry's builder, ``rlvr_lib.workspace.layout.load_params``; this layer knows no method).
    """
    top = build(_TopLevel, raw, "")
    smoke = smoke_overrides(top.smoke)
    written = parse_profile(raw, "", check_method=check_method)
    smoked = parse_profile(deep_merge(raw, smoke), "smoke", check_method=None)  # smoke cannot change `methods`
    return smoked if top.profile == "smoke" else written


def smoke_overrides(smoke: dict[str, Any] | None) -> dict[str, Any]:
    """The ``smoke`` section, its keys checked: the top-level sections except those a profile cannot change."""
    smoke = smoke or {}
    build(_TopLevel, smoke, "smoke")  # unknown keys and sections of the wrong type, named smoke.<key>
    for key in ("seeds", "methods"):
        if key in smoke:
            raise ValueError(
                f"smoke.{key}: {key} define dvc.yaml's stages, which a profile cannot change: set the top-level key "
                "instead"
            )
    for key in ("profile", "smoke"):
        if key in smoke:
            raise ValueError(f"smoke.{key}: the smoke profile cannot set '{key}': set the top-level key instead")
    return smoke


def parse_profile(raw: dict[str, Any], prefix: str, *, check_method: MethodCheck | None) -> Params:
    """Typed sections of one profile's settings; key paths in errors start with ``prefix`` (``smoke`` or none)."""

    def at(key: str) -> str:
        return f"{prefix}.{key}" if prefix else key

    top = build(_TopLevel, raw, prefix)
    if "seed" in (top.train or {}):
        raise ValueError(f"{at('train.seed')}: {SEED_KEY_MESSAGE}")
    shared_train = {"seed": top.seed, **(top.train or {})}
    train = build(TrainConfig, shared_train, at("train"))
    if not top.methods:
        raise ValueError(
            "params 'methods' must map run names to method settings (python -m rlvr_lib methods lists them)"
        )
    check_seeds(top.seeds, at("seeds"))
    properties = build(PropertiesConfig, top.testbed_properties, at("testbed_properties"))
    runs = {}
    for name, entry in top.methods.items():
        try:
            runs[name] = parse_run(name, entry, shared_train, check_method, default_seeds=top.seeds)
        except ValueError as err:
            if not prefix:
                raise
            raise ValueError(f"{err} (with the shared train settings of the {prefix} profile: {at('train')})") from None
    data_filters = build(DataFiltersConfig, top.data_filters, at("data_filters"))
    for name, spec in runs.items():
        if spec.train_data in FILTERED_SETS and not getattr(data_filters, spec.train_data).enabled:
            raise ValueError(
                f"methods.{name}.train_data: the '{spec.train_data}' set is not built; set "
                f"{at('data_filters')}.{spec.train_data}.enabled: true in params.yaml"
            )
    data = build(DataConfig, top.data, at("data"))
    if data.source == "testbed" and properties.run not in runs:  # measured on the testbed only
        raise ValueError(
            f"{at('testbed_properties.run')}: unknown run '{properties.run}'{did_you_mean(properties.run, runs)}; "
            "valid: a key of params.yaml "
            f"'methods' ({', '.join(runs)})"
        )
    evaluation = build(EvalConfig, top.eval, at("eval"))
    benchmarks = evaluated_benchmarks(data)
    for bench in evaluation.per_benchmark:
        if bench not in benchmarks:
            raise ValueError(
                f"{at('eval.per_benchmark')}.{bench}: '{bench}' is not an evaluated benchmark; evaluated: "
                f"{list(benchmarks)} (data.benchmarks with data.source: files, else '{TESTBED_BENCHMARK}')"
            )
    papers = None
    if top.papers is not None:
        from rlvr_lib.settings.papers import PAPERS, parse_papers  # torch-free

        papers = parse_papers(top.papers, {name: spec.method for name, spec in runs.items()}, at("papers"))
        for paper in PAPERS:
            decoding = papers.paper(paper).eval_decoding
            if decoding is not None and decoding not in evaluation.decodings:
                raise ValueError(
                    f"{at(f'papers.{paper}.eval_decoding')}: '{decoding}' is not a decoding of eval.decodings "
                    f"({', '.join(sorted(evaluation.decodings)) or 'none declared'})"
                )
    return Params(
        profile=top.profile,
        seed=top.seed,
        seeds=top.seeds,
        data=data,
        model=build(ModelConfig, top.model, at("model")),
        train=train,
        runs=runs,
        eval=evaluation,
        testbed_properties=properties,
        data_filters=data_filters,
        level_sets=build(LevelSetsConfig, top.level_sets, at("level_sets")),
        papers=papers,
    )


def evaluated_benchmarks(data: DataConfig) -> tuple[str, ...]:
    """The benchmarks the eval stage samples: ``data.benchmarks`` of real files, else the testbed's held-out split."""
    return tuple(data.benchmarks) if data.source == "files" else (TESTBED_BENCHMARK,)


def check_seeds(seeds: Any, path: str) -> list[int]:
    """``seeds`` if it is a non-empty list of distinct integers in numpy's seed range, else an error naming ``path``."""
    if (
        not isinstance(seeds, list)
        or not seeds
        or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= MAX_SEED for s in seeds)
        or len(set(seeds)) != len(seeds)
    ):
        raise ValueError(f"{path} must be a non-empty list of distinct integers in [0, {MAX_SEED}], got {seeds!r}")
    return seeds


def parse_run(
    name: str,
    entry: Any,
    shared_train: dict[str, Any],
    check_method: MethodCheck | None = None,
    *,
    default_seeds: list[int] | None = None,
) -> RunSpec:
    """One ``methods`` entry; ``default_seeds`` (the top-level ``seeds``, default [0]) unless it sets ``seeds``."""
    path = f"methods.{name}"
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise ValueError(f"{path}: a run name uses letters, digits and '_' only (it names folders and DVC stages)")
    if entry is None:
        entry = {}
    if not isinstance(entry, dict):
        raise ValueError(f"{path} must be a mapping of settings, got {entry!r} ({type(entry).__name__})")
    hparams = {k: v for k, v in entry.items() if k not in RESERVED_RUN_KEYS}
    method = entry.get("method", name)
    if not isinstance(method, str):
        raise ValueError(f"{path}.method must be a method name, got {method!r}")
    overrides = entry.get("train") or {}
    if not isinstance(overrides, dict):
        raise ValueError(f"{path}.train must be a mapping of train overrides, got {overrides!r}")
    if "seed" in overrides:
        raise ValueError(f"{path}.train.seed: {SEED_KEY_MESSAGE}")
    train = build(TrainConfig, {**shared_train, **overrides}, f"{path}.train")
    train_data = entry.get("train_data", FULL_SET)
    if train_data not in (FULL_SET, *FILTERED_SETS, *LEVEL_SETS):
        raise ValueError(
            f"{path}.train_data: unknown training set {train_data!r}"
            f"{did_you_mean(train_data, (FULL_SET, *FILTERED_SETS, *LEVEL_SETS))}; valid: '{FULL_SET}' "
            "(data/generated/train.jsonl, "
            f"the default), a set of the filter_data stage ({', '.join(FILTERED_SETS)}: data/filtered/<name>.jsonl) "
            f"or a levels-only set ({', '.join(LEVEL_SETS)}: params.yaml level_sets)"
        )
    seeds = check_seeds(entry.get("seeds", default_seeds or [0]), f"{path}.seeds")
    if check_method is not None:
        check_method(method, hparams, path)
    return RunSpec(name=name, method=method, hparams=hparams, train=train, train_data=train_data, seeds=list(seeds))


class DuplicateKeyError(yaml.YAMLError):
    """A mapping of a YAML file names one key twice (PyYAML would keep the last silently; DVC rejects the file)."""


class _ParamsLoader(yaml.SafeLoader):
    """PyYAML's safe loader with two fixes: ``1e-4`` (no dot) is a float, as in YAML 1.2 (YAML 1.1's float rule
    misses it and PyYAML reads a string), and a key repeated in one mapping is an error naming both lines."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor`: its keys may be overridden
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                earlier = first_line.setdefault(key, line)
            except TypeError:  # an unhashable key: the base constructor names it
                continue
            if earlier != line:
                raise DuplicateKeyError(f"duplicate key {key!r} at lines {earlier} and {line}")
        return super().construct_mapping(node, deep=deep)


_ParamsLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\d[\d_]*)?(?:\.\d*)?[eE][-+]?\d+$"),
    list("-+0123456789."),
)


def read_yaml(path: str | Path) -> Any:
    """A YAML file read with ``1e-4``-style numbers as floats and duplicate keys rejected; errors name the file."""
    path = Path(path)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_ParamsLoader)  # noqa: S506 (a SafeLoader)
    except DuplicateKeyError as err:
        raise ValueError(f"{path}: {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        if mark is None or not getattr(err, "problem", None):
            raise ValueError(f"{path}: not valid YAML: {err}") from None
        context = f" ({err.context}, line {err.context_mark.line + 1})" if err.context and err.context_mark else ""
        raise ValueError(
            f"{path}: not valid YAML at line {mark.line + 1}, column {mark.column + 1}: {err.problem}{context}"
        ) from None
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None


def load_params(path: str | Path = "params.yaml", *, check_method: MethodCheck | None = None) -> Params:
    """params.yaml's settings, checked (``parse_params``); ``check_method`` as there."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"params file {path} not found (run from the repository root or pass params_path)")
    raw = read_yaml(path)
    if raw is None:
        raise ValueError(
            f"{path}: the file is empty; it must map the settings' sections (seeds, data, model, train, methods, "
            "eval, ...): see the committed params.yaml"
        )
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping of settings at the top level, got a {type(raw).__name__}")
    try:
        params = parse_params(raw, check_method=check_method)
    except SettingError as err:  # raised outside a build() (should not happen): still name the file
        raise ValueError(f"{path}: {err}") from None
    params.file = str(path)
    return params
