"""A certified supremum of a tail over the null curve: an upper bound that nothing can exceed.

Kernels (valid input assumed).  The p-value of the exact unconditional test is
``sup_nu p(nu)`` with ``p(nu) = E_{theta(nu)} f(X_1, X_2)``, ``f(x) = P(T beyond t | X = x)``
in ``[0, 1]`` (the noise does not depend on the nuisance) and ``theta(nu) = (theta1(nu), nu)``
the null curve.  A grid and a local search *locate* the supremum; this module *bounds* it
from above, so the p-value reported is never below the true one.

**A bound on the curvature.**  On a cell ``[a, b]`` of the curve, if ``p'' >= -M`` there,
then ``p(x) <= l(x) + M (x - a)(b - x) / 2`` with ``l`` the chord through ``(a, p(a))`` and
``(b, p(b))`` (the interpolation remainder), and the bound of the cell is the maximum of
that concave quadratic, in closed form.  ``M`` is the smallest of:

* *Score bound* (cells inside (0, 1) in both arms).  ``p'' = E[f R]`` with ``R = L''/L``
  (``L`` the likelihood along the curve), ``E R = 0``, so ``|p''| <= sd(f) sd(R)`` and
  ``sd(f) <= sqrt(p (1 - p))`` (``f^2 <= f``): at most 1/2, smaller where bounds of ``p``
  on the cell keep it away from 1/2 (its upper bound below 1/2, or its lower bound
  ``min(p(a), p(b)) - M h^2 / 8`` above).  The derivatives of a binomial likelihood are
  orthogonal (Krawtchouk polynomials): ``E[(L^(k)/L)^2] = k! n (n-1)...(n-k+1) / v^k``
  with ``v = theta (1 - theta)`` (checked by enumeration in the tests), so along a line of
  slope ``d_1`` (``theta2 = nu``) ``E R^2 = sum_j C(2, j)^2 d_1^(2j) e_1(j) e_2(2 - j)``,
  ``e_i(k)`` that moment of arm ``i``; on the odds-ratio curve the term
  ``theta_1'' S_1`` adds ``|theta_1''| sqrt(n_1 / v_1)`` to ``sd(R)``.  Each factor is
  taken at its largest over the cell (``1 / v`` is convex: at an end).
* *Bernstein bound* (every cell, including those that reach ``theta_i`` in {0, 1}, where
  the score bound is infinite).  ``d^k/dtheta^k E_theta g(X) = n (n-1)...(n-k+1)
  E_{n-k}[Delta^k g]`` for a binomial (the derivative of a Bernstein polynomial), and the
  differences of ``f`` in ``[0, 1]`` are bounded (``|Delta^k f| <= 2^(k-1)``, mixed ones
  likewise), so ``|p''| <= 2 d_1^2 n_1 (n_1 - 1) + 2 n_2 (n_2 - 1) + 4 d_1 n_1 n_2
  + |theta_1''| n_1``.
* *Exact curvature* (null lines, when the caller can evaluate ``p''``: see
  ``_TailPlan.with_curvature``).  With ``p''`` at the cell's ends and a bound ``M3`` on
  ``|p'''|`` (the same two arguments with ``k = 3``: score ``sum_j C(3, j)^2 d_1^(2j)
  e_1(j) e_2(3 - j)``, Bernstein ``4 sum_j C(3, j) d_1^j n_1^(j) n_2^(3-j)``),
  ``p'' >= (p''(a) + p''(b)) / 2 - M3 h / 2`` on the cell.  Near a maximum this is close to
  the true curvature, so the bound of a cell exceeds the values by ``O(M3 h^3)`` instead of
  ``O(M h^2)``.

**The refinement.**  Starting from the grid the supremum was located on, with a geometric
grid added around the maxima the search refined (:func:`_focused`), every cell whose
bound exceeds the best value found by more than ``RTOL`` (relative) is cut into equal
cells, as many as its bound's order in ``h`` says would close it (2 to ``MAX_PIECES``;
the new points evaluated, the best value updated), until no cell is left open; closed cells
keep their bound (the largest is remembered) and leave the refinement.  Where the cells
are cut decides only the work, never the validity: every cell's bound is an upper bound of
``p`` on it, and the cells cover the curve.  If the budget (``ROUNDS`` rounds,
``MAX_CELLS`` open cells) runs out first, the largest bound left is returned: still an
upper bound, only a looser one.  The certificate covers the mathematics; the tail values
themselves carry their floating-point error (about 1e-13 relative, see the package
docstring), and the computed ``p''`` an absolute error near ``(n_1 + n_2)^2`` ulps, which
is added to its bound (on the lattice, whose binomial rows carry ~1e-14 relative, the
difference from scipy's pmfs is below 1% of that allowance at n up to 300 per arm).
"""

