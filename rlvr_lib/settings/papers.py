"""params.yaml ``papers:``: which runs each paper's replication uses and its analysis settings, typed.

One entry per paper (``erpo``, ``cw_grpo``, ``tepo``, ``opefo``, ``aer``) plus ``summary``. Each entry's ``runs``
maps the roles of the paper's tables (its baseline, its method, each ablation) to runs: keys of params.yaml's
``methods`` (the flat registry of every training run, each trained once per seed of ``seeds``) or ``base`` (the
untrained policy). The other keys are the paper's analysis settings (its pass@k list, its checkpoint steps, ...).

``parse_papers`` builds the section through ``rlvr_lib.settings.schema.build`` (types, ranges, unknown keys) and checks
every run name against ``methods``; an error names the key path (``papers.erpo.runs.grpo``). ``paper_runs`` lists the
runs a paper reads, which is what its DVC stage depends on (``rlvr_lib.pipeline.paper_stages``). No torch import.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rlvr_lib.settings.names import did_you_mean
from rlvr_lib.settings.schema import (
    SampleCount,
    SettingError,
    build,
    require,
    require_at_least,
    require_between,
    setting,
)

BASE_RUN = "base"
PAPERS = ("erpo", "cw_grpo", "tepo", "opefo", "aer")  # the five replications; `summary` reads them all
ALL_PAPERS = (*PAPERS, "summary")
PAPER_TITLES = {  # the report links (reports/README.md, written by the report stage)
    "erpo": "ERPO: token-level entropy-regulated policy optimization",
    "cw_grpo": "CW-GRPO: covariance-aware GRPO with Gaussian-kernel advantage reweighting",
    "tepo": "TEPO: token-level policy optimization via sequence-level likelihood",
    "opefo": "OPEFO: on-policy entropy flow optimization",
    "aer": "AER: adaptive entropy regularization",
    "summary": "Summary: every method under one protocol, and which claims hold",
}


ALTERNATIVES = setting(
    help="declared alternatives of the paper's open choices: name -> {run: the run with the other value}; every "
    "verdict "
    "is computed again with each run read in its place (robust, or hinges on the alternative)",
    factory=dict,
)


def eval_decoding(default: str | None, where: str) -> Any:
    """``papers.<paper>.eval_decoding``: the paper's own evaluation decoding (``where``: its place in the paper)."""
    return setting(
        default,
        f"the paper's own evaluation decoding ({where}): a name of params.yaml eval.decodings (null: the shared one); "
        "its runs are evaluated at it as well, and its accuracy and pass@k verdicts use it (the shared one's beside)",
    )


def role(method: str, default: Any = None, help: str = "", *, factory: Any = None) -> Any:
    """A field of a ``*Runs`` dataclass whose run(s) must train registered method ``method``: the paper reads their
    own settings or logs (TEPO's mask and KL, OPEFO's lambda*, AER's tau and rho, ERPO's switches). A ``setting``
    field (a baseline, a reference) may name a run of any method: the paper reads only its results."""
    spec = setting(default, help, factory=factory)
    return dataclasses.field(
        default=spec.default, default_factory=spec.default_factory, metadata={**spec.metadata, "method": method}
    )


# ----------------------------------------------------------------------------- ERPO
@dataclass
class ErpoRuns:
    """Runs of erpo.txt's tables 1-2 and figures 4-5, and one ablation per ``use_*`` switch; the trained ones on
    ERPO's training set (``train_data: erpo``, sec. 5.1 and App. A.3)."""

    base: str = setting(BASE_RUN, "table 1's Base: the untrained policy")
    grpo: str = setting("grpo_erpo_data", "GRPO with the shared settings (sec. 5.2)")
    erpo: str = role("erpo", "erpo_erpo_data", "ERPO")
    ablations: list[str] = role(
        "erpo",
        help="ERPO runs with one use_* switch off each (the paper has no ablation section)",
        factory=lambda: [
            "erpo_no_entropy_gate",
            "erpo_no_bucket_norm",
            "erpo_no_implicit_progress",
            "erpo_no_outcome_anchor",
            "erpo_no_group_norm",
        ],
    )
    sensitivity: list[str] = role(
        "erpo",
        help="ERPO with another value of an open choice (sigma_target, not given): shown beside the verdicts",
        factory=lambda: ["erpo_sigma_0_25", "erpo_sigma_4"],
    )


