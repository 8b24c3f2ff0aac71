"""The one reader of the pipeline's own JSON outputs and model weight files: every error names the file (and the
line and column, or the expected type) and ends with what to do (``hint``, e.g. which stage to rerun)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

JSON_TYPE_NAMES = {dict: "object (a mapping)", list: "array (a list)", str: "string", bool: "true/false"}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return JSON_TYPE_NAMES[bool]
    if isinstance(value, int | float):
        return "number"
    return JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _with_hint(message: str, hint: str) -> str:
    return f"{message}: {hint}" if hint else message


def read_json(path: str | os.PathLike, expect: type[dict] | type[list] = dict, *, hint: str = "") -> Any:
    """The JSON value of ``path``, which must be a JSON ``expect`` (object or array).

    Raises FileNotFoundError when it is missing, ValueError naming ``path`` when it is not UTF-8, not valid JSON
    (with line and column: a truncated file ends in one) or of another type.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(_with_hint(f"{path} not found", hint))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(_with_hint(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})", hint)) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            _with_hint(f"{path}:{err.lineno}:{err.colno}: not valid JSON ({err.msg}; truncated or corrupt?)", hint)
        ) from None
    if not isinstance(value, expect):
        raise ValueError(
            _with_hint(f"{path}: expected a JSON {JSON_TYPE_NAMES[expect]}, got a JSON {_json_type(value)}", hint)
        )
    return value


def check_safetensors(path: str | os.PathLike, *, hint: str = "") -> None:
    """Raise ValueError naming ``path`` unless it is a complete safetensors file (its header is read, not the
    tensors: a truncated or overwritten file fails here)."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="pt"):
            pass
    except (SafetensorError, OSError) as err:
        raise ValueError(_with_hint(f"{path}: not a complete safetensors file ({err})", hint)) from None


def load_yaml_text(text: str) -> Any:
    """``yaml.safe_load(text)``, with libyaml's C parser where PyYAML has it (the same values, about ten times faster:
    the paper stages and ``lineage status`` read hundreds of recorded settings and lock files)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 (a safe loader)
