"""Load training histories and evaluation results, tabulate them per benchmark and write the report folder.

``write_report(out_dir, ...)`` writes, for trained runs R (the figures: ``figure_runs`` of R) and benchmarks B:

- ``figures/training_dynamics.png`` and ``figures/entropy_quantiles.png`` (when R is non-empty): the figure runs that
  are core runs, each method at its default settings (a run named after its method); the variants are in the paper
  reports,
- ``figures/method_<run>.png`` for each figure run that logs its own ``<method>/...`` quantities,
- ``figures/pass_at_k_<benchmark>.png`` for each benchmark of B (the figure runs and the base model),
- ``tables/results_<benchmark>.md`` and ``tables/results_<benchmark>.csv`` for each benchmark of B (every run),
- ``README.md``, results first: the verdicts per paper (``paper_verdicts``), the tables and figures through
  relative links, the settings last (collapsed).

Everything is rendered in memory first, then written aside and moved into place together: an error while
rendering or writing leaves the previous report as it was, and no temp file behind."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rlvr_lib.eval.evaluate import problem_values
from rlvr_lib.files.atomic import publish, staging_dir, write_atomic
from rlvr_lib.files.readers import read_json
from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.claims import VERDICTS, bounded_t_interval, t_interval
from rlvr_lib.render import plots
from rlvr_lib.render.tables import RESULTS_FILE, markdown_table, png_bytes

BASE_RUN = plots.BASE_RUN
MISSING = "—"
CI_FIELDS = (("value", ""), ("ci_low", "_ci_low"), ("ci_high", "_ci_high"))
EVAL_COLUMNS = ("run", "benchmark", "metric", "value", "ci_low", "ci_high", "n_problems", "n_samples", "n_seeds")


# ---------------------------------------------------------------------------------------------- loading


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


def t_over_seeds(results: Sequence[dict]) -> dict[str, dict[str, float]]:
    """One benchmark's ``evaluate_benchmark`` results of several training seeds -> ``{metric: {value, ci_low,
    ci_high, n_seeds}}``: the mean over seeds and problems with the 95% Student t interval over the per-seed means
    (``rlvr_lib.papers.framework.claims.t_interval``, as the paper reports; one seed: an infinite interval). Every
    result must hold the same problems (uids) and n."""
    uids = [r["uid"] for r in results[0]["per_problem"]]
    n, ks = results[0]["settings"]["n"], results[0]["settings"]["ks"]
    for i, result in enumerate(results[1:], start=1):
        if [r["uid"] for r in result["per_problem"]] != uids or result["settings"]["n"] != n:
            raise ValueError(f"seed result {i} was evaluated on other problems or another n than seed result 0")
    tables = [problem_values(r["per_problem"], n, ks) for r in results]
    combined = {}
    for metric in tables[0]:
        per_seed = [sum(t[metric]) / len(t[metric]) for t in tables]
        bounded = metric.startswith(("mean@", "pass@")) and len(per_seed) > 1
        mean, low, high, _ = bounded_t_interval(per_seed, (0.0, 1.0)) if bounded else t_interval(per_seed)
        combined[metric] = {"value": mean, "ci_low": low, "ci_high": high, "n_seeds": len(results)}
    return combined


def load_eval_results(result_dirs: Mapping[str, Mapping[int, str | os.PathLike]]) -> pd.DataFrame:
    """Read ``<dir>/results.json`` of each run (``base`` included) and training seed (``{run: {seed: dir}}``) and
    combine the seeds (``t_over_seeds``: mean over seeds and problems, 95% t interval over the per-seed means).
    One row per run x benchmark x metric with ``EVAL_COLUMNS``."""
    rows = []
    for run, dirs in result_dirs.items():
        by_seed = _run_results(run, dirs)
        for benchmark in next(iter(by_seed.values())):
            seeds_results = [by_seed[seed][benchmark] for seed in sorted(by_seed)]
            try:
                combined = t_over_seeds(seeds_results)
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
    """mean@n (which equals the unbiased pass@1, so pass@1 is not repeated), pass@k of the largest k,
    response_length."""
    means = sorted({m for m in bench["metric"] if m.startswith("mean@")})
    ks = sorted({int(m.removeprefix("pass@")) for m in bench["metric"] if m.startswith("pass@")})
    if len(means) != 1 or not ks:
        raise ValueError(
            f"benchmark '{benchmark}': expected one mean@n metric and pass@k metrics, got "
            f"{means} and {ks} (were runs evaluated with different n?)"
        )
    return list(dict.fromkeys([means[0], f"pass@{ks[-1]}", "response_length"]))


def entropy_retained(history: pd.DataFrame) -> float:
    """One seed's rollout entropy over the last rollout batches / its first batch's (``measures.entropy_retained``,
    the definition every paper report uses); NaN when empty."""
    return math.nan if history.empty else measures.entropy_retained(history)


def final_train_accuracy(history: pd.DataFrame) -> float:
    """One seed's training ``accuracy`` over the last rollout batches (``measures.end_mean``); NaN when empty."""
    return math.nan if history.empty else measures.end_mean(history, "accuracy")


