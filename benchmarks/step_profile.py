"""Where one optimizer step and one run's wall time go (issue 9, item 4: "speed, measured, not guessed").

One in-process run of the real pipeline code (``stages.stage_train`` then ``stages.stage_eval`` for
``--run``, default ``grpo``, with params.yaml's sizes) in a scratch folder that links this repository's
``data/generated`` and ``models/base``, with timers wrapped around the methods that do the work:

* per optimizer step (a step runs from one ``on_step_begin`` to the next, so it also holds the logging of its
  own end and the data loading of the next): generation (HF ``generate``), rollout forward (behaviour
  log-probs/entropies, no grad), reference forward, rewards/grading, the method's rollout hook, loss forward
  (policy log-probs/entropies with grad), the method's loss terms, loss backward, gradient clipping + optimizer
  step, logging (metrics, callbacks), and TRL bookkeeping: everything else inside the step (prompt
  tokenisation, decoding, padding, shuffling, ...), computed as the step's wall time minus the named parts;
* per run: model load, trainer build, training, saving, evaluation sampling / grading / intervals+writing;
  plus, measured in fresh subprocesses, the start-up every pipeline stage pays: the Python interpreter with the
  libraries a stage imports, and papermill + its notebook kernel (one cell, ``pass``).

Timers are exclusive: a part nested in another (the loss forward inside the loss computation) is counted only
in the inner part, so the parts of a step add up to its wall time. ``--baseline-src DIR`` additionally runs the
same measurement with another checkout's ``rlvr_lib`` (e.g. ``git worktree add /tmp/before <commit>``), each
repeat in its own processes, alternating baseline and current code, and prints the medians side by side with
their ratio.

    dvc repro data base_model@0          # on a fresh clone: the data and the first training seed's base policy
    python benchmarks/step_profile.py [--run grpo] [--threads 1] [--clock wall|cpu] [--no-eval] [--repeats 1]
        [--baseline-src DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
OTHER = "TRL bookkeeping (rest of the step)"
STEP_PARTS = (
    "generation",
    "rollout forward",
    "reference forward",
    "rewards/grading",
    "method rollout hook",
    "loss forward",
    "method loss terms",
    "loss backward",
    "grad clip + optimizer step",
    "logging",
    OTHER,
)
RUN_PARTS = (
    "start-up: interpreter + imports (x2 stages)",
    "start-up: papermill + kernel (x2 stages)",
    "train: model load",
    "train: trainer build",
    "train: training",
    "train: save",
    "train: other",
    "eval: model load",
    "eval: sampling",
    "eval: grading",
    "eval: intervals + writing",
    "eval: other",
)
# what a stage notebook loads
STAGE_IMPORTS = "import rlvr_lib.pipeline.stages, rlvr_lib.training.train, rlvr_lib.eval, pandas"


# ----------------------------------------------------------------------------- exclusive timers
class RegionTimer:
    """Exclusive wall-clock time per named region; regions nest, each second is counted in the innermost one.

    ``boundary()`` closes a step: ``steps`` gets that step's region times plus ``OTHER`` (the step's wall time
    minus its regions), so every step's parts add up to its wall time exactly. The first boundary opens step 1.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter):
        self.clock = clock
        self.totals: dict[str, float] = defaultdict(float)
        self.steps: list[dict[str, float]] = []
        self._stack: list[list[Any]] = []  # [name, start, time spent in child regions]
        self._step_start: float | None = None
        self._at_step_start: dict[str, float] = {}

    @contextlib.contextmanager
    def region(self, name: str):
        frame = [name, self.clock(), 0.0]
        self._stack.append(frame)
        try:
            yield
        finally:
            elapsed = self.clock() - frame[1]
            self._stack.pop()
            self.totals[name] += elapsed - frame[2]
            if self._stack:
                self._stack[-1][2] += elapsed

    def current(self) -> str | None:
        return self._stack[-1][0] if self._stack else None

    def boundary(self) -> None:
        now = self.clock()
        if self._step_start is not None:
            step = {k: v - self._at_step_start.get(k, 0.0) for k, v in self.totals.items()}
            step = {k: v for k, v in step.items() if v > 0}
            step[OTHER] = step.get(OTHER, 0.0) + (now - self._step_start) - sum(step.values())
            step["total"] = now - self._step_start
            self.steps.append(step)
        self._step_start, self._at_step_start = now, dict(self.totals)

    def wrap(self, obj: Any, attr: str, name: str | Callable[..., str | None]) -> bool:
        """Time ``obj.attr`` (set as an instance attribute); ``name`` may be a function of the call's arguments
        returning the region name, or None for "no region of its own". False if ``obj`` has no such attribute."""
        original = getattr(obj, attr, None)
        if original is None:
            return False

        @functools.wraps(original)
        def timed(*args, **kwargs):
            label = name(*args, **kwargs) if callable(name) else name
            if label is None:
                return original(*args, **kwargs)
            with self.region(label):
                return original(*args, **kwargs)

        setattr(obj, attr, timed)
        return True


