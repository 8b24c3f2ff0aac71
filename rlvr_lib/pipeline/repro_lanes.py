"""``make repro``'s lane driver: the pipeline's per-seed stages in parallel ``dvc repro -s`` processes, with progress.

1. ``check_params`` and ``data`` (one ``dvc repro -s`` call);
2. per training seed N, ``base_model@N``, ``filter_data@N`` and ``eval_base@N`` in one ``dvc repro -s`` call, as many
   at a time as there are lanes;
3. per (run, seed) pair, its ``train@N`` and ``eval@N`` stages (``pipelines/<run>/dvc.yaml``) in one call, the same
   way, after one in-process ``dvc status`` that skips the pairs already up to date; one line per finished pair:
   pairs done / total, elapsed, and an ETA from the finished pairs' durations;
4. the stages that sample trained models (the testbed's properties, the paper studies of
   ``rlvr_lib.papers.framework.sampling``), one ``dvc repro -s`` call each, the same way;
5. the five paper stages, one call each, the same way (they read only what the steps above wrote);
6. ``dvc repro --allow-missing`` (the summary, which reads the papers' claims, the main report and anything else
   out of date; a stage whose only change is absent data, such as a pair made elsewhere, stays skipped).

Each lane runs with ``--threads`` threads (default 1, so that the lane count never changes a result's bytes: float
reductions depend on the thread count; OMP, MKL, OpenBLAS: torch follows OMP_NUM_THREADS); DVC releases its
repository lock while a stage's command runs, and ``--wait-for-lock`` makes a lane wait for another's commit. A
failed call stops the driver: no new unit starts, the running ones finish, and it exits 1 naming the unit and its
log (``runs/.repro_logs/<unit>.log``).

With ``--paper <name>`` (``make repro PAPER=<name>``) it runs one paper's part of the above: the base policies of
its runs' seeds, the (run, seed) pairs of the runs its ``papers.<name>`` entry names (the summary's: those of every
paper it gathers, whose reports it reads), the sampling studies it reads, its paper stage(s) in lanes, then
``dvc repro --allow-missing paper_<name>`` for the rest.

``make repro DRY=1`` (``python -m rlvr_lib.pipeline.repro_dry``) runs nothing: it lists what each step would run
and the time it would take.

With ``--only RUN:SEED ...`` or ``--pairs-file F`` (a lent host's share, ``benchmarks/host_pairs.sh``) it runs exactly
those pairs, in that order: the data and their seeds' base policies first, then the pairs, then only the sampling
studies ``--studies`` names; no paper stage and no final ``dvc repro``. A pair may be a tuned run's,
``tuned__<arm>:<seed>`` (issue 41's tuned protocol: ``pipelines/tuned__<arm>/dvc.yaml``, ``tune_dvc --tuned``).
``--deadline S`` starts no unit once S seconds have passed (a lease's call limit): what did not start is listed, and
the driver exits 0.

With ``--tuning`` it runs issue 41's tuning runs (``pipelines/tune/``, which it first writes as ``python -m
rlvr_lib.pipeline.tune_dvc`` does): the data and the validation split, the tuning seeds' base policies, each tuning
seed's base policy on the validation split, then one unit per (arm, configuration, tuning seed), its
``train_<k>@<N>`` and ``eval_<k>@<N>``, longest first by the arm's measured pair time (``rlvr_lib.pipeline.budgets``),
then the ``select`` stage (``reports/tuning/selection.json``); no final repro. With ``--pairs-file``, only the
tuning runs it lists (``tune__<arm>__<k>:N``, e.g. those not yet current where the results are merged:
``benchmarks/host_kit.sh todo --tuning``), and no selection.

    python -m rlvr_lib.pipeline.repro_lanes [--jobs N] [--threads T] [--paper NAME] [--deadline S]
    python -m rlvr_lib.pipeline.repro_lanes --pairs-file F [--studies NAME ...] [--deadline S] [--jobs N]
    python -m rlvr_lib.pipeline.repro_lanes --tuning [--pairs-file F] [--deadline S] [--jobs N]
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from rlvr_lib.pipeline.dvc_stages import run_dvc_file
from rlvr_lib.pipeline.lineage import stage_lineages
from rlvr_lib.settings.config import load_params
from rlvr_lib.workspace.lineage import LANES_VARIABLE

LOG_DIR = Path("runs/.repro_logs")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


@dataclass(frozen=True)
class Unit:
    """One ``dvc repro -s`` call: a name for the progress line and log, and the stages it reproduces."""

    name: str
    stages: tuple[str, ...]


def seed_units(seeds: Iterable[int]) -> list[Unit]:
    """The shared per-seed stages: training seed N's base policy, its filtered sets and its evaluation."""
    return [Unit(f"base seed {n}", (f"base_model@{n}", f"filter_data@{n}", f"eval_base@{n}")) for n in seeds]


