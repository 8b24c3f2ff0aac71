#!/usr/bin/env python
"""Bring a lent host's DVC results home: the lock entries of the stages it ran, and their committed outputs.

benchmarks/host_pairs.sh packs the host's reports/, dvc.lock and pipelines/*/dvc.lock (results.tar.xz.NN). For each
stage whose host entry differs from ours:

- a base or data stage of the root dvc.lock (data, base_model@N, filter_data@N, eval_base@N) is taken only if every
  cached output (data/, models/) has the hash our entry records: the host then used our base policies and data, and
  the lineage holds. Any other hash stops the merge, with nothing written: our pairs were trained from other bytes.
  With ``--adopt-base`` (the first call of a regeneration, whose host built the data and base policies itself) the
  host's entries are taken whatever our hashes, with their cached outputs (data/generated, models/base/seed<N>,
  data/filtered/seed<N>, which host_pairs.sh packs): they become this checkout's, and a later call carries them
  (``benchmarks/host_kit.sh state-here``);
- a sampling stage of the root dvc.lock (sample_*) and a pair's stage (pipelines/<run>/dvc.lock) are taken when every
  dependency that a root stage produces (data/generated, models/base/seed<N>, data/filtered/seed<N>) has the hash our
  root dvc.lock records for it (after the merge), and the run is one of params.yaml's (its pipelines/<run>/dvc.yaml
  is here); otherwise the merge stops.

Each taken stage's uncached outputs (under reports/) are copied from the host's tree; its cached ones (runs/) stay
there (``python -m rlvr_lib.pipeline.lineage status`` counts a stage current with those absent). Paper stages are not
taken (they are rerun here).

    python benchmarks/host_merge.py RESULTS [--root .] [--dry-run]   # RESULTS: the call's files, or an unpacked tree
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BASE_KINDS = ("data", "base_model", "filter_data", "eval_base")
PRODUCED = ("data/generated", "models/base/", "data/filtered/")  # what a pair reads that a root stage makes


class MergeRefused(RuntimeError):
    """A host entry whose inputs are not ours: merging it would break the lineage."""


def unpack(results: Path, into: Path) -> Path:
    """The host's tree: ``results`` itself when it holds a dvc.lock, else its results.tar.xz.NN parts unpacked."""
    if (results / "dvc.lock").is_file():
        return results
    parts = sorted(results.glob("results.tar.xz.*"))
    if not parts:
        raise FileNotFoundError(f"{results}: neither a dvc.lock nor results.tar.xz.NN parts")
    data = b"".join(p.read_bytes() for p in parts)
    subprocess.run(["tar", "-xJf", "-", "-C", str(into)], input=data, check=True)
    return into


def stages_of(lock: Path) -> dict:
    """The lock file's entries as DVC reads them (YAML 1.2: a PyYAML reader takes ``1e-05`` for a string, and the
    entry written back would then record a string where params.yaml has a float)."""
    from dvc.utils.serialize import load_yaml

    return (load_yaml(lock) or {}).get("stages") or {} if lock.is_file() else {}


def outs(entry: dict) -> dict[str, str]:
    return {o["path"]: o.get("md5") for o in entry.get("outs", [])}


def cached(path: str) -> bool:
    return not path.startswith("reports/")


