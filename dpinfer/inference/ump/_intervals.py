"""Confidence intervals by inverting the DP-UMP tests (used by :mod:`dpinfer.inference.ump`).

Data flow: ``_ci_array`` takes a flat array of releases z (and optionally a second array
``z_high`` for the upper ends) and returns ``[low, high]`` per release.  One-sided
intervals, and two-sided intervals for z inside [0, n], come from the monotone search of
``_end`` (vectorised Illinois steps on theta, every end of every release in one search).  Two-sided
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
counts (plus points geometrically closer to the edge, down to 1e-12 of a step) and at every
kink of the p-value in c: the Tulap cdf is piecewise linear with kinks at the half-integers
(and at the support ends when truncated), its argument moves 2 per count, so the kinks sit
at c = (j - d - s) / 2 for whole j (``_kink_offsets``), and a peak at a kink is evaluated
exactly.  (Where kinks would outnumber the grid points, epsilon below about 0.08, they are
left out: the density then changes by a factor exp(-epsilon) > 0.92 across a kink, the
p-value is smooth to within that, and its peaks are found by the search below.)  Between grid points the p-value is smooth, but a smooth peak can rise above alpha
over a stretch narrower than a grid step (n = 30, z = -1.1585734, epsilon = 3: the peak at
c = 0.8987 reaches 0.0500003 over 0.003 counts; issue 18).  Every discrete local maximum
within 10% of alpha past the last accepted grid point is therefore maximised over its two
cells by a golden-section search (60 steps: the bracket shrinks to 1e-14 counts, so the
maximum is found to far below any excess over alpha that rounding can resolve); an accepted
maximum extends the accepted set.  The last accepted point is refined by bisection in the
cell after it.  Checked by the exact coverage of the interval on dense theta grids next to
both edges (``tests/inference/test_ump.py``), against plain full sums on dense theta grids
(tests, and 5200 random releases with n up to 300 and 320 with n up to 1e9 during
development).
"""

from __future__ import annotations

import numpy as np

from .._roots import find_roots
from ._kernels import (
    _loaded,
    _log_pvalue,
    _log_pvalue_greater,
    _log_pvalue_less,
    _noise_sd,
    _truncation_half_width,
)

_LAMBDA_STAR = 1.2564312086261697  # root of exp(lam) = 1 + 2 lam
_LAMBDA_FRACTIONS = np.linspace(0.04, 0.96, 24)
_GRID_STEP = 0.01  # counts per grid step of the outside-range scan, times max(1, 4 / epsilon)
_CHUNK = 200_000  # (release, theta) pairs per vectorised p-value call
#: The interval searches stop where |gauge| <= _FTOL: log p within about 2 sqrt(-log alpha)
#: 1e-13 (3.5e-13 at alpha = 0.05) of log alpha, a third of the p-value's own accuracy
#: (1e-12 relative), so no point closer to the root is distinguishable from it.  (At large
#: n one step of theta moves log p by more than that: 2.5e-13 per ulp at n = 1e6, so a
#: tighter stop is met only by the bracket reaching 4e-16 relative, which took four
#: more evaluations per end.)
_FTOL = 1e-13
_GROUP = 2_000_000  # grid points held in memory at once by the outside-range scan
#: -ndtri(a) for the a = 0.5 exp(log(1 - level)) of the usual levels 0.8, 0.9, 0.95, 0.98, 0.99,
#: 0.995 and 0.999, the doubles scipy.special.ndtri returns (tested), so that a first two-sided
#: interval starts its search from the same points without importing scipy.special (a third
#: of a cold start).
_UPPER_NORMAL_QUANTILE = {
    0.09999999999999999: 1.2815515655446004,
    0.04999999999999999: 1.6448536269514729,
    0.025000000000000026: 1.959963984540054,
    0.01000000000000001: 2.3263478740408408,
    0.005000000000000002: 2.575829303548901,
    0.002500000000000003: 2.807033768343804,
    0.0005000000000000006: 3.2905267314918945,
}


