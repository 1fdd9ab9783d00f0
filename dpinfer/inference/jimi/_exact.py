"""DP-JIMI's exact operating characteristics (size and coverage in the infinite-draw limit) behind its warnings."""

from __future__ import annotations

import functools

import numpy as np

from ..._validation import _method, _setting
from ..._warnings import ApproximationWarning
from . import _kernels as _k
from ._common import _tails
from ..normal._kernels import _rejection_prob


#: Warn when the exact error rate (the size of a test, one minus the coverage of an
#: interval) lies more than this fraction of its nominal value alpha away from it
#: (the rule of binom_normal_test; Bradley 1978).  Intervals warn only when they
#: cover too little.
_RATE_TOLERANCE = 0.2

#: Points of the theta grid over an interval at which its exact coverage is checked.
_COVERAGE_GRID = 7


def _release_cuts(theta, level, n, epsilon, upper_side):
    """Cut points c on the proportion scale of the exact-limit rejection regions.

    ``upper_side`` True: the release rejects (the 'greater' p-value
    ``G_c(theta) = P(theta* <= theta)`` is at most ``level``) exactly when
    ``pi_hat >= c``; False: the 'less' p-value ``P(theta* >= theta)`` is at most
    ``level`` exactly when ``pi_hat <= c``.  Both p-values are monotone in
    ``pi_hat`` (``pi* = pi_hat - L`` shifts with it and the Beta law of ``theta*``
    given ``pi*`` is stochastically increasing), so each region is a half-line.
    Its end solves ``p-value = level`` by the Illinois variant of regula falsi
    in the bracket ``[-50 b, 1 + 50 b]`` (``b = 1/(epsilon n)``), all rows
    together, to ``|p-value - level| <= 1e-11`` (the kernel is accurate to about
    1e-12) or a bracket of 1e-10.  ``+inf`` (upper side) or ``-inf`` marks an empty
    region, the opposite infinity one that is everything.
    """
    scale = 1.0 / (epsilon * n)
    theta = np.atleast_1d(np.asarray(theta, float))
    level = np.broadcast_to(np.asarray(level, float), theta.shape)
    sign = -1.0 if upper_side else 1.0
    pvalue = _k._exact_cdf if upper_side else _k._exact_upper

    def h(c, rows):  # increasing in c on every row
        return sign * (pvalue(theta[rows], c, n, epsilon) - level[rows])

    everything = np.arange(theta.size)
    a = np.full(theta.size, -50.0 * scale)
    b = np.full(theta.size, 1.0 + 50.0 * scale)
    fa, fb = h(a, everything), h(b, everything)
    # The upper side rejects where h >= 0 (release >= cut), the lower side where
    # h <= 0 (release <= cut): on both, h >= 0 throughout gives cut -inf and h <= 0
    # throughout +inf (everything / nothing rejected, read with the side).
    cut = np.where(fa >= 0.0, -np.inf, np.where(fb <= 0.0, np.inf, np.nan))
    act = np.flatnonzero(np.isnan(cut))
    side_a = np.zeros(theta.size, dtype=int)  # which end was kept last time (Illinois)
    for _ in range(100):
        if act.size == 0:
            break
        denom = fb[act] - fa[act]
        c = np.where(denom > 0, (a[act] * fb[act] - b[act] * fa[act]) / np.where(denom > 0, denom, 1.0),
                     0.5 * (a[act] + b[act]))
        c = np.where((c > a[act]) & (c < b[act]), c, 0.5 * (a[act] + b[act]))
        fc = h(c, act)
        done = (np.abs(fc) <= 1e-11) | (b[act] - a[act] <= 1e-10)
        cut[act[done]] = c[done]
        pos = fc > 0
        # replace the end with the same sign; halve the kept end's value when
        # the same end is kept twice in a row (Illinois), so it cannot stall
        ia, ib = act[pos], act[~pos]
        b[ia], fb[ia] = c[pos], fc[pos]
        a[ib], fa[ib] = c[~pos], fc[~pos]
        fa[ia] = np.where(side_a[ia] == 1, 0.5 * fa[ia], fa[ia])
        fb[ib] = np.where(side_a[ib] == -1, 0.5 * fb[ib], fb[ib])
        side_a[act] = np.where(pos, 1, -1)
        act = act[~done]
    cut[act] = 0.5 * (a[act] + b[act])
    return cut


