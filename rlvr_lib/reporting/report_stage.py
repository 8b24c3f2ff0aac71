"""The report stage (``notebooks/report.ipynb``): every run's logs and evaluations, and each paper's claims, into
``reports/README.md`` with its figures and tables (``rlvr_lib.reporting.main_page``) and the files of the root
dvc.yaml's ``metrics:`` and ``plots:`` (``rlvr_lib.reporting.dvc_views``).

The main page draws the summary's core methods (params.yaml ``papers.summary.runs.methods``; every run when
``papers`` is absent); ``dvc plots show`` overlays each paper's runs and the core methods.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pandas as pd

from rlvr_lib.papers.framework.claims import NotRun, NotTestable
from rlvr_lib.papers.framework.results import RunResults
from rlvr_lib.render import plots
from rlvr_lib.render.tables import load_histories
from rlvr_lib.reporting import dvc_views
from rlvr_lib.reporting.main_page import load_eval_results, paper_verdicts, results_table, write_report
from rlvr_lib.settings.config import FULL_SET, Params
from rlvr_lib.settings.papers import BASE_RUN, PAPER_TITLES, PAPERS, paper_runs, run_roles
from rlvr_lib.workspace.layout import (
    EVAL_DIR,
    REPORTS_DIR,
    TESTBED_DIR,
    TRAINING_LOGS_DIR,
    check_eval_settings,
    filter_report_dir,
    run_seeds,
    seed_folder,
)
from rlvr_lib.workspace.lineage import check_origins

CORE_GROUP = "core"  # reports/plots/core/: the summary's methods
MAX_PLOT_RUNS = 8  # runs one `dvc plots show` chart overlays: with more, its colours no longer tell them apart


def _takeaway() -> str:
    """The summary report's generated takeaway (reports/papers/summary/takeaway.md), '' before it exists."""
    path = REPORTS_DIR / "papers" / "summary" / "takeaway.md"
    return path.read_text() if path.is_file() else ""


def settings_summary(params: Params) -> dict:
    """The settings the results were made with, as the README's collapsed table lists them."""
    return {
        "profile": params.profile,
        "seed": params.seed,
        "seeds": params.seeds,
        "data": asdict(params.data),
        "train": asdict(params.train),
        "eval": asdict(params.eval),
        "methods": {
            name: {
                "method": s.method,
                **s.hparams,
                **({"train_data": s.train_data} if s.train_data != FULL_SET else {}),
                **({"seeds": s.seeds} if s.seeds != params.seeds else {}),
            }
            for name, s in params.runs.items()
        },
    }


def run_info(params: Params) -> pd.DataFrame:
    """Per trained run (index): ``health``, the paper reports' marks ('diverged' and/or 'idle', from
    ``rlvr_lib.papers.framework.gates``; '' for a healthy, active run; 'not diagnosed' where a seed's results are
    missing), ``updates_per_rollout`` (optimizer steps per rollout batch) and ``train_data`` (its training set)."""
    results = RunResults(params, [BASE_RUN, *params.runs])
    rows = []
    for run, spec in params.runs.items():
        try:
            health = results.marks(run)
        except (NotRun, NotTestable):
            health = "not diagnosed"
        rows.append(
            {
                "run": run,
                "health": health,
                "updates_per_rollout": results.updates_per_rollout(run),
                "train_data": spec.train_data,
            }
        )
    return pd.DataFrame(rows).set_index("run")


def other_reports(params: Params) -> dict[str, str]:
    """Label -> path (relative to reports/) of the testbed and data-filter reports that exist."""
    links = {}
    if (TESTBED_DIR / "README.md").exists():
        links[
            "The testbed's measured properties: base headroom, GRPO's entropy collapse and sharpening per seed, "
            "ERPO's perturbation study"
        ] = "testbed/README.md"
    first = params.all_seeds[0]
    if (filter_report_dir(first) / "README.md").exists():
        links[
            f"The papers' training-set filters (ERPO, TEPO): problems left after each rule (seed {first}'s base "
            "policy; every seed's in data_filters/)"
        ] = f"data_filters/{seed_folder(first)}/README.md"
    return links


