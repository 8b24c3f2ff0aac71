"""The pipeline's lineage: whether each stage's committed outputs are what today's code and params.yaml make.

DVC records, per stage in ``dvc.lock`` and ``pipelines/<run>/dvc.lock``, the hash of every dependency and the value of
every parameter the stage ran with, and the hash of every output it wrote. The code, params.yaml and the uncached
outputs (``reports/``) are in git, so comparing the records with the files says, without running DVC or any stage,
whether a stage is current. ``dvc status`` says the same, but on a clone it also lists every dependency that another
stage produces and DVC caches (``data/``, ``models/``, ``runs/``) as "deleted"; here such a dependency is current
when its recorded hash is the one its producing stage recorded.

A stage is one of:

- ``current``: every dependency, parameter and committed output as recorded (cached outputs may be absent: rebuilt by
  ``make repro`` or pulled, ``README.md``, "Sharing trained models");
- ``stale``: a dependency, a parameter or a committed output differs from the record (each named);
- ``unlocked``: no entry in its dvc.lock (never run under DVC, or run before its dvc.yaml entry changed).

A code change that leaves every golden run byte for byte as it was (``rlvr_lib.pipeline.golden``) is result-neutral:
``refresh`` records it (``rlvr_lib.workspace.lineage.NEUTRAL_FILE``) and brings the lock entries of the stages whose
results the golden runs cover (``REFRESHABLE``) up to date, as ``dvc commit`` would on a machine holding their outputs.
It does so only for a stage whose recorded code is the code the golden references were made with
(``tests/golden/code.json``, or code declared neutral to it): for results of older code the golden runs prove
nothing. Any other stale stage is rerun (``make repro``; ``dvc repro -s -f <stage>`` for one).

    python -m rlvr_lib.pipeline.lineage status [--all]         # one line per stage that is not current, then counts
    python -m rlvr_lib.pipeline.lineage status --summary       # five lines: counts by standing, cause and kind
    python -m rlvr_lib.pipeline.lineage refresh --why "TEXT"   # after `python -m rlvr_lib.pipeline.golden check`
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from rlvr_lib.files.atomic import write_atomic
from rlvr_lib.files.readers import load_yaml_text
from rlvr_lib.workspace.lineage import (
    NEUTRAL_FILE,
    current_md5,
    dvc_md5,
    equivalent_hashes,
    hash_from_files,
    is_code,
    read_neutral,
    same_result,
)

# stages whose results the golden runs make and compare (data, base policy, training, evaluation): a code change
# they prove result-neutral may refresh these stages' lock entries; every other stage is rerun instead
REFRESHABLE = ("data", "base_model", "eval_base", "train", "eval")
GOLDEN_DIR = Path("tests/golden")


@dataclass
class StageLineage:
    """One stage's standing: ``address`` (``<dvc.yaml>:<name>``), ``state`` (current, stale or unlocked), what is
    stale (``reasons``), the stale code dependencies (path -> (recorded md5, current md5)) and the cached outputs
    or produced dependencies absent here (``absent``)."""

    address: str
    dvcfile: Path
    name: str
    state: str
    reasons: list[str] = field(default_factory=list)
    code_changes: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)
    deps: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The stage's name without its foreach item (``train@3`` -> ``train``)."""
        return self.name.split("@")[0]

    @property
    def refreshable(self) -> bool:
        """Stale only in code dependencies, and a stage the golden runs cover."""
        return self.state == "stale" and self.kind in REFRESHABLE and len(self.code_changes) == len(self.reasons)


def _relative(path: str, root: Path) -> str:
    return Path(path).resolve().relative_to(root.resolve()).as_posix()


def _lookup(values: dict, key: str) -> object:
    """The value at dotted ``key`` of ``values`` (``_MISSING`` if absent), as DVC reads a params key."""
    for part in key.split("."):
        if not isinstance(values, dict) or part not in values:
            return _MISSING
        values = values[part]
    return values


_MISSING = object()