from __future__ import annotations

import numpy as np

__all__ = []  # private module

#: relative slack of the certificate: the bound returned is at most (1 + RTOL) times the
#: best value found, unless the budget runs out
RTOL = 1e-12
#: rounds of cutting the open cells at most
ROUNDS = 32
#: pieces of an open cell when a round would evaluate too many points
SPLIT = 4
#: open cells at most in one round (at most MAX_CELLS (SPLIT - 1) tail evaluations a round)
MAX_CELLS = 4096
#: pieces of one cell in one round at most (:meth:`_Cells.pieces`)
MAX_PIECES = 16
#: levels of the geometric grid added around each located maximum (:func:`_focused`)
FOCUS_LEVELS = 8

_CHOOSE = {2: (1.0, 2.0, 1.0), 3: (1.0, 3.0, 3.0, 1.0)}
_FACTORIAL = (1.0, 1.0, 2.0, 6.0)


def _falling(n, k):
    """``n (n - 1) ... (n - k + 1)`` (0 when ``k > n``)."""
    out = 1.0
    for i in range(k):
        out *= max(n - i, 0)
    return out


def _spread(floor, cap):
    """The largest ``p (1 - p)`` for ``p`` in ``[floor, cap]``."""
    out = np.where(cap < 0.5, cap * (1.0 - cap), np.where(floor > 0.5, floor * (1.0 - floor), 0.25))
    return np.clip(out, 0.0, 0.25)


def _weights(null, a, b):
    """``(inside, 1/v1, 1/v2)``: the largest ``1 / v`` of each arm over each cell.

    A null object with its own ``weights(a, b)`` gives them instead (the paired multinomial
    of :mod:`dpinfer.inference.pairs._law`, whose second "arm" has the Fisher information
    along its line in place of ``1 / v``).
    """
    if hasattr(null, "weights"):
        return null.weights(a, b)
    theta1 = (null.theta1(a), null.theta1(b))
    v1 = np.minimum(theta1[0] * (1.0 - theta1[0]), theta1[1] * (1.0 - theta1[1]))
    a, b = np.asarray(a, float), np.asarray(b, float)
    v2 = np.minimum(a * (1.0 - a), b * (1.0 - b))
    inside = (v1 > 0.0) & (v2 > 0.0)
    return inside, 1.0 / np.where(inside, v1, 1.0), 1.0 / np.where(inside, v2, 1.0)


def derivative_bound(k, null, n1, n2, a, b, floor, cap):
    """A bound on ``|p^(k)|`` (``k`` = 2 or 3) over each cell ``[a, b]`` (arrays).

    ``floor <= p <= cap`` on each cell (0 and 1 when nothing is known).  ``k = 3`` is for
    null lines only (the odds-ratio curve's chain-rule terms are not included).
    """
    return _combine(_factors(k, null, n1, n2, a, b), floor, cap)


def _factors(k, null, n1, n2, a, b):
    """What :func:`derivative_bound` needs of the cells alone (not of ``floor`` and ``cap``).

    ``(inside, score, bernstein)``: the score bound is ``sqrt(spread) * score`` inside.
    """
    d1, dd1 = null.derivative_bounds(a, b)
    inside, w1, w2 = _weights(null, a, b)
    choose = _CHOOSE[k]
    moment = sum(choose[j] ** 2 * d1 ** (2 * j)
                 * _FACTORIAL[j] * _falling(n1, j) * w1 ** j
                 * _FACTORIAL[k - j] * _falling(n2, k - j) * w2 ** (k - j)
                 for j in range(k + 1))
    score = np.sqrt(moment) + dd1 * np.sqrt(n1 * w1)
    bernstein = 2.0 ** (k - 1) * sum(choose[j] * d1 ** j * _falling(n1, j) * _falling(n2, k - j)
                                     for j in range(k + 1)) + dd1 * n1
    return inside, score, bernstein


