"""ERPO's claims, declarations only, in the paper's order: each names its measure with ``measure(fn, *args)``, a
shared measure of ``rlvr_lib.papers.framework.declare`` or a function of ``rlvr_lib.papers.erpo.measures``."""

from __future__ import annotations

from functools import partial

from rlvr_lib.papers.erpo import measures
from rlvr_lib.papers.erpo.measures import HEALTHY_BAND, LEARNED, early_mean, spike_ratio
from rlvr_lib.papers.framework.claims import CONTRAST, FORMULA, INDISCRIMINATE, ISSUE40, Fixed, Formula
from rlvr_lib.papers.framework.declare import (
    compare,
    compare_history,
    measure,
    null_value,
    per_seed,
    single_run,
    unavailable,
)
from rlvr_lib.papers.framework.measures import EARLY_SHARE, TAIL_LABEL, end_mean, log_entropy_retained, whole_mean
from rlvr_lib.papers.framework.results import ACCURACY

BUILT_IN = Formula(
    "a property the testbed was built to have (docs/testbed.md, 'Forks matter': copy tokens next to the forks), "
    "measured on the base policy's first batch: true of every policy on this task by construction"
)
SHARPENING = Formula(
    "the testbed was built to show RLVR's sharpening (docs/testbed.md: mean@k up, pass@k at large k flat or down "
    "under GRPO): GRPO's pass@k grows less with k than the base policy's by design, whatever the paper's claim"
)
GATE = Formula(
    "eq. 8's gate W = sigmoid(gamma Norm_G(H)) increases with the token's entropy by construction, so the token "
    "signal is amplified where entropy is high and damped where it is low; the row shows how selective it is here"
)
EQ11 = Formula(
    "eqs. 11-15 are an algebraic identity that treats the scaling factors Lambda as constants of the step; no run "
    "can show or refute it"
)
EQ16 = Formula(
    "eq. 16 makes a group's advantages sum to zero by construction; this row checks that rlvr_lib.methods.erpo "
    "implements it (a code check, not evidence about the paper)"
)


