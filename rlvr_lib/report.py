"""Load training histories and evaluation results, tabulate them per benchmark and write the report folder.

``write_report(out_dir, ...)`` writes, for trained runs R and benchmarks B:

- ``figures/training_dynamics.png`` and ``figures/entropy_quantiles.png`` (when R is non-empty): the core runs only,
  each method at its default settings (a run named after its method); the variants are in the paper reports,
- ``figures/method_<run>.png`` for each run of R that logs its own ``<method>/...`` quantities,
- ``figures/pass_at_k_<benchmark>.png`` for each benchmark of B (all runs, the base model included),
- ``tables/results_<benchmark>.md`` and ``tables/results_<benchmark>.csv`` for each benchmark of B,
- ``README.md``, which embeds the tables and figures through relative links.

Everything is rendered in memory first and then written one file at a time through a temp file and
``os.replace``, README last: an error while rendering writes nothing, and an error while writing leaves each
file complete (new or previous) or absent, never partial, and no temp file behind.
"""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from . import plots
from .atomic import write_atomic
from .eval.evaluate import combine_seeds
from .readers import read_json

HISTORY_FILE = "history.json"
RESULTS_FILE = "results.json"
BASE_RUN = plots.BASE_RUN
TAIL_STEPS = 5  # entropy retained and train accuracy average the last TAIL_STEPS logged steps
DPI = 120
MISSING = "—"
CI_FIELDS = (("value", ""), ("ci_low", "_ci_low"), ("ci_high", "_ci_high"))
EVAL_COLUMNS = ("run", "benchmark", "metric", "value", "ci_low", "ci_high", "n_problems", "n_samples", "n_seeds")


# ---------------------------------------------------------------------------------------------- loading
def _history_frame(run: str, seed: int, path: Path) -> pd.DataFrame:
    rows = read_json(path, list, hint=f"(re)run the train stage of run '{run}', seed {seed}")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and "step" in r for r in rows):
        raise ValueError(f"{path}: expected a non-empty list of per-step dicts with a 'step' key")
    return pd.DataFrame(rows).sort_values("step", kind="stable").assign(run=run, seed=seed)


def load_histories(run_dirs: Mapping[str, Mapping[int, str | os.PathLike]]) -> pd.DataFrame:
    """Read ``<dir>/history.json`` of each run and training seed (``{run: {seed: dir}}``): one row per run x seed x
    logged step, ``run`` and ``seed`` first; keys a run does not log are NaN. Raises FileNotFoundError naming a
    missing file."""
    frames = [
        _history_frame(run, seed, Path(d) / HISTORY_FILE) for run, dirs in run_dirs.items() for seed, d in dirs.items()
    ]
    if not frames:
        return pd.DataFrame(columns=["run", "seed", "step"])
    df = pd.concat(frames, ignore_index=True)
    return df[["run", "seed", *(c for c in df.columns if c not in ("run", "seed"))]]


def _run_results(run: str, dirs: Mapping[int, str | os.PathLike]) -> dict[int, dict]:
    results = {}
    for seed, folder in dirs.items():
        path = Path(folder) / RESULTS_FILE
        results[seed] = read_json(path, dict, hint=f"(re)run the eval stage of run '{run}', seed {seed}")
        if not isinstance(results[seed], dict) or not all(
            isinstance(r, dict) and {"per_problem", "settings", "n_problems"} <= r.keys()
            for r in results[seed].values()
        ):
            raise ValueError(f"{path}: not a rlvr_lib.eval.write_results file")
    return results


def load_eval_results(
    result_dirs: Mapping[str, Mapping[int, str | os.PathLike]], *, n_boot: int = 1000
) -> pd.DataFrame:
    """Read ``<dir>/results.json`` of each run (``base`` included) and training seed (``{run: {seed: dir}}``) and
    combine the seeds (``rlvr_lib.eval.combine_seeds``: mean over seeds and problems, 95% two-way bootstrap
    interval over seeds and problems). One row per run x benchmark x metric with ``EVAL_COLUMNS``."""
    rows = []
    for run, dirs in result_dirs.items():
        by_seed = _run_results(run, dirs)
        for benchmark in next(iter(by_seed.values())):
            seeds_results = [by_seed[seed][benchmark] for seed in sorted(by_seed)]
            try:
                combined = combine_seeds(seeds_results, n_boot=n_boot)
            except ValueError as err:
                raise ValueError(f"run '{run}', benchmark '{benchmark}': {err}") from None
            first = seeds_results[0]
            rows += [
                {
                    "run": run,
                    "benchmark": benchmark,
                    "metric": metric,
                    **{f: m[f] for f, _ in CI_FIELDS},
                    "n_problems": first["n_problems"],
                    "n_samples": first["settings"]["n"],
                    "n_seeds": m["n_seeds"],
                }
                for metric, m in combined.items()
            ]
    return pd.DataFrame(rows, columns=list(EVAL_COLUMNS))


