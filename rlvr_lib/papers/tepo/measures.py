"""TEPO's constants and what only TEPO computes: history quantities and the claims' measures ``fn(paper, ...)``.

Every run of the paper makes 8 policy updates per rollout batch (sec. 4.1), so TEPO's KL mask and its sequence-level
ratio act (with one update both are inert): table 1's GRPO/DAPO, Clip-Cov, KL-Cov, Ent-Adv and GSPO as well as every
TEPO variant. The paper's 8 are 4 mini-batches x 2 passes, and so are the testbed's (params.yaml: every run of
``papers.tepo.runs`` has ``steps_per_generation: 4, num_iterations: 2``; the TEPO runs count dH above 1e-6 only).
The histories made before round 3 were 8 mini-batches x 1 pass: a claim about which tokens the mask selects reads
the structure each seed was trained with (``reports/training/<run>/seed<N>/params.yaml``) and is NOT RUN on a seed
made at 8 x 1 (or with no record). Every run trains on TEPO's training set (``train_data: tepo``: no prompt whose
base-policy group is all correct or all wrong, sec. 4.1).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import yaml

from rlvr_lib.papers.framework import measures as common  # the project's windows and scales (one definition each)
from rlvr_lib.papers.framework.claims import (
    Estimate,
    NotRun,
    NotTestable,
    estimate_of,
    format_number,
    not_run,
    paired_difference,
)
from rlvr_lib.papers.framework.results import ACCURACY, fmt_seeds, mean_over_training
from rlvr_lib.papers.framework.setup import paper_profile
from rlvr_lib.workspace import layout

PAPER_TABLE1 = {  # tepo.txt table 1, Qwen2.5-7B, Avg. (%)
    "base": "13.30",
    "GRPO/DAPO": "30.85",
    "CLIP-Cov": "31.64",
    "KL-Cov": "31.60",
    "Entropy-based Term": "31.62",
    "GPG": "31.91",
    "GSPO": "31.33",
    "TEPO": "32.59",
}
LABELS = {
    "clip_cov": "CLIP-Cov",
    "kl_cov": "KL-Cov",
    "ent_adv": "Entropy-based Term",
    "gspo": "GSPO",
    "dapo": "GRPO/DAPO",
}
PAPER_PANEL_A = {1.0: 0.00, 0.1: 26.25, 0.01: 31.64, 0.001: 31.81, 0.0001: 31.61}  # Avg. (%)
PAPER_PANEL_B = {"max_entropy": 31.65, "min_entropy": 30.68}
PAPER_PANEL_C = {"cispo": 31.58, "prefix_is": 30.95}  # GPG (31.91) is table 1's row
PAPER_PANEL_D = {"seq-mean-token-mean": 31.33, "seq-mean-token-sum": 31.80}
PAPER_PANEL_E = {"none": 32.21, "neg_adv_entropy_up": 31.47, "either": 32.03, "pos_adv_entropy_down": 32.59}
MASK_LABELS = {
    "none": "TEPO-w/o. KL",
    "neg_adv_entropy_up": "KL(A<0 ∧ ΔH>0)",
    "either": "KL(A>0 ∧ ΔH<0) ∨ (A<0 ∧ ΔH>0)",
    "pos_adv_entropy_down": "TEPO: KL(A>0 ∧ ΔH<0)",
    "all": "KL on every token",
}
# TEPO against GRPO/DAPO: each keeps its own clip (TEPO's eps on w_i, DAPO's clip-higher 0.2/0.28, sec. 4.1), and
# TEPO's beta weighs its masked KL to the rollout policy, a term GRPO/DAPO does not have.
TEPO_VS_DAPO = ("method", "method.beta", "method.eps_low", "method.eps_high")
MATCHED_WINDOW = 3  # table 4 on the training history: rollout accuracy over the last 3 rollout batches up to a step
# tepo/kl (a micro-batch's mean per-token KL to the rollout policy) above 1 nat: an excursion
KL_EXCURSION = 1.0
# The paper's 8 updates per rollout batch are 4 mini-batches x 2 passes (configs/tepo.yaml: steps_per_generation 32
# over gradient_accumulation_steps 8, num_iterations 2), and so are params.yaml's; the histories made before round 3
# were 8 mini-batches x 1 pass (OLD_STRUCTURE): a mask claim reads each seed's recorded structure (made_structure).
PAPER_STRUCTURE = "4 mini-batches x 2 passes"
PAPER_MINI_PASSES = (4, 2)
OLD_STRUCTURE = "8 mini-batches x 1 pass"
# The mask's share of tokens at the first update of a rollout batch above which it selects on rounding (every true dH
# is 0 there): a claim about the mask's selection is not judged on such a run (mask_on_noise)
FIRST_UPDATE_MASK_MAX = 0.001
ENTROPY_POS, ENTROPY_NEG = "entropy_change_pos_adv", "entropy_change_neg_adv"  # methods/tepo.py's dH split by A's sign
RERUN_SETTINGS = (
    "every run of papers.tepo.runs with `train: {steps_per_generation: 4, num_iterations: 2}` (4 mini-batches of 8 "
    "prompts x 2 passes: 8 updates per 32-prompt rollout batch) and, on the TEPO runs, `entropy_change_tol: 1.0e-5` "
    "(above the per-token |dH| of the first update of a rollout batch, where the policy is the rollout policy: up "
    "to 5.5e-6 in the loss pass)"
)
# Runs, evaluations or logs a claim needs (params.yaml defines the runs; docs/review_response_round3/tepo.md), with
# their cost in (run, seed) pairs: the claim is NOT RUN with this reason while they are absent.
NOT_MADE = {
    "gpg": ("no GPG run: `gpg_tepo_data` (method gpg: REINFORCE without importance sampling or reference)", 3),
    "cispo": ("no CISPO run: `tepo_cispo` (TEPO with `surrogate: cispo`, sg[clip(w_i)] * A * log pi)", 3),
    "prefix_is": ("no prefix-IS run: `tepo_prefix_is` (TEPO with `surrogate: prefix_is`, w_{i,j<=t})", 3),
    "max_entropy": (
        "no TEPO-w/o. KL run with an entropy bonus: `tepo_no_kl_max_entropy` (mask_scope none, `entropy_coef` 0.01)",
        3,
    ),
    "min_entropy": (
        "no TEPO-w/o. KL run with an entropy penalty: `tepo_no_kl_min_entropy` (mask_scope none, `entropy_coef` -0.01)",
        3,
    ),
    "entropy_sign": (
        "the histories do not log dH split by the advantage's sign (the loss logs it since round 3): "
        "a rerun of `tepo_tepo_data` logging tepo/entropy_change_pos_adv and _neg_adv",
        5,
    ),
    "eps_gspo": (
        "no TEPO run with GSPO's clip bounds: `tepo_eps_gspo` (eps_low 3e-4, eps_high 4e-4, as the `gspo` baseline)",
        5,
    ),
    "unclipped": ("no TEPO run without the clip (Algorithm 1): `tepo_unclipped` (`surrogate: unclipped`)", 5),
    "lr_8": (
        "no runs at lr/8: `tepo_lr_1_25e_5` and `dapo_8updates_tepo_data_lr_1_25e_5` (learning_rate 1.25e-5; "
        "both arms, the learning rate being shared)",
        10,
    ),
}


# ----------------------------------------------------------------------------- one seed's history
def accuracy_at(history: pd.DataFrame, fraction: float) -> float:
    """One seed's rollout accuracy at ``fraction`` of its training: the mean over the rollout batches in the last
    ``MATCHED_WINDOW`` batches' share of training up to it (``measures.share``, rounded outward)."""
    n = len(common.rollouts(history, "accuracy"))
    return float(common.share(history, "accuracy", max(0.0, fraction - MATCHED_WINDOW / n), fraction).mean())