def plot_groups(params: Params) -> dict[str, list[str]]:
    """Group name -> trained runs overlaid in ``dvc plots show``: each paper's, and the core methods. A paper with
    more than ``MAX_PLOT_RUNS`` runs is split by its roles (``<paper>-<first role>``), each chart with the paper's
    method and GRPO runs for reference."""
    if params.papers is None:
        return {CORE_GROUP: list(params.runs)}
    groups: dict[str, list[str]] = {}
    for paper in PAPERS:
        settings = params.papers.paper(paper)
        runs = paper_runs(settings, trained_only=True)
        groups.update({paper: runs} if len(runs) <= MAX_PLOT_RUNS else split_by_role(paper, settings))
    return {**groups, CORE_GROUP: list(params.papers.summary.runs.methods)}


def split_by_role(paper: str, settings) -> dict[str, list[str]]:
    """A paper's runs in charts of whole roles, at most ``MAX_PLOT_RUNS`` runs each with the references (its method
    and GRPO runs, where it names them) in every chart; the first is named ``<paper>``."""
    references = [getattr(settings.runs, role) for role in (paper, "grpo") if hasattr(settings.runs, role)]
    out: dict[str, list[str]] = {}
    name, chart = paper, list(references)
    for role, runs in run_roles(settings).items():
        new = [r for r in runs if r not in chart]
        if len(chart) + len(new) > MAX_PLOT_RUNS and len(chart) > len(references):
            out[name] = chart
            name, chart = f"{paper}-{role}", list(references)
            new = [r for r in runs if r not in chart]
        chart += new
    out[name] = chart
    return out


def stage_report(params: Params) -> Path:
    """Write the report, reports/run_metrics/ and reports/plots/; returns reports/README.md.

    Refuses evaluations made with other settings than params.yaml's (e.g. left by a smoke run), naming the run,
    results made by other code than today's (``rlvr_lib.workspace.lineage.check_origins``), and a paper's
    claims.csv that is missing or malformed, naming the file.
    """
    runs = list(params.runs)
    for run in ["base", *runs]:
        for seed in run_seeds(params, run):
            check_eval_settings(params, run, seed)
    by_seed = {run: {seed: seed_folder(seed) for seed in run_seeds(params, run)} for run in ["base", *runs]}
    unrecorded = sum(
        check_origins(run, {s: folder / run / f for s, f in by_seed[run].items()})
        for run in ["base", *runs]
        for folder in ([EVAL_DIR] if run == "base" else [TRAINING_LOGS_DIR, EVAL_DIR])
    )
    if unrecorded:  # results made before origin records (rlvr_lib.workspace.lineage): read, and counted here
        print(f"{unrecorded} training or evaluation results carry no origin record (made before origin records)")
    histories = load_histories({run: {s: TRAINING_LOGS_DIR / run / f for s, f in by_seed[run].items()} for run in runs})
    evals = load_eval_results({run: {s: EVAL_DIR / run / f for s, f in d.items()} for run, d in by_seed.items()})
    groups = plot_groups(params)
    info = run_info(params)
    papers = [] if params.papers is None else list(PAPER_TITLES.items())
    five = [(name, title) for name, title in papers if name in PAPERS]
    write_report(
        REPORTS_DIR,
        histories,
        evals,
        title="Entropy control in RLVR: results",
        params_summary=settings_summary(params),
        links=other_reports(params),
        papers=papers,
        verdicts=paper_verdicts(REPORTS_DIR / "papers", five) if five else None,
        figure_runs=groups[CORE_GROUP],
        run_methods={run: spec.method for run, spec in params.runs.items()},
        takeaway=_takeaway(),
        run_info=info,
    )
    tables = {b: results_table(evals, histories, b, info) for b in evals["benchmark"].unique()}
    dvc_views.write(REPORTS_DIR, dvc_views.render(tables, histories, groups, plots.DEFAULT_EMA_ALPHA))
    return REPORTS_DIR / "README.md"
