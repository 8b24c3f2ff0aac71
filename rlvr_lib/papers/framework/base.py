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
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from rlvr_lib.papers.framework.about import Mechanism, RootCause
from rlvr_lib.papers.framework.claims import (
    AUTO_NULL,
    BEFORE_RUNS,
    DEFAULT_GATES,
    DOES_NOT_HOLD,
    PAPER_DECODING,
    VERDICT_RULE,
    Claim,
    ClaimResult,
    Direction,
    Estimate,
    Fixed,
    NotRun,
    NotTestable,
    claims_table,
    declared_claims_table,
    estimate_of,
    flatten,
    judge_whole,
)
from rlvr_lib.papers.framework.declare import Measure
from rlvr_lib.papers.framework.engine import check_alternative, decoding_choice, evaluate
from rlvr_lib.papers.framework.guard import METHOD
from rlvr_lib.papers.framework.method_text import METHODS
from rlvr_lib.papers.framework.output import PaperReport, WriteUp
from rlvr_lib.papers.framework.results import ACCURACY, RunResults
from rlvr_lib.papers.framework.setup import hyperparameter_sentence, setup_table
from rlvr_lib.papers.framework.writeup import discussion, limitations, summary_lines
from rlvr_lib.render import plots
from rlvr_lib.render.tables import markdown_table
from rlvr_lib.settings.config import FULL_SET
from rlvr_lib.settings.papers import BASE_RUN, paper_runs, repro_pairs