@dataclass
class PerturbationSettings:
    """erpo.txt fig. 1(b): perturb the top / bottom 5% entropy tokens of correct responses and regenerate."""

    policy: str = setting(
        "grpo_erpo_data",
        "whose policy: a run (each studied seed's final model; GRPO's, since the testbed's base policies solve no "
        "problem reliably) or base (the paper's choice, a pre-RL model)",
    )
    frac: float = setting(0.05, "share of a response's tokens perturbed per set (fig. 1(b): 5%)")
    replacement: Literal["uniform", "policy"] = setting(
        "uniform", "uniform: a random vocabulary token (the paper's 'random replacement'); policy: the policy's own"
    )
    samples: SampleCount = setting(16, "samples per problem to find one correct response")
    min_correct: int = setting(
        12,
        "a problem is studied only if at least this many of its `samples` are correct (the paper's 'questions that "
        "the model could definitely answer correctly'; 1: any problem solved once)",
    )
    max_problems: int | None = setting(128, "evaluation problems searched for correct responses (null: all)")
    n_seeds: int = setting(
        3,
        "training seeds studied (the first of the policy run's `seeds`, fewer only where it has fewer): each "
        "seed's policy, sampled and regenerated with it",
    )

    def __post_init__(self) -> None:
        require_between(self, "frac", 0.0, 1.0, low_open=True)
        require_at_least(self, 1, "n_seeds")
        require_at_least(self, 1, "samples", "max_problems", "min_correct")
        require(self.min_correct <= self.samples, "min_correct", f"must be <= samples ({self.samples})")


@dataclass
class RealDataCount:
    """erpo.txt App. A.3 on the real files: MATH levels 3-5 with the solution-length filter, counted."""

    enabled: bool = setting(True, "count on <data root> (data.root / $RLVR_DATA_ROOT / ../shared/data) if present")
    train_set: str = setting("math_full", "rlvr_lib.tasks.data training set: MATH train + test minus MATH-500")
    levels: list[int] = setting(help="MATH levels kept", factory=lambda: [3, 4, 5])
    max_length: int = setting(2048, "maximum output length (table 3)")
    fraction: float = setting(0.1, "a solution longer than this share of max_length is dropped (App. A.3)")
    paper_count: int = setting(8441, "problems left in the paper (App. A.3)")

    def __post_init__(self) -> None:
        require_at_least(self, 1, "max_length", "paper_count")
        require_between(self, "fraction", 0.0, 1.0, low_open=True)


@dataclass
class ErpoPaper:
    runs: ErpoRuns = setting(help="the runs of each role", factory=ErpoRuns)
    eval_decoding: str | None = eval_decoding("top_p_0_95", "App. A.3: temperature 1.0, top-p 0.95")
    alternatives: dict[str, dict[str, str]] = setting(
        help=f"{ALTERNATIVES.metadata['help']}; ERPO: sigma_target (eq. 10, not given) at x1/4 and x4 of the default 1",
        factory=lambda: {
            "sigma_target:0.25": {"erpo_erpo_data": "erpo_sigma_0_25"},
            "sigma_target:4": {"erpo_erpo_data": "erpo_sigma_4"},
        },
    )
    pass_at_k: list[int] = setting(help="table 2's k", factory=lambda: [2, 4, 8, 16])
    ema_alpha: float = setting(0.12, "EMA weight of the newest value in figs. 4-5 (the paper's 0.12)")
    perturbation: PerturbationSettings = setting(help="fig. 1(b)", factory=PerturbationSettings)
    real_data: RealDataCount = setting(help="App. A.3's filter on the real files", factory=RealDataCount)

    def __post_init__(self) -> None:
        require(bool(self.pass_at_k) and min(self.pass_at_k) >= 1, "pass_at_k", "must be a list of k >= 1")
        require_between(self, "ema_alpha", 0.0, 1.0, low_open=True)


