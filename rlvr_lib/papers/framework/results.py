"""The pipeline's outputs for the runs a paper uses: per-problem evaluation values and training histories, by seed.

Reads ``reports/eval/<run>/seed<N>/results.json`` (written by the ``eval`` / ``eval_base`` stages) and
``reports/training/<run>/seed<N>/history.json`` (the ``train`` stage) for every seed of the run's ``seeds``,
refusing evaluations sampled with other settings than params.yaml's (``layout.check_eval_settings``). A paper with
its own decoding (``papers.<paper>.eval_decoding``) reads accuracy and pass@k from its runs' second evaluation at that
decoding (``reports/eval/<run>/seed<N>/decodings/<name>/``); ``at_decoding(None)`` reads the shared one instead.

Comparisons of two runs go through the guard of ``rlvr_lib.papers.framework.guard`` (the runs may differ only in what
the claim is about) and are paired by seed: seed s of either run started from the seed-s base policy and was sampled
with seed s. A run that ends below the base policy or whose rollout entropy grows past ``DIVERGENCE_ENTROPY_FACTOR``
times its first step's is marked diverged (``divergence``) wherever it is compared.

Evaluation values come as (seeds, problems) tables, the problems of every evaluation set pooled in file order
(on the testbed: its one held-out set), so two runs' tables pair by seed and problem.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from rlvr_lib.eval.passk import pass_at_k
from rlvr_lib.files.readers import read_json
from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.claims import (
    Estimate,
    NotRun,
    NotTestable,
    bounded_t_interval,
    estimate_of,
    paired_difference,
    seed_values,
    t_interval,
)
from rlvr_lib.papers.framework.gates import Gates
from rlvr_lib.papers.framework.guard import METHOD, check_comparison
from rlvr_lib.render.tables import load_histories
from rlvr_lib.settings.papers import BASE_RUN
from rlvr_lib.workspace import layout, lineage

ACCURACY = measures.ACCURACY
EVAL_METRICS = (ACCURACY, "format_rate", "response_length", "token_entropy")  # and "pass@<k>"


def decoded_metric(metric: str) -> bool:
    """Whether ``metric`` is what a paper reports at its own decoding (accuracy, pass@k), so read at it; format
    rate, length and entropy are always the shared decoding's (greedy decoding has no sampled entropy)."""
    return metric == ACCURACY or metric.startswith("pass@")


# One definition each, in rlvr_lib.papers.framework.measures (named here for the paper modules that read them):
DIVERGENCE_ENTROPY_FACTOR = measures.ENTROPY_FACTOR
LOG_FACTOR = measures.LOG_FACTOR
TAIL_STEPS = measures.TAIL_ROLLOUTS  # the end of a run: its last 5 rollout batches
RETAINED_FLOOR = measures.RETAINED_FLOOR
column = measures.column
entropy_retained = measures.entropy_retained
log_entropy_retained = measures.log_entropy_retained


def metric_bounds(metric: str) -> tuple[float, float] | None:
    """The range of a bounded metric (accuracy, format rate, pass@k: [0, 1]); None for an unbounded one."""
    m = measures.eval_measure(metric)
    return None if m is None else m.bounds


def fmt_seeds(seeds: Iterable[int]) -> str:
    """Seeds as text: '0, 1, 2' (a table cell, or a sentence's list)."""
    return ", ".join(map(str, seeds))


@dataclass
class Reads:
    """What one claim's computation read: the runs (after substitution) and the measures."""

    runs: list[str] = field(default_factory=list)
    measures: list[str] = field(default_factory=list)
    decoding: str = ""  # the paper's decoding, when a metric read at it was read
    beside: str = ""  # the paper's decoding, when a metric it decodes was read at the shared one instead (``beside``)
    history_fns: list[tuple[str, Callable]] = field(default_factory=list)  # (run, fn) of each per-seed history read

    def add_run(self, run: str) -> None:
        if run not in self.runs:
            self.runs.append(run)

    def add_measure(self, name: str) -> None:
        if name not in self.measures:
            self.measures.append(name)


