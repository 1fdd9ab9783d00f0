"""The hardened sampling path: cryptographic randomness and exact integer sampling.

Floating-point noise samplers leak through the low-order bits of their output
(Mironov 2012), and a seeded generator is predictable.  This module draws every
random bit from the operating system's cryptographic source
(:class:`secrets.SystemRandom`, i.e. ``os.urandom``) and samples the noise that
matters for privacy with integer arithmetic only:

* Bernoulli(exp(-gamma)) for rational gamma, and the discrete Laplace law
  ``P(Y = y) proportional to exp(-|y| s / t)`` for integers ``s, t``, by the
  algorithms of Canonne, Kamath & Steinke (2020), Algs. 1 and 2 — exact, no
  floating-point inversion;
* the fractional part of Tulap noise as a uniform point of the grid
  ``(j + 1/2) / 2**53 - 1/2``, ``j`` uniform on ``{0, ..., 2**53 - 1}``.

Privacy parameters are replaced by a rational ``epsilon' <= epsilon`` with
denominator ``2**20`` (more noise, never less), so the recorded ``epsilon`` holds.
These samplers run a short Python loop per draw (a few microseconds); they are
for releases, not for simulation studies.

References
----------
Canonne, C., Kamath, G. and Steinke, T. (2020).  The discrete Gaussian for
differential privacy.  NeurIPS 33.  Algorithms 1 and 2.
Mironov, I. (2012).  On significance of the least significant bits for
differential privacy.  ACM CCS.
"""

from __future__ import annotations

import math
import secrets
from fractions import Fraction

import numpy as np

__all__ = []  # private module

_DENOMINATOR = 2**20
_UNIFORM_BITS = 53


def _rational_below(value):
    """The largest ``k / 2**20 <= value`` as a Fraction (at least 1 / 2**20)."""
    return Fraction(max(1, math.floor(value * _DENOMINATOR)), _DENOMINATOR)


class _SecureSource:
    """Random integers and exact Bernoulli draws from the OS's cryptographic source."""

    def __init__(self):
        self._sys = secrets.SystemRandom()

    def below(self, high):
        """Uniform integer on {0, ..., high - 1}."""
        return self._sys.randrange(high)

    def bernoulli(self, p):
        """Bernoulli(p) for a rational p in [0, 1]."""
        return self.below(p.denominator) < p.numerator

    def bernoulli_exp(self, gamma):
        """Bernoulli(exp(-gamma)) for a rational gamma >= 0 (CKS 2020, Alg. 1)."""
        while gamma > 1:
            if not self._bernoulli_exp_unit(Fraction(1)):
                return False
            gamma -= 1
        return self._bernoulli_exp_unit(gamma)

    def _bernoulli_exp_unit(self, gamma):
        k = 1
        while self.bernoulli(gamma / k):
            k += 1
        return k % 2 == 1

    def discrete_laplace(self, s, t):
        """One draw with P(Y = y) proportional to exp(-|y| s / t), integers s, t >= 1 (Alg. 2)."""
        while True:
            u = self.below(t)
            if not self.bernoulli_exp(Fraction(u, t)):
                continue
            v = 0
            while self.bernoulli_exp(Fraction(1)):
                v += 1
            y = (u + t * v) // s
            negative = self.bernoulli(Fraction(1, 2))
            if negative and y == 0:
                continue
            return -y if negative else y

    def grid_uniform(self):
        """Uniform on the grid (j + 1/2) / 2**53 - 1/2 inside (-1/2, 1/2)."""
        return (self._sys.getrandbits(_UNIFORM_BITS) + 0.5) / 2.0**_UNIFORM_BITS - 0.5


def _secure_discrete_laplace(size, epsilon_per_unit):
    """Integer array of discrete Laplace draws, P(k) proportional to exp(-eps |k|).

    ``epsilon_per_unit`` is a Fraction (exact); callers build it from
    ``_rational_below`` so that it never exceeds the claimed level.
    """
    eps = Fraction(epsilon_per_unit)
    source = _SecureSource()
    draws = [source.discrete_laplace(eps.numerator, eps.denominator) for _ in range(int(np.prod(size)))]
    return np.array(draws, dtype=np.int64).reshape(size)


def _secure_tulap(size, epsilon, support_half_width=math.inf):
    """Tulap(0, exp(-eps'), q) draws: exact discrete Laplace plus a 2**-53-grid uniform.

    ``support_half_width`` is the truncation point of the law (``inf`` when q = 0);
    draws outside ``[-c, c]`` are rejected, which conditions on the central mass
    exactly as the truncated law does (the boundary itself is a float).
    """
    eps = _rational_below(epsilon)
    source = _SecureSource()
    total = int(np.prod(size))
    out = np.empty(total)
    filled = 0
    while filled < total:
        value = source.discrete_laplace(eps.numerator, eps.denominator) + source.grid_uniform()
        if abs(value) <= support_half_width:
            out[filled] = value
            filled += 1
    return out.reshape(size)
