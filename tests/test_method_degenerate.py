"""Every registered method survives degenerate batches: rollout, loss, backward and the optimizer-step hook give
finite advantages, loss, gradients and metrics (no NaN, no inf), on-policy and off-policy."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import DEGENERATE_CASES, degenerate_batch, loss_batch

from rlvr_lib.methods import available_methods, build_method

# Settings that take other code paths through a method (the defaults are always run too).
VARIANTS = {
    "aer": [{"alpha_init": 0.05}, {"alpha_init": 0.05, "rho": 0.0, "alpha_update_every": "rollout-batch"}],
    "clip_cov": [{"cov_mean_scope": "rollout-batch"}, {"clip_cov_ratio": 1.0, "clip_cov_lb": -1e9}],
    "cw_grpo": [{"scope": "batch"}, {"adv_centering": "response"}, {"logp_source": "current"}, {"use_clip": True}],
    "erpo": [
        {"active_tokens": "anchored"},
        {"psi_scale_scope": "group"},
        {"position_base": 0},
        {"use_psi_rescale": False, "use_group_norm": False},
        {"adv_eps": 0.0},
    ],
    "grpo": [{"beta": 0.04}, {"scale_rewards": False, "std_kind": "population"}, {"adv_eps": 0.0}],
    "kl_cov": [{"cov_mean_scope": "rollout-batch"}, {"kl_cov_ratio": 1.0}],
    "opefo": [{"lambda_scope": "micro-batch"}, {"lambda_mode": "static"}, {"adv_eps": 0.0}],
    "tepo": [
        {"surrogate": "eq4_literal"},
        {"surrogate": "unclipped"},
        {"surrogate": "cispo", "entropy_coef": 0.01},
        {"surrogate": "prefix_is", "entropy_coef": -0.01},
        {"loss_agg": "seq-mean-token-mean"},
        {"mask_scope": "either", "kl_estimator": "k2"},
        {"kl_target": "ref", "mask_scope": "all"},
    ],
}
SETTINGS = [(name, hp) for name in available_methods() for hp in [{}, *VARIANTS.get(name, [])]]


def test_variants_name_registered_methods():
    assert set(VARIANTS) <= set(available_methods())


@pytest.mark.parametrize("case", DEGENERATE_CASES)
@pytest.mark.parametrize(("name", "hparams"), SETTINGS, ids=[f"{n}{hp or ''}" for n, hp in SETTINGS])
def test_rollout_loss_backward_and_step_are_finite(name, hparams, case):
    rb = degenerate_batch(case)
    method = build_method(name, hparams)
    result = method.rollout(rb)
    assert torch.isfinite(result.advantages).all()
    if case in ("all_equal_rewards", "single_response_groups"):  # no reward signal in any group
        assert (result.advantages == 0).all()
    for noise in (0.0, 0.1):  # strictly on-policy, and off-policy (ratios != 1: clips, KL-Cov, TEPO act)
        lb = loss_batch(rb, result, noise=noise)
        loss, metrics = method.loss(lb)
        loss.backward()
        assert loss.shape == () and torch.isfinite(loss), f"loss = {loss}"
        grads = [lb.logps.grad] + ([] if lb.entropies.grad is None else [lb.entropies.grad])  # entropy: bonus methods
        assert all(torch.isfinite(g).all() for g in grads)
        if case == "all_masked":
            assert all((g == 0).all() for g in grads)
        values = {**result.metrics, **metrics, **method.on_optimizer_step()}
        bad = {k: v for k, v in values.items() if not (isinstance(v, float) and math.isfinite(v))}
        assert not bad, f"non-finite metrics {bad}"
