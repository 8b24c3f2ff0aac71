"""The declared search space of issue 41's equal tuning budget: params.yaml ``tuning``, checked.

Each arm, keyed by the run of ``methods`` it tunes, declares a grid of settings; its configurations are the grid's
product, in declaration order (the first setting varies slowest). A setting is a method hyperparameter
(``sigma_target``), a key of the run's train settings (under ``train:``, named ``train.learning_rate``), or
hyperparameters set together (``eps_low+eps_high``, each value a list of theirs). The checks, each error naming the
key path: every arm has exactly ``budget`` configurations; each setting exists for its run's method (did-you-mean);
every value builds (the method's own type and range checks, ``TrainConfig``'s); every setting's values include the
run's literal value, so that one configuration, the literal transfer, is the run as committed.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from typing import Any

from rlvr_lib.methods.registry import build_method, method_class
from rlvr_lib.settings.config import Params, TrainConfig, check_seeds, deep_merge, parse_run
from rlvr_lib.settings.names import did_you_mean

TRAIN_PREFIX = "train."
TIE = "+"
RUN_PREFIX = "tune__"  # a configuration's run name: tune__<arm>__<k>


@dataclasses.dataclass(frozen=True)
class Config:
    """One configuration of an arm: ``values`` maps each setting name to its value here (a tuple for a tie)."""

    arm: str
    index: int
    values: dict[str, Any]
    literal: bool  # every setting at the run's committed value

    @property
    def run(self) -> str:
        return f"{RUN_PREFIX}{self.arm}__{self.index}"

    def entry(self, methods: dict[str, Any], seeds: list[int]) -> dict[str, Any]:
        """The arm's ``methods`` entry with this configuration applied and the tuning seeds."""
        entry = copy.deepcopy(methods[self.arm] or {})
        entry.setdefault("method", self.arm)
        for name, value in self.values.items():
            if name.startswith(TRAIN_PREFIX):
                entry.setdefault("train", {})[name.removeprefix(TRAIN_PREFIX)] = value
            else:
                entry.update(dict(zip(name.split(TIE), value if TIE in name else [value], strict=True)))
        entry["seeds"] = list(seeds)
        return entry

    def label(self) -> str:
        return ", ".join(f"{name}={_show(value)}" for name, value in self.values.items())


