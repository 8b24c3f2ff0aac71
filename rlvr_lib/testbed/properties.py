"""The testbed's measured properties (docs/testbed.md, issue 9): is it a substrate on which the papers' claims can
show? Base policy headroom, GRPO's gain and entropy collapse per training seed, the sharpening signature
(pass@k curves of base and GRPO), the v3 routes, and ERPO's fig. 1(b) perturbation study.

Pure functions over evaluation results and training histories (``summarise``, ``entropy_ratio``,
``properties_markdown``) plus the two sampling passes (``evaluate_by_kind``, ``route_shares``); the pipeline's
``testbed_properties`` stage (``rlvr_lib.pipeline.stages.stage_testbed_properties``) runs them on the base model and the
seeds of one GRPO run.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

import numpy as np

from rlvr_lib.eval import bootstrap_ci, crossed_bootstrap_ci, evaluate_benchmark, pass_at_k, sample_completions
from rlvr_lib.tasks.rewards import grade
from rlvr_lib.testbed.task_v3 import classify_route

# issue 9's targets: name -> (what, rule), checked by ``summarise``
TARGETS = {
    "base_mean": "base mean@n in [0.10, 0.40]",
    "base_pass": "base pass@n <= 0.90",
    "entropy_ratio": "GRPO rollout entropy, mean of the last batches / the first <= 0.35, in every seed",
    "mean_gain": "GRPO mean@n >= base + 0.15, in every seed",
    "sharpening": "GRPO pass@n <= base + 0.02 (while mean@n rises), mean over seeds",
}


def problem_kind(prompt: str) -> str:
    """``trap`` for a v3 problem with a product (``*``), else ``plain``."""
    return "trap" if "*" in prompt else "plain"


def evaluate_by_kind(model, tokenizer, problems: list[dict], *, n: int, seed: int, **sampling: Any) -> dict:
    """``evaluate_benchmark`` with every k in 1..n, plus mean@n and pass@n per problem kind (95% problem-bootstrap
    intervals). ``sampling``: temperature, top_p, max_new_tokens, batch_size, n_boot."""
    result = evaluate_benchmark(model, tokenizer, problems, n=n, ks=list(range(1, n + 1)), seed=seed, **sampling)
    by_kind: dict[str, dict] = {}
    for kind in ("plain", "trap"):
        rows = [r for r, p in zip(result["per_problem"], problems, strict=True) if problem_kind(p["prompt"]) == kind]
        if not rows:
            continue
        by_kind[kind] = {"n_problems": len(rows)}
        for name, values in (
            (f"mean@{n}", [r["c"] / n for r in rows]),
            (f"pass@{n}", [pass_at_k(n, r["c"], n) for r in rows]),
        ):
            low, high = bootstrap_ci(values, n_boot=sampling.get("n_boot", 1000), seed=seed)
            by_kind[kind][name] = {"value": float(np.mean(values)), "ci_low": low, "ci_high": high}
    result["by_kind"] = by_kind
    return result


def route_shares(model, tokenizer, problems: list[dict], *, n: int, seed: int, **sampling: Any) -> dict:
    """Per problem kind and v3 route (``task_v3.classify_route``): share of ``n`` samples per problem taking the
    route, and the route's accuracy. ``sampling``: temperature, top_p, max_new_tokens, batch_size."""
    samples = sample_completions(
        model, tokenizer, [p["prompt"] for p in problems], n, seed=seed, desc="routes", **sampling
    )
    counts: dict[str, Counter] = {}
    hits: dict[str, Counter] = {}
    for problem, completions in zip(problems, samples, strict=True):
        kind = problem_kind(problem["prompt"])
        for completion in completions:
            route = classify_route(problem["prompt"], completion.text)
            counts.setdefault(kind, Counter())[route] += 1
            hits.setdefault(kind, Counter())[route] += grade(completion.text, str(problem["answer"])).correct
    return {
        kind: {
            route: {"share": k / sum(c.values()), "accuracy": hits[kind][route] / k} for route, k in sorted(c.items())
        }
        for kind, c in counts.items()
    }


def entropy_ratio(history: list[dict], last: int = 5) -> dict:
    """Entropy collapse of one training run from its logged rollout batches (rows with ``entropy/mean``): mean
    token entropy of the last ``last`` batches over that of the first, and rollout accuracy first / last 10."""
    rows = [r for r in history if "entropy/mean" in r]
    if len(rows) < last:
        raise ValueError(f"only {len(rows)} rollout batches were logged: need at least {last} for the ratio")
    entropy = [r["entropy/mean"] for r in rows]
    accuracy = [r["accuracy"] for r in rows if "accuracy" in r]
    kl = [r["kl_to_reference"] for r in rows if "kl_to_reference" in r]
    return {
        "rollout_batches": len(rows),
        "entropy_first": entropy[0],
        "entropy_last": statistics.mean(entropy[-last:]),
        "entropy_ratio": statistics.mean(entropy[-last:]) / entropy[0],
        "accuracy_first10": statistics.mean(accuracy[:10]) if accuracy else None,
        "accuracy_last10": statistics.mean(accuracy[-10:]) if accuracy else None,
        "kl_to_reference_last": kl[-1] if kl else None,
    }