class RunResults:
    """Lazy access to the reports of ``runs`` (``base`` included when named), each over its own seeds
    (``methods.<run>.seeds``; the base policy over every seed of the others). Tables take ``seeds`` to select a
    subset; two runs are compared over the seeds they share."""

    def __init__(self, params, runs: Iterable[str], decoding: str | None = None, beside: str | None = None):
        self.params = params
        self.runs = list(dict.fromkeys(runs))
        self.decoding = decoding  # the decoding the verdicts read: the paper's own (None: the shared one)
        # the paper's own decoding where the verdicts read the shared one instead: judged beside them
        self.beside = beside
        self._eval: dict[tuple[str, str | None], dict[int, dict]] = {}
        self._histories: dict[str, pd.DataFrame] = {}
        self._alias: dict[str, str] = {}  # run -> the run read in its place (a null or an alternative)
        self._reads: list[Reads] = []
        self.gates = Gates(self, None)
        self.last_reads = Reads()  # what the last recorded block read (the engine's nested-prefix check)

    # ------------------------------------------------------------------ substitution and what was read
    def resolve(self, run: str) -> str:
        return self._alias.get(run, run)

    @contextlib.contextmanager
    def substituted(self, alias: Mapping[str, str]) -> Iterator[None]:
        """Within the block, every read of run r reads ``alias[r]`` instead (a claim judged on its null, or under
        a declared alternative). The guard still compares the declared runs: the substitute differs from r only
        in what the null or the alternative is about."""
        for new in alias.values():
            if new not in self.runs:
                self.runs.append(new)
        saved = self._alias
        self._alias = {**saved, **alias}
        try:
            yield
        finally:
            self._alias = saved

    @contextlib.contextmanager
    def at_decoding(self, decoding: str | None) -> Iterator[None]:
        """Within the block, accuracy and pass@k are read at ``decoding`` (None: the shared evaluation)."""
        saved, self.decoding = self.decoding, decoding
        try:
            yield
        finally:
            self.decoding = saved

    @contextlib.contextmanager
    def recording(self) -> Iterator[Reads]:
        """Record the runs and measures read within the block (a claim's arms, for its gates, null and forks)."""
        reads = Reads()
        self._reads.append(reads)
        try:
            yield reads
        finally:
            self._reads.pop()
            self.last_reads = reads

    @contextlib.contextmanager
    def unrecorded(self) -> Iterator[None]:
        """Reads within the block are not the claim's arms (e.g. a selection over a grid that picks one run)."""
        saved, self._reads = self._reads, []
        try:
            yield
        finally:
            self._reads = saved

    def _read_run(self, run: str) -> str:
        real = self.resolve(run)
        for r in self._reads:
            r.add_run(real)
        return real

    def _read_measure(self, name: str) -> None:
        for r in self._reads:
            r.add_measure(name)

    def _require_made(self, run: str, stage: str, name: str, decoding: str | None = None) -> None:
        """NotRun naming the seeds of ``run`` whose ``stage`` output ``name`` (at ``decoding``) does not exist yet."""
        if stage == "eval":
            paths = {s: layout.eval_results_path(run, s, decoding) for s in self.seeds_of(run)}
        else:
            paths = {s: layout.TRAINING_LOGS_DIR / run / layout.seed_folder(s) / name for s in self.seeds_of(run)}
        missing = [s for s, path in paths.items() if not path.is_file()]
        if missing:
            seeds = ", ".join(map(str, missing))
            at = f" at the decoding '{decoding}'" if decoding else ""
            raise NotRun(
                f"run '{run}' has no {name}{at} for seed(s) {seeds} yet (make repro trains and evaluates them)",
                len(missing),
            )

    def _require_current(self, run: str) -> None:
        """NotRun naming the seeds of ``run`` trained with other settings than params.yaml's now (the run was
        changed since and not retrained: its logs would be read as the new setting's)."""
        stale = {s: layout.train_settings_difference(self.params, run, s) for s in self.seeds_of(run)}
        stale = {s: d for s, d in stale.items() if d}
        if stale:
            first = next(iter(stale.values()))
            what = ", ".join(f"{k} {old!r} (params.yaml: {new!r})" for k, (old, new) in first.items())
            seeds = ", ".join(map(str, stale))
            raise NotRun(
                f"run '{run}' seed(s) {seeds} were trained with other settings: {what}; retrain them", len(stale)
            )

    def check(self, a: str, b: str, differs_in: tuple[str, ...] = (METHOD,)) -> None:
        """The guard (``guard.check_comparison``) on the runs actually read: under an alternative, its run must still
        differ from the other arm only in ``differs_in`` (ERPO at sigma 0.25 against an ablation at sigma 1 is
        refused: that comparison changes two things)."""
        check_comparison(self.params, self.resolve(a), self.resolve(b), differs_in)

    def method_of(self, run: str) -> str:
        return "" if run == BASE_RUN else self.params.runs[run].method

    # ------------------------------------------------------------------ evaluation
    def _check_known(self, run: str) -> None:
        if run not in self.runs:
            raise ValueError(f"run '{run}' is not one this paper declares in params.yaml 'papers' ({self.runs})")

    def seeds_of(self, run: str) -> list[int]:
        """The training seeds of ``run``; the base policy's: every seed of the other runs."""
        run = self.resolve(run)
        if run == BASE_RUN:
            return sorted({s for r in self.runs if r != BASE_RUN for s in self.params.runs[r].seeds})
        return list(self.params.runs[run].seeds)

    def common_seeds(self, a: str, *others: str) -> list[int]:
        """The seeds every one of the runs trained with (a comparison pairs them), in ``a``'s order."""
        shared = [s for s in self.seeds_of(a) if all(s in set(self.seeds_of(o)) for o in others)]
        if not shared:
            raise NotTestable(f"runs {', '.join(repr(r) for r in (a, *others))} share no training seed")
        return shared

    def eval_results(self, run: str, decoding: str | None = None) -> dict[int, dict]:
        """{seed: {benchmark: evaluate_benchmark result}} of ``run`` over its seeds, at ``decoding`` (None: the
        shared evaluation)."""
        self._check_known(run)
        run = self._read_run(run)
        if decoding is not None:
            for r in self._reads:
                r.decoding = decoding
        if (run, decoding) not in self._eval:
            self._require_made(run, "eval", "results.json", decoding)
            if run != BASE_RUN:
                self._require_current(run)  # an evaluation of a model trained with other settings is stale too
            lineage.check_origins(run, {s: layout.EVAL_DIR / run / layout.seed_folder(s) for s in self.seeds_of(run)})
            out = {}
            for seed in self.seeds_of(run):
                layout.check_eval_settings(self.params, run, seed, decoding)
                out[seed] = read_json(layout.eval_results_path(run, seed, decoding), dict)
            self._eval[(run, decoding)] = out
        return self._eval[(run, decoding)]

    def _first(self, run: str, decoding: str | None = None) -> dict:
        return next(iter(self.eval_results(run, decoding).values()))

    def decoding_of(self, metric: str) -> str | None:
        """The decoding ``metric`` is read at: the paper's for accuracy and pass@k, else the shared one (None)."""
        return self.decoding if decoded_metric(metric) else None

    @cached_property
    def benchmarks(self) -> list[str]:
        first = next((r for r in self.runs), None)
        return list(self._first(first)) if first else []

    def samples(self, run: str, decoding: str | None = None) -> int:
        """n, the samples per problem of ``run``'s evaluation at ``decoding`` (the smallest over its sets)."""
        return min(r["settings"]["n"] for r in self._first(run, decoding).values())

    def problem_rows(
        self, run: str, seeds: Iterable[int] | None = None, decoding: str | None = None
    ) -> list[list[dict]]:
        """Per seed (``seeds``, default the run's): the ``per_problem`` rows of every evaluation set at ``decoding``,
        pooled in file order."""
        results = self.eval_results(run, decoding)
        return [
            [row for b in self.benchmarks for row in results[s][b]["per_problem"]]
            for s in (self.seeds_of(run) if seeds is None else seeds)
        ]

    def eval_table(self, run: str, metric: str, seeds: Iterable[int] | None = None) -> np.ndarray:
        """(seeds, problems) values of ``metric``: accuracy (mean@n), pass@<k> (unbiased; k <= n), format_rate,
        response_length (tokens) or token_entropy (nats). Raises NotTestable when k exceeds the samples drawn."""
        decoding = self.decoding_of(metric)
        if decoding is None and self.beside and decoded_metric(metric):
            for r in self._reads:
                r.beside = self.beside
        rows = self.problem_rows(run, seeds, decoding)
        self._read_measure(metric)
        if metric.startswith("pass@"):
            k = int(metric.removeprefix("pass@"))
            n = self.samples(run, decoding)
            if k > n:
                raise NotTestable(f"pass@{k} needs at least {k} samples per problem; the evaluation drew n = {n}")
            values = [[pass_at_k(r["n"], r["c"], k) for r in seed_rows] for seed_rows in rows]
        elif metric == ACCURACY:
            values = [[r["c"] / r["n"] for r in seed_rows] for seed_rows in rows]
        elif metric == "format_rate":
            values = [[r["n_formatted"] / r["n"] for r in seed_rows] for seed_rows in rows]
        elif metric == "response_length":
            values = [[r["mean_length"] for r in seed_rows] for seed_rows in rows]
        elif metric == "token_entropy":
            values = [[r["mean_entropy"] for r in seed_rows] for seed_rows in rows]
        else:
            raise ValueError(f"unknown metric '{metric}'; metrics: {list(EVAL_METRICS)} and pass@<k>")
        return np.asarray(values, dtype=float)

    def uids(self, run: str) -> list[str]:
        return [r["uid"] for r in self.problem_rows(run, self.seeds_of(run)[:1])[0]]

    def eval_summary(self, run: str, metric: str) -> tuple[float, float, float]:
        """(mean over seeds and problems, 95% t interval over the per-seed means) of ``metric``; a bounded metric's
        interval is computed on the logit scale (``claims.bounded_t_interval``), so it stays inside the range."""
        per_seed = seed_values(self.eval_table(run, metric))
        bounds = metric_bounds(metric)
        mean, low, high, _ = t_interval(per_seed) if bounds is None else bounded_t_interval(per_seed, bounds)
        return mean, low, high

    def marks(self, run: str, idle: bool = True) -> str:
        """'idle' (a seed's mechanism never acted: the ``active`` gate; unless ``idle`` is False) and/or 'diverged'
        (the ``healthy`` gate)."""
        idle = ["idle"] if idle and self.gates.failures([run], ("active",)) else []
        return ", ".join([*idle, *(["diverged"] if self.divergence(run) else [])])

    def seeds_text(self, run: str) -> str:
        """The training seeds of ``run`` as a table cell ('0, 1, 2')."""
        return fmt_seeds(self.seeds_of(run))

    # ------------------------------------------------------------------ problem levels (testbed uids 'L<level>-...')
    @staticmethod
    def problem_level(uid: str) -> int | None:
        """The testbed level of a problem from its uid ('L<level>-<hash>'); None for another uid."""
        head, _, _ = uid.partition("-")
        return int(head[1:]) if head.startswith("L") and head[1:].isdigit() else None

    def training_levels(self, run: str) -> list[int]:
        """The levels of ``run``'s training set: a levels-only set (params.yaml ``level_sets``) or a filter_data set
        with levels; [] for every level."""
        if run not in self.params.runs:  # a role a reduced protocol leaves empty (e.g. aer's fig. 2 runs in smoke)
            raise NotRun(f"'{run}' is not a run of params.yaml here (a reduced protocol)", len(self.params.seeds))
        spec = self.params.runs[run]
        cfg = getattr(self.params.level_sets, spec.train_data, None) or getattr(
            self.params.data_filters, spec.train_data, None
        )
        return list(getattr(cfg, "levels", []) or [])

    def level_mask(self, uids: list[str], levels: list[int]) -> np.ndarray:
        """(problems,) which evaluation problems lie at ``levels``; NotTestable when none does."""
        on = np.asarray([self.problem_level(uid) in levels for uid in uids])
        if not on.any():
            raise NotTestable(f"no evaluation problem at level(s) {levels} (testbed uids 'L<level>-...')")
        return on

    def level_values(self, run: str, metric: str, levels: list[int], seeds: Iterable[int] | None = None) -> np.ndarray:
        """(seeds,) ``metric`` of ``run`` on its evaluation problems at ``levels``."""
        return self.eval_table(run, metric, seeds)[:, self.level_mask(self.uids(run), levels)].mean(axis=1)

    def compare_on_levels(self, a: str, b: str, metric: str, differs_in: tuple[str, ...] = (METHOD,)) -> Estimate:
        """Paired difference of ``metric`` between ``a`` and ``b`` on the evaluation problems of the level(s) both
        trained on; the runs differ only in ``differs_in``."""
        levels = self.training_levels(a)
        if not levels or levels != self.training_levels(b):
            raise ValueError(f"runs '{a}' and '{b}' must train on one level set (train_data), got {levels}")
        self.check(a, b, differs_in)
        if self.uids(a) != self.uids(b):
            raise ValueError(f"runs '{a}' and '{b}' were evaluated on different problems")
        on = self.level_mask(self.uids(a), levels)
        seeds = self.common_seeds(a, b)
        va, vb = (self.level_values(run, metric, levels, seeds) for run in (a, b))
        return estimate_of(
            va - vb,
            detail=f"{metric} on the {int(on.sum())} evaluation problems at level(s) {levels}: {a} "
            f"{np.round(va, 3).tolist()} vs {b} {np.round(vb, 3).tolist()} (per seed)",
            seeds=seeds,
        )

    def label(self, run: str) -> str:
        """The name of the run read in ``run``'s place (``run`` itself unless a null or an alternative is substituted:
        a null's numbers are printed under the null's name), marked '(diverged)' when a seed of it failed the
        ``healthy`` gate."""
        real = self.resolve(run)
        return f"{real} (diverged)" if real != BASE_RUN and self.divergence(real) else real

    def compare(self, a: str, b: str, metric: str = ACCURACY, differs_in: tuple[str, ...] = (METHOD,)) -> Estimate:
        """Paired difference of ``metric`` between runs ``a`` and ``b``: same seeds, same problems, and settings that
        differ only in ``differs_in`` (``rlvr_lib.papers.framework.guard``)."""
        self.check(a, b, differs_in)
        if self.uids(a) != self.uids(b):
            raise ValueError(f"runs '{a}' and '{b}' were evaluated on different problems")
        digits = 1 if metric == "response_length" else 3
        seeds = self.common_seeds(a, b)
        return paired_difference(
            self.eval_table(a, metric, seeds),
            self.eval_table(b, metric, seeds),
            labels=(self.label(a), self.label(b)),
            digits=digits,
            bounds=metric_bounds(metric),
            seeds=seeds,
        )

    def divergence(self, run: str) -> str:
        """Why ``run`` counts as diverged ('' when it does not): the seeds that fail the ``healthy`` gate
        (``rlvr_lib.papers.framework.gates``: below their own base seed, or entropy past x2 of the start at its
        peak)."""
        return "; ".join(self.gates.run_failures(self.resolve(run)))

    # ------------------------------------------------------------------ training
    def history(self, run: str) -> pd.DataFrame:
        """Every seed's training history of ``run``: one row per seed x logged step
        (``rlvr_lib.reporting.main_page``)."""
        self._check_known(run)
        if run == "base":
            raise NotTestable("the base policy is not trained: it has no training history")
        run = self._read_run(run)
        if run not in self._histories:
            self._require_made(run, "train", "history.json")
            self._require_current(run)
            folders = {s: layout.TRAINING_LOGS_DIR / run / layout.seed_folder(s) for s in self.seeds_of(run)}
            lineage.check_origins(run, folders)
            self._histories[run] = load_histories({run: folders})
        return self._histories[run]

    def seed_histories(self, run: str, seeds: Iterable[int] | None = None) -> list[pd.DataFrame]:
        """Each seed's history (``seeds``, default the run's), sorted by step. Read in a run's place, the base policy's
        history is that run's frozen at its first rollout batch (``measures.frozen``: the policy before any
        update)."""
        if run != BASE_RUN and self.resolve(run) == BASE_RUN:
            for r in self._reads:
                r.add_run(BASE_RUN)
            saved, self._alias = self._alias, {k: v for k, v in self._alias.items() if k != run}
            try:
                return [measures.frozen(h) for h in self.seed_histories(run, seeds)]
            finally:
                self._alias = saved
        h = self.history(run)
        chosen = self.seeds_of(run) if seeds is None else seeds
        updates = self.updates_per_rollout(run)
        out = []
        for s in chosen:
            one = h[h["seed"] == s].sort_values("step").reset_index(drop=True)
            one.attrs[measures.UPDATES_ATTR] = updates
            out.append(one)
        return out

    def per_seed(self, run: str, fn: Callable[[pd.DataFrame], float], seeds: Iterable[int] | None = None) -> np.ndarray:
        """(seeds,) ``fn`` of each seed's history (``seeds``, default the run's)."""
        measure = measures.measure_of(fn)
        if measure is not None:
            self._read_measure(measure.name)
        for r in self._reads:
            r.history_fns.append((self.resolve(run), fn))
        return np.asarray([fn(h) for h in self.seed_histories(run, seeds)], dtype=float)

    def compare_history(
        self,
        a: str,
        b: str,
        fn: Callable[[pd.DataFrame], float],
        digits: int = 3,
        differs_in: tuple[str, ...] = (METHOD,),
    ) -> Estimate:
        """Paired-by-seed difference of a per-seed history quantity between runs ``a`` and ``b``, whose settings
        differ only in ``differs_in``."""
        self.check(a, b, differs_in)
        seeds = self.common_seeds(a, b)
        return paired_difference(
            self.per_seed(a, fn, seeds),
            self.per_seed(b, fn, seeds),
            labels=(self.label(a), self.label(b)),
            digits=digits,
            seeds=seeds,
        )

    def max_steps(self, run: str) -> int:
        return self.params.runs[run].train.max_steps

    def updates_per_rollout(self, run: str) -> int | None:
        """Optimizer steps per rollout batch (steps_per_generation / gradient_accumulation_steps x iterations)."""
        run = self.resolve(run)
        if run == "base":
            return None
        t = self.params.runs[run].train
        return t.rollout_micro_batches // t.gradient_accumulation_steps * t.num_iterations


