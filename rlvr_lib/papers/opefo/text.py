"""OPEFO's prose: the intro paragraph, the sentence naming the verdicts' decoding, and the Discussion's notes
(``fn(paper) -> list[str]``), each explanation with the numbers from the runs that support it (computed, never
typed)."""

from __future__ import annotations

from rlvr_lib.papers.framework import measures as shared
from rlvr_lib.papers.framework.base import _decoding_words
from rlvr_lib.papers.framework.claims import NotTestable, flatten
from rlvr_lib.papers.framework.results import ACCURACY
from rlvr_lib.papers.opefo import measures
from rlvr_lib.papers.opefo.claims import CLOSELY_TRACKS, STRONG_FLOW
from rlvr_lib.papers.opefo.measures import FIRST_50, form_runs, geo_factor, seed_mean

INTRO = (
    "OPEFO trains strictly on-policy (one update per rollout batch, REINFORCE with group advantages, no ratio, clip or "
    "reference) and balances the first-order entropy change of the update: each token's dH_t = -A_t E_{a ~ pi}[(1 - "
    "pi(a))^2 (log pi(a) + H_t)] (eq. 6) puts it in S+ (dH > 0) or S- (dH < 0); the policy-gradient terms are scaled "
    "by 1 + lambda* on S+ and 1 - lambda* on S-, with lambda* = (|S- flow| - S+ flow) / (|S- flow| + S+ flow) over the "
    "batch (eq. 7-9), so the scaled flows cancel. The paper reports that OPEFO beats GRPO (8 updates per batch), its "
    "strict on-policy variant and four entropy baselines (table 1), that the adaptive lambda* beats a static one and "
    "one-sided variants (table 2), the entropy dynamics of fig. 2 and 4, and lambda* averaging about 0.001 (sec. 6.4). "
    "Our default eq. 6 is evaluated at each generated token (`delta_h: sampled`, sec. 5.1 'for each generated token'); "
    "eq. 6 as written, the expectation over the vocabulary with A_t fixed (`delta_h: expectation`), is a declared "
    "alternative: the two forms estimate different quantities, and every claim reading `opefo` is judged under both."
)


def discussion_notes(paper) -> list[str]:
    """The Discussion's paper-specific paragraphs (after the generated lists), each explanation with the numbers
    from the runs that support it (computed here, never typed): the two eq. 6 forms side by side, what is robust
    to the choice, what the runs show of the first-order premise, and lambda*'s size against the paper's."""
    notes = []
    notes_in_order = (
        decoding_note,
        delta_h_notes,
        hinging_parts_note,
        stability_note,
        premise_note,
        imbalance_note,
        divergence_note,
        lambda_note,
        static_machine_note,
    )
    for note in notes_in_order:
        try:
            notes.extend(note(paper))
        except (NotTestable, KeyError, ValueError, ZeroDivisionError):
            continue  # a run or a logged key the note needs is missing: the note is left out
    return notes


def form_line(paper) -> str:
    """The Summary's last paragraph (round-4 O2): how far the headline rests on the eq. 6 form, from the runs: the
    default form's failed seeds and entropy, the other form's mean@n against strict on-policy GRPO, and where the
    default came from ('' without a run of the other form, or when the two cannot be compared)."""
    r = paper.runs
    if not r.delta_h_variants:
        return ""
    other = r.delta_h_variants[0]
    failed = {line.split(": ", 1)[0] for line in paper.results.gates.run_failures(r.opefo)}
    try:
        gain = paper.compare(other, r.grpo_onpolicy, ACCURACY, measures.TABLE1)
    except NotTestable:  # e.g. a smoke protocol's stand-in runs, evaluated on other problems: no paragraph
        return ""
    return (
        f"**The eq. 6 form decides the headline.** With eq. 6 at the sampled token (the default, `{r.opefo}`) OPEFO "
        f"fails the `healthy` gate on {len(failed)} of {len(paper.results.seeds_of(r.opefo))} seeds (rollout entropy "
        f"x{geo_factor(paper, r.opefo):.2f} of its first batch at the end, geometric mean); with eq. 6 as written "
        f"(`{other}`) it trains like strict on-policy GRPO: mean@n minus `{r.grpo_onpolicy}`'s {gain.value:+.3f} "
        f"[{gain.ci_low:+.3f}, {gain.ci_high:+.3f}], entropy x{geo_factor(paper, other):.2f}; no gain is detected "
        "under either form. The default is the text's per-token reading (sec. 5.1, 'for each generated token'); it "
        "was first switched to the expectation form with both forms' runs known (3e077198) and back to the text's "
        "reading (8390c750), so neither choice was blind (docs/assumptions.md, `delta_h`)."
    )