# ----------------------------------------------------------------------------- CW-GRPO
@dataclass
class CwGrpoRuns:
    """cw_grpo.txt table 2 (GRPO, Clip-Cov, CW-GRPO), fig. 1, table 1 and table 3's checkpoints."""

    base: str = setting(BASE_RUN, "table 2's Base Model")
    grpo: str = setting("grpo_cw", "vanilla GRPO with CW-GRPO's KL term, 1 update per rollout, G 12, T 0.7")
    clip_cov: str = setting("clip_cov_cw", "Clip-Cov (Cui et al.) at the same settings")
    clip_cov_table2: str = setting(
        "clip_cov_cw_90steps", "Clip-Cov stopped at table 2's checkpoint (step 100 of 200: 90 of 180 steps)"
    )
    cw_grpo: str = setting("cw_grpo_1update", "GRPO + Gaussian reweight, 1 update per rollout (TRL's default)")
    grpo_checkpoints: list[str] = setting(
        help="table 3: GRPO runs stopped at each checkpoint (their train.max_steps is the step), last = grpo",
        factory=lambda: ["grpo_cw_90steps", "grpo_cw_135steps", "grpo_cw"],
    )
    cw_grpo_checkpoints: list[str] = setting(
        help="table 3: CW-GRPO runs stopped at each checkpoint, last = cw_grpo",
        factory=lambda: ["cw_grpo_1update_90steps", "cw_grpo_1update_135steps", "cw_grpo_1update"],
    )
    sensitivity: list[str] = role(
        "cw_grpo",
        help="CW-GRPO with another value of an open choice (beta; update count and clip): beside the verdicts",
        factory=lambda: ["cw_grpo_1update_beta_0", "cw_grpo_2updates", "cw_grpo_2updates_clip"],
    )
    scope_batch: str = setting(
        "cw_grpo_1update_90steps_scope_batch",
        "table 2's CW-GRPO with scope: batch (sigma, means, N over the rollout batch): the hyperparameter-free claim",
    )
    clip_cov_extreme: str = setting(
        "clip_cov_cw_extreme",
        "Clip-Cov at clip_cov's settings detaching up to 1% of the tokens with covariance above 0.5: GRPO without its "
        "extreme-covariance tokens' updates (the heavy-tail entropy claim)",
    )


@dataclass
class CwGrpoPaper:
    runs: CwGrpoRuns = setting(help="the runs of each role", factory=CwGrpoRuns)
    eval_decoding: str | None = eval_decoding("t_0_7", "not stated: its training temperature 0.7")
    alternatives: dict[str, dict[str, str]] = setting(
        help=f"{ALTERNATIVES.metadata['help']}; CW-GRPO: the kernel's statistics over the rollout batch (the scope of "
        "sigma, the means and N is not given: docs/assumptions.md, CW-GRPO choice 1)",
        factory=lambda: {"scope:batch": {"cw_grpo_1update_90steps": "cw_grpo_1update_90steps_scope_batch"}},
    )
    paper_steps: list[int] = setting(help="table 3's checkpoint steps", factory=lambda: [100, 150, 200])
    covariance_top_percents: list[float] = setting(
        help="table 1's columns: shares of the positive / negative covariances", factory=lambda: [0.01, 1, 20, 40, 100]
    )
    ema_alpha: float = setting(0.3, "EMA weight of the newest value in fig. 1")

    def __post_init__(self) -> None:
        n = len(self.paper_steps)
        for name in ("grpo_checkpoints", "cw_grpo_checkpoints"):
            got = len(getattr(self.runs, name))
            require(got == n, f"runs.{name}", f"has {got} runs, paper_steps has {n} checkpoints: one run each")
        require(all(0 < p <= 100 for p in self.covariance_top_percents), "covariance_top_percents", "in (0, 100]")
        require_between(self, "ema_alpha", 0.0, 1.0, low_open=True)


