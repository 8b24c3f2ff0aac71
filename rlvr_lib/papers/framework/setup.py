"""The "Setup: paper vs testbed" section: one table of every setting in which the testbed differs from the paper,
and the exact sentence on which of the paper's method hyperparameters the runs use as given.

Both columns are computed: the paper's from its profile ``configs/<paper>.yaml`` (the paper's settings, each with the
section, table or appendix that states it in ``docs/paper_configs.md``, checked key by key by
tests/test_paper_configs.py), the testbed's from the resolved params of the report's run (params.yaml's shared
``train`` settings plus the run's overrides).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pandas as pd

from rlvr_lib.settings.config import Params, RunSpec, load_params

REPO = Path(__file__).resolve().parents[3]
CONFIGS_DIR = REPO / "configs"
PAPER_CONFIGS_DOC = REPO / "docs" / "paper_configs.md"
_ROW = re.compile(r"^\| `([^`]+)` \| `(.+)` \| (.+) \|$")
NOT_STATED = "not stated"

# How each paper picks the checkpoint it reports (the profile cannot hold it: the pipeline evaluates final models).
PAPER_CHECKPOINT = {
    "erpo": "not stated; a checkpoint every 25 steps, 1 epoch (sec. 5.1)",
    "cw_grpo": "table 2: the step-100 checkpoint; table 3: steps 100 / 150 / 200 (sec. 3.2; the paper's table 5 "
    "gives 100 training steps, its table 3 goes to 200)",
    "tepo": "not stated; table 4 reports benchmark accuracy at fixed steps (72 and 132) per seed",
    "opefo": "the best checkpoint by average accuracy, evaluated every 10 steps (sec. 6.1)",
    "aer": "the best checkpoint by AIME25 pass@1, evaluated every 20 steps (App. A.2)",
}


def doc_sources(paper: str, doc: Path = PAPER_CONFIGS_DOC) -> dict[str, str]:
    """{dotted setting: the paper's place that states it (or 'ours: ...')} from ``paper``'s table in ``doc``."""
    if not doc.is_file():
        raise FileNotFoundError(f"{doc} not found: the paper column of the setup table cites its sources from it")
    sources: dict[str, str] = {}
    current = None
    for line in doc.read_text().splitlines():
        if line.startswith("## "):
            heading = re.match(r"^## .*`configs/(\w+)\.yaml`", line)
            current = heading.group(1) if heading else None
            continue
        row = _ROW.match(line)
        if row and current == paper:
            sources[row.group(1)] = row.group(3).strip()
    if not sources:
        raise ValueError(f"{doc}: no table for paper '{paper}' (a '## ...: `configs/{paper}.yaml`' section)")
    return sources


def paper_profile(paper: str) -> Params:
    """The paper's own settings: ``configs/<paper>.yaml`` resolved like params.yaml."""
    path = CONFIGS_DIR / f"{paper}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: the paper column of the setup table is computed from it")
    return load_params(path)


def method_config(spec: RunSpec) -> dict[str, Any]:
    """The method hyperparameters ``spec`` trains with (its entry over the method's defaults)."""
    from rlvr_lib.methods import build_method

    return dataclasses.asdict(build_method(spec.method, spec.hparams).cfg)


def updates_per_rollout(spec: RunSpec) -> int:
    t = spec.train
    return t.rollout_micro_batches // t.gradient_accumulation_steps * t.num_iterations


def _updates(spec: RunSpec) -> str:
    """Updates per rollout batch as mini-batches x passes (8 disjoint mini-batches once is not 4 twice)."""
    t = spec.train
    mini, passes = t.rollout_micro_batches // t.gradient_accumulation_steps, t.num_iterations
    batches = f"{mini} mini-batch{'es' if mini != 1 else ''}"
    return f"{updates_per_rollout(spec)} ({batches} x {passes} pass{'es' if passes != 1 else ''})"


# What a method's ratio clip acts on (its eps_low / eps_high): the token ratio unless named here.
CLIP_TARGET = {
    "tepo": "the sequence's geometric-mean ratio w_i (eq. 4)",
    "gspo": "the sequence ratio (length-normalised)",
}


def _clip(spec: RunSpec) -> str:
    cfg = method_config(spec)
    if "eps_low" not in cfg or cfg.get("use_clip") is False:
        return "none"
    target = CLIP_TARGET.get(spec.method, "the token ratio")
    return f"[1 - {cfg['eps_low']:g}, 1 + {cfg['eps_high']:g}] on {target}"


