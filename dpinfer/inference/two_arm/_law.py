"""The exact law of two Tulap releases and the tails of a linear statistic of them.

Kernels: valid public input assumed (the public functions in ``__init__`` validate once).
See the package docstring for the derivation; the names here follow it.

An arm is the released law of ``Z = X + N`` with ``X ~ Binomial(n, theta)`` and ``N`` the
continuous Tulap law of the release's unit privacy ``(epsilon_1, delta_1)`` (truncated at
the grid's support end ``c`` when ``delta > 0``).  Its density is constant on the unit cells
``[d - 1/2, d + 1/2)``, so ``N = D + U`` with ``D`` an integer and, given ``D = d``, ``U``
uniform on the part of the cell inside the support: the whole cell except at the two edge
cells ``d = +-M`` of a truncated law.  Hence ``Z = K + U`` with ``K = X + D`` and the law of
``Z`` is a mixture of at most three *components* ``(K-pmf, uniform interval)``:
the interior cells (``U ~ U(-1/2, 1/2)``) and the two edges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np
from scipy import signal, stats

from ..._progress import SILENT
from ...distributions._binomial_rows import EXACT_CHOOSE_N, binomial_rows, log_choose
from ...distributions._tulap_law import quantile, tulap_grid, unit_privacy
from ...distributions.tulap import Tulap

__all__ = []  # private module

#: the noise is cut where the two-sided tail left out is below this (see ``_reach``)
NEGLECTED_MASS = 1e-300
#: largest lattice of conditional tails (``(n1 + 1)(n2 + 1)`` entries) a plan builds: its
#: cost, ``(n1 + 1)(n2 + 1)`` times the noise range, pays for itself only where a supremum
#: is certified (hundreds of nuisance values) and the arms are small
LATTICE_LIMIT = 50_000
#: inner rows per block while the lattice is built (bounds the gathered array)
_LATTICE_BLOCK = 64


@dataclass(frozen=True)
class _Arm:
    """One arm's public numbers and its released noise law.

    ``log_b = -epsilon_1``; ``cut`` the support end ``c`` of a truncated law (None when
    untruncated); ``one_minus_q`` the kept mass; ``half_step`` half the release grid's step
    (0 when no release of ours has these numbers).
    """

    mechanism: ClassVar[str] = "tulap"

    n: int
    epsilon: float
    delta: float
    sensitivity: int
    log_b: float
    cut: float | None
    one_minus_q: float
    half_step: float


def _arm(n, epsilon, delta, sensitivity):
    """The ``_Arm`` of a Tulap count release at these public numbers."""
    unit_eps, unit_delta = unit_privacy(epsilon, delta, sensitivity)
    try:
        grid = tulap_grid(n, unit_eps, unit_delta)
    except ValueError:
        grid = None
    if grid is not None:
        cut = None if grid.cut is None else grid.half_width
        return _Arm(n, epsilon, delta, sensitivity, -unit_eps, cut, grid.one_minus_q, grid.step / 2.0)
    q = Tulap.from_privacy(unit_eps, unit_delta).q
    cut = None if q == 0.0 else -float(quantile(np.array([0.0]), -unit_eps, q)[0])
    return _Arm(n, epsilon, delta, sensitivity, -unit_eps, cut, 1.0 - q, 0.0)


def _reach(log_b):
    """``L`` with ``P(|D| > L) = 2 b^(L+1) / (1 + b) < NEGLECTED_MASS`` for the untruncated noise."""
    return int(math.ceil((math.log(2.0) - math.log(NEGLECTED_MASS)) / -log_b))


def _binomial(n, theta):
    """``(m, n + 1)`` binomial pmfs at the ``m`` values of ``theta``."""
    x = np.arange(n + 1)
    theta = np.asarray(theta, float)[:, None]
    if theta.size and 0.0 < theta.min() and theta.max() < 1.0:
        # what ``binom.pmf`` computes for valid arguments (the same doubles, checked in the
        # tests), without its argument checks: a third of its time on one row of a supremum
        return np.clip(stats.binom._pmf(x[None, :], n, theta), 0.0, 1.0)
    return stats.binom.pmf(x[None, :], n, theta)


#: arms up to this many trials take :func:`_binomial_rows`' closed form (exact log-coefficients)
_ROWS_LIMIT = EXACT_CHOOSE_N


def _binomial_rows(n, theta):
    """:func:`_binomial` in closed form: ``exp(log C(n, x) + x log theta + (n - x) log(1 - theta))``.

    The lattice's rows (``n`` up to ``_ROWS_LIMIT``; larger arms use :func:`_binomial`): a few
    times faster than ``scipy.stats.binom.pmf`` on the small arrays of a supremum's search.
    The rows are :func:`dpinfer.distributions._binomial_rows.binomial_rows`, whose ``log C(n, x)``
    is the logarithm of the exact integer up to n = 300; the exponent's rounding is about
    ``n`` ulps of its largest term, so entries near the mode keep ~1e-14 relative at
    ``n = 100`` (about 3e-14 at ``n = 222``; checked against scipy in the tests).
    """
    if n > _ROWS_LIMIT:
        return _binomial(n, theta)
    return binomial_rows(n, np.asarray(theta, float), np.arange(n + 1.0))


def _binomial_derivatives(n, theta, pmf=_binomial):
    """The binomial pmfs at ``theta`` (m,) and their first two derivatives in ``theta``: 3 x (m, n + 1).

    ``b' = b S`` and ``b'' = b (S^2 + S')`` with the score ``S = (x - n theta) / v``,
    ``S' = -x / theta^2 - (n - x) / (1 - theta)^2`` (``v = theta (1 - theta)``); near
    ``theta`` in {0, 1} (``v <= 1e-8``) the differences of lower-order pmfs instead (the derivatives of a
    Bernstein polynomial): ``b' = n [b(x - 1; n - 1) - b(x; n - 1)]``,
    ``b'' = n (n - 1) [b(x - 2; n - 2) - 2 b(x - 1; n - 2) + b(x; n - 2)]``.
    """
    b = pmf(n, theta)
    x = np.arange(n + 1)[None, :]
    t = theta[:, None]
    v = t * (1.0 - t)
    inside = v > _EDGE  # nearer 0 or 1 the score's powers of 1/theta overflow
    safe_t, safe_v = np.where(inside, t, 0.5), np.where(inside, v, 0.25)
    score = (x - n * safe_t) / safe_v
    score_slope = -x / safe_t ** 2 - (n - x) / (1.0 - safe_t) ** 2
    first, second = b * score, b * (score ** 2 + score_slope)
    edge = ~inside[:, 0]
    if edge.any():
        first[edge], second[edge] = _edge_derivatives(n, theta[edge], pmf)
    return b, first, second


#: below this ``theta (1 - theta)`` the derivatives come from differences of pmfs
_EDGE = 1e-8


def _edge_derivatives(n, theta, pmf=_binomial):
    """:func:`_binomial_derivatives`' first and second derivatives by differences (any ``theta``)."""
    m = theta.shape[0]
    first, second = np.zeros((m, n + 1)), np.zeros((m, n + 1))
    if n >= 1:
        low = n * pmf(n - 1, theta)
        first[:, 1:] += low
        first[:, :-1] -= low
    if n >= 2:
        low = (n * (n - 1)) * pmf(n - 2, theta)
        second[:, 2:] += low
        second[:, 1:-1] -= 2.0 * low
        second[:, :-2] += low
    return first, second


