"""DP-JIMI's solves for a clipped location-scale model: vectorised over draws (and releases).

Private kernels of :mod:`dpinfer.inference.means`; they assume valid input.

Each draw holds ``n`` standard normal seeds ``e_j``, sorted once, with prefix sums
of ``e`` and ``e**2``.  For a location ``mu`` and scale ``sigma >= 0`` the clipped
values ``clip(mu + sigma e_j, a, b)`` are ``a`` for ``e_j < (a - mu) / sigma``, ``b``
for ``e_j > (b - mu) / sigma`` and ``mu + sigma e_j`` between, so the clipped sum

    ``F(mu, sigma) = k_a a + k_b b + (n - k_a - k_b) mu + sigma (sum of the middle e_j)``

and the centred sum of squares ``Q(mu, sigma)`` (about ``m = (a + b) / 2``) take two
binary searches and four prefix-sum look-ups per draw: ``O(log n)`` per evaluation
instead of ``O(n)``.  ``F`` is continuous and nondecreasing in ``mu`` (strictly on
``(a - sigma max e, b - sigma min e)``), so ``F(mu, sigma) = t`` has one root there
for ``n a < t < n b``, found by the shared bracketed root finder
(:func:`dpinfer.inference._roots.find_roots`).  The log-normal model,
``X = exp(mu + sigma e)``, uses the same steps with the prefix sums of
``exp(sigma e_j)``, and ``log a``, ``log b`` as thresholds.
"""

from __future__ import annotations

import numpy as np

from .._roots import find_roots

__all__ = []  # package-internal

#: the scale's upper search limit, in units of ``upper - lower`` (a public constant): a draw whose
#: sum of squares no scale below it reproduces is given this scale (see mean_jimi_test, Notes)
SIGMA_CAP = 100.0
#: the log-normal model's cap on the log scale (exp(10 e) stays far inside the doubles)
LOG_SIGMA_CAP = 10.0
#: the scales (in units of c, a quarter of the range) where the scale's search looks for its first sign change
_GRID_FACTORS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 16.0)


