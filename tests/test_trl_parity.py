"""The project's entropy terms against TRL 1.16's own: the ``entropy_coef`` bonus and the ``use_adaptive_entropy``
controller (Skywork-OR1, He et al. 2025, which aer.txt sec. 4.2 C3 cites at L146), both in
``trl/trainer/grpo_trainer.py:GRPOTrainer._compute_loss`` (the bonus and the controller are inline there, with no
helper of their own).

TRL's side runs TRL's own code: ``GRPOTrainer._compute_loss`` called on a trainer-free stand-in for the trainer
(``trl_stand_in``: the attributes ``_compute_loss`` reads, set as ``GRPOTrainer.__init__`` sets them from a real
``GRPOConfig``, one process, and the model forward replaced by given log-probs and entropies). The entropies come
from TRL's ``trl.trainer.utils.selective_log_softmax_and_entropy`` (entropy over the vocabulary of each position's
softmax, the unfused path of the fused LM head the trainer uses; the project's trainer takes its entropies from
the same ``_get_per_token_logps_and_entropies``). TRL's bonus term = its loss with ``entropy_coef`` c minus its loss
with c = 0 on the same batch; the project's = Entropy-Reg's loss minus GRPO's. Where the two differ by design
(aggregation, gradient accumulation, AER's relative target, sgn(0), bounds, gating, per-prompt C1 weights), the
test pins both sides to hand-computed values; docs/assumptions.md (entropy_reg, AER "TRL") says why.
"""

from __future__ import annotations

import math
from collections import defaultdict
from types import SimpleNamespace

import pytest
import torch
from conftest import config
from trl import GRPOTrainer
from trl.trainer.utils import selective_log_softmax_and_entropy

from rlvr_lib.methods import LossBatch, RolloutBatch, build_method
from rlvr_lib.methods.aer import EXTRA_WEIGHT

COEF = 0.01  # OPEFO's Entropy-Reg coefficient (opefo.txt L272)
LN4 = math.log(4.0)


# ----------------------------------------------------------------------------- TRL's side, trainer-free
class OneProcess:
    """accelerate's Accelerator as ``_compute_loss`` uses it, for one process."""

    num_processes = 1

    def __init__(self) -> None:
        self.sync_gradients = True  # the micro-batch that ends an accumulation window

    def gather(self, x):
        return x

    gather_for_metrics = gather

    def reduce(self, x, reduction="sum"):
        return x


def trl_stand_in(tmp_path, *, loss_type="dapo", grad_accum=1, **entropy_args) -> SimpleNamespace:
    """What ``GRPOTrainer._compute_loss`` reads of ``self``, set from a real ``GRPOConfig`` as ``__init__`` does
    (grpo_trainer.py L846-857 for the entropy controller's state)."""
    args = config(
        tmp_path,
        loss_type=loss_type,
        gradient_accumulation_steps=grad_accum,
        steps_per_generation=grad_accum,
        **entropy_args,
    )
    return SimpleNamespace(
        args=args,
        model=SimpleNamespace(training=True),
        accelerator=OneProcess(),
        loss_type=args.loss_type,
        beta=args.beta,
        epsilon_low=args.epsilon,
        epsilon_high=args.epsilon_high if args.epsilon_high is not None else args.epsilon,
        importance_sampling_level=args.importance_sampling_level,
        top_entropy_quantile=args.top_entropy_quantile,
        off_policy_mask_threshold=None,
        use_vllm=False,
        vllm_importance_sampling_correction=False,
        aux_loss_enabled=False,
        max_completion_length=args.max_completion_length,
        current_gradient_accumulation_steps=grad_accum,
        entropy_coef=args.entropy_coef,
        use_adaptive_entropy=args.use_adaptive_entropy,
        _entropy_bonus_enabled=args.entropy_coef != 0.0 or args.use_adaptive_entropy,
        _last_world_entropy=float("inf"),
        _entropy_window_stats=None,
        _metrics=defaultdict(lambda: defaultdict(list)),
    )


