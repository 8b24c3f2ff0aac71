"""What every paper's replication shares: its settings and runs, declared claims, experiments and report.

A paper module subclasses ``PaperBase``: ``declare_claims`` registers each claim with the function that computes
its difference d (an ``Estimate``; raising ``NotTestable`` with the reason when the testbed cannot give it), and
each experiment (a table or a figure of the paper) is a method decorated with ``@experiment(heading)`` that adds its
output to the report and returns it. The notebook prints the verdict rule and the declared claims before calling any
experiment; ``write()`` runs the experiments not yet run, evaluates the claims and writes the report folder.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import plots
from ..config import FULL_SET
from ..report import markdown_table
from .claims import (
    VERDICT_RULE,
    Claim,
    ClaimResult,
    Direction,
    Estimate,
    NotTestable,
    claims_table,
    declared_claims_table,
    judge,
    not_testable,
)
from .config import BASE_RUN, paper_runs
from .output import PaperReport
from .results import ACCURACY, RunResults

MISSING = "—"
SHARED_PROTOCOL = (
    "Protocol: every run starts from the same testbed base policy, trains with the shared `train` settings of "
    "params.yaml plus its own overrides (its `methods.<run>` entry), once per training seed, and is evaluated on "
    "the same held-out problems with the same sampling settings; each seed's model is sampled with that seed. "
    "Numbers are the mean over seeds and problems with a 95% two-way (seeds x problems) bootstrap interval; "
    "differences are paired by seed and problem."
)


def experiment(heading: str):
    """Mark a method as one experiment of the paper (its report section ``heading``); its result is cached. An
    experiment the testbed cannot run (``NotTestable``, e.g. a quantity its runs do not log) leaves the reason in
    its section and returns an empty table."""

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def run(self):
            if fn.__name__ not in self._done:
                try:
                    self._done[fn.__name__] = fn(self, heading)
                except NotTestable as reason:
                    self.report.section(heading, f"Not available here: {reason}.")
                    self._done[fn.__name__] = pd.DataFrame()
            return self._done[fn.__name__]

        run.heading = heading
        return run

    return wrap


def fmt(value: float, digits: int = 3) -> str:
    return MISSING if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def fmt_ci(value: float, low: float, high: float, digits: int = 3) -> str:
    if value is None or math.isnan(value):
        return MISSING
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def show(obj: Any) -> Any:
    """Display a table or a figure in a notebook (figures as PNG, so they render under papermill too)."""
    from IPython.display import Image, Markdown, display

    if isinstance(obj, Figure):
        buf = io.BytesIO()
        obj.savefig(buf, format="png", dpi=100)
        display(Image(data=buf.getvalue()))
    elif isinstance(obj, pd.DataFrame):
        display(Markdown(markdown_table(obj)))
    elif isinstance(obj, dict):
        for value in obj.values():
            show(value)
    else:
        display(obj)
    return None


class PaperBase:
    name = ""
    title = ""
    source = ""  # the paper's text under ../shared/papers
    intro = ""  # one paragraph for the README: what the paper claims and how we test it

    def __init__(self, params):
        self.params = params
        self.settings = params.papers.paper(self.name)
        self.runs = self.settings.runs
        self.results = RunResults(params, paper_runs(self.settings))
        self.report = PaperReport(self.name, self.title, self.intro)
        self._done: dict[str, Any] = {}
        self._claims: list[tuple[Claim, Callable[[], Estimate | ClaimResult]]] = []
        self.declare_claims()

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        raise NotImplementedError

    def claim(
        self,
        key: str,
        quote: str,
        source: str,
        paper_value: str,
        ours: str,
        direction: Direction,
        margin: float,
        compute: Callable[[], Estimate | ClaimResult],
    ) -> None:
        keys = {c.key for c, _ in self._claims}
        unique, i = key, 1
        while unique in keys:  # two roles may name one run (e.g. a reduced test configuration)
            i += 1
            unique = f"{key}_{i}"
        self._claims.append((Claim(unique, quote, source, paper_value, ours, direction, margin), compute))

    def declared_claims(self) -> pd.DataFrame:
        """The claims and how each will be judged, before any result."""
        return declared_claims_table([c for c, _ in self._claims])

    @staticmethod
    def verdict_rule() -> str:
        return VERDICT_RULE

    def evaluate_claims(self) -> list[ClaimResult]:
        if "_claims_done" not in self._done:
            out = []
            for claim, compute in self._claims:
                try:
                    got = compute()
                except NotTestable as reason:
                    result = not_testable(claim, str(reason))
                else:
                    result = got if isinstance(got, ClaimResult) else judge(claim, got)
                result.claim = claim
                result.paper = self.name
                out.append(result)
            self._done["_claims_done"] = out
            self.report.set_claims(out)
        return self._done["_claims_done"]

    def claims_table(self) -> pd.DataFrame:
        return claims_table(self.evaluate_claims())

    # ------------------------------------------------------------------ experiments
    def experiments(self) -> list[str]:
        """The experiment methods, in the order of the class body (the report's order)."""
        names = []
        for cls in reversed(type(self).__mro__):
            for name, value in vars(cls).items():
                if callable(value) and hasattr(value, "heading") and name not in names:
                    names.append(name)
        return names

    def run_all(self) -> None:
        for name in self.experiments():
            getattr(self, name)()

    def write(self) -> Path:
        """Run every experiment not yet run, evaluate the claims, write ``reports/papers/<name>/``."""
        self.run_all()
        self.evaluate_claims()
        self.report.settings_md = self.settings_markdown()
        return self.report.write()

    # ------------------------------------------------------------------ helpers for the paper modules
    def hparam(self, run: str, name: str) -> Any:
        """The value of method setting ``name`` that ``run`` trains with: its ``methods.<run>`` entry or the
        method's default."""
        from ..methods import build_method

        spec = self.params.runs[run]
        return getattr(build_method(spec.method, spec.hparams).cfg, name)

    def compare(self, a: str, b: str, metric: str = ACCURACY) -> Estimate:
        return self.results.compare(a, b, metric)

    def eval_cells(self, run: str, metrics: Sequence[str]) -> tuple[dict[str, float], dict[str, str]]:
        """Raw values (``<metric>``, ``<metric>_ci_low``, ``<metric>_ci_high``) and formatted cells of ``run``."""
        raw, shown = {}, {}
        for metric in metrics:
            digits = 1 if metric == "response_length" else 3
            try:
                value, low, high = self.results.eval_summary(run, metric)
            except NotTestable:
                value = low = high = math.nan
            raw.update({metric: value, f"{metric}_ci_low": low, f"{metric}_ci_high": high})
            shown[metric] = fmt_ci(value, low, high, digits)
        return raw, shown

    def eval_table(
        self,
        rows: Sequence[tuple[str, str]],
        metrics: Sequence[str],
        paper: dict[str, str] | None = None,
        paper_column: str = "paper",
    ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(raw, shown) tables with one row per (label, run): each metric's mean [95% interval], the updates per
        rollout batch, and the paper's number for the row's label when ``paper`` gives one."""
        raw_rows, shown_rows = [], []
        for label, run in rows:
            raw, shown = self.eval_cells(run, metrics)
            updates = self.results.updates_per_rollout(run)
            raw_rows.append({"row": label, "run": run, **raw, "updates_per_rollout": updates})
            cells = {"row": label, "run": f"`{run}`", **shown}
            cells["updates / rollout"] = MISSING if updates is None else str(updates)
            if paper is not None:
                raw_rows[-1][paper_column] = paper.get(label, "")
                cells[paper_column] = paper.get(label, MISSING)
            shown_rows.append(cells)
        return pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)

    def seed_values_table(
        self, rows: Sequence[tuple[str, str]], quantities: dict[str, Callable[[pd.DataFrame], float]], digits: int = 3
    ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(raw, shown) tables of training-history quantities: per row, each quantity's per-seed values and mean."""
        raw_rows, shown_rows = [], []
        for label, run in rows:
            raw, shown = {"row": label, "run": run}, {"row": label, "run": f"`{run}`"}
            for name, fn in quantities.items():
                try:
                    values = self.results.per_seed(run, fn)
                except NotTestable:
                    values = np.full(len(self.results.seeds), math.nan)
                raw[name] = float(np.mean(values))
                for seed, v in zip(self.results.seeds, values, strict=True):
                    raw[f"{name}_seed{seed}"] = float(v)
                per_seed = ", ".join(fmt(v, digits) for v in values)
                shown[name] = f"{fmt(float(np.mean(values)), digits)} ({per_seed})"
            raw_rows.append(raw)
            shown_rows.append(shown)
        return pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)

    def curves(
        self,
        runs: Sequence[str],
        panels: Sequence[tuple[str, str, str]],
        *,
        ema_alpha: float,
        title: str,
        ncols: int = 4,
        labels: dict[str, str] | None = None,
    ) -> Figure:
        """Training curves: one panel per (history key, title, y scale: linear | log | symlog), one line per run
        (mean over seeds of each seed's EMA, raw mean faint, seeds' min-max band)."""
        colors = plots.run_colors(runs)
        fig, axes = plots._new_figure(len(panels), ncols=ncols)
        for ax, (key, panel_title, scale) in zip(axes, panels, strict=False):
            drawn = False
            for run in runs:
                try:
                    history = self.results.history(run)
                except NotTestable:
                    continue
                if key in history.columns and history[key].notna().any():
                    label = (labels or {}).get(run, run)
                    plots._plot_curve(ax, history, key, colors[run], label, ema_alpha)
                    drawn = True
            ax.set_title(panel_title)
            ax.set_xlabel("step")
            if not drawn:
                ax.text(0.5, 0.5, f"'{key}' not logged", ha="center", va="center", transform=ax.transAxes)
            elif scale == "symlog":
                ax.set_yscale("symlog", linthresh=1e-2)
            elif scale == "log":
                ax.set_yscale("log")
        handles = {}
        for ax in axes:
            for h, label in zip(*ax.get_legend_handles_labels(), strict=False):
                handles.setdefault(label, h)
        if handles:
            fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=min(len(handles), 6))
        fig.suptitle(title)
        return fig

    def bar_figure(self, rows: Sequence[tuple[str, str]], metric: str, title: str, ylabel: str | None = None) -> Figure:
        """One bar per (label, run): ``metric``'s mean with its 95% interval."""
        fig, (ax,) = plots._new_figure(1, ncols=1, panel_size=(max(4.0, 0.9 * len(rows) + 1.5), 3.2))
        colors = plots.run_colors([r for _, r in rows])
        for i, (label, run) in enumerate(rows):
            value, low, high = self.results.eval_summary(run, metric)
            ax.bar(i, value, color=colors[run], label=label)
            ax.errorbar(i, value, yerr=[[value - low], [high - value]], color="black", capsize=3)
        ax.set_xticks(range(len(rows)), [label for label, _ in rows], rotation=30, ha="right")
        ax.set_ylabel(ylabel or metric)
        ax.set_title(title)
        return fig

    @staticmethod
    def per_seed_points(ax: Axes, x: float, values: np.ndarray, color) -> None:
        ax.scatter(np.full(len(values), x), values, color=color, edgecolor="black", zorder=3, s=18)

    def settings_markdown(self) -> str:
        """The runs the paper used (method, its overrides, updates per rollout batch, steps) and its settings."""
        rows = []
        for run in paper_runs(self.settings):
            if run == BASE_RUN:
                rows.append({"run": "`base`", "method": "—", "settings": "the untrained testbed policy"})
                continue
            spec = self.params.runs[run]
            shared = dataclasses.asdict(self.params.train)
            overrides = {k: v for k, v in dataclasses.asdict(spec.train).items() if shared.get(k) != v}
            overrides.pop("seed", None)
            text = ", ".join(f"{k}={v}" for k, v in {**spec.hparams, **overrides}.items()) or "defaults"
            rows.append(
                {
                    "run": f"`{run}`",
                    "method": spec.method,
                    "settings": text,
                    "updates / rollout": str(self.results.updates_per_rollout(run)),
                    "steps": str(spec.train.max_steps),
                    "training set": spec.train_data,
                }
            )
        flat = _flatten(dataclasses.asdict(self.settings))
        filtered = sorted({self.params.runs[r].train_data for r in paper_runs(self.settings, trained_only=True)})
        data_note = (
            " Training sets: `full` is every training problem; any other is the filter_data stage's set of that "
            "name, the paper's data filter on the testbed, applied with each training seed's base policy "
            "(`data/filtered/seed<N>/<set>.jsonl`, counts in reports/data_filters/seed<N>/README.md)."
            if filtered != [FULL_SET]
            else ""
        )
        return "\n".join(
            [
                f"Training seeds: {self.params.seeds}; profile `{self.params.profile}`. {SHARED_PROTOCOL}{data_note}",
                "",
                markdown_table(pd.DataFrame(rows).fillna(MISSING)),
                f"`papers.{self.name}` in params.yaml:",
                "",
                markdown_table(pd.DataFrame(list(flat.items()), columns=["setting", "value"])),
            ]
        )


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out