def excursion_share(history: pd.DataFrame) -> float:
    """Share of one seed's optimizer steps whose tepo/kl (mean per-token KL to the rollout policy) exceeds 1 nat."""
    return float((common.column(history, "tepo/kl") > KL_EXCURSION).mean())


def extreme(history: pd.DataFrame, key: str, stat: str) -> float:
    """The largest (``stat`` max) or smallest (min) value of ``key`` over one seed's steps."""
    return float(getattr(common.column(history, key), stat)())


kl_max = functools.partial(extreme, key="tepo/kl", stat="max")
w_min = functools.partial(extreme, key="tepo/w_min", stat="min")
w_max = functools.partial(extreme, key="tepo/w_max", stat="max")
clipped = functools.partial(mean_over_training, key="clip_ratio/region")  # the share of tokens the clip removes
grad_norm = functools.partial(mean_over_training, key="grad_norm")
response_length = functools.partial(mean_over_training, key="completions/mean_length")
reward = functools.partial(common.whole_mean, key="reward")


def made_structure(run: str, seed: int) -> tuple[int, int] | None:
    """(mini-batches, passes) per rollout batch that seed ``seed`` of ``run`` was trained with, from the settings its
    training recorded (``reports/training/<run>/seed<N>/params.yaml``: steps_per_generation over
    gradient_accumulation_steps, num_iterations); None when the seed recorded none."""
    path = layout.TRAINING_LOGS_DIR / run / layout.seed_folder(seed) / "params.yaml"
    if not path.is_file():
        return None
    made = yaml.safe_load(path.read_text()) or {}
    accumulation = int(made.get("gradient_accumulation_steps") or 1)
    micro = int(made.get("steps_per_generation") or accumulation)
    return micro // accumulation, int(made.get("num_iterations") or 1)