def _cells(arm):
    """``(M, rest)``: interior cells ``|d| < M``, edge cells ``[M - 1/2, M + rest]``; None untruncated."""
    if arm.cut is None or math.floor(arm.cut + 0.5) - 1 > _reach(arm.log_b):
        return None  # untruncated, or cut beyond the neglected tail
    big_m = math.floor(arm.cut + 0.5)
    return big_m, arm.cut - big_m


def _layout(arm):
    """The components of ``Z``: ``(k_min, size, u_low, u_high)`` each (see :func:`_pmfs`)."""
    if not isinstance(arm, _Arm):  # a Laplace arm (_laplace_arms): the binomial pmf alone
        return [(0, arm.n + 1, 0.0, 0.0)]
    cells = _cells(arm)
    if cells is None:
        reach = _reach(arm.log_b)
        return [(-reach, arm.n + 1 + 2 * reach, -0.5, 0.5)]
    big_m, rest = cells
    if big_m == 0:
        return [(0, arm.n + 1, -arm.cut, arm.cut)]
    out = [(-(big_m - 1), arm.n + 1 + 2 * (big_m - 1), -0.5, 0.5)]
    if rest > -0.5:
        out += [(big_m, arm.n + 1, -0.5, rest), (-big_m, arm.n + 1, -rest, 0.5)]
    return out


