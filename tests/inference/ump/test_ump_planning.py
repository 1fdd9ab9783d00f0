"""Planning with the DP-UMP tests (dpinfer/inference/ump/_planning.py): power against plain sums
of the test function, the epsilon -> infinity limit (scipy.stats.binom's randomised UMP test),
power at n = 1e9, and the smallest sample size.
"""

import numpy as np
import pytest
from scipy import stats

from dpinfer import Tulap, binom_ump_phi, binom_ump_power, binom_ump_sample_size, binom_ump_test


# -- limits ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n,p0", [(10, 0.5), (30, 0.2), (57, 0.83)])
def test_large_epsilon_gives_the_non_private_randomised_ump_test(n, p0):
    alpha = 0.05
    x = np.arange(n + 1)
    sf = stats.binom.sf(x, n, p0)  # P(X > x)
    c = int(np.argmax(sf <= alpha))
    gamma = (alpha - sf[c]) / stats.binom.pmf(c, n, p0)
    classic = np.where(x > c, 1.0, np.where(x == c, gamma, 0.0))
    phi = binom_ump_phi(n, p0, epsilon=60.0, alpha=alpha, alternative="greater")
    np.testing.assert_allclose(phi, classic, atol=1e-9)
    # p-value of z = x + u tends to the randomised p-value P(X > x) + P(X = x)(1/2 - u)
    u = 0.23
    pv = binom_ump_test(x + u, n, p0, epsilon=60.0, alternative="greater")
    np.testing.assert_allclose(pv, sf + stats.binom.pmf(x, n, p0) * (0.5 - u), rtol=1e-9, atol=1e-15)


def test_power_increases_with_epsilon_towards_the_non_private_power():
    powers = [binom_ump_power(0.4, 30, 0.2, epsilon=e, alternative="greater")
              for e in (0.1, 0.5, 1.0, 3.0, 30.0)]
    assert np.all(np.diff(powers) > 0)
    x = np.arange(31)
    sf = stats.binom.sf(x, 30, 0.2)
    c = int(np.argmax(sf <= 0.05))
    gamma = (0.05 - sf[c]) / stats.binom.pmf(c, 30, 0.2)
    classic = stats.binom.sf(c, 30, 0.4) + gamma * stats.binom.pmf(c, 30, 0.4)
    assert powers[-1] == pytest.approx(classic, abs=1e-9)


# -- power and sample size ------------------------------------------------------------------

@pytest.mark.parametrize("alternative,method", [("greater", None), ("less", None),
                                                ("two-sided", "umpu"),
                                                ("two-sided", "asymptotically-unbiased"),
                                                ("two-sided", "equal-tailed")])
def test_power_equals_plain_sum_of_phi(alternative, method):
    n, p0 = 40, 0.35
    theta = np.array([0.0, 0.1, 0.35, 0.5, 0.93, 1.0])
    kw = dict(epsilon=0.8, delta=1e-6, alpha=0.1, alternative=alternative, two_sided_method=method)
    phi = binom_ump_phi(n, p0, **kw)
    want = [float(np.sum(stats.binom.pmf(np.arange(n + 1), n, t) * phi)) for t in theta]
    np.testing.assert_allclose(binom_ump_power(theta, n, p0, **kw), want, rtol=1e-11, atol=1e-15)


def test_asymptotically_unbiased_test_rejects_exactly_when_pvalue_at_most_alpha():
    n, p0, eps = 25, 0.4, 1.0
    phi = binom_ump_phi(n, p0, epsilon=eps, alpha=0.05, alternative="two-sided",
                        two_sided_method="asymptotically-unbiased")
    # Monte Carlo: reject iff p(Z) <= alpha; SE <= sqrt(.25 / 4e4) = 0.0025, bound 4 SE.
    rng = np.random.default_rng(20261121)
    x = np.full(40000, 14)
    z = x + Tulap.from_privacy(eps).sample(x.shape, rng=rng)
    rate = np.mean(binom_ump_test(z, n, p0, epsilon=eps) <= 0.05)
    assert abs(rate - phi[14]) <= 4 * 0.0025


def test_power_at_n_1e9_is_fast_and_exact():
    for alternative in ("greater", "less", "two-sided"):
        assert binom_ump_power(0.3, 10**9, 0.3, epsilon=1.0,
                               alternative=alternative) == pytest.approx(0.05, abs=1e-10)


def test_pvalues_at_n_1e9_are_complementary():
    z = 5e8 + np.array([-40000.3, -100.7, 0.2, 3000.5, 80000.1])
    g = binom_ump_test(z, 10**9, 0.5, epsilon=0.5, alternative="greater")
    l_ = binom_ump_test(z, 10**9, 0.5, epsilon=0.5, alternative="less")
    np.testing.assert_allclose(g + l_, 1.0, atol=1e-12)
    assert np.all(np.diff(g) < 0)


@pytest.mark.parametrize("theta1,p0,alternative", [(0.4, 0.2, "greater"), (0.1, 0.3, "less"),
                                                   (0.45, 0.3, "two-sided")])
def test_sample_size_is_the_smallest_n(theta1, p0, alternative):
    kw = dict(epsilon=1.0, alpha=0.05, alternative=alternative)
    n = binom_ump_sample_size(theta1, p0, power=0.8, **kw)
    assert binom_ump_power(theta1, n, p0, **kw) >= 0.8
    assert n == 1 or binom_ump_power(theta1, n - 1, p0, **kw) < 0.8


def test_power_is_monotone_in_n():
    powers = [binom_ump_power(0.95, n, 0.9, epsilon=1.0, alternative="greater") for n in range(1, 120)]
    assert np.all(np.diff(powers) >= -1e-12)
