"""DP-JIMI's exact operating characteristics (size and coverage in the infinite-draw limit) behind its warnings."""

from __future__ import annotations

import functools

import numpy as np
from scipy.special import ndtri

from ..._validation import _method, _setting
from ..._warnings import ApproximationWarning
from . import _kernels as _k
from ._common import _tails
from ...distributions._laplace_law import LaplaceLaw
from .._roots import find_roots
from .._oc_warnings import COUNT_TAIL_ACCURACY, coverage_message, size_message, worst_coverage


def _release_cuts(theta, level, n, epsilon, upper_side, bracket=None):
    """Cut points c on the proportion scale of the exact-limit rejection regions.

    ``upper_side`` True: the release rejects (the 'greater' p-value
    ``G_c(theta) = P(theta* <= theta)`` is at most ``level``) exactly when
    ``pi_hat >= c``; False: the 'less' p-value ``P(theta* >= theta)`` is at most
    ``level`` exactly when ``pi_hat <= c``.  Both p-values are monotone in
    ``pi_hat`` (``pi* = pi_hat - L`` shifts with it and the Beta law of ``theta*``
    given ``pi*`` is stochastically increasing), so each region is a half-line.
    Its end solves ``p-value = level`` by the shared Illinois search
    (:func:`dpinfer.inference._roots.find_roots`) in the bracket ``[-50 s, 1 + 50 s]``
    (``s = 1/(epsilon n)``, the Laplace scale), all rows together, to
    ``|p-value - level| <= 1e-11`` (the kernel is accurate to about 1e-12) or a
    bracket of 1e-10.  ``bracket`` (optional, two arrays): tighter starting
    brackets, checked and widened to the full one where they do not hold the root.
    ``+inf`` (upper side) or ``-inf`` marks an empty region, the opposite
    infinity one that is everything.
    """
    scale = 1.0 / (epsilon * n)
    theta = np.atleast_1d(np.asarray(theta, float))
    level = np.broadcast_to(np.asarray(level, float), theta.shape)
    sign = -1.0 if upper_side else 1.0
    pvalue = _k._exact_cdf if upper_side else _k._exact_upper

    def h(c, rows):  # increasing in c on every row
        return sign * (pvalue(theta[rows], c, n, epsilon) - level[rows])

    everything = np.arange(theta.size)
    wide_a, wide_b = -50.0 * scale, 1.0 + 50.0 * scale
    a = np.full(theta.size, wide_a)
    b = np.full(theta.size, wide_b)
    if bracket is not None:
        a = np.clip(np.where(np.isfinite(bracket[0]), bracket[0], wide_a), wide_a, wide_b)
        b = np.clip(np.where(np.isfinite(bracket[1]), bracket[1], wide_b), a, wide_b)
    fa, fb = h(a, everything), h(b, everything)
    if bracket is not None:  # a bracket that misses the root falls back to the full one
        for ends, values, wide, missed in ((a, fa, wide_a, fa > 0.0), (b, fb, wide_b, fb < 0.0)):
            rows = np.flatnonzero(missed)
            if rows.size:
                ends[rows] = wide
                values[rows] = h(ends[rows], rows)
    # The upper side rejects where h >= 0 (release >= cut), the lower side where
    # h <= 0 (release <= cut): on both, h >= 0 throughout gives cut -inf and h <= 0
    # throughout +inf (everything / nothing rejected, read with the side).
    cut = np.where(fa >= 0.0, np.where(a == wide_a, -np.inf, a),
                   np.where(fb <= 0.0, np.where(b == wide_b, np.inf, b), np.nan))
    act = np.flatnonzero(np.isnan(cut))
    if act.size:
        cut[act] = find_roots(lambda c, rows: h(c, act[rows]), b[act], a[act], fb[act], fa[act],
                              ftol=1e-11, xtol=1e-10, xrtol=0.0, max_iter=100)
    return cut


#: Spacing (in grid steps) of the thetas whose cuts :func:`_sorted_cuts` solves from
#: the full bracket, and of those it solves before interpolating.
_WIDE_EVERY, _SOLVE_EVERY = 32, 8

#: Largest error of the interpolated cuts, as a rejection probability (bounded by
#: ``n epsilon / 2`` times the cut's error on the proportion scale).
_INTERPOLATION_TOL = 1e-6


