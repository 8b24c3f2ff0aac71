"""Where each result came from: its origin record, DVC's content hashes, and the declared result-neutral changes.

- **Origin record.** The train stage writes ``reports/training/<run>/seed<N>/origin.json`` and the eval stage
  ``reports/eval/<run>/seed<N>/origin.json``: the stage, the git commit it ran at, the content hash of every input
  its dvc.yaml entry names (code, data, base policy; the hash DVC records in dvc.lock, ``dvc_md5``), the params
  values it read, a digest of its resolved settings, and where it ran (CPU model, cores, lanes, threads).
- **Current lineage.** A result is current when every code file its origin names still has the recorded hash, or a
  hash declared equivalent to it by a result-neutral change (below). The report stages refuse any other
  (``origin_differences``; ``rlvr_lib.papers.framework.results``).
- **Result-neutral changes** (``NEUTRAL_FILE``, written by ``python -m rlvr_lib.pipeline.lineage refresh`` once the
  golden runs, ``rlvr_lib.pipeline.golden``, are unchanged): for each code path, the hashes it had before and after a
  change that leaves every golden run byte for byte as it was.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from rlvr_lib.files.atomic import write_json_atomic
from rlvr_lib.files.readers import read_json

ORIGIN_FILE = "origin.json"
NEUTRAL_FILE = Path("pipelines/neutral_changes.yaml")
LANES_VARIABLE = "RLVR_LANES"  # set by the lane driver: how many stages ran side by side on the machine
COMMIT_VARIABLE = "RLVR_COMMIT"
MACHINE_VARIABLE = "RLVR_MACHINE"  # optional: a name for the machine kind (e.g. "64-core host"), else the CPU model
DVCIGNORE = Path(".dvcignore")


def _file_md5(path: Path) -> str:
    h = hashlib.md5()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def ignore_patterns(path: Path = DVCIGNORE) -> tuple[str, ...]:
    """The patterns of ``.dvcignore`` (gitignore syntax: a trailing ``/`` matches folders only; a pattern without
    ``/`` matches a name anywhere, one with ``/`` the path from the repository root)."""
    if not path.is_file():
        return ()
    lines = (line.strip() for line in path.read_text().splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def ignored(relpath: str, is_dir: bool, patterns: tuple[str, ...]) -> bool:
    """Whether ``.dvcignore``'s ``patterns`` leave ``relpath`` (from the repository root) out, as DVC does."""
    for pattern in patterns:
        if pattern.endswith("/") and not is_dir:
            continue
        pattern = pattern.rstrip("/")
        if "/" in pattern:
            if fnmatch.fnmatchcase(relpath, pattern.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(relpath.rsplit("/", 1)[-1], pattern):
            return True
    return False


def _dir_entries(folder: Path, root: Path = Path(".")) -> list[tuple[tuple[str, ...], str, int]]:
    """(path parts inside ``folder``, md5, size) of each file DVC hashes in ``folder``, in DVC's order (by the
    '/'-joined path: "a-b/x" before "a/x"); ``root`` is the repository root (its ``.dvcignore`` applies, its patterns
    from there)."""
    patterns = ignore_patterns(root / DVCIGNORE)
    entries = []
    for current, dirs, files in os.walk(folder):
        here = os.path.relpath(current, root).replace(os.sep, "/")
        dirs[:] = [d for d in dirs if not ignored(f"{here}/{d}", True, patterns)]
        for name in files:
            if ignored(f"{here}/{name}", False, patterns):
                continue
            full = Path(current) / name
            entries.append((full.relative_to(folder).parts, _file_md5(full), full.stat().st_size))
    return sorted(entries, key=lambda entry: "/".join(entry[0]))


@dataclass(frozen=True)
class Hash:
    """A path's content hash as DVC records it in dvc.lock: ``md5`` (``<hex>.dir`` for a folder), ``size`` (bytes,
    all files of a folder together) and ``nfiles`` (None for a file)."""

    md5: str
    size: int
    nfiles: int | None = None


def dvc_md5(path: str | Path) -> Hash | None:
    """``path``'s hash as DVC 3 computes it (file: md5 of its bytes; folder: md5 of the JSON list of its files'
    ``{"md5", "relpath"}``, sorted by path, plus ``.dir``); None if the path does not exist."""
    path = Path(path)
    if path.is_file():
        return Hash(_file_md5(path), path.stat().st_size)
    if not path.is_dir():
        return None
    entries = _dir_entries(path)
    listing = [{"md5": md5, "relpath": "/".join(parts)} for parts, md5, _ in entries]
    digest = hashlib.md5(json.dumps(listing, sort_keys=True).encode()).hexdigest()
    return Hash(f"{digest}.dir", sum(size for *_, size in entries), len(entries))


@cache
def _cached_md5(path: str, stamp: tuple) -> str | None:
    found = dvc_md5(path)
    return found.md5 if found else None


def current_md5(path: str | Path) -> str | None:
    """``dvc_md5(path).md5``, cached per path while nothing in it changes (mtimes of the path and its files)."""
    path = Path(path)
    if path.is_dir():
        stamp = tuple(
            (str(p), p.stat().st_mtime_ns, p.stat().st_size)
            for p in sorted(path.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts
        )
    elif path.is_file():
        stamp = (path.stat().st_mtime_ns, path.stat().st_size)
    else:
        return None
    return _cached_md5(str(path), stamp)


def git_commit(root: str | Path = ".") -> str | None:
    """The commit checked out at ``root`` (None outside a git checkout); ``RLVR_COMMIT`` when set, for a copy of a
    checkout run elsewhere (a many-core host's snapshot names the commit it was copied from)."""
    if os.environ.get(COMMIT_VARIABLE):
        return os.environ[COMMIT_VARIABLE]
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """Where a stage runs: the machine kind (``RLVR_MACHINE`` or the CPU model), CPU model, cores, lanes side by
    side (``RLVR_LANES``, 1 outside the lane driver), threads per lane (torch's) and the platform."""
    import torch

    cpu = _cpu_model()
    return {
        "kind": os.environ.get(MACHINE_VARIABLE) or cpu,
        "cpu": cpu,
        "cores": os.cpu_count(),
        "lanes": int(os.environ.get(LANES_VARIABLE, "1")),
        "threads": torch.get_num_threads(),
        "platform": platform.platform(),
        "torch": torch.__version__,
    }


def settings_digest(settings: Mapping[str, Any]) -> str:
    """sha256 of ``settings`` as canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()


def origin_record(
    stage: str, deps: Iterable[str], params: Mapping[str, Any], settings: Mapping[str, Any]
) -> dict[str, Any]:
    """What made a result: ``stage`` (``<dvc.yaml>:<name>``), the commit, each dependency's ``dvc_md5`` (None if
    absent), the params values (key -> value) and the digest of the resolved ``settings``, and ``machine()``."""
    return {
        "stage": stage,
        "commit": git_commit(),
        "deps": {path: current_md5(path) for path in deps},
        "params": dict(params),
        "settings": settings_digest(settings),
        "machine": machine(),
    }


def write_origin(folder: Path, record: Mapping[str, Any]) -> Path:
    """``folder/origin.json`` (atomically)."""
    path = folder / ORIGIN_FILE
    write_json_atomic(path, dict(record))
    return path


def read_origin(folder: Path) -> dict[str, Any] | None:
    """``folder/origin.json``, or None if the result has none (made before origin records)."""
    path = folder / ORIGIN_FILE
    return read_json(path, dict) if path.is_file() else None


# ----------------------------------------------------------------------------- result-neutral changes
def read_neutral(path: Path = NEUTRAL_FILE) -> list[dict[str, Any]]:
    """The declared result-neutral changes, oldest first (none when the file is absent); ValueError naming the file
    and entry when one is malformed."""
    if not path.is_file():
        return []
    entries = yaml.safe_load(path.read_text()) or []
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected a list of changes, got {type(entries).__name__}")
    for i, entry in enumerate(entries):
        missing = {"date", "why", "golden", "deps"} - set(entry or {})
        if missing:
            raise ValueError(f"{path}: change {i + 1} lacks {', '.join(sorted(missing))}")
        for dep, pair in entry["deps"].items():
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(h, str) for h in pair)):
                raise ValueError(f"{path}: change {i + 1}, deps.{dep}: expected [old md5, new md5], got {pair!r}")
    return entries


def equivalent_hashes(entries: list[dict[str, Any]]) -> dict[str, list[set[str]]]:
    """Per code path, its classes of hashes declared result-neutral to each other (chains joined)."""
    classes: dict[str, list[set[str]]] = {}
    for entry in entries:
        for dep, (old, new) in entry["deps"].items():
            groups = classes.setdefault(dep, [])
            joined = {old, new}.union(*[g for g in groups if old in g or new in g])
            groups[:] = [g for g in groups if not (old in g or new in g)] + [joined]
    return classes


def same_result(dep: str, recorded: str | None, current: str | None, classes: dict[str, list[set[str]]]) -> bool:
    """Whether ``dep`` at hash ``current`` makes the results it made at ``recorded`` (equal, or declared neutral)."""
    if recorded == current:
        return True
    return any(recorded in g and current in g for g in classes.get(dep, []))


def is_code(path: str) -> bool:
    """A dependency that is source in git (code, notebooks) rather than another stage's output."""
    return path.startswith(("rlvr_lib/", "notebooks/"))


def origin_differences(folder: Path, neutral: list[dict[str, Any]] | None = None) -> list[str] | None:
    """The code files whose hash differs from what ``folder``'s origin record holds (not declared result-neutral),
    each as ``"<path>: made with <md5>, now <md5>"``; [] when current; None when ``folder`` has no origin record."""
    record = read_origin(folder)
    if record is None:
        return None
    classes = equivalent_hashes(read_neutral() if neutral is None else neutral)
    out = []
    for dep, recorded in record["deps"].items():
        if not is_code(dep):
            continue
        now = current_md5(dep)
        if not same_result(dep, recorded, now, classes):
            out.append(f"{dep}: made with {recorded}, now {now or 'absent'}")
    return out


class StaleResult(ValueError):
    """A result whose origin record names code that has changed since (and no result-neutral declaration)."""


def check_origins(run: str, folders: Mapping[int, Path], neutral: list[dict[str, Any]] | None = None) -> int:
    """Raise StaleResult naming the run, seed and changed files of the first of ``folders`` ({seed: result folder})
    made by other code than today's; returns how many carry no origin record (made before origin records)."""
    neutral = read_neutral() if neutral is None else neutral
    unrecorded = 0
    for seed, folder in folders.items():
        changed = origin_differences(Path(folder), neutral)
        if changed is None:
            unrecorded += 1
        elif changed:
            raise StaleResult(
                f"run '{run}' seed {seed} ({folder}) was made by other code than today's: {'; '.join(changed)}. "
                "Retrain it (make repro), or if the change leaves the golden runs as they were, declare it "
                "result-neutral: python -m rlvr_lib.pipeline.lineage refresh --why '...'"
            )
    return unrecorded


# ----------------------------------------------------------------------------- the code the golden runs were made with
CODE_ROOTS = ("rlvr_lib", "notebooks")


def code_files(root: Path = Path("."), roots: tuple[str, ...] = CODE_ROOTS) -> dict[str, str]:
    """{path: md5} of every file under ``roots`` (``.dvcignore``'s patterns applied), paths from ``root``: enough to
    rebuild the ``dvc_md5`` any code path had then (``hash_from_files``)."""
    out = {}
    for top in roots:
        for parts, md5, _ in _dir_entries(root / top, root):
            out["/".join((top, *parts))] = md5
    return dict(sorted(out.items()))


def hash_from_files(files: Mapping[str, str], path: str) -> str | None:
    """The ``dvc_md5`` of ``path`` (file or folder) in the tree ``files`` ({path: md5}) describes; None if absent."""
    if path in files:
        return files[path]
    prefix = path.rstrip("/") + "/"
    inside = sorted((tuple(p[len(prefix) :].split("/")), md5) for p, md5 in files.items() if p.startswith(prefix))
    if not inside:
        return None
    listing = [{"md5": md5, "relpath": "/".join(parts)} for parts, md5 in inside]
    return hashlib.md5(json.dumps(listing, sort_keys=True).encode()).hexdigest() + ".dir"