def params_changes(recorded: dict | None, current: dict, keys: list[str]) -> list[str]:
    """How the params ``keys`` (all top-level keys of ``current`` when empty) differ from ``recorded``: one
    ``"<key> modified|new|deleted"`` each."""
    recorded = recorded or {}
    out = []
    for key in keys or sorted(set(current) | set(recorded)):
        now, then = _lookup(current, key), recorded.get(key, _MISSING)
        if then is _MISSING:
            out.append(f"{key} new")
        elif now is _MISSING:
            out.append(f"{key} deleted")
        elif now != then:
            out.append(f"{key} modified")
    return out


def _locked_names(lock: Path) -> set[str]:
    if not lock.is_file():
        return set()
    return set((load_yaml_text(lock.read_text()) or {}).get("stages") or {})


def stage_lineages(root: Path = Path(".")) -> list[StageLineage]:
    """Every stage of the pipeline (root dvc.yaml and ``pipelines/*/dvc.yaml``, foreach entries expanded) with its
    standing, in DVC's order."""
    from dvc.dependency.param import ParamsDependency
    from dvc.repo import Repo

    root = root.resolve()
    with Repo(str(root)) as repo:
        stages = list(repo.index.stages)
    produced = {_relative(out.fs_path, root): out.hash_info.value for st in stages for out in st.outs}
    locks: dict[Path, set[str]] = {}
    params_files: dict[str, dict] = {}
    hashes: dict[str, str | None] = {}

    def md5(path: str) -> str | None:
        if path not in hashes:
            hashes[path] = current_md5(root / path)
        return hashes[path]

    out = []
    for st in stages:
        dvcfile = Path(_relative(st.path, root))
        lock = dvcfile.with_name("dvc.lock")
        if lock not in locks:
            locks[lock] = _locked_names(root / lock)
        locked = locks[lock]
        entry = StageLineage(f"{dvcfile}:{st.name}", dvcfile, st.name, "current")
        entry.deps = [_relative(dep.fs_path, root) for dep in st.deps if not isinstance(dep, ParamsDependency)]
        if st.name not in locked:
            entry.state = "unlocked"
            out.append(entry)
            continue
        for dep in st.deps:
            path = _relative(dep.fs_path, root)
            if isinstance(dep, ParamsDependency):
                if path not in params_files:
                    params_files[path] = load_yaml_text((root / path).read_text()) or {}
                changes = params_changes(dep.hash_info.value, params_files[path], list(dep.params))
                entry.reasons += [f"params {path}:{change}" for change in changes]
                continue
            recorded, now = dep.hash_info.value, md5(path)
            if now is None and path in produced and produced[path] == recorded:
                entry.absent.append(path)
            elif now != recorded:
                entry.reasons.append(f"dependency {path}: recorded {recorded}, now {now or 'absent'}")
                if is_code(path):
                    entry.code_changes[path] = (recorded, now)
        for output in st.outs:
            path = _relative(output.fs_path, root)
            recorded, now = output.hash_info.value, md5(path)
            if now is None and output.use_cache:
                entry.absent.append(path)
            elif now != recorded:
                entry.reasons.append(f"output {path}: recorded {recorded}, now {now or 'absent'}")
        entry.state = "stale" if entry.reasons else "current"
        out.append(entry)
    return out


def print_status(lineages: list[StageLineage], show_all: bool, root: Path = Path(".")) -> None:
    for entry in lineages:
        if entry.state != "current" or show_all:
            print(f"{entry.address}: {entry.state}")
            for reason in entry.reasons:
                print(f"    {reason}")
    counts = Counter(e.state for e in lineages)
    absent = sum(bool(e.absent) for e in lineages if e.state == "current")
    refreshable = [e for e in lineages if e.refreshable]
    code = root / GOLDEN_DIR / "code.json"
    sure = len(vouched(refreshable, golden_code(root), read_neutral(root / NEUTRAL_FILE))) if code.is_file() else 0
    print(
        f"{len(lineages)} stages: {counts['current']} current ({absent} of them with cached outputs or produced inputs "
        f"not here), {counts['stale']} stale ({len(refreshable)} only in code the golden runs cover, {sure} of them "
        f"made by the golden references' code: `refresh` can vouch for those), {counts['unlocked']} without a lock "
        "entry"
    )


