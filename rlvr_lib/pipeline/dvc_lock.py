"""Drop the dvc.lock entries of stages that dvc.yaml no longer defines.

DVC keeps a removed or renamed stage's entry in dvc.lock for good: a seed taken out of params.yaml leaves its
``base_model@<N>``, ``eval_base@<N>`` and ``filter_data@<N>`` entries in the root dvc.lock and its ``train@<N>`` and
``eval@<N>`` entries in ``pipelines/<run>/dvc.lock`` behind (a removed run's folder goes with its lock:
``rlvr_lib.pipeline.dvc_stages``). Every ``dvc`` call reads them, and every stage commit re-reads and rewrites the whole
lock in round-trip YAML (about 6 s for the 0.8 MB lock of the earlier one-file pipeline on the project's CPU machine),
so ``make repro`` prunes them at its end. Whole entries are cut from the text; every other byte stays as DVC wrote it.

    python -m rlvr_lib.pipeline.dvc_lock [--lock dvc.lock] [--check]     # default: dvc.lock and every
    pipelines/*/dvc.lock
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rlvr_lib.files.atomic import write_atomic

STAGES_KEY = "stages:"


def _entry_name(line: str) -> str | None:
    """The stage name a line opens if it is a key of the lock's ``stages`` mapping (two-space indent), else None."""
    if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":"):
        return line.strip()[:-1].strip("'\"")
    return None


def prune(text: str, stage_names: set[str], path: str = "dvc.lock") -> tuple[str, list[str]]:
    """``text`` (a dvc.lock) without the entries of stages not in ``stage_names``, and the names dropped, in order.

    Raises ValueError naming ``path`` if the text has no top-level ``stages:`` mapping."""
    lines = text.splitlines(keepends=True)
    if not any(line.rstrip() == STAGES_KEY for line in lines):
        raise ValueError(f"{path}: no top-level '{STAGES_KEY}' mapping; is it a DVC lock file?")
    kept, dropped, keep, in_stages = [], [], True, False
    for line in lines:
        if line.strip() and not line[0].isspace():  # a top-level key (schema, stages) ends the previous entry
            in_stages, keep = line.rstrip() == STAGES_KEY, True
        elif in_stages and (name := _entry_name(line)) is not None:
            keep = name in stage_names
            if not keep:
                dropped.append(name)
        if keep:
            kept.append(line)
    return "".join(kept), dropped


def pipeline_stage_names(dvc_file: Path) -> set[str]:
    """Every stage ``dvc_file`` (a dvc.yaml) defines, foreach entries expanded (``base_model@0``, ``train@0``, ...);
    none when the file is gone."""
    from dvc.dvcfile import load_file
    from dvc.repo import Repo

    if not dvc_file.is_file():
        return set()
    with Repo(str(dvc_file.resolve().parent), uninitialized=True) as repo:
        return set(load_file(repo, str(dvc_file.resolve())).stages)


def lock_files(root: Path) -> list[Path]:
    """The pipeline's lock files: ``dvc.lock`` and ``pipelines/<run>/dvc.lock`` (those that exist)."""
    return [p for p in [root / "dvc.lock", *sorted((root / "pipelines").glob("*/dvc.lock"))] if p.is_file()]


def prune_file(lock: Path, check: bool) -> bool:
    """Report (and unless ``check``, cut) ``lock``'s stale entries; True if it had any."""
    text = lock.read_text()
    pruned, dropped = prune(text, pipeline_stage_names(lock.with_name("dvc.yaml")), str(lock))
    if not dropped:
        print(f"{lock}: no stale entries")
        return False
    print(f"{lock}: {len(dropped)} entries of stages its dvc.yaml no longer defines: {', '.join(dropped)}")
    if not check:
        write_atomic(lock, pruned)
        print(f"{lock}: removed them ({len(text)} -> {len(pruned)} characters)")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lock", type=Path, help="one lock file (default: every lock file of the pipeline)")
    parser.add_argument("--check", action="store_true", help="only list stale entries; exit 1 if there are any")
    args = parser.parse_args(argv)
    if args.lock is not None and not args.lock.is_file():
        parser.error(f"{args.lock}: no such lock file")
    locks = [args.lock] if args.lock is not None else lock_files(Path("."))
    stale = [prune_file(lock, args.check) for lock in locks]
    return 1 if args.check and any(stale) else 0


if __name__ == "__main__":
    raise SystemExit(main())