def _combine(factors, floor, cap):
    inside, score, bernstein = factors
    return np.where(inside, np.minimum(np.sqrt(_spread(floor, cap)) * score, bernstein), bernstein)


def envelope(a, b, pa, pb, m):
    """``max_x [chord(x) + m (x - a)(b - x) / 2]`` over each cell: an upper bound of ``p`` there.

    The concave quadratic peaks at ``u = h / 2 + slope / m`` from ``a`` (clipped to the
    cell); with ``m = 0`` (a convex cell) the bound is the larger end value.
    """
    h = b - a
    slope = (pb - pa) / h
    positive = m > 0.0
    u = np.where(positive, np.clip(h / 2.0 + slope / np.where(positive, m, 1.0), 0.0, h),
                 np.where(pb > pa, h, 0.0))
    return pa + slope * u + m * u * (h - u) / 2.0


class _Cells:
    """The cells of the refinement: ends, the values there (and ``p''``), bounds of ``p``."""

    def __init__(self, grid, values, curvature):
        self.lo, self.hi = grid[:-1], grid[1:]
        self.plo, self.phi = values[:-1], values[1:]
        self.clo, self.chi = (None, None) if curvature is None else (curvature[:-1], curvature[1:])
        self.floor, self.cap = np.zeros_like(self.lo), np.ones_like(self.lo)

    def bound(self, null, n1, n2):
        """Tighten ``floor`` and ``cap`` (twice: the first bounds sharpen the second's)."""
        slack = 1e-12 * float(n1 + n2) ** 2  # the rounding of a computed p''
        h = self.hi - self.lo
        second = _factors(2, null, n1, n2, self.lo, self.hi)
        third = None if self.clo is None else _factors(3, null, n1, n2, self.lo, self.hi)
        for _ in range(2):
            m = _combine(second, self.floor, self.cap)
            if self.clo is not None:
                third_bound = _combine(third, self.floor, self.cap)
                lowest = (self.clo + self.chi) / 2.0 - third_bound * h / 2.0 - slack
                m = np.minimum(m, np.maximum(-lowest, 0.0))
            self.cap = np.minimum(self.cap, envelope(self.lo, self.hi, self.plo, self.phi, m))
            self.floor = np.maximum(self.floor, np.minimum(self.plo, self.phi) - m * h ** 2 / 8.0)

    def keep(self, which):
        """Keep only the cells ``which`` (a mask)."""
        for name in ("lo", "hi", "plo", "phi", "clo", "chi", "floor", "cap"):
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, value[which])

    def pieces(self, target, exact):
        """How many pieces to cut each cell into: enough, by the bound's order in ``h``, to close it.

        A cell's bound exceeds its larger end value ``top`` by ``excess`` and must come
        within ``gap = target - top`` of it; the excess falls as ``h^3`` under the exact
        curvature (``h^2`` otherwise), so ``(excess / gap)^(1/3)`` pieces would close it if
        the bound's constant held; at least 2, at most ``MAX_PIECES`` (a cell still open is
        cut again).
        """
        top = np.maximum(self.plo, self.phi)
        ratio = (self.cap - top) / np.maximum(target - top, 1e-300)
        power = 1.0 / 3.0 if exact else 0.5
        return np.clip(np.ceil(np.maximum(ratio, 1.0) ** power), 2, MAX_PIECES).astype(np.int64)

    def cut(self, pieces, evaluate):
        """Cut cell ``i`` into ``pieces[i]`` equal cells, the new points evaluated by ``evaluate``.

        Returns the values of ``p`` at the new points.
        """
        inner = pieces - 1
        ids = np.repeat(np.arange(pieces.size), inner)
        j = np.arange(ids.size) - (np.cumsum(inner) - inner)[ids] + 1
        points = self.lo[ids] + (self.hi - self.lo)[ids] * (j / pieces[ids])
        pin, cin = evaluate(points)
        start = np.cumsum(pieces) - pieces
        slot = start[ids] + j - 1  # the piece whose right end is the point

        def ends(left, right, middle):
            new_left, new_right = np.empty(start[-1] + pieces[-1]), np.empty(start[-1] + pieces[-1])
            new_left[start], new_right[start + inner] = left, right
            new_right[slot], new_left[slot + 1] = middle, middle
            return new_left, new_right

        self.lo, self.hi = ends(self.lo, self.hi, points)
        self.plo, self.phi = ends(self.plo, self.phi, np.asarray(pin, float))
        if self.clo is not None:
            self.clo, self.chi = ends(self.clo, self.chi, np.asarray(cin, float))
        self.floor, self.cap = np.repeat(self.floor, pieces), np.repeat(self.cap, pieces)
        return np.asarray(pin, float)