def pair_units(runs: dict[str, list[int]]) -> list[Unit]:
    """One unit per (run, seed) pair of ``runs`` (run -> its seeds): its train and eval stages."""
    return [
        Unit(f"{run} seed {n}", tuple(f"{run_dvc_file(run)}:{stage}@{n}" for stage in ("train", "eval")))
        for run, seeds in runs.items()
        for n in seeds
    ]


def sampling_units(with_papers: bool) -> list[Unit]:
    """The stages that sample trained models once the pairs are done, each its own unit: the testbed's properties
    and (with a ``papers`` section) each paper study of ``rlvr_lib.papers.framework.sampling``."""
    from rlvr_lib.papers.framework.sampling import STUDIES, stage_name

    studies = [Unit(f"study {name}", (stage_name(name),)) for name in STUDIES] if with_papers else []
    return [Unit("testbed properties", ("testbed_properties",)), *studies]


def paper_units(with_papers: bool) -> list[Unit]:
    """The five paper stages, each its own unit (with a ``papers`` section); the summary, which reads their claims,
    is left to the final ``dvc repro``."""
    from rlvr_lib.settings.papers import PAPERS

    return [Unit(f"paper {name}", (f"paper_{name}",)) for name in PAPERS] if with_papers else []


def papers_upstream(paper: str, params) -> list[str]:
    """The paper stages ``paper_<paper>`` needs built first, itself included (the summary reads the claims of the
    papers it gathers), in order."""
    from rlvr_lib.settings.names import did_you_mean
    from rlvr_lib.settings.papers import ALL_PAPERS

    if paper not in ALL_PAPERS:
        raise ValueError(
            f"--paper {paper!r}: not a paper{did_you_mean(paper, ALL_PAPERS)}; valid: {', '.join(ALL_PAPERS)}"
        )
    if params.papers is None:
        raise ValueError("--paper: params.yaml has no `papers` section")
    gathered = list(params.papers.summary.papers) if paper == "summary" else []
    return [*gathered, paper]


def paper_scope(paper: str, params) -> tuple[dict[str, list[int]], list[Unit], list[Unit]]:
    """One paper's share of the lanes: its runs and their seeds (run -> seeds), its sampling units and its paper
    units (the papers it reads first, the summary excepted: the final ``dvc repro paper_<name>`` runs it)."""
    from rlvr_lib.papers.framework.sampling import STUDIES, stage_name
    from rlvr_lib.settings.papers import repro_pairs

    names = papers_upstream(paper, params)
    runs = repro_pairs(params, paper)
    studies = [Unit(f"study {s}", (stage_name(s),)) for s, (owner, _) in STUDIES.items() if owner in names]
    papers = [Unit(f"paper {name}", (f"paper_{name}",)) for name in names if name != "summary"]
    return runs, studies, papers


def parse_pairs(entries: Iterable[str], seeds_of: dict[str, list[int]], where: str = "--only") -> dict[str, list[int]]:
    """``RUN:SEED`` entries (blank lines and ``#`` comments skipped) as run -> seeds, in order; ValueError naming
    ``where`` and the entry for a run ``seeds_of`` (run -> its seeds) lacks or a seed that is not one of the run's."""
    from rlvr_lib.settings.names import did_you_mean

    runs: dict[str, list[int]] = {}
    for entry in (e.split("#")[0].strip() for e in entries):
        if not entry:
            continue
        run, _, seed = entry.rpartition(":")
        if run not in seeds_of:
            raise ValueError(
                f"{where}: {entry!r}: unknown run {run!r}{did_you_mean(run, seeds_of)} (want RUN:SEED, RUN a key of "
                "methods, or with --tuning a tuning run tune__<arm>__<k>)"
            )
        if not seed.isdigit() or int(seed) not in seeds_of[run]:
            raise ValueError(f"{where}: {entry!r}: seed {seed!r} is not one of {run}'s seeds {seeds_of[run]}")
        if int(seed) not in runs.setdefault(run, []):
            runs[run].append(int(seed))
    if not runs:
        raise ValueError(f"{where}: no RUN:SEED entry")
    return runs