def cause(reason: str) -> tuple[str, str]:
    """A stale reason's kind (dependency, params, output) and the path or parameter key it names."""
    what, rest = reason.split(" ", 1)
    if what == "params":  # "params params.yaml:train.lr modified"
        return what, rest.split(":", 1)[1].rsplit(" ", 1)[0]
    path = rest.split(": recorded", 1)[0]
    return what, "/".join(path.split("/")[:2]) if what == "output" else path  # outputs by folder: reports/eval


def summary_lines(lineages: list[StageLineage]) -> list[str]:
    """A few lines for ``lineages`` (a clone's hundreds of stages): the counts by standing, the stale stages by what
    changed (each code path, parameter or committed output: how many stages it makes stale), the counts per stage
    kind, and what to run."""
    counts = Counter(e.state for e in lineages)
    absent = sum(bool(e.absent) for e in lineages)
    causes: dict[str, Counter] = {"dependency": Counter(), "params": Counter(), "output": Counter()}
    for entry in lineages:
        for what, name in {cause(reason) for reason in entry.reasons}:
            causes[what][name] += 1
    kinds: dict[str, Counter] = {}
    for entry in lineages:  # the paper stages together, the sampling studies together
        kinds.setdefault(
            entry.kind.split("_")[0] if entry.kind.startswith(("paper_", "sample_")) else entry.kind, Counter()
        )[entry.state] += 1

    def top(counter: Counter) -> str:
        shown = ", ".join(f"{name} {n}" for name, n in counter.most_common(6))
        return shown + (f", {len(counter) - 6} more" if len(counter) > 6 else "") if counter else "none"

    return [
        f"{len(lineages)} stages: {counts['current']} current, {counts['stale']} stale, {counts['unlocked']} without a "
        f"lock entry; {absent} with cached outputs or produced inputs not here (data/, models/, runs/: `make repro` "
        "rebuilds them, `dvc pull` fetches them from a remote)",
        f"stale by changed dependency (stages): {top(causes['dependency'])}",
        f"stale by changed parameter: {top(causes['params'])}; by changed committed output: {top(causes['output'])}",
        "by kind: "
        + "; ".join(
            f"{k} {sum(c.values())} ({', '.join(f'{n} {state}' for state, n in sorted(c.items()))})"
            for k, c in sorted(kinds.items(), key=lambda kc: -sum(kc[1].values()))
        ),
        "to run: `make repro DRY=1` (`PAPER=<paper>` for one) lists what `make repro` would run, with its time; "
        "`python -m rlvr_lib.pipeline.lineage status` lists each stage that is not current, with what changed",
    ]


def golden_code(root: Path) -> dict[str, str]:
    """{path: md5} of the code the golden references were made with (``tests/golden/code.json``)."""
    path = root / GOLDEN_DIR / "code.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: missing; make the golden references (python -m rlvr_lib.pipeline.golden write)"
        )
    return json.loads(path.read_text())


def vouched(lineages: list[StageLineage], code: dict[str, str], neutral: list[dict]) -> list[StageLineage]:
    """The refreshable stages the golden runs vouch for: each changed code path's recorded hash is the one the golden
    references were made with (or declared result-neutral to it). The golden runs then prove that the recorded code
    and today's make the same results; for a stage made by older code they prove nothing, and it is retrained."""
    classes = equivalent_hashes(neutral)
    return [
        e
        for e in lineages
        if e.refreshable
        and all(
            same_result(path, old, hash_from_files(code, path), classes) for path, (old, _) in e.code_changes.items()
        )
    ]


def golden_digest(folder: Path = GOLDEN_DIR) -> str | None:
    """``dvc_md5`` of the golden runs' references: the results a neutral change was checked against."""
    found = dvc_md5(folder)
    return found.md5 if found else None


