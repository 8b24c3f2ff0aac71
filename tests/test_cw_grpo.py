"""CW-GRPO (cw_grpo.txt sec. 2.3): hand-computed pure functions, weight properties, loss and gradient."""
from __future__ import annotations

import math

import pytest
import torch
from degenerate import CASES, make_degenerate

from rlvr_lib.methods import LossBatch, RolloutBatch, build_method
from rlvr_lib.methods.core import masked_quantiles
from rlvr_lib.methods.cw_grpo import (
    covariance_percentiles,
    covariance_weighted_advantages,
    gaussian_kernel_weights,
    normalize_weights,
    scope_index,
    token_covariance,
)

D = torch.float64


def t(x):
    return torch.tensor(x, dtype=D)


def random_batch(seed=0, groups=3, G=4, T=8, equal_groups=(), dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    B = groups * G
    lengths = torch.randint(1, T + 1, (B,), generator=g)
    mask = (torch.arange(T)[None, :] < lengths[:, None]).to(dtype)
    rewards = torch.randint(0, 2, (B,), generator=g).to(dtype)
    rewards[0], rewards[1] = 1.0, 0.0
    gids = torch.arange(B) // G
    for k in equal_groups:
        rewards[gids == k] = 0.0
    logps = -torch.rand(B, T, generator=g, dtype=dtype) * 4 * mask
    ref = (logps + 0.2 * torch.randn(B, T, generator=g, dtype=dtype)) * mask
    ent = torch.rand(B, T, generator=g, dtype=dtype) * mask
    return RolloutBatch(rewards=rewards, group_ids=gids, mask=mask, logps=logps, entropies=ent, ref_logps=ref)


def loss_batch(b, res, logps=None, old=None):
    logps = (b.logps.clone() if logps is None else logps).requires_grad_(True)
    return LossBatch(
        logps=logps, entropies=b.entropies.clone(), old_logps=b.logps if old is None else old,
        advantages=res.advantages, mask=b.mask, num_tokens=float(b.mask.sum()), num_seqs=float(b.mask.shape[0]),
        max_completion_length=b.mask.shape[1], ref_logps=b.ref_logps, extras=res.extras,
    )


# one group: logps row 0 = [-1, -3], row 1 = [-2, (pad)]; A = [+1, -1]
LP = t([[-1.0, -3.0], [-2.0, 0.0]])
MASK = t([[1.0, 1.0], [1.0, 0.0]])
A = t([1.0, -1.0])
IDX = torch.tensor([0, 0])


# ----------------------------------------------------------------------------- pure functions, by hand
def test_token_covariance_by_hand():
    # token means: logp (-1-3-2)/3 = -2 ; A over tokens (1+1-1)/3 = 1/3
    # c = (-1+2)(1-1/3) = 2/3 ; (-3+2)(2/3) = -2/3 ; (-2+2)(-1-1/3) = 0
    c = token_covariance(LP, A, MASK, IDX, 1, "token")
    assert torch.allclose(c, t([[2 / 3, -2 / 3], [0.0, 0.0]]))
    # response centring: mean A over the 2 responses = 0 -> c = 1*1, -1*1, 0*(-1)
    c = token_covariance(LP, A, MASK, IDX, 1, "response")
    assert torch.allclose(c, t([[1.0, -1.0], [0.0, 0.0]]))


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
    assert p["cw_grpo/cov_pos_top100pct"] == pytest.approx(1.0)
    assert p["cw_grpo/cov_pos_top40pct"] == pytest.approx(3.4)
    assert p["cw_grpo/cov_pos_top20pct"] == pytest.approx(4.2)
    assert p["cw_grpo/cov_neg_top100pct"] == pytest.approx(-1.0)
    assert p["cw_grpo/cov_neg_top20pct"] == pytest.approx(-1.8)
    assert "cw_grpo/cov_neg_top1pct" not in covariance_percentiles(c.abs(), mask)  # no negatives: not logged


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
    assert scope_index(gids, "batch") [0].tolist() == [0, 0, 0, 0] and scope_index(gids, "batch")[1] == 1


# ----------------------------------------------------------------------------- paper properties
@pytest.mark.parametrize("scope", ["group", "batch"])
def test_weights_in_unit_interval_and_normalised_to_token_count(scope):
    b = random_batch(seed=1, groups=4, dtype=D)
    m = build_method("cw_grpo", scope=scope)
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
    b = random_batch(seed=2, groups=3)
    a_g = build_method("cw_grpo", scope="group").rollout(b).advantages
    a_b = build_method("cw_grpo", scope="batch").rollout(b).advantages
    assert not torch.allclose(a_g, a_b)


def test_equal_reward_group_has_zero_advantages_and_unit_weights():
    b = random_batch(seed=3, groups=3, equal_groups=(1,))
    m = build_method("cw_grpo")
    res = m.rollout(b)
    assert (res.advantages[b.group_ids == 1] == 0).all()
    assert all(k.startswith("cw_grpo/") for k in res.metrics)
    for k in ("cw_grpo/w_min", "cw_grpo/w_mean", "cw_grpo/w_max", "cw_grpo/w_std", "cw_grpo/cov_pos_top1pct"):
        assert k in res.metrics
    assert 0 < res.metrics["cw_grpo/w_min"] <= res.metrics["cw_grpo/w_mean"] <= res.metrics["cw_grpo/w_max"] <= 1


@pytest.mark.parametrize("case", CASES)
def test_degenerate_inputs_are_finite(case):
    b = make_degenerate(random_batch(seed=4, groups=2, G=3, T=5), case)
    for kw in ({}, {"scope": "batch"}, {"adv_centering": "response"}, {"logp_source": "current"}):
        m = build_method("cw_grpo", **kw)
        res = m.rollout(b)
        assert torch.isfinite(res.advantages).all()
        lb = loss_batch(b, res)
        loss, metrics = m.loss(lb)
        loss.backward()
        assert torch.isfinite(loss) and torch.isfinite(lb.logps.grad).all()


# ----------------------------------------------------------------------------- loss and gradient
def test_loss_value_and_gradient_on_policy():
    b = random_batch(seed=5)
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
    expected = ((((-res.advantages + 0.04 * k3) * b.mask).sum(-1, keepdim=True) / L).sum() / B)
    assert torch.allclose(loss, expected, atol=1e-6)
    # d/dlogp: (-w_tilde A + beta (1 - exp(ref - logp))) / (|o_i| B); the weights are constants
    grad = (-res.advantages + 0.04 * (1 - torch.exp(b.ref_logps - b.logps))) * b.mask / (L * B)
    assert torch.allclose(lb.logps.grad, grad, atol=1e-7)
    assert lb.logps.grad.abs().sum() > 0


def test_unclipped_by_default_and_clip_option():
    b = random_batch(seed=6)
    res = build_method("cw_grpo", beta=0.0).rollout(b)
    old = b.logps - 0.5 * b.mask  # ratio = e^0.5 = 1.65 everywhere: outside [0.8, 1.2]
    m_free = build_method("cw_grpo", beta=0.0)
    loss_free, met_free = m_free.loss(loss_batch(b, res, old=old))
    L = b.mask.sum(-1).clamp(min=1)
    expected = ((-math.exp(0.5) * res.advantages * b.mask).sum(-1) / L).mean()
    assert torch.allclose(loss_free, expected, atol=1e-5)
    assert met_free["clip_ratio/region"] == 0.0
    loss_clip, met_clip = build_method("cw_grpo", beta=0.0, use_clip=True).loss(loss_batch(b, res, old=old))
    assert met_clip["clip_ratio/high"] > 0 and not torch.allclose(loss_clip, loss_free)


def test_uniform_weights_reduce_to_grpo():
    # constant log-probs within each group -> c = 0 -> w = 1 -> CW-GRPO (clip on) == GRPO
    b = random_batch(seed=7)
    b.logps = -torch.ones_like(b.logps) * b.mask
    cw = build_method("cw_grpo", beta=0.0, use_clip=True)
    res_cw = cw.rollout(b)
    grpo = build_method("grpo")
    res_g = grpo.rollout(b)
    assert torch.allclose(res_cw.advantages, res_g.advantages * b.mask)
    old = b.logps - 0.1 * torch.randn(b.logps.shape, generator=torch.Generator().manual_seed(0))
    l_cw, _ = cw.loss(loss_batch(b, res_cw, old=old))
    l_g, _ = grpo.loss(loss_batch(b, res_g, old=old))
    assert torch.allclose(l_cw, l_g, atol=1e-6)


@pytest.mark.parametrize("scope", ["group", "batch"])
def test_current_logps_equal_behaviour_on_policy(scope):
    b = random_batch(seed=8)
    beh, cur = build_method("cw_grpo", scope=scope), build_method("cw_grpo", scope=scope, logp_source="current")
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


@pytest.mark.parametrize("bad", [{"scope": "x"}, {"adv_centering": "x"}, {"logp_source": "x"}, {"loss_agg": "x"}])
def test_validation(bad):
    with pytest.raises(ValueError):
        build_method("cw_grpo", **bad)