def results_by_key(paper) -> dict:
    """Every claim's and part's result by its key (``claims.flatten``)."""
    return {result.claim.key: result for result in flatten(paper.evaluate_claims())}


def form_name(paper, run: str) -> str:
    return f"`{run}` (`delta_h: {paper.hparam(run, 'delta_h')}`)"


def decoding_words(paper, decoding: str | None) -> str:
    return _decoding_words(paper.params.eval.for_benchmark("", decoding))


def hinging_parts_note(paper) -> list[str]:
    """R3-O1: the conjunctive claims whose parts' verdicts change under the other eq. 6 form (a whole claim's
    robustness is not aggregated from its parts by the framework, so it is listed here, from the parts)."""
    lines = []
    for result in paper.evaluate_claims():
        hinging = [p for p in getattr(result, "parts", None) or [] if p.robustness.startswith("hinges")]
        if hinging:
            listed = "; ".join(f"`{p.claim.key}`: {p.robustness}" for p in hinging)
            lines.append(f"- `{result.claim.key}` ({result.verdict} at the default): {listed}")
    if not lines:
        return []
    return [
        "Conjunctive claims with parts whose verdict hinges on the eq. 6 form (each part's verdict with "
        "`opefo_delta_h_expectation` in `opefo`'s place; 'not run' while that run's seeds are being trained):\n\n"
        + "\n".join(lines)
    ]


def stability_note(paper) -> list[str]:
    """R3-O1: the entropy-stability claims, judged under each eq. 6 form, with where each form's entropy ends."""
    by_key = results_by_key(paper)
    keys = [k for k in ("opefo_stable_band", "opefo_reward_stable", "zero_flow_flat_entropy") if k in by_key]
    ends = ", ".join(f"{form_name(paper, run)} x{geo_factor(paper, run):.2f}" for run in form_runs(paper))
    onpolicy = geo_factor(paper, paper.runs.grpo_onpolicy)
    verdicts = "; ".join(
        f"`{k}`: {by_key[k].verdict}" + (f", {by_key[k].robustness}" if by_key[k].robustness else "") for k in keys
    )
    both = all(by_key[k].verdict == "does not hold" and by_key[k].robustness.startswith("robust") for k in keys)
    lead = (
        "The entropy-stability claims fail under both eq. 6 forms"
        if both
        else "The entropy-stability claims under the two eq. 6 forms (a form whose runs are not all made yet shows "
        "as 'not run')"
    )
    return [
        f"{lead}: OPEFO's rollout entropy ends at {ends} of its first batch (geometric mean over seeds; strict "
        f"on-policy GRPO x{onpolicy:.2f}), outside the x{shared.ENTROPY_FACTOR:g} band of `measures.stable` "
        f"either way (one form inflates, the other collapses). Verdicts: {verdicts}."
    ]


def premise_note(paper) -> list[str]:
    """R3-O2: what the runs show of sec. 3.3's premise that the first-order dH tracks the realised entropy change,
    and what they cannot show (the same-batch measurement, not run)."""
    grpo, f = paper.runs.grpo_onpolicy, FIRST_50
    early_flow, late_flow = seed_mean(paper, grpo, measures.early_flow), seed_mean(paper, grpo, measures.late_flow)
    early_h = seed_mean(paper, grpo, measures.early_entropy)
    late_h = seed_mean(paper, grpo, measures.late_entropy_change)
    rescaled = max(
        float(
            paper.results.per_seed(run, lambda h: float(shared.column(h, "opefo/flow_net_rescaled").abs().max())).max()
        )
        for run in form_runs(paper)
    )
    factors = ", ".join(f"x{geo_factor(paper, run):.2f}" for run in form_runs(paper))
    smaller = max(late_h, 1 / late_h) < max(early_h, 1 / early_h)  # the factor of change, either way
    contrast = (
        ": a flow at least as negative with a smaller realised change" if late_flow <= early_flow and smaller else ""
    )
    return [
        "Sec. 3.3's premise, that the first-order dH 'closely tracks the exact entropy change', is what OPEFO's "
        f"balancing rests on. What the runs show: strict on-policy GRPO's net / gross first-order flow is "
        f"{early_flow:+.2f} over the first {f:.0%} of training, when its rollout entropy goes to x{early_h:.2f} "
        f"of the first batch, and {late_flow:+.2f} over the last {f:.0%}, when the entropy changes by "
        f"x{late_h:.2f} from the window before{contrast}. OPEFO cancels "
        f"its first-order flow at every step (|rescaled net flow| at most {rescaled:.1e}, both forms), yet its "
        f"entropy ends at {factors} of its start: a zero predicted change against a realised one outside x2 is "
        "what `zero_flow_flat_entropy` tests. The GRPO numbers are not a measurement of tracking: the flow's "
        "scale (eta dropped) is not the entropy's, and the rollout entropy of one batch against the next mixes "
        "in batch composition (the `flow_tracks` parts give that confound per seed). " + same_batch_sentence(paper)
    ]