def declare(paper) -> None:
    """Every claim of erpo.txt's analysis (sec. 1, fig. 1), method (sec. 4) and experiments (sec. 5), in the
    paper's order."""
    r, p, ks = paper.runs, paper.settings.perturbation, paper.settings.pass_at_k
    claim, conjunction = paper.claim, paper.conjunction
    acc = f"mean@n (accuracy over n samples = unbiased pass@1) of {r.erpo} minus {r.grpo}"
    end = TAIL_LABEL
    early = f"the first {EARLY_SHARE:.0%} of the rollout batches"
    vs_grpo = partial(measure, compare_history, r.erpo, r.grpo)  # a per-seed history quantity, ERPO minus GRPO
    beyond = partial(claim, ours="not computed", direction="greater", margin=0.0)  # the testbed cannot test it
    # Table 1's smallest average gain over GRPO is 0.56 points (1.5B Acc): half a point is the smallest effect
    # that matters, in accuracy and in format rate alike (and in pass@k, whose table prints hundredths of a point).
    half_point = partial(claim, direction="greater", margin=0.005)
    erpo_acc = measure(compare, r.erpo, r.grpo, ACCURACY)
    accuracy_gain = partial(half_point, ours=acc, compute=erpo_acc, paper_effect=0.0127, measure=ACCURACY)
    ablated = partial(half_point, null=CONTRAST, measure=ACCURACY)  # ERPO's mean@n over a one-switch ablation's
    # fig. 1(a): an entropy map of one response; the testbed logs each rollout batch's entropy percentiles.
    # "stark contrast" to "near-zero": the 90th percentile at least 10x (an order of magnitude) the 10th.
    claim(
        key="entropy_map",
        quote="This stands in stark contrast to deterministic computational steps that maintain near-zero "
        "entropy in Figure 1(a)",
        source="sec. 1, fig. 1(a)",
        paper_value="figure only (Qwen2.5-3B, AMC23)",
        ours=f"p90 / p10 of the token entropy of the first rollout batch of {r.grpo} (the base policy's samples), "
        "per seed",
        direction="greater",
        margin=0.0,
        compute=measure(measures.entropy_map),
        reference=measures.MAP_CONTRAST,
        null=BUILT_IN,  # a property of the pre-RL policy (the paper's fig. 1(a) model), not of a method
        requires=(),
    )
    conjunction(
        key="perturbation",
        quote="perturbing high entropy token leads to a sharp 35.2% drop in inference accuracy ..., while the "
        "model remains highly robust to perturbations of low entropy steps",
        source="sec. 1, fig. 1(b)",
        paper_value="35.2% drop (truncation and random replacement on 2,460 MATH samples, no model named) vs robust",
        ours=f"fig. 1(b)'s protocol on `{p.policy}` (top / bottom {p.frac:.0%} entropy tokens replaced, rest "
        "regenerated), each drop measured against its control (token kept, rest regenerated)",
    )
    # The paper's 35.2% comes from another protocol and data set: the claim is its direction, a sharp drop, of a
    # material size (0.10, the band the size was tested in before; capped at the paper's 0.352).
    claim(
        key="perturbation_top_drop",
        quote="perturbing high entropy token leads to a sharp 35.2% drop in inference accuracy",
        source="sec. 1",
        paper_value="35.2% drop",
        ours="accuracy drop after replacing a top-entropy token (control minus perturbed), per seed (the other "
        "two baselines in the detail)",
        direction="greater",
        margin=0.10,
        compute=measure(measures.perturbation_drop, "top"),
        paper_effect=0.352,
        part_of="perturbation",
        null=measure(measures.perturbation_drop, "bottom"),
    )
    claim(
        key="perturbation_bottom_robust",
        quote="the model remains highly robust to perturbations of low entropy steps",
        source="sec. 1, fig. 1(b)",
        paper_value="robust (no number)",
        ours="accuracy drop after replacing a bottom-entropy token (control minus perturbed), shown",
        direction="equal",
        margin=0.05,
        compute=measure(measures.bottom_robust),
        part_of="perturbation",
        null=measure(measures.perturbation_drop, "top"),  # the high-entropy tokens: if they pass too, no contrast
    )
    # Fig. 1(b) compares the two sets; 5 points of accuracy is the smallest gap between them that matters.
    claim(
        key="perturbation_hubs",
        quote="Perturbing these high-entropy hubs resulted in a significant decrease in final accuracy",
        source="fig. 1(b) caption",
        paper_value="significant (p < 0.001; 50 AMC23 questions, Qwen2.5-3B)",
        ours="top-entropy drop minus bottom-entropy drop (each against its control), per seed (the other two "
        "baselines in the detail)",
        direction="greater",
        margin=0.05,
        compute=measure(measures.perturbation_drop, None),
        null=CONTRAST,
    )
    conjunction(
        key="average_metrics",
        quote="ERPO ... consistently outperforms GRPO across all average metrics",
        source="sec. 5.3, table 1 (Average)",
        paper_value="Acc 20.70 vs 19.43 (7B), 14.10 vs 12.17 (3B), 9.31 vs 8.75 (1.5B); Fmt 96.98 vs 96.01, "
        "96.51 vs 93.93, 94.32 vs 92.50",
        ours="both averages of table 1 (Acc and Fmt) on the testbed's one evaluation set",
    )
    accuracy_gain(
        key="average_acc",
        quote="ERPO ... consistently outperforms GRPO across all average metrics",
        source="table 1 (Acc, Average)",
        paper_value="20.70 vs 19.43 (7B)",
        part_of="average_metrics",
    )
    half_point(
        key="average_fmt",
        quote="ERPO ... consistently outperforms GRPO across all average metrics",
        source="table 1 (Fmt, Average)",
        paper_value="96.98 vs 96.01 (7B)",
        ours=f"format rate (boxed answers) of {r.erpo} minus {r.grpo}",
        compute=measure(compare, r.erpo, r.grpo, "format_rate"),
        paper_effect=0.0097,
        part_of="average_metrics",
        measure="format_rate",
    )
    beyond(
        key="amc_3b",
        quote="ERPO delivers an absolute performance improvement of nearly 5% on the AMC dataset at the 3B scale",
        source="sec. 5.3, table 1",
        paper_value="37.50 vs 32.81 (+4.69)",
        compute=measure(unavailable, "benchmark and scale: AMC23 at 3B; the testbed has one synthetic evaluation set"),
    )
    beyond(
        key="beats_commercial",
        quote="ERPO-7B achieves an accuracy of 49.53, substantially outperforming DeepSeek-R1-671B-0528 (33.91) "
        "and Qwen3-235B-A22B-Instruct (47.81)",
        source="sec. 5.3, table 1",
        paper_value="49.53 vs 33.91 and 47.81 (AMC23)",
        compute=measure(unavailable, "scale: no 671B / 235B commercial model on the testbed"),
    )
    half_point(
        key="fmt_steady",
        quote="the format consistency rate (Fmt) also shows a steady improvement across all benchmarks",
        source="sec. 5.3, table 1 (Fmt)",
        paper_value="its own table has ERPO below GRPO on 3B AMC23 (96.72 vs 97.03) and 7B Minerva (98.75 vs 98.91)",
        ours=f"format rate (boxed answers) of {r.erpo} minus {r.grpo} on the testbed's one evaluation set",
        compute=measure(compare, r.erpo, r.grpo, "format_rate"),
        paper_effect=0.0097,
        measure="format_rate",
    )
    beyond(
        key="sft_below_base",
        quote="certain SFT models perform worse than their corresponding base models after fine-tuning",
        source="sec. 5.3, table 1",
        paper_value="e.g. 7B SFT 6.20 vs Base 8.23",
        direction="less",
        compute=measure(
            unavailable,
            "not separable here: the testbed's base policy is itself the supervised (SFT) warm-up, so there is "
            "no pre-SFT base row",
        ),
    )
    beyond(
        key="passk_grows_with_k",
        quote="the number of solved problems increases for all models as the sampling count",
        source="sec. 5.4, table 2",
        paper_value='every row of table 2 ("... as the sampling count k rises")',
        ours="not judged",
        compute=measure(
            unavailable,
            "holds by construction for any policy: the unbiased pass@k is non-decreasing in k (table 2 of "
            "this report shows it for every row), so it does not tell a method from its null",
            INDISCRIMINATE,
        ),
    )
    conjunction(
        key="rl_pass_growth",
        quote="the improvement is significantly more pronounced for models trained with reinforcement learning "
        "(GRPO and ERPO)",
        source="sec. 5.4, table 2",
        paper_value="its own table contradicts it at 7B AMC23 (Base +39.35 from @2 to @16, GRPO +21.69, ERPO "
        "+26.60) and at 3B AMC23 (Base +42.2, GRPO +34.0)",
        ours=f"growth of pass@k from k = {min(ks)} to k = {max(ks)} of each RL run minus the base policy's (the "
        "testbed was built for RL's sharpening, docs/testbed.md: GRPO's part is built in, not counted; the "
        "Discussion gives the other reading)",
    )
    for label, run, paper_value in (
        ("grpo", r.grpo, "GRPO +21.69 vs Base +39.35 (7B AMC23)"),
        ("erpo", r.erpo, "ERPO +26.60 vs Base +39.35"),
    ):
        half_point(
            key=f"rl_pass_growth_{label}",
            quote="the improvement is significantly more pronounced for models trained with reinforcement learning "
            "(GRPO and ERPO)",
            source="table 2",
            paper_value=paper_value,
            ours=f"(pass@{max(ks)} - pass@{min(ks)}) of {run} minus the base policy's",
            compute=measure(measures.pass_growth_over_base, run),
            part_of="rl_pass_growth",
            # a comparison with the base policy (its contrast); GRPO's sharpening is the testbed's design
            null=SHARPENING if label == "grpo" else CONTRAST,
        )
    beyond(
        key="beats_commercial_passk",
        quote="at the 7B scale, it completely surpasses these much larger models",
        source="sec. 5.4, table 2",
        paper_value="AMC23 7B pass@k vs DeepSeek-R1-671B and Qwen3-235B",
        compute=measure(unavailable, "scale: no 671B / 235B commercial model on the testbed"),
    )
    half_point(
        key="passk_vs_grpo",
        quote="ERPO consistently outperforms GRPO under the same parameter scale across most sampling settings",
        source="sec. 5.4, table 2",
        paper_value="ERPO > GRPO in 27 of the 48 (scale, benchmark, k) cells, 3 ties, 18 below (1.5B: 5 of 16)",
        ours=f"mean over k in {ks} of pass@k (unbiased) of {r.erpo} minus {r.grpo}",
        compute=measure(measures.pass_at_k_difference),
    )
    beyond(
        key="convergence_3b_7b",
        quote="ERPO achieves higher final accuracy and faster convergence than the GRPO baseline on the 3B and "
        "7B scales",
        source="sec. 5.5, fig. 3(b-c)",
        paper_value="curves only",
        compute=measure(unavailable, "scale: a claim about the 3B and 7B models; the testbed has one small model"),
    )
    beyond(
        key="trajectory_1_5b",
        quote="On the 1.5B scale, we observe that ERPO initially underperforms GRPO before rising sharply in the "
        "later stages",
        source="sec. 5.5, fig. 3(a)",
        paper_value="curves only",
        compute=measure(
            unavailable,
            "scale and not logged: a claim about the 1.5B model's benchmark accuracy during training; the "
            "testbed evaluates final checkpoints only (sec. 5.6's reward trajectory is tested below)",
        ),
    )
    # The reward is the accuracy reward alone (format_weight 0: the step-1 reward equals the rollout accuracy),
    # in [0, 1]; 0.01 is the smallest gap in mean reward that matters.
    conjunction(
        key="reward_trajectory",
        quote="Although ERPO’s reward is initially lower than GRPO’s due to the emphasis on exploration, it "
        "eventually exceeds the baseline",
        source="sec. 5.6, fig. 4(a)",
        paper_value="curves only",
        ours=f"training reward of {r.erpo} minus {r.grpo}: over {early}, and over {end}",
    )
    claim(
        key="reward_early_lower",
        quote="ERPO’s reward is initially lower than GRPO’s",
        source="fig. 4(a)",
        paper_value="curves only",
        ours=f"mean training reward over {early} of {r.erpo} minus {r.grpo}, per seed (a run that did not learn "
        "is lower by failing, not by exploring: learned gate)",
        direction="less",
        margin=0.01,
        compute=vs_grpo(partial(early_mean, key="reward")),
        part_of="reward_trajectory",
        requires=LEARNED,
    )
    claim(
        key="reward_late_higher",
        quote="it eventually exceeds the baseline",
        source="fig. 4(a)",
        paper_value="curves only",
        ours=f"mean training reward over {end} of {r.erpo} minus {r.grpo}, per seed",
        direction="greater",
        margin=0.01,
        compute=vs_grpo(partial(end_mean, key="reward")),
        part_of="reward_trajectory",
    )
    conjunction(
        key="entropy_band",
        quote="ERPO maintains a healthy entropy level between 0.2 and 0.4 in the late stages, whereas GRPO suffers "
        "from entropy collapse",
        source="sec. 5.6, fig. 4(b)",
        paper_value="late entropy 0.2-0.4 (ERPO) vs 0.05 (GRPO): 4-8x GRPO's",
        ours=f"log entropy retained (rollout entropy over {end} / the first batch) of each run, and ERPO's "
        "against GRPO's",
    )
    # "healthy": neither collapsed (below half its start) nor diverged (past x2): measures' stability band, on
    # a run that learned (a policy that did not move keeps its entropy without the method keeping it).
    claim(
        key="entropy_erpo_healthy",
        quote="ERPO maintains a healthy entropy level between 0.2 and 0.4 in the late stages",
        source="fig. 4(b)",
        paper_value="0.2-0.4 (absolute nats at 7B; not comparable to the testbed's)",
        ours=f"log entropy retained of {r.erpo}, per seed (band [0.5, 2]: |log| <= log 2)",
        direction="equal",
        margin=HEALTHY_BAND,
        compute=measure(single_run, r.erpo, log_entropy_retained),
        part_of="entropy_band",
        requires=LEARNED,
        measure="log_entropy_retained",
    )
    # the paper's relative claim: ERPO's late entropy over GRPO's, 0.2 / 0.05 = 4 at least (log 4 = 1.386)
    claim(
        key="entropy_erpo_vs_grpo",
        quote="ERPO maintains a healthy entropy level between 0.2 and 0.4 in the late stages, whereas GRPO suffers "
        "from entropy collapse",
        source="fig. 4(b)",
        paper_value="0.2-0.4 vs 0.05: x4 to x8 (log 1.39 to 2.08)",
        ours=f"log entropy retained of {r.erpo} minus {r.grpo}, per seed (log of ERPO's late entropy over GRPO's, "
        "each over its own first batch)",
        direction="greater",
        margin=HEALTHY_BAND,
        compute=vs_grpo(log_entropy_retained),
        paper_effect=measures.PAPER_ENTROPY_LOG_RATIO,
        part_of="entropy_band",
        requires=LEARNED,
        measure="log_entropy_retained",
    )
    # "collapse": the paper's GRPO ends at 0.05 against ERPO's 0.2-0.4; below half its start is a collapse here
    # (measures' band), on the log scale. A claim about failure: no gate.
    claim(
        key="entropy_grpo_collapse",
        quote="GRPO suffers from entropy collapse",
        source="fig. 4(b)",
        paper_value="0.05 late",
        ours=f"log entropy retained of {r.grpo}, per seed (collapse: below log 0.5)",
        direction="less",
        margin=0.05,
        compute=measure(single_run, r.grpo, log_entropy_retained),
        reference=-HEALTHY_BAND,
        part_of="entropy_band",
        requires=(),
        measure="log_entropy_retained",
    )
    # "prevents": every seed of ERPO ends with more of its entropy than GRPO's same seed, on a run that learned
    claim(
        key="prevents_mode_collapse",
        quote="demonstrating that ERPO effectively prevents mode collapse",
        source="fig. 4 caption",
        paper_value="late entropy 0.4 vs 0.05",
        ours=f"log entropy retained of {r.erpo} minus {r.grpo}, every seed",
        direction="greater",
        margin=0.0,
        compute=vs_grpo(log_entropy_retained),
        requires=LEARNED,
        measure="log_entropy_retained",
        universal=True,
    )
    # "explosion": a step whose gradient norm exceeds 10 times the run's median (an order of magnitude), in any
    # seed; on a run that learned (a policy that stays at its reference has no large steps to make).
    claim(
        key="grad_norm_stable",
        quote="The gradient norms of ERPO remain stable throughout the process, showing no signs of gradient explosion",
        source="sec. 5.6, fig. 4(c)",
        paper_value="curves only",
        ours=f"largest gradient norm of {r.erpo} over its median, every seed (an explosion: 10 or more)",
        direction="less",
        margin=0.0,
        compute=measure(single_run, r.erpo, partial(spike_ratio, key="grad_norm")),
        reference=10.0,
        requires=LEARNED,
        universal=True,
    )
    conjunction(
        key="kl",
        quote="our KL divergence is slightly higher than that of standard GRPO ... It remains well controlled "
        "without the sharp spikes observed in the baseline",
        source="sec. 5.6, fig. 4(d)",
        paper_value="curves only",
        ours=f"KL to the reference (k3) of {r.erpo} and {r.grpo}: its late level and its spikes",
    )
    claim(
        key="kl_higher",
        quote="our KL divergence is slightly higher than that of standard GRPO",
        source="fig. 4(d)",
        paper_value="slightly higher (no number)",
        ours=f"mean KL to the reference over {end} of {r.erpo} minus {r.grpo}, per seed",
        direction="greater",
        margin=0.0,
        compute=vs_grpo(partial(end_mean, key="kl_to_reference"), 4),
        part_of="kl",
    )
    # a spike: the run's largest KL over its median; fewer spikes = a ratio smaller by at least 1; on a run that
    # learned (a policy at its reference has no KL to spike)
    claim(
        key="kl_no_spikes",
        quote="It remains well controlled without the sharp spikes observed in the baseline",
        source="fig. 4(d)",
        paper_value="curves only",
        ours=f"largest KL to the reference over its median of {r.erpo} minus {r.grpo}, per seed",
        direction="less",
        margin=1.0,
        compute=vs_grpo(partial(spike_ratio, key="kl_to_reference")),
        part_of="kl",
        requires=LEARNED,
    )
    conjunction(
        key="shorter",
        quote="our models achieve higher accuracy while maintaining shorter sequence lengths",
        source="sec. 5.7, fig. 5(a)",
        paper_value="higher accuracy, shorter at the best checkpoint (7B, no number)",
        ours=f"accuracy and evaluation response length of {r.erpo} against {r.grpo}",
    )
    accuracy_gain(
        key="shorter_acc",
        quote="our models achieve higher accuracy",
        source="fig. 5(a)",
        paper_value="20.70 vs 19.43 (7B avg.)",
        part_of="shorter",
    )
    # one token of ~30 is the smallest length difference that matters (a boxed guess is a few tokens)
    claim(
        key="shorter_length",
        quote="maintaining shorter sequence lengths",
        source="fig. 5(a)",
        paper_value="shorter (no number)",
        ours=f"mean evaluation response length (tokens, all responses) of {r.erpo} minus {r.grpo}",
        direction="less",
        margin=1.0,
        compute=measure(compare, r.erpo, r.grpo, "response_length"),
        part_of="shorter",
        measure="response_length",
    )
    claim(
        key="concise_paths",
        quote="ERPO not only boosts reasoning accuracy but also yields significantly more concise and robust "
        "derivation paths",
        source="abstract",
        paper_value="shorter at the best checkpoint (fig. 5(a), no number)",
        ours=f"mean evaluation response length (tokens) of {r.erpo} minus {r.grpo}",
        direction="less",
        margin=1.0,
        compute=measure(compare, r.erpo, r.grpo, "response_length"),
        measure="response_length",
    )
    conjunction(
        key="length_trend",
        quote="while our generation length is slightly higher during the initial exploration phase, it drops "
        "significantly below the GRPO length in the later stages while maintaining superior accuracy",
        source="sec. 5.7, fig. 5(c)",
        paper_value="curves only",
        ours=f"rollout length over {early} and over {end}, and accuracy, of {r.erpo} against {r.grpo}",
    )
    claim(
        key="length_early_higher",
        quote="our generation length is slightly higher during the initial exploration phase",
        source="fig. 5(c)",
        paper_value="curves only",
        ours=f"mean rollout length (tokens) over {early} of {r.erpo} minus {r.grpo}, per seed",
        direction="greater",
        margin=0.0,
        compute=vs_grpo(partial(early_mean, key="completions/mean_length"), 1),
        part_of="length_trend",
        measure="train_response_length",
    )
    claim(
        key="length_late_lower",
        quote="it drops significantly below the GRPO length in the later stages",
        source="fig. 5(c)",
        paper_value="curves only",
        ours=f"mean rollout length (tokens) over {end} of {r.erpo} minus {r.grpo}, per seed",
        direction="less",
        margin=1.0,
        compute=vs_grpo(partial(end_mean, key="completions/mean_length"), 1),
        part_of="length_trend",
        measure="train_response_length",
    )
    accuracy_gain(
        key="length_trend_acc",
        quote="while maintaining superior accuracy",
        source="fig. 5(c)",
        paper_value="20.70 vs 19.43 (7B avg.)",
        part_of="length_trend",
    )
    claim(
        key="time",
        quote="the total training time for ERPO is comparable to GRPO with almost no increase",
        source="sec. 5.7, fig. 5(b)",
        paper_value="comparable (no number)",
        ours="not judged (fig. 5(b) shows the wall times)",
        direction="equal",
        margin=0.1,
        compute=measure(measures.time_claim),
    )
    conjunction(
        key="outperforms_grpo_sft",
        quote="ERPO significantly outperforms standard GRPO and traditional supervised fine-tuning",
        source="sec. 6",
        paper_value="table 1: e.g. 7B 20.70 vs GRPO 19.43 and SFT 6.20",
        ours=f"accuracy of {r.erpo} against {r.grpo} and against the SFT policy (the testbed's base)",
    )
    accuracy_gain(
        key="outperforms_grpo",
        quote="ERPO significantly outperforms standard GRPO",
        source="sec. 6, table 1",
        paper_value="20.70 vs 19.43 (7B)",
        part_of="outperforms_grpo_sft",
    )
    half_point(
        key="outperforms_sft",
        quote="traditional supervised fine-tuning",
        source="sec. 6, table 1",
        paper_value="20.70 vs 6.20 (7B): SFT and ERPO both trained from Base",
        ours=f"not judged: {r.erpo} trains on top of the SFT policy (the testbed's base)",
        compute=measure(measures.outperforms_sft),
        paper_effect=0.145,
        part_of="outperforms_grpo_sft",
    )
    # Sec. 4's claims: the abstract's components (i)-(iii) on their one-switch ablations, eq. 16's zero-sum
    # normalisation (a property of the method code, and what it is said to prevent) and sec. 4.5.3's causality.
    # (iii): the anchor is the guard against reward hacking; its ablation's failure is the evidence, but a HOLDS needs
    # ERPO to have learned (a policy that never moved beats the hacking ablation too: the gates are one-sided).
    ablated(
        key="outcome_anchor",
        quote="A primary concern in this fusion is ensuring that the token-level feedback does not lead to reward "
        "hacking, where the model might optimize for high confidence tokens that ultimately lead to incorrect "
        "answers. ... We then introduce an Outcome Anchoring mechanism, where the sign of the sequence-level "
        "advantage acts as a directional guardrail",
        source="sec. 4.4, eq. 10",
        paper_value="no ablation, no number",
        ours=f"mean@n of {r.erpo} minus {measures.ablation_label(paper, 'use_outcome_anchor')} (anchor off: "
        "sgn(A_i) = 1, so Psi also enters groups whose rewards are all equal), per seed; the ablation's format rate "
        "and length in the detail",
        compute=measure(measures.component, "use_outcome_anchor"),
        requires=LEARNED,
    )
    # sec. 4.4: the anchor makes Psi take the outcome's sign, but A_i + eta Psi is renormalised (eq. 10): a token of
    # a wrong response can still end with a positive advantage. The logged share of anchored tokens whose final
    # advantage has the other sign than A_i; 1% of them is the smallest share that matters.
    claim(
        key="confident_penalized",
        quote="ensuring that even highly confident pivotal tokens are penalized if they ultimately lead to a "
        "fallacious conclusion",
        source="sec. 4.4",
        paper_value="no number",
        ours=f"share of anchored tokens whose final advantage has the other sign than the outcome's A_i "
        f"(`erpo/sign_flip_frac`), mean over training, per seed, of {r.erpo} (every anchored token, not only "
        "confident ones)",
        direction="equal",
        margin=0.01,
        compute=measure(per_seed, r.erpo, whole_mean, "erpo/sign_flip_frac", digits=4),
        null=measure(null_value, 0.0, "GRPO's advantages (no token signal): no token changes sign"),
        fixed=Fixed(
            ISSUE40,
            after_runs=True,
            what="added after the round-4 review printed 1.79% at the default and 0.05% at sigma_target 0.25 "
            "(review E8); the margin, 1% of the anchored tokens, after those numbers",
        ),
    )
    for switch, key, quote in (
        (
            "use_entropy_gate",
            "gating_component",
            "(i) Entropy-aware Gating, which adaptively amplifies exploration at CDPs to facilitate diverse path "
            "discovery",
        ),
        (
            "use_bucket_norm",
            "bucket_component",
            "(ii) Bucket-based Implicit Normalization, which mitigates difficulty bias by aligning token progress "
            "windows",
        ),
    ):
        ablated(
            key=key,
            quote=quote,
            source="abstract; sec. 4.2 / 4.3",
            paper_value="no ablation, no number",
            ours=f"mean@n of {r.erpo} minus {measures.ablation_label(paper, switch)} ({switch} off), per seed",
            compute=measure(measures.component, switch),
        )
    claim(
        key="gate_selective",
        quote="By selectively amplifying the advantage signal at high entropy tokens while dampening it during "
        "deterministic computations",
        source="sec. 1, eq. 8",
        paper_value="no number",
        ours=f"share of tokens whose gate W is above 0.5 (`erpo/gate_open_frac`), mean over training, per seed, of "
        f"{r.erpo}: under half (the gate opens on a minority)",
        direction="less",
        margin=0.0,
        reference=0.5,
        compute=measure(per_seed, r.erpo, whole_mean, "erpo/gate_open_frac", digits=3),
        null=GATE,
        requires=(),
    )
    claim(
        key="entropy_regularization",
        quote="The ERPO gradient corresponds to optimizing the original GRPO objective augmented with a dynamic, "
        "entropy-weighted relative entropy regularization term",
        source="sec. 4.5.1, eqs. 11-15",
        paper_value="a derivation",
        ours="not judged",
        direction="equal",
        margin=0.0,
        compute=measure(unavailable, EQ11.reason, FORMULA),
        null=EQ11,
    )
    conjunction(
        key="zero_sum",
        quote="The intra-group normalization of ... prevents reward hacking by ensuring that the total advantage "
        "across a prompt group remains conserved",
        source="sec. 4.5.2, eq. 16",
        paper_value="sum over a group's tokens of A_final = 0, variance 1",
        ours="eq. 16 on the method code, and the run without Norm_G",
    )
    claim(
        key="zero_sum_code",
        quote="ensuring that the total advantage across a prompt group remains conserved",
        source="eq. 16",
        paper_value="sum = 0, variance 1",
        ours=f"largest |sum of A_final| over a group's tokens, rlvr_lib.methods.erpo on a random batch with "
        f"{r.erpo}'s settings (exact; up to float error {measures.ZERO_SUM_TOLERANCE:g})",
        direction="equal",
        margin=measures.ZERO_SUM_TOLERANCE,
        compute=measure(measures.zero_sum),
        part_of="zero_sum",
        null=EQ16,
        requires=(),
    )
    ablated(
        key="zero_sum_prevents_hacking",
        quote="The intra-group normalization of ... prevents reward hacking",
        source="sec. 4.5.2",
        paper_value="no ablation",
        ours=f"mean@n of {r.erpo} minus {measures.ablation_label(paper, 'use_group_norm')} (eq. 10 without Norm_G: "
        "A_i + eta Psi, whose sum over a group is not zero), per seed; the ablation's format rate, length and "
        "entropy in the detail",
        compute=measure(measures.component, "use_group_norm"),
        part_of="zero_sum",
        requires=LEARNED,  # a HOLDS needs ERPO to have learned; its measure is accuracy (the detail reads length too)
    )
    claim(
        key="causality",
        quote="ERPO satisfies the requirements of the Policy Gradient Theorem as its advantage function does not "
        "rely on future information relative to the token being optimized",
        source="sec. 4.5.3",
        paper_value="a proof",
        ours="not judged",
        direction="equal",
        margin=0.0,
        compute=measure(
            unavailable,
            "a property of the estimator's derivation that no outcome can show: on the testbed every method "
            "(GRPO included) computes its advantages once per rollout batch from the behaviour policy, as "
            "constants of the gradient (rlvr_lib/methods/erpo.py), so it holds by construction for ERPO and "
            "its null alike; the paper's eq. 9 does use the response's full length |o_i| (its bucket "
            "tau = t / |o_i|), a quantity of the sampled response, not of the policy being optimised",
        ),
    )
