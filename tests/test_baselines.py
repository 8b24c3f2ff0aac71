"""Baselines: grpo_onpolicy, entropy_reg, clip_cov, kl_cov, gspo, ent_adv (semantics: shared/notes/baselines.md).

Hand-computed examples for every pure function (arithmetic in the comments), then the methods end to end:
exact selection counts, gradients reaching log-probs (degenerate batches: test_method_degenerate.py).
"""

from __future__ import annotations

import math

import pytest
import torch
from conftest import rollout_batch, run_method

from rlvr_lib.methods import LossBatch, build_method
from rlvr_lib.methods.clip_cov import clip_cov_candidates, random_subset, rollout_covariance_means, selection_count
from rlvr_lib.methods.ent_adv import entropy_advantage_term
from rlvr_lib.methods.grpo_onpolicy import reinforce_loss
from rlvr_lib.methods.gspo import gspo_token_log_ratio
from rlvr_lib.methods.kl_cov import kl_cov_loss, top_covariance_tokens

BASELINES = ("grpo_onpolicy", "entropy_reg", "clip_cov", "kl_cov", "gspo", "ent_adv")


# ----------------------------------------------------------------------------- grpo_onpolicy
def test_reinforce_loss_hand_example():
    # -A*logp: -(2)(-0.5) = 1.0 ; -(-1)(-2) = -2.0
    out = reinforce_loss(torch.tensor([[-0.5, -2.0]]), torch.tensor([[2.0, -1.0]]))
    assert torch.allclose(out, torch.tensor([[1.0, -2.0]]))


def test_grpo_onpolicy_gradient_equals_grpo_at_ratio_one():
    rb = rollout_batch()
    _, _, lb_on, _, _ = run_method("grpo_onpolicy", rb)
    _, _, lb_grpo, _, _ = run_method("grpo", rb, {"loss_agg": "token-mean"})
    assert lb_on.logps.grad.abs().sum() > 0
    assert torch.allclose(lb_on.logps.grad, lb_grpo.logps.grad, atol=1e-7)
    method = build_method("grpo_onpolicy")
    assert method.updates_per_batch == "one" and not method.needs_reference


# ----------------------------------------------------------------------------- entropy_reg
def test_entropy_reg_subtracts_coef_times_aggregated_entropy():
    rb = rollout_batch()
    _, _, lb, loss, metrics = run_method("entropy_reg", rb, {"entropy_coef": 0.01})
    _, _, _, loss_grpo, _ = run_method("grpo", rb)
    # seq-mean-token-mean: bonus = 0.01 * mean_i(mean_t H_it)
    seq_means = (rb.entropies * rb.mask).sum(-1) / rb.mask.sum(-1)
    expected = loss_grpo - 0.01 * seq_means.mean()
    assert torch.allclose(loss, expected, atol=1e-6)
    assert metrics["entropy_reg/bonus_loss"] == pytest.approx(-0.01 * float(seq_means.mean()), rel=1e-5)
    # dL/dH_it = -0.01 / (B * |o_i|) on valid tokens, 0 on padding
    want = -0.01 / (rb.mask.shape[0] * rb.mask.sum(-1, keepdim=True)) * rb.mask
    assert torch.allclose(lb.entropies.grad, want, atol=1e-9)


# ----------------------------------------------------------------------------- Clip-Cov
def test_rollout_covariance_means_hand_example():
    adv = torch.tensor([[1.0, 1.0], [-2.0, 7.0]])
    logp = torch.tensor([[-1.0, -2.0], [-3.0, 0.0]])
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    # valid tokens: A (1, 1, -2) -> 0 ; logp (-1, -2, -3) -> -2 ; repeated per row
    out = rollout_covariance_means(adv, logp, mask)
    assert torch.allclose(out["cov_mean_adv"], torch.zeros(2))
    assert torch.allclose(out["cov_mean_logp"], torch.full((2,), -2.0))


@pytest.mark.parametrize("ratio,n,k", [(2e-4, 4999, 1), (2e-4, 10000, 2), (2e-3, 1000, 2), (0.5, 7, 3), (0.5, 0, 0)])
def test_selection_count(ratio, n, k):
    # max(1, int(ratio * N)): 0.9998 -> 1 ; 2.0 -> 2 ; 2.0 -> 2 ; 3.5 -> 3 ; no valid token -> 0
    assert selection_count(ratio, n) == k


def test_clip_cov_candidates_hand_example():
    cov = torch.tensor([[0.5, 1.5, 4.9, 5.0, 2.0, 3.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0, 1.0, 1.0, 0.0]])
    clipped = torch.tensor([[False, False, False, False, True, False]])
    # 1 < cov < 5, valid, not PPO-clipped: only 1.5 and 4.9 (5.0 is not < 5; 2.0 clipped; 3.0 padding)
    out = clip_cov_candidates(cov, mask, clipped, 1.0, 5.0)
    assert out.tolist() == [[False, True, True, False, False, False]]


