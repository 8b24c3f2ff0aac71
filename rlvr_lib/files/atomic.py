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


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def publish(outputs: dict[str | os.PathLike, str | os.PathLike]) -> None:
    """Move each finished ``{staged path: target}`` (file or folder) into place: all of them or none.

    Called once a stage has produced all its outputs. Each target is first renamed aside (``.<name>.old``), then
    the staged path renamed over it (two renames on one file system); if any rename fails, the ones done are
    undone in reverse order, so the previous outputs are back as they were and ``outputs`` never disagree
    with each other. The set-aside outputs are removed only once every new one is in place.
    """
    set_aside: list[tuple[Path, Path | None]] = []  # (target, where its previous content went, or None)
    moved: list[tuple[Path, Path]] = []  # (staged, target) moved into place
    try:
        for staged, target in outputs.items():
            staged, target = Path(staged), Path(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            old = target.with_name(f".{target.name}.old")
            _remove(old)
            if target.exists() or target.is_symlink():
                os.replace(target, old)
                set_aside.append((target, old))
            else:
                set_aside.append((target, None))
            os.replace(staged, target)
            moved.append((staged, target))
    except BaseException:
        for staged, target in reversed(moved):
            os.replace(target, staged)
        for target, old in reversed(set_aside):
            if old is not None:
                os.replace(old, target)
        raise
    for _, old in set_aside:
        if old is not None:
            _remove(old)


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