# ----------------------------------------------------------------------------- TEPO
@dataclass
class TepoRuns:
    """tepo.txt table 1, table 3 panels A / D / E and table 4 (TEPO's update structure: 8 updates per rollout); the
    trained runs on TEPO's training set (``train_data: tepo``, sec. 4.1: no all-correct or all-wrong group)."""

    base: str = setting(BASE_RUN, "table 1's untrained model")
    grpo_dapo: str = setting(
        "dapo_8updates_tepo_data", "table 1's 'GRPO/DAPO' (clip-higher 0.2/0.28), 8 updates per rollout"
    )
    baselines: list[str] = setting(
        help="table 1's other rows (Clip-Cov, KL-Cov, Entropy-based term, GSPO); GPG is `gpg`",
        factory=lambda: [
            "clip_cov_8updates_tepo_data",
            "kl_cov_8updates_tepo_data",
            "ent_adv_tepo_data",
            "gspo_tepo_data",
        ],
    )
    tepo: str = role("tepo", "tepo_tepo_data", "TEPO (eq. 4)")
    no_kl: str = role("tepo", "tepo_no_kl", "'TEPO-w/o. KL', the reference of every panel of table 3")
    global_kl: list[str] = role(
        "tepo",
        help="panel A: TEPO with the KL on every token (mask_scope all), one run per beta",
        factory=lambda: [
            "tepo_global_kl_beta_1",
            "tepo_global_kl_beta_0_1",
            "tepo_global_kl_beta_0_01",
            "tepo_global_kl_beta_0_001",
            "tepo_global_kl_beta_0_0001",
        ],
    )
    aggregation: list[str] = role(
        "tepo",
        help="panel D: TEPO-w/o. KL with another loss aggregation",
        factory=lambda: ["tepo_no_kl_seq_mean_token_mean", "tepo_no_kl_seq_mean_token_sum"],
    )
    kl_scope: list[str] = role(
        "tepo",
        help="panel E: TEPO with the KL mask on another token set",
        factory=lambda: ["tepo_kl_neg_adv_entropy_up", "tepo_kl_either"],
    )
    sensitivity: list[str] = role(
        "tepo",
        help="TEPO with another value of a choice that may decide table 1: eq. 4's eps at GSPO's bounds (3e-4 / 4e-4), "
        "Algorithm 1 unclipped, lr/8 (1.25e-5); in this order",
        factory=lambda: ["tepo_eps_gspo", "tepo_unclipped", "tepo_lr_1_25e_5"],
    )
    grpo_dapo_lr: str = setting(
        "dapo_8updates_tepo_data_lr_1_25e_5", "GRPO/DAPO at lr/8 (1.25e-5): the other arm of `lr_sensitivity`"
    )
    panel_b: list[str] = role(
        "tepo",
        help="panel B: TEPO-w/o. KL with an entropy bonus (entropy_coef > 0, 'Max-Entropy') and a penalty (< 0, "
        "'Min-Entropy')",
        factory=lambda: ["tepo_no_kl_max_entropy", "tepo_no_kl_min_entropy"],
    )
    panel_c: list[str] = role(
        "tepo",
        help="panel C: TEPO with another importance sampling (surrogate 'cispo', 'prefix_is')",
        factory=lambda: ["tepo_cispo", "tepo_prefix_is"],
    )
    gpg: str = setting("gpg_tepo_data", "table 1's and panel C's GPG (REINFORCE, no importance sampling)")


@dataclass
class TepoPaper:
    runs: TepoRuns = setting(help="the runs of each role", factory=TepoRuns)
    eval_decoding: str | None = eval_decoding("greedy", "sec. 4.1: greedy, T 0.6 on AIME/AMC")
    verdicts_at: Literal["paper", "shared"] = setting(
        "shared",
        "the decoding the accuracy and pass@k verdicts read: 'paper' (eval_decoding) or 'shared' (params.yaml eval's "
        "own); TEPO's greedy sits at a ceiling the task sets (the base policy's greedy path solves every plain sum and "
        "no trap), so its verdicts read the shared one and greedy is shown beside (issue 40, a choice after the runs)",
    )
    alternatives: dict[str, dict[str, str]] = setting(
        help=f"{ALTERNATIVES.metadata['help']}; TEPO: eq. 4's clip (eps not given): GSPO's bounds, or Alg. 1 unclipped",
        factory=lambda: {
            "eps_gspo": {"tepo_tepo_data": "tepo_eps_gspo"},
            "unclipped": {"tepo_tepo_data": "tepo_unclipped"},
        },
    )
    ema_alpha: float = setting(0.3, "EMA weight of the newest value in the training-curve figures")
    paper_steps: list[int] = setting(
        help="table 4: the steps compared (TEPO at the first, GRPO/DAPO at both), of the paper's whole run",
        factory=lambda: [72, 132],
    )

    def __post_init__(self) -> None:
        require_between(self, "ema_alpha", 0.0, 1.0, low_open=True)
        require(len(self.paper_steps) == 2, "paper_steps", "must be [TEPO's step, GRPO/DAPO's step]")