def trl_loss(stand_in, logps, entropies, mask, advantages, num_items=None, sync=True):
    """TRL's ``_compute_loss`` on one micro-batch whose forward returns (logps, entropies); mask (B, T) 0/1."""
    b, t = mask.shape
    stand_in._get_per_token_logps_and_entropies = lambda *a, **k: (logps, entropies, None)
    stand_in.accelerator.sync_gradients = sync
    inputs = {
        "prompt_ids": torch.zeros(b, 1, dtype=torch.long),
        "prompt_mask": torch.ones(b, 1, dtype=torch.long),
        "completion_ids": torch.zeros(b, t, dtype=torch.long),
        "completion_mask": mask.long(),
        "advantages": advantages,
        "num_items_in_batch": mask.sum().long() if num_items is None else torch.tensor(num_items),
    }
    return GRPOTrainer._compute_loss(stand_in, None, inputs)


# ----------------------------------------------------------------------------- batches
def random_batch(seed=0, b=4, t=5, v=11):
    """Random logits (leaf with grad), sampled ids, right-padded mask of lengths 5, 2, 4, 1, advantages (B,)."""
    g = torch.Generator().manual_seed(seed)
    logits = (2.0 * torch.randn(b, t, v, generator=g)).requires_grad_()
    ids = torch.randint(0, v, (b, t), generator=g)
    lengths = torch.tensor([5, 2, 4, 1])
    mask = (torch.arange(t)[None] < lengths[:, None]).float()
    return logits, ids, mask, torch.randn(b, generator=g)


def forward(logits, ids):
    """TRL's per-token log-probs and vocabulary entropies (entropy with gradient), (B, T) each."""
    return selective_log_softmax_and_entropy(logits, ids, entropy_requires_grad=True)


def uniform_logits(ks: list[list[int]], v=8) -> torch.Tensor:
    """Logits whose position (i, j) is uniform over its first ks[i][j] tokens: entropy ln k exactly (0 for k = 1)."""
    rows = [[[0.0 if a < k else -1e4 for a in range(v)] for k in row] for row in ks]
    return torch.tensor(rows).requires_grad_()


def our_loss_batch(logps, entropies, mask, advantages, *, num_tokens=None, num_seqs=None, extras=None):
    """The project's LossBatch as ``RLVRTrainer._compute_loss`` builds it (strictly on-policy: old = logps)."""
    return LossBatch(
        logps=logps,
        entropies=entropies,
        old_logps=logps.detach(),
        advantages=advantages[:, None].expand_as(mask),
        mask=mask,
        num_tokens=float(mask.sum()) if num_tokens is None else num_tokens,
        num_seqs=float(mask.shape[0]) if num_seqs is None else num_seqs,
        max_completion_length=mask.shape[1],
        extras=extras or {},
    )


def our_bonus(logits, ids, mask, advantages, hparams, **normalisers):
    """Entropy-Reg's loss minus GRPO's (same settings) on the batch: the project's bonus term, and its gradient."""
    terms = []
    for name, extra in (("entropy_reg", {"entropy_coef": COEF}), ("grpo", {})):
        logps, entropies = forward(logits, ids)
        loss, _ = build_method(name, {**hparams, **extra}).loss(
            our_loss_batch(logps, entropies, mask, advantages, **normalisers)
        )
        terms.append((loss, torch.autograd.grad(loss, logits)[0]))
    return terms[0][0] - terms[1][0], terms[0][1] - terms[1][1], terms[0][0]


def trl_bonus(tmp_path, logits, ids, mask, advantages, loss_type="dapo", grad_accum=1, num_items=None):
    """TRL's loss with entropy_coef = COEF minus with 0, on the batch: TRL's bonus term, and its gradient."""
    terms = []
    for coef in (COEF, 0.0):
        logps, entropies = forward(logits, ids)
        stand_in = trl_stand_in(tmp_path, loss_type=loss_type, grad_accum=grad_accum, entropy_coef=coef)
        loss = trl_loss(stand_in, logps, entropies, mask, advantages, num_items)
        terms.append((loss, torch.autograd.grad(loss, logits)[0]))
    return terms[0][0] - terms[1][0], terms[0][1] - terms[1][1], terms[0][0]