def run_seeds(params) -> dict[str, list[int]]:
    """Every run of ``params`` and its seeds (``parse_pairs``' ``seeds_of``)."""
    return {run: spec.seeds for run, spec in params.runs.items()}


def with_tuned_runs(params, entries: list[str]):
    """``params``, with the tuned protocol's runs (``tuned__<arm>``, from reports/tuning/selection.json:
    ``tuned_stages.protocol_params``) when an entry names one."""
    from rlvr_lib.tuning.tuned import TUNED_PREFIX

    if not any(e.strip().startswith(TUNED_PREFIX) for e in entries):
        return params
    from rlvr_lib.pipeline.tuned_stages import protocol_params

    return protocol_params(params)


TESTBED_PROPERTIES = "testbed_properties"  # with --studies: the testbed properties stage (it samples trained models)


def only_studies(studies: Iterable[str]) -> list[Unit]:
    """The units of the named sampling ``studies`` (a paper study of ``rlvr_lib.papers.framework.sampling``, or
    ``testbed_properties``); ValueError for an unknown name."""
    from rlvr_lib.papers.framework.sampling import STUDIES, stage_name

    unknown = [s for s in studies if s not in STUDIES and s != TESTBED_PROPERTIES]
    if unknown:
        raise ValueError(f"--studies: unknown {', '.join(unknown)}; valid: {', '.join([*STUDIES, TESTBED_PROPERTIES])}")
    return [
        Unit("testbed properties", (TESTBED_PROPERTIES,))
        if s == TESTBED_PROPERTIES
        else Unit(f"study {s}", (stage_name(s),))
        for s in studies
    ]


def clock(seconds: float) -> str:
    """``h:mm:ss``."""
    seconds = round(max(seconds, 0))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def eta_seconds(durations: list[float], remaining: int, lanes: int) -> float | None:
    """Time left for ``remaining`` units at the mean of the finished units' ``durations``, ``lanes`` at a time
    (None before any unit finished)."""
    if not durations:
        return None
    if remaining <= 0:
        return 0.0
    return sum(durations) / len(durations) * remaining / min(lanes, remaining)


def progress_line(done: int, total: int, unit: str, took: float, elapsed: float, eta: float | None) -> str:
    """The line printed when ``unit`` finished: ``done`` of ``total``, its duration, elapsed time and ETA."""
    left = "unknown" if eta is None else clock(eta)
    now = time.strftime("%H:%M:%S")
    return f"{now} {done}/{total} {unit} done in {clock(took)} | elapsed {clock(elapsed)} | ETA {left}"


class UnitFailed(RuntimeError):
    """A ``dvc repro -s`` call exited non-zero."""


def run_units(
    units: list[Unit],
    lanes: int,
    runner: Callable[[Unit], int],
    what: str,
    say: Callable[[str], None] = print,
    stop_at: float | None = None,
) -> list[Unit]:
    """Run ``units`` with ``runner`` (returns an exit status), ``lanes`` at a time, printing a progress line per
    finished unit; on the first failure start nothing new, let the running ones finish and raise UnitFailed. After
    ``stop_at`` (``time.monotonic()``) start nothing new either; returns the units not started."""
    start, durations, failures = time.monotonic(), [], []
    say(f"{time.strftime('%H:%M:%S')} {what}: {len(units)} to run, {min(lanes, len(units)) or 0} at a time")
    pending = list(units)
    with ThreadPoolExecutor(max_workers=max(1, lanes)) as pool:
        running: dict[Future, tuple[Unit, float]] = {}
        while pending or running:
            while pending and len(running) < lanes and not failures and (stop_at is None or time.monotonic() < stop_at):
                unit = pending.pop(0)
                running[pool.submit(runner, unit)] = (unit, time.monotonic())
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                unit, began = running.pop(future)
                status = future.exception() or future.result()
                took = time.monotonic() - began
                if status:
                    failures.append(unit)
                    say(f"{time.strftime('%H:%M:%S')} FAILED: {unit.name} ({status}); log {log_path(unit)}")
                    continue
                durations.append(took)
                done = len(durations)
                eta = eta_seconds(durations, len(units) - done - len(failures), lanes)
                say(progress_line(done, len(units), unit.name, took, time.monotonic() - start, eta))
    if failures:
        names, first = ", ".join(u.name for u in failures), failures[0]
        raise UnitFailed(f"{what}: {names} failed (stages {', '.join(first.stages)}); see {log_path(first)}")
    if pending:
        say(f"{time.strftime('%H:%M:%S')} {what}: deadline passed, not started: {', '.join(u.name for u in pending)}")
    return pending