# ----------------------------------------------------------------------------- OPEFO
@dataclass
class OpefoRuns:
    """opefo.txt table 1 (baselines at 8 updates per rollout, GRPO strict on-policy and OPEFO at 1), table 2,
    figs. 2, 4, 5."""

    base: str = setting(BASE_RUN, "table 1's untrained model")
    grpo: str = setting("grpo_8updates", "GRPO, 8 updates per rollout batch (sec. 6.1)")
    grpo_onpolicy: str = setting("grpo_onpolicy", "GRPO (Strict on-policy), 1 update")
    baselines: list[str] = setting(
        help="table 1's Entropy-Reg, Clip-higher, Clip-Cov, KL-Cov",
        factory=lambda: ["entropy_reg_8updates", "dapo_8updates", "clip_cov_8updates", "kl_cov_8updates"],
    )
    clip_higher: str = setting("dapo_8updates", "fig. 2(c): the clip-higher run")
    opefo: str = role("opefo", "opefo", "OPEFO")
    static_lambda: str = role(
        "opefo",
        "opefo_static_lambda_testbed",
        "table 2 'Static Scaling' by sec. 6.4's procedure: lambda = the average lambda* of the testbed's `opefo` runs",
    )
    static_lambda_paper: str = role("opefo", "opefo_static_lambda", "'Static Scaling' at the paper's number, 0.001")
    pos_only: str = role("opefo", "opefo_pos_only", "table 2 'One-side (S+ only)'")
    neg_only: str = role("opefo", "opefo_neg_only", "table 2 'One-side (S- only)'")
    delta_h_variants: list[str] = role(
        "opefo",
        help="OPEFO runs with another eq. 6 estimator (methods.<run>.delta_h), set beside `opefo`",
        factory=lambda: ["opefo_delta_h_expectation"],
    )


@dataclass
class OpefoPaper:
    runs: OpefoRuns = setting(help="the runs of each role", factory=OpefoRuns)
    eval_decoding: str | None = eval_decoding("top_p_0_7", "sec. 6.1: temperature 1.0, top-p 0.7")
    alternatives: dict[str, dict[str, str]] = setting(
        help=f"{ALTERNATIVES.metadata['help']}; OPEFO: eq. 6 as the expectation over the vocabulary (sec. 3.3 and 5.1 "
        "do not settle which form the paper computes)",
        factory=lambda: {"delta_h:expectation": {"opefo": "opefo_delta_h_expectation"}},
    )
    paper_lambda_mean: float = setting(0.001, "the average lambda* over training the paper reports (sec. 6.4)")
    ema_alpha: float = setting(0.3, "EMA weight of the newest value in figs. 2, 4, 5")

    def __post_init__(self) -> None:
        require_between(self, "ema_alpha", 0.0, 1.0, low_open=True)