@pytest.mark.parametrize("k", [0, 1, 3, 5, 9])
def test_random_subset_selects_exactly_min_k_candidates(k):
    candidates = torch.zeros(4, 6, dtype=torch.bool)
    candidates[0, 1] = candidates[1, 4] = candidates[2, 0] = candidates[3, 3] = candidates[3, 5] = True  # 5 candidates
    for seed in range(20):
        chosen = random_subset(candidates, k, torch.Generator().manual_seed(seed))
        assert int(chosen.sum()) == min(k, 5)
        assert not (chosen & ~candidates).any()


def test_random_subset_is_uniform_over_candidates():
    candidates = torch.tensor([True, False, True, True, False, True])
    g = torch.Generator().manual_seed(0)
    counts = sum(random_subset(candidates, 2, g).float() for _ in range(4000))
    # each of the 4 candidates is chosen with probability 2/4: expected 2000 of 4000 draws
    assert torch.all(counts[candidates] > 1850) and torch.all(counts[candidates] < 2150)
    assert counts[~candidates].sum() == 0


def test_clip_cov_zeroes_exactly_k_tokens_and_keeps_them_in_the_denominator():
    rewards = torch.tensor([1.0, 0.0] * 8)  # every group of 4 is mixed: every advantage is non-zero
    rb = rollout_batch(b=16, t=10, seed=3, rewards=rewards)
    n_valid = int(rb.mask.sum())
    ratio = 3.5 / n_valid  # k = max(1, int(3.5)) = 3
    # lb below every covariance: all valid tokens not PPO-clipped are candidates (on-policy: none is clipped)
    hp = {"clip_cov_ratio": ratio, "clip_cov_lb": -1e9, "clip_cov_ub": 1e9}
    method, result, lb, loss, metrics = run_method("clip_cov", rb, hp)
    assert metrics["clip_cov/selected_tokens"] == 3.0
    assert metrics["clip_cov/candidate_tokens"] == n_valid
    grad = lb.logps.grad
    assert torch.all(result.advantages[rb.mask > 0] != 0)
    assert int(((grad == 0) & (rb.mask > 0)).sum()) == 3  # exactly the 3 zeroed tokens lose their gradient
    # the rest keep the token-mean gradient -A / N, where N still counts the zeroed tokens
    keep = (grad != 0) & (rb.mask > 0)
    assert torch.allclose(grad[keep], -result.advantages[keep] / n_valid)


def test_clip_cov_never_selects_ppo_clipped_tokens():
    # one response, A = 1 everywhere; token 0 has ratio e^1 > 1 + eps_high (clipped), token 1 ratio 1
    mask = torch.ones(1, 2)
    adv = torch.ones(1, 2)
    logps = torch.tensor([[0.0, -1.0]], requires_grad=True)
    old = torch.tensor([[-1.0, -1.0]])
    hp = {"eps_low": 0.2, "eps_high": 0.2, "clip_cov_ratio": 1.0, "clip_cov_lb": -1e9, "clip_cov_ub": 1e9}
    method = build_method("clip_cov", hp)
    lb = LossBatch(
        logps=logps,
        entropies=torch.ones(1, 2),
        old_logps=old,
        advantages=adv,
        mask=mask,
        num_tokens=2.0,
        num_seqs=1.0,
        max_completion_length=2,
    )
    _, metrics = method.loss(lb)
    # k = max(1, int(1.0 * 2)) = 2 but only token 1 is a candidate
    assert metrics["clip_cov/candidate_tokens"] == 1.0 and metrics["clip_cov/selected_tokens"] == 1.0


def test_clip_cov_rollout_scope_passes_means():
    rb = rollout_batch()
    method, result, _, loss, _ = run_method("clip_cov", rb, {"cov_mean_scope": "rollout-batch"})
    assert set(result.extras) == {"cov_mean_adv", "cov_mean_logp"}
    assert torch.isfinite(loss)


# ----------------------------------------------------------------------------- KL-Cov
def test_top_covariance_tokens_hand_example():
    cov = torch.tensor([[0.3, -5.0, 2.0], [9.0, 1.0, 0.5]])
    mask = torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    # signed, valid only: 2.0 > 1.0 > 0.5 > 0.3 > -5.0 (9.0 is padding); top-2 = {2.0, 1.0}
    out = top_covariance_tokens(cov, mask, 2)
    assert out.tolist() == [[False, False, True], [False, True, False]]