def _pmfs(arm, theta):
    """:func:`_component_pmfs`, remembered for the last few ``(arm, theta)``.

    A supremum, a critical value and an interval evaluate the same nuisance grid again and
    again at new cut-offs; the pmfs do not depend on the cut-off.  The arrays are shared:
    callers must not write to them.
    """
    theta = np.ascontiguousarray(theta, dtype=float)
    entries = theta.size * sum(size for _, size, _, _ in _layout(arm))
    if entries > _CACHE_ENTRY:
        return _component_pmfs(arm, theta)  # too large to keep
    if theta.size == 1 and entries <= _ROW_ENTRY:
        return _cached_row(arm, theta.tobytes())
    return _cached_pmfs(arm, theta.tobytes())


#: the largest set of pmfs kept (in doubles, 8 MB); with 16 entries at most about 128 MB
_CACHE_ENTRY = 1_000_000


@lru_cache(maxsize=16)
def _cached_pmfs(arm, theta_bytes):
    out = _component_pmfs(arm, np.frombuffer(theta_bytes, dtype=float))
    for p in out:
        p.flags.writeable = False
    return out


#: the largest single row kept by :func:`_cached_row` (in doubles: 128 KB; 256 rows at most 32 MB)
_ROW_ENTRY = 1 << 14


@lru_cache(maxsize=256)
def _cached_row(arm, theta_bytes):
    """:func:`_cached_pmfs` for one nuisance value: a critical value's level search refines the
    same grid cells at each level, and Brent's first two points in a cell do not depend on the
    tail (golden-section steps), so those rows recur across the ~20 levels."""
    return _cached_pmfs.__wrapped__(arm, theta_bytes)


def _clear_caches():
    """Forget every remembered pmf (:func:`_pmfs`, :func:`_point_pmfs`, the log-coefficients):
    a benchmark times each call's own."""
    _cached_pmfs.cache_clear()
    _cached_row.cache_clear()
    _point_pmfs.cache_clear()
    log_choose.cache_clear()


def _component_pmfs(arm, theta):
    """The component pmfs ``(m, size)`` of :func:`_layout` at each ``theta`` (m,).

    ``pmf[:, j]`` is ``P(K = k_min + j, U in [u_low, u_high])``; the components' masses add
    to 1 up to the neglected noise tail (< ``NEGLECTED_MASS``).  ``K = X + D``: the binomial
    pmf convolved with the integer noise, exactly (sums of non-negative terms, so every
    entry keeps its relative precision): by two first-order recursions (geometric filters)
    for the untruncated noise, by direct shifted sums for the truncated one.
    """
    if not isinstance(arm, _Arm):  # a Laplace arm: its noise is in its plan (_laplace_arms)
        return [_binomial(arm.n, theta)]
    return _convolved(arm, _binomial(arm.n, theta))


@lru_cache(maxsize=8)
def _point_pmfs(arm):
    """The component pmfs given ``X = x``, one row per ``x = 0..n`` (the noise law, shifted)."""
    out = _convolved(arm, np.eye(arm.n + 1))
    for p in out:
        p.flags.writeable = False
    return out


def _convolved(arm, binom):
    """:func:`_component_pmfs` of the rows of ``binom`` (m, n + 1): any pmfs of ``X``."""
    b = math.exp(arm.log_b)
    one_minus_b = -math.expm1(arm.log_b)
    density = one_minus_b / (1.0 + b) / arm.one_minus_q  # mass of the cell d = 0
    m = binom.shape[0]
    cells = _cells(arm)
    if cells is None:
        # on 0..n: left(k) = sum_{x <= k} B(x) b^(k - x), right(k) = sum_{x > k} B(x) b^(x - k);
        # beyond, K = k < 0 has mass density b^|k| sum_x B(x) b^x, and K = n + j has
        # density b^j sum_x B(x) b^(n - x) = density b^j left(n): geometric tails, in closed form
        reach = _reach(arm.log_b)
        left = signal.lfilter([1.0], [1.0, -b], binom, axis=1)
        right = np.zeros_like(binom)
        right[:, :-1] = signal.lfilter([b], [1.0, -b], binom[:, :0:-1], axis=1)[:, ::-1]
        powers = np.exp(np.arange(1, reach + 1) * arm.log_b)
        below = np.outer(binom[:, 0] + right[:, 0], powers)[:, ::-1]
        above = np.outer(left[:, -1], powers)
        return [density * np.concatenate([below, left + right, above], axis=1)]
    big_m, rest = cells
    if big_m == 0:
        return [binom]
    interior = np.zeros((m, arm.n + 1 + 2 * (big_m - 1)))
    for d in range(-(big_m - 1), big_m):
        start = d + big_m - 1
        interior[:, start:start + arm.n + 1] += density * b ** abs(d) * binom
    out = [interior]
    if rest > -0.5:
        edge = density * math.exp(big_m * arm.log_b) * (rest + 0.5)
        out += [edge * binom, edge * binom]
    return out


