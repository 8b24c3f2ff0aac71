"""One run's experiment in DVC's temporary copy: ``dvc exp run --temp -s`` of exactly the stages it needs, in order.

On a clone, ``dvc exp run --temp -S ...`` with no target reruns every stage whose outputs the clone lacks (hundreds),
and ``--downstream <run's dvc.yaml>`` skips the stages the run reads, so its copy lacks ``data/generated`` and the
base policies and the first train stage fails. This lists, from DVC's stage graph:

1. the stages the run's pairs read (``check_params``, ``data``, the base policy and filtered sets of each seed);
2. the run's ``train@N`` and ``eval@N`` stages (``--seeds``: some of its seeds only);
3. the stages reading them: the sampling studies of its models, the paper stages of the papers that read it, the
   summary and the main report;
4. on a clone, the pairs whose models a study of step 3 also samples (absent there), with what they read;

and runs them with ``-s`` (each stage alone, in that order; one whose inputs and outputs are as recorded is
skipped). The other runs' results are the committed ones. ``--dry`` prints the stages and the command; ``--queue``
queues the experiment instead (``dvc queue start`` runs it).

    python -m rlvr_lib.pipeline.experiment RUN -S KEY=VALUE [-S ...] [--seeds N ...] [-n NAME] [--queue] [--dry]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from rlvr_lib.pipeline.dvc_stages import run_dvc_file
from rlvr_lib.settings.config import load_params


def run_stages(run: str, seeds: list[int]) -> list[str]:
    """The run's train and eval stages of ``seeds`` (DVC addresses)."""
    return [f"{run_dvc_file(run)}:{stage}@{n}" for n in seeds for stage in ("train", "eval")]


def experiment_stages(run: str, seeds: list[int]) -> list[str]:
    """What the run's pairs read, the pairs, what reads them, and the stages making the cached inputs those readers
    lack here (a study sampling other runs' models on a clone), with what those read, in DVC's order."""
    import networkx as nx
    from dvc.repo import Repo
    from dvc.repo.reproduce import plan_repro

    with Repo() as repo:
        graph = repo.index.graph
        by_address = {stage.addressing: stage for stage in graph}
        own = [by_address[address] for address in run_stages(run, seeds)]
        readers = set(plan_repro(graph, own, downstream=True))
        absent = [
            made for stage in readers for made in graph.successors(stage) if made not in readers and lacks(stage, made)
        ]
        wanted = set(plan_repro(graph, own + absent)) | readers
        return [stage.addressing for stage in reversed(list(nx.topological_sort(graph))) if stage in wanted]


def lacks(reader, maker) -> bool:
    """Whether ``reader`` (a DVC stage) reads a cached output of ``maker`` that is absent here (a model on a clone;
    not the committed files of a folder such as ``reports/training`` that ``maker`` also writes into)."""
    from pathlib import PurePath

    def overlap(a: str, b: str) -> bool:
        return a == b or PurePath(b) in PurePath(a).parents or PurePath(a) in PurePath(b).parents

    paths = [dep.fs_path for dep in reader.deps]
    return any(out.use_cache and not out.exists and any(overlap(out.fs_path, p) for p in paths) for out in maker.outs)


def command(stages: list[str], sets: list[str], name: str | None, queue: bool) -> list[str]:
    """``dvc exp run`` of ``stages``, each alone (``-s``), in a temporary copy (or queued)."""
    named = ["-n", name] if name else []
    flags = [arg for value in sets for arg in ("-S", value)]
    return ["dvc", "exp", "run", "--queue" if queue else "--temp", "-s", *named, *flags, *stages]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.experiment", description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run of params.yaml `methods`")
    parser.add_argument("-S", "--set-param", dest="sets", action="append", default=[], help="as `dvc exp run -S`")
    parser.add_argument("--seeds", type=int, nargs="+", help="some of the run's training seeds (default: all)")
    parser.add_argument("-n", "--name", help="the experiment's name (default: DVC's)")
    parser.add_argument("--queue", action="store_true", help="queue it (`dvc queue start` runs it) instead")
    parser.add_argument("--dry", action="store_true", help="print the stages and the command; run nothing")
    args = parser.parse_args(argv)
    params = load_params()
    if args.run not in params.runs:
        parser.error(f"{args.run!r}: not a run of params.yaml `methods` (python -m rlvr_lib methods lists them)")
    seeds = list(params.runs[args.run].seeds)
    unknown = sorted(set(args.seeds or []) - set(seeds))
    if unknown:
        parser.error(f"--seeds {unknown}: not training seeds of {args.run} ({seeds})")
    stages = experiment_stages(args.run, args.seeds or seeds)
    cmd = command(stages, args.sets, args.name, args.queue)
    if args.dry:
        print(f"{len(stages)} stages, each run alone (-s) when not up to date:")
        print("\n".join(f"  {stage}" for stage in stages))
        print(" ".join(cmd))
        return 0
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