def _solve_between(theta, cuts, known, todo, level, n, epsilon, upper_side):
    """Solve the cuts at ``todo`` (indices), each bracketed by the nearest known cuts."""
    have = np.flatnonzero(known)
    right = np.clip(np.searchsorted(have, todo), 1, have.size - 1)
    bracket = (cuts[have[right - 1]], cuts[have[right]])
    cuts[todo] = _release_cuts(theta[todo], level, n, epsilon, upper_side, bracket)
    known[todo] = True


def _normal_bracket(theta, level, n, epsilon, upper_side):
    """A starting bracket for the cuts from the normal approximation of theta*.

    ``theta* ~ N(pi_hat, theta (1 - theta)/n + 2 scale^2)`` puts the cut near
    ``theta +- z_(1-level) sd``; the bracket is that point +- ``sd / 2 + 2/n + 4 scale``.
    Only a start: :func:`_release_cuts` checks it and widens a side that misses.
    """
    scale = 1.0 / (epsilon * n)
    sd = np.sqrt(theta * (1.0 - theta) / n + 2.0 * scale**2)
    guess = theta + (1.0 if upper_side else -1.0) * ndtri(1.0 - level) * sd
    reach = 0.5 * sd + 2.0 / n + 4.0 * scale
    return guess - reach, guess + reach


def _sorted_cuts(theta, level, n, epsilon, upper_side):
    """:func:`_release_cuts` for increasing thetas (a grid), most of the work saved.

    Each cut increases with theta on both sides (the 'greater' p-value rises with
    theta and falls with the release, the 'less' one the reverse), so the cuts of
    every ``_WIDE_EVERY``-th theta are solved from the full bracket and the others,
    halving the spacing down to every ``_SOLVE_EVERY``-th, from their known
    neighbours.  The remaining ones are interpolated (cubic spline through the
    solved ones) where that is accurate: the spline through every second solved
    cut, evaluated at the solved cuts between, must be within
    ``2 _INTERPOLATION_TOL / (n epsilon)`` of them (the rejection probability
    moves by at most ``n epsilon / 2`` times a cut's change on the proportion scale,
    the largest density of ``x + Laplace(1/epsilon)``; the first cuts start from
    :func:`_normal_bracket`); the spline through all
    solved cuts is then far closer.  Stretches that fail the check, or touch an
    infinite cut, are solved at every theta.
    """
    from scipy.interpolate import CubicSpline  # imported on first use (start-up time)

    m = theta.size
    if m < 2 or not np.all(np.diff(theta) > 0.0):
        # one theta, or repeated ones (an interval a few ulps wide): nothing to interpolate
        return _release_cuts(theta, level, n, epsilon, upper_side)
    cuts = np.empty(m)
    known = np.zeros(m, dtype=bool)
    every = _WIDE_EVERY
    first = np.unique(np.append(np.arange(0, m, every), m - 1))
    cuts[first] = _release_cuts(theta[first], level, n, epsilon, upper_side,
                                _normal_bracket(theta[first], level, n, epsilon, upper_side))
    known[first] = True
    while every > _SOLVE_EVERY:
        every //= 2
        todo = np.setdiff1d(np.arange(0, m, every), np.flatnonzero(known))
        if todo.size:
            _solve_between(theta, cuts, known, todo, level, n, epsilon, upper_side)
    solved = np.flatnonzero(known)
    if solved.size == m:
        return cuts
    finite = np.isfinite(cuts[solved])
    exact_stretch = np.zeros(solved.size - 1, dtype=bool)  # between solved[i] and solved[i + 1]
    exact_stretch |= ~finite[:-1] | ~finite[1:]
    if solved.size >= 5:
        tol = 2.0 * _INTERPOLATION_TOL / (n * epsilon)
        for parity in (0, 1):  # the spline through every second solved cut, checked at the others
            nodes = np.arange(parity, solved.size, 2)
            checks = np.arange(1 - parity, solved.size, 2)
            checks = checks[(checks > nodes[0]) & (checks < nodes[-1])]
            ok = finite[nodes]
            if np.sum(ok) < 4 or checks.size == 0:
                exact_stretch[:] = True
                break
            spline = CubicSpline(theta[solved[nodes[ok]]], cuts[solved[nodes[ok]]])
            err = np.abs(spline(theta[solved[checks]]) - cuts[solved[checks]])
            bad = checks[~(err <= tol)]
            exact_stretch[np.clip(np.concatenate([bad - 2, bad - 1, bad, bad + 1]), 0,
                                  exact_stretch.size - 1)] = True
    else:
        exact_stretch[:] = True
    rest = np.flatnonzero(~known)
    stretch = np.searchsorted(solved, rest) - 1
    exact = rest[exact_stretch[stretch]]
    if exact.size:
        _solve_between(theta, cuts, known, exact, level, n, epsilon, upper_side)
    rest = rest[~exact_stretch[stretch]]
    if rest.size:
        good = solved[finite]
        cuts[rest] = CubicSpline(theta[good], cuts[good])(theta[rest])
    return cuts


