"""The stratified comparison of two arms: its supremum against mpmath, its exact size, its limits, its errors."""

import json
import pathlib
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpinfer import Release, TulapReleaser, binom_strata_test, prop_test
from dpinfer.inference.strata._arguments import stratum_list
from dpinfer.inference.strata._noise_sum import cell_allowance, noise_law, upper_tails
from dpinfer.inference.strata._nuisance import bound, joint_pmf, walk_tails

REFERENCE = json.loads((pathlib.Path(__file__).parents[2] / "reference" / "strata_values.json").read_text())["strata"]


def _release(value, n, epsilon):
    return Release(value=value, mechanism="tulap", epsilon=epsilon, delta=0.0, sensitivity=1, n=n, kind="count")


def _reference_pairs():
    c = REFERENCE
    return [(_release(a, n, e1), _release(b, n, e2)) for a, b, n, (e1, e2) in zip(c["z1"], c["z2"], c["n"], c["epsilon"])]


def _walk(pairs, t=None):
    strata = stratum_list(pairs, "t")
    law = noise_law([s for pair in strata for s in pair])
    ns = [a.noise.n for a, _ in strata]
    if t is None:
        t = sum(a.value - b.value for a, b in strata) - cell_allowance(law.noises)
    big_n = sum(ns)
    h = upper_tails(law, t, np.arange(-2 * big_n, 2 * big_n + 1))
    return walk_tails(h, big_n), ns, law


def _lam(theta, delta):
    r = 2 * theta * (1 - theta - delta) if delta >= 0 else 2 * (theta + delta) * (1 - theta)
    return r / (1 - abs(delta))


@pytest.mark.parametrize("row", REFERENCE["points"], ids=lambda r: f"delta={r['delta']}")
def test_tail_at_a_nuisance_point_matches_direct_summation(row):
    # tests/reference/make_strata.py sums over the four arms' counts and noise cells directly
    walk, ns, _ = _walk(_reference_pairs())
    delta = row["delta"]
    joint = joint_pmf(ns, delta, [_lam(t, delta) for t in row["theta2"]])
    sign = 0 if delta == 0 else int(np.sign(delta))
    g = walk[:, sum(ns) + sign * np.arange(joint.shape[0])].T
    assert float(np.sum(joint * g)) == pytest.approx(row["tail"], abs=1e-10)


@pytest.mark.parametrize("row", REFERENCE["sups"], ids=lambda r: f"delta={r['delta']}")
def test_supremum_over_the_box_matches_a_searched_supremum(row):
    walk, ns, _ = _walk(_reference_pairs())
    upper, located = bound(walk, ns, row["delta"], [tuple(b) for b in row["box"]])
    assert located == pytest.approx(row["sup"], abs=1e-10)  # the closed-form maximiser is the searched one
    # the certified bound: never below the supremum; above it only where the conditional tail is
    # not monotone in the number of discordant pairs (with delta != 0 at these tiny n)
    assert row["sup"] - 1e-12 <= upper <= row["sup"] + (1e-10 if row["delta"] == 0 else 5e-4)


def test_public_pvalue_is_the_bound_over_the_ump_boxes_plus_gamma():
    from dpinfer import binom_ump_ci

    pairs = _reference_pairs()
    res = binom_strata_test(pairs, alternative="greater", gamma=0.002)
    walk, ns, _ = _walk(pairs)
    level = (1 - 0.002) ** 0.5
    boxes = [tuple(binom_ump_ci(b, confidence_level=level)) for _, b in pairs]
    assert res.pvalue == pytest.approx(bound(walk, ns, 0.0, boxes)[0] + 0.002, abs=1e-15)