# ----------------------------------------------------------------------------- (1) Entropy-Reg vs entropy_coef
@pytest.mark.parametrize("loss_type", ["dapo", "grpo"])
def test_entropy_reg_bonus_equals_trl_entropy_coef_with_token_mean(tmp_path, loss_type):
    """Same term: -c * (token mean of the vocabulary entropy over the valid tokens), the same sign, the same
    gradient. TRL's bonus is a token mean whatever its ``loss_type`` (grpo_config.py ``entropy_coef``); the
    project's is one under ``loss_agg: token-mean`` (entropy_reg_8updates' setting) with one micro-batch."""
    logits, ids, mask, adv = random_batch()
    ours, our_grad, _ = our_bonus(logits, ids, mask, adv, {"loss_agg": "token-mean"})
    theirs, their_grad, _ = trl_bonus(tmp_path, logits, ids, mask, adv, loss_type=loss_type)
    _, entropies = forward(logits, ids)
    expected = -COEF * float((entropies.detach() * mask).sum() / mask.sum())
    assert expected < -1e-3  # a bonus: the loss falls as the entropy rises (a flipped sign fails here)
    assert ours.item() == pytest.approx(expected, abs=1e-8)
    assert theirs.item() == pytest.approx(expected, abs=1e-8)
    assert our_grad.abs().max() > 1e-5
    torch.testing.assert_close(our_grad, their_grad, rtol=1e-5, atol=1e-8)
    assert our_grad[mask == 0].abs().max() == 0 == their_grad[mask == 0].abs().max()  # padding ignored by both


def test_entropy_reg_total_loss_equals_trl_dapo_with_entropy_coef(tmp_path):
    """The whole loss (clipped surrogate + bonus): entropy_reg with token-mean = TRL loss_type dapo, clip 0.2/0.2."""
    logits, ids, mask, adv = random_batch(seed=3)
    *_, ours = our_bonus(logits, ids, mask, adv, {"loss_agg": "token-mean"})
    *_, theirs = trl_bonus(tmp_path, logits, ids, mask, adv, loss_type="dapo")
    assert ours.item() == pytest.approx(theirs.item(), abs=1e-7)


def hand_batch():
    """Row 0: 3 valid positions of entropy ln 4; row 1: 1 valid position of entropy 0, then 2 padded positions of
    entropy ln 8 (ignored). Advantages 0 (no policy term)."""
    logits = uniform_logits([[4, 4, 4], [1, 8, 8]])
    ids = torch.zeros(2, 3, dtype=torch.long)
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    return logits, ids, mask, torch.zeros(2)


def test_entropy_reg_default_aggregation_differs_from_trl_by_design(tmp_path):
    """By design: the project's bonus uses the policy loss's aggregation (baselines.md L43; default
    seq-mean-token-mean: mean over responses of each response's mean entropy), TRL's is always a token mean.
    Hand values: ours -c (ln4 + 0)/2, TRL -c (3 ln4 + 0)/4."""
    logits, ids, mask, adv = hand_batch()
    ours, *_ = our_bonus(logits, ids, mask, adv, {})  # entropy_reg's default loss_agg
    theirs, *_ = trl_bonus(tmp_path, logits, ids, mask, adv)
    assert ours.item() == pytest.approx(-COEF * 0.5 * LN4, abs=1e-8)  # -0.0069315
    assert theirs.item() == pytest.approx(-COEF * 0.75 * LN4, abs=1e-8)  # -0.0103972
    token_mean, *_ = our_bonus(logits, ids, mask, adv, {"loss_agg": "token-mean"})
    assert token_mean.item() == pytest.approx(theirs.item(), abs=1e-8)  # the setting that matches TRL