def _exact_rejection(theta, lo_level, hi_level, n, epsilon):
    """Exact-limit probability, under the true proportion ``theta`` (array), that
    ``P(theta* <= theta) <= lo_level`` or ``P(theta* >= theta) <= hi_level``
    (None: that side never rejects).

    That is the size of the test of ``p0 = theta`` ('greater': lo_level = alpha;
    'less': hi_level = alpha; 'two-sided': both alpha / 2) and one minus the
    coverage at theta of the interval with those tail levels.  Each side's
    region is a half-line of the release (:func:`_release_cuts`); its probability
    ``sum_x Binom(x; n, theta) P(x + N beyond n c)``, ``N ~ Laplace(0, 1/epsilon)``,
    is the exact finite sum of the normal approximation's power
    (:func:`dpinfer.inference.normal._rejection_prob`).
    """
    theta = np.atleast_1d(np.asarray(theta, float))
    total = np.zeros(theta.size)
    for level, upper in ((lo_level, True), (hi_level, False)):
        if level is None:
            continue
        cuts = _release_cuts(theta, level, n, epsilon, upper)
        for i, (t, c) in enumerate(zip(theta, cuts)):
            if np.isinf(c):
                total[i] += 1.0 if (c < 0) == upper else 0.0
            else:
                total[i] += float(_rejection_prob(np.array(t), n, epsilon, [(n * c, 1 if upper else -1)]))
    return np.clip(total, 0.0, 1.0)


@functools.lru_cache(maxsize=1024)
def _exact_size(n, epsilon, p0, alpha, alternative):
    """Exact-limit size of the level-alpha DP-JIMI test of p0 (cached)."""
    lo, hi = _tails(1.0 - alpha, alternative)
    return float(_exact_rejection(p0, lo, hi, n, epsilon)[0])


def _interior_grid(lows, highs):
    """``_COVERAGE_GRID`` thetas strictly inside the hull of the intervals, on the 0.001 lattice."""
    grid = np.linspace(float(np.min(lows)), float(np.max(highs)), _COVERAGE_GRID + 2)[1:-1]
    return np.unique(np.clip(np.round(grid, 3), 0.001, 0.999))


def _size_message(n, epsilon, p0, alpha, alternative):
    """The ApproximationWarning (its names as data) when the exact-limit size drifts, else None.

    Not checked at p0 = 0 or 1, where one side of the null is empty (the size of
    the test of the impossible alternative is 0 by construction).
    """
    if p0 in (0.0, 1.0):
        return None
    size = _exact_size(n, epsilon, p0, alpha, alternative)
    if abs(size - alpha) <= _RATE_TOLERANCE * alpha:
        return None
    kind = "liberal: it rejects a true null too often" if size > alpha else "conservative: it loses power"
    return ApproximationWarning(
        f"DP-JIMI is inaccurate here: for n = {n}, p0 = {p0:g}, epsilon = {epsilon:g} and ",
        _setting("alternative", alternative, f"alternative = {alternative!r}"),
        f" the exact (infinite-draw) size of the nominal level-{alpha:g} "
        f"test is {size:.4g}, more than {_RATE_TOLERANCE:.0%} away from {alpha:g} ({kind}). "
        "For a Tulap release ", _method("ump", "binom_ump_test"), " is exact."
    )


_COVERAGE_CACHE = {}
_COVERAGE_CACHE_SIZE = 4096


def _coverage_at(grid, n, epsilon, lo_tail, hi_tail):
    """Exact-limit coverage at each theta of ``grid`` (values on a 1e-3 lattice, cached)."""
    keys = [(n, epsilon, lo_tail, hi_tail, float(t)) for t in grid]
    todo = [i for i, key in enumerate(keys) if key not in _COVERAGE_CACHE]
    if todo:
        rates = _exact_rejection(np.asarray(grid)[todo], lo_tail, hi_tail, n, epsilon)
        if len(_COVERAGE_CACHE) + len(todo) > _COVERAGE_CACHE_SIZE:
            _COVERAGE_CACHE.clear()
        for i, rate in zip(todo, rates):
            _COVERAGE_CACHE[keys[i]] = 1.0 - float(rate)
    return np.array([_COVERAGE_CACHE[key] for key in keys])


def _coverage_message(lows, highs, n, epsilon, confidence_level, alternative):
    """The ApproximationWarning (its names as data) when the exact-limit coverage falls short, else None.

    Coverage is computed at ``_COVERAGE_GRID`` values of theta spread evenly
    inside the hull of the reported intervals (the values the data do not rule
    out; its two ends excluded), rounded to the lattice 0.001, ..., 0.999 (so
    that repeated calls reuse them).
    """
    alpha = 1.0 - confidence_level
    lo_tail, hi_tail = _tails(confidence_level, alternative)
    grid = _interior_grid(lows, highs)
    coverage = _coverage_at(grid, n, epsilon, lo_tail, hi_tail)
    worst = int(np.argmin(coverage))
    if coverage[worst] >= confidence_level - _RATE_TOLERANCE * alpha:
        return None
    return ApproximationWarning(
        f"DP-JIMI interval covers too little here: for n = {n}, epsilon = {epsilon:g} and ",
        _setting("alternative", alternative, f"alternative = {alternative!r}"),
        f" its exact (infinite-draw) coverage at theta = "
        f"{grid[worst]:.4g}, inside the interval, is {coverage[worst]:.4g}, below the nominal "
        f"{confidence_level:g} by more than {_RATE_TOLERANCE * alpha:.3g} (20% of 1 - level). "
        "For a Tulap release ", _method("ump", "binom_ump_ci"), " has guaranteed coverage."
    )
