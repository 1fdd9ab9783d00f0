"""The exact two-arm test for two Laplace releases (two_arm._laplace_arms).

Expected values: tests/reference/two_arm_laplace_values.json (mpmath, 30 digits, made by
tests/reference/make_two_arm_laplace.py without importing dpinfer: direct summation over the
counts and over the discrete noise term by term at the coarse grid h = 1/8, and quadrature of
the continuous Laplace difference); brute-force sums over the noise written here; exact size
and coverage computed by enumeration of (X1, X2) and the noise law.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dpinfer import LaplaceReleaser, TulapReleaser, binom2_ump_ci, binom2_ump_power, binom2_ump_test, prop_test
from dpinfer.inference.two_arm._interval import _interval
from dpinfer.inference.two_arm._laplace_arms import (
    _continuous_tail,
    _laplace_arm,
    _LaplaceTailPlan,
    _lattice_tail,
)
from dpinfer.inference.two_arm._supremum import _null, _power, _pvalues, _sup_tail

REF = json.loads((Path(__file__).parents[2] / "reference" / "two_arm_laplace_values.json").read_text())
COARSE = REF["grid_bits"]


def _coarse_arms(case):
    return _laplace_arm(case["n1"], case["epsilon1"], COARSE), _laplace_arm(case["n2"], case["epsilon2"], COARSE)


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_pvalues_against_mpmath_on_a_coarse_grid(case, alternative):
    arm1, arm2 = _coarse_arms(case)
    null = _null(case["effect"], case["margin"])
    t = case["z1"] / case["n1"] - null.coefficient * case["z2"] / case["n2"]
    ours = _pvalues(arm1, arm2, null, t, alternative)[0]
    expected = float(case[alternative])
    if case["effect"] == "difference":  # exact sums: the grid law itself
        assert ours == pytest.approx(expected, rel=1e-10)
    else:  # continuous tail plus the bound: valid, and within twice the bound of the grid law's
        bound = arm1.kolmogorov + arm2.kolmogorov
        assert expected <= ours <= min(1.0, expected + 2 * bound * (2 if alternative == "two-sided" else 1))


def _brute_lattice_tail(s, al, lam_a, be, lam_b, reach=700):
    d = np.arange(-reach, reach + 1)
    pa = np.exp(-lam_a * np.abs(d)) * (-math.expm1(-lam_a)) / (1 + math.exp(-lam_a))
    pb = np.exp(-lam_b * np.abs(d)) * (-math.expm1(-lam_b)) / (1 + math.exp(-lam_b))
    w = al * d[:, None] - be * d[None, :]
    return np.array([float(np.sum(np.outer(pa, pb)[w >= x])) for x in s])


@pytest.mark.parametrize("al, lam_a, be, lam_b", [(1, 0.1, 1, 0.1), (3, 0.08, 2, 0.15), (1, 0.2, 4, 0.05),
                                                  (5, 0.3, 7, 0.25)])
def test_residue_class_sums_against_brute_force(al, lam_a, be, lam_b):
    s = np.array([-40, -7, -1, 0, 1, 2, 5, 13, 60], dtype=np.int64)
    np.testing.assert_allclose(_lattice_tail(s, al, lam_a, be, lam_b),
                               _brute_lattice_tail(s, al, lam_a, be, lam_b), rtol=1e-12, atol=1e-300)


def test_residue_class_sums_keep_relative_precision_far_out():
    # P(D_a - D_b >= s) for equal rates r: sum_k P(D_a - D_b = k), with the pmf of the
    # difference (1 - r)^2 / (1 + r)^2 * r^k * (1 + k (1 - r^2) / (1 + r^2))... checked against
    # the brute force at moderate s and against monotone geometric decay far out
    lam = 0.05
    far = _lattice_tail(np.array([2000, 4000], dtype=np.int64), 1, lam, 1, lam)
    assert 0 < far[1] < far[0] < 1e-40
    # the tail beyond s decays like s r^s: log ratio over 2000 steps within 1% of its asymptote
    assert math.log(far[0] / far[1]) == pytest.approx(2000 * lam - math.log(2.0), rel=1e-2)


@pytest.mark.parametrize("row", REF["difference_tails"], ids=lambda r: f"{r['y']}-{r['scale_a']}-{r['scale_b']}")
def test_continuous_difference_tail_against_quadrature(row):
    got = float(_continuous_tail(np.array(row["y"]), row["scale_a"], row["scale_b"]))
    assert got == pytest.approx(float(row["tail"]), rel=1e-12)


def test_grid_law_is_within_the_bound_of_the_continuous_law_at_the_real_grid():
    # g = 24 (the releaser's grid at n = 50, epsilon = 1): the exact sums against the
    # continuous Laplace tail, differing by at most the two arms' Kolmogorov distances
    arm1, arm2 = _laplace_arm(50, 1.0), _laplace_arm(50, 1.0)
    assert arm1.grid_bits == 24
    bound = arm1.kolmogorov + arm2.kolmogorov
    assert bound == pytest.approx(2 * (1.0 * 2.0**-24) / 4, rel=1e-6)
    theta = np.linspace(0.05, 0.95, 7)
    for t in (-0.3, 0.0, 0.07, 0.4):
        exact = _LaplaceTailPlan(arm1, arm2, 1 / 50, -1 / 50, t)(theta, theta[::-1])
        x1, x2 = np.arange(51)[:, None], np.arange(51)[None, :]
        cont = _continuous_tail(t - x1 / 50 + x2 / 50, arm1.scale / 50, arm2.scale / 50)
        b1 = stats.binom.pmf(np.arange(51)[None, :], 50, theta[:, None])
        b2 = stats.binom.pmf(np.arange(51)[None, :], 50, theta[::-1][:, None])
        continuous = np.einsum("mi,ij,mj->m", b1, cont, b2)
        assert np.all(np.abs(exact - continuous) <= bound)


def test_the_ratio_tail_is_the_continuous_one_plus_the_bound():
    arm1, arm2 = _laplace_arm(5, 1.0, COARSE), _laplace_arm(6, 1.0, COARSE)
    plan = _LaplaceTailPlan(arm1, arm2, 1 / 5, -1.5 / 6, 0.1)
    assert plan.bound == arm1.kolmogorov + arm2.kolmogorov > 0


def _exact_sizes(arm1, arm2, null, alpha, alternative, nus, reach):
    """P(reject) at theta1 = theta2 = nu, by enumeration of (X1, X2) and the (coarse) noise.

    The p-value depends on (z1, z2) through t only: it is tabulated once on the distinct
    statistics and summed against the law of the pair at each nu.
    """
    h = 2.0**-COARSE
    d = np.arange(-reach, reach + 1)
    pmf = [np.exp(-a.lam * np.abs(d)) * (-math.expm1(-a.lam)) / (1 + math.exp(-a.lam)) for a in (arm1, arm2)]
    n1, n2 = arm1.n, arm2.n
    z1 = (np.arange(n1 + 1)[:, None] + h * d[None, :]).ravel()
    z2 = (np.arange(n2 + 1)[:, None] + h * d[None, :]).ravel()
    t = np.round((z1[:, None] / n1 - null.coefficient * z2[None, :] / n2) * 2**30) / 2**30
    values, inverse = np.unique(t, return_inverse=True)
    p = np.array([_pvalues(arm1, arm2, null, float(v), alternative, points=17)[0] for v in values])
    reject = (p <= alpha)[inverse.reshape(t.shape)]
    sizes = []
    for nu in nus:
        w1 = (stats.binom.pmf(np.arange(n1 + 1), n1, nu)[:, None] * pmf[0][None, :]).ravel()
        w2 = (stats.binom.pmf(np.arange(n2 + 1), n2, nu)[:, None] * pmf[1][None, :]).ravel()
        sizes.append(float(w1 @ reject @ w2))
    return sizes


@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
def test_exact_size_is_at_most_alpha_on_a_nuisance_grid(alternative):
    # epsilon 3 on the grid h = 1/8: r = exp(-3/8), r^100 = exp(-37.5): the mass left out < 1e-16
    arm1, arm2 = _laplace_arm(4, 3.0, COARSE), _laplace_arm(4, 3.0, COARSE)
    null = _null("difference", 0.0)
    sizes = _exact_sizes(arm1, arm2, null, 0.1, alternative, (0.1, 0.3, 0.5, 0.8), reach=100)
    assert max(sizes) <= 0.1 + 1e-12
    assert max(sizes) > 0.03  # not vacuous


def test_size_by_the_critical_value_is_at_most_alpha():
    # the exact power at the null (the size of the test through its critical value)
    arm1, arm2 = _laplace_arm(30, 1.0), _laplace_arm(30, 1.0)
    null = _null("difference", 0.0)
    nu = np.linspace(0.0, 1.0, 41)
    for alternative in ("greater", "less", "two-sided"):
        size = _power(arm1, arm2, null, nu, nu, 0.05, alternative)
        assert np.max(size) <= 0.05 + 1e-12
        assert np.max(size) > 0.02  # not vacuous


def test_coverage_of_the_difference_interval_at_least_the_level():
    # exact coverage at small n on the coarse grid: sum over (X1, X2) and the noise of the
    # indicator that the interval holds the true difference
    arm1, arm2 = _laplace_arm(3, 4.0, COARSE), _laplace_arm(3, 4.0, COARSE)
    h = 2.0**-COARSE
    reach = 80  # r^80 = exp(-40): the mass left out is below 1e-17
    d = np.arange(-reach, reach + 1)
    pmf = [np.exp(-a.lam * np.abs(d)) * (-math.expm1(-a.lam)) / (1 + math.exp(-a.lam)) for a in (arm1, arm2)]
    z = (np.arange(4)[:, None] + h * d[None, :]).ravel()
    # the interval is a function of (z1, z2) through t = (z1 - z2) / 3 only: tabulate on t
    diff = np.round((z[:, None] - z[None, :]) * 2**COARSE).astype(int)
    levels = np.unique(diff)
    ends = {int(k): _interval(arm1, arm2, k * h, 0.0, "difference", 0.8, "two-sided") for k in levels}
    for th1, th2 in [(0.2, 0.2), (0.5, 0.3), (0.9, 0.4), (0.1, 0.7)]:
        w1 = (stats.binom.pmf(np.arange(4), 3, th1)[:, None] * pmf[0][None, :]).ravel()
        w2 = (stats.binom.pmf(np.arange(4), 3, th2)[:, None] * pmf[1][None, :]).ravel()
        covered = np.vectorize(lambda k: ends[k][0] <= th1 - th2 <= ends[k][1])(diff)
        assert float(np.sum(np.outer(w1, w2) * covered)) >= 0.8 - 1e-12


def test_releases_as_counts_and_proportions_give_one_answer():
    rel = LaplaceReleaser(epsilon=1.0)
    counts = rel.count(41, 60, rng=1), rel.count(27, 60, rng=2)
    props = rel.proportion(41, 60, rng=1), rel.proportion(27, 60, rng=2)
    a, b = binom2_ump_test(*counts), binom2_ump_test(*props)
    assert a.pvalue == b.pvalue and a.mechanism == "laplace"
    assert (a.conf_int.low, a.conf_int.high) == pytest.approx((b.conf_int.low, b.conf_int.high), abs=1e-8)
    numbers = binom2_ump_test(counts[0].value, 60, counts[1].value, 60, epsilon=1.0, mechanism="laplace")
    assert numbers.pvalue == a.pvalue
    assert prop_test(*props).pvalue == a.pvalue


def test_the_p_value_of_a_release_is_the_lattice_tail_at_it():
    # the rounding allowance never crosses a lattice point: the p-value equals the tail at
    # the exact statistic computed from the integers of the releases
    rel = LaplaceReleaser(epsilon=1.0)
    a, b = rel.count(30, 50, rng=5), rel.count(22, 50, rng=6)
    arm = _laplace_arm(50, 1.0)
    k1, k2 = Fraction(a.value) * 2**24, Fraction(b.value) * 2**24
    assert k1.denominator == 1 and k2.denominator == 1
    t_exact = (k1 - k2) / (50 * 2**24)
    # just below the exact statistic by half a lattice step: the same cut as the exact one
    t_below = float(t_exact - Fraction(1, 2 * 50 * 2**24))
    null = _null("difference", 0.0)
    assert binom2_ump_test(a, b, alternative="greater").pvalue == _sup_tail(arm, arm, null, t_below, True,
                                                                          certify=True).value


def test_ratio_interval_and_power():
    rel = LaplaceReleaser(epsilon=1.0)
    a, b = rel.count(41, 60, rng=1), rel.count(27, 60, rng=2)
    res = binom2_ump_test(a, b, effect="ratio", margin=1.2)
    assert "continuous Laplace law plus" in res.note
    ci = binom2_ump_ci(a, b, effect="ratio")
    assert ci.low < res.estimate < ci.high
    power = binom2_ump_power(0.6, 0.4, 60, 60, epsilon=1.0, mechanism="laplace")
    tulap = binom2_ump_power(0.6, 0.4, 60, 60, epsilon=1.0)
    assert 0.3 < power < 0.7 and abs(power - tulap) < 0.02  # the noises have variance 2 and 1.92


@pytest.mark.parametrize("call, error, match", [
    (lambda t, l: binom2_ump_test(t, l), ValueError, "two releases of one mechanism"),
    (lambda t, l: binom2_ump_test(l, l, mechanism="tulap"), ValueError, "contradicts"),
    (lambda t, l: binom2_ump_test(3.25, 10, 4.25, 10, epsilon=1.0, delta=0.1, mechanism="laplace"), ValueError,
     "`delta` must be 0"),
    (lambda t, l: binom2_ump_test(3.25, 10, 4.25, 10, epsilon=1.0, sensitivity=2, mechanism="laplace"), ValueError,
     "`sensitivity` must be 1"),
    (lambda t, l: binom2_ump_test(3.25, 10, 4.25, 10, epsilon=1.0, mechanism="gauss"), ValueError, "`mechanism`"),
    (lambda t, l: binom2_ump_test(3.25, 3000, 4.25, 10, epsilon=1.0, mechanism="laplace"), ValueError,
     "at most 2000"),
    (lambda t, l: binom2_ump_power(0.5, 0.4, 10, 10, epsilon=1.0, delta=0.1, mechanism="laplace"), ValueError,
     "`delta` must be 0"),
    (lambda t, l: binom2_ump_test(l, l, statistic="score"), ValueError, "ordered by the difference"),
    (lambda t, l: binom2_ump_power(0.5, 0.4, 10, 10, epsilon=1.0, statistic="score", mechanism="laplace"),
     ValueError, "ordered by the difference"),
])
def test_refusals(call, error, match):
    tulap = TulapReleaser(1.0).release(4, 10, rng=1)
    laplace = LaplaceReleaser(1.0).count(4, 10, rng=1)
    with pytest.raises(error, match=match):
        call(tulap, laplace)