def test_entropy_reg_gradient_accumulation_differs_from_trl_by_design(tmp_path):
    """By design: under gradient accumulation the project's token-mean divides by the optimizer step's token count
    (exact over the step: ``core.Aggregator``); TRL takes each micro-batch's token mean and divides by the
    accumulation steps (a mean of micro-batch means). Two micro-batches of 3 and 1 tokens (``hand_batch``'s rows):
    ours -c (3 ln4 + 0)/4, TRL -c (ln4 + 0)/2."""
    logits, ids, mask, adv = hand_batch()
    ours = theirs = 0.0
    for row in (0, 1):
        rows = slice(row, row + 1)
        ours = (
            ours
            + our_bonus(
                logits[rows].detach().requires_grad_(),
                ids[rows],
                mask[rows],
                adv[rows],
                {"loss_agg": "token-mean"},
                num_tokens=float(mask.sum()),  # RLVRTrainer: num_items_in_batch * GA / steps_per_generation
                num_seqs=2.0,
            )[0].item()
        )
        theirs = (
            theirs
            + trl_bonus(
                tmp_path,
                logits[rows].detach().requires_grad_(),
                ids[rows],
                mask[rows],
                adv[rows],
                grad_accum=2,
                num_items=int(mask.sum()),
            )[0].item()
        )
    assert ours == pytest.approx(-COEF * 0.75 * LN4, abs=1e-8)  # -0.0103972
    assert theirs == pytest.approx(-COEF * 0.5 * LN4, abs=1e-8)  # -0.0069315


# ----------------------------------------------------------------------------- (2) AER's C3 vs use_adaptive_entropy
ETA = 0.005  # aer.txt table 3 (L351) and TRL's entropy_coef_delta default: the same step
FALL_RISE = [1.0, 0.75, 0.5, 0.375, 0.25, 0.25, 0.25, 0.375, 0.5, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75]
# exact binary fractions, so float32 measurement does not move them across the target 0.5 = tau * H_0 = 0.5 * 1.0


def constant_entropy_batch(h: float, b=4, t=3) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.full((b, t), h), torch.ones(b, t)


def trl_controller(tmp_path, entropies: list[float], **args) -> tuple[list[float], list[float]]:
    """TRL's controller fed one optimizer step per entropy (one micro-batch per step). Returns the coefficient it
    applied in each step's loss (the loss is -applied * H with advantages 0) and its coefficient after each step."""
    stand_in = trl_stand_in(tmp_path, use_adaptive_entropy=True, **args)
    applied, after = [], []
    for h in entropies:
        ent, mask = constant_entropy_batch(h)
        loss = trl_loss(stand_in, torch.zeros_like(ent), ent, mask, torch.zeros(mask.shape[0]))
        applied.append(-loss.item() / h)
        after.append(stand_in.entropy_coef)
    return applied, after


