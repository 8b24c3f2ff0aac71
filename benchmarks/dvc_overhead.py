"""DVC's own time per (run, seed) pair: the earlier one-file layout against the per-run dvc.yaml files.

Two scratch repositories hold this checkout's params.yaml, code and notebooks, and every run x seed pair of its
``methods`` with trivial stage commands (a few ``echo``s writing the stage's outputs), so only DVC's overhead is
timed:

- OLD: one root dvc.yaml whose ``train`` and ``eval`` matrix stages cover every pair (the definition of c00c6ec), and
  one dvc.lock holding every pair's two entries (the size of the committed lock before the layout change);
- NEW: ``pipelines/<run>/dvc.yaml`` per run (``rlvr_lib.pipeline.dvc_stages``) with its own dvc.lock.

Both locks are written up to date in one pass (DVC's own hashing and lock serialisation, in process). Then, alternated
between the layouts and repeated, one pair at a time: ``dvc repro -s <train> <eval>`` on up-to-date stages (nothing
runs) and ``dvc repro -f -s <train> <eval>`` (both commands run and both stages are committed: a fresh pair's DVC
time). Prints the median and range per pair for each layout and the ratio.

    python benchmarks/dvc_overhead.py [--pairs 3] [--repeats 2] [--keep DIR]
    python benchmarks/dvc_overhead.py --runs 2 --pairs 1 --repeats 1    # the cheapest form (a check of the script)

DVC and git are those of the environment the script runs in (``dvc`` beside ``sys.executable``), so it needs no
activated virtual environment. Pairs are timed only where both layouts have them: the earlier layout had one seed
list (the top-level ``seeds``), so a run's own extra seeds (``methods.<run>.seeds``) are left out of the timing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rlvr_lib.pipeline.dvc_stages import run_dvc_file, run_stages  # noqa: E402
from rlvr_lib.settings.config import parse_params, read_yaml  # noqa: E402

COPIED = ("params.yaml", "rlvr_lib", "notebooks")
# the environment's DVC (the script may run as `.venv/bin/python benchmarks/...` without the venv on PATH)
DVC = str(Path(sys.executable).with_name("dvc")) if Path(sys.executable).with_name("dvc").exists() else "dvc"
OLD_TRAIN_DEPS = [  # c00c6ec's train stage
    "notebooks/train.ipynb",
    "rlvr_lib/pipeline/stages.py",
    "rlvr_lib/settings/config.py",
    "data/generated/train.jsonl",
    "data/filtered",
    "models/base",
    "rlvr_lib/methods",
    "rlvr_lib/training/trainer.py",
    "rlvr_lib/training/train.py",
    "rlvr_lib/tasks/rewards.py",
]
OLD_EVAL_DEPS = ["notebooks/eval.ipynb", "rlvr_lib/pipeline/stages.py", "rlvr_lib/settings/config.py", "data/generated"]
OLD_EVAL_DEPS += ["runs/${item.run}/seed${item.seed}", "rlvr_lib/eval", "rlvr_lib/tasks/rewards.py"]


def train_cmd(run: str, seed: str) -> str:
    """Writes every output of a train stage: the model folder, the notebook, metrics and plots."""
    logs = f"reports/training/{run}/seed{seed}"
    return (
        f"mkdir -p runs/{run}/seed{seed} {logs}/plots/metrics reports/notebooks && echo {run} > runs/{run}/seed{seed}/m"
        f" && echo '{{}}' > {logs}/metrics.json && echo '[]' > {logs}/history.json && echo '{{}}' > {logs}/origin.json"
        f" && echo 1 > {logs}/plots/metrics/r"
        f" && echo '{{}}' > reports/notebooks/train_{run}_seed{seed}.ipynb"
    )


def eval_cmd(run: str, seed: str) -> str:
    return (
        f"mkdir -p reports/eval/{run}/seed{seed} reports/metrics/{run} && echo 1 > reports/eval/{run}/seed{seed}/r"
        f" && echo '{{}}' > reports/metrics/{run}/seed{seed}.json"
        f" && echo '{{}}' > reports/notebooks/eval_{run}_seed{seed}.ipynb"
    )


def no_cache(path: str, **extra) -> dict:
    return {path: {"cache": False, "persist": True, **extra}}


def old_dvc_yaml(runs: list[str], seeds: list[int]) -> dict:
    item = "${item.run}", "${item.seed}"
    logs = "reports/training/${item.run}/seed${item.seed}"
    return {
        "stages": {
            "train": {
                "matrix": {"run": runs, "seed": seeds},
                "cmd": train_cmd(*item),
                "deps": OLD_TRAIN_DEPS,
                "params": ["profile", "seed", "train", "methods.${item.run}", "smoke.train"],
                "outs": [
                    {"runs/${item.run}/seed${item.seed}": {"persist": True}},
                    no_cache("reports/notebooks/train_${item.run}_seed${item.seed}.ipynb"),
                ],
                "metrics": [no_cache(f"{logs}/metrics.json")],
                "plots": [no_cache(f"{logs}/plots/metrics", x="step"), no_cache(f"{logs}/history.json", x="step")],
            },
            "eval": {
                "matrix": {"run": runs, "seed": seeds},
                "cmd": eval_cmd(*item),
                "deps": OLD_EVAL_DEPS,
                "params": ["profile", "eval", "smoke.eval"],
                "outs": [
                    no_cache("reports/eval/${item.run}/seed${item.seed}"),
                    no_cache("reports/notebooks/eval_${item.run}_seed${item.seed}.ipynb"),
                ],
                "metrics": [no_cache("reports/metrics/${item.run}/seed${item.seed}.json")],
            },
        }
    }


def sh(cmd: list[str], cwd: Path, stages_run: int | None = None) -> float:
    """Run ``cmd`` in ``cwd``; its wall time in seconds. Raises with its output if it fails or, when ``stages_run``
    is given, if DVC ran another number of stages (an up-to-date pair must run none, a forced one both)."""
    if cmd[0] == "dvc":
        cmd = [DVC, *cmd[1:]]
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    ran = result.stdout.count("Running stage")
    if result.returncode or (stages_run is not None and ran != stages_run):
        raise RuntimeError(
            f"{' '.join(cmd)} in {cwd}: exit {result.returncode}, {ran} stages run (expected {stages_run}):\n"
            f"{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        )
    return took


def scratch_repo(root: Path, seeds: list[int]) -> None:
    """git + DVC repository with the copied code, params and the shared inputs (data, base models, filtered sets)."""
    root.mkdir(parents=True)
    for name in COPIED:
        src = REPO / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, root / name)
    for path, text in {"data/generated/train.jsonl": "{}\n", "data/generated/eval_testbed.jsonl": "{}\n"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    for seed in seeds:
        for folder in (f"models/base/seed{seed}", f"data/filtered/seed{seed}"):
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / "f").write_text(folder)
    sh(["git", "init", "-q"], root)
    sh(["dvc", "init", "-q"], root)
    sh(["dvc", "config", "core.analytics", "false"], root)


def write_outputs_and_locks(root: Path) -> None:
    """Run every stage's command (its outputs appear), then write each dvc.yaml's lock up to date in one pass."""
    from dvc.repo import Repo
    from dvc.stage.serialize import to_lockfile
    from dvc.utils.serialize import dump_yaml

    with Repo(str(root)) as repo, repo.lock:
        locks: dict[str, dict] = {}
        for stage in repo.index.stages:
            subprocess.run(stage.cmd, shell=True, cwd=stage.wdir, check=True)
        for stage in repo.index.stages:
            stage.save()
            stage.commit()
            locks.setdefault(stage.dvcfile._lockfile.path, {}).update(to_lockfile(stage))
        for path, entries in locks.items():
            dump_yaml(path, {"schema": "2.0", "stages": entries})


def build(tmp: Path, n_runs: int | None) -> tuple[Path, Path, list[tuple[str, int]]]:
    raw = read_yaml(REPO / "params.yaml")
    params = parse_params(raw)
    runs, seeds = list(params.runs)[:n_runs], params.all_seeds
    old, new = tmp / "old", tmp / "new"
    scratch_repo(old, seeds)
    (old / "dvc.yaml").write_text(yaml.safe_dump(old_dvc_yaml(runs, params.seeds), sort_keys=False, width=10**6))
    scratch_repo(new, seeds)
    for run in runs:
        stages = run_stages(params, raw, run)
        stages["train"]["do"]["cmd"] = train_cmd(run, "${item}")
        stages["eval"]["do"]["cmd"] = eval_cmd(run, "${item}")
        (new / run_dvc_file(run)).parent.mkdir(parents=True)
        (new / run_dvc_file(run)).write_text(yaml.safe_dump({"stages": stages}, sort_keys=False, width=10**6))
    for root in (old, new):
        write_outputs_and_locks(root)
    # the pairs both layouts define: the earlier one's matrix covers the top-level seeds only
    pairs = [(run, seed) for run in runs for seed in params.runs[run].seeds if seed in params.seeds]
    return old, new, pairs


def pair_targets(layout: str, run: str, seed: int) -> list[str]:
    if layout == "old":
        return [f"train@{run}-{seed}", f"eval@{run}-{seed}"]
    return [f"{run_dvc_file(run)}:{stage}@{seed}" for stage in ("train", "eval")]


def lock_sizes(root: Path) -> str:
    locks = [root / "dvc.lock", *sorted((root / "pipelines").glob("*/dvc.lock"))]
    sizes = [p.stat().st_size for p in locks if p.is_file()]
    return f"{len(sizes)} lock file(s), largest {max(sizes) / 1024:.0f} KB, {sum(sizes) / 1024:.0f} KB in all"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3, help="pairs timed per repeat and layout")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="build the scratch repositories here and keep them")
    parser.add_argument("--runs", type=int, help="only the first N runs of params.yaml (a quick check of the script)")
    args = parser.parse_args(argv)
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="dvc_overhead_"))
    try:
        start = time.perf_counter()
        old, new, pairs = build(tmp, args.runs)
        print(f"built both layouts ({len(pairs)} pairs) in {time.perf_counter() - start:.0f} s")
        print(f"old: {lock_sizes(old)}\nnew: {lock_sizes(new)}")
        step = max(1, len(pairs) // (args.pairs * args.repeats))
        chosen = pairs[::step][: args.pairs * args.repeats]
        times: dict[tuple[str, str], list[float]] = {}
        for r in range(args.repeats):
            for run, seed in chosen[r * args.pairs : (r + 1) * args.pairs]:
                for layout, root in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
                    targets = pair_targets(layout, run, seed)
                    up_to_date = sh(["dvc", "repro", "-s", *targets], root, stages_run=0)
                    fresh = sh(["dvc", "repro", "-f", "-s", *targets], root, stages_run=2)
                    times.setdefault((layout, "up to date"), []).append(up_to_date)
                    times.setdefault((layout, "fresh"), []).append(fresh)
                    print(f"{layout} {run} seed {seed}: up to date {up_to_date:.2f} s, fresh {fresh:.2f} s", flush=True)
        print("\nDVC seconds per (run, seed) pair (train + eval in one `dvc repro -s` call): median [min, max]")
        for kind in ("up to date", "fresh"):
            o, n = times[("old", kind)], times[("new", kind)]
            print(
                f"{kind:>10}: old {statistics.median(o):.2f} [{min(o):.2f}, {max(o):.2f}]"
                f"  new {statistics.median(n):.2f} [{min(n):.2f}, {max(n):.2f}]"
                f"  old/new {statistics.median(o) / statistics.median(n):.1f}x"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
