"""Where the pipeline's files live (data, base policies, runs, logs, evaluations) and the checks that a run's
recorded settings still match params.yaml; the paper reports read results through these paths."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rlvr_lib.files.readers import read_json
from rlvr_lib.settings import config
from rlvr_lib.settings.config import FULL_SET, LEVEL_SETS, Params, RunSpec
from rlvr_lib.settings.names import did_you_mean
from rlvr_lib.tasks.records import RowCheck, read_problems
from rlvr_lib.training.progress import in_dvc_stage, use_text_progress_bars

DATA_DIR = Path("data/generated")
FILTERED_DIR = Path("data/filtered")  # the filter_data stage's training sets, seed<N>/<name>.jsonl
FILTERED_INDEX = "index.json"  # rows and sha256 of each set in a seed's folder of FILTERED_DIR
BASE_MODEL_DIR = Path("models/base")  # one base policy per training seed, seed<N>/
RUNS_DIR = Path("runs")
PARTIAL_RUNS_DIR = RUNS_DIR / ".partial"
FINGERPRINT_FILE = "fingerprint.json"  # in a partial run: the settings and inputs it was started with
REPORTS_DIR = Path("reports")
PIPELINES_DIR = Path("pipelines")  # pipelines/<run>/dvc.yaml: each run's generated train and eval stages
TRAINING_LOGS_DIR = REPORTS_DIR / "training"
EVAL_DIR = REPORTS_DIR / "eval"
METRICS_DIR = REPORTS_DIR / "metrics"
EXTERNAL_MODEL_FILE = "external_model.json"
PARAMS_CHECK_FILE = REPORTS_DIR / "params_check.txt"
DATA_REPORT_FILE = "data_report.json"  # files source: filter counts and contamination


def repo_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: cwd) that holds params.yaml."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "params.yaml").exists():
            return folder
    raise FileNotFoundError(f"no params.yaml in {here} or any parent: run from inside the repository")


def load_params(params_path: str | Path = "params.yaml") -> Params:
    """params.yaml checked whole, each run's method hyperparameters included (building a method imports torch)."""
    return config.load_params(params_path, check_method=_build_method)


def _build_method(method: str, hparams: dict[str, Any], path: str) -> Any:
    from rlvr_lib.methods import build_method

    return build_method(method, hparams, path=path)


def enter_repo(params_path: str = "params.yaml") -> Params:
    """chdir to the repository root and load (and validate) params.yaml.

    Inside a DVC stage (DVC sets ``DVC_STAGE``, and the kernel inherits it) progress bars are switched to
    plain text, so papermill's ``--log-output`` shows them in the log instead of as notebook widgets.
    """
    if in_dvc_stage():
        use_text_progress_bars()
    os.chdir(repo_root())
    return load_params(params_path)


def run_spec(params: Params, run: str) -> RunSpec:
    """The entry ``run`` of params.yaml's ``methods``, or an error listing the runs that exist."""
    if run not in params.runs:
        raise ValueError(
            f"run '{run}' is not an entry of params.yaml 'methods'{did_you_mean(run, params.runs)}; runs: "
            f"{', '.join(sorted(params.runs))}"
        )
    return params.runs[run]


def run_seeds(params: Params, run: str) -> list[int]:
    """The training seeds of ``run`` (``methods.<run>.seeds``), or of every run together for ``base``."""
    return params.all_seeds if run == "base" else run_spec(params, run).seeds


def training_seed(params: Params, seed: int | None, run: str = "base") -> int:
    """``seed`` (one of ``run``'s training seeds; for ``base``, of any run's), or the first of them when None (a
    notebook's default)."""
    seeds = run_seeds(params, run)
    if seed is None:
        return seeds[0]
    if seed not in seeds:
        where = "any run's seeds" if run == "base" else f"methods.{run}.seeds (default: the top-level seeds)"
        raise ValueError(f"seed {seed} is not one of {where} in params.yaml: {seeds}")
    return seed


