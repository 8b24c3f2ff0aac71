"""Atomic file writes: a temp file beside the target, renamed over it, so no reader sees a half-written file."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
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


def replace_dir(new: str | os.PathLike, target: str | os.PathLike) -> None:
    """Put folder ``new`` at ``target``, replacing what was there; a reader sees the old or the new folder.

    The old folder is renamed aside first and removed only once ``new`` is in place (two renames on one file
    system), so an interruption never leaves ``target`` half-written.
    """
    new, target = Path(new), Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(new, target)
    shutil.rmtree(old, ignore_errors=True)


def publish(outputs: dict[str | os.PathLike, str | os.PathLike]) -> None:
    """Move each finished ``{staged path: target}`` into place (folders by ``replace_dir``, files by rename).

    Called once a stage has produced all its outputs, so a failed or interrupted stage leaves the previous
    outputs as they were.
    """
    for staged, target in outputs.items():
        staged, target = Path(staged), Path(target)
        if staged.is_dir():
            replace_dir(staged, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, target)


@contextlib.contextmanager
def staging_dir(near: str | os.PathLike, name: str):
    """A fresh folder ``<near>/.staging-<name>`` for a stage's outputs, removed when the block ends."""
    folder = Path(near) / f".staging-{name}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
