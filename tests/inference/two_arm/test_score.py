"""The score ordering of the two-arm test (two_arm._score, statistic='score').

Expected values: tests/reference/two_arm_score_values.json (mpmath, 40 digits, direct
enumeration over the counts and the integer noises, quadrature over the uniform parts, its own
restricted MLE by bisection; made by tests/reference/make_two_arm_score.py without importing
dpinfer); the non-private limit against scipy.stats.barnard_exact (pooled=True).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dpinfer import binom2_ump_ci, binom2_ump_power, binom2_ump_test
from dpinfer.inference.two_arm._law import _arm
from dpinfer.inference.two_arm._score import (
    _closure, _noise_variance, _Observed, _order, _raw_score, _restricted_difference)
from dpinfer.inference.two_arm._critical import _critical_score, _exact_power
from dpinfer.inference.two_arm._supremum import _effective, _null, _on_line, _plan, _pvalues

REF = json.loads((Path(__file__).parents[2] / "reference" / "two_arm_score_values.json").read_text())


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("upper", [True, False])
def test_tail_against_mpmath_enumeration(case, upper):
    arm1, arm2 = _arm(case["n1"], case["epsilon1"], 0.0, 1), _arm(case["n2"], case["epsilon2"], 0.0, 1)
    null = _null(case["effect"], case["margin"])
    cut = _effective(arm1, arm2, null, _Observed(case["z1"], case["z2"]), upper)
    tail = float(_plan(arm1, arm2, null, cut, upper)(case["theta1"], case["theta2"])[0])
    assert tail == pytest.approx(float(case["greater" if upper else "less"]), rel=1e-10)


# tables whose ties in Barnard's z all have a linear statistic at least as extreme (so the
# tie-break by the difference keeps every tie in the tail, as barnard_exact's ">=" does)
TABLES = [(7, 12, 3, 10), (14, 20, 8, 18), (30, 40, 21, 40), (10, 10, 3, 12), (2, 15, 9, 14)]


@pytest.mark.parametrize("x1, n1, x2, n2", TABLES)
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_non_private_limit_is_barnard_exact(x1, n1, x2, n2, alternative):
    # epsilon = 50: D = 0 but for 4e-22 of the mass; releases at z_i = x_i -+ (1/2 - 1e-6)
    # put the linear statistic at the least extreme end of the observed cell, so every tie in
    # g is in the tail (G = 1) and the p-value is sup P(g >= g_obs): Barnard's test
    e = 0.5 - 1e-6
    z1, z2 = (x1 - e, x2 + e) if alternative == "greater" else (x1 + e, x2 - e)
    p = binom2_ump_test([z1], n1, [z2], n2, epsilon=50.0, alternative=alternative, statistic="score")[0]
    table = [[x1, x2], [n1 - x1, n2 - x2]]
    expected = stats.barnard_exact(table, alternative=alternative, pooled=True, n=256).pvalue
    assert p == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_the_tie_break_is_by_the_difference():
    # at n = 15, g(0, 2) = g(5, 9) exactly; with the release of (5, 9) the tie (0, 2) has the
    # larger difference, so it leaves the lower tail: the p-value is below barnard_exact's
    e = 0.5 - 1e-6
    p = binom2_ump_test([5 + e], 15, [9 - e], 15, epsilon=50.0, alternative="less", statistic="score")[0]
    order = _order(_arm(15, 50.0, 0.0, 1), _arm(15, 50.0, 0.0, 1), _null("difference", 0.0))
    assert order[0, 2] == order[5, 9]
    barnard = stats.barnard_exact([[5, 9], [10, 6]], alternative="less", n=256).pvalue
    assert p < barnard - 1e-3


CASES = [(n1, n2, effect, margin) for n1, n2 in [(1, 1), (5, 9), (12, 12), (30, 17), (60, 61)]
         for effect, margin in [("difference", 0.0), ("difference", 0.3), ("difference", -0.45),
                                ("ratio", 1.0), ("ratio", 0.4), ("ratio", 2.5)]]


@pytest.mark.parametrize("n1, n2, effect, margin", CASES)
def test_order_is_monotone(n1, n2, effect, margin):
    for eps in (0.5, 3.0):
        arm1, arm2 = _arm(n1, eps, 0.0, 1), _arm(n2, eps, 0.0, 1)
        g = _order(arm1, arm2, _null(effect, margin))
        assert np.all(np.diff(g, axis=0) >= 0) and np.all(np.diff(g, axis=1) <= 0)
        # the score is already monotone on these lattices (the closure changes nothing)
        raw = _raw_score(n1, n2, effect, margin, _noise_variance(arm1), _noise_variance(arm2))
        assert np.array_equal(_closure(raw), raw)
        bare = _raw_score(n1, n2, effect, margin)  # no noise variance: Barnard's z at no difference
        assert np.all(np.diff(_closure(bare), axis=0) >= 0) and np.all(_closure(bare) >= bare)


def test_tail_is_monotone_in_the_thetas():
    # the property the supremum over the boundary line rests on
    arm1, arm2 = _arm(12, 1.0, 0.0, 1), _arm(9, 2.0, 0.0, 1)
    null = _null("difference", -0.1)
    for upper in (True, False):
        tail = _plan(arm1, arm2, null, _effective(arm1, arm2, null, _Observed(6.3, 4.1), upper), upper)
        grid = np.linspace(0.0, 1.0, 41)
        t1, t2 = np.meshgrid(grid, grid, indexing="ij")
        values = tail(t1.ravel(), t2.ravel()).reshape(t1.shape)
        sign = 1 if upper else -1
        assert np.all(sign * np.diff(values, axis=0) >= -1e-15)
        assert np.all(sign * np.diff(values, axis=1) <= 1e-15)


def test_restricted_mle_solves_the_likelihood_equation():
    # the closed-form cubic root against a bounded maximisation of the restricted likelihood
    from scipy import optimize
    n1, n2, delta = 13, 21, 0.15
    for x1, x2 in [(0, 0), (3, 17), (13, 2), (7, 9)]:
        def nll(t2, x1=x1, x2=x2):
            return -stats.binom.logpmf(x1, n1, t2 + delta) - stats.binom.logpmf(x2, n2, t2)
        res = optimize.minimize_scalar(nll, bounds=(0.0, 1.0 - delta), method="bounded",
                                       options={"xatol": 1e-12})
        t1, t2 = _restricted_difference(np.array(x1 / n1), np.array(x2 / n2), n1, n2, delta)
        assert float(t2) == pytest.approx(res.x, abs=1e-6)
        assert float(t1) - float(t2) == pytest.approx(delta)


@pytest.mark.parametrize("effect, margin", [("difference", 0.0), ("difference", -0.2), ("ratio", 1.5)])
@pytest.mark.parametrize("upper", [True, False])
def test_exact_size_over_the_nuisance(effect, margin, upper):
    arm1, arm2 = _arm(15, 1.0, 0.0, 1), _arm(18, 2.0, 0.0, 1)
    null = _null(effect, margin)
    cut = _critical_score(arm1, arm2, null, 0.05, upper)
    nu = np.linspace(null.low, null.high, 201)
    size = _on_line(_plan(arm1, arm2, null, cut, upper), null, nu)
    assert size.max() <= 0.05 + 1e-12
    assert size.max() >= 0.03  # not a vacuous cut


@pytest.mark.parametrize("theta1, theta2", [(0.1, 0.1), (0.5, 0.2), (0.9, 0.4), (0.3, 0.95)])
def test_power_at_null_points_is_at_most_alpha(theta1, theta2):
    arm = _arm(15, 1.0, 0.0, 1)
    for effect, margin in (("difference", theta1 - theta2), ("ratio", theta1 / theta2)):
        size = _exact_power(arm, arm, _null(effect, margin), theta1, theta2, 0.05, "two-sided", "score")[0]
        assert size <= 0.05 + 1e-12


@pytest.mark.parametrize("z1, z2", [(1.3, 1.1), (6.2, 2.4), (3.7, 9.6)])
def test_interval_contains_every_accepted_margin(z1, z2):
    # coverage: the interval misses the true difference only if the test of it rejects, which
    # happens with probability at most alpha (above), provided the interval holds every margin
    # the two one-sided tests accept; checked here on a grid of margins (the p-values are not
    # monotone in the margin under this ordering)
    n, arm = 12, _arm(12, 1.0, 0.0, 1)
    ci = binom2_ump_ci(z1, n, z2, n, epsilon=1.0, statistic="score")
    for d in np.linspace(-0.95, 0.95, 39):
        null = _null("difference", d)
        g = _pvalues(arm, arm, null, _Observed(z1, z2), "greater")[0]
        ls = _pvalues(arm, arm, null, _Observed(z1, z2), "less")[0]
        if g > 0.025 and ls > 0.025:
            assert ci.low <= d <= ci.high


def test_statistic_argument_and_method():
    res = binom2_ump_test(20.2, 40, 13.1, 40, epsilon=3.0, statistic="score")
    assert "score" in res.method
    lin = binom2_ump_test(20.2, 40, 13.1, 40, epsilon=3.0, statistic="difference")
    assert "difference of the released proportions" in lin.method
    assert lin.statistic == pytest.approx(20.2 / 40 - 13.1 / 40)
    with pytest.raises(ValueError, match="`statistic`"):
        binom2_ump_test(20.2, 40, 13.1, 40, epsilon=1.0, statistic="wald")
    with pytest.raises(ValueError, match="`statistic`"):
        binom2_ump_power(0.5, 0.3, 20, 20, epsilon=1.0, statistic="Score")


@pytest.mark.parametrize("delta1, delta2", [(1e-3, 1e-2), (0.2, 0.0)])
def test_truncated_laws_upper_and_lower_tails_add_to_one(delta1, delta2):
    # the edge cells of a truncated law (delta > 0) are their own components: the upper tail at a
    # cut and the lower tail at the same cut partition the law (T = cut has probability 0)
    from dpinfer.inference.two_arm._score import _cut
    arm1, arm2 = _arm(10, 1.0, delta1, 1), _arm(14, 2.0, delta2, 1)
    th1, th2 = np.array([0.1, 0.4, 0.8]), np.array([0.3, 0.5, 0.9])
    for effect, margin in (("difference", 0.0), ("difference", 0.2), ("ratio", 0.7)):
        null = _null(effect, margin)
        for z1, z2 in ((3.3, 6.8), (-2.2, 5.1), (11.4, 0.2)):
            cut = _cut(arm1, arm2, null, _Observed(z1, z2), True)
            total = _plan(arm1, arm2, null, cut, True)(th1, th2) + _plan(arm1, arm2, null, cut, False)(th1, th2)
            assert np.abs(total - 1.0).max() < 1e-14


def test_prop_test_passes_the_statistic():
    from dpinfer import LaplaceReleaser, TulapReleaser, prop_test
    a, b = TulapReleaser(epsilon=3.0).release(20, 40, rng=1), TulapReleaser(epsilon=3.0).release(13, 40, rng=2)
    for statistic in ("difference", "score"):
        assert (prop_test(a, b, statistic=statistic).pvalue
                == binom2_ump_test(a, b, statistic=statistic).pvalue)
    assert prop_test(a, b).pvalue == binom2_ump_test(a, b, statistic="score").pvalue  # the default (issue 41)
    lap = LaplaceReleaser(1.0, 1.0)
    c, d = lap.proportion(20, 40, rng=3), lap.proportion(13, 40, rng=4)
    with pytest.raises(ValueError, match="`statistic`"):
        prop_test(c, d, method="normal", statistic="score")
    with pytest.raises((TypeError, ValueError), match="statistic"):
        prop_test(a, 0.4, statistic="score")


@pytest.mark.parametrize("n1, n2, eps1, eps2, delta, effect, margin", [
    (100, 100, 1.0, 1.0, 0.0, "difference", 0.0), (30, 45, 0.5, 2.0, 0.0, "difference", -0.1),
    (20, 20, 3.0, 3.0, 1e-3, "ratio", 1.5), (40, 25, 1.0, 1.0, 1e-6, "ratio", 0.7),
    (12, 12, 50.0, 50.0, 0.0, "difference", 0.0)])
def test_score_lattice_equals_the_paired_sums(n1, n2, eps1, eps2, delta, effect, margin):
    # the lattice of conditional tails (all pairs of counts at once, matrix products) against
    # the paired sums over the component pmfs (one nuisance value at a time, scipy's binomial)
    arm1, arm2 = _arm(n1, eps1, delta, 1), _arm(n2, eps2, delta, 1)
    null = _null(effect, margin)
    rng = np.random.default_rng(n1 + n2)
    nu = np.linspace(null.low, null.high, 37)
    for _ in range(3):
        observed = _Observed(rng.uniform(-2, n1 + 2), rng.uniform(-2, n2 + 2))
        for upper in (True, False):
            plan = _plan(arm1, arm2, null, _effective(arm1, arm2, null, observed, upper), upper)
            paired = plan.rows(null.theta1(nu), nu)
            _, curvature = plan.with_curvature(null.theta1(nu), nu, 1.0)
            assert plan.use_lattice()
            np.testing.assert_allclose(plan.rows(null.theta1(nu), nu), paired, rtol=1e-13, atol=1e-300)
            _, lattice_curvature = plan.with_curvature(null.theta1(nu), nu, 1.0)
            # p'' to well within the certificate's rounding allowance, 1e-12 (n1 + n2)^2
            assert np.max(np.abs(lattice_curvature - curvature)) < 1e-14 * (n1 + n2) ** 2