def log_path(unit: Unit) -> Path:
    return LOG_DIR / (unit.name.replace(" ", "_") + ".log")


def dvc_runner(env: dict[str, str]) -> Callable[[Unit], int]:
    """A runner calling ``dvc --wait-for-lock repro -s <stages>``, its output in the unit's log."""

    def run(unit: Unit) -> int:
        log = log_path(unit)
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("w") as out:
            cmd = ["dvc", "--wait-for-lock", "repro", "-s", *unit.stages]
            status = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env).returncode
        if status:
            tail = log.read_text(errors="replace").splitlines()[-15:]
            print("\n".join(f"  | {line}" for line in tail), file=sys.stderr)
        return status

    return run


def changed_units(units: list[Unit], settled: bool = False, status: Callable | None = None) -> list[Unit]:
    """The units with a stage that is not up to date, from one in-process ``dvc status`` (``status``) over all their
    stages. ``settled`` (a dry run): a dependency DVC finds deleted counts as rebuilt by the steps before."""
    changes = (status or stage_changes)([s for u in units for s in u.stages])
    return [u for u in units if any(real_changes(changes.get(s, []), settled) for s in u.stages)]


def stage_changes(stages: list[str]) -> dict[str, list]:
    """``dvc status`` of ``stages``: stage -> DVC's list of changes (absent when up to date)."""
    from dvc.repo import Repo

    if not stages:
        return {}
    with Repo() as repo:
        return repo.status(targets=stages)


def real_changes(changes: list, settled: bool, own_outputs: bool = True) -> list:
    """``changes`` (one stage's ``dvc status`` entry) without the dependencies DVC finds deleted when ``settled``,
    and without its own outputs absent (not in cache, deleted) unless ``own_outputs``."""
    out = []
    for change in changes:
        if isinstance(change, dict) and ("changed deps" in change or "changed outs" in change):
            kind, paths = next(iter(change.items()))
            drop = settled if kind == "changed deps" else not own_outputs
            kept = {p: v for p, v in paths.items() if not (drop and v in ("deleted", "not in cache"))}
            if kept:
                out.append({kind: kept})
        else:
            out.append(change)
    return out


def made_elsewhere(todo: list[Unit], sampling: list[Unit], lineages: list) -> tuple[list[Unit], list[Unit]]:
    """Split the pairs DVC finds out of date (``todo``) into those to run and those made elsewhere: current by their
    lock entries (``rlvr_lib.pipeline.lineage``), only their cached outputs absent here (a clone, or a host that
    resumes another's work). A pair whose model a ``sampling`` unit reads (a dependency equal to the model's folder
    or holding it, e.g. ``runs/<run>``) and that is absent here runs again."""
    standing = {entry.address: entry for entry in lineages}
    read_models = {
        dep for entry in lineages if entry.address.split(":")[-1] in _stage_names(sampling) for dep in entry.deps
    }
    run, skipped = [], []
    for unit in todo:
        entries = [standing.get(stage) for stage in unit.stages]
        current = all(e is not None and e.state == "current" for e in entries)
        needed = any(_under(path, read_models) for e in entries if e is not None for path in e.absent)
        (skipped if current and not needed else run).append(unit)
    return run, skipped


