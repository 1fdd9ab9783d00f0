"""The Laplace releases' grid: where a released value lies and the noise's per-step ratio.

Package-internal interface (not in ``dpinfer.__all__``), the companion of
:mod:`dpinfer.distributions._laplace_law`: the releasers draw on this grid
(:mod:`dpinfer.releasers._secure_path`) and the exact inference reads the released law
from it (``count_grid``; :mod:`dpinfer.distributions._mean_grid` for a clipped sum), so
the two sides cannot drift apart.  Public numbers only; arguments assumed valid.

**The grid.**  A statistic ``v`` with sensitivity ``s`` is placed on the grid of step
``s / 2**g`` (``units = v / s``, clipped to ``[-B, B]`` with ``B`` public), discrete
Laplace noise with ratio ``exp(-epsilon / Delta)`` per step is added in integers, and
the integer is converted to a float once.  ``Delta`` is the largest grid distance
between neighbours: ``2**g`` when the units are integers (counts) or exact multiples of
the step; otherwise ``2**g + ceil(2**(g-52) B) + 1``, which covers the rounding of ``v /
s`` (relative ``2**-53``) and of the grid (one step).  ``g = min(24, 61 - bit_length(B +
C + 1))`` with ``C = ceil(764 / epsilon) + 1`` keeps every sum in 64-bit integers except
with probability below ``2**-1100``; the result is clipped to ``+-(2**62 - 1)`` steps
(post-processing).  At ``epsilon = 1``: a count or proportion is on the grid ``2**-24``
of a count (``Delta = 2**24``); a general value on ``2**-20`` of its sensitivity.  The
grid law's cdf is within ``epsilon / 2**(g+2)`` of the continuous Laplace cdf, so
inference made for continuous Laplace noise (normal approximation, DP-JIMI) applies to
within that.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = []  # package-internal: the names below are imported explicitly

#: the finest grid: ``2**-MAX_GRID_BITS`` units
MAX_GRID_BITS = 24
#: released integers are clipped to ``+-INT_LIMIT`` steps (post-processing)
INT_LIMIT = 2**62 - 1


def noise_reach(epsilon):
    """``C = ceil(764 / epsilon) + 1``: the noise's integer units exceed it with probability below ``2**-1100``."""
    return math.ceil(764.0 / epsilon) + 1


def grid_bits(bound, epsilon):
    """``g``: steps of ``2**-g`` units keep ``(B + C) 2**g`` inside 64-bit integers."""
    return min(MAX_GRID_BITS, 61 - (math.ceil(bound) + noise_reach(epsilon) + 1).bit_length())


def grid_step(bound, epsilon, scale=1.0):
    """The spacing of the released grid, in the statistic's units (``scale`` per unit)."""
    return scale * 2.0 ** -grid_bits(bound, epsilon)


def per_step(epsilon, steps):
    """``epsilon / steps`` rounded down (never more privacy loss than claimed)."""
    lam = epsilon / steps
    if Fraction(lam) > Fraction(epsilon) / steps:
        lam = math.nextafter(lam, 0.0)
    return lam


def count_grid(n, epsilon):
    """``(g, lam)`` of a Laplace count or proportion out of ``n``: grid ``2**-g`` of a count, ratio ``exp(-lam)``.

    :meth:`~dpinfer.LaplaceReleaser.count` and ``.proportion`` draw ``x 2**g + D`` with
    ``D`` discrete Laplace, ``P(D = d)`` proportional to ``exp(-lam |d|)``, ``lam`` the
    per-step epsilon rounded down (:func:`per_step`), and release it times ``2**-g``
    (``/ n``).
    """
    g = grid_bits(n, epsilon)
    return g, per_step(epsilon, 2**g)


def count_grid_resolves_whole(n, epsilon):
    """Whether a whole count (or a proportion ``k / n``) is told apart from Laplace releases out of ``n``.

    The resolver's rule for typed values (:func:`dpinfer.inference._resolve.unreleased`).
    True when ``n + C < 2**(52 - g)`` (``g`` of :func:`count_grid`, ``C`` of
    :func:`noise_reach`; ``n <= 2**28 - C`` at the full grid ``g = 24``, e.g. every ``n``
    below 2.6e8 at ``epsilon >= 0.1``).  Then a released count ``c = T / 2**g``
    (``|T| < 2**53``, except with probability below ``2**-1100``) is exact in a double,
    and is whole only when the discrete Laplace draw is a multiple of ``2**g``:
    probability ``tanh(lam / 2) / tanh(2**g lam / 2)`` (``lam`` of :func:`count_grid`;
    6.4e-8 at ``epsilon = 1``, about ``2**-g`` for small epsilon, ``epsilon 2**-(g+1)``
    for large).  A released proportion ``fl(c / n)`` that is not a whole count over ``n``
    equals no ``fl(k / n)``: ``c`` and ``k`` differ by at least ``2**-g``, so ``c / n`` and
    ``k / n`` by ``2**-g / n``, more than one unit in the last place of ``(n + C) / n``
    (at most ``2**-52 (n + C) / n``).  Beyond that size the doubles round the grid and
    the rule says nothing (False).
    """
    g, _ = count_grid(n, epsilon)
    return n + noise_reach(epsilon) < 2 ** (52 - g)