def imbalance_note(paper) -> list[str]:
    """Round-4 O5: what `imbalance` (which holds) does not show: OPEFO's own unscaled flow is lopsided too in a run
    whose entropy inflated, so the imbalance does not tell a collapse from an explosion; the causal reading is the
    claims that test the flow against the realised change."""
    r, by_key = paper.runs, results_by_key(paper)
    net, form = measures.OPEFO_FLOW[0], paper.hparam(r.opefo, "delta_h")
    share = seed_mean(paper, r.opefo, lambda h: measures.sign_share(h, net, -1))
    balance = seed_mean(paper, r.opefo, lambda h: measures.flow_balance(h, measures.OPEFO_FLOW, 0.0, 1.0))
    causal = "; ".join(f"`{k}`: {by_key[k].verdict}" for k in ("flow_drives_entropy", "first_order_tracks"))
    return [
        "The imbalance (`imbalance`, which holds) is descriptive: it does not tell a collapse from an explosion. "
        f"OPEFO's own first-order flow before its rescaling (`{net}`, eq. 6 in its `{form}` form) is negative on "
        f"{share:.0%} of `{r.opefo}`'s steps (net / gross {balance:+.3f} over training, mean over seeds), a run "
        f"whose entropy ends at x{geo_factor(paper, r.opefo):.2f} of its first batch; that the imbalance drives the "
        "collapse is what the "
        f"claims relating the flow to the realised change test ({causal})."
    ]


def decoding_sentence(paper) -> str:
    """The sentence naming the decoding a table's mean@n is read at (the verdicts')."""
    own = paper.results.decoding
    return (
        f"mean@n at `{own}` ({decoding_words(paper, own)}), the verdicts' decoding;"
        " both decodings side by side in 'Evaluation at both decodings'."
        if own
        else "mean@n at the shared decoding."
    )


def decoding_note(paper) -> list[str]:
    """Sec. 6.1's top-p 0.7 against the shared decoding: what the truncated sampler adds to each table-1 run
    and to each OPEFO form, and how many accuracy verdicts (claims and parts) keep their verdict at the shared
    decoding (the engine's robustness column)."""
    r, own = paper.runs, paper.results.decoding
    if own is None:
        return []
    gains = []
    for run in (r.base, r.grpo, r.grpo_onpolicy, *form_runs(paper)):
        seeds = paper.results.seeds_of(run)
        at_shared = measures.accuracy_at(paper, run, None, seeds)
        gain = measures.accuracy_at(paper, run, own, seeds) - at_shared
        gains.append(f"`{run}` {gain.mean():+.3f} (from {at_shared.mean():.3f})")
    results = results_by_key(paper).values()
    robust = sum("robust (the shared decoding" in result.robustness for result in results)
    hinging = sum("hinges on the shared decoding" in result.robustness for result in results)
    return [
        f"The evaluation decoding: the accuracy verdicts read sec. 6.1's `{own}` ({decoding_words(paper, own)}), a "
        f"second evaluation of the same models beside the shared {decoding_words(paper, None)}. The truncated "
        f"sampler adds to mean@n (mean over seeds): {'; '.join(gains)}. Of the accuracy verdicts (claims and their "
        f"parts), {robust} keep their verdict at the shared decoding and {hinging} change (the robustness column)."
    ]


