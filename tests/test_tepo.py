"""TEPO (tepo.txt eq. 4, Alg. 1, App. D): hand-computed pure functions, properties, loss and gradient."""

from __future__ import annotations

import pytest
import torch
from conftest import loss_batch, rollout_batch, t

from rlvr_lib.methods import build_method
from rlvr_lib.methods.tepo import (
    cispo_surrogate,
    entropy_kl_mask,
    prefix_log_weight,
    sequence_clip_surrogate,
    sequence_log_weight,
)

D = torch.float64


# ----------------------------------------------------------------------------- pure functions, by hand
def test_sequence_log_weight_by_hand():
    # diffs 0.5, -1.0 (the third token is masked) -> log w = -0.25 -> w = exp(-0.25) = 0.778801
    lw = sequence_log_weight(t([[-1.0, -2.0, -9.0]]), t([[-1.5, -1.0, 0.0]]), t([[1.0, 1.0, 0.0]]))
    assert torch.allclose(lw, t([-0.25]))
    # fully masked row -> log w = 0 (w = 1)
    assert sequence_log_weight(t([[-1.0]]), t([[-3.0]]), t([[0.0]])).item() == 0.0


def test_w_is_geometric_mean_of_token_ratios():
    b = rollout_batch(b=12, t=8, seed=1, dtype=D)
    g = torch.Generator().manual_seed(1)
    logps = b.logps + 0.1 * torch.randn(b.logps.shape, generator=g, dtype=D) * b.mask
    w = torch.exp(sequence_log_weight(logps, b.logps, b.mask))
    ratios = torch.exp(logps - b.logps)
    for i in range(w.shape[0]):
        r = ratios[i][b.mask[i].bool()]
        assert torch.allclose(w[i], torch.prod(r) ** (1.0 / r.numel()))


def test_sequence_clip_surrogate_ppo_by_hand():
    # eps 0.2 / 0.28. rows: w = 1.5, 1.5, 0.5, 0.5 with A = +1, -1, -1, +1
    #   w=1.5 A=+1: -min(1.5, 1.28) = -1.28 (clipped high)   w=1.5 A=-1: -min(-1.5, -1.28) = 1.5
    #   w=0.5 A=-1: -min(-0.5, -0.8) = 0.8 (clipped low)     w=0.5 A=+1: -min(0.5, 0.8) = -0.5
    log_w = torch.log(t([1.5, 1.5, 0.5, 0.5]))
    adv = t([[1.0], [-1.0], [-1.0], [1.0]])
    loss, info = sequence_clip_surrogate(log_w, adv, 0.2, 0.28, "ppo")
    assert torch.allclose(loss, t([[-1.28], [1.5], [0.8], [-0.5]]))
    assert info["clipped_high"].squeeze(1).tolist() == [True, False, False, False]
    assert info["clipped_low"].squeeze(1).tolist() == [False, False, True, False]


def test_sequence_clip_surrogate_variants_by_hand():
    log_w = torch.log(t([1.5, 0.5]))
    adv = t([[-1.0], [-1.0]])
    # eq. 4 typeset literally: -min(w, clip(w)) * A: w=1.5 -> -1.28*-1 = 1.28 ; w=0.5 -> -min(0.5, 0.8)*-1 = 0.5
    loss, info = sequence_clip_surrogate(log_w, adv, 0.2, 0.28, "eq4_literal")
    assert torch.allclose(loss, t([[1.28], [0.5]]))
    assert info["clipped_high"].squeeze(1).tolist() == [True, False]
    # Algorithm 1 line 15: -w * A = 1.5, 0.5
    loss, info = sequence_clip_surrogate(log_w, adv, 0.2, 0.28, "unclipped")
    assert torch.allclose(loss, t([[1.5], [0.5]])) and not info["clipped_high"].any()