@dataclasses.dataclass(frozen=True)
class Space:
    seeds: list[int]
    budget: int
    validation_n: int
    arms: dict[str, list[Config]]

    def configs(self) -> list[Config]:
        return [c for configs in self.arms.values() for c in configs]


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return "/".join(map(_show, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _settings(grid: Any, path: str) -> dict[str, list[Any]]:
    """An arm's grid flattened to setting name -> its values (``train: {lr: [...]}`` -> ``train.lr``)."""
    if not isinstance(grid, dict) or not grid:
        raise ValueError(f"{path} must map settings to lists of values, got {grid!r}")
    flat = {}
    for key, values in grid.items():
        nested = key == "train" and isinstance(values, dict)
        for name, vals in values.items() if nested else [(key, values)]:
            name = f"{TRAIN_PREFIX}{name}" if nested else name
            if not isinstance(vals, list) or not vals:
                raise ValueError(f"{path}.{name} must be a non-empty list of values, got {vals!r}")
            flat[name] = vals
    return flat


def _literal(spec, hparams: dict[str, Any], name: str) -> Any:
    if name.startswith(TRAIN_PREFIX):
        return getattr(spec.train, name.removeprefix(TRAIN_PREFIX))
    keys = name.split(TIE)
    return tuple(hparams[k] for k in keys) if TIE in name else hparams[name]


def _check_name(name: str, method: str, path: str) -> None:
    if name.startswith(TRAIN_PREFIX):
        key, valid = name.removeprefix(TRAIN_PREFIX), [f.name for f in dataclasses.fields(TrainConfig)]
    else:
        key, valid = None, list(method_class(method).defaults())
    for k in [key] if key is not None else name.split(TIE):
        if k not in valid:
            raise ValueError(
                f"{path}: '{k}' is not a setting of {'train' if key is not None else f'method {method!r}'}"
                f"{did_you_mean(k, valid)}; valid: {', '.join(valid)}"
            )


def _normalise(value: Any, name: str, path: str) -> Any:
    if TIE not in name:
        return value
    width = len(name.split(TIE))
    if not isinstance(value, list) or len(value) != width:
        raise ValueError(f"{path}: each value of '{name}' must be a list of {width} values, got {value!r}")
    return tuple(value)


def arm_configs(arm: str, grid: Any, raw: dict[str, Any], params: Params) -> list[Config]:
    """The configurations of one arm, each built and checked as a run (errors name ``tuning.arms.<arm>``)."""
    path = f"tuning.arms.{arm}"
    if arm not in params.runs:
        raise ValueError(f"{path}: '{arm}' is not a run of params.yaml 'methods'{did_you_mean(arm, params.runs)}")
    spec = params.runs[arm]
    hparams = {**method_class(spec.method).defaults(), **spec.hparams}
    settings = _settings(grid, path)
    literal = {}
    for name, values in settings.items():
        _check_name(name, spec.method, f"{path}.{name}")
        settings[name] = [_normalise(v, name, f"{path}.{name}") for v in values]
        literal[name] = _literal(spec, hparams, name)
        if literal[name] not in settings[name]:
            raise ValueError(
                f"{path}.{name}: the values {values} miss the run's literal value {literal[name]!r} "
                f"(methods.{arm}): the literal transfer must be one of the configurations"
            )
    configs = []
    for index, combo in enumerate(itertools.product(*settings.values())):
        values = dict(zip(settings, combo, strict=True))
        config = Config(arm, index, values, literal=values == literal)
        shared = {"seed": params.train.seed, **(raw.get("train") or {})}
        try:
            parse_run(config.run, config.entry(raw["methods"], [0]), shared, check_run)
        except ValueError as err:
            raise ValueError(f"{path} configuration {index} ({config.label()}): {err}") from None
        configs.append(config)
    return configs


def selected_profile(raw: dict[str, Any]) -> dict[str, Any]:
    """params.yaml's mapping with the ``smoke`` overrides applied when ``profile: smoke`` selects them."""
    return deep_merge(raw, raw.get("smoke") or {}) if raw.get("profile") == "smoke" else raw


def check_run(method: str, hparams: dict[str, Any], path: str) -> None:
    """A run's method hyperparameters built by the method's own checks (``settings.config.MethodCheck``)."""
    build_method(method, hparams, path=path)


def parse_space(raw: dict[str, Any], params: Params) -> Space:
    """params.yaml's ``tuning`` section (``raw``: the file's mapping, the smoke overrides applied where its profile
    says so) checked against ``params``."""
    raw = selected_profile(raw)
    section = raw.get("tuning")
    if not isinstance(section, dict):
        raise ValueError("params.yaml has no 'tuning' section (issue 41's search space): see the committed params.yaml")
    unknown = sorted(set(section) - {"seeds", "budget", "validation", "arms"})
    if unknown:
        raise ValueError(f"tuning: unknown key(s) {unknown}; valid: seeds, budget, validation, arms")
    seeds = check_seeds(section.get("seeds"), "tuning.seeds")
    budget = section.get("budget")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"tuning.budget must be a positive integer (configurations per arm), got {budget!r}")
    n = (section.get("validation") or {}).get("n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"tuning.validation.n must be a positive integer (validation problems), got {n!r}")
    arms_raw = section.get("arms")
    if not isinstance(arms_raw, dict) or not arms_raw:
        raise ValueError("tuning.arms must map runs of 'methods' to their grids of settings")
    arms = {arm: arm_configs(arm, grid, raw, params) for arm, grid in arms_raw.items()}
    unequal = {arm: len(c) for arm, c in arms.items() if len(c) != budget}
    if unequal:
        raise ValueError(
            "tuning.arms: every arm gets tuning.budget = "
            f"{budget} configurations; " + ", ".join(f"tuning.arms.{arm} has {count}" for arm, count in unequal.items())
        )
    return Space(seeds=list(seeds), budget=budget, validation_n=n, arms=arms)
