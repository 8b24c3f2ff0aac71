"""The testbed-properties summaries (rlvr_lib.testbed.properties): entropy ratio, target checks, seed plumbing."""

import numpy as np
import pytest

from rlvr_lib.eval import pass_at_k
from rlvr_lib.testbed import properties


def fake_result(counts, n):
    """An evaluate_by_kind-shaped result from per-problem correct counts (problem i is a trap when i is odd)."""
    rows = [{"uid": str(i), "n": n, "c": c} for i, c in enumerate(counts)]
    metrics = {f"pass@{k}": {"value": float(np.mean([pass_at_k(n, c, k) for c in counts]))} for k in range(1, n + 1)}
    metrics[f"mean@{n}"] = {"value": float(np.mean(counts)) / n, "ci_low": 0.0, "ci_high": 1.0}
    for k in range(1, n + 1):
        metrics[f"pass@{k}"].update(ci_low=0.0, ci_high=1.0)
    metrics["token_entropy"] = {"value": 0.2}
    by_kind = {"plain": {"n_problems": 1, f"mean@{n}": {"value": 0.5}, f"pass@{n}": {"value": 1.0}}}
    return {"per_problem": rows, "metrics": metrics, "settings": {"n": n}, "by_kind": by_kind}


def history(entropies):
    return [{"step": i + 1, "entropy/mean": e, "accuracy": 0.5} for i, e in enumerate(entropies)]


def test_entropy_ratio_is_last_window_over_first_batch():
    rows = history([0.2, 0.15, 0.1, 0.08, 0.06, 0.04])
    rows.insert(2, {"step": 99, "loss": 1.0})  # rows without rollout metrics are ignored
    out = properties.entropy_ratio(rows, last=2)
    assert out["rollout_batches"] == 6
    assert out["entropy_ratio"] == pytest.approx(0.05 / 0.2)
    assert out["entropy_last"] == pytest.approx(0.05)
    with pytest.raises(ValueError, match="only 6 rollout batches"):
        properties.entropy_ratio(rows, last=7)


def test_summarise_checks_every_target_per_seed():
    n = 4
    base = fake_result([1, 0, 0, 2], n)  # mean@4 = 0.1875, pass@4 = 0.5
    runs = {0: fake_result([4, 0, 0, 4], n), 1: fake_result([4, 0, 1, 3], n)}  # both gain >= 0.15
    histories = {0: history([0.2] + [0.05] * 5), 1: history([0.2] + [0.06] * 5)}
    summary = properties.summarise(base, runs, histories, n=n, last=5, n_boot=200)
    targets = {name: t["met"] for name, t in summary["targets"].items()}
    assert targets["base_mean"] and targets["base_pass"]
    assert targets["entropy_ratio"]  # 0.25 and 0.30
    assert targets["mean_gain"]
    assert summary["grpo_per_seed"][0]["mean_gain"] == pytest.approx(0.5 - 0.1875)
    assert summary["grpo_per_seed"][1]["pass_gain"] == pytest.approx(0.75 - 0.5)
    assert summary["grpo"]["mean_gain"]["value"] == pytest.approx((0.5 + 0.5) / 2 - 0.1875)
    assert not targets["sharpening"]  # pass@4 rose by 0.125 on average
    assert len(summary["pass_at_k"]["seed1"]) == n
    # one seed above the ratio target fails the every-seed rule
    histories[1] = history([0.2] + [0.08] * 5)
    summary = properties.summarise(base, runs, histories, n=n, last=5, n_boot=200)
    assert not summary["targets"]["entropy_ratio"]["met"]


def test_summarise_sees_sharpening_and_the_crossing_k():
    n = 4
    base = fake_result([1, 1, 1, 1], n)  # every problem sometimes solved: pass@4 = 1
    runs = {0: fake_result([4, 4, 0, 0], n)}  # mean up (0.25 -> 0.5), pass@4 down (1 -> 0.5)
    summary = properties.summarise(base, runs, {0: history([0.2, 0.1])}, n=n, last=1, n_boot=100)
    assert summary["targets"]["sharpening"]["met"]
    # base (c = 1 of 4) pass@k = 0.25, 0.5, 0.75, 1; GRPO's = 0.5 at every k: first strictly below at k = 3
    assert summary["first_k_all_seeds_below_base"] == 3
    text = properties.properties_markdown(summary)
    assert "| sharpening |" in text and "Smallest k" in text


def test_summarise_refuses_results_on_other_problems():
    base = fake_result([1, 0], 4)
    other = fake_result([1, 0, 3], 4)
    with pytest.raises(ValueError, match="seed 0: evaluated on other problems"):
        properties.summarise(base, {0: other}, {0: history([0.2, 0.1])}, n=4, last=1)


def test_problem_kind():
    assert properties.problem_kind("Compute 3+5*2+7.\nAnswer:") == "trap"
    assert properties.problem_kind("Compute 3+5+2.\nAnswer:") == "plain"