def _upper_normal_quantile(a):
    """-ndtri(a), the standard normal quantile of 1 - a."""
    value = _UPPER_NORMAL_QUANTILE.get(a)
    if value is None:
        from scipy.special import ndtri  # imported on first use (start-up time)

        value = float(-ndtri(a))
    return value


def _crossing(logp, z, lo, hi, log_alpha, increasing):
    """Boundary theta in [lo, hi] where log p crosses log alpha (p monotone on [lo, hi]).

    ``increasing``: p increases with theta; returns the infimum of {p > alpha}.
    Otherwise returns the supremum of {p > alpha}.  Assumes p(inside end) > alpha and
    p(outside end) <= alpha, elementwise.
    """
    inside, outside = (hi, lo) if increasing else (lo, hi)
    return _illinois(logp, z, inside, outside, None, None, log_alpha)


def _clipped(g):
    """log p - log alpha clipped to [-1e3, 1e3] (NaN, from an empty sum, counts as -1e3)."""
    return np.where(np.isnan(g), -1e3, np.clip(g, -1e3, 1e3))


def _gauge(log_p, log_alpha):
    """sqrt(-log alpha) - sqrt(-log p): the sign of log p - log alpha, on a scale where a
    p-value with normal-like tails (log p ~ -c (theta - theta0)**2) is nearly linear in
    theta, so false position starts close to Newton's speed.  log p is clipped to
    [-1e6, 0] (NaN from an empty sum counts as -1e6)."""
    lp = np.where(np.isnan(log_p), -1e6, np.clip(log_p, -1e6, 0.0))
    return np.sqrt(-log_alpha) - np.sqrt(-lp)


def _illinois(logp, z, inside, outside, g_in, g_out, log_alpha):
    """Boundary of {p > alpha} between ``inside`` (p > alpha) and ``outside`` (p <= alpha), per row.

    The shared vectorised Illinois search (:func:`dpinfer.inference._roots.find_roots`)
    on g = ``_gauge(log p)``, which is smooth and monotone between the two points, so
    false position converges superlinearly (about 5-8 evaluations, each one vectorised
    call over all rows still moving).  A row stops when its bracket is below 4e-16
    relative (the end point is then exact to rounding) or |g| <= ``_FTOL`` = 1e-13 (log p
    within about 3.5e-13 of log alpha: the p-value is alpha to the kernel's own accuracy).
    ``g_in``/``g_out`` are the known log p-values at the two points (None: evaluated
    here).  With numba the bookkeeping steps run compiled (``_jit``).
    """
    a, b = np.array(inside, dtype=float), np.array(outside, dtype=float)
    z = np.asarray(z, dtype=float)
    if g_in is None or g_out is None:
        both = logp(np.concatenate([z, z]), np.concatenate([a, b]))
        g_in, g_out = both[:a.size], both[a.size:]
    # the compiled bookkeeping only once loaded: the numpy steps are the same IEEE operations
    jit = _loaded()
    gauge = _gauge if jit is None else (lambda lp, la: jit.gauge(np.asarray(lp, float), la))
    steps = None if jit is None else (
        # every argument given: a call that leaves numba a default to fill types its arrays in Python
        jit.illinois_propose, lambda *state: jit.illinois_update(*state, _FTOL, 0.0, 4e-16))
    return find_roots(lambda x, rows: gauge(logp(z[rows], x), log_alpha), a, b,
                      gauge(g_in, log_alpha), gauge(g_out, log_alpha), ftol=_FTOL,
                      steps=steps)