def seed_folder(seed: int) -> str:
    """The folder of one training seed inside a run's folders: ``runs/<run>/seed<N>``, ``reports/eval/<run>/...``."""
    return f"seed{seed}"


def filtered_dir(seed: int) -> Path:
    """The filter_data stage's sets of training seed ``seed`` (the base policy of that seed filtered them)."""
    return FILTERED_DIR / seed_folder(seed)


def training_data_file(train_data: str = FULL_SET, seed: int = 0) -> Path:
    """The file of a run's ``train_data``: ``full`` and a levels-only set (``LEVEL_SETS``, selected from it) read
    the data stage's set, any other name training seed ``seed``'s filter_data set."""
    full = train_data in (FULL_SET, *LEVEL_SETS)
    return DATA_DIR / "train.jsonl" if full else filtered_dir(seed) / f"{train_data}.jsonl"


def training_records(
    train_data: str = FULL_SET, seed: int = 0, check: RowCheck | None = None, *, levels: list[int] | None = None
) -> list[dict[str, Any]]:
    """The problems of training set ``train_data`` (``training_data_file``), each also passing ``check``; a
    levels-only set (``LEVEL_SETS``) keeps the full set's problems at ``levels`` (params.yaml ``level_sets``)."""
    stage = "data" if train_data in (FULL_SET, *LEVEL_SETS) else f"filter_data@{seed}"
    hint = f"run the {stage} stage first (`dvc repro {stage}`)"
    records = read_problems(training_data_file(train_data, seed), hint=hint, check=check)
    if train_data not in LEVEL_SETS:
        return records
    # selected here (a train stage's code), not in rlvr_lib.eval.data_filters (the filter_data stage's)
    if not levels:
        raise ValueError(f"the levels-only set '{train_data}' needs its levels (params.yaml level_sets.{train_data})")
    kept = [r for r in records if r.get("level") in set(levels)]
    if not kept:
        raise ValueError(f"the levels-only set '{train_data}' (levels {levels}) leaves no training problem")
    return kept