# ----------------------------------------------------------------------------- history quantities
def tail_mean(history: pd.DataFrame, key: str) -> float:
    """Mean of ``key`` over the last 5 rollout batches (``measures.end_mean``)."""
    return measures.end_mean(history, key)


def mean_over_training(history: pd.DataFrame, key: str) -> float:
    return float(column(history, key).mean())


DIAGNOSTICS_TIME = "timing/diagnostics_s"  # the trainer's logged diagnostics' share of a step (none: 0)


def step_time(history: pd.DataFrame) -> float:
    """Mean wall time of an optimizer step (s): TRL's ``step_time``, whose first step of each rollout batch carries
    the generation, averaged over every step, less the time of the trainer's logging-only diagnostics
    (``timing/diagnostics_s``, when logged: ``log_realised_entropy_change``, ``log_gradient_cosine``)."""
    times = column(history, "step_time")
    if DIAGNOSTICS_TIME in history.columns:  # logged in the same row as the step's step_time
        rows = history[history["step_time"].notna()]
        times = rows["step_time"] - rows[DIAGNOSTICS_TIME].fillna(0.0)
    return float(times.mean())


def total_time(history: pd.DataFrame) -> float:
    return float(column(history, "step_time").sum())


def finite(x: float) -> bool:
    return x is not None and bool(np.isfinite(x))
