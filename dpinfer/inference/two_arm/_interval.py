"""Intervals by inverting the exact two-arm tests (kernels; valid input assumed).

Two-sided intervals invert the two one-sided tests at ``alpha / 2`` each (the "tail method"
of Chan & Zhang 1999): the interval is ``[L, U]`` with ``L`` the end of
``{Delta0 : p_greater(Delta0) <= alpha / 2}`` and ``U`` the start of
``{Delta0 : p_less(Delta0) <= alpha / 2}``.  A one-sided interval inverts one test at
``alpha``.

*Risk difference.*  ``p_greater(Delta0)`` is non-decreasing in ``Delta0``: every point of the
null line of ``Delta0`` is dominated, for the upper tail, by a point of the line of a larger
``Delta0'`` (raise ``theta1`` to ``nu + Delta0'`` or, where that passes 1, take
``(1, 1 - Delta0')``, which lowers ``theta2``), and the statistic does not depend on
``Delta0``.  So the accepted set is an interval and is found by bisection.  Coverage: the
true difference is excluded only when one of the two valid one-sided p-values at it is at
most ``alpha / 2``, so the coverage is at least ``1 - alpha`` at every ``(theta1, theta2)``.
Never empty: at every ``Delta0`` one of the two suprema is at least 1/2 (the two tails at
any one nuisance value add to 1), so each ``Delta0`` is accepted by at least one of the one-sided
tests and ``L <= U``.

*Risk difference, score ordering.*  The score statistic's ordering moves with ``Delta0``, so
the p-values are not monotone in it (at n = 15 the one-sided p-value drops by up to 0.07 as
``Delta0`` grows), and the end is found as the ratio's are below, on an 81-point scan of
``(-1, 1)`` (the same caveat: the interval is the hull of what the scan accepts).

*Risk ratio.*  The statistic ``Z1/n1 - rho0 Z2/n2`` moves with ``rho0``, so monotonicity is
not automatic; each end is bracketed by a 49-point scan of ``log rho0`` over ``[1e-6, 1e6]``
(the outermost accepted scan point, checked with the full supremum) and then found by the
root search, and the interval is the hull of what the scan accepts: it contains every
accepted scan point, but a value accepted only between two scan points beyond that hull
would be missed (the tests compute the coverage exactly at a few points).

*Odds ratio.*  Found as the ratio's, on ``log psi0``, under the score ordering (the only one:
:func:`._arguments._ordering`); the ordering moves with ``psi0``, so the p-value may jump at
an end (the end is then where it jumps below the level).
"""

from __future__ import annotations

import math

import numpy as np
from ..._progress import SILENT
from .._roots import find_root, last_rejected
from ._arguments import MARGIN_RANGE
from ._score import _Observed
from ._supremum import GRID, STEP_UNITS, SUP_UNITS, _effective, _null, _on_line, _plan, _pvalues

__all__ = []  # private module

#: root tolerance on the effect scale (difference) or on log(rho) (ratio)
XTOL = 1e-9
#: grid points of the supremum while an end is bracketed (the answer is checked with GRID)
_COARSE = 17
_RATIO_RANGE = MARGIN_RANGE
#: margins scanned for an end of the score ordering's risk-difference interval
_SCAN = 81


def _one_sided_p(arm1, arm2, effect, margin, t_of, upper, points=GRID, certify=True, progress=SILENT):
    null = _null(effect, margin)
    alternative = "greater" if upper else "less"
    return _pvalues(arm1, arm2, null, t_of(margin), alternative, points, certify, progress)[0]


def _p_function(arm1, arm2, effect, margin_of, t_of, lower, progress=SILENT):
    """``p(x, points, certify)``: the one-sided p-value at the margin ``margin_of(x)``, remembered.

    ``certify=True`` (the default) is the reported p-value, the certified supremum;
    ``certify=False`` the located one, which the scans and brackets use.  ``progress``:
    ``STEP_UNITS`` per located supremum, ``SUP_UNITS`` per certified one (:func:`._test._sup_tail`).
    """
    memo = {}

    def p(x, points=GRID, certify=True):
        key = (x, points, certify)
        if key not in memo:
            part = progress.part(SUP_UNITS if certify else STEP_UNITS)
            memo[key] = _one_sided_p(arm1, arm2, effect, margin_of(x), t_of, lower, points, certify, part)
            part.close()
        return memo[key]

    return p