def structure_label(structure: tuple[int, int] | None) -> str:
    if structure is None:
        return "no recorded settings"
    mini, passes = structure
    return f"{mini} mini-batch{'es' if mini != 1 else ''} x {passes} pass{'es' if passes != 1 else ''}"


def first_update(history: pd.DataFrame, name: str) -> tuple[pd.Series, np.ndarray]:
    """``name`` by step and whether each step is the first update of its rollout batch (where the policy is the
    rollout policy, so every true dH is 0)."""
    series = common.column(history, name)
    updates = int(history.attrs.get(common.UPDATES_ATTR) or 1)
    return series, (series.index.to_numpy() - 1) % updates == 0


def mask_by_update(history: pd.DataFrame) -> tuple[float, float]:
    """(mean tepo/mask_frac at the first update of each rollout batch, at the others): at the first update the
    policy is the rollout policy, so every true dH is 0 and what the mask selects there it selects on rounding."""
    series, first = first_update(history, "tepo/mask_frac")
    return float(series[first].mean()), float(series[~first].mean())


def first_update_abs(history: pd.DataFrame, name: str) -> float:
    """Mean over rollout batches of |``name``| at the first update of each (where the policy is the rollout policy)."""
    series, first = first_update(history, name)
    return float(series[first].abs().mean())


# ----------------------------------------------------------------------------- runs and settings
def run_with(paper, runs: list[str], name: str, value: float | str, role: str) -> str:
    """The run of ``runs`` whose method setting ``name`` is ``value``; NotTestable naming the missing run."""
    for run in runs:
        if paper.hparam(run, name) == value:
            return run
    raise NotTestable(f"no {role} run with {name} {value!r} among papers.tepo.runs ({', '.join(runs)})")


def global_kl(paper, beta: float) -> str:
    """Panel A's run with the KL on every token at ``beta``."""
    return run_with(paper, paper.runs.global_kl, "beta", beta, "panel A")


def scope_run(paper, scope: str) -> str:
    return run_with(paper, paper.runs.kl_scope, "mask_scope", scope, "panel E")


def sensitivity_runs(paper, key: str) -> tuple[str, str]:
    """(TEPO's run, GRPO/DAPO's run) of a sensitivity claim: eq. 4's eps at GSPO's bounds, Alg. 1 unclipped
    (each against the GRPO/DAPO of table 1), or both at lr/8."""
    r = paper.runs
    if key == "eps_gspo":
        return run_with(paper, r.sensitivity, "eps_low", 3.0e-4, "sensitivity (eps at GSPO's bounds)"), r.grpo_dapo
    if key == "unclipped":
        return run_with(paper, r.sensitivity, "surrogate", "unclipped", "sensitivity (unclipped)"), r.grpo_dapo
    for run in r.sensitivity:
        if paper.params.runs[run].train.learning_rate == paper.params.runs[r.grpo_dapo_lr].train.learning_rate:
            return run, r.grpo_dapo_lr
    raise NotTestable(f"no run of papers.tepo.runs.sensitivity at {r.grpo_dapo_lr}'s learning rate")


def unmade(paper, *runs: str) -> list[tuple[str, int]]:
    """The (run, seed) pairs of ``runs`` that have no evaluation yet."""
    pairs = ((run, s) for run in runs for s in paper.results.seeds_of(run))
    return [(run, s) for run, s in pairs if not layout.eval_results_path(run, s).is_file()]


