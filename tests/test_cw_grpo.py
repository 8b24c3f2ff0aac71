"""CW-GRPO (cw_grpo.txt sec. 2.3): hand-computed pure functions, weight properties, loss and gradient."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import loss_batch, rollout_batch, t

from rlvr_lib.methods import build_method
from rlvr_lib.methods.core import masked_quantiles
from rlvr_lib.methods.cw_grpo import (
    covariance_percentiles,
    covariance_weighted_advantages,
    gaussian_kernel_weights,
    normalize_weights,
    scope_index,
)

D = torch.float64


# one group: logps row 0 = [-1, -3], row 1 = [-2, (pad)]; A = [+1, -1]
LP = t([[-1.0, -3.0], [-2.0, 0.0]])
MASK = t([[1.0, 1.0], [1.0, 0.0]])
A = t([1.0, -1.0])
IDX = torch.tensor([0, 0])


# ----------------------------------------------------------------------------- pure functions, by hand
def test_gaussian_kernel_weights_by_hand():
    # c = {2/3, -2/3, 0}: mean 0, sample var (4/9 + 4/9)/2 = 4/9 -> w = exp(-(4/9)/(2*4/9)) = exp(-1/2) = 0.60653
    c = t([[2 / 3, -2 / 3], [0.0, 0.0]])
    w, sigma = gaussian_kernel_weights(c, MASK, IDX, 1, "sample")
    assert torch.allclose(sigma, t([2 / 3]))
    assert torch.allclose(w, t([[math.exp(-0.5), math.exp(-0.5)], [1.0, 0.0]]))
    # population var 8/27 -> w = exp(-(4/9)/(16/27)) = exp(-3/4) = 0.47237
    w, _ = gaussian_kernel_weights(c, MASK, IDX, 1, "population")
    assert torch.allclose(w[0], t([math.exp(-0.75)] * 2))


def test_normalize_weights_by_hand():
    # sum w = 2 * 0.606531 + 1 = 2.213061, N = 3 -> w_tilde = 0.606531 * 3 / 2.213061 = 0.822210, 3/2.213061 = 1.355589
    e = math.exp(-0.5)
    w = t([[e, e], [1.0, 0.0]])
    wt = normalize_weights(w, MASK, IDX, 1)
    assert torch.allclose(wt, t([[3 * e / (2 * e + 1)] * 2, [3 / (2 * e + 1), 0.0]]))
    assert torch.allclose(wt.sum(), t(3.0))


def test_covariance_weighted_advantages_by_hand():
    # the three steps above chained: adv = w_tilde * A_i = [0.822210 * 1] * 2, [1.355589 * -1]
    e = math.exp(-0.5)
    adv, parts = covariance_weighted_advantages(LP, A, MASK, IDX, 1)
    assert torch.allclose(adv, t([[3 * e / (2 * e + 1)] * 2, [-3 / (2 * e + 1), 0.0]]))
    assert not parts["w_tilde"].requires_grad


def test_sigma_zero_gives_unit_weights():
    # all c equal (here all 0: equal rewards) -> sigma = 0 -> w = 1, no NaN
    c = torch.zeros(2, 2, dtype=D)
    w, sigma = gaussian_kernel_weights(c, MASK, IDX, 1)
    assert sigma.item() == 0 and torch.equal(w, MASK)
    # a single token: sample std 0 -> w = 1
    w1, _ = gaussian_kernel_weights(t([[5.0]]), t([[1.0]]), torch.tensor([0]), 1)
    assert w1.item() == 1.0


def test_covariance_percentiles_by_hand():
    # positives {1,2,3,4,5}: top 100% = quantile 0 = 1 ; top 40% = quantile 0.6 = 1 + 0.6*4 = 3.4 ;
    # top 20% = quantile 0.8 = 4.2 ; negatives {-1,-2}: top 100% = quantile 1 = -1 ; top 20% = quantile 0.2 = -1.8
    c = t([[1.0, 2.0, 3.0, 4.0], [5.0, -1.0, -2.0, 0.0]])
    mask = t([[1, 1, 1, 1], [1, 1, 1, 0]])
    p = covariance_percentiles(c, mask)
    assert p["cov_pos_top100pct"] == pytest.approx(1.0)
    assert p["cov_pos_top40pct"] == pytest.approx(3.4)
    assert p["cov_pos_top20pct"] == pytest.approx(4.2)
    assert p["cov_neg_top100pct"] == pytest.approx(-1.0)
    assert p["cov_neg_top20pct"] == pytest.approx(-1.8)
    assert "cov_neg_top1pct" not in covariance_percentiles(c.abs(), mask)  # no negatives: not logged


def test_masked_quantiles_match_torch_quantile():
    x = torch.randn(7, 9, generator=torch.Generator().manual_seed(0), dtype=D)
    mask = x.abs() > 0.3
    qs = (0.0, 0.0001, 0.2, 0.5, 0.99, 1.0)
    expected = torch.quantile(x[mask].float(), torch.tensor(qs)).tolist()
    assert masked_quantiles(x, mask, qs) == pytest.approx(expected, abs=1e-6)
    assert all(math.isnan(v) for v in masked_quantiles(x, torch.zeros_like(mask), qs))


def test_scope_index():
    gids = torch.tensor([7, 7, 3, 3])
    assert scope_index(gids, "group")[0].tolist() == [1, 1, 0, 0]
    assert scope_index(gids, "batch")[0].tolist() == [0, 0, 0, 0] and scope_index(gids, "batch")[1] == 1


# ----------------------------------------------------------------------------- paper properties
@pytest.mark.parametrize("scope", ["group", "batch"])
def test_weights_in_unit_interval_and_normalised_to_token_count(scope):
    b = rollout_batch(b=16, t=8, seed=1, dtype=D)
    m = build_method("cw_grpo", {"scope": scope})
    seq = m.sequence_advantages(b).to(D)
    index, n = scope_index(b.group_ids, scope)
    _, parts = covariance_weighted_advantages(b.logps, seq, b.mask, index, n)
    w = parts["w"][b.mask.bool()]
    assert (w > 0).all() and (w <= 1).all()
    assert (w < 1).any()  # the kernel does down-weight something
    # sum of w_tilde over each segment equals its token count N
    seg_tok = torch.zeros(n, dtype=D).index_add_(0, index, b.mask.sum(-1))
    seg_w = torch.zeros(n, dtype=D).index_add_(0, index, (parts["w_tilde"] * b.mask).sum(-1))
    assert torch.allclose(seg_w, seg_tok)


def test_group_scope_differs_from_batch_scope():
    b = rollout_batch(b=12, t=8, seed=2)
    a_g = build_method("cw_grpo", {"scope": "group"}).rollout(b).advantages
    a_b = build_method("cw_grpo", {"scope": "batch"}).rollout(b).advantages
    assert not torch.allclose(a_g, a_b)


def test_equal_reward_group_has_zero_advantages_and_unit_weights():
    b = rollout_batch(b=12, t=8, seed=3, equal_groups=(1,))
    m = build_method("cw_grpo")
    res = m.rollout(b)
    assert (res.advantages[b.group_ids == 1] == 0).all()
    assert all(k.startswith("cw_grpo/") for k in res.metrics)
    for k in ("cw_grpo/w_min", "cw_grpo/w_mean", "cw_grpo/w_max", "cw_grpo/w_std", "cw_grpo/cov_pos_top1pct"):
        assert k in res.metrics
    assert 0 < res.metrics["cw_grpo/w_min"] <= res.metrics["cw_grpo/w_mean"] <= res.metrics["cw_grpo/w_max"] <= 1


# ----------------------------------------------------------------------------- loss and gradient
def test_loss_value_and_gradient_on_policy():
    b = rollout_batch(b=12, t=8, seed=5)
    m = build_method("cw_grpo")
    assert m.needs_reference and m.cfg.beta == 0.04 and not m.cfg.use_clip
    res = m.rollout(b)
    lb = loss_batch(b, res)
    loss, metrics = m.loss(lb)
    loss.backward()
    L = b.mask.sum(-1, keepdim=True).clamp(min=1)
    B = b.mask.shape[0]
    k3 = torch.exp(b.ref_logps - b.logps) - (b.ref_logps - b.logps) - 1
    # seq-mean-token-mean of -rho * (w_tilde A) + beta * k3 with rho = 1
    expected = (((-res.advantages + 0.04 * k3) * b.mask).sum(-1, keepdim=True) / L).sum() / B
    assert torch.allclose(loss, expected, atol=1e-6)
    # d/dlogp: (-w_tilde A + beta (1 - exp(ref - logp))) / (|o_i| B); the weights are constants
    grad = (-res.advantages + 0.04 * (1 - torch.exp(b.ref_logps - b.logps))) * b.mask / (L * B)
    assert torch.allclose(lb.logps.grad, grad, atol=1e-7)
    assert lb.logps.grad.abs().sum() > 0


def test_unclipped_by_default_and_clip_option():
    b = rollout_batch(b=12, t=8, seed=6)
    res = build_method("cw_grpo", {"beta": 0.0}).rollout(b)
    old = b.logps - 0.5 * b.mask  # ratio = e^0.5 = 1.65 everywhere: outside [0.8, 1.2]
    m_free = build_method("cw_grpo", {"beta": 0.0})
    loss_free, met_free = m_free.loss(loss_batch(b, res, old_logps=old))
    L = b.mask.sum(-1).clamp(min=1)
    expected = ((-math.exp(0.5) * res.advantages * b.mask).sum(-1) / L).mean()
    assert torch.allclose(loss_free, expected, atol=1e-5)
    assert met_free["clip_ratio/region"] == 0.0
    clipped = build_method("cw_grpo", {"beta": 0.0, "use_clip": True})
    loss_clip, met_clip = clipped.loss(loss_batch(b, res, old_logps=old))
    assert met_clip["clip_ratio/high"] > 0 and not torch.allclose(loss_clip, loss_free)


def test_uniform_weights_reduce_to_grpo():
    # constant log-probs within each group -> c = 0 -> w = 1 -> CW-GRPO (clip on) == GRPO
    b = rollout_batch(b=12, t=8, seed=7)
    b.logps = -torch.ones_like(b.logps) * b.mask
    cw = build_method("cw_grpo", {"beta": 0.0, "use_clip": True})
    res_cw = cw.rollout(b)
    grpo = build_method("grpo")
    res_g = grpo.rollout(b)
    assert torch.allclose(res_cw.advantages, res_g.advantages * b.mask)
    old = b.logps - 0.1 * torch.randn(b.logps.shape, generator=torch.Generator().manual_seed(0))
    l_cw, _ = cw.loss(loss_batch(b, res_cw, old_logps=old))
    l_g, _ = grpo.loss(loss_batch(b, res_g, old_logps=old))
    assert torch.allclose(l_cw, l_g, atol=1e-6)


@pytest.mark.parametrize("scope", ["group", "batch"])
def test_current_logps_equal_behaviour_on_policy(scope):
    b = rollout_batch(b=12, t=8, seed=8)
    beh = build_method("cw_grpo", {"scope": scope})
    cur = build_method("cw_grpo", {"scope": scope, "logp_source": "current"})
    r_beh, r_cur = beh.rollout(b), cur.rollout(b)
    assert set(r_cur.extras) == {"cw_segment", "cw_seq_adv"}
    lb_beh, lb_cur = loss_batch(b, r_beh), loss_batch(b, r_cur)
    l_beh, _ = beh.loss(lb_beh)
    l_cur, m_cur = cur.loss(lb_cur)
    l_beh.backward()
    l_cur.backward()
    assert torch.allclose(l_beh, l_cur, atol=1e-6)
    assert torch.allclose(lb_beh.logps.grad, lb_cur.logps.grad, atol=1e-7)  # weights not differentiated
    assert "cw_grpo/w_mean" in m_cur