def _bisect(p, level, low, high, coarse=None, start=None):
    """The boundary of ``{x : p(x) > level}`` for ``p`` non-decreasing, ``p(low) <= level < p(high)``.

    Brent's root of ``coarse - level`` (``coarse`` a quicker version of ``p``, a located
    supremum over fewer grid points, by default ``p`` itself; both are continuous: suprema
    of continuous tails over a line that moves continuously), then stepped down until ``p``
    itself (the certified p-value) does *not* accept it, with a bisection on ``p`` as the
    fallback: the closed interval reaching the returned point contains every value ``p``
    accepts.  The bracket may come from a located supremum; should ``p`` accept ``low``
    itself, ``start`` (the end of the whole range) is returned.
    """
    coarse = p if coarse is None else coarse
    try:
        root = find_root(lambda x: coarse(x) - level, low, high, xtol=XTOL, rtol=4 * np.finfo(float).eps,
                         maxiter=100)
    except ValueError:  # the quicker version does not change sign on the bracket
        root = high
    for step in (XTOL, 4.0 * XTOL, 16.0 * XTOL):
        x = max(low, root - step)
        if not p(x) > level:
            return x
    low = last_rejected(lambda x: p(x) > level, low, high, XTOL)
    if start is not None and p(low) > level:
        return start
    return low


def _bracket(p, level, centre, scale, low, high):
    """A bracket ``(a, b)`` inside ``[low, high]`` with ``p(a) <= level < p(b)``, from ``centre``."""
    a, b = max(low, centre - scale), min(high, centre + scale)
    while a > low and p(a) > level:
        a, scale = max(low, a - 2.0 * scale), 2.0 * scale
    while b < high and not p(b) > level:
        b, scale = min(high, b + 2.0 * scale), 2.0 * scale
    return a, b


def _difference_ends(arm1, arm2, z1, z2, level_tail, lower, progress=SILENT):
    """``L`` (``lower``) or ``U`` of the risk-difference interval, one tail at ``level_tail``."""
    difference = t = z1 / arm1.n - z2 / arm2.n
    sign = 1.0 if lower else -1.0  # the upper end is the lower end of the mirrored problem
    p = _p_function(arm1, arm2, "difference", lambda d: sign * d, lambda _m: t, lower, progress)

    def located(d):
        return p(d, GRID, False)

    def coarse(d):
        return p(d, _COARSE, False)

    if p(-1.0) > level_tail:
        return sign * -1.0
    if not p(1.0) > level_tail:
        return sign * 1.0
    # the scale of a binomial difference plus the noise, to start the bracket near the end
    spread = math.sqrt(0.25 / arm1.n + 0.25 / arm2.n + 4.0 / (arm1.epsilon * arm1.n) ** 2
                       + 4.0 / (arm2.epsilon * arm2.n) ** 2)
    centre = min(max(sign * difference - 2.0 * spread, -1.0), 1.0)
    a, b = _bracket(located, level_tail, centre, spread, -1.0, 1.0)
    if a > -1.0 and not located(a) <= level_tail or not located(b) > level_tail:
        a, b = -1.0, 1.0
    return sign * _bisect(p, level_tail, a, b, coarse, start=-1.0)


def _ratio_ends(arm1, arm2, z1, z2, level_tail, lower, statistic="difference", effect="ratio", progress=SILENT):
    """``L`` (``lower``) or ``U`` of the risk-ratio (or odds-ratio) interval on ``[0, inf]``.

    Mirrored for the upper end (``x = -log rho``), so that in both cases the accepted scan
    points start at some index: the scan uses the quicker supremum, and the scan points
    below the first accepted one are then checked with the full supremum (which can only
    accept more), walking down while they are accepted.
    """
    sign = 1.0 if lower else -1.0
    p = _p_function(arm1, arm2, effect, lambda x: math.exp(sign * x),
                    _statistic_of(arm1, arm2, z1, z2, statistic), lower, progress)

    def coarse(x):
        return p(x, _COARSE, False)

    root = "coarse"
    if effect == "odds-ratio":  # the score's tail has many local maxima on the curve: no refinement
        coarse = _grid_coarse(arm1, arm2, effect, lambda x: math.exp(sign * x), _Observed(z1, z2), lower,
                              progress)
        root = "full"
    lo, hi = (math.log(v) for v in _RATIO_RANGE)
    x = _scanned_end(p, coarse, np.linspace(lo, hi, 49), level_tail, root)
    if x is None:
        return math.inf if lower else 0.0
    if x == -math.inf:
        return 0.0 if lower else math.inf
    return math.exp(sign * x)


