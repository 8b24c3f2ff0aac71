"""AER (aer.txt, Adaptive Entropy Regularization) on the testbed: table 1, tables 6-7 (pass@k to k = n, k50),
fig. 3 (training dynamics), table 2 (components), tables 8-9 (tau and rho sweeps) and H_t against its target."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from .. import plots
from ..eval.passk import k_values, pass_at_k
from . import external, measures, sampling
from .base import MISSING, PaperBase, experiment, fmt, fmt_ci
from .claims import (
    IMMOVABLE,
    SATURATION,
    Estimate,
    NotRun,
    NotTestable,
    bounded_t_interval,
    estimate_of,
    paired_difference,
    seed_values,
    t_interval,
    unavailable,
)
from .config import BASE_RUN
from .guard import METHOD
from .measures import TAIL_LABEL, end_mean, log_entropy_retained, peak_entropy_ratio, rollouts
from .results import ACCURACY, metric_bounds

ACCURACY_MARGIN = 0.01  # margins: argued beside declare_claims
ENTROPY_MARGIN = 0.05
# Entropy levels are compared as log ratios (measures.log_entropy_retained): ENTROPY_MARGIN (0.05 H_0) at AER's
# target 0.4 H_0 is 12.5% of the level, log(1.125) = 0.118 on the log scale (converted, not re-chosen).
LOG_ENTROPY_MARGIN = 0.118
LOG2_K50_MARGIN = 0.5
LENGTH_MARGIN = 1.0
# fig. 3(c): "within the first 100 steps" as a share of the paper's own training (measures.paper_share). aer.txt
# states its main runs' length only as 30 epochs of DeepScaleR (table 3) and caps its supplementary runs "to fewer
# than 500 steps" (App. C) as a restriction, so the main runs are at least 500 steps: 100 steps is at most 20%.
PAPER_EARLY_STEPS, PAPER_MIN_TOTAL_STEPS = 100, 500
SHARP_DROP = 0.5  # "drops sharply": the entropy at least halved from its first step by then
FRAC_HARD_MARGIN = 0.1  # sec. 5.3 "many questions 'hard'": a tenth of the prompts more (no number in the paper)
# App. C.3's k50 threshold mapped like the paper's (fixed from table 6 before reading any testbed k50): the paper's
# 50% lies this far from the base's pass@1 (11.5) to its pass@256 (64.3) on AIME24; the testbed's threshold lies as
# far from the base's pass@1 to its pass@n on the sampled problems.
PAPER_K50_POSITION = (50.0 - 11.5) / (64.3 - 11.5)
FIG2_NONE = "(no fig. 2 run)"  # a fig. 2 role with fewer than 3 runs (a reduced protocol): its claims are NOT RUN
METHOD_CLIP = {  # a baseline whose method is its clip range (aer.txt App. A.2) may differ from AER in it
    "dapo": (METHOD, "method.eps_high"),
    "clip_cov": (METHOD, "method.eps_low", "method.eps_high"),
}
ADAPTIVE_COEFFICIENT = ("method.adaptive_alpha", "method.alpha_init")  # C2&C3 against a fixed alpha (table 2)
PAPER_TABLE1_8B = {  # aer.txt table 1, Qwen3-8B-Base, Avg. pass@1 / pass@32 (%)
    "Base": "33.1 / 66.6",
    "GRPO": "46.0 / 66.0",
    "w/ Clip-Higher": "51.3 / 74.5",
    "w/ Ent-Adv": "46.3 / 63.6",
    "w/ KL-Cov": "48.4 / 72.5",
    "w/ Clip-Cov": "55.0 / 75.2",
    "w/ AER": "55.4 / 76.0",
}
PAPER_AVG_8B = {  # table 1's Avg. (pass@1, pass@32); each is the mean of its four columns to rounding
    label: tuple(float(x) for x in cell.split(" / ")) for label, cell in PAPER_TABLE1_8B.items()
}
BASELINE_LABELS = {"dapo": "w/ Clip-Higher", "ent_adv": "w/ Ent-Adv", "kl_cov": "w/ KL-Cov", "clip_cov": "w/ Clip-Cov"}
PAPER_TABLE2_AVG = {  # aer.txt table 2, Qwen3-8B-Base, mean of the four sets (%)
    "GRPO": 46.0,
    "w/ Fixed Coeff.": 48.8,
    "w/ Difficulty-Aware (C1)": 53.7,
    "w/ Adaptive Coeff. (C2&C3)": 53.5,
    "w/ AER (C1&C2&C3)": 55.4,
}
PAPER_TAU = {0.2: 54.3, 0.3: 54.2, 0.4: 55.4, 0.5: 54.8, 0.6: 54.9, 0.8: 54.9, 1.0: 54.1, 1.2: 53.1}  # table 8 Avg.
PAPER_RHO = {0.0: 55.8, 0.2: 55.4, 0.4: 55.5, 0.6: 55.1, 0.8: 55.2, 1.0: 53.5}  # table 9 Avg.
PAPER_PASS_AT_K_AIME24 = {  # tables 6: Qwen3-8B-Base on AIME2024, k = 1 .. 256
    "Base": [11.5, 15.5, 24.2, 32.1, 40.2, 48.0, 55.1, 60.9, 64.3],
    "GRPO": [20.5, 26.2, 31.3, 36.4, 41.5, 47.0, 53.5, 59.5, 63.7],
    "w/Clip-Higher": [27.1, 34.0, 41.0, 48.7, 55.5, 61.5, 65.7, 68.2, 69.5],
    "w/AER": [31.4, 38.2, 45.4, 52.0, 58.3, 63.2, 66.4, 69.4, 72.4],
}


class Paper(PaperBase):
    name = "aer"
    title = "AER: Adaptive Entropy Regularization — replication on the testbed"
    source = "../shared/papers/aer.txt"
    intro = (
        "AER adds an entropy bonus lambda_t(q) H to GRPO's objective (eq. 7) with three components: C1, a "
        "difficulty-aware coefficient alpha_t max(0, rho - g(q)) / rho that is positive only for prompts whose group "
        "accuracy g(q) is below the pivot rho (eq. 9); C2, a target entropy H* = tau H_0 anchored to the first step's "
        "entropy (eq. 10); C3, a global coefficient alpha_t moved by eta sgn(H* - H_t) each iteration (eq. 11). The "
        "paper reports higher pass@1 and pass@32 than GRPO and four entropy baselines (table 1), higher pass@k up "
        "to k = 256 (tables 6-7, k50), gains from each component (table 2), a sweet spot at tau = 0.4 and higher "
        "accuracy for small rho (tables 8-9), and entropy held near the target (fig. 3)."
    )

    def __init__(self, params):
        super().__init__(params)
        r = self.runs
        self.table1_rows = [
            ("Base", r.base),
            ("GRPO", r.grpo),
            *[(BASELINE_LABELS.get(self.params.runs[b].method, b), b) for b in r.baselines],
            ("w/ AER", r.aer),
        ]

    # ------------------------------------------------------------------ helpers
    def largest_k(self) -> int:
        n = min(self.results.samples(run) for _, run in self.table1_rows)
        return max(k for k in k_values(n) if k <= n)

    def discussion_notes(self) -> list[str]:
        """The Discussion's paper-specific paragraphs (after the generated lists): each explanation with the numbers
        from the runs that support it."""
        return [
            *self._fig2_notes(),
            *self._idle_notes(),
            *self._controller_notes(),
            *self._explosion_notes(),
            *self._protocol_notes(),
        ]

    def _explosion_notes(self) -> list[str]:
        """The C3 runs whose entropy passed the divergence limit: per seed, how far alpha_t had climbed when it did
        (eq. 11 raises alpha_t by eta per step while H_t < H*, and the bonus then carries the entropy past x2)."""
        rows = []
        for run in self._c3_runs():
            try:
                histories = self.results.seed_histories(run)
            except NotTestable:  # not trained yet
                continue
            for seed, h in zip(self.results.seeds_of(run), histories, strict=True):
                ratio = rollouts(h, "entropy/mean") / initial_entropy(h)
                past = ratio[ratio > measures.ENTROPY_FACTOR]
                if past.empty:
                    continue
                alpha = rollouts(h, "aer/alpha")
                step, top = past.index[0], alpha.idxmax()
                eta = self.hparam(run, "eta")
                rows.append(
                    f"`{run}` (tau {self.hparam(run, 'tau'):g}) seed {seed}: alpha_t peaked at "
                    f"{float(alpha.max()):.3f} at step {int(top)} (H_t {float(ratio.loc[top]):.2f} H_0 then) and was "
                    f"still {float(alpha.loc[step]):.3f} when H_t passed x{measures.ENTROPY_FACTOR:g} H_0 at step "
                    f"{int(step)} ({float(alpha.loc[step]) / eta:.0f} steps of eta {eta:g} from 0); peak H_t "
                    f"x{float(ratio.max()):.1f} H_0"
                )
        if not rows:
            return []
        return [
            "C3 runs whose entropy exploded (the `no_explosion_*` claims): "
            + "; ".join(rows)
            + ". eq. 11 lowers alpha_t by only eta per step once H_t is above H*, so the coefficient built up below "
            "the target keeps the bonus on for that many more steps while the entropy climbs."
        ]

    def _level_accuracy(self, run: str) -> np.ndarray:
        """Per seed: ``run``'s mean@n on the evaluation problems of the level(s) it trained on."""
        return self._level_values(run, ACCURACY)

    def _fig2_notes(self) -> list[str]:
        """Fig. 2(a, b)'s level-set runs: each coefficient's accuracy on its level per seed, and what the `healthy`
        gate (which reads the whole evaluation set and the run's own first batch) says of a run trained on one
        level: its numbers, so a misfire would show."""
        r = self.runs
        out = []
        for name, runs in (("easiest", r.fig2_easy), ("hardest", r.fig2_hard)):
            if len(runs) < 3:
                continue
            try:
                rows = [
                    f"coefficient {self.hparam_text(run, 'alpha_init')} "
                    f"{np.round(self._level_accuracy(run), 3).tolist()}"
                    for run in runs
                ]
                checks = {run: self._health_numbers(run) for run in runs}
            except NotTestable as reason:  # NotRun included: the runs are not trained yet
                out.append(f"Fig. 2 on the {name} level ({', '.join(runs)}): {reason}.")
                continue
            level = self._level_of(runs[0])
            passing = [run for run in runs if not checks[run]["failed"]]
            failing = [run for run in runs if checks[run]["failed"]]
            gate = (
                "the `healthy` gate (mean@n on the whole evaluation set not below the seed's base policy, rollout "
                "entropy never past x"
                f"{measures.ENTROPY_FACTOR:g} its first batch) passes every seed of "
                + ", ".join(
                    f"`{run}` (whole-set mean@n {checks[run]['acc'].min():.3f}-{checks[run]['acc'].max():.3f} against "
                    f"the base's {checks[run]['base'].min():.3f}-{checks[run]['base'].max():.3f}, entropy peak "
                    f"x{checks[run]['peak'].max():.2f})"
                    for run in passing
                )
                if passing
                else "the `healthy` gate passes no run"
            )
            fails = "; ".join(
                f"it fails `{run}` in {len(checks[run]['failed'])} of {len(checks[run]['acc'])} seeds (entropy peak "
                f"x{checks[run]['peak'].min():.2f}-x{checks[run]['peak'].max():.2f}, whole-set mean@n "
                f"{checks[run]['acc'].min():.3f}-{checks[run]['acc'].max():.3f})"
                for run in failing
            )
            out.append(
                f"Fig. 2 on the {name} testbed level ({level}), trained and evaluated there, mean@n on the level per "
                "seed: "
                + "; ".join(rows)
                + f". On these runs, each trained on one level, {gate}"
                + (f"; {fails}, an explosion its claims take as the evidence (they declare no gate)" if fails else "")
                + "."
            )
        return out

    def _health_numbers(self, run: str) -> dict:
        """Per seed of ``run``: the `healthy` gate's inputs (whole-set mean@n at the shared decoding, the base's,
        the entropy peak over the first batch) and the seeds it fails."""
        seeds = self.results.seeds_of(run)
        with self.results.at_decoding(None):
            acc = seed_values(self.results.eval_table(run, ACCURACY, seeds))
            base = seed_values(self.results.eval_table(BASE_RUN, ACCURACY, seeds))
        peak = self.results.per_seed(run, peak_entropy_ratio, seeds)
        failed = [s for s in seeds if self.results.gates.check("healthy", run, s)]
        return {"acc": acc, "base": base, "peak": peak, "failed": failed}

    def _idle_notes(self) -> list[str]:
        """Which AER runs never switched the bonus on (their ``active`` gate fails on a seed): those seeds are GRPO."""
        runs = list(dict.fromkeys([self.runs.aer, *self.runs.tau_sweep, *self.runs.rho_sweep]))
        idle = []
        for run in runs:
            try:
                self.results.seed_histories(run)  # a run not trained yet is no idle run (NotRun)
                failed = self.results.gates.failures([run], ("active",))
            except NotTestable:
                continue
            if failed:
                idle.append(f"`{run}` ({'; '.join(failed)})")
        if not idle:
            return ["Every AER run switched its entropy bonus on (alpha_t > 0 on at least 10% of rollout batches)."]
        return [
            f"{', '.join(idle)}: the target tau * H_0 was never binding, so alpha_t stayed at alpha_0 = 0 and the "
            "run is GRPO (eq. 11); its claims are METHOD FAILED (the `active` gate) and its rows in the sweeps are "
            "marked 'idle'. " + self._tau_between_note()
        ]

    def _grpo_lowest(self) -> np.ndarray:
        """GRPO's lowest rollout entropy / H_0 per seed (the floor a target must lie above to bind)."""
        return self.results.per_seed(self.runs.grpo, lambda h: rollouts(h, "entropy/mean").min() / initial_entropy(h))

    def _tau_between_note(self) -> str:
        lowest = self._grpo_lowest()
        default = self.hparam(self.runs.aer, "tau")
        return (
            f"A tau binds only above GRPO's lowest entropy, {lowest.min():.2f}-{lowest.max():.2f} H_0 over its "
            f"{len(lowest)} seeds: tau 0.3 (table 8's other under-reduction value) binds in "
            f"{int((lowest < 0.3).sum())} of {len(lowest)}, tau 0.35 in {int((lowest < 0.35).sum())} (the sweep's "
            f"runs between that floor and the default {default:g}: "
            f"{', '.join(f'`{run}`' for run in self._taus_between(lowest.min(), default)) or 'none'})."
        )

    def _taus_between(self, low: float, high: float) -> list[str]:
        return [run for run in self.runs.tau_sweep if low < self.hparam(run, "tau") < high]

    def _tau_run(self, value: float) -> str:
        """The tau sweep's run at ``value`` (NotRun naming the run to add while params.yaml has none)."""
        for run in self.runs.tau_sweep:
            if math.isclose(self.hparam(run, "tau"), value):
                return run
        name = f"aer_tau_{value:g}".replace(".", "_")
        raise NotRun(
            f"no AER run at tau {value:g} in papers.aer.runs.tau_sweep (`{name}`: {{method: aer, tau: {value:g}}})", 3
        )

    def _controller_notes(self) -> list[str]:
        """alpha_t's activity per seed of the AER run, and its undershoot below the target: measured, not assumed."""
        run = self.runs.aer
        try:
            histories = self.results.seed_histories(run)
        except NotTestable:
            return []
        rows, under = [], 0
        tau = self.hparam(run, "tau")
        for seed, h in zip(self.results.seeds_of(run), histories, strict=True):
            alpha = rollouts(h, "aer/alpha")
            on = alpha[alpha > 0]
            first = int(on.index[0]) if len(on) else None
            lowest = float(rollouts(h, "entropy/mean").min()) / initial_entropy(h)
            under += lowest < tau - ENTROPY_MARGIN
            rows.append(
                f"seed {seed}: alpha_t > 0 from step {first} on {len(on)} of {len(alpha)} rollout batches, peak "
                f"{float(alpha.max()):.3f}, last {float(alpha.to_numpy()[-1]):.3f}, lowest H_t {lowest:.2f} H_0"
            )
        return [
            f"`{run}` is plain GRPO until its entropy first reaches H* = {tau:g} H_0 (alpha_0 = 0): "
            + "; ".join(rows)
            + f". {under} of {len(rows)} seeds undershoot the target by more than {ENTROPY_MARGIN:g} H_0 before "
            "alpha_t turns the entropy back: the post-crossing mean of `entropy_at_target` averages over the "
            "undershoot, whose lowest values are shown beside it. The target binds at all because GRPO's entropy "
            f"falls below it within the budget (2 layers, {self.params.runs[self.runs.grpo].train.max_steps} steps; "
            f"docs/testbed.md): {self.runs.grpo}'s entropy over {TAIL_LABEL} is "
            f"{np.round(self._grpo_end(), 2).tolist()} H_0 per seed, against the target {tau:g} H_0."
        ]

    def _grpo_end(self) -> np.ndarray:
        """GRPO's rollout entropy over the last rollout batches / its first batch, per seed."""
        return self.results.per_seed(self.runs.grpo, lambda h: end_mean(h, "entropy/mean") / initial_entropy(h))

    def _protocol_notes(self) -> list[str]:
        return [
            "The paper reports each method at the checkpoint with the highest AIME2025 pass@1, validated every 20 "
            "steps (App. A.2): the checkpoint is chosen on a test benchmark, which favours every AIME2025 number of "
            "tables 1 and 7 and k50 on AIME2025 (the maximum of about 30 noisy evaluations). The testbed reports the "
            "final model of every run, chosen on nothing.",
            "eta: the paper gives eta = 0.005 per iteration (table 3) over 30 epochs of DeepScaleR; `aer_eta_scaled` "
            f"(eta {self.hparam(self.runs.sensitivity[0], 'eta'):g}) scaled it by App. C's 'fewer than 500 steps', "
            "which caps only the supplementary 30B / Llama runs, so its basis is a misreading; it is kept as a "
            "declared alternative of eq. 11's step size (params.yaml `papers.aer.alternatives`), a x"
            f"{self.hparam(self.runs.sensitivity[0], 'eta') / self.hparam(self.runs.aer, 'eta'):.1f} step, and "
            "every verdict that reads `aer` says whether it hinges on it. alpha_t is updated after every optimizer "
            "step (2 per rollout batch, from the same H_t), twice per iteration of the paper's workflow.",
        ]

    # ------------------------------------------------------------------ claims
    # Margins, fixed from the paper's text before any result:
    # - ACCURACY_MARGIN 0.01 (1 point of a [0, 1] accuracy or pass@k): the smallest gap the paper itself calls a gain
    #   ("+1.0% over the best baseline", sec. 5.2); its tables report 0.1 points, its gaps run 0.4 to 10 points.
    # - ENTROPY_MARGIN 0.05 of the first step's entropy (entropy retained, H_t against H*): H* = 0.4 H_0, so 0.05 H_0
    #   is 12.5% of the target, finer than "near" / "moderate" can mean and coarser than step-to-step noise.
    # - LOG2_K50_MARGIN 0.5: k50 lives on the powers of two, so any real difference is at least one doubling (1.0);
    #   half of it separates a doubling from none.
    # - LENGTH_MARGIN 1 token of the 64-token budget ("shorter", no number in the paper); every length claim reads a
    #   measure the task's answer format fixes (measures.FIXED_LENGTH), so the framework makes it not testable here.
    # - LOG_ENTROPY_MARGIN 0.118 on log entropy retained: ENTROPY_MARGIN at AER's target level, converted.
    # - explosion / stability: the divergence limit x measures.ENTROPY_FACTOR, judged per seed on the peak.
    # - a margin is capped at the paper's own effect wherever paper_effect is given (claims.capped_margin).
    def declare_claims(self) -> None:
        r = self.runs
        self._preliminary_claims()
        self._controller_claims()
        self._table1_claims()
        self._pass_at_k_claims()
        self._dynamics_claims()
        self._component_claims()
        self._sweep_claims()
        self.claim(
            key="generalization_dapo_math",
            quote="AER achieves faster early gains and maintains a clear, persistent margin over *Clip-Higher* "
            "throughout "
            "training, while converging to a higher (or comparable) asymptote than *GRPO*",
            source="sec. 5.3, fig. 4(c, d)",
            paper_value="test-score curves on DAPO_MATH_17K, Qwen3-8B-Base and Qwen2.5-7B-Base (no numbers)",
            ours=f"test score over training steps of {r.aer} against {r.clip_higher} and {r.grpo} on a second "
            "training set",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable(
                "benchmark / not logged: a second training set (DAPO_MATH_17K) and a second backbone, with the test "
                "score evaluated during training; the testbed has one training set and evaluates the final model"
            ),
        )
        self.claim(
            key="scale_30b",
            quote="AER consistently outperforms all baselines across the evaluated benchmarks",
            source="App. C.1, table 5",
            paper_value="Qwen3-30B-A3B: AIME24 pass@32 61.6 vs 54.2 (Base), 52.5 (GRPO)",
            ours=f"{r.aer} minus each baseline on a 30B model",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable("scale: a Qwen3-30B-A3B result; the testbed has one 0.56M-parameter model"),
        )
        self.claim(
            key="architecture_llama",
            quote="as shown in the bottom section of Table 5, AER still yields consistent relative gains",
            source="App. C.2, table 5",
            paper_value="Llama-3.1-8B-Base: MATH500 pass@8 32.9 vs 27.6 (GRPO), 28.8 (Clip-Higher); by table 5 "
            "itself AMC23 "
            "mean@8 is 2.8 for Base, GRPO and AER alike (a tie, not a gain)",
            ours=f"{r.aer} minus each baseline on a Llama backbone",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable("scale / architecture: a Llama-3.1-8B result; the testbed has one model"),
        )

    def _preliminary_claims(self) -> None:
        r = self.runs
        small, large = r.fixed_coeff_grid[0], r.fixed_coeff_grid[-1]
        below = r.fixed_coeff_grid[-2] if len(r.fixed_coeff_grid) > 1 else r.grpo
        # fig. 2(a, b): the fixed coefficient 0 / 0.01 / 0.1 trained on one level (papers.aer.runs.fig2_easy /
        # fig2_hard, in this order) and evaluated on the problems of that level. "Increasing the coefficient" is read
        # from 0 to 0.01 (per seed, the difference at the two coefficients the paper does not call overly large);
        # 0.01 to 0.1 is the "overly large" sentence's (fig2_large_coefficient).
        easy0, easy_mid = (r.fig2_easy + [FIG2_NONE] * 2)[:2]  # a reduced protocol (rlvr_lib.smoke) may have none
        hard0, hard_mid = (r.fig2_hard + [FIG2_NONE] * 2)[:2]
        hard = self.conjunction(
            key="fig2_hard_set",
            quote="increasing the entropy coefficient improves test accuracy on the harder dataset, accompanied by a "
            "longer "
            "average token length",
            source="sec. 3, fig. 2(b)",
            paper_value="fig. 2(b), Qwen3-4B-Base on AIME + AMC (no numbers)",
            ours=f"accuracy and length at coefficient {self._coefficient_text(hard_mid)} minus "
            f"{self._coefficient_text(hard0)}, trained and evaluated on the hardest testbed level "
            f"({self._level_of(hard0)})",
        )
        self.claim(
            key="fig2_hard_accuracy",
            quote="increasing the entropy coefficient improves test accuracy on the harder dataset",
            source="sec. 3, fig. 2(b)",
            paper_value="rising (no numbers)",
            ours=f"mean@n on level {self._level_of(hard0)} of {hard_mid} minus {hard0} (fixed coefficient "
            f"{self._coefficient_text(hard_mid)} vs {self._coefficient_text(hard0)}, both trained on "
            "that level only), per seed",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: self._on_level(hard_mid, hard0, ACCURACY),
            null=None,  # the claim is about the coefficient, not about AER
            requires=("healthy",),  # coefficient 0 is GRPO: no `active` gate
            part_of=hard,
        )
        self.claim(
            key="fig2_hard_length",
            quote="accompanied by a longer average token length",
            source="sec. 3, fig. 2(b)",
            paper_value="rising (no numbers)",
            ours=f"eval response length (tokens) on level {self._level_of(hard0)} of {hard_mid} minus {hard0}, per "
            "seed",
            direction="greater",
            margin=LENGTH_MARGIN,
            compute=lambda: self._on_level(hard_mid, hard0, "response_length"),
            measure="response_length",
            null=None,
            requires=("healthy",),
            part_of=hard,
        )
        self.claim(
            key="fig2_easy_set",
            quote="on the easier dataset, stronger entropy ... regularization leads to a decline in accuracy",
            source="sec. 3, fig. 2(a)",
            paper_value="fig. 2(a), Qwen3-4B-Base on GSM8K (no numbers)",
            ours=f"mean@n on level {self._level_of(easy0)} of {easy_mid} minus {easy0} (fixed coefficient "
            f"{self._coefficient_text(easy_mid)} vs {self._coefficient_text(easy0)}, both trained on "
            "that level only), per seed",
            direction="less",
            margin=ACCURACY_MARGIN,
            compute=lambda: self._on_level(easy_mid, easy0, ACCURACY),
            null=None,
            requires=("healthy",),
        )
        # The coefficient-0.1 run is the evidence (its collapse is what the paper reports): no health gate.
        big = self.conjunction(
            key="fig2_large_coefficient",
            quote="when the coefficient is set to an overly large value (i.e., 0.1), both datasets showed a sudden "
            "drop in "
            "accuracy accompanied by a sharp increase in the average token length",
            source="sec. 3, fig. 2(a, b)",
            paper_value="fig. 2(a, b) at coefficient 0.1 (no numbers)",
            ours=f"{large} (fixed coefficient {self.hparam_text(large, 'alpha_init')}) against {below} "
            f"({self.hparam_text(below, 'alpha_init')}) on the full training set, and the same pair trained and "
            "evaluated on the easiest and on the hardest level (fig. 2's two datasets)",
        )
        self.claim(
            key="fig2_large_accuracy",
            quote="both datasets showed a sudden drop in accuracy",
            source="sec. 3, fig. 2(a, b)",
            paper_value="drop (no numbers)",
            ours=f"mean@n of {large} minus {below}",
            direction="less",
            margin=ACCURACY_MARGIN,
            compute=lambda: self.compare(large, below, ACCURACY, ("method.alpha_init",)),
            requires=(),
            part_of=big,
        )
        for name, runs in (("easy", r.fig2_easy), ("hard", r.fig2_hard)):
            if len(runs) < 3:
                continue
            mid, top = runs[1], runs[2]
            self.claim(
                key=f"fig2_large_accuracy_{name}",
                quote="both datasets showed a sudden drop in accuracy",
                source="sec. 3, fig. 2(a, b)",
                paper_value="drop (no numbers)",
                ours=f"mean@n on level {self._level_of(top)} of {top} minus {mid} (fixed coefficient "
                f"{self.hparam_text(top, 'alpha_init')} vs {self.hparam_text(mid, 'alpha_init')}, trained on that "
                "level only), per seed",
                direction="less",
                margin=ACCURACY_MARGIN,
                compute=lambda top=top, mid=mid: self._on_level(top, mid, ACCURACY),
                null=None,
                requires=(),  # the collapse is the evidence
                part_of=big,
            )
            self.claim(
                key=f"fig2_large_length_{name}",
                quote="accompanied by a sharp increase in the average token length",
                source="sec. 3, fig. 2(a, b)",
                paper_value="increase (no numbers)",
                ours=f"eval response length (tokens) on level {self._level_of(top)} of {top} minus {mid} (fixed "
                f"coefficient {self.hparam_text(top, 'alpha_init')} vs {self.hparam_text(mid, 'alpha_init')}, "
                "trained on that level only), per seed",
                direction="greater",
                margin=LENGTH_MARGIN,
                compute=lambda top=top, mid=mid: self._on_level(top, mid, "response_length"),
                measure="response_length",
                null=None,
                requires=(),  # the explosion is the evidence
                part_of=big,
            )
        self.claim(
            key="fig2_large_length",
            quote="accompanied by a sharp increase in the average token length",
            source="sec. 3, fig. 2(a, b)",
            paper_value="increase (no numbers)",
            ours=f"eval response length (tokens) of {large} minus {below}",
            direction="greater",
            margin=LENGTH_MARGIN,
            compute=lambda: self.compare(large, below, "response_length", ("method.alpha_init",)),
            measure="response_length",
            requires=(),
            part_of=big,
        )
        intro = self.conjunction(
            key="coefficient_sensitivity",
            quote="Small coefficients cannot prevent entropy collapse, whereas excessively large coefficients may "
            "induce entropy explosion",
            source="sec. 1",
            paper_value="no numbers (cites Cui et al. 2025b, Jiang et al. 2025b)",
            ours=f"the fixed-coefficient runs: {small} retains no more entropy than {r.grpo}; {large}'s entropy "
            "explodes",
        )
        self.claim(
            key="small_coefficient_collapses",
            quote="Small coefficients cannot prevent entropy collapse",
            source="sec. 1",
            paper_value="no number",
            ours=f"log entropy retained ({TAIL_LABEL} / first batch) of {small} (coefficient "
            f"{self.hparam_text(small, 'alpha_init')}) minus {r.grpo}'s, per seed: no material difference (the small "
            "coefficient collapses as GRPO does)",
            direction="equal",
            margin=LOG_ENTROPY_MARGIN,
            compute=lambda: self.results.compare_history(small, r.grpo, log_entropy_retained),
            measure="log_entropy_retained",
            null=None,  # the claim is that the small coefficient is no better than GRPO: GRPO is its reference
            requires=("healthy",),
            part_of=intro,
        )
        self.claim(
            key="large_coefficient_explodes",
            quote="excessively large coefficients may induce entropy explosion",
            source="sec. 1",
            paper_value="no number",
            ours=f"largest rollout entropy / first batch of {large} (coefficient "
            f"{self.hparam_text(large, 'alpha_init')}), per seed, against the divergence limit "
            f"x{measures.ENTROPY_FACTOR:g} (a sign per seed: the same on the log scale)",
            direction="greater",
            margin=0.0,
            compute=lambda: self._per_seed(large, peak_entropy_ratio),
            reference=measures.ENTROPY_FACTOR,
            measure="log_peak_entropy_ratio",
            requires=(),  # the explosion is the evidence
            universal=True,
            part_of=intro,
        )
        self.claim(
            key="grpo_entropy_monotone",
            quote="policy entropy decreases monotonically without any entropy intervention",
            source="sec. 3",
            paper_value="no number (cites Cui et al. 2025b)",
            ours=f"{r.grpo}: the largest rise of the mean rollout entropy from one fifth of training to the next, "
            "/ the first batch's, per seed (monotone: every fifth below the one before; the budget was calibrated "
            "for GRPO's end level, not for this shape)",
            direction="less",
            margin=0.0,
            compute=lambda: self._per_seed(r.grpo, largest_rise_between_fifths),
            universal=True,
        )
        factors = self.conjunction(
            key="fig2c_initial_entropy",
            quote="different base models, datasets, and sampling temperatures will significantly affect the value of "
            "the "
            "initial entropy",
            source="sec. 3, fig. 2(c)",
            paper_value="fig. 2(c) (no numbers)",
            ours="first-batch rollout entropy H_0, per factor, from runs that differ in it (a factor of "
            f"{measures.ENTROPY_FACTOR:g} either way is 'significant', the project's band of a stable entropy)",
        )
        self.claim(
            key="initial_entropy_temperature",
            quote="sampling temperatures",
            source="sec. 3, fig. 2(c)",
            paper_value="no number",
            ours=f"H_0 of {r.temperature_grpo} (T {self._temperature(r.temperature_grpo):g}) / H_0 of {r.grpo} "
            f"(T {self._temperature(r.grpo):g}), same base policy and data, per seed",
            direction="less",
            margin=1 - 1 / measures.ENTROPY_FACTOR,
            compute=lambda: self._initial_entropy_ratio(r.temperature_grpo, r.grpo),
            reference=1.0,
            null=None,
            requires=(),  # H_0 is measured before the first update: the run's health after it is irrelevant
            part_of=factors,
        )
        # A harder training set: the base policy is less sure of its answers there (the premise of C1), so H_0 up.
        self.claim(
            key="initial_entropy_dataset",
            quote="datasets",
            source="sec. 3, fig. 2(c)",
            paper_value="no number",
            ours=f"H_0 of {r.data_grpo} (the ERPO training set: the upper two testbed levels) / H_0 of {r.grpo} "
            "(the full set), same base policy and temperature, per seed",
            direction="greater",
            margin=measures.ENTROPY_FACTOR - 1,
            compute=lambda: self._initial_entropy_ratio(r.data_grpo, r.grpo),
            reference=1.0,
            null=None,
            requires=(),
            part_of=factors,
        )
        self.claim(
            key="initial_entropy_base_model",
            quote="different base models",
            source="sec. 3, fig. 2(c)",
            paper_value="no number",
            ours="H_0 across base models",
            direction="greater",
            margin=measures.ENTROPY_FACTOR - 1,
            compute=self._base_model_entropy,
            null=None,
            requires=(),
            part_of=factors,
        )

    def _not_run(self, reason: str, cost: int):
        raise NotRun(reason, cost)

    def _coefficient_text(self, run: str) -> str:
        return "?" if run == FIG2_NONE else self.hparam_text(run, "alpha_init")

    def _level_of(self, run: str) -> str:
        """The testbed level(s) ``run`` trains on (its ``train_data`` set's levels), as text."""
        if run == FIG2_NONE:
            return "?"
        levels = self._levels(run)
        return ", ".join(str(v) for v in levels) if levels else "all levels"

    def _levels(self, run: str) -> list[int]:
        if run == FIG2_NONE:
            raise NotRun("papers.aer.runs.fig2_easy / fig2_hard name no runs here (a reduced protocol)", 18)
        spec = self.params.runs[run]  # a levels-only set (params.yaml level_sets) or a filter_data set with levels
        cfg = getattr(self.params.level_sets, spec.train_data, None) or getattr(
            self.params.data_filters, spec.train_data, None
        )
        return list(getattr(cfg, "levels", []) or [])

    def _on_level(self, a: str, b: str, metric: str) -> Estimate:
        """Per seed: ``metric`` of run ``a`` minus run ``b`` on the evaluation problems of the level(s) both trained
        on (levels from the uids, 'L<level>-...'); the two runs differ in the fixed coefficient only."""
        levels = self._levels(a)
        if not levels or levels != self._levels(b):
            raise ValueError(f"runs '{a}' and '{b}' must train on one level set (train_data), got {levels}")
        self.results.check(a, b, ("method.alpha_init",))
        uids = self.results.uids(a)
        if uids != self.results.uids(b):
            raise ValueError(f"runs '{a}' and '{b}' were evaluated on different problems")
        on = np.asarray([problem_level(uid) in levels for uid in uids])
        if not on.any():
            raise NotTestable(f"no evaluation problem at level(s) {levels} (testbed uids 'L<level>-...')")
        seeds = self.results.common_seeds(a, b)
        va = self.results.eval_table(a, metric, seeds)[:, on].mean(axis=1)
        vb = self.results.eval_table(b, metric, seeds)[:, on].mean(axis=1)
        return estimate_of(
            va - vb,
            detail=f"{metric} on the {int(on.sum())} evaluation problems at level(s) {levels}: {a} "
            f"{np.round(va, 3).tolist()} vs {b} {np.round(vb, 3).tolist()} (per seed)",
            seeds=seeds,
        )

    def _per_seed(self, run: str, fn) -> Estimate:
        """A per-seed history quantity of one run, with its seeds named (universal claims name the seed refuting)."""
        seeds = self.results.seeds_of(run)
        values = self.results.per_seed(run, fn, seeds)
        return estimate_of(
            values,
            detail=f"{self.results.label(run)}: per seed {np.round(values, 3).tolist()}",
            seeds=seeds,
        )

    def _temperature(self, run: str) -> float:
        return float(self.params.runs[run].train.temperature)

    def _initial_entropy_ratio(self, a: str, b: str) -> Estimate:
        """Per seed: the first rollout batch's entropy of ``a`` / of ``b`` (both from the seed's base policy)."""
        seeds = self.results.common_seeds(a, b)
        ha = self.results.per_seed(a, initial_entropy, seeds)
        hb = self.results.per_seed(b, initial_entropy, seeds)
        return estimate_of(
            ha / hb,
            detail=f"H_0 {a} {np.round(ha, 3).tolist()} vs {b} {np.round(hb, 3).tolist()} (nats, per seed)",
            seeds=seeds,
        )

    def _base_model_entropy(self) -> Estimate:
        h0 = self.results.per_seed(self.runs.grpo, initial_entropy)
        raise NotTestable(
            f"the testbed's base policies are {len(h0)} SFT seeds of one architecture on one data set, not different "
            f"base models; their H_0 (first batch of {self.runs.grpo}) spans {h0.min():.3f}-{h0.max():.3f} nats "
            f"(x{h0.max() / h0.min():.2f}), with no second draw of a seed's first batch to set it against (every run "
            "of a seed at one temperature draws the same first batch)"
        )

    def _c3_runs(self) -> list[str]:
        """The runs whose global coefficient follows eq. 11 (C3 on)."""
        r = self.runs
        runs = [r.aer, r.c2_c3, *r.tau_sweep, *r.rho_sweep]
        return [run for run in dict.fromkeys(runs) if self.hparam(run, "adaptive_alpha")]

    def _controller_claims(self) -> None:
        whole = self.conjunction(
            key="c3_prevents_collapse_and_explosion",
            quote="This dynamic global coefficient adjustment prevents both *entropy collapse* and *entropy explosion*",
            source="sec. 4.2 (C3, eq. 11), tables 8-9",
            paper_value="no numbers; table 8 runs tau up to 1.2 without a word of explosion",
            ours="every run with C3 on (AER and its tau / rho / C2&C3 variants), per seed: after its entropy first "
            "reaches the target, no collapse more than "
            f"{ENTROPY_MARGIN:g} H_0 below it, and no peak past x{measures.ENTROPY_FACTOR:g} of the first batch "
            "(together a two-sided band); GRPO is judged in each run's place",
        )
        for run in self._c3_runs():
            tau = self.hparam(run, "tau")
            self.claim(
                key=f"no_collapse_{run}",
                quote="prevents both *entropy collapse*",
                source="sec. 4.2 (C3)",
                paper_value="H_t kept at H* = tau H_0",
                ours=f"(H_t - H*) / H_0 of {run} (tau {tau:g}), mean over the rollout batches after H_t first "
                f"reaches H*, per seed; collapse: more than {ENTROPY_MARGIN:g} H_0 below the target",
                direction="greater",
                margin=0.0,
                compute=lambda run=run: self._per_seed(run, self._gap_after_crossing(tau_of=run)),
                reference=-ENTROPY_MARGIN,
                universal=True,
                part_of=whole,
            )
            self.claim(
                key=f"no_explosion_{run}",
                quote="and *entropy explosion*",
                source="sec. 4.2 (C3)",
                paper_value="no explosion",
                ours=f"largest rollout entropy / first batch of {run} (tau {tau:g}), per seed, against the "
                f"divergence limit x{measures.ENTROPY_FACTOR:g} (the peak, not the end: a transient explosion "
                "counts; a sign per seed, the same on the log scale)",
                direction="less",
                margin=0.0,
                compute=lambda run=run: self._per_seed(run, peak_entropy_ratio),
                reference=measures.ENTROPY_FACTOR,
                measure="log_peak_entropy_ratio",
                requires=("active",),  # an exploded seed is the evidence; an idle controller is no test of C3
                universal=True,
                part_of=whole,
            )

    def _run_mark(self, run: str) -> str:
        """'idle' (alpha_t never on in a seed: the `active` gate) and/or 'diverged' (the `healthy` gate)."""
        marks = []
        if self.results.gates.failures([run], ("active",)):
            marks.append("idle")
        if self.results.divergence(run):
            marks.append("diverged")
        return ", ".join(marks)

    def _add_seed_columns(self, raw: pd.DataFrame, shown: pd.DataFrame) -> None:
        """Each row's seed count, and AER minus the row over the seeds both share (the paired value the claims
        test: an unpaired mean over other seeds is not it)."""
        aer = self.runs.aer
        seeds, paired, paired_raw = [], [], []
        for run in raw["run"]:
            seeds.append(len(self.results.seeds_of(run)))
            trained = not raw.loc[raw["run"] == run, "mark"].eq("not run").any() if "mark" in raw else True
            if run in (aer, BASE_RUN) or run not in self.results.runs or not trained:
                paired.append(MISSING)
                paired_raw.append(math.nan)
                continue
            common = self.results.common_seeds(aer, run)
            d = seed_values(self.results.eval_table(aer, ACCURACY, common)) - seed_values(
                self.results.eval_table(run, ACCURACY, common)
            )
            mean, low, high, _ = t_interval(d)
            paired.append(f"{fmt_ci(mean, low, high)} ({len(common)} seeds)")
            paired_raw.append(mean)
        raw["seeds"] = seeds
        raw["aer_minus_row_paired"] = paired_raw
        shown["seeds"] = [str(n) for n in seeds]
        shown["AER - row (paired)"] = paired

    def _baseline_label(self, run: str) -> str:
        return "GRPO" if run == self.runs.grpo else BASELINE_LABELS.get(self.params.runs[run].method, run)

    def _differs_in(self, baseline: str) -> tuple[str, ...]:
        """What AER and ``baseline`` may differ in: the method, and the clip range where the baseline's method is
        its clip range (Clip-Higher's eps_high 0.28, Clip-Cov's 1.0 / 1.0: aer.txt App. A.2)."""
        return METHOD_CLIP.get(self.params.runs[baseline].method, (METHOD,))

    def _table1_claims(self) -> None:
        r = self.runs
        whole = self.conjunction(
            key="table1_vs_baselines",
            quote="**AER** generally achieves higher performance (*pass@1*) and ... stronger exploration capability "
            "($pass@32$) than the baselines",
            source="sec. 5.2, table 1",
            paper_value="Qwen3-8B Avg. pass@1 / pass@32: AER 55.4 / 76.0; "
            + ", ".join(f"{label} {value}" for label, value in PAPER_TABLE1_8B.items() if label != "w/ AER"),
            ours=f"AER's mean@n and pass@K minus each baseline's ({', '.join([r.grpo, *r.baselines])})",
        )
        for baseline in [r.grpo, *r.baselines]:
            label = self._baseline_label(baseline)
            pass1, pass32 = PAPER_AVG_8B.get(label, (math.nan, math.nan))
            aer1, aer32 = PAPER_AVG_8B["w/ AER"]
            self.claim(
                key=f"pass1_vs_{baseline}",
                quote="higher performance (*pass@1*)",
                source="sec. 5.2, table 1",
                paper_value=f"Avg. pass@1 {aer1} vs {pass1} ({label}, Qwen3-8B)",
                ours=f"mean@n (= pass@1) of {r.aer} minus {baseline}",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda b=baseline: self.compare(r.aer, b, ACCURACY, self._differs_in(b)),
                paper_effect=round((aer1 - pass1) / 100, 4),
                part_of=whole,
            )
            self.claim(
                key=f"passk_vs_{baseline}",
                quote="stronger exploration capability ($pass@32$)",
                source="sec. 5.2, table 1",
                paper_value=f"Avg. pass@32 {aer32} vs {pass32} ({label}, Qwen3-8B)",
                ours=f"pass@K (K: the largest power of two <= the eval's n; the paper's 32) of {r.aer} minus "
                f"{baseline}",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda b=baseline: self.compare(r.aer, b, f"pass@{self.largest_k()}", self._differs_in(b)),
                paper_effect=round((aer32 - pass32) / 100, 4),
                part_of=whole,
            )
        self.claim(
            key="table1_4b_gains",
            quote="For the Qwen3-4B-Base model, AER yields an average **+7.2%** improvement in $pass@1$ over vanilla "
            "GRPO "
            "and **+1.0%** over the best baseline (Clip-Cov). In terms of exploration, AER improves the average "
            "$pass@32$ by **+8.5%** compared to vanilla GRPO and **+1.9%** compared to Clip-Cov",
            source="sec. 5.2, table 1",
            paper_value="Qwen3-4B Avg.: pass@1 51.1 vs 43.9 / 50.1, pass@32 72.5 vs 64.0 / 70.6 (the deltas match "
            "table 1)",
            ours="sizes of Qwen3-4B-Base's benchmark averages",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable(
                "scale: sizes on Qwen3-4B-Base's four benchmark averages; the testbed has one model"
            ),
        )
        self.claim(
            key="table1_8b_highest",
            quote="A similar trend is observed for the Qwen3-8B-Base model, where AER reaches the highest average "
            "scores—**55.4%** on $pass@1$ and **76.0%** on $pass@32$",
            source="sec. 5.2, table 1",
            paper_value="Qwen3-8B Avg. 55.4 / 76.0, the highest of table 1",
            ours="sizes of Qwen3-8B-Base's benchmark averages",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable(
                "scale: Qwen3-8B-Base's benchmark averages; the testbed's one model is tested against every baseline "
                "in table1_vs_baselines"
            ),
        )
        self.claim(
            key="gains_on_harder",
            quote="The gains are more noticeable on challenging benchmarks such as AIME24 and AIME25",
            source="sec. 5.2, table 1",
            paper_value="Qwen3-8B pass@1 gain over GRPO: AIME24 +10.9, AIME25 +6.6 vs AMC23 +12.8, MATH500 +7.4",
            ours=f"(mean@n gain of {r.aer} over {r.grpo} on the hardest testbed level) minus (the gain on the "
            "easiest), "
            "per seed",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: self._gain_by_level(r.aer, r.grpo),
        )

    def _pass_at_k_claims(self) -> None:
        r = self.runs
        p = self.settings.pass_at_k
        others = [(r.base, "Base"), (r.grpo, "GRPO"), (r.clip_higher, "w/Clip-Higher")]
        whole = self.conjunction(
            key="passk_all_k",
            quote="AER consistently achieves higher pass@ k performance across all k",
            source="sec. 5.2, fig. 3(a, d), tables 6-7",
            paper_value="AIME24 k = 1 .. 256: AER above Base, GRPO and Clip-Higher at every k (72.4 vs 64.3, 63.7, "
            "69.5 at 256)",
            ours=f"per opponent: the smallest over k = 1 .. {p.n} of AER's pass@k minus the opponent's ({p.n} "
            "samples on "
            f"{p.max_problems or 'all'} problems; a k where both arms are saturated is left out)",
        )
        for other, label in others:
            paper_gap = min_gap(PAPER_PASS_AT_K_AIME24["w/AER"], PAPER_PASS_AT_K_AIME24[label])
            self.claim(
                key=f"passk_all_k_vs_{other}",
                quote="higher pass@ k performance across all k",
                source="sec. 5.2, tables 6-7",
                paper_value=f"AIME24 smallest gap over k: {paper_gap:.1f} points (vs {label})",
                ours=f"min over k of pass@k of {r.aer} minus {other}, per seed",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda o=other: self._min_gap_over_k(r.aer, o),
                paper_effect=_points(paper_gap),
                part_of=whole,
            )
        self.claim(
            key="passk_aime25_widening",
            quote="The advantage becomes more pronounced as k increases on the AIME25 dataset, where AER maintains a "
            "clear "
            "margin over baselines throughout the curve",
            source="sec. 5.2, fig. 3(d), table 7",
            paper_value="AIME25 AER - GRPO: +6.6 at k = 1, +15.7 at k = 256 (on AIME24 it narrows: +10.9 to +8.7)",
            ours="the gap's growth in k on a second, harder benchmark",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable(
                "benchmark: a statement about AIME25 alone (the paper's AIME24 curve narrows); the testbed has one "
                "held-out set, tested against every k in passk_all_k"
            ),
        )
        k = min(32, p.n)
        small = self.conjunction(
            key="passk_32",
            quote="At $k=32$, *w/AER* attains 63.2% on AIME2024 and 48.9% on AIME2025, improving over *Base* (48.0%, "
            "35.5%) "
            "by +15.2/+13.4 points and over *GRPO* (47.0%, 34.3%) by +16.2/+14.6 points; it also surpasses "
            "*w/Clip-Higher* (61.5%, 46.9%) by +1.7/+2.0 points",
            source="App. C.3 (1)",
            paper_value="AIME24 / AIME25 gains at k = 32 (the deltas match tables 6-7)",
            ours=f"pass@{k} of AER minus Base, GRPO and Clip-Higher",
        )
        # The stated sizes are points of AIME for Qwen3-8B, whose range the testbed's set does not share: they are
        # shown as the paper's effect beside the verdict, and the direction is tested with the accuracy margin.
        for other, label, effect, words in (
            (r.base, "Base", 0.152, "improving over *Base*"),
            (r.grpo, "GRPO", 0.162, "and over *GRPO*"),
            (r.clip_higher, "w/Clip-Higher", 0.017, "it also surpasses *w/Clip-Higher*"),
        ):
            self.claim(
                key=f"passk_32_vs_{other}",
                quote=words,
                source="App. C.3 (1)",
                paper_value=f"AIME24 +{effect * 100:.1f} points ({label})",
                ours=f"pass@{k} ({p.n} samples) of {r.aer} minus {other}",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda o=other: self._large_k_difference(r.aer, o, k),
                paper_effect=effect,
                part_of=small,
            )
        self.claim(
            key="headroom_vs_clip_higher",
            quote="The gain from $k=32$ to $k=256$ for *w/AER* is +9.2 points on AIME2024 (63.2→72.4) and +13.9 on "
            "AIME2025 "
            "(48.9→62.8), exceeding *w/Clip-Higher* on both splits (+8.0, +7.7)",
            source="App. C.3 (2)",
            paper_value="AIME24 +9.2 vs +8.0, AIME25 +13.9 vs +7.7",
            ours=f"(pass@{p.n} - pass@{k}) of {r.aer} minus that of {r.clip_higher}, per seed",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: self._headroom_difference(r.aer, r.clip_higher, k, p.n),
            paper_effect=0.012,
        )
        quote_k50 = "On AIME2024, k_{50} is 8 for *w/AER*, 16 for *w/Clip-Higher*, and 64 for both *Base* and *GRPO*"
        opponents = (
            (r.clip_higher, "w/Clip-Higher", -1.0),
            (r.base, "Base", -3.0),
            (r.grpo, "GRPO", -3.0),
        )
        for suffix, threshold, how in (
            ("", lambda: self.settings.k50_threshold, f"the paper's {self.settings.k50_threshold:g}"),
            (
                "_mapped",
                self.mapped_k50_threshold,
                f"mapped like the paper's: {PAPER_K50_POSITION:.3f} of the way from the base's pass@1 to its "
                "pass@n (the paper's 50% between 11.5 and 64.3 on AIME24), a second measure declared before any "
                "testbed k50",
            ),
        ):
            k50 = self.conjunction(
                key=f"k50_aime24{suffix}",
                quote=quote_k50,
                source="App. C.3 (3)",
                paper_value="k50: 8 (AER), 16 (Clip-Higher), 64 (Base, GRPO)",
                ours=f"log2 k50 of AER minus each opponent's (k50 = smallest k with pass@k >= the threshold, {how}; "
                "not reached: log2(2n))",
            )
            for other, label, effect in opponents:
                self.claim(
                    key=f"k50{suffix}_vs_{other}",
                    quote="16 for *w/Clip-Higher*" if label == "w/Clip-Higher" else "64 for both *Base* and *GRPO*",
                    source="App. C.3 (3)",
                    paper_value=f"log2 k50: 3 (AER) vs {3 - effect:g} ({label})",
                    ours=f"log2 k50 of {r.aer} minus {other}, per seed (threshold {how.split(':')[0]})",
                    direction="less",
                    margin=LOG2_K50_MARGIN,
                    compute=lambda o=other, t=threshold: self._k50_difference(r.aer, o, t()),
                    paper_effect=effect,
                    measure="log2_k50",
                    part_of=k50,
                )
        self.claim(
            key="k50_aime25",
            quote="On AIME2025, k_{50} is 64 for *w/AER*, 128 for *w/Clip-Higher*, 256 for *Base*, while *GRPO* does "
            "not "
            "reach 50% by $k=256$",
            source="App. C.3 (3)",
            paper_value="k50: 64 (AER), 128 (Clip-Higher), 256 (Base), > 256 (GRPO)",
            ours="log2 k50 on a second, harder benchmark",
            direction="less",
            margin=LOG2_K50_MARGIN,
            compute=lambda: unavailable("benchmark: AIME2025; the testbed's one held-out set is tested in k50_aime24"),
        )

    def fig3_runs(self) -> list[str]:
        """Fig. 3's curves, one reading for its panels (b), (c) and (e) alike: vanilla GRPO and "the baseline"
        (singular, set against vanilla GRPO in (c)), the other curve of fig. 3 and tables 6-7: Clip-Higher."""
        return [self.runs.grpo, self.runs.clip_higher]

    def _dynamics_claims(self) -> None:
        r = self.runs
        reward = self.conjunction(
            key="reward_higher",
            quote="the training reward of AER reaches a higher level than the baselines",
            source="sec. 5.2, fig. 3(b)",
            paper_value="fig. 3(b) (no numbers)",
            ours=f"training reward over {TAIL_LABEL} of AER minus each of fig. 3's other curves "
            f"({', '.join(self.fig3_runs())})",
        )
        for baseline in self.fig3_runs():
            self.claim(
                key=f"reward_vs_{baseline}",
                quote="the training reward of AER reaches a higher level",
                source="sec. 5.2, fig. 3(b)",
                paper_value=f"higher than {self._baseline_label(baseline)} (no number)",
                ours=f"mean training reward over {TAIL_LABEL} of {r.aer} minus {baseline}, per seed",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda b=baseline: self.results.compare_history(
                    r.aer, b, lambda h: end_mean(h, "reward"), differs_in=self._differs_in(b)
                ),
                part_of=reward,
            )
        early = measures.paper_share(PAPER_EARLY_STEPS, PAPER_MIN_TOTAL_STEPS)
        self.claim(
            key="grpo_entropy_drop",
            quote="the policy entropy of vanilla GRPO drops sharply within the first 100 steps, indicating early "
            "entropy "
            "collapse",
            source="sec. 5.2, fig. 3(c)",
            paper_value="fig. 3(c) (no numbers)",
            ours=f"rollout entropy of {r.grpo} over the last {measures.TAIL_ROLLOUTS} rollout batches of its first "
            f"{early:.0%} of training (the paper's first {PAPER_EARLY_STEPS} steps of at least "
            f"{PAPER_MIN_TOTAL_STEPS}) / the first batch's, per seed; 'drops sharply': below {SHARP_DROP:g}",
            direction="less",
            margin=0.0,
            compute=lambda: self._per_seed(r.grpo, lambda h: entropy_by_share(h, early)),
            reference=SHARP_DROP,
            measure="entropy_retained",  # GRPO's entropy level: what the testbed's budget was calibrated to produce
        )
        mitigates = self.conjunction(
            key="clip_higher_entropy",
            quote="Although the baseline slightly mitigates this effect, its entropy still gradually declines over "
            "steps",
            source="sec. 5.2, fig. 3(c)",
            paper_value="fig. 3(c) (no numbers)",
            ours=f"{r.clip_higher}: more entropy retained than {r.grpo}, and less than at its first step (log scale)",
        )
        self.claim(
            key="clip_higher_mitigates",
            quote="the baseline slightly mitigates this effect",
            source="sec. 5.2, fig. 3(c)",
            paper_value="above GRPO (no number)",
            ours=f"log entropy retained ({TAIL_LABEL} / first batch) of {r.clip_higher} minus {r.grpo}, per seed",
            direction="greater",
            margin=LOG_ENTROPY_MARGIN,
            compute=lambda: self.results.compare_history(
                r.clip_higher, r.grpo, log_entropy_retained, differs_in=self._differs_in(r.clip_higher)
            ),
            measure="log_entropy_retained",
            requires=("healthy", "learned"),
            part_of=mitigates,
        )
        self.claim(
            key="clip_higher_declines",
            quote="its entropy still gradually declines over steps",
            source="sec. 5.2, fig. 3(c)",
            paper_value="declines (no number)",
            ours=f"log entropy retained ({TAIL_LABEL} / first batch) of {r.clip_higher}, per seed",
            direction="less",
            margin=LOG_ENTROPY_MARGIN,
            compute=lambda: self._per_seed(r.clip_higher, log_entropy_retained),
            measure="log_entropy_retained",
            null=None,  # "still declines" says Clip-Higher behaves like GRPO here: GRPO passing is no contrast
            part_of=mitigates,
        )
        self.claim(
            key="entropy_at_target",
            quote="AER maintains the policy entropy at a moderate target level throughout training",
            source="sec. 5.2, fig. 3(c)",
            paper_value="entropy held near H* = 0.4 H_0 (fig. 3c, no number)",
            ours=f"(H_t - H*) / H_0 of {r.aer}, mean over the rollout batches after H_t first reaches H* "
            "('throughout training' once the target binds), per seed; the per-seed lowest H_t / H_0 (undershoot) "
            "beside it",
            direction="equal",
            margin=ENTROPY_MARGIN,
            compute=lambda: self._gap_estimate(r.aer),
            requires=("healthy", "active", "learned"),
        )
        shorter = self.conjunction(
            key="higher_entropy_shorter",
            quote="Despite main- ... taining higher entropy, AER produces shorter average response lengths than the "
            "baseline",
            source="sec. 5.2, fig. 3(c, e)",
            paper_value="fig. 3(c, e) (no numbers)",
            ours=f"{r.aer} against {r.clip_higher} ('the baseline', as above): more entropy retained and shorter "
            "responses",
        )
        self.claim(
            key="higher_entropy",
            quote="higher entropy",
            source="sec. 5.2, fig. 3(c)",
            paper_value="higher (no number)",
            ours=f"log entropy retained ({TAIL_LABEL} / first batch) of {r.aer} minus {r.clip_higher}, per seed",
            direction="greater",
            margin=LOG_ENTROPY_MARGIN,
            compute=lambda: self.results.compare_history(
                r.aer, r.clip_higher, log_entropy_retained, differs_in=self._differs_in(r.clip_higher)
            ),
            measure="log_entropy_retained",
            requires=("healthy", "active", "learned"),
            part_of=shorter,
        )
        self.claim(
            key="shorter",
            quote="AER produces shorter average response lengths than the baseline",
            source="sec. 5.2, fig. 3(e)",
            paper_value="shorter (no number)",
            ours=f"mean training response length (tokens) over {TAIL_LABEL} of {r.aer} minus {r.clip_higher}",
            direction="less",
            margin=LENGTH_MARGIN,
            compute=lambda: self.results.compare_history(
                r.aer,
                r.clip_higher,
                lambda h: end_mean(h, "completions/mean_length"),
                digits=1,
                differs_in=self._differs_in(r.clip_higher),
            ),
            measure="train_response_length",
            part_of=shorter,
        )
        stable = self.conjunction(
            key="fig3f_stable_and_allocates",
            quote="Figure 3f shows that AER dynamically maintains a stable policy entropy throughout training and "
            "allocates "
            "more exploration to difficult samples",
            source="sec. 5.2, fig. 3(f)",
            paper_value="fig. 3(f) is the AIME25 test score over steps (no numbers)",
            ours=f"{r.aer}: entropy within x{measures.ENTROPY_FACTOR:g} of its target both ways once it binds, and "
            "more entropy bonus on hard prompts",
        )
        self.claim(
            key="fig3f_stable",
            quote="maintains a stable policy entropy throughout training",
            source="sec. 5.2, fig. 3(f)",
            paper_value="stable (no number)",
            ours=f"the largest factor by which {r.aer}'s rollout entropy strays from H* (above or below) after first "
            f"reaching it, per seed, against x{measures.ENTROPY_FACTOR:g} (the project's two-sided band of a stable "
            "entropy, around the level AER holds)",
            direction="less",
            margin=0.0,
            compute=lambda: self._per_seed(r.aer, self._excursion_after_crossing(tau_of=r.aer)),
            reference=measures.ENTROPY_FACTOR,
            universal=True,
            part_of=stable,
        )
        self.claim(
            key="fig3f_allocates",
            quote="allocates more exploration to difficult samples",
            source="sec. 5.2, fig. 3(f)",
            paper_value="no number",
            ours="entropy of hard against easy prompts' responses during training",
            direction="greater",
            margin=ENTROPY_MARGIN,
            compute=lambda: unavailable(
                "not logged: the bonus itself goes to hard prompts by eq. 9's construction (zero for g(q) >= rho), "
                "so it is no evidence; whether hard prompts' responses then carry more entropy needs the training "
                "entropy split by the prompt's group accuracy, which the trainer does not log (the evaluation's "
                "per-problem entropy is of the final model, not of the exploration during training)"
            ),
            part_of=stable,
        )
        self.claim(
            key="continuously_improve",
            quote="thereby facilitating the policy to escape local optima and continuously improve performance",
            source="sec. 5.2, fig. 3(f)",
            paper_value="fig. 3(f): AIME25 test score over steps (no numbers)",
            ours=f"{r.aer}'s mean training reward over the last fifth of training minus over the fourth, per seed "
            "(the test score is not evaluated during training; the training reward stands for it)",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: self._per_seed(r.aer, late_reward_gain),
            requires=("healthy", "active", "learned"),
        )

    # ------------------------------------------------------------------ H_t against H*
    def _target_of(self, run: str, history: pd.DataFrame) -> tuple[pd.Series, float, float]:
        """(rollout entropy per batch, H_0, H* = tau H_0) of one seed, with tau of the declared ``run`` (so a null
        read in its place is held to the same target)."""
        series = rollouts(history, "entropy/mean")
        h0 = float(series.to_numpy()[0])
        return series, h0, self.hparam(run, "tau") * h0

    def _gap_after_crossing(self, tau_of: str):
        """One seed's mean (H_t - H*) / H_0 over the rollout batches from the first with H_t <= H* on; a seed whose
        entropy never reaches H* gives its gap over the run's end window (above the target throughout)."""

        def gap(history: pd.DataFrame) -> float:
            series, h0, target = self._target_of(tau_of, history)
            after = after_crossing(series, target)
            kept = after if len(after) else measures.window(history, "entropy/mean", "end")
            return float((kept.mean() - target) / h0)

        return gap

    def _excursion_after_crossing(self, tau_of: str):
        """One seed's largest factor max(H_t / H*, H* / H_t) after the first crossing (1 when it never crosses)."""

        def excursion(history: pd.DataFrame) -> float:
            series, _, target = self._target_of(tau_of, history)
            after = after_crossing(series, target)
            if not len(after):
                return 1.0
            return float(max(after.max() / target, target / max(after.min(), measures.RETAINED_FLOOR)))

        return excursion

    def _gap_estimate(self, run: str) -> Estimate:
        """The post-crossing gap to the target per seed, with each seed's lowest H_t / H_0 (undershoot) beside it."""
        estimate = self._per_seed(run, self._gap_after_crossing(tau_of=self.runs.aer))
        lowest = self.results.per_seed(run, lambda h: float(rollouts(h, "entropy/mean").min()) / initial_entropy(h))
        return dataclasses.replace(
            estimate,
            detail=f"{estimate.detail}; lowest H_t / H_0 per seed {np.round(lowest, 2).tolist()} (target "
            f"{self.hparam(self.runs.aer, 'tau'):g})",
        )

    def tuned_fixed_coeff(self) -> str:
        """Table 2's "tuned fixed coefficient": the run of ``fixed_coeff_grid`` with the highest training reward over
        its last steps (mean over seeds), never chosen on the evaluation set. The grid and the rule are declared in
        params.yaml before any run; selecting on the seeds that are then compared favours the selected run a little
        (the winner of three), which docs/assumptions.md states."""
        if "_tuned" not in self._done:
            # The selection reads the grid's training reward; the claim's arm is the run selected, so the grid's
            # other runs (a diverged one among them) are not read as the claim's runs (their gates do not apply).
            with self.results.unrecorded():
                rewards = {
                    run: float(self.results.per_seed(run, lambda h: end_mean(h, "reward")).mean())
                    for run in self.runs.fixed_coeff_grid
                }
            self._done["_tuned"] = max(rewards, key=rewards.get)
        return self._done["_tuned"]

    def _component_claims(self) -> None:
        r = self.runs
        grid = ", ".join(f"{self.hparam(run, 'alpha_init'):g}" for run in r.fixed_coeff_grid)
        tuned = f"the tuned fixed coefficient (alpha in {{{grid}}} with the highest training reward)"
        self.claim(
            key="fixed_vs_grpo",
            quote="introducing entropy regularization with a tuned fixed coefficient improves performance",
            source="sec. 5.3, table 2",
            paper_value=f"Avg. {PAPER_TABLE2_AVG['w/ Fixed Coeff.']} vs {PAPER_TABLE2_AVG['GRPO']} (Qwen3-8B, our "
            "mean of the four "
            "sets)",
            ours=f"mean@n of {tuned} minus {r.grpo}",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: self.compare(self.tuned_fixed_coeff(), r.grpo, ACCURACY),
            paper_effect=0.028,
        )
        self.claim(
            key="c2c3_vs_fixed",
            quote="Then applying C2 & C3 brings further gains, particularly on challenging benchmarks such as AIME24",
            source="sec. 5.3, table 2",
            paper_value=f"Avg. {PAPER_TABLE2_AVG['w/ Adaptive Coeff. (C2&C3)']} vs "
            f"{PAPER_TABLE2_AVG['w/ Fixed Coeff.']}; "
            "table 2's C2&C3 row (29.4 / 21.4 / 73.8 / 89.4) is table 9's rho = 1.0 row, a different configuration",
            ours=f"mean@n of {r.c2_c3} minus {tuned}",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: self.compare(r.c2_c3, self.tuned_fixed_coeff(), ACCURACY, ADAPTIVE_COEFFICIENT),
            paper_effect=0.047,
        )
        best = self.conjunction(
            key="aer_best_of_table2",
            quote="When the C1 is further incorporated, the full AER framework achieves the best performance, e.g., "
            "improving AIME25 performance from 21.4 to 25.1",
            source="sec. 5.3, table 2",
            paper_value="Avg. 55.4, the highest of table 2 (our mean of the four sets: "
            + ", ".join(f"{k} {v}" for k, v in PAPER_TABLE2_AVG.items())
            + ")",
            ours=f"mean@n of {r.aer} minus every other row of table 2",
        )
        for key, other, differs, label in (
            ("aer_vs_c2c3", r.c2_c3, ("method.difficulty_aware",), "w/ Adaptive Coeff. (C2&C3)"),
            ("aer_vs_c1", r.c1_only, ADAPTIVE_COEFFICIENT, "w/ Difficulty-Aware (C1)"),
            ("aer_vs_grpo_table2", r.grpo, (METHOD,), "GRPO"),
        ):
            self.claim(
                key=key,
                quote="the full AER framework achieves the best performance",
                source="sec. 5.3, table 2",
                paper_value=f"Avg. 55.4 vs {PAPER_TABLE2_AVG[label]} ({label})",
                ours=f"mean@n of {r.aer} minus {other}",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda o=other, d=differs: self.compare(r.aer, o, ACCURACY, d),
                paper_effect=round((PAPER_TABLE2_AVG["w/ AER (C1&C2&C3)"] - PAPER_TABLE2_AVG[label]) / 100, 4),
                part_of=best,
            )
        self.claim(
            key="aer_vs_fixed",
            quote="the full AER framework achieves the best performance",
            source="sec. 5.3, table 2",
            paper_value=f"Avg. 55.4 vs {PAPER_TABLE2_AVG['w/ Fixed Coeff.']} (w/ Fixed Coeff.)",
            ours=f"mean@n of {r.aer} minus {tuned}",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: self.compare(
                r.aer, self.tuned_fixed_coeff(), ACCURACY, ("method.difficulty_aware", *ADAPTIVE_COEFFICIENT)
            ),
            paper_effect=0.066,
            part_of=best,
        )

    def _sweep_claims(self) -> None:
        r = self.runs
        default_tau = self.hparam(r.aer, "tau")
        tau = self.conjunction(
            key="tau_sweet_spot",
            quote="The *Avg. pass@1* curve exhibits a clear sweet spot at $\\tau=0.4$ (**55.4**) ... and degradation "
            "in both "
            "directions: *under-reduction* at $\\tau \\leq 0.3$ and *over-preservation* at high-entropy settings "
            "$\\tau \\geq 0.8$",
            source="sec. 5.3, fig. 4(b), table 8",
            paper_value="Avg. "
            + ", ".join(f"{v} (tau {k:g})" for k, v in PAPER_TAU.items())
            + "; the labels are inverted: a low "
            "tau reduces entropy more (over-reduction), a high one preserves it",
            ours=f"mean@n of {r.aer} (tau {default_tau:g}) minus each other tau",
        )
        # The sentence's two regimes: under-reduction at tau <= 0.3, over-preservation at tau >= 0.8 (the plateau
        # values 0.5 and 0.6 have their own claim, tau_plateau).
        regimes = [run for run in r.tau_sweep if not 0.3 < self.hparam(run, "tau") < 0.8]
        if not regimes:  # a reduced protocol (rlvr_lib.smoke): the sweep has no run in either regime
            self.claim(
                key="tau_aer_tau_0_3",
                quote="*under-reduction* at $\\tau \\leq 0.3$",
                source="sec. 5.3, table 8",
                paper_value=f"Avg. 55.4 (tau 0.4) vs {PAPER_TAU[0.3]} (tau 0.3)",
                ours=f"mean@n of {r.aer} (tau {default_tau:g}) minus AER at tau 0.3",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda: self.compare(r.aer, self._tau_run(0.3), ACCURACY, ("method.tau",)),
                paper_effect=_points(PAPER_TAU[0.4] - PAPER_TAU[0.3]),
                part_of=tau,
            )
        for run in regimes:
            value = self.hparam(run, "tau")
            self.claim(
                key=f"tau_{run}",
                quote="*under-reduction* at $\\tau \\leq 0.3$"
                if value < default_tau
                else "*over-preservation* at high-entropy settings $\\tau \\geq 0.8$",
                source="sec. 5.3, table 8",
                paper_value=f"Avg. 55.4 (tau 0.4) vs {PAPER_TAU.get(value, MISSING)} (tau {value:g})",
                ours=f"mean@n of {r.aer} (tau {default_tau:g}) minus {run} (tau {value:g})",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda run=run: self.compare(r.aer, run, ACCURACY, ("method.tau",)),
                paper_effect=_points(PAPER_TAU[0.4] - PAPER_TAU[value]) if value in PAPER_TAU else None,
                part_of=tau,
            )
        self.claim(
            key="tau_plateau",
            quote="with a mild plateau for $\\tau \\in [0.5, 0.6]$",
            source="sec. 5.3, table 8",
            paper_value="Avg. 54.8 (tau 0.5), 54.9 (tau 0.6)",
            ours="mean@n at tau 0.5 minus at tau 0.6, per seed (a plateau: no material difference)",
            direction="equal",
            margin=ACCURACY_MARGIN,
            compute=lambda: self.compare(self._tau_run(0.5), self._tau_run(0.6), ACCURACY, ("method.tau",)),
        )
        high = self.conjunction(
            key="tau_high_regime",
            quote="degrades as τ increases into the high-entropy regime ($\\tau \\geq 1.0$: 54.1/53.1)",
            source="App. C.4, table 8",
            paper_value="Avg. 54.1 (tau 1.0), 53.1 (tau 1.2) vs 55.4 (tau 0.4)",
            ours=f"mean@n of {r.aer} (tau {default_tau:g}) minus tau 1.0, and tau 1.0 minus tau 1.2 (degrades as tau "
            "increases)",
        )
        for key, a, b in (("tau_high_1_0", default_tau, 1.0), ("tau_high_1_2", 1.0, 1.2)):
            self.claim(
                key=key,
                quote="degrades as τ increases into the high-entropy regime",
                source="App. C.4, table 8",
                paper_value=f"Avg. {PAPER_TAU[a]} (tau {a:g}) vs {PAPER_TAU[b]} (tau {b:g})",
                ours=f"mean@n at tau {a:g} minus at tau {b:g}, per seed",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda a=a, b=b: self.compare(
                    r.aer if a == default_tau else self._tau_run(a), self._tau_run(b), ACCURACY, ("method.tau",)
                ),
                paper_effect=_points(PAPER_TAU[a] - PAPER_TAU[b]),
                part_of=high,
            )
        self.claim(
            key="tau_per_benchmark",
            quote="On the hard splits (AIME2024/2025), moderate entropy reduction improves accuracy up to $\\tau=0.4$ "
            "(31.4/25.1), whereas pushing τ higher reduces performance on AIME2025",
            source="App. C.4, table 8",
            paper_value="AIME24 / AIME25 31.4 / 25.1 at tau 0.4",
            ours="per-benchmark accuracy against tau",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable("benchmark: AIME2024 / AIME2025 splits; the testbed has one held-out set"),
        )
        inflate = self.conjunction(
            key="tau_inflates_entropy",
            quote="Pushing τ too high inflates entropy beyond the useful range",
            source="sec. 5.3, table 8",
            paper_value="no numbers",
            ours=f"entropy retained of each run with tau >= 0.8 (the over-preservation regime) minus {r.aer}'s",
        )
        # "too high": the over-preservation regime, tau >= 0.8 (sec. 5.3 adopts tau in [0.4, 0.6] as default)
        higher = [run for run in r.tau_sweep if self.hparam(run, "tau") >= 0.8]
        for run in higher:
            self.claim(
                key=f"tau_entropy_{run}",
                quote="inflates entropy",
                source="sec. 5.3, table 8",
                paper_value="higher entropy (no number)",
                ours=f"log entropy retained ({TAIL_LABEL} / first batch) of {run} minus {r.aer}, per seed",
                direction="greater",
                margin=LOG_ENTROPY_MARGIN,
                compute=lambda run=run: self.results.compare_history(
                    run, r.aer, log_entropy_retained, differs_in=("method.tau",)
                ),
                measure="log_entropy_retained",
                requires=("active",),  # an inflated entropy is the claim: its exploded seeds are the evidence
                part_of=inflate,
            )
        if not higher:
            self.claim(
                key="tau_entropy_none",
                quote="inflates entropy",
                source="sec. 5.3, table 8",
                paper_value="higher entropy (no number)",
                ours=f"entropy retained of a run with tau >= 0.8 minus {r.aer}",
                direction="greater",
                margin=ENTROPY_MARGIN,
                compute=lambda: unavailable("budget: no run with tau >= 0.8"),
                part_of=inflate,
            )
        band = self.conjunction(
            key="entropy_band_vs_grpo",
            quote="compared with vanilla GRPO, AER stabilizes the global entropy *near* the prescribed band, retaining "
            "sufficient diversity while avoiding premature collapse",
            source="sec. 5.3",
            paper_value="no numbers",
            ours=f"{r.aer} near its target, and more entropy retained than {r.grpo}",
        )
        self.claim(
            key="band_near_target",
            quote="AER stabilizes the global entropy *near* the prescribed band",
            source="sec. 5.3",
            paper_value="near H* (no number)",
            ours=f"(H_t - H*) / H_0 of {r.aer}, mean over the rollout batches after H_t first reaches H*, per seed",
            direction="equal",
            margin=ENTROPY_MARGIN,
            compute=lambda: self._gap_estimate(r.aer),
            requires=("healthy", "active", "learned"),
            part_of=band,
        )
        self.claim(
            key="band_vs_grpo",
            quote="retaining sufficient diversity while avoiding premature collapse",
            source="sec. 5.3",
            paper_value="more entropy than GRPO (no number)",
            ours=f"log entropy retained ({TAIL_LABEL} / first batch) of {r.aer} minus {r.grpo}, per seed",
            direction="greater",
            margin=LOG_ENTROPY_MARGIN,
            compute=lambda: self.results.compare_history(r.aer, r.grpo, log_entropy_retained),
            measure="log_entropy_retained",
            requires=("healthy", "active", "learned"),
            part_of=band,
        )
        default_rho = self.hparam(r.aer, "rho")
        rho = self.conjunction(
            key="rho_smaller_better",
            quote="The *Avg. pass@1* curve increases as ρ decreases from 1.0 to 0.0, peaking at **55.8** when "
            "$\\rho=0$, and "
            "degrading once $\\rho \\geq 0.6$ (down to **53.5** at $\\rho=1.0$)",
            source="sec. 5.3, fig. 4(a), table 9; App. C.5",
            paper_value="Avg. "
            + ", ".join(f"{v} (rho {k:g})" for k, v in PAPER_RHO.items())
            + "; by table 9 itself the rise is "
            "not monotonic (rho 0.4 > 0.2, 0.8 > 0.6) and the default rho 0.2 is not the best",
            ours="mean@n of each smaller-rho run minus the next larger",
        )
        for run in r.rho_sweep:
            value = self.hparam(run, "rho")
            a, b = (run, r.aer) if value < default_rho else (r.aer, run)
            small, large = sorted((value, default_rho))
            self.claim(
                key=f"rho_{run}",
                quote="peaking at **55.8** when $\\rho=0$"
                if value < default_rho
                else "down to **53.5** at $\\rho=1.0$",
                source="sec. 5.3, table 9",
                paper_value=f"Avg. {PAPER_RHO.get(small, MISSING)} (rho {small:g}) vs {PAPER_RHO.get(large, MISSING)} "
                f"(rho {large:g})",
                ours=f"mean@n of the smaller-rho run minus the larger: {a} minus {b}",
                direction="greater",
                margin=ACCURACY_MARGIN,
                compute=lambda a=a, b=b: self.compare(a, b, ACCURACY, ("method.rho",)),
                paper_effect=_points(PAPER_RHO[small] - PAPER_RHO[large])
                if small in PAPER_RHO and large in PAPER_RHO
                else None,
                part_of=rho,
            )
        for run in r.rho_sweep:
            if self.hparam(run, "rho") <= default_rho:
                continue
            self.claim(
                key=f"rho_many_hard_{run}",
                quote="an overly large ρ makes many questions “hard,”",
                source="sec. 5.3",
                paper_value="no number",
                ours=f"share of a rollout batch's prompts with a non-zero entropy coefficient (g(q) < rho), mean over "
                f"training, of {run} (rho {self.hparam(run, 'rho'):g}) minus {r.aer} (rho {default_rho:g}), per seed",
                direction="greater",
                margin=FRAC_HARD_MARGIN,
                compute=lambda run=run: self.results.compare_history(
                    run,
                    r.aer,
                    lambda h: measures.whole_mean(h, "aer/frac_prompts_nonzero_coef"),
                    differs_in=("method.rho",),
                ),
            )
        self.claim(
            key="rho_per_benchmark",
            quote="AIME2025 and AMC23 achieve their peaks at moderate ρ (0.4/0.8 and 0.4, respectively)",
            source="App. C.5, table 9",
            paper_value="AIME25 26.1 at rho 0.4 and 0.8; AMC23 76.4 at rho 0.4",
            ours="per-benchmark accuracy against rho",
            direction="greater",
            margin=ACCURACY_MARGIN,
            compute=lambda: unavailable("benchmark: AIME2025 / AMC23 columns; the testbed has one held-out set"),
        )

    # ------------------------------------------------------------------ claim quantities
    def _gain_by_level(self, a: str, b: str) -> Estimate:
        """Per seed: the mean@n gain of ``a`` over ``b`` on the hardest testbed level minus that on the easiest
        (levels from the problems' uids, 'L<level>-...')."""
        self.results.check(a, b, (METHOD,))
        levels = [problem_level(uid) for uid in self.results.uids(a)]
        if self.results.uids(a) != self.results.uids(b):
            raise ValueError(f"runs '{a}' and '{b}' were evaluated on different problems")
        if None in levels or len(set(levels)) < 2:
            raise NotTestable("the evaluation problems carry no difficulty levels (testbed uids 'L<level>-...')")
        seeds = self.results.common_seeds(a, b)
        gain = self.results.eval_table(a, ACCURACY, seeds) - self.results.eval_table(b, ACCURACY, seeds)
        levels = np.asarray(levels)
        hard, easy = gain[:, levels == levels.max()].mean(axis=1), gain[:, levels == levels.min()].mean(axis=1)
        return estimate_of(
            hard - easy,
            detail=f"gain on level {levels.max()} {hard.mean():.3f} vs level {levels.min()} {easy.mean():.3f}",
            seeds=seeds,
        )

    # ------------------------------------------------------------------ pass@k with many samples
    def large_k_counts(self) -> dict[str, np.ndarray]:
        """run -> (seeds, problems) correct counts out of n samples (cached), from the ``sample_aer_pass_at_k``
        stage's reports/samples/aer_pass_at_k.json."""
        if "_large_k" not in self._done:
            counts = sampling.load_study("aer_pass_at_k", self.params)["counts"]
            self._done["_large_k"] = {run: np.asarray(table, dtype=float) for run, table in counts.items()}
        return self._done["_large_k"]

    def large_k_table(self, run: str, k: int) -> np.ndarray:
        counts = self.large_k_counts()[run]
        n = self.settings.pass_at_k.n
        return np.vectorize(lambda c: pass_at_k(n, int(c), k))(counts).astype(float)

    def _large_k_difference(self, a: str, b: str, k: int) -> Estimate:
        self.results.check(a, b, self._pair_differs_in(a, b))
        return paired_difference(
            self.large_k_table(a, k), self.large_k_table(b, k), labels=(a, b), bounds=metric_bounds(f"pass@{k}")
        )

    def _pair_differs_in(self, a: str, b: str) -> tuple[str, ...]:
        """What AER (``a``) and an opponent of tables 6-7 (``b``) may differ in (the base policy is not checked)."""
        return (METHOD,) if b == BASE_RUN else self._differs_in(b)

    def _min_gap_over_k(self, a: str, b: str) -> Estimate:
        """Per seed: the smallest over k of the mean pass@k of ``a`` minus ``b``; a k where both arms' means lie
        within ``SATURATION`` of 1 is left out (no difference is possible there)."""
        self.results.check(a, b, self._pair_differs_in(a, b))
        gaps, kept = [], []
        for k in k_values(self.settings.pass_at_k.n):
            ta, tb = self.large_k_table(a, k), self.large_k_table(b, k)
            if min(ta.mean(), tb.mean()) >= 1 - SATURATION:
                continue
            gaps.append(seed_values(ta) - seed_values(tb))
            kept.append(k)
        if not kept:
            raise NotTestable(f"saturated: both '{a}' and '{b}' are at the ceiling at every k")
        per_k = np.stack(gaps, axis=1)  # (seeds, ks)
        worst = kept[int(per_k.mean(axis=0).argmin())]
        return estimate_of(per_k.min(axis=1), detail=f"smallest gap at k = {worst} (mean over seeds); k = {kept}")

    def _headroom_difference(self, a: str, b: str, k_low: int, k_high: int) -> Estimate:
        """Per seed: (pass@k_high - pass@k_low) of ``a`` minus that of ``b``."""
        self.results.check(a, b, self._pair_differs_in(a, b))
        gain_a = self.large_k_table(a, k_high) - self.large_k_table(a, k_low)
        gain_b = self.large_k_table(b, k_high) - self.large_k_table(b, k_low)
        return paired_difference(gain_a, gain_b, labels=(f"{a} gain", f"{b} gain"))

    def k50_per_seed(self, run: str, threshold: float | None = None) -> np.ndarray:
        """(seeds,) log2 k50 of ``run`` at ``threshold`` (default the paper's, ``k50_threshold``); a seed that never
        reaches it counts as log2(2n)."""
        threshold = self.settings.k50_threshold if threshold is None else threshold
        n = self.settings.pass_at_k.n
        ks = k_values(n)
        out = []
        for s in range(self.large_k_counts()[run].shape[0]):
            curve = [float(self.large_k_table(run, k)[s].mean()) for k in ks]
            k50 = external.k50(ks, curve, threshold)
            out.append(math.log2(2 * n if k50 is None else k50))
        return np.asarray(out)

    def mapped_k50_threshold(self) -> float:
        """App. C.3's threshold placed like the paper's: ``PAPER_K50_POSITION`` of the way from the base policy's
        pass@1 to its pass@n on the sampled problems (mean over seeds); the base's numbers only."""
        n = self.settings.pass_at_k.n
        low, high = (float(self.large_k_table(self.runs.base, k).mean()) for k in (1, n))
        threshold = low + PAPER_K50_POSITION * (high - low)
        if not 0 < threshold <= 1:
            raise NotTestable(
                f"the base policy's pass@1 ({low:.3f}) and pass@{n} ({high:.3f}) leave no threshold to map",
                IMMOVABLE,
            )
        return threshold

    def _k50_difference(self, a: str, b: str, threshold: float | None = None) -> Estimate:
        self.results.check(a, b, self._pair_differs_in(a, b))
        estimate = paired_difference(self.k50_per_seed(a, threshold), self.k50_per_seed(b, threshold), labels=(a, b))
        at = self.settings.k50_threshold if threshold is None else threshold
        return dataclasses.replace(estimate, detail=f"{estimate.detail} (log2 k50 at pass@k >= {at:.3f})")

    # ------------------------------------------------------------------ experiments
    @experiment("Fig. 2(a, b): a fixed coefficient trained on one level")
    def figure2(self, heading: str) -> pd.DataFrame:
        """Fig. 2(a, b)'s runs: the fixed coefficient 0 / 0.01 / 0.1 trained on the easiest and on the hardest level,
        each evaluated on the problems of its level (mean@n and response length, 95% t interval over seeds), with
        its entropy peak and the `healthy` gate's mark."""
        r = self.runs
        raw_rows, shown_rows = [], []
        for runs in (r.fig2_easy, r.fig2_hard):
            for run in runs:
                row = {"run": run, "level": self._level_of(run), "coefficient": self.hparam(run, "alpha_init")}
                try:
                    acc = self._level_accuracy(run)
                    length = self._level_values(run, "response_length")
                    peak = self.results.per_seed(run, peak_entropy_ratio)
                    # the `healthy` gate only: a fixed coefficient has no controller to be idle (coefficient 0 is
                    # GRPO by design, which the `active` gate would mark 'idle')
                    mark = "diverged" if self.results.divergence(run) else ""
                except NotTestable as reason:  # NotRun included: a run not trained yet
                    raw_rows.append({**row, "accuracy": math.nan, "mark": "not run"})
                    shown_rows.append({**row, "run": f"`{run}` (not run)", "mean@n on its level": str(reason)})
                    continue
                a, lo, hi, _ = bounded_t_interval(acc, (0.0, 1.0))
                ln, llo, lhi, _ = t_interval(length)
                raw_rows.append(
                    {
                        **row,
                        "accuracy": a,
                        "ci_low": lo,
                        "ci_high": hi,
                        "response_length": ln,
                        "peak_entropy_ratio": float(peak.max()),
                        "seeds": len(acc),
                        "mark": mark,
                    }
                )
                shown_rows.append(
                    {
                        "level": row["level"],
                        "coefficient": f"{row['coefficient']:g}",
                        "run": f"`{run}`" + (f" ({mark})" if mark else ""),
                        "mean@n on its level": fmt_ci(a, lo, hi),
                        "response length on its level": f"{ln:.1f} [{llo:.1f}, {lhi:.1f}]",
                        "entropy peak / first batch (largest seed)": f"x{float(peak.max()):.2f}",
                        "seeds": len(acc),
                    }
                )
        raw, shown = pd.DataFrame(raw_rows), pd.DataFrame(shown_rows)
        self.report.add_table(
            heading,
            "figure2_level_sets",
            raw,
            shown,
            "Each run trains on one testbed level only and is evaluated on the evaluation problems of that level "
            "(fig. 2's two datasets: the easiest and the hardest level). diverged: the `healthy` gate (whole-set "
            "mean@n below the seed's base policy, or the rollout entropy past x2 of its first batch).",
        )
        return shown

    def _level_values(self, run: str, metric: str) -> np.ndarray:
        """Per seed: ``metric`` of ``run`` on the evaluation problems of the level(s) it trained on."""
        levels = self._levels(run)
        on = np.asarray([problem_level(uid) in levels for uid in self.results.uids(run)])
        if not on.any():
            raise NotTestable(f"no evaluation problem at level(s) {levels} (testbed uids 'L<level>-...')")
        return self.results.eval_table(run, metric)[:, on].mean(axis=1)

    @experiment("Table 1: pass@1 and pass@K")
    def table1(self, heading: str) -> pd.DataFrame:
        k = self.largest_k()
        raw, shown = self.eval_table(
            self.table1_rows, [ACCURACY, f"pass@{k}"], PAPER_TABLE1_8B, "paper (Qwen3-8B, Avg. pass@1 / pass@32, %)"
        )
        shown = shown.rename(columns={ACCURACY: "pass@1 (mean@n)"})
        self._add_seed_columns(raw, shown)
        self.report.add_table(
            heading,
            "table1",
            raw,
            shown,
            f"pass@1 = mean accuracy over the n samples; pass@{k}: the largest power of two within the evaluation's "
            "n (the paper's pass@32 needs n >= 32). Mean over each run's own seeds and the problems [95% Student-t "
            "interval over the per-seed means, on the logit scale so it stays in [0, 1]]; `seeds` says how many, "
            "and 'AER - row (paired)' is the difference over the seeds both runs share, the one the claims test.",
        )
        return shown

    @experiment("Tables 6-7 and fig. 3(a, d): pass@k up to k = n, k50")
    def pass_at_large_k(self, heading: str):
        p = self.settings.pass_at_k
        ks = k_values(p.n)
        counts = self.large_k_counts()
        raw_rows, shown_rows = [], []
        for run in p.runs:
            row_raw, row_shown = {"run": run}, {"run": f"`{run}`"}
            for k in ks:
                table = self.large_k_table(run, k)
                _, low, high, _ = bounded_t_interval(seed_values(table), (0.0, 1.0))
                row_raw.update({f"pass@{k}": table.mean(), f"pass@{k}_ci_low": low, f"pass@{k}_ci_high": high})
                row_shown[f"pass@{k}"] = fmt(table.mean())
            for column_name, threshold in (
                (f"k50 at {self.settings.k50_threshold:g} (per seed)", None),
                (f"k50 at {self.mapped_k50_threshold():.3f}, mapped (per seed)", self.mapped_k50_threshold()),
            ):
                try:
                    k50 = self.k50_per_seed(run, threshold)
                    row_raw[f"log2_{column_name}"] = float(k50.mean())
                    row_shown[column_name] = ", ".join(("> n" if v > math.log2(p.n) else str(int(2**v))) for v in k50)
                except NotTestable as reason:
                    row_shown[column_name] = f"{MISSING} ({reason})"
            raw_rows.append(row_raw)
            shown_rows.append(row_shown)
        n_problems = next(iter(counts.values())).shape[1]
        n_seeds = next(iter(counts.values())).shape[0]
        text = (
            f"{p.n} samples per problem on the first {n_problems} evaluation problems, {n_seeds} training seed(s) "
            f"(`papers.aer.pass_at_k`), sampled by the `sample_aer_pass_at_k` stage "
            "(reports/samples/aer_pass_at_k.json) with params' eval temperature and length; pass@k is the "
            "unbiased estimator. Paper (Qwen3-8B, AIME24, %): "
            + "; ".join(f"{name} {values[-1]} at k = 256" for name, values in PAPER_PASS_AT_K_AIME24.items())
            + ". k50 on AIME24: 8 (AER), 16 (Clip-Higher), 64 (Base, GRPO). The paper's 50% lies between its base's "
            "pass@1 (11.5) and pass@256 (64.3); every trained testbed run is past 50% at k = 1 (k50 = 1, no "
            f"difference possible), so a second threshold is placed as far ({PAPER_K50_POSITION:.3f}) between the "
            f"testbed base's pass@1 and pass@{p.n}: {self.mapped_k50_threshold():.3f}. Intervals: 95% Student-t over "
            "the per-seed means, on the logit scale."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "tables6_7_pass_at_k", pd.DataFrame(raw_rows), pd.DataFrame(shown_rows))
        fig, (ax,) = plots.new_figure(1, ncols=1, panel_size=(5.6, 3.8))
        for row in raw_rows:
            run = row["run"]
            ax.plot(ks, [row[f"pass@{k}"] for k in ks], label=run, **self.styles[run].points())
            ax.fill_between(
                ks,
                [row[f"pass@{k}_ci_low"] for k in ks],
                [row[f"pass@{k}_ci_high"] for k in ks],
                color=self.styles[run].color,
                alpha=plots.BAND_ALPHA,
                linewidth=0,
            )
        ax.axhline(
            self.settings.k50_threshold, color=plots.REFERENCE_COLOR, linewidth=0.8, linestyle=":", label="k50 level"
        )
        plots.pass_at_k_axes(ax, list(ks))
        plots.figure_legend(fig)
        plots.figure_title(
            fig,
            f"Paper fig. 3(a, d) / tables 6-7: pass@k from {p.n} samples, {n_problems} problems, {n_seeds} seed(s) "
            "(band: 95% interval)",
        )
        self.report.add_figure(heading, "figure3ad_pass_at_k", fig)
        return pd.DataFrame(shown_rows)

    @experiment("Fig. 3: training dynamics")
    def figure3(self, heading: str):
        runs = [*self.fig3_runs(), self.runs.aer]
        fig = self.curves(
            runs,
            [
                ("reward", "(b) reward", "linear"),
                ("entropy/mean", "(c) policy entropy", "log"),
                ("completions/mean_length", "(e) response length", "linear"),
            ],
            ema_alpha=0.3,
            title="Paper fig. 3(b, c, e): GRPO, Clip-Higher and AER, the figure's curves (EMA 0.3; (f), the test "
            "score, is not logged in training)",
            ncols=3,
        )
        self.report.add_figure(heading, "figure3_training_dynamics", fig)
        return fig

    @experiment("Table 2: components")
    def table2(self, heading: str) -> pd.DataFrame:
        r = self.runs
        rows = [
            ("GRPO", r.grpo),
            ("w/ Fixed Coeff.", self.tuned_fixed_coeff()),
            ("w/ Difficulty-Aware (C1)", r.c1_only),
            ("w/ Adaptive Coeff. (C2&C3)", r.c2_c3),
            ("w/ AER (C1&C2&C3)", r.aer),
        ]
        paper = {k: f"{v:.1f}" for k, v in PAPER_TABLE2_AVG.items()}
        raw, shown = self.eval_table(rows, [ACCURACY], paper, "paper (Qwen3-8B, Avg. %)")
        shown = shown.rename(columns={ACCURACY: "pass@1 (mean@n)"})
        retained = [fmt(self.results.per_seed(run, log_entropy_retained).mean()) for _, run in rows]
        shown.insert(3, "log entropy retained", retained)
        self._add_seed_columns(raw, shown)
        tuned = self.tuned_fixed_coeff()
        grid = ", ".join(f"{self.hparam(run, 'alpha_init'):g}" for run in r.fixed_coeff_grid)
        text = (
            "Fixed coefficient and C1-only keep alpha at `alpha_init`. The paper's fixed coefficient is tuned and its "
            f"value not given: ours is the best of the grid {{{grid}}} by training reward over "
            f"{TAIL_LABEL} (`{tuned}`, alpha {self.hparam(tuned, 'alpha_init'):g}); C1-only keeps "
            f"{self.hparam(r.c1_only, 'alpha_init'):g}."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "table2_components", raw, shown)
        return shown

    def _sweep(self, heading: str, name: str, runs: list[str], paper: dict[float, float]) -> pd.DataFrame:
        rows = sorted({run: self.hparam(run, name) for run in [*runs, self.runs.aer]}.items(), key=lambda x: x[1])
        raw_rows, shown_rows = [], []
        for run, value in rows:
            try:
                acc, low, high = self.results.eval_summary(run, ACCURACY)
                retained = self.results.per_seed(run, log_entropy_retained).mean()
                mark = self._run_mark(run)
            except NotRun:  # a sweep run not trained yet: its row says so
                acc = low = high = retained = math.nan
                mark = "not run"
            raw_rows.append(
                {
                    name: value,
                    "run": run,
                    "accuracy": acc,
                    "ci_low": low,
                    "ci_high": high,
                    "log_entropy_retained": retained,
                    "paper": paper.get(value, math.nan),
                    "mark": mark,
                }
            )
            shown_rows.append(
                {
                    name: f"{value:g}",
                    "run": f"`{run}`" + (f" ({mark})" if mark else ""),
                    "pass@1 (mean@n)": fmt_ci(acc, low, high),
                    "log entropy retained": fmt(retained),
                    "paper (Avg. %)": fmt(paper.get(value, math.nan), 1),
                }
            )
        raw = pd.DataFrame(raw_rows)
        shown = pd.DataFrame(shown_rows)
        self._add_seed_columns(raw, shown)
        self.report.add_table(
            heading,
            f"sweep_{name}",
            raw,
            shown,
            "idle: AER's alpha_t never switched on in a seed (the run is GRPO there, the `active` gate); diverged: a "
            "seed below its base policy or its entropy past x2 of its first batch (the `healthy` gate). Log entropy "
            f"retained: mean over seeds of log(entropy over {TAIL_LABEL} / first batch).",
        )
        fig, (ours, theirs) = plots.new_figure(2, ncols=2, panel_size=(3.8, 3.2))
        aer_style = self.styles[self.runs.aer]
        ours.errorbar(
            raw[name],
            raw["accuracy"],
            yerr=[raw["accuracy"] - raw["ci_low"], raw["ci_high"] - raw["accuracy"]],
            capsize=3,
            label="testbed (mean@n, 95% interval)",
            **aer_style.points(),
        )
        for _, row in raw[(raw["mark"] != "") & raw["accuracy"].notna()].iterrows():
            ours.annotate(row["mark"], (row[name], row["accuracy"]), textcoords="offset points", xytext=(4, 4))
        ours.set_ylabel("pass@1 on the testbed (fraction)")
        plots.panel_title(ours, "(a) testbed")
        xs = sorted(paper)
        theirs.plot(xs, [paper[x] for x in xs], "s--", color=plots.PAPER_COLOR, label="paper (Qwen3-8B, Avg. %)")
        theirs.set_ylabel("paper's Avg. pass@1 (%)")
        plots.panel_title(theirs, "(b) paper")
        for ax in (ours, theirs):
            ax.set_xlabel(name)
            ax.axvline(self.hparam(self.runs.aer, name), color=plots.REFERENCE_COLOR, linestyle=":", linewidth=1.0)
        plots.figure_legend(fig)
        plots.figure_title(
            fig, f"{name} sweep: testbed and paper, each on its own scale (dotted: AER's default {name})"
        )
        self.report.add_figure(
            heading,
            f"sweep_{name}",
            fig,
            f"The table as a plot: (a) the testbed's mean@n at its {int(raw['accuracy'].notna().sum())} trained values "
            f"of {name} (idle and diverged runs marked), (b) the paper's Avg. pass@1 at its {len(paper)}, each on "
            "its own scale. Idle runs are GRPO "
            "and diverged ones fail the `healthy` gate, so the panels are no test of the paper's curve: the claims "
            "compare the runs pairwise.",
        )
        return pd.DataFrame(shown_rows)

    @experiment("Table 8: tau sweep")
    def table8(self, heading: str) -> pd.DataFrame:
        return self._sweep(heading, "tau", self.runs.tau_sweep, PAPER_TAU)

    @experiment("Table 9: rho sweep")
    def table9(self, heading: str) -> pd.DataFrame:
        return self._sweep(heading, "rho", self.runs.rho_sweep, PAPER_RHO)

    @experiment("Entropy against its target, with alpha_t")
    def entropy_target(self, heading: str):
        run, grpo = self.runs.aer, self.runs.grpo
        tau = self.hparam(run, "tau")
        fig, (ax, coefficient) = plots.new_figure(2, ncols=1, panel_size=(5.6, 2.6), sharex=True)
        style = self.styles[run]
        for i, h in enumerate(self.results.seed_histories(run)):
            series = rollouts(h, "entropy/mean")
            ax.plot(
                series.index,
                series / initial_entropy(h),
                color=style.color,
                linewidth=0.9,
                alpha=0.7,
                label=f"{run}, one line per seed" if i == 0 else None,
            )
            alpha = rollouts(h, "aer/alpha")
            coefficient.plot(alpha.index, alpha, color=style.color, linewidth=0.9, alpha=0.7)
        grpo_curves = [rollouts(h, "entropy/mean") / initial_entropy(h) for h in self.results.seed_histories(grpo)]
        mean = pd.concat(grpo_curves, axis=1).mean(axis=1)
        ax.plot(
            mean.index,
            mean,
            color=self.styles[grpo].color,
            linewidth=1.4,
            linestyle="--",
            label=f"{grpo}, mean over seeds",
        )
        ax.axhline(tau, color=plots.PAPER_COLOR, linestyle=":", linewidth=1.0, label=f"H* = {tau:g} H_0")
        ax.set_ylabel("rollout entropy / H_0")
        ax.set_xlabel("training step")
        plots.panel_title(ax, "(a) entropy against its target, per seed")
        coefficient.set_ylabel("alpha_t")
        plots.panel_title(coefficient, "(b) entropy coefficient, per seed")
        coefficient.set_xlabel("training step")
        plots.figure_legend(fig)
        plots.figure_title(fig, f"{run}: H_t / H_0 against H* per seed (GRPO for reference), and alpha_t")
        self.report.add_figure(
            heading,
            "entropy_target_alpha",
            fig,
            "Each seed's rollout entropy relative to its own first batch: AER is GRPO until its entropy first "
            "reaches the target (alpha_0 = 0), undershoots it, and is turned back by alpha_t; the Discussion gives "
            "each seed's numbers.",
        )
        return fig

    @experiment("Sensitivity: eta scaled to the run's length")
    def sensitivity(self, heading: str) -> pd.DataFrame:
        """AER with eq. 11's step size scaled by a misread ~500-update length (docs/assumptions.md): a declared
        alternative, beside the verdicts."""
        return self.sensitivity_table(heading, self.runs.aer, self.runs.grpo, self.runs.sensitivity)


