"""Every setting of the project, typed to the leaves: the lowest layer, like TRL's ``grpo_config.py``.

``load_params`` reads params.yaml, applies the ``smoke`` overrides when ``profile: smoke`` and builds the typed
sections below through ``rlvr_lib.schema.build``: every key is type- and range-checked when the file is loaded,
and an error names the key path (``train.learning_rate``, ``methods.aer.tau``). Importing this module imports
neither torch nor TRL; only checking the method hyperparameters (``methods``) imports the method registry.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from .schema import SettingError, build, require

Profile = Literal["default", "smoke"]
DataSource = Literal["testbed", "files"]
# transformers.SchedulerType's values (tests/test_config.py checks the two agree)
SchedulerName = Literal[
    "linear", "cosine", "cosine_with_restarts", "polynomial", "constant", "constant_with_warmup",
    "inverse_sqrt", "reduce_lr_on_plateau", "cosine_with_min_lr", "cosine_warmup_with_min_lr", "warmup_stable_decay", "greedy",
]
TESTBED_LEVELS = (1, 2, 3, 4, 5)  # rlvr_lib.testbed.generator.LEVELS (tests/test_config.py checks the two agree)
RESERVED_RUN_KEYS = ("method", "train")


def _help(text: str, default: Any = None, factory: Any = None) -> Any:
    """A dataclass field with a help text (``python -m rlvr_lib methods`` and the docs print it)."""
    if factory is not None:
        return field(default_factory=factory, metadata={"help": text})
    return field(default=default, metadata={"help": text})


def _positive(obj: Any, *names: str, strict: bool = True) -> None:
    for name in names:
        value = getattr(obj, name)
        if value is not None:
            require(value > 0 if strict else value >= 0, name, f"must be {'>' if strict else '>='} 0, got {value}")


# ----------------------------------------------------------------------------- testbed
@dataclass
class TestbedDataConfig:
    """params.yaml ``data.testbed``: the synthetic task's RL and evaluation splits."""

    __test__ = False  # not a pytest test class

    n_train: int = _help("RL training problems", 2000)
    n_eval: int = _help("held-out evaluation problems (never shared with training or SFT)", 128)
    levels: list[int] = _help("difficulty levels in the mix (rlvr_lib.testbed.generator.LEVELS)", factory=lambda: [1, 2, 3])
    seed: int | None = _help("seed of the splits; null: params.yaml's top-level seed", None)

    def __post_init__(self) -> None:
        _positive(self, "n_train", "n_eval")
        require(bool(self.levels), "levels", "must name at least one level")
        bad = sorted(set(self.levels) - set(TESTBED_LEVELS))
        require(not bad, "levels", f"has unknown level(s) {bad}; valid: {list(TESTBED_LEVELS)}")


@dataclass
class TestbedModelConfig:
    """params.yaml ``model.testbed``: the from-scratch tokenizer, model and SFT warm-up of the base policy."""

    __test__ = False

    n_train: int = _help("SFT problems (the evaluation split is held out)", 1500)
    solutions_per_problem: int = _help("distinct worked solutions per SFT problem (diversity at the forks)", 2)
    slip_rate: float = _help("P(a step of an SFT solution writes a wrong sum); docs/testbed.md", 0.3)
    vocab_size: int = _help("BPE vocabulary upper bound; the small corpus yields fewer tokens", 512)
    hidden_size: int = _help("model width (128: 0.82M parameters)", 128)
    num_layers: int = _help("transformer layers", 3)
    num_heads: int = _help("attention heads", 4)
    sft_steps: int = _help("SFT optimizer steps (with slip_rate 0.3: base mean@16 0.25, docs/testbed.md)", 800)
    batch_size: int = _help("SFT batch size", 64)
    lr: float = _help("SFT peak learning rate (linear decay)", 1e-3)
    warmup_steps: int = _help("SFT warm-up steps", 20)

    def __post_init__(self) -> None:
        _positive(self, "n_train", "solutions_per_problem", "vocab_size", "hidden_size", "num_layers", "num_heads",
                  "sft_steps", "batch_size", "lr")
        _positive(self, "warmup_steps", strict=False)
        require(0 <= self.slip_rate < 1, "slip_rate", f"must lie in [0, 1), got {self.slip_rate}")
        require(self.hidden_size % self.num_heads == 0, "hidden_size",
                f"({self.hidden_size}) must be divisible by num_heads ({self.num_heads})")