# ----------------------------------------------------------------------------- AER
@dataclass
class AerRuns:
    """aer.txt table 1, fig. 3, tables 6-7 (pass@k), table 2 (components), tables 8-9 (tau and rho sweeps)."""

    base: str = setting(BASE_RUN, "table 1's Base")
    grpo: str = setting("grpo", "GRPO")
    baselines: list[str] = setting(
        help="table 1's w/ Clip-Higher, w/ Ent-Adv, w/ KL-Cov, w/ Clip-Cov, each with GRPO's loss (eq. 2)",
        factory=lambda: ["aer_clip_higher", "ent_adv", "aer_kl_cov", "aer_clip_cov"],
    )
    clip_higher: str = setting("aer_clip_higher", "tables 6-7's w/Clip-Higher")
    temperature_grpo: str = setting(
        "grpo_cw", "fig. 2(c)'s temperature: GRPO sampling at another temperature (its first batch's entropy)"
    )
    data_grpo: str = setting("grpo_erpo_data", "fig. 2(c)'s dataset: GRPO on another training set (its first batch)")
    aer: str = role("aer", "aer", "AER (C1 & C2 & C3)")
    fixed_coeff_grid: list[str] = role(
        "aer",
        help="table 2 'w/ Fixed Coeff.': one run per fixed coefficient; the tuned one is the highest training reward",
        factory=lambda: ["aer_fixed_coeff_0_001", "aer_fixed_coeff_0_01", "aer_fixed_coeff_0_1"],
    )
    fig2_easy: list[str] = role(
        "aer",
        help="fig. 2(a): a fixed entropy coefficient 0, 0.01, 0.1 (in this order) on the easy set (`train_data: "
        "aer_easy`, the testbed's easiest level)",
        factory=lambda: ["aer_easy_fixed_coeff_0", "aer_easy_fixed_coeff_0_01", "aer_easy_fixed_coeff_0_1"],
    )
    fig2_hard: list[str] = role(
        "aer",
        help="fig. 2(b): a fixed entropy coefficient 0, 0.01, 0.1 (in this order) on the hard set (`train_data: "
        "aer_hard`, the testbed's hardest level)",
        factory=lambda: ["aer_hard_fixed_coeff_0", "aer_hard_fixed_coeff_0_01", "aer_hard_fixed_coeff_0_1"],
    )
    c1_only: str = role("aer", "aer_c1_only", "table 2 'w/ Difficulty-Aware (C1)'")
    c2_c3: str = role("aer", "aer_c2c3", "table 2 'w/ Adaptive Coeff. (C2&C3)'")
    tau_sweep: list[str] = role(
        "aer",
        help="table 8: AER with other tau (the aer run is tau's default)",
        factory=lambda: [
            "aer_tau_0_2",
            "aer_tau_0_3",
            "aer_tau_0_5",
            "aer_tau_0_6",
            "aer_tau_0_8",
            "aer_tau_1_0",
            "aer_tau_1_2",
        ],
    )
    rho_sweep: list[str] = role(
        "aer",
        help="table 9: AER with other rho (the aer run is rho's default)",
        factory=lambda: ["aer_rho_0", "aer_rho_1"],
    )
    sensitivity: list[str] = role(
        "aer",
        help="AER with eta scaled to the run's length (docs/assumptions.md): beside the verdicts",
        factory=lambda: ["aer_eta_scaled"],
    )


@dataclass
class PassAtLargeK:
    """Tables 6-7: pass@k up to k = n with n samples per problem, sampled by the `sample_aer_pass_at_k` stage."""

    runs: list[str] = setting(
        help="runs sampled (tables 6-7: Base, GRPO, w/Clip-Higher, w/AER)",
        factory=lambda: [BASE_RUN, "grpo", "aer_clip_higher", "aer"],
    )
    n: SampleCount = setting(256, "samples per problem (k up to n)")
    max_problems: int | None = setting(16, "first problems of the evaluation sets, pooled (null: all)")
    n_seeds: int = setting(
        3,
        "training seeds sampled (the first of the seeds every run of `runs` has, fewer only where they share fewer): "
        "each costs n x max_problems samples",
    )
    batch_size: int = setting(512, "sequences per generate call")

    def __post_init__(self) -> None:
        require_at_least(self, 1, "n", "max_problems", "n_seeds", "batch_size")


@dataclass
class AerPaper:
    runs: AerRuns = setting(help="the runs of each role", factory=AerRuns)
    eval_decoding: str | None = eval_decoding(None, "not stated (App. A.3: constant across methods): the shared one")
    alternatives: dict[str, dict[str, str]] = setting(
        help="declared alternatives (name -> {run: the run with the other value}): eq. 11's step size scaled "
        "(docs/assumptions.md)",
        factory=lambda: {"eta_scaled": {"aer": "aer_eta_scaled"}},
    )
    pass_at_k: PassAtLargeK = setting(help="tables 6-7", factory=PassAtLargeK)
    k50_threshold: float = setting(0.5, "k50 = smallest k with pass@k >= this (App. C.3)")

    def __post_init__(self) -> None:
        require_between(self, "k50_threshold", 0.0, 1.0, low_open=True)


# ----------------------------------------------------------------------------- summary
@dataclass
class SummaryRuns:
    base: str = setting(BASE_RUN, "the untrained policy")
    reference: str = setting("grpo", "wall time per step is relative to this run")
    methods: list[str] = setting(
        help="every method under the shared protocol",
        factory=lambda: [
            "grpo",
            "grpo_onpolicy",
            "dapo",
            "entropy_reg",
            "clip_cov",
            "kl_cov",
            "gspo",
            "ent_adv",
            "erpo",
            "cw_grpo",
            "tepo",
            "opefo",
            "aer",
        ],
    )


