"""The exact two-arm test (two_arm._supremum and binom2_ump_test).

Expected values: tests/reference/two_arm_values.json (mpmath, 30 digits, direct summation
over the counts and quadrature of the noises, made by tests/reference/make_two_arm.py
without importing dpinfer); the non-private limit (epsilon = 50) against an unconditional
test computed here by enumeration, itself checked against scipy.stats.barnard_exact.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from dpinfer import HTestResult, TulapReleaser, binom2_ump_ci, binom2_ump_test
from dpinfer.inference.two_arm._law import _arm
from dpinfer.inference.two_arm._certify import certified_sup, derivative_bound
from dpinfer.inference.two_arm._supremum import _critical, _effective, _null, _on_line, _plan, _sup_tail

REF = json.loads((Path(__file__).parents[2] / "reference" / "two_arm_values.json").read_text())
H = 2.0**-40


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_pvalues_against_mpmath(case, alternative):
    res = binom2_ump_test(case["z1"], case["n1"], case["z2"], case["n2"],
                          epsilon=(case["epsilon1"], case["epsilon2"]), effect=case["effect"],
                          margin=case["margin"], alternative=alternative, statistic="difference")
    assert res.pvalue == pytest.approx(float(case[alternative]), rel=1e-10)


def _unconditional(x1, n1, x2, n2, order, tie_weight=1.0):
    """sup_p E_p[w(X1, X2)] under theta1 = theta2 = p, by enumeration (alternative 'greater').

    ``w`` is 1 where ``order`` exceeds its observed value, ``tie_weight`` where it ties: 1 for
    the usual p-value, 1/2 for the mid-p value.
    """
    a, b = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    s, s_obs = order(a, b), order(x1, x2)
    weight = np.where(s > s_obs + 1e-12, 1.0, np.where(s >= s_obs - 1e-12, tie_weight, 0.0))

    def tail(p):
        return float(np.sum(np.outer(stats.binom.pmf(np.arange(n1 + 1), n1, p),
                                     stats.binom.pmf(np.arange(n2 + 1), n2, p)) * weight))

    grid = np.linspace(0.0, 1.0, 401)
    values = [tail(p) for p in grid]
    i = int(np.argmax(values))
    res = optimize.minimize_scalar(lambda p: -tail(p), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 400)]),
                                   method="bounded", options={"xatol": 1e-12})
    return max(values[i], -res.fun)


def _wald_pooled(n1, n2):
    def order(a, b):
        p1, p2 = a / n1, b / n2
        pbar = (a + b) / (n1 + n2)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (p1 - p2) / np.sqrt(pbar * (1 - pbar) * (1 / n1 + 1 / n2))
        return np.where(np.isfinite(z), z, 0.0)
    return order


@pytest.mark.parametrize("x1, n1, x2, n2", [(7, 12, 3, 10), (14, 20, 8, 18)])
def test_enumeration_reproduces_barnard_exact(x1, n1, x2, n2):
    # the helper below is the non-private yardstick; with Barnard's statistic it is scipy's test
    ours = _unconditional(x1, n1, x2, n2, _wald_pooled(n1, n2))
    scipy_p = stats.barnard_exact([[x1, x2], [n1 - x1, n2 - x2]], alternative="greater", n=200).pvalue
    assert ours == pytest.approx(scipy_p, rel=1e-6)


@pytest.mark.parametrize("x1, x2, n", [(7, 3, 12), (14, 8, 20), (30, 21, 40)])
def test_non_private_limit_is_the_unconditional_mid_p_test_of_the_difference(x1, x2, n):
    # epsilon = 50: D = 0 but for 2e-22 of the mass, so n T = X1 - X2 + U1 - U2 with U1 - U2
    # triangular on (-1, 1).  Releases at the bottom of their cells, z_i = x_i - 1/2 + h/2,
    # give n t = x1 - x2 (to 1e-12), and P(n T >= x1 - x2) = P(X1 - X2 > d) + P(X1 - X2 = d) / 2:
    # the non-private unconditional mid-p test of the difference (its supremum over p).
    # (scipy's barnard_exact orders by the pooled Wald statistic instead; the enumeration
    # used here reproduces barnard_exact with that ordering, test above.)
    z1, z2 = x1 - 0.5 + H / 2, x2 - 0.5 + H / 2
    p = binom2_ump_test(z1, n, z2, n, epsilon=50.0, alternative="greater", statistic="difference").pvalue
    expected = _unconditional(x1, n, x2, n, lambda a, b: a - b, tie_weight=0.5)
    assert p == pytest.approx(expected, rel=1e-6)


def test_sup_is_certified():
    arm1, arm2 = _arm(30, 1.0, 0.0, 1), _arm(40, 0.5, 0.0, 1)
    null = _null("difference", -0.1)
    t = 17.3 / 30 - 19.9 / 40
    located = _sup_tail(arm1, arm2, null, t, True)
    certified = _sup_tail(arm1, arm2, null, t, True, certify=True)
    # the certifying search sums through the lattice of conditional tails: same value to rounding
    assert certified.located == pytest.approx(located.value, rel=1e-14)
    # the certificate's slack is 1e-12 relative (RTOL); the p-values report the bound
    assert certified.located <= certified.value <= certified.located * (1 + 1.01e-12)
    assert binom2_ump_test(17.3, 30, 19.9, 40, epsilon=(1.0, 0.5), margin=-0.1,
                           alternative="greater").pvalue >= located.value


@pytest.mark.parametrize("effect, margin, upper", [
    ("difference", 0.0, True), ("difference", -0.2, False), ("ratio", 1.8, True), ("odds-ratio", 0.4, True)])
def test_certificate_catches_what_a_coarse_search_misses(effect, margin, upper):
    # a 3-point grid and a "located" value taken at its worst point: the certificate must
    # still bound the supremum of a dense independent grid (4001 points)
    arm1, arm2 = _arm(25, 1.0, 0.0, 1), _arm(35, 2.0, 0.0, 1)
    null = _null(effect, margin)
    tail = _plan(arm1, arm2, null, 0.12 if upper else -0.05, upper)
    grid = np.linspace(null.low, null.high, 3)
    values = _on_line(tail, null, grid)
    bound, best = certified_sup(lambda nu: (_on_line(tail, null, nu), None), null, arm1.n, arm2.n,
                                grid, float(values.min()))
    dense = _on_line(tail, null, np.linspace(null.low, null.high, 4001)).max()
    assert bound >= dense * (1 - 1e-14)
    assert bound <= dense * (1 + 1e-6)  # and it is tight: the best value found is the supremum
    assert best >= dense * (1 - 1e-12)


@pytest.mark.parametrize("effect, margin, upper", [
    ("difference", 0.0, True), ("difference", -0.2, False), ("ratio", 1.8, True), ("odds-ratio", 0.4, True)])
@pytest.mark.parametrize("focus", ["at the maximum", "misplaced", "both and an end"])
def test_certificate_with_focus_points_bounds_a_dense_grid(effect, margin, upper, focus):
    # the geometric cells around the search's maxima are only where cells are cut: wherever
    # they are put (even far from the maximum), the bound stays above the maximum of a dense
    # grid of the tail computed independently (component pmfs, no lattice, scipy's binomial)
    arm1, arm2 = _arm(25, 1.0, 0.0, 1), _arm(35, 2.0, 0.0, 1)
    null = _null(effect, margin)
    t = 0.12 if upper else -0.05
    dense_nu = np.linspace(null.low, null.high, 4001)
    dense = _on_line(_plan(arm1, arm2, null, t, upper), null, dense_nu)
    tail = _plan(arm1, arm2, null, t, upper)
    assert tail.use_lattice()
    if effect == "odds-ratio":
        def evaluate(nu):
            return _on_line(tail, null, nu), None
    else:
        slope = float(null.derivative_bounds(0.0, 0.0)[0])

        def evaluate(nu):
            return tail.with_curvature(null.theta1(nu), nu, slope)
    top = float(dense_nu[np.argmax(dense)])
    wrong = null.low + 0.37 * (null.high - null.low)
    points = {"at the maximum": [top], "misplaced": [wrong], "both and an end": [wrong, top, null.high]}[focus]
    grid = np.linspace(null.low, null.high, 9)
    values, _ = evaluate(grid)
    bound, best = certified_sup(evaluate, null, arm1.n, arm2.n, grid, float(values.min()), focus=points)
    assert bound >= dense.max() * (1 - 1e-14)
    assert bound <= dense.max() * (1 + 1e-6)
    assert best >= dense.max() * (1 - 1e-12)


@pytest.mark.parametrize("effect, margin", [("difference", 0.1), ("ratio", 0.7), ("odds-ratio", 3.0)])
def test_curvature_bound_holds(effect, margin):
    # |p''| from central differences of the exact tail (step 1e-4: truncation error about
    # 1e-8 times the fourth derivative, rounding about 1e-13 / 1e-8) never exceeds the
    # bound of a cell around the point
    arm1, arm2 = _arm(15, 1.0, 0.0, 1), _arm(12, 1.0, 0.0, 1)
    null = _null(effect, margin)
    tail = _plan(arm1, arm2, null, 0.05, True)
    h = 1e-4
    nu = np.linspace(null.low + 2 * h, null.high - 2 * h, 301)
    second = (_on_line(tail, null, nu + h) - 2 * _on_line(tail, null, nu)
              + _on_line(tail, null, nu - h)) / h**2
    bound = derivative_bound(2, null, arm1.n, arm2.n, nu - h, nu + h, np.zeros_like(nu), np.ones_like(nu))
    assert np.all(np.abs(second) <= bound + 1e-4)
    assert np.max(np.abs(second) / bound) > 1e-3  # the bound is not vacuous


def test_score_variance_formula():
    # Var(S^2 + S') = 2 n (n - 1) / v^2 for a binomial score S, by direct enumeration
    from scipy import stats
    for n, theta in [(1, 0.3), (7, 0.5), (40, 0.05)]:
        x = np.arange(n + 1)
        v = theta * (1 - theta)
        score = (x - n * theta) / v
        deriv = -x / theta**2 - (n - x) / (1 - theta) ** 2
        pmf = stats.binom.pmf(x, n, theta)
        r = score**2 + deriv
        assert abs(pmf @ r) < 1e-9 * n / v
        assert pmf @ r**2 == pytest.approx(2 * n * (n - 1) / v**2, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("effect, margin", [("difference", 0.0), ("difference", -0.15), ("ratio", 1.5)])
def test_exact_size_over_the_nuisance(effect, margin):
    # reject iff T >= u + s; the rejection probability on a grid of the null line <= alpha
    arm1, arm2 = _arm(20, 1.0, 0.0, 1), _arm(20, 1.0, 0.0, 1)
    null = _null(effect, margin)
    u = _critical(arm1, arm2, null, 0.05, True)
    nu = np.linspace(null.low, null.high, 201)
    size = _on_line(_plan(arm1, arm2, null, u, True), null, nu)
    assert size.max() <= 0.05 + 1e-12
    assert _sup_tail(arm1, arm2, null, u, True).value == pytest.approx(0.05, rel=1e-9)  # level used


def test_release_inputs_and_printing():
    rel = TulapReleaser(epsilon=1.0)
    a, b = rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)
    res = binom2_ump_test(a, b)
    assert isinstance(res, HTestResult)
    same = binom2_ump_test(a.value, 60, b.value, 60, epsilon=1.0)
    assert res.pvalue == same.pvalue and res.conf_int == same.conf_int
    text = str(res)
    assert "difference in proportions" in text and "prop 1 =" in text and "prop 2 =" in text
    # releases charged to no budget prove nothing about the arms: sequential (issue 35)
    assert "sequential composition" in text and res.epsilon == 2.0
    assert binom2_ump_test(a, b, composition="parallel").epsilon == 1.0
    assert res.secure is False and "replace-one" in res.privacy_unit
    assert binom2_ump_test(a, b).pvalue == res.pvalue  # deterministic
    assert res.conf_int.low <= res.estimate_raw <= res.conf_int.high


def test_two_sided_is_twice_the_smaller_one_sided():
    kw = dict(epsilon=1.0)
    g = binom2_ump_test(20.2, 40, 13.1, 40, alternative="greater", **kw).pvalue
    ls = binom2_ump_test(20.2, 40, 13.1, 40, alternative="less", **kw).pvalue
    two = binom2_ump_test(20.2, 40, 13.1, 40, **kw).pvalue
    assert two == pytest.approx(min(1.0, 2 * min(g, ls)), rel=1e-14)
    assert g + ls >= 1.0


def test_symmetry_of_the_arms():
    # swapping the arms mirrors the alternative and the margin
    p = binom2_ump_test(20.2, 40, 13.1, 35, epsilon=(1.0, 2.0), margin=0.05, alternative="greater").pvalue
    q = binom2_ump_test(13.1, 35, 20.2, 40, epsilon=(2.0, 1.0), margin=-0.05, alternative="less").pvalue
    assert p == pytest.approx(q, rel=1e-9)


def test_arrays_give_pvalues():
    out = binom2_ump_test([20.2, 25.25], 40, 13.1, 40, epsilon=1.0, alternative="greater")
    assert out.shape == (2,) and out[1] < out[0]


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(z1=3.25, n1=10, z2=None, n2=10, epsilon=1.0), TypeError, "`z2` is required"),
    (dict(z1=3.25, n1=None, z2=4.25, n2=10, epsilon=1.0), TypeError, "`n1` is required"),
    (dict(z1=3.25, n1=10, z2=4.25, n2=10), TypeError, "`epsilon` is required"),
    (dict(z1=3.25, n1=10, z2=4.25, n2=10, epsilon=1.0, effect="odds"), ValueError, "`effect`"),
    (dict(z1=3.25, n1=10, z2=4.25, n2=10, epsilon=1.0, margin=1.0), ValueError, "`margin`"),
    (dict(z1=3.25, n1=10, z2=4.25, n2=10, epsilon=1.0, effect="ratio", margin=-2.0), ValueError, "`margin`"),
    (dict(z1=3.25, n1=10, z2=4.25, n2=10, epsilon=(1.0, 2.0, 3.0)), ValueError, "`epsilon`"),
])
def test_errors_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        binom2_ump_test(**kwargs)


def test_release_with_numbers_again_is_refused():
    a = TulapReleaser(epsilon=1.0).release(4, 10, rng=3)
    with pytest.raises(ValueError, match="`n2` must not be given"):
        binom2_ump_test(a, z2=a, n2=10)
    with pytest.raises(ValueError, match="`z1` and `z2` must be single values"):
        binom2_ump_ci([1.25, 2.25], 10, 3.25, 10, epsilon=1.0)


def test_effective_statistic_moves_by_the_cells():
    arm = _arm(30, 1.0, 0.0, 1)
    null = _null("ratio", 2.0)
    assert _effective(arm, arm, null, 0.0, True) == pytest.approx(-(H / 2 / 30) * 3)
    assert math.isclose(_effective(arm, arm, null, 0.0, False), (H / 2 / 30) * 3)


@pytest.mark.parametrize("n1, n2, eps, effect, margin, t, upper", [
    (30, 40, (1.0, 0.5), "difference", -0.1, 0.08, True),
    (25, 25, (2.0, 2.0), "difference", 0.2, 0.05, False),
    (20, 35, (1.0, 3.0), "ratio", 0.6, 0.1, True),
    (60, 15, (0.5, 1.0), "ratio", 2.5, -0.3, False),
])
def test_located_supremum_is_not_beaten_by_a_dense_grid(n1, n2, eps, effect, margin, t, upper):
    # an independent search: 1201 points on the null line, no refinement
    arm1, arm2 = _arm(n1, eps[0], 0.0, 1), _arm(n2, eps[1], 0.0, 1)
    null = _null(effect, margin)
    located = _sup_tail(arm1, arm2, null, t, upper).value
    dense = _on_line(_plan(arm1, arm2, null, t, upper), null, np.linspace(null.low, null.high, 1201))
    assert located >= dense.max() * (1 - 1e-13)
    assert located <= dense.max() * (1 + 1e-4)  # and it is a value of the tail, near the grid's best


def test_krawtchouk_moments():
    # E[(L^(k)/L)^2] = k! n (n-1)...(n-k+1) / v^k and the orders are orthogonal, by enumeration
    # (the likelihood derivatives expanded with falling factorials)
    from math import comb, factorial

    from scipy import stats

    def falling(a, j):
        out = np.ones_like(a, dtype=float)
        for i in range(j):
            out = out * (a - i)
        return out

    for n, theta in [(3, 0.2), (12, 0.5), (40, 0.07)]:
        x = np.arange(n + 1)
        v = theta * (1 - theta)
        pmf = stats.binom.pmf(x, n, theta)
        r = [sum(comb(k, j) * falling(x, j) / theta**j * (-1) ** (k - j) * falling(n - x, k - j)
                 / (1 - theta) ** (k - j) for j in range(k + 1)) for k in range(4)]
        for k in range(1, 4):
            expected = factorial(k) * np.prod([n - i for i in range(k)]) / v**k
            assert pmf @ r[k] ** 2 == pytest.approx(expected, rel=1e-10)
            for j in range(k):
                assert abs(pmf @ (r[k] * r[j])) <= 1e-9 * np.sqrt(expected * (pmf @ r[j] ** 2))


@pytest.mark.parametrize("n1, n2", [(15, 12), (260, 240)])  # the lattice path and the direct one
def test_exact_curvature_and_third_derivative_bound(n1, n2):
    arm1, arm2 = _arm(n1, 1.0, 0.0, 1), _arm(n2, 2.0, 0.0, 1)
    null = _null("difference", -0.05)
    tail = _plan(arm1, arm2, null, 0.04, True)
    tail.use_lattice()
    nu = np.linspace(0.2, 0.8, 41)
    value, curvature = tail.with_curvature(null.theta1(nu), nu, 1.0)
    assert np.allclose(value, _on_line(tail, null, nu), rtol=1e-12, atol=0)
    # central differences (step 1e-4; the tails' relative rounding 1e-13 / 1e-8 is 1e-5)
    h = 1e-4
    numeric = (_on_line(tail, null, nu + h) - 2 * value + _on_line(tail, null, nu - h)) / h**2
    assert np.allclose(curvature, numeric, rtol=1e-3, atol=1e-3)
    third = np.gradient(curvature, nu)
    bound = derivative_bound(3, null, n1, n2, nu - 0.008, nu + 0.008, np.zeros_like(nu), np.ones_like(nu))
    assert np.all(np.abs(third) <= bound)
