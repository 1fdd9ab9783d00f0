"""Repro samples for the difference of two group means (sigma known): the nuisance's supremum, certified.

Private kernels of :mod:`dpinfer.inference.means` (:func:`mean2_repro_test`); they assume
valid input.

The parameter is ``delta = mu1 - mu2``, the nuisance ``mu2``.  Seed ``r`` (each group's
normals and integer noise, :mod:`._simulator`) gives the simulated statistic
``T_r = V1_r(mu1) / n1 - V2_r(mu2) / n2`` (``V`` a simulated released clipped sum, a
nondecreasing step function of its mean), ranked with the observed ``t = S1 / n1 - S2 /
n2`` (ties count both ways).  The p-value for ``delta`` is ``sup_mu2 p(mu2 + delta, mu2)``.

**Bounds by monotonicity.**  On a box ``[d1, d2] x [a, b]`` of ``(delta, mu2)`` each seed's
statistic lies between ``V1(a + d1) / n1 - V2(b) / n2`` and ``V1(b + d2) / n1 - V2(a) /
n2``, so the box's counts, hence its p-value, are at most those of the two ends.

**The lattice.**  Both groups' releases are tabulated once per seed on a common lattice of
means ``q h`` (``h`` a power of two above the doubles' spacing there, ``q`` an integer: ``q h + k h`` is exact), from ``A -
h`` to ``B + h``, ``A`` the smallest of ``lower - sigma max e`` and ``B`` the largest of
``upper - sigma min e`` over the groups and seeds: below ``A`` every simulated value is
clipped to ``lower`` and above ``B`` to ``upper`` (``x = mu + sigma e`` is monotone in
doubles), so each ``V`` is constant beyond the lattice, exactly (its value at the ends is
its value at the last double).  A box whose ends are lattice points is then bounded by
table look-ups; the lattice's cells of ``mu2`` cover the line (beyond them both groups are
constant), and the deltas beyond ``+-(B - A)`` form two end boxes.
"""

from __future__ import annotations

import numpy as np

from ..._draw_summary import draw_share, pvalue_from_shares
from ._simulator import GridSeeds, draw_noise

__all__ = []  # package-internal

_MAX = np.finfo(float).max
#: seeds times n evaluated at once (32 MB per working array)
_BLOCK = 4_000_000
#: points of the nuisance evaluated in the refinement at one delta before its bound is reported
_WORK_CAP = 512
#: halvings of the cells of mu2 when a sub-box of delta at an end of the set is tested
_EDGE_CAP = 128


def _counts(hi, lo, t):
    """``(c_ge, c_le)`` per row: seeds whose upper end reaches ``t``, whose lower end is at most ``t``."""
    return (hi >= t).sum(axis=-1), (lo <= t).sum(axis=-1)


def pvalue_of(c_ge, c_le, r, alternative):
    """The rank p-value from the counts (two-sided: twice the smaller one-sided, at most 1)."""
    return pvalue_from_shares(draw_share(c_ge, r), draw_share(c_le, r), alternative)


def draw_seeds(d1, d2, sigma1, sigma2, n_sim, gen):
    """Both groups' seeds (:class:`GridSeeds`), from two child streams of ``gen``."""
    out = []
    for data, sigma, g in zip((d1, d2), (sigma1, sigma2), gen.spawn(2)):
        grid = data.grid()
        normals = g.standard_normal((n_sim, data.n))
        out.append(GridSeeds(grid, normals, draw_noise(g, grid.lams[0], n_sim), sigma, "normal"))
    return out


