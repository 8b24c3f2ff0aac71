"""OPEFO (shared/papers/opefo.txt eq. 6-9, fig. 3): hand examples, the balance property, ablations, scopes."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import DEGENERATE_CASES, degenerate_batch, loss_batch, rollout_batch, run_method

from rlvr_lib.methods import build_method
from rlvr_lib.methods.core import expected_entropy_change_factor
from rlvr_lib.methods.opefo import (
    balance_coefficient,
    entropy_change,
    expected_entropy_change,
    flow_sums,
    flow_weights,
    opefo_loss,
)

SAMPLED = {"delta_h": "sampled"}  # eq. 6 at each generated token (sec. 5.1), the default


def only_values(x, allowed):
    """Every entry of x is (close to) one of ``allowed``."""
    return bool(torch.stack([torch.isclose(x, torch.tensor(a)) for a in allowed]).any(0).all())


# ----------------------------------------------------------------------------- pure functions
def test_entropy_change_hand_example():
    logps = torch.tensor([[math.log(0.5), math.log(0.9), math.log(0.2)]])
    entropies = torch.tensor([[1.0, 0.5, 3.0]])
    adv = torch.tensor([[1.0, -2.0, 5.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    # token 0: -1 * (1-0.5)^2 * (ln 0.5 + 1)  = -0.25 * 0.306853 = -0.0767132
    # token 1: +2 * (1-0.9)^2 * (ln 0.9 + 0.5) = 0.02 * 0.394639 = 0.0078928
    # token 2: padding -> 0
    out = entropy_change(logps, entropies, adv, mask)
    assert torch.allclose(out, torch.tensor([[-0.0767132, 0.0078928, 0.0]]), atol=1e-6)


def test_entropy_change_signs_follow_the_paper():
    # A > 0 on a token more likely than typical (log p > -H) sharpens the distribution: dH < 0 (sec. 5.1)
    assert entropy_change(torch.tensor([[-0.1]]), torch.tensor([[1.0]]), torch.tensor([[1.0]]), torch.ones(1, 1)) < 0
    # A > 0 on a rare token (log p < -H) broadens it: dH > 0
    assert entropy_change(torch.tensor([[-3.0]]), torch.tensor([[1.0]]), torch.tensor([[1.0]]), torch.ones(1, 1)) > 0
    # p = 1 or A = 0: no change
    assert entropy_change(torch.tensor([[0.0]]), torch.tensor([[1.0]]), torch.tensor([[1.0]]), torch.ones(1, 1)) == 0


def test_flow_sums_coefficient_and_weights_hand_example():
    dh = torch.tensor([[0.3, -0.1, -0.5, 0.0]])
    pos, neg = flow_sums(dh)
    # S+ = {0.3} -> 0.3 ; S- = {-0.1, -0.5} -> 0.6 ; lambda* = (0.6 - 0.3) / (0.6 + 0.3) = 1/3
    assert pos.item() == pytest.approx(0.3) and neg.item() == pytest.approx(0.6)
    lam = balance_coefficient(pos, neg)
    assert lam.item() == pytest.approx(1 / 3)
    # both: 1 + 1/3 on S+, 1 - 1/3 on S-, 1 where dH = 0
    assert torch.allclose(flow_weights(dh, lam, "both"), torch.tensor([[4 / 3, 2 / 3, 2 / 3, 1.0]]))
    assert torch.allclose(flow_weights(dh, lam, "pos"), torch.tensor([[4 / 3, 1.0, 1.0, 1.0]]))
    assert torch.allclose(flow_weights(dh, lam, "neg"), torch.tensor([[1.0, 2 / 3, 2 / 3, 1.0]]))
    # rescaled flow: 0.3 * 4/3 - 0.6 * 2/3 = 0.4 - 0.4 = 0 (eq. 8)
    assert (flow_weights(dh, lam) * dh).sum().item() == pytest.approx(0.0, abs=1e-7)


def test_opefo_loss_hand_example():
    logps = torch.tensor([[-0.5, -2.0]])
    adv = torch.tensor([[2.0, -1.0]])
    w = torch.tensor([[1.5, 0.5]])
    # -A*logp*w: -(2)(-0.5)(1.5) = 1.5 ; -(-1)(-2)(0.5) = -1.0
    assert torch.allclose(opefo_loss(logps, adv, w), torch.tensor([[1.5, -1.0]]))


@pytest.mark.parametrize("seed", range(8))
def test_rescaled_flow_vanishes_and_lambda_is_bounded(seed):
    g = torch.Generator().manual_seed(seed)
    dh = torch.randn(6, 9, generator=g) * torch.rand(6, 1, generator=g) + 0.3 * (seed - 4)  # skewed both ways
    dh = dh * (torch.rand(6, 9, generator=g) > 0.2)
    pos, neg = flow_sums(dh)
    lam = balance_coefficient(pos, neg)
    assert -1.0 <= lam.item() <= 1.0
    assert (flow_weights(dh, lam) * dh).sum().item() == pytest.approx(0.0, abs=1e-5 * dh.abs().sum().item())


def test_lambda_limits_and_empty_flow():
    only_neg = torch.tensor([[-0.2, -0.1]])
    only_pos = torch.tensor([[0.2, 0.1]])
    assert balance_coefficient(*flow_sums(only_neg)).item() == pytest.approx(1.0)  # S- weight 0, nothing to do
    assert balance_coefficient(*flow_sums(only_pos)).item() == pytest.approx(-1.0)
    zero = torch.zeros(2, 3)
    lam = balance_coefficient(*flow_sums(zero))
    assert lam.item() == 0.0 and torch.all(flow_weights(zero, lam) == 1.0)  # fig. 3's eps guard


def test_matches_figure_3_code_on_an_unpadded_batch():
    rb = rollout_batch(logit_scale=2.0, mask=torch.ones(16, 10))
    _, result, lb, loss, metrics = run_method("opefo", rb, SAMPLED)
    # opefo.txt fig. 3, transcribed: pg_terms = -log_prob * advantages; rescale S+ / S-; pg_terms.mean()
    adv = result.advantages
    delta_h = -adv * (1 - rb.logps.exp()) ** 2 * (rb.logps + rb.entropies)
    pg_terms = -rb.logps * adv
    s_pos, s_neg = delta_h > 0, delta_h < 0
    pos_mag, neg_mag = delta_h[s_pos].sum(), delta_h[s_neg].abs().sum()
    lambda_s = (neg_mag - pos_mag) / (neg_mag + pos_mag).clamp_min(1e-12)
    pg_terms[s_pos] *= 1.0 + lambda_s
    pg_terms[s_neg] *= 1.0 - lambda_s
    assert loss.item() == pytest.approx(pg_terms.mean().item(), rel=1e-5)
    assert metrics["opefo/lambda"] == pytest.approx(lambda_s.item(), abs=1e-6)  # float32 cancellation in eq. 9


# ----------------------------------------------------------------------------- the method
def test_rollout_metrics_and_balance():
    rb = rollout_batch(logit_scale=2.0, seed=2)
    _, result, _, _, metrics = run_method("opefo", rb, SAMPLED)
    for key in ("lambda", "flow_pos", "flow_neg", "frac_pos", "frac_neg"):
        assert f"opefo/{key}" in metrics
    assert -1 <= metrics["opefo/lambda"] <= 1
    assert metrics["opefo/flow_pos"] >= 0 and metrics["opefo/flow_neg"] >= 0
    assert metrics["opefo/flow_net_rescaled"] == pytest.approx(0.0, abs=1e-5)
    assert 0 < metrics["opefo/frac_pos"] + metrics["opefo/frac_neg"] <= 1
    assert only_values(result.extras["opefo_weight"], (1 + metrics["opefo/lambda"], 1 - metrics["opefo/lambda"], 1.0))


def test_gradient_is_the_rescaled_policy_gradient():
    rb = rollout_batch(logit_scale=2.0, seed=3)
    _, result, lb, _, _ = run_method("opefo", rb, SAMPLED)
    n = rb.mask.sum()
    # d/dlogp of token-mean(-A logp w) = -A w / N on valid tokens, 0 on padding
    assert torch.allclose(lb.logps.grad, -result.advantages * result.extras["opefo_weight"] * rb.mask / n, atol=1e-7)
    assert lb.logps.grad.abs().sum() > 0


def test_static_lambda_zero_is_strict_on_policy_grpo():
    rb = rollout_batch(logit_scale=2.0, seed=4)
    _, _, lb, loss, _ = run_method("opefo", rb, {**SAMPLED, "lambda_mode": "static", "static_lambda": 0.0})
    base = build_method("grpo_onpolicy")
    lb0 = loss_batch(rb, base.rollout(rb))
    loss0, _ = base.loss(lb0)
    loss0.backward()
    assert loss.item() == pytest.approx(loss0.item(), rel=1e-6)
    assert torch.allclose(lb.logps.grad, lb0.logps.grad)


def test_static_and_one_sided_ablations():
    rb = rollout_batch(logit_scale=2.0, seed=5)
    _, result, _, _, metrics = run_method("opefo", rb, {**SAMPLED, "lambda_mode": "static"})
    assert metrics["opefo/lambda"] == pytest.approx(0.001)  # table 2 "Static Scaling"
    assert only_values(result.extras["opefo_weight"], (1.001, 0.999, 1.0))
    _, both, _, _, m = run_method("opefo", rb, SAMPLED)
    _, pos_only, _, _, _ = run_method("opefo", rb, {**SAMPLED, "balance_sides": "pos"})
    _, neg_only, _, _, _ = run_method("opefo", rb, {**SAMPLED, "balance_sides": "neg"})
    lam = m["opefo/lambda"]
    w_both, w_pos, w_neg = (r.extras["opefo_weight"] for r in (both, pos_only, neg_only))
    s_plus = w_pos != 1
    s_minus = w_neg != 1
    assert not (s_plus & s_minus).any()  # one side each
    assert torch.allclose(w_pos[~s_plus], torch.tensor(1.0)) and torch.allclose(w_neg[~s_minus], torch.tensor(1.0))
    assert torch.allclose(w_both, w_pos + w_neg - 1)
    assert torch.allclose(w_pos[s_plus], torch.tensor(1 + lam)) and torch.allclose(
        w_neg[s_minus], torch.tensor(1 - lam)
    )


def test_micro_batch_scope_equals_rollout_scope_on_the_whole_batch_and_differs_on_a_part():
    rb = rollout_batch(logit_scale=2.0, seed=6)
    _, _, lb_r, loss_r, _ = run_method("opefo", rb, SAMPLED)
    _, _, lb_m, loss_m, m = run_method("opefo", rb, {**SAMPLED, "lambda_scope": "micro-batch"})
    assert loss_r.item() == pytest.approx(loss_m.item(), rel=1e-6) and "opefo/lambda" in m
    # on half of the rows the micro-batch lambda* is that half's own balance
    method = build_method("opefo", {**SAMPLED, "lambda_scope": "micro-batch"})
    result = method.rollout(rb)
    half = loss_batch(rb, result, rows=slice(0, 8))
    _, metrics = method.loss(half)
    dh = entropy_change(rb.logps[:8], rb.entropies[:8], result.advantages[:8], rb.mask[:8])
    assert metrics["opefo/lambda"] == pytest.approx(balance_coefficient(*flow_sums(dh)).item(), rel=1e-5)
    assert metrics["opefo/flow_net_rescaled"] == pytest.approx(0.0, abs=1e-5)


def test_strictly_on_policy_and_reference_free():
    method = build_method("opefo")
    assert method.updates_per_batch == "one" and not method.needs_reference
    assert method.cfg.loss_agg == "token-mean" and method.cfg.lambda_scope == "rollout-batch"
    assert method.cfg.delta_h == "sampled" and not method.needs_entropy_change_factor  # sec. 5.1: per generated token


@pytest.mark.parametrize("seed", range(5))
def test_expected_entropy_change_factor_is_never_positive(seed):
    """e_t = E_a[(1 - pi(a))^2 (log pi(a) + H)] <= 0 for every distribution (docs/assumptions.md, OPEFO delta_h:
    Chebyshev's association inequality), on random distributions of every shape from flat to peaked."""
    gen = torch.Generator().manual_seed(seed)
    vocab = [2, 3, 10, 1000][seed % 4]
    scale = torch.logspace(-2, 1.5, 64, dtype=torch.float64)[:, None]  # temperature-like spread of the logits
    logits = torch.randn(64, vocab, generator=gen, dtype=torch.float64) * scale
    logits[::7, 0] = float("-inf")  # zero-probability tokens (top-p) contribute 0
    e = expected_entropy_change_factor(logits)
    assert (e <= 1e-12).all(), e.max()  # float64 rounding
    assert (e < 0).sum() > 50  # strictly negative away from the uniform case
    assert expected_entropy_change_factor(torch.zeros(3, vocab, dtype=torch.float64)).abs().max() < 1e-12  # uniform


def test_expectation_form_puts_exactly_the_positive_advantage_tokens_in_s_plus():
    rb = rollout_batch(logit_scale=2.0, seed=11)
    _, result, _, _, _ = run_method("opefo", rb, {"delta_h": "expectation"})
    dh = -result.advantages * rb.entropy_change_factors * rb.mask
    valid = rb.mask.bool() & (rb.entropy_change_factors < 0)
    adv = result.advantages.expand_as(dh)
    assert torch.equal((dh > 0)[valid], (adv > 0)[valid]) and torch.equal((dh < 0)[valid], (adv < 0)[valid])


# ----------------------------------------------------------------------------- delta_h: expectation (eq. 6 as written)
def test_expected_entropy_change_hand_example():
    factors = torch.tensor(
        [[-0.1029949, 0.05, 0.3]]
    )  # e_t; the first is p = (0.75, 0.25)'s (test_entropy_change_factor)
    adv = torch.tensor([[2.0, -1.0, 4.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    # -A e: 0.2059898 ; 0.05 ; padding 0
    assert torch.allclose(expected_entropy_change(factors, adv, mask), torch.tensor([[0.2059898, 0.05, 0.0]]))


def test_expectation_mode_balances_the_expected_flow():
    rb = rollout_batch(logit_scale=2.0, seed=7)
    method, result, _, _, metrics = run_method("opefo", rb, {"delta_h": "expectation"})
    assert method.needs_entropy_change_factor and not build_method("opefo", SAMPLED).needs_entropy_change_factor
    dh = -result.advantages * rb.entropy_change_factors * rb.mask  # eq. 6: dH_t = -A_t e_t
    lam = balance_coefficient(*flow_sums(dh))
    assert metrics["opefo/lambda"] == pytest.approx(lam.item(), abs=1e-6)
    assert torch.allclose(result.extras["opefo_weight"], flow_weights(dh, lam))
    assert metrics["opefo/flow_net_rescaled"] == pytest.approx(0.0, abs=1e-5)
    # the sampled-token coefficient on the same batch, logged for comparison, is the 'sampled' mode's lambda*
    _, _, _, _, sampled = run_method("opefo", rb, SAMPLED)
    assert metrics["opefo/lambda_sampled"] == pytest.approx(sampled["opefo/lambda"], abs=1e-7)
    assert "opefo/lambda_sampled" not in sampled


def test_expectation_mode_without_factors_is_refused():
    rb = rollout_batch(seed=8)
    rb.entropy_change_factors = None
    with pytest.raises(ValueError, match="entropy_change_factors"):
        build_method("opefo", {"delta_h": "expectation"}).rollout(rb)
    with pytest.raises(ValueError, match="entropy_change_factors"):
        run_method("opefo", rb, {"delta_h": "expectation", "lambda_scope": "micro-batch"})
    with pytest.raises(ValueError, match="opefo.delta_h"):
        build_method("opefo", {"delta_h": "exact"})


def test_expectation_mode_micro_batch_scope_equals_rollout_scope_on_the_whole_batch():
    rb = rollout_batch(logit_scale=2.0, seed=9)
    _, _, lb_r, loss_r, m_r = run_method("opefo", rb, {"delta_h": "expectation"})
    _, result, lb_m, loss_m, m_m = run_method("opefo", rb, {"delta_h": "expectation", "lambda_scope": "micro-batch"})
    assert "opefo_entropy_change_factor" in result.extras
    assert loss_r.item() == pytest.approx(loss_m.item(), rel=1e-6)
    assert m_r["opefo/lambda"] == pytest.approx(m_m["opefo/lambda"], abs=1e-7)
    assert torch.allclose(lb_r.logps.grad, lb_m.logps.grad)


# (finite advantages, loss, gradients and metrics for every method: test_method_degenerate.py)
@pytest.mark.parametrize("case", DEGENERATE_CASES)
@pytest.mark.parametrize("scope", ["rollout-batch", "micro-batch"])
@pytest.mark.parametrize("delta_h", ["sampled", "expectation"])
def test_degenerate_inputs_keep_lambda_in_range(case, scope, delta_h):
    _, _, lb, _, metrics = run_method("opefo", degenerate_batch(case), {"lambda_scope": scope, "delta_h": delta_h})
    assert -1 <= metrics["opefo/lambda"] <= 1
    if case in ("all_equal_rewards", "all_masked", "single_response_groups"):  # no flow: lambda* = 0, no gradient
        assert metrics["opefo/lambda"] == 0.0 and torch.all(lb.logps.grad == 0)


@pytest.mark.parametrize(
    "hp,message",
    [
        ({"static_lambda": 1.5}, "opefo.static_lambda must lie in [-1.0, 1.0], got 1.5"),
        ({"lambda_eps": 0.0}, "opefo.lambda_eps must be > 0.0"),
        ({"eps_low": 0.2}, "unknown key(s) ['opefo.eps_low']"),  # no ratio, no clip
    ],
)
def test_invalid_hyperparameters_name_the_field(hp, message):
    with pytest.raises(ValueError) as err:
        build_method("opefo", hp)
    assert message in str(err.value)
