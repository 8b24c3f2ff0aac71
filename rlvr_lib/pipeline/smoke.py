"""``make smoke``: the whole pipeline at smoke sizes, in minutes, in a scratch copy of the workspace.

The copy holds the committed files of the workspace (``git ls-files``, as they are in the working tree) without
``reports/`` and the dvc.lock files, with a reduced params.yaml:

- ``profile: smoke`` (params.yaml's ``smoke:`` sizes: a 1-layer base policy, 2 training steps, 8 evaluation problems);
- a handful of runs (``SMOKE_RUNS``: one per paper's method on its own training set, and GRPO), each on the training
  seeds ``--seeds`` (default 0 and 1);
- every paper's ``papers.<paper>.runs`` with each run replaced by its stand-in among those runs (same training set,
  same method where there is one), so every paper stage, the summary and the main report run.

Then, in the copy, ``python -m rlvr_lib.pipeline.dvc_stages`` and the lane driver of ``make repro``
(``python -m rlvr_lib.pipeline.repro_lanes``: base policies, (run, seed) pairs, sampling and paper stages in lanes, a
progress line with the ETA per finished unit). Nothing of the workspace is written: its ``reports/``, params.yaml and
dvc.lock files stay as committed. The copy is rebuilt from scratch at each call (a folder is only ever deleted if it
holds the marker file a smoke copy has).

    python -m rlvr_lib.pipeline.smoke [--dir DIR] [--jobs N] [--seeds 0 1] [--runs grpo aer ...]
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

MARKER = ".rlvr_smoke_copy"
# GRPO (the baseline on the full set), each paper's method on the set its paper trains on (ERPO's and TEPO's
# filtered sets), and the methods with state or group statistics (OPEFO's lambda*, AER's alpha): every paper stage
# finds its method's own run, its baselines stand in by GRPO (or the run of its set)
SMOKE_RUNS = ("grpo", "aer", "opefo", "erpo_erpo_data", "tepo_tepo_data")
DEFAULT_SEEDS = (0, 1)


def default_dir() -> Path:
    return Path(tempfile.gettempdir()) / "rlvr-smoke"


def reduced_run(name: str, methods: dict, kept: tuple[str, ...]) -> str:
    """The run of ``kept`` standing for ``name``, among those on its training set (a paper compares runs on one
    set): itself, else one of its method, else the first."""
    if name == "base" or name in kept:
        return name

    def data_and_method(run: str) -> tuple[str, str]:
        entry = methods.get(run) or {}
        return entry.get("train_data", "full"), entry.get("method", run)

    same_set = [r for r in kept if data_and_method(r)[0] == data_and_method(name)[0]]
    if not same_set:
        raise ValueError(f"no run of {list(kept)} trains on {data_and_method(name)[0]!r}, the set of '{name}'")
    return ([r for r in same_set if data_and_method(r) == data_and_method(name)] or same_set)[0]


def reduced_papers(papers: dict, methods: dict, kept: tuple[str, ...]) -> dict:
    """``papers`` with every run replaced by its stand-in among ``kept`` (lists without repeats, but CW-GRPO's
    checkpoint lists keep their length: one run per checkpoint; a sensitivity run, a variant of its paper's method,
    stands only for a kept run of that method, else it is left out; a list's run on a training set no kept run
    trains on is left out, so a list may end empty). AER's pass@k runs and ERPO's perturbed policy likewise."""

    def method(run: str) -> str:
        return (methods.get(run) or {}).get("method", run)

    def fix(value, role: str):
        if not isinstance(value, list):
            return reduced_run(value, methods, kept)
        if role.endswith("checkpoints"):
            return [reduced_run(v, methods, kept) for v in value]
        pairs = []
        for v in value:
            try:
                pairs.append((v, reduced_run(v, methods, kept)))
            except ValueError:  # its training set has no kept run (AER's fig. 2 level sets): left out
                continue
        if role == "sensitivity":
            pairs = [(v, m) for v, m in pairs if method(m) == method(v)]
        return list(dict.fromkeys(m for _, m in pairs))

    out = copy.deepcopy(papers)
    for name, entry in out.items():
        for role, value in entry["runs"].items():
            entry["runs"][role] = fix(value, role)
        if name != "summary":  # a declared alternative is another value of an open choice with runs of its
            entry["alternatives"] = {}  # own; the reduced protocol keeps none (a stand-in would be the run itself)
    if "aer" in out and "pass_at_k" in out["aer"]:
        out["aer"]["pass_at_k"]["runs"] = fix(out["aer"]["pass_at_k"]["runs"], "pass_at_k")
    perturbation = out.get("erpo", {}).get("perturbation") or {}
    if "policy" in perturbation:  # the trained policy ERPO's fig. 1(b) perturbs
        perturbation["policy"] = fix(perturbation["policy"], "perturbation")
    return out


def smoke_params(params: dict, runs: tuple[str, ...] = SMOKE_RUNS, seeds: tuple[int, ...] = DEFAULT_SEEDS) -> dict:
    """params.yaml's mapping reduced to the smoke protocol: the smoke profile, ``runs`` on ``seeds``, the papers
    reading their stand-ins."""
    unknown = [r for r in runs if r not in params["methods"]]
    if unknown:
        raise ValueError(f"--runs: {unknown} not in params.yaml methods")
    out = copy.deepcopy(params)
    out["profile"] = "smoke"
    out["seeds"] = list(seeds)
    if out.get("papers"):
        out["papers"] = reduced_papers(out["papers"], out["methods"], runs)
    out["methods"] = {run: dict(out["methods"][run] or {}) for run in runs}
    for entry in out["methods"].values():  # every run on the smoke seeds
        entry.pop("seeds", None)
    return out


def tracked_files(repo: Path) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, text=True, check=True).stdout
    return [f for f in listed.split("\0") if f]


def copied(rel: str) -> bool:
    """Whether the smoke copy takes ``rel``: not the committed results (rebuilt) nor the dvc.lock files (they record
    the default profile's pipeline, none of whose entries hold at smoke sizes)."""
    return not rel.startswith("reports/") and Path(rel).name != "dvc.lock"


def make_copy(repo: Path, target: Path) -> None:
    """A fresh smoke copy of ``repo`` in ``target`` (deleted first if it is an earlier smoke copy)."""
    if target.exists():
        if not (target / MARKER).is_file():
            raise SystemExit(f"{target} exists and is not a smoke copy (no {MARKER}): choose another --dir")
        shutil.rmtree(target)
    target.mkdir(parents=True)
    (target / MARKER).write_text(f"a scratch copy of {repo} made by `make smoke`; deleted by the next one\n")
    for rel in tracked_files(repo):
        if copied(rel) and (repo / rel).is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repo / rel, target / rel)


