"""rlvr_lib.methods.core: the formulas several methods share, by hand, and the places where two former copies
were merged (Clip-Cov's and CW-GRPO's covariance, GSPO's and TEPO's sequence ratio, ERPO's std) agree."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import rollout_batch

from rlvr_lib.methods.core import (
    group_index,
    group_mean_std,
    kl_estimate,
    masked_mean,
    sequence_log_ratio,
    std_from_moments,
    to_floats,
    token_covariance,
)
from rlvr_lib.methods.erpo import segment_mean_std
from rlvr_lib.methods.tepo import LOG_W_CLAMP, sequence_log_weight

D = torch.float64


# ----------------------------------------------------------------------------- token covariance
# one group: logps row 0 = [-1, -3], row 1 = [-2, (pad 9)]; A = [+1, -1]
LP = torch.tensor([[-1.0, -3.0], [-2.0, 9.0]], dtype=D)
MASK = torch.tensor([[1.0, 1.0], [1.0, 0.0]], dtype=D)
A = torch.tensor([1.0, -1.0], dtype=D)
A_TOK = A[:, None].expand(2, 2).clone()


def test_token_covariance_whole_tensor_by_hand():
    # means over valid tokens: logp (-1-3-2)/3 = -2 ; A (1+1-1)/3 = 1/3
    # c = (-1+2)(2/3) = 2/3 ; (-3+2)(2/3) = -2/3 ; (-2+2)(-4/3) = 0 ; padding 0
    expected = torch.tensor([[2 / 3, -2 / 3], [0.0, 0.0]], dtype=D)
    assert torch.allclose(token_covariance(LP, A_TOK, MASK), expected)
    assert torch.allclose(token_covariance(LP, A, MASK), expected)  # (B,) advantages count once per token
    # given means (Clip-Cov's rollout-batch scope): 0 and 0 -> c = logp * A = -1, -3, 2 ; padding 0
    zero = torch.zeros(1, dtype=D)
    given = token_covariance(LP, A_TOK, MASK, means=(zero, zero))
    assert torch.allclose(given, torch.tensor([[-1.0, -3.0], [2.0, 0.0]], dtype=D))


def test_token_covariance_segments_by_hand():
    idx = torch.tensor([0, 0])
    assert torch.allclose(token_covariance(LP, A, MASK, idx, 1), torch.tensor([[2 / 3, -2 / 3], [0.0, 0.0]], dtype=D))
    # response centring: mean A over the 2 responses = 0 -> c = (logp + 2) * A = 1, -1, 0
    got = token_covariance(LP, A, MASK, idx, 1, adv_centering="response")
    assert torch.allclose(got, torch.tensor([[1.0, -1.0], [0.0, 0.0]], dtype=D))
    with pytest.raises(ValueError, match="adv_centering must be one of"):
        token_covariance(LP, A, MASK, idx, 1, adv_centering="tokens")


def test_token_covariance_one_segment_equals_whole_tensor_and_groups_are_separate():
    # Clip-Cov (whole tensor, masked means) and CW-GRPO (segment statistics) were two functions: one segment of
    # CW-GRPO's form is Clip-Cov's covariance, up to the order of the float sums.
    b = rollout_batch(b=12, t=7, seed=3, dtype=D)
    adv = torch.randn(12, dtype=D, generator=torch.Generator().manual_seed(0))
    one = token_covariance(b.logps, adv, b.mask, torch.zeros(12, dtype=torch.long), 1)
    assert torch.allclose(one, token_covariance(b.logps, adv, b.mask), atol=1e-12)
    assert (one[b.mask == 0] == 0).all()
    index, n = group_index(b.group_ids)
    per_group = token_covariance(b.logps, adv, b.mask, index, n)
    for g in range(n):
        rows = b.group_ids == g
        assert torch.allclose(per_group[rows], token_covariance(b.logps[rows], adv[rows], b.mask[rows]), atol=1e-12)


# ----------------------------------------------------------------------------- sequence log-ratio
def test_sequence_log_ratio_by_hand_and_tepo_clamps_it():
    logps = torch.tensor([[-1.0, -2.0, -3.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    old = torch.tensor([[-1.3, -2.0, -3.6], [-1.5, 5.0, 5.0], [3.0, 3.0, 3.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    # row 0: (0.3 + 0 + 0.6) / 3 = 0.3 ; row 1: 0.5 / 1 = 0.5 (padding ignored) ; row 2: no token -> 0
    assert torch.allclose(sequence_log_ratio(logps, old, mask), torch.tensor([0.3, 0.5, 0.0]))
    assert torch.equal(sequence_log_weight(logps, old, mask), sequence_log_ratio(logps, old, mask))
    far = torch.tensor([[50.0]])
    assert sequence_log_weight(far, torch.zeros(1, 1), torch.ones(1, 1)).item() == LOG_W_CLAMP


def test_sequence_log_ratio_equals_tepos_former_form_bitwise():
    # TEPO cast the mask to the log-probs' dtype first; for float32 and float64 inputs the results are identical
    for dtype in (torch.float32, torch.float64):
        b = rollout_batch(seed=4, dtype=dtype)
        logps = b.logps + 0.1 * torch.randn(b.logps.shape, dtype=dtype, generator=torch.Generator().manual_seed(1))
        mask = b.mask.to(logps.dtype)
        former = ((logps - b.logps) * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)
        assert torch.equal(sequence_log_ratio(logps, b.logps, b.mask.float()), former)


# ----------------------------------------------------------------------------- std from moments
def test_std_from_moments_by_hand():
    sq, count = torch.tensor([8.0, 0.0, 0.0, 3.0]), torch.tensor([3.0, 1.0, 0.0, 3.0])
    # sample: sqrt(8/2) = 2 ; one element -> 0 ; empty -> 0 ; sqrt(3/2)
    assert torch.allclose(std_from_moments(sq, count, "sample"), torch.tensor([2.0, 0.0, 0.0, math.sqrt(1.5)]))
    assert torch.allclose(std_from_moments(sq, count, "population"), torch.tensor([math.sqrt(8 / 3), 0.0, 0.0, 1.0]))


@pytest.mark.parametrize("std_kind", ["sample", "population"])
def test_group_and_segment_statistics_agree(std_kind):
    # group_mean_std (per row group) and ERPO's segment_mean_std (per token segment) share std_from_moments
    b = rollout_batch(b=12, t=7, seed=5, dtype=D)
    index, n = group_index(b.group_ids)
    mean_g, std_g = group_mean_std(b.entropies, index, n, weight=b.mask, std_kind=std_kind)
    mean_s, std_s = segment_mean_std(b.entropies, index[:, None].expand_as(b.mask), n, b.mask, std_kind)
    assert torch.allclose(mean_g, mean_s, atol=1e-12) and torch.allclose(std_g, std_s, atol=1e-12)
    rows = b.group_ids == 1
    values = b.entropies[rows][b.mask[rows].bool()]
    assert std_g[1].item() == pytest.approx(values.std(correction=1 if std_kind == "sample" else 0).item())


# ----------------------------------------------------------------------------- KL estimators, metrics
def test_kl_estimators_by_hand():
    lp, tg = torch.tensor([[-1.0]]), torch.tensor([[-1.5]])
    # diff = logp - target = 0.5: k1 = 0.5 ; k2 = 0.5^2 / 2 = 0.125 ; k3 = e^-0.5 - (-0.5) - 1 = e^-0.5 - 0.5
    assert kl_estimate(lp, tg, "k1").item() == pytest.approx(0.5)
    assert kl_estimate(lp, tg, "k2").item() == pytest.approx(0.125)
    assert kl_estimate(lp, tg, "k3").item() == pytest.approx(math.exp(-0.5) - 0.5)
    with pytest.raises(ValueError, match=r"kl_estimator must be one of \['k1', 'k2', 'k3'\], got 'k9'"):
        kl_estimate(lp, tg, "k9")


def test_to_floats_one_dtype():
    x = torch.tensor([1.0, 2.0, 4.0], dtype=D, requires_grad=True)
    out = to_floats({"mean": masked_mean(x, torch.ones(3, dtype=D)), "count": torch.tensor(3), "third": x[0] / 3})
    assert out == {"mean": pytest.approx(7 / 3), "count": 3.0, "third": float(torch.tensor(1 / 3, dtype=torch.float32))}
    assert to_floats({"third": x[0] / 3}, D)["third"] == 1 / 3
    assert to_floats({}) == {}