@dataclass
class TestbedConfig(TestbedModelConfig):
    """Every knob of one testbed build: the model settings plus the split the SFT data must not overlap."""

    __test__ = False

    seed: int = _help("seed of the task, tokenizer, model initialisation and SFT", 0)
    n_eval: int = _help("held-out evaluation problems", 128)
    levels: tuple[int, ...] = _help("difficulty levels", (1, 2, 3))

    def __post_init__(self) -> None:
        super().__post_init__()
        self.levels = tuple(self.levels)


# ----------------------------------------------------------------------------- params sections
@dataclass
class DataConfig:
    """params.yaml ``data``: where training and evaluation problems come from."""

    source: DataSource = _help("testbed: the synthetic task; files: real sets under `root`", "testbed")
    root: str | None = _help("data root for `files` (null: $RLVR_DATA_ROOT, else ../shared/data)", None)
    testbed: TestbedDataConfig = _help("the synthetic task's splits", factory=TestbedDataConfig)
    train_set: str = _help("files: training set name (rlvr_lib.data)", "math_train")
    train_levels: list[int] | None = _help("files: keep these MATH levels (ERPO: [3, 4, 5])", None)
    max_train: int | None = _help("files: keep the first N training problems (null: all)", None)
    benchmarks: list[str] = _help("files: evaluation sets (rlvr_lib.data)", factory=lambda: ["math500"])
    max_eval: int | None = _help("files: problems per benchmark (null: all)", None)

    def __post_init__(self) -> None:
        _positive(self, "max_train", "max_eval")
        require(bool(self.benchmarks), "benchmarks", "must name at least one evaluation set")


@dataclass
class ModelConfig:
    """params.yaml ``model``."""

    path: str | None = _help("null: build the testbed base policy (base_model stage); else a model folder or hub id",
                             None)
    testbed: TestbedModelConfig = _help("the testbed base policy's build", factory=TestbedModelConfig)