# ---------------------------------------------------------------------------------------------- tables
def _run_order(runs: Iterable[str]) -> list[str]:
    """Base first, then the other runs in order of first appearance."""
    return sorted(dict.fromkeys(runs), key=lambda run: run != BASE_RUN)


def _table_metrics(bench: pd.DataFrame, benchmark: str) -> list[str]:
    """mean@n, pass@1, pass@k of the largest k, response_length (each once)."""
    means = sorted({m for m in bench["metric"] if m.startswith("mean@")})
    ks = sorted({int(m.removeprefix("pass@")) for m in bench["metric"] if m.startswith("pass@")})
    if len(means) != 1 or not ks:
        raise ValueError(
            f"benchmark '{benchmark}': expected one mean@n metric and pass@k metrics, got "
            f"{means} and {ks} (were runs evaluated with different n?)"
        )
    return list(dict.fromkeys([means[0], "pass@1", f"pass@{ks[-1]}", "response_length"]))


def _tail_mean(history: pd.DataFrame, key: str, tail_steps: int) -> float:
    return float(history[key].dropna().tail(tail_steps).mean())


def entropy_retained(history: pd.DataFrame, tail_steps: int = TAIL_STEPS) -> float:
    """Mean ``entropy/mean`` over the last ``tail_steps`` logged steps / its value at the first logged step
    (the base model's rollouts). ``history``: one run, sorted by step; NaN when empty."""
    if history.empty:
        return math.nan
    first = history["entropy/mean"].dropna().iloc[0]
    return _tail_mean(history, "entropy/mean", tail_steps) / float(first)


def final_train_accuracy(history: pd.DataFrame, tail_steps: int = TAIL_STEPS) -> float:
    """Mean training ``accuracy`` over the last ``tail_steps`` logged steps of one run; NaN when empty."""
    return math.nan if history.empty else _tail_mean(history, "accuracy", tail_steps)


def results_table(
    evals: pd.DataFrame, histories: pd.DataFrame, benchmark: str, *, tail_steps: int = TAIL_STEPS
) -> pd.DataFrame:
    """One row per evaluated run (base first): ``run``; for mean@n, pass@1, pass@K (largest K) and
    response_length the value (mean over seeds and problems) and ``<metric>_ci_low`` / ``<metric>_ci_high``;
    ``entropy_retained`` and ``train_accuracy`` (``entropy_retained`` / ``final_train_accuracy`` over
    ``tail_steps`` of each seed, averaged over seeds; NaN for base)."""
    if tail_steps < 1:
        raise ValueError(f"tail_steps must be >= 1, got {tail_steps}")
    bench = evals[evals["benchmark"] == benchmark]
    if bench.empty:
        raise ValueError(f"no results for benchmark '{benchmark}'; have {sorted(evals['benchmark'].unique())}")
    runs = _run_order(bench["run"])
    by_key = bench.set_index(["run", "metric"])
    table = pd.DataFrame({"run": runs})
    for metric in _table_metrics(bench, benchmark):
        rows = by_key.reindex(pd.MultiIndex.from_product([runs, [metric]]))
        for field, suffix in CI_FIELDS:
            table[metric + suffix] = rows[field].to_numpy(dtype=float)
    run_histories = [histories[histories["run"] == run] for run in runs]
    table["entropy_retained"] = [_mean_over_seeds(h, entropy_retained, tail_steps) for h in run_histories]
    table["train_accuracy"] = [_mean_over_seeds(h, final_train_accuracy, tail_steps) for h in run_histories]
    return table


def _mean_over_seeds(history: pd.DataFrame, summary: Callable[[pd.DataFrame, int], float], tail_steps: int) -> float:
    """``summary`` of each training seed's history, averaged over seeds; NaN when empty."""
    if history.empty:
        return math.nan
    return float(
        sum(summary(h.sort_values("step"), tail_steps) for _, h in history.groupby("seed")) / history["seed"].nunique()
    )


def _fmt(value: float, digits: int) -> str:
    return MISSING if pd.isna(value) else f"{value:.{digits}f}"


