"""GPG (TEPO's table-1 / panel-C baseline, rlvr_lib/methods/gpg.py): hand-computed advantage, alpha and loss."""

from __future__ import annotations

import pytest
import torch
from conftest import loss_batch, rollout_batch, t

from rlvr_lib.methods import build_method
from rlvr_lib.methods.gpg import gpg_alpha

D = torch.float64


def test_alpha_by_hand():
    # 6 responses, 2 with a non-zero reward -> alpha = 6 / 2 = 3 (verl's correction); none -> B / 1
    assert float(gpg_alpha(t([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]))) == 3.0
    assert float(gpg_alpha(t([0.0, 0.0]))) == 2.0
    assert float(gpg_alpha(t([1.0, 0.0]), "none")) == 1.0


def test_advantage_is_centred_not_scaled_times_alpha_by_hand():
    # groups of 2: (1, 0) -> +-0.5; (1, 1) -> 0, 0; alpha = 4 / 3 -> A = 2/3, -2/3, 0, 0
    b = rollout_batch(b=4, t=3, group=2, seed=0, rewards=t([1.0, 0.0, 1.0, 1.0]))
    m = build_method("gpg")
    assert not m.rollout_needs_behaviour and m.cfg.loss_agg == "token-mean" and m.cfg.scale_rewards is False
    res = m.rollout(b)
    expected = t([2 / 3, -2 / 3, 0.0, 0.0])[:, None].expand(4, 3)
    assert torch.allclose(res.advantages.double(), expected)
    assert res.metrics["gpg/alpha"] == pytest.approx(4 / 3)


def test_loss_is_reinforce_without_ratio_clip_or_kl_by_hand():
    mask = t([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    b = rollout_batch(b=2, t=3, group=2, seed=1, rewards=t([1.0, 0.0]), mask=mask, dtype=D)
    m = build_method("gpg", {"alpha": "none"})
    res = m.rollout(b)  # A = +0.5, -0.5
    logps = t([[-1.0, -2.0, -5.0], [-0.5, -1.5, -1.0]]).requires_grad_(True)
    # the behaviour log-probs are far away: GPG has no ratio, so they do not matter
    lb = loss_batch(b, res, logps=logps, old_logps=b.logps - 3.0)
    loss, _ = m.loss(lb)
    # token-mean over 5 tokens of -A * logp: -(0.5 * (-3) + (-0.5) * (-3)) / 5 = 0
    assert float(loss.detach()) == pytest.approx(0.0)
    loss.backward()
    assert torch.allclose(logps.grad, -res.advantages * mask / 5)
