"""Repro samples with the spread released and unknown: the projection of a joint test, certified by boxes.

Private kernels of :mod:`dpinfer.inference.means` (``mean_repro_test`` with ``sigma=None``);
they assume valid input.

The joint null ``(mu, sigma)`` is tested on the released pair ``(S, Q)`` (clipped sum,
centred sum of squares) with ``R`` seeds ``(e_r, D_r, E_r)`` (normals, the integer noise
on the sum and on the squares, drawn by the releaser's exact sampler) reused for every
``(mu, sigma)``; each seed's pair is simulated as the releaser computes one (grid
integers, integer sums, the release's map; :mod:`._simulator`).  The statistic is the smallest of the four one-sided rank p-values
(``S`` up and down, ``Q`` up and down), Bonferroni-combined:

    ``p(mu, sigma) = min(1, 4 min_k (1 + c_k) / (R + 1))``

with ``c_1 = #{r : S_r >= S}``, ``c_2 = #{r : S_r <= S}``, ``c_3``, ``c_4`` the same for
``Q``: each one-sided rank p-value is valid in finite samples (the ``R + 1`` releases are
exchangeable at the truth), so their Bonferroni combination is too.  The p-value for the
mean is the projection ``sup_sigma p(mu, sigma)`` (a valid p-value for ``mu``).

**Certified bounds on a box.**  Each clipped value ``clip(mu + sigma e_j, a, b)`` is
nondecreasing in ``mu`` and monotone in ``sigma`` (up for ``e_j > 0``, down for
``e_j < 0``), so on a box ``[mu1, mu2] x [s1, s2]`` it lies between its values at two
corners (the infinite ends included: ``clip(-inf) = a``), and so does its grid integer;
the squares' integer of a value is monotone on either side of ``m = a + (b - a) / 2``
(0 at ``m``), so over a range of values it is largest at an end and smallest at ``m`` if
the range holds it, else at an end.  Summing the per-value integer ranges bounds the
integer sums, hence ``S_r`` and ``Q_r`` (the release's map is nondecreasing), so ``c_k`` over the box is at most the count of the bounds, and the
p-value on the whole box is at most ``min(1, 4 (1 + min_k c_k^max) / (R + 1))``.  A box
whose bound is at most ``alpha`` holds no accepted point; every box that is not so
excluded is kept, so the reported set contains the projection: it can be larger, never
miss a piece.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels import SIGMA_CAP
from ._simulator import draw_noise

__all__ = []  # package-internal

#: the scales (in units of b - a) where the scale's boxes start; the last ends at the public cap
#: SIGMA_CAP (b - a) on sigma that every mean method shares (the model's scales)
_SIGMA_EDGES = (0.0, 1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0, 16.0, SIGMA_CAP)
#: elements (boxes x seeds x n) evaluated at once
_CHUNK = 2_000_000
#: halvings of a scale box before a slab is left undecided (kept)
_DEPTH = 10
#: more scale boxes alive than this: the slab is too wide for its bounds to decide; it is kept
#: (and halved in the mean if it borders a rejected slab)
_MAX_BOXES = 24
#: slabs of the mean are refined to this width, in units of b - a
_MU_TOL = 5e-4
#: the rows of the joint statistic: S up, S down, Q up, Q down
_DIRECTIONS = 4


class Spread:
    """The seeds and the observed pair of one release; box bounds of the joint p-value."""

    def __init__(self, grid, s_obs, q_obs, normals, sum_noise, sq_noise):
        self.grid = grid
        self.s, self.q = float(s_obs), float(q_obs)
        self.a, self.b = grid.lower, grid.upper
        self.mid = self.a + 0.5 * (self.b - self.a)  # where the releaser's squares' units are 0
        self.e = np.asarray(normals, dtype=float)
        self.pos = self.e > 0
        self.l = np.asarray(sum_noise)
        self.m = np.asarray(sq_noise)
        self.r = self.e.shape[0]
        self.evaluations = 0

    def upper(self, m1, m2, s1, s2):
        """Upper bounds of the joint p-value on boxes ``[m1, m2] x [s1, s2]`` (arrays; exact at a point)."""
        m1, m2, s1, s2 = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (m1, m2, s1, s2))
        out = np.empty(m1.size)
        per = max(1, _CHUNK // self.e.size)
        for start in range(0, m1.size, per):
            sl = slice(start, start + per)
            out[sl] = self._chunk(m1[sl], m2[sl], s1[sl], s2[sl])
        self.evaluations += m1.size
        return out

    def _chunk(self, m1, m2, s1, s2):
        e, pos = self.e[None], self.pos[None]
        col = (slice(None), None, None)
        with np.errstate(invalid="ignore"):  # -inf + inf cannot occur (s1 is finite); inf * 0 has probability 0
            lo = np.clip(m1[col] + np.where(pos, s1[col], s2[col]) * e, self.a, self.b)
            hi = np.clip(m2[col] + np.where(pos, s2[col], s1[col]) * e, self.a, self.b)
        g = self.grid
        s_lo = g.values(g.units(lo, 0).sum(-1) + self.l, 0)
        s_hi = g.values(g.units(hi, 0).sum(-1) + self.l, 0)
        v_lo, v_hi = g.units(lo, 1), g.units(hi, 1)  # each monotone in the value on either side of mid
        q_hi = g.values(np.maximum(v_lo, v_hi).sum(-1) + self.m, 1)
        q_lo = g.values(np.where((lo <= self.mid) & (hi >= self.mid), 0, np.minimum(v_lo, v_hi)).sum(-1)
                        + self.m, 1)
        counts = np.stack([(s_hi >= self.s).sum(-1), (s_lo <= self.s).sum(-1),
                           (q_hi >= self.q).sum(-1), (q_lo <= self.q).sum(-1)])
        return np.minimum(1.0, _DIRECTIONS * (1.0 + counts.min(axis=0)) / (self.r + 1))


def _split_scales(s1, s2):
    """Halve scale boxes at their geometric middle (``[0, s]`` at ``s / 4``)."""
    mid = np.where(s1 == 0, s2 / 4, np.sqrt(s1 * s2))
    return np.concatenate([s1, mid]), np.concatenate([mid, s2])


def _centres(s1, s2):
    """A scale inside each (finite) scale box."""
    return np.where(s1 == 0, s2 / 2, 0.5 * (s1 + s2))


def _point_in(m1, m2):
    """A finite point of the slab ``[m1, m2]`` (its middle, or its finite end)."""
    if np.isinf(m1):
        return m2 if np.isfinite(m2) else 0.0
    return m1 if np.isinf(m2) else 0.5 * (m1 + m2)


def slab_status(sp, m1, m2, alpha):
    """``'out'`` (every point certified rejected), ``'in'`` (an accepted point found) or ``'kept'``."""
    width = sp.b - sp.a
    edges = np.array(_SIGMA_EDGES) * width
    s1, s2 = edges[:-1], edges[1:]
    mu_c = _point_in(m1, m2)
    for _ in range(_DEPTH):
        keep = sp.upper(np.full(s1.size, m1), np.full(s1.size, m2), s1, s2) > alpha
        s1, s2 = s1[keep], s2[keep]
        if s1.size == 0:
            return "out"
        centre = _centres(s1, s2)
        if (sp.upper(np.full(s1.size, mu_c), np.full(s1.size, mu_c), centre, centre) > alpha).any():
            return "in"
        if s1.size > _MAX_BOXES:
            return "kept"
        s1, s2 = _split_scales(s1, s2)
    return "kept"


def acceptance_set(sp, alpha):
    """The union of slabs of the mean not certified rejected, as a list of ``(low, high)`` intervals."""
    width = sp.b - sp.a
    # beyond a - SIGMA_CAP (b - a) max|e| (and the mirror above b) every simulated value is clipped at
    # every scale up to the cap, so the two infinite slabs are decided exactly; between, slabs doubling
    reach = SIGMA_CAP * float(np.abs(sp.e).max()) + 1.0
    far = 2.0 ** np.arange(2, math.ceil(math.log2(reach)) + 1)
    inner = np.concatenate([sp.a - width * far[::-1], sp.a + width * np.arange(-4, 9) / 4.0, sp.b + width * far])
    slabs = [(-math.inf, float(inner[0]))] + list(zip(inner[:-1].tolist(), inner[1:].tolist())) + \
        [(float(inner[-1]), math.inf)]
    status = {s: slab_status(sp, s[0], s[1], alpha) for s in slabs}
    tol = _MU_TOL * width
    while True:
        slabs.sort()
        todo = []
        for i, s in enumerate(slabs):
            if status[s] == "out" or math.isinf(s[0]) or math.isinf(s[1]) or s[1] - s[0] <= tol:
                continue
            near = [slabs[j] for j in (i - 1, i + 1) if 0 <= j < len(slabs)]
            if any(status[t] == "out" for t in near) or len(near) < 2:
                todo.append(s)
        if not todo:
            break
        for s in todo:
            slabs.remove(s)
            mid = 0.5 * (s[0] + s[1])
            for half in ((s[0], mid), (mid, s[1])):
                slabs.append(half)
                status[half] = slab_status(sp, half[0], half[1], alpha)
    pieces = []
    for s in sorted(slabs):
        if status[s] == "out":
            continue
        if pieces and pieces[-1][1] == s[0]:
            pieces[-1] = (pieces[-1][0], s[1])
        else:
            pieces.append(s)
    return pieces


def draw_spread(data, n_seeds, gen):
    """:class:`Spread` of one release with its ``R`` seeds drawn from ``gen`` (normals, then both noises)."""
    grid = data.grid()
    normals = gen.standard_normal((n_seeds, data.n))
    sum_noise = draw_noise(gen, grid.lams[0], n_seeds)
    sq_noise = draw_noise(gen, grid.lams[1], n_seeds)
    return Spread(grid, data.sum, data.squares, normals, sum_noise, sq_noise)


def projected_pvalue(sp, mu0):
    """A certified upper bound of ``sup_sigma p(mu0, sigma)`` (equal to it once the boxes resolve it)."""
    edges = np.array(_SIGMA_EDGES) * (sp.b - sp.a)
    s1, s2 = edges[:-1], edges[1:]
    best = 0.0
    for _ in range(_DEPTH + 4):
        up = sp.upper(np.full(s1.size, mu0), np.full(s1.size, mu0), s1, s2)
        centre = _centres(s1, s2)
        best = max(best, float(sp.upper(np.full(s1.size, mu0), np.full(s1.size, mu0), centre, centre).max()))
        keep = up > best
        if not keep.any():
            return best
        if keep.sum() > 4 * _MAX_BOXES:  # not resolving: the bound so far (valid, conservative)
            return max(best, float(up.max()))
        s1, s2 = _split_scales(s1[keep], s2[keep])
    return max(best, float(up.max()))


def projected_pvalues(sp, value):
    """:func:`projected_pvalue` at each mean in ``value`` (the result's confidence curve; picklable as a
    ``functools.partial`` of the release's :class:`Spread`)."""
    values = np.asarray(value, dtype=float)
    out = np.array([projected_pvalue(sp, float(v)) for v in values.reshape(-1)]).reshape(values.shape)
    return float(out) if values.ndim == 0 else out