def test_entropy_kl_mask_by_hand():
    A = t([1.0, 1.0, -1.0, -1.0, 0.0])
    dH = t([-0.1, 0.1, 0.1, -0.1, -0.1])
    assert entropy_kl_mask(A, dH, "pos_adv_entropy_down").tolist() == [1, 0, 0, 0, 0]  # A>0 & dH<0 (TEPO)
    assert entropy_kl_mask(A, dH, "neg_adv_entropy_up").tolist() == [0, 0, 1, 0, 0]  # A<0 & dH>0
    assert entropy_kl_mask(A, dH, "either").tolist() == [1, 0, 1, 0, 0]  # union
    assert entropy_kl_mask(A, dH, "none").tolist() == [0] * 5
    assert entropy_kl_mask(A, dH, "all").tolist() == [1] * 5
    assert entropy_kl_mask(A, dH, "pos_adv_entropy_down", tol=0.2).tolist() == [0] * 5  # |dH| <= tol: no change


def test_on_policy_mask_empty_kl_zero_and_loss_is_token_mean():
    b = rollout_batch(b=12, t=8, seed=2)
    m = build_method("tepo")
    assert m.updates_per_batch == "several" and not m.needs_reference
    res = m.rollout(b)
    assert torch.equal(res.extras["behaviour_entropies"], b.entropies)
    logps = b.logps.clone().requires_grad_(True)
    loss, met = m.loss(loss_batch(b, res, logps=logps, entropies=b.entropies.clone()))
    assert met["tepo/mask_frac"] == 0.0 and met["tepo/kl"] == 0.0 and met["tepo/w_mean"] == pytest.approx(1.0)
    # w = 1: loss = token-mean of -A
    expected = (-res.advantages * b.mask).sum() / b.mask.sum()
    assert torch.allclose(loss, expected, atol=1e-6)
    loss.backward()
    # d/dlogp_{i,t} of (1/N) sum_i |o_i| * (-w_i A_i) = -A_i w_i / N at every token (w = 1)
    assert torch.allclose(logps.grad, -res.advantages * b.mask / b.mask.sum(), atol=1e-7)
    assert all(k.startswith("tepo/") or k.startswith("clip_ratio/") for k in met)


def test_mask_and_kl_act_off_policy():
    b = rollout_batch(b=12, t=8, seed=3, dtype=D)
    m = build_method("tepo", {"beta": 0.5})
    res = m.rollout(b)
    g = torch.Generator().manual_seed(3)
    logps = (b.logps + 0.05 * torch.randn(b.logps.shape, generator=g, dtype=D) * b.mask).requires_grad_(True)
    ent = b.entropies + 0.1 * torch.randn(b.entropies.shape, generator=g, dtype=D) * b.mask
    loss, met = m.loss(loss_batch(b, res, logps=logps, entropies=ent))
    M = ((res.advantages > 0) & (ent - b.entropies < 0)).to(D) * b.mask
    assert met["tepo/mask_frac"] == pytest.approx(float(M.sum() / b.mask.sum()))
    assert 0 < met["tepo/mask_frac"] < 1
    # hand-written eq. 4 (PPO form, token-mean) as a reference
    w = torch.exp(((logps - b.logps) * b.mask).sum(-1) / b.mask.sum(-1).clamp(min=1))[:, None]
    A = res.advantages
    pol = -torch.minimum(w * A, torch.clamp(w, 0.8, 1.28) * A)
    kl = torch.exp(b.logps - logps) - (b.logps - logps) - 1
    expected = ((pol + 0.5 * kl * M) * b.mask).sum() / b.mask.sum()
    assert torch.allclose(loss, expected)
    # the mask scope matters: panel E variants give different losses
    lb = loss_batch(b, res, logps=logps, entropies=ent)
    others = [build_method("tepo", {"beta": 0.5, "mask_scope": s}).loss(lb)[0] for s in ("none", "either", "all")]
    assert len({round(float(x.detach()), 12) for x in [loss, *others]}) == 4


