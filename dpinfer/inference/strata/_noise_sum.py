"""The exact law of a sum of several Tulap noises, as released (kernel; valid input assumed).

A Tulap release of a count (``delta = 0``) is ``Z_j = X_j + D_j + U_j``: ``D_j`` discrete
Laplace with ratio ``b_j = exp(-epsilon_1j)`` (``epsilon_1j`` the unit privacy of the
release, ``epsilon_j / k_j`` for sensitivity ``k_j``) and ``U_j`` uniform on its unit cell,
``(-1/2, 1/2)``, rounded to the midpoints of the release grid of step ``h_j`` (see
``dpinfer.distributions._tulap_grid``).  For ``m`` releases the noise of any signed sum
``sum_j +-Z_j`` is ``E = D + W``:

* ``D = sum_j +-D_j`` is an integer with the exact convolution of the ``m`` discrete Laplace
  pmfs (symmetric, so the signs do not matter), each summed over ``|d| <= L_j`` with
  ``L_j = ceil(log(2 / 1e-300) / epsilon_1j)`` (the mass left out below 1e-300 per release);
  the convolution adds non-negative terms only (``numpy.convolve``, no FFT), so every entry
  keeps its relative precision;
* ``W = sum_j +-U_j`` is a sum of ``m`` independent uniforms of width 1: ``W + m/2`` has the
  Irwin-Hall law, ``P(W + m/2 <= x) = (1/m!) sum_{k <= x} (-1)^k C(m, k) (x - k)^m``
  (Irwin 1927; Hall 1927), evaluated in exact rational arithmetic (``fractions``: the
  arguments are dyadic rationals), then rounded once to a double.

**The released grid.**  Each release stands for its cell ``[z_j - h_j/2, z_j + h_j/2]``
(the grid law puts on each cell's midpoint the continuous law's mass of the cell), so the
continuous sum lies within ``sum_j h_j / 2`` of the released one.  The tails here are the
continuous law's tails at the observed sum moved by that allowance towards the null:
never below the exact tail of the law actually released, at most ``sum_j h_j`` times the
density above it (about ``m 2**-40``; see :func:`cell_allowance`).  The steps differ from
release to release (they depend on each one's ``n`` and ``epsilon``); the allowance
handles any mixture of grids.

**The conditional tails.**  Every tail the tests need is ``P(E >= t - y)`` for a fixed
``t`` (the observed sum with its allowance) and integer ``y`` (the count part): with
``s = t + m/2``, ``phi = s - floor(s)`` and ``c = floor(s) - y``,

    P(E >= t - y) = P(D >= c + 1) + sum_{i=0}^{m-1} P(D = c - i) Gbar(phi + i),

``Gbar(x) = P(W + m/2 >= x)``: only ``m`` values of the Irwin-Hall tail, whatever ``y``.
``E`` is symmetric, so ``P(E <= u) = P(E >= -u)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ...distributions._tulap_law import tulap_grid, unit_privacy
from ..two_arm._law import _reach

__all__ = []  # private module


@dataclass(frozen=True)
class _Noise:
    """One release's noise: its public numbers, ``log_b = -epsilon_1`` and half its grid step."""

    n: int
    epsilon: float
    sensitivity: int
    log_b: float
    half_step: Fraction


def _noise(n, epsilon, sensitivity):
    """The ``_Noise`` of a Tulap count release (``delta = 0``) at these public numbers."""
    unit_eps, _ = unit_privacy(epsilon, 0.0, sensitivity)
    step = tulap_grid(n, unit_eps, 0.0).step
    return _Noise(n, float(epsilon), int(sensitivity), -unit_eps, Fraction(step) / 2)


@dataclass(frozen=True)
class _NoiseSum:
    """The law of the sum (any signs) of the noises ``noises`` (a tuple of ``_Noise``)."""

    noises: tuple

    @property
    def m(self):
        return len(self.noises)


#: the largest exact convolution of the noises' integer parts (multiply-adds; about a second per 1e9)
MAX_CONVOLUTION = 2_000_000_000


def noise_law(sites):
    """The ``_NoiseSum`` of the noises of ``sites`` (``_Site`` records of ``_arguments``), in order."""
    return _NoiseSum(tuple(s.noise for s in sites))


def convolution_cost(noises):
    """Multiply-adds of the exact convolution of the integer parts (a public number)."""
    cost, length = 0, 1
    for noise in noises:
        width = 2 * _reach(noise.log_b) + 1
        cost += length * width
        length += width - 1
    return cost


def check_convolution(noises, what):
    """Refuse (ValueError) noises whose exact convolution would pass ``MAX_CONVOLUTION`` (public numbers)."""
    cost = convolution_cost(noises)
    if cost > MAX_CONVOLUTION:
        raise ValueError(
            f"the {len(noises)} releases' noise is too wide for the exact convolution (epsilon too small for this many "
            f"{what}: {cost:.3g} multiply-adds, limit {MAX_CONVOLUTION:.1g}).")


def cell_allowance(noises):
    """``sum_j h_j / 2``, exactly: how far the continuous sum can be from the released one."""
    return sum((noise.half_step for noise in noises), Fraction(0))


@lru_cache(maxsize=8)
def integer_pmf(law):
    """``(d_min, pmf)``: the exact pmf of ``D = sum_j D_j`` on ``d_min, d_min + 1, ...``."""
    pmf, d_min = np.ones(1), 0
    for noise in law.noises:
        reach = _reach(noise.log_b)
        b = math.exp(noise.log_b)
        one = (-math.expm1(noise.log_b)) / (1.0 + b)  # P(D_j = 0)
        single = one * np.exp(np.abs(np.arange(-reach, reach + 1)) * noise.log_b)
        pmf, d_min = np.convolve(pmf, single), d_min - reach
    pmf.flags.writeable = False
    return d_min, pmf


@lru_cache(maxsize=64)
def irwin_hall_tail(m, phi):
    """``Gbar(phi + i) = P(V >= phi + i)`` for ``i = 0..m-1``, ``V`` Irwin-Hall(m), ``phi`` a Fraction in [0, 1)."""
    out = []
    for i in range(m):
        x = m - (phi + i)  # P(V >= m - x) = P(V <= x) by symmetry
        total = sum((Fraction((-1) ** k * math.comb(m, k)) * (x - k) ** m
                     for k in range(0, math.floor(x) + 1) if x - k > 0), Fraction(0))
        out.append(float(total / math.factorial(m)))
    return np.array(out)


def upper_tails(law, t, y):
    """``P(E >= t - y)`` at the integers ``y`` (array); ``t`` a Fraction."""
    m = law.m
    s = t + Fraction(m, 2)
    base = math.floor(s)
    g = irwin_hall_tail(m, s - base)
    d_min, pmf = integer_pmf(law)
    survival = np.concatenate([np.cumsum(pmf[::-1])[::-1], [0.0]])
    c = base - np.asarray(y, dtype=np.int64)
    idx = np.clip(c + 1 - d_min, 0, pmf.size)
    out = survival[idx]
    for i in range(m):
        j = c - i - d_min
        inside = (j >= 0) & (j < pmf.size)
        out = out + np.where(inside, pmf[np.clip(j, 0, pmf.size - 1)], 0.0) * g[i]
    return np.clip(out, 0.0, 1.0)