def _aggregation(spec: RunSpec) -> str:
    return str(method_config(spec).get("loss_agg", NOT_STATED))


def _reward(spec: RunSpec) -> str:
    w = spec.train.format_weight
    return "accuracy" + (f" + {w:g} x format" if w else " only")


def _sampling_text(temperature: float, top_p: float, n: int) -> str:
    if temperature == 0:
        return "greedy"
    return f"temperature {temperature:g}, top-p {top_p:g}, n = {n}"


def _decoding(params: Params) -> str:
    """The evaluation's sampling: the shared setting and each benchmark's override."""
    e = params.eval
    overrides = [
        f"{name}: " + _sampling_text(**{k: e.for_benchmark(name)[k] for k in ("temperature", "top_p", "n")})
        for name, o in sorted(e.per_benchmark.items())
        if any(k in ("temperature", "top_p", "n") for k in o)
    ]
    text = _sampling_text(e.temperature, e.top_p, e.n)
    return text + (f" ({'; '.join(overrides)})" if overrides else "")


def verdicts_params(paper: str, params: Params) -> Params:
    """``params`` with its evaluation at the paper's own decoding (``papers.<paper>.eval_decoding``), the one the
    paper's accuracy verdicts read; ``params`` itself for a paper without one."""
    decoding = getattr(params.papers.paper(paper), "eval_decoding", None) if params.papers else None
    return params if decoding is None else dataclasses.replace(params, eval=params.eval.at_decoding(decoding))


def _steps(spec: RunSpec) -> str:
    t = spec.train
    return f"{t.num_train_epochs:g} epoch(s)" if t.num_train_epochs else f"{t.max_steps} optimizer steps"


def _lr(spec: RunSpec) -> str:
    t = spec.train
    warmup = f", warm-up {t.warmup_steps:g}" if t.warmup_steps else ""
    return f"{t.learning_rate:g} ({t.lr_scheduler_type}{warmup})"


def _lora(spec: RunSpec) -> str:
    t = spec.train
    return f"LoRA r={t.lora_r}, alpha={t.lora_alpha}" if t.lora_r else "none (full fine-tuning)"


def _kl(spec: RunSpec) -> str:
    cfg = method_config(spec)
    beta = cfg.get("beta")
    if beta is None:
        return NOT_STATED
    if beta == 0:
        return "none (beta 0)"
    target = {"old": "the rollout policy (pi_old)", "ref": "the reference policy"}.get(cfg.get("kl_target"), "")
    return f"beta {beta:g}" + (f" to {target}" if target else " to the reference policy")


def _eval_sets(params: Params) -> str:
    e = params.eval
    if params.data.source == "testbed":
        return f"{params.data.testbed.n_eval} held-out testbed problems, n = {e.n} samples each"
    sets = []
    for name in params.data.benchmarks:
        n = e.per_benchmark.get(name, {}).get("n", e.n)
        sets.append(f"{name} (n = {n})")
    return ", ".join(sets)


def _model(params: Params) -> str:
    if params.model.path:
        return params.model.path
    m = params.model.testbed
    return (
        f"from-scratch transformer, {m.num_layers} layers, width {m.hidden_size}, {m.num_heads} heads, vocabulary "
        f"<= {m.vocab_size}; base policy: {m.sft_steps} SFT steps"
    )


def _task(params: Params, spec: RunSpec) -> str:
    d = params.data
    if d.source == "testbed":
        subset = "" if spec.train_data == "full" else f"; training set `{spec.train_data}` (the paper's filter)"
        return f"synthetic sums, task {d.testbed.task}, levels {d.testbed.levels}, {d.testbed.n_train} problems{subset}"
    levels = f", levels {d.train_levels}" if d.train_levels else ""
    return f"{d.train_set}{levels}"


