"""Training checkpoints that are complete or invisible, and a full disk named as such.

A checkpoint is written into ``<run dir>/.saving/checkpoint-N`` (transformers' files, then the method state and
rollout buffer), sealed with ``checkpoint_complete.json`` (the size and sha256 of every file in it) and only then
renamed to ``<run dir>/checkpoint-N``: a save cut short by a kill, an error or a full disk leaves no
``checkpoint-N``. On resume, ``last_complete_checkpoint`` checks each folder against its seal (a copy, a hand edit
or a disk fault may have broken it: a file missing, truncated, or damaged in place with its size unchanged), then
loads each of its files as the trainer will (safetensors, torch, JSON); it removes the ones that fail, naming the
file, and returns the newest that passes (None: training starts afresh).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from rlvr_lib.files.atomic import write_json_atomic

SAVING_DIR = ".saving"
SEAL_FILE = "checkpoint_complete.json"
CHECKPOINT_NAME = re.compile(r"^checkpoint-(\d+)$")  # transformers' PREFIX_CHECKPOINT_DIR-<step>
DISK_FULL_FREE_BYTES = 64 * 2**20  # a failed write with less than this left on the device is a full disk


def _files(folder: Path) -> dict[str, int]:
    return {
        str(p.relative_to(folder)): p.stat().st_size
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != SEAL_FILE
    }


def sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def seal_and_publish(staged: str | os.PathLike, target: str | os.PathLike) -> None:
    """Write ``staged``'s seal (every file's size and sha256), then rename it to ``target``."""
    staged, target = Path(staged), Path(target)
    seal = {name: {"size": size, "sha256": sha256(staged / name)} for name, size in _files(staged).items()}
    write_json_atomic(staged / SEAL_FILE, seal)
    if target.exists():  # a checkpoint of this step from an earlier attempt: the new one replaces it
        shutil.rmtree(target)
    os.replace(staged, target)


def load_problem(path: Path) -> str | None:
    """Why ``path`` does not load as the trainer loads it (by its suffix: safetensors, torch, JSON), or None."""
    try:
        if path.suffix == ".safetensors":
            from safetensors.torch import load_file

            load_file(path, device="cpu")
        elif path.suffix in (".pt", ".pth", ".bin"):
            import torch

            torch.load(path, map_location="cpu", weights_only=False)
        elif path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
    except Exception as err:  # noqa: BLE001 - any failure to load is the file's problem, named with its cause
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return f"{path.name} does not load ({type(err).__name__}: {first[:200]})"
    return None


def checkpoint_problem(folder: str | os.PathLike, *, load: bool = True) -> str | None:
    """Why ``folder`` is not a usable checkpoint (no or unreadable seal; a file missing, of another size or with
    other content than when sealed; with ``load``, a file that does not load), or None when it is."""
    folder = Path(folder)
    try:
        sealed = json.loads((folder / SEAL_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"no {SEAL_FILE}: its save did not finish"
    except (OSError, ValueError) as err:
        return f"unreadable {SEAL_FILE} ({err})"
    if not isinstance(sealed, dict):
        return f"{SEAL_FILE} is not a JSON object"
    present = _files(folder)
    for name, entry in sealed.items():
        size, digest = (entry.get("size"), entry.get("sha256")) if isinstance(entry, dict) else (entry, None)
        if name not in present:
            return f"{name} is missing"
        if present[name] != size:
            return f"{name} has {present[name]} bytes, {size} when saved (truncated or overwritten)"
        if digest is not None and sha256(folder / name) != digest:
            return f"{name} has other content than when saved (sha256 differs: damaged in place)"
    if load:
        for name in sealed:
            problem = load_problem(folder / name)
            if problem:
                return problem
    return None


def last_complete_checkpoint(run_dir: str | os.PathLike, *, remove_broken: bool = True) -> str | None:
    """The newest complete ``checkpoint-N`` of ``run_dir`` (None if none). Broken ones newer than it, and an
    unfinished save in ``.saving``, are removed (when ``remove_broken``: the main process) with a message naming
    each and what happens instead."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        return None
    if remove_broken:
        shutil.rmtree(run_dir / SAVING_DIR, ignore_errors=True)
    found = sorted(
        (int(m.group(1)), p) for p in run_dir.iterdir() if p.is_dir() and (m := CHECKPOINT_NAME.match(p.name))
    )
    broken = []
    for _, folder in reversed(found):
        problem = checkpoint_problem(folder)
        if problem is None:
            chosen = str(folder)
            break
        broken.append((folder, problem))
    else:
        chosen = None
    if remove_broken:
        for folder, problem in broken:
            instead = f"resuming from {chosen}" if chosen else "no complete checkpoint left: starting afresh"
            print(f"checkpoint {folder} cannot be resumed ({problem}): removed it; {instead}")
            shutil.rmtree(folder, ignore_errors=True)
    return chosen


def is_disk_full(err: BaseException, folder: str | os.PathLike) -> bool:
    """Whether ``err``, raised while writing into ``folder``, comes from a full device: errno ENOSPC/EDQUOT, or
    any error (e.g. torch's ``inline_container.cc ... unexpected pos``, which drops the errno) while the device
    has less than ``DISK_FULL_FREE_BYTES`` left."""
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return free_bytes(folder) < DISK_FULL_FREE_BYTES


def free_bytes(folder: str | os.PathLike) -> int:
    """Bytes free on the device of ``folder`` (or of its nearest existing parent)."""
    path = Path(folder).absolute()
    while not path.exists():
        path = path.parent
    return shutil.disk_usage(path).free


@contextlib.contextmanager
def naming_full_disk(folder: str | os.PathLike, what: str):
    """Re-raise an error of the block that comes from a full device as OSError(ENOSPC) naming ``folder`` and
    ``what`` was being written; other errors pass unchanged."""
    try:
        yield
    except Exception as err:
        if not is_disk_full(err, folder):
            raise
        raise OSError(
            errno.ENOSPC,
            f"No space left on device while writing {what} to {folder} "
            f"({free_bytes(folder)} bytes free; {type(err).__name__}: {err}): free space there and rerun",
        ) from err