#: Intervals of the fixed theta grid on [0, 1] whose cuts :func:`_cut_table` solves once
#: per set of public numbers (n, epsilon, level, side).
_TABLE_STEPS = 1024

#: Sub-intervals a cell that fails the spline check is cut into, and how many times a
#: failing sub-cell is cut again (so a stretch still solved per call is at most
#: ``1 / (1024 * 16**3)``, 2.4e-7, wide around each kink of the cuts).  A piece gets at
#: most ``_MAX_REFINED`` finer pieces (cuts that are not smooth almost anywhere, e.g.
#: epsilon = 1e9, where they are steps, are solved per call as before).
_SUB_STEPS, _SUB_DEPTH, _MAX_REFINED = 16, 3, 128


class _CutPiece:
    """Cuts solved at the nodes of a theta grid, the checked spline through them, and finer pieces.

    ``usable[i]``: the grid's cell ``i`` may be read from ``spline`` (both ends finite
    and the spline through every second node within ``tol`` of the cuts at the nodes
    between, :func:`_checked_spline`); ``children[i]``: a piece on a finer grid of cell
    ``i`` where it may not (a kink of the cuts, where the release's cut crosses 0 or 1,
    or the steep start at theta near 0 or 1), made the first time a theta in that cell
    is asked for (its nodes are public: a cell of a fixed grid) and kept.  ``key``: the
    public numbers ``(level, n, epsilon, upper_side)``.
    """

    __slots__ = ("grid", "cuts", "spline", "usable", "children", "key", "depth")

    def __init__(self, grid, cuts, key, depth=0):
        self.grid, self.cuts, self.key, self.depth = grid, cuts, key, depth
        self.spline, self.usable = _checked_spline(grid, cuts, 2.0 * _INTERPOLATION_TOL / (key[1] * key[2]))
        self.children = {}

    def read(self, theta):
        """The cuts at ``theta`` (inside the grid's span) from this piece and its children; NaN where none may."""
        cell = np.searchsorted(self.grid[1:-1], theta, side="right")  # in 0 .. steps - 1, the ends included
        read = self.usable[cell]
        if read.all() and theta.size:  # the usual case: one spline evaluation
            return self.spline(theta)
        out = np.full(theta.size, np.nan)
        if read.any():
            out[read] = self.spline(theta[read])
        for node in (cell, cell + 1):  # a node's own solved cut (theta = 0 or 1 too, where it may be infinite)
            at = ~read & (theta == self.grid[node])
            out[at] = self.cuts[node[at]]
            read |= at
        rest = np.flatnonzero(~read)
        cells = np.unique(cell[rest])
        self._refine([int(c) for c in cells if int(c) not in self.children])
        for c in cells:
            child = self.children.get(int(c))
            if child is not None:
                rows = rest[cell[rest] == c]
                out[rows] = child.read(theta[rows])
        return out

    def _refine(self, cells):
        """Give each of ``cells`` a child piece on ``_SUB_STEPS`` sub-cells (none beyond the depth or the cap).

        Their new nodes are solved together (one vectorised root search), each bracketed
        by its cell's end cuts (the cuts increase with theta; an infinite end falls back
        to the full bracket).
        """
        if not cells or self.depth >= _SUB_DEPTH or len(self.children) + len(cells) > _MAX_REFINED:
            return
        cells = np.asarray(cells)
        inner = np.arange(1, _SUB_STEPS) / _SUB_STEPS
        lo_t, hi_t = self.grid[cells], self.grid[cells + 1]
        theta = (lo_t[:, None] + inner * (hi_t - lo_t)[:, None]).ravel()
        bracket = (np.repeat(self.cuts[cells], inner.size), np.repeat(self.cuts[cells + 1], inner.size))
        solved = _release_cuts(theta, *self.key, bracket).reshape(cells.size, inner.size)
        for i, row in zip(cells, solved):
            grid = np.linspace(self.grid[i], self.grid[i + 1], _SUB_STEPS + 1)
            grid[-1] = self.grid[i + 1]
            cuts = np.concatenate([[self.cuts[i]], row, [self.cuts[i + 1]]])
            self.children[int(i)] = _CutPiece(grid, cuts, self.key, self.depth + 1)


