"""The standardised (score) ordering of two Tulap releases and its exact tails.

Kernels: valid public input assumed.  See the package docstring ("Ordering statistic") for
the derivation; the names here follow it.

The release ``Z_i = K_i + U_i`` determines ``K_i = round(Z_i)`` exactly: ``U_i`` lies in the
open cell ``(-1/2, 1/2)`` (inside it at the edge cells of a truncated law), and a released
value is an odd multiple of ``h_i / 2``, never a half-integer, whose grid cell lies inside
one unit cell.  The statistic is the pair, ordered lexicographically,

    T = (g(clip(K_1, 0, n_1), clip(K_2, 0, n_2)),  T_lin = Z_1/n_1 - c Z_2/n_2),

``g`` the score statistic of the null made monotone (:func:`_order`).  Its upper tail at an
observed ``(g_obs, t)`` is

    P(T >= (g_obs, t)) = sum_{g(j) > g_obs} Q_1(j_1) Q_2(j_2)
                         + sum_{g(clip k) = g_obs} p_1(k_1) p_2(k_2) G(t - a_1 k_1 - a_2 k_2),

``Q_i`` the pmf of ``clip(K_i)`` and the second sum, over the full lattice cells whose clipped
cell ties, the linear tail of :mod:`._law` restricted to them (per pair of components).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ._law import LATTICE_LIMIT, _layout, _pair_plan, _Plan, _point_pmfs, _times
from ._odds_ratio import _odds_ratio_terms

__all__ = []  # private module

#: ``g`` is rounded to a multiple of this before ties are decided (see :func:`_order`)
QUANTUM = 2.0**-32
#: the order matrix has (n1 + 1)(n2 + 1) cells; larger lattices are refused (memory and time)
MAX_CELLS = 4_000_000


def _pooled(n1, n2, v1, v2, rows=slice(None), columns=slice(None)):
    """Barnard's pooled z on the lattice's ``rows`` and ``columns`` with the noise variances added
    (see :func:`_raw_score`).

    From exact integers: ``n1 n2 (p1 - p2)`` and ``N^2 pbar (1 - pbar)`` are exact doubles, so
    mirror cells (``(j1, j2)`` and ``(n - j2, n - j1)`` at ``n1 = n2``) give equal doubles.
    """
    j1 = np.arange(n1 + 1, dtype=float)[rows, None]
    j2 = np.arange(n2 + 1, dtype=float)[None, columns]
    big_n = n1 + n2
    d = (j1 * n2 - j2 * n1) / (n1 * n2)
    s = j1 + j2
    variance = s * (big_n - s) / (big_n * float(n1 * n2)) + v1 / n1**2 + v2 / n2**2
    return d, variance


#: Taylor coefficients of ``sin(y) / y`` in powers of ``y^2``: on ``0 <= y <= pi/6`` the first
#: term left out, ``y^14 / 15!``, is below 1e-16
_SINE = tuple((-1.0) ** k / math.factorial(2 * k + 1) for k in range(7))


def _third_of_arcsine(x):
    """``sin(arcsin(x) / 3)`` for ``x`` in [0, 1] (an array, overwritten with the answer).

    numpy's ``arcsin`` is vectorised and cheap, its ``sin``/``cos`` are not (about 8x a
    product); on ``[0, pi/6]`` the Taylor polynomial is exact to rounding.
    """
    y = np.arcsin(x, out=x)
    y *= 1.0 / 3.0
    y2 = y * y
    total = np.full_like(y, _SINE[-1])
    for coefficient in _SINE[-2::-1]:
        total *= y2
        total += coefficient
    y *= total
    return y


def _restricted_difference(p1, p2, n1, n2, delta):
    """The restricted MLE ``(theta1, theta2)`` under ``theta1 - theta2 = delta`` (Miettinen & Nurminen).

    The closed-form root of the likelihood equation's cubic ``a t^3 + b t^2 + c t + d``
    (Farrington & Manning 1990, eq. (2) with ``theta = n2 / n1``): with ``B = b / (3a)``,
    ``C = c / (3a)``, ``q = B^2 - C`` and ``v = B^3 - 3 B C / 2 + d / (2a)``, the root is
    ``t1 = 2 u cos(w) - B`` with ``u = sign(v) sqrt(q)`` and ``w = (pi + arccos(|v| / q^{3/2})) / 3``,
    and ``cos(w) = sin(arcsin(|v| / q^{3/2}) / 3)`` (``pi/2 - w`` is a third of the arcsine).
    Written as in-place products (numpy's float power and ``cos`` cost several times the rest).
    """
    theta = n2 / n1
    a = 1.0 + theta
    k = 1.0 / (3.0 * a)
    p1 = np.asarray(p1, dtype=float)
    s = np.atleast_1d(np.asarray(p1 + theta * np.asarray(p2, dtype=float), dtype=float))
    big_b = s * -k
    big_b -= (1.0 + theta + delta * (theta + 2.0)) * k
    big_c = s
    big_c += (delta * delta + delta * (theta + 1.0)) + 2.0 * delta * p1
    big_c *= k
    q = big_b * big_b
    q -= big_c
    big_c *= -0.5  # v = B (q - C / 2) + d / (2a)
    big_c += q
    v = np.multiply(big_c, big_b, out=big_c)
    v += (-delta * (1.0 + delta) / (2.0 * a)) * p1
    np.maximum(q, 0.0, out=q)
    u = np.sqrt(q)
    q *= u  # |u|^3
    cosine = np.abs(v)
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine /= q
    # where u = 0 (nan or inf here) t1 = -B whatever the cosine: any finite value
    cosine = _third_of_arcsine(np.fmin(cosine, 1.0, out=cosine))
    u *= 2.0
    t1 = np.copysign(u, v, out=u)
    t1 *= cosine
    t1 -= big_b
    t1 = np.clip(t1, max(0.0, delta), min(1.0, 1.0 + delta), out=t1).reshape(np.broadcast_shapes(p1.shape, np.shape(p2)))
    return t1, t1 - delta


def _restricted_ratio(x1, x2, n1, n2, rho):
    """The restricted MLE under ``theta1 = rho theta2`` (Farrington & Manning 1990, eq. (5))."""
    big_a = rho * (n1 + n2)
    big_b = -(rho * n1 + x1 + n2 + rho * x2)
    big_c = x1 + x2
    t2 = (-big_b - np.sqrt(np.maximum(big_b * big_b - 4.0 * big_a * big_c, 0.0))) / (2.0 * big_a)
    t2 = np.clip(t2, 0.0, min(1.0, 1.0 / rho))
    return np.clip(rho * t2, 0.0, 1.0), t2


#: rows of the lattice computed at once: blocks of ~32 x 1000 doubles stay in the cache (4x
#: faster than whole 1000 x 1000 arrays at n = 1000)
_BLOCK_CELLS = 32_768


def _raw_score(n1, n2, effect, margin, v1=0.0, v2=0.0):
    """The score statistic ``g`` on the lattice ``[0, n1] x [0, n2]`` (before the monotone closure).

    ``g = (p1 - c p2 - Delta0) / sqrt(t1 (1 - t1) / n1 + v1 / n1^2 + c^2 (t2 (1 - t2) / n2 + v2 / n2^2))``
    with ``p_i = j_i / n_i``, ``(t1, t2)`` the restricted MLE under the null (``c = 1``,
    ``Delta0 = margin`` for a difference; ``c = rho0``, ``Delta0 = 0`` for a ratio) and ``v_i``
    the variance of arm ``i``'s integer noise ``D_i`` (:func:`_noise_variance`): the score
    statistic of ``K_i = X_i + D_i``.  At a null of no difference (``Delta0 = 0`` or
    ``rho0 = 1``) the restricted MLE is the pooled proportion and ``g`` (with ``v = 0``)
    Barnard's pooled z.  Where the variance is 0 (only with ``v = 0``, at ``(0, 0)`` or
    ``(n1, n2)`` of a null of no difference) ``g`` is 0 if the numerator is 0, else +-inf.
    An odds ratio ``psi0 != 1`` is ordered by its Miettinen-Nurminen score (:mod:`._odds_ratio`).
    Computed in blocks of rows (``_BLOCK_CELLS``), each cell from its own terms only.

    *Mirror cells.*  For a difference between arms of one size and one noise law, ``g`` is
    the same at ``(j1, j2)`` and ``(n - j2, n - j1)``: the map keeps ``p1 - p2``, carries the
    likelihood under ``theta1 - theta2 = Delta0`` to itself with ``(theta1, theta2)`` to
    ``(1 - theta2, 1 - theta1)``, so the restricted MLE to ``(1 - t2, 1 - t1)``, and keeps
    the variance.  Only the cells with ``j1 + j2 <= n`` are computed and the others copied
    (half the work; mirror cells get equal doubles, as the pooled z's always did).
    """
    g = np.empty((n1 + 1, n2 + 1))
    mirror = effect == "difference" and n1 == n2 and v1 == v2
    step = max(1, _BLOCK_CELLS // (n2 + 1))
    for start in range(0, n1 + 1, step):
        rows = slice(start, min(start + step, n1 + 1))
        columns = slice(0, n2 + 1 - start) if mirror else slice(None)  # mirror: j2 <= n - j1 needed
        g[rows, columns] = _standardised(*_score_terms(n1, n2, effect, margin, v1, v2, rows, columns))
    if mirror:
        upper = np.add.outer(np.arange(n1 + 1), np.arange(n2 + 1)) > n1
        np.copyto(g, g[::-1, ::-1].T.copy(), where=upper)  # g[j1, j2] = g[n - j2, n - j1]
    return g


def _score_terms(n1, n2, effect, margin, v1, v2, rows, columns=slice(None)):
    """``(numerator, variance)`` of :func:`_raw_score` on the lattice's ``rows`` and ``columns``."""
    if effect == "odds-ratio" and margin != 1.0:
        return _odds_ratio_terms(n1, n2, margin, v1, v2, rows)  # Miettinen-Nurminen
    if (effect == "difference" and margin == 0.0) or margin == 1.0:
        return _pooled(n1, n2, v1, v2, rows, columns)
    x1 = np.arange(n1 + 1, dtype=float)[rows, None]
    x2 = np.arange(n2 + 1, dtype=float)[None, columns]
    p1, p2 = x1 / n1, x2 / n2
    if effect == "difference":
        t1, t2 = _restricted_difference(p1, p2, n1, n2, margin)
        c, numerator = 1.0, p1 - p2 - margin
    else:
        t1, t2 = _restricted_ratio(x1, x2, n1, n2, margin)
        c, numerator = margin, p1 - margin * p2
    return numerator, t1 * (1.0 - t1) / n1 + v1 / n1**2 + c * c * (t2 * (1.0 - t2) / n2 + v2 / n2**2)


def _standardised(numerator, variance):
    """``numerator / sqrt(variance)``; where the variance is 0, 0 or +-inf by the numerator's sign."""
    numerator, variance = np.broadcast_arrays(numerator, variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = numerator / np.sqrt(variance)
    if variance.min() > 0:  # always with noise: no edge cells (the same doubles, fewer passes)
        return g
    edge = np.where(numerator == 0, 0.0, np.where(numerator > 0, np.inf, -np.inf))
    return np.where(variance > 0, g, edge)


def _noise_variance(arm):
    """``Var(D) = 2 b / (1 - b)^2`` of the untruncated integer noise (a public number; used by
    the ordering only, so the truncated law's slightly smaller variance need not enter)."""
    b = math.exp(arm.log_b)
    return 2.0 * b / math.expm1(arm.log_b) ** 2


def _closure(g):
    """The smallest majorant of ``g`` nondecreasing in ``j1`` and nonincreasing in ``j2``.

    ``h(j1, j2) = max {g(i1, i2) : i1 <= j1, i2 >= j2}``: a running maximum down the rows,
    then a running maximum leftwards along each row.  Each running maximum is skipped where
    ``g`` is already monotone that way (it would return ``g`` itself; the score with the
    noise variances added usually is, and the check costs a fifth of the pass).
    """
    if not (g[1:] >= g[:-1]).all():
        g = np.maximum.accumulate(g, axis=0)
    if not (g[:, :-1] >= g[:, 1:]).all():
        g = np.maximum.accumulate(g[:, ::-1], axis=1)[:, ::-1]
    return g


def _order(arm1, arm2, null):
    """The ordering of the null on the two arms' lattice (:func:`_order_matrix`)."""
    return _order_matrix(arm1.n, arm2.n, null.effect, float(null.margin),
                         _noise_variance(arm1), _noise_variance(arm2))


@lru_cache(maxsize=8)  # at most 8 x 32 MB (MAX_CELLS doubles each)
def _order_matrix(n1, n2, effect, margin, v1, v2):
    """The ordering ``g`` on ``[0, n1] x [0, n2]``: the score, its monotone closure, rounded.

    Rounded to a multiple of ``QUANTUM`` (2**-32) after the closure (rounding is monotone, so
    the result stays monotone): the doubles carry errors near 1e-15 relative, so equal exact
    values round together (unless one lies within that error of a rounding boundary), and the
    rounded ``g`` *is* the statistic: whatever the rounding decides, the ordering is a fixed
    monotone function of the release and the test exact for it.  Read-only (shared).
    """
    g = _closure(_raw_score(n1, n2, effect, margin, v1, v2))
    finite = np.isfinite(g)
    if finite.all():  # the same doubles as below, in fewer passes over the lattice
        g = g * (1.0 / QUANTUM)  # exact (a power of two), as the division below
        np.round(g, out=g)
        g *= QUANTUM
    else:
        g = np.where(finite, np.round(np.where(finite, g, 0.0) / QUANTUM) * QUANTUM, g)
    g.flags.writeable = False
    return g


@dataclass(frozen=True)
class _Observed:
    """A released pair for the score ordering (the cells are applied by :func:`_cut`)."""

    z1: float
    z2: float


@dataclass(frozen=True)
class _Cut:
    """A point of the lexicographic order: the level of ``g`` and the linear statistic ``t``."""

    level: float
    t: float


def _lattice_cell(z, n, low):
    """``clip(K, 0, n)`` of a continuous value ``z``: the smaller ``K`` at a half-integer if ``low``."""
    k = math.ceil(z - 0.5) if low else math.floor(z + 0.5)
    return min(max(k, 0), n)


def _cut(arm1, arm2, null, observed, upper):
    """The observed ``_Cut`` moved to the end of the release cells that maximises the tail.

    A release stands for ``[z_i - h_i/2, z_i + h_i/2]``; ``T`` is nondecreasing in ``z1`` and
    nonincreasing in ``z2``, so the upper tail is largest at ``(z1 - h1/2, z2 + h2/2)`` (with
    the smaller ``K_1`` and larger ``K_2`` where that corner is a half-integer), the lower at
    the opposite corner.
    """
    s = -1.0 if upper else 1.0
    z1, z2 = observed.z1 + s * arm1.half_step, observed.z2 - s * arm2.half_step
    k1 = _lattice_cell(z1, arm1.n, upper)
    k2 = _lattice_cell(z2, arm2.n, not upper)
    level = float(_order(arm1, arm2, null)[k1, k2])
    return _Cut(level, z1 / arm1.n - null.coefficient * z2 / arm2.n)


def _statistic(arm1, arm2, null, z1, z2):
    """The reported statistic: ``g`` at the released pair's lattice cell."""
    k1, k2 = _lattice_cell(z1, arm1.n, True), _lattice_cell(z2, arm2.n, True)
    return float(_order(arm1, arm2, null)[k1, k2])


def _clipped(p, k_min, n):
    """The pmf of ``clip(K, 0, n)`` (m, n + 1) from a component pmf ``p`` (m, size) from ``k_min``."""
    size = p.shape[1]
    out = np.zeros((p.shape[0], n + 1))
    # index of k = 0 and k = n in p, clipped to [-1, size]: slices below, inside and above
    zero, top = min(max(-k_min, -1), size), min(max(n - k_min, -1), size)
    if zero >= 0:
        out[:, 0] = p[:, :min(zero, size - 1) + 1].sum(axis=1)
    if top < size:
        out[:, n] = p[:, max(top, 0):].sum(axis=1)
    first, last = max(zero + 1, 0), min(top, size)  # 0 < k < n
    if last > first:
        out[:, k_min + first:k_min + last] = p[:, first:last]
    return out


class _ScorePlan(_Plan):
    """``P(T >= cut)`` (``upper``) or ``P(T <= cut)`` as a function of ``(theta1, theta2)``.

    The same interface as :class:`._law._TailPlan` (a :class:`._law._Plan` from its
    ``_bilinear``), so any null curve, supremum and certificate use it unchanged.  The lower tail is the upper tail of ``(-g, -T_lin)``.
    """

    def __init__(self, arm1, arm2, null, cut, upper=True):
        order = _order(arm1, arm2, null)
        a1, a2, t, level = 1.0 / arm1.n, -null.coefficient / arm2.n, cut.t, cut.level
        if not upper:
            order, a1, a2, t, level = -order, -a1, -a2, -t, -level
        self.arms = (arm1, arm2)
        self.starts = tuple([k for k, _, _, _ in _layout(arm)] for arm in (arm1, arm2))
        # ``order`` is monotone, so in each row the cells above the level are a prefix of j2
        # (upper tail: g nonincreasing in j2) or a suffix (lower tail, order negated): their
        # number per row is all the strict part needs
        self.prefix = upper
        self.pairs = []
        self.swap = abs(a1) > abs(a2)
        a_out, a_in = (a2, a1) if self.swap else (a1, a2)
        self.reflect = a_in < 0
        reach = _linear_reach((arm1, arm2), (a1, a2))
        if not reach[0] < t <= reach[1]:
            # the cut's linear part is beyond every linear value: the whole tying level is in
            # (or out of) the tail, which is then a sum over the clipped lattice alone (the
            # tie sums below would add each tying cell's pmf times 1, or 0): the level
            # searches of a critical value evaluate only such cuts
            self.count = ((order >= level) if t <= reach[0] else (order > level)).sum(axis=1)
            return
        self.count = (order > level).sum(axis=1)
        tie = order == level
        if self.swap:
            tie = tie.T
        arm_out, arm_in = (arm2, arm1) if self.swap else (arm1, arm2)
        outer, inner = _layout(arm_out), _layout(arm_in)
        if self.reflect:
            inner, a_in = [(-(k + size - 1), size, -hi, -lo) for k, size, lo, hi in inner], -a_in
        rows = np.flatnonzero(tie.any(axis=1))
        # per pair of components: the linear plan, and for each tying outer class j the outer
        # indices in it and the inner mask (the inner cells whose clipped value ties with j)
        for co in outer:
            k_o = np.clip(co[0] + np.arange(co[1]), 0, arm_out.n)
            for ci in inner:
                k_i = ci[0] + np.arange(ci[1])
                k_i = np.clip(-k_i if self.reflect else k_i, 0, arm_in.n)
                if not rows.size:
                    continue
                start, near, g = _pair_plan(co, a_out, ci, a_in, t)
                groups = []
                for j in rows:
                    idx = np.flatnonzero(k_o == j)
                    if idx.size:
                        groups.append((idx, tie[j][k_i].astype(float)))
                self.pairs.append((start, near, g, groups))

    def use_lattice(self):
        """Build the lattice of conditional tails if it is small enough; True if built.

        ``F[x1, x2]`` is :meth:`_bilinear` with every row of arm 1's point pmfs (the noise law
        shifted by ``x1``) against every row of arm 2's: the same sums, as matrix products
        (the strict part ``Q1 C2'`` over the clipped lattice, each tying class's part
        ``P_o[:, class] S_i[:, class]'``) instead of one pair of rows at a time.
        """
        if self._lattice is None and (self.arms[0].n + 1) * (self.arms[1].n + 1) <= LATTICE_LIMIT:
            self._lattice = self._build_lattice()
        return self._lattice is not None

    def lattice_pays(self):
        """The score's paired sums cost about a tenth of its lattice per nuisance value, and
        a located supremum (grid and refinements) evaluates about a hundred: it pays."""
        return True

    def _build_lattice(self):
        def crossed(a, b):  # every row of a against every row of b
            return _times(a, b.T)

        tied = (lambda a, b: crossed(b, a)) if self.swap else crossed  # (outer, inner) -> (arm 1, arm 2)
        return self._sums(_point_pmfs(self.arms[0]), _point_pmfs(self.arms[1]), crossed, tied)

    def _cumulative(self, q2):
        """``cum[:, b]``: ``P(clip K2 < b)`` (upper tail) or ``P(clip K2 > n2 - b)`` (lower)."""
        cum = np.zeros((q2.shape[0], q2.shape[1] + 1))
        cum[:, 1:] = np.cumsum(q2 if self.prefix else q2[:, ::-1], axis=1)
        return cum

    @staticmethod
    def _inner_sums(pi, mask, start, near, g):
        """For each row of ``pi`` and outer index of a tying class: the inner tail over its cells."""
        # only the span of the mask's nonzero cells is summed (a tying class holds few inner
        # cells): outside it the masked row is 0, so the suffix sums are unchanged, bit for bit
        cells = np.flatnonzero(mask)
        near_part = np.einsum("miw,iw->mi", pi[:, near], g * mask[near])
        if not cells.size:
            return near_part
        lo, hi = int(cells[0]), int(cells[-1]) + 1
        sf = np.zeros((pi.shape[0], hi - lo + 1))
        sf[:, :-1] = np.cumsum((pi[:, lo:hi] * mask[lo:hi])[:, ::-1], axis=1)[:, ::-1]
        return sf[:, np.clip(start - lo, 0, hi - lo)] + near_part

    def _bilinear(self, p1, p2):
        """The tail from the arms' component pmfs (rows paired; any signed rows: no clipping)."""
        return self._sums(p1, p2, _paired, _paired)

    def _sums(self, p1, p2, strict, tied):
        """The strict part ``strict(Q1, C2[:, count])`` plus each tying class's ``tied(P_o, S_i)``.

        ``strict`` and ``tied`` pair the rows (the tail per nuisance value) or cross them
        (the lattice); ``tied`` takes the outer arm's rows first.
        """
        arm1, arm2 = self.arms
        q1 = sum(_clipped(p, k, arm1.n) for p, k in zip(p1, self.starts[0]))
        cum = self._cumulative(sum(_clipped(p, k, arm2.n) for p, k in zip(p2, self.starts[1])))
        total = strict(q1, cum[:, self.count])
        outer, inner = (p2, p1) if self.swap else (p1, p2)
        if self.reflect:
            inner = [p[:, ::-1] for p in inner]
        pairs = iter(self.pairs)
        for po in outer:
            for pi in inner:
                if not self.pairs:
                    break
                start, near, g, groups = next(pairs)
                for idx, mask in groups:
                    total = total + tied(po[:, idx], self._inner_sums(pi, mask, start[idx], near[idx], g[idx]))
        return total


def _linear_reach(arms, coefficients):
    """``(low, high)``: the least and largest values of ``a1 Z1 + a2 Z2`` over the arms' components."""
    low = high = 0.0
    for arm, a in zip(arms, coefficients):
        ends = [a * (k + u) for k, size, lo, hi in _layout(arm) for k, u in ((k, lo), (k + size - 1, hi))]
        low, high = low + min(ends), high + max(ends)
    return low, high


def _paired(a, b):
    return np.einsum("mi,mi->m", a, b)