@dataclass
class TrainConfig:
    """params.yaml ``train``: run-level settings. One optimizer step sees ``prompts_per_step * num_generations``
    responses; a rollout batch feeds ``steps_per_generation / gradient_accumulation_steps`` optimizer steps."""

    max_steps: int = _help("optimizer steps", 200)
    prompts_per_step: int = _help("prompts per optimizer step", 8)
    num_generations: int = _help("responses per prompt (the group size G)", 8)
    max_completion_length: int = _help("completion tokens at most", 64)
    learning_rate: float = _help("AdamW learning rate", 1e-4)
    lr_scheduler_type: SchedulerName = _help("transformers scheduler name", "constant")
    warmup_steps: int = _help("learning-rate warm-up steps (needs a *_with_warmup or decaying schedule)", 0)
    weight_decay: float = _help("AdamW weight decay", 0.0)
    max_grad_norm: float = _help("gradient-norm clip", 1.0)
    temperature: float = _help("rollout sampling temperature", 1.0)
    top_p: float = _help("rollout nucleus sampling", 1.0)
    gradient_accumulation_steps: int = _help("micro-batches per optimizer step", 1)
    steps_per_generation: int | None = _help(
        "micro-batches per rollout batch (null: = gradient_accumulation_steps, one update per rollout batch)", None)
    num_iterations: int = _help("passes over each rollout batch (PPO epochs)", 1)
    format_weight: float = _help("weight of the boxed-format reward added to the accuracy reward", 0.0)
    lora_r: int = _help("0: full fine-tuning; > 0: LoRA of this rank on all linear layers", 0)
    lora_alpha: int = _help("LoRA alpha", 64)
    bf16: bool = _help("bf16 mixed precision (CUDA only)", False)
    gradient_checkpointing: bool = _help("recompute activations in the backward pass", False)
    use_vllm: bool = _help("generate with vLLM (`pip install -e '.[gpu]'`)", False)
    log_reference_kl: bool = _help("log KL to the frozen base policy (keeps a reference model)", True)
    save_steps: int = _help("checkpoint every N optimizer steps (0: none; a rerun resumes from the last one)", 0)
    seed: int = _help("seed of RL sampling and initialisation", 0)

    def __post_init__(self) -> None:
        _positive(self, "max_steps", "prompts_per_step", "num_generations", "max_completion_length", "learning_rate",
                  "gradient_accumulation_steps", "steps_per_generation", "num_iterations", "temperature",
                  "max_grad_norm", "lora_alpha")
        _positive(self, "warmup_steps", "weight_decay", "format_weight", "lora_r", "save_steps", strict=False)
        require(self.num_generations >= 2, "num_generations", "must be >= 2: group-normalised advantages need a group")
        require(0 < self.top_p <= 1, "top_p", f"must lie in (0, 1], got {self.top_p}")
        require(not (self.warmup_steps > 0 and self.lr_scheduler_type == "constant"), "warmup_steps",
                "is ignored by lr_scheduler_type 'constant' (transformers' constant schedule has no warm-up): set "
                "lr_scheduler_type to 'constant_with_warmup'")
        responses = self.prompts_per_step * self.num_generations
        require(responses % self.gradient_accumulation_steps == 0, "gradient_accumulation_steps",
                f"({self.gradient_accumulation_steps}) must divide prompts_per_step x num_generations = {responses}")
        generation_batch = responses // self.gradient_accumulation_steps * self.rollout_micro_batches
        require(generation_batch % self.num_generations == 0, "steps_per_generation",
                f"gives a rollout batch of {generation_batch} responses (per-device batch "
                f"{responses // self.gradient_accumulation_steps} x {self.rollout_micro_batches} micro-batches), which "
                f"must hold whole groups of num_generations = {self.num_generations} (TRL's generation_batch_size rule)")
        updates = self.rollout_micro_batches * self.num_iterations / self.gradient_accumulation_steps
        require(not self.save_steps or self.save_steps % updates == 0, "save_steps",
                f"({self.save_steps}) must be a multiple of the {updates:g} optimizer steps of one rollout batch, so a "
                "resumed run starts on a fresh rollout batch exactly as the uninterrupted run does")

    @property
    def rollout_micro_batches(self) -> int:
        """Micro-batches per rollout batch (TRL's ``steps_per_generation`` after its default)."""
        return self.steps_per_generation or self.gradient_accumulation_steps


@dataclass
class EvalConfig:
    """params.yaml ``eval``: sampling settings of the pass@k evaluation."""

    n: int = _help("samples per problem", 16)
    ks: list[int] | None = _help("pass@k for these k (null: 1, 2, 4, ..., n)", None)
    temperature: float = _help("sampling temperature", 1.0)
    top_p: float = _help("nucleus sampling", 1.0)
    max_new_tokens: int = _help("completion tokens at most", 64)
    batch_size: int = _help("sequences per generate call", 256)
    n_boot: int = _help("bootstrap resamples of the 95% intervals", 1000)

    def __post_init__(self) -> None:
        _positive(self, "n", "temperature", "max_new_tokens", "batch_size", "n_boot")
        require(0 < self.top_p <= 1, "top_p", f"must lie in (0, 1], got {self.top_p}")
        if self.ks is not None:
            require(bool(self.ks) and all(1 <= k <= self.n for k in self.ks), "ks",
                    f"must be a non-empty list in [1, n={self.n}], got {self.ks}")