def summarise_steps(steps: list[dict[str, float]], skip: int) -> dict[str, Any]:
    """Mean seconds per step of each part over ``steps[skip:]``, the median step and the median per step kind.

    With ``steps_per_generation`` = s, every s-th step generates; its kind is ``generating`` (else ``reusing``).
    """
    kept = steps[skip:]
    if not kept:
        raise ValueError(f"no steps left to summarise after skipping {skip} of {len(steps)}")
    parts = {p: statistics.fmean(s.get(p, 0.0) for s in kept) for p in STEP_PARTS}
    generating = [s["total"] for s in kept if s.get("generation", 0.0) > 0]
    reusing = [s["total"] for s in kept if s.get("generation", 0.0) == 0]
    return {
        "steps": len(kept),
        "mean_step_s": statistics.fmean(s["total"] for s in kept),
        "median_step_s": statistics.median(s["total"] for s in kept),
        "median_generating_step_s": statistics.median(generating) if generating else None,
        "median_reusing_step_s": statistics.median(reusing) if reusing else None,
        "parts_mean_s": parts,
    }


# ----------------------------------------------------------------------------- instrumentation
def instrument_trainer(trainer, timer: RegionTimer) -> None:
    """Wrap the trainer's working methods with ``timer`` regions (see STEP_PARTS); call before ``train()``."""
    import torch

    def logps_part(model, *args, **kwargs):
        if timer.current() == "reference forward":  # PEFT reference: the policy with adapters off
            return None
        if model is getattr(trainer, "ref_model", None):
            return "reference forward"
        return "loss forward" if torch.is_grad_enabled() else "rollout forward"

    timer.wrap(trainer, "_generate_single_turn", "generation")
    timer.wrap(trainer, "_get_per_token_logps_and_entropies", logps_part)
    timer.wrap(trainer, "_reference_logps", "reference forward")
    timer.wrap(trainer, "_calculate_rewards", "rewards/grading")
    timer.wrap(trainer.method, "rollout", "method rollout hook")
    timer.wrap(trainer.method, "loss", "method loss terms")
    timer.wrap(trainer.accelerator, "backward", "loss backward")
    timer.wrap(trainer, "_clip_grad_norm", "grad clip + optimizer step")
    timer.wrap(trainer, "log", "logging")
    timer.wrap(trainer, "_log_rollout_metrics", "logging")
    timer.wrap(trainer.callback_handler, "on_step_end", "logging")  # dvclive's step, the method's hook 3

    handler = trainer.callback_handler
    original_begin = handler.on_step_begin

    def on_step_begin(*args, **kwargs):
        timer.boundary()
        return original_begin(*args, **kwargs)

    handler.on_step_begin = on_step_begin
    original_train_begin = handler.on_train_begin

    def on_train_begin(*args, **kwargs):  # the optimizer exists (and is wrapped by accelerate) from here on
        timer.wrap(trainer.optimizer, "step", "grad clip + optimizer step")
        return original_train_begin(*args, **kwargs)

    handler.on_train_begin = on_train_begin


