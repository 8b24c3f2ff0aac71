"""The DVC stages' logic, one function per stage; the notebooks in ``notebooks/`` call these and show results.

Paths are relative to the repository root (the folder holding params.yaml), so a notebook works both under
papermill (run from the root) and opened in JupyterLab (run from ``notebooks/``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rlvr_lib.files.atomic import publish, staging_dir, write_atomic, write_json_atomic, write_jsonl_atomic
from rlvr_lib.files.readers import read_json
from rlvr_lib.settings.config import (
    FILTERED_SETS,
    LEVEL_SETS,
    TESTBED_BENCHMARK,
    DataConfig,
    Params,
    read_yaml,
)
from rlvr_lib.settings.papers import decodings_for_run
from rlvr_lib.tasks.records import check_problems, prompt_fits, read_problems
from rlvr_lib.workspace import lineage
from rlvr_lib.workspace.layout import (
    DATA_DIR,
    DATA_REPORT_FILE,
    DECODINGS_FOLDER,
    EVAL_DIR,
    EXTERNAL_MODEL_FILE,
    FILTERED_INDEX,
    FINGERPRINT_FILE,
    METRICS_DIR,
    PARAMS_CHECK_FILE,
    PARTIAL_RUNS_DIR,
    PIPELINES_DIR,
    RUNS_DIR,
    TESTBED_DIR,
    TRAINING_LOGS_DIR,
    base_model_dir,
    base_model_path,
    eval_sets,
    filter_report_dir,
    filtered_dir,
    load_params,
    model_for_run,
    run_seeds,
    run_spec,
    run_stage,
    seed_folder,
    training_data_file,
    training_records,
    training_seed,
)


def stage_origin(dvc_file: Path, name: str, seed: int, settings: dict[str, Any]) -> dict[str, Any]:
    """The origin record (``rlvr_lib.workspace.lineage``) of stage ``<name>@<seed>`` of ``dvc_file``: the deps and
    params its dvc.yaml entry names, hashed and read now, before the stage reads them (none outside a pipeline: no
    such dvc.yaml or entry, e.g. a scratch workspace)."""
    stages = (read_yaml(dvc_file) or {}).get("stages", {}) if dvc_file.is_file() else {}
    spec = stages.get(name, {}).get("do", {"deps": [], "params": []})
    deps = [dep.replace("${item}", str(seed)) for dep in spec["deps"]]
    raw = read_yaml("params.yaml")
    values = {}
    for key in spec["params"]:
        value = raw
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        values[key] = value
    return lineage.origin_record(f"{dvc_file}:{name}@{seed}", deps, values, settings)


def run_origin(
    stage: str, run: str, seed: int, settings: dict[str, Any], dvc_stage: tuple[Path, str] | None = None
) -> dict[str, Any]:
    """``stage_origin`` of a run's ``train`` or ``eval`` stage (``eval_base`` of the root dvc.yaml for ``base``), or
    of ``dvc_stage`` (its dvc.yaml and stage name) where another file defines it (a tuning run's)."""
    if dvc_stage is not None:
        return stage_origin(*dvc_stage, seed, settings)
    if run == "base":
        return stage_origin(Path("dvc.yaml"), "eval_base", seed, settings)
    return stage_origin(PIPELINES_DIR / run / "dvc.yaml", stage, seed, settings)


# ----------------------------------------------------------------------------- stage: check_params
def stage_check_params(params_path: str = "params.yaml", record: Path | None = PARAMS_CHECK_FILE) -> Path | None:
    """Validate the whole params file (unknown top-level keys included) and record that it passed in ``record``
    (None: no record, for a file other than the pipeline's).

    dvc.yaml makes every other stage depend on the record, and this stage on every key of params.yaml, so
    ``dvc repro`` stops here on any bad or misspelled key. The record's content does not depend on the values,
    so a valid change reruns only the stages that use it.
    """
    load_params(params_path)
    if record is not None:
        write_atomic(record, f"{params_path}: valid\n")
    return record


# ----------------------------------------------------------------------------- stage: data
def stage_data(params: Params) -> dict[str, Any]:
    """Write ``data/generated/train.jsonl`` and one ``eval_<benchmark>.jsonl`` per benchmark; returns row counts
    (with ``data.source: files`` also ``report``, written to ``data/generated/data_report.json``).

    Every set is built and checked (non-empty) before ``data/generated`` is replaced as a whole.
    """
    from rlvr_lib.testbed import make_splits, to_records

    cfg = params.data
    report = None
    if cfg.source == "testbed":
        tb = cfg.testbed
        train, held_out = make_splits(tb.n_train, tb.n_eval, params.testbed_seed, tuple(tb.levels), tb.task)
        train_rows, benchmarks = to_records(train), {TESTBED_BENCHMARK: to_records(held_out)}
    else:
        train_rows, benchmarks, report = files_data(cfg)
    counts = {"train": len(train_rows), **{f"eval_{k}": len(v) for k, v in benchmarks.items()}}
    for name, count in counts.items():
        if not count:
            raise ValueError(f"data stage: the '{name}' set is empty (data settings in params.yaml)")
    for name, rows in {"train": train_rows, **{f"eval_{k}": v for k, v in benchmarks.items()}}.items():
        check_problems(rows, f"data stage: the '{name}' set")
    with staging_dir(".", "data") as staged:
        write_jsonl_atomic(staged / "train.jsonl", train_rows)
        for name, rows in benchmarks.items():
            write_jsonl_atomic(staged / f"eval_{name}.jsonl", rows)
        if report is not None:
            write_json_atomic(staged / DATA_REPORT_FILE, {**report, "written": counts})
        publish({staged: DATA_DIR})
    return counts if report is None else {**counts, "report": report}


def files_data(cfg: DataConfig) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """Training rows, evaluation sets and a report (row count after each filter; contamination of the training
    set against every benchmark present, exact and normalised-text matches) for ``data.source: files``."""
    from rlvr_lib.tasks import data as real_data

    template = cfg.prompt_template or real_data.DEFAULT_TEMPLATE
    needs_tokenizer = cfg.max_solution_tokens is not None or cfg.max_prompt_tokens is not None
    train_rows, steps = real_data.build_training_rows(
        cfg.train_set,
        cfg.root,
        levels=cfg.train_levels,
        dedupe_problems=cfg.dedupe,
        max_solution_tokens=cfg.max_solution_tokens,
        max_prompt_tokens=cfg.max_prompt_tokens,
        template=template,
        max_rows=cfg.max_train,
        tokenizer=real_data.length_tokenizer(cfg.tokenizer, cfg.root) if needs_tokenizer else None,
    )
    benchmarks = {
        name: [
            {**r, "prompt": real_data.format_prompt(r["problem"], template)}
            for r in real_data.load_benchmark(name, cfg.root, limit=cfg.eval_limits.get(name, cfg.max_eval))
        ]
        for name in cfg.benchmarks
    }
    contamination = {}
    for name in real_data.BENCHMARKS:  # every benchmark present, not only the evaluated ones
        try:
            rows = benchmarks.get(name) or real_data.load_benchmark(name, cfg.root)
        except FileNotFoundError:
            continue
        contamination[name] = real_data.contamination(train_rows, rows)
    return train_rows, benchmarks, {"train_set": cfg.train_set, "train_steps": steps, "contamination": contamination}


# ----------------------------------------------------------------------------- stage: filter_data


def stage_filter_data(params: Params, seed: int | None = None) -> dict[str, Any]:
    """The papers' training-set filters (``rlvr_lib.eval.data_filters``) on ``data/generated/train.jsonl`` with training
    seed ``seed``'s base policy: one set per enabled entry of params' ``data_filters``,
    ``data/filtered/seed<N>/<name>.jsonl`` (the records unchanged, in file order), with ``index.json`` beside them
    (rows and sha256 per set) and a report, ``reports/data_filters/seed<N>/`` (README.md, filters.json: the rows
    left after each rule). Returns the report's summary."""
    from rlvr_lib.eval.data_filters import report_markdown

    seed = training_seed(params, seed)
    cfg = params.data_filters
    records = training_records()
    summary: dict[str, Any] = {
        "input": {"rows": len(records), "by_level": _by_level(records)},
        "sets": {},
        "not_built": [name for name in FILTERED_SETS if not getattr(cfg, name).enabled],
    }
    sets = {}
    if cfg.erpo.enabled or cfg.tepo.enabled:
        model, tokenizer = _load_policy(base_model_path(params, seed), with_model=cfg.tepo.enabled)
    if cfg.erpo.enabled:
        sets["erpo"], summary["sets"]["erpo"] = _erpo_set(params, records, tokenizer)
    if cfg.tepo.enabled:
        sets["tepo"], summary["sets"]["tepo"] = _tepo_set(params, records, model, tokenizer, seed)
    for name in sets:
        summary["sets"][name]["file"] = str(training_data_file(name, seed))
    with staging_dir(".", f"filter_data_{seed}") as staged:
        (staged / "filtered").mkdir()
        index = {}
        for name, rows in sets.items():
            path = staged / "filtered" / f"{name}.jsonl"
            write_jsonl_atomic(path, rows)
            index[name] = {"rows": len(rows), "sha256": file_digest(path)}
        write_json_atomic(staged / "filtered" / FILTERED_INDEX, index)
        (staged / "report").mkdir()
        write_json_atomic(staged / "report" / "filters.json", summary)
        write_atomic(staged / "report" / "README.md", report_markdown(summary))
        publish({staged / "filtered": filtered_dir(seed), staged / "report": filter_report_dir(seed)})
    return summary


def _by_level(rows: list[dict[str, Any]]) -> dict[str, int]:
    from rlvr_lib.eval.data_filters import count_by

    return count_by(rows, lambda r: r.get("level"))


def _erpo_set(params: Params, records: list[dict], tokenizer) -> tuple[list[dict], dict[str, Any]]:
    """ERPO's set (testbed records get their generator's reference solution first) and its report entry."""
    from statistics import median

    from rlvr_lib.eval import data_filters as filters
    from rlvr_lib.tasks.data import token_lengths

    cfg = params.data_filters.erpo
    rows = records if params.data.source == "files" else filters.with_solutions(records, _testbed_solutions(params))
    max_length = cfg.max_length or params.train.max_completion_length
    kept, counts = filters.erpo_filter(rows, tokenizer, levels=cfg.levels, max_length=max_length, fraction=cfg.fraction)
    kept_uids, levels = {r["uid"] for r in kept}, set(cfg.levels)
    lengths = token_lengths(tokenizer, [r["solution"] for r in rows if r["level"] in levels])
    candidates = {
        "the paper's 10%": filters.ERPO_PAPER_FRACTION,
        "applied (data_filters.erpo.fraction)": cfg.fraction,
        "budget at the median solution": median(lengths) / max_length,
        "the smallest keeping every solution": max(lengths) / max_length,
    }
    kept_at = filters.kept_at_fractions(lengths, max_length, list(candidates.values()))
    out = [r for r in records if r["uid"] in kept_uids]
    return out, {
        "settings": {
            "levels": cfg.levels,
            "max_length": max_length,
            "fraction": cfg.fraction,
            "budget": cfg.fraction * max_length,
        },
        "counts": counts,
        "by_level": {"input": _by_level(records), "kept": _by_level(out)},
        "solution_tokens": {"min": min(lengths), "median": median(lengths), "max": max(lengths)},
        "kept_at": [{"rule": rule, "fraction": f, "kept": kept_at[f]} for rule, f in candidates.items()],
    }


def _tepo_set(params: Params, records: list[dict], model, tokenizer, seed: int) -> tuple[list[dict], dict[str, Any]]:
    """TEPO's set (training seed ``seed``'s base policy's groups, sampled once with that seed) and its report entry,
    with kept rows per level and, on testbed task v3, per kind of problem (trap or plain sum)."""
    from rlvr_lib.eval import data_filters as filters

    sampling = params.data_filters.tepo.sampling(params.train, seed)
    kept, counts = filters.group_outcome_filter(
        records, filters.sample_correctness(model, tokenizer, records, **sampling)
    )
    breakdowns = {"level": _by_level}
    if params.data.source == "testbed" and params.data.testbed.task == "v3":
        from rlvr_lib.testbed.task_v3 import is_trap

        breakdowns["v3 kind"] = lambda rows: filters.count_by(
            rows, lambda r: "trap" if is_trap(r["prompt"]) else "plain"
        )
    return kept, {
        "settings": sampling,
        "counts": counts,
        "breakdowns": {name: {"input": f(records), "kept": f(kept)} for name, f in breakdowns.items()},
    }


def _load_policy(path: str, *, with_model: bool):
    """(model or None, tokenizer) of a model folder or hub id; the model in eval mode, on the GPU if there is one."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    if not with_model:
        return None, tokenizer
    model = AutoModelForCausalLM.from_pretrained(path)
    return (model.to("cuda") if torch.cuda.is_available() else model).eval(), tokenizer


def _testbed_solutions(params: Params) -> dict[str, str]:
    """uid -> the reference solution the testbed generator wrote for each training problem (regenerated from
    params' data settings, as the data stage made them)."""
    from rlvr_lib.testbed import make_splits

    tb = params.data.testbed
    train, _ = make_splits(tb.n_train, tb.n_eval, params.testbed_seed, tuple(tb.levels), tb.task)
    return {p.uid: p.solution for p in train}


# ----------------------------------------------------------------------------- stage: base_model


def stage_base_model(params: Params, seed: int | None = None) -> Path:
    """Build + SFT training seed ``seed``'s testbed base policy into models/base/seed<N> (model initialisation and
    SFT seeded by ``seed``; task, SFT solutions and tokenizer by the top-level ``seed``), or record the external
    model params name."""
    from rlvr_lib.testbed import build_base_policy

    seed = training_seed(params, seed)
    out = base_model_dir(seed)
    if params.model.path is not None:
        with staging_dir(".", f"base_model_{seed}") as staged:
            write_json_atomic(staged / "base" / EXTERNAL_MODEL_FILE, {"path": params.model.path})
            publish({staged / "base": out})
        return Path(params.model.path)
    with staging_dir(".", f"base_model_{seed}") as staged:
        build_base_policy(staged / "base", params.testbed_build(seed))
        publish({staged / "base": out})
    return out


# ----------------------------------------------------------------------------- stage: train
def stage_train(
    params: Params, run: str, seed: int | None = None, *, dvc_stage: tuple[Path, str] | None = None
) -> list[dict[str, float]]:
    """Train one run of params' ``methods`` with one training seed from the base model; returns the history.
    ``dvc_stage``: the dvc.yaml and stage name its origin record names, where not ``pipelines/<run>/dvc.yaml``'s
    ``train`` (a tuning configuration's run, ``rlvr_lib.pipeline.tuning_stages``).

    Everything is checked before any work (run name, seed, settings, TRL's batch rules, model folder, data).
    Training runs in ``runs/.partial/<run>/seed<N>``: with ``save_steps`` it checkpoints there, and a rerun of an
    interrupted stage with the same settings resumes from the last checkpoint (other settings start afresh). Only
    a finished run replaces ``runs/<run>/seed<N>`` and ``reports/training/<run>/seed<N>``.
    """
    from rlvr_lib.training import train as training

    spec = run_spec(params, run)
    seed = training_seed(params, seed, run)
    cfg = params.train_config(run, seed)
    folder = Path(run) / seed_folder(seed)
    work = PARTIAL_RUNS_DIR / folder
    training.grpo_config(cfg, work)  # TRL's own checks
    model_path = base_model_path(params, seed)
    levels = getattr(params.level_sets, spec.train_data).levels if spec.train_data in LEVEL_SETS else None
    records = training_records(
        spec.train_data,
        seed,
        prompt_fits(model_path, cfg.max_completion_length, "train.max_completion_length"),
        levels=levels,
    )
    if len(records) < cfg.rollout_prompts:
        raise ValueError(
            f"methods.{run}: its training set '{spec.train_data}' ({training_data_file(spec.train_data, seed)}) holds "
            f"{len(records)} problems, fewer than one rollout batch of {cfg.rollout_prompts} prompts (prompts_per_step "
            "x steps_per_generation / gradient_accumulation_steps), of which TRL would train no step"
        )
    fingerprint = {
        "method": spec.method,
        "hparams": spec.hparams,
        "train": asdict(cfg),
        "model": model_path,
        "model_files": folder_digest(model_path),
        "train_data": spec.train_data,
        **({"levels": levels} if levels else {}),
        "data": file_digest(training_data_file(spec.train_data, seed)),
    }
    origin = run_origin("train", run, seed, fingerprint, dvc_stage)
    from accelerate import PartialState

    state = PartialState()  # under `accelerate launch`: every process trains, the main one writes
    if state.is_main_process and not resumable(work, fingerprint):
        shutil.rmtree(work, ignore_errors=True)
        write_json_atomic(work / FINGERPRINT_FILE, fingerprint)
    state.wait_for_everyone()
    trainer = training.build_trainer(model_path, spec.method, spec.hparams, records, cfg, work)
    history = training.train_method(trainer, work)
    if not state.is_main_process:
        return history
    staged_logs = work / "logs"
    shutil.rmtree(staged_logs, ignore_errors=True)
    training.write_training_logs(
        history,
        staged_logs,
        {"run": run, "method": spec.method, "train_data": spec.train_data, **spec.hparams, **asdict(cfg)},
    )
    write_json_atomic(staged_logs / "history.json", history)
    lineage.write_origin(staged_logs, origin)
    with staging_dir(".", f"train_{run}_{seed}") as staged:
        os.replace(work / "final", staged / "final")
        publish({staged: RUNS_DIR / folder, staged_logs: TRAINING_LOGS_DIR / folder})
    shutil.rmtree(work)
    return history


def resumable(work: Path, fingerprint: dict[str, Any]) -> bool:
    """Whether the partial run in ``work`` was started with the settings and inputs ``fingerprint`` records (its
    checkpoints may be resumed); when ``work`` exists but may not be resumed, says why."""
    if not work.exists():
        return False
    try:
        saved = read_json(work / FINGERPRINT_FILE, dict)
    except (OSError, ValueError) as err:
        print(f"{err}; starting afresh in {work}")
        return False
    if saved != json.loads(json.dumps(fingerprint)):
        print(f"{work} was started with other settings or inputs: starting afresh")
        return False
    return True


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def folder_digest(path: str) -> str | None:
    """sha256 over a local model folder's files (size + mtime for files over 256 MiB); None for a hub id."""
    folder = Path(path)
    if not folder.is_dir():
        return None
    h = hashlib.sha256()
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(f.relative_to(folder)).encode())
        stat = f.stat()
        h.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode() if stat.st_size > 2**28 else f.read_bytes())
    return h.hexdigest()


