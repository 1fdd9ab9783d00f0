"""Tests of the exact machinery behind the validation studies (validation/_methods.py).

Every expected value comes from an independent source: scipy's binomtest,
statsmodels' proportion_confint, closed-form moments, closed forms of the
Binomial/Beta order-statistic identity, or a Monte Carlo estimate with its
standard error stated.
"""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from validation import _intervals
from validation import _methods as M

P0S = [0.05, 0.1, 0.3, 0.5, 0.9]


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("p0", P0S)
@pytest.mark.parametrize("n", [1, 8, 30, 200])
def test_randomised_ump_has_exact_size(n, p0, alternative):
    phi = M.ump_randomised_phi(n, p0, 0.05, alternative)
    assert np.all((phi >= 0) & (phi <= 1))
    size = float(np.sum(stats.binom.pmf(np.arange(n + 1), n, p0) * phi))
    assert size == pytest.approx(0.05, abs=1e-14)
    # Monotone decision rule in the direction of the alternative.
    step = np.diff(phi)
    assert np.all(step >= 0) if alternative == "greater" else np.all(step <= 0)


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("p0", P0S)
def test_exact_binomial_rejects_where_binomtest_pvalue_is_below_alpha(p0, alternative):
    n = 30
    phi = M.exact_binomial_phi(n, p0, 0.05, alternative)
    expected = [stats.binomtest(x, n, p0, alternative=alternative).pvalue <= 0.05
                for x in range(n + 1)]
    np.testing.assert_array_equal(phi.astype(bool), expected)


def test_phi_power_is_the_binomial_expectation():
    phi = M.ump_randomised_phi(30, 0.2, 0.05, "greater")
    theta = np.array([0.2, 0.5])
    by_loop = [sum(stats.binom.pmf(x, 30, t) * phi[x] for x in range(31)) for t in theta]
    np.testing.assert_allclose(M.phi_power(phi, 30, theta), by_loop, rtol=1e-13)


@pytest.mark.parametrize("n", [5, 30])
def test_clopper_pearson_and_wald_match_statsmodels(n):
    x = np.arange(n + 1)
    cp = M.clopper_pearson(x, n, 0.95)
    wald = M.wald(x, n, 0.95)
    for k in x:
        lo, hi = proportion_confint(int(k), n, alpha=0.05, method="beta")
        np.testing.assert_allclose(cp[k], [lo, hi], atol=1e-12)
        lo, hi = proportion_confint(int(k), n, alpha=0.05, method="normal")
        np.testing.assert_allclose(wald[k], [max(lo, 0.0), min(hi, 1.0)], atol=1e-12)


def test_nonprivate_coverage_by_explicit_sum():
    n, theta = 30, np.array([0.1, 0.37])
    cov, length = M.nonprivate_ci_coverage(M.clopper_pearson, n, theta, 0.95)
    for t, c, ln in zip(theta, cov, length):
        exp_c = exp_l = 0.0
        for k in range(n + 1):
            lo, hi = proportion_confint(k, n, alpha=0.05, method="beta")
            w = stats.binom.pmf(k, n, t)
            exp_c += w * (lo <= t <= hi)
            exp_l += w * (hi - lo)
        assert c == pytest.approx(exp_c, abs=1e-12)
        assert ln == pytest.approx(exp_l, abs=1e-12)
    assert np.all(cov >= 0.95)  # Clopper-Pearson is conservative


@pytest.mark.parametrize("theta", [0.1, 0.5, 0.93])
def test_count_law_quadrature_reproduces_moments(theta):
    law = M.CountLaw(30, 1.0)
    z, w, neglected = law.quadrature([theta])
    b = np.exp(-1.0)
    var_noise = 2 * b / (1 - b) ** 2 + 1 / 12  # Tulap variance, Awan & Slavkovic (2018)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    assert neglected[0] < 1e-12
    assert w[0] @ z == pytest.approx(30 * theta, rel=1e-12)
    assert w[0] @ (z - 30 * theta) ** 2 == pytest.approx(
        30 * theta * (1 - theta) + var_noise, rel=1e-11)


@pytest.mark.parametrize("theta", [0.1, 0.5])
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_proportion_law_quadrature_reproduces_moments(theta, epsilon):
    n = 30
    law = M.ProportionLaw(n, epsilon)
    pi, w, neglected = law.quadrature([theta])
    assert neglected[0] < 1e-12
    assert w[0] @ pi == pytest.approx(theta, rel=1e-11)
    var = theta * (1 - theta) / n + 2 / (epsilon * n) ** 2
    assert w[0] @ (pi - theta) ** 2 == pytest.approx(var, rel=1e-10)


