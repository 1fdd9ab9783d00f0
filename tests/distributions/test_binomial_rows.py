"""Closed-form binomial rows and Bernstein windows behind the warnings' exact sums (issue 41 item 3).

References: ``scipy.stats.binom`` (Boost's pmf and cdf) and, for the exact
log-coefficients, Python's integer ``math.comb``.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpinfer.distributions._binomial_rows import EXACT_CHOOSE_N, bernstein_window, binomial_rows, log_choose


@pytest.mark.parametrize("n", [1, 7, 30, EXACT_CHOOSE_N, EXACT_CHOOSE_N + 1, 5000])
def test_log_choose_is_the_log_of_the_integer(n):
    x = np.unique(np.linspace(0, n, 40).astype(int))
    exact = np.array([math.log(math.comb(n, int(k))) for k in x])
    tol = 0.0 if n <= EXACT_CHOOSE_N else 1e-15 * max(1.0, math.lgamma(n + 1.0))
    np.testing.assert_allclose(log_choose(n)[x], exact, rtol=0.0, atol=tol)


@pytest.mark.parametrize("n, rtol", [(5, 1e-14), (100, 1e-12), (3000, 3e-11)])  # 1e-15 n |log theta|, theta >= 1e-3
def test_rows_match_scipy_near_the_mode(n, rtol):
    theta = np.array([1e-3, 0.05, 0.3, 0.5, 0.77, 0.999])
    x = np.arange(n + 1.0)
    got = binomial_rows(n, theta, x)
    ref = stats.binom.pmf(x[None, :], n, theta[:, None])
    big = ref > 1e-6 * ref.max(axis=1, keepdims=True)  # relative accuracy where the mass is
    np.testing.assert_allclose(got[big], ref[big], rtol=rtol)
    np.testing.assert_allclose(got, ref, rtol=0.0, atol=rtol)  # and absolute everywhere


def test_rows_at_theta_zero_and_one_and_per_row_counts():
    got = binomial_rows(4, np.array([0.0, 1.0]), np.arange(5.0))
    np.testing.assert_array_equal(got, [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1]])
    x = np.array([[0.0, 1.0], [3.0, 4.0]])  # a window per row
    got = binomial_rows(4, np.array([0.5, 0.25]), x)
    np.testing.assert_allclose(got, stats.binom.pmf(x, 4, np.array([[0.5], [0.25]])), rtol=1e-15)


@pytest.mark.parametrize("n", [10, 1000, 10**6])
def test_bernstein_window_leaves_out_at_most_the_tail(n):
    theta = np.array([1e-7, 1e-3, 0.02, 0.5, 0.9, 1 - 1e-6])
    lo, hi = bernstein_window(n, theta, 1e-15)
    below = np.where(lo > 0, stats.binom.cdf(lo - 1, n, theta), 0.0)
    above = stats.binom.sf(hi, n, theta)
    assert np.all(below <= 1e-15) and np.all(above <= 1e-15)
    # and within a few counts of the exact quantiles (not a needlessly wide window)
    exact_lo, exact_hi = stats.binom.ppf(1e-15, n, theta), stats.binom.isf(1e-15, n, theta)
    sd = np.sqrt(n * theta * (1 - theta))
    slack = 2 * sd + 35  # sqrt(2 L v) against the exact quantile, plus up to L = log 1e15 near theta = 0 or 1
    assert np.all(exact_lo - lo <= slack) and np.all(hi - exact_hi <= slack)
