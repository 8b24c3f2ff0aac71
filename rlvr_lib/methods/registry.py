"""Methods looked up by the name users type in params.yaml."""
from __future__ import annotations

from typing import Any

from .base import Method

REGISTRY: dict[str, type[Method]] = {}


def register(cls: type[Method]) -> type[Method]:
    if cls.name in REGISTRY:
        raise ValueError(f"method name '{cls.name}' registered twice")
    REGISTRY[cls.name] = cls
    return cls


def method_class(name: str) -> type[Method]:
    if name not in REGISTRY:
        raise ValueError(f"unknown method '{name}'; registered methods: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[name]


def build_method(name: str, **hparams: Any) -> Method:
    """Instantiate a registered method; unknown names and hyperparameters raise ValueError."""
    return method_class(name)(**hparams)


def available_methods() -> list[str]:
    return sorted(REGISTRY)