def _end(logp, z, centre, log_alpha, lower, guess=None, centre_in=False):
    """Far end of {p > alpha} on the side of ``centre`` towards 0 (``lower``) or 1.

    p is monotone on that side (increasing towards ``centre``); returns ``centre`` where
    the set is empty and the unit interval's end where p is above alpha there too.
    ``lower`` may be a boolean array (one side per row): all rows are solved together.
    ``guess`` (rows x k, optional): points expected near the end (e.g. from a normal
    approximation), evaluated in the same first call as the edge and the centre; the
    tightest bracket among them starts the search.  They only speed it up: the bracket is
    checked, whatever the guesses are.  ``centre_in``: p(centre) is known to be 1 (the
    two-sided p-value at clip(z / n)), so the centre is not evaluated, and with guesses the
    edge is evaluated only for the rows that accept every guess (a second call).
    """
    lower = np.broadcast_to(np.asarray(lower, dtype=bool), z.shape)
    edge = np.where(lower, 0.0, 1.0)
    out = np.array(centre, dtype=float, copy=True)
    # points from the centre towards the edge: centre, guesses (sorted), edge
    if guess is None:
        pts = np.stack([centre, edge], axis=1)
    else:
        g = np.clip(guess, np.minimum(edge, centre)[:, None], np.maximum(edge, centre)[:, None])
        g = np.sort(np.abs(g - centre[:, None]), axis=1)  # distances from the centre
        g = centre[:, None] + np.where(lower, -1.0, 1.0)[:, None] * g
        pts = np.concatenate([centre[:, None], g, edge[:, None]], axis=1)
    k = pts.shape[1]
    if centre_in and guess is not None:
        lp = np.zeros((z.size, k))
        lp[:, 1:-1] = logp(np.repeat(z, k - 2), pts[:, 1:-1].ravel()).reshape(z.size, k - 2)
        need = np.flatnonzero(lp[:, -2] > log_alpha)
        lp[:, -1] = -np.inf  # (not used where a guess is rejected)
        if need.size:
            lp[need, -1] = logp(z[need], edge[need])
    else:
        lp = logp(np.repeat(z, k), pts.ravel()).reshape(z.size, k)
    accepted = lp > log_alpha
    # p decreases from the centre outwards: the first rejected point closes the bracket
    first_out = np.where(accepted.all(axis=1), k, np.argmax(~accepted, axis=1))
    at_edge = first_out == k
    out[at_edge] = edge[at_edge]
    act = (first_out > 0) & ~at_edge
    if act.any():
        rows = np.flatnonzero(act)
        i_out = first_out[act]
        out[act] = _illinois(logp, z[act], pts[rows, i_out - 1], pts[rows, i_out],
                             lp[rows, i_out - 1], lp[rows, i_out], log_alpha)
    return out


def _normal_guess(z, n, log_b, z_quantile, lower):
    """Four points around, roughly, the end of the normal-approximation interval (start of
    ``_end``): the root u (in counts) of (z - u)^2 = z_quantile^2 (u (1 - u / n) + Var(N))
    on the side ``lower``, a Wilson interval with the noise's variance, -+ 0.02 + 2e-4 sd
    and -+ 0.5 + 0.05 sd counts (sd^2 = n c (1 - c) + Var(N), c = clip(z / n)).  Measured
    against the exact ends it is within 3e-4 counts at n = 1e6 and 1e9 and within 0.15
    counts at n = 50, so the inner pair usually brackets the end and the search starts from
    a bracket a few thousand times narrower than the interval."""
    var_n = _noise_sd(log_b) ** 2
    zc = np.clip(z, 0.0, float(n))
    c = zc / n
    sd = np.sqrt(n * c * (1.0 - c) + var_n)
    k2 = z_quantile * z_quantile
    a, b = 1.0 + k2 / n, 2.0 * zc + k2
    disc = np.sqrt(np.maximum(b * b - 4.0 * a * (zc * zc - k2 * var_n), 0.0))
    sign = np.where(lower, -1.0, 1.0)
    u = (b + sign * disc) / (2.0 * a)
    near, far = 0.02 + 2e-4 * sd, 0.5 + 0.05 * sd
    offsets = np.stack([-far, -near, near, far], axis=1) * sign[:, None]
    return (u[:, None] + offsets) / n


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
    kinks = _kink_offsets(log_b, q)
    if 2.0 * kinks.size * step > 1.0:
        # small epsilon: the Tulap density changes by a factor b = exp(-epsilon) > 0.92 at a
        # kink, so the p-value is smooth to within that and its peaks are left to the
        # golden-section search; kinks on the grid would outnumber its points
        kinks = kinks[:0]
    # the kinks of each release: c = (j - d - s) / 2 for whole j, s in ``kinks``
    n_kinks = (2.0 * window[todo] + 2.0) * kinks.size
    # releases in groups of at most _GROUP grid points, so memory stays bounded
    group = np.cumsum(sizes + n_kinks) // _GROUP
    for g in np.unique(group):
        members = todo[group == g]
        c_far[members] = _scan(z[members], n, template, window[members], sizes[group == g],
                               d[members], kinks, log_b, q, log_alpha)
    return c_far


