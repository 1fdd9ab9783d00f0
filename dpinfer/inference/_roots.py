"""The one place for the root finders and monotone searches of the inference methods.

Package-internal.  Every iteration that solves an equation or locates a crossing
lives here, so that tolerances and safeguards are written once:

* :func:`find_roots`: the vectorised bracketed root finder (Illinois, below), for
  every method that solves ``g(x) = 0`` for many rows at once (DP-UMP interval ends,
  DP-JIMI's rejection cuts);
* :func:`newton_roots`: vectorised Newton steps safeguarded by a bracket, for an
  increasing ``g`` whose slope comes at no extra cost with its value (DP-JIMI's
  exact quantiles, where the slope is the mixed Beta density);
* :func:`bisect_predicate`: where a predicate (a covering status, true on one side
  of a point) changes, by bisection (the normal approximation's covering sets);
* :func:`find_root`: Brent's method from scipy, for a scalar equation whose function
  cannot be vectorised (the DP-UMP test thresholds, the nested UMPU solve, DP-JIMI's
  two-sample quantile), with :func:`expand_bracket` and
  :func:`expand_bracket_within` to find its bracket from a starting guess;
* :func:`integer_bracket` and :func:`smallest_integer`: the smallest integer at
  which a monotone criterion holds (the DP-UMP and two-arm sample sizes), by a
  geometric bracket and false position on ``sqrt(n)`` with bisection as a safeguard;
* :func:`first_index` and :func:`last_rejected`: plain bisections of a monotone scalar
  predicate, over indices (the two-arm score ordering's critical level) or over a real
  bracket (the two-arm interval's fallback when its Brent root does not check out).

The compiled DP-UMP kernels (``ump/_jit.py``) compile the two bookkeeping steps of
:func:`find_roots`, :func:`illinois_propose` and :func:`illinois_update`, from this
source with numba (so they are written in the array subset numba compiles: no
``np.errstate``), the same doubles as their numpy run (checked in the tests).

**Algorithm of** :func:`find_roots`.  Per row a bracket ``[inside, outside]`` with ``g(inside) > 0 >=
g(outside)``; the false-position point of the bracket, with the Illinois
modification (the stale end's ``g`` is halved when the same end moves twice
running) so the convergence is superlinear, and a bisection step whenever the
point leaves the bracket or the bracket fails to halve over six steps, so the worst
case is bisection's (Dowell & Jarratt 1971, BIT 11, "A modified regula falsi
method for computing the root of an equation").  All rows still moving are
evaluated in one vectorised call of ``g``.  A row stops when ``|g| <= ftol`` (the
estimate is then that point) or its bracket is at most ``xtol + xrtol max(|x|,
1e-300)`` wide (the estimate is then the bracket's midpoint).
"""

from __future__ import annotations

import numpy as np

__all__ = []  # package-internal


def illinois_propose(a, b, ga, gb, width0, step):
    """False-position point per row, bisection where it leaves the bracket or the bracket
    shrank by less than half over the last six steps (``width0`` updated in place)."""
    x = (a * gb - b * ga) / (gb - ga)
    lo_end, hi_end = np.minimum(a, b), np.maximum(a, b)
    slow = (step % 6 == 5) & (np.abs(b - a) > 0.5 * width0)
    bad = ~((x > lo_end) & (x < hi_end)) | slow  # a NaN point (0 / 0) bisects too
    x = np.where(bad, 0.5 * (a + b), x)
    if step % 6 == 5:
        width0[:] = np.abs(b - a)
    return x


def illinois_update(a, b, ga, gb, side, x, gx, ftol=1e-14, xtol=0.0, xrtol=4e-16):
    """Move one end of each bracket to x (in place; Illinois: halve the stale end's g when
    the same end moves twice running); returns (done, current estimate) per row."""
    into_a = gx > 0.0
    gb[:] = np.where(into_a & (side == 1), 0.5 * gb, gb)
    ga[:] = np.where(~into_a & (side == -1), 0.5 * ga, ga)
    a[:] = np.where(into_a, x, a)
    ga[:] = np.where(into_a, gx, ga)
    b[:] = np.where(into_a, b, x)
    gb[:] = np.where(into_a, gb, gx)
    side[:] = np.where(into_a, 1, -1)
    width = np.abs(b - a)
    exact = np.abs(gx) <= ftol
    done = (width <= xtol + xrtol * np.maximum(np.abs(x), 1e-300)) | exact
    return done, np.where(exact, x, 0.5 * (a + b))