def _exact_size(pairs, t, delta, theta1, theta2):
    """P(T >= t) at rates (theta1_s, theta2_s), summed over every stratum's counts directly."""
    strata = stratum_list(pairs, "t")
    law = noise_law([s for pair in strata for s in pair])
    ns = [a.noise.n for a, _ in strata]
    y = np.zeros(1, dtype=np.int64)
    p = np.ones(1)
    for n, a, b in zip(ns, theta1, theta2):
        x = np.arange(n + 1)
        diff = (x[:, None] - x[None, :]).ravel()
        prob = (stats.binom.pmf(x, n, a)[:, None] * stats.binom.pmf(x, n, b)[None, :]).ravel()
        y = (y[:, None] + diff[None, :]).ravel()
        p = (p[:, None] * prob[None, :]).ravel()
    return float(p @ upper_tails(law, t, y))


def test_exact_size_over_a_nuisance_grid_is_at_most_alpha():
    # gamma = 0 (no box): the p-value is a decreasing function of T alone, so the test rejects
    # exactly when T >= t*, and its size at any rates is P(T >= t*), summed here directly.
    pairs = [(_release(2.5, 4, 1.0), _release(1.5, 4, 1.0)), (_release(3.5, 6, 2.0), _release(2.5, 6, 0.8))]
    alpha = 0.05
    for delta in (0.0, 0.2):
        lo, hi = Fraction(-20), Fraction(20)
        for _ in range(60):
            mid = (lo + hi) / 2
            walk, ns, _ = _walk(pairs, mid)
            if bound(walk, ns, delta, [(0.0, 1.0)] * 2)[0] <= alpha:
                hi = mid
            else:
                lo = mid
        worst = 0.0
        grid = np.linspace(0.02, 0.98, 13)
        for a in grid:
            for b in grid:
                if a + delta > 1:
                    continue
                for shrink in (0.0, 0.1):  # on the null's boundary line and inside the null
                    t1 = [max(a + delta - shrink, 0.0), max(b + delta - shrink, 0.0)]
                    worst = max(worst, _exact_size(pairs, hi, delta, t1, [a, b]))
        assert worst <= alpha + 1e-12
        assert worst > 0.8 * alpha  # and the search is not vacuous: the size comes near alpha


def test_interval_ends_are_where_the_one_sided_pvalues_cross_the_level():
    pairs = [(TulapReleaser(epsilon=1.0).release(x1, n, rng=2 * s), TulapReleaser(epsilon=1.0).release(x2, n, rng=2 * s + 1))
             for s, (x1, x2, n) in enumerate([(12, 7, 20), (15, 9, 25)])]
    res = binom_strata_test(pairs, confidence_level=0.9)
    low, high = res.conf_int
    assert binom_strata_test(pairs, low, alternative="greater").pvalue == pytest.approx(0.05, abs=1e-6)
    assert binom_strata_test(pairs, high, alternative="less").pvalue == pytest.approx(0.05, abs=1e-6)
    assert low < res.estimate < high


def test_non_private_limit_agrees_with_mantelhaen_test_and_statsmodels():
    # R 4.x: x <- array(c(80, 70, 70, 80, 66, 52, 84, 98, 95, 85, 55, 65), dim = c(2, 2, 3))
    #        mantelhaen.test(x, correct = FALSE): X-squared = 5.2708918, p-value = 0.0216849,
    #        common odds ratio 1.365774941; alternative = "greater": p-value = 0.01084245041
    from statsmodels.stats.contingency_tables import StratifiedTable

    counts = [(80, 70, 150), (66, 52, 150), (95, 85, 150)]
    pairs = [(TulapReleaser(epsilon=30.0).release(x1, n, rng=3 * s), TulapReleaser(epsilon=30.0).release(x2, n, rng=3 * s + 1))
             for s, (x1, x2, n) in enumerate(counts)]
    res = binom_strata_test(pairs, alternative="greater", gamma=0.0)
    table = StratifiedTable([np.array([[x1, n - x1], [x2, n - x2]]) for x1, x2, n in counts])
    assert table.oddsratio_pooled == pytest.approx(1.365774941, rel=1e-8)
    mh_rd = sum(x1 - x2 for x1, x2, _ in counts) / 450
    assert np.sign(res.estimate) == np.sign(np.log(table.oddsratio_pooled)) == 1
    assert res.estimate == pytest.approx(mh_rd, abs=3 / 450)  # three uniforms of the releases, each < 1/2
    # the exact test and the chi-squared approximation: same decision at 5%, p-values within 35%
    assert res.pvalue < 0.05
    assert res.pvalue == pytest.approx(0.01084245041, rel=0.35)