RUN_INFO_COLUMNS = ("health", "updates_per_rollout", "train_data")


def results_table(
    evals: pd.DataFrame, histories: pd.DataFrame, benchmark: str, run_info: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per evaluated run (base first): ``run``, ``n_seeds``; for mean@n, pass@K (largest K) and
    response_length the value (mean over seeds and problems) and ``<metric>_ci_low`` / ``<metric>_ci_high``;
    ``entropy_retained`` (the geometric mean over seeds of each seed's ratio: ratios are averaged on the log scale)
    and ``train_accuracy`` (mean over seeds); NaN for base. ``run_info`` (indexed by run, ``RUN_INFO_COLUMNS``:
    the health mark, optimizer steps per rollout batch, training set) adds those columns ('' where it has no row)."""
    bench = evals[evals["benchmark"] == benchmark]
    if bench.empty:
        raise ValueError(f"no results for benchmark '{benchmark}'; have {sorted(evals['benchmark'].unique())}")
    runs = _run_order(bench["run"])
    by_key = bench.set_index(["run", "metric"])
    table = pd.DataFrame({"run": runs})
    table["n_seeds"] = [int(bench[bench["run"] == run]["n_seeds"].iloc[0]) for run in runs]
    for metric in _table_metrics(bench, benchmark):
        rows = by_key.reindex(pd.MultiIndex.from_product([runs, [metric]]))
        for field, suffix in CI_FIELDS:
            table[metric + suffix] = rows[field].to_numpy(dtype=float)
    run_histories = [histories[histories["run"] == run] for run in runs]
    table["entropy_retained"] = [_over_seeds(h, entropy_retained, geometric=True) for h in run_histories]
    table["train_accuracy"] = [_over_seeds(h, final_train_accuracy) for h in run_histories]
    if run_info is not None:
        missing = [c for c in RUN_INFO_COLUMNS if c not in run_info.columns]
        if missing:
            raise ValueError(f"run_info has no column(s) {missing}; expected {list(RUN_INFO_COLUMNS)}")
        info = run_info.reindex(runs)
        for column in RUN_INFO_COLUMNS:
            table[column] = [("" if pd.isna(v) else v) for v in info[column]]
        table["updates_per_rollout"] = [v if v == "" else int(v) for v in table["updates_per_rollout"]]
    return table


def _over_seeds(history: pd.DataFrame, summary: Callable[[pd.DataFrame], float], geometric: bool = False) -> float:
    """``summary`` of each training seed's history, averaged over seeds (``geometric``: the mean of the logs,
    floored at ``measures.RETAINED_FLOOR``); NaN when empty."""
    if history.empty:
        return math.nan
    values = np.array([summary(h.sort_values("step")) for _, h in history.groupby("seed")], dtype=float)
    if geometric:
        return float(np.exp(np.mean(np.log(np.maximum(values, measures.RETAINED_FLOOR)))))
    return float(values.mean())


def _fmt(value: float, digits: int) -> str:
    return MISSING if pd.isna(value) else f"{value:.{digits}f}"


def format_table(table: pd.DataFrame) -> pd.DataFrame:
    """``results_table`` as text: ``value [ci_low, ci_high]`` per accuracy metric, ``—`` where not applicable; short
    column names (the README's text above the table defines them) and no response length (in the CSV), so that
    the table fits a 1,000 px column."""
    marks = table["health"] if "health" in table else [""] * len(table)
    out = {
        "run": [f"{r} ({m})" if m else r for r, m in zip(table["run"], marks, strict=True)],
        "seeds": table["n_seeds"],
    }
    if "updates_per_rollout" in table:
        out["protocol"] = [
            MISSING if u == "" else f"{u} / {d}"
            for u, d in zip(table["updates_per_rollout"], table["train_data"], strict=True)
        ]
    for metric in (c for c in table.columns if f"{c}_ci_low" in table.columns and c != "response_length"):
        out[metric] = [
            MISSING if pd.isna(v) else f"{_fmt(v, 3)} [{_fmt(lo, 3)}, {_fmt(hi, 3)}]"
            for v, lo, hi in zip(table[metric], table[f"{metric}_ci_low"], table[f"{metric}_ci_high"], strict=False)
        ]
    out["entropy retained"] = [_fmt(v, 3) for v in table["entropy_retained"]]
    out["train accuracy"] = [_fmt(v, 3) for v in table["train_accuracy"]]
    return pd.DataFrame(out)


# ---------------------------------------------------------------------------------------------- writing
def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


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


# ---------------------------------------------------------------------------------------------- verdicts
VERDICT_TABLE_COLUMNS = ("paper", *VERDICTS, "claims")


def paper_verdicts(papers_dir: str | os.PathLike, papers: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """Per paper ``(name, title)`` the verdict counts of its claims, read from ``<papers_dir>/<name>/claims.csv``
    (a conjunctive claim counts once: the rows with an empty ``parent``): ``VERDICT_TABLE_COLUMNS``, ``paper`` the
    name. Raises FileNotFoundError / ValueError naming the file and what is missing."""
    rows = []
    for name, _ in papers:
        path = Path(papers_dir) / name / "claims.csv"
        if not path.is_file():
            raise FileNotFoundError(f"no {path}: run the paper's stage first (dvc repro paper_{name})")
        claims = pd.read_csv(path, dtype={"parent": str}, keep_default_na=False)
        missing = [c for c in ("parent", "verdict") if c not in claims.columns]
        if missing:
            raise ValueError(f"{path}: no column(s) {missing}: it predates this code; rerun dvc repro paper_{name}")
        whole = claims[claims["parent"] == ""]
        unknown = sorted(set(whole["verdict"]) - set(VERDICTS))
        if unknown:
            raise ValueError(f"{path}: column 'verdict' has unknown value(s) {unknown}; valid: {list(VERDICTS)}")
        counts = whole["verdict"].value_counts()
        rows.append({"paper": name, **{v: int(counts.get(v, 0)) for v in VERDICTS}, "claims": len(whole)})
    return pd.DataFrame(rows, columns=list(VERDICT_TABLE_COLUMNS))


def _verdict_section(verdicts: pd.DataFrame, papers: Sequence[tuple[str, str]], takeaway: str = "") -> list[str]:
    """The README's opening: the summary's generated takeaway, the verdict counts per paper, each paper's title
    linking its report; then a link to each paper report without claims of its own (the summary)."""
    titles = dict(papers)
    linked = verdicts.assign(paper=[f"[{titles[p]}](papers/{p}/README.md)" for p in verdicts["paper"]])
    return [
        "## Which claims hold",
        "",
        *([takeaway.strip(), ""] if takeaway.strip() else []),
        "Each paper's claims, quoted from the paper, judged on the testbed by the rule at the top of every paper "
        "report (`rlvr_lib.papers.framework.claims`); a conjunctive claim counts once. Each paper's report has its "
        "claims, "
        "tables and figures next to the paper's numbers.",
        "",
        markdown_table(linked),
        *(f"- [{title}](papers/{name}/README.md)" for name, title in papers if name not in set(verdicts["paper"])),
        "",
    ]


# ---------------------------------------------------------------------------------------------- the README
RUN_MARKS = (
    "*Run marks* (the paper reports' gates, `rlvr_lib.papers.framework.gates`): (diverged) a seed failed `healthy` "
    "(its mean@n below its own base policy's by a paired t test over the problems, or its rollout entropy past x2 of "
    "its first batch at the peak); (idle) a seed's mechanism never acted (`active`: e.g. AER's alpha_t zero on almost "
    "every rollout batch, which leaves the run GRPO). *Protocol*: optimizer steps per rollout batch / training set; "
    "runs of different protocols are not comparable row by row. "
)


def _readme(
    title: str,
    params_summary: Mapping[str, Any],
    evals: pd.DataFrame,
    tables: dict[str, str],
    figures: list[str],
    ema_alpha: float,
    links: Mapping[str, str],
    papers: Sequence[tuple[str, str]],
    verdicts: pd.DataFrame | None,
    figure_runs: Sequence[str],
    takeaway: str = "",
    marked: bool = False,
) -> str:
    """The report's README, results first: the verdicts per paper (or the paper links), one section per
    benchmark, the training figures, the other reports, then the runs and the settings (collapsed)."""
    runs = _run_order(evals["run"])
    sizes = evals.groupby("benchmark", sort=False)[["n_problems", "n_samples"]].first()
    lines = [
        f"# {title}",
        "",
        "_Generated by the report stage (`rlvr_lib.reporting.report_stage`) from each run's `history.json` and "
        "`results.json` "
        "and each paper's `claims.csv`; do not edit by hand. Regenerate everything with `make repro`._",
        "",
    ]
    if verdicts is not None:
        lines += _verdict_section(verdicts, papers, takeaway)
    elif papers:
        lines += ["## Paper replications", "", *(f"- [{t}](papers/{name}/README.md)" for name, t in papers), ""]
    lines += [
        "## Results",
        "",
        "Each metric: mean over training seeds and problems [95% Student t interval over the per-seed means, as in "
        "the paper reports]; each seed's model is sampled with that seed (the base model too). mean@n is the mean "
        "accuracy over the n samples (the unbiased pass@1); pass@k is the unbiased estimator over the n samples. "
        "*Seeds*: the run's training seeds (its interval is over them: most variants have 3, the headline runs 5). "
        f"*Entropy retained*: mean rollout token entropy over {measures.TAIL_LABEL} / its value at the first batch "
        "(the base model's rollouts), per seed, then the geometric mean over seeds (ratios are averaged on the log "
        f"scale). *Train accuracy*: mean over {measures.TAIL_LABEL}, averaged over seeds. mean@n and pass@k intervals "
        f"are computed on the logit scale, so they stay in [0, 1]. {MISSING}: not applicable. The CSV adds the "
        "response length (tokens). "
        + (RUN_MARKS if marked else "")
        + "Benchmarks: "
        + ", ".join(f"`{b}` ({s.n_problems} problems, {s.n_samples} samples each)" for b, s in sizes.iterrows())
        + ".",
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
    lines += _training_sections(figures, ema_alpha, figure_runs, len(runs) - 1)
    if links:
        lines += ["## Other reports", "", *(f"- [{label}]({path})" for label, path in links.items()), ""]
    lines += [
        "## Runs and settings",
        "",
        "Runs: "
        + ", ".join(f"`{r}`" + (" (untrained model, evaluated only)" if r == BASE_RUN else "") for r in runs)
        + ".",
        "",
        "<details><summary>Every setting of params.yaml these results were made with</summary>",
        "",
        markdown_table(pd.DataFrame(list(_flatten(params_summary).items()), columns=["setting", "value"])),
        "</details>",
        "",
    ]
    return "\n".join(lines)


def _training_sections(figures: list[str], ema_alpha: float, figure_runs: Sequence[str], n_trained: int) -> list[str]:
    if "figures/training_dynamics.png" not in figures:
        return []
    shown = (
        f"The {len(figure_runs)} core methods ({', '.join(f'`{r}`' for r in figure_runs)}); every other run's "
        "curves are in its paper's report."
        if len(figure_runs) < n_trained
        else "Every run."
    )
    lines = [
        "## Training dynamics",
        "",
        f"{shown} EMA-smoothed (alpha = {ema_alpha}) over the raw values drawn faintly; dashed: the base model "
        "(mean over runs of the step-1 value, whose rollouts come from the untrained policy); line: mean over "
        "training seeds, band: the seeds' min-max. `dvc plots show` overlays each paper's runs with their seed bands "
        "(`reports/plots/`).",
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
    links: Mapping[str, str] | None = None,
    papers: Sequence[tuple[str, str]] = (),
    verdicts: pd.DataFrame | None = None,
    figure_runs: Sequence[str] | None = None,
    run_methods: Mapping[str, str] | None = None,
    takeaway: str = "",
    run_info: pd.DataFrame | None = None,
) -> dict[str, bytes]:
    """Every report file in memory: relative path -> content (README.md last). ``links``: label -> path relative
    to the report folder of other reports; ``papers``: (name, title) of the paper reports; ``verdicts``:
    ``paper_verdicts`` of them, the README's opening table; ``figure_runs``: the trained runs whose curves and
    pass@k the figures draw (default every run; the tables always have every run); ``run_methods``: {run: method}
    of params.yaml's runs in its order (their figure styles; a run missing from it gets the method its name starts
    with, ``plots.method_of``); ``run_info``: each run's health mark and protocol (``results_table``), shown in the
    tables."""
    if evals.empty:
        raise ValueError("no evaluation results to report")
    trained = list(dict.fromkeys(histories["run"]))
    figure_runs = trained if figure_runs is None else list(figure_runs)
    unknown = [r for r in figure_runs if r not in trained]
    if unknown:
        raise ValueError(f"figure runs {unknown} have no training history; runs: {trained}")
    missing = sorted({*histories["run"], *evals["run"]} - {BASE_RUN, *(run_methods or {})})
    run_methods = {**(run_methods or {}), **{run: plots.method_of(run) for run in missing}}
    drawn = histories[histories["run"].isin(figure_runs)]
    files: dict[str, bytes] = {}
    drawn_evals = evals[evals["run"].isin([BASE_RUN, *figure_runs])]
    for rel, make in _figure_makers(drawn, drawn_evals, run_methods, ema_alpha).items():
        _add(files, rel, png_bytes(make()))
    tables = {}
    for benchmark in evals["benchmark"].unique():
        table = results_table(evals, histories, benchmark, run_info)
        tables[benchmark] = markdown_table(format_table(table))
        _add(files, f"tables/results_{_slug(benchmark)}.md", tables[benchmark].encode())
        _add(files, f"tables/results_{_slug(benchmark)}.csv", table.to_csv(index=False).encode())
    readme = _readme(
        title,
        params_summary,
        evals,
        tables,
        list(files),
        ema_alpha,
        links or {},
        papers,
        verdicts,
        figure_runs,
        takeaway,
        marked=run_info is not None,
    )
    _add(files, "README.md", readme.encode())
    return files


def write_report(out_dir: str | os.PathLike, histories: pd.DataFrame, evals: pd.DataFrame, **options: Any) -> None:
    """Render the report (``render_report(histories, evals, **options)``) and write each file atomically under
    ``out_dir`` (the ``reports/`` folder): built aside, then ``figures/``, ``tables/`` and README.md replace the
    previous ones together (``rlvr_lib.files.atomic.publish``), so no figure of an earlier report's runs stays behind.
    ``histories``/``evals``: ``load_histories``/``load_eval_results``."""
    files = render_report(histories, evals, **options)
    out = Path(out_dir)
    with staging_dir(out, "report") as staged:
        for rel, data in files.items():
            write_atomic(staged / rel, data)
        publish({staged / top: out / top for top in dict.fromkeys(Path(rel).parts[0] for rel in files)})