def _focused(evaluate, grid, values, curvature, caps, focus):
    """The grid with points added at ``focus +- h 4^-k`` (k = 1..FOCUS_LEVELS), evaluated.

    Near a located maximum the cells must shrink to about ``1e-5`` before their bounds come
    within ``RTOL``; cells at distance ``d`` from it close once their width is well below ``d``
    (the tail has fallen by ``~ p'' d^2 / 2`` there).  A geometric grid towards each maximum
    gives those cells at once, instead of one round of cutting per factor of ``SPLIT``.  The
    caps of the grid's cells carry over to their pieces.
    """
    h = (grid[-1] - grid[0]) / (grid.size - 1)
    offsets = h * 4.0 ** -np.arange(1, FOCUS_LEVELS + 1)
    points = np.asarray(focus, float)[:, None] + np.concatenate([-offsets, [0.0], offsets])[None, :]
    points = np.setdiff1d(np.clip(points.ravel(), grid[0], grid[-1]), grid)
    if points.size == 0:
        return grid, values, curvature, caps
    pin, cin = evaluate(points)
    merged = np.concatenate([grid, points])
    order = np.argsort(merged, kind="stable")
    values = np.concatenate([values, np.asarray(pin, float)])[order]
    if curvature is not None:
        curvature = np.concatenate([curvature, np.asarray(cin, float)])[order]
    merged = merged[order]
    if caps is not None:
        cell = np.clip(np.searchsorted(grid, merged[:-1], side="right") - 1, 0, grid.size - 2)
        caps = caps[cell]
    return merged, values, curvature, caps


def certified_sup(evaluate, null, n1, n2, grid, located, *, caps=None,
                  rtol=RTOL, rounds=ROUNDS, max_cells=MAX_CELLS, initial=None, focus=()):
    """An upper bound of ``sup_nu p(nu)`` over ``[grid[0], grid[-1]]``.

    ``evaluate(nu)`` returns ``(p, p'')`` at the points ``nu`` (arrays; ``p''`` exactly, on a
    null line, which closes the cells around a maximum in a few rounds, or None);
    ``grid`` is increasing; ``located`` the supremum found by the search (a value of ``p``);
    ``caps``, optional, upper bounds of ``p`` on the grid's cells known beforehand (the
    search's monotone corner bounds), which close the cells far from the maximum at once.
    ``initial``, optional, is ``evaluate(grid)`` when the caller has it already; ``focus``
    the points where the search located maxima (:func:`_focused`: only where cells are cut).
    Returns ``(bound, best)``: ``bound >= sup p``, ``best`` the largest value of ``p`` met.
    """
    grid = np.asarray(grid, float)
    values, curvature = evaluate(grid) if initial is None else initial
    values = np.asarray(values, float)
    exact = curvature is not None
    curvature = np.asarray(curvature, float) if exact else None
    caps = None if caps is None else np.asarray(caps, float)
    if len(focus):
        grid, values, curvature, caps = _focused(evaluate, grid, values, curvature, caps, focus)
    cells = _Cells(grid, values, curvature)
    if caps is not None:
        cells.cap = np.minimum(cells.cap, caps)
    best = max(float(located), float(np.max(values)))
    closed = -np.inf  # the largest bound of the cells already closed (and dropped)
    count = cells.cap.size
    for _ in range(rounds):
        cells.bound(null, n1, n2)
        open_ = cells.cap > best * (1.0 + rtol)
        count = int(open_.sum())
        if count < open_.size:
            closed = max(closed, float(np.max(cells.cap[~open_])))
        if count == 0 or count > max_cells:
            break
        cells.keep(open_)
        pieces = cells.pieces(best * (1.0 + rtol), exact)
        if pieces.sum() - count > max_cells * (SPLIT - 1):
            pieces = np.full(count, SPLIT)
        best = max(best, float(np.max(cells.cut(pieces, evaluate))))
    else:
        cells.bound(null, n1, n2)
    left = float(np.max(cells.cap)) if cells.cap.size and count else -np.inf
    return max(best, closed, left), best
