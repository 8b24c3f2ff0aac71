"""ERPO (erpo.txt, arXiv 2603.28204) on the testbed: tables 1-2, fig. 1(b), figs. 4-5, one ablation per component
and App. A.3's data filter counted on the real MATH files (both tables only: the paper claims neither).

The paper compares ERPO with Base, SFT and GRPO (no ablation section); SFT is the testbed base policy itself (the
base is built by supervised warm-up), so table 1's rows are base / GRPO / ERPO. Every run trains on ERPO's training
set (``train_data: erpo``: its level and solution-length filter on the testbed, the filter_data stage).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import plots
from . import sampling
from .base import MISSING, PaperBase, experiment, fmt, fmt_ci
from .claims import Estimate, NotTestable, estimate_of, paired_difference, t_interval, unavailable
from .guard import METHOD, check_comparison
from .results import (
    ACCURACY,
    DIVERGENCE_ENTROPY_FACTOR,
    LOG_FACTOR,
    column,
    entropy_retained,
    log_entropy_retained,
    step_time,
    tail_mean,
    total_time,
)

PAPER_TABLE1 = {  # erpo.txt table 1, "Average" columns: Acc, Fmt (%), per scale
    "base": "Acc 8.23 / Fmt 82.29 (7B)",
    "GRPO": "Acc 19.43 / Fmt 96.01 (7B); 12.17 / 93.93 (3B)",
    "ERPO": "Acc 20.70 / Fmt 96.98 (7B); 14.10 / 96.51 (3B)",
}
PAPER_TABLE2_AMC_7B = {  # erpo.txt table 2, AMC 23, Qwen2.5-7B: pass@2, 4, 8, 16 (%)
    "base": {2: 38.15, 4: 54.06, 8: 67.42, 16: 77.50},
    "GRPO": {2: 60.81, 4: 71.62, 8: 79.25, 16: 82.50},
    "ERPO": {2: 63.40, 4: 75.22, 8: 84.21, 16: 90.00},
}
ABLATION_SWITCHES = (
    "use_entropy_gate",
    "use_implicit_progress",
    "use_bucket_norm",
    "use_outcome_anchor",
    "use_psi_rescale",
    "use_group_norm",
)
COMPONENT = {
    "use_entropy_gate": "(i) entropy-aware gating, eq. 8",
    "use_bucket_norm": "(ii) bucket-based implicit normalisation, eq. 9",
    "use_outcome_anchor": "(iii) result-anchored advantage synthesis, eq. 10",
    "use_implicit_progress": "the implicit progress signal s, eq. 7",
    "use_psi_rescale": "the rescale of Psi, Alg. 1 line 19",
    "use_group_norm": "Norm_G of eq. 10",
}
TAIL = 5
EARLY_FRACTION = 0.2  # "initially": the first fifth of the logged steps


class Paper(PaperBase):
    name = "erpo"
    title = "ERPO: Token-Level Entropy-Regulated Policy Optimization — replication on the testbed"
    source = "../shared/papers/erpo.txt"
    intro = (
        "ERPO (Yu et al., arXiv 2603.28204) replaces GRPO's sequence advantage by token advantages: an implicit "
        "progress signal s = beta (log pi - log pi_ref) (eq. 7), z-scored within relative-position buckets (eq. 9), "
        "gated by the token's entropy W = sigmoid(gamma Norm_G(H)) (eq. 8) and anchored to the sign of the outcome "
        "advantage, added to A_i and renormalised per group (eq. 10). The paper reports higher accuracy and format "
        "rate than GRPO (table 1), higher pass@k (table 2), that perturbing high-entropy tokens hurts far more than "
        "low-entropy ones (fig. 1(b)), retained entropy (fig. 4) and shorter answers at no extra training time "
        "(fig. 5). Rows: `base` (the testbed's supervised base policy, which plays both Base and SFT), GRPO, ERPO."
    )

    def __init__(self, params):
        super().__init__(params)
        r = self.runs
        self.rows = [("base", r.base), ("GRPO", r.grpo), ("ERPO", r.erpo)]

    # ------------------------------------------------------------------ helpers
    def ablation_switch(self, run: str) -> str:
        """The one use_* switch that run ``run`` turns off (the ablation's label)."""
        spec = self.params.runs[run]
        off = [k for k in ABLATION_SWITCHES if spec.hparams.get(k) is False]
        if spec.method != "erpo" or len(off) != 1:
            return f"{spec.method}: not a one-switch ERPO ablation"
        return off[0]

    def discussion_notes(self) -> list[str]:
        """The Discussion's paper-specific paragraphs (after the generated lists): the mechanism, each explanation
        with the numbers from the runs that support it."""
        return [
            (
                "ERPO's sigma_target (the std its token signal Psi is rescaled to, eq. 10) is not given by the paper; "
                "the verdicts use the method's default and the sigma_target sensitivity runs show whether a verdict "
                "depends on it. With a small sigma_target ERPO's advantages approach GRPO's after the group "
                "normalisation of eq. 10; with a large one the sign of a token's advantage can differ from its "
                "response's outcome."
            )
        ]

    # ------------------------------------------------------------------ claims
    def declare_claims(self) -> None:
        """Every claim of erpo.txt's analysis (sec. 1, fig. 1) and experiments (sec. 5), in the paper's order."""
        r = self.runs
        acc = f"mean@n (accuracy over n samples = unbiased pass@1) of {r.erpo} minus {r.grpo}"
        self.claim(
            key="entropy_map",
            quote="This stands in stark contrast to deterministic computational steps that maintain near-zero "
            "entropy in "
            "Figure 1(a)",
            source="sec. 1, fig. 1(a)",
            paper_value="figure only (Qwen2.5-3B, AMC23)",
            ours="not computed",
            direction="less",
            margin=0.0,
            compute=lambda: unavailable(
                "not logged: fig. 1(a)'s per-token entropy map is not regenerated by this report"
            ),
        )
        p = self.settings.perturbation
        self.conjunction(
            key="perturbation",
            quote="perturbing high entropy token leads to a sharp 35.2% drop in inference accuracy ..., while the "
            "model "
            "remains highly robust to perturbations of low entropy steps",
            source="sec. 1, fig. 1(b)",
            paper_value="35.2% drop (truncation and random replacement on 2,460 MATH samples, no model named) vs "
            "robust",
            ours=f"fig. 1(b)'s protocol on `{p.policy}` (top / bottom {p.frac:.0%} entropy tokens replaced, rest "
            "regenerated), each drop measured against its control (token kept, rest regenerated)",
        )
        # The paper's 35.2% comes from another protocol and data set; +-0.10 is the band inside which a drop counts
        # as that size rather than a different one (a third of the paper's effect).
        self.claim(
            key="perturbation_top_drop",
            quote="perturbing high entropy token leads to a sharp 35.2% drop in inference accuracy",
            source="sec. 1",
            paper_value="35.2% drop",
            ours="accuracy drop after replacing a top-entropy token (control minus perturbed), per response",
            direction="equal",
            margin=0.10,
            compute=lambda: self._perturbation_drop("top"),
            reference=0.352,
            paper_effect=0.352,
            part_of="perturbation",
        )
        # "highly robust": the drop stays within 5 points of its control (a seventh of the high-entropy drop).
        self.claim(
            key="perturbation_bottom_robust",
            quote="the model remains highly robust to perturbations of low entropy steps",
            source="sec. 1, fig. 1(b)",
            paper_value="robust (no number)",
            ours="accuracy drop after replacing a bottom-entropy token (control minus perturbed), per response",
            direction="equal",
            margin=0.05,
            compute=lambda: self._perturbation_drop("bottom"),
            part_of="perturbation",
        )
        # Fig. 1(b) compares the two sets; 5 points of accuracy is the smallest gap between them that matters.
        self.claim(
            key="perturbation_hubs",
            quote="Perturbing these high-entropy hubs resulted in a significant decrease in final accuracy",
            source="fig. 1(b) caption",
            paper_value="significant (p < 0.001; 50 AMC23 questions, Qwen2.5-3B)",
            ours="top-entropy drop minus bottom-entropy drop (each against its control), per response",
            direction="greater",
            margin=0.05,
            compute=self._perturbation_gap,
        )
        # Table 1's smallest average gain over GRPO is 0.56 points (1.5B Acc): half a point is the smallest effect
        # that matters, in accuracy and in format rate alike.
        self.conjunction(
            key="average_metrics",
            quote="ERPO ... consistently outperforms GRPO across all average metrics",
            source="sec. 5.3, table 1 (Average)",
            paper_value="Acc 20.70 vs 19.43 (7B), 14.10 vs 12.17 (3B), 9.31 vs 8.75 (1.5B); Fmt 96.98 vs 96.01, "
            "96.51 vs 93.93, "
            "94.32 vs 92.50",
            ours="both averages of table 1 (Acc and Fmt) on the testbed's one evaluation set",
        )
        self.claim(
            key="average_acc",
            quote="ERPO ... consistently outperforms GRPO across all average metrics",
            source="table 1 (Acc, Average)",
            paper_value="20.70 vs 19.43 (7B)",
            ours=acc,
            direction="greater",
            margin=0.005,
            compute=lambda: self.compare(r.erpo, r.grpo, ACCURACY),
            paper_effect=0.0127,
            part_of="average_metrics",
        )
        self.claim(
            key="average_fmt",
            quote="ERPO ... consistently outperforms GRPO across all average metrics",
            source="table 1 (Fmt, Average)",
            paper_value="96.98 vs 96.01 (7B)",
            ours=f"format rate (boxed answers) of {r.erpo} minus {r.grpo}",
            direction="greater",
            margin=0.005,
            compute=lambda: self.compare(r.erpo, r.grpo, "format_rate"),
            paper_effect=0.0097,
            part_of="average_metrics",
        )
        self.claim(
            key="amc_3b",
            quote="ERPO delivers an absolute performance improvement of nearly 5% on the AMC dataset at the 3B scale",
            source="sec. 5.3, table 1",
            paper_value="37.50 vs 32.81 (+4.69)",
            ours="not computed",
            direction="greater",
            margin=0.0,
            compute=lambda: unavailable(
                "benchmark and scale: AMC23 at 3B; the testbed has one synthetic evaluation set"
            ),
        )
        self.claim(
            key="beats_commercial",
            quote="ERPO-7B achieves an accuracy of 49.53, substantially outperforming DeepSeek-R1-671B-0528 (33.91) "
            "and "
            "Qwen3-235B-A22B-Instruct (47.81)",
            source="sec. 5.3, table 1",
            paper_value="49.53 vs 33.91 and 47.81 (AMC23)",
            ours="not computed",
            direction="greater",
            margin=0.0,
            compute=lambda: unavailable("scale: no 671B / 235B commercial model on the testbed"),
        )
        self.claim(
            key="fmt_steady",
            quote="the format consistency rate (Fmt) also shows a steady improvement across all benchmarks",
            source="sec. 5.3, table 1 (Fmt)",
            paper_value="its own table has ERPO below GRPO on 3B AMC23 (96.72 vs 97.03) and 7B Minerva (98.75 vs "
            "98.91)",
            ours=f"format rate (boxed answers) of {r.erpo} minus {r.grpo} on the testbed's one evaluation set",
            direction="greater",
            margin=0.005,
            compute=lambda: self.compare(r.erpo, r.grpo, "format_rate"),
            paper_effect=0.0097,
        )
        self.claim(
            key="sft_below_base",
            quote="certain SFT models perform worse than their corresponding base models after fine-tuning",
            source="sec. 5.3, table 1",
            paper_value="e.g. 7B SFT 6.20 vs Base 8.23",
            ours="not computed",
            direction="less",
            margin=0.0,
            compute=lambda: unavailable(
                "not separable here: the testbed's base policy is itself the supervised (SFT) warm-up, so there is "
                "no pre-SFT base row"
            ),
        )
        ks = self.settings.pass_at_k
        self.conjunction(
            key="rl_pass_growth",
            quote="the improvement is significantly more pronounced for models trained with reinforcement learning "
            "(GRPO "
            "and ERPO)",
            source="sec. 5.4, table 2",
            paper_value="its own table contradicts it at 7B AMC23: Base +39.35 from @2 to @16, GRPO +21.69, ERPO "
            "+26.60",
            ours=f"growth of pass@k from k = {min(ks)} to k = {max(ks)} of each RL run minus the base policy's",
        )
        for label, run in (("grpo", r.grpo), ("erpo", r.erpo)):
            # half a point of pass@k: the unit table 2 is printed in is a hundredth of a point; 0.005 as for Acc
            self.claim(
                key=f"rl_pass_growth_{label}",
                quote="the improvement is significantly more pronounced for models trained with reinforcement learning "
                "(GRPO and ERPO)",
                source="table 2",
                paper_value="GRPO +21.69 vs Base +39.35 (7B AMC23)"
                if label == "grpo"
                else "ERPO +26.60 vs Base +39.35",
                ours=f"(pass@{max(ks)} - pass@{min(ks)}) of {run} minus the base policy's",
                direction="greater",
                margin=0.005,
                compute=lambda run=run: self._pass_growth_over_base(run),
                part_of="rl_pass_growth",
            )
        self.claim(
            key="beats_commercial_passk",
            quote="at the 7B scale, it completely surpasses these much larger models",
            source="sec. 5.4, table 2",
            paper_value="AMC23 7B pass@k vs DeepSeek-R1-671B and Qwen3-235B",
            ours="not computed",
            direction="greater",
            margin=0.0,
            compute=lambda: unavailable("scale: no 671B / 235B commercial model on the testbed"),
        )
        self.claim(
            key="passk_vs_grpo",
            quote="ERPO consistently outperforms GRPO under the same parameter scale across most sampling settings",
            source="sec. 5.4, table 2",
            paper_value="ERPO > GRPO in 27 of the 48 (scale, benchmark, k) cells, 3 ties, 18 below (1.5B: 5 of 16)",
            ours=f"mean over k in {ks} of pass@k (unbiased) of {r.erpo} minus {r.grpo}",
            direction="greater",
            margin=0.005,
            compute=self._pass_at_k_difference,
        )
        self.claim(
            key="convergence_3b_7b",
            quote="ERPO achieves higher final accuracy and faster convergence than the GRPO baseline on the 3B and "
            "7B scales",
            source="sec. 5.5, fig. 3(b-c)",
            paper_value="curves only",
            ours="not computed",
            direction="greater",
            margin=0.0,
            compute=lambda: unavailable("scale: a claim about the 3B and 7B models; the testbed has one small model"),
        )
        self.claim(
            key="trajectory_1_5b",
            quote="On the 1.5B scale, we observe that ERPO initially underperforms GRPO before rising sharply in the "
            "later "
            "stages",
            source="sec. 5.5, fig. 3(a)",
            paper_value="curves only",
            ours="not computed",
            direction="greater",
            margin=0.0,
            compute=lambda: unavailable(
                "scale and not logged: a claim about the 1.5B model's benchmark accuracy during training; the "
                "testbed evaluates final checkpoints only (sec. 5.6's reward trajectory is tested below)"
            ),
        )
        # Rewards are in [0, 2] (accuracy + format); 0.01 is the smallest gap in mean reward that matters.
        early = f"the first {EARLY_FRACTION:.0%} of steps"
        self.conjunction(
            key="reward_trajectory",
            quote="Although ERPO’s reward is initially lower than GRPO’s due to the emphasis on exploration, it "
            "eventually "
            "exceeds the baseline",
            source="sec. 5.6, fig. 4(a)",
            paper_value="curves only",
            ours=f"training reward of {r.erpo} minus {r.grpo}: over {early}, and over the last {TAIL} steps",
        )
        self.claim(
            key="reward_early_lower",
            quote="ERPO’s reward is initially lower than GRPO’s",
            source="fig. 4(a)",
            paper_value="curves only",
            ours=f"mean training reward over {early} of {r.erpo} minus {r.grpo}, per seed",
            direction="less",
            margin=0.01,
            compute=lambda: self.results.compare_history(r.erpo, r.grpo, lambda h: early_mean(h, "reward")),
            part_of="reward_trajectory",
        )
        self.claim(
            key="reward_late_higher",
            quote="it eventually exceeds the baseline",
            source="fig. 4(a)",
            paper_value="curves only",
            ours=f"mean training reward over the last {TAIL} steps of {r.erpo} minus {r.grpo}, per seed",
            direction="greater",
            margin=0.01,
            compute=lambda: self.results.compare_history(r.erpo, r.grpo, lambda h: tail_mean(h, "reward")),
            part_of="reward_trajectory",
        )
        self.conjunction(
            key="entropy_band",
            quote="ERPO maintains a healthy entropy level between 0.2 and 0.4 in the late stages, whereas GRPO suffers "
            "from entropy collapse",
            source="sec. 5.6, fig. 4(b)",
            paper_value="late entropy 0.2-0.4 (ERPO) vs 0.05 (GRPO)",
            ours=f"entropy retained (rollout entropy over the last {TAIL} steps / step 1) of each run",
        )
        # "healthy": neither collapsed (below half its start) nor diverged (past results' divergence factor 2):
        # the band [0.5, 2.0] = 1.25 +- 0.75, which a diverging run fails.
        self.claim(
            key="entropy_erpo_healthy",
            quote="ERPO maintains a healthy entropy level between 0.2 and 0.4 in the late stages",
            source="fig. 4(b)",
            paper_value="0.2-0.4 (absolute nats at 7B; not comparable to the testbed's)",
            ours=f"log entropy retained of {r.erpo}, per seed (band [0.5, {DIVERGENCE_ENTROPY_FACTOR:g}]: |log| <= "
            "log 2)",
            direction="equal",
            margin=LOG_FACTOR,
            compute=lambda: self.single_run(r.erpo, log_entropy_retained),
            part_of="entropy_band",
        )
        # "collapse": the paper's GRPO ends at 0.05 against ERPO's 0.2-0.4, an eighth to a quarter; less than half
        # its start is a collapse here, with a margin of 0.05.
        self.claim(
            key="entropy_grpo_collapse",
            quote="GRPO suffers from entropy collapse",
            source="fig. 4(b)",
            paper_value="0.05 late",
            ours=f"entropy retained of {r.grpo}, per seed (collapse: below 0.5)",
            direction="less",
            margin=0.05,
            compute=lambda: self.single_run(r.grpo, entropy_retained),
            reference=0.5,
            part_of="entropy_band",
        )
        # "explosion": a step whose gradient norm exceeds 10 times the run's median (an order of magnitude)
        self.claim(
            key="grad_norm_stable",
            quote="The gradient norms of ERPO remain stable throughout the process, showing no signs of gradient "
            "explosion",
            source="sec. 5.6, fig. 4(c)",
            paper_value="curves only",
            ours=f"largest gradient norm of {r.erpo} over its median, per seed (an explosion: 10 or more)",
            direction="less",
            margin=1.0,
            compute=lambda: self.single_run(r.erpo, lambda h: spike_ratio(h, "grad_norm")),
            reference=10.0,
        )
        self.conjunction(
            key="kl",
            quote="our KL divergence is slightly higher than that of standard GRPO ... It remains well controlled "
            "without "
            "the sharp spikes observed in the baseline",
            source="sec. 5.6, fig. 4(d)",
            paper_value="curves only",
            ours=f"KL to the reference (k3) of {r.erpo} and {r.grpo}: its late level and its spikes",
        )
        self.claim(
            key="kl_higher",
            quote="our KL divergence is slightly higher than that of standard GRPO",
            source="fig. 4(d)",
            paper_value="slightly higher (no number)",
            ours=f"mean KL to the reference over the last {TAIL} steps of {r.erpo} minus {r.grpo}, per seed",
            direction="greater",
            margin=0.0,
            compute=lambda: self.results.compare_history(r.erpo, r.grpo, lambda h: tail_mean(h, "kl_to_reference"), 4),
            part_of="kl",
        )
        # a spike: the run's largest KL over its median; fewer spikes = a ratio smaller by at least 1
        self.claim(
            key="kl_no_spikes",
            quote="It remains well controlled without the sharp spikes observed in the baseline",
            source="fig. 4(d)",
            paper_value="curves only",
            ours=f"largest KL to the reference over its median of {r.erpo} minus {r.grpo}, per seed",
            direction="less",
            margin=1.0,
            compute=lambda: self.results.compare_history(r.erpo, r.grpo, lambda h: spike_ratio(h, "kl_to_reference")),
            part_of="kl",
        )
        self.conjunction(
            key="shorter",
            quote="our models achieve higher accuracy while maintaining shorter sequence lengths",
            source="sec. 5.7, fig. 5(a)",
            paper_value="higher accuracy, shorter at the best checkpoint (7B, no number)",
            ours=f"accuracy and evaluation response length of {r.erpo} against {r.grpo}",
        )
        self.claim(
            key="shorter_acc",
            quote="our models achieve higher accuracy",
            source="fig. 5(a)",
            paper_value="20.70 vs 19.43 (7B avg.)",
            ours=acc,
            direction="greater",
            margin=0.005,
            compute=lambda: self.compare(r.erpo, r.grpo, ACCURACY),
            paper_effect=0.0127,
            part_of="shorter",
        )
        # one token of ~30 is the smallest length difference that matters (a boxed guess is a few tokens)
        self.claim(
            key="shorter_length",
            quote="maintaining shorter sequence lengths",
            source="fig. 5(a)",
            paper_value="shorter (no number)",
            ours=f"mean evaluation response length (tokens, all responses) of {r.erpo} minus {r.grpo}",
            direction="less",
            margin=1.0,
            compute=lambda: self.compare(r.erpo, r.grpo, "response_length"),
            part_of="shorter",
        )
        self.conjunction(
            key="length_trend",
            quote="while our generation length is slightly higher during the initial exploration phase, it drops "
            "significantly below the GRPO length in the later stages while maintaining superior accuracy",
            source="sec. 5.7, fig. 5(c)",
            paper_value="curves only",
            ours=f"rollout length over {early} and over the last {TAIL} steps, and accuracy, of {r.erpo} against "
            f"{r.grpo}",
        )
        self.claim(
            key="length_early_higher",
            quote="our generation length is slightly higher during the initial exploration phase",
            source="fig. 5(c)",
            paper_value="curves only",
            ours=f"mean rollout length (tokens) over {early} of {r.erpo} minus {r.grpo}, per seed",
            direction="greater",
            margin=0.0,
            compute=lambda: self.results.compare_history(
                r.erpo, r.grpo, lambda h: early_mean(h, "completions/mean_length"), 1
            ),
            part_of="length_trend",
        )
        self.claim(
            key="length_late_lower",
            quote="it drops significantly below the GRPO length in the later stages",
            source="fig. 5(c)",
            paper_value="curves only",
            ours=f"mean rollout length (tokens) over the last {TAIL} steps of {r.erpo} minus {r.grpo}, per seed",
            direction="less",
            margin=1.0,
            compute=lambda: self.results.compare_history(
                r.erpo, r.grpo, lambda h: tail_mean(h, "completions/mean_length"), 1
            ),
            part_of="length_trend",
        )
        self.claim(
            key="length_trend_acc",
            quote="while maintaining superior accuracy",
            source="fig. 5(c)",
            paper_value="20.70 vs 19.43 (7B avg.)",
            ours=acc,
            direction="greater",
            margin=0.005,
            compute=lambda: self.compare(r.erpo, r.grpo, ACCURACY),
            paper_effect=0.0127,
            part_of="length_trend",
        )
        # "almost no increase": within 10% of GRPO's total time
        self.claim(
            key="time",
            quote="the total training time for ERPO is comparable to GRPO with almost no increase",
            source="sec. 5.7, fig. 5(b)",
            paper_value="comparable (no number)",
            ours=f"total wall time of {r.erpo} / {r.grpo} - 1, per seed (runs share the machine: noisy)",
            direction="equal",
            margin=0.1,
            compute=self._time_claim,
        )
        self.conjunction(
            key="outperforms_grpo_sft",
            quote="ERPO significantly outperforms standard GRPO and traditional supervised fine-tuning",
            source="sec. 6",
            paper_value="table 1: e.g. 7B 20.70 vs GRPO 19.43 and SFT 6.20",
            ours=f"accuracy of {r.erpo} against {r.grpo} and against the SFT policy (the testbed's base)",
        )
        self.claim(
            key="outperforms_grpo",
            quote="ERPO significantly outperforms standard GRPO",
            source="sec. 6, table 1",
            paper_value="20.70 vs 19.43 (7B)",
            ours=acc,
            direction="greater",
            margin=0.005,
            compute=lambda: self.compare(r.erpo, r.grpo, ACCURACY),
            paper_effect=0.0127,
            part_of="outperforms_grpo_sft",
        )
        self.claim(
            key="outperforms_sft",
            quote="traditional supervised fine-tuning",
            source="sec. 6, table 1",
            paper_value="20.70 vs 6.20 (7B)",
            ours=f"mean@n of {r.erpo} minus the base policy (the testbed's SFT warm-up)",
            direction="greater",
            margin=0.005,
            compute=lambda: self.compare(r.erpo, r.base, ACCURACY),
            paper_effect=0.145,
            part_of="outperforms_grpo_sft",
        )

    def _drops(self, which: str) -> np.ndarray:
        """(S,) per studied seed: the mean over its responses of control accuracy minus perturbed accuracy at the
        ``which`` entropy tokens."""
        out = []
        for study in self.perturbation_study():
            per_response = study["per_response"][which]
            control, perturbed = (np.asarray(per_response[k], dtype=float) for k in ("control", "perturbed"))
            out.append(float((control - perturbed).mean()))
        return np.asarray(out)

    def _perturbation_drop(self, which: str) -> Estimate:
        drops = self._drops(which)
        return estimate_of(drops, detail=f"{which}-entropy drop {drops.mean():.3f}{self._perturbation_detail()}")

    def _perturbation_gap(self) -> Estimate:
        top, bottom = self._drops("top"), self._drops("bottom")
        detail = f"drop {top.mean():.3f} (top) vs {bottom.mean():.3f} (bottom){self._perturbation_detail()}"
        return estimate_of(top - bottom, detail=detail)

    def _perturbation_detail(self) -> str:
        studies = self.perturbation_study()
        responses = [s["n_responses"] for s in studies]
        return f"; {len(studies)} seeds' policies, {min(responses)}-{max(responses)} responses each"

    def _pass_growth_over_base(self, run: str) -> Estimate:
        ks, base = self.settings.pass_at_k, self.runs.base
        growth = {
            name: self.results.eval_table(name, f"pass@{max(ks)}") - self.results.eval_table(name, f"pass@{min(ks)}")
            for name in (run, base)
        }
        return paired_difference(growth[run], growth[base], labels=(self.results.label(run), base))

    def _pass_at_k_difference(self) -> Estimate:
        r, ks = self.runs, self.settings.pass_at_k
        check_comparison(self.params, r.erpo, r.grpo, (METHOD,))
        mean_pass = {
            run: np.mean([self.results.eval_table(run, f"pass@{k}") for k in ks], axis=0) for run in (r.erpo, r.grpo)
        }
        return paired_difference(
            mean_pass[r.erpo], mean_pass[r.grpo], labels=(self.results.label(r.erpo), self.results.label(r.grpo))
        )

    def _time_claim(self) -> Estimate:
        r = self.runs
        check_comparison(self.params, r.erpo, r.grpo, (METHOD,))
        a = self.results.per_seed(r.erpo, total_time)
        b = self.results.per_seed(r.grpo, total_time)
        return estimate_of(a / b - 1, detail=f"{r.erpo} {a.mean():.1f} s vs {r.grpo} {b.mean():.1f} s in total")

    # ------------------------------------------------------------------ experiments
    @experiment("Table 1: accuracy and format rate")
    def table1(self, heading: str) -> pd.DataFrame:
        raw, shown = self.eval_table(self.rows, [ACCURACY, "format_rate"], PAPER_TABLE1, "paper (avg. over 4 sets, %)")
        shown = shown.rename(columns={ACCURACY: "Acc (mean@n)", "format_rate": "Fmt (boxed rate)"})
        self.report.add_table(
            heading,
            "table1",
            raw,
            shown,
            "Acc: mean accuracy over the n evaluation samples of each problem; Fmt: share of samples with a closed "
            "\\boxed{}. Mean over seeds and problems [95% two-way bootstrap interval].",
        )
        return shown

    @experiment("Table 2: pass@k")
    def table2(self, heading: str) -> pd.DataFrame:
        ks = self.settings.pass_at_k
        raw, shown = self.eval_table(self.rows, [f"pass@{k}" for k in ks])
        paper = {
            label: ", ".join(f"{PAPER_TABLE2_AMC_7B[label].get(k, MISSING)}" for k in ks) for label, _ in self.rows
        }
        shown["paper (AMC23, 7B, %)"] = [paper[label] for label, _ in self.rows]
        self.report.add_table(
            heading,
            "table2_pass_at_k",
            raw,
            shown,
            f"Unbiased pass@k for k in {ks} from the n samples per problem ({MISSING}: k > n).",
        )
        return shown

    def perturbation_study(self) -> list[dict]:
        """fig. 1(b)'s study, one entry per studied seed (cached), from the ``sample_erpo_perturbation`` stage's
        reports/samples/erpo_perturbation.json. A seed whose policy solved nothing makes the study not testable."""
        if "_perturbation" not in self._done:
            try:
                per_seed = sampling.load_study("erpo_perturbation", self.params)["per_seed"]
                failed = [s for s in per_seed if "not_testable" in s]
                if failed:
                    raise NotTestable(f"seed {failed[0]['seed']}: {failed[0]['not_testable']}")
                self._done["_perturbation"] = per_seed
            except NotTestable as reason:
                self._done["_perturbation"] = reason
        if isinstance(self._done["_perturbation"], NotTestable):
            raise self._done["_perturbation"]
        return self._done["_perturbation"]

    @experiment("Fig. 1(b): perturbing high- and low-entropy tokens")
    def figure1b(self, heading: str):
        p = self.settings.perturbation
        studies = self.perturbation_study()
        rows = []
        for which, label in (("top", f"top {p.frac:.0%} entropy"), ("bottom", f"bottom {p.frac:.0%} entropy")):
            mean, low, high, _ = t_interval(np.array([s["accuracy"][which]["value"] for s in studies]))
            rows.append(
                {
                    "tokens perturbed": label,
                    "accuracy": mean,
                    "accuracy_ci_low": low,
                    "accuracy_ci_high": high,
                    "control_accuracy": float(np.mean([s["control_accuracy"][which]["value"] for s in studies])),
                    "mean_entropy": float(np.mean([s["mean_entropy"][which] for s in studies])),
                    "trials": int(sum(s["n_trials"][which] for s in studies)),
                }
            )
        raw = pd.DataFrame(rows)
        shown = pd.DataFrame(
            {
                "tokens perturbed": raw["tokens perturbed"],
                "accuracy after perturbation": [
                    fmt_ci(a, lo, hi) for a, lo, hi in raw[["accuracy", "accuracy_ci_low", "accuracy_ci_high"]].values
                ],
                "control (token kept, rest regenerated)": [fmt(v) for v in raw["control_accuracy"]],
                "mean entropy of those tokens (nats)": [fmt(v) for v in raw["mean_entropy"]],
                "trials": raw["trials"],
            }
        )
        text = (
            f"Policy `{p.policy}` of each of {len(studies)} training seeds (sampled with its seed; accuracy: mean "
            "over seeds [t interval over the seeds]); per seed, "
            f"{'-'.join(str(f(s['n_responses'] for s in studies)) for f in (min, max))} responses it answered "
            f"correctly (one per problem, from {p.samples} samples each); at each selected position the token is "
            f"replaced ({p.replacement}) and the "
            "policy regenerates the rest; the control keeps the token. Paper: Qwen2.5-3B, perturbing the top 5% "
            "drops accuracy by 35.2%, the bottom 5% barely matters."
        )
        self.report.section(heading, text)
        self.report.add_table(heading, "figure1b_perturbation", raw, shown)
        fig, (ax,) = plots.new_figure(1, ncols=1, panel_size=(5.0, 3.6))
        for i, row in raw.iterrows():
            ax.bar(i, row["accuracy"], color=plots.QUANTITY_COLORS[i], label=f"perturbed: {row['tokens perturbed']}")
            ax.errorbar(
                i,
                row["accuracy"],
                yerr=[[row["accuracy"] - row["accuracy_ci_low"]], [row["accuracy_ci_high"] - row["accuracy"]]],
                color="black",
                capsize=3,
            )
            ax.plot(
                [i - 0.4, i + 0.4],
                [row["control_accuracy"]] * 2,
                "--",
                color="black",
                linewidth=1,
                label="control (token kept)" if i == 0 else None,
            )
        ax.set_xticks(range(len(raw)), raw["tokens perturbed"])
        ax.set_xlabel("tokens perturbed (by entropy rank)")
        ax.set_ylabel("accuracy (fraction)")
        ax.set_ylim(0, 1.05)
        plots.figure_legend(fig)
        plots.figure_title(fig, f"Paper fig. 1(b): perturbation study on `{p.policy}` (bars: 95% interval)")
        self.report.add_figure(
            heading,
            "figure1b_perturbation",
            fig,
            "The table as bars: accuracy after perturbation with its 95% interval over seeds, the dashed line its "
            "control; a bar far below its line is a token position the answer depends on.",
        )
        return shown

    @experiment("Fig. 4: training dynamics")
    def figure4(self, heading: str):
        r = self.runs
        fig = self.curves(
            [r.grpo, r.erpo],
            [
                ("reward", "(a) reward", "linear"),
                ("entropy/mean", "(b) entropy (log scale)", "log"),
                ("grad_norm", "(c) grad norm", "linear"),
                ("kl_to_reference", "(d) KL to reference", "linear"),
            ],
            ema_alpha=self.settings.ema_alpha,
            title=f"Paper fig. 4: ERPO vs GRPO (EMA alpha = {self.settings.ema_alpha}; raw faint)",
        )
        self.report.add_figure(heading, "figure4_training_dynamics", fig)
        return fig

    @experiment("Fig. 5: response length and training time")
    def figure5(self, heading: str):
        r = self.runs
        trained = [("GRPO", r.grpo), ("ERPO", r.erpo)]
        raw_eval, shown_eval = self.eval_table(self.rows, [ACCURACY, "response_length"])
        raw_t, shown_t = self.seed_values_table(
            trained, {"total training time (s)": total_time, "time per step (s)": step_time}
        )
        self.report.add_table(heading, "figure5a_accuracy_length", raw_eval, shown_eval, "(a) accuracy and length")
        self.report.add_table(heading, "figure5b_training_time", raw_t, shown_t, "(b) training time, mean (per seed)")
        fig, axes = plots.new_figure(3, ncols=3, panel_size=(4.0, 3.2))
        for label, run in self.rows:
            acc, length = self.results.eval_summary(run, ACCURACY)[0], self.results.eval_summary(run, "response_length")
            axes[0].errorbar(
                length[0],
                acc,
                xerr=[[length[0] - length[1]], [length[2] - length[0]]],
                label=label,
                **{**self.styles[run].points(), "linestyle": "none"},
            )
        axes[0].set_xlabel("response length (tokens)")
        axes[0].set_ylabel("accuracy (mean@n)")
        plots.panel_title(axes[0], "(a) accuracy vs length (95% interval)")
        for i, (_, run) in enumerate(trained):
            values = self.results.per_seed(run, total_time)
            axes[1].bar(i, values.mean(), color=self.styles[run].color)
            self.per_seed_points(axes[1], i, values, self.styles[run].color)
        axes[1].set_xticks(range(len(trained)), [label for label, _ in trained])
        axes[1].set_xlabel("run (points: seeds)")
        axes[1].set_ylabel("total training time (s)")
        plots.panel_title(axes[1], "(b) total training time")
        for label, run in trained:
            plots.plot_curve(
                axes[2],
                self.results.history(run),
                "completions/mean_length",
                self.styles[run],
                label,
                self.settings.ema_alpha,
            )
        plots.label_step_axes(axes[2], "completions/mean_length")
        plots.panel_title(axes[2], f"(c) rollout length (EMA {self.settings.ema_alpha})")
        plots.figure_legend(fig)
        plots.figure_title(fig, f"Paper fig. 5: response length and training time ({plots.BAND_NOTE})")
        self.report.add_figure(heading, "figure5_length_time", fig)
        return fig

    @experiment("Ablations: one component off at a time")
    def ablations(self, heading: str) -> pd.DataFrame:
        r = self.runs
        rows = []
        raw_rows = []
        for run in [r.erpo, *r.ablations]:
            value, low, high = self.results.eval_summary(run, ACCURACY)
            switch = "none (full ERPO)" if run == r.erpo else self.ablation_switch(run)
            retained = self.results.per_seed(run, entropy_retained).mean()
            if run == r.erpo:
                diff = MISSING
                d = Estimate(math.nan, math.nan, math.nan, 0)
            else:
                d = self.compare(run, r.erpo, ACCURACY, differs_in=(f"method.{switch}",))
                diff = fmt_ci(d.value, d.ci_low, d.ci_high)
            raw_rows.append(
                {
                    "run": run,
                    "switch_off": switch,
                    "accuracy": value,
                    "accuracy_ci_low": low,
                    "accuracy_ci_high": high,
                    "minus_erpo": d.value,
                    "minus_erpo_ci_low": d.ci_low,
                    "minus_erpo_ci_high": d.ci_high,
                    "entropy_retained": retained,
                }
            )
            rows.append(
                {
                    "run": f"`{run}`",
                    "switched off": switch,
                    "component": COMPONENT.get(switch, MISSING),
                    "mean@n": fmt_ci(value, low, high),
                    "minus ERPO (paired)": diff,
                    "entropy retained": fmt(retained),
                }
            )
        shown = pd.DataFrame(rows)
        self.report.add_table(
            heading,
            "ablations",
            pd.DataFrame(raw_rows),
            shown,
            "The paper has no ablation; its abstract names three components (i-iii) and eq. 7's progress signal is "
            "the fourth ingredient. Each run turns one `use_*` switch off (docs/assumptions.md, ERPO).",
        )
        return shown

    def real_data_counts(self) -> dict:
        if "_counts" not in self._done:
            try:
                self._done["_counts"] = count_real_data(self.params, self.settings.real_data)
            except NotTestable as reason:
                self._done["_counts"] = reason
        if isinstance(self._done["_counts"], NotTestable):
            raise self._done["_counts"]
        return self._done["_counts"]

    @experiment("App. A.3: the training-set filter on the real MATH files")
    def real_data(self, heading: str) -> pd.DataFrame:
        rd = self.settings.real_data
        try:
            c = self.real_data_counts()
        except NotTestable as reason:
            self.report.section(heading, f"Not counted: {reason}.")
            return pd.DataFrame()
        raw = pd.DataFrame([c])
        shown = pd.DataFrame(
            [
                {"step": f"{rd.train_set} (MATH train + test, MATH-500 removed)", "problems": f"{c['loaded']:,}"},
                {"step": f"levels {rd.levels}", "problems": f"{c['levels']:,}"},
                {
                    "step": f"solution <= {rd.fraction:g} x {rd.max_length} = {c['budget']:g} Qwen2.5 tokens",
                    "problems": f"{c['kept']:,}",
                },
                {"step": "the paper (App. A.3)", "problems": f"{c['paper']:,}"},
                {
                    "step": f"solution budget that would keep {c['paper']:,}",
                    "problems": f"{c['budget_for_paper']} tokens",
                },
            ]
        )
        self.report.section(heading, c["note"])
        self.report.add_table(heading, "real_data_filter", raw, shown)
        return shown

    @experiment("Sensitivity: sigma_target")
    def sensitivity(self, heading: str) -> pd.DataFrame:
        """ERPO with sigma_target (eq. 10's target std of Psi, not given in the paper) at 1/4 and 4 times ours."""
        return self.sensitivity_table(heading, self.runs.erpo, self.runs.grpo, self.runs.sensitivity)


def early_mean(history: pd.DataFrame, key: str, fraction: float = EARLY_FRACTION) -> float:
    """Mean of one seed's ``key`` over the first ``fraction`` of its logged steps (at least one step)."""
    series = column(history, key)
    return float(series.head(max(1, math.ceil(fraction * len(series)))).mean())


def spike_ratio(history: pd.DataFrame, key: str) -> float:
    """One seed's largest ``key`` over its median: how far its sharpest spike rises above the typical step."""
    series = column(history, key)
    return float(series.max() / series.median())


# ----------------------------------------------------------------------------- computations
def count_real_data(params, settings) -> dict:
    """App. A.3's filter on the real files: rows after the level filter and after the solution-length filter with
    the Qwen2.5 tokenizer, and the budget that would keep the paper's count. NotTestable without the files."""
    from .. import data as real_data

    if not settings.enabled:
        raise NotTestable("papers.erpo.real_data.enabled is false")
    root = real_data.resolve_data_root(params.data.root)
    needed = [root / "math_hendrycks" / "train.jsonl", root / "tokenizers" / "qwen.tiktoken"]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        raise NotTestable(f"the real files are not here ({', '.join(missing)}; set data.root or $RLVR_DATA_ROOT)")
    rows = real_data.filter_by_level(real_data.load_training_set(settings.train_set, root), settings.levels)
    tokenizer = real_data.length_tokenizer(None, root)
    lengths = np.sort(real_data.token_lengths(tokenizer, [r["solution"] for r in rows]))
    budget = settings.fraction * settings.max_length
    kept = int((lengths <= budget).sum())
    loaded = len(real_data.load_training_set(settings.train_set, root))
    paper = settings.paper_count
    needed_budget = int(lengths[paper - 1]) if paper <= len(lengths) else None
    note = (
        f"{kept:,} of {len(rows):,} level-{settings.levels} problems have a reference solution of at most "
        f"{budget:g} Qwen2.5 tokens (the paper's '10% of the maximum output length' read literally); the paper "
        f"reports {paper:,}. Keeping {paper:,} would take a budget of "
        + (f"{needed_budget} tokens" if needed_budget else f"more problems than the {len(rows):,} at these levels")
        + ", so the paper's base set or its counting differs (docs/assumptions.md, ERPO's solution-length filter)."
    )
    return {
        "loaded": loaded,
        "levels": len(rows),
        "budget": budget,
        "kept": kept,
        "paper": paper,
        "budget_for_paper": needed_budget if needed_budget is not None else MISSING,
        "note": note,
    }
