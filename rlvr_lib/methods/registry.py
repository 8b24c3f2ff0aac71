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


def build_method(name: str, hparams: dict[str, Any] | None = None, *, path: str | None = None, **kwargs: Any) -> Method:
    """Instantiate a registered method from ``hparams`` (or keyword arguments); unknown names and bad
    hyperparameters raise ValueError, prefixed with ``path`` (e.g. ``methods.aer``) when given."""
    try:
        return method_class(name)(**{**(hparams or {}), **kwargs})
    except (TypeError, ValueError) as err:
        if path is None:
            raise
        raise ValueError(f"{path}: {err}") from None


def available_methods() -> list[str]:
    return sorted(REGISTRY)