@dataclass
class SummaryPaper:
    runs: SummaryRuns = setting(help="the runs of each role", factory=SummaryRuns)
    papers: list[str] = setting(help="papers whose claims tables are gathered", factory=lambda: list(PAPERS))

    def __post_init__(self) -> None:
        bad = sorted(set(self.papers) - set(PAPERS))
        require(not bad, "papers", f"has unknown paper(s) {bad}; valid: {list(PAPERS)}")


# ----------------------------------------------------------------------------- the section
@dataclass
class PapersConfig:
    """params.yaml ``papers``: one entry per replication."""

    erpo: ErpoPaper = setting(help="erpo.txt", factory=ErpoPaper)
    cw_grpo: CwGrpoPaper = setting(help="cw_grpo.txt", factory=CwGrpoPaper)
    tepo: TepoPaper = setting(help="tepo.txt", factory=TepoPaper)
    opefo: OpefoPaper = setting(help="opefo.txt", factory=OpefoPaper)
    aer: AerPaper = setting(help="aer.txt", factory=AerPaper)
    summary: SummaryPaper = setting(help="every method under one protocol", factory=SummaryPaper)

    def paper(self, name: str) -> Any:
        if name not in ALL_PAPERS:
            raise ValueError(f"unknown paper '{name}'{did_you_mean(name, ALL_PAPERS)}; papers: {list(ALL_PAPERS)}")
        return getattr(self, name)


def _run_fields(runs: Any) -> Iterable[tuple[str, str]]:
    """(key path inside ``runs``, run name) for every run a ``*Runs`` dataclass names, in field order."""
    for f in dataclasses.fields(runs):
        value = getattr(runs, f.name)
        if isinstance(value, list):
            yield from ((f"{f.name}[{i}]", v) for i, v in enumerate(value))
        else:
            yield f.name, value


def paper_runs(settings: Any, *, trained_only: bool = False) -> list[str]:
    """The runs a paper's settings name (``runs`` and, for AER, the pass@k runs), each once, in order;
    ``trained_only`` leaves ``base`` out."""
    names = [name for _, name in _run_fields(settings.runs)]
    if isinstance(settings, AerPaper):
        names += settings.pass_at_k.runs
    for alternative in getattr(settings, "alternatives", {}).values():
        names += list(alternative.values())
    out = list(dict.fromkeys(names))
    return [r for r in out if r != BASE_RUN] if trained_only else out


def run_roles(settings: Any) -> dict[str, list[str]]:
    """Role (a field of the paper's ``runs``) -> its trained runs, in field order; the runs ``paper_runs`` adds
    beyond the roles (AER's pass@k runs, the alternatives' runs) under ``"other"``."""
    roles: dict[str, list[str]] = {}
    for where, name in _run_fields(settings.runs):
        if name != BASE_RUN:
            roles.setdefault(where.split("[")[0], []).append(name)
    named = {run for runs in roles.values() for run in runs}
    other = [run for run in paper_runs(settings, trained_only=True) if run not in named]
    return {**roles, "other": other} if other else roles


def repro_pairs(params: Any, paper: str) -> dict[str, list[int]]:
    """The runs, with their seeds, that ``make repro PAPER=<paper>`` trains: the paper's own and, for the summary,
    those of the papers it gathers (it reads their claims) too."""
    names = [*params.papers.summary.papers, paper] if paper == "summary" else [paper]
    runs: dict[str, list[int]] = {}
    for name in names:
        for run in paper_runs(params.papers.paper(name), trained_only=True):
            runs.setdefault(run, list(params.runs[run].seeds))
    return runs


def decodings_for_run(papers: PapersConfig | None, run: str) -> list[str]:
    """The papers' own decodings (names of ``eval.decodings``) ``run`` is evaluated at besides the shared one: that
    of every paper reading it (``papers.<paper>.eval_decoding``; ``base`` is read by every paper), sorted."""
    return sorted({papers.paper(p).eval_decoding for p in _decoding_papers(papers, run)})


def decoding_params(papers: PapersConfig | None, run: str) -> list[str]:
    """The params.yaml keys that decide which decodings ``run`` is evaluated at (its eval stage's params)."""
    return [f"papers.{p}.eval_decoding" for p in _decoding_papers(papers, run)]


