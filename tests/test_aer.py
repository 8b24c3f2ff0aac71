"""AER (shared/papers/aer.txt sec. 4.2, eq. 7-11): hand examples, the alpha controller, state, ablations."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import loss_batch, rollout_batch

from rlvr_lib.methods import RolloutBatch, build_method
from rlvr_lib.methods.aer import alpha_update, difficulty_weight, group_accuracy, policy_entropy


def aer_batch(accuracy, **kw):
    """16 responses in groups of 4, 6 tokens, rewards = accuracy."""
    return rollout_batch(b=accuracy.numel(), t=6, rewards=accuracy.float(), **kw)


# groups of 4: g = 0 (hard), 0.25, 0.5, 1.0
ACC = torch.tensor([0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1])


# ----------------------------------------------------------------------------- pure functions
def test_group_accuracy_hand_example():
    correct = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    groups = torch.tensor([7, 7, 3, 3, 3, 9])  # ids need not be contiguous or sorted
    # group 7: 1/2 ; group 3: (0+1+1)/3 = 2/3 ; group 9: 1
    assert torch.allclose(group_accuracy(correct, groups), torch.tensor([0.5, 0.5, 2 / 3, 2 / 3, 2 / 3, 1.0]))


def test_difficulty_weight_hand_example():
    g = torch.tensor([0.0, 0.1, 0.2, 0.5])
    # rho 0.2: max(0, 0.2 - g) / (0.2 + 1e-8) = 0.99999995, 0.5, 0, 0
    assert torch.allclose(difficulty_weight(g, 0.2), torch.tensor([0.2 / (0.2 + 1e-8), 0.5, 0.0, 0.0]))
    # rho 0: first term 0 everywhere; indicator 1[g = 0] -> 1, 0, 0, 0
    assert difficulty_weight(g, 0.0).tolist() == [1.0, 0.0, 0.0, 0.0]
    # rho 1: (1 - g) / (1 + 1e-8)
    assert torch.allclose(difficulty_weight(g, 1.0), 1.0 - g, atol=1e-7)


def test_policy_entropy_hand_example():
    ent = torch.tensor([[1.0, 3.0, 9.0], [2.0, 0.0, 0.0], [5.0, 5.0, 5.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    # token-mean: (1 + 3 + 2) / 3 = 2 ; seq-mean-token-mean: mean(2, 2) = 2 over the two non-empty rows
    assert policy_entropy(ent, mask, "token-mean").item() == pytest.approx(2.0)
    mask2 = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    # token-mean: (1 + 3 + 9 + 2) / 4 = 3.75 ; seq-mean-token-mean: (13/3 + 2) / 2 = 3.1667
    assert policy_entropy(ent, mask2, "token-mean").item() == pytest.approx(3.75)
    assert policy_entropy(ent, mask2, "seq-mean-token-mean").item() == pytest.approx((13 / 3 + 2) / 2)


def test_alpha_update_hand_examples():
    # below target: 0.01 + 0.005 = 0.015 ; above: 0.01 - 0.005 = 0.005 ; at target: unchanged
    assert alpha_update(0.01, target=1.0, entropy=0.5, eta=0.005) == pytest.approx(0.015)
    assert alpha_update(0.01, target=1.0, entropy=1.5, eta=0.005) == pytest.approx(0.005)
    assert alpha_update(0.01, target=1.0, entropy=1.0, eta=0.005) == 0.01
    # [z]_+: 0.002 - 0.005 < 0 -> 0
    assert alpha_update(0.002, target=1.0, entropy=2.0, eta=0.005) == 0.0


# ----------------------------------------------------------------------------- the controller
def test_alpha_never_negative_and_follows_the_entropy():
    method = build_method("aer", {"alpha_init": 0.012})
    rb = aer_batch(ACC)
    method.rollout(rb)  # H_0 = H_t: entropy above the target 0.4 * H_0
    h0 = method.initial_entropy
    assert method.target_entropy == pytest.approx(0.4 * h0)
    alphas = []
    for _ in range(5):
        method.on_optimizer_step()
        alphas.append(method.alpha)
    # falls by eta while above target: 0.007, 0.002, then clamps at 0
    assert alphas == pytest.approx([0.007, 0.002, 0.0, 0.0, 0.0])
    # entropy collapses to 0.1 * H_0 < target: alpha rises by eta per step; H_0 stays the first value
    method.rollout(aer_batch(ACC, entropy_scale=0.1))
    assert method.initial_entropy == h0 and method.entropy == pytest.approx(0.1 * h0, rel=1e-5)
    for _ in range(3):
        metrics = method.on_optimizer_step()
    assert method.alpha == pytest.approx(0.015)
    assert metrics["aer/alpha"] == pytest.approx(0.015) and metrics["aer/target_entropy"] == pytest.approx(0.4 * h0)


def test_alpha_update_once_per_rollout_batch_option():
    method = build_method("aer", {"alpha_init": 0.0, "alpha_update_every": "rollout-batch"})
    method.rollout(aer_batch(ACC))
    method.initial_entropy = 100.0  # force H_t < target
    for _ in range(4):  # every optimizer step of iteration 1 uses alpha_1 = 0
        method.on_optimizer_step()
    assert method.alpha == 0.0 and method.steps == 4
    method.rollout(aer_batch(ACC))  # iteration 2 starts: eq. 11 once, with H_1
    assert method.alpha == pytest.approx(0.005)
    method.on_optimizer_step()
    method.on_optimizer_step()
    assert method.alpha == pytest.approx(0.005)
    method.rollout(aer_batch(ACC))
    assert method.alpha == pytest.approx(0.010)


def test_state_round_trips_through_json():
    method = build_method("aer", {"alpha_init": 0.02})
    method.rollout(aer_batch(ACC))
    method.on_optimizer_step()
    state = json.loads(json.dumps(method.state_dict()))
    fresh = build_method("aer", {"alpha_init": 0.02})
    fresh.load_state_dict(state)
    assert fresh.state_dict() == method.state_dict()
    assert (fresh.alpha, fresh.initial_entropy, fresh.steps) == (method.alpha, method.initial_entropy, 1)
    # the restored H_0 is kept: a new rollout does not re-anchor the target
    fresh.rollout(aer_batch(ACC, entropy_scale=0.5))
    assert fresh.initial_entropy == method.initial_entropy
    with pytest.raises(ValueError, match="alpha"):
        fresh.load_state_dict({"steps": 3})


# ----------------------------------------------------------------------------- the loss
def test_coefficient_is_zero_for_prompts_above_the_pivot():
    method = build_method("aer", {"alpha_init": 0.1, "rho": 0.3})
    rb = aer_batch(ACC)
    result = method.rollout(rb)
    # g = 0, 0.25, 0.5, 1 -> f = 1, (0.3-0.25)/0.3 = 1/6, 0, 0
    w = result.extras["aer_difficulty_weight"]
    assert torch.allclose(w, torch.tensor([1.0] * 4 + [1 / 6] * 4 + [0.0] * 8), atol=1e-6)
    assert result.metrics["aer/frac_prompts_nonzero_coef"] == 0.5
    lb = loss_batch(rb, result)
    loss, _ = method.loss(lb)
    loss.backward()
    grad = lb.entropies.grad
    assert torch.all(grad[8:] == 0)  # easy prompts: no entropy gradient
    assert torch.all(grad[:8][rb.mask[:8] > 0] < 0)  # hard prompts: the bonus raises entropy


def test_bonus_multiplies_entropy_before_aggregation_hand_example():
    acc = torch.tensor([0, 0, 1, 1])  # groups of 2: g = 0 (f = 1), g = 1 (f = 0)
    ent = torch.tensor([[1.0, 3.0, 0.0], [2.0, 2.0, 2.0], [4.0, 0.0, 0.0], [7.0, 7.0, 7.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    rb = RolloutBatch(
        rewards=acc.float(),
        group_ids=torch.tensor([0, 0, 1, 1]),
        mask=mask,
        logps=torch.full((4, 3), -1.0),
        entropies=ent,
        accuracy=acc.float(),
    )
    method = build_method("aer", {"alpha_init": 0.5})
    result = method.rollout(rb)
    lb = loss_batch(rb, result)
    loss, _ = method.loss(lb)
    pg, _ = build_method("grpo").loss(loss_batch(rb, build_method("grpo").rollout(rb)))
    # seq-mean-token-mean of lambda * H: rows 0, 1 have lambda = 0.5 * 1: (0.5*2 + 0.5*2 + 0 + 0) / 4 = 0.5
    assert (loss - pg).item() == pytest.approx(-0.5)


def test_alpha_zero_adds_nothing_and_entropy_gets_no_gradient():
    method = build_method("aer")  # alpha_0 = 0 by default
    rb = aer_batch(ACC)
    result = method.rollout(rb)
    lb = loss_batch(rb, result)
    loss, _ = method.loss(lb)
    pg, _ = build_method("grpo").loss(loss_batch(rb, build_method("grpo").rollout(rb)))
    assert loss.item() == pytest.approx(pg.item())
    loss.backward()
    assert lb.logps.grad.abs().sum() > 0  # backpropagates to log-probs
    assert result.metrics["aer/frac_prompts_nonzero_coef"] == 0.0
    assert result.metrics["aer/frac_prompts_below_pivot"] == 0.25  # only the g = 0 group is below rho = 0.2


def test_ablations():
    rb = aer_batch(ACC)
    uniform = build_method("aer", {"difficulty_aware": False, "alpha_init": 0.1})
    assert torch.all(uniform.rollout(rb).extras["aer_difficulty_weight"] == 1.0)  # C2&C3 only
    fixed = build_method("aer", {"adaptive_alpha": False, "alpha_init": 0.01})  # C1 only / fixed coefficient
    fixed.rollout(rb)
    fixed.initial_entropy = 100.0
    for _ in range(3):
        fixed.on_optimizer_step()
    assert fixed.alpha == 0.01
    with pytest.raises(ValueError, match="alpha_init"):
        build_method("aer", {"adaptive_alpha": False})
    # fig. 2's coefficient 0: both components off and alpha 0 is GRPO (the loss adds nothing)
    zero = build_method("aer", {"adaptive_alpha": False, "difficulty_aware": False, "alpha_init": 0.0})
    zero.rollout(rb)
    zero.on_optimizer_step()
    assert zero.alpha == 0.0


def test_accuracy_source():
    rb = aer_batch(ACC)
    rb_no_acc = RolloutBatch(
        rewards=rb.rewards, group_ids=rb.group_ids, mask=rb.mask, logps=rb.logps, entropies=rb.entropies
    )
    with pytest.raises(ValueError, match="accuracy_source"):
        build_method("aer").rollout(rb_no_acc)
    out = build_method("aer", {"accuracy_source": "reward"}).rollout(rb_no_acc)
    expected = build_method("aer").rollout(rb).extras["aer_difficulty_weight"]
    assert torch.allclose(out.extras["aer_difficulty_weight"], expected)


@pytest.mark.parametrize(
    "hp,message",
    [
        ({"tau": 0.0}, "tau"),
        ({"tau": -0.5}, "tau"),
        ({"rho": 1.5}, "rho"),
        ({"eta": -1.0}, "eta"),
        ({"alpha_init": -0.1}, "alpha_init"),
        ({"bonus_agg": "mean"}, "bonus_agg"),
        ({"entropy_stat": "max"}, "entropy_stat"),
        ({"alpha_update_every": "epoch"}, "alpha_update_every"),
        ({"accuracy_source": "format"}, "accuracy_source"),
    ],
)
def test_invalid_hyperparameters_name_the_field(hp, message):
    with pytest.raises(ValueError, match=rf"^methods\.aer\.{message} must"):
        build_method("aer", hp, path="methods.aer")


def test_tau_above_one_is_allowed_as_in_table_8():
    """eq. 10 says tau in (0, 1), table 8 runs 1.0 and 1.2 (aer.txt App. C.4): tau > 0 is the check."""
    assert build_method("aer", {"tau": 1.2}).cfg.tau == 1.2


def test_defaults_are_the_papers_values():
    c = build_method("aer").cfg
    assert (c.tau, c.rho, c.eta, c.eps) == (0.4, 0.2, 0.005, 1e-8)
    assert c.difficulty_aware and c.adaptive_alpha