def _uniform_sum_tail(s, lo1, hi1, lo2, hi2):
    """``P(A + B >= s)`` for independent ``A ~ U(lo1, hi1)``, ``B ~ U(lo2, hi2)``, elementwise.

    The sum's cdf is ``[R(s - lo1 - lo2) - R(s - lo1 - hi2) - R(s - hi1 - lo2) + R(s - hi1 - hi2)]
    / (w1 w2)`` with ``R(x) = max(x, 0)^2 / 2``; the tail is taken from the same formula
    mirrored, and each side is used where it is below 1/2 (no cancellation against 1).
    """
    w = (hi1 - lo1) * (hi2 - lo2)
    # outside [lo1 + lo2, hi1 + hi2] the tail is 1 or 0: clip far values (no overflow in R)
    s = np.clip(s, lo1 + lo2 - 1.0, hi1 + hi2 + 1.0)

    def ramp(x):
        return np.square(np.maximum(x, 0.0)) / 2.0

    upper = (ramp(hi1 + hi2 - s) - ramp(hi1 + lo2 - s) - ramp(lo1 + hi2 - s) + ramp(lo1 + lo2 - s)) / w
    lower = (ramp(s - lo1 - lo2) - ramp(s - lo1 - hi2) - ramp(s - hi1 - lo2) + ramp(s - hi1 - hi2)) / w
    middle = (lo1 + lo2 + hi1 + hi2) / 2.0
    return np.clip(np.where(s >= middle, upper, 1.0 - lower), 0.0, 1.0)


def _pair_plan(outer, a_out, inner, a_in, t):
    """What ``P(a_out Z_o + a_in Z_i >= t)`` needs beyond the pmfs, for one pair of components.

    ``outer``/``inner`` are layouts ``(k_min, size, u_low, u_high)``, ``a_in > 0``.  For each
    outer ``k_o`` the inner sum is the inner upper tail from the first ``k_i`` where the
    uniform part surely clears ``t`` (index ``start``), plus the few ``k_i`` where it may
    (indices ``near``, weights ``g`` = the closed-form tail of the two uniforms).  None of it
    depends on theta, so a supremum over the nuisance computes it once.
    """
    ko_min, n_o, lo_o, hi_o = outer
    ki_min, n_i, lo_i, hi_i = inner
    a_lo, a_hi = sorted((a_out * lo_o, a_out * hi_o))
    b_lo, b_hi = a_in * lo_i, a_in * hi_i
    rest = t - a_out * (ko_min + np.arange(n_o))  # a_in k_i + W >= rest
    # g = 1 from ``first`` on; clipped (as a float) to just beyond the inner support first,
    # so that a far-away t cannot overflow the integer cast
    first = np.clip(np.ceil((rest - a_lo - b_lo) / a_in), ki_min - 1.0, ki_min + n_i + 1.0)
    first = first.astype(np.int64) + 1
    width = int(math.ceil((a_hi - a_lo + b_hi - b_lo) / a_in)) + 2
    k_i = first[:, None] - np.arange(1, width + 1)[None, :]
    idx = k_i - ki_min
    g = _uniform_sum_tail(rest[:, None] - a_in * k_i, a_lo, a_hi, b_lo, b_hi)
    g = np.where((idx >= 0) & (idx < n_i), g, 0.0)
    return np.clip(first - ki_min, 0, n_i), np.clip(idx, 0, n_i - 1), g


