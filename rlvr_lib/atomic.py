"""Atomic file writes: a temp file beside the target, renamed over it, so no reader sees a half-written file."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` to ``path`` (parents created, mode 0644); on error the target is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would make the file unreadable to others
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | os.PathLike, payload: Any) -> None:
    write_atomic(path, json.dumps(payload, indent=1) + "\n")


def write_jsonl_atomic(path: str | os.PathLike, rows: list[dict[str, Any]]) -> None:
    write_atomic(path, "".join(json.dumps(r) + "\n" for r in rows))
