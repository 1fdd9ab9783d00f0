"""The repro-samples simulator of a clipped-sum release: the released law exactly, and each seed's roots.

Private kernels of :mod:`dpinfer.inference.means`; they assume valid input.

A seed is ``n`` standard normal values ``e_j`` and one integer ``D`` drawn by the
releaser's own exact discrete Laplace sampler (:mod:`dpinfer._exact_noise`, from the
seeds' generator) with the release's per-step ratio.  At a candidate population mean
the seed's release is computed as :class:`~dpinfer.MeanReleaser` computes one: the data
``x_j = mean + sigma e_j`` (log-normal: ``exp(log(mean) - sigma**2 / 2 + sigma e_j)``),
clipped, each mapped to its integer on the release's grid, summed in integers, ``D``
added, and the same affine map to the released value, all by the releaser's own grid
object (:func:`dpinfer.distributions._mean_grid.release_grid`).  So the simulated releases have
exactly the law of the observed one.

Every step is a nondecreasing map of the mean (floating-point rounding included), so
each seed's release is a nondecreasing step function of the mean on the doubles.  The
first double at which it reaches the observed value, and the last at which it is still
at most the observed value, are found by bisection on the ordered bit patterns of the
doubles (at most 64 halvings, whole range of the doubles): exact, nothing to miss.
"""

from __future__ import annotations

import numpy as np

from ...._exact_noise import _discrete_laplace, _GeneratorBits

__all__ = []  # package-internal

_SIGN = np.int64(-(2**63))
_MAGNITUDE = np.int64(2**63 - 1)
_MAX = np.finfo(float).max
_TINY = 5e-324
#: the interpolation stops when a bracket spans at most this many steps of the release (then halving)
_WIDE = 8.0


def to_key(x):
    """Order-preserving int64 keys of doubles (``-0.0`` and ``0.0`` share the key 0)."""
    k = np.asarray(x, dtype=float).view(np.int64)
    return np.where(k < 0, -(k & _MAGNITUDE), k)


def from_key(k):
    """The doubles of :func:`to_key` keys."""
    k = np.asarray(k, dtype=np.int64)
    return np.where(k < 0, (-k) | _SIGN, k).view(float)


def draw_noise(gen, lam, size):
    """``size`` exact discrete Laplace integers of per-step ratio ``exp(-lam)`` (the releaser's sampler)."""
    return np.asarray(_discrete_laplace(_GeneratorBits(gen), lam, size))