def _kink_offsets(log_b, q):
    """Offsets s such that the two-sided p-value, as a function of the count distance c from
    the edge, has its kinks at c = (j - d - s) / 2, j whole: the Tulap cdf is piecewise linear
    with kinks at the half-integers and, when truncated, at the support ends +-T."""
    if q > 0.0:
        half = _truncation_half_width(log_b, q)
        return np.array([0.5, half % 1.0, (-half) % 1.0])
    return np.array([0.5])


def _scan(z, n, template, window, sizes, d, kinks, log_b, q, log_alpha):
    """Far end (in counts from the nearest edge) of the accepted set of each release.

    Each release's grid is the ``sizes - 1`` first template points, its window, and (unless
    ``kinks`` is empty) every kink of its p-value inside the window (so a peak at a kink is
    evaluated exactly).
    Between grid points the p-value is smooth; every discrete local maximum within 10% of
    alpha is refined by a golden-section search over its two cells, so a smooth peak that
    rises above alpha between grid points is found.  The last accepted point is refined by
    bisection in the grid cell after it.
    """
    above = z > n

    def theta_of(c, rows):
        return np.where(above[rows], 1.0 - c / n, c / n)

    def logp(zz, theta):
        return _log_pvalue(zz, n, theta, log_b, q, "two-sided", "asymptotically-unbiased")

    # grid: template part, then the kinks, sorted within each release
    ends = np.cumsum(sizes)
    rows = np.repeat(np.arange(z.size), sizes)
    offset = np.arange(ends[-1]) - np.repeat(ends - sizes, sizes)
    c_grid = template[np.minimum(offset, template.size - 1)]
    c_grid[ends - 1] = window  # each grid's last point (its offset may pass the template)
    c_all = c_grid
    if kinks.size:
        j_max = np.ceil(2.0 * window + d + 1.0)
        j_min = np.floor(d - 1.0)
        n_j = (j_max - j_min + 1.0).astype(np.int64)
        per = n_j * kinks.size
        k_rows = np.repeat(np.arange(z.size), per)
        k_pos = np.arange(k_rows.size) - np.repeat(np.cumsum(per) - per, per)
        jj = np.repeat(j_min, per) + k_pos // kinks.size
        c_kink = 0.5 * (jj - d[k_rows] - kinks[k_pos % kinks.size])
        keep = (c_kink > 0.0) & (c_kink < window[k_rows])
        rows = np.concatenate([rows, k_rows[keep]])
        c_all = np.concatenate([c_grid, c_kink[keep]])
    order = np.lexsort((c_all, rows))
    rows, c_all = rows[order], c_all[order]
    sizes = np.bincount(rows, minlength=z.size)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    lp = np.empty_like(c_all)
    for start in range(0, c_all.size, _CHUNK):
        part = slice(start, start + _CHUNK)
        lp[part] = logp(z[rows[part]], theta_of(c_all[part], rows[part]))
    accepted = lp > log_alpha
    # last accepted grid point per release (-1: none)
    index = np.arange(c_all.size)
    position = np.where(accepted, index, -1)
    last = np.maximum.reduceat(position, starts)
    c_far = np.where(last >= 0, c_all[np.maximum(last, 0)], 0.0)
    # smooth peaks between grid points: discrete local maxima past the last accepted point
    # and within 10% of alpha, maximised over their two cells
    inner = (index > starts[rows]) & (index < ends[rows] - 1)
    prev_lp = np.concatenate([[-np.inf], lp[:-1]])
    next_lp = np.concatenate([lp[1:], [-np.inf]])
    peak = (inner & ~accepted & (lp >= prev_lp) & (lp >= next_lp)
            & (lp > log_alpha + np.log(0.9)) & (index > last[rows]))
    cand = np.flatnonzero(peak)
    if cand.size:
        c_peak, lp_peak = _golden_max(
            lambda c, sel: logp(z[rows[cand[sel]]], theta_of(c, rows[cand[sel]])),
            c_all[cand - 1], c_all[cand + 1])
        hit = lp_peak > log_alpha
        if hit.any():
            cand, c_peak = cand[hit], c_peak[hit]
            hit_rows = rows[cand]
            # the farthest accepted peak of each release, and the grid point just after it
            best = np.full(z.size, -1.0)
            np.maximum.at(best, hit_rows, c_peak)
            new = np.flatnonzero(best > c_far)
            for r in new:
                c_far[r] = best[r]
                after = starts[r] + np.searchsorted(c_all[starts[r]:ends[r]], best[r], side="right")
                last[r] = after - 1  # refine in [best, c_all[after]]
            refine_from = np.where(np.isin(np.arange(z.size), new), c_far, np.nan)
        else:
            refine_from = np.full(z.size, np.nan)
    else:
        refine_from = np.full(z.size, np.nan)
    # accepted up to the window's end: that is the far edge itself (window = n)
    refine = np.flatnonzero((last >= 0) & (last < ends - 1))
    if refine.size:
        c_in = np.where(np.isnan(refine_from[refine]), c_all[last[refine]], refine_from[refine])
        t_in = theta_of(c_in, refine)
        t_out = theta_of(c_all[last[refine] + 1], refine)
        up = above[refine]
        lo, hi = np.where(up, t_out, t_in), np.where(up, t_in, t_out)
        found = np.empty(refine.size)
        for rising in (True, False):
            # z > n: p rises towards theta = 1 within the cell, the end is inf{p > alpha}
            sel = up == rising
            if sel.any():
                found[sel] = _crossing(logp, z[refine[sel]], lo[sel], hi[sel], log_alpha, rising)
        c_far[refine] = np.where(up, (1.0 - found) * n, found * n)
    return c_far