def find_roots(g, inside, outside, g_in, g_out, *, ftol=1e-14, xtol=0.0, xrtol=4e-16,
               max_iter=200, steps=None):
    """Roots of ``g(x, rows) = 0`` per row, bracketed by ``inside`` (g > 0) and ``outside`` (g <= 0).

    ``g(x, rows)`` evaluates the rows ``rows`` (indices into the original rows) at
    the points ``x``; ``g_in``, ``g_out`` are its values at the bracket ends (a row
    whose ``g_in`` is not positive is treated as ``1e-300``, one whose ``g_out`` is
    positive as 0).  ``steps``: the two bookkeeping functions ``(propose, update)``
    (default: :func:`illinois_propose` and :func:`illinois_update` with the given
    tolerances; the compiled DP-UMP kernels pass these, compiled).  Returns the
    estimates (the midpoint of the last bracket for rows still moving after
    ``max_iter`` evaluations).
    """
    a, b = np.array(inside, dtype=float), np.array(outside, dtype=float)
    if steps is None:
        propose = illinois_propose

        def update(a, b, ga, gb, side, x, gx):
            return illinois_update(a, b, ga, gb, side, x, gx, ftol, xtol, xrtol)
    else:
        propose, update = steps
    ga = np.where(np.asarray(g_in, dtype=float) > 0.0, g_in, 1e-300)
    gb = np.minimum(np.asarray(g_out, dtype=float), 0.0)
    out = 0.5 * (a + b)
    side = np.zeros(a.size, dtype=np.int8)  # +1: last step moved a, -1: moved b
    width0 = np.abs(b - a)
    rows = np.arange(a.size)  # the rows still moving; a, b, ... hold only those
    for step in range(max_iter):
        if rows.size == 0:
            break
        x = propose(a, b, ga, gb, width0, step)
        gx = np.asarray(g(x, rows), dtype=float)
        done, value = update(a, b, ga, gb, side, x, gx)
        out[rows] = value
        if done.any():
            keep = ~done
            rows, a, b, ga, gb, side, width0 = (
                rows[keep], a[keep], b[keep], ga[keep], gb[keep], side[keep], width0[keep])
    return out


def bisect_predicate(pred, a, b, left, iterations=60):
    """Locate per row the point where ``pred(x, rows)`` changes from ``left`` (at ``a``) to not.

    ``pred`` returns booleans; each row's bracket ``[a, b]`` is halved
    ``iterations`` times (all rows in one call per halving).  Returns the midpoints.
    """
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    rows = np.arange(a.size)
    for _ in range(iterations):
        mid = 0.5 * (a + b)
        same_as_left = pred(mid, rows) == left
        a = np.where(same_as_left, mid, a)
        b = np.where(same_as_left, b, mid)
    return 0.5 * (a + b)


def find_root(f, lo, hi, *, xtol, rtol, maxiter=500):
    """One root of the scalar ``f`` in ``[lo, hi]`` (a sign change), by Brent's method.

    :func:`scipy.optimize.brentq` (imported on first use, for start-up time), for
    the solves whose function takes one point at a time.
    """
    from scipy.optimize import brentq

    return brentq(f, lo, hi, xtol=xtol, rtol=rtol, maxiter=maxiter)


def newton_roots(g, x0, lo, hi, *, xtol, ftol, max_iter=100):
    """Roots of an increasing ``g`` per row: Newton steps kept inside a shrinking bracket.

    ``g(x, rows)`` returns ``(value, slope)`` at the points ``x`` of the rows ``rows``
    (indices into the original rows); per row ``g(lo) <= 0 < g(hi)`` (``g`` may be
    discontinuous only where a bracket end starts).  Each step evaluates the rows
    still moving at once, moves the end on the same side as the point to it, and takes
    the Newton step ``x - g / slope`` if it falls strictly inside the bracket, else
    the bracket's midpoint (a degenerate or infinite slope included).  A row stops
    when ``|g| <= ftol`` (the root is that point) or when its bracket is at most
    ``xtol`` wide (the root is then the upper end ``hi``, the smallest point known to
    have ``g > 0``, so an inverse-cdf convention ``inf{t : G(t) >= level}`` is kept);
    a row still moving after ``max_iter`` steps also returns its upper end.
    """
    x = np.array(x0, dtype=float)
    lo, hi = np.array(lo, dtype=float), np.array(hi, dtype=float)
    root = np.empty(x.size)
    done = np.zeros(x.size, dtype=bool)
    for _ in range(max_iter):
        idx = np.flatnonzero(~done)
        if idx.size == 0:
            break
        xi = x[idx]
        f, d = g(xi, idx)
        below = f < 0
        lo[idx] = np.where(below, xi, lo[idx])
        hi[idx] = np.where(below, hi[idx], xi)
        hit = np.abs(f) <= ftol
        conv = hit | (hi[idx] - lo[idx] <= xtol)
        root[idx] = np.where(hit, xi, hi[idx])
        done[idx] = conv
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step = xi - f / d
        ok = np.isfinite(step) & (step > lo[idx]) & (step < hi[idx])
        x[idx] = np.where(ok, step, 0.5 * (lo[idx] + hi[idx]))
    return np.where(done, root, hi)