def divergence_note(paper) -> list[str]:
    """Why the sampled form's entropy explodes, from its logs: each update's realised entropy change on its own
    batch, lambda*, the share of tokens in S+ and the cosine of the reweighted gradient with the unweighted one,
    beside the expectation form's and strict on-policy GRPO's. Each reading is stated only where the numbers
    show it."""
    stats = {}
    for run in form_runs(paper):
        stats[run] = {
            "change": seed_mean(paper, run, measures.realised_change),
            "lambda": seed_mean(paper, run, measures.lambda_mean),
            "pos": seed_mean(paper, run, measures.pos_share),
            "cosine": seed_mean(paper, run, measures.mean_cosine),
            "factor": geo_factor(paper, run),
        }
    rows = [
        f"{form_name(paper, run)}: realised change per update {v['change']:+.2e} over "
        f"{int(paper.results.max_steps(run))} updates, entropy x{v['factor']:.2f} of its first batch at the end "
        f"(geometric mean), mean lambda* {v['lambda']:.3f}, {v['pos']:.1%} of tokens in S+, gradient cosine with "
        f"lambda* = 0 {v['cosine']:.3f}"
        for run, v in stats.items()
    ]
    grpo = seed_mean(paper, paper.runs.grpo_onpolicy, measures.realised_change)
    raising = {run for run, v in stats.items() if v["change"] > 0}
    inflated = {run for run, v in stats.items() if v["factor"] > shared.ENTROPY_FACTOR}
    readings = []
    if raising and raising == inflated:
        readings.append(
            f"the form{'s' if len(raising) > 1 else ''} whose updates raise the entropy of their own batch on "
            f"average ({', '.join(f'`{x}`' for x in sorted(raising))}) is the one whose entropy ends past "
            f"x{shared.ENTROPY_FACTOR:g}: the explosion is each update's own, not a between-batch drift"
        )
    if raising and inflated and len(stats) > 1:
        worst, rest = max(stats, key=lambda x: stats[x]["factor"]), min(stats, key=lambda x: stats[x]["factor"])
        if stats[worst]["cosine"] < stats[rest]["cosine"] and stats[worst]["lambda"] > stats[rest]["lambda"]:
            readings.append(
                f"its larger lambda* turns the gradient further from the unweighted one (cosine "
                f"{stats[worst]['cosine']:.3f} against {stats[rest]['cosine']:.3f}), against sec. 5.2's "
                "'preserves the original optimization direction' (`preserves_direction`)"
            )
    tracking = measures.tracking(paper, paper.runs.grpo_onpolicy)  # each form's unweighted dH, where GRPO logs both
    if all(abs(v) < CLOSELY_TRACKS for v in tracking.values()):
        readings.append(
            "the first-order dH that OPEFO cancels does not track the realised change on the same batch (strict "
            "on-policy GRPO's r "
            + ", ".join(f"{v:+.2f} ({form} form)" for form, v in tracking.items())
            + f", short of the {CLOSELY_TRACKS:g} of 'closely'), so cancelling it does not cancel the change"
        )
    return [
        "What the logs show of the two forms' entropy (mean over seeds): "
        + "; ".join(rows)
        + f"; strict on-policy GRPO's realised change per update {grpo:+.2e}."
        + (" Read together: " + "; ".join(readings) + "." if readings else "")
    ]


def static_machine_note(paper) -> list[str]:
    """Where `opefo_static_lambda_testbed` was trained, its per-seed numbers now, and its gate."""
    run = measures.RETRAINED_ON_HOST
    if paper.runs.static_lambda != run:
        return []
    seeds = paper.results.seeds_of(run)
    own = paper.results.decoding
    at_shared = measures.accuracy_at(paper, run, None, seeds)
    at_own = measures.accuracy_at(paper, run, own, seeds)
    per_seed = ", ".join(
        f"seed {s}: {a:.3f} ({b:.3f} shared)" for s, a, b in zip(seeds, at_own, at_shared, strict=True)
    )
    failed = paper.results.gates.run_failures(run)
    gate = f"; it fails the `healthy` gate on {'; '.join(failed)}" if failed else ""
    first = (
        f" (seed 0's shared mean@n was {measures.EARLIER_STATIC_SEED0:.3f} there, "
        f"{at_shared[list(seeds).index(0)]:.3f} now)"
        if 0 in seeds
        else ""
    )
    return [
        f"Machines: every OPEFO run was trained on the lent hosts' CPUs; `{run}` was first trained on the 2-core "
        "machine and retrained on a host this round with the same settings, so its numbers differ from the earlier "
        f"report's{first}: a seed's trajectory depends on the machine's floating-point rounding, which the t interval "
        f"over seeds carries as it carries the seed. Its mean@n per seed at `{own}`: {per_seed}{gate}."
    ]


def same_batch_sentence(paper) -> str:
    """The premise note's last sentence: the same-batch measurement's numbers (mean over seeds of the per-update
    correlation of the realised change with dH, both eq. 6 forms, each run that logs it), or that it is not run."""
    found = []
    for run in (paper.runs.grpo_onpolicy, *form_runs(paper)):
        try:
            corr = measures.tracking(paper, run)
            change = seed_mean(paper, run, measures.realised_change)
        except NotTestable:  # NotLogged, or the run is absent
            continue
        found.append(
            f"`{run}` r = {corr['sampled']:+.2f} (sampled form), {corr['expectation']:+.2f} (expectation form), "
            f"mean realised change per update {change:+.2e}"
        )
    if not found:
        return (
            "The direct test, each update's entropy on its own batch before and after the step against both "
            f"forms' dH, is not run ({measures.SAME_BATCH_RUNS}); until then the divergence of the sampled form is "
            "not explained by a measured mechanism: a finite-step (higher-order) effect and a systematic reweighting "
            "of confident tokens by 1 +- lambda* (review R3-O2) are both consistent with these numbers."
        )
    return (
        "The direct test, each update's entropy on its own batch before and after the step, correlated over the "
        f"updates with its first-order dH per token (mean over seeds): {'; '.join(found)} (for OPEFO the dH is "
        "the rescaled flow, which its own form cancels: r measures what is left of it)."
    )