def made_or_not_run(paper, key: str, *runs: str) -> None:
    """NOT RUN (NOT_MADE[key]'s reason) with the (run, seed) pairs of ``runs`` that have no evaluation yet as
    its cost."""
    if missing := unmade(paper, *runs):
        named = ", ".join(dict.fromkeys(f"`{run}`" for run, _ in missing))
        not_run(f"{NOT_MADE[key][0]}; not yet made: {named}", len(missing))


def structure_of(paper, run: str) -> str:
    """The update structure ``run``'s seeds recorded, e.g. '4 mini-batches x 2 passes (seeds 0-4)'."""
    by_label: dict[str, list[int]] = {}
    for seed in paper.results.seeds_of(run):
        by_label.setdefault(structure_label(made_structure(run, seed)), []).append(seed)
    return "; ".join(f"{label} (seeds {fmt_seeds(seeds)})" for label, seeds in by_label.items())


def mask_on_noise(paper, run: str) -> str:
    """Why ``run``'s mask selects on rounding, or "" where it does not: a TEPO run whose mask reads dH and that
    selects more than FIRST_UPDATE_MASK_MAX of the tokens, in some seed, at the first update of a rollout batch
    (where the policy is the rollout policy and every true dH is 0)."""
    if paper.params.runs[run].method != "tepo" or paper.hparam(run, "mask_scope") in ("none", "all"):
        return ""
    seeds, histories = paper.results.seeds_of(run), paper.results.seed_histories(run)
    first = (mask_by_update(h)[0] for h in histories)
    noisy = {s: v for s, v in zip(seeds, first, strict=True) if v > FIRST_UPDATE_MASK_MAX}
    if not noisy:
        return ""
    per_seed = ", ".join(f"seed {s}: {v:.1%}" for s, v in noisy.items())
    return (
        f"`{run}`'s mask selects tokens at the first update of a rollout batch ({per_seed}; at most "
        f"{FIRST_UPDATE_MASK_MAX:.1%} allowed), where the policy is the rollout policy: it selects on rounding "
        f"(entropy_change_tol {paper.hparam(run, 'entropy_change_tol'):g})"
    )


def paper_total(paper) -> int:
    """The paper's training length in optimizer steps, as its profile reads it (configs/tepo.yaml)."""
    return paper_profile(paper.name).train.max_steps


def matched_shares(paper) -> tuple[float, float]:
    """(TEPO's share, GRPO/DAPO's share) of table 4: the paper's steps over the paper's own training length."""
    tepo_paper, grpo_paper = paper.settings.paper_steps
    total = paper_total(paper)
    return common.paper_share(tepo_paper, total), common.paper_share(grpo_paper, total)


# ----------------------------------------------------------------------------- the claims' measures
def greedy_ceiling(paper) -> np.ndarray:
    """(seeds,) the base policy's mean@1 at the paper's decoding (greedy), the ceiling the task sets there: the base's
    greedy path is the common left-to-right route, which solves every plain sum and no trap (docs/testbed.md), so a
    run rises above it only by solving traps greedily, which TEPO's training set (the `tepo` filter drops most traps)
    barely teaches."""
    with paper.results.at_decoding(paper.results.beside or paper.results.decoding):
        return paper.results.eval_table(paper.runs.base, ACCURACY).mean(axis=1)


def at_paper_decoding(paper, run: str) -> tuple[float, float, float]:
    """``run``'s mean@n [95% interval] at the paper's decoding (greedy), shown beside the verdicts' column."""
    with paper.results.at_decoding(paper.results.beside or paper.results.decoding):
        return paper.results.eval_summary(run, ACCURACY)


def versus_baseline(paper, baseline: str) -> Estimate:
    """TEPO minus a table-1 baseline: each method keeps its own clip (tepo.txt sec. 4.1: baselines' settings
    'adopted from their original papers'), and TEPO's beta is its masked KL to the rollout policy, a term no
    baseline has; GSPO's per-sequence aggregation is GSPO's own (panel D)."""
    gspo = paper.params.runs[baseline].method == "gspo"
    differs = (*TEPO_VS_DAPO, "method.loss_agg") if gspo else TEPO_VS_DAPO
    return paper.compare(paper.runs.tepo, baseline, ACCURACY, differs_in=differs)


def versus_no_kl(paper, run: str, *keys: str) -> Estimate:
    return paper.compare(run, paper.runs.no_kl, ACCURACY, differs_in=("method.mask_scope", *keys))