# (row, its value from (params, run spec), the profile settings that state it)
ROWS = (
    ("model and size", lambda p, s: _model(p), ("model.path",)),
    ("task (training set)", _task, ("data.train_set", "data.train_levels")),
    ("response length (tokens)", lambda p, s: str(s.train.max_completion_length), ("train.max_completion_length",)),
    ("learning rate", lambda p, s: _lr(s), ("train.learning_rate", "train.lr_scheduler_type", "train.warmup_steps")),
    ("LoRA", lambda p, s: _lora(s), ("train.lora_r", "train.lora_alpha")),
    ("temperature (training)", lambda p, s: f"{s.train.temperature:g}", ("train.temperature",)),
    ("group size G", lambda p, s: str(s.train.num_generations), ("train.num_generations",)),
    ("prompts per optimizer step", lambda p, s: str(s.train.prompts_per_step), ("train.prompts_per_step",)),
    (
        "updates per rollout batch",
        lambda p, s: _updates(s),
        ("train.steps_per_generation", "train.num_iterations"),
    ),
    ("steps", lambda p, s: _steps(s), ("train.max_steps", "train.num_train_epochs")),
    ("ratio clip (what it acts on)", lambda p, s: _clip(s), ("methods.{method}.eps_low", "methods.{method}.eps_high")),
    ("KL term (coefficient, target)", lambda p, s: _kl(s), ("methods.{method}.beta", "methods.{method}.kl_target")),
    ("loss aggregation", lambda p, s: _aggregation(s), ("methods.{method}.loss_agg",)),
    ("reward", lambda p, s: _reward(s), ("train.format_weight",)),
    ("evaluation sets and n", lambda p, s: _eval_sets(p), ("data.benchmarks", "eval.n", "eval.per_benchmark")),
    (
        "evaluation decoding",
        lambda p, s: _decoding(p),
        ("eval.temperature", "eval.top_p", "eval.per_benchmark"),
    ),
)


def _source(sources: dict[str, str], keys: tuple[str, ...], method: str) -> str:
    """The paper's places of a row's settings: the first key's as is, each other key's named (a row that joins the
    learning rate, its scheduler and its warm-up says which source is whose)."""
    cited: dict[str, str] = {}
    for i, key in enumerate(k.format(method=method) for k in keys):
        if key in sources and sources[key] not in cited.values():
            cited[key] = sources[key] if i == 0 else f"{key.rsplit('.', 1)[-1].replace('_', ' ')}: {sources[key]}"
    return "; ".join(cited.values()) or "the profile's default (the paper does not state it)"


def setup_table(paper: str, params: Params, run: str) -> pd.DataFrame:
    """One row per setting: the paper's value with its source, the testbed's (``run`` under ``params``), and
    whether they differ. The paper's run is its method's entry in ``configs/<paper>.yaml``."""
    profile, sources = paper_profile(paper), doc_sources(paper)
    spec = params.runs[run]
    paper_spec = profile.runs[spec.method]
    judged = verdicts_params(paper, params)
    rows = []
    for name, value, keys in ROWS:
        ours, theirs = value(judged, spec), value(profile, paper_spec)
        rows.append(
            {
                "setting": name,
                "paper": theirs,
                "paper's source": _source(sources, keys, spec.method),
                f"testbed (`{run}`)": ours,
                "differs": "yes" if ours != theirs else "no",
            }
        )
        if name == "evaluation decoding" and judged is not params:
            rows[-1][f"testbed (`{run}`)"] += f" (the verdicts'; also at the shared {_decoding(params)})"
    rows.append(
        {
            "setting": "checkpoint reported",
            "paper": PAPER_CHECKPOINT[paper],
            "paper's source": "the paper's text",
            f"testbed (`{run}`)": "the final model of each run and seed (no selection)",
            "differs": "yes",
        }
    )
    return pd.DataFrame(rows)


def hyperparameter_sentence(paper: str, params: Params, run: str) -> str:
    """Exactly which settings ``run`` shares with the paper: the testbed's `train` settings, and of the method's
    hyperparameters which the paper's profile sets and whether each is used as given (computed)."""
    spec = params.runs[run]
    theirs = method_config(paper_profile(paper).runs[spec.method])
    ours = method_config(spec)
    stated = [k.rsplit(".", 1)[1] for k in doc_sources(paper) if k.startswith(f"methods.{spec.method}.")]
    stated = [k for k in stated if k in ours]
    changed = [f"{k} {theirs.get(k)!r} -> {ours[k]!r}" for k in ours if ours[k] != theirs.get(k)]
    given = ", ".join(f"{k} {ours[k]!r}" for k in stated) or "none besides the method's defaults"
    text = (
        f"`{run}` trains with the testbed's shared `train` settings (the table's testbed column), not the paper's. "
        f"Method hyperparameters the paper's profile sets: {given}. Of all {len(ours)} `{spec.method}` "
        "hyperparameters (the rest are the method's defaults: the paper's values where the method's docstring cites "
        "them, the open choices of docs/assumptions.md otherwise), "
    )
    text += (
        f"{len(changed)} differ from the profile: {'; '.join(changed)}."
        if changed
        else "none differs from the profile."
    )
    return text
