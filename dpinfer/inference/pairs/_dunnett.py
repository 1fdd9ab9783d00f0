"""The Dunnett-type single-step tail of several Tulap arms against one shared control (kernels).

Arms ``Z_k = X_k + N_k`` (``k = 1..K``) and the control ``Z_0 = X_0 + N_0``, independent,
``X_k ~ Binomial(n_k, theta_k)``, ``N`` Tulap of ``b_k = exp(-epsilon_k)`` (``delta = 0``,
sensitivity 1).  The standardized differences ``U_k = s_k (Z_k / n_k - Z_0 / n_0 - Delta0)``,
``s_k = (1 / n_k + 1 / n_0)^(-1/2)``, share ``Z_0``; given it they are independent, so

    P(max_k U_k >= u) = 1 - E_{Z_0}[ prod_k G_k(n_k (u / s_k + Delta0 + Z_0 / n_0)) ],

``G_k(y) = P(Z_k < y)``.  ``Z = K + V`` with ``K = X + E`` integer (binomial convolved with the
discrete Laplace pmf, summed directly: positive terms only) and ``V`` uniform on
``(-1/2, 1/2)``, so ``G_k(y) = P(K_k <= round(y) - 1) + P(K_k = round(y)) (y - round(y) + 1/2)``
is piecewise linear in ``y`` with knots at the half-integers.  The expectation over ``Z_0``
is a sum over ``K_0 = k_0`` of an integral over ``V_0 = w`` in ``(-1/2, 1/2)`` of a product
of ``K`` piecewise-linear functions of ``w``: a polynomial of degree ``K`` between the knots
of all the arms, integrated exactly by Gauss-Legendre with ``ceil((K + 1) / 2)`` nodes per
piece.  Nothing is simulated; the noise is cut where the mass left out is below 1e-18
(stated), and the sum is ``O((n_0 + L) K^2)`` per ``theta_0``.  The two-sided version is
``P(max_k |U_k| >= u)``, each factor ``G_k(upper) - G_k(lower)``.

Under the global null ``theta_k = theta_0 + Delta0`` the law depends on ``theta_0`` alone; the
adjusted p-value is the supremum over ``theta_0`` (a 65-point grid refined by Brent's method
at every grid maximum): a *located* supremum, not certified as the two-arm and McNemar ones
are.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

__all__ = []  # private module

#: the integer noise is cut where the two-sided mass left out is below this
NEGLECTED = 1e-18
GRID = 65
XATOL = 1e-10


def _reach(epsilon):
    return int(math.ceil((math.log(2.0) - math.log(NEGLECTED)) / epsilon))


def integer_pmf(n, theta, epsilon):
    """``(offset, pmf)`` of ``K = X + E``: ``P(K = offset + i) = pmf[i]``."""
    L = _reach(epsilon)
    b = math.exp(-epsilon)
    e = np.arange(-L, L + 1)
    noise = (1 - b) / (1 + b) * np.exp(-epsilon * np.abs(e))
    binom = stats.binom.pmf(np.arange(n + 1), n, theta)
    return -L, np.convolve(binom, noise)


class _Cdf:
    """``G(y) = P(Z < y)`` of one arm, vectorized (piecewise linear, knots at half-integers)."""

    def __init__(self, n, theta, epsilon):
        self.offset, self.pmf = integer_pmf(n, theta, epsilon)
        self.cum = np.concatenate([[0.0], np.cumsum(self.pmf)])  # cum[i] = P(K < offset + i)

    def __call__(self, y):
        r = np.round(y)
        i = np.clip(r - self.offset, 0, self.pmf.size).astype(np.int64)
        below = self.cum[i]
        at = np.where((r - self.offset >= 0) & (r - self.offset < self.pmf.size),
                      self.pmf[np.clip(i, 0, self.pmf.size - 1)], 0.0)
        return below + at * (y - r + 0.5)


def max_tail(arms, control, epsilons, theta0, margin, u, two_sided):
    """``P(max_k U_k >= u)`` (or ``max_k |U_k|``) at ``theta_0`` on the global null line.

    ``arms``: the arms' sizes; ``control``: the control's size; ``epsilons``: the arms' then
    the control's epsilon.
    """
    n0 = control
    cdfs = [_Cdf(n, min(max(theta0 + margin, 0.0), 1.0), eps) for n, eps in zip(arms, epsilons[:-1])]
    offset0, pmf0 = integer_pmf(n0, theta0, epsilons[-1])
    keep = pmf0 > 0
    k0 = (offset0 + np.arange(pmf0.size))[keep]
    w0 = pmf0[keep]
    scales = [1.0 / math.sqrt(1.0 / n + 1.0 / n0) for n in arms]
    nodes, weights = np.polynomial.legendre.leggauss(len(arms) // 2 + 2)
    total = np.zeros(k0.size)
    # per k0, the knots in w (the control's uniform part) where some arm's argument
    # y = n_k (u / s_k + margin + (k0 + w) / n0), linear in w with slope n_k / n0, is a half-integer
    cuts = [np.full((k0.size, 1), -0.5), np.full((k0.size, 1), 0.5)]
    for n, s in zip(arms, scales):
        for level in ((u, -u) if two_sided else (u,)):
            base = n * (level / s + margin + k0 / n0)  # y at w = 0; slope n / n0
            slope = n / n0
            lo = np.ceil((base - 0.5 * slope) - 0.5)
            count = int(math.ceil(slope)) + 2
            ys = lo[:, None] + np.arange(count)[None, :] + 0.5  # candidate half-integers
            ws = (ys - base[:, None]) / slope
            cuts.append(np.where((ws > -0.5) & (ws < 0.5), ws, 0.5))
    grid = np.sort(np.concatenate(cuts, axis=1), axis=1)
    a, b = grid[:, :-1], grid[:, 1:]
    half = (b - a) / 2.0
    mid = (a + b) / 2.0
    for x, wt in zip(nodes, weights):
        w = mid + half * x  # (k0, pieces)
        z0 = (k0[:, None] + w) / n0
        prod = np.ones_like(w)
        for cdf, n, s in zip(cdfs, arms, scales):
            upper = cdf(n * (u / s + margin + z0))
            if two_sided:
                prod *= upper - cdf(n * (-u / s + margin + z0))
            else:
                prod *= upper
        total += np.sum(wt * half * prod, axis=1)
    inside = float(np.dot(w0, total))
    return min(max(1.0 - inside, 0.0), 1.0)


def sup_max_tail(arms, control, epsilons, margin, u, two_sided):
    """The located supremum over ``theta_0`` of :func:`max_tail` on the global null line."""
    lo, hi = max(0.0, -margin), min(1.0, 1.0 - margin)
    grid = np.linspace(lo, hi, GRID)

    def f(t):
        return max_tail(arms, control, epsilons, float(t), margin, u, two_sided)

    values = np.array([f(t) for t in grid])
    best = float(values.max())
    for i in range(GRID):
        if values[i] >= values[max(i - 1, 0)] and values[i] >= values[min(i + 1, GRID - 1)]:
            res = optimize.minimize_scalar(lambda t: -f(t), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, GRID - 1)]),
                                           method="bounded", options={"xatol": XATOL})
            best = max(best, float(-res.fun))
    return best