def _pair_value(plan, po, pi):
    """The pair's tail at rows (m,) from its plan and the two pmfs (m, size)."""
    start, near, g = plan
    sf = np.zeros((pi.shape[0], pi.shape[1] + 1))
    sf[:, :-1] = np.cumsum(pi[:, ::-1], axis=1)[:, ::-1]
    total = sf[:, start] + np.einsum("mow,ow->mo", pi[:, near], g)
    return np.einsum("mo,mo->m", po, total)


class _Plan:
    """What every tail plan offers the supremum and its certificate, from its ``_bilinear``.

    A plan's tail is bilinear in the two arms' component pmfs (:func:`_pmfs`): subclasses
    give ``_bilinear(p1, p2)`` (no clipping, so signed rows for derivatives work) and, if
    they can, a lattice of conditional tails (:meth:`_TailPlan.use_lattice`).
    """

    _lattice = None

    def __call__(self, theta1, theta2):
        theta1, theta2 = _rows(theta1, theta2)
        return np.concatenate([self.from_pmfs(_pmfs(self.arms[0], a), _pmfs(self.arms[1], b))
                               for a, b in _blocks(self.arms, theta1, theta2)])

    def rows(self, theta1, theta2):
        """The tail at rows ``(theta1, theta2)``: through the lattice once it is built."""
        if self._lattice is None:
            return self(theta1, theta2)
        theta1, theta2 = _rows(theta1, theta2)
        b1 = _binomial_rows(self.arms[0].n, theta1)
        b2 = _binomial_rows(self.arms[1].n, theta2)
        return np.clip(_row_dot(_times(b1, self._lattice), b2), 0.0, 1.0)

    def use_lattice(self):
        """Build the lattice of conditional tails if this plan has one; True if built."""
        return False

    def lattice_pays(self):
        """True if the lattice costs less than a located supremum's own evaluations (a few
        hundred nuisance values are needed before a general lattice pays: see ``_sup_tail``)."""
        return False

    def on_grid(self, theta1, theta2, upper, slope=None):
        """``(values, corners, curvature)`` on a grid of the null curve, through the lattice (built).

        ``values`` the tail at the rows, ``corners`` at the cells' monotone corners (the rows
        of ``theta1`` one up and ``theta2`` one down for ``upper``, the reverse otherwise: the
        same pmfs, paired anew), ``curvature`` as :meth:`with_curvature` (None without ``slope``).
        """
        theta1, theta2 = _rows(theta1, theta2)
        if slope is None:
            b1, b2 = _binomial_rows(self.arms[0].n, theta1), _binomial_rows(self.arms[1].n, theta2)
            g0, curvature = _times(b1, self._lattice), None
        else:
            d1 = _binomial_derivatives(self.arms[0].n, theta1, _binomial_rows)
            d2 = _binomial_derivatives(self.arms[1].n, theta2, _binomial_rows)
            g0, g1, g2 = (_times(d, self._lattice) for d in d1)
            b2 = d2[0]
            curvature = slope ** 2 * _row_dot(g2, b2) + 2.0 * slope * _row_dot(g1, d2[1]) + _row_dot(g0, d2[2])
        values = np.clip(_row_dot(g0, b2), 0.0, 1.0)
        corners = _row_dot(g0[1:], b2[:-1]) if upper else _row_dot(g0[:-1], b2[1:])
        return values, np.clip(corners, 0.0, 1.0), curvature

    def from_pmfs(self, p1, p2):
        """The tail from the arms' component pmfs (rows paired), as :func:`_pmfs` gives them."""
        return np.clip(self._bilinear(p1, p2), 0.0, 1.0)

    def with_curvature(self, theta1, theta2, slope, progress=SILENT):
        """The tail and its second derivative along ``(theta1 + slope nu, theta2 + nu)``, exactly.

        The derivatives of a binomial pmf are closed forms in the pmf (see
        :func:`_binomial_derivatives`), and the tail is linear in each arm's pmf, so
        ``p'' = slope^2 T(b1'', b2) + 2 slope T(b1', b2') + T(b1, b2'')`` with ``T`` the double
        sum of the tail.  The terms cancel: ``p''`` carries an absolute error near
        ``(n1 + n2)^2`` ulps, which the certificate adds to its bound.  Evaluated in blocks
        of rows (:func:`_blocks`), each reported to ``progress`` as its share of the rows.
        """
        theta1, theta2 = _rows(theta1, theta2)
        parts = []
        for a, b in _blocks(self.arms, theta1, theta2):
            parts.append(self._with_curvature(a, b, slope))
            progress.fraction(sum(v.size for v, _ in parts) / max(theta1.size, 1))
        return np.concatenate([v for v, _ in parts]), np.concatenate([c for _, c in parts])

    def _with_curvature(self, theta1, theta2, slope):
        pmf = _binomial if self._lattice is None else _binomial_rows
        d1 = _binomial_derivatives(self.arms[0].n, theta1, pmf)
        d2 = _binomial_derivatives(self.arms[1].n, theta2, pmf)
        if self._lattice is not None:
            value, _, curvature = self._lattice_derivatives(d1, d2, slope)
        else:
            c1 = [_convolved(self.arms[0], d) for d in d1]
            c2 = [_convolved(self.arms[1], d) for d in d2]
            value = self._bilinear(c1[0], c2[0])
            curvature = (slope ** 2 * self._bilinear(c1[2], c2[0]) + 2.0 * slope * self._bilinear(c1[1], c2[1])
                         + self._bilinear(c1[0], c2[2]))
        return np.clip(value, 0.0, 1.0), curvature

    def along_line(self, theta1, theta2, slope):
        """The tail and its first two derivatives along ``(theta1 + slope nu, theta2 + nu)``,
        through the lattice (built): ``(value, first, second)``, as :meth:`with_curvature`."""
        theta1, theta2 = _rows(theta1, theta2)
        d1 = _binomial_derivatives(self.arms[0].n, theta1, _binomial_rows)
        d2 = _binomial_derivatives(self.arms[1].n, theta2, _binomial_rows)
        value, first, second = self._lattice_derivatives(d1, d2, slope)
        return np.clip(value, 0.0, 1.0), first, second

    def _lattice_derivatives(self, d1, d2, slope):
        """``p``, ``p' = slope T(b1', b2) + T(b1, b2')`` and ``p''`` from the arms' pmf derivatives."""
        g0, g1, g2 = (_times(d, self._lattice) for d in d1)
        value = _row_dot(g0, d2[0])
        first = slope * _row_dot(g1, d2[0]) + _row_dot(g0, d2[1])
        second = slope ** 2 * _row_dot(g2, d2[0]) + 2.0 * slope * _row_dot(g1, d2[1]) + _row_dot(g0, d2[2])
        return value, first, second