MISSING = "—"
SHARED_PROTOCOL = (
    "Protocol: a training seed replicates the whole pipeline: seed s builds its own testbed base policy (SFT with "
    "seed s), every run's seed s trains from it with the shared `train` settings of params.yaml plus the run's own "
    "overrides (its `methods.<run>` entry) and is evaluated on the same held-out problems, sampled with seed s. "
    "Numbers are the mean over seeds and problems with a 95% Student t interval over the per-seed means; "
    "differences are paired by seed, and two compared runs differ only in what the claim is about "
    "(rlvr_lib.papers.framework.guard)."
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
    """Display a table, a figure (or its PNG bytes), Markdown text, or a list or dict of them in a notebook (figures
    as PNG, so they render under papermill too)."""
    from IPython.display import Image, Markdown, display

    if isinstance(obj, Figure):
        buf = io.BytesIO()
        obj.savefig(buf, format="png", dpi=100)
        display(Image(data=buf.getvalue()))
    elif isinstance(obj, bytes):  # a PNG
        display(Image(data=obj))
    elif isinstance(obj, pd.DataFrame):
        display(Markdown(markdown_table(obj)))
    elif isinstance(obj, str):
        display(Markdown(obj))
    elif isinstance(obj, dict):
        for value in obj.values():
            show(value)
    elif isinstance(obj, list):
        for value in obj:
            show(value)
    else:
        display(obj)
    return None


class PaperBase:
    name = ""
    title = ""
    source = ""  # the paper's text under ../shared/papers
    intro = ""  # one paragraph for the README: what the paper claims and how we test it
    # when and why the verdicts left the paper's own decoding (``verdicts_at: shared``): a ``Fixed`` after the runs
    decoding_choice: Fixed | None = None
    mechanism: Mechanism | None = None  # which runs switch the paper's mechanism on (a claim on one is about it)
    root_causes: tuple[RootCause, ...] = ()  # refutations that share one cause, counted once in the Summary

    def __init__(self, params):
        self.params = params
        self.settings = params.papers.paper(self.name)
        self.runs = self.settings.runs
        own = getattr(self.settings, "eval_decoding", None)
        shared = own is not None and getattr(self.settings, "verdicts_at", "paper") == "shared"
        if shared and self.decoding_choice is None:
            raise ValueError(
                f"papers.{self.name}.verdicts_at is 'shared' but the paper declares no decoding_choice (when and why "
                f"its verdicts left its own decoding '{own}')"
            )
        verdicts = None if shared else own
        self.results = RunResults(params, paper_runs(self.settings), verdicts, beside=own if shared else None)
        self.results.gates.grpo = self.null_run()
        pairs = sum(map(len, repro_pairs(params, self.name).values()))
        self.report = PaperReport(self.name, self.title, self.intro, pairs)
        self._done: dict[str, Any] = {}
        self._claims: list[tuple[Claim, Callable[[], Estimate | ClaimResult]]] = []
        self.declared_measures: dict[str, Measure | Callable] = {}  # each claim's measure as declared
        self.declare_claims()

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        raise NotImplementedError

    def claim(
        self,
        *,
        key: str,
        quote: str,
        source: str,
        paper_value: str,
        ours: str,
        direction: Direction,
        margin: float,
        compute: Measure | Callable[[], Estimate | ClaimResult],
        reference: float = 0.0,
        paper_effect: float | None = None,
        part_of: str | None = None,
        null: object = AUTO_NULL,
        requires: tuple[str, ...] = DEFAULT_GATES,
        measure: str = "",
        universal: bool = False,
        fixed: Fixed = BEFORE_RUNS,
        constant_under: tuple[tuple[str, str], ...] = (),
    ) -> str:
        """Declare a claim (or, with ``part_of``, a part of the conjunctive claim of that key); returns its key.
        Every field by name (``rlvr_lib.papers.framework.claims.Claim`` says what each means); ``compute`` (declared
        with ``rlvr_lib.papers.framework.declare.measure``) returns d's estimate or raises ``NotTestable`` /
        ``NotRun``."""
        if part_of is not None and part_of not in {c.key for c, compute in self._claims if compute is None}:
            raise ValueError(f"claim {key}: part_of '{part_of}' is not a conjunctive claim declared before it")
        claim = Claim(
            self._unique_key(key),
            quote,
            source,
            paper_value,
            ours,
            direction,
            margin,
            reference,
            paper_effect,
            part_of,
            null=null,
            requires=tuple(requires),
            measure=measure,
            universal=universal,
            constant_under=tuple(constant_under),
            fixed=fixed,
        )
        self.declared_measures[claim.key] = compute
        self._claims.append((claim, compute.bind(self) if isinstance(compute, Measure) else compute))
        return claim.key

    def conjunction(self, *, key: str, quote: str, source: str, paper_value: str, ours: str) -> str:
        """Declare a conjunctive claim, judged whole from the parts declared with ``part_of=<its key>``."""
        claim = Claim(self._unique_key(key), quote, source, paper_value, ours, None, 0.0)
        self._claims.append((claim, None))
        return claim.key

    def _unique_key(self, key: str) -> str:
        keys = {c.key for c, _ in self._claims}
        unique, i = key, 1
        while unique in keys:  # two roles may name one run (e.g. a reduced test configuration)
            i += 1
            unique = f"{key}_{i}"
        return unique

    def null_run(self) -> str | None:
        """The run a property claim on one of the paper's runs is judged against (its GRPO run; a paper whose
        method trains under another protocol names its own), and the reference of the ``learned`` gate."""
        return getattr(self.runs, "grpo", None)

    def alternatives(self) -> dict[str, dict[str, str]]:
        """The paper's declared alternatives (params.yaml ``papers.<paper>.alternatives``), each checked to change
        method settings only."""
        declared = dict(getattr(self.settings, "alternatives", {}))
        for name, swaps in declared.items():
            check_alternative(self.params, name, swaps)
        return declared

    def declared_claims(self) -> pd.DataFrame:
        """The claims and how each will be judged, before any result."""
        return declared_claims_table([c for c, _ in self._claims])

    @staticmethod
    def verdict_rule() -> str:
        return VERDICT_RULE

    def evaluate_claims(self) -> list[ClaimResult]:
        """The claims' results in declaration order; a conjunctive claim's parts are nested under it."""
        if "_claims_done" not in self._done:
            parts: dict[str, list[ClaimResult]] = {}
            out = []
            for claim, compute in self._claims:
                if compute is None:
                    out.append(claim)
                    continue
                result = evaluate(self, claim, compute)
                result.claim = claim
                result.paper = self.name
                if claim.parent is None:
                    out.append(result)
                else:
                    parts.setdefault(claim.parent, []).append(result)
            for i, item in enumerate(out):
                if isinstance(item, Claim):
                    if item.key not in parts:
                        raise ValueError(f"conjunctive claim {item.key} has no parts")
                    out[i] = judge_whole(item, parts[item.key])
                    out[i].paper = self.name
                    earlier = out[i].by_alternative.get(PAPER_DECODING)
                    if out[i].beside and earlier:
                        out[i].chosen = decoding_choice(self, f"{earlier} (from its parts)")
            self._mark_about(out)
            self._done["_claims_done"] = out
            self.report.set_claims(out)
        return self._done["_claims_done"]

    def _mark_about(self, results: list[ClaimResult]) -> None:
        """Each result's arms that switch the paper's mechanism on, and a refutation's declared root cause."""
        keys = {r.claim.key for r in flatten(results)}
        for root in self.root_causes:
            unknown = [k for k in root.claims if k not in keys]
            if unknown:
                raise ValueError(f"{self.name}: root cause '{root.cause}' names unknown claim(s) {unknown}")
        causes = {k: root.cause for root in self.root_causes for k in root.claims}
        for r in flatten(results):
            if self.mechanism is not None:
                r.method_runs = tuple(
                    a for a in r.arms if a in self.params.runs and self.mechanism.on(self.params.runs[a])
                )
            if r.verdict == DOES_NOT_HOLD and r.claim.parent is None:
                r.root_cause = causes.get(r.claim.key, "") or failed_root(r, self.params)

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

    def evidence(self, name: str) -> list[str | bytes]:
        """The experiment ``name``'s Evidence subsection as the README shows it, for ``show`` in the notebook: its text,
        tables and figures (PNG bytes), each followed by its caption line. The table-file links are left out (they
        point from the report folder)."""
        getattr(self, name)()
        parts: list[str | bytes] = []
        for kind, value in self.report.evidence_blocks(getattr(type(self), name).heading):
            if kind == "figure":
                parts.append(self.report.files[value])
            elif kind != "links":
                parts.append(value)
        return parts

    def run_all(self) -> None:
        for name in self.experiments():
            getattr(self, name)()

    def write(self) -> Path:
        """Run every experiment not yet run, evaluate the claims, write ``reports/papers/<name>/``."""
        self.run_all()
        self.evaluate_claims()
        self.report.writeup = WriteUp(
            self.summary(), self.method(), self.setup(), self.discussion(), self.limitations()
        )
        return self.report.write()

    # ------------------------------------------------------------------ the write-up's sections (Markdown)
    def summary(self) -> str:
        """Five lines from the claims' verdicts, naming the paper's citation."""
        return "\n".join(summary_lines(self, self.evaluate_claims()))

    def method(self) -> str:
        return METHODS[self.name]

    def claims_section(self) -> str:
        """The Claims section: the verdict rule, the counts and the compact claims table."""
        self.evaluate_claims()
        return self.report.claims_markdown()

    def main_run(self) -> str:
        """The run of the paper's own method whose settings the setup table shows."""
        return getattr(self.runs, self.name)

    def setup(self) -> str:
        """The paper-vs-testbed table, the exact sentence on the hyperparameters used as given, and the runs."""
        run = self.main_run()
        return "\n".join(
            [
                hyperparameter_sentence(self.name, self.params, run),
                "",
                markdown_table(setup_table(self.name, self.params, run)),
                "Paper column: `configs/" + self.name + ".yaml` (the paper's profile), sources from "
                "docs/paper_configs.md; testbed column: params.yaml resolved for the run.",
                "",
                *self.decodings_section(),
                "### The runs",
                "",
                self.settings_markdown(),
            ]
        )

    def decodings_section(self) -> list[str]:
        """Markdown lines: every run's mean@n at the shared decoding and at the paper's own, the verdicts' marked
        (none for a paper evaluated at the shared one only), then ``decoding_note``."""
        own = self.results.decoding or self.results.beside
        if own is None:
            return []
        verdicts_own = self.results.decoding is not None
        shared = self.params.eval.for_benchmark("")
        own_words = self.params.eval.for_benchmark("", own)
        columns = (
            ((f"`{own}` (the verdicts')", own), ("shared", None))
            if verdicts_own
            else (("shared (the verdicts')", None), (f"`{own}` (the paper's, beside)", own))
        )
        rows = []
        for run in paper_runs(self.settings):
            row = {"run": run}
            for label, at in columns:
                with self.results.at_decoding(at):
                    try:
                        mean, low, high = self.results.eval_summary(run, ACCURACY)
                        row[f"mean@n, {label}"] = f"{mean:.3f} [{low:.3f}, {high:.3f}]"
                    except (NotRun, NotTestable) as reason:
                        row[f"mean@n, {label}"] = f"not run ({reason})" if isinstance(reason, NotRun) else "—"
            row["seeds"] = len(self.results.seeds_of(run))
            rows.append(row)
        if verdicts_own:
            which = (
                f"at the paper's own decoding `{own}` ({_decoding_words(own_words)}), which the accuracy and pass@k "
                f"verdicts read, and at the decoding shared by every report ({_decoding_words(shared)}); each such "
                "verdict judged at the shared decoding is in the claims table's robustness column."
            )
        else:
            which = (
                f"at the decoding shared by every report ({_decoding_words(shared)}), which the accuracy and pass@k "
                f"verdicts read, and at the paper's own decoding `{own}` ({_decoding_words(own_words)}); each such "
                "verdict judged at the paper's decoding is in the claims table's robustness column and, as the earlier "
                f"reading, beside it ({self.decoding_choice.at}: {self.decoding_choice.what})."
            )
        return [
            "### Evaluation at both decodings",
            "",
            f"Every run is evaluated twice from the same trained models: {which} Mean over seeds and problems, 95% t "
            "interval over seeds.",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
            *([note, ""] if (note := self.decoding_note()) else []),
        ]

    def decoding_note(self) -> str:
        """A paper's own line under the decodings table ('' for none): e.g. a ceiling its decoding sits at."""
        return ""

    def discussion(self) -> str:
        self.run_all()  # the sensitivity tables are part of it
        return discussion(self, self.evaluate_claims())

    def discussion_notes(self) -> list[str]:
        """Paragraphs of the Discussion that are the paper's own (a paper module overrides it)."""
        return []

    def limitations(self) -> str:
        return limitations(self, self.evaluate_claims())

    # ------------------------------------------------------------------ helpers for the paper modules
    def hparam(self, run: str, name: str) -> Any:
        """The value of method setting ``name`` that ``run`` trains with: its ``methods.<run>`` entry or the
        method's default."""
        from rlvr_lib.methods import build_method

        spec = self.params.runs[run]
        return getattr(build_method(spec.method, spec.hparams).cfg, name)

    def hparam_text(self, run: str, name: str) -> str:
        """``hparam`` as text (floats as ``:g``) for a claim's description, '—' where ``run``'s method has no such
        setting (a reduced protocol's stand-in of another method)."""
        try:
            value = self.hparam(run, name)
        except AttributeError:
            return MISSING
        return f"{value:g}" if isinstance(value, float) else str(value)

    def single_run(self, run: str, fn: Callable[[pd.DataFrame], float]) -> Estimate:
        """The estimate of one run's per-seed history quantity ``fn`` (a claim on one run, e.g. its entropy kept)."""
        values = self.results.per_seed(run, fn)
        return estimate_of(values, detail=f"{self.results.label(run)}: per seed {np.round(values, 4).tolist()}")

    def compare(self, a: str, b: str, metric: str = ACCURACY, differs_in: tuple[str, ...] = (METHOD,)) -> Estimate:
        return self.results.compare(a, b, metric, differs_in)

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
            cells = {"row": label, "run": f"`{self.results.label(run)}`", **shown}
            cells["updates / rollout"] = MISSING if updates is None else str(updates)
            if paper is not None:
                raw_rows[-1][paper_column] = paper.get(label, "")
                cells[paper_column] = paper.get(label, MISSING)
            shown_rows.append(cells)
        return pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)

    def sensitivity_table(self, heading: str, method: str, baseline: str, variants: Sequence[str]) -> pd.DataFrame:
        """Sensitivity beside the verdicts (which stay with ``method``'s pre-declared settings): each variant of
        ``method`` with an open choice changed, what changed, its mean@n and entropy retained, whether it diverged,
        and its difference to ``baseline`` (the comparison allowed to differ in the method and those changes)."""
        from rlvr_lib.papers.framework.guard import settings_difference
        from rlvr_lib.papers.framework.results import log_entropy_retained

        raw_rows, shown_rows = [], []
        for run in [method, *variants]:
            changes = {} if run == method else settings_difference(self.params, run, method)
            acc, low, high = self.results.eval_summary(run, ACCURACY)
            try:
                # the geometric mean over seeds (ratios are averaged on the log scale, as the main page and summary)
                retained = float(np.exp(self.results.per_seed(run, log_entropy_retained).mean()))
            except NotTestable:
                retained = math.nan
            d = self.compare(run, baseline, ACCURACY, (METHOD, *changes))
            changed = ", ".join(f"{k.split('.', 1)[-1]} {vb!r} -> {va!r}" for k, (va, vb) in changes.items())
            raw_rows.append(
                {"run": run, "changes": changed, ACCURACY: acc, "d": d.value, "d_low": d.ci_low, "d_high": d.ci_high}
            )
            shown_rows.append(
                {
                    "run": f"`{self.results.label(run)}`",
                    "changed from the verdict's run": changed or "— (the verdict's run)",
                    "mean@n": fmt_ci(acc, low, high),
                    "entropy retained": fmt(retained),
                    f"d vs `{baseline}`": fmt_ci(d.value, d.ci_low, d.ci_high),
                }
            )
        raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
        self.report.section(
            heading,
            f"Each row changes open choices of `{method}` (docs/assumptions.md); the verdicts stay with `{method}`'s "
            "pre-declared settings. d: mean@n minus the baseline's, paired by seed, with a 95% t interval.",
        )
        self.report.add_table(heading, "sensitivity", raw, shown)
        return shown

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
                    values = np.full(len(self.results.seeds_of(run)), math.nan)
                raw[name] = float(np.mean(values))
                for seed, v in zip(self.results.seeds_of(run), values, strict=True):
                    raw[f"{name}_seed{seed}"] = float(v)
                per_seed = ", ".join(fmt(v, digits) for v in values)
                shown[name] = f"{fmt(float(np.mean(values)), digits)} ({per_seed})"
            raw_rows.append(raw)
            shown_rows.append(shown)
        return pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)

    @functools.cached_property
    def styles(self) -> dict[str, plots.Style]:
        """Every run's figure style (``plots.run_styles`` over params.yaml's runs in order: the same in every
        report)."""
        return plots.run_styles({run: spec.method for run, spec in self.params.runs.items()})

    def curves(
        self,
        runs: Sequence[str],
        panels: Sequence[tuple[str, str, str]],
        *,
        ema_alpha: float,
        title: str,
        ncols: int = 4,
        labels: dict[str, str] | None = None,
        references: dict[str, tuple[float, str]] | None = None,
        styles: dict[str, plots.Style] | None = None,
    ) -> Figure:
        """Training curves: one panel per (history key, title, y scale: linear | log), one line per run in its
        style (mean over seeds of each seed's EMA, raw mean faint, seeds' min-max band), the y axis labelled with
        the quantity and its unit (``plots.QUANTITY_LABELS``), one legend below the panels. ``references``: a
        horizontal line (value, label) on the panel of a key, e.g. the paper's number. ``styles``: a run's style in
        this figure where its method's would be hard to tell from another run's."""
        fig, axes = plots.new_figure(len(panels), ncols=ncols)
        for ax, (key, panel_title, scale) in zip(axes, panels, strict=True):
            drawn = False
            for run in runs:
                try:
                    history = self.results.history(run)
                except NotTestable:
                    continue
                if key in history.columns and history[key].notna().any():
                    label = (labels or {}).get(run, run)
                    style = (styles or {}).get(run, self.styles[run])
                    drawn |= plots.plot_curve(ax, history, key, style, label, ema_alpha)
            plots.panel_title(ax, panel_title)
            if key in (references or {}):
                value, label = references[key]
                ax.axhline(value, color=plots.PAPER_COLOR, linestyle=":", linewidth=1.2, label=label)
            if drawn:
                plots.label_step_axes(ax, key, log_y=scale == "log")
            else:
                plots.not_logged(ax, key)
        plots.figure_legend(fig)
        plots.figure_title(fig, f"{title} ({plots.BAND_NOTE})")
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
                    "seeds": ", ".join(map(str, spec.seeds)),
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
                f"Training seeds: {self.params.seeds} unless a run sets its own (the table's `seeds`); profile "
                f"`{self.params.profile}`. {SHARED_PROTOCOL}{data_note}",
                "",
                markdown_table(pd.DataFrame(rows).fillna(MISSING)),
                f"`papers.{self.name}` in params.yaml:",
                "",
                markdown_table(pd.DataFrame(list(flat.items()), columns=["setting", "value"])),
            ]
        )


FAILED_SEED = re.compile(r"(?:^|; )([\w.-]+) seed (\d+): ")


def failed_root(result: ClaimResult, params) -> str:
    """The root cause of a refutation that stands on runs that failed a health gate on every seed (its or its parts'
    ``gate_failures``): 'it stands on `r`, which failed a health gate on every seed' ('' otherwise: a failure on some
    seeds labels a refutation but does not explain it), so refutations on the same failed runs are grouped."""
    failed: dict[str, set[str]] = {}
    for r in flatten([result]):
        for run, seed in FAILED_SEED.findall(r.gate_failures):
            failed.setdefault(run, set()).add(seed)
    runs = sorted(
        run for run, seeds in failed.items() if run in params.runs and len(seeds) >= len(params.runs[run].seeds)
    )
    if not runs:
        return ""
    names = ", ".join(f"`{r}`" for r in runs)
    return f"it stands on {names}, which failed a health gate on every seed (Discussion)"


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _decoding_words(settings: dict) -> str:
    """'greedy' or 'temperature T, top-p P, n = N' of an evaluation's settings."""
    if settings["temperature"] == 0:
        return "greedy, n = 1"
    return f"temperature {settings['temperature']:g}, top-p {settings['top_p']:g}, n = {settings['n']}"
