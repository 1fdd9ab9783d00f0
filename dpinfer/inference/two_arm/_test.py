"""The exact unconditional two-arm test: the supremum over the nuisance and the p-values.

Kernels (valid input assumed).  The null set of a one-sided test is reduced to its boundary
line (the tail of ``T`` is increasing in ``theta1`` and decreasing in ``theta2``), which is
parametrised by ``nu = theta2``:

* ``'difference'``, margin ``Delta0``: ``theta1 = nu + Delta0``, ``nu`` in
  ``[max(0, -Delta0), min(1, 1 - Delta0)]``, statistic ``T = Z1/n1 - Z2/n2``;
* ``'ratio'``, margin ``rho0``: ``theta1 = rho0 nu``, ``nu`` in ``[0, min(1, 1/rho0)]``,
  statistic ``T = Z1/n1 - rho0 Z2/n2``.

:func:`_sup_tail` locates the supremum (grid, then bounded Brent refinement of every grid
maximum that a monotone bound cannot rule out); :func:`_certify` bounds what the grid can
miss: on a cell ``[a, b]`` of the line the tail is at most its value at the corner
``(theta1(b), a)`` (``(theta1(a), b)`` for the lower tail), by monotonicity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ._law import _pmfs, _statistic_tail, _tail_plan

__all__ = []  # private module

#: grid points on the null line before refinement
GRID = 65
#: Brent's tolerance in nu for each refined maximum (the tail is smooth: error ~ 1e-24 in p)
XATOL = 1e-12


@dataclass(frozen=True)
class _Null:
    """The boundary line of a null hypothesis: ``theta1 = slope * nu + shift``, ``nu`` in [low, high]."""

    effect: str
    margin: float
    low: float
    high: float

    @property
    def coefficient(self):
        """``c`` of the statistic ``T = Z1/n1 - c Z2/n2``."""
        return 1.0 if self.effect == "difference" else self.margin

    def theta1(self, nu):
        nu = np.asarray(nu, float)
        out = nu + self.margin if self.effect == "difference" else self.margin * nu
        return np.clip(out, 0.0, 1.0)


def _null(effect, margin):
    if effect == "difference":
        return _Null(effect, float(margin), max(0.0, -margin), min(1.0, 1.0 - margin))
    return _Null(effect, float(margin), 0.0, min(1.0, 1.0 / margin))


def _plan(arm1, arm2, null, t, upper):
    """The tail of ``T`` beyond ``t`` as a function of ``(theta1, theta2)``."""
    return _tail_plan(arm1, arm2, 1.0 / arm1.n, -null.coefficient / arm2.n, t, upper)


def _on_line(tail, null, nu):
    nu = np.atleast_1d(np.asarray(nu, float))
    return tail(null.theta1(nu), nu)


def _corner_bound(tail, null, a, b, upper):
    """Upper bounds of the tail over the cells ``[a, b]`` of the line (monotonicity)."""
    if upper:
        return tail(null.theta1(b), a)
    return tail(null.theta1(a), b)


@dataclass(frozen=True)
class _Sup:
    value: float
    nu: float


def _sup_tail(arm1, arm2, null, t, upper, points=GRID):
    """``sup_nu P_nu(T >= t)`` (``upper``) or ``sup_nu P_nu(T <= t)`` on the null line.

    ``points`` grid points (65 by default; the interval search uses fewer while it
    brackets, then checks its answer with the default).
    """
    tail = _plan(arm1, arm2, null, t, upper)
    if null.high <= null.low:
        return _Sup(float(_on_line(tail, null, null.low)[0]), float(null.low))
    grid = np.linspace(null.low, null.high, points)
    p1, p2 = _pmfs(arm1, null.theta1(grid)), _pmfs(arm2, grid)
    values = tail.from_pmfs(p1, p2)
    best = int(np.argmax(values))
    out = _Sup(float(values[best]), float(grid[best]))
    # the corner bounds pair neighbouring grid rows: (theta1(b), a) upper, (theta1(a), b) lower
    first, second = (slice(1, None), slice(None, -1)) if upper else (slice(None, -1), slice(1, None))
    bounds = tail.from_pmfs([p[first] for p in p1], [p[second] for p in p2])
    # refine every grid maximum whose neighbouring cells could hold more than the best value
    last = points - 1
    peaks = [i for i in range(points)
             if (i == 0 or values[i] >= values[i - 1]) and (i == last or values[i] >= values[i + 1])]
    peaks.sort(key=lambda i: -values[i])
    for i in peaks:
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, last)]
        reach = max(bounds[max(i - 1, 0)], bounds[min(i, last - 1)])
        if reach <= out.value:
            continue
        if i in (0, last):
            # a maximum at an end of the line: refine only if the tail rises inwards
            inward = grid[i] + (1e-7 if i == 0 else -1e-7) * (null.high - null.low)
            if float(_on_line(tail, null, inward)[0]) <= values[i]:
                continue
        res = optimize.minimize_scalar(
            lambda nu: -float(_on_line(tail, null, nu)[0]),
            bounds=(lo, hi), method="bounded", options={"xatol": XATOL})
        if -res.fun > out.value:
            out = _Sup(float(-res.fun), float(res.x))
    return out


def _certify(arm1, arm2, null, t, upper, located, *, rounds=30, max_cells=4096):
    """A certified upper bound on the supremum: bisect cells whose corner bound exceeds it.

    Returns the bound ``>= sup``: the largest corner bound left when every cell's bound is at
    most ``located * (1 + 1e-12)``, or when the budget (``rounds`` bisections, ``max_cells``
    open cells) runs out.
    """
    tail = _plan(arm1, arm2, null, t, upper)
    a = np.linspace(null.low, null.high, GRID)
    lo, hi = a[:-1], a[1:]
    bound = _corner_bound(tail, null, lo, hi, upper)
    best = located
    for _ in range(rounds):
        open_ = bound > best * (1.0 + 1e-12)
        if not open_.any() or open_.sum() > max_cells:
            break
        keep_lo, keep_hi = lo[~open_], hi[~open_]
        keep_bound = bound[~open_]
        mid = (lo[open_] + hi[open_]) / 2.0
        best = max(best, float(np.max(_on_line(tail, null, mid))))
        new_lo = np.concatenate([lo[open_], mid])
        new_hi = np.concatenate([mid, hi[open_]])
        new_bound = _corner_bound(tail, null, new_lo, new_hi, upper)
        lo, hi = np.concatenate([keep_lo, new_lo]), np.concatenate([keep_hi, new_hi])
        bound = np.concatenate([keep_bound, new_bound])
    return max(best, float(np.max(bound)))


def _effective(arm1, arm2, null, t, upper):
    """The observed statistic moved to the end of the release cells that maximises the p-value.

    A release ``z_i`` stands for the cell ``[z_i - h_i/2, z_i + h_i/2]`` (see
    ``dpinfer.distributions._tulap_grid``); ``T`` moves by at most
    ``h1/(2 n1) + c h2/(2 n2)`` over the two cells.
    """
    shift = arm1.half_step / arm1.n + null.coefficient * arm2.half_step / arm2.n
    return t - shift if upper else t + shift


def _pvalues(arm1, arm2, null, t, alternative, points=GRID):
    """``(p, p_greater, p_less)`` at the observed statistic ``t`` (release cells accounted for).

    Two-sided, ``p_less`` is None when ``p_greater < 1/2`` (it is then above 1/2 and unused).
    """
    p_greater = p_less = None
    if alternative in ("greater", "two-sided"):
        p_greater = _sup_tail(arm1, arm2, null, _effective(arm1, arm2, null, t, True), True, points).value
    # p_greater + p_less >= 1 (the two tails at any one nu add to at least 1), so when
    # p_greater < 1/2 the smaller one is p_greater and p_less (> 1/2) is not needed
    if alternative == "less" or (alternative == "two-sided" and p_greater >= 0.5):
        p_less = _sup_tail(arm1, arm2, null, _effective(arm1, arm2, null, t, False), False, points).value
    if alternative == "greater":
        return p_greater, p_greater, p_less
    if alternative == "less":
        return p_less, p_greater, p_less
    smaller = p_greater if p_less is None else min(p_greater, p_less)
    return min(1.0, 2.0 * smaller), p_greater, p_less


def _critical(arm1, arm2, null, level, upper):
    """The smallest ``u`` with ``sup_nu P_nu(T >= u) <= level`` (largest with ``<=``, lower tail).

    Alternates a root in ``u`` at the current maximising ``nu`` (Brent) with the supremum at
    that ``u``; the supremum can only move the root outwards, so a few rounds settle it.  The
    target is ``level (1 - 1e-10)`` so the returned cut-off keeps the size at most ``level``.
    """
    target = level * (1.0 - 1e-10)
    sign = 1.0 if upper else -1.0
    span = 1.0 + null.coefficient + 2.0 * (_reach_scale(arm1) + null.coefficient * _reach_scale(arm2))
    nu = (null.low + null.high) / 2.0
    u = 0.0
    for _ in range(20):
        def gap(x, nu=nu):
            return float(_on_line(_plan(arm1, arm2, null, x, upper), null, nu)[0]) - target

        lo, hi = (-span, span) if upper else (span, -span)
        if gap(hi) > 0.0:
            return sign * math.inf
        u_new = optimize.brentq(gap, min(lo, hi), max(lo, hi), xtol=1e-15, rtol=1e-15)
        sup = _sup_tail(arm1, arm2, null, u_new, upper)
        u = u_new
        if sup.value <= level:
            return u
        nu = sup.nu
    return u


def _reach_scale(arm):
    """A bound on ``|N| / n`` beyond which the tail is below 1e-300 (search bracket)."""
    return (700.0 / -arm.log_b + 1.0) / arm.n


def _power(arm1, arm2, null, theta1, theta2, alpha, alternative):
    """Exact rejection probability of the level-``alpha`` test at ``(theta1, theta2)`` (arrays)."""
    theta1 = np.atleast_1d(np.asarray(theta1, float))
    theta2 = np.atleast_1d(np.asarray(theta2, float))
    c = null.coefficient
    out = np.zeros(np.broadcast(theta1, theta2).shape)
    one_sided = alpha / 2.0 if alternative == "two-sided" else alpha
    if alternative in ("greater", "two-sided"):
        u = _critical(arm1, arm2, null, one_sided, True)
        if np.isfinite(u):
            cut = u + (arm1.half_step / arm1.n + c * arm2.half_step / arm2.n)
            out = out + _statistic_tail(arm1, arm2, theta1, theta2, c, cut, True)
    if alternative in ("less", "two-sided"):
        u = _critical(arm1, arm2, null, one_sided, False)
        if np.isfinite(u):
            cut = u - (arm1.half_step / arm1.n + c * arm2.half_step / arm2.n)
            out = out + _statistic_tail(arm1, arm2, theta1, theta2, c, cut, False)
    return np.clip(out, 0.0, 1.0)