class _TailPlan(_Plan):
    """``P(a1 Z1 + a2 Z2 >= t)`` (``upper``) or ``<= t`` as a function of ``(theta1, theta2)``.

    The arm with the larger ``|a|`` is the inner one (fewest cut terms per outer count).
    """

    def __init__(self, arm1, arm2, a1, a2, t, upper=True):
        t = float(t)
        if not upper:
            a1, a2, t = -a1, -a2, -t
        self.arms = (arm1, arm2)
        self.swap = abs(a1) > abs(a2)
        a_out, a_in = (a2, a1) if self.swap else (a1, a2)
        self.reflect = a_in < 0
        outer = _layout(arm2 if self.swap else arm1)
        inner = _layout(arm1 if self.swap else arm2)
        if self.reflect:
            inner, a_in = [(-(k + size - 1), size, -hi, -lo) for k, size, lo, hi in inner], -a_in
        self.plans = [[_pair_plan(co, a_out, ci, a_in, t) for ci in inner] for co in outer]
        # the noise law of each arm is the same at every count (Z = x + N): with a2 = -a1 the
        # conditional tail given X = (x1, x2) depends on x1 - x2 alone
        self.shift_invariant = a1 == -a2
        self._lattice = None

    def use_lattice(self):
        """Build the lattice of conditional tails if it is small enough; True if built.

        ``F[x1, x2] = P(T beyond t | X1 = x1, X2 = x2)``, so the tail at any ``theta`` is
        ``b1(theta1)' F b2(theta2)`` (``b_i`` the binomial pmfs): one (n1 + 1)(n2 + 1) sum of
        non-negative terms per nuisance value instead of the noise-wide convolution, which
        pays when a supremum evaluates many nuisance values at one cut-off.  When
        ``a2 = -a1`` (equal arms, the difference) ``F`` is a Toeplitz matrix, built from its
        first row and column.
        """
        if self._lattice is None and (self.arms[0].n + 1) * (self.arms[1].n + 1) <= LATTICE_LIMIT:
            self._lattice = self._build_lattice()
        return self._lattice is not None

    def lattice_pays(self):
        """The shift-invariant lattice is built from a few columns: it pays at once."""
        return self.shift_invariant

    def _build_lattice(self):
        arm_o, arm_i = (self.arms[1], self.arms[0]) if self.swap else self.arms
        outer, inner = _point_pmfs(arm_o), _point_pmfs(arm_i)
        if self.reflect:
            inner = [p[:, ::-1] for p in inner]
        if self.shift_invariant:
            # F[x_o, x_i] = psi(x_o - x_i): the columns x_i = 0, n_o + 1, 2 (n_o + 1), ..., n_i
            # hold psi(j) for every j in [-n_i, n_o] (at j + n_i)
            columns = np.unique(np.append(np.arange(0, arm_i.n + 1, arm_o.n + 1), arm_i.n))
            part = self._lattice_part(outer, [p[columns] for p in inner])
            psi = np.empty(arm_o.n + arm_i.n + 1)
            for r, column in zip(columns, part.T):
                psi[arm_i.n - r:arm_i.n - r + arm_o.n + 1] = column
            lattice = psi[np.subtract.outer(np.arange(arm_o.n + 1), np.arange(arm_i.n + 1)) + arm_i.n]
        else:
            lattice = self._lattice_part(outer, inner)
        return lattice.T.copy() if self.swap else lattice

    def _lattice_part(self, outer, inner):
        """``F`` at the rows of ``outer`` and ``inner`` given (their point pmfs, component lists)."""
        lattice = np.zeros((outer[0].shape[0], inner[0].shape[0]))
        for plans, po in zip(self.plans, outer):
            for (start, near, g), pi in zip(plans, inner):
                for lo in range(0, pi.shape[0], _LATTICE_BLOCK):
                    block = pi[lo:lo + _LATTICE_BLOCK]
                    sf = np.zeros((block.shape[0], block.shape[1] + 1))
                    sf[:, :-1] = np.cumsum(block[:, ::-1], axis=1)[:, ::-1]
                    total = sf[:, start] + np.einsum("xow,ow->xo", block[:, near], g)
                    lattice[:, lo:lo + _LATTICE_BLOCK] += po @ total.T
        return lattice

    def _bilinear(self, p1, p2):
        """The double sum for any (signed) rows of component arrays: linear in each."""
        outer, inner = (p2, p1) if self.swap else (p1, p2)
        if self.reflect:
            inner = [p[:, ::-1] for p in inner]
        total = 0.0
        for plans, po in zip(self.plans, outer):
            for plan, pi in zip(plans, inner):
                total = total + _pair_value(plan, po, pi)
        return total


