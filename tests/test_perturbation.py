"""Tests of ERPO's fig. 1(b) perturbation protocol (rlvr_lib/analysis/perturbation.py)."""

from __future__ import annotations

import os
from types import SimpleNamespace

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
import torch

from rlvr_lib.analysis import perturbation
from rlvr_lib.analysis.perturbation import perturbation_study, replacement_token, select_positions
from rlvr_lib.testbed import build_model, build_tokenizer, make_splits

CORPUS = [p.prompt + p.solution for p in make_splits(150, 0, seed=0, task="v3")[0]]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    tok = build_tokenizer(CORPUS, 300, tmp_path_factory.mktemp("tok"))
    tok.padding_side = "left"
    return tok


def test_select_positions_top_bottom_and_ties():
    entropy = torch.tensor([0.1, 0.9, 0.5, 0.9, 0.0, 0.3])
    assert select_positions(entropy, 0.05, "top") == [1]  # k = max(1, ceil(0.3)) = 1; tie -> earlier
    assert select_positions(entropy, 0.05, "bottom") == [4]
    assert select_positions(entropy, 0.5, "top") == [1, 2, 3]
    assert select_positions(entropy, 0.5, "bottom") == [0, 4, 5]
    assert select_positions(torch.zeros(40), 0.05, "top") == [0, 1]  # ceil(2.0) = 2, ties by position
    assert select_positions(torch.ones(41), 0.05, "bottom") == [0, 1, 2]  # ceil(2.05) = 3
    with pytest.raises(ValueError, match="frac"):
        select_positions(entropy, 0.0, "top")
    with pytest.raises(ValueError, match="which"):
        select_positions(entropy, 0.1, "middle")
    with pytest.raises(ValueError, match="non-empty 1-D"):
        select_positions(torch.zeros(0), 0.1, "top")


def test_replacement_token_never_returns_the_original_or_a_banned_id():
    gen = torch.Generator().manual_seed(0)
    logits = torch.tensor([0.0, 10.0, 9.0, -5.0, 0.0])
    uniform = {replacement_token(logits, 1, "uniform", [0], gen) for _ in range(300)}
    assert uniform == {2, 3, 4}  # every allowed id, none other
    policy = [replacement_token(logits, 1, "policy", [0], gen) for _ in range(300)]
    assert policy.count(2) > 280  # the policy's most likely other token
    assert 1 not in policy and 0 not in policy
    peaked = torch.tensor([0.0, 1e4, -1e4, -1e4])  # no mass left on the allowed ids: uniform fallback
    assert {replacement_token(peaked, 1, "policy", [0], gen) for _ in range(100)} == {2, 3}
    with pytest.raises(ValueError, match="replacement"):
        replacement_token(logits, 1, "random", [], gen)
    with pytest.raises(ValueError, match="no token"):
        replacement_token(torch.zeros(2), 1, "uniform", [0], gen)


def test_study_counts_a_trial_correct_when_the_regenerated_answer_is(tokenizer, monkeypatch):
    """Stubbed entropies put the top token inside the boxed answer and the bottom token in the first step;
    the stubbed regeneration writes the original rest back. So every top trial changes the answer (wrong)
    and every bottom trial only changes a step (the grader, reading the box, says correct)."""
    prompt, completion = "Compute 1+2+4.\nAnswer:", " 1+2=3, 3+4=7. \\boxed{7}"
    ids = tokenizer(completion, add_special_tokens=False)["input_ids"]
    boxed_digit = len(ids) - 2  # ... "7", "}"
    seven, five = tokenizer.convert_tokens_to_ids(["7", "5"])
    assert ids[boxed_digit] == seven
    entropy = torch.full((len(ids),), 0.5)
    entropy[boxed_digit], entropy[1] = 2.0, 0.01  # ids[1] is the first step's "1"
    logits = torch.full((len(ids), len(tokenizer)), -1e4)
    logits[:, five] = 0.0  # the policy's only other choice everywhere: "5"

    monkeypatch.setattr(perturbation, "token_entropies", lambda model, p, c: (entropy, logits))
    prefixes = []

    def restore(model, tok, batch, max_new_tokens, temperature, eos_ids, batch_size):
        prefixes.extend(batch)
        n_prompt = len(tok(prompt, add_special_tokens=False)["input_ids"])
        return [ids[len(p) - n_prompt :] + [tok.eos_token_id] for p in batch]

    monkeypatch.setattr(perturbation, "_regenerate", restore)
    responses = [{"prompt": prompt, "completion": completion, "answer": "7"}] * 3
    model = SimpleNamespace(device=torch.device("cpu"))
    study = perturbation_study(model, tokenizer, responses, replacement="policy", n_boot=50)
    assert study["n_trials"] == {"top": 3, "bottom": 3}
    assert study["accuracy"]["top"]["value"] == 0.0 and study["accuracy"]["bottom"]["value"] == 1.0
    assert study["difference_bottom_minus_top"]["value"] == 1.0
    assert {w: a["value"] for w, a in study["control_accuracy"].items()} == {"top": 1.0, "bottom": 1.0}
    assert study["mean_entropy"] == {"top": 2.0, "bottom": pytest.approx(0.01)}
    texts = {t.which: t.text for t in study["trials"] if t.perturbed}
    assert texts == {"top": " 1+2=3, 3+4=7. \\boxed{5}", "bottom": " 5+2=3, 3+4=7. \\boxed{7}"}
    assert {t.text for t in study["trials"] if not t.perturbed} == {completion}
    assert sum(p[-1] == five for p in prefixes) == 6 and len(prefixes) == 12  # 6 perturbed, 6 controls


def test_study_runs_on_a_tiny_model_and_keeps_each_prefix(tokenizer):
    model = build_model(
        len(tokenizer), seed=0, hidden_size=16, num_layers=1, num_heads=2, eos_token_id=tokenizer.eos_token_id
    ).eval()
    responses = [
        {"prompt": "Compute 1+2+4.\nAnswer:", "completion": " 1+2=3, 3+4=7. \\boxed{7}", "answer": "7"},
        {"prompt": "Compute 3+5*2.\nAnswer:", "completion": " 5*2=10, 3+10=13. \\boxed{13}", "answer": "13"},
    ]
    study = perturbation_study(
        model, tokenizer, responses, frac=0.2, replacement="uniform", max_new_tokens=40, n_boot=20
    )
    lengths = [len(tokenizer(r["completion"], add_special_tokens=False)["input_ids"]) for r in responses]
    expected = sum(max(1, -(-len_ * 2 // 10)) for len_ in lengths)  # ceil(0.2 L) per response and set
    assert study["n_trials"] == {"top": expected, "bottom": expected}
    assert len(study["trials"]) == 4 * expected  # a control per perturbed trial
    for trial in (t for t in study["trials"] if t.perturbed):
        kept = tokenizer(responses[trial.response]["completion"], add_special_tokens=False)["input_ids"][
            : trial.position
        ]
        assert trial.text.startswith(tokenizer.decode(kept))
        assert trial.token not in tokenizer.all_special_ids
        assert (
            trial.token
            != tokenizer(responses[trial.response]["completion"], add_special_tokens=False)["input_ids"][trial.position]
        )
    for which in ("top", "bottom"):
        acc = study["accuracy"][which]
        assert 0.0 <= acc["ci_low"] <= acc["value"] <= acc["ci_high"] <= 1.0
    assert study["mean_entropy"]["top"] >= study["mean_entropy"]["bottom"]
    with pytest.raises(ValueError, match="responses"):
        perturbation_study(model, tokenizer, [])
