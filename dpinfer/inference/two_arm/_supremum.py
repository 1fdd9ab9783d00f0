"""The exact unconditional two-arm test: the supremum over the nuisance and the p-values.

Kernels (valid input assumed).  The null set of a one-sided test is reduced to its boundary
curve (the tail of ``T`` is increasing in ``theta1`` and decreasing in ``theta2``), which is
parametrised by ``nu = theta2``:

* ``'difference'``, margin ``Delta0``: ``theta1 = nu + Delta0``, ``nu`` in
  ``[max(0, -Delta0), min(1, 1 - Delta0)]``, statistic ``T = Z1/n1 - Z2/n2``;
* ``'ratio'``, margin ``rho0``: ``theta1 = rho0 nu``, ``nu`` in ``[0, min(1, 1/rho0)]``,
  statistic ``T = Z1/n1 - rho0 Z2/n2``;
* ``'odds-ratio'``, margin ``psi0``: ``theta1 = psi0 nu / (1 - nu + psi0 nu)``, ``nu`` in
  ``[0, 1]``, statistic ``T = Z1/n1 - Z2/n2``.

:func:`_sup_tail` locates the supremum (grid, then bounded Brent refinement of every grid
maximum that a monotone bound cannot rule out: on a cell ``[a, b]`` the tail is at most its
value at the corner ``(theta1(b), a)``, ``(theta1(a), b)`` for the lower tail) and, asked
to, certifies it (:mod:`._certify`: an upper bound from a bound on the tail's curvature).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..._progress import SILENT
from .._roots import find_root
from ._certify import MAX_CELLS, RTOL, certified_sup
from ._laplace_arms import _LaplaceTailPlan
from ._law import _Arm, _pmfs, _point_pmfs, _TailPlan, row_width
from ._score import _Cut, _cut, _Observed, _ScorePlan

__all__ = []  # private module

#: grid points on the null line before refinement
GRID = 65
#: the supremum is certified for arms up to about 2000 each ((n1 + 1)(n2 + 1) at most this);
#: beyond, the certificate's cells cost seconds each round and the located supremum is used
CERTIFY_LIMIT = 4_100_000
#: entries of pmfs a certificate's round may evaluate (open cells x 3 x row width)
_CERTIFY_WORK = 1 << 25
#: Brent's tolerance in nu for each refined maximum (the tail is smooth: error ~ 1e-24 in p)
XATOL = 1e-12
#: Brent's tolerance when only whether the supremum exceeds ``above`` is asked: the maximum's
#: value is then off by about its curvature times 1e-18, far below any difference that could
#: change the answer (and its ``nu`` is not used)
DECIDE_XATOL = 1e-9
#: refined maxima within this relative gap of the best get the certificate's fine cells
#: (lower ones close by their values alone)
FOCUS_GAP = 1e-6
#: progress units (``dpinfer._progress``) of a located supremum and of one evaluation of the
#: certificate (filled block by block of rows), and of a certified supremum, typically (the
#: located one, then the certificate's grid and rounds: 9 to 10 evaluations at n = 1000 per arm)
STEP_UNITS = 10
SUP_UNITS = 10 * STEP_UNITS


@dataclass(frozen=True)
class _Null:
    """The boundary curve of a null hypothesis: ``theta1 = theta1(nu)``, ``theta2 = nu`` in [low, high].

    A line for the difference (``nu + Delta0``) and the ratio (``rho0 nu``), the curve
    ``psi0 nu / (1 - nu + psi0 nu)`` for the odds ratio; ``theta1`` increases with ``nu``.
    """

    effect: str
    margin: float
    low: float
    high: float

    @property
    def coefficient(self):
        """``c`` of the statistic ``T = Z1/n1 - c Z2/n2`` (``rho0`` for a ratio, else 1)."""
        return self.margin if self.effect == "ratio" else 1.0

    def theta1(self, nu):
        nu = np.asarray(nu, float)
        if self.effect == "difference":
            out = nu + self.margin
        elif self.effect == "ratio":
            out = self.margin * nu
        else:
            out = self.margin * nu / (1.0 + (self.margin - 1.0) * nu)
        return np.clip(out, 0.0, 1.0)

    def derivative_bounds(self, a, b):
        """The largest ``|theta1'|`` and ``|theta1''|`` over each cell ``[a, b]`` (arrays).

        Constant on a line; on the odds-ratio curve both are powers of ``1 + (psi0 - 1) nu``,
        monotone in ``nu``, so their largest values are at an end of the cell.
        """
        a, b = np.asarray(a, float), np.asarray(b, float)
        if self.effect != "odds-ratio":
            slope = 1.0 if self.effect == "difference" else self.margin
            return np.full(np.shape(a), slope), np.zeros(np.shape(a))
        psi = self.margin
        ends = np.stack([1.0 + (psi - 1.0) * a, 1.0 + (psi - 1.0) * b])
        first = np.max(psi / ends ** 2, axis=0)
        second = np.max(2.0 * psi * abs(psi - 1.0) / ends ** 3, axis=0)
        return first, second


def _null(effect, margin):
    if effect == "difference":
        return _Null(effect, float(margin), max(0.0, -margin), min(1.0, 1.0 - margin))
    if effect == "ratio":
        return _Null(effect, float(margin), 0.0, min(1.0, 1.0 / margin))
    return _Null(effect, float(margin), 0.0, 1.0)


def _plan(arm1, arm2, null, t, upper):
    """The tail of ``T`` beyond ``t`` as a function of ``(theta1, theta2)``: the plan of the arms' law.

    ``t`` a number: the linear statistic; a ``_score._Cut``: the score ordering (``_score``).
    """
    tulap = isinstance(arm1, _Arm), isinstance(arm2, _Arm)
    if not all(tulap):
        if any(tulap):
            raise ValueError("the exact two-arm test takes two releases of one mechanism: two Tulap counts or "
                             "two Laplace counts or proportions; got one of each.")
        if isinstance(t, _Cut):
            raise ValueError("statistic='score' orders Tulap releases (by their integer parts); two Laplace "
                             "releases are ordered by the difference: leave `statistic` out.")
        return _LaplaceTailPlan(arm1, arm2, 1.0 / arm1.n, -null.coefficient / arm2.n, t, upper)
    if isinstance(t, _Cut):
        return _ScorePlan(arm1, arm2, null, t, upper)
    return _TailPlan(arm1, arm2, 1.0 / arm1.n, -null.coefficient / arm2.n, t, upper)


def _on_line(tail, null, nu):
    nu = np.atleast_1d(np.asarray(nu, float))
    return tail.rows(null.theta1(nu), nu)


@dataclass(frozen=True)
class _Sup:
    """``value``: the supremum (its certified upper bound when asked for); ``nu`` where located."""

    value: float
    nu: float
    located: float


def _sup_tail(arm1, arm2, null, t, upper, points=GRID, certify=False, progress=SILENT, above=None):
    """``sup_nu P_nu(T >= t)`` (``upper``) or ``sup_nu P_nu(T <= t)`` on the null line.

    ``points`` grid points (65 by default; the interval search uses fewer while it
    brackets, then checks its answer with the default).  ``certify``: ``value`` is the
    certified upper bound of :func:`._certify.certified_sup` (at most ``1 + 1e-12`` times
    the located one) for arms within ``CERTIFY_LIMIT``, else the located supremum.
    ``progress``: ``STEP_UNITS`` for the located supremum and per evaluation of the
    certificate (``SUP_UNITS`` in all, typically).  ``above`` (located suprema only): the
    question is only whether the supremum exceeds it, so the search stops at the first value
    above it (a lower bound of the supremum, then) and skips the maxima whose cells' corner
    bounds cannot exceed it: the answer to that question is the full search's, for less work
    (a critical value's level search asks it about twenty times).
    """
    tail = _plan(arm1, arm2, null, t, upper)
    if null.high <= null.low:
        value = float(_on_line(tail, null, null.low)[0])
        return _Sup(value, float(null.low), value)
    grid = np.linspace(null.low, null.high, points)
    line = null.effect != "odds-ratio"
    slope = float(null.derivative_bounds(0.0, 0.0)[0]) if line else None
    initial = None
    if (certify or tail.lattice_pays()) and tail.use_lattice():
        # one set of pmfs (and their derivatives) gives the values, the corner bounds and
        # the certificate's first round
        values, bounds, curvature = tail.on_grid(null.theta1(grid), grid, upper, slope if certify else None)
        initial = (values, curvature)
    else:
        p1, p2 = _pmfs(arm1, null.theta1(grid)), _pmfs(arm2, grid)
        values = tail.from_pmfs(p1, p2)
        # the corner bounds pair neighbouring grid rows: (theta1(b), a) upper, (theta1(a), b) lower
        first, second = (slice(1, None), slice(None, -1)) if upper else (slice(None, -1), slice(1, None))
        bounds = tail.from_pmfs([p[first] for p in p1], [p[second] for p in p2])
    best = int(np.argmax(values))
    out = _Sup(float(values[best]), float(grid[best]), float(values[best]))
    enough = math.inf if above is None else above  # a supremum above this answers the question
    if out.value > enough:
        return out
    # refine every grid maximum whose neighbouring cells could hold more than the best value
    last = points - 1
    peaks = [i for i in range(points)
             if (i == 0 or values[i] >= values[i - 1]) and (i == last or values[i] >= values[i + 1])]
    peaks.sort(key=lambda i: -values[i])
    found = []  # the refined maxima: the certificate cuts its cells finely around them at once
    # through a built lattice on a line, every maximum at once by Newton's method (its
    # derivatives are closed forms: a few batched evaluations instead of a Brent search each)
    batched = [] if line and getattr(tail, "_lattice", None) is not None else None  # (Laplace plans: none)
    for i in peaks:
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, last)]
        reach = max(bounds[max(i - 1, 0)], bounds[min(i, last - 1)])
        if reach <= out.value or reach <= (-math.inf if above is None else above):
            continue
        if i in (0, last):
            # a maximum at an end of the line: refine only if the tail rises inwards
            inward = grid[i] + (1e-7 if i == 0 else -1e-7) * (null.high - null.low)
            if float(_on_line(tail, null, inward)[0]) <= values[i]:
                continue
        if batched is not None:
            batched.append((grid[i], values[i], lo, hi))
            continue
        res = optimize.minimize_scalar(
            lambda nu: -float(_on_line(tail, null, nu)[0]),
            bounds=(lo, hi), method="bounded", options={"xatol": XATOL if above is None else DECIDE_XATOL})
        found.append((float(res.x), float(-res.fun)))
        if -res.fun > out.value:
            out = _Sup(float(-res.fun), float(res.x), float(-res.fun))
            if out.value > enough:
                return out
    if batched:
        found = _newton_maxima(tail, null, slope, *(np.array(c, float) for c in zip(*batched)))
        for x, v in found:
            if v > out.value:
                out = _Sup(v, x, v)
    progress.advance(STEP_UNITS)
    if not certify or (arm1.n + 1) * (arm2.n + 1) > CERTIFY_LIMIT:
        return out

    # the cap is the supremum only at an observed statistic near 0 (a tail near 1/2, flat over
    # the null line); elsewhere the certificate closes and the cap's (2n + 1) tails are not spent
    cap = _exchangeable_cap(tail, arm1, arm2, null) if abs(out.value - 0.5) <= 1e-6 else math.inf
    if cap <= out.value * (1.0 + RTOL):
        # the arms are exchangeable on this null and the cap closes the supremum at once
        return _Sup(max(cap, out.value), out.nu, out.value)

    def evaluate(nu):
        part = progress.part(STEP_UNITS)
        if slope is None:
            out = _on_line(tail, null, nu), None
        else:  # reported as its rows (Tulap) or its sums (Laplace) are done
            out = tail.with_curvature(null.theta1(nu), nu, slope, progress=part)
        part.close()
        return out
    # bounded work per round: with wide noise ranges, fewer open cells (a looser bound)
    cells = MAX_CELLS if tail.use_lattice() else int(np.clip(_CERTIFY_WORK // row_width((arm1, arm2)),
                                                            16, MAX_CELLS))
    bound, _ = certified_sup(evaluate, null, arm1.n, arm2.n, grid, out.value, caps=bounds,
                             max_cells=cells, initial=initial,
                             focus=[x for x, v in found if v >= out.value * (1.0 - FOCUS_GAP)])
    return _Sup(max(min(bound, cap), out.value), out.nu, out.value)


#: Newton steps of :func:`_newton_maxima` at most (typically 1 to 7; brackets it leaves, bisected,
#: took up to 26 in the interval of the benchmark)
_NEWTON_STEPS = 40


def _newton_maxima(tail, null, slope, x, value, lo, hi):
    """Local maxima of the tail on the line, one in each bracket ``[lo, hi]`` (arrays), from ``x``.

    Safeguarded Newton's method on ``p'``, all brackets at once (:meth:`._law._Plan.along_line`):
    each step keeps the side of ``x`` where ``p'`` points, and a step that leaves the bracket
    or meets ``p'' >= 0`` bisects it instead; a bracket stops when its step is below
    ``XATOL``.  Every value returned was evaluated (the largest seen in each bracket), so
    each is a tail value at its ``nu``: a lower bound of the supremum, as Brent's would be.
    Returns ``[(nu, value), ...]``.
    """
    best_x, best = x.copy(), value.copy()
    active = np.arange(x.size)
    for _ in range(_NEWTON_STEPS):
        xs = x[active]
        v, first, second = tail.along_line(null.theta1(xs), xs, slope)
        better = v > best[active]
        best_x[active[better]], best[active[better]] = xs[better], v[better]
        rising = first > 0.0
        lo[active[rising]] = xs[rising]
        hi[active[~rising]] = xs[~rising]
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(second < 0.0, -first / second, np.nan)
        new = xs + step
        l, h = lo[active], hi[active]
        bisect = ~((new > l) & (new < h))  # also where the step is nan
        new = np.where(bisect, (l + h) / 2.0, new)
        x[active] = new
        active = active[(np.abs(new - xs) > XATOL) & (h - l > XATOL)]
        if not active.size:
            break
    return [(float(a), float(b)) for a, b in zip(best_x, best)]


def _exchangeable_cap(tail, arm1, arm2, null):
    """An upper bound of the tail at no effect (difference 0, ratio 1) between arms of one law (else inf).

    With ``theta1 = theta2 = nu``, equal ``n`` and one noise law, both arms' counts have the
    same pmf ``b``, so the tail ``b' F b`` equals ``b' F_s b`` with ``F_s = (F + F') / 2``
    (``F[x1, x2]`` the tail given the counts) and is at most ``max F_s``.  For the difference
    ``F[x1, x2] = psi(x1 - x2)`` and ``F_s = (psi(w) + psi(-w)) / 2``: at an observed
    difference near 0, ``psi(w) + psi(-w)`` is 1 plus the noise mass of a cell-wide interval,
    so this cap is the supremum to rounding, where the curvature certificate (whose bound of
    ``p''`` is largest at ``p = 1/2`` and the tail flat over the whole null line) needs more
    cells than its budget and reported up to 0.03 too much at n = 1000 (issue 40).
    """
    if not (isinstance(tail, _TailPlan) and tail.shift_invariant and arm1 == arm2
            and (null.effect, null.margin) in (("difference", 0.0), ("ratio", 1.0))):
        return math.inf
    w = np.arange(-arm1.n, arm1.n + 1)
    points = _point_pmfs(arm1)
    psi = tail.from_pmfs([p[np.maximum(w, 0)] for p in points], [p[np.maximum(-w, 0)] for p in points])
    return float(np.max((psi + psi[::-1]) / 2.0))


def _effective(arm1, arm2, null, t, upper):
    """The observed statistic moved to the end of the release cells that maximises the p-value.

    A release ``z_i`` stands for the cell ``[z_i - h_i/2, z_i + h_i/2]`` (see
    ``dpinfer.distributions._tulap_grid``); ``T`` moves by at most
    ``h1/(2 n1) + c h2/(2 n2)`` over the two cells.  A ``_score._Observed`` pair becomes the
    ``_Cut`` of its least favourable corner (:func:`._score._cut`).
    """
    if isinstance(t, _Observed):
        return _cut(arm1, arm2, null, t, upper)
    shift = arm1.half_step / arm1.n + null.coefficient * arm2.half_step / arm2.n
    return t - shift if upper else t + shift


def _pvalues(arm1, arm2, null, t, alternative, points=GRID, certify=True, progress=SILENT):
    """``(p, p_greater, p_less)`` at the observed statistic ``t`` (release cells accounted for).

    Two-sided, ``p_less`` is None when ``p_greater < 1/2`` (it is then above 1/2 and unused).
    ``certify``: the suprema are certified upper bounds (the p-values reported); the
    interval search brackets with located ones (``certify=False``) and checks with these.
    """
    p_greater = p_less = None
    if alternative in ("greater", "two-sided"):
        p_greater = _sup_tail(arm1, arm2, null, _effective(arm1, arm2, null, t, True), True, points,
                              certify, progress).value
    # p_greater + p_less >= 1 (the two tails at any one nu add to at least 1), so when
    # p_greater < 1/2 the smaller one is p_greater and p_less (> 1/2) is not needed
    if alternative == "less" or (alternative == "two-sided" and p_greater >= 0.5):
        p_less = _sup_tail(arm1, arm2, null, _effective(arm1, arm2, null, t, False), False, points,
                           certify, progress).value
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
        u_new = find_root(gap, min(lo, hi), max(lo, hi), xtol=1e-15, rtol=1e-15, maxiter=100)
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
            out = out + _plan(arm1, arm2, null, cut, True)(theta1, theta2)
    if alternative in ("less", "two-sided"):
        u = _critical(arm1, arm2, null, one_sided, False)
        if np.isfinite(u):
            cut = u - (arm1.half_step / arm1.n + c * arm2.half_step / arm2.n)
            out = out + _plan(arm1, arm2, null, cut, False)(theta1, theta2)
    return np.clip(out, 0.0, 1.0)