def _per_problem(result: dict, n: int, metric: str) -> np.ndarray:
    rows = result["per_problem"]
    if metric == "mean":
        return np.array([r["c"] / n for r in rows])
    return np.array([pass_at_k(n, r["c"], int(metric)) for r in rows])


def _seed_interval(table: np.ndarray, n_boot: int) -> dict:
    low, high = crossed_bootstrap_ci(table, n_boot=n_boot)
    return {"value": float(table.mean()), "ci_low": low, "ci_high": high}


def summarise(base: dict, runs: dict[int, dict], histories: dict[int, list[dict]], *, n: int, **kw: Any) -> dict:
    """Headline numbers and target checks.

    Args:
        base: ``evaluate_by_kind`` result of the base policy (n samples per problem).
        runs: training seed -> ``evaluate_by_kind`` result of that seed's GRPO model, same problems and n.
        histories: training seed -> that run's training history (for ``entropy_ratio``).
        kw: ``last`` (entropy window, default 5), ``n_boot`` (default 1000).
    Over seeds, values are means with a two-way (seeds x problems) bootstrap interval; GRPO - base differences
    are computed per problem against the one base evaluation, then resampled the same way.
    """
    last, n_boot = kw.get("last", 5), kw.get("n_boot", 1000)
    seeds = sorted(runs)
    uids = [r["uid"] for r in base["per_problem"]]
    for s in seeds:
        if [r["uid"] for r in runs[s]["per_problem"]] != uids or runs[s]["settings"]["n"] != n:
            raise ValueError(f"seed {s}: evaluated on other problems or another n than the base policy")
    curves = {"base": [base["metrics"][f"pass@{k}"]["value"] for k in range(1, n + 1)]}
    for s in seeds:
        curves[f"seed{s}"] = [runs[s]["metrics"][f"pass@{k}"]["value"] for k in range(1, n + 1)]
    base_rows = {m: _per_problem(base, n, m) for m in ("mean", str(n))}
    seed_rows = {m: np.stack([_per_problem(runs[s], n, m) for s in seeds]) for m in ("mean", str(n))}
    dynamics = {s: entropy_ratio(histories[s], last) for s in seeds}
    per_seed = {
        s: {
            f"mean@{n}": runs[s]["metrics"][f"mean@{n}"],
            f"pass@{n}": runs[s]["metrics"][f"pass@{n}"],
            "mean_gain": float(seed_rows["mean"][i].mean() - base_rows["mean"].mean()),
            "pass_gain": float(seed_rows[str(n)][i].mean() - base_rows[str(n)].mean()),
            "by_kind": runs[s]["by_kind"],
            "routes": runs[s].get("routes"),
            **dynamics[s],
        }
        for i, s in enumerate(seeds)
    }
    base_mean, base_pass = base["metrics"][f"mean@{n}"], base["metrics"][f"pass@{n}"]
    grpo = {
        f"mean@{n}": _seed_interval(seed_rows["mean"], n_boot),
        f"pass@{n}": _seed_interval(seed_rows[str(n)], n_boot),
        "mean_gain": _seed_interval(seed_rows["mean"] - base_rows["mean"], n_boot),
        "pass_gain": _seed_interval(seed_rows[str(n)] - base_rows[str(n)], n_boot),
        "token_entropy": float(np.mean([runs[s]["metrics"]["token_entropy"]["value"] for s in seeds])),
    }
    crossing = next(
        (k for k in range(1, n + 1) if all(curves[f"seed{s}"][k - 1] < curves["base"][k - 1] for s in seeds)), None
    )
    checks = {
        "base_mean": 0.10 <= base_mean["value"] <= 0.40,
        "base_pass": base_pass["value"] <= 0.90,
        "entropy_ratio": all(d["entropy_ratio"] <= 0.35 for d in dynamics.values()),
        "mean_gain": all(p["mean_gain"] >= 0.15 for p in per_seed.values()),
        "sharpening": grpo["pass_gain"]["value"] <= 0.02 and grpo["mean_gain"]["value"] > 0,
    }
    return {
        "n": n,
        "n_problems": len(uids),
        "seeds": seeds,
        "base": {
            f"mean@{n}": base_mean,
            f"pass@{n}": base_pass,
            "token_entropy": base["metrics"]["token_entropy"]["value"],
            "by_kind": base["by_kind"],
            "routes": base.get("routes"),
        },
        "grpo": grpo,
        "grpo_per_seed": per_seed,
        "pass_at_k": curves,
        "first_k_all_seeds_below_base": crossing,
        "targets": {name: {"rule": TARGETS[name], "met": bool(met)} for name, met in checks.items()},
    }


def _ci(v: dict, digits: int = 3) -> str:
    return f"{v['value']:.{digits}f} [{v['ci_low']:.{digits}f}, {v['ci_high']:.{digits}f}]"


