"""``log_realised_entropy_change`` (methods of the GRPO family, read by ``RLVRTrainer``): the mean token entropy of
each optimizer step's own batch before and after the step, beside the step's first-order dH in both eq. 6 forms
(opefo.txt). A diagnostic: two steps with the switch on leave the parameters, the samples and the losses exactly
as two steps with it off."""

from __future__ import annotations

import os

import pytest
import torch
from conftest import coin_reward, config, dataset, t
from tiny import save_tiny
from transformers import AutoModelForCausalLM, AutoTokenizer

from rlvr_lib.methods import build_method
from rlvr_lib.methods.core import entropy_flow_by_clip_side, expected_entropy_change_factor
from rlvr_lib.training.trainer import RLVRTrainer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REALISED = ("realised_entropy/before", "realised_entropy/after", "realised_entropy/change", "realised_entropy/tokens")


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


def train(tmp_path, tiny_dir, method: str, hparams: dict, **overrides):
    args = config(tmp_path, output_dir=str(tmp_path / f"out{len(hparams)}"), max_steps=2, **overrides)
    trainer = RLVRTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_dir),
        processing_class=AutoTokenizer.from_pretrained(tiny_dir),
        reward_funcs=[coin_reward],
        args=args,
        method=build_method(method, hparams),
        log_reference_kl=False,
        train_dataset=dataset(),
    )
    trainer.train()
    params = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    rows = [r for r in trainer.state.log_history if "loss" in r]
    return params, rows


@pytest.mark.parametrize(
    "method,overrides",
    [
        ("grpo_onpolicy", {}),
        ("opefo", {}),
        ("grpo", {"steps_per_generation": 2}),  # two updates per rollout batch: ratio and clip act on the second
    ],
)
def test_switch_is_trajectory_neutral(tmp_path, tiny_dir, method, overrides):
    off_params, off_rows = train(tmp_path, tiny_dir, method, {}, **overrides)
    on_params, on_rows = train(tmp_path, tiny_dir, method, {"log_realised_entropy_change": True}, **overrides)
    assert off_params.keys() == on_params.keys()
    for key in off_params:
        assert torch.equal(off_params[key], on_params[key]), key  # bit for bit
    assert len(off_rows) == len(on_rows) == 2
    for off, on in zip(off_rows, on_rows, strict=True):
        assert off["loss"] == on["loss"]
        for key in ("completions/mean_length", "entropy/mean", "reward"):
            if key in off:
                assert off[key] == on[key], key
        for key in REALISED:
            assert key not in off and key in on, key
        assert on["realised_entropy/change"] == pytest.approx(
            on["realised_entropy/after"] - on["realised_entropy/before"], abs=1e-12
        )
        assert on["realised_entropy/tokens"] > 0
        # the policy before the step is the loss pass's: the same entropies up to float rounding
        assert on["realised_entropy/before"] == pytest.approx(on["entropy/current"], abs=1e-4)
        assert "entropy_flow/net" in on and "entropy_flow/net_expectation" in on
    # the second step's batch starts from the first step's policy: the entropy moved
    assert any(abs(row["realised_entropy/change"]) > 0 for row in on_rows)


def test_expectation_flow_hand_computed():
    """net_expectation = sum over kept tokens of -r A e_t; a clipped token contributes nothing."""
    logits = t([[[2.0, 0.0, -1.0], [0.5, 0.5, 0.0]]])  # (1, 2, V=3)
    factors = expected_entropy_change_factor(logits)  # (1, 2)
    logps = torch.log_softmax(logits, -1)[..., 0]
    entropies = -(torch.softmax(logits, -1) * torch.log_softmax(logits, -1)).sum(-1)
    adv, ratio, mask = t([[1.5]]), t([[1.0, 1.3]]), t([[1.0, 1.0]])
    none = torch.zeros_like(mask, dtype=torch.bool)
    flows = entropy_flow_by_clip_side(logps, entropies, adv, ratio, none, none, mask, factors)
    expected = -(1.5 * 1.0 * factors[0, 0] + 1.5 * 1.3 * factors[0, 1])
    assert float(flows["net_expectation"]) == pytest.approx(float(expected), rel=1e-12)
    high = t([[0.0, 1.0]]).bool()  # the second token clipped at the upper bound
    flows = entropy_flow_by_clip_side(logps, entropies, adv, ratio, none, high, mask, factors)
    assert float(flows["net_expectation"]) == pytest.approx(float(-1.5 * factors[0, 0]), rel=1e-12)
    assert float(factors[0, 0]) < 0  # e_t <= 0: a positive advantage raises the entropy in this form
    assert "net_expectation" not in entropy_flow_by_clip_side(logps, entropies, adv, ratio, none, none, mask)