class TwoGroups:
    """Both groups' seeds, the observed difference and the lattice tables of ``V / n``."""

    def __init__(self, d1, d2, seeds, points=128):
        self.n1, self.n2 = d1.n, d2.n
        self.t = float(d1.sum) / d1.n - float(d2.sum) / d2.n
        self.seeds = list(seeds)
        self.r = self.seeds[0].rows
        low = min(s.grid.lower - s.sigma * float(s.e.max()) for s in self.seeds)
        high = max(s.grid.upper - s.sigma * float(s.e.min()) for s in self.seeds)
        # h a power of two and at least the spacing of the doubles up to 4 times the lattice's reach,
        # so that every lattice point and every sum q h + k h used below is a double, exactly
        reach = max(abs(low), abs(high)) + (high - low)
        self.h = max(2.0 ** np.floor(np.log2((high - low) / points)), float(np.spacing(4.0 * reach)))
        self.qlo = int(np.floor(low / self.h)) - 1
        self.qhi = int(np.ceil(high / self.h)) + 1
        q = np.arange(self.qlo, self.qhi + 1) * self.h
        # per group: the value at each lattice point (rows), with the ends (-MAX, +MAX) first and last
        self.table = [self.stat(k, np.concatenate([[-_MAX], q, [_MAX]])) for k in (0, 1)]

    @property
    def size(self):
        return self.qhi - self.qlo + 1

    def stat(self, k, means):
        """``V_r(mean) / n`` of group ``k`` for each of ``means`` (rows) and each seed (columns)."""
        seeds = self.seeds[k]
        means = np.clip(np.asarray(means, dtype=float), -_MAX, _MAX)
        per = max(1, _BLOCK // (self.r * seeds.e.shape[1]))
        out = np.empty((means.size, self.r))
        rows = np.arange(self.r)
        for start in range(0, means.size, per):
            m = means[start:start + per]
            v = seeds.released(np.repeat(m, self.r), np.tile(rows, m.size))
            out[start:start + m.size] = v.reshape(m.size, self.r) / (self.n1 if k == 0 else self.n2)
        return out

    def look(self, k, q):
        """Rows of group ``k``'s table at lattice integers ``q`` (beyond the lattice: its constant ends)."""
        idx = np.clip(np.asarray(q) - self.qlo + 1, 0, self.size + 1)
        return self.table[k][idx]

    def cells(self, k1, k2, alternative):
        """Cells of ``mu2`` for the delta box ``[k1 h, k2 h]`` (``k1``/``k2`` integers or None: infinite end).

        Returns ``(q, bound, point)``: the cells ``[q h, (q + 1) h]`` (with the ends beyond
        them, where both groups are constant, inside the first and last), each one's bound,
        and the exact p-value at ``(k1 h, q h)`` (None: ``nan``).
        """
        span = self.qhi - self.qlo + 3
        lo_k = -span if k1 is None else k1
        hi_k = span if k2 is None else k2
        q = np.arange(min(self.qlo, self.qlo - hi_k) - 2, max(self.qhi, self.qhi - lo_k) + 2)
        v2 = self.look(1, q)
        v1_low = self.look(0, q + lo_k)
        v1_high = self.look(0, q + 1 + hi_k)
        if k1 is None:
            v1_low = np.broadcast_to(self.table[0][0], v1_low.shape)
        if k2 is None:
            v1_high = np.broadcast_to(self.table[0][-1], v1_high.shape)
        c_ge, c_le = _counts(v1_high[:-1] - v2[:-1], v1_low[:-1] - v2[1:], self.t)
        bound = pvalue_of(c_ge, c_le, self.r, alternative)
        point = np.full(q.size - 1, np.nan)
        if k1 is not None:
            diff = v1_low[:-1] - v2[:-1]
            point = pvalue_of(*_counts(diff, diff, self.t), self.r, alternative)
        return q[:-1], bound, point

    def sweep(self, alternative, progress=None):
        """Every delta box of the lattice, the two end boxes included: ``(edges, bounds, bests)``.

        ``edges[i]``, ``edges[i + 1]`` (lattice integers, the first and last None: infinite) bound
        box ``i``; ``bests[i]`` the exact p-value's maximum over the lattice points at its left edge.
        """
        span = self.qhi - self.qlo + 3
        edges = [None] + list(range(-span, span + 1)) + [None]
        bounds, bests = np.empty(len(edges) - 1), np.full(len(edges) - 1, np.nan)
        for i in range(len(edges) - 1):
            _, bound, point = self.cells(edges[i], edges[i + 1], alternative)
            bounds[i] = bound.max()
            if edges[i] is not None:
                bests[i] = point.max()
            if progress is not None:
                progress.advance()
        return edges, bounds, bests

    def refine(self, d1, d2, a, b, alternative, floor=0.0, cap=_WORK_CAP, stop=False):
        """``(bound, best)`` of the p-value's supremum over ``[d1, d2] x`` the cells ``[a_i, b_i]`` of ``mu2``.

        Branch and bound: ``best`` the largest exact p-value found (at ``delta = d1`` and the
        cells' ends), cells whose bound is at most ``max(best, floor)`` dropped, the others halved,
        until none is left (``bound = max(best, floor)``), with ``stop`` until ``best > floor``
        (the box holds an accepted point: ``(best, best)``), or ``cap`` halvings (the largest
        bound left).
        """
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        v1a, v1b = self.stat(0, a + d1), self.stat(0, b + d2)
        v2a, v2b = self.stat(1, a), self.stat(1, b)
        best, done = 0.0, 0
        while a.size:
            # exact at (d1, a) and, for the cells' right ends, at (d2, b) when d1 == d2
            point = v1a - v2a
            best = max(best, float(pvalue_of(*_counts(point, point, self.t), self.r, alternative).max()))
            if stop and best > floor:
                return best, best
            bound = pvalue_of(*_counts(v1b - v2a, v1a - v2b, self.t), self.r, alternative)
            keep = bound > max(best, floor)
            if not keep.any():
                break
            mid = 0.5 * a + 0.5 * b
            split = keep & (mid > a) & (mid < b)
            if done >= cap or not split.any():
                return float(bound[keep].max()), best
            done += int(split.sum())
            a, b, m = a[split], b[split], mid[split]
            v1a, v1b, v2a, v2b = v1a[split], v1b[split], v2a[split], v2b[split]
            v1m_lo = self.stat(0, m + d1)
            v1m_hi = v1m_lo if d1 == d2 else self.stat(0, m + d2)
            v2m = self.stat(1, m)
            a, b = np.concatenate([a, m]), np.concatenate([m, b])
            v1a, v1b = np.concatenate([v1a, v1m_lo]), np.concatenate([v1m_hi, v1b])
            v2a, v2b = np.concatenate([v2a, v2m]), np.concatenate([v2m, v2b])
        return max(best, floor), best

    def around(self, delta):
        """The lattice box ``(k1, k2)`` holding ``delta`` (an end box beyond the lattice)."""
        span = self.qhi - self.qlo + 3
        k = np.floor(delta / self.h)
        if k < -span:
            return None, -span
        if k >= span:
            return span, None
        return int(k), int(k) + 1

    def rejected(self, d1, d2, alpha, alternative):
        """Whether every delta in ``[d1, d2]`` (inside one lattice box) is certified rejected at ``alpha``."""
        q, bound, _ = self.cells(*self.around(d1), alternative)
        open_ = bound > alpha
        if not open_.any():
            return True
        hi, _ = self.refine(d1, d2, q[open_] * self.h, (q[open_] + 1) * self.h, alternative, floor=alpha,
                            cap=_EDGE_CAP, stop=True)
        return hi <= alpha

    def supremum(self, delta, alternative, cap=_WORK_CAP):
        """``(bound, best)`` of ``sup_mu2 p(mu2 + delta, mu2)`` at one ``delta``.

        The lattice's cells whose table bound (over the lattice box holding ``delta``) exceeds
        the exact p-value at the best of them are refined (:meth:`refine`).
        """
        q, bound, _ = self.cells(*self.around(delta), alternative)
        order = np.argsort(-bound, kind="stable")[:8]
        x = q[order] * self.h
        diff = self.stat(0, x + delta) - self.stat(1, x)
        best = float(pvalue_of(*_counts(diff, diff, self.t), self.r, alternative).max())
        open_ = bound > best
        if not open_.any():
            return best, best
        hi, found = self.refine(delta, delta, q[open_] * self.h, (q[open_] + 1) * self.h, alternative,
                                floor=best, cap=cap)
        best = max(best, found)
        return max(hi, best), best