def test_kl_cov_loss_hand_example():
    logps = torch.tensor([[-1.0, -2.0]])
    old = torch.tensor([[-1.1, -1.5]])
    adv = torch.tensor([[1.0, -2.0]])
    selected = torch.tensor([[True, False]])
    loss, ratio = kl_cov_loss(logps, old, adv, selected, coef=1.0)
    # token 0: -1 * e^{0.1} + 1 * |0.1| = -1.105171 + 0.1 = -1.005171 ; token 1: -(-2) e^{-0.5} = 1.213061
    assert torch.allclose(loss, torch.tensor([[-math.exp(0.1) + 0.1, 2 * math.exp(-0.5)]]), atol=1e-6)
    assert torch.allclose(ratio, torch.tensor([[math.exp(0.1), math.exp(-0.5)]]))


def test_kl_cov_selects_exactly_k_tokens_and_uses_the_unclipped_surrogate():
    rb = rollout_batch(b=16, t=10, seed=4)
    n_valid = int(rb.mask.sum())
    ratio = 4.2 / n_valid  # k = int(4.2) = 4
    method, result, lb, loss, metrics = run_method("kl_cov", rb, {"kl_cov_ratio": ratio, "kl_cov_coef": 0.0}, noise=0.5)
    assert metrics["kl_cov/selected_tokens"] == 4.0
    # coef 0: the loss is the unclipped -A * rho, token-mean; its gradient is -A * rho / N (no clip even at noise 0.5)
    rho = torch.exp(lb.logps.detach() - lb.old_logps)
    assert torch.allclose(lb.logps.grad, -result.advantages * rho * rb.mask / n_valid, atol=1e-7)
    assert method.updates_per_batch == "several"


def test_kl_cov_penalty_acts_only_off_policy():
    rb = rollout_batch(seed=5)
    _, _, lb_on, loss_on, _ = run_method("kl_cov", rb, {"kl_cov_ratio": 0.2})
    _, _, lb_free, loss_free, _ = run_method("kl_cov", rb, {"kl_cov_ratio": 0.2, "kl_cov_coef": 0.0})
    assert torch.allclose(lb_on.logps.grad, lb_free.logps.grad)  # |logp - old| = 0 on-policy
    _, _, lb_off, loss_off, _ = run_method("kl_cov", rb, {"kl_cov_ratio": 0.2}, noise=0.3)
    _, _, lb_off0, loss_off0, _ = run_method("kl_cov", rb, {"kl_cov_ratio": 0.2, "kl_cov_coef": 0.0}, noise=0.3)
    assert loss_off > loss_off0  # the penalty is positive off-policy


# ----------------------------------------------------------------------------- GSPO
def test_gspo_token_ratio_value_and_gradient():
    logps = torch.tensor([[-1.0, -2.0, -3.0]], requires_grad=True)
    old = torch.tensor([[-1.3, -2.0, -3.6]])
    mask = torch.ones(1, 3)
    log_s = gspo_token_log_ratio(logps, old, mask)
    # every token carries log s_i = 0.3; d log s_i,t / d logp_t = 1 (own token only)
    assert torch.allclose(log_s, torch.full((1, 3), 0.3))
    log_s[0, 1].backward()
    assert logps.grad.tolist() == [[0.0, 1.0, 0.0]]
    big = gspo_token_log_ratio(torch.tensor([[30.0]]), torch.tensor([[0.0]]), torch.ones(1, 1), max_log_ratio=10.0)
    assert big.item() == 10.0  # verl's clamp


def test_gspo_loss_hand_example_and_sequence_clip():
    mask = torch.ones(2, 2)
    adv = torch.tensor([[1.0, 1.0], [1.0, 1.0]])
    old = torch.zeros(2, 2)
    # row 0: log s = (1e-4 + 1e-4)/2 = 1e-4 -> s = 1.0001 < 1.0004: unclipped, grad -A*s/(2 tokens * 2 seqs)
    # row 1: log s = (0.01 + 0.01)/2 = 0.01 -> s = 1.01005 > 1.0004 with A > 0: clipped, zero gradient
    logps = torch.tensor([[1e-4, 1e-4], [0.01, 0.01]], requires_grad=True)
    method = build_method("gspo")
    lb = LossBatch(
        logps=logps,
        entropies=torch.ones(2, 2),
        old_logps=old,
        advantages=adv,
        mask=mask,
        num_tokens=4.0,
        num_seqs=2.0,
        max_completion_length=2,
    )
    loss, metrics = method.loss(lb)
    loss.backward()
    s0 = math.exp(1e-4)
    # loss = mean_i mean_t max(-A s, -A clip(s)) = (-s0 + -1.0004) / 2
    assert loss.item() == pytest.approx((-s0 - 1.0004) / 2, rel=1e-6)
    assert torch.allclose(logps.grad[0], torch.full((2,), -s0 / 4))
    assert torch.all(logps.grad[1] == 0)
    assert metrics["clip_ratio/high"] == pytest.approx(0.5)


