"""Paper studies that sample from trained models, each its own DVC stage (``sample_<study>``), so that the paper
stages read committed files only: AER's pass@k up to k = n = 256 (aer.txt tables 6-7) and ERPO's perturbation study
(erpo.txt fig. 1(b)).

``run_study(name, params)`` samples and writes ``reports/samples/<name>.json``: the settings it ran with and its raw
per-seed results (correct counts per problem; per-response accuracies). ``load_study(name, params)`` reads it back
for a paper and raises ``NotTestable`` naming the command to run when the file is missing or was sampled with other
settings than params.yaml's now.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from rlvr_lib.files.atomic import write_json_atomic
from rlvr_lib.files.readers import read_json
from rlvr_lib.papers.framework.claims import NotTestable
from rlvr_lib.settings.papers import sampled_policies
from rlvr_lib.workspace import layout

SAMPLES_DIR = Path("reports/samples")
STUDIES = {"aer_pass_at_k": ("aer", "pass_at_k"), "erpo_perturbation": ("erpo", "perturbation")}


def study_path(name: str) -> Path:
    return SAMPLES_DIR / f"{name}.json"


def stage_name(name: str) -> str:
    return f"sample_{name}"


def study_settings(name: str, params) -> Any:
    """The settings dataclass of study ``name`` (``papers.<paper>.<field>`` of params.yaml, smoke applied)."""
    if name not in STUDIES:
        raise ValueError(f"unknown sampling study '{name}'; valid: {', '.join(STUDIES)}")
    paper, field = STUDIES[name]
    return getattr(params.papers.paper(paper), field)


def recorded_settings(name: str, params) -> dict[str, Any]:
    """Everything the study's numbers depend on besides the models: its settings, the seeds, the sampling."""
    e = params.eval
    settings = dataclasses.asdict(study_settings(name, params))
    return json.loads(
        json.dumps(
            {
                "settings": settings,
                "seeds": study_seeds(name, params),
                "sampling": {"temperature": e.temperature, "top_p": e.top_p, "max_new_tokens": e.max_new_tokens},
            }
        )
    )


def study_seeds(name: str, params) -> list[int]:
    """The training seeds sampled: the first ``n_seeds`` of the seeds every sampled run was trained with
    (``methods.<run>.seeds``; every run's for ``base``), fewer only where the runs have fewer."""
    runs = sampled_policies(params.papers.paper(STUDIES[name][0]))
    shared = [s for s in layout.run_seeds(params, runs[0]) if all(s in layout.run_seeds(params, r) for r in runs)]
    return shared[: study_settings(name, params).n_seeds]


def study_size(name: str, params) -> str:
    """What running the study samples, for the message that asks for it."""
    s = study_settings(name, params)
    seeds = len(study_seeds(name, params))
    if name == "aer_pass_at_k":
        total = s.n * (s.max_problems or 0) * seeds * len(s.runs)
        return f"{s.n} samples x {s.max_problems} problems x {seeds} seeds x {len(s.runs)} runs = {total:,} responses"
    return f"{s.samples} samples x {s.max_problems} problems per seed, then the perturbed regenerations, {seeds} seeds"


def load_study(name: str, params) -> dict[str, Any]:
    """The committed results of study ``name``; NotTestable (naming the command) when missing or stale."""
    path = study_path(name)
    command = f"`dvc repro {stage_name(name)}` (it samples {study_size(name, params)} from the trained models)"
    if not path.exists():
        raise NotTestable(f"{path} is not here: run {command}")
    data = read_json(path, dict, hint=f"rerun {command}")
    want = recorded_settings(name, params)
    if data.get("recorded") != want:
        raise NotTestable(
            f"{path} was sampled with {json.dumps(data.get('recorded'), sort_keys=True)}, params.yaml now gives "
            f"{json.dumps(want, sort_keys=True)}: rerun {command}"
        )
    return data


def run_study(name: str, params) -> Path:
    """Sample study ``name`` and write ``reports/samples/<name>.json`` (atomically); returns its path."""
    recorded = recorded_settings(name, params)
    if name == "aer_pass_at_k":
        counts = sample_correct_counts(params, study_settings(name, params), study_seeds(name, params))
        results: dict[str, Any] = {"counts": {run: table.astype(int).tolist() for run, table in counts.items()}}
    else:
        results = {"per_seed": run_perturbation(params, study_settings(name, params), study_seeds(name, params))}
    path = study_path(name)
    write_json_atomic(path, {"study": name, "recorded": recorded, **results})
    return path


def _load_model(path: str):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    return (model.to("cuda") if torch.cuda.is_available() else model), tokenizer


def _problems(max_problems: int | None) -> list[dict]:
    from rlvr_lib.workspace import layout

    problems = [p for rows in layout.eval_sets().values() for p in rows]
    return problems if max_problems is None else problems[:max_problems]


