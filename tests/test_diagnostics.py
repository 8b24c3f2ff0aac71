"""Opt-in diagnostics of the GRPO family: entropy flows by clip side (opefo.txt fig. 2(b)/(c)) and token-covariance
percentiles (cw_grpo.txt table 1). Hand examples, partition properties, and every method that has a switch honours it
without changing its loss or advantages."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
from conftest import loss_batch, rollout_batch, run_method

from rlvr_lib.methods import available_methods, build_method, method_class
from rlvr_lib.methods.core import entropy_flow_by_clip_side, ppo_clip_loss
from rlvr_lib.methods.opefo import entropy_change

FLOW_KEYS = ("net", "pos", "neg", "clipped_high", "clipped_low")


def test_entropy_flow_by_clip_side_hand_example():
    logps = torch.log(torch.tensor([[0.5, 0.1, 0.9, 0.2]]))
    entropies = torch.tensor([[1.0, 1.0, 0.5, 2.0]])
    adv = torch.tensor([[1.0, 1.0, -1.0, -1.0]])
    ratio = torch.tensor([[1.0, 1.5, 0.9, 0.5]])
    high = torch.tensor([[False, True, False, False]])
    low = torch.tensor([[False, False, False, True]])
    # dH = -r A (1 - p)^2 (log p + H):
    # t0: -1 * 1 * 0.25 * (-0.693147 + 1)   = -0.0767132   kept
    # t1: -1.5 * 1 * 0.81 * (-2.302585 + 1) =  1.5826409   clipped high
    # t2: -0.9 * -1 * 0.01 * (-0.105361 + 0.5) = 0.0035518  kept
    # t3: -0.5 * -1 * 0.64 * (-1.609438 + 2)   = 0.1249798  clipped low
    flows = entropy_flow_by_clip_side(logps, entropies, adv, ratio, low, high, torch.ones(1, 4))
    expected = {
        "net": -0.0767132 + 0.0035518,
        "pos": 0.0035518,
        "neg": 0.0767132,
        "clipped_high": 1.5826409,
        "clipped_low": 0.1249798,
    }
    for key, value in expected.items():
        assert flows[key].item() == pytest.approx(value, abs=1e-6), key


def test_clip_sides_and_kept_tokens_partition_the_flow():
    rb = rollout_batch(logit_scale=2.0, seed=11)
    adv = build_method("grpo").rollout(rb).advantages
    g = torch.Generator().manual_seed(0)
    current = rb.logps + 0.5 * torch.randn(rb.logps.shape, generator=g)
    _, info = ppo_clip_loss(current, rb.logps, adv, 0.2, 0.28)
    assert info["clipped_low"].any() and info["clipped_high"].any()
    flows = entropy_flow_by_clip_side(
        current, rb.entropies, adv, info["ratio"], info["clipped_low"], info["clipped_high"], rb.mask
    )
    everything = entropy_change(current, rb.entropies, info["ratio"] * adv, rb.mask).sum()
    total = flows["net"] + flows["clipped_high"] + flows["clipped_low"]
    assert total.item() == pytest.approx(everything.item(), rel=1e-5)
    assert flows["net"].item() == pytest.approx((flows["pos"] - flows["neg"]).item(), rel=1e-5)


def test_on_policy_net_flow_is_opefos_unbalanced_flow():
    """One update per batch: ratio 1, nothing clipped; the logged net flow is eq. 6's sum at the sampled tokens
    (OPEFO's flow_net with ``delta_h="sampled"``)."""
    rb = rollout_batch(logit_scale=2.0, seed=12)
    _, _, _, _, m = run_method("grpo_onpolicy", rb, {"log_entropy_flow": True})
    _, _, _, _, opefo = run_method("opefo", rb, {"delta_h": "sampled"})
    assert m["entropy_flow/net"] == pytest.approx(opefo["opefo/flow_net"], rel=1e-5)
    assert m["entropy_flow/pos"] == pytest.approx(opefo["opefo/flow_pos"], rel=1e-5)
    assert m["entropy_flow/clipped_high"] == m["entropy_flow/clipped_low"] == 0.0
    # OPEFO's own update (weights w_t * A_t) has eq. 8's zero net flow
    _, _, _, _, balanced = run_method("opefo", rb, {"delta_h": "sampled", "log_entropy_flow": True})
    assert balanced["entropy_flow/net"] == pytest.approx(0.0, abs=1e-5)


def test_flows_are_step_sums_under_gradient_accumulation():
    """Each micro-batch logs its sum times the number of micro-batches, so TRL's mean over them is the step's sum."""
    rb = rollout_batch(logit_scale=2.0, seed=13)
    method = build_method("dapo", {"log_entropy_flow": True})
    result = method.rollout(rb)
    whole = method.loss(loss_batch(rb, result, noise=0.3))[1]
    halves = []
    for rows in (slice(0, 8), slice(8, 16)):
        lb = loss_batch(rb, result, noise=0.3, rows=rows)
        lb.num_seqs = 16.0  # the optimizer step holds both halves
        halves.append(method.loss(lb)[1])
    for key in FLOW_KEYS:
        mean = (halves[0][f"entropy_flow/{key}"] + halves[1][f"entropy_flow/{key}"]) / 2
        assert mean == pytest.approx(whole[f"entropy_flow/{key}"], rel=1e-5, abs=1e-7), key


def methods_with(field: str) -> list[str]:
    return [n for n in available_methods() if field in {f.name for f in dataclasses.fields(method_class(n).Config)}]


def test_the_switches_exist_where_the_papers_need_them():
    assert {"grpo", "dapo", "grpo_onpolicy", "cw_grpo"} <= set(methods_with("log_percentiles"))
    assert {"grpo", "dapo", "grpo_onpolicy"} <= set(methods_with("log_entropy_flow"))
    assert build_method("grpo").cfg.log_percentiles is False and build_method("cw_grpo").cfg.log_percentiles is True
    with pytest.raises(ValueError, match="unknown key"):
        build_method("tepo", {"log_entropy_flow": True})  # no switch where it is not implemented


@pytest.mark.parametrize("name", methods_with("log_entropy_flow"))
def test_every_entropy_flow_switch_logs_and_changes_nothing(name):
    rb = rollout_batch(logit_scale=2.0, seed=14)
    torch.manual_seed(0)  # clip_cov draws its clipped tokens at random
    _, result_off, lb_off, loss_off, m_off = run_method(name, rb, noise=0.3)
    torch.manual_seed(0)
    _, result_on, lb_on, loss_on, m_on = run_method(name, rb, {"log_entropy_flow": True}, noise=0.3)
    assert not any(k.startswith("entropy_flow/") for k in m_off)
    assert all(math.isfinite(m_on[f"entropy_flow/{k}"]) for k in FLOW_KEYS)
    assert torch.equal(result_on.advantages, result_off.advantages)
    assert loss_on.item() == loss_off.item() and torch.equal(lb_on.logps.grad, lb_off.logps.grad)


@pytest.mark.parametrize("name", methods_with("log_percentiles"))
def test_every_percentile_switch_logs_and_changes_nothing(name):
    rb = rollout_batch(logit_scale=2.0, seed=15)
    torch.manual_seed(0)
    _, result_off, _, loss_off, m_off = run_method(name, rb, {"log_percentiles": False})
    torch.manual_seed(0)
    _, result_on, _, loss_on, m_on = run_method(name, rb, {"log_percentiles": True})
    assert not any("/cov_pos_top" in k for k in m_off)
    for side in ("pos", "neg"):
        assert f"{name}/cov_{side}_top1pct" in m_on and 0 < m_on[f"{name}/cov_{side}_share"] < 1
    assert torch.equal(result_on.advantages, result_off.advantages) and loss_on.item() == loss_off.item()


def test_grpo_percentiles_are_cw_grpos_covariance():
    """At CW-GRPO's defaults (group scope, token centring, behaviour log-probs) both log the same c's percentiles."""
    rb = rollout_batch(logit_scale=2.0, seed=16)
    grpo = build_method("grpo", {"log_percentiles": True}).rollout(rb).metrics
    cw = build_method("cw_grpo").rollout(rb).metrics
    keys = [k for k in grpo if k.startswith("grpo/cov_")]
    assert len(keys) == 13  # 10 thresholds, 2 side shares, fig. 3's top-1% share of the total |c|
    for key in keys:
        assert grpo[key] == pytest.approx(cw["cw_grpo/" + key.split("/", 1)[1]], rel=1e-6)


def test_grpo_percentiles_by_hand():
    # two groups of two one-token responses; group 0 rewards (1, 0) -> A = (0.7071, -0.7071) (Bessel std, eps 1e-4)
    rb = rollout_batch(b=4, t=1, group=2, rewards=torch.tensor([1.0, 0.0, 1.0, 1.0]), mask=torch.ones(4, 1))
    rb.logps = torch.tensor([[-0.2], [-1.0], [-0.5], [-0.7]])
    metrics = build_method("grpo", {"log_percentiles": True}).rollout(rb).metrics
    a = 1 / (math.sqrt(0.5) + 1e-4) * 0.5  # (1 - 0.5) / (std + eps)
    # group 0: mean logp -0.6; c = (0.4)(a) and (-0.4)(-a), both +0.4a; group 1: A = 0 -> c = 0 (neither side)
    assert metrics["grpo/cov_pos_top100pct"] == pytest.approx(0.4 * a, rel=1e-5)
    assert metrics["grpo/cov_pos_share"] == pytest.approx(0.5)
    assert metrics["grpo/cov_neg_share"] == 0.0 and "grpo/cov_neg_top1pct" not in metrics
