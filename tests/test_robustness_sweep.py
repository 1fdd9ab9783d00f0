"""Numerical robustness of the DP-UMP p-values and intervals across the parameter range.

Sweep: epsilon in [1e-3, 20], n from 1 to 1e9, delta in {0, 1e-6, 0.1, 0.5},
p0 in {0.01, 0.5, 0.97}, and for each a vector of releases z running from far
below 0 to far above n (vectorised calls).  Checked everywhere:

* every p-value finite and in [0, 1]; every interval inside [0, 1], low <= high;
* theory's monotonicity (Awan & Slavkovic 2018: the p-value of the UMP test of
  H1: theta > p0 is P_p0(Z >= z), a survival function of z): the 'greater'
  p-value is non-increasing in z, the 'less' p-value non-decreasing, and both
  endpoints of every interval non-decreasing in z (the family of laws of Z is
  stochastically increasing in theta, so inverted tests give monotone ends);
* releases as extreme as +-1e15 and +-1e300 included;
* the exact identity p_greater(z) + p_less(z) = 1 (Z is continuous), to 1e-9:
  the two tails are computed separately in log space, so this checks both;
* the two-sided p-values equal their definitions through the one-sided ones
  (asymptotically unbiased: P(Z >= c + t) + P(Z <= c - t), t = |z - c|,
  c = n p0, non-increasing in t; equal-tailed: min(1, 2 min(p_greater, p_less)));
* every interior one-sided interval endpoint is where the test's p-value crosses
  0.05: the p-values at theta -+ 1e-6 relative bracket the level.

Monotonicity is asserted up to a tolerance of 1e-9 (absolute, on values in
[0, 1]) plus 1e-9 relative for the interval bisection (its stopping rule).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpinfer import Release, Tulap, binom_ump_ci, binom_ump_test

EPSILONS = [1e-3, 0.05, 1.0, 20.0]
NS = [1, 30, 10**4, 10**6, 10**9]
DELTAS = [0.0, 1e-6, 0.1, 0.5]
P0S = [0.01, 0.5, 0.97]
TOL = 1e-9


def _z_grid(n, epsilon, delta, size=25):
    """Increasing releases from far below 0 to far above n, denser near the middle."""
    law = Tulap.from_privacy(epsilon, delta)
    sd = float(np.sqrt(law.var()))
    spread = 8.0 * sd + 8.0 * np.sqrt(n) + 2.0
    inner = n * np.linspace(0.0, 1.0, size)
    outer = np.array([-1e300, -1e15, -spread, -spread / 4, -1.0,
                      n + 1.0, n + spread / 4, n + spread, n + 1e15, 1e300])
    return np.unique(np.concatenate([inner, outer]))


def _monotone(values, increasing, tol=TOL):
    d = np.diff(values, axis=0)
    return bool(np.all(d >= -tol)) if increasing else bool(np.all(d <= tol))



def _at(z, n, epsilon, delta):
    """The grid of z as Tulap release records: the sweep evaluates the functions of z at
    whole numbers too, which typed as numbers are refused as confidential counts."""
    return Release(np.asarray(z, float), "tulap", epsilon, delta, 1.0, n, "count")


CELLS = list(itertools.product(EPSILONS, NS, DELTAS))
# intervals cost a bisection each: a coarser grid, epsilon = 1e-3 in a slow test
CI_CELLS = list(itertools.product([0.05, 1.0, 20.0], NS, [0.0, 1e-6, 0.5]))
CI_CELLS_SMALL_EPS = [(1e-3, 30, 0.0), (1e-3, 10**9, 0.0), (1e-3, 10**6, 0.1)]


def _ids(cells):
    return [f"eps{e:g}-n{n}-d{d:g}" for e, n, d in cells]


@pytest.mark.parametrize("epsilon, n, delta", CELLS, ids=_ids(CELLS))
def test_pvalues_finite_in_range_and_monotone(epsilon, n, delta):
    # the window of the exact sums spans about 40 / epsilon counts: fewer z at 1e-3
    z = _z_grid(n, epsilon, delta, size=25 if epsilon >= 0.01 else 6)
    for p0 in P0S:
        greater = binom_ump_test(_at(z, n, epsilon, delta), p0, alternative="greater")
        less = binom_ump_test(_at(z, n, epsilon, delta), p0, alternative="less")
        two = binom_ump_test(_at(z, n, epsilon, delta), p0, alternative="two-sided")
        for name, p in (("greater", greater), ("less", less), ("two-sided", two)):
            assert p.shape == z.shape, name
            assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1)), (name, p0, p)
        assert _monotone(greater, increasing=False), (p0, greater)
        assert _monotone(less, increasing=True), (p0, less)
        assert np.max(np.abs(greater + less - 1.0)) < TOL, (p0, greater + less - 1.0)
        # two-sided (Awan & Slavkovic 2020): P(|Z - n p0| >= |z - n p0|) from the one-sided
        # p-values at the reflected points; non-increasing in |z - n p0|
        centre = n * p0
        t = np.abs(z - centre)
        g_hi = binom_ump_test(_at(centre + t, n, epsilon, delta), p0, alternative="greater")
        l_lo = binom_ump_test(_at(centre - t, n, epsilon, delta), p0, alternative="less")
        assert np.allclose(two, np.minimum(g_hi + l_lo, 1.0), rtol=1e-9, atol=1e-300), p0
        order = np.argsort(t, kind="stable")
        assert _monotone(two[order], increasing=False), (p0, two[order])
        equal = binom_ump_test(_at(z, n, epsilon, delta), p0, alternative="two-sided",
                               two_sided_method="equal-tailed")
        assert np.allclose(equal, np.minimum(2 * np.minimum(greater, less), 1.0), rtol=1e-9, atol=1e-300), p0


@pytest.mark.parametrize("epsilon, n, delta", CI_CELLS, ids=_ids(CI_CELLS))
def test_intervals_inside_unit_interval_and_monotone(epsilon, n, delta):
    _check_intervals(epsilon, n, delta, size=3)


@pytest.mark.slow
@pytest.mark.parametrize("epsilon, n, delta", CI_CELLS_SMALL_EPS, ids=_ids(CI_CELLS_SMALL_EPS))
def test_intervals_at_epsilon_1e3(epsilon, n, delta):
    _check_intervals(epsilon, n, delta, size=2)


def _check_intervals(epsilon, n, delta, size):
    z = _z_grid(n, epsilon, delta, size=size)
    for alternative in ("two-sided", "greater", "less"):
        ci = binom_ump_ci(_at(z, n, epsilon, delta), alternative=alternative, confidence_level=0.95)
        assert ci.shape == z.shape + (2,)
        assert np.all(np.isfinite(ci)) and np.all((ci >= 0) & (ci <= 1)), (alternative, ci)
        assert np.all(ci[:, 0] <= ci[:, 1]), (alternative, ci)
        for end in (0, 1):
            tol = TOL + 1e-9 * np.abs(ci[:, end]).max()
            assert _monotone(ci[:, end], increasing=True, tol=tol), (alternative, end, ci[:, end])
        if alternative != "two-sided":
            _check_endpoint_inverts_the_test(z, n, epsilon, delta, alternative, ci)


def _check_endpoint_inverts_the_test(z, n, epsilon, delta, alternative, ci):
    """An interior one-sided endpoint is where the p-value crosses 0.05 (brackets at +-1e-6 relative).

    'greater': low = inf{theta: p_greater(z; theta) > 0.05}, p increasing in theta;
    'less': high = sup{theta: p_less(z; theta) > 0.05}, p decreasing in theta.
    """
    end = ci[:, 0] if alternative == "greater" else ci[:, 1]
    inside = (end > 1e-6) & (end < 1 - 1e-6)
    for zz, theta in zip(z[inside], end[inside]):
        step = 1e-6 * min(theta, 1 - theta)
        below = binom_ump_test(_at(zz, n, epsilon, delta), theta - step, alternative=alternative).pvalue
        above = binom_ump_test(_at(zz, n, epsilon, delta), theta + step, alternative=alternative).pvalue
        if alternative == "greater":
            assert below <= 0.05 <= above, (zz, theta, below, above)
        else:
            assert above <= 0.05 <= below, (zz, theta, below, above)