def lambda_note(paper) -> list[str]:
    """R3-O7: lambda*'s size here against the paper's 0.001, and what the paper's 0.001 does on the testbed."""
    r = paper.runs
    lam = paper.settings.paper_lambda_mean
    means = ", ".join(
        f"`{run}` {seed_mean(paper, run, measures.lambda_mean):.3f} (first {FIRST_50:.0%}: "
        f"{seed_mean(paper, run, measures.lambda_early):.3f})"
        for run in form_runs(paper)
    )
    static = paper.compare(r.static_lambda_paper, r.grpo_onpolicy, ACCURACY)
    ratio = seed_mean(paper, r.opefo, measures.lambda_mean) / lam
    reward_first = float(seed_mean(paper, r.opefo, lambda h: float(shared.rollouts(h, "reward").to_numpy()[0])))
    reward_early = float(seed_mean(paper, r.opefo, lambda h: measures.span_mean(h, "reward", 0.8 * FIRST_50, FIRST_50)))
    return [
        "lambda* is a dimensionless ratio of the batch's own flows, so its size compares across models: mean lambda* "
        f"{means} against the paper's {lam:g}, {ratio:.0f}x it for the default form. At the paper's {lam:g} OPEFO "
        f"weights each token by 1 +- {lam:g}, i.e. it is strict on-policy GRPO to 0.1% per token; the testbed's "
        f"`{r.static_lambda_paper}` (static lambda {lam:g}) minus `{r.grpo_onpolicy}`: mean@n at the verdicts' "
        f"decoding {static.value:+.3f} [{static.ci_low:+.3f}, {static.ci_high:+.3f}]. With the testbed's lambda* the "
        f"reweighting is large from the first steps, when `{r.opefo}`'s training reward goes from {reward_first:.3f} "
        f"at the first batch to {reward_early:.3f} by the end of the first {FIRST_50:.0%} (fig. 4(b)). "
        "The paper's own numbers sit uneasily together (round-4 O6): by eq. 9 lambda* = -(net / gross) of the "
        "batch's unscaled flow, and at the first step OPEFO's policy is GRPO's, whose net flow fig. 2(b) calls "
        f"'strongly negative' (read here as at least {STRONG_FLOW:.0%} of the gross, `net_flow_fig2b`): that is a "
        f"lambda* of at least {STRONG_FLOW:g} there, {STRONG_FLOW / lam:.0f}x the {lam:g} sec. 6.4 gives as its "
        "average, which would need lambda* near 0 over almost all the rest of training (the paper gives no gross "
        "flow to settle it)."
    ]


def delta_h_notes(paper) -> list[str]:
    """OPEFO's run beside its runs with the other eq. 6 estimator (``delta_h``), which differ in nothing else: where
    the two forms end (mean@n, entropy retained), the diagnosis of a collapse or an explosion of either."""
    lines = []
    for run in form_runs(paper):
        try:
            accuracy = paper.results.eval_summary(run, ACCURACY)[0]
            retained = geo_factor(paper, run)
        except NotTestable:
            continue
        lines.append(
            f"- {form_name(paper, run)}: mean@n {accuracy:.3f} (at the verdicts' decoding), rollout entropy "
            f"x{retained:.2f} of its first step (geometric mean over seeds)"
        )
    if len(lines) < 2:
        return []
    return [
        "The two eq. 6 forms, the runs otherwise identical, estimate different quantities: the per-token form "
        "`sampled` (sec. 5.1, 'for each generated token y_t') evaluates the bracket at the drawn token, whose "
        "advantage is correlated with which token was drawn; eq. 6 as written (`expectation`) sums it over the "
        "vocabulary with A_t fixed, so dH_t takes the sign of A_t (its factor is never positive, "
        "docs/assumptions.md) and OPEFO reduces to reweighting positive against negative samples. Neither is a "
        "one-sample estimate of the other; the choice is open and every claim reading `opefo` is judged under "
        "both (its robustness column):\n\n" + "\n".join(lines)
    ]