def test_prop_test_routes_arm_pairs_and_prints_each_stratum_privacy():
    pairs = [(TulapReleaser(epsilon=e).release(x1, n, rng=2 * s), TulapReleaser(epsilon=e).release(x2, n, rng=2 * s + 1))
             for s, ((x1, x2, n), e) in enumerate(zip([(12, 7, 20), (15, 9, 25), (9, 8, 15)], (0.5, 1.0, 2.0)))]
    res = prop_test(pairs)
    assert res == binom_strata_test(pairs)
    assert "stratum 1 arm 1: epsilon = 0.5" in res.note and "stratum 3 arm 2: epsilon = 2" in res.note
    assert "common risk difference" in str(res)
    with pytest.raises(ValueError, match="`p0` does not apply to strata"):
        prop_test(pairs, 0.3)
    with pytest.raises(ValueError, match="compares strata on the risk difference only"):
        prop_test(pairs, effect="ratio")
    with pytest.raises(ValueError, match="`pooled`=True pools sites"):
        prop_test(pairs, pooled=True)


def test_refusals_name_the_argument_and_the_reason():
    a = TulapReleaser(epsilon=1.0).release(10, 30, rng=1)
    b = TulapReleaser(epsilon=1.0).release(10, 31, rng=2)
    with pytest.raises(ValueError, match=r"`releases\[0\]` has arms of n = 30 and 31; .* equal arms"):
        binom_strata_test([(a, b)])
    with pytest.raises(TypeError, match=r"`releases\[1\]` must be a pair"):
        binom_strata_test([(a, a), a])
    with pytest.raises(ValueError, match="at least one stratum"):
        binom_strata_test([])
    with pytest.raises(ValueError, match=r"`margin` must be a common risk difference in \(-1, 1\); got 1.0"):
        binom_strata_test([(a, a)], 1.0)
    with pytest.raises(ValueError, match=r"`gamma` must lie in \[0, \(1 - confidence_level\)/2\)"):
        binom_strata_test([(a, a)], gamma=0.03)
    big = TulapReleaser(epsilon=1.0).release(400, 1001, rng=3)
    with pytest.raises(ValueError, match="N = 2002 trials per arm; .* N <= 2000 is taken"):
        binom_strata_test([(big, big), (big, big)])
    from dpinfer import LaplaceReleaser

    lap = LaplaceReleaser(epsilon=1.0, sensitivity=1.0).count(10, 30, rng=4)
    with pytest.raises(ValueError, match=r"`releases\[0\]\[1\]` is a Laplace release"):
        binom_strata_test([(a, lap)])


@pytest.mark.parametrize("x1, x2, n, epsilon", [(31, 20, 50, 1.0), (60, 45, 100, 2.0)])
def test_one_stratum_matches_the_two_arm_tests_certified_supremum(x1, x2, n, epsilon):
    # binom2_ump_test (difference ordering; equal arms, so the same statistic) finds its supremum
    # over the null line numerically and certifies it: an independent implementation
    from dpinfer import binom2_ump_test

    a, b = (TulapReleaser(epsilon=epsilon).release(x1, n, rng=1), TulapReleaser(epsilon=epsilon).release(x2, n, rng=2))
    walk, ns, _ = _walk([(a, b)])
    for margin in (0.0, 0.1, -0.15):
        upper, located = bound(walk, ns, margin, [(0.0, 1.0)])
        expected = binom2_ump_test(a, b, margin=margin, alternative="greater", statistic="difference").pvalue
        assert located == pytest.approx(expected, rel=1e-9)
        assert expected * (1 - 1e-9) <= upper <= expected * 1.06  # the bound's measured excess: at most 5.5%
        assert binom_strata_test([(a, b)], margin, alternative="greater", gamma=0.0).pvalue == upper
