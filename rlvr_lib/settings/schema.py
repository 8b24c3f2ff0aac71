"""Typed settings: dataclasses built from plain mappings and checked against their annotations.

``build(cls, values, path)`` is how every settings dataclass of the project (params.yaml sections, method
hyperparameters) is made from user input. It rejects unknown keys, checks each value against the field's
annotation (``int``, ``float``, ``bool``, ``str``, ``Literal[...]``, ``X | None``, ``list[X]``, ``tuple[X, ...]``,
``dict[str, X]``, nested dataclasses, ``Annotated[int, Bounds(...)]``) and runs the class's own range checks, and every
error names the key path (``train.learning_rate``, ``methods.aer.tau``). Every float must be finite (YAML reads
``1e400`` and ``.inf`` as infinity), every mapping key a string (YAML reads ``123:`` and ``no:`` as a number and a
boolean). No torch import: loading params stays cheap.

Range checks live in the dataclass (``__post_init__``) and raise ``SettingError(field, message)`` so the path is
added here, once.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from rlvr_lib.settings.names import did_you_mean


class SettingError(ValueError):
    """A bad value of one field; ``build`` prefixes the field with the key path of its section."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field} {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Bounds:
    """Range of an ``Annotated[int, Bounds(...)]`` field, checked by ``check_value``; ``why`` ends the message."""

    low: int | None = None
    high: int | None = None
    why: str = ""

    def check(self, value: int, where: str) -> None:
        if (self.low is None or value >= self.low) and (self.high is None or value <= self.high):
            return
        if self.low is None:
            allowed = f"be <= {self.high}"
        elif self.high is None:
            allowed = f"be >= {self.low}"
        else:
            allowed = f"lie in [{self.low}, {self.high}]"
        raise ValueError(f"{where} must {allowed} ({self.why}), got {value}")


MAX_SAMPLES = 2**16
Seed = Annotated[int, Bounds(0, 2**32 - 1, "numpy's seed range")]
SampleCount = Annotated[
    int,
    Bounds(
        None,
        MAX_SAMPLES,
        "samples per problem: every problem is sampled that many times; pass@k papers stop at k = 1024",
    ),
]


def require(condition: bool, field: str, message: str) -> None:
    """Raise ``SettingError(field, message)`` unless ``condition`` holds."""
    if not condition:
        raise SettingError(field, message)


def setting(default: Any = None, help: str = "", *, factory: Any = None) -> Any:
    """A settings field with its default (or ``factory``) and a help text (``python -m rlvr_lib methods`` prints it)."""
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={"help": help})
    return dataclasses.field(default=default, metadata={"help": help})


def require_at_least(cfg: Any, low: float, *names: str, strict: bool = False) -> None:
    """Each field in ``names`` must be >= ``low`` (> ``low`` when ``strict``; None passes); raises ``SettingError``."""
    for name in names:
        value = getattr(cfg, name)
        if value is not None:
            require(
                value > low if strict else value >= low, name, f"must be {'>' if strict else '>='} {low}, got {value}"
            )


def require_between(cfg: Any, name: str, low: float, high: float, *, low_open: bool = False) -> None:
    """Field ``name`` must lie in [low, high] ((low, high] when ``low_open``)."""
    value = getattr(cfg, name)
    inside = (low < value if low_open else low <= value) and value <= high
    require(inside, name, f"must lie in {'(' if low_open else '['}{low}, {high}], got {value}")


def choices(hint: Any) -> tuple[Any, ...] | None:
    """The allowed values of a ``Literal[...]`` annotation (also inside ``X | None``), else None."""
    if typing.get_origin(hint) is Literal:
        return typing.get_args(hint)
    if _is_union(hint):
        for arm in typing.get_args(hint):
            if typing.get_origin(arm) is Literal:
                return typing.get_args(arm)
    return None


