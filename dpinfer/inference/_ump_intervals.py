"""Confidence intervals by inverting the DP-UMP tests (used by :mod:`dpinfer.inference.ump`).

Data flow: ``_ci_array`` takes a flat array of releases z and returns ``[low, high]`` per
release.  One-sided intervals, and two-sided intervals for z inside [0, n], come from the
monotone search of ``_end`` (bisection on theta comparing log p-values).  Two-sided
intervals for z outside [0, n] come from ``_outside_far_end``: there the asymptotically
unbiased p-value is not largest at the clipped z / n and can have several peaks in theta,
so the accepted set is scanned on a window of theta next to the nearest edge whose width a
Chernoff bound proves sufficient (derivation below), and the far end is refined by
bisection.

The interval reported is the smallest interval holding every accepted theta (p-value above
``1 - level``) *and* the point estimate ``clip(z / n, 0, 1)``.  Inside [0, n] the estimate
has p-value 1, so this is the plain inversion.  Outside, adding the edge keeps the interval
non-empty, nested in the level and monotone in z, at a cost in length that is a sliver
next to the edge (n = 1, z = 2, epsilon = 3: theta in (0.9994, 1] is added to the accepted
(0.7905, 0.9994]); coverage can only go up.

Window bound, for z = n + d with d > 0 (z < 0 is the mirror image).  Write
theta = 1 - c / n, W = n - X ~ Binom(n, c / n) and t = z - n theta.  Then

    p(theta) = P(X + N >= z) + P(X + N <= 2 n theta - z)
             = P(N - W >= d)  +  P(N + W - 2c >= d)          (N is symmetric).

Chernoff with 0 < lam < epsilon, M(lam) = E exp(lam N), and 1 + x <= exp(x):

    P(N - W >= d)      <= exp(-lam d) M(lam) exp(-c (1 - exp(-lam)))
    P(N + W - 2c >= d) <= exp(-lam d) M(lam) exp(-c (2 lam + 1 - exp(lam))),

both decreasing in c when lam < 1.2564 (the root of exp(lam) = 1 + 2 lam).  So
``p(theta) <= alpha`` whenever ``c >= (log(2 M(lam) / alpha) - lam d) / r(lam)``,
``r = min(1 - exp(-lam), 2 lam + 1 - exp(lam))``; the bound is minimised over a grid of lam.
For the untruncated Tulap law N = G1 - G2 + U (Awan & Slavkovic 2018, Def. 4.1: two
geometric variables with ratio b and a uniform on (-1/2, 1/2)),

    M(lam) = (1 - b)^2 / ((1 - b e^lam)(1 - b e^-lam)) * sinh(lam / 2) / (lam / 2);

truncation (delta > 0) conditions N on |N| <= T, which lowers E cosh(lam N) = M(lam), so the
same bound holds.  The window is therefore at most a few times ``log(1 / alpha) /
min(epsilon, 1)`` counts wide whatever n is, and a release far outside [0, n] (the bound
negative at c = 0) accepts nothing: no p-value is evaluated for it.

Grid.  Inside the window the p-value is evaluated at steps of ``0.01 max(1, 4 / epsilon)``
counts (plus points geometrically closer to the edge, down to 1e-12 of a step).  In c the
p-value is a binomial average of Tulap tails whose argument moves 2 per count: its
features are at least about a quarter count wide for large epsilon (the cdf's kinks at
half-integers) and about 1 / epsilon wide for small epsilon, so an accepted stretch the
grid misses would be 25 times narrower than any feature.  The last accepted grid point is
refined by bisection in the cell after it.  Checked against plain full sums on dense
theta grids (tests, and 5200 random releases with n up to 300 and 320 with n up to 1e9
during development).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from ._ump_kernels import _log_pvalue, _log_pvalue_greater, _log_pvalue_less

_BISECTION_STEPS = 56  # 2**-56 < 1.4e-17: the interval end points are exact to rounding
_BRENT_MAX = 4  # up to this many releases, Brent per release; beyond, vectorised bisection
_LAMBDA_STAR = 1.2564312086261697  # root of exp(lam) = 1 + 2 lam
_LAMBDA_FRACTIONS = np.linspace(0.04, 0.96, 24)
_GRID_STEP = 0.01  # counts per grid step of the outside-range scan, times max(1, 4 / epsilon)
_CHUNK = 200_000  # (release, theta) pairs per vectorised p-value call
_GROUP = 2_000_000  # grid points held in memory at once by the outside-range scan


def _bisect(logp, z, lo, hi, log_alpha, increasing):
    """Boundary theta in [lo, hi] where log p crosses log alpha (p monotone on [lo, hi]).

    ``increasing``: p increases with theta; returns the infimum of {p > alpha}.
    Otherwise returns the supremum of {p > alpha}.  Assumes p(inside end) > alpha and
    p(outside end) <= alpha, elementwise.
    """
    if z.size <= _BRENT_MAX:
        # few releases: Brent's method on the (smooth, monotone) log p-value converges in
        # about a dozen evaluations instead of 56 halvings
        out = np.empty_like(z)
        for i in range(z.size):
            zi = z[i:i + 1]

            def f(theta, zi=zi):
                value = float(logp(zi, np.array([theta]))[0]) - log_alpha
                return min(max(value, -1e3), 1e3) if value == value else -1e3

            out[i] = optimize.brentq(f, float(lo[i]), float(hi[i]), xtol=1e-15, rtol=1e-15,
                                     maxiter=500)
        return out
    lo = lo.copy()
    hi = hi.copy()
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        above = logp(z, mid) > log_alpha
        if increasing:
            hi = np.where(above, mid, hi)
            lo = np.where(above, lo, mid)
        else:
            lo = np.where(above, mid, lo)
            hi = np.where(above, hi, mid)
        if np.all(hi - lo <= 4e-16 * np.maximum(np.abs(hi), 1e-300)):
            break
    return 0.5 * (lo + hi)


def _end(logp, z, centre, log_alpha, lower):
    """Far end of {p > alpha} on the side of ``centre`` towards 0 (``lower``) or 1.

    p is monotone on that side (increasing towards ``centre``); returns ``centre`` where
    the set is empty and the unit interval's end where p is above alpha there too.
    """
    edge = np.zeros_like(z) if lower else np.ones_like(z)
    out = np.array(centre, dtype=float, copy=True)
    at_edge = logp(z, edge) > log_alpha
    at_centre = logp(z, centre) > log_alpha
    out[at_edge] = edge[at_edge]
    act = at_centre & ~at_edge
    if act.any():
        lo, hi = (edge[act], centre[act]) if lower else (centre[act], edge[act])
        out[act] = _bisect(logp, z[act], lo, hi, log_alpha, lower)
    return out


# -- two-sided intervals for releases outside [0, n] --------------------------------------------

def _log_tulap_mgf(lam, log_b):
    """log E exp(lam N) for the untruncated Tulap(0, b, 0) law, 0 < lam < epsilon."""
    b = np.exp(log_b)
    half = 0.5 * lam
    return (2.0 * np.log1p(-b) - np.log1p(-np.exp(log_b + lam)) - np.log1p(-b * np.exp(-lam))
            + np.log(np.sinh(half) / half))


def _outside_window(d, log_b, log_alpha):
    """Counts c from the nearest edge beyond which p(theta) <= alpha (module notes); d > 0."""
    lam = min(-log_b, _LAMBDA_STAR) * _LAMBDA_FRACTIONS
    rate = np.minimum(-np.expm1(-lam), 2.0 * lam - np.expm1(lam))
    head = (np.log(2.0) + _log_tulap_mgf(lam, log_b) - log_alpha) / rate
    with np.errstate(over="ignore"):  # d up to 1e308: the bound is then -inf
        bound = head[:, None] - (lam / rate)[:, None] * np.asarray(d, float)[None, :]
    return np.min(bound, axis=0)


def _outside_far_end(z, n, log_b, q, log_alpha):
    """For releases outside [0, n]: the count distance from the nearest edge of the far end
    of the accepted set (0 where only the edge, or nothing, is accepted)."""
    above = z > n
    d = np.where(above, z - n, -z)
    window = np.minimum(_outside_window(d, log_b, log_alpha), float(n))
    c_far = np.zeros_like(z)
    todo = np.flatnonzero(window > 0.0)
    if todo.size == 0:
        return c_far
    step = _GRID_STEP * max(1.0, 4.0 / -log_b)
    near = step * np.geomspace(1e-12, 1.0, 25)[:-1]
    # every release's grid is the start of one template, cut at its window and closed by it
    top = int(np.ceil(window[todo].max() / step))
    template = np.concatenate([[0.0], near, step * np.arange(1.0, top + 1.0)])
    sizes = np.searchsorted(template, window[todo], side="left") + 1
    # releases in groups of at most _GROUP grid points, so memory stays bounded
    group = np.cumsum(sizes) // _GROUP
    for g in np.unique(group):
        members = todo[group == g]
        c_far[members] = _scan(z[members], n, template, window[members], sizes[group == g],
                               log_b, q, log_alpha)
    return c_far


def _scan(z, n, template, window, sizes, log_b, q, log_alpha):
    """Far end (in counts from the nearest edge) of the accepted set of each release, from
    its grid of counts (the ``sizes - 1`` first template points, then its window): the last
    accepted grid point, refined by bisection in the next cell."""
    above = z > n

    def theta_of(c, rows):
        return np.where(above[rows], 1.0 - c / n, c / n)

    def logp(zz, theta):
        return _log_pvalue(zz, n, theta, log_b, q, "two-sided", "asymptotically-unbiased")

    ends = np.cumsum(sizes)
    rows = np.repeat(np.arange(z.size), sizes)
    offset = np.arange(ends[-1]) - np.repeat(ends - sizes, sizes)
    c_all = template[np.minimum(offset, template.size - 1)]
    c_all[ends - 1] = window  # each grid's last point (its offset may pass the template)
    lp = np.empty_like(c_all)
    for start in range(0, c_all.size, _CHUNK):
        part = slice(start, start + _CHUNK)
        lp[part] = logp(z[rows[part]], theta_of(c_all[part], rows[part]))
    accepted = lp > log_alpha
    # last accepted grid point per release (-1: none)
    position = np.where(accepted, np.arange(c_all.size), -1)
    last = np.maximum.reduceat(position, ends - sizes)
    c_far = np.where(last >= 0, c_all[np.maximum(last, 0)], 0.0)
    # accepted up to the window's end: that is the far edge itself (window = n)
    refine = np.flatnonzero((last >= 0) & (last < ends - 1))
    if refine.size:
        t_in = theta_of(c_all[last[refine]], refine)
        t_out = theta_of(c_all[last[refine] + 1], refine)
        up = above[refine]
        lo, hi = np.where(up, t_out, t_in), np.where(up, t_in, t_out)
        found = np.empty(refine.size)
        for rising in (True, False):
            # z > n: p rises towards theta = 1 within the cell, the end is inf{p > alpha}
            sel = up == rising
            if sel.any():
                found[sel] = _bisect(logp, z[refine[sel]], lo[sel], hi[sel], log_alpha, rising)
        c_far[refine] = np.where(up, (1.0 - found) * n, found * n)
    return c_far


def _two_sided_ends(z, n, log_b, q, log_alpha):
    """Asymptotically unbiased two-sided interval: hull of the accepted set and clip(z / n)."""
    centre = np.clip(z / n, 0.0, 1.0)

    def logp(zz, theta):
        return _log_pvalue(zz, n, theta, log_b, q, "two-sided", "asymptotically-unbiased")

    low, high = centre.copy(), centre.copy()
    inside = (z >= 0.0) & (z <= n)
    if inside.any():
        low[inside] = _end(logp, z[inside], centre[inside], log_alpha, lower=True)
        high[inside] = _end(logp, z[inside], centre[inside], log_alpha, lower=False)
    out = ~inside
    if out.any():
        c_far = _outside_far_end(z[out], n, log_b, q, log_alpha)
        above = z[out] > n
        low[out] = np.where(above, np.clip(1.0 - c_far / n, 0.0, 1.0), 0.0)
        high[out] = np.where(above, 1.0, np.clip(c_far / n, 0.0, 1.0))
    return low, high


def _ci_array(z, n, log_b, q, confidence_level, alternative, method):
    """[low, high] for each z (flat array) -> array of shape z.shape + (2,)."""
    alpha = 1.0 - confidence_level
    zeros, ones = np.zeros_like(z), np.ones_like(z)

    def lp_greater(zz, theta):
        return _log_pvalue_greater(zz, n, theta, log_b, q)

    def lp_less(zz, theta):
        return _log_pvalue_less(zz, n, theta, log_b, q)

    if alternative == "greater":
        low = _end(lp_greater, z, ones, np.log(alpha), lower=True)
        return np.stack([low, ones], axis=-1)
    if alternative == "less":
        high = _end(lp_less, z, zeros, np.log(alpha), lower=False)
        return np.stack([zeros, high], axis=-1)
    if method == "equal-tailed":
        low = _end(lp_greater, z, ones, np.log(alpha / 2.0), lower=True)
        high = _end(lp_less, z, zeros, np.log(alpha / 2.0), lower=False)
        return np.stack([np.minimum(low, high), np.maximum(low, high)], axis=-1)
    low, high = _two_sided_ends(z, n, log_b, q, np.log(alpha))
    return np.stack([low, high], axis=-1)