class Seeds:
    """The sorted seeds of many draws, their prefix sums, and the model's evaluations.

    ``e`` has shape (rows, n).  ``model`` is ``'normal'`` or ``'lognormal'``.
    """

    def __init__(self, e, a, b, model):
        self.e = np.sort(e, axis=1)
        self.rows, self.n = self.e.shape
        self.a, self.b, self.model = float(a), float(b), model
        self.mid = 0.5 * (self.a + self.b)
        zero = np.zeros((self.rows, 1))
        self.p1 = np.concatenate([zero, np.cumsum(self.e, axis=1)], axis=1)
        self.p2 = np.concatenate([zero, np.cumsum(self.e * self.e, axis=1)], axis=1)
        self._exp_sigma = None
        if model == "lognormal":
            self.la = np.log(self.a) if self.a > 0 else -np.inf
            self.lb = np.log(self.b)

    def count_below(self, t, rows, *, or_equal=False):
        """Per row, the number of seeds ``< t`` (``<= t`` with ``or_equal``): a branchless binary search.

        ``lo`` grows by the powers of two from the largest down while the seed at
        position ``lo + step - 1`` is still below ``t`` (the seeds are sorted).
        """
        flat = self.e.reshape(-1)
        base = rows * self.n - 1
        lo = np.zeros(rows.size, dtype=np.int64)
        less = np.less_equal if or_equal else np.less
        step = 1 << (int(self.n).bit_length() - 1)
        while step:
            cand = lo + step
            ok = (cand <= self.n) & less(flat.take(base + np.minimum(cand, self.n)), t)
            lo = np.where(ok, cand, lo)
            step >>= 1
        return lo

    def _thresholds(self, mu, sigma):
        """The seeds' clipping thresholds ``(a - mu) / sigma`` and ``(b - mu) / sigma`` (+-inf at sigma 0)."""
        if self.model == "lognormal":
            lo_edge, hi_edge = self.la, self.lb
        else:
            lo_edge, hi_edge = self.a, self.b
        with np.errstate(divide="ignore", invalid="ignore"):
            t_lo = np.where(sigma > 0, (lo_edge - mu) / sigma, np.where(mu < lo_edge, np.inf, -np.inf))
            t_hi = np.where(sigma > 0, (hi_edge - mu) / sigma, np.where(mu > hi_edge, -np.inf, np.inf))
        return t_lo, t_hi

    def set_sigma_exp(self, sigma, rows):
        """Log-normal model: prefix sums of ``exp(sigma e_j)`` and ``exp(2 sigma e_j)`` of ``rows`` at their ``sigma``.

        Only the given rows are recomputed (the scale's search moves a shrinking set of rows).
        """
        if self._exp_sigma is None:
            self._exp_sigma = (np.zeros((self.rows, self.n + 1)), np.zeros((self.rows, self.n + 1)))
        x1 = np.exp(np.asarray(sigma, dtype=float).reshape(-1, 1) * self.e[rows])
        s1, s2 = self._exp_sigma
        s1[rows, 1:] = np.cumsum(x1, axis=1)
        s2[rows, 1:] = np.cumsum(x1 * x1, axis=1)

    def moments(self, mu, sigma, rows, squares=False):
        """``F(mu, sigma)`` (and ``Q``) for the given rows."""
        t_lo, t_hi = self._thresholds(mu, sigma)
        k_a = self.count_below(t_lo, rows)
        upto = self.count_below(t_hi, rows, or_equal=True)  # seeds <= t_hi
        k_b = self.n - upto
        k_mid = self.n - k_a - k_b
        if self.model == "lognormal":
            s1, s2 = self._exp_sigma
            mid1 = np.exp(mu) * (s1[rows, upto] - s1[rows, k_a])
            total = k_a * self.a + k_b * self.b + mid1
            if not squares:
                return total, None
            mid2 = np.exp(2 * mu) * (s2[rows, upto] - s2[rows, k_a])
            q = (k_a * (self.a - self.mid) ** 2 + k_b * (self.b - self.mid) ** 2
                 + mid2 - 2 * self.mid * mid1 + k_mid * self.mid**2)
            return total, q
        e1 = self.p1[rows, upto] - self.p1[rows, k_a]
        total = k_a * self.a + k_b * self.b + k_mid * mu + sigma * e1
        if not squares:
            return total, None
        d = mu - self.mid
        e2 = self.p2[rows, upto] - self.p2[rows, k_a]
        q = (k_a * (self.a - self.mid) ** 2 + k_b * (self.b - self.mid) ** 2
             + k_mid * d * d + 2 * d * sigma * e1 + sigma * sigma * e2)
        return total, q

    def floor(self):
        """The smallest clipped sum the model reaches: ``n a`` (log-normal: ``n max(a, 0)``)."""
        return self.n * (self.a if self.model == "normal" else max(self.a, 0.0))

    def location_bracket(self, sigma, rows):
        """``[mu_lo, mu_hi]`` on whose ends every value is clipped to ``a`` (resp. ``b``)."""
        if self.model == "lognormal":
            lo_edge = self.la if np.isfinite(self.la) else np.log(np.finfo(float).tiny)
            return lo_edge - sigma * self.e[rows, -1], self.lb - sigma * self.e[rows, 0]
        return self.a - sigma * self.e[rows, -1], self.b - sigma * self.e[rows, 0]


def solve_location(seeds, target, sigma, rows):
    """``mu`` with ``F(mu, sigma) = target`` per row (``-inf``/``+inf`` when ``target`` is outside (n a, n b)).

    ``target`` and ``sigma`` are given for ``rows`` (arrays of the same length).
    """
    n, b = seeds.n, seeds.b
    floor = seeds.floor()
    out = np.where(target <= floor, -np.inf, np.inf)
    inside = (target > floor) & (target < n * b)
    if not inside.any():
        return out
    r, t, s = rows[inside], target[inside], sigma[inside]
    lo, hi = seeds.location_bracket(s, r)
    scale = n * (b - seeds.a)

    def g(x, sub):
        return (t[sub] - seeds.moments(x, s[sub], r[sub])[0]) / scale

    # mu to 1e-10 of the range (normal) or 1e-12 on the log scale: far below any Monte Carlo error
    xtol = 1e-10 * (b - seeds.a) if seeds.model == "normal" else 1e-12
    out[inside] = find_roots(g, lo, hi, (t - floor) / scale, (t - n * b) / scale, ftol=1e-13, xtol=xtol, xrtol=1e-13)
    return out


