"""pass@k against brute-force enumeration, its edge cases, the k grid, and bootstrap intervals."""

import itertools

import numpy as np
import pytest

from rlvr_lib.eval import bootstrap_ci, k_values, pass_at_k


def _brute_force(n: int, c: int, k: int) -> float:
    """Fraction of all k-subsets of n samples (the first c correct) that hold a correct sample."""
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(i < c for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_matches_enumeration_over_all_subsets(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(_brute_force(n, c, k), abs=1e-12)


def test_edge_cases():
    assert pass_at_k(16, 0, 4) == 0.0
    assert pass_at_k(16, 16, 4) == 1.0
    assert pass_at_k(16, 13, 4) == 1.0  # n - c = 3 < k
    assert pass_at_k(16, 5, 1) == pytest.approx(5 / 16)


def test_large_n_is_stable():
    value = pass_at_k(1024, 1, 256)
    assert value == pytest.approx(256 / 1024)
    assert 0.0 <= pass_at_k(1024, 3, 512) <= 1.0


@pytest.mark.parametrize(
    "n, c, k, bad",
    [
        (4, 1, 5, "k=5 exceeds"),
        (4, 5, 1, "c=5 exceeds"),
        (-1, 0, 1, "n must"),
        (4, -1, 1, "c must"),
        (4, 1, -2, "k must"),
        (4, 1, 0, "k must"),
        (4.0, 1, 1, "n must"),
    ],
)
def test_invalid_arguments(n, c, k, bad):
    with pytest.raises(ValueError, match=bad):
        pass_at_k(n, c, k)


def test_k_values():
    assert k_values(1) == [1]
    assert k_values(16) == [1, 2, 4, 8, 16]
    assert k_values(12) == [1, 2, 4, 8, 12]
    with pytest.raises(ValueError, match="n"):
        k_values(0)


def test_bootstrap_contains_estimate_and_narrows():
    rng = np.random.default_rng(0)
    small = rng.random(20)
    large = rng.random(2000)
    lo_s, hi_s = bootstrap_ci(small, seed=1)
    lo_l, hi_l = bootstrap_ci(large, seed=1)
    assert lo_s <= small.mean() <= hi_s
    assert lo_l <= large.mean() <= hi_l
    assert hi_l - lo_l < (hi_s - lo_s) / 3


def test_bootstrap_is_seeded_and_takes_a_statistic():
    values = np.arange(50.0)
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)
    lo, hi = bootstrap_ci(values, stat=np.median, n_boot=500, level=0.9)
    assert lo <= np.median(values) <= hi
    assert bootstrap_ci([0.5], n_boot=10) == (0.5, 0.5)


@pytest.mark.parametrize(
    "kwargs, bad",
    [
        ({"values_per_problem": []}, "values_per_problem"),
        ({"values_per_problem": [1.0], "n_boot": 0}, "n_boot"),
        ({"values_per_problem": [1.0], "level": 1.0}, "level"),
    ],
)
def test_bootstrap_invalid_arguments(kwargs, bad):
    with pytest.raises(ValueError, match=bad):
        bootstrap_ci(**kwargs)


def test_crossed_bootstrap_hand_cases():
    from rlvr_lib.eval import crossed_bootstrap_ci

    assert crossed_bootstrap_ci(np.full((3, 5), 0.4), n_boot=50) == pytest.approx((0.4, 0.4))
    # seeds disagree completely, problems agree: replicate means are 0, 1/2 or 1 with P(0) = P(1) = 1/4
    low, high = crossed_bootstrap_ci(np.array([[0.0] * 6, [1.0] * 6]), n_boot=4000, seed=1)
    assert (low, high) == (0.0, 1.0)
    # one seed: the problem bootstrap, inside the range of the values and around their mean
    values = np.arange(10, dtype=float)[None, :]
    low, high = crossed_bootstrap_ci(values, n_boot=2000)
    assert 0 < low < 4.5 < high < 9


def test_crossed_bootstrap_widens_with_seed_spread():
    from rlvr_lib.eval import crossed_bootstrap_ci

    rng = np.random.default_rng(0)
    problems = rng.random(40)
    same = np.stack([problems] * 3)
    spread = same + np.array([[-0.2], [0.0], [0.2]])
    low_same, high_same = crossed_bootstrap_ci(same, n_boot=2000)
    low_spread, high_spread = crossed_bootstrap_ci(spread, n_boot=2000)
    assert high_spread - low_spread > high_same - low_same


@pytest.mark.parametrize("bad", [np.zeros((0, 3)), np.zeros(4), np.zeros((2, 0))])
def test_crossed_bootstrap_rejects_bad_tables(bad):
    from rlvr_lib.eval import crossed_bootstrap_ci

    with pytest.raises(ValueError, match="seeds, problems"):
        crossed_bootstrap_ci(bad)


def test_combine_seeds_means_and_checks():
    from rlvr_lib.eval import combine_seeds

    def result(counts, uids=None):
        rows = [
            {"uid": u, "n": 4, "c": c, "n_formatted": 4, "mean_length": 10.0, "mean_entropy": 0.5}
            for u, c in zip(uids or [f"p{i}" for i in range(len(counts))], counts, strict=False)
        ]
        return {"settings": {"n": 4, "ks": [1, 4]}, "per_problem": rows, "n_problems": len(rows)}

    combined = combine_seeds([result([4, 0]), result([2, 2])], n_boot=100)
    assert combined["mean@4"]["value"] == pytest.approx((0.5 + 0.5) / 2)
    assert combined["pass@4"]["value"] == pytest.approx((0.5 + 1.0) / 2)
    assert combined["pass@1"]["n_seeds"] == 2
    with pytest.raises(ValueError, match="other problems"):
        combine_seeds([result([4, 0]), result([4, 0], uids=["q0", "q1"])])