def panel_a(paper, beta: float) -> Estimate:
    """Panel A: the KL on every token at ``beta`` minus TEPO-w/o. KL."""
    return versus_no_kl(paper, global_kl(paper, beta), "method.beta")


def panel_a_level(paper, beta: float) -> Estimate:
    """mean@n of panel A's run at ``beta`` itself, (seeds, problems), with its seed-level interval on the logit
    scale."""
    run, results = global_kl(paper, beta), paper.results
    values = results.eval_table(run, ACCURACY)
    return estimate_of(values, detail=results.label(run), level_bounds=(0.0, 1.0), seeds=results.seeds_of(run))


def panel_a_volatility(paper, beta: float) -> Estimate:
    """log reward volatility of panel A's run at ``beta`` minus TEPO-w/o. KL's, paired by seed (a log ratio)."""
    a, b, differs = global_kl(paper, beta), paper.runs.no_kl, ("method.mask_scope", "method.beta")
    return paper.results.compare_history(a, b, common.log_reward_volatility, digits=3, differs_in=differs)


def panel_b(paper, key: str) -> Estimate:
    """Panel B: TEPO-w/o. KL with an entropy bonus (max_entropy: entropy_coef > 0) or penalty (< 0) minus TEPO-w/o.
    KL (they differ in entropy_coef only)."""
    sign = 1 if key == "max_entropy" else -1
    for run in paper.runs.panel_b:
        if paper.hparam(run, "mask_scope") == "none" and sign * paper.hparam(run, "entropy_coef") > 0:
            made_or_not_run(paper, key, run)
            return versus_no_kl(paper, run, "method.entropy_coef")
    raise NotTestable(f"no panel B run with entropy_coef {'> 0' if sign > 0 else '< 0'} and no KL")


def panel_c(paper, key: str) -> Estimate:
    """Panel C: TEPO minus TEPO with another importance sampling (they differ in the surrogate only)."""
    run = run_with(paper, paper.runs.panel_c, "surrogate", key, "panel C")
    made_or_not_run(paper, key, run)
    return paper.compare(paper.runs.tepo, run, ACCURACY, differs_in=("method.surrogate",))


def panel_d(paper, agg: str) -> Estimate:
    """Panel D: TEPO-w/o. KL (token-mean) minus the same run with aggregation ``agg``."""
    run = run_with(paper, paper.runs.aggregation, "loss_agg", agg, "panel D")
    return paper.compare(paper.runs.no_kl, run, ACCURACY, differs_in=("method.loss_agg",))


def panel_e(paper, scope: str) -> Estimate:
    """Panel E: TEPO minus TEPO with mask_scope ``scope`` (none: TEPO-w/o. KL)."""
    other = paper.runs.no_kl if scope == "none" else scope_run(paper, scope)
    return paper.compare(paper.runs.tepo, other, ACCURACY, differs_in=("method.mask_scope",))


def panel_e_drop(paper) -> Estimate:
    """TEPO with the KL on (A < 0 and dH > 0) minus TEPO-w/o. KL."""
    return versus_no_kl(paper, scope_run(paper, "neg_adv_entropy_up"), "method.mask_scope")


def versus_gpg(paper) -> Estimate:
    """TEPO minus GPG: the methods differ, GPG's advantage is r - mean(r) (its defining setting), neither has
    the other's clip or KL (one-sided settings)."""
    made_or_not_run(paper, "gpg", paper.runs.gpg)
    return paper.compare(paper.runs.tepo, paper.runs.gpg, ACCURACY, differs_in=TEPO_VS_DAPO)


def sensitivity(paper, key: str) -> Estimate:
    """TEPO minus GRPO/DAPO under the changed setting (TEPO_VS_DAPO: each keeps its own clip and TEPO its KL);
    NOT RUN, with the (run, seed) pairs still to make as its cost, while either arm lacks evaluations."""
    a, b = sensitivity_runs(paper, key)
    made_or_not_run(paper, key, a, b)
    return paper.compare(a, b, ACCURACY, differs_in=TEPO_VS_DAPO)


