"""Evaluate a model on one benchmark (pass@k, mean@n, format rate, length, entropy with bootstrap CIs) and
write the results of several benchmarks atomically as JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rlvr_lib.eval.passk import bootstrap_ci, crossed_bootstrap_ci, k_values, pass_at_k
from rlvr_lib.eval.sampling import sample_completions
from rlvr_lib.files.atomic import write_atomic
from rlvr_lib.tasks.rewards import grade

CSV_COLUMNS = ("benchmark", "metric", "value", "ci_low", "ci_high")


def _check_problems(problems: list[dict]) -> None:
    if not problems:
        raise ValueError("problems must be a non-empty list of dicts with 'prompt' and 'answer'")
    for i, p in enumerate(problems):
        missing = {"prompt", "answer"} - p.keys()
        if missing:
            raise ValueError(f"problems[{i}] lacks {sorted(missing)} (build 'prompt' with data.format_prompt)")


def _check_ks(ks: Sequence[int], n: int) -> list[int]:
    ks = sorted(set(ks))
    if not ks or ks[0] < 1 or ks[-1] > n:
        raise ValueError(f"ks must be non-empty with 1 <= k <= n={n}, got {ks}")
    return ks


def _problem_row(index: int, problem: dict, completions, n: int) -> dict:
    """Per-problem counts: n samples, c correct, formatted, mean length (tokens) and mean entropy (nats)."""
    grades = [grade(c.text, str(problem["answer"])) for c in completions]
    return {
        "uid": str(problem.get("uid", index)),
        "n": n,
        "c": int(sum(g.correct for g in grades)),
        "n_formatted": int(sum(g.formatted for g in grades)),
        "mean_length": float(np.mean([c.n_tokens for c in completions])),
        "mean_entropy": float(np.mean([c.entropy for c in completions])),
    }


def problem_values(rows: list[dict], n: int, ks: Sequence[int]) -> dict[str, list[float]]:
    """Each metric's per-problem values from the ``per_problem`` rows: pass@k (unbiased), mean@n, format rate,
    mean response length and mean token entropy. A metric's value is the mean of its list."""
    columns = {f"pass@{k}": [pass_at_k(n, r["c"], k) for r in rows] for k in ks}
    columns[f"mean@{n}"] = [r["c"] / n for r in rows]
    columns["format_rate"] = [r["n_formatted"] / n for r in rows]
    columns["response_length"] = [r["mean_length"] for r in rows]
    columns["token_entropy"] = [r["mean_entropy"] for r in rows]
    return columns


def combine_seeds(results: Sequence[dict], *, n_boot: int = 1000, seed: int = 0) -> dict[str, dict[str, float]]:
    """One benchmark's ``evaluate_benchmark`` results of several training seeds -> ``{metric: {value, ci_low,
    ci_high, n_seeds}}``: the mean over seeds and problems with a 95% two-way bootstrap interval over seeds and
    problems (``crossed_bootstrap_ci``). Every result must hold the same problems (uids) and n."""
    if not results:
        raise ValueError("combine_seeds needs at least one result")
    uids = [r["uid"] for r in results[0]["per_problem"]]
    n, ks = results[0]["settings"]["n"], results[0]["settings"]["ks"]
    for i, result in enumerate(results[1:], start=1):
        if [r["uid"] for r in result["per_problem"]] != uids or result["settings"]["n"] != n:
            raise ValueError(f"seed result {i} was evaluated on other problems or another n than seed result 0")
    tables = [problem_values(r["per_problem"], n, ks) for r in results]
    combined = {}
    for metric in tables[0]:
        table = np.array([t[metric] for t in tables])
        low, high = crossed_bootstrap_ci(table, n_boot=n_boot, seed=seed)
        combined[metric] = {"value": float(table.mean()), "ci_low": low, "ci_high": high, "n_seeds": len(results)}
    return combined


def evaluate_benchmark(
    model,
    tokenizer,
    problems: list[dict],
    *,
    n: int,
    ks: Sequence[int] | None = None,
    temperature: float = 1.0,
    top_p: float = 1.0,
    max_new_tokens: int,
    batch_size: int,
    seed: int = 0,
    n_boot: int = 1000,
) -> dict:
    """Sample ``n`` completions per problem (dicts with ``prompt``, ``answer``, optional ``uid``) and grade them.

    Returns ``{"n_problems", "settings", "metrics", "per_problem"}``. ``metrics`` maps ``pass@k`` (unbiased, each
    k in ``ks``, default ``k_values(n)``), ``mean@n`` (mean accuracy over samples), ``format_rate``,
    ``response_length`` (tokens) and ``token_entropy`` (nats) to ``{"value", "ci_low", "ci_high"}``: the mean over
    problems of the per-problem value with a 95% percentile-bootstrap interval over problems. Length and entropy
    are averaged per completion, then per problem. ``per_problem`` holds one row per problem (uid, n, c, ...).
    """
    _check_problems(problems)
    ks = _check_ks(k_values(n) if ks is None else ks, n)
    samples = sample_completions(
        model,
        tokenizer,
        [p["prompt"] for p in problems],
        n,
        temperature=temperature,
        top_p=top_p,
        max_new_tokens=max_new_tokens,
        batch_size=batch_size,
        seed=seed,
        desc="evaluating",
    )
    rows = [_problem_row(i, p, comps, n) for i, (p, comps) in enumerate(zip(problems, samples, strict=False))]
    metrics = {}
    for name, values in problem_values(rows, n, ks).items():
        low, high = bootstrap_ci(values, n_boot=n_boot, seed=seed)
        metrics[name] = {"value": float(np.mean(values)), "ci_low": low, "ci_high": high}
    settings = {
        "n": n,
        "ks": ks,
        "temperature": temperature,
        "top_p": top_p,
        "max_new_tokens": max_new_tokens,
        "batch_size": batch_size,
        "seed": seed,
        "n_boot": n_boot,
    }
    return {"n_problems": len(problems), "settings": settings, "metrics": metrics, "per_problem": rows}


def _csv_text(results: dict[str, dict]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for benchmark, result in results.items():
        for metric, m in result["metrics"].items():
            writer.writerow([benchmark, metric, m["value"], m["ci_low"], m["ci_high"]])
    return buf.getvalue()


def write_results(results: dict[str, dict], out_dir: str | os.PathLike) -> tuple[Path, Path]:
    """Write ``{benchmark: evaluate_benchmark(...)}`` to ``out_dir/results.json`` (everything) and
    ``out_dir/results.csv`` (one row per benchmark x metric: ``CSV_COLUMNS``). Both texts are rendered before
    anything is written and each file is replaced atomically. Returns (json path, csv path)."""
    if not results:
        raise ValueError("results must map at least one benchmark name to its evaluate_benchmark() result")
    json_text = json.dumps(results, indent=2)
    csv_text = _csv_text(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = out / "results.json", out / "results.csv"
    write_atomic(json_path, json_text)
    write_atomic(csv_path, csv_text)
    return json_path, csv_path