# ----------------------------------------------------------------------------- Ent-Adv
def test_entropy_advantage_term_hand_example():
    adv = torch.tensor([[1.0], [-1.0], [0.0]])
    ent = torch.tensor([[0.5], [2.0], [3.0]])
    # min(0.4*0.5, 1/2) = 0.2 ; min(0.4*2, 1/2) = 0.5 ; min(1.2, 0) = 0
    psi = entropy_advantage_term(adv, ent, alpha=0.4, kappa=2.0)
    assert torch.allclose(psi, torch.tensor([[0.2], [0.5], [0.0]]))
    # A' = 1.2, -0.5, 0 (a negative advantage keeps its sign with kappa > 1)


def test_ent_adv_rollout_adds_the_term_and_leaves_constant_groups_at_zero():
    rewards = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0])  # group 1 all equal
    rb = rollout_batch(b=8, t=5, group=4, rewards=rewards)
    method = build_method("ent_adv")
    result = method.rollout(rb)
    base = build_method("grpo").rollout(rb).advantages
    expected = base + torch.minimum(0.4 * rb.entropies, base.abs() / 2.0)
    assert torch.allclose(result.advantages, expected)
    assert torch.all(result.advantages[4:] == 0)
    assert 0 <= result.metrics["ent_adv/bonus_capped_frac"] <= 1


# ----------------------------------------------------------------------------- all baselines
@pytest.mark.parametrize("name", BASELINES)
def test_loss_backpropagates_to_logps(name):
    rb = rollout_batch(seed=7)
    noise = 0.05 if build_method(name).updates_per_batch == "several" else 0.0
    _, _, lb, loss, metrics = run_method(name, rb, noise=noise)
    assert torch.isfinite(loss)
    assert lb.logps.grad is not None and lb.logps.grad.abs().sum() > 0
    assert torch.all(lb.logps.grad[rb.mask == 0] == 0)
    assert all(isinstance(v, float) and math.isfinite(v) for v in metrics.values())
    assert all(k.startswith((name + "/", "clip_ratio/")) for k in metrics)


@pytest.mark.parametrize(
    "name,hp,message",
    [
        ("clip_cov", {"clip_cov_ratio": 1.5}, "run.clip_cov_ratio must lie in [0.0, 1.0], got 1.5"),
        ("clip_cov", {"clip_cov_lb": 5.0, "clip_cov_ub": 1.0}, "run.clip_cov_lb must be < clip_cov_ub"),
        (
            "clip_cov",
            {"cov_mean_scope": "global"},
            "run.cov_mean_scope must be one of ['micro-batch', 'rollout-batch']",
        ),
        ("kl_cov", {"kl_cov_coef": -1.0}, "run.kl_cov_coef must be >= 0.0, got -1.0"),
        ("kl_cov", {"eps_low": 0.2}, "unknown key(s) ['run.eps_low']"),  # KL-Cov's surrogate has no clip
        ("gspo", {"max_log_ratio": 0.0}, "run.max_log_ratio must be > 0.0"),
        ("ent_adv", {"kappa": 0.0}, "run.kappa must be > 0.0"),
        ("entropy_reg", {"entropy_coef": -0.1}, "run.entropy_coef must be >= 0.0"),
        ("grpo_onpolicy", {"eps_high": 0.28}, "unknown key(s) ['run.eps_high']"),  # no ratio, no clip
    ],
)
def test_invalid_hyperparameters_name_the_field(name, hp, message):
    with pytest.raises(ValueError) as err:
        build_method(name, hp, path="run")
    assert message in str(err.value)


def test_defaults_are_the_papers_values():
    assert build_method("entropy_reg").cfg.entropy_coef == 0.01
    c = build_method("clip_cov").cfg
    assert (c.clip_cov_ratio, c.clip_cov_lb, c.clip_cov_ub, c.eps_low, c.eps_high, c.loss_agg) == (
        2e-4,
        1.0,
        5.0,
        1.0,
        1.0,
        "token-mean",
    )
    k = build_method("kl_cov").cfg
    assert (k.kl_cov_ratio, k.kl_cov_coef, k.loss_agg) == (2e-3, 1.0, "token-mean")
    g = build_method("gspo").cfg
    assert (g.eps_low, g.eps_high, g.loss_agg) == (3e-4, 4e-4, "seq-mean-token-mean")
    e = build_method("ent_adv").cfg
    assert (e.alpha, e.kappa) == (0.4, 2.0)