def refresh_locks(root: Path, lineages: list[StageLineage]) -> int:
    """Rewrite the recorded hash (md5, size, nfiles) of each changed code dependency of every refreshable stage,
    lock by lock, as DVC writes them; returns the entries rewritten."""
    from dvc.utils.serialize import modify_yaml

    by_lock: dict[Path, list[StageLineage]] = {}
    for entry in lineages:
        if entry.refreshable:  # callers pass the vouched ones (``vouched``)
            by_lock.setdefault(entry.dvcfile.with_name("dvc.lock"), []).append(entry)
    for lock, entries in by_lock.items():
        with modify_yaml(root / lock) as data:
            for entry in entries:
                for dep in data["stages"][entry.name]["deps"]:
                    if dep["path"] in entry.code_changes:
                        now = dvc_md5(root / dep["path"])
                        dep["md5"], dep["size"] = now.md5, now.size
                        if now.nfiles is not None:
                            dep["nfiles"] = now.nfiles
    return sum(len(v) for v in by_lock.values())


def declare_neutral(root: Path, lineages: list[StageLineage], why: str) -> dict[str, list[str]]:
    """Append the code changes of the refreshable stages to ``NEUTRAL_FILE``, with ``why``, the date and the golden
    references' digest; returns them (path -> [old md5, new md5])."""
    changes: dict[str, list[str]] = {}
    for entry in lineages:
        if entry.refreshable:
            for path, (old, new) in entry.code_changes.items():
                if changes.setdefault(path, [old, new]) != [old, new]:
                    raise ValueError(
                        f"{path}: the lock files record more than one earlier hash ({changes[path][0]}, {old})"
                    )
    if not changes:
        return changes
    path = root / NEUTRAL_FILE
    entries = read_neutral(path)
    entries.append(
        {
            "date": datetime.date.today().isoformat(),
            "why": why,
            "golden": golden_digest(root / GOLDEN_DIR),
            "deps": changes,
        }
    )
    header = (
        "# Result-neutral code changes: each left every golden run (tests/golden/, rlvr_lib.pipeline.golden) byte for\n"
        "# byte as it was. Written by `python -m rlvr_lib.pipeline.lineage refresh`; read by the report stages\n"
        "# (rlvr_lib.workspace.lineage): a result made at a code path's old hash counts as made at the new one.\n"
    )
    write_atomic(path, header + yaml.safe_dump(entries, sort_keys=False, width=10**6))
    return changes


def refresh(root: Path, why: str) -> int:
    """Check the golden runs (``python -m rlvr_lib.pipeline.golden check``), then declare the refreshable stages'
    code changes result-neutral and rewrite their lock entries; 1 if the golden runs changed."""
    lineages = stage_lineages(root)
    refreshable = [e for e in lineages if e.refreshable]
    chosen = vouched(refreshable, golden_code(root), read_neutral(root / NEUTRAL_FILE))
    if len(chosen) < len(refreshable):
        print(
            f"{len(refreshable) - len(chosen)} stages stale only in code were made by other code than the golden "
            "references' (tests/golden/code.json): the golden runs cannot vouch for them; retrain them (make repro)"
        )
    if not chosen:
        print("no stage to refresh")
        return 0
    golden = subprocess.run([sys.executable, "-m", "rlvr_lib.pipeline.golden", "check"], cwd=root)
    if golden.returncode:
        print(
            "refresh refused: the golden runs changed, so the change is not result-neutral; retrain what it affects "
            "(make repro), then `python -m rlvr_lib.pipeline.golden write`",
            file=sys.stderr,
        )
        return 1
    changes = declare_neutral(root, chosen, why)
    print(f"{NEUTRAL_FILE}: declared {', '.join(changes)} result-neutral")
    print(f"{refresh_locks(root, chosen)} lock entries refreshed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.lineage", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    status = sub.add_parser("status", help="every stage that is not current, with what changed")
    status.add_argument("--all", action="store_true", help="list current stages too")
    status.add_argument("--summary", action="store_true", help="counts only: by standing, by what changed, by kind")
    update = sub.add_parser("refresh", help="declare a result-neutral code change and refresh the lock entries")
    update.add_argument("--why", required=True, help="what the change was (recorded with it)")
    args = parser.parse_args(argv)
    root = Path(".")
    if args.command == "status":
        lineages = stage_lineages(root)
        if args.summary:
            print("\n".join(summary_lines(lineages)))
        else:
            print_status(lineages, args.all)
        return int(any(e.state != "current" for e in lineages))
    return refresh(root, args.why)


if __name__ == "__main__":
    sys.exit(main())