class GridSeeds:
    """Seeds of the clipped sum: ``normals`` (rows, n), integer ``noise`` (rows,), on ``grid``.

    ``sigma`` is the known scale (normal: of ``x``; log-normal: of ``log x``).
    """

    def __init__(self, grid, normals, noise, sigma, model):
        self.grid = grid
        self.e = np.asarray(normals, dtype=float)
        self.noise = np.asarray(noise)
        self.sigma, self.model = float(sigma), model
        self.rows = self.e.shape[0]
        #: the domain of the mean: every finite double (normal), every positive double (log-normal)
        self.bottom = -_MAX if model == "normal" else _TINY

    def data(self, mean, rows, e=None):
        """The seeds' data at ``mean`` (one mean per row of ``rows``; ``e`` those rows' seeds), before clipping."""
        mean = np.asarray(mean, dtype=float)[:, None]
        e = self.e[rows] if e is None else e
        with np.errstate(over="ignore"):
            if self.model == "normal":
                return mean + self.sigma * e
            return np.exp(np.log(mean) - 0.5 * self.sigma * self.sigma + self.sigma * e)

    def units(self, mean, rows, e=None):
        """The grid integers of the seeds' clipped values at ``mean`` (the releaser's map)."""
        g = self.grid
        return g.units(np.clip(self.data(mean, rows, e), g.lower, g.upper), 0)

    def released(self, mean, rows):
        """The simulated released clipped sum of each of ``rows`` at its ``mean``."""
        return self.grid.values(self.units(mean, rows).sum(axis=1) + self.noise[rows], 0)

    def _guesses(self):
        """Per seed, two means between which its release changes (unverified: :meth:`first` checks them)."""
        g, e, sg = self.grid, self.e, self.sigma
        with np.errstate(over="ignore", divide="ignore"):
            if self.model == "normal":
                return g.lower - sg * e.max(axis=1), g.upper - sg * e.min(axis=1)
            half = 0.5 * sg * sg
            low = np.exp(np.log(g.lower) + half - sg * e.max(axis=1)) if g.lower > 0 else np.zeros(self.rows)
            return low, np.exp(np.log(g.upper) + half - sg * e.min(axis=1))

    def first(self, s, strict, rows=None, start=None):
        """Per seed, the smallest double mean whose release is ``>= s`` (``> s`` when ``strict``).

        ``-inf`` (log-normal: 0) when the bottom of the domain already is, ``+inf`` when no double is.
        ``s`` is one number or one per seed.  ``rows``: only these seeds (the result has their
        length); ``start``: a mean per row known not to be a hit (the search starts above it).
        The bracket (a hit at its top, none at its bottom, both evaluated) is narrowed by
        interpolation and by halving the keys in turn, then by halving alone (:meth:`_halve`).
        """
        rows = np.arange(self.rows) if rows is None else np.asarray(rows)
        s = np.broadcast_to(np.asarray(s, dtype=float), (self.rows,))

        def hit(mean, sub):
            v = self.released(mean, sub)
            return (v > s[sub] if strict else v >= s[sub]), v

        guess_lo, guess_hi = (np.clip(np.nan_to_num(v[rows], nan=0.0), self.bottom, _MAX) for v in self._guesses())
        if start is not None:
            guess_lo = np.asarray(start, dtype=float)
        ok_lo, v_glo = hit(guess_lo, rows)
        ok_hi, v_ghi = hit(guess_hi, rows)
        # a guess on the wrong side: the end of the domain instead (a hit at the bottom: -inf)
        low_hit = np.zeros(rows.size, dtype=bool)
        v_lo, lo = v_glo.copy(), to_key(guess_lo)
        if ok_lo.any():
            idx = np.flatnonzero(ok_lo)
            low_hit[idx], v_lo[idx] = hit(np.full(idx.size, self.bottom), rows[idx])
            lo[idx] = to_key(self.bottom)
        high_hit = ok_hi.copy()
        v_hi, hi = v_ghi.copy(), to_key(guess_hi)
        if (~ok_hi).any():
            idx = np.flatnonzero(~ok_hi)
            high_hit[idx], v_hi[idx] = hit(np.full(idx.size, _MAX), rows[idx])
            hi[idx] = to_key(_MAX)
        out = np.where(low_hit, -np.inf if self.model == "normal" else 0.0, np.inf)
        keep = high_hit & ~low_hit
        place = np.flatnonzero(keep)
        todo = rows[keep]
        lo, hi, v_lo, v_hi = lo[keep], hi[keep], v_lo[keep], v_hi[keep]
        # Illinois: the end kept twice in a row has its distance to s halved in the interpolation
        # the interpolation aims half a step of the release past s on the side of the crossing
        unit = (self.grid.upper - self.grid.lower) * 2.0**-self.grid.g
        target = s + (0.5 if strict else -0.5) * unit
        w_lo, w_hi = v_lo - target[todo], v_hi - target[todo]
        side = np.zeros(todo.size, dtype=np.int8)
        step = 0
        while True:  # invariant: no hit at lo, a hit at hi
            # interpolation while the bracket spans more than a few steps of the release, kept strictly
            # inside the bracket, every third step a halving of the keys
            open_ = np.flatnonzero((hi > lo + 1) & (v_hi - v_lo > _WIDE * unit))
            if open_.size == 0:
                break
            a, b = lo[open_], hi[open_]
            mid = (a >> 1) + (b >> 1) + (a & b & 1)
            if step % 3 != 2:
                x_a, x_b = from_key(a), from_key(b)
                with np.errstate(all="ignore"):
                    frac = np.clip(-w_lo[open_] / (w_hi[open_] - w_lo[open_]), 0.0, 1.0)
                    guess = x_a + frac * (x_b - x_a)
                inside = np.isfinite(guess)
                cand = to_key(np.where(inside, guess, 0.0))
                mid = np.where(inside, np.clip(cand, a + 1, b - 1), mid)
            step += 1
            ok, v = hit(from_key(mid), todo[open_])
            up, down = open_[ok], open_[~ok]
            hi[up], v_hi[up], w_hi[up] = mid[ok], v[ok], v[ok] - target[todo[up]]
            lo[down], v_lo[down], w_lo[down] = mid[~ok], v[~ok], v[~ok] - target[todo[down]]
            w_lo[up] = np.where(side[up] == 1, 0.5 * w_lo[up], w_lo[up])
            w_hi[down] = np.where(side[down] == -1, 0.5 * w_hi[down], w_hi[down])
            side[up], side[down] = 1, -1
        self._halve(lo, hi, todo, s, strict)
        out[place] = from_key(hi)
        return out

    def _halve(self, lo, hi, todo, s, strict):
        """Halve the open brackets ``(lo, hi]`` (keys, in place) down to adjacent doubles.

        Within a bracket only the values whose grid integer differs between its ends can
        change (each is nondecreasing in the mean), so the others are summed once and the
        halvings evaluate the few that change: the same integer sum, at a fraction of the cost.
        """
        open_ = np.flatnonzero(hi > lo + 1)
        if open_.size == 0:
            return
        sub = todo[open_]
        u_lo = self.units(from_key(lo[open_]), sub)
        change = u_lo != self.units(from_key(hi[open_]), sub)
        width = max(int(change.sum(axis=1).max()), 1)
        cols = np.argsort(~change, axis=1, kind="stable")[:, :width]
        valid = np.take_along_axis(change, cols, axis=1)
        base = u_lo.sum(axis=1) - np.where(change, u_lo, 0).sum(axis=1)
        e = np.take_along_axis(self.e[sub], cols, axis=1)
        lo_o, hi_o = lo[open_], hi[open_]
        while True:
            live = np.flatnonzero(hi_o > lo_o + 1)
            if live.size == 0:
                break
            a, b = lo_o[live], hi_o[live]
            mid = (a >> 1) + (b >> 1) + (a & b & 1)
            u = np.where(valid[live], self.units(from_key(mid), sub[live], e[live]), 0)
            v = self.grid.values(base[live] + u.sum(axis=1) + self.noise[sub[live]], 0)
            ok = v > s[sub[live]] if strict else v >= s[sub[live]]
            hi_o[live[ok]] = mid[ok]
            lo_o[live[~ok]] = mid[~ok]
        lo[open_], hi[open_] = lo_o, hi_o

    def roots(self, s):
        """``(m, M)`` per seed: the seed's release is ``>= s`` exactly at the means ``>= m``, ``<= s`` at those ``<= M``.

        A mean in ``[m, M]`` ties the observed value (both counts take it: conservative).
        """
        m = self.first(s, strict=False)
        # the first double with a release > s (M is the double before it): m itself unless the seed's
        # release at m equals s; then the search starts at m
        s_all = np.broadcast_to(np.asarray(s, dtype=float), (self.rows,))
        above = m.copy()
        finite = np.flatnonzero(np.isfinite(m) & (m > self.bottom))
        tie = finite[self.released(m[finite], finite) <= s_all[finite]]
        if tie.size:
            above[tie] = self.first(s, strict=True, rows=tie, start=m[tie])
        rest = np.flatnonzero(~(np.isfinite(m) & (m > self.bottom)) & (m < np.inf))
        if rest.size:  # every mean reaches s: the first above it from the bottom
            above[rest] = self.first(s, strict=True, rows=rest)
        keys = to_key(np.where(np.isfinite(above) & (above > self.bottom), above, self.bottom))
        before = from_key(keys - 1)
        low = -np.inf if self.model == "normal" else 0.0
        big = np.where(np.isinf(above) & (above > 0), np.inf, before)
        return m, np.where(above <= self.bottom, low, big)