def plan(tree: Path, root: Path, adopt_base: bool = False) -> dict[Path, dict[str, dict]]:
    """{our lock path (relative): {stage name: the host's entry}} of every stage to take; MergeRefused otherwise.
    ``adopt_base``: the host's base and data stages are taken whatever our hashes (their cached outputs must be in
    ``tree``), and the pairs are checked against them."""
    ours_root, host_root = stages_of(root / "dvc.lock"), stages_of(tree / "dvc.lock")
    take: dict[Path, dict[str, dict]] = {}
    made = {p: h for e in ours_root.values() for p, h in outs(e).items()}  # what our root stages produced
    for name, entry in host_root.items():
        if entry == ours_root.get(name) or name.split("@")[0] not in BASE_KINDS:
            continue
        if adopt_base:
            missing = [p for p in outs(entry) if cached(p) and not (tree / p).exists()]
            if missing:
                raise MergeRefused(f"dvc.lock:{name}: --adopt-base, but the host's results lack {', '.join(missing)}")
            made.update(outs(entry))
            take.setdefault(Path("dvc.lock"), {})[name] = entry
            continue
        for path, digest in outs(entry).items():
            if cached(path) and digest != outs(ours_root.get(name, {})).get(path):
                raise MergeRefused(
                    f"dvc.lock:{name}: the host's {path} is {digest}, ours "
                    f"{outs(ours_root.get(name, {})).get(path)}: the host did not use our base policies and data; "
                    "carry them (benchmarks/host_kit.sh state) and run again"
                )
        take.setdefault(Path("dvc.lock"), {})[name] = entry
    candidates = [(Path("dvc.lock"), n, e) for n, e in host_root.items() if n.startswith("sample_")]
    for lock in sorted((tree / "pipelines").glob("*/dvc.lock")):
        rel = lock.relative_to(tree)
        candidates += [(rel, n, e) for n, e in stages_of(lock).items()]
    for rel, name, entry in candidates:
        if entry == stages_of(root / rel).get(name):
            continue
        if not (root / rel).with_name("dvc.yaml").is_file():
            raise MergeRefused(f"{rel}:{name}: no {rel.with_name('dvc.yaml')} here (a run params.yaml lacks)")
        for dep in entry.get("deps", []):
            if dep["path"].startswith(PRODUCED) and dep.get("md5") != made.get(dep["path"]):
                raise MergeRefused(
                    f"{rel}:{name}: its input {dep['path']} is {dep.get('md5')}, our dvc.lock records "
                    f"{made.get(dep['path'])}: it was trained from other base policies or data"
                )
        take.setdefault(rel, {})[name] = entry
    return take


def apply(take: dict[Path, dict[str, dict]], tree: Path, root: Path, adopt_base: bool = False) -> list[str]:
    """Write the entries into our lock files and copy their uncached outputs (with ``adopt_base``, the root base and
    data stages' cached outputs too); returns the stage addresses."""
    done = []
    for rel, entries in take.items():
        from dvc.utils.serialize import modify_yaml  # DVC's own writer: the rest of the file as it was

        lock = root / rel
        if not lock.is_file():
            lock.write_text("schema: '2.0'\nstages: {}\n")
        with modify_yaml(lock) as data:
            data.setdefault("stages", {}).update(entries)
        for name, entry in entries.items():
            adopted = adopt_base and rel == Path("dvc.lock") and name.split("@")[0] in BASE_KINDS
            for path in (p for p in outs(entry) if adopted or not cached(p)):
                src, dst = tree / path, root / path
                if not src.exists():
                    raise FileNotFoundError(f"{rel}:{name}: its output {path} is not in the host's results")
                if src.is_dir():
                    shutil.rmtree(dst, ignore_errors=True)
                    shutil.copytree(src, dst)
                else:
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dst)
            done.append(f"{rel.with_name('dvc.yaml')}:{name}")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="the device call's files (results.tar.xz.NN) or an unpacked tree")
    parser.add_argument("--root", type=Path, default=Path("."), help="this checkout (default: .)")
    parser.add_argument("--dry-run", action="store_true", help="say what would be merged, write nothing")
    parser.add_argument(
        "--adopt-base", action="store_true", help="take the host's data and base policies as ours (a regeneration)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        try:
            tree = unpack(args.results, Path(scratch))
            take = plan(tree, args.root, args.adopt_base)
        except (MergeRefused, FileNotFoundError) as err:
            print(f"host_merge refused: {err}", file=sys.stderr)
            return 2
        count = sum(len(v) for v in take.values())
        if args.dry_run:
            print("\n".join(f"{rel}:{name}" for rel, entries in take.items() for name in entries))
            print(f"{count} stages would be merged")
            return 0
        done = apply(take, tree, args.root, args.adopt_base)
    print(f"merged {len(done)} stages' lock entries and outputs; check: python -m rlvr_lib.pipeline.lineage status")
    return 0


if __name__ == "__main__":
    sys.exit(main())
