"""The exact law of one stage's released increment ``Z_s = X_s + N_s`` (kernels; valid input assumed).

A stage releases the count of its new patients, ``X_s ~ Binomial(n_s, p)``, with Tulap noise
``N_s = D_s + U_s``: ``D_s`` the integer cell and ``U_s`` uniform on the cell's part inside
the support (the whole unit cell, except at the two edge cells of a truncated law, ``delta >
0``).  So ``Z_s = K_s + U_s`` with ``K_s = X_s + D_s = round(Z_s)`` (a released value is an odd
multiple of ``2**-(k+1)``, ``k >= 1``, never a half-integer, so the rounding is unambiguous).
The pmf of ``K_s`` is the binomial pmf convolved with the pmf of ``D_s``, computed exactly by
the two-arm law (:mod:`dpinfer.inference.two_arm._law`: geometric filters, non-negative
terms only) as a mixture of at most three *components* ``(k_min, pmf, u_low, u_high)``.

The design search (:mod:`._two_stage`) needs the pmf of ``K_s`` only; it trims the noise's far
tails to the window where each side's left-out mass is below :data:`TRIM` and puts that
mass on the window's end cells (so the pmf still adds to 1): every probability the search
computes is then within ``2 TRIM`` of the untrimmed one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..two_arm._law import _arm, _component_pmfs, _layout

__all__ = []  # private module

#: one side's noise mass left out of a trimmed window (2**-50, about 8.9e-16)
TRIM = 2.0**-50


@dataclass(frozen=True)
class Increment:
    """One stage's public numbers: ``n`` new patients released at ``(epsilon, delta)``.

    ``epsilon=None`` is the non-private limit (``K = X``, no uniform part).
    """

    n: int
    epsilon: float | None
    delta: float = 0.0

    @property
    def arm(self):
        return None if self.epsilon is None else _arm(self.n, self.epsilon, self.delta, 1)

    @property
    def half_step(self):
        """Half the release grid's step (0 without noise)."""
        return 0.0 if self.epsilon is None else self.arm.half_step

    def components(self, theta):
        """``[(k_min, pmf (m, size), u_low, u_high)]`` at the ``m`` values of ``theta``."""
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        if self.epsilon is None:
            x = np.arange(self.n + 1)
            return [(0, stats.binom.pmf(x[None, :], self.n, theta[:, None]), 0.0, 0.0)]
        arm = self.arm
        pmfs = _component_pmfs(arm, theta)
        return [(k_min, pmf, lo, hi) for (k_min, _, lo, hi), pmf in zip(_layout(arm), pmfs)]

    def k_pmf(self, theta):
        """``(k_min, pmf)``: the pmf of ``K = round(Z)`` at each ``theta`` (m, size), summed over components."""
        comps = self.components(theta)
        k_min = min(c[0] for c in comps)
        k_max = max(c[0] + c[1].shape[1] - 1 for c in comps)
        out = np.zeros((comps[0][1].shape[0], k_max - k_min + 1))
        for start, pmf, _, _ in comps:
            out[:, start - k_min:start - k_min + pmf.shape[1]] += pmf
        return k_min, out


def trimmed(k_min, pmf, trim=TRIM):
    """``(k_min, pmf)`` cut to the columns where each side's left-out mass (every row) is below ``trim``,
    the left-out mass put on the end columns."""
    left = np.cumsum(pmf, axis=1)
    right = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    keep_low = int(np.argmax(~np.all(left < trim, axis=0)))  # first column whose left mass reaches trim
    keep_high = pmf.shape[1] - 1 - int(np.argmax(~np.all(right[:, ::-1] < trim, axis=0)))
    out = pmf[:, keep_low:keep_high + 1].copy()
    if keep_low > 0:
        out[:, 0] += left[:, keep_low - 1]
    if keep_high < pmf.shape[1] - 1:
        out[:, -1] += right[:, keep_high + 1]
    return k_min + keep_low, out


def upper_sf(pmf):
    """``S[:, j] = P(K > k_min + j - 1)`` for ``j = 0..size``: the upper tail from each column (size + 1)."""
    out = np.zeros((pmf.shape[0], pmf.shape[1] + 1))
    out[:, :-1] = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    return np.minimum(out, 1.0)


def uniform_tail(s, lo, hi):
    """``P(U >= s)`` for ``U ~ U(lo, hi)`` (a point mass at ``lo = hi``), elementwise."""
    if hi <= lo:
        return (s <= lo).astype(float)
    return np.clip((hi - s) / (hi - lo), 0.0, 1.0)