def field_help(cls: type) -> dict[str, str]:
    """``{field: help text}`` from ``field(metadata={"help": ...})`` of a settings dataclass."""
    return {f.name: f.metadata.get("help", "") for f in dataclasses.fields(cls)}


def build(cls: type, values: Mapping[str, Any] | None, path: str) -> Any:
    """An instance of dataclass ``cls`` from ``values``, every field type-checked; errors name ``path.field``."""
    if values is None:
        values = {}
    if not isinstance(values, Mapping):
        raise ValueError(f"{path} must be a mapping of settings, got {_describe(values)}")
    check_keys(values, path)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        hints = "; ".join(f"'{_join(path, k)}'{hint}" for k in unknown if (hint := did_you_mean(k, fields)))
        raise ValueError(
            f"unknown key(s) {[_join(path, k) for k in unknown]}; valid: {sorted(fields)}"
            + (f"; {hints}" if hints else "")
        )
    hints = typing.get_type_hints(cls, include_extras=True)
    checked = {key: check_value(value, hints[key], _join(path, key)) for key, value in values.items()}
    try:
        return cls(**checked)
    except SettingError as err:
        raise ValueError(f"{_join(path, err.field)} {err.message}") from None


def check_value(value: Any, hint: Any, where: str) -> Any:
    """``value`` checked (and normalised: int -> float, list -> tuple) against annotation ``hint``."""
    if hint is Any:
        return value
    if typing.get_origin(hint) is Annotated:
        base, *extras = typing.get_args(hint)
        value = check_value(value, base, where)
        for extra in extras:
            if isinstance(extra, Bounds):
                extra.check(value, where)
        return value
    if dataclasses.is_dataclass(hint):
        return build(hint, value, where)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if _is_union(hint):
        if value is None:
            if type(None) in args:
                return None
            raise ValueError(f"{where} must not be null")
        errors = []
        for arm in (a for a in args if a is not type(None)):
            try:
                return check_value(value, arm, where)
            except ValueError as err:
                errors.append(str(err))
        raise ValueError(errors[0] if len(errors) == 1 else f"{where}: " + "; or ".join(errors))
    if origin is Literal:
        if any(type(value) is type(a) and value == a for a in args):
            return value
        raise ValueError(f"{where} must be one of {list(args)}, got {_describe(value)}")
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise ValueError(f"{where} must be true or false, got {_describe(value)}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ValueError(f"{where} must be an integer, got {_describe(value)}")
    if hint is float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ValueError(f"{where} must be a number, got {_describe(value)}")
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the float range
            number = math.inf
        if not math.isfinite(number):
            raise ValueError(
                f"{where} must be a finite number, got {value!r} (YAML reads .inf, .nan and numbers beyond 1.8e308 "
                "as not finite)"
            )
        return number
    if hint is str:
        if isinstance(value, str):
            return value
        raise ValueError(f"{where} must be a string, got {_describe(value)}")
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{where} must be a list, got {_describe(value)}")
        item = args[0] if args else Any
        items = [check_value(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ValueError(f"{where} must be a mapping, got {_describe(value)}")
        check_keys(value, where)
        item = args[1] if len(args) == 2 else Any
        return {k: check_value(v, item, _join(where, str(k))) for k, v in value.items()}
    raise TypeError(f"{where}: unsupported annotation {hint!r} (rlvr_lib.settings.schema.check_value)")


def check_keys(values: Mapping[Any, Any], where: str) -> None:
    """Every key of ``values`` must be a string: YAML reads unquoted ``123`` or ``no`` as a number or boolean."""
    for key in values:
        if not isinstance(key, str):
            kind = "boolean" if isinstance(key, bool) else "number" if isinstance(key, (int, float)) else "value"
            raise ValueError(
                f"{_join(where, str(key))}: YAML read this key as the {kind} {key!r}, not a name (an unquoted "
                "number or yes/no/on/off/true/false is read so): write the key in quotes"
            )


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (Union, types.UnionType)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"
