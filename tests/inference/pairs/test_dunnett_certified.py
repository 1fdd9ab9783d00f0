"""The Dunnett supremum over theta_0 is certified: never below a dense grid of an independent tail.

The expectation is computed here without dpinfer: ``p(theta) = sum_x P_theta(X = x) f(x)``
with ``f(x) = P(max_k U_k >= u | X = x)`` (a Tulap integral over the control's noise,
piecewise polynomial, integrated by Gauss-Legendre between its breakpoints), enumerated
over every count vector ``x`` once, then evaluated on 20001 points of ``theta_0`` by a matrix
product (the tail is a polynomial in ``theta_0``).  The certified value must be at least the
largest of these (up to 1e-13 of rounding) and no more than that plus the dense grid's own
gap, ``M h^2 / 8`` with ``M = 2 N (N - 1)`` (Bernstein) and ``h`` the grid step.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpinfer.inference.pairs._dunnett import RTOL, certified_sup_max_tail, located_sup_max_tail, max_tail, sup_max_tail


def _tulap_cdf(t, b):
    t = np.asarray(t, float)
    s = -np.abs(t)
    r = np.round(s)
    low = b ** (-r) / (1 + b) * (b + (s - r + 0.5) * (1 - b))
    return np.where(t <= 0, low, 1.0 - low)


def _f(x, arms, n0, eps, margin, u, two_sided):
    """``P(max_k U_k >= u | X = x)`` (or ``|U_k|``), integrating over the control's noise ``v``."""
    b = math.exp(-eps)
    L = int(40 / eps) + 2
    x0, xs = x[0], x[1:]
    scales = [1 / math.sqrt(1 / n + 1 / n0) for n in arms]
    cuts = [np.arange(-L, L + 1) + 0.5]
    for n, s, xk in zip(arms, scales, xs):
        for level in ((u, -u) if two_sided else (u,)):
            j = np.arange(-2 * L * (n // n0 + 2) - n - 2, 2 * L * (n // n0 + 2) + n + 3)
            cuts.append(n0 * ((xk + j + 0.5) / n - level / s - margin) - x0)
    v = np.unique(np.clip(np.concatenate(cuts), -L - 0.5, L + 0.5))
    nodes, weights = np.polynomial.legendre.leggauss(len(arms) + 2)
    a, c = v[:-1], v[1:]
    w = (a + c)[:, None] / 2 + (c - a)[:, None] / 2 * nodes[None, :]
    pdf = (1 - b) / (1 + b) * b ** np.abs(np.round(w))
    prod = np.ones_like(w)
    for n, s, xk in zip(arms, scales, xs):
        y = n * (u / s + margin + (x0 + w) / n0)
        g = _tulap_cdf(y - xk, b)
        if two_sided:
            g = g - _tulap_cdf(n * (-u / s + margin + (x0 + w) / n0) - xk, b)
        prod *= g
    inside = np.sum((c - a)[:, None] / 2 * weights[None, :] * pdf * prod)
    return 1.0 - inside


def dense_max(arms, n0, eps, margin, u, two_sided, points=20001):
    lo, hi = max(0.0, -margin), min(1.0, 1.0 - margin)
    theta = np.linspace(lo, hi, points)
    sizes = [n0] + list(arms)
    total = np.zeros(points)
    pmfs = [stats.binom.pmf(np.arange(n0 + 1)[:, None], n0, theta[None, :])]
    pmfs += [stats.binom.pmf(np.arange(n + 1)[:, None], n, np.clip(theta + margin, 0, 1)[None, :]) for n in arms]
    for x in itertools.product(*[range(n + 1) for n in sizes]):
        weight = np.ones(points)
        for pmf, xi in zip(pmfs, x):
            weight = weight * pmf[xi]
        total += weight * _f(x, arms, n0, eps, margin, u, two_sided)
    h = (hi - lo) / (points - 1)
    return float(total.max()), h


CASES = [  # arms, control, epsilon, margin, u, two-sided
    ((3, 3), 3, 1.0, 0.0, 0.8, False),      # all arms equal, K = 2
    ((3, 3), 3, 5.0, 0.0, 0.0, False),      # t = 0 (a flat-ish tail), epsilon 5
    ((2, 3), 2, 0.1, 0.0, 1.2, True),       # epsilon 0.1, two-sided
    ((2, 2), 3, 1.0, 0.9, 0.5, False),      # margin near the edge: theta_0 in [0, 0.1]
    ((2, 2), 2, 1.0, -0.85, 0.3, False),    # margin near the other edge
    ((1, 1, 1, 1, 1), 2, 1.0, 0.0, 1.0, False),  # K = 5, tiny n
]


def test_the_independent_tail_agrees_with_the_kernel():
    # the test's enumeration and the package's kernel compute the same exact tail at one theta_0
    arms, n0, eps, margin, u = (3, 3), 3, 1.0, 0.1, 0.7
    theta = 0.37
    sizes = [n0] + list(arms)
    total = 0.0
    for x in itertools.product(*[range(n + 1) for n in sizes]):
        w = stats.binom.pmf(x[0], n0, theta) * np.prod([stats.binom.pmf(xk, n, theta + margin) for xk, n in zip(x[1:], arms)])
        total += w * _f(x, arms, n0, eps, margin, u, False)
    assert max_tail(list(arms), n0, [eps] * 3, theta, margin, u, False) == pytest.approx(total, rel=1e-11, abs=1e-14)


@pytest.mark.parametrize("arms, n0, eps, margin, u, two_sided", CASES)
def test_certified_supremum_bounds_a_dense_grid(arms, n0, eps, margin, u, two_sided):
    certified = sup_max_tail(list(arms), n0, [eps] * (len(arms) + 1), margin, u, two_sided)
    brute, h = dense_max(arms, n0, eps, margin, u, two_sided)
    N = n0 + sum(arms)
    assert certified >= brute - 1e-13
    if u == 0.0:
        # t = 0 with equal arms: the tail is flat in theta_0 (2/3 by symmetry), the curvature
        # bound cannot close cells of a flat tail within the budget, and the bound returned
        # is the budget's largest open cell (conservative; see the last test)
        assert certified <= brute * (1 + 1e-3)
    else:
        assert certified <= brute + 2 * N * (N - 1) * h ** 2 / 8 + 1e-12


@pytest.mark.parametrize("case", [((8, 8), 8, [1.0] * 3, 0.0, 1.1, False), ((6, 9, 8), 7, [5.0] * 4, 0.1, 0.9, False)])
def test_certified_is_within_rtol_of_the_largest_tail_found(case):
    # the bound is at least the located value and at most 1 + RTOL times the best tail found
    located, _ = located_sup_max_tail(*case)
    bound, best = certified_sup_max_tail(*case)
    assert located <= best <= bound <= best * (1 + RTOL) + 1e-15


def test_a_flat_tail_gets_a_looser_bound_still_above():
    # one-sided t = 0 with equal arms: the tail is 2/3 at every theta_0 (by symmetry), the
    # curvature bound cannot close cells of a flat tail within the evaluation budget, so the
    # bound is the budget's largest open cell: above the supremum, but not within RTOL
    case = ((3, 3), 3, [5.0] * 3, 0.0, 0.0, False)
    bound, best = certified_sup_max_tail(*case)
    assert best == pytest.approx(2.0 / 3.0, rel=1e-14)
    assert best <= bound <= best * (1 + 1e-5)
