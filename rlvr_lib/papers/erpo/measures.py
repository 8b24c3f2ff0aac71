"""ERPO's own measures: the constants its claims are sized by, each claim's estimator ``fn(paper, ...) -> Estimate``
that no other paper computes (fig. 1's entropy map and perturbation study, the one-switch ablations, eq. 16 on the
method code, pass@k growth), the helpers they share with the tables and the text, and ERPO's per-seed history
quantities."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from rlvr_lib.files.readers import read_json
from rlvr_lib.papers.framework import measures, sampling
from rlvr_lib.papers.framework.claims import (
    Estimate,
    NotTestable,
    bounded_t_interval,
    estimate_of,
    exact,
    paired_difference,
)
from rlvr_lib.papers.framework.guard import METHOD
from rlvr_lib.papers.framework.results import ACCURACY, total_time

COMPONENT = {  # each one-switch ablation's use_* switch (turned off) and the component it removes
    "use_entropy_gate": "(i) entropy-aware gating, eq. 8",
    "use_bucket_norm": "(ii) bucket-based implicit normalisation, eq. 9",
    "use_outcome_anchor": "(iii) result-anchored advantage synthesis, eq. 10",
    "use_implicit_progress": "the implicit progress signal s, eq. 7",
    "use_psi_rescale": "the rescale of Psi, Alg. 1 line 19",
    "use_group_norm": "Norm_G of eq. 10",
}
LEARNED = ("healthy", "active", "learned")  # a claim that needs ERPO to have learned (rlvr_lib.papers.framework.gates)
# measures' stability band, |log ratio| <= log 2 (its name is reserved to measures.py; a test pins the value)
HEALTHY_BAND = 0.6931471805599453
PAPER_ENTROPY_LOG_RATIO = 1.3862943611198906  # fig. 4(b): log(0.2 / 0.05), ERPO's lowest late entropy over GRPO's
MAP_CONTRAST = 10.0  # fig. 1(a) "stark contrast" to "near-zero": an order of magnitude between p90 and p10
ZERO_SUM_TOLERANCE = 1e-6  # eq. 16 checked in float64: a sum this small is zero
DROP_BOUNDS = (-1.0, 1.0)  # an accuracy drop (its interval on the logit scale: it stays in range)
GAP_BOUNDS = (-2.0, 2.0)  # the difference of two drops
BASELINES = {  # fig. 1(b)'s drop measured three ways (R3-E4)
    "control": "against the control",
    "relative": "relative to the control",
    "correct": "against the correct responses",
}


# ----------------------------------------------------------------------------- runs and cached studies
def ablation_switch(paper, run: str) -> str:
    """The one use_* switch that run ``run`` turns off (the ablation's label)."""
    spec = paper.params.runs[run]
    off = [k for k in COMPONENT if spec.hparams.get(k) is False]
    if spec.method != "erpo" or len(off) != 1:
        return f"{spec.method}: not a one-switch ERPO ablation"
    return off[0]


def ablation_run(paper, switch: str) -> str:
    """The ablation run that turns ``switch`` off."""
    for run in paper.runs.ablations:
        if ablation_switch(paper, run) == switch:
            return run
    raise NotTestable(f"no ablation run turns {switch} off (papers.erpo.runs.ablations)")


def ablation_label(paper, switch: str) -> str:
    """The ablation run's name for a claim's text, or what is missing (a reduced protocol may lack it)."""
    try:
        return ablation_run(paper, switch)
    except NotTestable:
        return f"the ablation with {switch} off (none in papers.erpo.runs.ablations)"


def accuracy_vs(paper, run: str, other: str) -> tuple[Estimate, list[int]]:
    """run's mean@n minus other's over the seeds both trained, and those seeds (NotRun while one is missing)."""
    seeds = paper.results.common_seeds(run, other)
    table = partial(paper.results.eval_table, metric=ACCURACY, seeds=seeds)
    return paired_difference(table(run), table(other)), seeds


def cached(paper, key: str, compute: Callable[[], Any]) -> Any:
    """``compute()``, once per paper (``paper._done[key]``); its NotTestable is raised again on every call."""
    if key not in paper._done:
        try:
            paper._done[key] = compute()
        except NotTestable as reason:
            paper._done[key] = reason
    if isinstance(paper._done[key], NotTestable):
        raise paper._done[key]
    return paper._done[key]


def perturbation_study(paper) -> list[dict]:
    """fig. 1(b)'s study, one entry per studied seed (cached), from the ``sample_erpo_perturbation`` stage's
    reports/samples/erpo_perturbation.json, and its selection of problems (``paper._done['_selection']``). A
    seed whose policy solved nothing makes the study not testable."""

    def load() -> list[dict]:
        data, paper._done["_selection"] = perturbation_file(paper)
        failed = [s for s in data["per_seed"] if "not_testable" in s]
        if failed:
            raise NotTestable(f"seed {failed[0]['seed']}: {failed[0]['not_testable']}")
        return data["per_seed"]

    return cached(paper, "_perturbation", load)


def perturbation_file(paper) -> tuple[dict, str]:
    """The study's file and the selection it used. A file sampled before ``min_correct`` existed (its settings
    params.yaml's but for that key) was sampled with any problem solved once: it is used, and says so, until
    `dvc repro -s sample_erpo_perturbation` resamples it with params.yaml's selection."""
    p = paper.settings.perturbation
    try:
        return sampling.load_study("erpo_perturbation", paper.params), selection_text(p.min_correct, p.samples)
    except NotTestable:
        path = sampling.study_path("erpo_perturbation")
        if not path.exists():
            raise
        want = sampling.recorded_settings("erpo_perturbation", paper.params)
        before = {**want, "settings": {k: v for k, v in want["settings"].items() if k != "min_correct"}}
        data = read_json(path, dict)
        if data.get("recorded") != before:
            raise
        return data, (
            f"{selection_text(1, p.samples)}: the committed file predates papers.erpo.perturbation.min_correct "
            f"({p.min_correct} of {p.samples} in params.yaml; `dvc repro -s sample_erpo_perturbation` resamples)"
        )


def selection_text(min_correct: int, samples: int) -> str:
    if min_correct <= 1:
        return f"any problem solved at least once in {samples} samples (lucky slips included)"
    return f"problems solved at least {min_correct} of {samples} times (the paper's 'definitely answer correctly')"


# ----------------------------------------------------------------------------- fig. 1: entropy map, perturbation
def entropy_map(paper) -> Estimate:
    grpo = paper.runs.grpo
    p90, p10 = (paper.results.per_seed(grpo, partial(first_batch, key=f"entropy/{q}")) for q in ("p90", "p10"))
    contrast = p90 / p10
    detail = (
        f"first rollout batch of {grpo}: p10 {p10.mean():.3f}, p90 {p90.mean():.3f} nats (mean over seeds); "
        f"per seed p90/p10 {np.round(contrast, 1).tolist()}"
    )
    try:
        studies = perturbation_study(paper)
        top, bottom = (np.mean([s["mean_entropy"][which] for s in studies]) for which in ("top", "bottom"))
        detail += f"; fig. 1(b)'s top / bottom 5% tokens: {top:.2f} vs {bottom:.3f} nats"
    except NotTestable:
        pass
    return estimate_of(contrast, detail=detail)


def drops(paper, which: str | None, baseline: str = "control") -> np.ndarray:
    """(S,) per studied seed: the accuracy drop at the ``which`` entropy tokens against ``baseline``
    (``BASELINES``); ``which`` None: the top-entropy drop minus the bottom-entropy one."""
    if which is None:
        return drops(paper, "top", baseline) - drops(paper, "bottom", baseline)
    means = [  # per seed: the mean over its responses of the control's and the perturbed one's accuracy
        [np.asarray(study["per_response"][which][k], dtype=float).mean() for k in ("control", "perturbed")]
        for study in perturbation_study(paper)
    ]
    drop = {"control": lambda c, p: c - p, "relative": lambda c, p: 1 - p / c, "correct": lambda c, p: 1 - p}[baseline]
    return np.asarray([drop(control, perturbed) for control, perturbed in means])


def baselines_text(paper, which: str | None) -> str:
    """The drop (``which``) or the top-minus-bottom gap (None) under each baseline, with its t interval."""
    parts = []
    for baseline, label in BASELINES.items():
        mean, low, high, _ = bounded_t_interval(drops(paper, which, baseline), DROP_BOUNDS if which else GAP_BOUNDS)
        parts.append(f"{label} {mean:+.3f} [{low:+.3f}, {high:+.3f}]")
    return "; ".join(parts)


def perturbation_drop(paper, which: str | None) -> Estimate:
    """The ``which`` entropy tokens' accuracy drop against its control, per studied seed (None: top minus bottom)."""
    values, what = drops(paper, which), f"{which}-entropy drop" if which else "top minus bottom"
    studies = perturbation_study(paper)
    responses = [s["n_responses"] for s in studies]
    return estimate_of(
        values,
        detail=f"{what}: {baselines_text(paper, which)}; "
        f"{len(studies)} seeds' policies, {min(responses)}-{max(responses)} responses each; selection: "
        f"{paper._done['_selection']}",
        level_bounds=DROP_BOUNDS if which else GAP_BOUNDS,
    )


def bottom_robust(paper) -> Estimate:
    values = drops(paper, "bottom")
    raise NotTestable(
        "no redundant low-entropy tokens on this task: docs/testbed.md ('Forks matter') finds the testbed's "
        "low-entropy tokens are copies (the running sum, the next operand, the boxed answer) whose wrong copy "
        "carries into the answer, so 'robust to low-entropy perturbations' cannot hold by construction "
        f"(measured bottom-5% drop {values.mean():.3f}: {baselines_text(paper, 'bottom')})"
    )


# ----------------------------------------------------------------------------- sec. 4: components, eq. 16
def component(paper, switch: str) -> Estimate:
    """ERPO's mean@n minus its one-switch ablation's, paired by seed (the two differ in ``switch`` only)."""
    r, off = paper.runs, ablation_run(paper, switch)
    d = paper.compare(r.erpo, off, ACCURACY, differs_in=(f"method.{switch}",))
    fmt_rate = paper.results.eval_table(off, "format_rate").mean()
    length = paper.results.eval_table(off, "response_length").mean()
    retained = paper.results.per_seed(off, measures.log_entropy_retained)
    return dataclasses.replace(
        d,
        detail=f"{d.detail}; {off}: format rate {fmt_rate:.3f}, response length {length:.1f} tokens "
        f"(cap {paper.params.eval.max_new_tokens}), log entropy retained {retained.mean():+.2f}",
    )


def zero_sum(paper) -> Estimate:
    sums, variances = zero_sum_check(paper.params, paper.runs.erpo)
    return exact(
        float(np.abs(sums).max()),
        detail=f"per-group sums of A_final {np.round(sums, 12).tolist()}; token variances "
        f"{np.round(variances, 4).tolist()} (eq. 16: 0 and 1, up to delta)",
    )


def zero_sum_check(params, run: str, groups: int = 4, size: int = 6, length: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 16 on the method code: ERPO's final advantages (rlvr_lib.methods.erpo) for a random batch of ``groups``
    groups of ``size`` responses (random lengths, rewards, log-probs and entropies, float64) with ``run``'s
    settings; returns each group's sum and variance over its tokens."""
    import torch

    from rlvr_lib.methods import build_method
    from rlvr_lib.methods.core import group_mean_std
    from rlvr_lib.methods.erpo import erpo_token_advantages

    spec = params.runs[run]
    cfg = build_method(spec.method, spec.hparams).cfg
    g = torch.Generator().manual_seed(0)
    batch = groups * size
    index = torch.arange(groups).repeat_interleave(size)
    lengths = torch.randint(3, length + 1, (batch,), generator=g)
    mask = (torch.arange(length)[None, :] < lengths[:, None]).double()
    rewards = torch.randint(0, 2, (batch,), generator=g).double()
    rewards[:size] = torch.tensor([1.0, 0.0] * (size // 2))  # a mixed group at least
    mean, std = group_mean_std(rewards, index, groups)
    seq_adv = (rewards - mean[index]) / (std[index] + 1e-4)
    logps = -torch.rand(batch, length, generator=g, dtype=torch.float64) * 3
    ref = logps + 0.1 * torch.randn(batch, length, generator=g, dtype=torch.float64)
    entropies = torch.rand(batch, length, generator=g, dtype=torch.float64) * 2
    final, _ = erpo_token_advantages(seq_adv, logps, ref, entropies, mask, index, groups, cfg)
    sums = torch.zeros(groups, dtype=torch.float64).index_add_(0, index, (final * mask).sum(-1))
    _, group_std = group_mean_std(final, index, groups, weight=mask)
    return sums.numpy(), (group_std**2).numpy()


# ----------------------------------------------------------------------------- sec. 5: pass@k, time, SFT
def pass_growth_over_base(paper, run: str) -> Estimate:
    ks, base = paper.settings.pass_at_k, paper.runs.base
    seeds = paper.results.common_seeds(run, base)
    growth = {
        name: paper.results.eval_table(name, f"pass@{max(ks)}", seeds)
        - paper.results.eval_table(name, f"pass@{min(ks)}", seeds)
        for name in (run, base)
    }
    return paired_difference(growth[run], growth[base], labels=(paper.results.label(run), base), seeds=seeds)


def pass_at_k_difference(paper) -> Estimate:
    r, ks = paper.runs, paper.settings.pass_at_k
    paper.results.check(r.erpo, r.grpo, (METHOD,))
    seeds = paper.results.common_seeds(r.erpo, r.grpo)
    mean_pass = {
        run: np.mean([paper.results.eval_table(run, f"pass@{k}", seeds) for k in ks], axis=0)
        for run in (r.erpo, r.grpo)
    }
    labels = (paper.results.label(r.erpo), paper.results.label(r.grpo))
    return paired_difference(mean_pass[r.erpo], mean_pass[r.grpo], labels=labels, seeds=seeds)


def time_claim(paper) -> Estimate:
    r = paper.runs
    a, b = (paper.results.per_seed(run, total_time) for run in (r.erpo, r.grpo))
    raise NotTestable(
        "wall time on the testbed's shared machine (2 cores, several training lanes at once) measures the "
        f"machine's load, not the method's cost ({r.erpo} {a.mean():.0f} s vs {r.grpo} {b.mean():.0f} s in "
        "total; both arms do a reference forward, GRPO for its beta = 0.001 KL); fig. 5(b) shows them"
    )


def outperforms_sft(paper) -> Estimate:
    r = paper.runs
    d = paper.compare(r.erpo, r.base, ACCURACY)
    raise NotTestable(
        "a different comparison here: the paper's SFT and ERPO are siblings, both trained from Base; the "
        f"testbed's {r.erpo} trains on top of the SFT policy (its base), so {r.erpo} minus base "
        f"({d.value:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]) is RL's gain over its own initialisation"
    )


# ----------------------------------------------------------------------------- per-seed history quantities
def early_mean(history: pd.DataFrame, key: str) -> float:
    """Mean of one seed's ``key`` over the early window (``measures.window``: the first share of its rollouts)."""
    return float(measures.window(history, key, "early").mean())


def first_batch(history: pd.DataFrame, key: str) -> float:
    """One seed's ``key`` at its first rollout batch (``measures.rollouts``)."""
    return float(measures.rollouts(history, key).to_numpy()[0])


def spike_ratio(history: pd.DataFrame, key: str) -> float:
    """One seed's largest ``key`` over its median, over every logged step: how far its sharpest spike rises above
    the typical step."""
    series = measures.column(history, key)
    return float(series.max() / series.median())