def aer_controller(entropies: list[float], **hparams) -> tuple[list[float], list[float]]:
    """AER's method fed one rollout batch + one optimizer step per entropy, every prompt weighted 1 (C1 off, so C3
    alone). Returns alpha applied in each step's loss (-alpha * H with advantages 0) and alpha after eq. 11."""
    aer = build_method("aer", {"tau": 0.5, "eta": ETA, "difficulty_aware": False, **hparams})
    applied, after = [], []
    for h in entropies:
        ent, mask = constant_entropy_batch(h)
        rewards = torch.zeros(mask.shape[0])
        result = aer.rollout(
            RolloutBatch(rewards, torch.arange(4) // 2, mask, torch.zeros_like(ent), ent, accuracy=rewards)
        )
        loss, _ = aer.loss(our_loss_batch(torch.zeros_like(ent), ent.clone(), mask, rewards, extras=result.extras))
        applied.append(-float(loss) / h)
        aer.on_optimizer_step()
        after.append(aer.alpha)
    return applied, after


def test_aer_c3_steps_like_trl_adaptive_entropy_except_at_the_target(tmp_path):
    """The same rule where the entropy is off the target and no bound binds: each optimizer step the coefficient
    moves by eta = entropy_coef_delta = 0.005 toward more entropy bonus when H_t < H* and less when H_t > H*, from
    the previous step's entropy. By design: at H_t = H* eq. 11's sgn(0) = 0 keeps alpha, TRL
    (``world_entropy <= entropy_target``) adds a step; so after the two visits of H = 0.5 TRL is 2 eta higher."""
    trl_applied, trl_after = trl_controller(tmp_path, FALL_RISE, entropy_target=0.5, entropy_coef_delta=ETA)
    aer_applied, aer_after = aer_controller(FALL_RISE)
    assert aer_after == pytest.approx(
        [0, 0, 0, 0.005, 0.010, 0.015, 0.020, 0.025, 0.025, 0.020, 0.015, 0.010, 0.005, 0, 0], abs=1e-12
    )
    assert trl_after == pytest.approx(
        [0, 0, 0.005, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.030, 0.025, 0.020, 0.015, 0.010, 0.005], abs=1e-12
    )
    before_aer, before_trl = [0.0, *aer_after[:-1]], [0.0, *trl_after[:-1]]
    for h, a0, a1, c0, c1 in zip(FALL_RISE, before_aer, aer_after, before_trl, trl_after, strict=True):
        if h != 0.5 and a1 > 0 and 0 < c1:  # off the target, no bound binding: the same step, the same direction
            assert a1 - a0 == pytest.approx(c1 - c0, abs=1e-12) == pytest.approx(ETA if h < 0.5 else -ETA)
    # Both apply in step t the coefficient that step t-1's entropy left. By design TRL applies it only while that
    # entropy was at or below the target (the first step: none, its last entropy is inf); AER's alpha always acts.
    assert aer_applied == pytest.approx(before_aer, abs=1e-8)
    assert trl_applied == pytest.approx(
        [0, 0, 0, 0.005, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0, 0, 0, 0, 0], abs=1e-8
    )


def test_aer_relative_target_differs_from_trl_absolute_target(tmp_path):
    """By design: AER's target is tau * H_0 (eq. 10, the first step's entropy), TRL's ``entropy_target`` a fixed
    number of nats. The same sequence doubled (H_0 = 2): AER's alpha trajectory is unchanged (target 1.0), TRL's
    with target 0.5 acts only on the three steps at 0.5."""
    doubled = [2 * h for h in FALL_RISE]
    _, aer_after = aer_controller(doubled)
    _, aer_unscaled = aer_controller(FALL_RISE)
    assert aer_after == pytest.approx(aer_unscaled, abs=1e-12)
    _, trl_after = trl_controller(tmp_path, doubled, entropy_target=0.5, entropy_coef_delta=ETA)
    assert trl_after == pytest.approx([0, 0, 0, 0, 0.005, 0.010, 0.015, 0.010, 0.005, 0, 0, 0, 0, 0, 0], abs=1e-12)


def test_trl_bounds_differ_from_aer_by_design(tmp_path):
    """Both floor the coefficient (eq. 11's [.]_+ = TRL's entropy_coef_min 0, its default). By design TRL also caps
    it (entropy_coef_max) and may floor it above 0; eq. 11 has neither."""
    below = [1.0, 0.25, 0.25, 0.25, 0.25]
    _, aer_after = aer_controller(below)
    _, trl_after = trl_controller(tmp_path, below, entropy_target=0.5, entropy_coef_delta=ETA, entropy_coef_max=0.01)
    assert aer_after == pytest.approx([0, 0.005, 0.010, 0.015, 0.020], abs=1e-12)
    assert trl_after == pytest.approx([0, 0.005, 0.010, 0.010, 0.010], abs=1e-12)
    above = [1.0, 1.0, 1.0]
    _, aer_after = aer_controller(above, alpha_init=0.01)
    _, trl_after = trl_controller(
        tmp_path, above, entropy_target=0.5, entropy_coef_delta=ETA, entropy_coef=0.01, entropy_coef_min=0.005
    )
    assert aer_after == pytest.approx([0.005, 0, 0], abs=1e-12)
    assert trl_after == pytest.approx([0.005, 0.005, 0.005], abs=1e-12)


# ----------------------------------------------------------------------------- AER's C1 weights vs TRL's coefficient
def aer_bonus(entropies, mask, accuracy, group=2, **hparams):
    """AER's loss (advantages 0, so its entropy term alone) with a fixed alpha = COEF; prompts of ``group``
    consecutive responses."""
    aer = build_method("aer", {"adaptive_alpha": False, "alpha_init": COEF, **hparams})
    b = mask.shape[0]
    ids = torch.arange(b) // group
    result = aer.rollout(
        RolloutBatch(accuracy, ids, mask, torch.zeros_like(mask), entropies.detach(), accuracy=accuracy)
    )
    loss, _ = aer.loss(our_loss_batch(torch.zeros_like(mask), entropies, mask, torch.zeros(b), extras=result.extras))
    return loss, result.extras[EXTRA_WEIGHT]


def test_aer_bonus_without_c1_equals_trl_bonus(tmp_path):
    """AER with C1 off (every prompt's lambda = alpha) and ``bonus_agg: token-mean`` is TRL's bonus at
    entropy_coef = alpha: value and gradient on the random batch."""
    logits, ids, mask, _ = random_batch(seed=5)
    logps, entropies = forward(logits, ids)
    ours, _ = aer_bonus(entropies, mask, torch.zeros(4), difficulty_aware=False, bonus_agg="token-mean")
    our_grad = torch.autograd.grad(ours, logits)[0]
    theirs, their_grad, _ = trl_bonus(tmp_path, logits, ids, mask, torch.zeros(4))
    assert ours.item() == pytest.approx(theirs.item(), abs=1e-8) and theirs.item() < -1e-3
    torch.testing.assert_close(our_grad, their_grad, rtol=1e-5, atol=1e-8)


def test_aer_c1_weights_differ_from_trl_uniform_coefficient(tmp_path):
    """By design: AER's lambda_t(q) = alpha * max(0, rho - g(q))/(rho + eps) (eq. 9) weights each prompt's entropy
    before aggregation; TRL applies one coefficient to every token. Two prompts of 2 responses (2 tokens each,
    entropies 1.0, 0.5 | 0.25, 0.75); prompt 0 unsolved (g = 0, weight 1), prompt 1 half solved (g = 0.5 >= rho =
    0.2, weight 0). AER: -alpha (1.0 + 0.5 + 0 + 0)/4 = -0.00375; TRL: -alpha (1.0 + 0.5 + 0.25 + 0.75)/4 = -0.00625."""
    entropies = torch.tensor([1.0, 0.5, 0.25, 0.75])[:, None].expand(4, 2).clone().requires_grad_()
    mask = torch.ones(4, 2)
    ours, weight = aer_bonus(entropies, mask, torch.tensor([0.0, 0.0, 1.0, 0.0]))
    assert weight.tolist() == pytest.approx([1.0, 1.0, 0.0, 0.0], abs=1e-7)
    assert ours.item() == pytest.approx(-0.00375, abs=1e-9)
    stand_in = trl_stand_in(tmp_path, entropy_coef=COEF)
    theirs = trl_loss(stand_in, torch.zeros(4, 2), entropies, mask, torch.zeros(4))
    assert theirs.item() == pytest.approx(-0.00625, abs=1e-9)
    # g = 0.1, between 0 and rho, gets weight (0.2 - 0.1)/0.2 = 0.5: two prompts of 10 one-token responses, prompt 0
    # unsolved (entropy 1.0), prompt 1 solved once (entropy 0.5). AER: -alpha (10 + 0.5 * 5)/20 = -0.00625; TRL:
    # -alpha (10 + 5)/20 = -0.0075.
    entropies = torch.tensor([1.0] * 10 + [0.5] * 10)[:, None].clone().requires_grad_()
    mask, accuracy = torch.ones(20, 1), torch.zeros(20)
    accuracy[10] = 1.0
    ours, weight = aer_bonus(entropies, mask, accuracy, group=10, rho=0.2)
    assert weight.tolist() == pytest.approx([1.0] * 10 + [0.5] * 10, abs=1e-7)
    assert ours.item() == pytest.approx(-0.00625, abs=1e-9)
    theirs = trl_loss(trl_stand_in(tmp_path, entropy_coef=COEF), torch.zeros(20, 1), entropies, mask, torch.zeros(20))
    assert theirs.item() == pytest.approx(-0.0075, abs=1e-9)