#: entries of one arm's component pmfs (rows x noise range) evaluated at once: 16 MB
_ROW_BUDGET = 1 << 21


def row_width(arms):
    """Entries per nuisance value of the two arms' component pmfs (the cost of one tail)."""
    return sum(size for arm in arms for _, size, _, _ in _layout(arm))


def _blocks(arms, theta1, theta2):
    """``(theta1, theta2)`` in blocks of rows whose pmfs stay within ``_ROW_BUDGET`` entries."""
    step = max(1, _ROW_BUDGET // row_width(arms))
    for lo in range(0, max(theta1.size, 1), step):
        yield theta1[lo:lo + step], theta2[lo:lo + step]


def _rows(theta1, theta2):
    return np.broadcast_arrays(np.atleast_1d(np.asarray(theta1, float)),
                               np.atleast_1d(np.asarray(theta2, float)))


def _times(rows, lattice):
    """``rows @ lattice`` by einsum's own loops: a few rows at a time, where a threaded BLAS on
    a busy machine spends far longer synchronising than multiplying."""
    return np.einsum("mi,ij->mj", rows, lattice)


def _row_dot(u, v):
    return np.einsum("mj,mj->m", u, v)


def _statistic_tail(arm1, arm2, theta1, theta2, c, t, upper=True):
    """``P(Z1/n1 - c Z2/n2 >= t)`` (or ``<= t``) at rows ``(theta1, theta2)`` (arrays (m,)), ``t`` a number."""
    return _TailPlan(arm1, arm2, 1.0 / arm1.n, -c / arm2.n, t, upper)(theta1, theta2)