# ----------------------------------------------------------------------------- claim helpers
def min_gap(a: list[float], b: list[float]) -> float:
    """The smallest of a[k] - b[k] over a table's k (points)."""
    return min(x - y for x, y in zip(a, b, strict=True))


def _points(difference: float) -> float:
    """A difference of the paper's percentages as a fraction (d's units), rounded to the tables' 0.1 point."""
    return round(difference / 100, 4)


def problem_level(uid: str) -> int | None:
    """The testbed level of a problem from its uid ('L<level>-<hash>'); None for another uid."""
    head, _, _ = uid.partition("-")
    return int(head[1:]) if head.startswith("L") and head[1:].isdigit() else None


def initial_entropy(history: pd.DataFrame) -> float:
    """H_0: the first rollout batch's entropy (eq. 10's anchor)."""
    return float(rollouts(history, "entropy/mean").to_numpy()[0])


def entropy_by_share(history: pd.DataFrame, share: float) -> float:
    """Mean rollout entropy over the last ``measures.TAIL_ROLLOUTS`` rollout batches of the first ``share`` of
    training / the first batch's."""
    n = len(rollouts(history, "entropy/mean"))
    start = max(0.0, share - measures.TAIL_ROLLOUTS / n)
    return float(measures.share(history, "entropy/mean", start, share).mean() / initial_entropy(history))


def largest_rise_between_fifths(history: pd.DataFrame) -> float:
    """The largest rise of the mean rollout entropy from one fifth of training to the next, / H_0 (negative: the
    entropy fell from every fifth to the next)."""
    means = [float(measures.share(history, "entropy/mean", i / 5, (i + 1) / 5).mean()) for i in range(5)]
    return max(b - a for a, b in zip(means, means[1:], strict=False)) / initial_entropy(history)


def late_reward_gain(history: pd.DataFrame) -> float:
    """Mean training reward over the last fifth of training minus over the fourth."""
    last, fourth = measures.share(history, "reward", 0.8, 1.0), measures.share(history, "reward", 0.6, 0.8)
    return float(last.mean() - fourth.mean())


def after_crossing(series: pd.Series, target: float) -> pd.Series:
    """The per-batch values from the first batch at or below ``target`` on (empty when it never gets there)."""
    below = np.flatnonzero(series.to_numpy() <= target)
    return series.iloc[below[0] :] if len(below) else series.iloc[:0]
