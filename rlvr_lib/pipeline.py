"""The DVC stages' logic, one function per stage; the notebooks in ``notebooks/`` call these and show results.

Paths are relative to the repository root (the folder holding params.yaml), so a notebook works both under
papermill (run from the root) and opened in JupyterLab (run from ``notebooks/``).
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .atomic import write_json_atomic, write_jsonl_atomic
from .config import Params, load_params

DATA_DIR = Path("data/generated")
BASE_MODEL_DIR = Path("models/base")
RUNS_DIR = Path("runs")
REPORTS_DIR = Path("reports")
TRAINING_LOGS_DIR = REPORTS_DIR / "training"
EVAL_DIR = REPORTS_DIR / "eval"
METRICS_DIR = REPORTS_DIR / "metrics"
TESTBED_BENCHMARK = "testbed"
EXTERNAL_MODEL_FILE = "external_model.json"


def repo_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: cwd) that holds params.yaml."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "params.yaml").exists():
            return folder
    raise FileNotFoundError(f"no params.yaml in {here} or any parent: run from inside the repository")


def enter_repo(params_path: str = "params.yaml") -> Params:
    """chdir to the repository root and load (and validate) params.yaml.

    Inside a DVC stage (DVC sets ``DVC_STAGE``, and the kernel inherits it) progress bars are switched to
    plain text, so papermill's ``--log-output`` shows them in the log instead of as notebook widgets.
    """
    if os.environ.get("DVC_STAGE"):
        use_text_progress_bars()
    os.chdir(repo_root())
    return load_params(params_path)


def use_text_progress_bars() -> None:
    """Replace tqdm's notebook bars by text bars in the modules that draw the long-running ones."""
    import tqdm.std
    import transformers.trainer_callback

    from .eval import sampling

    transformers.trainer_callback.tqdm = tqdm.std.tqdm
    sampling.tqdm = tqdm.std.tqdm


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: run the data stage first (`dvc repro data`)")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ----------------------------------------------------------------------------- stage: data
def stage_data(params: Params) -> dict[str, int]:
    """Write ``data/generated/train.jsonl`` and one ``eval_<benchmark>.jsonl`` per benchmark; returns row counts."""
    from . import data as real_data
    from .testbed import make_splits, to_records

    cfg = params.data
    if cfg.source == "testbed":
        tb = testbed_data_settings(params)
        train, held_out = make_splits(tb["n_train"], tb["n_eval"], tb["seed"], tuple(tb["levels"]), tb["task"])
        train_rows, benchmarks = to_records(train), {TESTBED_BENCHMARK: to_records(held_out)}
    else:
        rows = real_data.load_training_set(cfg.train_set, cfg.root)
        if cfg.train_levels is not None:
            rows = real_data.filter_by_level(rows, tuple(cfg.train_levels))
        rows = rows[: cfg.max_train] if cfg.max_train else rows
        train_rows = [{**r, "prompt": real_data.format_prompt(r["problem"])} for r in rows]
        benchmarks = {
            name: [{**r, "prompt": real_data.format_prompt(r["problem"])}
                   for r in real_data.load_benchmark(name, cfg.root, limit=cfg.max_eval)]
            for name in cfg.benchmarks
        }
    if DATA_DIR.exists():
        shutil.rmtree(DATA_DIR)
    write_jsonl_atomic(DATA_DIR / "train.jsonl", train_rows)
    for name, rows in benchmarks.items():
        write_jsonl_atomic(DATA_DIR / f"eval_{name}.jsonl", rows)
    return {"train": len(train_rows), **{f"eval_{k}": len(v) for k, v in benchmarks.items()}}


def testbed_data_settings(params: Params) -> dict[str, Any]:
    settings = {"n_train": 2000, "n_eval": 128, "levels": [1, 2, 3], "seed": params.seed, "task": "v2",
                **params.data.testbed}
    unknown = sorted(set(settings) - {"n_train", "n_eval", "levels", "seed", "task"})
    if unknown:
        raise ValueError(
            f"unknown key(s) {[f'data.testbed.{k}' for k in unknown]}; valid: n_train, n_eval, levels, seed, task"
        )
    if "task" in params.model.testbed:
        raise ValueError("set the testbed task in data.testbed.task (it drives both the data and the base model), "
                         "not in model.testbed.task")
    return settings


