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
method at every grid maximum) and then *certified* (:func:`certified_sup_max_tail`): the value
returned is an upper bound of the supremum, at most ``RTOL`` (relative) above the best value found.

**The certificate.**  ``p(theta) = E_theta f(X)``, ``X`` the ``K + 1`` independent counts
(``X_k ~ Binomial(n_k, theta + Delta0)``, the control's at ``theta``) and ``f(x)`` in ``[0, 1]``
the probability over the noise of the event given the counts.  On a cell ``[a, b]`` with
``p'' >= -M`` there, ``p <= chord + M (x - a)(b - x) / 2`` (the interpolation remainder), whose
maximum is in closed form.  ``M`` is the smaller of two bounds on ``|p''|``:

* *Score.*  ``p'' = E[f R]``, ``R = L''/L`` for the joint likelihood along the line (every
  ``theta_k`` moves with slope 1), ``E R = 0``, so ``|p''| <= sd(f) sd(R) <= sd(R) / 2``.  With
  ``S_k = L_k'/L_k`` and ``A_k = L_k''/L_k``, ``R = sum_k A_k + 2 sum_{j<k} S_j S_k``; the terms are
  orthogonal (Krawtchouk polynomials of distinct arms or degrees; ``E A_k = E S_k = 0``) and
  ``E A_k^2 = 2 n_k (n_k - 1) / v_k^2``, ``E S_k^2 = n_k / v_k``, ``v_k = theta_k (1 - theta_k)``, so
  ``E R^2 = sum_k 2 n_k (n_k - 1) / v_k^2 + 4 sum_{j<k} n_j n_k / (v_j v_k)``, at its largest over the
  cell at an end (``1 / v`` is convex).  Only where every ``theta_k`` stays inside (0, 1).
* *Bernstein.*  ``d^2/dtheta^2 E g = sum_k n_k (n_k - 1) E[Delta_k^2 g] + 2 sum_{j<k} n_j n_k
  E[Delta_j Delta_k g]`` (the derivatives of a product of Bernstein polynomials), and second
  differences of ``f`` in ``[0, 1]`` lie in ``[-2, 2]``: ``|p''| <= 2 N (N - 1)``, ``N = sum n_k``,
  on every cell, ``theta_k`` in {0, 1} included.

Cells whose bound exceeds the best value found by more than ``RTOL`` (relative) are cut, as
finely as the bound says would close them, the new points evaluated; the cells cover the
whole range of ``theta_0``, so the largest closed bound bounds the supremum.  If the budget
(``MAX_EVALUATIONS`` tails) runs out, the largest open bound is returned: an upper bound
still, only looser.  The certificate covers the mathematics; the tails carry their own
floating-point error (about 1e-13 relative, checked against mpmath in the tests) and the
noise cut at ``NEGLECTED``.
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


def located_sup_max_tail(arms, control, epsilons, margin, u, two_sided):
    """``(best, points)``: the located supremum over ``theta_0`` of :func:`max_tail` on the global null
    line, and every ``(theta_0, tail)`` evaluated on the way (the grid and Brent's points)."""
    lo, hi = max(0.0, -margin), min(1.0, 1.0 - margin)
    grid = np.linspace(lo, hi, GRID)
    points = {}

    def f(t):
        t = float(t)
        if t not in points:
            points[t] = max_tail(arms, control, epsilons, t, margin, u, two_sided)
        return points[t]

    values = np.array([f(t) for t in grid])
    best = float(values.max())
    for i in range(GRID):
        if values[i] >= values[max(i - 1, 0)] and values[i] >= values[min(i + 1, GRID - 1)]:
            res = optimize.minimize_scalar(lambda t: -f(t), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, GRID - 1)]),
                                           method="bounded", options={"xatol": XATOL})
            best = max(best, float(-res.fun))
    return best, points


def sup_max_tail(arms, control, epsilons, margin, u, two_sided):
    """The supremum over ``theta_0`` of :func:`max_tail`, certified (:func:`certified_sup_max_tail`)."""
    return certified_sup_max_tail(arms, control, epsilons, margin, u, two_sided)[0]


#: relative slack of the certificate (the bound is at most (1 + RTOL) times the best value found)
RTOL = 1e-9
#: tail evaluations the refinement may add before it returns its largest open bound
MAX_EVALUATIONS = 20_000
#: pieces of one cell in one round at most
_MAX_PIECES = 64


