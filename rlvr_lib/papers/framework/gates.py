"""Run health, per seed: the gates a run must pass before a claim about it counts.

Each gate is a function of (results, run, seed) that returns '' or the reason the seed fails it:

- ``healthy``: the seed's mean@n is not below its own seed's base policy beyond sampling noise (``below_base``: the
  95% t interval of its per-problem difference from the base lies below 0), and its rollout entropy never passed
  x2 its first batch (``measures.peak_entropy_ratio``: the peak, not the end);
- ``active``: the method's mechanism acted on the seed (``ACTIVITY``: AER's alpha_t > 0, Clip-Cov's / KL-Cov's
  selected tokens > 0, on at least ``ACTIVE_SHARE`` of the rollout batches); methods without a check pass;
- ``learned``: the seed's gain over its base policy is at least ``measures.LEARNED_SHARE`` of the paper's GRPO
  run's gain on the same seed (a claim that needs the method to have learned: entropy kept by a policy that did not
  move is not entropy kept by the method).

``failures`` applies the gates a claim requires to every seed of every trained run it read; a failure withholds the
claim's HOLDS (METHOD FAILED, ``rlvr_lib.papers.framework.engine``), naming the seed and the reason, and labels any
other verdict with it. The report's
"(diverged)" labels and its Discussion read the same ``healthy`` gate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from rlvr_lib.papers.framework import measures
from rlvr_lib.papers.framework.claims import NotRun, NotTestable, t_interval
from rlvr_lib.settings.papers import BASE_RUN

ACTIVE_SHARE = 0.1  # a mechanism acted: non-zero on at least 10% of the rollout batches


def _share_nonzero(key: str) -> Callable[[pd.DataFrame], str]:
    def check(history: pd.DataFrame) -> str:
        values = measures.rollouts(history, key)
        share = float((values.abs() > 0).mean())
        return "" if share >= ACTIVE_SHARE else f"'{key}' non-zero on {share:.0%} of rollout batches"

    return check


# method -> check of one seed's history ('' when its mechanism acted)
ACTIVITY: dict[str, Callable[[pd.DataFrame], str]] = {
    "aer": _share_nonzero("aer/alpha"),
    "clip_cov": _share_nonzero("clip_cov/selected_tokens"),
    "kl_cov": _share_nonzero("kl_cov/selected_tokens"),
}


def below_base(run: np.ndarray, base: np.ndarray) -> str:
    """Why a seed ends below its base policy ('' when it does not): its (problems,) mean@n minus the base's on the
    same problems, whose 95% t interval over the problems lies wholly below 0 (a shortfall inside the evaluation's
    sampling noise is not one)."""
    d = np.asarray(run, dtype=float) - np.asarray(base, dtype=float)
    mean, low, high, _ = t_interval(d)
    if not high < 0:
        return ""
    return (
        f"mean@n {run.mean():.3f} below its base policy's {base.mean():.3f} ({mean:+.3f} [{low:+.3f}, {high:+.3f}] "
        f"over {len(d)} problems)"
    )


def health(problems: np.ndarray | None, base: np.ndarray | None, history: Callable[[], pd.DataFrame]) -> str:
    """The ``healthy`` gate of one seed ('' when healthy): its (problems,) mean@n not below its base policy's on the
    same problems (``below_base``; not checked when ``base`` is None), and its rollout entropy never past
    ``measures.ENTROPY_FACTOR`` x its first batch (``history()``: the seed's training history; not checked when it
    raises NotTestable, e.g. no history.json)."""
    reasons = [below_base(problems, base)] if problems is not None and base is not None else []
    try:
        peak = measures.peak_entropy_ratio(history())
    except NotTestable:
        peak = float("nan")
    if peak > measures.ENTROPY_FACTOR:
        reasons.append(f"rollout entropy peaked at x{peak:.2f} of its first batch")
    return "; ".join(r for r in reasons if r)


class Gates:
    """The gates over one paper's ``RunResults`` (cached per run and seed). ``grpo``: the paper's GRPO run, the
    reference of ``learned``."""

    def __init__(self, results, grpo: str | None):
        self.results = results
        self.grpo = grpo
        self._cache: dict[tuple[str, str, int], str] = {}

    def check(self, gate: str, run: str, seed: int) -> str:
        key = (gate, run, seed)
        if key not in self._cache:
            fn = {"healthy": self.healthy, "active": self.active, "learned": self.learned}.get(gate)
            if fn is None:
                raise ValueError(f"unknown gate '{gate}'; gates: healthy, active, learned")
            self._cache[key] = fn(run, seed)
        return self._cache[key]

    def _problems(self, run: str, seed: int) -> np.ndarray:
        """(problems,) mean@n of one seed per evaluation problem at the shared decoding: a run's health is its own,
        whichever paper's decoding a claim reads."""
        with self.results.at_decoding(None):
            return np.asarray(self.results.eval_table(run, measures.ACCURACY, [seed]), dtype=float)[0]

    def _accuracy(self, run: str, seed: int) -> float:
        return float(self._problems(run, seed).mean())

    def _base_known(self, seed: int) -> bool:
        return BASE_RUN in self.results.runs and seed in self.results.seeds_of(BASE_RUN)

    def healthy(self, run: str, seed: int) -> str:
        known = self._base_known(seed)
        problems, base = (self._problems(run, seed), self._problems(BASE_RUN, seed)) if known else (None, None)
        return health(problems, base, lambda: self.results.seed_histories(run, [seed])[0])

    def active(self, run: str, seed: int) -> str:
        check = ACTIVITY.get(self.results.method_of(run))
        if check is None:
            return ""
        try:
            return check(self.results.seed_histories(run, [seed])[0])
        except NotTestable as reason:
            return str(reason)

    def reference_for(self, run: str) -> str | None:
        """The GRPO run ``learned`` measures ``run`` against: the paper's GRPO run when it trained as long and on the
        same set, else another GRPO run of the paper that did (CW-GRPO's 90-step run against GRPO's 90-step run),
        else the paper's GRPO run."""
        spec = self.results.params.runs[run]

        def same_budget(other: str) -> bool:
            o = self.results.params.runs[other]
            return o.train.max_steps == spec.train.max_steps and o.train_data == spec.train_data

        candidates = [
            r
            for r in self.results.runs
            if r not in (BASE_RUN, run) and self.results.method_of(r) in measures.GRPO_METHODS and same_budget(r)
        ]
        return self.grpo if self.grpo in candidates or not candidates else candidates[0]

    def learned(self, run: str, seed: int) -> str:
        ref = self.reference_for(run)
        if ref is None or run == ref or not self._base_known(seed):
            return ""
        if seed not in self.results.seeds_of(ref):
            raise NotRun(f"whether {run} seed {seed} learned needs {ref} seed {seed}, not trained", 1)
        base = self._accuracy(BASE_RUN, seed)
        gain, grpo_gain = self._accuracy(run, seed) - base, self._accuracy(ref, seed) - base
        if grpo_gain > 0 and gain < measures.LEARNED_SHARE * grpo_gain:
            return (
                f"gained {gain:+.3f} over its base policy, under {measures.LEARNED_SHARE:g} of {ref}'s "
                f"{grpo_gain:+.3f} (did not learn)"
            )
        return ""

    def failures(self, runs: Iterable[str], gates: Iterable[str]) -> list[str]:
        """'<run> seed <s>: <reason>' for every seed of every trained run in ``runs`` that fails one of ``gates``."""
        out = []
        for run in runs:
            if run == BASE_RUN:
                continue
            for seed in self.results.seeds_of(run):
                reasons = [r for g in gates if (r := self.check(g, run, seed))]
                if reasons:
                    out.append(f"{run} seed {seed}: {'; '.join(reasons)}")
        return out

    def run_failures(self, run: str) -> list[str]:
        """The ``healthy`` gate's failures of one run, per seed (the "(diverged)" mark)."""
        return self.failures([run], ("healthy",))