@contextlib.contextmanager
def patched(obj: Any, attr: str, replacement: Any):
    original = obj.__dict__[attr] if attr in obj.__dict__ else getattr(obj, attr)
    setattr(obj, attr, replacement)
    try:
        yield
    finally:
        setattr(obj, attr, original)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def require_inputs() -> None:
    """Stop, naming the command to run, where the data stage's files or the first seed's base policy are missing
    (checked before any measurement process starts: it would import torch, transformers and TRL first)."""
    from rlvr_lib.workspace import layout

    first_seed = layout.load_params(REPO / "params.yaml").seeds[0]  # the run's default seed
    for needed in (REPO / "data/generated/train.jsonl", REPO / f"models/base/seed{first_seed}/config.json"):
        if not needed.exists():
            raise SystemExit(f"{needed} is missing: run `dvc repro data base_model@{first_seed}` first")


def profile_run(run: str, *, evaluate: bool, max_steps: int | None, skip: int, clock: str = "wall") -> dict[str, Any]:
    """Train (and evaluate) ``run`` in a scratch copy of the repository's layout; returns the timings."""
    import transformers

    from rlvr_lib.eval import evaluate as evaluate_module
    from rlvr_lib.pipeline import stages
    from rlvr_lib.training import trainer as trainer_module
    from rlvr_lib.workspace import layout

    now = CLOCKS[clock]
    run_timer, step_timer = RegionTimer(now), RegionTimer(now)
    stage = {"name": "train"}
    scratch = Path(tempfile.mkdtemp(prefix="step_profile-"))
    params_text = (REPO / "params.yaml").read_text()
    (scratch / "params.yaml").write_text(params_text)
    (scratch / "data").mkdir()
    (scratch / "data/generated").symlink_to(REPO / "data/generated")
    (scratch / "models").mkdir()
    (scratch / "models/base").symlink_to(REPO / "models/base")
    cwd = os.getcwd()

    original_init = trainer_module.RLVRTrainer.__init__

    def init(self, *args, **kwargs):
        with run_timer.region("train: trainer build"):
            original_init(self, *args, **kwargs)
        instrument_trainer(self, step_timer)
        original_train = self.train

        def train(*a, **k):
            with run_timer.region("train: training"):
                return original_train(*a, **k)

        self.train = train

    def loader(cls_method):
        @functools.wraps(cls_method)
        def load(*args, **kwargs):
            with run_timer.region(f"{stage['name']}: model load"):
                return cls_method(*args, **kwargs)

        return load

    def saver(method):
        @functools.wraps(method)
        def save(self, *args, **kwargs):
            with run_timer.region("train: save"):
                return method(self, *args, **kwargs)

        return save

    def timed(name, fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            with run_timer.region(name):
                return fn(*args, **kwargs)

        return call

    try:
        os.chdir(scratch)
        params = layout.load_params("params.yaml")
        if max_steps is not None:
            spec = params.runs[run]
            spec.train.max_steps = max_steps
        with contextlib.ExitStack() as stack:
            for cls in (transformers.AutoModelForCausalLM, transformers.AutoTokenizer):
                stack.enter_context(patched(cls, "from_pretrained", classmethod(loader(cls.from_pretrained.__func__))))
            stack.enter_context(patched(trainer_module.RLVRTrainer, "__init__", init))
            stack.enter_context(
                patched(
                    transformers.PreTrainedModel, "save_pretrained", saver(transformers.PreTrainedModel.save_pretrained)
                )
            )
            stack.enter_context(
                patched(
                    evaluate_module, "sample_completions", timed("eval: sampling", evaluate_module.sample_completions)
                )
            )
            stack.enter_context(patched(evaluate_module, "grade", timed("eval: grading", evaluate_module.grade)))
            started = now()
            with run_timer.region("train: other"):
                history = stages.stage_train(params, run)
            train_s = now() - started
            step_timer.boundary()  # closes the last step
            eval_s = 0.0
            if evaluate:
                stage["name"] = "eval"
                started = now()
                with run_timer.region("eval: other"):
                    # intervals + writing = everything in evaluate_benchmark/write_results after the grading
                    with patched(
                        evaluate_module,
                        "bootstrap_ci",
                        timed("eval: intervals + writing", evaluate_module.bootstrap_ci),
                    ):
                        with patched(
                            evaluate_module,
                            "write_results",
                            timed("eval: intervals + writing", evaluate_module.write_results),
                        ):
                            stages.stage_eval(params, run)
                eval_s = now() - started
    finally:
        os.chdir(cwd)
        shutil.rmtree(scratch, ignore_errors=True)
    import torch

    return {
        "run": run,
        "threads": torch.get_num_threads(),
        "train_stage_s": train_s,
        "eval_stage_s": eval_s,
        "run_parts_s": dict(run_timer.totals),
        "step": summarise_steps(step_timer.steps, skip),
        # TRL's own step_time (training_step only: generation + forward/backward, no optimizer step or logging)
        "trl_step_time_median_s": statistics.median(row["step_time"] for row in history),
    }


# ----------------------------------------------------------------------------- start-up, in subprocesses
def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def startup_costs(python: str, env: dict[str, str], clock: str = "wall") -> dict[str, float]:
    """Seconds of (a) a fresh interpreter importing what a stage imports and (b) papermill executing a
    one-cell notebook (papermill's own start-up + a kernel start), each in its own subprocess; ``clock`` cpu:
    the CPU seconds of those subprocesses (papermill's and its kernel's) instead of wall seconds."""
    now = _children_cpu if clock == "cpu" else time.perf_counter
    started = now()
    subprocess.run([python, "-c", STAGE_IMPORTS], check=True, env=env, cwd=REPO)
    imports_s = now() - started
    papermill = Path(python).with_name("papermill")
    with tempfile.TemporaryDirectory() as tmp:
        nb = Path(tmp) / "empty.ipynb"
        nb.write_text(
            json.dumps(
                {
                    "cells": [
                        {
                            "cell_type": "code",
                            "metadata": {},
                            "source": ["pass"],
                            "outputs": [],
                            "execution_count": None,
                        }
                    ],
                    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                    "nbformat": 4,
                    "nbformat_minor": 5,
                }
            )
        )
        started = now()
        subprocess.run(
            [str(papermill), "--no-progress-bar", "-k", "python3", str(nb), str(Path(tmp) / "out.ipynb")],
            check=True,
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        papermill_s = now() - started
    return {"imports_s": imports_s, "papermill_kernel_s": papermill_s}


# ----------------------------------------------------------------------------- driver
def measure(src: Path | None, args: argparse.Namespace) -> dict[str, Any]:
    """One measurement in fresh subprocesses with ``src``'s rlvr_lib first on the path (None: this checkout)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "profile.json"
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            str(out),
            "--run",
            args.run,
            "--threads",
            str(args.threads),
            "--skip",
            str(args.skip),
            "--clock",
            args.clock,
        ]
        cmd += ["--no-eval"] if args.no_eval else []
        cmd += ["--max-steps", str(args.max_steps)] if args.max_steps else []
        done = subprocess.run(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL if args.quiet else None)
        if done.returncode:  # the measurement process said why on stderr (e.g. the pipeline outputs it needs)
            raise SystemExit(done.returncode)
        result = json.loads(out.read_text())
    if not args.no_startup:
        startup = startup_costs(sys.executable, env, args.clock)
        result["run_parts_s"]["start-up: interpreter + imports (x2 stages)"] = 2 * startup["imports_s"]
        result["run_parts_s"]["start-up: papermill + kernel (x2 stages)"] = 2 * startup["papermill_kernel_s"]
    result["src"] = str(src or REPO)
    return result


def _median_result(results: list[dict[str, Any]]) -> dict[str, Any]:
    med = lambda xs: statistics.median(xs)  # noqa: E731
    step_keys = ("mean_step_s", "median_step_s", "median_generating_step_s", "median_reusing_step_s")
    return {
        "repeats": len(results),
        "trl_step_time_median_s": med([r["trl_step_time_median_s"] for r in results]),
        "train_stage_s": med([r["train_stage_s"] for r in results]),
        "eval_stage_s": med([r["eval_stage_s"] for r in results]),
        "run_parts_s": {p: med([r["run_parts_s"].get(p, 0.0) for r in results]) for p in RUN_PARTS},
        "step": {
            **{k: med([r["step"][k] or 0.0 for r in results]) for k in step_keys},
            "steps": results[0]["step"]["steps"],
            "parts_mean_s": {p: med([r["step"]["parts_mean_s"][p] for r in results]) for p in STEP_PARTS},
        },
    }


def print_report(columns: dict[str, dict[str, Any]]) -> None:
    names = list(columns)
    ratio = len(names) == 2
    head = f"{'':<46}" + "".join(f"{n:>14}" for n in names) + (f"{'ratio':>9}" if ratio else "")

    def row(label: str, values: list[float], total: float | None = None) -> str:
        text = f"{label:<46}" + "".join(f"{v:>14.3f}" for v in values)
        if ratio:  # a part that (nearly) vanished gets "gone" rather than a huge ratio
            text += (
                f"{values[0] / values[1]:>9.2f}"
                if values[1] > 1e-3 * values[0]
                else f"{'gone' if values[0] else '-':>9}"
            )
        return text

    print("\nOne optimizer step (mean seconds per step over the steps kept; parts add up to the mean step)")
    print(head)
    for part in STEP_PARTS:
        print(row(part, [columns[n]["step"]["parts_mean_s"][part] for n in names]))
    for key in ("mean_step_s", "median_step_s", "median_generating_step_s", "median_reusing_step_s"):
        print(row(key, [columns[n]["step"][key] for n in names]))
    print(row("TRL step_time median (history.json)", [columns[n]["trl_step_time_median_s"] for n in names]))
    print("\nOne run (train + eval stages; seconds)")
    print(head)
    for part in RUN_PARTS:
        print(row(part, [columns[n]["run_parts_s"].get(part, 0.0) for n in names]))
    print(row("total", [sum(columns[n]["run_parts_s"].get(p, 0.0) for p in RUN_PARTS) for n in names]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", default="grpo", help="an entry of params.yaml's methods")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=None, help="default: the run's train.max_steps")
    parser.add_argument("--skip", type=int, default=2, help="first steps left out of the step summary (warm-up)")
    parser.add_argument("--no-eval", action="store_true")
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up subprocess measurements")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall: elapsed seconds; cpu: this process's CPU seconds (robust on a shared machine)",
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="a checkout whose rlvr_lib is the baseline (measured alternately with this one)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write every measurement here")
    parser.add_argument("--quiet", action="store_true", help="hide the training logs of the measured runs")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child is not None:  # inside one measurement process
        import torch

        torch.set_num_threads(args.threads)
        result = profile_run(
            args.run, evaluate=not args.no_eval, max_steps=args.max_steps, skip=args.skip, clock=args.clock
        )
        args.child.write_text(json.dumps(result))
        return

    require_inputs()
    sources = (
        {"current": None} if args.baseline_src is None else {"baseline": args.baseline_src.resolve(), "current": None}
    )
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in sources}
    for repeat in range(args.repeats):
        for name, src in sources.items():
            print(f"[step_profile] repeat {repeat + 1}/{args.repeats}: {name} ({src or REPO})", file=sys.stderr)
            results[name].append(measure(src, args))
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))
    print(
        f"run '{args.run}', clock {args.clock}, torch threads {args.threads}, {args.repeats} repeat(s) (medians), "
        f"steps kept per repeat: {results['current'][0]['step']['steps']} (first {args.skip} skipped)"
    )
    print_report({name: _median_result(rs) for name, rs in results.items()})


if __name__ == "__main__":
    main()