@dataclass
class RunSpec:
    """One training run: an entry of params.yaml's ``methods`` mapping.

    The entry's key names the run; reserved keys inside it: ``method`` (the registered method, default: the key
    itself, so ablations like ``opefo_static: {method: opefo, lambda_mode: static}`` need no code) and ``train``
    (overrides of the shared ``train`` section for this run). Every other key is a method hyperparameter.
    """

    name: str
    method: str
    hparams: dict[str, Any]
    train: TrainConfig


@dataclass
class Params:
    profile: Profile
    seed: int
    data: DataConfig
    model: ModelConfig
    train: TrainConfig
    runs: dict[str, RunSpec]
    eval: EvalConfig

    def testbed_build(self) -> TestbedConfig:
        """The base policy's full build settings: the model section plus the data split it must hold out."""
        tb = self.data.testbed
        return TestbedConfig(**vars(self.model.testbed), seed=self.testbed_seed, n_eval=tb.n_eval, levels=tb.levels)

    @property
    def testbed_seed(self) -> int:
        return self.seed if self.data.testbed.seed is None else self.data.testbed.seed


@dataclass
class _TopLevel:
    """The top-level keys of params.yaml (``methods`` and ``smoke`` are checked on their own)."""

    profile: Profile = "default"
    seed: int = 0
    data: dict[str, Any] | None = None
    model: dict[str, Any] | None = None
    train: dict[str, Any] | None = None
    methods: dict[str, Any] | None = None
    eval: dict[str, Any] | None = None
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


def parse_params(raw: dict[str, Any], *, check_methods: bool = True) -> Params:
    """Validate a params mapping (as read from params.yaml) and return typed sections.

    ``check_methods=False`` skips building each run's method (which imports torch) for tools that only need the
    other sections.
    """
    top = build(_TopLevel, raw, "")
    if top.profile == "smoke":
        raw = deep_merge(raw, top.smoke or {})
        top = build(_TopLevel, raw, "")
    shared_train = {"seed": top.seed, **(top.train or {})}
    train = build(TrainConfig, shared_train, "train")
    if not top.methods:
        raise ValueError("params 'methods' must map run names to method settings (python -m rlvr_lib methods lists them)")
    return Params(
        profile=top.profile,
        seed=top.seed,
        data=build(DataConfig, top.data, "data"),
        model=build(ModelConfig, top.model, "model"),
        train=train,
        runs={name: parse_run(name, entry, shared_train, check_methods) for name, entry in top.methods.items()},
        eval=build(EvalConfig, top.eval, "eval"),
    )


def parse_run(name: str, entry: Any, shared_train: dict[str, Any], check_method: bool = True) -> RunSpec:
    path = f"methods.{name}"
    if not re.fullmatch(r"[A-Za-z0-9_]+", str(name)):
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
    train = build(TrainConfig, {**shared_train, **overrides}, f"{path}.train")
    if check_method:
        from .methods import build_method

        build_method(method, hparams, path=path)
    return RunSpec(name=name, method=method, hparams=hparams, train=train)


class _ParamsLoader(yaml.SafeLoader):
    """YAML 1.1's float rule misses ``1e-4`` (no dot), which PyYAML then reads as a string; YAML 1.2 accepts it."""


_ParamsLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\d[\d_]*)?(?:\.\d*)?[eE][-+]?\d+$"),
    list("-+0123456789."),
)


def read_yaml(path: str | Path) -> Any:
    """A YAML file read with ``1e-4``-style numbers as floats; errors name the file."""
    path = Path(path)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_ParamsLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not valid YAML: {err}") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None


def load_params(path: str | Path = "params.yaml", *, check_methods: bool = True) -> Params:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"params file {path} not found (run from the repository root or pass params_path)")
    raw = read_yaml(path) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    try:
        return parse_params(raw, check_methods=check_methods)
    except SettingError as err:  # raised outside a build() (should not happen): still name the file
        raise ValueError(f"{path}: {err}") from None
