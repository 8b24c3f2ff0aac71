"""params.yaml: the single source of truth for the pipeline, loaded and validated in one place.

``load_params`` applies the ``smoke`` overrides when ``profile: smoke`` and checks every section, so a
stage fails at its start with a message naming the bad key and the allowed values.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .methods import available_methods, build_method
from .train import TrainConfig

PROFILES = ("default", "smoke")
DATA_SOURCES = ("testbed", "files")
TOP_LEVEL_KEYS = {"profile", "seed", "data", "model", "train", "methods", "eval", "smoke"}


@dataclass
class EvalConfig:
    """Sampling settings of the pass@k evaluation."""

    n: int = 16
    ks: list[int] | None = None  # None: 1, 2, 4, ..., n
    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 64
    batch_size: int = 256
    n_boot: int = 1000
    # issue 11: per-benchmark overrides of n / ks / temperature / top_p / max_new_tokens (e.g. OPEFO: avg@32 on
    # AIME24/25 and AMC23, avg@1 on the rest)
    per_benchmark: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for bench, overrides in self.per_benchmark.items():
            unknown = sorted(set(overrides) - PER_BENCHMARK_KEYS)
            if unknown:
                raise ValueError(f"eval.per_benchmark.{bench}: unknown key(s) {unknown}; valid: {sorted(PER_BENCHMARK_KEYS)}")
            EvalConfig(**{**self.for_benchmark(bench), "per_benchmark": {}})  # validates the merged settings
        if self.n < 1:
            raise ValueError(f"eval.n must be >= 1, got {self.n}")
        if self.ks is not None and any(not 1 <= k <= self.n for k in self.ks):
            raise ValueError(f"eval.ks must lie in [1, eval.n={self.n}], got {self.ks}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"eval.top_p must lie in (0, 1], got {self.top_p}")
        if self.temperature <= 0:
            raise ValueError(f"eval.temperature must be > 0, got {self.temperature}")

    def for_benchmark(self, name: str) -> dict[str, Any]:
        """Sampling settings for benchmark ``name``: the shared ones with its ``per_benchmark`` overrides."""
        shared = {k: getattr(self, k) for k in PER_BENCHMARK_KEYS}
        return {**shared, **self.per_benchmark.get(name, {})}


PER_BENCHMARK_KEYS = {"n", "ks", "temperature", "top_p", "max_new_tokens"}


@dataclass
class DataConfig:
    """Where training and evaluation problems come from."""

    source: str = "testbed"  # testbed: the synthetic task; files: real sets under ``root``
    root: str | None = None  # data root for ``files`` (None: $RLVR_DATA_ROOT, else ../shared/data)
    testbed: dict[str, Any] = field(default_factory=dict)  # n_train, n_eval, levels, seed
    train_set: str = "math_train"  # files: training set name (rlvr_lib.data)
    train_levels: list[int] | None = None  # files: keep these MATH levels (ERPO: [3, 4, 5])
    max_train: int | None = None
    benchmarks: list[str] = field(default_factory=lambda: ["math500"])  # files: evaluation sets
    max_eval: int | None = None  # per benchmark, None: all problems
    # --- issue 11 (paper profiles); files source only
    eval_limits: dict[str, int] = field(default_factory=dict)  # first N problems of a benchmark (ERPO: minerva 40)
    prompt_template: str | None = None  # must hold {problem}; None: rlvr_lib.data.DEFAULT_TEMPLATE
    dedupe: bool = False  # drop repeated problem texts (and texts repeated with different answers)
    max_solution_tokens: float | None = None  # keep problems whose reference solution has <= this many tokens
    max_prompt_tokens: int | None = None  # drop problems whose formatted prompt is longer (verl's overlong filter)
    tokenizer: str | None = None  # for the length filters; None: Qwen2.5's, built from <root>/tokenizers/qwen.tiktoken

    def __post_init__(self) -> None:
        if self.source not in DATA_SOURCES:
            raise ValueError(f"data.source must be one of {DATA_SOURCES}, got '{self.source}'")
        if self.prompt_template is not None and "{problem}" not in self.prompt_template:
            raise ValueError("data.prompt_template must contain the placeholder '{problem}'")
        for key in ("max_solution_tokens", "max_prompt_tokens", "max_train"):
            if getattr(self, key) is not None and getattr(self, key) <= 0:
                raise ValueError(f"data.{key} must be > 0 or null, got {getattr(self, key)}")
        bad = {k: v for k, v in self.eval_limits.items() if not isinstance(v, int) or v < 1}
        if bad:
            raise ValueError(f"data.eval_limits must map benchmarks to positive integers, got {bad}")


@dataclass
class ModelConfig:
    path: str | None = None  # None: build the testbed base policy in the base_model stage
    testbed: dict[str, Any] = field(default_factory=dict)  # rlvr_lib.testbed.TestbedConfig fields


@dataclass
class RunSpec:
    """One training run: an entry of params.yaml's ``methods`` mapping.

    The entry's key names the run; reserved keys inside it: ``method`` (the registered method, default:
    the key itself, so ablations like ``opefo_static: {method: opefo, lambda_mode: static}`` need no code)
    and ``train`` (overrides of the shared ``train`` section for this run). Every other key is a method
    hyperparameter.
    """

    name: str
    method: str
    hparams: dict[str, Any]
    train: TrainConfig


@dataclass
class Params:
    profile: str
    seed: int
    data: DataConfig
    model: ModelConfig
    train: TrainConfig
    runs: dict[str, RunSpec]
    eval: EvalConfig


def deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Recursively overlay ``overrides`` on ``base`` (a new dict; lists and scalars replace)."""
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _section(cls, values: Any, name: str):
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ValueError(f"params '{name}' must be a mapping, got {type(values).__name__}")
    valid = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - valid)
    if unknown:
        raise ValueError(f"unknown key(s) {[f'{name}.{k}' for k in unknown]}; valid: {sorted(valid)}")
    return cls(**values)