def eval_sets() -> dict[str, list[dict[str, Any]]]:
    files = sorted(DATA_DIR.glob("eval_*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no {DATA_DIR}/eval_*.jsonl: run the data stage first (`dvc repro data`)")
    return {f.stem[len("eval_"):]: read_jsonl(f) for f in files}


# ----------------------------------------------------------------------------- stage: base_model
def stage_base_model(params: Params) -> Path:
    """Build + SFT the testbed base policy into models/base, or record the external model params name."""
    from .testbed import TestbedConfig, build_base_policy

    if params.model.path is not None:
        if BASE_MODEL_DIR.exists():
            shutil.rmtree(BASE_MODEL_DIR)
        write_json_atomic(BASE_MODEL_DIR / EXTERNAL_MODEL_FILE, {"path": params.model.path})
        return Path(params.model.path)
    tb = testbed_data_settings(params)
    knobs = {"seed": tb["seed"], "n_eval": tb["n_eval"], "levels": tuple(tb["levels"]), "task": tb["task"],
             **params.model.testbed}
    try:
        config = TestbedConfig(**knobs)
    except TypeError as err:
        raise ValueError(f"params 'model.testbed': {err}") from None
    return build_base_policy(BASE_MODEL_DIR, config)


def base_model_path(params: Params) -> str:
    """Where the base policy lives: params' model.path (local folder or hub id) or the built testbed model."""
    if params.model.path is not None:
        return params.model.path
    if not (BASE_MODEL_DIR / "config.json").exists():
        raise FileNotFoundError(
            f"no base model in {BASE_MODEL_DIR}: run the base_model stage (`dvc repro base_model`) or set "
            "model.path in params.yaml to a model folder"
        )
    return str(BASE_MODEL_DIR)


# ----------------------------------------------------------------------------- stage: train
def stage_train(params: Params, run: str) -> list[dict[str, float]]:
    """Train one run of params' ``methods`` from the base model; returns the per-step history."""
    from .train import train_method

    if run not in params.runs:
        raise ValueError(f"run '{run}' is not in params.yaml 'methods'; runs: {sorted(params.runs)}")
    spec = params.runs[run]
    records = read_jsonl(DATA_DIR / "train.jsonl")
    out_dir, live_dir = RUNS_DIR / run, TRAINING_LOGS_DIR / run
    for folder in (out_dir, live_dir):
        if folder.exists():
            shutil.rmtree(folder)
    history = train_method(base_model_path(params), spec.method, spec.hparams, records, spec.train, out_dir, live_dir)
    write_json_atomic(live_dir / "history.json", history)
    return history


# ----------------------------------------------------------------------------- stage: eval
def model_for_run(params: Params, run: str) -> str:
    if run == "base":
        return base_model_path(params)
    final = RUNS_DIR / run / "final"
    if not (final / "config.json").exists():
        raise FileNotFoundError(f"no trained model in {final}: run `dvc repro train@{run}` first")
    return str(final)


def stage_eval(params: Params, run: str) -> dict[str, dict[str, Any]]:
    """pass@k evaluation of one run (or ``base``) on every eval set; writes reports/eval/<run>/ and metrics."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .eval import evaluate_benchmark, write_results

    path = model_for_run(params, run)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path)
    if torch.cuda.is_available():
        model = model.to("cuda")
    model.eval()
    e = params.eval
    results = {
        name: evaluate_benchmark(
            model, tokenizer, problems, n=e.n, ks=e.ks, temperature=e.temperature, top_p=e.top_p,
            max_new_tokens=e.max_new_tokens, batch_size=e.batch_size, seed=params.seed, n_boot=e.n_boot,
        )
        for name, problems in eval_sets().items()
    }
    write_results(results, EVAL_DIR / run)
    summary = {
        bench: {metric: round(v["value"], 6) for metric, v in result["metrics"].items()}
        for bench, result in results.items()
    }
    write_json_atomic(METRICS_DIR / f"{run}.json", summary)
    return results


# ----------------------------------------------------------------------------- stage: report
def stage_report(params: Params) -> Path:
    from .report import write_report
    from .report import load_eval_results, load_histories

    runs = list(params.runs)
    histories = load_histories({run: TRAINING_LOGS_DIR / run for run in runs})
    evals = load_eval_results({run: EVAL_DIR / run for run in ["base", *runs]})
    summary = {"profile": params.profile, "seed": params.seed, "data": asdict(params.data),
               "train": asdict(params.train), "eval": asdict(params.eval),
               "methods": {name: {"method": s.method, **s.hparams} for name, s in params.runs.items()}}
    write_report(REPORTS_DIR, histories, evals, title="Entropy control in RLVR: results", params_summary=summary)
    return REPORTS_DIR / "README.md"
