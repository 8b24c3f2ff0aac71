"""Methods looked up by the name users type in params.yaml."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlvr_lib.methods.base import Method
from rlvr_lib.settings.names import did_you_mean

REGISTRY: dict[str, type[Method]] = {}


def register(cls: type[Method]) -> type[Method]:
    if cls.name in REGISTRY:
        raise ValueError(f"method name '{cls.name}' registered twice")
    REGISTRY[cls.name] = cls
    return cls


def method_class(name: str) -> type[Method]:
    if name not in REGISTRY:
        raise ValueError(
            f"unknown method '{name}'{did_you_mean(name, REGISTRY)}; registered methods: {', '.join(sorted(REGISTRY))}"
        )
    return REGISTRY[name]


def build_method(name: str, hparams: Mapping[str, Any] | None = None, *, path: str | None = None) -> Method:
    """Instantiate a registered method from its hyperparameters (e.g. a params.yaml entry).

    Unknown names, unknown keys and bad values raise ValueError; a bad value is named ``<path>.<key>``
    (``path`` defaults to the method's name; the pipeline passes ``methods.<run>``).
    """
    if path is not None and name not in REGISTRY:
        raise ValueError(
            f"{path}: unknown method '{name}'{did_you_mean(name, REGISTRY)}; registered methods: "
            f"{', '.join(sorted(REGISTRY))}"
        )
    return method_class(name)(hparams, path=path)


def available_methods() -> list[str]:
    return sorted(REGISTRY)