def parse_params(raw: dict[str, Any]) -> Params:
    """Validate a params mapping (as read from params.yaml) and return typed sections."""
    unknown = sorted(set(raw) - TOP_LEVEL_KEYS)
    if unknown:
        raise ValueError(f"unknown top-level params key(s) {unknown}; valid: {sorted(TOP_LEVEL_KEYS)}")
    profile = raw.get("profile", "default")
    if profile not in PROFILES:
        raise ValueError(f"params 'profile' must be one of {PROFILES}, got '{profile}'")
    if profile == "smoke":
        raw = deep_merge(raw, raw.get("smoke") or {})
    seed = int(raw.get("seed", 0))
    train = {"seed": seed, **(raw.get("train") or {})}
    try:
        train_cfg = TrainConfig.from_dict(train)
    except (TypeError, ValueError) as err:
        raise ValueError(f"params 'train': {err}") from None
    methods = raw.get("methods") or {}
    if not isinstance(methods, dict) or not methods:
        raise ValueError(f"params 'methods' must map run names to method settings; valid methods: {available_methods()}")
    return Params(
        profile=profile,
        seed=seed,
        data=_section(DataConfig, raw.get("data"), "data"),
        model=_section(ModelConfig, raw.get("model"), "model"),
        train=train_cfg,
        runs={name: parse_run(name, entry, train) for name, entry in methods.items()},
        eval=_section(EvalConfig, raw.get("eval"), "eval"),
    )


def parse_run(name: str, entry: dict[str, Any] | None, shared_train: dict[str, Any]) -> RunSpec:
    entry = dict(entry or {})
    method = entry.pop("method", name)
    train_overrides = entry.pop("train", None) or {}
    try:
        build_method(method, **entry)
        train = TrainConfig.from_dict({**shared_train, **train_overrides})
    except (TypeError, ValueError) as err:
        raise ValueError(f"params 'methods.{name}': {err}") from None
    return RunSpec(name=name, method=method, hparams=entry, train=train)


def load_params(path: str | Path = "params.yaml") -> Params:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"params file {path} not found (run from the repository root or pass params_path)")
    raw = yaml.safe_load(path.read_text()) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return parse_params(raw)