def expand_bracket(f, start, step, decreasing=True):
    """(lo, hi) around the root of a monotone scalar ``f``, expanding geometrically from ``start``.

    The end that moves steps by ``step``, doubled at every move, until ``f`` changes
    sign (``decreasing``: ``f > 0`` below the root).  No limit: the caller makes sure
    a sign change exists.
    """
    lo = hi = float(start)
    flo = fhi = f(lo)
    if (flo > 0.0) == decreasing:  # root above start
        while (fhi > 0.0) == decreasing:
            lo, flo = hi, fhi
            hi = hi + step
            step *= 2.0
            fhi = f(hi)
    else:
        while (flo > 0.0) != decreasing:
            hi, fhi = lo, flo
            lo = lo - step
            step *= 2.0
            flo = f(lo)
    return lo, hi


def expand_bracket_within(f, start, step, low, high):
    """As :func:`expand_bracket` (``f`` decreasing) but within ``[low, high]``.

    Returns ``(None, None)`` when ``f`` does not change sign there, ``(x, x)`` when it
    is zero at the (clipped) start.
    """
    lo = hi = min(max(float(start), low), high)
    flo = fhi = f(lo)
    if flo == 0.0:
        return lo, lo
    while (fhi > 0.0) if flo > 0.0 else (flo <= 0.0):
        if flo > 0.0:
            if hi >= high:
                return None, None
            lo, flo = hi, fhi
            hi = min(hi + step, high)
            fhi = f(hi)
        else:
            if lo <= low:
                return None, None
            hi, fhi = lo, flo
            lo = max(lo - step, low)
            flo = f(lo)
        step *= 2.0
    return lo, hi


def integer_bracket(reaches, start, limit, first_step=None):
    """(lo, hi) with ``reaches(hi)`` and (``lo == 0`` or not ``reaches(lo)``), integers.

    ``reaches`` is a criterion on the integers ``n >= 1`` that is false up to some
    point and true after it; the bracket grows from ``start`` by steps of 10% of it
    (at least 1; ``first_step`` when given, for a start known to be close), doubled at
    every move.  Returns None when the criterion still fails at ``limit``.
    """
    hi = start
    if reaches(hi):
        step = first_step or max(hi // 10, 1)
        lo = hi - step
        while lo >= 1 and reaches(lo):
            hi = lo
            step *= 2
            lo = hi - step
        return max(lo, 0), hi
    lo = hi
    step = first_step or max(hi // 10, 1)
    while True:
        if lo >= limit:
            return None
        hi = min(lo + step, limit)
        if reaches(hi):
            return lo, hi
        lo = hi
        step *= 2


def smallest_integer(reaches, gauge, lo, hi):
    """The smallest integer ``n`` in ``(lo, hi]`` with ``reaches(n)``, from :func:`integer_bracket`.

    ``gauge(n)`` is a continuous measure of how far ``n`` is from the criterion
    (negative where it fails, e.g. the probit of a power minus the probit of the
    target), nearly linear in ``sqrt(n)``: each step proposes the false-position point
    of the bracket on ``sqrt(n)`` (Illinois: the stale end's gauge halved when the same
    end moves twice running), rounded up to an integer strictly inside, and bisects
    after three proposals running that fail to halve the bracket.  The answer is
    checked at the end: it steps down while its predecessor also reaches (a guard
    against a criterion that is not quite monotone).  ``gauge`` and ``reaches`` are
    called on the same few points; the caller caches them.
    """
    g_lo = gauge(lo) if lo > 0 else None
    g_hi = gauge(hi)
    side, stalls = 0, 0
    while hi - lo > 1:
        width = hi - lo
        mid = (lo + hi) // 2
        guessed = False
        if g_lo is not None and stalls < 3 and g_hi > g_lo:
            r_lo, r_hi = np.sqrt(lo), np.sqrt(hi)
            guess = (r_lo - g_lo * (r_hi - r_lo) / (g_hi - g_lo)) ** 2
            mid = int(min(max(np.ceil(guess), lo + 1), hi - 1))
            guessed = True
        if reaches(mid):
            hi, g_hi = mid, gauge(mid)
            if side == 1 and g_lo is not None:
                g_lo *= 0.5  # Illinois: the same end moved twice, halve the other's weight
            side = 1
        else:
            lo, g_lo = mid, gauge(mid)
            if side == -1:
                g_hi *= 0.5
            side = -1
        stalls = stalls + 1 if guessed and (hi - lo) > 0.5 * width else 0
    while hi > 1 and reaches(hi - 1):
        hi -= 1
    return int(hi)


def first_index(holds, lo, hi):
    """The smallest index in ``(lo, hi]`` where the monotone ``holds`` is true (``holds(hi)`` is).

    ``lo`` is an index where it is false, or one below the first index (never evaluated).
    """
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi


def last_rejected(accepts, low, high, xtol):
    """The end of ``{x : not accepts(x)}`` up to ``xtol``: a point it does not accept.

    ``accepts`` is monotone (false at ``low``, true at ``high``); the bracket is halved
    until it is at most ``xtol`` wide and its low end is returned.
    """
    while high - low > xtol:
        mid = (low + high) / 2.0
        if accepts(mid):
            high = mid
        else:
            low = mid
    return low