def env_for(venv_bin: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1"),
        "DVC_NO_ANALYTICS": "1",
        "TOKENIZERS_PARALLELISM": "false",
        # dvclive needs a commit; a user without a git identity can still run the smoke copy
        "GIT_AUTHOR_NAME": os.environ.get("GIT_AUTHOR_NAME", "rlvr smoke"),
        "GIT_AUTHOR_EMAIL": os.environ.get("GIT_AUTHOR_EMAIL", "smoke@localhost"),
        "GIT_COMMITTER_NAME": os.environ.get("GIT_COMMITTER_NAME", "rlvr smoke"),
        "GIT_COMMITTER_EMAIL": os.environ.get("GIT_COMMITTER_EMAIL", "smoke@localhost"),
    }


def prepare(repo: Path, target: Path, runs: tuple[str, ...], seeds: tuple[int, ...], env: dict[str, str]) -> dict:
    """The smoke copy, its params.yaml reduced, its DVC files regenerated and committed; returns its params."""
    make_copy(repo, target)
    params = smoke_params(yaml.safe_load((repo / "params.yaml").read_text(encoding="utf-8")), runs, seeds)
    (target / "params.yaml").write_text(
        "# the smoke protocol of `make smoke` (rlvr_lib/pipeline/smoke.py), made from the workspace's params.yaml\n"
        + yaml.safe_dump(params, sort_keys=False),
        encoding="utf-8",
    )
    python = str(Path(env["PATH"].split(os.pathsep)[0]) / "python")
    steps = [
        [python, "-m", "rlvr_lib.pipeline.dvc_stages"],  # also deletes the folders of the runs left out
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "smoke copy", "--no-verify"],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, cwd=target, env=env, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"make smoke: {' '.join(cmd)} failed in {target}:\n{done.stdout}{done.stderr}")
    return params


def closing_note(target: Path, seconds: float, params: dict, venv_bin: Path) -> str:
    pairs = len(params["methods"]) * len(params["seeds"])
    minutes, secs = divmod(round(seconds), 60)
    return "\n".join(
        [
            f"make smoke: done in {minutes} min {secs:02d} s ({len(params['methods'])} runs x {len(params['seeds'])} "
            f"seeds = {pairs} (run, seed) pairs at smoke sizes, every paper stage)",
            f"The output lives in the scratch copy {target} (the workspace's reports/ are untouched):",
            f"  {target}/reports/README.md                 the main page: verdicts per paper, then results",
            f"  {target}/reports/papers/<paper>/README.md  each paper's report",
            f"  {target}/reports/notebooks/                the executed stage notebooks (their logs)",
            f"Open it in JupyterLab: cd {target} && {venv_bin}/jupyter lab"
            + (" --allow-root" if hasattr(os, "geteuid") and os.geteuid() == 0 else ""),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.smoke", description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=default_dir(), help=f"the scratch copy (default {default_dir()})")
    parser.add_argument("--jobs", type=int, default=cores, help=f"lanes (default: the cores, {cores})")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(DEFAULT_SEEDS), help="training seeds")
    parser.add_argument("--runs", nargs="+", default=list(SMOKE_RUNS), help="runs of params.yaml methods")
    parser.add_argument("--repo", type=Path, default=Path("."), help="the workspace (default: here)")
    args = parser.parse_args(argv)
    repo, target = args.repo.resolve(), args.dir.resolve()
    if target == repo or repo in target.parents:
        parser.error(f"--dir {target}: choose a folder outside the workspace")
    venv_bin = Path(sys.executable).parent
    env = env_for(venv_bin)
    start = time.monotonic()
    print(f"{time.strftime('%H:%M:%S')} make smoke: copying the workspace to {target} (smoke profile)", flush=True)
    params = prepare(repo, target, tuple(args.runs), tuple(args.seeds), env)
    pairs = len(params["methods"]) * len(params["seeds"])
    print(
        f"{time.strftime('%H:%M:%S')} make smoke: {len(params['methods'])} runs ({', '.join(params['methods'])}) x "
        f"seeds {params['seeds']} = {pairs} pairs, then the sampling, paper and report stages",
        flush=True,
    )
    cmd = [str(venv_bin / "python"), "-m", "rlvr_lib.pipeline.repro_lanes", "--jobs", str(args.jobs)]
    status = subprocess.run(cmd, cwd=target, env=env).returncode
    if status:
        print(f"make smoke stopped (exit {status}); the logs are in {target}/runs/.repro_logs/", file=sys.stderr)
        return status
    print(closing_note(target, time.monotonic() - start, params, venv_bin))
    return 0


if __name__ == "__main__":
    sys.exit(main())