def properties_markdown(summary: dict, perturbation: dict | None = None) -> str:
    """The properties as markdown tables (targets, per seed, pass@k, perturbation study)."""
    n, base, grpo = summary["n"], summary["base"], summary["grpo"]
    lines = [
        f"Eval split: {summary['n_problems']} problems, n = {n} samples each, T as in `eval`; "
        f"GRPO seeds {summary['seeds']}. Intervals: 95%, bootstrap over problems (base) and two-way over seeds "
        "x problems (GRPO, differences).",
        "",
        "| target | rule | met |",
        "|---|---|---|",
        *(f"| {name} | {t['rule']} | {'yes' if t['met'] else '**no**'} |" for name, t in summary["targets"].items()),
        "",
        f"| | mean@{n} | pass@{n} | token entropy |",
        "|---|---|---|---|",
        f"| base | {_ci(base[f'mean@{n}'])} | {_ci(base[f'pass@{n}'])} | {base['token_entropy']:.3f} |",
        f"| GRPO (mean over seeds) | {_ci(grpo[f'mean@{n}'])} | {_ci(grpo[f'pass@{n}'])} "
        f"| {grpo['token_entropy']:.3f} |",
        f"| GRPO - base | {_ci(grpo['mean_gain'])} | {_ci(grpo['pass_gain'])} | |",
        "",
        f"| GRPO seed | mean@{n} | pass@{n} | mean gain | pass gain | rollout entropy first -> last | ratio "
        "| rollout accuracy first/last 10 | KL to ref. (last logged) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for seed, p in summary["grpo_per_seed"].items():
        kl = "" if p["kl_to_reference_last"] is None else f"{p['kl_to_reference_last']:.3f}"
        acc = "" if p["accuracy_first10"] is None else f"{p['accuracy_first10']:.2f} -> {p['accuracy_last10']:.2f}"
        lines.append(
            f"| {seed} | {_ci(p[f'mean@{n}'])} | {_ci(p[f'pass@{n}'])} | {p['mean_gain']:+.3f} | {p['pass_gain']:+.3f} "
            f"| {p['entropy_first']:.3f} -> {p['entropy_last']:.3f} | {p['entropy_ratio']:.3f} | {acc} | {kl} |"
        )
    kinds = sorted(base["by_kind"])
    if kinds:
        lines += [
            "",
            f"| by kind | {' | '.join(f'{k}: mean@{n} / pass@{n}' for k in kinds)} |",
            "|---|" + "---|" * len(kinds),
        ]
        rows = [("base", base["by_kind"])] + [
            (f"GRPO seed {s}", p["by_kind"]) for s, p in summary["grpo_per_seed"].items()
        ]
        for label, by_kind in rows:
            cells = [
                f"{by_kind[k]['n_problems']} problems: {by_kind[k][f'mean@{n}']['value']:.3f} / "
                f"{by_kind[k][f'pass@{n}']['value']:.3f}"
                for k in kinds
            ]
            lines.append(f"| {label} | {' | '.join(cells)} |")
    ks = [k for k in (1, 2, 4, 8, 16, 32, 64, 128, 256) if k <= n]
    lines += ["", "| pass@k | " + " | ".join(str(k) for k in ks) + " |", "|---|" + "---|" * len(ks)]
    for label, curve in summary["pass_at_k"].items():
        lines.append(f"| {label} | " + " | ".join(f"{curve[k - 1]:.3f}" for k in ks) + " |")
    crossing = summary["first_k_all_seeds_below_base"]
    lines += ["", f"Smallest k at which every GRPO seed's pass@k is below the base's: {crossing or 'none'}."]
    routes = [("base", base.get("routes"))] + [
        (f"GRPO seed {s}", p.get("routes")) for s, p in summary["grpo_per_seed"].items()
    ]
    if all(r for _, r in routes):
        names = sorted({(kind, route) for _, r in routes for kind in r for route in r[kind]})
        lines += [
            "",
            "| routes (share, accuracy) | " + " | ".join(f"{k}: {r}" for k, r in names) + " |",
            "|---|" + "---|" * len(names),
        ]
        for label, r in routes:
            cells = [
                f"{r[k][name]['share']:.3f} ({r[k][name]['accuracy']:.2f})" if name in r.get(k, {}) else "0"
                for k, name in names
            ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if perturbation is not None and not perturbation:
        lines += ["", "Perturbation study not run: the base policy answered no eval problem correctly."]
    if perturbation:
        lines += [
            "",
            "ERPO fig. 1(b) protocol on the base policy: accuracy after perturbing one token of a correct response "
            "and regenerating the rest (95% bootstrap over responses; the difference is paired).",
            "",
            "| replacement | responses | top-entropy perturbed | bottom-entropy perturbed | bottom - top "
            "| control (token kept): top / bottom |",
            "|---|---|---|---|---|---|",
        ]
        for mode, study in perturbation.items():
            lines.append(
                f"| {mode} | {study['n_responses']} | {_ci(study['accuracy']['top'])} "
                f"| {_ci(study['accuracy']['bottom'])} | {_ci(study['difference_bottom_minus_top'])} "
                f"| {_ci(study['control_accuracy']['top'])} / {_ci(study['control_accuracy']['bottom'])} |"
            )
    return "\n".join(lines) + "\n"