def _checked_spline(grid, cuts, tol):
    """``(spline, usable)``: the cubic spline through the finite cuts and which grid cells may read it.

    Usable: both ends finite and the spline through every second finite node is within
    ``tol`` of the cuts at the nodes between (the spline through all nodes, at half the
    spacing, is far closer: its error falls as the fourth power of the spacing).
    """
    from scipy.interpolate import CubicSpline  # imported on first use (start-up time)

    steps = grid.size - 1
    finite = np.isfinite(cuts)
    usable = finite[:-1] & finite[1:]
    good = np.flatnonzero(finite)
    if good.size < 9:
        return None, np.zeros(steps, dtype=bool)
    for parity in (0, 1):
        nodes, checks = good[parity::2], good[1 - parity::2]
        checks = checks[(checks > nodes[0]) & (checks < nodes[-1])]
        err = np.abs(CubicSpline(grid[nodes], cuts[nodes])(grid[checks]) - cuts[checks])
        bad = checks[~(err <= tol)]
        usable[np.clip(np.concatenate([bad - 2, bad - 1, bad, bad + 1]), 0, steps - 1)] = False
    return CubicSpline(grid[good], cuts[good]), usable


@functools.lru_cache(maxsize=256)
def _cut_table(level, n, epsilon, upper_side):
    """The cuts of one side on a fixed theta grid of [0, 1], solved once per public numbers (cached).

    Returns the top :class:`_CutPiece` (1024 cells).  A cell whose spline check fails
    is cut into 16 sub-cells with their own checked spline the first time a theta in it
    is asked for, and a failing sub-cell again, ``_SUB_DEPTH`` times: the cuts are smooth
    in theta except at a few kinks, so the cells left to solve per call shrink to a few
    2.4e-7-wide stretches.  The cuts depend on public numbers only, so a warning costs
    the table once (about 0.3-0.6 s), a few milliseconds the first time it reaches a
    failing cell, and spline evaluations after.
    """
    key = (level, n, epsilon, upper_side)
    grid = np.linspace(0.0, 1.0, _TABLE_STEPS + 1)
    return _CutPiece(grid, _sorted_cuts(grid, level, n, epsilon, upper_side), key)


#: Public numbers whose cuts were asked for once (bounded: cleared when full).
_ASKED = set()


def _tabled_cuts(theta, level, n, epsilon, upper_side):
    """The cuts at increasing thetas read from :func:`_cut_table` where usable, else solved here.

    The table (about 0.3-0.6 s) is built the second time the same public numbers are
    asked for: a single call solves its own cuts (:func:`_sorted_cuts`, about 60 ms
    at n = 30) and does not pay for a table it would not reuse.
    """
    key = (float(level), int(n), float(epsilon), bool(upper_side))
    if key not in _ASKED:
        if len(_ASKED) >= 4096:
            _ASKED.clear()
        _ASKED.add(key)
        return _sorted_cuts(theta, level, n, epsilon, upper_side)
    if theta[0] >= 0.0 and theta[-1] <= 1.0:  # increasing: all inside [0, 1]
        cuts = _cut_table(*key).read(theta)
    else:
        inside = (theta >= 0.0) & (theta <= 1.0)
        cuts = np.full(theta.size, np.nan)
        cuts[inside] = _cut_table(*key).read(theta[inside])
    rest = np.flatnonzero(np.isnan(cuts))
    if rest.size:
        cuts[rest] = _sorted_cuts(theta[rest], level, n, epsilon, upper_side)
    return cuts


#: A cut this far out (proportion scale) is beyond every count and its Laplace reach:
#: ``P(x + N > n c)`` is exactly 1 for ``c = -_FAR_CUT`` and 0 for ``+_FAR_CUT`` in double precision.
_FAR_CUT = 1e200