def eval_sets(check_for: Callable[[str], RowCheck | None] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The evaluation sets by benchmark name; ``check_for(name)``: a further check of that set's rows."""
    files = sorted(DATA_DIR.glob("eval_*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no {DATA_DIR}/eval_*.jsonl: run the data stage first (`dvc repro data`)")
    sets = {}
    for f in files:
        name = f.stem[len("eval_") :]
        check = check_for(name) if check_for else None
        sets[name] = read_problems(f, hint="rerun the data stage (`dvc repro -f data`)", check=check)
    return sets


FILTER_REPORT_DIR = REPORTS_DIR / "data_filters"


def filter_report_dir(seed: int) -> Path:
    """The filter_data stage's report of training seed ``seed``."""
    return FILTER_REPORT_DIR / seed_folder(seed)


def run_stage(run: str, stage: str, seed: int) -> str:
    """The DVC address of one of a run's stages (``train`` or ``eval``) for one seed: its own dvc.yaml's."""
    return f"pipelines/{run}/dvc.yaml:{stage}@{seed}"


def base_model_dir(seed: int) -> Path:
    """The testbed base policy of training seed ``seed``: ``models/base/seed<N>``."""
    return BASE_MODEL_DIR / seed_folder(seed)


def base_model_path(params: Params, seed: int) -> str:
    """Where training seed ``seed``'s base policy lives: params' model.path (local folder or hub id, one for every
    seed) or the testbed model built for that seed."""
    from rlvr_lib.training.train import check_model_folder

    if params.model.path is not None:
        check_model_folder(params.model.path, setting=f"{params.file} model.path")
        return params.model.path
    folder = base_model_dir(seed)
    if not (folder / "config.json").exists():
        raise FileNotFoundError(
            f"no base model in {folder}: run the base_model stage (`dvc repro base_model@{seed}`) or set "
            "model.path in params.yaml to a model folder"
        )
    check_model_folder(folder, hint=f"(re)run its base_model stage (`dvc repro -f base_model@{seed}`)")
    return str(folder)


def model_for_run(params: Params, run: str, seed: int) -> str:
    """The model folder of ``run`` (``base``: the base policy) trained with ``seed``, checked complete."""
    from rlvr_lib.training.train import check_model_folder

    if run == "base":
        return base_model_path(params, seed)
    run_spec(params, run)
    final = RUNS_DIR / run / seed_folder(seed) / "final"
    if not (final / "config.json").exists():
        raise FileNotFoundError(f"no trained model in {final}: run `dvc repro {run_stage(run, 'train', seed)}` first")
    check_model_folder(final, hint=f"rerun its train stage (`dvc repro -f {run_stage(run, 'train', seed)}`)")
    return str(final)


DECODINGS_FOLDER = "decodings"  # reports/eval/<run>/seed<N>/decodings/<name>/: the second evaluations
TESTBED_DIR = REPORTS_DIR / "testbed"
EVAL_SETTINGS_COMPARED = ("n", "temperature", "top_p", "max_new_tokens", "seed")  # ks: derived from n when null


def train_settings_difference(params: Params, run: str, seed: int) -> dict[str, tuple[Any, Any]]:
    """{setting: (recorded, params.yaml's)} where the settings ``reports/training/<run>/seed<N>/params.yaml`` records
    (the run's method, its hyperparameters set in params.yaml, training set and ``train`` settings when it was
    trained) differ from params.yaml's now; {} when they agree or nothing was recorded. A key only one side has (a
    setting added since) is not compared."""
    from rlvr_lib.files.readers import load_yaml_text

    path = TRAINING_LOGS_DIR / run / seed_folder(seed) / "params.yaml"
    if not path.is_file():
        return {}
    recorded = load_yaml_text(path.read_text(encoding="utf-8")) or {}
    spec = run_spec(params, run)
    wanted = {
        "method": spec.method,
        "train_data": spec.train_data,
        **spec.hparams,
        **asdict(params.train_config(run, seed)),
    }
    return {
        k: (recorded[k], v) for k, v in wanted.items() if k in recorded and _as_number(recorded[k]) != _as_number(v)
    }


def _as_number(value: Any) -> Any:
    """``value``, or the float it spells: PyYAML writes 1e-06 without a dot, which YAML 1.1 reads back as a string."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def eval_results_path(run: str, seed: int, decoding: str | None = None) -> Path:
    """``reports/eval/<run>/seed<N>/results.json``, or a paper decoding's under ``decodings/<name>/``."""
    folder = EVAL_DIR / run / seed_folder(seed)
    return (folder if decoding is None else folder / DECODINGS_FOLDER / decoding) / "results.json"


def check_eval_settings(params: Params, run: str, seed: int, decoding: str | None = None) -> None:
    """Raise when ``run``'s evaluation with ``seed`` (at the paper ``decoding``, None: the shared one) is missing
    or was sampled with other settings than params.yaml's."""
    path = eval_results_path(run, seed, decoding)
    stage = f"eval_base@{seed}" if run == "base" else run_stage(run, "eval", seed)
    for benchmark, result in read_json(path, dict, hint=f"(re)run `dvc repro -f {stage}`").items():
        if not isinstance(result, dict) or not isinstance(result.get("settings", {}), dict):
            raise ValueError(
                f"{path}: field '{benchmark}' (and its 'settings') must be a JSON object: rerun `dvc repro -f {stage}`"
            )
        wanted = {**params.eval.for_benchmark(benchmark, decoding), "seed": seed}
        got = result.get("settings", {})
        differ = [
            f"{k}={got.get(k)!r} (params: {wanted[k]!r})" for k in EVAL_SETTINGS_COMPARED if got.get(k) != wanted[k]
        ]
        if differ:
            raise ValueError(
                f"{path} ({benchmark}) was evaluated with other settings than params.yaml (profile "
                f"'{params.profile}'): {', '.join(differ)}; rerun `dvc repro {stage}` (or `dvc repro` for all)"
            )