def sample_correct_counts(params, settings, seeds: list[int]) -> dict[str, np.ndarray]:
    """For each run of ``settings.runs``: (seeds, problems) counts of correct answers among ``settings.n`` samples
    of each seed's model (the base policy for ``base``), sampled with that seed, on the first ``max_problems``
    evaluation problems."""
    from rlvr_lib.eval import evaluate_benchmark

    problems = _problems(settings.max_problems)
    for run in settings.runs:  # every model is there before anything is sampled
        for seed in seeds:
            layout.model_for_run(params, run, seed)
    e = params.eval
    out = {}
    for run in settings.runs:
        by_seed = []
        for seed in seeds:
            model, tokenizer = _load_model(layout.model_for_run(params, run, seed))
            result = evaluate_benchmark(
                model,
                tokenizer,
                problems,
                n=settings.n,
                temperature=e.temperature,
                top_p=e.top_p,
                max_new_tokens=e.max_new_tokens,
                batch_size=settings.batch_size,
                seed=seed,
                n_boot=1,
            )
            by_seed.append([row["c"] for row in result["per_problem"]])
        out[run] = np.asarray(by_seed, dtype=float)
    return out


def per_response_accuracy(trials, n_responses: int, which: str, perturbed: bool) -> list[float]:
    """(R,) mean correctness of each response's trials at its ``which`` entropy tokens, perturbed or control."""
    hits, counts = np.zeros(n_responses), np.zeros(n_responses)
    for trial in trials:
        if trial.which == which and trial.perturbed == perturbed:
            hits[trial.response] += trial.correct
            counts[trial.response] += 1
    return (hits / counts).tolist()


def reliably_correct_responses(
    model, tokenizer, problems: list[dict], *, n: int, min_correct: int, seed: int, **sampling
) -> list[dict]:
    """ERPO's selection (erpo.txt fig. 1(b): "questions that the model could definitely answer correctly"): the
    problems at least ``min_correct`` of whose ``n`` samples the grader accepts, each with its first correct
    response and its count of correct samples (``n_correct``). With ``min_correct = 1`` the responses are
    ``collect_correct_responses``'s (the first correct sample of any problem solved once)."""
    from rlvr_lib.analysis.perturbation import grade
    from rlvr_lib.eval.sampling import sample_completions

    max_new_tokens = sampling["max_new_tokens"]
    samples = sample_completions(
        model,
        tokenizer,
        [p["prompt"] for p in problems],
        n,
        temperature=sampling["temperature"],
        max_new_tokens=max_new_tokens,
        batch_size=sampling["batch_size"],
        seed=seed,
        desc="sampling responses",
    )
    out = []
    for problem, completions in zip(problems, samples, strict=False):
        correct = [
            c
            for c in completions
            if c.n_tokens < max_new_tokens and grade(c.text, str(problem["answer"])).correct == 1.0
        ]
        if len(correct) >= min_correct:
            out.append(
                {
                    "prompt": problem["prompt"],
                    "completion": correct[0].text,
                    "answer": problem["answer"],
                    "n_correct": len(correct),
                }
            )
    return out


def run_perturbation(params, settings, seeds: list[int]) -> list[dict[str, Any]]:
    """``rlvr_lib.analysis.perturbation`` on the first ``max_problems`` evaluation problems, once per training seed:
    that seed's policy (its base policy, or ``settings.policy``'s run trained with it), sampled with the seed. A seed
    whose policy answers no problem correctly (at least ``settings.min_correct`` of ``settings.samples`` times)
    gives ``{"seed", "not_testable"}``."""
    from rlvr_lib.analysis.perturbation import perturbation_study

    for seed in seeds:
        layout.model_for_run(params, settings.policy, seed)
    problems, e = _problems(settings.max_problems), params.eval
    out = []
    for seed in seeds:
        model, tokenizer = _load_model(layout.model_for_run(params, settings.policy, seed))
        sampling = {"max_new_tokens": e.max_new_tokens, "temperature": e.temperature, "batch_size": e.batch_size}
        responses = reliably_correct_responses(
            model, tokenizer, problems, n=settings.samples, min_correct=settings.min_correct, seed=seed, **sampling
        )
        if not responses:
            reason = (
                f"the policy answered none of {len(problems)} problems correctly at least {settings.min_correct} "
                f"times in {settings.samples} tries"
            )
            out.append({"seed": seed, "not_testable": reason})
            continue
        study = perturbation_study(
            model,
            tokenizer,
            responses,
            frac=settings.frac,
            replacement=settings.replacement,
            seed=seed,
            n_boot=e.n_boot,
            **sampling,
        )
        trials = study.pop("trials")
        study["n_correct"] = [r["n_correct"] for r in responses]
        study["per_response"] = {
            which: {
                "perturbed": per_response_accuracy(trials, len(responses), which, True),
                "control": per_response_accuracy(trials, len(responses), which, False),
            }
            for which in ("top", "bottom")
        }
        out.append({"seed": seed, **study})
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("study", choices=list(STUDIES))
    parser.add_argument("--params", default="params.yaml")
    args = parser.parse_args(argv)
    print(run_study(args.study, layout.enter_repo(args.params)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