def _scanned_end(p, coarse, scan, level_tail, root="coarse"):
    """The lower end of ``{x : p(x) > level_tail}`` from a scan (``p`` need not be monotone).

    The first scan point the quicker supremum accepts, walked down while the full (located)
    one accepts the points below, then the root search between it and the point below (on
    the quicker supremum, or with ``root='full'`` on the located one: where the quicker one
    is a coarse lower bound, its root is too far out and the search would end in a bisection
    on ``p``), its answer checked with the certified ``p``.  Returns ``-inf`` when the first
    scan point is accepted, None when none is.
    """
    def located(x):
        return p(x, GRID, False)

    j = next((i for i, x in enumerate(scan) if coarse(x) > level_tail), None)  # the first only
    if j is None:
        j = next((i for i, x in enumerate(scan) if located(x) > level_tail), None)
        if j is None:
            return None
    while j > 0 and located(scan[j - 1]) > level_tail:
        j -= 1
    if j == 0:
        return -math.inf
    if not located(scan[j]) > level_tail:  # the quicker supremum accepted it; so must the full one
        j = min(j + 1, len(scan) - 1)
        while j < len(scan) - 1 and not located(scan[j]) > level_tail:
            j += 1
    return _bisect(p, level_tail, scan[j - 1], scan[j], coarse if root == "coarse" else located,
                   start=-math.inf)


def _score_difference_ends(arm1, arm2, z1, z2, level_tail, lower, progress=SILENT):
    """``L`` or ``U`` of the risk-difference interval under the score ordering.

    The ordering moves with ``Delta0``, so the one-sided p-value is not monotone in it (drops
    of several percent occur at small n): the end is found as the ratio's are, by a scan of
    ``_SCAN`` margins on ``(-1, 1)`` and the root search next to the first accepted one
    (mirrored, ``x = -Delta0``, for the upper end).
    """
    sign = 1.0 if lower else -1.0
    observed = _Observed(z1, z2)
    p = _p_function(arm1, arm2, "difference", lambda x: sign * x, lambda _m: observed, lower, progress)
    coarse = _grid_coarse(arm1, arm2, "difference", lambda x: sign * x, observed, lower, progress)
    edge = 1.0 - 1e-9
    x = _scanned_end(p, coarse, np.linspace(-edge, edge, _SCAN), level_tail, root="full")
    if x is None:
        return sign * 1.0
    if x == -math.inf:
        return sign * -1.0
    return sign * x


def _grid_coarse(arm1, arm2, effect, margin_of, observed, lower, progress=SILENT):
    """``coarse(x)``: a lower bound of the supremum at the margin ``margin_of(x)``, remembered.

    The largest tail on a ``_COARSE``-point grid of the null curve, unrefined (the score
    ordering's tails have many local maxima, whose refinement the scan need not pay for);
    ``STEP_UNITS`` of ``progress`` per new margin.
    """
    memo = {}

    def coarse(x):
        if x not in memo:
            null = _null(effect, margin_of(x))
            tail = _plan(arm1, arm2, null, _effective(arm1, arm2, null, observed, lower), lower)
            memo[x] = float(np.max(_on_line(tail, null, np.linspace(null.low, null.high, _COARSE))))
            progress.advance(STEP_UNITS)
        return memo[x]

    return coarse


def _statistic_of(arm1, arm2, z1, z2, statistic):
    """The observed statistic as a function of the null ratio (the linear one moves with it)."""
    if statistic == "score":
        return lambda _r: _Observed(z1, z2)
    return lambda r: z1 / arm1.n - r * z2 / arm2.n


def _end_units(effect, statistic):
    """The units one end typically uses: ``STEP_UNITS`` per located supremum, ``SUP_UNITS`` per
    certified one (counted at n = 60, in ``STEP_UNITS``: 41-42 for the difference, 37-46 for
    the ratio's scan and root search, 45-57 for the score's)."""
    if effect != "difference":
        return 46 * STEP_UNITS
    return (58 if statistic == "score" else 42) * STEP_UNITS


def _interval(arm1, arm2, z1, z2, effect, confidence_level, alternative, statistic="difference",
              progress=SILENT):
    """``(low, high)`` of the interval for the difference, the ratio or the odds ratio.

    ``progress`` gets ``_end_units`` units per end computed (an end that needs fewer jumps to
    its part's end, one that needs more stops at it).
    """
    alpha = 1.0 - confidence_level
    ends = _ratio_ends
    if effect == "difference":
        ends = _score_difference_ends if statistic == "score" else _difference_ends
    full = (-1.0, 1.0) if effect == "difference" else (0.0, math.inf)
    tail = alpha / 2.0 if alternative == "two-sided" else alpha
    extra = (statistic, effect) if ends is _ratio_ends else ()
    units = _end_units(effect, statistic)

    def end(lower):
        progress.step("lower end" if lower else "upper end")
        part = progress.part(units)
        out = ends(arm1, arm2, z1, z2, tail, lower, *extra, progress=part)
        part.close()
        return out

    low = end(True) if alternative != "less" else full[0]
    high = end(False) if alternative != "greater" else full[1]
    return low, max(low, high)


def _interval_units(effect, alternative, statistic):
    """The units of :func:`_interval`'s progress."""
    return _end_units(effect, statistic) * (2 if alternative == "two-sided" else 1)