def _exact_rejection(theta, lo_level, hi_level, n, epsilon, *, sorted_grid=False):
    """Exact-limit probability, under the true proportion ``theta`` (array), that
    ``P(theta* <= theta) <= lo_level`` or ``P(theta* >= theta) <= hi_level``
    (None: that side never rejects).

    That is the size of the test of ``p0 = theta`` ('greater': lo_level = alpha;
    'less': hi_level = alpha; 'two-sided': both alpha / 2) and one minus the
    coverage at theta of the interval with those tail levels.  Each side's
    region is a half-line of the release (:func:`_release_cuts`); its probability
    ``sum_x Binom(x; n, theta) P(x + N beyond n c)``, ``N ~ Laplace(0, 1/epsilon)``,
    is the Laplace law's exact finite sum
    (:func:`~dpinfer.distributions._laplace_law.count_tail`), one cut per theta.
    ``sorted_grid``: theta is increasing (a grid, for a coverage warning), so the cuts
    come from :func:`_tabled_cuts` (a table cached per public numbers) and the sums are accurate to about 1e-14.
    """
    theta = np.atleast_1d(np.asarray(theta, float))
    law = LaplaceLaw.from_rate(epsilon)
    accuracy = COUNT_TAIL_ACCURACY if sorted_grid else {}
    sides = [(upper, (_tabled_cuts if sorted_grid else _release_cuts)(theta, level, n, epsilon, upper))
             for level, upper in ((lo_level, True), (hi_level, False)) if level is not None]
    if sorted_grid:
        # an infinite cut rejects everything or nothing: as +-1e200 it does so exactly in the one finite sum
        sides = [(upper, np.clip(cuts, -_FAR_CUT, _FAR_CUT)) for upper, cuts in sides]
    if all(np.isfinite(cuts).all() for _, cuts in sides):
        # the usual case: one finite sum over both cuts (one binomial window per theta), in [0, 1]
        return law.count_tail(theta, n, [(n * cuts, 1 if upper else -1) for upper, cuts in sides], **accuracy)
    total = np.zeros(theta.size)
    for upper, cuts in sides:
        finite = np.isfinite(cuts)
        # an infinite cut rejects everything (-inf above, +inf below) or nothing
        total += np.where(finite, 0.0, np.where((cuts < 0) == upper, 1.0, 0.0))
        if np.any(finite):
            side = 1 if upper else -1
            total[finite] += law.count_tail(theta[finite], n, [(n * cuts[finite], side)], **accuracy)
    return np.clip(total, 0.0, 1.0)


@functools.lru_cache(maxsize=1024)
def _exact_size(n, epsilon, p0, alpha, alternative):
    """Exact-limit size of the level-alpha DP-JIMI test of p0 (cached)."""
    lo, hi = _tails(1.0 - alpha, alternative)
    return float(_exact_rejection(p0, lo, hi, n, epsilon)[0])


def _size_message(n, epsilon, p0, alpha, alternative):
    """The ApproximationWarning (its names as data) when the exact-limit size drifts (the shared rule), else None.

    Not checked at p0 = 0 or 1, where one side of the null is empty (the size of
    the test of the impossible alternative is 0 by construction).
    """
    if p0 in (0.0, 1.0):
        return None
    clause = size_message(_exact_size(n, epsilon, p0, alpha, alternative), alpha)
    if clause is None:
        return None
    return ApproximationWarning(
        f"DP-JIMI is inaccurate here: for n = {n}, p0 = {p0:g}, epsilon = {epsilon:g} and ",
        _setting("alternative", alternative, f"alternative = {alternative!r}"),
        f" the exact (infinite-draw) size of {clause}. For a Tulap release ",
        _method("ump", "binom_ump_test"), " is exact."
    )


def _coverage_message(lows, highs, n, epsilon, confidence_level, alternative):
    """The ApproximationWarning (its names as data) when the exact-limit coverage falls short, else None.

    Judged by the shared rule over the interval's thetas
    (:mod:`dpinfer.inference._oc_warnings`).
    """
    lo_tail, hi_tail = _tails(confidence_level, alternative)
    found = worst_coverage(lambda t: 1.0 - _exact_rejection(t, lo_tail, hi_tail, n, epsilon, sorted_grid=True),
                           lows, highs, n, confidence_level)
    if found is None:
        return None
    return coverage_message(
        (f"DP-JIMI interval covers too little here: for n = {n}, epsilon = {epsilon:g} and ",
         _setting("alternative", alternative, f"alternative = {alternative!r}"),
         " its exact (infinite-draw) coverage"),
        *found, confidence_level,
        ("For a Tulap release ", _method("ump", "binom_ump_ci"), " has guaranteed coverage."))
