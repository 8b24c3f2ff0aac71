"""Golden runs: a fixed set of training configurations, trained from scratch at declared small sizes and compared
byte for byte (timings aside) with the records committed under ``tests/golden/``, so that a change to training code
meant not to change results (a refactor, logging) is proven result-neutral, and one that changes them is caught.

Floats differ between CPU kinds and torch versions: ``tests/golden/machine.json`` says which machine kind made the
references; on another kind a difference is reported as inconclusive (the test skips), not as a failure.

    python -m rlvr_lib.pipeline.golden check   # exit 0: identical; 1: differences; 3: differences, other machine kind
    python -m rlvr_lib.pipeline.golden write   # rebuild the runs and rewrite tests/golden/ (after a deliberate change)
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime
import fnmatch
import hashlib
import json
import math
import os
import platform
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from rlvr_lib.workspace.layout import (
    EVAL_DIR,
    METRICS_DIR,
    RUNS_DIR,
    TRAINING_LOGS_DIR,
    load_params,
    repo_root,
    run_spec,
    seed_folder,
)
from rlvr_lib.workspace.lineage import ORIGIN_FILE, code_files

# Each run is an entry of params.yaml's `methods:`, trained with its own settings there; together they cover the
# trainer's distinct code paths (rlvr_lib/training/trainer.py, the three hooks of rlvr_lib/methods/base.py).
GOLDEN_RUNS = (
    "grpo",  # the baseline: 2 optimizer steps per rollout batch, so the clipped ratio against the behaviour
    # log-probs (off-policy on the second step); the reference copy for the KL metric (every run at this size has it)
    "grpo_onpolicy",  # 1 update per batch, a plain REINFORCE loss, behaviour log-probs and entropies from the
    # sampler; the entropy-flow and realised-entropy-change diagnostics (extra forwards under a forked RNG)
    "grpo_cw",  # sampling at temperature 0.7, groups of 12, 1 update per batch, GRPO's reference KL term (beta > 0)
    "erpo",  # the reference log-probs read by the rollout hook (implicit progress), per-token advantages
    "opefo",  # entropy-change factors over the full distribution (the behaviour LM-head pass), 1 update per batch,
    # and the gradient-cosine diagnostic (autograd.grad of a second loss)
    "aer_tau_1_2",  # state updated in on_optimizer_step: AER's alpha rises from the first step (its target, tau 1.2
    # x the first entropy, lies above the entropy), so the entropy bonus acts; the shared `aer` (tau 0.4) keeps
    # alpha 0 at these sizes and trains exactly as GRPO
    "cw_grpo",  # covariance weights of the token-level loss (rlvr_lib.methods.covariance)
    "gspo",  # a sequence-level ratio and clip (updates_per_batch: several)
    "tepo",  # a KL term to the behaviour policy masked by the entropy change; behaviour entropies as rollout extras
    "clip_cov",  # the loss draws from torch's global random state (a random subset of high-covariance tokens)
)
SEED = 0  # the one training seed (and the seed of the data splits and the base policy)
THREADS = 1  # torch intra-op threads while building: results depend on the thread count
# The declared sizes: the `smoke:` section of the scratch params.yaml (profile: smoke), replacing params.yaml's own.
# Level-1 problems and a short, fast SFT (lr 3e-3) give a base policy that solves about 6% of its first rollouts, so
# several groups of 8 hold correct and wrong answers (rewards vary, every update is real); data and base policy take
# about 25 s, each run's training and evaluation about 2 s (2-core machine, one thread).
GOLDEN_SIZES: dict[str, Any] = {
    "data": {"testbed": {"n_train": 64, "n_eval": 16, "levels": [1]}},
    "model": {
        "testbed": {
            "n_train": 256,
            "sft_steps": 300,
            "batch_size": 32,
            "lr": 3.0e-3,
            "hidden_size": 64,
            "num_layers": 1,
        }
    },
    "train": {
        "max_steps": 4,  # 2 rollout batches at the shared 2 updates per batch; 4 batches at 1
        "prompts_per_step": 4,
        "num_generations": 8,
        "max_completion_length": 48,
        "format_weight": 0.5,
    },
    "eval": {"n": 4, "max_new_tokens": 48, "n_boot": 20},
}
# wall-clock keys left out of a record (fnmatch patterns); history rows hold step_time and timing/*, TRL's summary
# row (not a history row) train_runtime and *_per_second
TIMING_KEYS = ("step_time", "timing/*", "train_runtime", "*_per_second")
# a reference made where one of these differs may differ in its floats (the CPU, the kernels torch picks for it)
MACHINE_KEYS_DECIDING = ("cpu_model", "cpu_id", "cpu_capability", "torch")
GOLDEN_DIR = Path("tests/golden")  # relative to the repository root
MACHINE_FILE = "machine.json"
CODE_FILE = "code.json"  # {path: md5} of every file under rlvr_lib/ and notebooks/ when the references were made


# ----------------------------------------------------------------------------- the scratch workspace
def scratch_params(params_yaml: dict[str, Any], runs: tuple[str, ...] = GOLDEN_RUNS) -> dict[str, Any]:
    """params.yaml's mapping for the golden workspace: the smoke profile at ``GOLDEN_SIZES``, seed ``SEED``, the
    golden runs only, and no ``papers`` (their own decodings are evaluation code, and they read other runs)."""
    unknown = [r for r in runs if r not in (params_yaml.get("methods") or {})]
    if unknown:
        raise ValueError(f"golden runs {unknown} are not entries of params.yaml 'methods'")
    out = copy.deepcopy(params_yaml)
    out["profile"] = "smoke"
    out["seed"] = SEED
    out["seeds"] = [SEED]
    out["methods"] = {run: {k: v for k, v in (out["methods"][run] or {}).items() if k != "seeds"} for run in runs}
    out.pop("papers", None)
    out["smoke"] = copy.deepcopy(GOLDEN_SIZES)
    return out


@contextlib.contextmanager
def inside(root: Path) -> Iterator[None]:
    """``root`` as the working directory and ``THREADS`` torch threads; both restored after."""
    import torch

    cwd, threads = os.getcwd(), torch.get_num_threads()
    os.chdir(root)
    torch.set_num_threads(THREADS)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        os.chdir(cwd)


def prepare(root: Path, repo: Path | None = None, runs: tuple[str, ...] = GOLDEN_RUNS) -> Path:
    """The golden workspace in ``root`` (a new folder): its params.yaml (``scratch_params`` of ``repo``'s), the
    data stage's files and the base policy of seed ``SEED``. Returns ``root``."""
    from rlvr_lib.pipeline import stages

    repo = repo or default_repo()
    raw = yaml.safe_load((repo / "params.yaml").read_text(encoding="utf-8"))
    root.mkdir(parents=True)
    (root / "params.yaml").write_text(yaml.safe_dump(scratch_params(raw, runs), sort_keys=False), encoding="utf-8")
    with inside(root):
        params = load_params()
        stages.stage_data(params)
        stages.stage_base_model(params, SEED)
    return root


def train_and_record(root: Path, run: str) -> dict[str, Any]:
    """Train and evaluate ``run`` with seed ``SEED`` in the golden workspace ``root`` (``prepare``), through the
    pipeline's own stages, and return its record (``record``)."""
    from rlvr_lib.pipeline import stages

    with inside(root):
        params = load_params()
        stages.stage_train(params, run, SEED)
        stages.stage_eval(params, run, SEED)
        return record(params, run)


def build(runs: tuple[str, ...] = GOLDEN_RUNS, repo: Path | None = None) -> dict[str, dict[str, Any]]:
    """Every run of ``runs``, made from scratch in a temporary workspace: {run: record}."""
    with tempfile.TemporaryDirectory(prefix="rlvr-golden-") as tmp:
        root = prepare(Path(tmp) / "workspace", repo, runs)
        return {run: train_and_record(root, run) for run in runs}


# ----------------------------------------------------------------------------- records
def is_timing(key: str) -> bool:
    return any(fnmatch.fnmatchcase(key, pattern) for pattern in TIMING_KEYS)


def without_timings(value: Any) -> Any:
    """``value`` with every mapping key that ``TIMING_KEYS`` names removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if not is_timing(k)}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def weights_digest(folder: Path) -> str:
    """sha256 over the names, dtypes, shapes and bytes of a model folder's tensors (not the files' headers)."""
    import torch
    from safetensors.torch import load_file

    h = hashlib.sha256()
    for path in sorted(folder.glob("*.safetensors")):
        for name, tensor in sorted(load_file(path).items()):
            h.update(f"{name}:{tensor.dtype}:{tuple(tensor.shape)}".encode())
            h.update(tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def record(params, run: str) -> dict[str, Any]:
    """One run's canonical record, read from the files its stages wrote (in the working directory): its settings,
    ``history.json``'s rows, the evaluation's ``results.json`` and ``metrics.json``, and a digest of the trained
    weights; timing-only keys (``TIMING_KEYS``) removed, floats as they are (JSON's repr round-trips them)."""
    spec = run_spec(params, run)
    folder = seed_folder(SEED)
    eval_dir = EVAL_DIR / run / folder
    made = {
        "run": run,
        "seed": SEED,
        "settings": {"method": spec.method, "hparams": spec.hparams, "train": asdict(params.train_config(run, SEED))},
        "history": _read(TRAINING_LOGS_DIR / run / folder / "history.json"),
        "eval": {
            str(path.relative_to(eval_dir)): _read(path)
            for path in sorted(eval_dir.rglob("*.json"))  # results.json (and a paper decoding's, if any)
            if path.name != ORIGIN_FILE  # where and from what it was made, not what it is
        },
        "metrics": _read(METRICS_DIR / run / f"{folder}.json"),
        "final_weights_sha256": weights_digest(RUNS_DIR / run / folder / "final"),
    }
    return json.loads(json.dumps(without_timings(made)))  # the form a reference file reads back as


def _read(path: Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def reward_variation(made: dict[str, Any]) -> dict[str, float]:
    """{run: the largest accuracy-reward std over its rollout batches}: > 0 when some group mixes correct and wrong
    answers (and the update is real)."""
    return {
        run: max((row.get("rewards/accuracy/std", 0.0) for row in rec["history"]), default=0.0)
        for run, rec in made.items()
    }


# ----------------------------------------------------------------------------- comparison
def compare(made: dict[str, dict[str, Any]], reference: dict[str, dict[str, Any]]) -> list[str]:
    """Every difference between two sets of records ({run: record}), each naming the run, the file or field, the
    step (history rows) and key, and both values (with ``float.hex`` where floats differ); [] when identical."""
    out = []
    for run in sorted(set(made) | set(reference)):
        if run not in reference:
            out.append(f"{run}: made, but no reference (tests/golden/{run}.json)")
        elif run not in made:
            out.append(f"{run}: a reference, but not made")
        else:
            out += _compare_record(run, made[run], reference[run])
    return out


RECORD_FIELDS = ("run", "seed", "settings", "history", "eval", "metrics", "final_weights_sha256")  # compared in order


def _compare_record(run: str, made: dict[str, Any], ref: dict[str, Any]) -> list[str]:
    out = []
    fields = [f for f in RECORD_FIELDS if f in made or f in ref]
    for field in fields + sorted((set(made) | set(ref)) - set(RECORD_FIELDS)):
        if field not in ref or field not in made:
            where = "the made record" if field in made else "the reference"
            out.append(f"{run}: field {field!r} only in {where}")
            continue
        if field == "history":
            out += _compare_history(run, made[field], ref[field])
        elif field == "eval":
            for name in sorted(set(made[field]) | set(ref[field])):
                if name not in made[field] or name not in ref[field]:
                    out.append(f"{run}: eval file {name} only in {'made' if name in made[field] else 'reference'}")
                else:
                    out += _compare_values(f"{run}: {name}", made[field][name], ref[field][name])
        else:
            label = {"metrics": "metrics.json"}.get(field, field)
            out += _compare_values(f"{run}: {label}", made[field], ref[field])
    return out


def _compare_history(run: str, made: list[dict], ref: list[dict]) -> list[str]:
    out = []
    if len(made) != len(ref):
        out.append(f"{run}: history.json has {len(made)} rows, the reference {len(ref)}")
    for i, (a, b) in enumerate(zip(made, ref, strict=False)):
        out += _compare_values(f"{run}: history.json step {b.get('step', '?')} (row {i})", a, b)
    return out


def _compare_values(where: str, made: Any, ref: Any, path: str = "") -> list[str]:
    if isinstance(made, dict) and isinstance(ref, dict):
        out = []
        for key in list(ref) + [k for k in made if k not in ref]:
            sub = f"{path}/{key}" if path else str(key)
            if key not in made:
                out.append(f"{where} {sub!r}: missing (reference {_show(ref[key])})")
            elif key not in ref:
                out.append(f"{where} {sub!r}: new key (made {_show(made[key])})")
            else:
                out += _compare_values(where, made[key], ref[key], sub)
        return out
    if isinstance(made, list) and isinstance(ref, list):
        out = []
        if len(made) != len(ref):
            out.append(f"{where} {path!r}: {len(made)} items, the reference {len(ref)}")
        for i, (a, b) in enumerate(zip(made, ref, strict=False)):
            out += _compare_values(where, a, b, f"{path}[{i}]")
        return out
    if _same(made, ref):
        return []
    return [f"{where} {path!r}: made {_show(made)}, reference {_show(ref)}"]


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a.hex() == b.hex()  # bit for bit: -0.0 is not 0.0, and nan is nan
    return a == b


def _show(value: Any) -> str:
    if isinstance(value, float) and not math.isnan(value):
        return f"{value!r} ({value.hex()})"
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


# ----------------------------------------------------------------------------- references and machine kind
def default_repo() -> Path:
    """The repository this package is in (the folder above it holding params.yaml)."""
    return repo_root(Path(__file__).resolve().parent)


def machine_kind() -> dict[str, Any]:
    """What decides the floats of a build: the CPU (``/proc/cpuinfo``'s model name, and vendor, family, model and
    stepping, since a model name may be as vague as "AMD EPYC"), the instruction set torch dispatches to, the core
    count, platform and the numeric packages."""
    import torch
    import transformers
    import trl

    info: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if not key.strip():
                break  # the first processor's block only
            info.setdefault(key.strip(), value.strip())
    cpu_id = " ".join(
        f"{label} {info[key]}" if label else info[key]
        for key, label in (("vendor_id", ""), ("cpu family", "family"), ("model", "model"), ("stepping", "stepping"))
        if key in info
    )
    return {
        "cpu_model": info.get("model name") or platform.processor() or platform.machine() or "unknown",
        "cpu_id": cpu_id or "unknown",
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "trl": trl.__version__,
    }


def machine_record() -> dict[str, Any]:
    """``tests/golden/machine.json``: the machine kind that made the references, and what it made."""
    return {
        "made_by": "python -m rlvr_lib.pipeline.golden write",
        "date": datetime.date.today().isoformat(),
        "machine": machine_kind(),
        "threads": THREADS,
        "runs": list(GOLDEN_RUNS),
        "seed": SEED,
        "sizes": GOLDEN_SIZES,
    }


def machine_difference(saved: dict[str, Any], current: dict[str, Any] | None = None) -> str | None:
    """Why a build here may differ in its floats from the references (``MACHINE_KEYS_DECIDING`` differ: both values
    named), or None when this is the machine kind that made them."""
    current = current or machine_kind()
    made_on = saved.get("machine", {})
    differ = [
        f"{key} here {current.get(key)!r}, references {made_on.get(key)!r}"
        for key in MACHINE_KEYS_DECIDING
        if current.get(key) != made_on.get(key)
    ]
    if not differ:
        return None
    return (
        "another machine kind than the one that made tests/golden/ (floats differ between CPU kinds and torch "
        f"versions): {'; '.join(differ)}"
    )


def setup_difference(saved: dict[str, Any]) -> str | None:
    """Why the references cannot be compared at all: made for other runs, seed, thread count or sizes than
    declared here (then ``write`` them again), or None."""
    declared = {"runs": list(GOLDEN_RUNS), "seed": SEED, "threads": THREADS, "sizes": GOLDEN_SIZES}
    differ = [key for key, value in declared.items() if json.loads(json.dumps(value)) != saved.get(key)]
    if not differ:
        return None
    return f"tests/golden/{MACHINE_FILE} records other {', '.join(differ)} than rlvr_lib/pipeline/golden.py declares"


def golden_dir(repo: Path | None = None) -> Path:
    return (repo or default_repo()) / GOLDEN_DIR


def load_references(repo: Path | None = None) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """({run: committed record}, machine.json's record)."""
    folder = golden_dir(repo)
    machine = folder / MACHINE_FILE
    if not machine.is_file():
        raise FileNotFoundError(f"no {machine}: make the references with `python -m rlvr_lib.pipeline.golden write`")
    refs = {p.stem: _read(p) for p in sorted(folder.glob("*.json")) if p.name not in (MACHINE_FILE, CODE_FILE)}
    return refs, _read(machine)


def write_references(made: dict[str, dict[str, Any]], repo: Path | None = None) -> list[Path]:
    """Replace ``tests/golden/`` with ``made`` (one JSON per run) and ``machine.json``; returns the files."""
    from rlvr_lib.files.atomic import write_atomic

    folder = golden_dir(repo)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.json"):
        if stale.stem not in made and stale.name not in (MACHINE_FILE, CODE_FILE):
            stale.unlink()
    paths = []
    for run, rec in made.items():
        paths.append(folder / f"{run}.json")
        write_atomic(paths[-1], json.dumps(rec, indent=1) + "\n")
    paths.append(folder / MACHINE_FILE)
    write_atomic(paths[-1], json.dumps(machine_record(), indent=2) + "\n")
    paths.append(folder / CODE_FILE)  # the code that made them: what `lineage refresh` may vouch for
    write_atomic(paths[-1], json.dumps(code_files(repo or default_repo()), indent=1) + "\n")
    return paths


# ----------------------------------------------------------------------------- command line
MAX_SHOWN = 40  # differences printed (all are counted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.golden", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("check", "write"), help="compare with tests/golden/, or rewrite it")
    args = parser.parse_args(argv)
    if args.action == "check":
        try:
            refs, saved = load_references()  # before the build: a missing reference fails at once
        except FileNotFoundError as err:
            print(f"golden check: {err}", file=sys.stderr)
            return 1
        setup = setup_difference(saved)
        if setup:
            print(f"golden check: {setup}; run `python -m rlvr_lib.pipeline.golden write`", file=sys.stderr)
            return 1
    made = build()
    flat = {run: v for run, v in reward_variation(made).items() if not v > 0}
    if flat:
        print(f"golden runs whose accuracy reward never varied (no mixed group): {sorted(flat)}", file=sys.stderr)
        return 1
    if args.action == "write":
        for path in write_references(made):
            print(f"wrote {path}")
        return 0
    differences = compare(made, refs)
    if not differences:
        print(f"golden check: {len(made)} runs identical to tests/golden/ ({', '.join(made)})")
        return 0
    other_kind = machine_difference(saved)
    print(f"golden check: {len(differences)} differences from tests/golden/:", file=sys.stderr)
    for line in differences[:MAX_SHOWN]:
        print(f"  {line}", file=sys.stderr)
    if len(differences) > MAX_SHOWN:
        print(f"  ... and {len(differences) - MAX_SHOWN} more", file=sys.stderr)
    if other_kind:
        print(f"golden check: inconclusive, {other_kind}", file=sys.stderr)
        return 3
    print(
        "golden check: a change alters the golden runs; if it is meant to, retrain the affected committed results "
        "and run `python -m rlvr_lib.pipeline.golden write`",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