def format_table(table: pd.DataFrame, tail_steps: int = TAIL_STEPS) -> pd.DataFrame:
    """``results_table`` as text: ``value [ci_low, ci_high]`` per metric, ``—`` where not applicable."""
    out = {"run": table["run"]}
    for metric in (c for c in table.columns if f"{c}_ci_low" in table.columns):
        digits = 1 if metric == "response_length" else 3
        label = "response length (tokens)" if metric == "response_length" else metric
        out[label] = [
            MISSING if pd.isna(v) else f"{_fmt(v, digits)} [{_fmt(lo, digits)}, {_fmt(hi, digits)}]"
            for v, lo, hi in zip(table[metric], table[f"{metric}_ci_low"], table[f"{metric}_ci_high"], strict=False)
        ]
    out[f"entropy retained (last {tail_steps} / first)"] = [_fmt(v, 3) for v in table["entropy_retained"]]
    out[f"train accuracy (last {tail_steps})"] = [_fmt(v, 3) for v in table["train_accuracy"]]
    return pd.DataFrame(out)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured markdown table of ``frame``'s cells as text."""

    def row(cells: Iterable[Any]) -> str:
        return "| " + " | ".join(str(c).replace("|", r"\|") for c in cells) + " |"

    lines = [row(frame.columns), row("---" for _ in frame.columns), *(row(r) for r in frame.itertuples(index=False))]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- writing
def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _add(files: dict[str, bytes], rel: str, data: bytes) -> None:
    if rel in files:
        raise ValueError(f"two report outputs map to {rel}: rename a run or benchmark")
    files[rel] = data


def core_runs(runs: Iterable[str], run_methods: Mapping[str, str]) -> list[str]:
    """The runs named after their method (each method at its default settings), sorted."""
    return sorted({run for run in runs if run_methods.get(run) == run})


def _figure_makers(
    histories: pd.DataFrame, evals: pd.DataFrame, run_methods: Mapping[str, str], ema_alpha: float
) -> dict[str, Callable[[], Figure]]:
    """Relative PNG path -> function drawing that figure, every run in its fixed style (``plots.run_styles``)."""
    styles = plots.run_styles(run_methods)
    makers: dict[str, Callable[[], Figure]] = {}
    core = histories[histories["run"].isin(core_runs(histories["run"], run_methods))]
    if not core.empty:
        makers["figures/training_dynamics.png"] = partial(
            plots.plot_training_dynamics, core, ema_alpha=ema_alpha, styles=styles
        )
        makers["figures/entropy_quantiles.png"] = partial(
            plots.plot_entropy_quantiles, core, ema_alpha=ema_alpha, styles=styles
        )
    for run, history in histories.groupby("run", sort=True):
        if plots.method_keys(history):
            makers[f"figures/method_{_slug(run)}.png"] = partial(
                plots.plot_method_quantities, history, run, ema_alpha=ema_alpha, style=styles[run]
            )
    for benchmark in evals["benchmark"].unique():
        makers[f"figures/pass_at_k_{_slug(benchmark)}.png"] = partial(
            plots.plot_pass_at_k, evals, benchmark, styles=styles
        )
    return makers


