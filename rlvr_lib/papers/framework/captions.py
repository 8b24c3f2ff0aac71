"""One caption line per regenerated table and figure of the Evidence: what to compare in it and what it shows.
Keyed by paper and the table's or figure's file name (``tables/<name>.md``, ``figures/<name>.png``); a caption
given where the table is added (``PaperReport.add_table(caption=...)``) takes precedence."""

from __future__ import annotations

SENSITIVITY = (
    "Evidence, not a verdict: each variant's d beside the verdict run's (first row); whether a verdict hinges on an "
    "open choice is decided by the declared alternatives (the claims table's robustness column)."
)

CAPTIONS: dict[str, dict[str, str]] = {
    "erpo": {
        "table1": "Compare ERPO's mean@n with GRPO's and the base's, and each with the paper's column: the testbed "
        "tests the direction of the gain, not its size.",
        "table2_pass_at_k": "Compare ERPO with GRPO at every k: a gain that shrinks as k grows is a sharper, not a "
        "broader, policy.",
        "figure1b_perturbation": "Compare the accuracy drop when high-entropy tokens are perturbed with the drop "
        "for low-entropy ones, each against its unperturbed control.",
        "figure4_training_dynamics": "Compare ERPO's curves with GRPO's: reward, rollout entropy (does it collapse?), "
        "gradient norm and KL to the reference over training.",
        "figure5a_accuracy_length": "Compare response length at matched accuracy: the paper claims ERPO's answers "
        "are shorter.",
        "figure5b_training_time": "Compare wall time per step: ERPO's extra cost over GRPO (runs share one machine, "
        "so times carry its load).",
        "figure5_length_time": "Left: length against accuracy per run; right: time per step, ERPO against GRPO.",
        "ablations": "Compare each row with full ERPO: a component whose removal leaves mean@n unchanged does no "
        "work on the testbed.",
        "real_data_filter": "Compare the count kept by the literal filter with the paper's 8,441: it checks the "
        "filter's reading, not a result.",
        "sensitivity": SENSITIVITY,
    },
    "cw_grpo": {
        "table2": "Compare CW-GRPO's mean@n with GRPO's and Clip-Cov's; the paper's column is its five-benchmark "
        "average at 1.5B / 7B.",
        "figure1_entropy": "Compare the steadiness of CW-GRPO's entropy with GRPO's and Clip-Cov's over training.",
        "table1_covariance_percentiles": "Compare how fast the thresholds fall from the top 0.01% to all tokens: a "
        "steep fall is a heavy tail, as the paper's GRPO row shows.",
        "table1_covariance_thresholds": "The same thresholds on log axes, the paper's GRPO dashed: compare the "
        "slopes, not the magnitudes (those depend on model and length).",
        "table3_checkpoints": "Compare each method's mean@n across its checkpoints: the paper has GRPO falling and "
        "CW-GRPO flat.",
        "sensitivity": SENSITIVITY,
    },
    "tepo": {
        "table1": "Compare TEPO's mean@n with each baseline's, minding the 'updates / rollout' column: runs with "
        "different update counts differ in more than the method.",
        "table3_ablations": "Compare each panel's row with TEPO-w/o. KL, the reference of every panel of the "
        "paper's table 3.",
        "table4_matched_steps": "Compare accuracy at matched steps: the paper has TEPO ahead at step 72.",
        "figures2_3": "Compare TEPO's clip ratio, time per step, reward and gradient norm with the baselines' over "
        "training; the time per step is a sawtooth because a rollout batch is generated every 8th optimizer step "
        "(8 updates per rollout batch) and only that step pays for generation.",
    },
    "opefo": {
        "table1": "Compare OPEFO's mean@n with GRPO strict on-policy (same settings) first; the 8-update baselines "
        "differ in the update count too.",
        "table2_lambda": "Compare adaptive lambda* with the static and one-sided variants of the paper's table 2.",
        "figure2_entropy_flow": "Compare the entropy and the net flow per step: GRPO's net flow is negative while "
        "its entropy falls; clip-higher's clipped tokens carry the flow.",
        "figure4_training_dynamics": "Compare OPEFO's entropy, reward and length with the baselines' over training.",
        "delta_h_forms": "Compare the two forms of eq. 6 (expectation, sampled token): the verdicts use the "
        "default; a difference here is the choice's effect.",
        "lambda_statistics": "Compare lambda*'s mean and spread with the paper's average of about 0.001.",
        "figure5_lambda": "lambda* over training: compare its level and drift with the paper's fig. 5.",
    },
    "aer": {
        "table1": "Compare AER's pass@1 and pass@K with GRPO's and each baseline's; the paper's columns are its "
        "benchmark averages.",
        "tables6_7_pass_at_k": "Compare pass@k across k and k50 (the smallest k with pass@k >= 50%) per run.",
        "figure3ad_pass_at_k": "pass@k against k per run: compare where the curves cross and how they spread at "
        "large k.",
        "figure3_training_dynamics": "Compare AER's reward, entropy and length with GRPO's over training.",
        "table2_components": "Compare each component set (the paper's table 2 rows) with full AER and with GRPO.",
        "sweep_tau": "Compare mean@n across tau with the paper's sweet spot at 0.4; a row whose alpha_t stayed 0 "
        "is GRPO (Discussion).",
        "sweep_rho": "Compare mean@n across rho with the paper's sweep; the pivot only matters where groups fail.",
        "entropy_target_alpha": "Compare the rollout entropy with its target tau * H_0, and alpha_t: alpha_t rises "
        "only once the entropy falls below the target.",
        "sensitivity": SENSITIVITY,
    },
    "summary": {
        "overview": "Compare each method's mean@n and its paired difference to its protocol group's GRPO; the "
        "seeds column gives each interval's seeds.",
        "versus_reference": (
            "Each method minus its protocol group's GRPO, paired by seed: 'above' or 'below' only where the interval "
            "excludes 0; runs with a failed seed come after the healthy ones."
        ),
        "pass_at_k": "Means only: whether a method differs from GRPO at pass@k is read from the pairwise table, "
        "which has intervals.",
    },
}


def caption_for(paper: str, name: str) -> str:
    """The caption line of ``paper``'s table or figure ``name`` ('' when none is written)."""
    return CAPTIONS.get(paper, {}).get(name, "")