_GOLDEN_STEPS = 60  # 0.618**60 < 3e-13: the bracket (two grid cells) shrinks to ~1e-14 counts


def _golden_max(f, lo, hi):
    """Vectorised golden-section search for the maximum of f on [lo, hi] (f smooth except
    possibly at one interior grid point, unimodal there).  ``f(c, sel)`` evaluates the rows
    ``sel``.  Returns the best point seen and its value."""
    ratio = 0.5 * (np.sqrt(5.0) - 1.0)
    everything = np.arange(lo.size)
    a, b = lo.copy(), hi.copy()
    x1 = b - ratio * (b - a)
    x2 = a + ratio * (b - a)
    f1, f2 = f(x1, everything), f(x2, everything)
    for _ in range(_GOLDEN_STEPS):
        left = f1 >= f2  # the maximum lies in [a, x2]
        b = np.where(left, x2, b)
        a = np.where(left, a, x1)
        new_x1 = np.where(left, b - ratio * (b - a), x2)
        new_x2 = np.where(left, x1, a + ratio * (b - a))
        new_f1 = np.where(left, np.nan, f2)
        new_f2 = np.where(left, f1, np.nan)
        x_eval = np.where(left, new_x1, new_x2)
        fx = f(x_eval, everything)
        f1 = np.where(left, fx, new_f1)
        f2 = np.where(left, new_f2, fx)
        x1, x2 = new_x1, new_x2
    best_left = f1 >= f2
    return np.where(best_left, x1, x2), np.where(best_left, f1, f2)