def test_entropy_change_is_split_by_the_sign_of_the_advantage_by_hand():
    """Sec. 3.2.2-3.2.3 (claim `entropy_sign`): mean dH over the tokens with A > 0 and over those with A < 0."""
    from rlvr_lib.methods import RolloutResult

    mask = t([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    b = rollout_batch(b=4, t=3, group=2, seed=6, mask=mask, dtype=D)
    adv = t([[1.0] * 3, [-0.5] * 3, [2.0] * 3, [0.0] * 3])
    behaviour = torch.zeros(4, 3, dtype=D)
    d_h = t([[-0.2, -0.4, 9.0], [0.1, 0.2, 0.6], [0.3, 9.0, 9.0], [5.0, 5.0, 9.0]])  # 9.0: padding, ignored
    res = RolloutResult(advantages=adv, extras={"behaviour_entropies": behaviour})
    _, met = build_method("tepo").loss(loss_batch(b, res, logps=b.logps.clone(), entropies=d_h))
    # A > 0: rows 0 and 2 -> (-0.2 - 0.4 + 0.3) / 3 = -0.1; A < 0: row 1 -> (0.1 + 0.2 + 0.6) / 3 = 0.3
    assert met["tepo/entropy_change_pos_adv"] == pytest.approx(-0.1)
    assert met["tepo/entropy_change_neg_adv"] == pytest.approx(0.3)
    # every unmasked token, A = 0 included: (-0.6 + 0.9 + 0.3 + 10) / 8
    assert met["tepo/entropy_change_mean"] == pytest.approx(10.6 / 8)


def test_entropy_coef_adds_an_entropy_bonus_with_its_sign_by_hand():
    """Table 3 panel B: loss += -coef * token-mean(H); coef > 0 rewards entropy (its gradient on H is -coef / N),
    coef < 0 penalises it; 0 leaves eq. 4 unchanged."""
    mask = t([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    b = rollout_batch(b=2, t=3, group=2, seed=7, mask=mask, dtype=D)
    res = build_method("tepo").rollout(b)
    h = t([[0.5, 1.0, 7.0], [0.25, 0.25, 1.0]])  # 7.0: padding; token-mean over 5 tokens = 3.0 / 5 = 0.6
    base, _ = build_method("tepo").loss(loss_batch(b, res, logps=b.logps.clone(), entropies=h))
    for coef in (0.1, -0.1):
        ent = h.clone().requires_grad_(True)
        loss, met = build_method("tepo", {"entropy_coef": coef}).loss(
            loss_batch(b, res, logps=b.logps.clone(), entropies=ent)
        )
        assert float((loss - base).detach()) == pytest.approx(-coef * 0.6)
        assert met["tepo/entropy_bonus_loss"] == pytest.approx(-coef * 0.6)
        loss.backward()
        assert torch.allclose(ent.grad, -coef * mask / 5)


def test_prefix_log_weight_by_hand():
    """Panel C's w_{i,j<=t}: the geometric mean of the token ratios up to t (table 5)."""
    # diffs 0.5, -1.0, (masked) -> prefix means 0.5, (0.5 - 1.0) / 2 = -0.25, and -0.25 carried over the padding
    lw = prefix_log_weight(t([[-1.0, -2.0, -9.0]]), t([[-1.5, -1.0, 0.0]]), t([[1.0, 1.0, 0.0]]))
    assert torch.allclose(lw, t([[0.5, -0.25, -0.25]]))
    # the last unmasked token's prefix weight is the sequence weight w_i
    b = rollout_batch(b=6, t=5, seed=8, dtype=D)
    logps = b.logps + 0.1 * b.mask
    last = b.mask.sum(-1).long() - 1
    prefix = prefix_log_weight(logps, b.logps, b.mask)
    assert torch.allclose(prefix[torch.arange(6), last], sequence_log_weight(logps, b.logps, b.mask))


def test_cispo_surrogate_by_hand():
    """Panel C's CISPO: -sg[clip(w_i)] * A * logp; the weight's clip bounds the step but removes no gradient."""
    log_w = torch.log(t([1.5, 0.5, 1.1]))
    logps = t([[-1.0, -2.0], [-0.5, -1.0], [-3.0, -1.0]]).requires_grad_(True)
    adv = t([[1.0], [-1.0], [2.0]])
    loss, info = cispo_surrogate(log_w, logps, adv, 0.2, 0.28)
    # weights clip(1.5) = 1.28, clip(0.5) = 0.8, 1.1 -> loss = -weight * A * logp
    expected = -t([[1.28], [0.8], [1.1]]) * adv * logps.detach()
    assert torch.allclose(loss, expected)
    loss.sum().backward()
    assert torch.allclose(logps.grad, (-t([[1.28], [0.8], [1.1]]) * adv).expand(3, 2))
    assert info["clipped_high"].tolist() == [[True, True], [False, False], [False, False]]
    assert info["clipped_low"].tolist() == [[False, False], [True, True], [False, False]]


def test_panel_c_surrogates_in_the_loss():
    """prefix_is and cispo change the loss; unclipped CISPO's gradient is Algorithm 1's (token-mean)."""
    b = rollout_batch(b=8, t=6, seed=9, dtype=D)
    g = torch.Generator().manual_seed(9)
    start = b.logps + 0.05 * torch.randn(b.logps.shape, generator=g, dtype=D) * b.mask
    res = build_method("tepo").rollout(b)

    def grad(hp):
        x = start.clone().requires_grad_(True)
        loss, met = build_method("tepo", {"beta": 0.0, **hp}).loss(loss_batch(b, res, logps=x, entropies=b.entropies))
        loss.backward()
        return loss.detach(), x.grad

    wide = {"eps_low": 10.0, "eps_high": 10.0}
    _, g_unclipped = grad({"surrogate": "unclipped"})
    _, g_cispo = grad({"surrogate": "cispo", **wide})
    assert torch.allclose(g_cispo, g_unclipped)
    # prefix IS: -token-mean(w_{i,t} * A) with the prefix weights (no clip at eps 10)
    loss, _ = grad({"surrogate": "prefix_is", **wide})
    w_t = torch.exp(prefix_log_weight(start, b.logps, b.mask))
    assert torch.allclose(loss, (-w_t * res.advantages * b.mask).sum() / b.mask.sum())


def test_gradient_flows_through_w_and_matches_finite_differences():
    b = rollout_batch(b=3, t=4, group=3, seed=4, dtype=D)
    m = build_method("tepo", {"beta": 0.3, "mask_scope": "all", "eps_low": 10.0, "eps_high": 10.0})  # no clip kink
    res = m.rollout(b)
    g = torch.Generator().manual_seed(4)
    start = b.logps + 0.05 * torch.randn(b.logps.shape, generator=g, dtype=D) * b.mask

    def f(x):
        return m.loss(loss_batch(b, res, logps=x, entropies=b.entropies))[0]

    assert torch.autograd.gradcheck(f, (start.clone().requires_grad_(True),))
    x = start.clone().requires_grad_(True)
    f(x).backward()
    assert x.grad[b.mask.bool()].abs().min() > 0 and (x.grad[~b.mask.bool()] == 0).all()


def test_global_kl_to_reference_variant():
    b = rollout_batch(b=12, t=8, seed=5)
    m = build_method("tepo", {"mask_scope": "all", "kl_target": "ref", "beta": 0.1})
    assert m.needs_reference
    res = m.rollout(b)
    loss, met = m.loss(loss_batch(b, res, logps=b.logps.clone().requires_grad_(True), entropies=b.entropies))
    k3 = torch.exp(b.ref_logps - b.logps) - (b.ref_logps - b.logps) - 1
    expected = ((-res.advantages + 0.1 * k3) * b.mask).sum() / b.mask.sum()
    assert torch.allclose(loss, expected, atol=1e-6) and met["tepo/mask_frac"] == 1.0


@pytest.mark.parametrize(
    "bad,message",
    [
        ({"beta": -1.0}, "tepo.beta must be >= 0.0"),
        ({"entropy_change_tol": -0.1}, "tepo.entropy_change_tol must be >= 0.0"),
    ],
)
def test_validation(bad, message):
    with pytest.raises(ValueError) as err:
        build_method("tepo", bad)
    assert message in str(err.value)