def _decoding_papers(papers: PapersConfig | None, run: str) -> list[str]:
    if papers is None:
        return []
    return [p for p in PAPERS if papers.paper(p).eval_decoding is not None and run in paper_runs(papers.paper(p))]


def sampled_policies(settings: Any) -> list[str]:
    """Runs whose trained models (not only their reports) a paper's stage reads: ERPO's perturbation policy and
    AER's pass@k runs (``base`` included when named)."""
    if isinstance(settings, ErpoPaper):
        return [settings.perturbation.policy]
    if isinstance(settings, AerPaper):
        return list(dict.fromkeys(settings.pass_at_k.runs))
    return []


def check_runs(papers: PapersConfig, run_methods: Mapping[str, str | None], path: str = "papers") -> None:
    """Raise ValueError naming ``papers.<paper>.runs.<role>`` for a run that is not in ``methods`` (nor base), or
    that trains another method than its role's (``run_methods``: run -> its method, None where unknown)."""
    known = set(run_methods)
    valid = f"valid: 'base' or a key of params.yaml 'methods' ({', '.join(sorted(known))})"
    for paper in ALL_PAPERS:
        settings = papers.paper(paper)
        for where, name in _run_fields(settings.runs):
            if name != BASE_RUN and name not in known:
                raise ValueError(
                    f"{path}.{paper}.runs.{where}: unknown run '{name}'{did_you_mean(name, known)}; {valid}"
                )
            wanted = _role_method(settings.runs, where)
            got = run_methods.get(name)
            if wanted is not None and got is not None and got != wanted:
                raise ValueError(
                    f"{path}.{paper}.runs.{where}: run '{name}' trains method '{got}', but this role needs a run of "
                    f"method '{wanted}'"
                )
            if wanted is not None and name == BASE_RUN:
                raise ValueError(
                    f"{path}.{paper}.runs.{where}: the untrained 'base' policy cannot fill this role, which needs a "
                    f"run of method '{wanted}'"
                )
        roles = {name for _, name in _run_fields(settings.runs)}
        for alt, swaps in getattr(settings, "alternatives", {}).items():
            for run, other in swaps.items():
                where = f"{path}.{paper}.alternatives.{alt}.{run}"
                if run not in roles:
                    raise ValueError(f"{where}: '{run}' is not a run of papers.{paper}.runs")
                if other not in known:
                    raise ValueError(f"{where}: unknown run '{other}'{did_you_mean(other, known)}; {valid}")
                if run_methods.get(other) is not None and run_methods.get(other) != run_methods.get(run):
                    raise ValueError(f"{where}: '{other}' trains another method than '{run}'")
        if isinstance(settings, ErpoPaper):
            policy = settings.perturbation.policy
            if policy != BASE_RUN and policy not in known:
                hint = did_you_mean(policy, known)
                raise ValueError(f"{path}.erpo.perturbation.policy: unknown run '{policy}'{hint}; {valid}")
        if isinstance(settings, AerPaper):
            declared = set(paper_runs(dataclasses.replace(settings, pass_at_k=PassAtLargeK(runs=[]))))
            for i, name in enumerate(settings.pass_at_k.runs):
                if name not in declared:
                    raise ValueError(
                        f"{path}.aer.pass_at_k.runs[{i}]: '{name}' is not one of papers.aer.runs "
                        f"({', '.join(sorted(declared))})"
                    )


def _role_method(runs: Any, where: str) -> str | None:
    """The method a role (``grpo`` or ``ablations[2]``) of a ``*Runs`` dataclass requires, None for any."""
    field = next(f for f in dataclasses.fields(runs) if f.name == where.split("[")[0])
    return field.metadata.get("method")


def parse_papers(raw: Any, runs: Iterable[str] | Mapping[str, str], path: str = "papers") -> PapersConfig:
    """The typed ``papers`` section from its mapping, every run name checked against ``runs`` (names, or a
    mapping run -> method, which also checks that each role's run trains the role's method)."""
    try:
        papers = build(PapersConfig, raw, path)
    except SettingError as err:  # raised by a nested __post_init__ outside build's own handling
        raise ValueError(f"{path}.{err.field} {err.message}") from None
    run_methods = dict(runs) if isinstance(runs, Mapping) else dict.fromkeys(runs)
    check_runs(papers, run_methods, path)
    return papers
