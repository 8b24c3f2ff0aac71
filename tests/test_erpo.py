"""ERPO (erpo.txt eq. 6-10, Algorithm 1): hand-computed pure functions, a loop reference, paper properties."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import degenerate_batch, loss_batch, rollout_batch, t

from rlvr_lib.methods import RolloutBatch, build_method
from rlvr_lib.methods.core import group_index
from rlvr_lib.methods.erpo import (
    ERPOConfig,
    active_token_mask,
    bucket_normalize,
    entropy_gate,
    erpo_token_advantages,
    group_token_zscore,
    implicit_progress,
    relative_position_buckets,
    rescale_to_target_std,
    segment_mean_std,
)

D = torch.float64


# ----------------------------------------------------------------------------- pure functions, by hand
def test_implicit_progress_by_hand():
    # s = 0.1 * (logp - ref): 0.1 * (-1 - -1.5) = 0.05; 0.1 * (-2 - -1) = -0.1 -> masked to 0
    s = implicit_progress(t([[-1.0, -2.0]]), t([[-1.5, -1.0]]), t([[1.0, 0.0]]), 0.1)
    assert torch.allclose(s, t([[0.05, 0.0]]))


def test_relative_position_buckets_by_hand():
    mask = t([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]])
    # row 0: |o| = 4, K = 2, t = 1..4 -> floor(t*2/4) = 0, 1, 1, 2 -> the last joins bucket K-1 = 1
    # row 1: |o| = 3, K = 2, t = 1..3 -> floor(t*2/3) = 0, 1, 2 -> 0, 1, 1
    assert relative_position_buckets(mask, 2, 1).tolist() == [[0, 1, 1, 1, 0], [0, 1, 1, 0, 0]]
    # 0-based: row 0 t = 0..3 -> floor(t*2/4) = 0, 0, 1, 1; row 1 t = 0..2 -> floor(t*2/3) = 0, 0, 1
    assert relative_position_buckets(mask, 2, 0).tolist() == [[0, 0, 1, 1, 0], [0, 0, 1, 0, 0]]
    # |o| = 3, K = 3, 1-based: floor(t*3/3) = 1, 2, 3 -> 1, 2, 2 (bucket 0 stays empty)
    assert relative_position_buckets(t([[1, 1, 1]]), 3, 1).tolist() == [[1, 2, 2]]
    # K = 1 puts every token in bucket 0
    assert relative_position_buckets(mask, 1, 1).tolist() == [[0] * 5, [0] * 5]


def test_segment_mean_std_by_hand():
    # segment 0 holds {1, 3, 5}: mean 3, sample var (4+0+4)/2 = 4 -> std 2, population var 8/3
    # segment 1 holds {10} (the 99 is masked): mean 10, sample std 0 (single element)
    x = t([[1.0, 3.0, 10.0], [5.0, 99.0, 0.0]])
    seg = torch.tensor([[0, 0, 1], [0, 1, 1]])
    mask = t([[1, 1, 1], [1, 0, 0]])
    mean, std = segment_mean_std(x, seg, 3, mask, "sample")
    assert torch.allclose(mean, t([3.0, 10.0, 0.0])) and torch.allclose(std, t([2.0, 0.0, 0.0]))
    _, pstd = segment_mean_std(x, seg, 3, mask, "population")
    assert torch.allclose(pstd[0], t(math.sqrt(8 / 3)))


def test_bucket_normalize_by_hand():
    # one group, K = 2, 0-based positions.
    # resp 0: s = [1, 3, 0, 2], |o| = 4 -> buckets 0, 0, 1, 1 ; resp 1: s = [5, 4], |o| = 2 -> buckets 0, 1
    # bucket 0 = {1, 3, 5}: mean 3, sample std 2 -> z = -1, 0, +1
    # bucket 1 = {0, 2, 4}: mean 2, sample std 2 -> z = -1, 0, +1
    s = t([[1.0, 3.0, 0.0, 2.0], [5.0, 4.0, 0.0, 0.0]])
    mask = t([[1, 1, 1, 1], [1, 1, 0, 0]])
    buckets = relative_position_buckets(mask, 2, 0)
    assert buckets.tolist() == [[0, 0, 1, 1], [0, 1, 0, 0]]
    st = bucket_normalize(s, mask, torch.tensor([0, 0]), 1, buckets, 2, delta=0.0)
    assert torch.allclose(st, t([[-1.0, 0.0, -1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]))


def test_bucket_normalize_separates_groups():
    # same numbers in two groups with an offset of 100 in the second: z-scores must not mix the groups
    s = t([[1.0, 3.0], [5.0, 7.0], [101.0, 103.0], [105.0, 107.0]])
    mask = torch.ones(4, 2, dtype=D)
    index = torch.tensor([0, 0, 1, 1])
    st = bucket_normalize(s, mask, index, 2, torch.zeros(4, 2, dtype=torch.long), 1, delta=0.0)
    # group values {1,3,5,7}: mean 4, sample std sqrt(20/3) = 2.58199
    expected = (t([[1.0, 3.0], [5.0, 7.0]]) - 4) / math.sqrt(20 / 3)
    assert torch.allclose(st[:2], expected) and torch.allclose(st[2:], expected)


def test_entropy_gate_by_hand():
    # group 0: H = [0, 1, 2]: mean 1, sample std 1 -> W = sigmoid(5 * [-1, 0, 1]) = [0.0066929, 0.5, 0.9933071]
    # group 1: H = [10, 12]: mean 11, sample std sqrt(2) -> W = sigmoid(5 * [-1, 1] / sqrt(2))
    H = t([[0.0, 1.0, 2.0], [10.0, 12.0, 0.0]])
    mask = t([[1, 1, 1], [1, 1, 0]])
    W = entropy_gate(H, mask, torch.tensor([0, 1]), 2, gamma=5.0, delta=0.0)
    assert torch.allclose(W[0], t([0.0066928509, 0.5, 0.9933071491]))
    z = 5 / math.sqrt(2)
    assert torch.allclose(W[1], t([1 / (1 + math.exp(z)), 1 / (1 + math.exp(-z)), 0.0]))
    assert ((W > 0) & (W < 1))[mask.bool()].all()


def test_group_token_zscore_by_hand():
    # tokens {1, 3, 5} (the 9 is masked): mean 3, sample std 2 -> [-1, 0], [1, 0]
    x = t([[1.0, 3.0], [5.0, 9.0]])
    mask = t([[1, 1], [1, 0]])
    z = group_token_zscore(x, mask, torch.tensor([0, 0]), 1, delta=0.0)
    assert torch.allclose(z, t([[-1.0, 0.0], [1.0, 0.0]]))


def test_rescale_to_target_std_by_hand():
    psi_hat = t([[1.0, -1.0], [3.0, -3.0]])
    active = torch.ones(2, 2, dtype=D)
    # batch: {1,-1,3,-3}: mean 0, sample var (1+1+9+9)/3 = 20/3 -> Psi = 2 * psi_hat / sqrt(20/3)
    psi, std = rescale_to_target_std(psi_hat, active, 2.0, 0.0)
    assert torch.allclose(std, t([math.sqrt(20 / 3)]))
    assert torch.allclose(psi, 2 * psi_hat / math.sqrt(20 / 3))
    assert torch.allclose(psi[active.bool()].std(), t(2.0))
    # per group: {1,-1} std sqrt(2), {3,-3} std 3 sqrt(2) -> both rows become [sqrt(2), -sqrt(2)]
    psi_g, _ = rescale_to_target_std(psi_hat, active, 2.0, 0.0, torch.tensor([0, 1]), 2)
    assert torch.allclose(psi_g, t([[math.sqrt(2), -math.sqrt(2)]] * 2))
    # only row 0 active: std sqrt(2) -> Psi = 2 * psi_hat / sqrt(2)
    act = active_token_mask(active, t([1.0, 0.0]), "anchored")
    assert act.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    psi_a, _ = rescale_to_target_std(psi_hat, act, 2.0, 0.0)
    assert torch.allclose(psi_a, 2 * psi_hat / math.sqrt(2))


def test_composition_by_hand_without_gate_and_progress():
    # one group, A = [+1, -1], lengths 2 and 1; no gate, no progress -> Psi_hat = sgn(A) on tokens = {1, 1, -1}
    # std{1,1,-1} = sqrt(4/3) -> Psi = +-0.8660; A + 0.5 Psi = {1.4330, 1.4330, -1.4330}
    # Norm_G is scale-free: z-score of {1, 1, -1} = {(2/3)/sqrt(4/3), ..., (-4/3)/sqrt(4/3)}
    #                                             = {0.57735, 0.57735, -1.15470}
    mask = t([[1, 1], [1, 0]])
    zeros = torch.zeros(2, 2, dtype=D)
    final, parts = erpo_token_advantages(
        t([1.0, -1.0]),
        zeros,
        None,
        zeros,
        mask,
        torch.tensor([0, 0]),
        1,
        ERPOConfig(eta=0.5, delta=1e-12, use_entropy_gate=False, use_implicit_progress=False),
    )
    assert torch.allclose(parts["psi"], t([[1.0, 1.0], [-1.0, 0.0]]) / math.sqrt(4 / 3))
    assert torch.allclose(final, t([[0.5773503, 0.5773503], [-1.1547005, 0.0]]))


# ----------------------------------------------------------------------------- loop reference (readable, slow)
def naive_erpo(A, lp, ref, H, mask, gids, K, beta_p, gamma, eta, sigma_t, delta, base=1):
    """Algorithm 1 written with Python loops over groups, buckets and tokens; right-padded masks."""
    B, T = mask.shape
    L = mask.sum(1).long().tolist()

    def mstd(vals):
        v = torch.stack(vals)
        return v.mean(), (v.std() if len(vals) > 1 else torch.zeros((), dtype=v.dtype))

    W = torch.zeros(B, T, dtype=D)
    st = torch.zeros(B, T, dtype=D)
    s = beta_p * (lp - ref)
    for g in sorted(set(gids.tolist())):
        toks = [(i, j) for i in range(B) if gids[i] == g for j in range(L[i])]
        mu, sd = mstd([H[i, j] for i, j in toks])
        for i, j in toks:
            W[i, j] = torch.sigmoid(gamma * (H[i, j] - mu) / (sd + delta))
        cells = {}
        for i, j in toks:
            k = min((j + base) * K // L[i], K - 1)
            cells.setdefault(k, []).append((i, j))
        for cell in cells.values():
            mu, sd = mstd([s[i, j] for i, j in cell])
            for i, j in cell:
                st[i, j] = (s[i, j] - mu) / (sd + delta)
    psi_hat = W * torch.sign(A)[:, None] * st * mask
    psi = sigma_t * psi_hat / (psi_hat[mask.bool()].std() + delta)
    comb = A[:, None] + eta * psi
    final = torch.zeros(B, T, dtype=D)
    for g in sorted(set(gids.tolist())):
        toks = [(i, j) for i in range(B) if gids[i] == g for j in range(L[i])]
        mu, sd = mstd([comb[i, j] for i, j in toks])
        for i, j in toks:
            final[i, j] = (comb[i, j] - mu) / (sd + delta)
    return final


@pytest.mark.parametrize("base", [0, 1])
def test_vectorised_matches_loop_reference(base):
    b = rollout_batch(b=12, t=9, seed=3, equal_groups=(2,), dtype=D)
    A = torch.tensor([1.0, -1.0, 0.5, -0.5, 1.2, -0.4, -0.4, -0.4, 0, 0, 0, 0], dtype=D)
    index, n = group_index(b.group_ids)
    ours, _ = erpo_token_advantages(
        A,
        b.logps,
        b.ref_logps,
        b.entropies,
        b.mask,
        index,
        n,
        ERPOConfig(
            beta_progress=0.1, gamma=5.0, eta=0.2, num_buckets=3, sigma_target=1.0, delta=1e-4, position_base=base
        ),
    )
    ref = naive_erpo(A, b.logps, b.ref_logps, b.entropies, b.mask, b.group_ids, 3, 0.1, 5.0, 0.2, 1.0, 1e-4, base)
    assert torch.allclose(ours, ref, atol=1e-10)


# ----------------------------------------------------------------------------- paper properties (method level)
def per_group_token_stats(adv, mask, gids):
    out = []
    for g in gids.unique():
        vals = adv[gids == g][mask[gids == g].bool()]
        out.append((vals.mean().item(), vals.var().item(), vals.abs().max().item()))
    return out


def test_zero_mean_unit_variance_per_group_and_zero_for_equal_rewards():
    b = rollout_batch(b=16, t=12, seed=1, equal_groups=(3,), dtype=D)
    res = build_method("erpo", {"delta": 1e-8, "adv_eps": 1e-8}).rollout(b)
    stats = per_group_token_stats(res.advantages, b.mask, b.group_ids)
    for k, (mean, var, amax) in enumerate(stats):
        if k == 3:  # equal rewards -> A_i = 0, sgn = 0 -> Psi = 0 -> Norm_G(0) = 0
            assert amax == 0.0
        else:  # eq. 16: zero sum and unit (sample) variance over the group's tokens
            assert abs(mean) < 1e-9 and abs(var - 1.0) < 1e-6
    assert (res.advantages[b.mask == 0] == 0).all()


def test_group_ids_need_not_be_contiguous():
    b = rollout_batch(b=12, t=7, seed=5, dtype=D)
    perm = torch.randperm(12, generator=torch.Generator().manual_seed(0))
    shuffled = RolloutBatch(
        rewards=b.rewards[perm],
        group_ids=b.group_ids[perm] * 7 + 3,
        mask=b.mask[perm],
        logps=b.logps[perm],
        entropies=b.entropies[perm],
        ref_logps=b.ref_logps[perm],
    )
    m = build_method("erpo")
    assert torch.allclose(m.rollout(b).advantages[perm], m.rollout(shuffled).advantages, atol=1e-10)


def test_beta_progress_cancels_in_the_bucket_zscore():
    # eq. 9 z-scores s = beta_progress * (logp - ref): beta_progress only matters through delta
    b = rollout_batch(b=12, t=9, seed=2, dtype=D)
    a1 = build_method("erpo", {"beta_progress": 0.1, "delta": 1e-10}).rollout(b).advantages
    a2 = build_method("erpo", {"beta_progress": 3.0, "delta": 1e-10}).rollout(b).advantages
    assert torch.allclose(a1, a2, atol=1e-6)


def test_eta_zero_gives_token_zscore_of_sequence_advantage():
    b = rollout_batch(b=12, t=9, seed=4, dtype=D)
    m = build_method("erpo", {"eta": 0.0})
    adv = m.rollout(b).advantages
    seq = m.sequence_advantages(b)
    index, n = group_index(b.group_ids)
    expected = group_token_zscore(seq[:, None] * b.mask, b.mask, index, n, m.cfg.delta)
    assert torch.allclose(adv, expected.to(adv.dtype), atol=1e-6)


def test_ablation_switches():
    b = rollout_batch(b=12, t=9, seed=6, equal_groups=(1,), dtype=D)
    index, n = group_index(b.group_ids)
    A = build_method("erpo").sequence_advantages(b).to(D)
    kw = (b.logps, b.ref_logps, b.entropies, b.mask, index, n)
    base, parts = erpo_token_advantages(A, *kw, ERPOConfig())
    _, p_nogate = erpo_token_advantages(A, *kw, ERPOConfig(use_entropy_gate=False))
    assert torch.equal(p_nogate["gate"], b.mask)
    # bucket normalisation off == a single bucket
    off, _ = erpo_token_advantages(A, *kw, ERPOConfig(use_bucket_norm=False))
    k1, _ = erpo_token_advantages(A, *kw, ERPOConfig(num_buckets=1))
    assert torch.allclose(off, k1) and not torch.allclose(off, base)
    # outcome anchor off: equal-reward group 1 gets non-zero advantages (the guardrail is gone)
    no_anchor, _ = erpo_token_advantages(A, *kw, ERPOConfig(use_outcome_anchor=False))
    assert no_anchor[b.group_ids == 1].abs().max() > 0.1
    assert base[b.group_ids == 1].abs().max() == 0
    # no progress: Psi_hat = W * sgn(A)
    _, p_noprog = erpo_token_advantages(A, *kw, ERPOConfig(use_implicit_progress=False))
    assert torch.allclose(p_noprog["psi_hat"], parts["gate"] * torch.sign(A)[:, None] * b.mask)
    # no rescale: Psi = Psi_hat; no group norm: A + eta * Psi
    raw, p_raw = erpo_token_advantages(A, *kw, ERPOConfig(use_psi_rescale=False, use_group_norm=False))
    assert torch.allclose(p_raw["psi"], p_raw["psi_hat"])
    assert torch.allclose(raw, (A[:, None] + 0.2 * p_raw["psi_hat"]) * b.mask)
    # group-scoped rescale differs from the batch-scoped default
    grp, _ = erpo_token_advantages(A, *kw, ERPOConfig(psi_scale_scope="group"))
    assert not torch.allclose(grp, base)


# ----------------------------------------------------------------------------- degenerate inputs
# (finite advantages, loss, gradients and metrics for every method: test_method_degenerate.py)
@pytest.mark.parametrize("case", ["all_equal_rewards", "single_response_groups", "masked_rows"])
def test_degenerate_inputs_give_zero_advantages_where_there_is_no_signal(case):
    b = degenerate_batch(case, dtype=D)
    for kw in ({}, {"active_tokens": "anchored"}, {"psi_scale_scope": "group"}, {"position_base": 0}):
        res = build_method("erpo", kw).rollout(b)
        if case == "masked_rows":
            assert (res.advantages[2] == 0).all() and (res.advantages[5] == 0).all()
        else:  # every group has equal rewards: sgn(A_i) = 0 anchors Psi at 0, Norm_G of a constant is 0
            assert (res.advantages == 0).all()


# ----------------------------------------------------------------------------- method glue, loss, gradient
def test_method_metadata_and_metrics():
    m = build_method("erpo")
    assert m.needs_reference and m.updates_per_batch == "any"
    assert (m.cfg.beta_progress, m.cfg.gamma, m.cfg.eta, m.cfg.beta) == (0.1, 5.0, 0.2, 0.001)
    assert m.cfg.loss_agg == "token-mean"
    res = m.rollout(rollout_batch(b=12, t=9, seed=8, dtype=torch.float32))
    assert res.advantages.dtype == torch.float32
    assert set(res.metrics) >= {"erpo/gate_mean", "erpo/gate_open_frac", "erpo/psi_std", "erpo/psi_hat_std"}
    assert all(k.startswith("erpo/") for k in res.metrics)
    assert 0 < res.metrics["erpo/gate_mean"] < 1
    assert abs(res.metrics["erpo/psi_std"] - 1.0) < 1e-3  # rescaled to sigma_target over active tokens


@pytest.mark.parametrize(
    "bad,message",
    [
        ({"num_buckets": 0}, "erpo.num_buckets must be >= 1, got 0"),
        ({"position_base": 2}, "erpo.position_base must be one of [0, 1]"),
        ({"delta": 0.0}, "erpo.delta must be > 0.0, got 0.0"),
        ({"nope": 1}, "unknown key(s) ['erpo.nope']"),
    ],
)
def test_validation(bad, message):
    with pytest.raises(ValueError) as err:
        build_method("erpo", bad)
    assert message in str(err.value)


def test_loss_gradient_reaches_logps():
    b = rollout_batch(b=12, t=9, seed=9, dtype=torch.float32)
    m = build_method("erpo")
    res = m.rollout(b)
    lb = loss_batch(b, res)
    logps, n_tok = lb.logps, lb.num_tokens
    loss, metrics = m.loss(lb)
    loss.backward()
    # on-policy token-mean: d/dlogp [-rho*A + beta*k3] / N = (-A + beta * (1 - exp(ref - logp))) / N
    expected = (-res.advantages + 0.001 * (1 - torch.exp(b.ref_logps - b.logps))) * b.mask / n_tok
    assert torch.allclose(logps.grad, expected, atol=1e-7)
    assert logps.grad.abs().sum() > 0 and torch.isfinite(loss)
    assert "clip_ratio/region" in metrics