def _flatten(params: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat = {}
    for key, value in params.items():
        if isinstance(value, Mapping) and value:
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _paper_links(papers: Sequence[tuple[str, str]]) -> list[str]:
    """The section linking each paper's replication report (``reports/papers/<name>/README.md``)."""
    if not papers:
        return []
    lines = [
        "## Paper replications",
        "",
        "Each paper's own tables and figures regenerated on the testbed, next to the paper's numbers, with a verdict "
        "on each claim (`notebooks/papers/<paper>.ipynb`, DVC stage `paper_<paper>`):",
        "",
    ]
    lines += [f"- [{title}](papers/{name}/README.md)" for name, title in papers]
    return [*lines, ""]


def _readme(
    title: str,
    params_summary: Mapping[str, Any],
    evals: pd.DataFrame,
    tables: dict[str, str],
    figures: list[str],
    tail_steps: int,
    ema_alpha: float,
    links: Mapping[str, str],
    papers: Sequence[tuple[str, str]] = (),
) -> str:
    """The report's README: header, the paper reports, links to the other reports, settings, one section per
    benchmark, then the training figures."""
    runs = _run_order(evals["run"])
    sizes = evals.groupby("benchmark", sort=False)[["n_problems", "n_samples", "n_seeds"]].first()
    lines = [
        f"# {title}",
        "",
        "_Generated by `rlvr_lib.report.write_report` from each run's `history.json` and `results.json`; "
        "do not edit by hand. Regenerate everything with `make repro`._",
        "",
        *_paper_links(papers),
        "Runs: "
        + ", ".join(f"`{r}`" + (" (untrained model, evaluated only)" if r == BASE_RUN else "") for r in runs)
        + ".",
        "Benchmarks: "
        + ", ".join(
            f"`{b}` ({s.n_problems} problems, {s.n_samples} samples each, {s.n_seeds} training seed(s))"
            for b, s in sizes.iterrows()
        )
        + ".",
        "",
        *(["## Other reports", "", *(f"- [{label}]({path})" for label, path in links.items()), ""] if links else []),
        "## Settings",
        "",
        markdown_table(pd.DataFrame(list(_flatten(params_summary).items()), columns=["setting", "value"])),
        "## Results",
        "",
        "Each metric: mean over training seeds and problems [95% two-way percentile-bootstrap interval: seeds and "
        "problems resampled independently, so run-to-run variation is inside it]; each seed's model is sampled "
        "with that seed (the base model too). pass@k is the unbiased estimator over the n samples. *Entropy "
        f"retained*: mean rollout token entropy over the last {tail_steps} training steps / its value at step 1 "
        f"(the base model's rollouts), per seed, averaged. *Train accuracy*: mean over the last {tail_steps} "
        f"steps, averaged over seeds. {MISSING}: not applicable.",
        "",
    ]
    for benchmark, table_md in tables.items():
        slug = _slug(benchmark)
        lines += [
            f"### {benchmark}",
            "",
            table_md,
            f"Tables: [markdown](tables/results_{slug}.md), [CSV](tables/results_{slug}.csv)",
            "",
            f"![pass@k on {benchmark}](figures/pass_at_k_{slug}.png)",
            "",
        ]
    lines += _training_sections(figures, ema_alpha)
    return "\n".join(lines)


def _training_sections(figures: list[str], ema_alpha: float) -> list[str]:
    if "figures/training_dynamics.png" not in figures:
        return []
    lines = [
        "## Training dynamics",
        "",
        "Each method at its default settings (the run named after it; the variants are in the paper reports). "
        f"EMA-smoothed (alpha = {ema_alpha}) over the raw values drawn faintly; dashed: the base model "
        "(mean over runs of the step-1 value, whose rollouts come from the untrained policy); line: mean over "
        "training seeds, band: the seeds' min-max.",
        "",
        "![training dynamics](figures/training_dynamics.png)",
        "",
        "## Rollout entropy quantiles",
        "",
        "![entropy quantiles](figures/entropy_quantiles.png)",
        "",
    ]
    methods = [f for f in figures if f.startswith("figures/method_")]
    if methods:
        lines += ["## Method-specific quantities", ""]
        lines += [f"![{Path(f).stem}]({f})\n" for f in methods]
    return lines


def render_report(
    histories: pd.DataFrame,
    evals: pd.DataFrame,
    *,
    title: str,
    params_summary: Mapping[str, Any],
    ema_alpha: float = plots.DEFAULT_EMA_ALPHA,
    tail_steps: int = TAIL_STEPS,
    links: Mapping[str, str] | None = None,
    papers: Sequence[tuple[str, str]] = (),
    run_methods: Mapping[str, str] | None = None,
) -> dict[str, bytes]:
    """Every report file in memory: relative path -> content (README.md last). ``links``: label -> path relative
    to the report folder of other reports listed near the README's top; ``papers``: (name, title) of the paper
    reports to link first; ``run_methods``: {run: method} of params.yaml's runs in its order (their figure styles;
    a run missing from it gets the method its name starts with, ``plots.method_of``)."""
    if evals.empty:
        raise ValueError("no evaluation results to report")
    missing = sorted({*histories["run"], *evals["run"]} - {BASE_RUN, *(run_methods or {})})
    run_methods = {**(run_methods or {}), **{run: plots.method_of(run) for run in missing}}
    files: dict[str, bytes] = {}
    for rel, make in _figure_makers(histories, evals, run_methods, ema_alpha).items():
        _add(files, rel, _png(make()))
    tables = {}
    for benchmark in evals["benchmark"].unique():
        table = results_table(evals, histories, benchmark, tail_steps=tail_steps)
        tables[benchmark] = markdown_table(format_table(table, tail_steps))
        _add(files, f"tables/results_{_slug(benchmark)}.md", tables[benchmark].encode())
        _add(files, f"tables/results_{_slug(benchmark)}.csv", table.to_csv(index=False).encode())
    readme = _readme(title, params_summary, evals, tables, list(files), tail_steps, ema_alpha, links or {}, papers)
    _add(files, "README.md", readme.encode())
    return files


def write_report(
    out_dir: str | os.PathLike,
    histories: pd.DataFrame,
    evals: pd.DataFrame,
    *,
    title: str,
    params_summary: Mapping[str, Any],
    ema_alpha: float = plots.DEFAULT_EMA_ALPHA,
    tail_steps: int = TAIL_STEPS,
    links: Mapping[str, str] | None = None,
    papers: Sequence[tuple[str, str]] = (),
    run_methods: Mapping[str, str] | None = None,
) -> None:
    """Render the report (``render_report``) and write each file atomically under ``out_dir`` (the
    ``reports/`` folder), README.md last. ``histories``/``evals``: ``load_histories``/``load_eval_results``.
    Files of an earlier report that this one does not produce are left alone."""
    files = render_report(
        histories,
        evals,
        title=title,
        params_summary=params_summary,
        ema_alpha=ema_alpha,
        tail_steps=tail_steps,
        links=links,
        papers=papers,
        run_methods=run_methods,
    )
    out = Path(out_dir)
    for rel, data in files.items():
        write_atomic(out / rel, data)