def test_release_laws_match_monte_carlo():
    # 200_000 draws: SE of a tail probability p is sqrt(p (1 - p) / 2e5) <= 0.0012; 4 SE budget.
    gen = np.random.default_rng(2024)
    reps = 200_000
    for law, t in ((M.CountLaw(30, 1.0), 12.3), (M.ProportionLaw(30, 1.0), 0.41)):
        draws = law.sample(gen, 0.35, reps)
        p = law.sf([t], 0.35)[0]
        se = np.sqrt(p * (1 - p) / reps)
        assert abs(np.mean(draws >= t) - p) < 4 * se
        assert law.sf([t], 0.35)[0] + law.cdf([t], 0.35)[0] == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_threshold_of_the_exact_pvalue_gives_size_alpha(alternative):
    # The DP-UMP one-sided p-value is by definition the tail of the null law of Z.
    law = M.CountLaw(30, 1.0)
    pvalue = (lambda t: law.sf(t, 0.3)) if alternative == "greater" else (lambda t: law.cdf(t, 0.3))
    t = M.one_sided_threshold(pvalue, law, 0.05, alternative)
    assert M.one_sided_power(law, t, [0.3], alternative)[0] == pytest.approx(0.05, abs=1e-13)
    levels = np.array([0.01, 0.05, 0.2])
    ts = M.one_sided_threshold(pvalue, law, levels, alternative)
    np.testing.assert_allclose(pvalue(ts), levels, atol=1e-13)


@pytest.mark.parametrize("n_sim, alpha", [(1000, 0.05), (200, 0.05), (99, 0.1)])
def test_finite_draw_rejection_probability_for_a_uniform_pvalue(n_sim, alpha):
    # If p(T) ~ Uniform(0, 1) then P(Bin(H, p) <= m) = (m + 1) / (H + 1) exactly.
    law = M.CountLaw(30, 1.0)
    m = max(k for k in range(n_sim + 1) if k / n_sim <= alpha)
    got = M.jimi_finite_draws_power(lambda t: law.sf(t, 0.3), law, alpha, "greater", n_sim, [0.3])
    assert got[0] == pytest.approx((m + 1) / (n_sim + 1), abs=1e-12)


def test_solve_increasing_and_bisection():
    targets = np.array([-7.0, 0.5, 26.0])
    roots = M.solve_increasing(lambda x: x**3, targets, -5.0, 5.0)
    np.testing.assert_allclose(roots, np.cbrt(targets), rtol=1e-12)
    kinked = lambda x: np.where(x < 1, x, 1 + 10 * (x - 1))  # noqa: E731
    np.testing.assert_allclose(M.solve_increasing(kinked, [0.5, 3.0], 0.0, 2.0), [0.5, 1.2],
                               rtol=1e-12)
    np.testing.assert_allclose(M.bisect_increasing(lambda x: x**3, targets, -5, 5),
                               np.cbrt(targets), rtol=1e-12)
    with pytest.raises(RuntimeError, match="not bracketed"):
        M.solve_increasing(lambda x: x, [10.0], 0.0, 1.0)


def test_piecewise_chebyshev_interpolates_smooth_pieces():
    f = lambda t: np.stack([np.abs(t), np.exp(t)], axis=-1)  # noqa: E731 - kink at 0
    interp = _intervals.piecewise_chebyshev(f, [-1.0, 0.0, 1.0], 20)
    t = np.linspace(-1, 1, 101)
    np.testing.assert_allclose(interp(t), f(t), atol=1e-13)
    single = _intervals.piecewise_chebyshev(np.sin, [0.0, 3.0], 24)
    assert single(np.array([0.3, 2.5])).shape == (2,)
    np.testing.assert_allclose(single(np.array([0.3, 2.5])), np.sin([0.3, 2.5]), atol=1e-12)


@pytest.mark.parametrize("n, epsilon", [(30, 1.0), (30, 0.1), (200, 2.0)])
def test_two_sided_half_width_matches_dpinfer_two_sided_pvalue(n, epsilon):
    # Our P_v(|Z - n v| >= d) = alpha root against dpinfer's own two-sided p-value.
    import dpinfer

    law = M.CountLaw(n, epsilon)
    v = np.array([0.03, 0.2, 0.5, 0.9])
    d = law.two_sided_half_width(v, 0.05)
    for vi, di in zip(v, d):
        p = dpinfer.binom_ump_test(np.array([n * vi - di, n * vi + di]), n, vi, epsilon=epsilon)
        np.testing.assert_allclose(p, [0.05, 0.05], rtol=1e-9)
