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
adjusted p-value is the supremum over ``theta_0``, located (a 65-point grid refined by Brent's
method at every grid maximum) and then *certified* (:func:`sup_max_tail`): the value returned
is an upper bound of the supremum, at most ``1 + 1e-12`` times the largest tail found.

**The certificate.**  Write ``p(theta) = E_theta f(X)`` with ``X = (X_0, X_1, .., X_K)``
independent, ``X_0 ~ Bin(n_0, theta)``, ``X_k ~ Bin(n_k, theta + Delta0)``, and
``f(x) = P(max_k U_k >= u | X = x)`` in ``[0, 1]`` (the noise does not depend on ``theta``).
Every arm moves with slope 1 along the line, so ``p''`` is the sum over pairs ``(i, j)`` of
``d^2 p / dtheta_i dtheta_j``.  Two bounds on ``|p''|`` over a cell, the smaller taken:

* *Score* (cells with every ``theta`` inside (0, 1)).  ``p'' = E[f R]``, ``R = L''/L`` of
  the joint likelihood along the line, ``E R = 0``, so ``|p''| <= sqrt(p (1 - p)) sd(R)``.
  ``R = sum_i H_i + 2 sum_{i<j} S_i S_j`` with ``S_i = L_i'/L_i`` and ``H_i = L_i''/L_i``
  (Krawtchouk polynomials of independent arms: all terms orthogonal), ``E S_i^2 = n_i / v_i``,
  ``E H_i^2 = 2 n_i (n_i - 1) / v_i^2``.  The arms share ``v = (theta + Delta0)(1 - theta -
  Delta0)``, so with ``m = sum_k n_k`` their part is
  ``sum_k 2 n_k (n_k - 1) / v^2 + 4 sum_{k<l} n_k n_l / v^2 = 2 m (m - 1) / v^2``: exactly
  the moment of one pooled arm of ``m`` trials; the cross terms with the control add
  ``4 m n_0 / (v v_0)``.  So ``E R^2`` is the two-arm null line's moment with arm 1 the
  pooled arms (``theta_1 = theta + Delta0``, slope 1) and arm 2 the control, and
  :func:`dpinfer.inference.two_arm._certify.certified_sup` bounds the cells as it does there.
* *Bernstein* (every cell, including those reaching ``theta`` or ``theta + Delta0`` in
  {0, 1}, where ``1 / v`` blows up).  ``d^2/dtheta_i dtheta_j E g = n_i (n_j - [i = j])
  E[Delta_i Delta_j g]`` (derivative of a Bernstein polynomial) and second differences of a
  function in ``[0, 1]`` are at most 2, so ``|p''| <= 2 (sum_i n_i)^2 - 2 sum_i n_i =
  2 N (N - 1)``, ``N = m + n_0``: again the two-arm bound ``2 n_1 (n_1 - 1) + 2 n_2 (n_2 - 1)
  + 4 n_1 n_2`` with the pooled arms as arm 1, finite at the edges.

With ``|p''| <= M`` on a cell ``[a, b]``, ``p <= chord + M (x - a)(b - x) / 2`` there; cells
whose bound exceeds the best value by more than ``RTOL`` relative are cut until none is
left (or the budget runs out, when the largest bound left is returned: still an upper
bound).  The tail values carry their rounding (``1 - inside``: about 1e-16 absolute).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from ..two_arm._certify import certified_sup

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


class _PooledLine:
    """The global null line as :func:`certified_sup` reads it: arm 1 the pooled arms at ``theta + margin``."""

    def __init__(self, margin):
        self.margin = margin

    def theta1(self, x):
        return np.clip(np.asarray(x, float) + self.margin, 0.0, 1.0)

    def derivative_bounds(self, a, b):
        one = np.ones_like(np.asarray(a, float))
        return one, 0.0 * one


def sup_max_tail(arms, control, epsilons, margin, u, two_sided, certify=True):
    """The supremum over ``theta_0`` of :func:`max_tail` on the global null line.

    Located (65-point grid, Brent at every grid maximum), then certified (module docstring):
    the value returned is ``>= sup p`` and at most ``1 + RTOL`` times the largest tail found
    (unless the refinement's budget runs out, when it is a looser upper bound).
    ``certify=False`` gives the located value (benchmarks).
    """
    lo, hi = max(0.0, -margin), min(1.0, 1.0 - margin)

    def f(t):
        return max_tail(arms, control, epsilons, float(t), margin, u, two_sided)

    if hi - lo < 1e-15:
        return f(hi)
    grid = np.linspace(lo, hi, GRID)
    values = np.array([f(t) for t in grid])
    best = float(values.max())
    focus = []
    for i in range(GRID):
        if values[i] >= values[max(i - 1, 0)] and values[i] >= values[min(i + 1, GRID - 1)]:
            res = optimize.minimize_scalar(lambda t: -f(t), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, GRID - 1)]),
                                           method="bounded", options={"xatol": XATOL})
            best = max(best, float(-res.fun))
            focus.append((float(res.x), float(-res.fun)))
    if not certify or best >= 1.0:
        return best
    focus = [x for x, v in focus if v >= best * (1 - 1e-6)]

    def evaluate(points):
        return np.array([f(t) for t in np.atleast_1d(points)]), None

    bound, _ = certified_sup(evaluate, _PooledLine(margin), sum(arms), control, grid, best,
                             initial=(values, None), focus=focus)
    return float(min(bound, 1.0))