def solve_location_scale(seeds, target1, target2):
    """``(mu, sigma)`` per row reproducing the clipped sum ``target1`` and centred squares ``target2``.

    For each scale the location is solved first (:func:`solve_location`); the scale is then
    a root of ``Q(mu(sigma), sigma) = target2`` on ``[0, SIGMA_CAP (b - a)]``: the first sign
    change on a grid of scales, refined in the variable ``sigma / (sigma + c)``.  A draw whose
    ``target2`` is at or below ``Q`` at scale 0 gets scale 0; one above ``Q`` at the cap
    gets the cap.  ``target1`` outside ``(n a, n b)``: ``mu = -inf``/``+inf`` and scale NaN.
    """
    rows = np.arange(seeds.rows)
    n, a, b = seeds.n, seeds.a, seeds.b
    h2 = (0.5 * (b - a)) ** 2
    cap = SIGMA_CAP * (b - a) if seeds.model == "normal" else LOG_SIGMA_CAP
    mu = np.where(target1 <= seeds.floor(), -np.inf, np.inf)
    sigma = np.full(seeds.rows, np.nan)
    ok = (target1 > seeds.floor()) & (target1 < n * b)
    if not ok.any():
        return mu, sigma
    r = rows[ok]
    t1, t2 = target1[ok], target2[ok]

    def q_at(s, sub):
        if seeds.model == "lognormal":
            seeds.set_sigma_exp(s, r[sub])
        m = solve_location(seeds, t1[sub], s, r[sub])
        return m, seeds.moments(m, s, r[sub], squares=True)[1]

    # The scale: a root of t2 - Q(mu(sigma), sigma), the first sign change on a grid of scales,
    # refined inside that cell.  With heavy clipping Q need not be monotone in sigma (two pairs
    # (mu, sigma) can give the same clipped sum and squares); the rule takes the smallest scale
    # the grid sees change sign, the same rule for every draw.
    c = 0.25 * (b - a) if seeds.model == "normal" else 0.5
    grid = [0.0] + [c * f for f in _GRID_FACTORS] + [cap]
    s_out, m_out = np.full(r.size, cap), np.empty(r.size)
    lo_s, hi_s, lo_g, hi_g = (np.zeros(r.size) for _ in range(4))
    bracketed = np.zeros(r.size, dtype=bool)
    pending = np.arange(r.size)  # rows whose grid values are all above zero so far
    for k, scale in enumerate(grid):
        m_k, q_k = q_at(np.full(pending.size, scale), pending)
        g_k = (t2[pending] - q_k) / (n * h2)
        hit, rows_hit = g_k <= 0, pending[g_k <= 0]
        if k == 0:  # the squares are no more than a constant sample gives: scale 0
            s_out[rows_hit], m_out[rows_hit] = 0.0, m_k[hit]
        else:
            bracketed[rows_hit] = True
            lo_s[rows_hit], hi_s[rows_hit], hi_g[rows_hit] = grid[k - 1], scale, g_k[hit]
        lo_g[pending[~hit]] = g_k[~hit]
        if k == len(grid) - 1:  # no scale up to the cap reaches the squares: the cap
            m_out[pending[~hit]] = m_k[~hit]
        pending = pending[~hit]
        if pending.size == 0:
            break
    if bracketed.any():
        idx = np.flatnonzero(bracketed)
        # the search runs in u = sigma / (sigma + c): Q saturates once sigma passes the range,
        # and in u it does not, so false position converges in a few steps
        def g(u, sub):
            return (t2[idx[sub]] - q_at(c * u / (1.0 - u), idx[sub])[1]) / (n * h2)

        u_lo, u_hi = lo_s[idx] / (lo_s[idx] + c), hi_s[idx] / (hi_s[idx] + c)
        u_root = find_roots(g, u_lo, u_hi, lo_g[idx], hi_g[idx], ftol=1e-13, xtol=1e-11, xrtol=0.0)
        s_root = c * u_root / (1.0 - u_root)
        s_out[idx] = s_root
        m_out[idx] = q_at(s_root, idx)[0]
    mu[ok], sigma[ok] = m_out, s_out
    return mu, sigma