# ----------------------------------------------------------------------------- stage: eval


def stage_eval(
    params: Params,
    run: str,
    seed: int | None = None,
    *,
    sets: dict[str, Path] | None = None,
    out: Path | None = None,
    dvc_stage: tuple[Path, str] | None = None,
) -> dict[str, dict[str, Any]]:
    """pass@k evaluation of one run (or ``base``) with one seed on every eval set: the model trained with that
    seed, sampled with it, at the shared settings and at each paper's own decoding that reads the run
    (``decodings_for_run``). Writes ``reports/eval/<run>/seed<N>/`` (the paper decodings' under
    ``decodings/<name>/``) and ``reports/metrics/<run>/seed<N>.json`` (the shared decoding's). Returns the shared
    decoding's results.

    A tuning evaluation (``rlvr_lib.pipeline.tuning_stages``) passes ``sets`` (name -> problem file) in place of the
    evaluation sets, ``out`` in place of both outputs (the shared decoding only) and ``dvc_stage`` as
    ``stage_train``'s."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_lib.eval import evaluate_benchmark, write_results

    seed = training_seed(params, seed, run)
    path = model_for_run(params, run, seed)

    def fits(name: str):
        return prompt_fits(path, params.eval.for_benchmark(name)["max_new_tokens"], "eval.max_new_tokens")

    if sets is None:
        problems_by_set = eval_sets(fits)
    else:
        problems_by_set = {name: read_problems(file, check=fits(name)) for name, file in sets.items()}
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path)
    if torch.cuda.is_available():
        model = model.to("cuda")
    model.eval()
    e = params.eval
    origin = run_origin("eval", run, seed, {name: e.for_benchmark(name) for name in problems_by_set}, dvc_stage)

    def evaluate_at(decoding: str | None) -> dict[str, dict[str, Any]]:
        return {
            name: evaluate_benchmark(
                model,
                tokenizer,
                problems,
                **e.for_benchmark(name, decoding),
                batch_size=e.batch_size,
                seed=seed,
                n_boot=e.n_boot,
            )
            for name, problems in problems_by_set.items()
        }

    results = evaluate_at(None)
    summary = {
        bench: {metric: round(v["value"], 6) for metric, v in result["metrics"].items()}
        for bench, result in results.items()
    }
    with staging_dir(".", f"eval_{run}_{seed}") as staged:
        write_results(results, staged / "eval")
        if out is not None:
            lineage.write_origin(staged / "eval", origin)
            publish({staged / "eval": out})
            return results
        for decoding in decodings_for_run(params.papers, run):
            write_results(evaluate_at(decoding), staged / "eval" / DECODINGS_FOLDER / decoding)
        write_json_atomic(staged / "metrics.json", summary)
        lineage.write_origin(staged / "eval", origin)
        publish(
            {
                staged / "eval": EVAL_DIR / run / seed_folder(seed),
                staged / "metrics.json": METRICS_DIR / run / f"{seed_folder(seed)}.json",
            }
        )
    return results


# ----------------------------------------------------------------------------- stage: testbed properties


def stage_testbed_properties(params: Params) -> dict[str, Any]:
    """The testbed's measured properties (``rlvr_lib.testbed.properties``): the base policy and every seed of
    ``testbed_properties.run`` sampled ``testbed_properties.n`` times per eval problem, each run's entropy ratio
    from its training log, v3 route shares, and ERPO's fig. 1(b) perturbation study on the base policy. Writes
    ``reports/testbed/`` (README.md, properties.json, passk.png)."""
    import pandas as pd
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_lib.analysis.perturbation import collect_correct_responses, perturbation_study
    from rlvr_lib.eval import combine_seeds
    from rlvr_lib.render.plots import plot_pass_at_k
    from rlvr_lib.render.tables import png_bytes
    from rlvr_lib.testbed import properties

    if params.data.source != "testbed":  # nothing to measure: say so, so that the report stage can still run
        with staging_dir(".", "testbed_properties") as staged:
            write_atomic(
                staged / "README.md",
                "# The testbed's measured properties\n\nNot measured: data.source is "
                "'files' (real data sets), and these are properties of the synthetic testbed.\n",
            )
            publish({staged: TESTBED_DIR})
        return {}
    cfg, e = params.testbed_properties, params.eval
    if cfg.run not in params.runs:
        raise ValueError(
            f"testbed_properties.run: '{cfg.run}' is not an entry of params.yaml 'methods' ({', '.join(params.runs)})"
        )
    problems = eval_sets()["testbed"]
    sampling = {"temperature": e.temperature, "top_p": e.top_p, "max_new_tokens": e.max_new_tokens}
    v3 = params.data.testbed.task == "v3"
    histories, seeds = {}, run_seeds(params, cfg.run)
    for seed in seeds:  # check every input before sampling anything
        path = TRAINING_LOGS_DIR / cfg.run / seed_folder(seed) / "history.json"
        histories[seed] = read_json(path, list, hint=f"(re)run `dvc repro -f {run_stage(cfg.run, 'train', seed)}`")
        model_for_run(params, cfg.run, seed)

    def load(path: str):
        tokenizer = AutoTokenizer.from_pretrained(path)
        tokenizer.padding_side = "left"
        model = AutoModelForCausalLM.from_pretrained(path)
        return (model.to("cuda") if torch.cuda.is_available() else model).eval(), tokenizer

    def measure(path: str, seed: int) -> dict:
        model, tokenizer = load(path)
        result = properties.evaluate_by_kind(
            model, tokenizer, problems, n=cfg.n, seed=seed, batch_size=e.batch_size, n_boot=e.n_boot, **sampling
        )
        if v3:
            result["routes"] = properties.route_shares(
                model, tokenizer, problems, n=cfg.route_samples, seed=seed + 1, batch_size=e.batch_size, **sampling
            )
        return result

    base_seed = seeds[0]  # the base policy of the run's first seed, sampled with that seed
    base = measure(base_model_path(params, base_seed), base_seed)
    runs = {seed: measure(model_for_run(params, cfg.run, seed), seed) for seed in seeds}
    summary = properties.summarise(base, runs, histories, n=cfg.n, last=cfg.entropy_last, n_boot=e.n_boot)

    model, tokenizer = load(base_model_path(params, base_seed))
    regenerate = {"temperature": e.temperature, "max_new_tokens": e.max_new_tokens}  # the protocol samples top_p 1
    responses = collect_correct_responses(
        model, tokenizer, problems, n=cfg.perturb_samples, seed=base_seed, batch_size=e.batch_size, **regenerate
    )
    perturbation = {}
    for mode in ("uniform", "policy") if responses else ():  # none: the base solved no problem (tiny smoke model)
        study = perturbation_study(
            model,
            tokenizer,
            responses,
            frac=cfg.perturb_frac,
            replacement=mode,
            batch_size=e.batch_size,
            seed=base_seed,
            n_boot=e.n_boot,
            **regenerate,
        )
        study.pop("trials")
        perturbation[mode] = study
    summary["perturbation"] = perturbation

    curves = {"base": base["metrics"], cfg.run: combine_seeds(list(runs.values()), n_boot=e.n_boot)}
    frame = pd.DataFrame(
        [
            {"run": run, "benchmark": "testbed", "metric": metric, **{k: v[k] for k in ("value", "ci_low", "ci_high")}}
            for run, metrics in curves.items()
            for metric, v in metrics.items()
            if metric.startswith("pass@")
        ]
    )
    readme = (
        "# The testbed's measured properties\n\n"
        "Produced by the `testbed_properties` stage (`dvc repro testbed_properties`; settings: params.yaml "
        "`testbed_properties` and `eval`). What they mean and why they hold: docs/testbed.md.\n\n"
        + properties.properties_markdown(summary, perturbation)
        + f"\n![pass@k of the base policy and {cfg.run}](passk.png)\n"
    )
    with staging_dir(".", "testbed_properties") as staged:
        out = staged / "testbed"
        out.mkdir()
        write_json_atomic(out / "properties.json", summary)
        write_atomic(out / "README.md", readme)
        write_atomic(out / "passk.png", png_bytes(plot_pass_at_k(frame, "testbed")))
        publish({out: TESTBED_DIR})
    return summary