def _under(path: str, folders: set[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or lies inside one (a sampling stage's dependency ``runs/<run>`` reads
    every ``runs/<run>/seed<N>`` a pair's stage writes)."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _stage_names(units: list[Unit]) -> set[str]:
    return {stage for unit in units for stage in unit.stages}


def lane_env(threads: int, lanes: int = 1) -> dict[str, str]:
    """The environment of every lane: ``threads`` threads each, and the lane count the stages' origin records name
    (``rlvr_lib.workspace.lineage``)."""
    return {**os.environ, **dict.fromkeys(THREAD_VARIABLES, str(threads)), LANES_VARIABLE: str(lanes)}


@dataclass(frozen=True)
class Phase:
    """One step of the driver: its units, run in lanes; ``elsewhere``: those current by their lock entries are
    skipped (``made_elsewhere``: the pairs)."""

    what: str
    units: list[Unit]
    elsewhere: bool = False


@dataclass(frozen=True)
class Plan:
    """What ``main`` runs: the phases in order, then ``last`` (``dvc repro --allow-missing`` of ``targets``, all when
    empty; nothing when ``targets`` is None); ``sampling``: the units that read trained models (``made_elsewhere``)."""

    what: str
    phases: list[Phase]
    targets: list[str] | None
    sampling: list[Unit]

    @property
    def last(self) -> list[str] | None:
        return None if self.targets is None else ["dvc", "repro", "--allow-missing", *self.targets]


def plan(params, paper: str | None, only: dict[str, list[int]] | None = None, studies: Iterable[str] = ()) -> Plan:
    """The driver's steps for the whole protocol, one paper's share (``papers_upstream`` raises on a bad name) or
    the listed pairs ``only`` (run -> seeds) with the named sampling ``studies`` (no paper stage, no final repro)."""
    if only is not None:
        sampling = only_studies(studies)
        seeds = sorted({n for run_seeds in only.values() for n in run_seeds})
        what = f"{sum(map(len, only.values()))} listed pairs"
        phases = [
            Phase("shared data", [Unit("data", ("check_params", "data"))]),
            Phase("base policies (per seed)", seed_units(seeds)),
            Phase("(run, seed) pairs", pair_units(only), elsewhere=True),
            Phase("sampling stages", sampling),
        ]
        return Plan(what, phases, None, sampling)
    if paper:
        runs, sampling, papers = paper_scope(paper, params)
        seeds = sorted({n for run_seeds in runs.values() for n in run_seeds})
        targets, what = [f"paper_{paper}"], f"make repro PAPER={paper}"
    else:
        with_papers = params.papers is not None
        runs = {run: spec.seeds for run, spec in params.runs.items()}
        sampling, papers, seeds = sampling_units(with_papers), paper_units(with_papers), params.all_seeds
        targets, what = [], "make repro"
    phases = [
        Phase("shared data", [Unit("data", ("check_params", "data"))]),
        Phase("base policies (per seed)", seed_units(seeds)),
        Phase("(run, seed) pairs", pair_units(runs), elsewhere=True),
        Phase("sampling stages", sampling),
        Phase("paper stages", papers),
    ]
    return Plan(what, phases, targets, sampling)


def tuning_runs(params, root: Path = Path(".")) -> dict[str, list[int]]:
    """Every tuning run (``tune__<arm>__<k>``) and its tuning seeds."""
    from rlvr_lib.pipeline.tuning_stages import space_of

    space, _ = space_of(params, str(root / "params.yaml"))
    return {c.run: list(space.seeds) for c in space.configs()}


def tuning_plan(params, root: Path = Path("."), only: dict[str, list[int]] | None = None) -> Plan:
    """The steps of ``--tuning``: the tuning runs' stages (``rlvr_lib.pipeline.tune_dvc``'s files), each arm's
    configurations x tuning seeds, longest first; ``only`` (tuning run -> seeds): those alone (a host's share)."""
    from rlvr_lib.pipeline import budgets
    from rlvr_lib.pipeline.tuning_stages import TUNE_PIPELINES, arm_dvc_file, space_of

    space, _ = space_of(params, str(root / "params.yaml"))
    data = budgets.load(root)
    host = budgets.rates(root, data, [(arm, n) for arm in space.arms for n in space.seeds]).host
    configs = sorted(space.configs(), key=lambda c: -sum(host[(c.arm, n)] for n in space.seeds))
    units = [
        Unit(
            f"{c.arm} config {c.index} seed {n}",
            tuple(f"{arm_dvc_file(c.arm)}:{s}_{c.index}@{n}" for s in ("train", "eval")),
        )
        for c in configs
        for n in space.seeds
        if only is None or n in only.get(c.run, [])
    ]
    base_eval = [
        Unit(f"validation base seed {n}", (f"{TUNE_PIPELINES / 'dvc.yaml'}:eval_base@{n}",)) for n in space.seeds
    ]
    phases = [
        Phase("shared data", [Unit("data", ("check_params", "data", "validation_data"))]),
        Phase("base policies (per seed)", seed_units(space.seeds)),
        Phase("base policies on the validation split", base_eval),
        Phase("tuning (arm, configuration, seed) runs", units, elsewhere=True),
        # the selection (rlvr_lib/tuning/select.py) once every run is made, not after a host's share
        Phase("selection", [Unit("selection", (f"{TUNE_PIPELINES / 'dvc.yaml'}:select",))] if only is None else []),
    ]
    return Plan(
        f"tuning, {len(space.arms)} arms x {space.budget} configurations x {len(space.seeds)} seeds", phases, None, []
    )


def select(
    phase: Phase,
    sampling: list[Unit],
    lineages: Callable[[], list],
    forced: Callable[[Unit], bool] | None = None,
    status: Callable | None = None,
) -> tuple[list[Unit], list[Unit]]:
    """The units of ``phase`` to run (DVC finds them out of date) and those skipped as made elsewhere. A dry run
    (``rlvr_lib.pipeline.repro_dry``) passes ``forced``: the units reading what the steps before will change (then
    a dependency DVC finds deleted counts as rebuilt by those steps), and ``status``: one ``dvc status`` for all."""
    dry = forced is not None
    forced_units = [u for u in phase.units if forced(u)] if dry else []
    changed = changed_units(phase.units, settled=dry, status=status)
    todo = [u for u in phase.units if u in changed or u in forced_units]
    if not (phase.elsewhere and todo):
        return todo, []
    run, skipped = made_elsewhere([u for u in todo if u not in forced_units], sampling, lineages())
    return [u for u in todo if u in run or u in forced_units], skipped


def main(argv: list[str] | None = None) -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_lib.pipeline.repro_lanes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--jobs", type=int, default=cores, help=f"lanes (default: the cores, {cores})")
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per lane (default 1: the same bytes whatever the lanes)"
    )
    parser.add_argument("--paper", default=None, help="one paper only: erpo, cw_grpo, tepo, opefo, aer or summary")
    parser.add_argument("--only", nargs="+", default=None, metavar="RUN:SEED", help="these pairs only")
    parser.add_argument("--pairs-file", type=Path, default=None, help="the pairs only, one RUN:SEED a line")
    parser.add_argument("--studies", nargs="*", default=[], help="with --only/--pairs-file: these sampling studies")
    parser.add_argument("--tuning", action="store_true", help="issue 41's tuning runs (params.yaml tuning)")
    parser.add_argument("--deadline", type=float, default=None, help="seconds after which no unit starts")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.threads < 1:
        parser.error(f"--jobs and --threads must be >= 1, got {args.jobs} and {args.threads}")
    listed = args.only is not None or args.pairs_file is not None
    if listed and args.paper:
        parser.error("--paper and --only/--pairs-file exclude each other")
    if args.studies and not listed:
        parser.error("--studies goes with --only or --pairs-file")
    if args.tuning and (args.only is not None or args.paper or args.studies):
        parser.error("--tuning excludes --paper, --only and --studies (--pairs-file: tuning runs tune__<arm>__<k>:N)")
    stop_at = None if args.deadline is None else time.monotonic() + args.deadline
    try:
        params = load_params()
        only = None
        if args.tuning:
            from rlvr_lib.pipeline import tune_dvc

            print("\n".join(tune_dvc.write(Path("."))) or "tuning DVC files up to date")  # as make repro: dvc_stages
        if listed:
            entries = [*(args.only or []), *(args.pairs_file.read_text().splitlines() if args.pairs_file else [])]
            if args.tuning:
                seeds_of = tuning_runs(params)
            else:
                seeds_of = run_seeds(with_tuned_runs(params, entries))
            only = parse_pairs(entries, seeds_of, str(args.pairs_file or "--only"))
        steps = tuning_plan(params, only=only) if args.tuning else plan(params, args.paper, only, args.studies)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    lineages = functools.cache(stage_lineages)
    env = lane_env(args.threads, args.jobs)
    print(f"{time.strftime('%H:%M:%S')} {steps.what}: {args.jobs} lanes of {args.threads} thread(s)")
    try:
        runner = dvc_runner(env)
        for phase in steps.phases:
            todo, elsewhere = select(phase, steps.sampling, lineages)
            if phase.elsewhere:
                print(
                    f"{len(phase.units) - len(todo) - len(elsewhere)} of {len(phase.units)} {phase.what} are up to date"
                )
            if elsewhere:
                print(f"{len(elsewhere)} more are current by their lock entries, made elsewhere: not rerun")
            if run_units(todo, args.jobs, runner, phase.what, stop_at=stop_at):
                return 0  # the deadline: what did not start is listed, the next call resumes
        if steps.last:
            subprocess.run(steps.last, env=env, check=True)
    except UnitFailed as err:
        print(f"{steps.what} stopped: {err}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as err:
        print(f"{steps.what} stopped: {' '.join(err.cmd)} exited with {err.returncode}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
