"""The one bracketed root finder of the inference methods: vectorised Illinois.

Package-internal.  Every method that solves ``g(x) = 0`` for many rows at once
(DP-UMP interval ends and test thresholds, DP-JIMI's rejection cuts, the normal
approximation's covering sets) calls :func:`find_roots`; a predicate (a covering
status, true on one side of a point) is located by :func:`bisect_predicate`; a
scalar equation whose function cannot be vectorised (the DP-UMP test thresholds,
the nested UMPU solve, DP-JIMI's two-sample quantile) goes to :func:`find_root`,
Brent's method from scipy.
The compiled DP-UMP kernels (``ump/_jit.py``) hold a numba twin of the two
bookkeeping steps, :func:`illinois_propose` and :func:`illinois_update`, checked
against these in the tests.

**Algorithm.**  Per row a bracket ``[inside, outside]`` with ``g(inside) > 0 >=
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
    with np.errstate(invalid="ignore"):
        bad = ~((x > lo_end) & (x < hi_end)) | slow
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
    tolerances; the compiled DP-UMP kernels pass their numba twins).  Returns the
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