def assert_cosine_is_trajectory_neutral(off_params, on_params, off_rows, on_rows) -> None:
    """The run with the gradient-cosine switch on has the same parameters and losses bit for bit as the run without,
    and logs a cosine in [-1, 1] and a positive norm ratio each step."""
    for key in off_params:
        assert torch.equal(off_params[key], on_params[key]), key
    for off, on in zip(off_rows, on_rows, strict=True):
        assert off["loss"] == on["loss"]
        assert -1.0 - 1e-9 <= on["gradient_cosine/weighted_vs_unweighted"] <= 1.0 + 1e-9
        assert on["gradient_cosine/norm_ratio"] > 0


def test_gradient_cosine_is_trajectory_neutral(tmp_path, tiny_dir):
    """OPEFO's ``log_gradient_cosine``: the same parameters bit for bit; a cosine in [-1, 1] each step, the
    diagnostics' time logged and taken out of the step time the overhead claim reads."""
    from rlvr_lib.papers.framework.results import step_time

    off_params, off_rows = train(tmp_path, tiny_dir, "opefo", {})
    hparams = {"log_gradient_cosine": True, "log_realised_entropy_change": True}
    on_params, on_rows = train(tmp_path, tiny_dir, "opefo", hparams)
    assert_cosine_is_trajectory_neutral(off_params, on_params, off_rows, on_rows)
    for on in on_rows:
        assert 0 < on["timing/diagnostics_s"] < on["step_time"]
    import pandas as pd

    history = pd.DataFrame(on_rows)
    expected = (history["step_time"] - history["timing/diagnostics_s"]).mean()
    assert step_time(history) == pytest.approx(expected)


def test_gradient_cosine_at_zero_lambda_is_one(tmp_path, tiny_dir):
    """Static lambda 0: OPEFO's loss is the unweighted one, so the two gradients are one (cosine 1, ratio 1)."""
    _, rows = train(
        tmp_path, tiny_dir, "opefo", {"log_gradient_cosine": True, "lambda_mode": "static", "static_lambda": 0.0}
    )
    for row in rows:
        assert row["gradient_cosine/weighted_vs_unweighted"] == pytest.approx(1.0, abs=1e-6)
        assert row["gradient_cosine/norm_ratio"] == pytest.approx(1.0, abs=1e-6)


def test_cw_grpo_gradient_cosine_is_trajectory_neutral(tmp_path, tiny_dir):
    """CW-GRPO's ``log_gradient_cosine`` (the kernel's share of the gradient norm): the same parameters bit for bit,
    and the covariance share of fig. 3 logged with the percentiles."""
    off_params, off_rows = train(tmp_path, tiny_dir, "cw_grpo", {})
    on_params, on_rows = train(tmp_path, tiny_dir, "cw_grpo", {"log_gradient_cosine": True})
    assert_cosine_is_trajectory_neutral(off_params, on_params, off_rows, on_rows)
    for off in off_rows:
        assert 0.01 <= off["cw_grpo/cov_abs_top1pct_share"] <= 1.0


def test_cw_grpo_unweighted_loss_is_grpo_loss():
    """Without the kernel CW-GRPO's loss is GRPO's at its settings (no clip: eps infinite; plain beta * KL)."""
    from conftest import rollout_batch

    from rlvr_lib.methods.base import LossBatch

    method = build_method("cw_grpo", {"log_gradient_cosine": True})
    batch = rollout_batch(seed=1)
    result = method.rollout(batch)
    seq_adv = result.extras["cw_seq_adv"]
    logps = batch.logps.clone().requires_grad_(True)
    loss_batch = LossBatch(
        logps=logps,
        entropies=batch.entropies,
        old_logps=batch.logps,
        advantages=result.advantages,
        mask=batch.mask,
        num_tokens=float(batch.mask.sum()),
        num_seqs=float(batch.mask.size(0)),
        max_completion_length=batch.mask.size(1),
        ref_logps=batch.ref_logps,
        extras=result.extras,
    )
    grpo = build_method("grpo", {"beta": 0.04, "kl_ratio_correction": False, "eps_low": 1e9, "eps_high": 1e9})
    expected, _ = grpo.loss(
        LossBatch(**{**loss_batch.__dict__, "advantages": seq_adv[:, None].expand_as(batch.mask), "extras": {}})
    )
    assert float(method.unweighted_loss(loss_batch).detach()) == pytest.approx(float(expected.detach()), rel=1e-9)