def _two_sided_ends(z_low, z_high, n, log_b, q, log_alpha):
    """Asymptotically unbiased two-sided interval: hull of the accepted set and clip(z / n).

    The lower end is that of the interval of release ``z_low``, the upper end that of the
    interval of ``z_high`` (equal arrays give the interval of each release); every end is
    computed once, the inside ends of both kinds in one vectorised search and the
    outside-range scans of both kinds in one pass.
    """
    size = z_low.size
    z = np.concatenate([z_low, z_high])
    is_low = np.arange(2 * size) < size
    centre = np.clip(z / n, 0.0, 1.0)

    def logp(zz, theta):
        return _log_pvalue(zz, n, theta, log_b, q, "two-sided", "asymptotically-unbiased")

    def logp_near(zz, theta):
        # the monotone search only compares with log alpha: the reflection's correction is
        # needed only next to it (``_kernels._log_pvalue_two_sided``); not for the scan below,
        # which compares neighbouring p-values
        return _log_pvalue(zz, n, theta, log_b, q, "two-sided", "asymptotically-unbiased",
                           target=log_alpha)

    ends = centre.copy()
    inside = (z >= 0.0) & (z <= n)
    if inside.any():
        zi, low_i = z[inside], is_low[inside]
        z_q = _upper_normal_quantile(float(0.5 * np.exp(log_alpha)))
        ends[inside] = _end(logp_near, zi, centre[inside], log_alpha, lower=low_i,
                            guess=_normal_guess(zi, n, log_b, z_q, low_i), centre_in=True)
    # outside [0, n] only the end away from the edge needs the scan (the other is the edge)
    scan = np.where(is_low, z > n, z < 0.0)
    if scan.any():
        c_far = _outside_far_end(z[scan], n, log_b, q, log_alpha)
        ends[scan] = np.where(z[scan] > n, np.clip(1.0 - c_far / n, 0.0, 1.0),
                              np.clip(c_far / n, 0.0, 1.0))
    edge = ~inside & ~scan  # the low end of a release below 0, the high end above n
    ends[edge] = np.where(is_low[edge], 0.0, 1.0)
    return ends[:size], ends[size:]


def _ci_array(z, n, log_b, q, confidence_level, alternative, method, z_high=None):
    """[low, high] for each z (flat array) -> array of shape z.shape + (2,).

    ``z_high``: when given (same shape as ``z``), the upper end is computed from it and the
    lower end from ``z`` (e.g. the two ends of a release known only to a grid cell); each
    end is computed once, so this costs one interval, not two.
    """
    z_low = z
    z_high = z if z_high is None else z_high
    alpha = 1.0 - confidence_level
    zeros, ones = np.zeros_like(z_low), np.ones_like(z_low)

    def lp_greater(zz, theta):
        return _log_pvalue_greater(zz, n, theta, log_b, q)

    def lp_less(zz, theta):
        return _log_pvalue_less(zz, n, theta, log_b, q)

    if alternative == "greater":
        low = _end(lp_greater, z_low, ones, np.log(alpha), lower=True)
        return np.stack([low, ones], axis=-1)
    if alternative == "less":
        high = _end(lp_less, z_high, zeros, np.log(alpha), lower=False)
        return np.stack([zeros, high], axis=-1)
    if method == "equal-tailed":
        low = _end(lp_greater, z_low, ones, np.log(alpha / 2.0), lower=True)
        high = _end(lp_less, z_high, zeros, np.log(alpha / 2.0), lower=False)
        return np.stack([np.minimum(low, high), np.maximum(low, high)], axis=-1)
    low, high = _two_sided_ends(z_low, z_high, n, log_b, q, np.log(alpha))
    return np.stack([low, high], axis=-1)
