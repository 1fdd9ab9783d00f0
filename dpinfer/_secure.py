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

Privacy parameters are replaced by a rational ``epsilon' <= epsilon`` with a
power-of-two denominator, ``2**20`` from ``epsilon >= 1/2`` and finer below so
that 20 significant bits remain (more noise, never less; relative loss below
``2**-19``), so the recorded ``epsilon`` holds.
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

_DENOMINATOR_BITS = 20
_UNIFORM_BITS = 53
# Below this the noise (scale 1/epsilon, in grid steps up to 1025/epsilon) would
# not fit the 64-bit integers and doubles that carry it.
_MIN_EPSILON = 1e-12


def _check_secure_epsilon(epsilon):
    """Reject an epsilon too small for the hardened path's integer and float containers."""
    if epsilon < _MIN_EPSILON:
        raise ValueError(
            f"`epsilon` must be at least {_MIN_EPSILON:g} on the hardened path (secure=True); got "
            f"{epsilon!r}. Its noise, of scale 1 / epsilon, would overflow the 64-bit integers "
            "that carry it exactly."
        )


def _rational_below(value):
    """The largest ``k / 2**m <= value``, ``m = max(20, 20 - e)`` for ``value = f 2**e``.

    ``value`` is a positive finite float (``1/2 <= f < 1``).  From ``value >= 1/2``
    the result is a multiple of ``2**-20``; below, the grid is finer so that 20
    significant bits remain.  Either way the relative loss is below ``2**-19``,
    the result is never 0 and never above ``value``.  Exact rational arithmetic:
    no overflow for any finite float.
    """
    exponent = math.frexp(value)[1]
    bits = max(_DENOMINATOR_BITS, _DENOMINATOR_BITS - exponent)
    denominator = 2**bits
    return Fraction(math.floor(Fraction(value) * denominator), denominator)


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
        """Uniform on the grid ``(j + 1/2) / 2**53 - 1/2``, ``j`` in {0, ..., 2**53 - 1}.

        Written as ``(2 j + 1 - 2**53) / 2**54``: the numerator is an odd integer
        of magnitude below 2**53 and the division is by a power of two, so every
        grid point is represented exactly (``(j + 0.5) / 2**53`` would round
        ``j + 0.5`` to an even integer for ``j >= 2**52``).
        """
        j = self._sys.getrandbits(_UNIFORM_BITS)
        return float(2 * j + 1 - 2**_UNIFORM_BITS) / 2.0 ** (_UNIFORM_BITS + 1)


def _secure_discrete_laplace(size, epsilon_per_unit):
    """Integer array of discrete Laplace draws, P(k) proportional to exp(-eps |k|).

    ``epsilon_per_unit`` is a Fraction (exact); callers build it from
    ``_rational_below`` so that it never exceeds the claimed level.
    """
    eps = Fraction(epsilon_per_unit)
    source = _SecureSource()
    draws = [source.discrete_laplace(eps.numerator, eps.denominator) for _ in range(int(np.prod(size)))]
    return np.array(draws, dtype=np.int64).reshape(size)


def _secure_tulap(size, epsilon, delta=0.0):
    """Tulap(0, exp(-eps'), q') draws: exact discrete Laplace plus a 2**-53-grid uniform.

    ``eps' = _rational_below(epsilon) <= epsilon`` and ``q'`` is the truncation
    that makes Tulap(0, exp(-eps'), q') (eps', delta)-DP (Awan & Slavkovic 2018,
    Thm. 2.4), so the law drawn is exactly one the theorem covers at a level no
    weaker than the one recorded.  Truncating the law built for ``epsilon``
    instead would cut the wider ``eps'`` law too early and could spend more
    than ``delta``.

    Draws outside ``[-c, c]`` are rejected, which conditions on the central mass
    as the truncated law does.  ``c`` is moved outward by ``1e-9 (1 + c)`` to
    absorb floating-point error in its computation: the delta actually spent is
    the (truncated) mass of the band ``[-c, -c + 1)``, which only falls as ``c``
    grows.  ``c`` is a multiple of 2**-53 (a float >= 1/2), hence a boundary of
    the uniform's grid, so the grid law keeps exactly the continuous law's band
    mass.  Private: ``epsilon`` > 0 finite, ``delta`` in [0, 1).

    Raises
    ------
    ValueError
        If ``epsilon < 1e-12`` (see :func:`_check_secure_epsilon`).
    """
    _check_secure_epsilon(epsilon)
    eps = _rational_below(epsilon)
    half_width = math.inf
    if delta > 0.0:
        from .distributions.tulap import Tulap

        c = float(Tulap.from_privacy(float(eps), delta).support[1])
        half_width = c + 1e-9 * (1.0 + c)
    source = _SecureSource()
    total = int(np.prod(size))
    out = np.empty(total)
    filled = 0
    while filled < total:
        value = source.discrete_laplace(eps.numerator, eps.denominator) + source.grid_uniform()
        if abs(value) <= half_width:
            out[filled] = value
            filled += 1
    return out.reshape(size)