def entropy_sign(paper) -> Estimate:
    """Per seed: mean over training of tepo/entropy_change_pos_adv minus tepo/entropy_change_neg_adv (each a
    micro-batch's mean dH over its tokens with A > 0 / A < 0); NOT RUN while the histories do not log them."""
    tepo = paper.runs.tepo
    pos_of, neg_of = (functools.partial(mean_over_training, key=f"tepo/{k}") for k in (ENTROPY_POS, ENTROPY_NEG))
    try:
        values = paper.results.per_seed(tepo, lambda h: pos_of(h) - neg_of(h))
    except NotRun:
        raise
    except NotTestable as reason:
        not_run(f"{NOT_MADE['entropy_sign'][0]} ({reason})", NOT_MADE["entropy_sign"][1])
    pos, neg = paper.results.per_seed(tepo, pos_of), paper.results.per_seed(tepo, neg_of)
    detail = f"dH {pos.mean():.2e} (A > 0) vs {neg.mean():.2e} (A < 0)"
    return estimate_of(values, detail=detail, seeds=paper.results.seeds_of(tepo))


def at_paper_structure(paper, fn, *args, what: str = "the mask's selection", **kwargs) -> Estimate:
    """``fn(paper, *args, **kwargs)``, a claim about which tokens TEPO's mask selects, judged only on runs made at
    the paper's update structure (4 mini-batches x 2 passes: a token's own update seen) with dH counted above the
    sampler's rounding (``entropy_change_tol`` > 0 on the TEPO runs). Each seed's structure is read from the settings
    its training recorded (``made_structure``), not from params.yaml, so histories made before the change (8 x 1)
    are never judged as 4 x 2: while any seed a claim reads was made otherwise, NOT RUN with the estimate named in
    the reason, not judged. Cost: every seed of the runs the claim reads."""
    with paper.results.recording() as reads:
        try:
            e, failed = fn(paper, *args, **kwargs), None
        except NotTestable as reason:
            e, failed = None, reason
    runs = [run for run in reads.runs if run != paper.runs.base]
    off = []
    for run in runs:
        if any(made_structure(run, s) != PAPER_MINI_PASSES for s in paper.results.seeds_of(run)):
            off.append(f"`{run}` was made with {structure_of(paper, run)}")
        if noisy := mask_on_noise(paper, run):
            off.append(noisy)
    if not off:
        if failed is not None:
            raise failed
        return e
    if e is not None:
        failed = (
            f"{format_number(e.value)} [{format_number(e.ci_low)}, {format_number(e.ci_high)}] ({e.detail}), not judged"
        )
    not_run(
        f"{what} needs the paper's {PAPER_STRUCTURE} (a token's own update seen, dH above the sampler's rounding), "
        f"but {'; '.join(off)}: rerun with {RERUN_SETTINGS}; on the runs as made: {failed}",
        sum(len(paper.results.seeds_of(run)) for run in runs),
    )


def _tepo_and_grpo_dapo(paper, fn_tepo, fn_grpo) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(seeds, TEPO's ``fn_tepo`` per seed, GRPO/DAPO's ``fn_grpo`` per seed) over the seeds both share, the two
    runs checked to differ in TEPO_VS_DAPO only."""
    r = paper.runs
    paper.results.check(r.tepo, r.grpo_dapo, TEPO_VS_DAPO)
    seeds = paper.results.common_seeds(r.tepo, r.grpo_dapo)
    return seeds, paper.results.per_seed(r.tepo, fn_tepo, seeds), paper.results.per_seed(r.grpo_dapo, fn_grpo, seeds)


def history_log_ratio(paper, fn) -> Estimate:
    """log(TEPO's fn / GRPO/DAPO's fn), paired by seed (``measures.log_ratio``)."""
    seeds, a, b = _tepo_and_grpo_dapo(paper, fn, fn)
    return estimate_of(common.log_ratio(a, b), detail=f"{a.mean():.4f} vs {b.mean():.4f}", seeds=seeds)


def matched_accuracy(paper, share_tepo: float, share_grpo: float) -> Estimate:
    """TEPO's rollout accuracy at ``share_tepo`` of training minus GRPO/DAPO's at ``share_grpo``, paired by seed."""
    r = paper.runs
    seeds, a, b = _tepo_and_grpo_dapo(paper, lambda h: accuracy_at(h, share_tepo), lambda h: accuracy_at(h, share_grpo))
    step_tepo = common.step_at_share(paper.results.max_steps(r.tepo), share_tepo)
    step_grpo = common.step_at_share(paper.results.max_steps(r.grpo_dapo), share_grpo)
    labels = (f"{r.tepo}@{step_tepo}", f"{r.grpo_dapo}@{step_grpo}")
    return paired_difference(a, b, labels=labels, bounds=(0.0, 1.0), seeds=seeds)