def curvature_bound(arms, control, margin, a, b, pa, pb):
    """``M`` with ``|p''| <= M`` on ``[a, b]`` (the module's score and Bernstein bounds).

    The score bound takes ``sd(f) <= sqrt(p (1 - p))`` (``f^2 <= f``): ``1/2``, or less where an upper
    bound of ``p`` on the cell (the ends' larger value plus ``M h^2 / 8``) is below 1/2, or a lower
    bound (the smaller value minus ``M h^2 / 8``) above it; the smaller ``M`` gives tighter bounds of
    ``p``, so the step is repeated (each bound valid given the one before).
    """
    sizes = np.array(list(arms) + [control], dtype=float)
    shifts = np.array([margin] * len(arms) + [0.0])
    total = float(sizes.sum())
    bernstein = 2.0 * total * (total - 1.0)
    ends = np.stack([a + shifts, b + shifts])  # each theta_k at the cell's two ends
    if np.any(ends <= 0.0) or np.any(ends >= 1.0):
        return bernstein
    inv_v = (1.0 / (ends * (1.0 - ends))).max(axis=0)  # 1/v convex: largest at an end
    first = sizes * inv_v  # E S_k^2 at its largest
    sd_r = math.sqrt(float(np.sum(2.0 * sizes * (sizes - 1.0) * inv_v ** 2)
                           + 2.0 * (first.sum() ** 2 - np.sum(first ** 2))))
    m = min(bernstein, 0.5 * sd_r)
    for _ in range(4):  # each valid bound of p on the cell gives a valid, smaller M, and so on
        top = max(pa, pb) + m * (b - a) ** 2 / 8.0  # p on the cell is at most this (|p''| <= m)
        bottom = min(pa, pb) - m * (b - a) ** 2 / 8.0  # and at least this
        near = top if top < 0.5 else bottom if bottom > 0.5 else None  # p(1 - p) is largest there
        if near is None:
            break
        m = min(m, math.sqrt(near * (1.0 - near)) * sd_r)
    return m


def cell_bound(a, b, pa, pb, m):
    """The largest value on ``[a, b]`` of the chord through ``(a, pa)``, ``(b, pb)`` plus ``m (x - a)(b - x) / 2``."""
    h = b - a
    if m <= 0.0 or h <= 0.0:
        return max(pa, pb)
    x = min(max(0.5 * (a + b) + (pb - pa) / (h * m), a), b)
    return pa + (pb - pa) * (x - a) / h + 0.5 * m * (x - a) * (b - x)


def certified_sup_max_tail(arms, control, epsilons, margin, u, two_sided):
    """``(bound, best)``: an upper bound of ``sup_theta0`` :func:`max_tail` and the best value found.

    Starts from :func:`located_sup_max_tail`'s points and refines the cells between them until
    every cell's bound (:func:`cell_bound` with :func:`curvature_bound`) is at most ``best (1 +
    RTOL)`` (module docstring); within ``MAX_EVALUATIONS`` more tails, else the largest open bound.
    """
    best, points = located_sup_max_tail(arms, control, epsilons, margin, u, two_sided)
    lo, hi = max(0.0, -margin), min(1.0, 1.0 - margin)
    for t in (lo, hi):
        if t not in points:
            points[t] = max_tail(arms, control, epsilons, t, margin, u, two_sided)
    xs = sorted(points)
    cells = [(xs[i], xs[i + 1], points[xs[i]], points[xs[i + 1]]) for i in range(len(xs) - 1)]
    best = max(best, max(points.values()))
    closed = best
    spent = 0
    while cells:
        target = best * (1.0 + RTOL)
        still = []
        for a, b, pa, pb in cells:
            m = curvature_bound(arms, control, margin, a, b, pa, pb)
            bound = min(cell_bound(a, b, pa, pb, m), 1.0)  # a probability: 1 bounds it too
            if bound <= target:
                closed = max(closed, bound)
                continue
            still.append((a, b, pa, pb, m, bound))
        if not still:
            break
        if spent + 2 * len(still) > MAX_EVALUATIONS:  # the budget is out: the largest open bound is the answer
            return min(max(closed, max(c[5] for c in still)), 1.0), best
        cells = []
        for a, b, pa, pb, m, bound in still:
            # pieces of width w close when m w^2 / 8 is within the slack below target of the cell's ends
            slack = max(target - max(pa, pb), target * RTOL)
            pieces = int(min(max(math.ceil((b - a) / math.sqrt(8.0 * slack / m)), 2), _MAX_PIECES))
            cuts = np.linspace(a, b, pieces + 1)
            values = [pa] + [max_tail(arms, control, epsilons, float(t), margin, u, two_sided) for t in cuts[1:-1]] + [pb]
            spent += pieces - 1
            best = max(best, max(values))
            cells.extend((float(cuts[i]), float(cuts[i + 1]), values[i], values[i + 1]) for i in range(pieces))
    return min(max(closed, best), 1.0), best
