"""Drop the dvc.lock entries of stages that dvc.yaml no longer defines.

DVC keeps a removed or renamed stage's entry in dvc.lock for good: a run taken out of params.yaml ``methods``
leaves its ``train@<run>-<seed>`` and ``eval@<run>-<seed>`` entries behind. Every ``dvc`` call reads them, and
every stage commit re-reads and rewrites the whole lock in round-trip YAML (about 6 s for the 0.8 MB lock of the
default pipeline on the project's CPU machine), so ``make repro`` prunes them at its end. Whole entries are cut from
the text; every other byte stays as DVC wrote it.

    python -m rlvr_lib.dvc_lock [--lock dvc.lock] [--check]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .atomic import write_atomic

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


def pipeline_stage_names(root: Path) -> set[str]:
    """Every stage ``root/dvc.yaml`` defines, foreach entries expanded (``train@grpo-0``, ...)."""
    from dvc.dvcfile import load_file
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        return set(load_file(repo, str(root / "dvc.yaml")).stages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lock", type=Path, default=Path("dvc.lock"), help="the lock file (dvc.lock)")
    parser.add_argument("--check", action="store_true", help="only list stale entries; exit 1 if there are any")
    args = parser.parse_args(argv)
    if not args.lock.is_file():
        parser.error(f"{args.lock}: no such lock file")
    text = args.lock.read_text()
    pruned, dropped = prune(text, pipeline_stage_names(args.lock.resolve().parent), str(args.lock))
    if not dropped:
        print(f"{args.lock}: no stale entries")
        return 0
    print(f"{args.lock}: {len(dropped)} entries of stages dvc.yaml no longer defines: {', '.join(dropped)}")
    if args.check:
        return 1
    write_atomic(args.lock, pruned)
    print(f"{args.lock}: removed them ({len(text)} -> {len(pruned)} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
